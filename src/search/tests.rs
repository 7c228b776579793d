//! Search unit tests: mates at the right depth, draws, limits.

use super::worker::ThreadData;
use super::*;
use crate::position::Position;
use crate::value::{Bound, Score};

fn run(fen: &str, history: &[u64], limits: SearchLimits) -> (SearchOutcome, Vec<Report>) {
    let pos = Position::from_fen(fen).unwrap();
    let mut searcher = Searcher::new(8);
    let control = SharedControl::default();
    let mut reports = Vec::new();
    let out = searcher.search(&pos, history, &limits, &control, &mut |r| reports.push(r));
    (out, reports)
}

fn depth(d: u32) -> SearchLimits {
    SearchLimits { depth: Some(d), multipv: 1, ..Default::default() }
}

fn last_score(reports: &[Report]) -> (u32, Score) {
    reports
        .iter()
        .rev()
        .find_map(|r| match r {
            Report::Iteration { depth, score, bound: Bound::Exact, multipv: 1, .. } => Some((*depth, *score)),
            _ => None,
        })
        .unwrap()
}

fn first_mate_depth(reports: &[Report], n: i32) -> Option<u32> {
    reports.iter().find_map(|r| match r {
        Report::Iteration { depth, score: Score::Mate(m), bound: Bound::Exact, .. } if *m == n => Some(*depth),
        _ => None,
    })
}

#[test]
fn mate_in_one() {
    let (out, reports) = run("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", &[], depth(3));
    assert_eq!(out.best.unwrap().to_string(), "a1a8");
    assert_eq!(last_score(&reports).1, Score::Mate(1));
    assert_eq!(first_mate_depth(&reports, 1), Some(1));
}

#[test]
fn mate_in_two_found_by_depth_five() {
    // Two rooks, the ladder: 1.Ra7 (or 1.Rb7) and 2.Rb8#. A full-width search sees it at
    // depth 3; late-move pruning may close the quiet mating check at the node next to the
    // leaves, and the order of the many quiet rook moves (the network's scores, the small
    // table here) may cost one more: with `n12` it was seen at depth 5, with `n16` at 4, through UCI as
    // in this search. Sparing quiet checks there cost Elo in timed SPRTs
    // (docs/testing-log.md), so the bound allows those plies.
    let (out, reports) = run("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", &[], depth(6));
    assert_eq!(last_score(&reports).1, Score::Mate(2));
    let d = first_mate_depth(&reports, 2).unwrap();
    assert!(d <= 5, "mate in 2 first seen at depth {d}");
    assert!(out.best.is_some());
}

#[test]
fn being_mated_scores_negative() {
    // Black to move is mated next move whatever it does (back-rank, queen on the 7th).
    let (_, reports) = run("6k1/4Q3/6K1/8/8/8/8/8 b - - 0 1", &[], depth(4));
    assert_eq!(last_score(&reports).1, Score::Mate(-1));
}

#[test]
fn mate_in_three_with_go_mate() {
    // Two rooks against a king on the seventh rank: 1.Rb6 Kf7 2.Ra7+ Ke8 3.Rb8#.
    let limits = SearchLimits { mate: Some(3), multipv: 1, ..Default::default() };
    let (out, reports) = run("8/6k1/8/8/8/8/8/RR4K1 w - - 0 1", &[], limits);
    assert!(out.best.is_some());
    assert_eq!(last_score(&reports).1, Score::Mate(3));
    // The king one rank further from the edge needs one move more: mate in 4, 7 plies. The
    // reductions and pruning hide it for a few plies more, as many as the network's scores
    // steer the quiet rook moves: with `n11` it was first seen at depth 9, with `n12` at 12,
    // with `n16` at 13 (through UCI as in this search); the bound leaves no more slack than that.
    let (_, reports) = run("8/8/6k1/8/8/8/8/RR4K1 w - - 0 1", &[], depth(14));
    assert_eq!(last_score(&reports).1, Score::Mate(4));
    assert!(first_mate_depth(&reports, 4).unwrap() <= 13);
}

