//! Hashed and threaded perft give the plain count, on every position of every EPD suite.
//!
//! Each check whose published count is at most `OX88_HASHED_PERFT_CAP` (default 30,000 leaves,
//! depths 2 to 4 mostly) is counted plainly and then by `divide_in` with threads and tables:
//! one bucket of four entries shared by the whole file (so replacement happens at nearly every
//! store, and positions of different roots, Chess960 castling rooks included, meet in the same
//! entries), a few hundred buckets, and no table at all. Every count must equal the plain one
//! and the published one. The suite runner is checked the same way, on three threads.
//!
//! The public suites live in the external data folder's `perft/` (`OX88_DATA`, else `../shared`).
//! Without them that test is skipped, and `external_data_summary` says so (with `OX88_REQUIRE_DATA=1` it fails).
//!
//! `cargo test --release --test perft_hashed -- --nocapture` prints what was checked.

mod common;

use ox88::perft::table::PerftTable;
use ox88::perft::{divide_in, parse_suite, perft, run_suite_in, PerftCase, PerftControl};
use ox88::Position;
use std::path::{Path, PathBuf};

fn cap() -> u64 {
    std::env::var("OX88_HASHED_PERFT_CAP").ok().and_then(|v| v.parse().ok()).unwrap_or(30_000)
}

fn read_cases(path: &Path) -> Vec<PerftCase> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_suite(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
}

/// Every `.epd` file of a folder, sorted, each with whether it is read in Chess960 mode.
fn epd_files(dir: &Path) -> Vec<(PathBuf, bool)> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "epd"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let chess960 = name.contains("960") || name.contains("fischer");
            (p, chess960)
        })
        .collect()
}

/// Checks one file; returns the number of (check, configuration) pairs compared.
fn check_file(path: &Path, chess960: bool) -> usize {
    let cases = read_cases(path);
    let cap = cap();
    let one_bucket = PerftTable::with_buckets(1).expect("one bucket");
    let few_buckets = PerftTable::with_buckets(300).expect("300 buckets");
    let configurations: [(usize, Option<&PerftTable>); 4] =
        [(1, Some(&one_bucket)), (3, Some(&one_bucket)), (2, Some(&few_buckets)), (3, None)];
    let mut compared = 0;
    for case in &cases {
        let pos = Position::from_fen_with(&case.fen, chess960).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        for &(depth, expected) in case.expected.iter().filter(|&&(_, n)| n <= cap) {
            let plain = perft(&mut pos.clone(), depth);
            assert_eq!(plain, expected, "{} depth {depth}: the plain count differs from the published one", case.fen);
            for (threads, table) in configurations {
                let control = PerftControl::new();
                let parts = divide_in(&pos, depth, threads, table, &control, |_, _| {})
                    .unwrap_or_else(|e| panic!("{} depth {depth}: {e}", case.fen));
                let total: u64 = if depth == 0 { 1 } else { parts.iter().map(|(_, n)| n).sum() };
                let size = table.map_or(0, |t| t.capacity());
                assert_eq!(total, plain, "{} depth {depth}, {threads} threads, {size}-entry table", case.fen);
                compared += 1;
            }
        }
    }
    let control = PerftControl::new();
    let report = run_suite_in(&cases, cap, chess960, 3, Some(&one_bucket), &control, |_| {});
    assert!(report.passed(), "{}: suite runner on a one-bucket table: {:?}", path.display(), report.mismatches);
    assert!(report.checks > 0, "{}: nothing under the cap of {cap}", path.display());
    println!(
        "{}: {} positions, {compared} hashed or threaded counts equal the plain ones",
        path.display(),
        cases.len()
    );
    compared
}

#[test]
fn project_suites() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("perft-data");
    let files = epd_files(&dir);
    assert!(files.len() >= 3, "perft-data/ should hold the project's three EPD files");
    let compared: usize = files.iter().map(|(p, chess960)| check_file(p, *chess960)).sum();
    assert!(compared > 500);
}

#[test]
fn shared_suites() {
    let Some(dir) = common::external("perft_hashed", "shared_suites") else {
        return;
    };
    let files = epd_files(&dir);
    assert!(files.len() >= 3, "expected perftsuite, ethereal-standard and ethereal-fischer in {}", dir.display());
    let compared: usize = files.iter().map(|(p, chess960)| check_file(p, *chess960)).sum();
    assert!(compared > 5_000);
}
