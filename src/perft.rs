//! Perft: counting the leaves of the legal move tree, the move generator's acceptance test.
//!
//! Suites are read from EPD lines (`FEN ;D1 20 ;D2 400 ...`) or from python-chess `.perft`
//! blocks (`id`, `epd`, `perft <depth> <count>` lines).

use crate::movegen::gen;
use crate::mv::{Move, MoveList};
use crate::position::Position;
use crate::FenError;
use std::fmt;

/// Leaf count of the legal move tree `depth` plies deep (bulk counting at the last ply).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal_moves();
    }
    let mut moves = MoveList::new();
    pos.generate::<{ gen::ALL }, MoveList>(&mut moves);
    let mut nodes = 0;
    for &m in moves.iter() {
        let undo = pos.make(m);
        nodes += perft(pos, depth - 1);
        pos.unmake(m, &undo);
    }
    nodes
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&m| {
            let undo = pos.make(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.unmake(m, &undo);
            (m, n)
        })
        .collect()
}

/// One suite position with its published counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    pub name: Option<String>,
    pub fen: String,
    /// (depth, expected leaf count), in file order.
    pub expected: Vec<(u32, u64)>,
}

/// A suite line that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for SuiteParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}
impl std::error::Error for SuiteParseError {}

/// Reads EPD perft lines and python-chess `.perft` blocks; `#` starts a comment line.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, SuiteParseError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    let mut pending_name: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let err = |message: String| SuiteParseError { line: i + 1, message };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix("id ") {
            pending_name = Some(name.trim().to_string());
        } else if let Some(fen) = line.strip_prefix("epd ") {
            cases.push(PerftCase { name: pending_name.take(), fen: fen.trim().to_string(), expected: vec![] });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let case = cases.last_mut().ok_or_else(|| err("perft line before any epd line".into()))?;
            let mut parts = rest.split_whitespace();
            let depth =
                parts.next().and_then(|d| d.parse().ok()).ok_or_else(|| err(format!("bad depth in '{line}'")))?;
            let count =
                parts.next().and_then(|c| c.parse().ok()).ok_or_else(|| err(format!("bad count in '{line}'")))?;
            case.expected.push((depth, count));
        } else {
            let mut fields = line.split(';');
            let fen = fields.next().unwrap_or("").trim().to_string();
            let mut expected = Vec::new();
            for field in fields {
                let field = field.trim();
                if field.is_empty() {
                    continue;
                }
                let mut parts = field.split_whitespace();
                let depth = parts
                    .next()
                    .and_then(|d| d.strip_prefix('D').or_else(|| d.strip_prefix('d')))
                    .and_then(|d| d.parse().ok())
                    .ok_or_else(|| err(format!("bad depth field '{field}'")))?;
                let count =
                    parts.next().and_then(|c| c.parse().ok()).ok_or_else(|| err(format!("bad count in '{field}'")))?;
                expected.push((depth, count));
            }
            cases.push(PerftCase { name: None, fen, expected });
        }
    }
    Ok(cases)
}

/// One depth of one position that did not match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub fen: String,
    pub depth: u32,
    pub expected: u64,
    pub found: u64,
}

/// What a suite run found.
#[derive(Clone, Debug, Default)]
pub struct SuiteReport {
    pub positions: usize,
    pub checks: usize,
    pub nodes: u64,
    pub skipped: usize,
    pub mismatches: Vec<Mismatch>,
    pub fen_errors: Vec<(String, FenError)>,
}

impl SuiteReport {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty() && self.fen_errors.is_empty()
    }
}

/// Runs every case at every listed depth whose expected count is at most `max_nodes`.
/// `progress` is told the expected node count of each check as it finishes.
pub fn run_suite(cases: &[PerftCase], max_nodes: u64, chess960: bool, mut progress: impl FnMut(u64)) -> SuiteReport {
    let mut report = SuiteReport::default();
    for case in cases {
        let mut pos = match Position::from_fen_with(&case.fen, chess960) {
            Ok(p) => p,
            Err(e) => {
                report.fen_errors.push((case.fen.clone(), e));
                continue;
            }
        };
        report.positions += 1;
        for &(depth, expected) in &case.expected {
            if expected > max_nodes {
                report.skipped += 1;
                continue;
            }
            let found = perft(&mut pos, depth);
            report.checks += 1;
            report.nodes += found;
            progress(expected);
            if found != expected {
                report.mismatches.push(Mismatch { fen: case.fen.clone(), depth, expected, found });
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_suite_formats() {
        let text = "# comment\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\r\n\
                    id kiwipete\nepd r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -\nperft 1 48\n";
        let cases = parse_suite(text).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].expected, vec![(1, 20), (2, 400)]);
        assert_eq!(cases[1].name.as_deref(), Some("kiwipete"));
        assert_eq!(cases[1].expected, vec![(1, 48)]);
        assert!(parse_suite("8/8/8/8/8/8/8/8 w - - ;Dx 5").is_err());
    }

    #[test]
    fn start_position_to_depth_four() {
        // Published: chessprogramming.org "Perft Results", initial position.
        let mut pos = Position::startpos();
        assert_eq!(perft(&mut pos, 4), 197_281);
        let split = divide(&mut pos, 3);
        assert_eq!(split.len(), 20);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 8_902);
    }
}