#[test]
fn stalemate_and_insufficient_material_are_draws() {
    // Black to move has no move and is not in check.
    let pos = Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert!(pos.legal_moves().is_empty());
    let (_, reports) = run("8/8/4k3/8/8/3K4/3N4/8 w - - 0 1", &[], depth(6));
    assert_eq!(last_score(&reports).1, Score::Centipawns(0));
}

/// Keys of the positions from `fen` on through `moves`, and the position reached.
fn shuffle(fen: &str, moves: &[&str]) -> (Vec<u64>, Position) {
    let mut pos = Position::from_fen(fen).unwrap();
    let mut keys = vec![pos.key()];
    for uci in moves {
        let m = pos.parse_uci_move(uci).unwrap();
        pos.make(m);
        keys.push(pos.key());
    }
    (keys, pos)
}

#[test]
fn repetition_before_the_root_needs_the_third_occurrence() {
    // Shuffling king and queen back and forth returns to the first position.
    let cycle = ["g1h1", "a2b2", "h1g1", "b2a2"];
    let (keys, pos) = shuffle("7k/8/8/8/8/8/q7/6K1 w - - 4 20", &cycle);
    let mut s = ThreadData::new();
    // The root is the game's first position again: its second occurrence, no draw yet.
    s.keys = keys.clone();
    s.root_index = keys.len() - 1;
    assert!(!s.is_repetition(&pos, 0));
    // After one more cycle it is the third: a draw.
    let (keys, pos) = shuffle("7k/8/8/8/8/8/q7/6K1 w - - 4 20", &[cycle, cycle].concat());
    s.keys = keys.clone();
    s.root_index = keys.len() - 1;
    assert!(s.is_repetition(&pos, 0));
    // Without the history it is not.
    s.keys = vec![pos.key()];
    s.root_index = 0;
    assert!(!s.is_repetition(&pos, 0));
}

#[test]
fn repetition_inside_the_search_is_a_draw_at_once() {
    // The same cycle played inside the search, from the root: the position at ply 4 repeats
    // the root, a draw on its second occurrence.
    let (keys, pos) = shuffle("7k/8/8/8/8/8/q7/6K1 w - - 4 20", &["g1h1", "a2b2", "h1g1", "b2a2"]);
    let mut s = ThreadData::new();
    s.keys = keys.clone();
    s.root_index = 0;
    assert!(s.is_repetition(&pos, 4));
}

#[test]
fn search_takes_a_repetition_draw_when_lost() {
    // White (a bare king against a queen) is lost, but one move makes a position of the
    // game history occur for the third time: that move scores a draw.
    let fen_a = "6k1/8/8/8/8/8/q7/6K1 w - - 10 40";
    let moves = ["g1h1", "a2b2", "h1g1", "b2a2", "g1h1", "a2b2", "h1g1", "b2a2", "g1h1", "a2b2"];
    let (mut history, pos) = shuffle(fen_a, &moves);
    history.pop();
    // Now White (Kh1 vs Qb2) to move; Kh1-g1 makes Kg1/Qb2 with Black to move a third
    // time. Black's queen can't force immediate mate, so the score at depth 1 of h1g1 is 0.
    let mut s = Searcher::new(1);
    let control = SharedControl::default();
    let limits = SearchLimits {
        depth: Some(1),
        multipv: 1,
        searchmoves: vec![pos.parse_uci_move("h1g1").unwrap()],
        ..Default::default()
    };
    let mut reports = Vec::new();
    s.search(&pos, &history, &limits, &control, &mut |r| reports.push(r));
    assert_eq!(last_score(&reports).1, Score::Centipawns(0));
    // One cycle fewer, the same move only makes the second occurrence: not scored a draw.
    let (mut history, pos) = shuffle(fen_a, &moves[4..]);
    history.pop();
    let mut reports = Vec::new();
    Searcher::new(1).search(&pos, &history, &limits, &control, &mut |r| reports.push(r));
    assert_ne!(last_score(&reports).1, Score::Centipawns(0));
}

