//! The inputs with which real GUIs, runners and people made ox88 lose games, each driven over
//! pipes against the binary, asserting what a user expects. One group of tests per fault, A–L
//! (the table of docs/uci.md); the binary's own edges are in `tests/edges.rs`.
//!
//! `OX88_BIN=path cargo test --release --test faults` runs them against another build.

mod common;

use common::{bestmove_of, last_score, legal_moves_of, median, on_ci, timing_lock, Ox88, Score, LONG};
use std::time::{Duration, Instant};

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// A position with Black to move: a `go` answered from it after a rejected `position` with
/// White to move is a move from a stale position.
const BLACK_TO_MOVE: &str = "position startpos moves e2e4";

/// The move of `line`, checked legal in `fen` as ox88 writes moves in that mode.
fn assert_legal(e: &Ox88, line: &str, fen: &str, chess960: bool, context: &str) {
    let mv = bestmove_of(line);
    if !legal_moves_of(fen, chess960).iter().any(|m| m == mv) {
        e.fail(&format!("{context}: '{line}' is not a legal move in {fen}"));
    }
}

// --- A: repairable and unusable FENs ---------------------------------------------------------

#[test]
fn a_repairable_fen_is_repaired_reported_and_played() {
    let mut e = Ox88::start();
    for (fen, repaired, token) in [
        // A castling right without its rook.
        ("r3k2r/8/8/8/8/8/8/R3K1R1 w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R3K1R1 w Qkq - 0 1", "'K'"),
        // An en passant square with no pawn in front of it.
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", STARTPOS, "e6"),
        // An en passant square on the wrong rank for the side to move.
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
            "e3",
        ),
    ] {
        e.send(BLACK_TO_MOVE);
        e.send(&format!("position fen {fen}"));
        let said = e.expect(LONG, "info string");
        if !said.contains(token) {
            e.fail(&format!("the repair of {fen} is not reported by name ({token})"));
        }
        e.send("go depth 4");
        let best = e.bestmove(LONG);
        assert_legal(&e, &best, repaired, false, &format!("after the repairable {fen}"));
        let now = e.fen();
        if now != repaired {
            e.fail(&format!("{fen} should read as {repaired}, the engine has {now}"));
        }
    }
    e.assert_healthy();
}

#[test]
fn a_rejected_position_answers_bestmove_0000_until_a_good_one_arrives() {
    let mut e = Ox88::start();
    for bad in [
        "position fen 8/8/8/8/8/8/8/4K3 w - - 0 1",
        "position fen 4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
        "position fen 4k2R/8/8/8/8/8/8/4K3 w - - 0 1",
        "position fen hello",
        "position startpos moves e2e4 e7e5 e1e3",
        "position startpos moves e2e4 0000 d2d4",
    ] {
        e.send(BLACK_TO_MOVE);
        e.send(bad);
        e.expect(LONG, "info string");
        for go in ["go depth 3", "go wtime 1000 btime 1000", "go movetime 50"] {
            e.send(go);
            let best = e.bestmove(LONG);
            if best != "bestmove 0000" {
                e.fail(&format!("after '{bad}', '{go}' must answer bestmove 0000"));
            }
        }
        // A good position ends it.
        e.send("position startpos");
        e.send("go depth 2");
        let best = e.bestmove(LONG);
        assert_legal(&e, &best, STARTPOS, false, "after a good position");
    }
    e.assert_healthy();
}

// --- B: every move ox88 prints comes back ----------------------------------------------------

