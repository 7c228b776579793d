//! The tunable numbers over UCI: with the `tune` feature each is a spin option that changes
//! the next search, and the defaults search exactly as the build without the feature
//! (`cargo test --release --features tune --test tune`). Without the feature the options
//! do not exist.

mod common;

use common::{Ox88, LONG};
use ox88::search::params::TABLE;
#[cfg(feature = "tune")]
use std::process::Command;

/// The bench signature of the build without the feature: `OX88_BENCH` when the caller measured
/// that build (`.ci/run` does), else the count the README's bench line promises. Reading it
/// rather than writing it here keeps the signature in one place besides the commit messages.
#[cfg(feature = "tune")]
fn signature() -> u64 {
    if let Ok(v) = std::env::var("OX88_BENCH") {
        return v.trim().parse().expect("OX88_BENCH is a node count");
    }
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md");
    let line = readme.lines().find(|l| l.starts_with("ox88 bench ")).expect("the README's bench line");
    let count = line.split("Nodes searched: ").nth(1).expect("the bench line names the node count");
    count.chars().take_while(char::is_ascii_digit).collect::<String>().parse().expect("a node count")
}

#[cfg(feature = "tune")]
/// The nodes of `go depth 9` from the start position in a fresh engine, after `options`.
fn nodes_after(options: &[&str]) -> u64 {
    let mut e = Ox88::start();
    for line in options {
        e.send(line);
    }
    e.send("position startpos");
    e.send("go depth 9");
    let lines = e.search_lines(LONG * 6);
    let info = lines.iter().rev().find(|l| l.starts_with("info depth 9 ") && l.contains(" pv ")).cloned();
    let Some(info) = info else { e.fail("no depth 9 line") };
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "nodes").expect("nodes field");
    words[at + 1].parse().expect("a node count")
}

fn declared_options() -> Vec<String> {
    let mut e = Ox88::start();
    e.send("uci");
    e.until(LONG, "uciok", |l| l == "uciok")
}

#[cfg(feature = "tune")]
#[test]
fn bench_with_the_defaults_is_the_signature_of_the_build_without_the_feature() {
    let out = Command::new(common::binary()).arg("bench").output().expect("ox88 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("Nodes searched: ")).expect("a node count");
    assert_eq!(line, format!("Nodes searched: {}", signature()));
}

#[cfg(feature = "tune")]
#[test]
fn every_tunable_number_is_a_spin_option() {
    let lines = declared_options();
    for p in TABLE {
        let want = format!("option name {} type spin default {} min {} max {}", p.name, p.default, p.min, p.max);
        assert!(lines.contains(&want), "missing: {want}");
    }
}

#[cfg(feature = "tune")]
#[test]
fn a_value_changes_the_next_search_and_one_out_of_range_is_refused() {
    let default = nodes_after(&[]);
    // The default sent explicitly searches as none sent.
    assert_eq!(nodes_after(&["setoption name rfp_margin value 80"]), default);
    assert_ne!(nodes_after(&["setoption name rfp_margin value 40"]), default, "rfp_margin changes nothing");
    // The reductions are a table built from two entries: it must be built again.
    assert_ne!(nodes_after(&["setoption name lmr_base_pct value 150"]), default, "the LMR table was not rebuilt");

    let mut e = Ox88::start();
    e.send("setoption name rfp_margin value 29");
    let refused = e.expect(LONG, "info string");
    assert!(refused.contains("rfp_margin") && refused.contains("30") && refused.contains("160"), "{refused}");
    e.send("setoption name rfp_margin value 99999999999999999999");
    e.expect(LONG, "info string");
    e.assert_healthy();
    // Refused values leave the default in place.
    assert_eq!(nodes_after(&["setoption name rfp_margin value 29", "setoption name rfp_margin value -1"]), default);
}

#[cfg(feature = "tune")]
#[test]
fn spsa_inputs_are_the_table_in_openbench_form() {
    let out = Command::new(common::binary()).arg("spsa-inputs").output().expect("ox88 runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), TABLE.len(), "{text}");
    for (line, p) in lines.iter().zip(TABLE) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        assert_eq!(fields[..5], [p.name, "int", &p.default.to_string(), &p.min.to_string(), &p.max.to_string()]);
        assert_eq!(fields[5].parse::<f64>(), Ok(p.c_end));
        assert_eq!(fields[6].parse::<f64>(), Ok(p.r_end));
    }
}

#[cfg(not(feature = "tune"))]
#[test]
fn without_the_feature_no_number_is_an_option() {
    let lines = declared_options();
    for p in TABLE {
        assert!(!lines.iter().any(|l| l.starts_with(&format!("option name {} ", p.name))), "{} declared", p.name);
    }
    let mut e = Ox88::start();
    e.send("setoption name rfp_margin value 40");
    let refused = e.expect(LONG, "info string");
    assert!(refused.contains("rfp_margin"), "{refused}");
    e.send("spsa-inputs");
    let said = e.expect(LONG, "info string");
    assert!(said.contains("tune"), "{said}");
}