#[test]
fn fifty_move_rule_is_a_draw() {
    // White is a rook up but the clock is at 99 plies: any non-capturing, non-pawn move ends
    // the game in a draw, and no capture or pawn move exists.
    let (_, reports) = run("7k/8/8/8/8/8/8/R5K1 w - - 99 120", &[], depth(4));
    assert_eq!(last_score(&reports).1, Score::Centipawns(0));
    // With a fresh clock the same position is winning.
    let (_, reports) = run("7k/8/8/8/8/8/8/R5K1 w - - 0 120", &[], depth(4));
    match last_score(&reports).1 {
        Score::Centipawns(v) => assert!(v > 300),
        Score::Mate(n) => assert!(n > 0),
    }
}

#[test]
fn node_limit_is_exact_and_a_move_is_always_returned() {
    let limits = SearchLimits { nodes: Some(5000), multipv: 1, ..Default::default() };
    let (out, _) = run(crate::fen::STARTPOS, &[], limits);
    assert_eq!(out.nodes, 5000);
    assert!(out.best.is_some());
    // Stopped at once: still a legal move.
    let limits = SearchLimits { nodes: Some(1), multipv: 1, ..Default::default() };
    let (out, _) = run(crate::fen::STARTPOS, &[], limits);
    let pos = Position::startpos();
    assert!(pos.legal_moves().contains(out.best.unwrap()));
}

#[test]
fn a_soft_node_limit_ends_the_search_on_a_completed_iteration() {
    let exact = |reports: &[Report]| -> Vec<(u32, u64)> {
        reports
            .iter()
            .filter_map(|r| match r {
                Report::Iteration { depth, nodes, bound: Bound::Exact, multipv: 1, .. } => Some((*depth, *nodes)),
                _ => None,
            })
            .collect()
    };
    let limits = SearchLimits { soft_nodes: Some(3000), multipv: 1, ..Default::default() };
    let (out, reports) = run(crate::fen::STARTPOS, &[], limits);
    let done = exact(&reports);
    let (last, before) = (done[done.len() - 1], done[done.len() - 2]);
    // The iteration that crossed the limit was the last one, and it was completed.
    assert!(before.1 < 3000 && last.1 >= 3000, "iterations {done:?}");
    assert_eq!(out.nodes, last.1, "nothing searched after the last completed iteration");
    // The hard cap still binds inside an iteration.
    let limits = SearchLimits { soft_nodes: Some(1_000_000), nodes: Some(4000), multipv: 1, ..Default::default() };
    assert_eq!(run(crate::fen::STARTPOS, &[], limits).0.nodes, 4000);
}

#[test]
fn depth_limit_and_multipv() {
    let limits = SearchLimits { depth: Some(4), multipv: 3, ..Default::default() };
    let (out, reports) = run(crate::fen::STARTPOS, &[], limits);
    assert!(out.best.is_some());
    let max_depth = reports
        .iter()
        .filter_map(|r| match r {
            Report::Iteration { depth, .. } => Some(*depth),
            _ => None,
        })
        .max();
    assert_eq!(max_depth, Some(4));
    let lines: Vec<usize> = reports
        .iter()
        .filter_map(|r| match r {
            Report::Iteration { depth: 4, multipv, bound: Bound::Exact, .. } => Some(*multipv),
            _ => None,
        })
        .collect();
    assert_eq!(lines, vec![1, 2, 3]);
}

#[test]
fn searchmoves_restricts_the_root() {
    let pos = Position::startpos();
    let only = pos.parse_uci_move("a2a3").unwrap();
    let limits = SearchLimits { depth: Some(3), multipv: 1, searchmoves: vec![only], ..Default::default() };
    let (out, _) = run(crate::fen::STARTPOS, &[], limits);
    assert_eq!(out.best, Some(only));
}

