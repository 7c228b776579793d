//! Drives the real `ox88` binary over pipes, through the harness of `tests/common`: every read
//! has a timeout, so a hang fails the test instead of blocking it; every failure prints the
//! conversation so far. Every bound on how soon ox88 answers goes through `relaxed`, the
//! project's loaded-machine relaxation; a bound that ox88 must not answer before does not.

mod common;

use common::{relaxed, timing_lock, Ox88, LONG, SHORT};
use std::time::{Duration, Instant};

const FOOLS_MATE: &str = "position startpos moves f2f3 e7e5 g2g4 d8h4";
const STALEMATE: &str = "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";

/// The legal moves of a standard position, as ox88 writes them.
fn legal_moves_of(fen: &str) -> Vec<String> {
    common::legal_moves_of(fen, false)
}

#[test]
fn uci_handshake_is_fast_and_nothing_comes_before_it() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    assert!(e.quiet_for(SHORT).is_empty(), "output before uci:\n{}", e.log.join("\n"));
    let t = Instant::now();
    e.send("uci");
    let lines = e.until(relaxed(Duration::from_secs(1)), "uciok", |l| l == "uciok");
    assert!(t.elapsed() < relaxed(Duration::from_secs(1)), "uciok took {:?}", t.elapsed());
    assert_eq!(lines[0], format!("id name ox88 {}", env!("CARGO_PKG_VERSION")));
    assert!(lines[1].starts_with("id author "));
    for opt in [
        "option name Hash type spin default 16 min 1 max 65536",
        "option name Clear Hash type button",
        "option name Threads type spin default 1 min 1 max 256",
        "option name MultiPV type spin default 1 min 1 max 64",
        "option name Ponder type check default false",
        "option name Move Overhead type spin default 50 min 0 max 10000",
        "option name UCI_Chess960 type check default false",
        "option name EvalFile type string default <embedded>",
    ] {
        assert!(lines.iter().any(|l| l == opt), "missing {opt}:\n{}", lines.join("\n"));
    }
    assert_eq!(e.finish(true, relaxed(Duration::from_secs(2))), 0);
}

#[test]
fn setoption_and_isready_before_uci_are_accepted() {
    let mut e = Ox88::start();
    e.send("setoption name Hash value 32");
    e.send("setoption name clear hash");
    e.send("isready");
    let lines = e.until(LONG, "readyok", |l| l == "readyok");
    assert_eq!(lines, vec!["readyok"], "{}", e.log.join("\n"));
    e.send("uci");
    e.expect(LONG, "uciok");
}

#[test]
fn bad_options_are_reported_and_change_nothing() {
    let mut e = Ox88::start();
    for (line, word) in [
        ("setoption name Hash value 0", "Hash"),
        ("setoption name Threads value 257", "Threads"),
        ("setoption name Ponder value yes", "Ponder"),
        ("setoption name Frobnicate value 3", "Frobnicate"),
    ] {
        e.send(line);
        let l = e.expect(LONG, "info string");
        assert!(l.contains(word), "{line}: {l}");
    }
    e.ready();
}

#[test]
fn isready_is_answered_during_a_search_and_stop_gives_one_bestmove() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    e.send("isready");
    let lines = e.until(LONG, "readyok", |l| l == "readyok");
    assert!(t.elapsed() < relaxed(Duration::from_millis(500)), "readyok took {:?}", t.elapsed());
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")));
    e.send("stop");
    let best = e.bestmove(LONG);
    let mv = best.split_whitespace().nth(1).unwrap_or("").to_string();
    assert!(legal_moves_of(ox88::fen::STARTPOS).contains(&mv), "{best}");
    e.send("stop");
    e.assert_no_bestmove_for(SHORT, "a second stop after the search ended");
    e.ready();
}

#[test]
fn two_threads_search_stop_together_and_find_mates() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    e.send("setoption name Threads value 2");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    e.send("stop");
    let best = e.bestmove(LONG);
    assert!(t.elapsed() < relaxed(Duration::from_millis(500)), "stop took {:?}", t.elapsed());
    let mv = best.split_whitespace().nth(1).unwrap_or("").to_string();
    let fen = e.fen();
    assert!(legal_moves_of(&fen).contains(&mv), "{best}");
    // Two rooks against a king on the seventh rank: mate in 3.
    e.send("position fen 8/6k1/8/8/8/8/8/RR4K1 w - - 0 1");
    e.send("go mate 3");
    let lines = e.until(LONG, "bestmove", |l| l.starts_with("bestmove"));
    assert!(lines.iter().any(|l| l.contains("score mate 3")), "{}", lines.join("\n"));
    e.ready();
    assert_eq!(e.finish(true, relaxed(Duration::from_secs(2))), 0);
}

