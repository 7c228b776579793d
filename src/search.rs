//! Search: the interface the engine facade drives, and (for now) a plain alpha-beta.
//!
//! The facade owns a [`Searcher`] and runs [`Searcher::search`] on its own thread. The
//! search polls [`SharedControl`] every few thousand nodes: `stop` ends it at once; while
//! `pondering` is set no time limit applies, and the clock starts when pondering ends.

use crate::mv::Move;
use crate::position::Position;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Mate scores are `MATE - ply`; anything beyond `MATE_BOUND` is a mate.
pub const MATE: i32 = 32_000;
pub const MATE_BOUND: i32 = MATE - 1_000;
pub const INFINITY: i32 = MATE + 1;
pub const MAX_PLY: usize = 128;

/// Time allowed for one search, measured from the start (or from `ponderhit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeBudget {
    /// Do not start another iteration after this.
    pub soft: Option<Duration>,
    /// Abort the search at once after this.
    pub hard: Option<Duration>,
}

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
        SharedControl { stop: AtomicBool::new(false), pondering: AtomicBool::new(false), clock_start: Mutex::new(Instant::now()) }
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
        self.clock_start.lock().map(|t| t.elapsed()).unwrap_or_default()
    }
}

/// A score as UCI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Centipawns(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    pub fn from_internal(v: i32) -> Score {
        if v > MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v < -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Centipawns(v)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
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
    CurrentMove { depth: u32, mv: Move, number: usize, nodes: u64, time: Duration },
}

/// The result of a search: always a legal move when one exists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchOutcome {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub nodes: u64,
}

/// Search state that lives across searches (hash table, history tables).
pub struct Searcher {
    nodes: u64,
    hash_mb: usize,
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher { nodes: 0, hash_mb }
    }

    /// Resizes the hash table (allocation happens here, not at the next search).
    pub fn resize(&mut self, hash_mb: usize) {
        self.hash_mb = hash_mb;
    }

    /// Forgets everything learnt (hash table, history): `ucinewgame`, `Clear Hash`.
    pub fn clear(&mut self) {}

    /// Hash table fill, per mille.
    pub fn hashfull(&self) -> u32 {
        0
    }

    /// Searches `pos`; `history` holds the keys of the positions before it in the game
    /// (oldest first) for repetition detection.
    pub fn search(
        &mut self,
        pos: &Position,
        _history: &[u64],
        limits: &SearchLimits,
        control: &SharedControl,
        report: &mut dyn FnMut(Report),
    ) -> SearchOutcome {
        let mut pos = pos.clone();
        self.nodes = 0;
        let mut root: Vec<Move> = pos.legal_moves().iter().copied().collect();
        if !limits.searchmoves.is_empty() {
            root.retain(|m| limits.searchmoves.contains(m));
        }
        let mut outcome = SearchOutcome { best: root.first().copied(), ponder: None, nodes: 0 };
        if root.is_empty() {
            return outcome;
        }
        let max_depth = limits.depth.unwrap_or(MAX_PLY as u32 - 1).clamp(1, MAX_PLY as u32 - 1);
        for depth in 1..=max_depth {
            let mut best = -INFINITY;
            let mut best_move = root[0];
            for &m in &root {
                let undo = pos.make(m);
                let v = -self.negamax(&mut pos, depth - 1, -INFINITY, -best, 1, limits, control);
                pos.unmake(m, &undo);
                if control.stopped() {
                    break;
                }
                if v > best {
                    best = v;
                    best_move = m;
                }
            }
            if control.stopped() && depth > 1 {
                break;
            }
            root.retain(|&m| m != best_move);
            root.insert(0, best_move);
            outcome.best = Some(best_move);
            report(Report::Iteration {
                depth,
                seldepth: depth,
                multipv: 1,
                score: Score::from_internal(best),
                bound: Bound::Exact,
                nodes: self.nodes,
                time: control.elapsed(),
                hashfull: 0,
                pv: vec![best_move],
            });
            if control.stopped() || limits.time.soft.is_some_and(|s| control.elapsed() >= s) {
                break;
            }
        }
        outcome.nodes = self.nodes;
        outcome
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
        limits: &SearchLimits,
        control: &SharedControl,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes % 2048 == 0 {
            let out_of_time = limits.time.hard.is_some_and(|h| control.elapsed() >= h);
            let out_of_nodes = limits.nodes.is_some_and(|n| self.nodes >= n);
            if out_of_time || out_of_nodes {
                control.request_stop();
            }
        }
        if control.stopped() {
            return 0;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.in_check() { -MATE + ply } else { 0 };
        }
        if depth == 0 {
            let psq = pos.psq();
            let v = (psq.mg + psq.eg) / 2;
            return if pos.side_to_move() == crate::piece::Color::White { v } else { -v };
        }
        for &m in moves.iter() {
            let undo = pos.make(m);
            let v = -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1, limits, control);
            pos.unmake(m, &undo);
            if v >= beta {
                return v;
            }
            alpha = alpha.max(v);
        }
        alpha
    }
}