/// For each FEN and each value of `UCI_Chess960`: every move `go perft 1` prints, and the
/// castling `bestmove` of a search restricted to it, are accepted in `position … moves`.
#[test]
fn b_every_move_ox88_prints_is_accepted_back() {
    let mut e = Ox88::start();
    for chess960 in [false, true] {
        e.send(&format!("setoption name UCI_Chess960 value {chess960}"));
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NRK3RN w GBgb - 0 1",
            "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1",
        ] {
            e.send(&format!("position fen {fen}"));
            e.send("go perft 1");
            let lines = e.until(LONG, "Nodes searched", |l| l.starts_with("Nodes searched"));
            let printed: Vec<String> = lines
                .iter()
                .filter_map(|l| l.split_once(": ").map(|(m, _)| m.to_string()))
                .filter(|m| m.len() >= 4 && !m.contains(' '))
                .collect();
            if printed.is_empty() {
                e.fail("go perft 1 printed no moves");
            }
            for mv in &printed {
                e.send(&format!("position fen {fen} moves {mv}"));
                e.send("isready");
                let answer = e.until(LONG, "readyok", |l| l == "readyok");
                if answer.iter().any(|l| l.starts_with("info string")) {
                    e.fail(&format!("'{mv}', printed by go perft, is refused (UCI_Chess960 {chess960})"));
                }
            }
            // The castle a search prints: restrict the root to each king move (castling too).
            let king_moves: Vec<&String> = printed.iter().filter(|m| m.starts_with(&fen_king_square(fen))).collect();
            for mv in king_moves {
                e.send(&format!("position fen {fen}"));
                e.send(&format!("go depth 2 searchmoves {mv}"));
                let best = e.bestmove(LONG);
                let back = bestmove_of(&best).to_string();
                e.send(&format!("position fen {fen} moves {back}"));
                e.send("isready");
                let answer = e.until(LONG, "readyok", |l| l == "readyok");
                if answer.iter().any(|l| l.starts_with("info string")) {
                    e.fail(&format!("'{back}', printed as bestmove, is refused"));
                }
            }
        }
    }
    e.assert_healthy();
}

/// The white king's square of a FEN with White to move (for picking king moves and castles).
fn fen_king_square(fen: &str) -> String {
    let pos = ox88::Position::from_fen(fen).expect("fen");
    pos.king(ox88::Color::White).to_string()
}

// --- C: infinite wins ------------------------------------------------------------------------

#[test]
fn c_infinite_wins_over_every_limit() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    for go in [
        "go infinite movetime 200",
        "go movetime 200 infinite",
        "go infinite wtime 300 btime 300",
        "go infinite depth 2",
        "go infinite nodes 1000",
    ] {
        e.send("position startpos");
        e.send(go);
        e.assert_no_bestmove_for(Duration::from_millis(600), go);
        e.send("stop");
        let best = e.bestmove(LONG);
        assert_legal(&e, &best, STARTPOS, false, go);
    }
    e.assert_healthy();
}

// --- D: movestogo 0 or negative --------------------------------------------------------------

#[test]
fn d_movestogo_zero_or_negative_is_sudden_death() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    // Sudden death on a 5 s clock spends a few hundred ms; "the last move before the control"
    // would spend 3 to 4.5 s.
    let limit = Duration::from_millis(1500);
    for mtg in ["0", "-3"] {
        e.send("position startpos");
        let go = format!("go wtime 5000 btime 5000 movestogo {mtg}");
        e.send(&go);
        match e.wait_for(limit, "bestmove") {
            Some((_, best)) => assert_legal(&e, &best, STARTPOS, false, &go),
            None => {
                e.send("stop");
                e.bestmove(LONG);
                e.fail(&format!(
                    "'{go}' spent more than {limit:?} of a 5 s clock on one move: movestogo {mtg} must read as absent"
                ));
            }
        }
    }
    e.assert_healthy();
}

// --- E: ponderhit during a normal search -----------------------------------------------------

