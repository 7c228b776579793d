//! `UCI_LimitStrength` and `UCI_Elo` over pipes: the options as a GUI sends them, a limited
//! search that still answers at once, thinks less than the clock allows and plays legal moves,
//! the default search left as it was, and lower settings that are measurably weaker.
//!
//! `OX88_BIN=path cargo test --release --test strength` runs them against another build.

mod common;

use common::{bestmove_of, legal_moves_of, on_ci, timing_lock, Ox88, LONG};
use ox88::strength::{Strength, MAX_ELO, MIN_ELO};
use ox88::tactics::{parse_line, san, Record};
use ox88::Position;
use std::time::Duration;

const MIDDLEGAME: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

fn limited(elo: i64) -> Ox88 {
    let mut e = Ox88::start();
    e.send("uci");
    e.expect(LONG, "uciok");
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {elo}"));
    e.send("ucinewgame");
    e.ready();
    e
}

/// The node count of the last `info` line with one.
fn last_nodes(lines: &[String]) -> Option<u64> {
    lines.iter().rev().find_map(|l| {
        let t: Vec<&str> = l.split_whitespace().collect();
        let at = t.iter().position(|x| *x == "nodes")?;
        t.get(at + 1)?.parse().ok()
    })
}

#[test]
fn the_options_are_declared_as_guis_expect() {
    let mut e = Ox88::start();
    e.send("uci");
    let lines = e.until(LONG, "uciok", |l| l == "uciok");
    let has = |want: &str| lines.iter().any(|l| l == want);
    assert!(has("option name UCI_LimitStrength type check default false"), "{lines:#?}");
    let elo = format!("option name UCI_Elo type spin default 1500 min {MIN_ELO} max {MAX_ELO}");
    assert!(has(&elo), "{lines:#?}");
}

#[test]
fn a_limited_clock_search_answers_a_legal_move_well_inside_the_clock_but_not_at_once() {
    let _t = timing_lock();
    let mut e = limited(1000);
    for moves in ["", " moves e2e4", " moves e2e4 e7e5 g1f3"] {
        e.send(&format!("position startpos{moves}"));
        let fen = e.fen();
        let sent = e.send("go wtime 60000 btime 60000");
        let best = e.bestmove(LONG);
        let took = sent.elapsed();
        assert!(legal_moves_of(&fen, false).iter().any(|m| m == bestmove_of(&best)), "{best} in {fen}");
        // The full engine would aim at about 2.4 s here; the limited one at no more than half
        // of that, and at least a fifth (the pace), not at once.
        let most = Duration::from_millis(if on_ci() { 3000 } else { 1500 });
        if took >= most || took < Duration::from_millis(400) {
            e.fail(&format!("answer after {took:?}: not within [400 ms, {most:?})"));
        }
    }
    e.assert_healthy();
}

#[test]
fn stop_and_isready_are_answered_at_once_during_a_limited_search() {
    let _t = timing_lock();
    let answer = Duration::from_millis(if on_ci() { 600 } else { 300 });
    let mut e = limited(1200);
    // A long clock: the limited search waits for its pace (1 s) after a quick search.
    e.send(&format!("position fen {MIDDLEGAME}"));
    e.send("go wtime 600000 btime 600000");
    std::thread::sleep(Duration::from_millis(150));
    let asked = e.send("isready");
    let (at, _) = e.wait_for(LONG, "readyok").unwrap_or_else(|| e.fail("no readyok"));
    if at.duration_since(asked) > answer {
        e.fail(&format!("readyok after {:?}", at.duration_since(asked)));
    }
    let asked = e.send("stop");
    let (at, best) = e.wait_for(LONG, "bestmove").unwrap_or_else(|| e.fail("no bestmove"));
    if at.duration_since(asked) > answer {
        e.fail(&format!("bestmove {:?} after stop", at.duration_since(asked)));
    }
    assert!(legal_moves_of(MIDDLEGAME, false).iter().any(|m| m == bestmove_of(&best)), "{best}");
    // An infinite search spends its node budget, then holds the move until `stop`.
    e.send("go infinite");
    e.assert_no_bestmove_for(Duration::from_millis(300), "go infinite with a limited strength");
    let asked = e.send("stop");
    let (at, _) = e.wait_for(LONG, "bestmove").unwrap_or_else(|| e.fail("no bestmove"));
    if at.duration_since(asked) > answer {
        e.fail(&format!("bestmove {:?} after stop", at.duration_since(asked)));
    }
    e.ready();
    e.assert_healthy();
}

/// The lines of a `go depth 7` from the middlegame after `setup`.
fn depth_search(setup: &[&str]) -> Vec<String> {
    let mut e = Ox88::start();
    for line in setup {
        e.send(line);
    }
    e.send(&format!("position fen {MIDDLEGAME}"));
    e.send("go depth 7");
    e.search_lines(LONG)
}

