//! No number and no line kills the engine: every number a GUI, a script or a suite file can
//! send is bounded, or refused with an `info string` (UCI) or an error and a non-zero exit
//! (command line), never a signal; and a script that pipes a command and then `quit` (or
//! just ends) gets the command's output. Each case is driven over pipes against the binary.
//!
//! `OX88_BIN=path cargo test --release --test input_limits` runs them against another build.

mod common;

use common::{bestmove_of, legal_moves_of, Ox88, LONG};
use std::time::{Duration, Instant};

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// Both kings shuffle between two corner squares and nothing else can move (every pawn is
/// blocked head-on with nothing to take, each bishop hemmed in by its own pawns): one legal
/// move a ply, so perft is 1 at every depth, and the count really recurses that deep.
const ONE_LINE: &str = "4b2k/3pPp1p/3P1P1P/8/8/p1p1p3/P1PpP3/K2B4 w - - 0 1";
/// Published: Nenad Petrović (1964), 218 legal moves, the most known in any position.
const PETROVIC: &str = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1";
/// The deepest perft accepted.
const PERFT_BOUND: &str = "64";

/// Runs `ox88 ARGS`, sends `script` and closes the input; every line written and the exit
/// code (-1 for a signal). Fails if the process does not end within `within`.
fn piped(args: &[&str], script: &[&str], within: Duration) -> (Ox88, Vec<String>, i32) {
    let mut e = Ox88::start_with(args);
    for line in script {
        e.send(line);
    }
    e.close_stdin();
    let deadline = Instant::now() + within;
    let mut lines = Vec::new();
    while let Some(l) = e.next_line(deadline) {
        lines.push(l);
    }
    let code = e.wait_exit(Duration::from_secs(2)).unwrap_or_else(|| e.fail("ox88 did not exit"));
    (e, lines, code)
}

/// A command line that must be refused: exit code 2 (never a signal) and `message` on stderr.
fn assert_refused(args: &[&str], message: &str) {
    let (e, _, code) = piped(args, &[], LONG);
    // Stderr is read on a thread of its own, which may lag behind the exit.
    let deadline = Instant::now() + LONG;
    while !e.stderr().contains(message) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    if code != 2 || !e.stderr().contains(message) {
        e.fail(&format!("ox88 {args:?}: exit {code}, expected 2 and '{message}' on stderr"));
    }
}

