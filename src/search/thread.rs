//! The search threads: a pool that owns the hash table and each thread's data.
//!
//! With `Threads` = N a search runs N threads on the same root (Lazy SMP). They share only
//! the hash table, which the pool lends to each for the length of one search; each thread
//! keeps its own ordering tables and pawn hash across searches. The helpers' threads are
//! started when `Threads` changes, not for every search (see `crate::threads::Pool`).
//! The main thread alone decides when to stop, gives the best move and reports; the
//! helpers search until it returns, half of them one ply ahead so that the threads spread
//! over two depths rather than repeat one tree, and what they store steers the main thread.

use super::params::Params;
use super::worker::{Reductions, Shared, ThreadData, TreeProbe, Worker};
use super::{Report, SearchLimits, SearchOutcome, SharedControl};
use crate::mv::Move;
use crate::nnue::{Network, NETWORK};
use crate::position::Position;
use crate::tablebase::{piece_count, rank_root, RankedMove, RootMetric, TbConfig};
use crate::threads::Pool;
use crate::tt::{TableAllocError, TranspositionTable};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Stack of each helper thread: deep recursion must not overflow (as the engine's search
/// thread).
const HELPER_STACK_BYTES: usize = 32 << 20;

/// The search pool: the hash table and one `ThreadData` per search thread.
pub struct Searcher {
    tt: TranspositionTable,
    reductions: Reductions,
    /// The tunable numbers the next searches use, and the reductions built from them.
    params: Params,
    /// The main thread's data first, then the helpers'.
    threads: Vec<ThreadData>,
    /// The helpers' threads (`None` with one thread, or when none could be started), and
    /// how many were asked for.
    pool: Option<Pool>,
    pool_asked: usize,
    /// Endgame tablebases, when `SyzygyPath` holds some.
    tb: Option<TbConfig>,
    /// A network loaded at run time (`EvalFile`); `None`: the embedded one.
    network: Option<Arc<Network>>,
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: TranspositionTable::new(hash_mb),
            reductions: Reductions::new(&Params::defaults()),
            params: Params::defaults(),
            threads: vec![ThreadData::new()],
            pool: None,
            pool_asked: 0,
            tb: None,
            network: None,
        }
    }

    /// The network the next searches evaluate with; `None`: the embedded one. Another
    /// network than the last forgets what was learnt, as `ucinewgame` does: the evaluation
    /// caches and the hash table hold the old network's scores.
    pub fn set_network(&mut self, network: Option<Arc<Network>>) {
        let same = match (&self.network, &network) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        if !same {
            self.network = network;
            self.clear();
        }
    }

    /// The tablebases (and probe options) the next searches use; `None`: none.
    pub fn set_tablebases(&mut self, tb: Option<TbConfig>) {
        self.tb = tb;
    }

    /// The tunable numbers the next searches use; the reductions are rebuilt when they change.
    pub fn set_params(&mut self, params: Params) {
        if params != self.params {
            self.params = params;
            self.reductions = Reductions::new(&params);
        }
    }

    /// Resizes the hash table (allocation happens here, not at the next search); on failure
    /// the table keeps its old size.
    pub fn resize(&mut self, hash_mb: usize) -> Result<(), TableAllocError> {
        self.tt.resize(hash_mb)
    }

    /// Search threads in all (at least 1), keeping the data of those that stay. The helpers'
    /// threads start here; should the system refuse that many, half as many are tried, down
    /// to none (the search then runs on the calling thread alone), until the next change.
    pub fn set_threads(&mut self, n: usize) {
        let n = n.max(1);
        self.threads.truncate(n);
        while self.threads.len() < n {
            self.threads.push(ThreadData::new());
        }
        if self.pool_asked != n - 1 {
            // The old threads end before the new ones start.
            self.pool = None;
            self.pool_asked = n - 1;
            let mut size = n - 1;
            while size > 0 && self.pool.is_none() {
                self.pool = Pool::new(size, "helper", HELPER_STACK_BYTES).ok();
                size /= 2;
            }
        }
    }

    /// Search threads in all.
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Forgets everything learnt (hash table, history): `ucinewgame`, `Clear Hash`.
    pub fn clear(&mut self) {
        self.tt.clear();
        for t in self.threads.iter_mut() {
            t.clear();
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
        self.search_then(pos, history, limits, control, report, &mut |_| {})
    }

    /// [`Searcher::search`], calling `done` with the outcome as soon as the main thread has
    /// it, before the helpers are joined: with many threads on few cores the last helper
    /// may take a while to notice its stop, and the best move should not wait for it.
    /// Returns the outcome again once every thread has ended, with the final node count.
    pub fn search_then(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &SearchLimits,
        control: &SharedControl,
        report: &mut dyn FnMut(Report),
        done: &mut dyn FnMut(&SearchOutcome),
    ) -> SearchOutcome {
        self.tt.new_search();
        let helper_nodes = AtomicU64::new(0);
        // At a root in the tables only the moves that keep its best outcome are searched; when
        // DTZ ranked them, that outcome is safe and probes below the root would add nothing.
        let root_tb = self.tb.as_ref().and_then(|tb| rank_at_root(tb, pos, history, &limits.searchmoves));
        let ranked_by_dtz = root_tb.as_ref().is_some_and(|r| r.metric == RootMetric::Dtz);
        let other_tb_hits = AtomicU64::new(root_tb.as_ref().map_or(0, |r| r.probes));
        let tb = self.tb.as_ref().filter(|_| !ranked_by_dtz).and_then(|tb| {
            let (pieces, depth) = tb.cardinality();
            (pieces > 0).then_some(TreeProbe { tables: &tb.tables, pieces, depth })
        });
        let restricted;
        let limits = match &root_tb {
            Some(r) => {
                restricted = SearchLimits { searchmoves: r.kept.iter().map(|k| k.mv).collect(), ..limits.clone() };
                &restricted
            }
            None => limits,
        };
        let shared = Shared {
            tt: &self.tt,
            net: self.network.as_deref().unwrap_or(&NETWORK),
            reductions: &self.reductions,
            params: &self.params,
            helper_nodes: &helper_nodes,
            tb,
            root_tb: root_tb.as_ref().map_or(&[], |r| &r.kept),
            other_tb_hits: &other_tb_hits,
        };
        let (main, helpers) = self.threads.split_first_mut().expect("the pool has a main thread");
        let pool = match &self.pool {
            Some(pool) if !helpers.is_empty() => pool,
            _ => {
                let outcome =
                    Worker::new(main, &shared, control, true, limits).iterate(pos, history, limits, report, 1);
                done(&outcome);
                return outcome;
            }
        };
        // The helpers stop on the GUI's `stop` as the main thread does, and on their own flag,
        // raised when the main thread ends. Raising the GUI's flag for that instead would end
        // a held `go infinite` search when the main thread finishes early.
        let helper_control = SharedControl::default();
        // No limits: a helper searches until told to stop.
        let helper_limits = SearchLimits { searchmoves: limits.searchmoves.clone(), multipv: 1, ..Default::default() };
        let mut outcome = pool.scope(|scope| {
            // Raised on every way out of the main search, a panic included, so that the scope
            // never waits for helpers nobody stops.
            let stop_helpers = StopOnDrop(&helper_control);
            for (i, td) in helpers.iter_mut().take(pool.size()).enumerate() {
                let first_depth = 1 + ((i + 1) % 2) as i32;
                let (shared, helper_limits, helper_control) = (&shared, &helper_limits, &helper_control);
                scope.spawn(move |_| {
                    let mut worker = Worker::new(td, shared, control, false, helper_limits);
                    worker.helper_stop = Some(helper_control);
                    worker.iterate(pos, history, helper_limits, &mut |_| {}, first_depth);
                });
            }
            let mut worker = Worker::new(main, &shared, control, true, limits);
            let outcome = worker.iterate(pos, history, limits, report, 1);
            drop(stop_helpers);
            done(&SearchOutcome { nodes: worker.total_nodes(), ..outcome });
            (outcome, worker.nodes)
        });
        // Every helper has ended and published its count.
        outcome.0.nodes = outcome.1 + helper_nodes.load(Ordering::Relaxed);
        outcome.0
    }
}

