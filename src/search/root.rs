//! The root: iterative deepening with aspiration windows, MultiPV, and the root moves.
//!
//! Each iteration searches every root move one ply deeper than the last, inside a window
//! around the last score that widens on a fail; with MultiPV the best lines are found one
//! after another, each excluding those before it. Between iterations [`SoftStop`] decides
//! whether time allows another.

use super::ordering::list_score;
use super::tree::POLL_NODES;
use super::worker::{Frame, Worker};
use super::{features, Report, SearchLimits, SearchOutcome};
use crate::mv::Move;
use crate::position::Position;
use crate::strength::Strength;
use crate::time::SoftStop;
use crate::value::{Bound, Score, INFINITY, MATE, MATE_BOUND, MAX_DEPTH, MAX_MATE_MOVES, MAX_PLY, TB_WIN_BOUND};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Search progress is reported move by move, and for each failed window, once a search
/// has run this long.
const VERBOSE_AFTER: Duration = Duration::from_secs(1);

/// A root move with what the last iteration learnt about it.
#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    /// Score of the current iteration (-INFINITY until searched fully).
    score: i32,
    /// Score of the last completed iteration.
    prev_score: i32,
    seldepth: u32,
    pv: Vec<Move>,
    /// Nodes spent below this move in the current iteration.
    nodes: u64,
}

impl RootMove {
    fn new(mv: Move) -> RootMove {
        RootMove { mv, score: -INFINITY, prev_score: -INFINITY, seldepth: 0, pv: vec![mv], nodes: 0 }
    }
}