#[test]
fn e_ponderhit_during_a_normal_search_is_ignored() {
    let _t = timing_lock();
    let mut e = Ox88::start();
    let sent = e.send("go movetime 500");
    let mut answer = None;
    for at_ms in [150u64, 300, 450, 600, 750, 900, 1050, 1200] {
        let at = sent + Duration::from_millis(at_ms);
        if let Some(got) = e.wait_for(at.saturating_duration_since(Instant::now()), "bestmove") {
            answer = Some(got);
            break;
        }
        e.send("ponderhit");
    }
    let (when, best) = match answer {
        Some(a) => a,
        None => match e.wait_for(LONG, "bestmove") {
            Some(a) => a,
            None => e.fail("no bestmove"),
        },
    };
    assert_legal(&e, &best, STARTPOS, false, "go movetime 500");
    let took = when.duration_since(sent);
    if took > Duration::from_millis(800) {
        e.fail(&format!("go movetime 500 answered after {took:?}: ponderhit restarted its clock"));
    }
    // A real ponder search still turns into a timed one at ponderhit.
    e.send("go ponder movetime 300");
    e.assert_no_bestmove_for(Duration::from_millis(400), "go ponder before ponderhit");
    let hit = e.send("ponderhit");
    let Some((when, best)) = e.wait_for(LONG, "bestmove") else {
        e.fail("no bestmove after ponderhit");
    };
    assert_legal(&e, &best, STARTPOS, false, "go ponder movetime 300");
    let took = when.duration_since(hit);
    if took > Duration::from_millis(800) {
        e.fail(&format!("bestmove {took:?} after ponderhit of a 300 ms search"));
    }
}

// --- F: ucinewgame with a large hash ---------------------------------------------------------

/// The threads of process `pid` now: thread id and CPU time (user + system, clock ticks).
#[cfg(target_os = "linux")]
fn thread_ticks(pid: u32) -> std::collections::HashMap<u32, u64> {
    fn ticks(stat: &str) -> u64 {
        // Fields after the command name (which may hold spaces) start at field 3, "state".
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let f: Vec<&str> = rest.split_whitespace().collect();
        let get = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        get(11) + get(12)
    }
    let mut threads = std::collections::HashMap::new();
    if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for entry in dir.flatten() {
            let Ok(tid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            threads.insert(tid, ticks(&stat));
        }
    }
    threads
}

/// `ucinewgame` after a search clears a 1 GB table by one thread per processor (at most two
/// are asked for here). The clearing threads live only while they clear, so the test watches
/// the process's threads from `ucinewgame` until `readyok` and counts those that were not
/// there before. The first `ucinewgame` after a search is the one measured: a table nothing
/// was stored in since its last clear is not cleared again, so a second one would show
/// nothing whatever the clear does.
#[cfg(target_os = "linux")]
#[test]
fn f_ucinewgame_clears_a_large_table_with_all_threads() {
    let _t = timing_lock();
    let wanted = std::thread::available_parallelism().map_or(1, |n| n.get()).min(2);
    // Deadlines, not bounds: a loaded machine may take many seconds to map and touch 1 GB.
    let slow = Duration::from_secs(120);
    let mut e = Ox88::start();
    e.send("setoption name Hash value 1024");
    e.send("setoption name Threads value 2");
    e.send("isready");
    e.expect(slow, "readyok");
    e.send("go depth 6");
    e.bestmove(LONG);
    let pid = e.child.id();
    let before = thread_ticks(pid);
    let mut clearing: std::collections::HashMap<u32, u64> = std::collections::HashMap::new();
    e.send("ucinewgame");
    e.send("isready");
    let deadline = Instant::now() + slow;
    loop {
        for (tid, ticks) in thread_ticks(pid) {
            if !before.contains_key(&tid) {
                clearing.insert(tid, ticks);
            }
        }
        match e.next_line(Instant::now() + Duration::from_millis(1)) {
            Some(l) if l == "readyok" => break,
            _ if Instant::now() > deadline => e.fail("no readyok after ucinewgame"),
            _ => {}
        }
    }
    if clearing.len() < wanted {
        e.fail(&format!(
            "{} thread(s) cleared the 1 GB table (CPU ticks seen: {:?}); want {wanted}, one per processor",
            clearing.len(),
            clearing.values().collect::<Vec<_>>()
        ));
    }
}

/// Finished before readyok: the search right after it finds an empty table.
#[test]
fn f_ucinewgame_is_finished_before_readyok() {
    let mut e = Ox88::start();
    e.send("setoption name Hash value 1");
    e.send("go nodes 200000");
    let lines = e.search_lines(LONG);
    let full = hashfull(&lines);
    if full < 100 {
        e.fail(&format!("the table did not fill (hashfull {full}): the check below would prove nothing"));
    }
    e.send("ucinewgame");
    e.ready();
    e.send("go depth 1");
    let lines = e.search_lines(LONG);
    let full = hashfull(&lines);
    if full > 5 {
        e.fail(&format!("after ucinewgame and readyok the table is not empty (hashfull {full})"));
    }
}

