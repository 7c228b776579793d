//! Search: the interface the engine facade drives, and the alpha-beta behind it.
//!
//! The facade owns a [`Searcher`] and runs [`Searcher::search`] on its own thread. The
//! search polls [`SharedControl`] every 1024 nodes: `stop` ends it at once; while
//! `pondering` is set no time limit applies, and the clock starts when pondering ends.
//!
//! The algorithm: iterative deepening with aspiration windows around the last score;
//! principal variation search (negamax alpha-beta with null windows after the first move);
//! a quiescence search on captures and queen promotions (all evasions in check) with delta
//! and SEE pruning. The transposition table ([`crate::tt`]) gives cut-offs and the first
//! move to try; [`ordering`] orders the rest. Selectivity: null move, reverse futility,
//! futility, late-move pruning and reductions, check extensions. Draws by repetition
//! (including the game before the root), the fifty-move rule and insufficient material.

mod ordering;
mod picker;
#[cfg(test)]
mod tests;

use crate::eval::{evaluate_cached, PawnTable};
use crate::mv::{Move, MAX_MOVES};
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::time::TimeBudget;
use crate::tt::TranspositionTable;
use crate::value::{nominal, nominal_of, Bound, Score, INFINITY, MATE, MATE_BOUND, MAX_PLY};
use ordering::{OrderTables, COUNTER, GOOD_CAPTURE, HASH_MOVE};
use picker::MovePicker;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the GUI asked for with `go`.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Restrict the root to these moves (empty: all).
    pub searchmoves: Vec<Move>,
    /// Number of principal variations to report (at least 1).
    pub multipv: usize,
    pub time: TimeBudget,
}

/// Flags shared between the input thread and the search thread.
#[derive(Debug)]
pub struct SharedControl {
    pub stop: AtomicBool,
    pub pondering: AtomicBool,
    /// When the clock of the current search started (reset by `ponderhit`).
    pub clock_start: Mutex<Instant>,
}

impl Default for SharedControl {
    fn default() -> Self {
        SharedControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            clock_start: Mutex::new(Instant::now()),
        }
    }
}

impl SharedControl {
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    /// Starts the clock of a search (and of a ponder search at `ponderhit`).
    pub fn start_clock(&self) {
        if let Ok(mut t) = self.clock_start.lock() {
            *t = Instant::now();
        }
    }
    /// Time on the clock of the current search; zero while pondering.
    pub fn elapsed(&self) -> Duration {
        if self.pondering.load(Ordering::Relaxed) {
            return Duration::ZERO;
        }
        self.clock_start
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }
}

/// Progress the search reports to the facade, which turns it into `info` lines.
#[derive(Clone, Debug)]
pub enum Report {
    /// A finished (or bounded) iteration for one principal variation.
    Iteration {
        depth: u32,
        seldepth: u32,
        multipv: usize,
        score: Score,
        bound: Bound,
        nodes: u64,
        time: Duration,
        hashfull: u32,
        pv: Vec<Move>,
    },
    /// The root move being searched now.
    CurrentMove {
        depth: u32,
        mv: Move,
        number: usize,
        nodes: u64,
        time: Duration,
    },
}

/// The result of a search: always a legal move when one exists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchOutcome {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub nodes: u64,
}

/// Switches for the selective parts of the search, so that each can be turned off to
/// measure what it is worth (the constant branches compile away).
///
/// Measured in self-play, full search against the search with the feature off, 5+0.05
/// (score of the full search; small samples, so only large effects show):
/// - LMR: 30 games +19 =8 -3, +207 +-126 Elo; bench tree at depth 12 is 4.5x larger without.
/// - null move: 30 games +10 =14 -6, +47 +-93 Elo; tree 1.4x larger without.
/// - reverse futility + late-move pruning + futility together: 20 games +11 =7 -2,
///   +168 +-139 Elo; tree 5.7x larger without.
/// - check extension, aspiration windows: not measured in games.
///
/// Whole engine at 10+0.1 (this commit's search and evaluation): vs sf2000 30 games
/// +20 =5 -5 (75%, +191 +-139 Elo), no illegal moves, time losses or crashes.
mod features {
    pub const REVERSE_FUTILITY: bool = true;
    pub const NULL_MOVE: bool = true;
    pub const LATE_MOVE_PRUNING: bool = true;
    pub const FUTILITY: bool = true;
    pub const LMR: bool = true;
    pub const CHECK_EXTENSION: bool = true;
    pub const ASPIRATION: bool = true;
}