#[test]
fn uci_elo_is_ignored_while_uci_limitstrength_is_false() {
    let plain = depth_search(&[]);
    let elo_only = depth_search(&["setoption name UCI_Elo value 1000"]);
    let toggled = depth_search(&[
        "setoption name UCI_LimitStrength value true",
        "setoption name UCI_Elo value 1000",
        "setoption name UCI_LimitStrength value false",
    ]);
    for other in [&elo_only, &toggled] {
        assert_eq!(strip_times(&plain), strip_times(other));
    }
    // And on: the node budget of Elo 1000 ends the search long before depth 7 would.
    let on = depth_search(&["setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1000"]);
    let budget = Strength::new(1000, 0).nodes();
    let nodes = last_nodes(&on).unwrap_or(0);
    assert!(nodes <= budget && nodes < last_nodes(&plain).unwrap_or(0), "{nodes} {budget}: {on:#?}");
}

#[test]
fn at_the_top_of_the_range_the_full_engine_plays() {
    // Past the node budget of the setting just below the top, so that a limited search would
    // stop earlier than the full one and show other lines.
    let below = Strength::new(MAX_ELO - 1, 0).nodes();
    let go = format!("go nodes {}", below + below / 2);
    let search = |setup: &[&str]| {
        let mut e = Ox88::start();
        for line in setup.iter().chain(&["ucinewgame", &format!("position fen {MIDDLEGAME}")]) {
            e.send(line);
        }
        e.send(&go);
        strip_times(&e.search_lines(LONG))
    };
    let full = search(&[]);
    let top =
        search(&["setoption name UCI_LimitStrength value true", &format!("setoption name UCI_Elo value {MAX_ELO}")]);
    assert_eq!(full, top);
}

/// What a search found, without what depends on the clock: its lines (`depth`, `score`, `pv`;
/// `currmove` lines and repeats left out) and its `bestmove`.
fn strip_times(lines: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for l in lines {
        let t: Vec<&str> = l.split_whitespace().collect();
        let kept = if t.first() == Some(&"bestmove") {
            l.clone()
        } else if t.contains(&"pv") {
            let mut out = Vec::new();
            let mut i = 1;
            while i < t.len() {
                if matches!(t[i], "time" | "nps" | "nodes" | "hashfull") {
                    i += 2;
                    continue;
                }
                out.push(t[i]);
                i += 1;
            }
            out.join(" ")
        } else {
            continue;
        };
        if found.last() != Some(&kept) {
            found.push(kept);
        }
    }
    found
}

#[test]
fn out_of_range_elo_is_clamped_with_an_info_string() {
    // The same game and position at 500 (clamped to the minimum) and at the minimum, and at
    // 99999 and at the maximum, search alike.
    for (sent, clamped) in [(500, MIN_ELO), (99_999, MAX_ELO)] {
        let mut searches = Vec::new();
        for elo in [sent, clamped] {
            let mut e = Ox88::start();
            e.send("setoption name UCI_LimitStrength value true");
            e.send(&format!("setoption name UCI_Elo value {elo}"));
            if elo == sent {
                let note = e.expect(LONG, "info string");
                assert!(note.contains("UCI_Elo") && note.contains(&format!("set to {clamped}")), "{note}");
            }
            e.send("ucinewgame");
            e.send(&format!("position fen {MIDDLEGAME}"));
            // A node limit: at the top the full engine plays, which `go depth 30` would not end.
            e.send("go nodes 300000");
            let lines = e.search_lines(LONG);
            searches.push(strip_times(&lines));
        }
        assert_eq!(searches[0], searches[1], "UCI_Elo {sent} against {clamped}");
    }
    // A value that is no number is refused and changes nothing.
    let mut e = Ox88::start();
    e.send("setoption name UCI_Elo value strong");
    let note = e.expect(LONG, "info string");
    assert!(note.contains("UCI_Elo"), "{note}");
    e.ready();
}

/// The highest setting measured here: above it the node budget grows toward the full engine's
/// search, which `go depth 60` would not end.
const TOP_LIMITED: i64 = 2300;

/// Positions of the tactics suite solved by `go depth 60` (so that the node budget ends the
/// search, not the clock) at `elo`.
fn solved_at(elo: i64, records: &[Record]) -> usize {
    let mut e = limited(elo);
    let mut solved = 0;
    for rec in records {
        e.send("ucinewgame");
        e.send(&format!("position fen {}", rec.fen));
        e.send("go depth 60");
        // The node budget bounds the work, not the time: a loaded machine may be slow.
        let best = e.bestmove(Duration::from_secs(120));
        let pos = Position::from_fen(&rec.fen).expect("suite FEN");
        let Ok(m) = pos.parse_uci_move(bestmove_of(&best)) else { e.fail(&format!("illegal move: {best}")) };
        let played = san(&pos, m);
        if rec.best.contains(&played) && !rec.avoid.contains(&played) {
            solved += 1;
        }
    }
    solved
}

#[test]
fn lower_settings_solve_fewer_tactics() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/tactics.epd")).expect("suite");
    let records: Vec<Record> =
        text.lines().filter_map(parse_line).filter_map(Result::ok).filter(|r| !r.best.is_empty()).take(60).collect();
    assert!(records.len() >= 50);
    let low = solved_at(MIN_ELO, &records);
    let mid = solved_at(1500, &records);
    let high = solved_at(TOP_LIMITED, &records);
    println!("tactics solved of {}: {MIN_ELO}: {low}, 1500: {mid}, {TOP_LIMITED}: {high}", records.len());
    assert!(low + 5 <= mid && mid + 5 <= high, "{low} {mid} {high}");
}