#[test]
fn no_legal_move_gives_none() {
    let (out, _) = run("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", &[], depth(3));
    assert_eq!(out.best, None);
}

fn run_threads(fen: &str, threads: usize, limits: SearchLimits) -> (SearchOutcome, Vec<Report>) {
    let pos = Position::from_fen(fen).unwrap();
    let mut searcher = Searcher::new(8);
    searcher.set_threads(threads);
    assert_eq!(searcher.threads(), threads);
    let control = SharedControl::default();
    let mut reports = Vec::new();
    let out = searcher.search(&pos, &[], &limits, &control, &mut |r| reports.push(r));
    (out, reports)
}

#[test]
fn two_threads_find_the_mate_and_a_legal_move() {
    let limits = SearchLimits { mate: Some(3), multipv: 1, ..Default::default() };
    let (out, reports) = run_threads("8/6k1/8/8/8/8/8/RR4K1 w - - 0 1", 2, limits);
    assert_eq!(last_score(&reports).1, Score::Mate(3));
    let pos = Position::from_fen("8/6k1/8/8/8/8/8/RR4K1 w - - 0 1").unwrap();
    assert!(pos.legal_moves().contains(out.best.unwrap()));
    let (out, _) = run_threads("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 2, depth(7));
    let pos = Position::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
    assert!(pos.legal_moves().contains(out.best.unwrap()));
}

#[test]
fn helper_nodes_count_and_the_node_limit_binds_the_main_thread() {
    // `go nodes`: the main thread stops at the limit; the total includes the helper's.
    let limits = SearchLimits { nodes: Some(20_000), multipv: 1, ..Default::default() };
    let (out, reports) = run_threads(crate::fen::STARTPOS, 2, limits.clone());
    assert!(out.nodes >= 20_000, "{}", out.nodes);
    assert!(!reports.is_empty());
    let (single, _) = run_threads(crate::fen::STARTPOS, 1, limits);
    assert_eq!(single.nodes, 20_000);
}

#[test]
fn one_thread_after_helpers_searches_as_before() {
    // Shrinking back to one thread leaves the plain single-threaded search: same tree.
    let fresh = run_threads(crate::fen::STARTPOS, 1, depth(7)).0;
    let pos = Position::from_fen(crate::fen::STARTPOS).unwrap();
    let mut searcher = Searcher::new(8);
    searcher.set_threads(3);
    searcher.set_threads(1);
    let again = searcher.search(&pos, &[], &depth(7), &SharedControl::default(), &mut |_| {});
    assert_eq!(fresh, again);
}

#[test]
fn a_limited_strength_chooses_among_lines_even_on_a_budget_too_small_for_one_iteration() {
    use crate::strength::{Strength, MIN_ELO};
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 3 9";
    let pos = Position::from_fen(fen).unwrap();
    let mut played = std::collections::HashSet::new();
    for game in 0..40 {
        let strength = Some(Strength::new(MIN_ELO, crate::strength::seed(pos.key(), game)));
        let limits = SearchLimits { nodes: Some(50), multipv: 1, strength, ..Default::default() };
        let (out, _) = run(fen, &[], limits);
        let best = out.best.unwrap();
        assert!(pos.legal_moves().contains(best));
        played.insert(best);
    }
    assert!(played.len() >= 3, "the same few moves every game: {played:?}");
}

#[test]
fn reports_count_time_from_the_start_of_pondering() {
    let control = SharedControl::starting(true);
    std::thread::sleep(std::time::Duration::from_millis(40));
    assert_eq!(control.elapsed(), std::time::Duration::ZERO, "no clock runs while pondering");
    control.ponderhit();
    // The clock starts at the ponderhit; the reports' time, like their node counts, does not.
    assert!(control.elapsed() < std::time::Duration::from_millis(40));
    assert!(control.searched() >= std::time::Duration::from_millis(40));
}