fn hashfull(lines: &[String]) -> u32 {
    lines
        .iter()
        .rev()
        .find_map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let i = t.iter().position(|x| *x == "hashfull")?;
            t.get(i + 1)?.parse().ok()
        })
        .unwrap_or(0)
}

// --- G: counters beyond 65,535 ---------------------------------------------------------------

/// After `position` (a line): the FEN if the engine took it, `None` if it refused it with an
/// `info string`.
fn taken_fen(e: &mut Ox88, position: &str) -> Option<String> {
    e.send(BLACK_TO_MOVE);
    e.send(position);
    e.send("isready");
    let said = e.until(LONG, "readyok", |l| l == "readyok");
    e.assert_healthy();
    let fen = e.fen();
    let previous = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    if said.iter().any(|l| l.starts_with("info string")) && fen == previous {
        return None;
    }
    Some(fen)
}

#[test]
fn g_counters_beyond_u16_saturate_or_are_refused_never_wrap() {
    let mut e = Ox88::start();
    for position in [
        // Counters at the top of the range, then four moves: both pass 65,535.
        "position fen 4k3/8/8/8/8/8/8/4K3 w - - 65535 65535 moves e1e2 e8e7 e2e1 e7e8",
        // Counters beyond the range in the FEN itself.
        "position fen 4k3/8/8/8/8/8/8/4K3 w - - 70000 99999999999",
        "position fen 4k3/8/8/8/8/8/8/4K3 w - - 70000 99999999999 moves e1e2 e8e7",
    ] {
        match taken_fen(&mut e, position) {
            Some(fen) => {
                let counters: Vec<u64> = fen.split_whitespace().skip(4).filter_map(|f| f.parse().ok()).collect();
                if counters != [65_535, 65_535] {
                    e.fail(&format!("'{position}': the counters did not saturate: {fen}"));
                }
                e.send("go depth 3");
                let best = e.bestmove(LONG);
                assert_legal(&e, &best, &fen, false, position);
            }
            None => {
                e.send("go depth 3");
                if e.bestmove(LONG) != "bestmove 0000" {
                    e.fail("a refused position must answer bestmove 0000");
                }
            }
        }
    }
    e.assert_healthy();
}

// --- H: extreme numbers ----------------------------------------------------------------------

/// Mate in 2 (Nf6+ gxf6, Bxf7#) among many pieces.
const MATE_IN_2: &str = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";

#[test]
fn h_extreme_go_values_are_clamped_and_answered() {
    let mut e = Ox88::start();
    // `go mate N` for any N at least 2 stops once the mate in 2 is found, as `go mate 2` does.
    for go in ["go mate 2", "go mate 2000000000", "go mate 4294967295", "go mate 99999999999999999999"] {
        e.send(&format!("position fen {MATE_IN_2}"));
        e.send(go);
        let Ok(lines) = e.try_until(Duration::from_secs(5), |l| l.starts_with("bestmove")) else {
            e.send("stop");
            e.bestmove(LONG);
            e.fail(&format!("'{go}' did not stop once the mate in 2 was found"));
        };
        let best = lines.last().cloned().unwrap_or_default();
        if bestmove_of(&best) != "d5f6" {
            e.fail(&format!("'{go}': {best}"));
        }
        match last_score(&lines) {
            Some((depth, Score::Mate(2))) if depth <= 10 => {}
            other => e.fail(&format!("'{go}': last depth and score {other:?}; the search must stop at the mate")),
        }
    }
    // Unbounded-looking limits: the engine searches, and answers `stop`.
    for go in [
        "go depth 4294967295",
        "go nodes 18446744073709551615",
        "go movetime 9223372036854775807",
        "go wtime 9223372036854775807 btime 9223372036854775807 winc 9223372036854775807 binc 9223372036854775807",
    ] {
        e.send("position startpos");
        e.send(go);
        std::thread::sleep(Duration::from_millis(200));
        e.send("stop");
        let best = e.bestmove(LONG);
        assert_legal(&e, &best, STARTPOS, false, go);
        e.assert_healthy();
    }
    // Zero, negative and absurd values that limit the search: an answer at once.
    for go in [
        "go movetime 0",
        "go wtime 0 btime 0",
        "go wtime -1000 btime -1000 winc -100 binc -100",
        "go wtime 1000 btime 1000 movestogo 4294967295",
        "go wtime 1000 btime 1000 winc -9223372036854775808",
        "go nodes 0",
        "go depth 0",
        "go mate 0",
    ] {
        e.send("position startpos");
        e.send(go);
        let best = e.bestmove(Duration::from_secs(3));
        assert_legal(&e, &best, STARTPOS, false, go);
        e.assert_healthy();
    }
}

