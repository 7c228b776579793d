//! Castling notation: every move ox88 prints, in either mode, reads back as the same move from
//! any FEN ox88 accepted (fault B of docs/uci.md), and the readings that need a rule are pinned.
//!
//! Positions come from random games (fixed seed) out of standard, Chess960 (Shredder-FEN and
//! X-FEN) and castling-heavy starts, each read with and without the Chess960 flag.

use ox88::{MoveError, Position};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NRK3RN w GBgb - 0 1",
    "1r2k1r1/8/8/8/8/8/8/RR2K2R w Bg - 0 1",
    "4r3/3k4/8/8/8/8/6PP/qR1K1R2 w KQ - 0 1",
    // Kings next to their rooks: the king's target square is one file away or the king's own.
    "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w AGag - 0 1",
    "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1",
    "2r3kr/pppppppp/8/8/8/8/PPPPPPPP/2R3KR w HChc - 0 1",
];

/// Every legal move of `pos`, printed in both modes, must read back as itself.
fn check_round_trip(pos: &Position, fen: &str) {
    for &m in pos.legal_moves().iter() {
        for chess960 in [false, true] {
            let text = m.to_uci(chess960);
            assert_eq!(
                pos.parse_uci_move(&text),
                Ok(m),
                "'{fen}' (Chess960 flag {}): '{text}' printed with chess960={chess960}",
                pos.is_chess960()
            );
        }
    }
}

#[test]
fn every_printed_move_reads_back_in_both_modes() {
    let mut rng = StdRng::seed_from_u64(13);
    let mut positions = 0;
    for start in STARTS {
        for flag in [false, true] {
            let Ok(start_pos) = Position::from_fen_with(start, flag) else {
                continue;
            };
            for _game in 0..20 {
                let mut pos = start_pos.clone();
                for _ply in 0..40 {
                    check_round_trip(&pos, &pos.to_fen());
                    positions += 1;
                    let moves = pos.legal_moves();
                    // Prefer castling when there is one, so that castles are tried often.
                    let castle = moves.iter().copied().find(|m| m.is_castle());
                    let pick = match castle {
                        Some(c) if rand::Rng::gen_bool(&mut rng, 0.3) => c,
                        _ => match moves.choose(&mut rng) {
                            Some(&m) => m,
                            None => break,
                        },
                    };
                    pos.make(pick);
                }
            }
        }
    }
    assert!(positions > 5_000, "{positions}");
}

fn parse(fen: &str, chess960: bool, text: &str) -> Result<String, MoveError> {
    let pos = Position::from_fen_with(fen, chess960).unwrap();
    pos.parse_uci_move(text).map(|m| format!("{m:?}"))
}

#[test]
fn standard_castling_reads_in_both_notations() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    for chess960 in [false, true] {
        assert_eq!(parse(fen, chess960, "e1g1").unwrap(), "Move(e1h1)");
        assert_eq!(parse(fen, chess960, "e1h1").unwrap(), "Move(e1h1)");
        assert_eq!(parse(fen, chess960, "e1c1").unwrap(), "Move(e1a1)");
        assert_eq!(parse(fen, chess960, "E1A1").unwrap(), "Move(e1a1)");
    }
    // Shredder-FEN of a standard position without the Chess960 option: GUIs send `e1g1`.
    assert_eq!(parse("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", false, "e1g1").unwrap(), "Move(e1h1)");
    // Without the right, neither notation is legal.
    for text in ["e1g1", "e1h1"] {
        assert_eq!(parse("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", false, text), Err(MoveError::Illegal(text.into())));
    }
}

#[test]
fn a_king_step_is_never_read_as_castling() {
    // King f1, rook h1: `f1g1` is the king's step; castling is `f1h1`.
    let fen = "4k3/8/8/8/8/8/8/5K1R w H - 0 1";
    for chess960 in [false, true] {
        let pos = Position::from_fen_with(fen, chess960).unwrap();
        let step = pos.parse_uci_move("f1g1").unwrap();
        assert!(!step.is_castle());
        assert!(pos.parse_uci_move("f1h1").unwrap().is_castle());
    }
    // King b1, rook a1: `b1c1` is the king's step even where castling would put the king on c1.
    let fen = "4k3/8/8/8/8/8/8/RK6 w A - 0 1";
    let pos = Position::from_fen_with(fen, true).unwrap();
    assert!(!pos.parse_uci_move("b1c1").unwrap().is_castle());
    assert!(pos.parse_uci_move("b1a1").unwrap().is_castle());
    // With c1 attacked, neither the step nor castling is legal; `b1c1` is not castling either.
    let fen = "2r1k3/8/8/8/8/8/8/RK6 w A - 0 1";
    let pos = Position::from_fen_with(fen, true).unwrap();
    assert!(pos.parse_uci_move("b1c1").is_err());
}

#[test]
fn chess960_king_target_notation_is_read_when_it_is_no_king_step() {
    // King b1, rook h1: castling puts the king on g1, five files away.
    let fen = "4k3/8/8/8/8/8/8/1K5R w H - 0 1";
    let pos = Position::from_fen_with(fen, true).unwrap();
    let castle = pos.parse_uci_move("b1h1").unwrap();
    assert!(castle.is_castle());
    assert_eq!(pos.parse_uci_move("b1g1"), Ok(castle));
    assert_eq!(castle.to_uci(true), "b1h1");
    assert_eq!(castle.to_uci(false), "b1g1");
    // A king that does not move (g1 with the rook on h1) is written king-takes-rook in both modes.
    let fen = "4k3/8/8/8/8/8/8/6KR w H - 0 1";
    let pos = Position::from_fen_with(fen, true).unwrap();
    let castle = pos.parse_uci_move("g1h1").unwrap();
    assert!(castle.is_castle());
    assert_eq!(castle.to_uci(false), "g1h1");
    assert!(pos.parse_uci_move("g1g1").is_err());
}