impl Worker<'_> {
    /// Iterative deepening from `first_depth` on: the search of one thread.
    pub fn iterate(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &SearchLimits,
        report: &mut dyn FnMut(Report),
        first_depth: i32,
    ) -> SearchOutcome {
        let mut pos = pos.clone();
        self.td.order.age();
        self.set_keys(&pos, history);
        self.td.nnue.set_root(self.net, &pos);

        let mut root = self.root_moves(&pos, &limits.searchmoves);
        if root.is_empty() {
            return SearchOutcome { best: None, ponder: None, nodes: 0 };
        }

        // A limited strength searches more lines than it shows, to choose among them.
        let shown = limits.multipv.max(1);
        let multipv = limits.strength.map_or(shown, |s| shown.max(s.lines())).min(root.len());
        // Every number a caller passes is brought into the range the search can use: no mate
        // longer than the deepest line, no search deeper than the stack.
        let mate = limits.mate.map(|n| n.clamp(1, MAX_MATE_MOVES));
        let mate_plies = mate.map(|n| 2 * n as i32 - 1);
        let max_depth = match (limits.depth, mate) {
            (Some(d), _) => d,
            (None, Some(n)) => (4 * n + 4).min(MAX_DEPTH),
            _ => MAX_DEPTH,
        }
        .clamp(1, MAX_DEPTH);

        let mut soft_stop = SoftStop::new(limits.time, root[0].mv, *self.shared.params);
        // The depth being searched and the first move of the last line reported.
        let (mut searching, mut reported) = (0, Move::NONE);
        // With a limited strength: the lines of the last iteration completed, and its depth.
        let mut completed: (Vec<RootMove>, i32) = (Vec::new(), 0);
        // A limited strength's budget is too small for a first iteration over all its lines
        // at the lowest levels; without one it would have nothing to choose from and would
        // play its best move, so the node limit starts binding from the second.
        let node_limit = self.node_limit;
        for depth in first_depth.min(max_depth as i32)..=max_depth as i32 {
            searching = depth;
            let first = limits.strength.is_some() && completed.0.is_empty();
            self.node_limit = if first { u64::MAX } else { node_limit };
            for r in root.iter_mut() {
                r.prev_score = r.score;
                r.nodes = 0;
            }
            for pv_index in 0..multipv {
                self.aspiration(&mut pos, &mut root, depth, pv_index, report);
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            for (i, r) in root.iter().enumerate().take(multipv.min(shown)) {
                report(self.iteration_report(depth, i, r, r.score, Bound::Exact));
            }
            reported = root[0].mv;
            if limits.strength.is_some() {
                completed = (root[..multipv].to_vec(), depth);
            }

            let best = &root[0];
            if let Some(plies) = mate_plies {
                if best.score > MATE_BOUND && MATE - best.score <= plies {
                    break;
                }
            }
            let all: u64 = root.iter().map(|r| r.nodes).sum();
            let share = if all > 0 { best.nodes as f64 / all as f64 } else { 1.0 };
            let stop = soft_stop.after_iteration(best.mv, best.score, share, root.len(), depth, self.control.elapsed());
            // A move at once is searched shallow, but a ponder search thinks on the opponent's
            // time: it goes on until `ponderhit` or `stop`.
            if stop && !(soft_stop.at_once() && self.control.is_pondering()) {
                break;
            }
            if limits.soft_nodes.is_some_and(|soft| self.nodes >= soft) {
                break;
            }
        }

        self.node_limit = node_limit;
        if let (Some(strength), (lines, depth)) = (limits.strength, &completed) {
            if !lines.is_empty() {
                return self.choose(&mut pos, &strength, lines, *depth, report);
            }
        }
        if self.is_main {
            self.take_the_tables_route(&mut root);
        }
        // Cut off inside an iteration after a new move took the lead: its line is the one
        // played, so it is the last one shown.
        if root[0].mv != reported && root[0].score > -INFINITY {
            report(self.iteration_report(searching, 0, &root[0], root[0].score, Bound::Exact));
        }
        let best = root[0].mv;
        let ponder = root[0].pv.get(1).copied().or_else(|| self.ponder_from_table(&mut pos, best));
        if !self.is_main {
            // The part of the count not yet published.
            self.shared.helper_nodes.fetch_add(self.nodes & (POLL_NODES - 1), Ordering::Relaxed);
            self.publish_tb_hits();
        }
        SearchOutcome { best: Some(best), ponder, nodes: self.nodes }
    }

    /// Keys for repetitions: the game so far (without the root if the caller included it),
    /// then the root, then room for the search path.
    fn set_keys(&mut self, pos: &Position, history: &[u64]) {
        let history = pos.keys_before(history);
        let keys = &mut self.td.keys;
        keys.clear();
        keys.reserve(history.len() + MAX_PLY + 4);
        keys.extend_from_slice(history);
        self.td.root_index = keys.len();
        keys.resize(self.td.root_index + MAX_PLY + 4, 0);
        keys[self.td.root_index] = pos.key();
    }

    /// The moves to search, in their first order: hash move, captures by MVV-LVA, the rest.
    /// `searchmoves` restricts them unless none of its moves is legal.
    fn root_moves(&self, pos: &Position, searchmoves: &[Move]) -> Vec<RootMove> {
        let legal = pos.legal_moves();
        let mut moves: Vec<Move> =
            legal.iter().copied().filter(|m| searchmoves.is_empty() || searchmoves.contains(m)).collect();
        if moves.is_empty() {
            moves = legal.iter().copied().collect();
        }
        let tt_move = self.shared.tt.probe(pos.key(), 0).map_or(Move::NONE, |h| h.mv);
        // Stable: moves of one score keep the generator's order.
        moves.sort_by_key(|&m| std::cmp::Reverse(list_score(pos, m, tt_move, |_| 0)));
        moves.into_iter().map(RootMove::new).collect()
    }

    /// Finds the line at `pv_index` (MultiPV) for this depth, re-searching with a wider
    /// window while the score falls outside it.
    fn aspiration(
        &mut self,
        pos: &mut Position,
        root: &mut [RootMove],
        depth: i32,
        pv_index: usize,
        report: &mut dyn FnMut(Report),
    ) {
        for r in root[pv_index..].iter_mut() {
            r.score = -INFINITY;
        }
        let prev = root[pv_index].prev_score;
        let p = self.shared.params;
        let mut delta = p.aspiration_delta();
        let (mut alpha, mut beta) =
            if features::ASPIRATION && depth >= p.aspiration_min_depth() && prev.abs() < MATE_BOUND {
                ((prev - delta).max(-INFINITY), (prev + delta).min(INFINITY))
            } else {
                (-INFINITY, INFINITY)
            };
        loop {
            let v = self.root_search(pos, root, depth, alpha, beta, pv_index, report);
            sort_root(&mut root[pv_index..]);
            if self.stopped {
                return;
            }
            let bound = if v <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-INFINITY);
                Bound::Upper
            } else if v >= beta {
                beta = (v + delta).min(INFINITY);
                Bound::Lower
            } else {
                return;
            };
            delta += delta / 2 + p.aspiration_growth();
            if self.control.elapsed() >= VERBOSE_AFTER {
                report(self.iteration_report(depth, pv_index, &root[pv_index], v, bound));
            }
        }
    }

    /// Searches the root moves from `first` on (the earlier ones are the PV lines already
    /// found at this depth with MultiPV).
    #[allow(clippy::too_many_arguments)]
    fn root_search(
        &mut self,
        pos: &mut Position,
        root: &mut [RootMove],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        first: usize,
        report: &mut dyn FnMut(Report),
    ) -> i32 {
        let mut best = -INFINITY;
        let in_check = pos.in_check();
        self.td.stack[0] = Frame { in_check, ..Frame::default() };
        self.td.pv_len[0] = 0;
        for (i, r) in root.iter_mut().enumerate().skip(first) {
            let m = r.mv;
            if self.nodes > 0 && i > first && self.control.elapsed() >= VERBOSE_AFTER {
                report(Report::CurrentMove {
                    depth: depth as u32,
                    mv: m,
                    number: i + 1,
                    nodes: self.total_nodes(),
                    time: self.control.searched(),
                });
            }
            self.seldepth = 0;
            let piece = pos.piece_at(m.from());
            self.td.nnue.push(0, pos, m);
            let undo = pos.make(m);
            self.td.stack[0].mv = m;
            self.td.stack[0].piece = piece;
            let gives_check = pos.in_check();
            let new_depth = depth - 1 + (features::CHECK_EXTENSION && gives_check) as i32;
            let nodes_before = self.nodes;
            let mut v;
            if i == first {
                v = -self.negamax(pos, new_depth, -beta, -alpha, 1, gives_check);
            } else {
                v = -self.negamax(pos, new_depth, -alpha - 1, -alpha, 1, gives_check);
                if v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(pos, new_depth, -beta, -alpha, 1, gives_check);
                }
            }
            pos.unmake(m, &undo);
            r.nodes += self.nodes - nodes_before;
            if self.stopped {
                break;
            }
            if i == first || v > alpha {
                r.score = v;
                r.seldepth = self.seldepth as u32;
                r.pv.clear();
                r.pv.push(m);
                let len = self.td.pv_len[1];
                r.pv.extend_from_slice(&self.td.pv[1][1..len.max(1)]);
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    /// A limited strength's move: one of the `lines` of the last iteration completed, drawn
    /// by `strength`, and its line shown last.
    fn choose(
        &mut self,
        pos: &mut Position,
        strength: &Strength,
        lines: &[RootMove],
        depth: i32,
        report: &mut dyn FnMut(Report),
    ) -> SearchOutcome {
        let scores: Vec<i32> = lines.iter().map(|r| r.score).collect();
        let i = strength.pick(&scores);
        let r = &lines[i];
        // Past the first second a bound of the unfinished iteration may have been shown since.
        if i > 0 || self.control.elapsed() >= VERBOSE_AFTER {
            report(self.iteration_report(depth, 0, r, r.score, Bound::Exact));
        }
        let ponder = r.pv.get(1).copied().or_else(|| self.ponder_from_table(pos, r.mv));
        SearchOutcome { best: Some(r.mv), ponder, nodes: self.nodes }
    }

    /// At a root the tables call a sure win, a search that has not found a mate chooses among
    /// the winning moves by evaluation, which need not bring the win nearer: cut short, or with
    /// its horizon before the mate, it can shuffle until a repetition or the fifty-move rule
    /// draws. Then the move the tables rank first (the fewest plies to the next capture, pawn
    /// move or mate) is put first, to be played.
    fn take_the_tables_route(&self, root: &mut [RootMove]) {
        let Some(first) = self.shared.root_tb.first() else { return };
        let Some(fewest) = first.plies else { return };
        if first.score < TB_WIN_BOUND || root[0].score > MATE_BOUND {
            return;
        }
        let chosen = self.shared.root_tb.iter().find(|t| t.mv == root[0].mv);
        if chosen.is_some_and(|t| t.plies == Some(fewest)) {
            return;
        }
        let Some(i) = root.iter().position(|r| r.mv == first.mv) else { return };
        root[..=i].rotate_right(1);
        root[0].score = first.score;
        root[0].pv = vec![first.mv];
    }

    /// A reply to `best` from the hash table when the principal variation ends at the root.
    fn ponder_from_table(&self, pos: &mut Position, best: Move) -> Option<Move> {
        let undo = pos.make(best);
        let reply = self.shared.tt.probe(pos.key(), 1).map(|h| h.mv).filter(|&m| pos.legal_moves().contains(m));
        pos.unmake(best, &undo);
        reply
    }

    fn iteration_report(&self, depth: i32, index: usize, r: &RootMove, score: i32, bound: Bound) -> Report {
        // At a root in the tables, their verdict is shown until the search finds a mate.
        let score = match self.shared.root_tb.iter().find(|t| t.mv == r.mv) {
            Some(t) if bound == Bound::Exact && score.abs() <= MATE_BOUND => t.score,
            _ => score,
        };
        Report::Iteration {
            depth: depth as u32,
            seldepth: r.seldepth.max(depth as u32),
            multipv: index + 1,
            score: Score::from_value(score),
            bound,
            nodes: self.total_nodes(),
            time: self.control.searched(),
            hashfull: self.shared.tt.hashfull(),
            tbhits: self.total_tb_hits(),
            pv: r.pv.clone(),
        }
    }
}

/// Stable insertion sort by score, best first (root lists are short; no allocation).
fn sort_root(root: &mut [RootMove]) {
    for i in 1..root.len() {
        let mut j = i;
        while j > 0 && root[j].score > root[j - 1].score {
            root.swap(j, j - 1);
            j -= 1;
        }
    }
}