// --- I: a go the parser rejects --------------------------------------------------------------

#[test]
fn i_a_rejected_go_still_answers_bestmove() {
    let mut e = Ox88::start();
    for (go, token) in [
        ("go wtime abc", "abc"),
        ("go wtime 1000 btime abc", "abc"),
        ("go depth x", "x"),
        // A missing number: any reason will do.
        ("go movetime", ""),
        ("go movetime 300 depth", ""),
        ("go depth 3 frobnicate 3", "frobnicate"),
        ("go wtime 1000 btime 1000 searchmoves e2e5", "e2e5"),
        ("go wtime 1000 btime 1000 mate -3", "-3"),
    ] {
        e.send("position startpos");
        e.send(go);
        let lines = e.until(Duration::from_secs(5), &format!("bestmove after '{go}'"), |l| l.starts_with("bestmove"));
        if !lines.iter().any(|l| l.starts_with("info string") && l.contains(token)) {
            e.fail(&format!("'{go}': no info string (naming '{token}')"));
        }
        let best = lines.last().cloned().unwrap_or_default();
        assert_legal(&e, &best, STARTPOS, false, go);
        e.assert_no_bestmove_for(Duration::from_millis(100), "a second bestmove");
    }
}

// --- J: stop latency -------------------------------------------------------------------------

/// `stop` to `bestmove` of `go infinite` after `after` of search; all trials.
fn stop_latencies(threads: usize, trials: usize, after: Duration) -> Vec<Duration> {
    let mut e = Ox88::start();
    e.send(&format!("setoption name Threads value {threads}"));
    e.ready();
    let mut out = Vec::new();
    for _ in 0..trials {
        e.send("position startpos moves e2e4 e7e5 g1f3");
        e.send("go infinite");
        std::thread::sleep(after);
        let sent = e.send("stop");
        let Some((at, _)) = e.wait_for(Duration::from_secs(30), "bestmove") else {
            e.fail(&format!("no bestmove 30 s after stop at {threads} threads"));
        };
        out.push(at.duration_since(sent));
    }
    e.assert_healthy();
    out
}

#[test]
fn j_stop_lands_within_milliseconds_at_any_thread_count() {
    let _t = timing_lock();
    // Generous for a loaded 2-core machine; a stop that takes seconds fails at once. With 256
    // threads on 2 cores the input thread itself waits for a core among 256 busy ones: beside
    // the other tests of this file single trials took 414 and 494 ms (596 ms beside builds, see
    // the README) while the median stayed near 20 ms, so that case is held to a second.
    let scale = if on_ci() { 2 } else { 1 };
    for (threads, bound_ms) in [(1usize, 50u64), (2, 50), (256, 1000)] {
        let bound = Duration::from_millis(bound_ms * scale);
        // The first trial includes starting the helpers: a GUI's first move pays it too.
        let mut lat = stop_latencies(threads, 4, Duration::from_millis(200));
        let worst = *lat.iter().max().unwrap_or(&Duration::ZERO);
        let med = median(&mut lat);
        assert!(
            worst <= bound,
            "stop at {threads} threads: worst {worst:?}, median {med:?}, all {lat:?}; bound {bound:?}"
        );
    }
}

