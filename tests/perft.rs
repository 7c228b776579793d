//! Perft acceptance tests against published leaf counts.
//!
//! Default run (every check whose expected count is at most 2,000,000 nodes; about 700 million
//! nodes in all, 15-20 s in release on a busy 2-core machine):
//!
//! ```text
//! cargo test --release --test perft -- --nocapture
//! ```
//!
//! Full run (every listed depth; the project files and the two standard suites take minutes,
//! `ethereal-fischer.epd` holds 524 billion nodes and takes hours, so skip it unless meant):
//!
//! ```text
//! OX88_FULL_PERFT=1 cargo test --release --test perft -- --nocapture --skip fischer
//! ```
//!
//! `OX88_PERFT_CAP=<nodes>` sets another cap for every test.
//!
//! The project's own files live in `perft-data/` (counts from published sources or Stockfish,
//! see each file's header). The public suites of the external data folder's `perft/` (see its
//! SOURCES.txt; the folder is `OX88_DATA`, else `../shared`) are run when they are there; when
//! not, they are skipped, and `external_data_summary` says so (with `OX88_REQUIRE_DATA=1` they fail).

mod common;

use ox88::perft::{parse_suite, perft, run_suite, PerftCase, SuiteReport};
use ox88::Position;
use std::path::{Path, PathBuf};
use std::time::Instant;

const DEFAULT_CAP: u64 = 2_000_000;

/// The node cap per check: unlimited with `OX88_FULL_PERFT=1`, else `OX88_PERFT_CAP`, else `default`.
fn node_cap(default: u64) -> u64 {
    if std::env::var("OX88_FULL_PERFT").is_ok_and(|v| v == "1") {
        return u64::MAX;
    }
    std::env::var("OX88_PERFT_CAP").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn project_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("perft-data").join(name)
}

fn read_cases(path: &Path) -> Vec<PerftCase> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_suite(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
}

/// Runs `cases` and fails with every mismatch (FEN, depth, expected, found) and FEN error.
fn run_and_check(label: &str, cases: &[PerftCase], chess960: bool, cap: u64) -> SuiteReport {
    let started = Instant::now();
    let report = run_suite(cases, cap, chess960, |_| {});
    println!(
        "{label}: {} positions, {} checks, {} nodes, {} checks above the cap of {cap}, {:.2?}",
        report.positions,
        report.checks,
        report.nodes,
        report.skipped,
        started.elapsed()
    );
    let mut problems: Vec<String> = report
        .mismatches
        .iter()
        .map(|m| format!("{} depth {}: expected {}, found {}", m.fen, m.depth, m.expected, m.found))
        .collect();
    problems.extend(report.fen_errors.iter().map(|(fen, e)| format!("{fen}: cannot be read: {e}")));
    assert!(problems.is_empty(), "{label}: {} failures\n{}", problems.len(), problems.join("\n"));
    assert!(report.checks > 0, "{label}: nothing was checked");
    report
}

// --- the project's own files ---

#[test]
fn standard_positions() {
    let cases = read_cases(&project_file("standard.epd"));
    assert_eq!(cases.len(), 7, "the six CPW positions plus mirrored position 4");
    let report = run_and_check("perft-data/standard.epd", &cases, false, node_cap(DEFAULT_CAP));
    assert!(report.checks >= 25);
}

#[test]
fn edge_case_positions() {
    let cases = read_cases(&project_file("edge-cases.epd"));
    assert!(cases.len() >= 30);
    let report = run_and_check("perft-data/edge-cases.epd", &cases, false, node_cap(DEFAULT_CAP));
    assert!(report.checks >= 150);
}

#[test]
fn chess960_positions() {
    let cases = read_cases(&project_file("chess960.epd"));
    assert!(cases.len() >= 15);
    let report = run_and_check("perft-data/chess960.epd", &cases, true, node_cap(DEFAULT_CAP));
    assert!(report.checks >= 60);
}

/// Positions of the standard file must also count right when read in Chess960 mode (only the
/// notation of castling changes, never the tree). Always capped: the full depths are the job
/// of `standard_positions`.
#[test]
fn standard_positions_in_chess960_mode() {
    let cases = read_cases(&project_file("standard.epd"));
    run_and_check("perft-data/standard.epd (Chess960 mode)", &cases, true, DEFAULT_CAP);
}

/// Perft leaves the position exactly as it found it.
#[test]
fn perft_restores_the_position() {
    for case in read_cases(&project_file("edge-cases.epd")).iter().take(12) {
        let mut pos = Position::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        let (fen, key) = (pos.to_fen(), pos.key());
        perft(&mut pos, 3);
        assert_eq!((pos.to_fen(), pos.key()), (fen, key), "{}", case.fen);
    }
}

// --- the shared public suites ---

#[test]
fn shared_perftsuite() {
    let Some(path) = common::external("perft", "shared_perftsuite") else {
        return;
    };
    let cases = read_cases(&path);
    assert_eq!(cases.len(), 126);
    run_and_check("shared perftsuite.epd", &cases, false, node_cap(DEFAULT_CAP));
}

#[test]
fn shared_ethereal_standard() {
    let Some(path) = common::external("perft", "shared_ethereal_standard") else {
        return;
    };
    let cases = read_cases(&path);
    assert_eq!(cases.len(), 128);
    run_and_check("shared ethereal-standard.epd", &cases, false, node_cap(DEFAULT_CAP));
}

#[test]
fn shared_ethereal_fischer() {
    let Some(path) = common::external("perft", "shared_ethereal_fischer") else {
        return;
    };
    let cases = read_cases(&path);
    assert_eq!(cases.len(), 960);
    run_and_check("shared ethereal-fischer.epd", &cases, true, node_cap(DEFAULT_CAP));
}

/// python-chess's tricky set. Per SOURCES.txt: the `xfen-*` positions use X-FEN castling
/// letters that only mean the outermost rook in Chess960 mode; `ep-unrelated-check` is an
/// unreachable position (Stockfish disagrees with the file) and is skipped. The
/// `asymmetrical-and-king-on-h` position gives `q` to a king on h8, a right standard FEN cannot
/// express, so it too is read in Chess960 (X-FEN) mode.
#[test]
fn shared_python_chess_tricky() {
    let Some(path) = common::external("perft", "shared_python_chess_tricky") else {
        return;
    };
    let cases = read_cases(&path);
    assert_eq!(cases.len(), 19);
    let name = |c: &PerftCase| c.name.clone().unwrap_or_default();
    let needs_960 = |c: &PerftCase| name(c).starts_with("xfen-") || name(c) == "asymmetrical-and-king-on-h";
    let kept: Vec<PerftCase> = cases.into_iter().filter(|c| name(c) != "ep-unrelated-check").collect();
    let (chess960, standard): (Vec<PerftCase>, Vec<PerftCase>) = kept.into_iter().partition(needs_960);
    assert_eq!((standard.len(), chess960.len()), (12, 6));
    let cap = node_cap(DEFAULT_CAP);
    run_and_check("shared python-chess-tricky.perft (standard)", &standard, false, cap);
    run_and_check("shared python-chess-tricky.perft (Chess960)", &chess960, true, cap);
}
