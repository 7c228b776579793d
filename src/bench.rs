//! `bench`: a fixed-depth search of a fixed list of positions, as a speed and regression
//! signature. Each position gets a fresh 16 MB hash and cleared history, one thread, no time
//! limit, so the node total is identical on every run and every machine; only the
//! nodes/second line depends on the machine.

use crate::engine::MAX_DEPTH;
use crate::position::Position;
use crate::search::{SearchLimits, Searcher, SharedControl};
use std::io::Write;
use std::time::Instant;

/// Default depth of `bench` (a few seconds in release on the development machine).
pub const DEFAULT_DEPTH: u32 = 12;

/// Opening, middle-game and end-game positions: the standard perft test positions, common
/// opening lines, tactical middle games, and pawn, rook and minor-piece endings.
pub const POSITIONS: [&str; 36] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkb1r/pp1ppppp/5n2/2p5/2P5/2N5/PP1PPPPP/R1BQKBNR w KQkq - 2 3",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/ppp1pppp/5n2/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 2 3",
    "r1bqk2r/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQK2R w KQkq - 0 6",
    "rnbqk2r/ppp1bppp/4pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 4 5",
    "r2q1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 10",
    "r1bq1rk1/pp3ppp/2nbpn2/3p4/2PP4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 9",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 0 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2NB4/PPP1Q1PP/2KR3R w - - 2 13",
    "r2qr1k1/1p1nbppp/p2pbn2/4p3/4P3/1NN1BP2/PPPQB1PP/2KR3R w - - 5 12",
    "2r2rk1/1bqnbppp/pp1ppn2/8/2PNP3/1PN1BP2/P2QB1PP/2RR2K1 w - - 0 14",
    "r4rk1/pp2qppp/2p1bn2/4p3/2P1P3/2N1Q3/PP3PPP/R3KB1R w KQ - 0 14",
    "3r1rk1/p4ppp/1pq1pn2/2p5/2P1P3/P1Q2P2/4B1PP/3R1RK1 w - - 0 20",
    "r1bq1rk1/ppp1nppp/4p3/3pP3/1b1P4/2NB1N2/PPP2PPP/R2QK2R w KQ - 1 8",
    "2rr2k1/1p2qp1p/p3pnp1/2b5/4P3/1BN1QP2/PPP3PP/3R1R1K b - - 4 22",
    "r3r1k1/2p2ppp/p1pb4/3p1b2/3P2q1/2P1B2P/PP1N1PP1/R2QR1K1 b - - 0 16",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/8/1p1r1k2/p1pPN1p1/P3KnP1/1P6/8/3R4 b - - 0 1",
    "8/5p2/4k3/1p1p4/1P1P1PK1/8/8/8 w - - 0 1",
    "8/8/3k4/8/8/1PK5/8/8 w - - 0 1",
    "6k1/5pp1/7p/8/8/6PP/5PK1/3R4 w - - 0 1",
    "8/4kp2/4p3/4P3/3K1P2/8/8/8 w - - 0 1",
    "8/3k4/8/3PK3/8/8/8/8 w - - 0 1",
    "5k2/8/8/8/8/3B4/3N4/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
];

/// Runs the bench, writing one line per position and then, as the last two lines,
/// `Nodes searched: N` and `Nodes/second: M`. Returns the node total. A depth outside
/// 1..=[`MAX_DEPTH`] (the search's own bound) is refused.
pub fn run_to(depth: Option<u32>, out: &mut dyn Write) -> Result<u64, String> {
    run_controlled(depth, out, &SharedControl::default())
}

/// The depth a bench runs at: `depth` or the default, if within 1..=[`MAX_DEPTH`].
pub fn check_depth(depth: Option<u32>) -> Result<u32, String> {
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(format!("depth {depth} refused: it must be between 1 and {MAX_DEPTH}"));
    }
    Ok(depth)
}

/// [`run_to`] under a control that can stop it: a stopped bench writes no total and returns
/// an error, since the total of a cut-short search is no signature.
pub fn run_controlled(depth: Option<u32>, out: &mut dyn Write, control: &SharedControl) -> Result<u64, String> {
    let depth = check_depth(depth)?;
    let mut searcher = Searcher::new(16);
    let limits = SearchLimits { depth: Some(depth), multipv: 1, ..Default::default() };
    let mut total = 0u64;
    let start = Instant::now();
    for (i, fen) in POSITIONS.iter().enumerate() {
        let pos = Position::from_fen(fen).map_err(|e| format!("bench position {}: {e}", i + 1))?;
        searcher.clear();
        let t = Instant::now();
        let outcome = searcher.search(&pos, &[], &limits, control, &mut |_| {});
        if control.stopped() {
            return Err(format!("stopped at position {} of {}", i + 1, POSITIONS.len()));
        }
        total += outcome.nodes;
        let best = outcome.best.map_or("0000".to_string(), |m| m.to_uci(pos.is_chess960()));
        writeln!(
            out,
            "Position {:2}/{}: bestmove {:6} nodes {:10} time {:6} ms  {}",
            i + 1,
            POSITIONS.len(),
            best,
            outcome.nodes,
            t.elapsed().as_millis(),
            fen
        )
        .map_err(|e| e.to_string())?;
    }
    let secs = start.elapsed().as_secs_f64();
    writeln!(out, "Nodes searched: {total}").map_err(|e| e.to_string())?;
    writeln!(out, "Nodes/second: {}", (total as f64 / secs.max(1e-9)) as u64).map_err(|e| e.to_string())?;
    Ok(total)
}

/// `ox88 bench [depth]` on `out`.
pub fn run(depth: Option<u32>, out: &mut dyn Write) -> Result<i32, String> {
    run_to(depth, out).map_err(|e| format!("bench: {e}"))?;
    Ok(0)
}
