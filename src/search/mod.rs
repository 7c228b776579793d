//! Search: the contract the engine facade drives, and the alpha-beta behind it.
//!
//! The facade owns one [`Searcher`] and runs [`Searcher::search`] on a thread of its own.
//! What a search is asked for ([`SearchLimits`]), what it tells while it runs ([`Report`]) and
//! what it ends with ([`SearchOutcome`]) are defined here; [`SharedControl`] carries `stop`
//! and `ponderhit` from the input thread to the search, which polls it every 1024 nodes.
//!
//! The floors below this file, each owning one part:
//! - `thread`: the pool. It owns the hash table and one `worker::ThreadData` per thread,
//!   and lends the table to every thread of a search (Lazy SMP on persistent threads).
//! - `root`: iterative deepening, aspiration windows, MultiPV and the moves at the root;
//!   when to stop between iterations is asked of [`crate::time`].
//! - `tree`: principal variation search below the root (negamax alpha-beta with null
//!   windows after the first move) and quiescence, with null move, reverse futility,
//!   futility, late-move pruning and reductions, check extensions; draws by repetition
//!   (including the game before the root), the fifty-move rule and insufficient material.
//! - `correction` learns how far searches find the static evaluation off, by pawn
//!   structure and by each side's piece placement, and corrects the evaluation the tree
//!   prunes and stands pat by.
//! - `picker` hands out the moves of a node in order, `ordering` scores them and keeps
//!   what the search learns about quiet moves.
//! - [`params`] holds the numbers all of these tune by: margins, reductions, history
//!   bonuses, the aspiration window.

mod correction;
mod ordering;
pub mod params;
mod picker;
mod root;
#[cfg(test)]
mod tests;
mod thread;
mod tree;
mod worker;

pub use thread::Searcher;
pub use tree::insufficient_material;

use crate::mv::Move;
use crate::strength::Strength;
use crate::time::TimeBudget;
use crate::value::{Bound, Score};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What the GUI asked for with `go`.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// No new iteration once the main thread has searched this many nodes: every move ends
    /// on a completed iteration, with `nodes` as the hard cap (self-play data).
    pub soft_nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Restrict the root to these moves (empty: all).
    pub searchmoves: Vec<Move>,
    /// Number of principal variations to report (at least 1).
    pub multipv: usize,
    pub time: TimeBudget,
    /// A limited playing strength (`UCI_LimitStrength`); `None`: full strength.
    pub strength: Option<Strength>,
}

/// Flags shared between the input thread and the search threads.
///
/// The search polls the atomics; threads that only wait for `stop` or `ponderhit` (a held
/// best move, the watchdog) sleep on the condition variable instead, woken by every change.
#[derive(Debug)]
pub struct SharedControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    /// When the clock of the current search started (reset by `ponderhit`).
    clock_start: Mutex<Instant>,
    /// When the search began, pondering included: the time its reports give.
    began: Instant,
    changed: Condvar,
    /// The lock `changed` is waited on with.
    gate: Mutex<()>,
}

impl Default for SharedControl {
    fn default() -> Self {
        SharedControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            clock_start: Mutex::new(Instant::now()),
            began: Instant::now(),
            changed: Condvar::new(),
            gate: Mutex::new(()),
        }
    }
}

impl SharedControl {
    /// A control for a search that starts now; `pondering` holds its clock until `ponderhit`.
    pub fn starting(pondering: bool) -> SharedControl {
        let control = SharedControl::default();
        control.pondering.store(pondering, Ordering::SeqCst);
        control
    }

    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.wake();
    }

    #[inline(always)]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::SeqCst)
    }

    /// `ponderhit`: the ponder search becomes a normal search whose clock starts now.
    pub fn ponderhit(&self) {
        self.start_clock();
        self.pondering.store(false, Ordering::SeqCst);
        self.wake();
    }

    /// Starts the clock of a search.
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
        self.clock_start.lock().map(|t| t.elapsed()).unwrap_or_default()
    }

    /// Time since the search began, pondering included: what `info time` reports, so that
    /// the nodes a report counts (the pondering ones too) and its time agree.
    pub fn searched(&self) -> Duration {
        self.began.elapsed()
    }

    /// Wakes every thread waiting in [`SharedControl::wait_while`].
    pub fn wake(&self) {
        // Taking the gate orders this wake after a waiter's check of its condition.
        drop(self.gate());
        self.changed.notify_all();
    }

    /// Sleeps while `busy` holds, re-checking it at every change, for at most `timeout` if
    /// given. Returns once `busy` is false or the time is up.
    pub fn wait_while(&self, timeout: Option<Duration>, busy: impl Fn(&SharedControl) -> bool) {
        // A timeout too long to add to the clock is no timeout.
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut gate = self.gate();
        while busy(self) {
            gate = match deadline {
                None => self.changed.wait(gate).unwrap_or_else(|p| p.into_inner()),
                Some(d) => {
                    let Some(left) = d.checked_duration_since(Instant::now()).filter(|t| !t.is_zero()) else {
                        return;
                    };
                    self.changed.wait_timeout(gate, left).unwrap_or_else(|p| p.into_inner()).0
                }
            };
        }
    }

    fn gate(&self) -> MutexGuard<'_, ()> {
        self.gate.lock().unwrap_or_else(|p| p.into_inner())
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
        /// Tablebase probes that gave a result, all threads.
        tbhits: u64,
        pv: Vec<Move>,
    },
    /// The root move being searched now.
    CurrentMove { depth: u32, mv: Move, number: usize, nodes: u64, time: Duration },
}

/// The result of a search: always a legal move when one exists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchOutcome {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub nodes: u64,
}

/// Switches for the selective parts of the search, so that each can be turned off to
/// measure what it is worth (the constant branches compile away). What each was measured
/// to be worth is in docs/search-and-eval.md ("What the selective parts are worth").
mod features {
    pub const REVERSE_FUTILITY: bool = true;
    pub const NULL_MOVE: bool = true;
    pub const LATE_MOVE_PRUNING: bool = true;
    pub const FUTILITY: bool = true;
    pub const LMR: bool = true;
    pub const CHECK_EXTENSION: bool = true;
    pub const SINGULAR_EXTENSION: bool = true;
    pub const ASPIRATION: bool = true;
    pub const QUIET_SEE_PRUNING: bool = true;
}