fn has(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

#[test]
fn perft_beyond_the_bound_is_refused_and_at_the_bound_it_counts() {
    let refused = format!("the bound is {PERFT_BOUND}");
    let script = [
        "position startpos",
        "go perft 3000",
        "perft 65",
        "go perft 4294967295",
        "go perft 99999999999999999999",
        "isready",
        "quit",
    ];
    let (e, lines, code) = piped(&[], &script, LONG);
    let refusals = lines.iter().filter(|l| l.starts_with("info string") && l.contains(&refused)).count();
    if code != 0 || refusals != 4 || !has(&lines, "readyok") {
        e.fail(&format!("exit {code}, {refusals} refusals naming the bound"));
    }
    for args in [
        &["perft", "3000"][..],
        &["perft", "65", "--divide"],
        &["perft", "3000", "--hash", "1", "--threads", "2"],
        &["perftree", "3000", STARTPOS],
    ] {
        assert_refused(args, &refused);
    }
    // At the bound every way of counting recurses that deep, on its own threads.
    for args in [
        &["perft", PERFT_BOUND, "--fen", ONE_LINE][..],
        &["perft", PERFT_BOUND, "--fen", ONE_LINE, "--divide", "--hash", "1", "--threads", "2"],
    ] {
        let (e, lines, code) = piped(args, &[], LONG);
        if code != 0 || !has(&lines, "Nodes searched: 1") {
            e.fail(&format!("ox88 {args:?}: exit {code}"));
        }
    }
    let (e, lines, code) = piped(&[], &[&format!("position fen {ONE_LINE}"), "go perft 64", "quit"], LONG);
    if code != 0 || !has(&lines, "a1b1: 1") || !has(&lines, "Nodes searched: 1") {
        e.fail(&format!("go perft 64 of a single line: exit {code}"));
    }
}

#[test]
fn a_suite_depth_beyond_the_bound_is_refused_with_its_line() {
    let dir = std::env::temp_dir().join(format!("ox88-input-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let deep = dir.join("deep.epd");
    std::fs::write(&deep, format!("{ONE_LINE} ;D1 1\n{STARTPOS} ;D1 20 ;D3000 1\n")).expect("write");
    assert_refused(
        &["perft-suite", deep.to_str().expect("path")],
        &format!("line 2: depth 3000 is beyond the perft bound of {PERFT_BOUND}"),
    );
    let at_bound = dir.join("at-bound.epd");
    std::fs::write(&at_bound, format!("{ONE_LINE} ;D1 1 ;D{PERFT_BOUND} 1\n")).expect("write");
    let (e, lines, code) = piped(&["perft-suite", at_bound.to_str().expect("path"), "--threads", "2"], &[], LONG);
    if code != 0 || !has(&lines, "checks 2 ") || !has(&lines, "mismatches 0 ") {
        e.fail(&format!("suite at the bound: exit {code}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quit_and_the_end_of_input_let_perft_and_bench_finish() {
    // Published: chessprogramming.org "Perft Results", initial position, depth 4.
    for script in [&["position startpos", "go perft 4", "quit"][..], &["position startpos", "go perft 4"]] {
        let (e, lines, code) = piped(&[], script, LONG);
        if code != 0 || !has(&lines, "Nodes searched: 197281") {
            e.fail(&format!("{script:?}: exit {code}, no 'Nodes searched: 197281'"));
        }
    }
    for script in [&["bench 2", "quit"][..], &["bench 2"]] {
        let (e, lines, code) = piped(&[], script, Duration::from_secs(60));
        let total = lines.iter().any(|l| l.starts_with("Nodes searched: "));
        if code != 0 || !total || !lines.last().is_some_and(|l| l.starts_with("Nodes/second: ")) {
            e.fail(&format!("{script:?}: exit {code}, no bench total"));
        }
    }
}

#[test]
fn stop_still_ends_a_task_and_quit_still_ends_a_search_at_once() {
    let mut e = Ox88::start();
    // Perft 7 and a depth-30 bench take far longer than any wait here.
    for task in ["go perft 7", "bench 30"] {
        e.send(task);
        std::thread::sleep(Duration::from_millis(200));
        e.send("stop");
        e.send("isready");
        let lines = e.until(LONG, "readyok", |l| l == "readyok");
        if has(&lines, "Nodes searched") {
            e.fail(&format!("'{task}' gave a total after stop"));
        }
    }
    e.send("go depth 1");
    e.bestmove(LONG);
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("quit");
    e.close_stdin();
    let lines = e.quiet_for(Duration::from_secs(2));
    let code = e.wait_exit(Duration::from_millis(100));
    if code != Some(0) || lines.iter().filter(|l| l.starts_with("bestmove")).count() != 1 {
        e.fail(&format!("quit during go infinite: exit {code:?}"));
    }
}

#[test]
fn every_number_of_go_is_bounded_and_answered_by_one_bestmove() {
    // (command, info string it must bring, whether it needs `stop` to end)
    let cases: [(&str, Option<&str>, bool); 16] = [
        ("go depth 3000", Some("go depth 3000 is outside 1-120: using 120"), true),
        ("go depth 256", Some("go depth 256 is outside 1-120: using 120"), true),
        ("go depth 0", Some("go depth 0 is outside 1-120: using 1"), false),
        ("go mate 300", Some("go mate 300 is outside 1-60: using 60"), true),
        ("go mate 0", Some("go mate 0 is outside 1-60: using 1"), false),
        ("go nodes 0", Some("go nodes 0 is below 1: using 1"), false),
        ("go nodes 99999999999999999999999", None, true),
        ("go wtime 1000 btime 1000 movestogo 0", None, false),
        ("go wtime 1000 btime 1000 movestogo 99999999999999999999", None, false),
        ("go movetime 0", None, false),
        ("go movetime -9223372036854775808", None, false),
        ("go movetime 18446744073709551615", None, true),
        ("go wtime -9223372036854775808 btime -1 winc -5", None, false),
        ("go wtime 9223372036854775807 btime 18446744073709551615 winc 18446744073709551615", None, true),
        ("go wtime 1e9 btime 1e9", Some("wtime: '1e9' is not a valid number"), false),
        ("go depth -1", Some("depth: '-1' is not a valid number"), false),
    ];
    let mut e = Ox88::start();
    for (go, info, needs_stop) in cases {
        e.send("position startpos");
        e.send(go);
        if needs_stop {
            std::thread::sleep(Duration::from_millis(150));
            e.send("stop");
        }
        let lines = e.search_lines(LONG);
        if let Some(text) = info {
            if !lines.iter().any(|l| l.starts_with("info string") && l.contains(text)) {
                e.fail(&format!("'{go}': no info string '{text}'"));
            }
        }
        let best = lines.last().cloned().unwrap_or_default();
        if !legal_moves_of(STARTPOS, false).iter().any(|m| m == bestmove_of(&best)) {
            e.fail(&format!("'{go}': {best} is not a legal move"));
        }
        // Exactly one bestmove: nothing more arrives before the next command's answer.
        e.send("isready");
        let after = e.until(LONG, "readyok", |l| l == "readyok");
        if has(&after, "bestmove") {
            e.fail(&format!("'{go}': a second bestmove"));
        }
    }
    e.assert_healthy();
    assert_eq!(e.finish(true, LONG), 0);
}

#[test]
fn a_bench_depth_out_of_range_is_refused() {
    let script = ["bench 0", "bench 121", "bench 99999999999", "isready", "quit"];
    let (e, lines, code) = piped(&[], &script, LONG);
    let refusals =
        lines.iter().filter(|l| l.starts_with("info string bench") && l.contains("between 1 and 120")).count();
    if code != 0 || refusals != 3 || !has(&lines, "readyok") || has(&lines, "Nodes searched") {
        e.fail(&format!("exit {code}, {refusals} refusals"));
    }
    for depth in ["0", "121", "4294967295"] {
        assert_refused(&["bench", depth], "between 1 and 120");
    }
}

#[test]
fn material_no_game_can_reach_is_refused_and_the_most_crowded_position_counts() {
    let unreachable = [
        ("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "more than 8 white pawns"),
        ("kn6/pp6/8/QQQQQQQ1/QQQQQQQQ/8/8/4K3 w - - 0 1", "beyond the starting set: 14; pawns missing: 8"),
        ("nnnk4/pppppppp/8/8/8/8/8/4K3 b - - 0 1", "black has more pieces than promotions can give"),
    ];
    let mut e = Ox88::start();
    for (fen, reason) in unreachable {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 1");
        let lines = e.search_lines(LONG);
        if !lines.iter().any(|l| l.starts_with("info string") && l.contains(reason)) {
            e.fail(&format!("{fen}: no info string '{reason}'"));
        }
        if bestmove_of(lines.last().map_or("", |l| l.as_str())) != "0000" {
            e.fail(&format!("{fen}: a move from a position the engine refused"));
        }
        assert_refused(&["perft", "1", "--fen", fen], reason);
    }
    e.send(&format!("position fen {PETROVIC}"));
    e.send("go perft 1");
    e.expect(LONG, "Nodes searched: 218");
    assert_eq!(e.finish(true, LONG), 0);
}
