//! The binary's edges over pipes and from the shell: a closed stdout (commands and the UCI
//! loop exit 0 without a panic), a perft suite that checks nothing, `go perft` and `bench`
//! leaving `isready`, `stop` and `quit` answered, and the `Debug Log File` option.
//!
//! `OX88_BIN=path cargo test --release --test edges` runs them against another build.

mod common;

use common::{on_ci, timing_lock, Ox88, LONG};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// `ox88 ARGS` with its stdout closed before it writes anything: it must exit 0, silently.
fn run_with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(common::binary())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ox88");
    drop(child.stdout.take());
    let code = common::wait_for_exit(&mut child, Duration::from_secs(60));
    if code.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let mut err = String::new();
    if let Some(mut s) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut s, &mut err);
    }
    (code, err)
}

#[test]
fn edge_commands_exit_zero_without_a_panic_when_stdout_is_closed() {
    for args in [&["perft", "4"][..], &["perft", "3", "--divide"], &["perftree", "2", STARTPOS], &["bench", "2"]] {
        let (code, err) = run_with_closed_stdout(args);
        assert!(
            code == Some(0) && !err.contains("panicked"),
            "ox88 {args:?} with stdout closed: exit {code:?}, stderr:\n{err}"
        );
    }
    // As it was met in a shell.
    let out =
        Command::new("sh").arg("-c").arg(format!("'{}' perft 5 | head -1", common::binary())).output().expect("sh");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "ox88 perft 5 | head -1:\n{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Nodes searched: 4865609");
}

#[test]
fn edge_uci_with_stdout_closed_quits_with_code_zero() {
    let mut child = Command::new(common::binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ox88");
    // The GUI died: its end of our stdout is gone, its end of our stdin stays open.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let started = Instant::now();
    for line in ["uci", "isready", "go depth 20", "isready", "go infinite"] {
        use std::io::Write;
        if writeln!(stdin, "{line}").and_then(|_| stdin.flush()).is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let code = common::wait_for_exit(&mut child, Duration::from_secs(3).saturating_sub(started.elapsed()));
    if code.is_none() {
        let _ = child.kill();
    }
    let _ = child.wait();
    let mut err = String::new();
    if let Some(mut s) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut s, &mut err);
    }
    drop(stdin);
    assert!(
        code == Some(0) && !err.contains("panicked"),
        "ox88 with its stdout closed must quit with code 0: exit {code:?}, stderr:\n{err}"
    );
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("ox88-faults-{}-{name}", std::process::id()))
}

#[test]
fn edge_a_perft_suite_that_checks_nothing_fails() {
    // Published counts (startpos 20, 400, 8902; Kiwipete 48, 2039).
    let counted = temp_path("counted.epd");
    std::fs::write(
        &counted,
        format!(
            "{STARTPOS} ;D1 20 ;D2 400 ;D3 8902\n\
             r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 ;D1 48 ;D2 2039\n"
        ),
    )
    .expect("write");
    let uncounted = temp_path("uncounted.epd");
    std::fs::write(&uncounted, format!("{STARTPOS}\n4k3/8/8/8/8/8/8/4K2R w K - 0 1\n")).expect("write");
    let run = |args: &[&str]| {
        let out = Command::new(common::binary()).args(args).output().expect("run ox88");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    };
    let counted_s = counted.to_string_lossy().into_owned();
    let uncounted_s = uncounted.to_string_lossy().into_owned();
    let (ok, text) = run(&["perft-suite", &counted_s, "--max-nodes", "100000"]);
    assert_eq!(ok, Some(0), "a suite that checks something and passes:\n{text}");
    for args in [vec!["perft-suite", &counted_s, "--max-nodes", "1"], vec!["perft-suite", &uncounted_s]] {
        let (code, text) = run(&args);
        assert!(code.is_some_and(|c| c != 0), "ox88 {args:?} checked nothing and must fail (exit {code:?}):\n{text}");
    }
    let _ = std::fs::remove_file(counted);
    let _ = std::fs::remove_file(uncounted);
}

/// Sends `isready` while `task` runs and fails unless `readyok` comes within `answer`.
fn expect_readyok_within(e: &mut Ox88, answer: Duration, task: &str) {
    let sent = e.send("isready");
    match e.wait_for(answer, "readyok") {
        Some((at, _)) if at.duration_since(sent) <= answer => {}
        _ => e.fail(&format!("isready during {task} is not answered")),
    }
}

#[test]
fn edge_go_perft_and_bench_do_not_block_isready_stop_or_quit() {
    let _t = timing_lock();
    let answer = Duration::from_millis(if on_ci() { 600 } else { 300 });
    // Perft 7 of the start position takes far longer than any bound here.
    let mut e = Ox88::start();
    e.send("go perft 7");
    std::thread::sleep(Duration::from_millis(100));
    expect_readyok_within(&mut e, answer, "go perft");
    e.send("stop");
    e.send("go depth 1");
    if e.wait_for(Duration::from_secs(2), "bestmove").is_none() {
        e.fail("stop does not end go perft");
    }
    // `quit` lets a task finish (tests/input_limits.rs), so `stop` ends these long ones first.
    e.send("go perft 7");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    let code = e.finish(true, Duration::from_secs(1));
    assert_eq!(code, 0);

    let mut e = Ox88::start();
    e.send("bench 30");
    std::thread::sleep(Duration::from_millis(100));
    expect_readyok_within(&mut e, answer, "bench");
    e.send("stop");
    let code = e.finish(true, Duration::from_secs(1));
    assert_eq!(code, 0);
}

#[test]
fn edge_debug_log_file_records_both_directions_with_timestamps() {
    let path = temp_path("debug.log");
    std::fs::write(&path, "an earlier session\n").expect("write");
    let mut e = Ox88::start();
    e.send("uci");
    let lines = e.until(LONG, "uciok", |l| l == "uciok");
    if !lines.iter().any(|l| l.starts_with("option name Debug Log File type string")) {
        e.fail("no Debug Log File option");
    }
    e.send(&format!("setoption name Debug Log File value {}", path.display()));
    e.ready();
    e.send("go depth 2");
    e.bestmove(LONG);
    e.send("setoption name Debug Log File value <empty>");
    e.send("position startpos moves e2e4");
    e.ready();
    e.finish(true, Duration::from_secs(2));
    let log = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.first(), Some(&"an earlier session"), "the log is appended to:\n{log}");
    let find = |text: &str| lines.iter().filter(|l| l.ends_with(text)).copied().collect::<Vec<&str>>();
    let (inbound, outbound) = (find("isready"), find("readyok"));
    assert_eq!(inbound.len(), 1, "one isready while logging:\n{log}");
    assert_eq!(outbound.len(), 1, "one readyok while logging:\n{log}");
    assert!(lines.iter().any(|l| l.contains("bestmove ")), "no bestmove in the log:\n{log}");
    // The command sent after switching off, not its move: the search may play e2e4 itself.
    assert!(!log.contains("position startpos"), "logged after it was switched off:\n{log}");
    // Timestamp and direction: what precedes the text has digits, and the marks differ.
    let mark = |line: &str, text: &str| -> String {
        let head = &line[..line.len() - text.len()];
        assert!(head.chars().any(|c| c.is_ascii_digit()), "no timestamp: {line}");
        head.chars().filter(|c| !c.is_ascii_digit()).collect()
    };
    let (a, b) = (mark(inbound[0], "isready"), mark(outbound[0], "readyok"));
    assert_ne!(a, b, "input and output lines carry the same direction mark:\n{log}");
}