/// The root as the tables see it.
struct RootRanking {
    /// The moves of the best rank, best first.
    kept: Vec<RankedMove>,
    metric: RootMetric,
    /// Probes made (each counts as a tablebase hit).
    probes: u64,
}

/// Ranks the root moves (those of `searchmoves`, if any is legal) when the root has no more
/// pieces than the probe limit and no castling rights; `None` when it is not in the tables.
fn rank_at_root(tb: &TbConfig, pos: &Position, history: &[u64], searchmoves: &[Move]) -> Option<RootRanking> {
    let (pieces, _) = tb.cardinality();
    if piece_count(pos) > pieces || pos.castling_rights() != 0 {
        return None;
    }
    let legal = pos.legal_moves();
    let mut moves: Vec<Move> = legal.iter().copied().filter(|m| searchmoves.contains(m)).collect();
    if moves.is_empty() {
        moves = legal.iter().copied().collect();
    }
    let (ranked, metric) = rank_root(&tb.tables, pos, &moves, history).ok()?;
    let best = ranked.first()?.rank;
    let kept = ranked.into_iter().take_while(|r| r.rank == best).collect();
    Some(RootRanking { kept, metric, probes: moves.len() as u64 })
}

/// Raises a stop flag when dropped.
struct StopOnDrop<'a>(&'a SharedControl);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.request_stop();
    }
}
