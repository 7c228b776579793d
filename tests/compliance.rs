//! The steps of `fastchess --compliance`, replayed over pipes.
//!
//! fastchess's compliance check is a fixed script (in its source, `engine/compliance.hpp`):
//! start, `isready`, `id name` and `id author`, `ucinewgame`, two positions each followed by
//! `isready`, four `go` commands with a 100 ms clock (White's only; Black's only, with Black to
//! move in current releases and still White in older ones; both with increments, in both
//! orders), each of which must end in `bestmove` after an `info` line with a score whose
//! `time`, `nps` and `score` are integers, then a short game from the start. The tool itself is not installable on this machine
//! (no Debian package; the PyPI package of that name is an unrelated board library), so this
//! test plays the same script with the same acceptance rules, stricter where they are loose:
//! the move must be legal in the position sent and the score must be an exact one.

mod common;

use common::{bestmove_of, legal_moves_of, on_ci, relaxed, Ox88, LONG};
use std::time::Duration;

/// How fastchess finds the line it checks: the last `info` line with a ` score ` (not an
/// `info string`), and of the first line when there are several.
fn last_info_line(lines: &[String]) -> Option<&String> {
    lines.iter().rev().find(|l| {
        l.starts_with("info")
            && !l.starts_with("info string")
            && l.contains(" score ")
            && (!l.contains(" multipv ") || l.contains(" multipv 1 "))
    })
}

/// Sends `go`, reads to `bestmove`, and checks what the compliance steps check after it.
fn go_and_check(e: &mut Ox88, fen: &str, go: &str) {
    // fastchess waits for the move with its ping timeout; a 100 ms clock deserves far less.
    let within = if on_ci() { LONG } else { Duration::from_secs(2) };
    let sent = e.send(go);
    let lines = e.search_lines(within);
    let took = sent.elapsed();
    let best = lines.last().cloned().unwrap_or_default();
    let mv = bestmove_of(&best).to_string();
    if !legal_moves_of(fen, false).contains(&mv) {
        e.fail(&format!("`{go}`: {best} is not a legal move in {fen}"));
    }
    let Some(info) = last_info_line(&lines) else { e.fail(&format!("`{go}`: no info line with a score")) };
    let t: Vec<&str> = info.split_whitespace().collect();
    // fastchess's format check: `time`, `nps` and `score` are followed by integers.
    for key in ["time", "nps"] {
        let value = t.iter().position(|x| *x == key).and_then(|i| t.get(i + 1));
        if value.is_some_and(|v| v.parse::<u64>().is_err()) {
            e.fail(&format!("`{go}`: {key} is not an integer: {info}"));
        }
    }
    let score = t.iter().position(|x| *x == "score").map(|i| &t[i + 1..]);
    let exact = match score {
        Some([kind, n, rest @ ..]) => {
            (*kind == "cp" || *kind == "mate")
                && n.parse::<i64>().is_ok()
                && !matches!(rest.first(), Some(&"lowerbound" | &"upperbound"))
        }
        _ => false,
    };
    if !exact {
        e.fail(&format!("`{go}`: the last info line has no exact score: {info}"));
    }
    if took > relaxed(Duration::from_millis(1000)) {
        e.fail(&format!("`{go}` with 100 ms on the clock took {took:?}"));
    }
}

#[test]
fn the_fastchess_compliance_script_passes() {
    let mut e = Ox88::start();
    e.send("uci");
    let hello = e.until(LONG, "uciok", |l| l == "uciok");
    e.ready();
    let has = |prefix: &str| hello.iter().any(|l| l.starts_with(prefix) && l.len() > prefix.len());
    assert!(has("id name "), "no id name: {hello:#?}");
    assert!(has("id author "), "no id author: {hello:#?}");

    e.send("ucinewgame");
    e.ready();
    e.send("position startpos");
    e.ready();
    let fen = "3r2k1/p5n1/1pq1p2p/2p3p1/2P1P1n1/1P1P2pP/PN1Q2K1/5R2 w - - 0 27";
    e.send(&format!("position fen {fen}"));
    e.ready();
    go_and_check(&mut e, fen, "go wtime 100");
    // Older releases sent the next `go` still with White to move, newer ones with Black:
    // either way a move must come at once.
    go_and_check(&mut e, fen, "go btime 100");
    let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    e.send(&format!("position fen {black}"));
    for go in ["go btime 100", "go wtime 100 winc 100 btime 100 binc 100", "go btime 100 binc 100 wtime 100 winc 100"] {
        go_and_check(&mut e, black, go);
    }

    // The short game.
    e.send("ucinewgame");
    e.send("position startpos");
    go_and_check(&mut e, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "go wtime 100 btime 100");
    e.send("position startpos moves e2e4 e7e5");
    go_and_check(&mut e, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "go wtime 100 btime 100");
    e.assert_healthy();
    assert_eq!(e.finish(true, LONG), 0);
}