#[test]
fn bare_go_and_infinite_wait_for_stop_even_when_mated() {
    let mut e = Ox88::start();
    e.send(FOOLS_MATE);
    e.send("go infinite");
    e.assert_no_bestmove_for(Duration::from_millis(500), "go infinite while mated waits for stop");
    e.send("stop");
    assert_eq!(e.bestmove(LONG), "bestmove (none)");
    e.send("position startpos");
    e.send("go");
    e.assert_no_bestmove_for(Duration::from_millis(500), "a bare go waits for stop");
    e.send("stop");
    e.bestmove(LONG);
    e.send("stop");
    e.assert_no_bestmove_for(SHORT, "a stop after the search ended");
}

#[test]
fn mated_and_stalemated_sides_answer_bestmove_none() {
    let mut e = Ox88::start();
    for pos in [FOOLS_MATE, STALEMATE] {
        e.send(pos);
        e.send("go depth 5");
        assert_eq!(e.bestmove(LONG), "bestmove (none)");
        e.send("go wtime 1000 btime 1000");
        assert_eq!(e.bestmove(LONG), "bestmove (none)");
    }
}

#[test]
fn huge_go_numbers_do_not_crash() {
    let mut e = Ox88::start();
    e.send(FOOLS_MATE);
    for line in ["go depth 256", "go mate 300", "go depth 1000", "go depth 99999999999999999999999999"] {
        e.send(line);
        assert_eq!(e.bestmove(LONG), "bestmove (none)", "{line}");
    }
    e.send("position startpos");
    e.send("go wtime 300 btime 300 movestogo 300");
    e.bestmove(LONG);
    e.send("go nodes 1000000000000000 movetime 200");
    e.bestmove(LONG);
    e.ready();
}

#[test]
fn ponder_holds_the_bestmove_until_ponderhit_or_stop() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    e.send("position startpos moves e2e4");
    e.send("go ponder wtime 1000 btime 1000 winc 10 binc 10");
    e.assert_no_bestmove_for(Duration::from_millis(700), "pondering waits for ponderhit");
    let t = Instant::now();
    e.send("ponderhit");
    e.bestmove(LONG);
    assert!(t.elapsed() < relaxed(Duration::from_millis(1500)), "after ponderhit: {:?}", t.elapsed());
    // A ponder search whose own limit is reached early still waits.
    e.send("go ponder depth 1");
    e.assert_no_bestmove_for(Duration::from_millis(500), "a ponder search at its depth limit waits");
    e.send("stop");
    e.bestmove(LONG);
    e.send(FOOLS_MATE);
    e.send("go ponder wtime 1000 btime 1000");
    e.assert_no_bestmove_for(Duration::from_millis(300), "pondering while mated waits for ponderhit");
    e.send("ponderhit");
    assert_eq!(e.bestmove(LONG), "bestmove (none)");
    e.send("stop");
    e.assert_no_bestmove_for(SHORT, "a stop after ponderhit's bestmove");
}

/// The budget itself is pinned in `time.rs`; here the binary shares the cores with the other
/// tests, so the upper bound only catches a search that ignores `movetime`.
#[test]
fn movetime_is_honoured() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    for ms in [100u64, 400] {
        let t = Instant::now();
        e.send(&format!("go movetime {ms}"));
        e.bestmove(LONG);
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(ms * 8 / 10), "movetime {ms}: {took:?}");
        assert!(took < relaxed(Duration::from_millis(ms + 500)), "movetime {ms}: {took:?}");
    }
}

#[test]
fn tiny_negative_and_one_sided_clocks_answer_at_once() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    for line in
        ["go wtime -500 btime 1000", "go wtime 1 btime 6354 winc 1000 binc 1000", "go wtime 0 btime 0", "go wtime 100"]
    {
        e.send("position startpos");
        let t = Instant::now();
        e.send(line);
        let lines = e.until(LONG, "bestmove", |l| l.starts_with("bestmove"));
        assert!(t.elapsed() < relaxed(Duration::from_millis(1000)), "{line}: {:?}", t.elapsed());
        let best = lines.last().cloned().unwrap_or_default();
        let mv = best.split_whitespace().nth(1).unwrap_or("").to_string();
        assert!(legal_moves_of(ox88::fen::STARTPOS).contains(&mv), "{line}: {best}");
    }
    // C9: only the mover's clock, and an exact score before the move.
    e.send("position startpos moves e2e4");
    e.send("go btime 100");
    let lines = e.until(LONG, "bestmove", |l| l.starts_with("bestmove"));
    assert!(lines.iter().any(|l| l.starts_with("info depth") && l.contains(" score cp ")), "{lines:?}");
}

