//! The tree below the root: principal variation search and quiescence.
//!
//! Every node is told by its parent whether its side to move is in check (the parent
//! learns it when it makes the move), so no node works it out again.

use super::features;
use super::ordering::{OrderTables, COUNTER};
use super::params::*;
use super::picker::MovePicker;
use super::worker::{TreeProbe, Worker};
use super::SharedControl;
use crate::mv::Move;
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::tablebase::{piece_count, Wdl};
use crate::value::{nominal, nominal_of, Bound, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN, TB_WIN_BOUND};
use std::sync::atomic::Ordering;

/// How often a thread looks at the clock and `stop`, and a helper publishes its node count:
/// every this many nodes, a power of two so that the test is a mask on the count.
pub(super) const POLL_NODES: u64 = 1024;
const _: () = assert!(POLL_NODES.is_power_of_two());

/// Quiet moves a node remembers having tried, for the history malus of a cut-off.
const QUIETS_KEPT: usize = 64;

impl Worker<'_> {
    /// Stops on the node limit (exact) and, every [`POLL_NODES`] nodes, on the clock or `stop`.
    #[inline(always)]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.stopped = true;
        }
        if self.nodes & (POLL_NODES - 1) == 0 {
            if !self.is_main {
                self.shared.helper_nodes.fetch_add(POLL_NODES, Ordering::Relaxed);
                self.publish_tb_hits();
            }
            if self.control.stopped()
                || self.helper_stop.is_some_and(SharedControl::stopped)
                || self.hard.is_some_and(|h| self.control.elapsed() >= h)
            {
                self.stopped = true;
            }
        }
    }

    /// Starts loading what the node after a move asks for first, its evaluation cache slot
    /// and its hash bucket, while the move's remaining work goes on.
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        self.td.evals.prefetch(key);
        self.shared.tt.prefetch(key);
    }

    /// The static evaluation the tree prunes and stands pat by: the cached evaluation,
    /// corrected by the correction history (the cache keeps the raw one).
    #[inline(always)]
    fn corrected_eval(&mut self, pos: &Position, ply: usize) -> i32 {
        let raw = self.td.evals.evaluate(pos, &mut self.td.pawns, self.net, self.td.nnue.get(self.net, ply, pos));
        self.td.correction.corrected(pos, raw, self.shared.params)
    }

    /// Alpha-beta search of `pos` to `depth`; `in_check` tells whether its side to move is.
    pub fn negamax(
        &mut self,
        pos: &mut Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        in_check: bool,
    ) -> i32 {
        let p = self.shared.params;
        self.td.pv_len[ply] = ply;
        self.td.keys[self.td.root_index + ply] = pos.key();
        // Draws: repetition, fifty moves (unless it is mate), insufficient material. Checked
        // before dropping into quiescence so that a repeating move is a draw at any depth.
        if self.td.is_repetition(pos, ply) || insufficient_material(pos) {
            return 0;
        }
        if pos.halfmove_clock() >= 100 {
            if in_check && pos.legal_moves().is_empty() {
                return -MATE + ply as i32;
            }
            return 0;
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply, in_check);
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.td.evals.evaluate(pos, &mut self.td.pawns, self.net, self.td.nnue.get(self.net, ply, pos));
        }
        // Mate distance pruning: no line from here beats a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        // Evaluated before the hash probe, though a stored bound may make it needless: as in
        // quiescence, the prefetched bucket arrives meanwhile. The cache keeps the raw
        // evaluation; everything below works from the corrected one.
        let static_eval = if in_check { -INFINITY } else { self.corrected_eval(pos, ply) };
        let key = pos.key();
        let hit = self.shared.tt.probe(key, ply);
        let tt_move = hit.map_or(Move::NONE, |h| h.mv);
        // A singular-extension search of this node without one move: the hash entry and the
        // tables speak for the whole node, so they neither settle it nor learn from it.
        let excluded = self.td.stack[ply].excluded;
        let singular_search = excluded != Move::NONE;
        if let Some(h) = hit {
            if !pv_node
                && !singular_search
                && h.depth >= depth
                && h.bound.settles(h.score, alpha, beta)
                && trusts_table(pos)
            {
                return h.score;
            }
        }

        // Tablebases: a result settles the node when its bound allows; in a PV node it bounds
        // what the search below may return.
        let (mut tb_floor, mut tb_ceiling) = (-INFINITY, INFINITY);
        if let Some(tb) = self.shared.tb.filter(|_| !singular_search) {
            if let Some((score, bound)) = self.probe_tables(tb, pos, depth, ply) {
                if bound.settles(score, alpha, beta) {
                    let draft = (depth + TB_DRAFT_BONUS).min(MAX_PLY as i32 - 1);
                    self.shared.tt.store(key, Move::NONE, score, draft, bound, ply);
                    return score;
                }
                if pv_node && bound == Bound::Lower {
                    tb_floor = score;
                    alpha = alpha.max(score);
                } else if pv_node && bound == Bound::Upper {
                    tb_ceiling = score;
                }
            }
        }

        self.td.stack[ply].eval = static_eval;
        self.td.stack[ply].in_check = in_check;
        let improving =
            !in_check && ply >= 2 && !self.td.stack[ply - 2].in_check && static_eval > self.td.stack[ply - 2].eval;
        // A stored search result is a better guess than the static evaluation when its bound
        // points the way it differs; the pruning below uses it, `improving` does not.
        let eval = match hit {
            Some(h)
                if !in_check
                    && h.score.abs() < MATE_BOUND
                    && h.bound.settles(h.score, static_eval, static_eval + 1) =>
            {
                h.score
            }
            _ => static_eval,
        };

        if !pv_node && !in_check && !singular_search && beta.abs() < MATE_BOUND {
            // Reverse futility: far above beta at low depth, a quiet move will not lose it all.
            if features::REVERSE_FUTILITY
                && depth <= p.rfp_max_depth()
                && eval - p.rfp_margin() * (depth - improving as i32) >= beta
            {
                return eval;
            }
            // Null move: if passing still fails high, a real move will. Not in pawn endings
            // (zugzwang), not twice in a row.
            if features::NULL_MOVE
                && depth >= p.nmp_min_depth()
                && eval >= beta
                && self.td.stack[ply - 1].mv != Move::NONE
                && has_pieces(pos)
            {
                let r =
                    p.nmp_base() + depth / p.nmp_depth_div() + ((eval - beta) / p.nmp_eval_div()).min(p.nmp_eval_max());
                self.td.nnue.push_null(ply);
                let undo = pos.make_null();
                self.prefetch(pos.key());
                self.td.stack[ply].mv = Move::NONE;
                self.td.stack[ply].piece = Piece::NONE;
                // Passing cannot put the side now to move in check: it was not our move
                // that could attack its king.
                let v = -self.negamax(pos, depth - r, -beta, -beta + 1, ply + 1, false);
                pos.unmake_null(&undo);
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    return if v > MATE_BOUND { beta } else { v };
                }
            }
        }

        // Without a hash move a deep node is searched one ply shallower first (internal
        // iterative reduction): its ordering is poor and the result seeds the table.
        let mut depth = depth;
        if depth >= p.iir_min_depth() && tt_move.is_none() {
            depth -= 1;
        }

        let prev = self.td.stack[ply - 1];
        let counter = self.td.order.counter((prev.piece, prev.mv));
        let rows = [
            OrderTables::continuation_row(prev.piece, prev.mv),
            if ply >= 2 {
                let f = self.td.stack[ply - 2];
                OrderTables::continuation_row(f.piece, f.mv)
            } else {
                None
            },
        ];
        let mut picker = MovePicker::new(pos, tt_move, self.td.order.killers[ply], counter);
        picker.set_continuations(rows);

        let mut best = -INFINITY;
        let mut best_move = Move::NONE;
        let original_alpha = alpha;
        let mut legal_moves = 0;
        let mut searched = 0;
        let mut quiets = [Move::NONE; QUIETS_KEPT];
        let mut quiet_count = 0;
        let lmp_limit = (p.lmp_base() + depth * depth) / if improving { 1 } else { p.lmp_not_improving_div() };
        while let Some((m, order_score)) = picker.next(pos, &self.td.order) {
            if m == excluded {
                continue;
            }
            legal_moves += 1;
            let quiet = !m.is_tactical();
            // Pruning of late moves once a real score is in hand.
            if !pv_node && !in_check && best > -MATE_BOUND {
                if features::LATE_MOVE_PRUNING && quiet && depth <= p.lmp_max_depth() && quiet_count as i32 >= lmp_limit
                {
                    picker.skip_quiets();
                    continue;
                }
                if !quiet
                    && order_score < 0
                    && depth <= p.see_capture_max_depth()
                    && !crate::see::see_ge(pos, m, -p.see_capture_margin() * depth)
                {
                    continue;
                }
            }
            // A quiet move that loses material by exchange at low depth is left unsearched
            // unless it checks.
            let losing_quiet = features::QUIET_SEE_PRUNING
                && quiet
                && !pv_node
                && !in_check
                && best > -MATE_BOUND
                && depth <= p.see_quiet_max_depth()
                && !crate::see::see_ge(pos, m, -p.see_quiet_margin() * depth * depth);
            // Singular extension: when every other move falls short of the hash move's score
            // by a margin, the hash move is the position's only good one and is searched a
            // ply deeper (two, off the principal variation, when far short). When another
            // move also reaches beta the node fails high on two moves (multi-cut); when the
            // hash move alone was expected to reach beta it is searched a ply shallower.
            let mut singular_extension = None;
            if features::SINGULAR_EXTENSION && m == tt_move && !singular_search && depth >= p.se_min_depth() {
                if let Some(h) = hit.filter(|h| {
                    h.depth >= depth - p.se_tt_depth_margin() && h.bound != Bound::Upper && h.score.abs() < TB_WIN_BOUND
                }) {
                    let bar = h.score - p.se_margin() * depth;
                    self.td.stack[ply].excluded = m;
                    let v = self.negamax(pos, (depth - 1) / p.se_depth_div(), bar - 1, bar, ply, in_check);
                    self.td.stack[ply].excluded = Move::NONE;
                    if self.stopped {
                        return 0;
                    }
                    let doubles = self.td.stack[ply - 1].double_extensions;
                    singular_extension = Some(if v < bar {
                        if !pv_node && v < bar - p.se_double_margin() && (doubles as i32) < p.se_double_max() {
                            2
                        } else {
                            1
                        }
                    } else if bar >= beta {
                        return bar;
                    } else if h.score >= beta {
                        -1
                    } else {
                        0
                    });
                }
            }
            // Known from the tables before the move is made, so the pruning below costs no
            // make and unmake.
            let gives_check = pos.gives_check(m);
            if losing_quiet && !gives_check {
                continue;
            }
            // Futility: a quiet move that does not check cannot lift a hopeless eval. Not
            // when alpha is already a mate: no evaluation reaches it, yet a quiet move may
            // mate sooner, and pruning it hides the shorter mate.
            if features::FUTILITY
                && quiet
                && !pv_node
                && !in_check
                && !gives_check
                && best > -MATE_BOUND
                && depth <= p.futility_max_depth()
                && alpha < MATE_BOUND
                && eval + p.futility_base() + p.futility_margin() * depth <= alpha
            {
                if quiet_count < quiets.len() {
                    quiets[quiet_count] = m;
                    quiet_count += 1;
                }
                continue;
            }
            let piece = pos.piece_at(m.from());
            self.td.nnue.push(ply, pos, m);
            let undo = pos.make(m);
            self.prefetch(pos.key());
            self.td.stack[ply].mv = m;
            self.td.stack[ply].piece = piece;
            let extension = singular_extension.unwrap_or((features::CHECK_EXTENSION && gives_check) as i32);
            let new_depth = depth - 1 + extension;
            self.td.stack[ply].double_extensions = self.td.stack[ply - 1].double_extensions + (extension == 2) as u8;
            let mut v;
            if searched == 0 {
                v = -self.negamax(pos, new_depth, -beta, -alpha, ply + 1, gives_check);
            } else {
                // Late-move reduction for quiet moves and losing captures.
                let mut r = 0;
                if features::LMR
                    && depth >= p.lmr_min_depth()
                    && searched > pv_node as i32
                    && (quiet || order_score < 0)
                    && !gives_check
                {
                    r = self.shared.reductions.get(depth, searched);
                    if pv_node {
                        r -= p.lmr_pv();
                    }
                    if !improving {
                        r += p.lmr_not_improving();
                    }
                    if order_score >= COUNTER {
                        r -= p.lmr_refutation(); // killers and counter-move
                    } else if quiet {
                        r -= order_score / p.lmr_history_div();
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                v = -self.negamax(pos, new_depth - r, -alpha - 1, -alpha, ply + 1, gives_check);
                if v > alpha && r > 0 && !self.stopped {
                    v = -self.negamax(pos, new_depth, -alpha - 1, -alpha, ply + 1, gives_check);
                }
                if v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(pos, new_depth, -beta, -alpha, ply + 1, gives_check);
                }
            }
            pos.unmake(m, &undo);
            if self.stopped {
                return 0;
            }
            searched += 1;
            if v > best {
                best = v;
                if v > alpha {
                    best_move = m;
                    alpha = v;
                    self.update_pv(ply, m);
                    if v >= beta {
                        if quiet {
                            let tried = &quiets[..quiet_count];
                            self.td.order.reward_quiet(
                                pos,
                                ply,
                                p.history_bonus(depth),
                                m,
                                tried,
                                (prev.piece, prev.mv),
                                &rows,
                            );
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets.len() {
                quiets[quiet_count] = m;
                quiet_count += 1;
            }
        }
        if legal_moves == 0 {
            if singular_search {
                return alpha;
            }
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if best == -INFINITY {
            // Every move was pruned (cannot happen: the first move is never pruned).
            best = alpha;
        }
        if singular_search {
            // Only the score is wanted; the tables learn nothing from a search without a move.
            return best;
        }
        best = best.max(tb_floor).min(tb_ceiling);
        let bound = Bound::of(best, original_alpha, beta);
        // A quiet node's result says how far the evaluation was off, a bound only when it
        // lies on the side of the evaluation it bounds. (No move, NONE, is not tactical.)
        let telling = match bound {
            Bound::Lower => best > static_eval,
            Bound::Upper => best < static_eval,
            Bound::Exact => true,
        };
        if telling && !in_check && !self.stopped && !best_move.is_tactical() && best.abs() < TB_WIN_BOUND {
            self.td.correction.update(pos, depth, best, static_eval, p);
        }
        self.shared.tt.store(key, best_move, best, depth, bound, ply);
        best
    }

    /// The tables' score of a node and its bound, for nodes the probe options select: a win
    /// is a lower bound (a mate may be better), a loss an upper bound, and a draw, also one
    /// the fifty-move rule saves or spoils, exact.
    #[inline]
    fn probe_tables(&mut self, tb: TreeProbe, pos: &Position, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        if pos.halfmove_clock() != 0 || pos.castling_rights() != 0 {
            return None;
        }
        let pieces = piece_count(pos);
        if pieces > tb.pieces || (pieces == tb.pieces && depth < tb.depth) {
            return None;
        }
        let wdl = tb.tables.probe_wdl(pos).ok()?;
        self.tb_hits += 1;
        Some(match wdl {
            Wdl::Win => (TB_WIN - ply as i32, Bound::Lower),
            Wdl::Loss => (-TB_WIN + ply as i32, Bound::Upper),
            w => (w.signed(), Bound::Exact),
        })
    }

    /// Triangular PV: `m`, then the child's line.
    #[inline]
    fn update_pv(&mut self, ply: usize, m: Move) {
        let td = &mut *self.td;
        td.pv[ply][ply] = m;
        let child_len = td.pv_len[ply + 1].max(ply + 1);
        for j in ply + 1..child_len {
            td.pv[ply][j] = td.pv[ply + 1][j];
        }
        td.pv_len[ply] = child_len;
    }

    /// Quiescence: captures and queen promotions until the position is quiet; all evasions
    /// when in check. Stand-pat on the static evaluation; delta and SEE pruning.
    fn qsearch(&mut self, pos: &mut Position, mut alpha: i32, beta: i32, ply: usize, in_check: bool) -> i32 {
        let p = self.shared.params;
        self.td.pv_len[ply] = ply;
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.td.evals.evaluate(pos, &mut self.td.pawns, self.net, self.td.nnue.get(self.net, ply, pos));
        }
        if insufficient_material(pos) {
            return 0;
        }
        if pos.halfmove_clock() >= 100 {
            return if in_check && pos.legal_moves().is_empty() { -MATE + ply as i32 } else { 0 };
        }
        let pv_node = beta - alpha > 1;
        // One move before the fifty-move limit, the quiet move that standing pat stands for
        // ends the game in a draw. The evaluation comes before the hash probe although a
        // stored bound may make it needless: meanwhile the bucket prefetched when the parent
        // made the move arrives, and most probes would otherwise wait for memory.
        let stand = if in_check {
            -INFINITY
        } else if pos.halfmove_clock() >= 99 {
            0
        } else {
            self.corrected_eval(pos, ply)
        };
        let key = pos.key();
        let hit = self.shared.tt.probe(key, ply);
        let tt_move = hit.map_or(Move::NONE, |h| h.mv);
        if let Some(h) = hit {
            if !pv_node && h.bound.settles(h.score, alpha, beta) && trusts_table(pos) {
                return h.score;
            }
        }
        let original_alpha = alpha;
        let mut best;
        if in_check {
            best = -INFINITY;
        } else {
            if stand >= beta {
                return stand;
            }
            if stand > alpha {
                alpha = stand;
            }
            best = stand;
        }
        let mut picker = MovePicker::quiescence(pos, tt_move);
        let mut any_move = false;
        let mut best_move = Move::NONE;
        while let Some((m, _)) = picker.next(pos, &self.td.order) {
            any_move = true;
            if !in_check {
                if m.promotion_kind().is_some_and(|k| k != Kind::Queen) {
                    continue;
                }
                // Delta pruning: even winning the victim (plus a margin) cannot reach alpha.
                let victim = if m.is_en_passant() { nominal(Kind::Pawn) } else { nominal_of(pos.piece_at(m.to())) };
                if !m.is_promotion() && stand + victim + p.delta_margin() <= alpha {
                    continue;
                }
                // SEE pruning: losing exchanges are not worth a look.
                if !super::ordering::capture_is_good(pos, m) {
                    continue;
                }
            }
            let gives_check = pos.gives_check(m);
            self.td.nnue.push(ply, pos, m);
            let undo = pos.make(m);
            self.prefetch(pos.key());
            let v = -self.qsearch(pos, -beta, -alpha, ply + 1, gives_check);
            pos.unmake(m, &undo);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = m;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && !any_move {
            return -MATE + ply as i32;
        }
        self.shared.tt.store(key, best_move, best, 0, Bound::of(best, original_alpha, beta), ply);
        best
    }
}

/// Near the fifty-move limit a stored score may hold a result the clock no longer allows:
/// such a node is searched, not settled by the table.
#[inline(always)]
fn trusts_table(pos: &Position) -> bool {
    pos.halfmove_clock() < TT_TRUST_CLOCK
}

/// Does the side to move have a piece other than pawns and king (null-move zugzwang guard)?
#[inline]
fn has_pieces(pos: &Position) -> bool {
    let c = pos.side_to_move();
    [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen].iter().any(|&k| pos.count_of(Piece::new(c, k)) > 0)
}

/// KK, KNK, KBK: no mate is possible.
#[inline]
pub fn insufficient_material(pos: &Position) -> bool {
    let count = |c: Color, k: Kind| pos.count_of(Piece::new(c, k));
    let (w, b) = (pos.pieces(Color::White).len(), pos.pieces(Color::Black).len());
    if w + b > 3 {
        return false;
    }
    if w + b == 2 {
        return true;
    }
    let c = if w == 2 { Color::White } else { Color::Black };
    count(c, Kind::Knight) == 1 || count(c, Kind::Bishop) == 1
}