// --- K: repetitions reaching back before the root --------------------------------------------

/// White's queen up; after Qc1 Kg8 Qb1 Black's Kh8 repeats the first position once.
const REPEAT_ONCE: &str = "position fen 7k/8/8/8/8/8/8/1Q5K w - - 0 1 moves b1c1 h8g8 c1b1";

#[test]
fn k_one_earlier_occurrence_before_the_root_is_no_draw() {
    let mut e = Ox88::start();
    e.send(REPEAT_ONCE);
    e.send("go depth 6");
    let lines = e.search_lines(LONG);
    match last_score(&lines) {
        Some((_, Score::Cp(cp))) if cp < -300 => {}
        Some((_, Score::Mate(m))) if m < 0 => {}
        other => e.fail(&format!(
            "Black, a queen down, is scored {other:?}: a position seen once before the root is no draw"
        )),
    }
}

#[test]
fn k_two_earlier_occurrences_make_the_third_a_draw() {
    let mut e = Ox88::start();
    e.send("position fen 7k/8/8/8/8/8/8/1Q5K w - - 0 1 moves b1c1 h8g8 c1b1 g8h8 b1c1 h8g8 c1b1");
    e.send("go depth 6");
    let lines = e.search_lines(LONG);
    let best = lines.last().cloned().unwrap_or_default();
    if bestmove_of(&best) != "g8h8" || last_score(&lines).map(|(_, s)| s) != Some(Score::Cp(0)) {
        e.fail("Black should claim the third occurrence with Kh8, scored 0");
    }
}

// --- L: the fifty-move rule at the edge ------------------------------------------------------

const QUEEN_UP: &str = "7k/8/8/8/8/8/8/1Q5K w - -";

#[test]
fn l_clock_at_98_every_line_is_a_draw_at_every_depth() {
    let mut e = Ox88::start();
    // White moves (99), any Black king move makes 100: a draw, as no mate is in reach.
    for depth in 1..=5 {
        e.send(&format!("position fen {QUEEN_UP} 98 80"));
        e.send(&format!("go depth {depth}"));
        let lines = e.search_lines(LONG);
        match last_score(&lines) {
            Some((_, Score::Cp(0))) => {}
            other => e.fail(&format!("clock 98, depth {depth}: score {other:?}, expected a draw (cp 0)")),
        }
    }
}

#[test]
fn l_a_mate_on_the_hundredth_half_move_is_a_mate() {
    let mut e = Ox88::start();
    e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80");
    e.send("go depth 3");
    let lines = e.search_lines(LONG);
    let best = lines.last().cloned().unwrap_or_default();
    if bestmove_of(&best) != "a1a8" || last_score(&lines).map(|(_, s)| s) != Some(Score::Mate(1)) {
        e.fail("Ra8 mates on the hundredth half-move: mate 1");
    }
}

#[test]
fn l_table_entries_are_not_trusted_across_the_clock() {
    let mut e = Ox88::start();
    // Entries of a search far from the clock must not win a search near it, and back.
    e.send(&format!("position fen {QUEEN_UP} 0 80"));
    e.send("go depth 10");
    e.search_lines(LONG);
    e.send(&format!("position fen {QUEEN_UP} 98 80"));
    e.send("go depth 4");
    let lines = e.search_lines(LONG);
    if last_score(&lines).map(|(_, s)| s) != Some(Score::Cp(0)) {
        e.fail("clock 98 after a search at clock 0: expected a draw (cp 0)");
    }
    e.send("go depth 10");
    e.search_lines(LONG);
    e.send(&format!("position fen {QUEEN_UP} 0 80"));
    e.send("go depth 6");
    let lines = e.search_lines(LONG);
    match last_score(&lines) {
        Some((_, Score::Cp(cp))) if cp > 300 => {}
        Some((_, Score::Mate(m))) if m > 0 => {}
        other => e.fail(&format!("clock 0 after a search at clock 98: {other:?}, expected a win")),
    }
}
