//! Move generation benchmarks (criterion).
//!
//! - legal move generation over a fixed list of positions (0x88, and the mailbox reference);
//! - make/unmake of every legal move over the list;
//! - attack detection: the attack-table walk (`Position::is_attacked`) against the naive ray
//!   scan (`ox88::attacks::is_attacked_by_ray_scan`), over every square and both colours;
//! - perft(4) of the start position and of Kiwipete, checked against the published counts,
//!   for the 0x88 generator and for the mailbox reference doing the same work.
//!
//! `cargo bench --bench movegen -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use ox88::attacks::is_attacked_by_ray_scan;
use ox88::perft::perft;
use ox88::{Color, Position, Square};
use ox88_mailbox::MailboxBoard;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Openings, middlegames, endgames and a Chess960 position (CPW "Perft Results" and others).
const FENS: &[&str] = &[
    START,
    KIWIPETE,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "2r3k1/pp3ppp/4p3/3n4/3P4/P4N2/1P3PPP/2R3K1 b - - 0 24",
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
];

fn positions() -> Vec<Position> {
    FENS.iter().map(|fen| Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))).collect()
}

fn mailbox_boards() -> Vec<MailboxBoard> {
    FENS.iter().map(|fen| MailboxBoard::from_fen(fen).unwrap_or_else(|| panic!("mailbox cannot read {fen}"))).collect()
}

fn move_generation(c: &mut Criterion) {
    let list = positions();
    let boards = mailbox_boards();
    let mut group = c.benchmark_group("movegen");
    group.bench_function("0x88 legal_moves over the list", |b| {
        b.iter(|| list.iter().map(|p| black_box(p).legal_moves().len()).sum::<usize>())
    });
    group.bench_function("0x88 legal_tactical_moves over the list", |b| {
        b.iter(|| list.iter().map(|p| black_box(p).legal_tactical_moves().len()).sum::<usize>())
    });
    group.bench_function("mailbox legal_moves over the list", |b| {
        b.iter(|| boards.iter().map(|p| black_box(p).legal_moves().len()).sum::<usize>())
    });
    group.finish();
}

fn make_unmake(c: &mut Criterion) {
    let mut list = positions();
    let moves: Vec<_> = list.iter().map(|p| p.legal_moves()).collect();
    c.bench_function("make/unmake every legal move over the list", |b| {
        b.iter(|| {
            let mut keys = 0u64;
            for (pos, moves) in list.iter_mut().zip(&moves) {
                for &m in moves.iter() {
                    let undo = pos.make(m);
                    keys ^= pos.key();
                    pos.unmake(m, &undo);
                }
            }
            keys
        })
    });
}

fn attack_detection(c: &mut Criterion) {
    let list = positions();
    // Both methods must agree before their speed is worth comparing.
    for pos in &list {
        for sq in Square::all() {
            for by in [Color::White, Color::Black] {
                assert_eq!(pos.is_attacked(sq, by), is_attacked_by_ray_scan(pos, sq, by), "{pos:?} {sq}");
            }
        }
    }
    let mut group = c.benchmark_group("is_attacked, all squares x both colours over the list");
    group.bench_function("attack-table walk", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for pos in &list {
                for sq in Square::all() {
                    hits += pos.is_attacked(black_box(sq), Color::White) as u32;
                    hits += pos.is_attacked(black_box(sq), Color::Black) as u32;
                }
            }
            hits
        })
    });
    group.bench_function("naive ray scan", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for pos in &list {
                for sq in Square::all() {
                    hits += is_attacked_by_ray_scan(pos, black_box(sq), Color::White) as u32;
                    hits += is_attacked_by_ray_scan(pos, black_box(sq), Color::Black) as u32;
                }
            }
            hits
        })
    });
    group.finish();
}

fn perft_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft(4)");
    group.sample_size(10);
    // Published: chessprogramming.org "Perft Results".
    for (name, fen, expected) in [("start", START, 197_281u64), ("kiwipete", KIWIPETE, 4_085_603)] {
        let mut pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        group.bench_function(format!("0x88 {name}"), |b| {
            b.iter(|| {
                let nodes = perft(&mut pos, 4);
                assert_eq!(nodes, expected, "0x88 perft(4) of {name}");
                nodes
            })
        });
        let board = MailboxBoard::from_fen(fen).unwrap_or_else(|| panic!("mailbox cannot read {fen}"));
        group.bench_function(format!("mailbox {name}"), |b| {
            b.iter(|| {
                let nodes = board.perft(4);
                assert_eq!(nodes, expected, "mailbox perft(4) of {name}");
                nodes
            })
        });
    }
    group.finish();
}

criterion_group!(benches, move_generation, make_unmake, attack_detection, perft_benches);
criterion_main!(benches);
