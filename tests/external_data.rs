//! One line on what the checks needing data from outside the repository did: all ran, or which
//! were skipped and why. The line goes straight to stderr, past the test harness's capture, so
//! that a plain `cargo test` shows it. With `OX88_REQUIRE_DATA=1` (as `.ci/run` sets it) a skip
//! fails this test as well; `CI=true` alone does not make it fail.

mod common;

use common::{data_demanded, data_required, external_data, ExternalCheck, EXTERNAL_CHECKS};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// `perft::{a, b}; syzygy::{c}`: the checks by test target, in list order.
fn names(checks: &[&ExternalCheck]) -> String {
    let mut by_target: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in checks {
        match by_target.iter_mut().find(|(t, _)| *t == c.target) {
            Some((_, tests)) => tests.push(c.test),
            None => by_target.push((c.target, vec![c.test])),
        }
    }
    by_target.iter().map(|(t, tests)| format!("{t}::{{{}}}", tests.join(", "))).collect::<Vec<_>>().join("; ")
}

/// The summary line, and whether any check is skipped.
fn summary() -> (String, bool) {
    let mut missing: BTreeMap<String, Vec<&ExternalCheck>> = BTreeMap::new();
    for c in EXTERNAL_CHECKS {
        if let Err(why) = c.data() {
            missing.entry(why).or_default().push(c);
        }
    }
    let total = EXTERNAL_CHECKS.len();
    if missing.is_empty() {
        let dir = external_data().map(|d| d.display().to_string()).unwrap_or_default();
        return (format!("external data: {dir} has the data of all {total} external checks; none is skipped"), false);
    }
    let skipped: usize = missing.values().map(Vec::len).sum();
    let reasons: Vec<String> =
        missing.iter().map(|(why, checks)| format!("{why}, so not run: {}", names(checks))).collect();
    let line = format!(
        "external data: {skipped} of {total} checks SKIPPED (set OX88_DATA to the data folder to run them): {}",
        reasons.join(" | ")
    );
    (line, true)
}

#[test]
fn external_data_summary() {
    let (line, skipped) = summary();
    // Written past the capture, the one line a plain `cargo test` must show, in one write so
    // that the harness's own lines cannot cut into it.
    let _ = std::io::stderr().write_all(format!("\n{line}\n").as_bytes());
    let why = if data_demanded() {
        "OX88_REQUIRE_DATA=1: every external check must run"
    } else {
        "OX88_DATA names no folder"
    };
    assert!(!(skipped && data_required()), "{line}\n({why})");
}

/// The list names real tests, once each, and no test builds the path to the data itself, so
/// the summary speaks of every check there is.
#[test]
fn the_list_of_external_checks_is_the_whole_truth() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for (i, c) in EXTERNAL_CHECKS.iter().enumerate() {
        assert!(
            !EXTERNAL_CHECKS[..i].iter().any(|d| d.target == c.target && d.test == c.test),
            "{} is listed twice",
            c.name()
        );
        let file = tests.join(format!("{}.rs", c.target));
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // A plain test function, or one a macro makes from `name: …`.
        let defined = text.lines().map(str::trim_start).any(|l| match l.strip_prefix("fn ") {
            Some(f) => f.strip_prefix(c.test).is_some_and(|rest| rest.starts_with('(')),
            None => l.strip_prefix(c.test).is_some_and(|rest| rest.starts_with(':')),
        });
        assert!(defined, "{} is listed in EXTERNAL_CHECKS but {} defines no such test", c.name(), file.display());
    }
    for entry in std::fs::read_dir(&tests).expect("tests/") {
        let path = entry.expect("entry").path();
        // This file names the needle it looks for.
        if path.extension().is_some_and(|x| x == "rs") && !path.ends_with("external_data.rs") {
            let text = std::fs::read_to_string(&path).expect("read");
            assert!(
                !text.contains("\"../shared") && !text.contains("OX88_DATA\")"),
                "{} finds the external data itself; use common::external",
                path.display()
            );
        }
    }
}
