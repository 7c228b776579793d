//! `UCI_ShowWDL` over pipes: off by default (no `wdl` token anywhere, since some parsers break
//! on it), and when on, every score carries `wdl W D L` right after it, per mille, summing to
//! 1000, from the side to move's view.

mod common;

use common::{Ox88, LONG};

/// The `wdl` triple right after the score of an `info` line, if there is a score; panics on a
/// malformed one.
fn wdl_after_score(line: &str) -> Option<Option<[u32; 3]>> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let s = t.iter().position(|x| *x == "score")?;
    assert!(matches!(t.get(s + 1), Some(&"cp") | Some(&"mate")), "{line}");
    assert!(t.get(s + 2).is_some_and(|v| v.parse::<i64>().is_ok()), "{line}");
    if t.get(s + 3) != Some(&"wdl") {
        assert!(!t.contains(&"wdl"), "wdl elsewhere than after the score: {line}");
        return Some(None);
    }
    let n = |k: usize| t.get(s + 4 + k).and_then(|v| v.parse::<u32>().ok()).unwrap_or_else(|| panic!("{line}"));
    Some(Some([n(0), n(1), n(2)]))
}

/// The score lines of a search, each with its triple (or none).
fn search(e: &mut Ox88, position: &str, go: &str) -> Vec<(String, Option<[u32; 3]>)> {
    e.send(position);
    e.send(go);
    let lines = e.search_lines(LONG);
    let scored: Vec<_> = lines.iter().filter_map(|l| wdl_after_score(l).map(|w| (l.clone(), w))).collect();
    assert!(!scored.is_empty(), "no score line: {lines:?}");
    scored
}

fn all_with_wdl(scored: &[(String, Option<[u32; 3]>)]) -> Vec<[u32; 3]> {
    scored
        .iter()
        .map(|(line, w)| {
            let w = w.unwrap_or_else(|| panic!("no wdl after the score: {line}"));
            assert_eq!(w.iter().sum::<u32>(), 1000, "{line}");
            w
        })
        .collect()
}

#[test]
fn the_option_is_declared_off_and_no_wdl_appears_by_default() {
    let mut e = Ox88::start();
    e.send("uci");
    let lines = e.until(LONG, "uciok", |l| l == "uciok");
    assert!(lines.iter().any(|l| l == "option name UCI_ShowWDL type check default false"), "{lines:?}");
    e.send("setoption name MultiPV value 2");
    e.send("position startpos");
    e.send("go depth 6");
    let lines = e.search_lines(LONG);
    assert!(lines.iter().any(|l| l.contains(" score ")), "{lines:?}");
    for l in &lines {
        assert!(!l.split_whitespace().any(|t| t == "wdl"), "wdl while the option is off: {l}");
    }
}

#[test]
fn with_the_option_on_every_score_carries_wdl() {
    let mut e = Ox88::start();
    e.send("setoption name UCI_ShowWDL value true");
    e.send("setoption name MultiPV value 3");
    let even = all_with_wdl(&search(&mut e, "position startpos", "go depth 7"));
    let last = even.last().copied().unwrap_or_default();
    assert!(last[0] < 600 && last[2] < 600, "the start position is open: {last:?}");
    e.send("setoption name MultiPV value 1");

    // A queen up, with either side to move: the side to move's view.
    let white_up = all_with_wdl(&search(&mut e, "position fen 4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1", "go depth 6"));
    assert!(white_up.last().is_some_and(|w| w[0] > 900), "{white_up:?}");
    let black_down = all_with_wdl(&search(&mut e, "position fen 4k3/pppp4/8/8/8/8/PPPP4/3QK3 b - - 0 1", "go depth 6"));
    assert!(black_down.last().is_some_and(|w| w[2] > 900), "{black_down:?}");

    // Mate in one (Rh8#) for White; with Black to move, mated in one (Kb8 Rh8#).
    let mating = all_with_wdl(&search(&mut e, "position fen k7/8/1K6/8/8/8/8/7R w - - 0 1", "go depth 4"));
    assert_eq!(mating.last(), Some(&[1000, 0, 0]));
    let mated = all_with_wdl(&search(&mut e, "position fen k7/8/1K6/8/8/8/8/7R b - - 0 1", "go depth 4"));
    assert_eq!(mated.last(), Some(&[0, 0, 1000]));

    // Off again: gone.
    e.send("setoption name UCI_ShowWDL value false");
    let off = search(&mut e, "position startpos", "go depth 5");
    assert!(off.iter().all(|(_, w)| w.is_none()), "{off:?}");
}