#[test]
fn info_lines_have_the_uci_fields() {
    let mut e = Ox88::start();
    e.send("go depth 3");
    let lines = e.until(LONG, "bestmove", |l| l.starts_with("bestmove"));
    let info: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert!(!info.is_empty(), "{lines:?}");
    for l in &info {
        if l.contains(" currmove ") {
            assert!(l.contains(" currmovenumber "), "{l}");
            continue;
        }
        for field in [" seldepth ", " score ", " nodes ", " nps ", " time ", " pv "] {
            assert!(l.contains(field), "{field} missing: {l}");
        }
    }
    let best = lines.last().cloned().unwrap_or_default();
    let parts: Vec<&str> = best.split_whitespace().collect();
    assert!(parts.len() == 2 || (parts.len() == 4 && parts[2] == "ponder"), "{best}");
}

#[test]
fn bad_positions_are_reported_and_the_previous_position_is_kept() {
    let mut e = Ox88::start();
    e.send("position startpos moves e2e4 e7e5");
    let good = e.fen();
    for (line, token) in [
        ("position fen hello", "hello"),
        ("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e5", "e2e5"),
        ("position startpos moves e2e4 0000 d2d4", "0000"),
        ("position startpos moves e2e4 e7e5 g1f3 zz", "zz"),
        ("position fen 8/8/8/8/8/8/8/8 w - - 0 1", "king"),
        ("position fen kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w - - 0 1", "king"),
        ("position fen QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/k7/8/8/8/K7 w - - 0 1", "16"),
        ("position", "position"),
        ("position startpos e2e4", "e2e4"),
    ] {
        e.send(line);
        let l = e.expect(LONG, "info string");
        assert!(l.contains(token), "{line}: {l}");
        assert_eq!(e.fen(), good, "{line}");
    }
}

