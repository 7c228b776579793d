//! Output text: moves, `info` and `bestmove` lines.
//!
//! `id`, `option`, `uciok` and `readyok` are serialised by vampirc; `info` (vampirc writes
//! `currmovenum`, and limits depth to u8 and mate to i8) and `bestmove` (no `(none)`, no
//! Chess960 castling) are written here. Whether castling is written as Chess960 (king takes
//! rook) is the session's setting, passed to every function that writes a move.

use crate::engine::Event;
use crate::mv::Move;
use crate::search::Report;
use crate::value::{Bound, Score};
use std::time::Duration;

/// `currmove` lines start after this much search time.
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);

/// A move as UCI writes it: castling as king to its target, or king takes rook (Chess960).
pub fn move_text(m: Move, chess960: bool) -> String {
    m.to_uci(chess960)
}

/// The `bestmove` line: `bestmove (none)` when there is no legal move.
pub fn format_bestmove(best: Option<Move>, ponder: Option<Move>, chess960: bool) -> String {
    match (best, ponder) {
        (None, _) => "bestmove (none)".to_string(),
        (Some(b), None) => format!("bestmove {}", move_text(b, chess960)),
        (Some(b), Some(p)) => format!("bestmove {} ponder {}", move_text(b, chess960), move_text(p, chess960)),
    }
}

/// The `info` line of a search report, or `None` (a current move in the first second).
pub fn format_report(report: &Report, chess960: bool) -> Option<String> {
    format_report_wdl(report, chess960, None)
}

/// [`format_report`]; with `wdl_material` (`UCI_ShowWDL` on: the material of the searched
/// position) every score is followed by `wdl W D L` from [`crate::wdl`].
pub fn format_report_wdl(report: &Report, chess960: bool, wdl_material: Option<i32>) -> Option<String> {
    match report {
        Report::Iteration { depth, seldepth, multipv, score, bound, nodes, time, hashfull, tbhits, pv } => {
            let wdl = wdl_material.map(|m| crate::wdl::wdl(*score, m));
            let score = match score {
                Score::Centipawns(cp) => format!("cp {cp}"),
                Score::Mate(m) => format!("mate {m}"),
            };
            let score = match wdl {
                Some(w) => format!("{score} wdl {} {} {}", w.win, w.draw, w.loss),
                None => score,
            };
            let bound = match bound {
                Bound::Exact => "",
                Bound::Lower => " lowerbound",
                Bound::Upper => " upperbound",
            };
            let micros = time.as_micros().max(1);
            let nps = u128::from(*nodes) * 1_000_000 / micros;
            let mut line = format!(
                "info depth {depth} seldepth {seldepth} multipv {multipv} score {score}{bound} nodes {nodes} nps {nps} \
                 hashfull {hashfull} tbhits {tbhits} time {}",
                time.as_millis()
            );
            if !pv.is_empty() {
                line.push_str(" pv");
                for m in pv {
                    line.push(' ');
                    line.push_str(&move_text(*m, chess960));
                }
            }
            Some(line)
        }
        Report::CurrentMove { depth, mv, number, time, .. } => (*time >= CURRMOVE_AFTER)
            .then(|| format!("info depth {depth} currmove {} currmovenumber {number}", move_text(*mv, chess960))),
    }
}

/// The line an engine event becomes, moves written in the session's notation, scores with
/// `wdl` when `wdl_material` is given.
pub fn format_event(event: &Event, chess960: bool, wdl_material: Option<i32>) -> Option<String> {
    match event {
        Event::Report(report) => format_report_wdl(report, chess960, wdl_material),
        Event::BestMove { best, ponder } => Some(format_bestmove(*best, *ponder, chess960)),
        Event::NoPosition => Some("bestmove 0000".to_string()),
    }
}