/// One ply of the search stack.
#[derive(Clone, Copy, Default)]
struct Frame {
    /// Static evaluation (meaningless when in check).
    eval: i32,
    in_check: bool,
    /// The move played from this ply (NONE for a null move) and the piece that moved.
    mv: Move,
    piece: Piece,
}

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
}

/// Stack of each helper thread: deep recursion must not overflow (as the engine's search
/// thread).
const HELPER_STACK_BYTES: usize = 32 << 20;

/// Search state that lives across searches (hash table, history tables).
///
/// With `Threads` = N the searcher keeps N - 1 helpers (Lazy SMP): each has its own ordering
/// tables, pawn hash and stacks and shares only the hash table. During a search the helpers
/// run the same iterative deepening on the same root, half of them one ply ahead, and report
/// nothing; what they store in the table steers and shortens the main thread's search. The
/// main thread alone decides when to stop, gives the best move and reports; the helpers stop
/// when it returns.
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    helpers: Vec<Searcher>,
    /// Nodes of the helpers in the current search, published every 1024 nodes (shared with
    /// the helpers; always zero with one thread).
    helper_nodes: Arc<AtomicU64>,
    is_helper: bool,
    pawns: PawnTable,
    order: OrderTables,
    /// Late-move reduction by [depth][move number].
    lmr: Box<[[u8; 64]; 64]>,
    // --- state of the current search ---
    nodes: u64,
    node_limit: u64,
    hard: Option<Duration>,
    seldepth: usize,
    stopped: bool,
    /// Keys of the game before the root, the root, and the current search path.
    keys: Vec<u64>,
    root_index: usize,
    stack: Box<[Frame; MAX_PLY + 4]>,
    pv: Box<[[Move; MAX_PLY + 2]; MAX_PLY + 2]>,
    pv_len: [usize; MAX_PLY + 2],
    /// Move-ordering scores per ply (kept here so that no node clears a fresh array).
    scores: Box<[[i32; MAX_MOVES]; MAX_PLY + 2]>,
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher::with_table(Arc::new(TranspositionTable::new(hash_mb)), false)
    }

    /// A helper: no table of its own until a search lends it the main one.
    fn helper() -> Searcher {
        Searcher::with_table(Arc::new(TranspositionTable::unallocated()), true)
    }

    fn with_table(tt: Arc<TranspositionTable>, is_helper: bool) -> Searcher {
        let mut lmr = Box::new([[0u8; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
            }
        }
        Searcher {
            tt,
            helpers: Vec::new(),
            helper_nodes: Arc::new(AtomicU64::new(0)),
            is_helper,
            pawns: PawnTable::default(),
            order: OrderTables::default(),
            lmr,
            nodes: 0,
            node_limit: u64::MAX,
            hard: None,
            seldepth: 0,
            stopped: false,
            keys: Vec::new(),
            root_index: 0,
            stack: Box::new([Frame::default(); MAX_PLY + 4]),
            pv: Box::new([[Move::NONE; MAX_PLY + 2]; MAX_PLY + 2]),
            pv_len: [0; MAX_PLY + 2],
            scores: Box::new([[0; MAX_MOVES]; MAX_PLY + 2]),
        }
    }

    /// Resizes the hash table (allocation happens here, not at the next search); on failure
    /// the table keeps its old size.
    pub fn resize(&mut self, hash_mb: usize) -> Result<(), crate::tt::TableAllocError> {
        // The helpers give back the table they were lent, so that it is ours alone.
        for h in self.helpers.iter_mut() {
            h.tt = Arc::new(TranspositionTable::unallocated());
        }
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt.resize(hash_mb),
            None => {
                // Unreachable (no search runs and no helper holds it); a new table then.
                let mut tt = TranspositionTable::new(1);
                let result = tt.resize(hash_mb);
                self.tt = Arc::new(tt);
                result
            }
        }
    }

    /// Search threads in all (at least 1): keeps `n - 1` helpers, allocating only new ones.
    pub fn set_threads(&mut self, n: usize) {
        self.helpers.truncate(n.max(1) - 1);
        while self.helpers.len() < n.max(1) - 1 {
            self.helpers.push(Searcher::helper());
        }
    }

    /// Search threads in all.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Forgets everything learnt (hash table, history): `ucinewgame`, `Clear Hash`.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.pawns.clear();
        self.order.clear();
        for h in self.helpers.iter_mut() {
            h.pawns.clear();
            h.order.clear();
        }
    }

    /// Hash table fill, per mille.
    pub fn hashfull(&self) -> u32 {
        self.tt.hashfull()
    }

    /// Searches `pos`; `history` holds the keys of the positions before it in the game
    /// (oldest first) for repetition detection.
    ///
    /// With helpers, `limits` bind the main thread: `go nodes N` stops when the main thread
    /// has searched N nodes (the helpers add about as many each on top, and the reported
    /// node count is the total of all threads), `go depth` is the main thread's depth.
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &SearchLimits,
        control: &SharedControl,
        report: &mut dyn FnMut(Report),
    ) -> SearchOutcome {
        self.tt.new_search();
        self.helper_nodes.store(0, Ordering::Relaxed);
        if self.helpers.is_empty() {
            return self.iterate(pos, history, limits, control, report, 1);
        }
        let mut helpers = std::mem::take(&mut self.helpers);
        let mut outcome =
            self.search_with_helpers(&mut helpers, pos, history, limits, control, report);
        self.helpers = helpers;
        outcome.nodes = self.total_nodes();
        outcome
    }

    /// Lazy SMP: the helpers search on scoped threads until the main thread returns.
    fn search_with_helpers(
        &mut self,
        helpers: &mut [Searcher],
        pos: &Position,
        history: &[u64],
        limits: &SearchLimits,
        control: &SharedControl,
        report: &mut dyn FnMut(Report),
    ) -> SearchOutcome {
        // The helpers' own stop flag: the GUI's `stop` reaches them through the main thread,
        // which ends within 1024 nodes and then raises this one. Stopping them with the GUI's
        // flag instead would end a held `go infinite` search when the main thread finishes.
        let helper_control = SharedControl::default();
        // No limits: a helper searches until told to stop.
        let helper_limits = SearchLimits {
            searchmoves: limits.searchmoves.clone(),
            multipv: 1,
            ..Default::default()
        };
        std::thread::scope(|scope| {
            // Raised on every way out of the main search, a panic included, so that the scope
            // never waits for helpers nobody stops.
            let _stop_helpers = StopOnDrop(&helper_control);
            for (i, h) in helpers.iter_mut().enumerate() {
                h.tt = Arc::clone(&self.tt);
                h.helper_nodes = Arc::clone(&self.helper_nodes);
                // Half of the helpers run one ply ahead of the main thread, so that the
                // threads spread over two depths rather than repeat the same tree.
                let first_depth = 1 + ((i + 1) % 2) as i32;
                let (helper_limits, helper_control) = (&helper_limits, &helper_control);
                let spawned = std::thread::Builder::new()
                    .name(format!("helper {}", i + 1))
                    .stack_size(HELPER_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        h.iterate(
                            pos,
                            history,
                            helper_limits,
                            helper_control,
                            &mut |_| {},
                            first_depth,
                        );
                    });
                // Without a thread the search goes on with fewer helpers.
                drop(spawned);
            }
            self.iterate(pos, history, limits, control, report, 1)
        })
    }

    /// Iterative deepening from `first_depth` on: the search of one thread.
    fn iterate(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &SearchLimits,
        control: &SharedControl,
        report: &mut dyn FnMut(Report),
        first_depth: i32,
    ) -> SearchOutcome {
        let mut pos = pos.clone();
        self.nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.hard = limits.time.hard;
        self.order.age();

        // Keys: the game so far (without the root if the caller included it), then the root.
        let history = match history.last() {
            Some(&k) if k == pos.key() => &history[..history.len() - 1],
            _ => history,
        };
        self.keys.clear();
        self.keys.reserve(history.len() + MAX_PLY + 4);
        self.keys.extend_from_slice(history);
        self.root_index = self.keys.len();
        self.keys.resize(self.root_index + MAX_PLY + 4, 0);
        self.keys[self.root_index] = pos.key();

        let legal = pos.legal_moves();
        let mut root: Vec<RootMove> = legal
            .iter()
            .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
            .map(|&mv| RootMove {
                mv,
                score: -INFINITY,
                prev_score: -INFINITY,
                seldepth: 0,
                pv: vec![mv],
            })
            .collect();
        if root.is_empty() {
            // No legal move, or none of `searchmoves` is legal: fall back to all moves.
            root = legal
                .iter()
                .map(|&mv| RootMove {
                    mv,
                    score: -INFINITY,
                    prev_score: -INFINITY,
                    seldepth: 0,
                    pv: vec![mv],
                })
                .collect();
        }
        if root.is_empty() {
            return SearchOutcome {
                best: None,
                ponder: None,
                nodes: 0,
            };
        }
        // Initial order: hash move, then captures by MVV-LVA, then the rest.
        let tt_move = self.tt.probe(pos.key(), 0).map_or(Move::NONE, |h| h.mv);
        let mut keyed: Vec<(i32, RootMove)> = root
            .drain(..)
            .map(|r| {
                let k = if r.mv == tt_move {
                    HASH_MOVE
                } else if r.mv.is_tactical() {
                    GOOD_CAPTURE + ordering::mvv_lva(&pos, r.mv)
                } else {
                    0
                };
                (k, r)
            })
            .collect();
        keyed.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
        root = keyed.into_iter().map(|(_, r)| r).collect();

        let multipv = limits.multipv.max(1).min(root.len());
        let mate_plies = limits.mate.map(|n| 2 * n.max(1) as i32 - 1);
        let max_depth = match (limits.depth, limits.mate) {
            (Some(d), _) => d,
            (None, Some(n)) => (4 * n + 4).min(MAX_PLY as u32 - 8),
            _ => MAX_PLY as u32 - 8,
        }
        .clamp(1, MAX_PLY as u32 - 8);

        let mut instability = 0.0f64;
        let mut last_best = root[0].mv;
        let mut last_score = -INFINITY;
        for depth in first_depth.min(max_depth as i32)..=max_depth as i32 {
            for r in root.iter_mut() {
                r.prev_score = r.score;
            }
            for pv_index in 0..multipv {
                for r in root[pv_index..].iter_mut() {
                    r.score = -INFINITY;
                }
                let prev = root[pv_index].prev_score;
                let mut delta = 18;
                let (mut alpha, mut beta) =
                    if features::ASPIRATION && depth >= 5 && prev.abs() < MATE_BOUND {
                        ((prev - delta).max(-INFINITY), (prev + delta).min(INFINITY))
                    } else {
                        (-INFINITY, INFINITY)
                    };
                loop {
                    let v = self.root_search(
                        &mut pos, &mut root, depth, alpha, beta, pv_index, control, report,
                    );
                    sort_root(&mut root[pv_index..]);
                    if self.stopped {
                        break;
                    }
                    let bound = if v <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (v - delta).max(-INFINITY);
                        Bound::Upper
                    } else if v >= beta {
                        beta = (v + delta).min(INFINITY);
                        Bound::Lower
                    } else {
                        break;
                    };
                    delta += delta / 2 + 5;
                    if control.elapsed() >= Duration::from_secs(1) {
                        let r = &root[pv_index];
                        report(self.iteration_report(depth, pv_index, r, v, bound, control));
                    }
                }
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            for (i, r) in root.iter().enumerate().take(multipv) {
                report(self.iteration_report(depth, i, r, r.score, Bound::Exact, control));
            }

            // --- stop conditions after a completed iteration ---
            let best = &root[0];
            if let Some(plies) = mate_plies {
                if best.score > MATE_BOUND && MATE - best.score <= plies {
                    break;
                }
            }
            if let Some(soft) = limits.time.soft {
                let changed = best.mv != last_best;
                instability = instability * 0.5 + if changed { 1.0 } else { 0.0 };
                let drop = if last_score > -INFINITY {
                    last_score - best.score
                } else {
                    0
                };
                let mut factor = 0.7 + 0.8 * instability;
                if drop > 20 {
                    factor += 0.25;
                }
                if drop > 60 {
                    factor += 0.35;
                }
                if root.len() == 1 && depth >= 4 {
                    factor = 0.0; // the only move: no need to think
                }
                let factor = factor.clamp(0.0, 2.5);
                let mut budget = soft.mul_f64(factor);
                if let Some(hard) = limits.time.hard {
                    budget = budget.min(hard);
                }
                if control.elapsed() >= budget {
                    break;
                }
            }
            last_best = best.mv;
            last_score = best.score;
        }

        let best = root[0].mv;
        let mut ponder = root[0].pv.get(1).copied();
        if ponder.is_none() {
            // Ask the hash table for the reply.
            let undo = pos.make(best);
            if let Some(h) = self.tt.probe(pos.key(), 1) {
                if pos.legal_moves().contains(h.mv) {
                    ponder = Some(h.mv);
                }
            }
            pos.unmake(best, &undo);
        }
        if self.is_helper {
            // The part of the count not yet published.
            self.helper_nodes
                .fetch_add(self.nodes & 1023, Ordering::Relaxed);
        }
        SearchOutcome {
            best: Some(best),
            ponder,
            nodes: self.nodes,
        }
    }

    /// Nodes of all threads so far, for reports.
    fn total_nodes(&self) -> u64 {
        self.nodes + self.helper_nodes.load(Ordering::Relaxed)
    }

    fn iteration_report(
        &self,
        depth: i32,
        index: usize,
        r: &RootMove,
        score: i32,
        bound: Bound,
        control: &SharedControl,
    ) -> Report {
        Report::Iteration {
            depth: depth as u32,
            seldepth: r.seldepth.max(depth as u32),
            multipv: index + 1,
            score: Score::from_value(score),
            bound,
            nodes: self.total_nodes(),
            time: control.elapsed(),
            hashfull: self.tt.hashfull(),
            pv: r.pv.clone(),
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
        control: &SharedControl,
        report: &mut dyn FnMut(Report),
    ) -> i32 {
        let mut best = -INFINITY;
        let in_check = pos.in_check();
        self.stack[0] = Frame {
            eval: 0,
            in_check,
            mv: Move::NONE,
            piece: Piece::NONE,
        };
        self.pv_len[0] = 0;
        for (i, r) in root.iter_mut().enumerate().skip(first) {
            let m = r.mv;
            if self.nodes > 0 && i > first && control.elapsed() >= Duration::from_secs(1) {
                report(Report::CurrentMove {
                    depth: depth as u32,
                    mv: m,
                    number: i + 1,
                    nodes: self.total_nodes(),
                    time: control.elapsed(),
                });
            }
            self.seldepth = 0;
            let piece = pos.piece_at(m.from());
            let undo = pos.make(m);
            self.stack[0].mv = m;
            self.stack[0].piece = piece;
            let gives_check = pos.in_check();
            let new_depth = depth - 1 + (features::CHECK_EXTENSION && gives_check) as i32;
            let mut v;
            if i == first {
                v = -self.negamax(pos, new_depth, -beta, -alpha, 1, control);
            } else {
                v = -self.negamax(pos, new_depth, -alpha - 1, -alpha, 1, control);
                if v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(pos, new_depth, -beta, -alpha, 1, control);
                }
            }
            pos.unmake(m, &undo);
            if self.stopped {
                break;
            }
            if i == first || v > alpha {
                r.score = v;
                r.seldepth = self.seldepth as u32;
                r.pv.clear();
                r.pv.push(m);
                let len = self.pv_len[1];
                r.pv.extend_from_slice(&self.pv[1][1..len.max(1)]);
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

    /// Stops on the node limit (exact) and, every 1024 nodes, on the clock or `stop`.
    #[inline(always)]
    fn count_node(&mut self, control: &SharedControl) {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.stopped = true;
        }
        if self.nodes & 1023 == 0 {
            if self.is_helper {
                self.helper_nodes.fetch_add(1024, Ordering::Relaxed);
            }
            if control.stopped() || self.hard.is_some_and(|h| control.elapsed() >= h) {
                self.stopped = true;
            }
        }
    }

    /// Repetition of a position since the last irreversible move, including the game before
    /// the root. One repetition is scored as a draw: if it was good to repeat once, it is
    /// good to repeat again.
    #[inline]
    fn is_repetition(&self, pos: &Position, ply: usize) -> bool {
        let idx = self.root_index + ply;
        let key = pos.key();
        let limit = (pos.halfmove_clock() as usize).min(idx);
        let mut back = 4;
        while back <= limit {
            if self.keys[idx - back] == key {
                return true;
            }
            back += 2;
        }
        false
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        control: &SharedControl,
    ) -> i32 {
        self.pv_len[ply] = ply;
        self.keys[self.root_index + ply] = pos.key();
        // Draws: repetition, fifty moves (unless it is mate), insufficient material. Checked
        // before dropping into quiescence so that a repeating move is a draw at any depth.
        if self.is_repetition(pos, ply) || insufficient_material(pos) {
            return 0;
        }
        if pos.halfmove_clock() >= 100 {
            if pos.in_check() && pos.legal_moves().is_empty() {
                return -MATE + ply as i32;
            }
            return 0;
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply, control);
        }
        self.count_node(control);
        if self.stopped {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return evaluate_cached(pos, &mut self.pawns);
        }
        // Mate distance pruning: no line from here beats a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = pos.key();
        let hit = self.tt.probe(key, ply);
        let tt_move = hit.map_or(Move::NONE, |h| h.mv);
        if let Some(h) = hit {
            if !pv_node && h.depth >= depth && h.bound.settles(h.score, alpha, beta) {
                return h.score;
            }
        }

        let in_check = pos.in_check();
        let eval = if in_check {
            -INFINITY
        } else {
            evaluate_cached(pos, &mut self.pawns)
        };
        self.stack[ply].eval = eval;
        self.stack[ply].in_check = in_check;
        let improving = !in_check
            && ply >= 2
            && !self.stack[ply - 2].in_check
            && eval > self.stack[ply - 2].eval;

        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // Reverse futility: far above beta at low depth, a quiet move will not lose it all.
            if features::REVERSE_FUTILITY
                && depth <= 7
                && eval - 80 * (depth - improving as i32) >= beta
            {
                return eval;
            }
            // Null move: if passing still fails high, a real move will. Not in pawn endings
            // (zugzwang), not twice in a row.
            if features::NULL_MOVE
                && depth >= 3
                && eval >= beta
                && self.stack[ply - 1].mv != Move::NONE
                && has_pieces(pos)
            {
                let r = 3 + depth / 4 + ((eval - beta) / 200).min(3);
                let undo = pos.make_null();
                self.stack[ply].mv = Move::NONE;
                self.stack[ply].piece = Piece::NONE;
                let v = -self.negamax(pos, depth - r, -beta, -beta + 1, ply + 1, control);
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
        if depth >= 5 && tt_move.is_none() {
            depth -= 1;
        }

        let prev = self.stack[ply - 1];
        let counter = self.order.counter((prev.piece, prev.mv));
        let mut picker = MovePicker::new(pos, tt_move, self.order.killers[ply], counter);
        let side = pos.side_to_move().index();

        let mut best = -INFINITY;
        let mut best_move = Move::NONE;
        let original_alpha = alpha;
        let mut legal_moves = 0;
        let mut searched = 0;
        let mut quiets = [Move::NONE; 64];
        let mut quiet_count = 0;
        let lmp_limit = (3 + depth * depth) / if improving { 1 } else { 2 };
        while let Some((m, order_score)) = picker.next(pos, &self.order) {
            legal_moves += 1;
            let quiet = !m.is_tactical();
            // Pruning of late moves once a real score is in hand.
            if !pv_node && !in_check && best > -MATE_BOUND {
                if features::LATE_MOVE_PRUNING
                    && quiet
                    && depth <= 8
                    && quiet_count as i32 >= lmp_limit
                {
                    picker.skip_quiets();
                    continue;
                }
                if !quiet && order_score < 0 && depth <= 6 && crate::see::see(pos, m) < -90 * depth
                {
                    continue;
                }
            }
            let piece = pos.piece_at(m.from());
            let undo = pos.make(m);
            let gives_check = pos.in_check();
            // Futility: a quiet move that does not check cannot lift a hopeless eval.
            if features::FUTILITY
                && quiet
                && !pv_node
                && !in_check
                && !gives_check
                && best > -MATE_BOUND
                && depth <= 6
                && eval + 100 + 100 * depth <= alpha
            {
                pos.unmake(m, &undo);
                if quiet_count < quiets.len() {
                    quiets[quiet_count] = m;
                    quiet_count += 1;
                }
                continue;
            }
            self.stack[ply].mv = m;
            self.stack[ply].piece = piece;
            // Check extension.
            let new_depth = depth - 1 + (features::CHECK_EXTENSION && gives_check) as i32;
            let mut v;
            if searched == 0 {
                v = -self.negamax(pos, new_depth, -beta, -alpha, ply + 1, control);
            } else {
                // Late-move reduction for quiet moves and losing captures.
                let mut r = 0;
                if features::LMR
                    && depth >= 3
                    && searched > pv_node as i32
                    && (quiet || order_score < 0)
                    && !gives_check
                {
                    r = self.lmr[(depth as usize).min(63)][(searched as usize).min(63)] as i32;
                    if pv_node {
                        r -= 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    if order_score >= COUNTER {
                        r -= 1; // killers and counter-move
                    } else if quiet {
                        r -= order_score / 6000;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                v = -self.negamax(pos, new_depth - r, -alpha - 1, -alpha, ply + 1, control);
                if v > alpha && r > 0 && !self.stopped {
                    v = -self.negamax(pos, new_depth, -alpha - 1, -alpha, ply + 1, control);
                }
                if v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(pos, new_depth, -beta, -alpha, ply + 1, control);
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
                    // Triangular PV: this move, then the child's line.
                    self.pv[ply][ply] = m;
                    let child_len = self.pv_len[ply + 1].max(ply + 1);
                    for j in ply + 1..child_len {
                        self.pv[ply][j] = self.pv[ply + 1][j];
                    }
                    self.pv_len[ply] = child_len;
                    if v >= beta {
                        if quiet {
                            self.order.reward_quiet(
                                side,
                                ply,
                                depth,
                                m,
                                &quiets[..quiet_count],
                                (prev.piece, prev.mv),
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
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if best == -INFINITY {
            // Every move was pruned (cannot happen: the first move is never pruned).
            best = alpha;
        }
        let bound = Bound::of(best, original_alpha, beta);
        self.tt.store(key, best_move, best, depth, bound, ply);
        best
    }

    /// Quiescence: captures and queen promotions until the position is quiet; all evasions
    /// when in check. Stand-pat on the static evaluation; delta and SEE pruning.
    fn qsearch(
        &mut self,
        pos: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        control: &SharedControl,
    ) -> i32 {
        self.pv_len[ply] = ply;
        self.count_node(control);
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return evaluate_cached(pos, &mut self.pawns);
        }
        if insufficient_material(pos) {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        let key = pos.key();
        let hit = self.tt.probe(key, ply);
        let tt_move = hit.map_or(Move::NONE, |h| h.mv);
        if let Some(h) = hit {
            if !pv_node && h.bound.settles(h.score, alpha, beta) {
                return h.score;
            }
        }
        let in_check = pos.in_check();
        let original_alpha = alpha;
        let mut best;
        let stand;
        let mut moves;
        if in_check {
            moves = pos.legal_moves();
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            best = -INFINITY;
            stand = -INFINITY;
        } else {
            stand = evaluate_cached(pos, &mut self.pawns);
            if stand >= beta {
                return stand;
            }
            if stand > alpha {
                alpha = stand;
            }
            best = stand;
            moves = pos.legal_tactical_moves();
        }
        let n = moves.len();
        let side = pos.side_to_move().index();
        for (i, &m) in moves.iter().enumerate() {
            self.scores[ply][i] = if m == tt_move {
                HASH_MOVE
            } else if m.is_tactical() {
                GOOD_CAPTURE + ordering::mvv_lva(pos, m)
            } else {
                self.order.history(side, m)
            };
        }
        let mut best_move = Move::NONE;
        for i in 0..n {
            let (m, _) = ordering::pick(&mut moves[..n], &mut self.scores[ply][..n], i);
            if !in_check {
                if m.promotion_kind().is_some_and(|k| k != Kind::Queen) {
                    continue;
                }
                // Delta pruning: even winning the victim (plus a margin) cannot reach alpha.
                let victim = if m.is_en_passant() {
                    nominal(Kind::Pawn)
                } else {
                    nominal_of(pos.piece_at(m.to()))
                };
                if !m.is_promotion() && stand + victim + 200 <= alpha {
                    continue;
                }
                // SEE pruning: losing exchanges are not worth a look.
                if !ordering::capture_is_good(pos, m) {
                    continue;
                }
            }
            let undo = pos.make(m);
            let v = -self.qsearch(pos, -beta, -alpha, ply + 1, control);
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
        let bound = Bound::of(best, original_alpha, beta);
        self.tt.store(key, best_move, best, 0, bound, ply);
        best
    }
}

/// Raises a stop flag when dropped.
struct StopOnDrop<'a>(&'a SharedControl);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.request_stop();
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

/// Does the side to move have a piece other than pawns and king (null-move zugzwang guard)?
#[inline]
fn has_pieces(pos: &Position) -> bool {
    let c = pos.side_to_move();
    [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen]
        .iter()
        .any(|&k| pos.count_of(Piece::new(c, k)) > 0)
}

/// KK, KNK, KBK: no mate is possible.
#[inline]
pub fn insufficient_material(pos: &Position) -> bool {
    let count = |c: Color, k: Kind| pos.count_of(Piece::new(c, k));
    let (w, b) = (
        pos.pieces(Color::White).len(),
        pos.pieces(Color::Black).len(),
    );
    if w + b > 3 {
        return false;
    }
    if w + b == 2 {
        return true;
    }
    let c = if w == 2 { Color::White } else { Color::Black };
    count(c, Kind::Knight) == 1 || count(c, Kind::Bishop) == 1
}