#[test]
fn whitespace_tabs_crlf_and_uppercase_promotions() {
    let mut e = Ox88::start();
    e.send_raw(b"position\tstartpos   moves  e2e4\t e7e5 \r\n");
    assert_eq!(e.fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    e.send("  position   fen   7k/P7/8/8/8/8/8/K7   w - -   moves   A7A8Q  ");
    assert_eq!(e.fen(), "Q6k/8/8/8/8/8/8/K7 b - - 0 1");
    e.send_raw(b"isready\r\n");
    e.expect(LONG, "readyok");
}

#[test]
fn chess960_castling_follows_the_option() {
    let mut e = Ox88::start();
    e.send("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    e.send("go depth 2 searchmoves e1g1");
    assert!(e.bestmove(LONG).starts_with("bestmove e1g1"));
    e.send("setoption name UCI_Chess960 value true");
    e.send("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    e.send("go depth 2 searchmoves e1h1");
    assert!(e.bestmove(LONG).starts_with("bestmove e1h1"));
    // Shredder-FEN and X-FEN, as cutechess and lichess-bot send them.
    e.send("position fen nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NRK3RN w GBgb - 0 1 moves c1g1");
    assert_eq!(e.fen(), "nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NR3RKN b gb - 1 1");
    e.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    assert!(e.fen().starts_with("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w "));
    e.send("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah -");
    assert_eq!(e.fen(), ox88::fen::STARTPOS);
}

#[test]
fn commands_during_a_search_stop_it_first() {
    let mut e = Ox88::start();
    for (cmd, fen_after) in [
        ("position startpos moves e2e4", Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")),
        ("ucinewgame", Some(ox88::fen::STARTPOS)),
        ("go depth 1", None),
    ] {
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(100));
        e.send(cmd);
        e.bestmove(LONG);
        if let Some(fen) = fen_after {
            assert_eq!(e.fen(), fen, "{cmd}");
        } else {
            e.bestmove(LONG);
        }
        e.assert_no_bestmove_for(SHORT, "after the search that the command stopped");
    }
}

#[test]
fn quit_mid_search_and_eof_exit_promptly_with_code_zero() {
    let mut e = Ox88::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(e.finish(true, relaxed(Duration::from_secs(1))), 0);
    let mut e = Ox88::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(e.finish(false, relaxed(Duration::from_secs(1))), 0);
    let e = Ox88::start();
    assert_eq!(e.finish(false, relaxed(Duration::from_secs(1))), 0);
}

#[test]
fn unknown_commands_and_garbled_go_are_reported() {
    let mut e = Ox88::start();
    e.send("foo bar");
    assert_eq!(e.expect(LONG, "info string"), "info string unknown command: foo bar");
    for line in ["isreadyx", "quit now"] {
        e.send(line);
        let l = e.expect(LONG, "info string");
        assert!(!l.contains('\n'), "{l}");
        e.assert_no_bestmove_for(Duration::from_millis(100), "an unknown command starts no search");
    }
    // A garbled `go` is reported and still searched with what was understood: the GUI
    // gets its best move rather than losing on time.
    for line in ["go depth x", "go wtime", "go wtime abc btime 1000"] {
        e.send(line);
        let l = e.expect(LONG, "info string");
        assert!(!l.contains('\n'), "{l}");
        assert!(e.bestmove(LONG).starts_with("bestmove "));
    }
    // An illegal move of `searchmoves` is reported and left out; what remains is a bare
    // `go`, which searches until `stop`.
    e.send("go searchmoves e2e5");
    assert!(e.expect(LONG, "info string").contains("e2e5"));
    e.assert_no_bestmove_for(Duration::from_millis(100), "a go whose searchmoves were all illegal waits for stop");
    e.send("stop");
    assert!(e.bestmove(LONG).starts_with("bestmove "));
    e.send("joho debug on");
    e.send_raw(b"\xff\xfe garbage \x00\n");
    e.send("");
    e.ready();
}

#[test]
fn perft_display_and_eval_commands() {
    let mut e = Ox88::start();
    e.send("go perft 3");
    let lines = e.until(LONG, "Nodes searched", |l| l.starts_with("Nodes searched"));
    assert_eq!(lines.len(), 22, "{lines:?}");
    assert!(lines.contains(&"e2e4: 600".to_string()));
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 8902");
    assert_eq!(e.quiet_for(SHORT), vec![String::new()]);
    e.send(FOOLS_MATE);
    e.send("d");
    let lines = e.until(LONG, "Checkers", |l| l.starts_with("Checkers"));
    assert!(lines.iter().any(|l| l.starts_with("Key: ")), "{lines:?}");
    assert_eq!(lines.last().map(String::as_str), Some("Checkers: h4"));
    e.send("eval");
    e.expect(LONG, "Static evaluation: ");
    e.send("bench 1");
    e.expect(Duration::from_secs(60), "Nodes searched");
    e.ready();
}

#[test]
fn the_last_pv_shown_starts_with_the_move_played() {
    // Searches cut off at every kind of moment: the last `info ... pv` before each
    // `bestmove` must begin with that move (match runners check it).
    let mut e = Ox88::start();
    let positions = [
        "position startpos",
        "position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    for i in 0..40 {
        e.send(positions[i % positions.len()]);
        e.send(&format!("go movetime {}", 20 + 23 * i));
        let lines = e.until(LONG, "bestmove", |l| l.starts_with("bestmove"));
        let best = lines.last().and_then(|l| l.split_whitespace().nth(1)).unwrap_or_default().to_string();
        let last_pv = lines
            .iter()
            .rev()
            .find_map(|l| l.split(" pv ").nth(1).and_then(|pv| pv.split_whitespace().next()))
            .unwrap_or_default()
            .to_string();
        assert_eq!(last_pv, best, "search {i}:\n{}", lines.join("\n"));
    }
}

/// The engine's threads as the kernel lists them: (thread id, name), sorted.
#[cfg(target_os = "linux")]
fn threads_of(e: &Ox88) -> Vec<(String, String)> {
    let dir = format!("/proc/{}/task", e.child.id());
    let mut threads: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("the engine's task list")
        .filter_map(|task| {
            let task = task.ok()?;
            let name = std::fs::read_to_string(task.path().join("comm")).ok()?;
            Some((task.file_name().to_string_lossy().into_owned(), name.trim().to_string()))
        })
        .collect();
    threads.sort();
    threads
}

#[test]
#[cfg(target_os = "linux")]
fn searches_reuse_their_threads() {
    let mut e = Ox88::start();
    e.send("setoption name Threads value 3");
    e.send("position startpos moves e2e4");
    e.send("go depth 6");
    e.bestmove(LONG);
    e.ready();
    // A new thread carries its parent's name until it first runs and names itself; on a
    // starved machine a helper may not have run yet when the search ends, so wait for it.
    let named = |t: &[(String, String)]| t.iter().filter(|t| t.1.starts_with("helper")).count();
    let deadline = Instant::now() + LONG;
    let mut first = threads_of(&e);
    while named(&first) < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        first = threads_of(&e);
    }
    assert_eq!(named(&first), 2, "{first:?}");
    for go in ["go depth 7", "go movetime 100", "go nodes 20000", "go perft 3", "go depth 5"] {
        e.send("position startpos moves d2d4");
        e.send(go);
        if go.contains("perft") {
            e.expect(LONG, "Nodes searched");
        } else {
            e.bestmove(LONG);
        }
        e.ready();
        assert_eq!(threads_of(&e), first, "after {go}: no thread started or ended");
    }
    e.send("setoption name Threads value 1");
    e.send("go depth 4");
    e.bestmove(LONG);
    e.ready();
    let after = threads_of(&e);
    assert!(after.iter().all(|t| !t.1.starts_with("helper")), "the helpers end with Threads 1: {after:?}");
    assert_eq!(after.len(), first.len() - 2, "{after:?}");
    assert_eq!(e.finish(true, relaxed(Duration::from_secs(2))), 0);
}
