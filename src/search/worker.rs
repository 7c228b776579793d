//! What a search thread works with: its own data, kept across searches, and what all
//! threads of one search share.
//!
//! A [`Worker`] is one thread for the length of one search. The root ([`super::root`]) and
//! the tree ([`super::tree`]) are its methods, so the position and the window are all that
//! travel from node to node.

use super::correction::CorrectionHistory;
use super::ordering::OrderTables;
use super::params::Params;
use super::{SearchLimits, SharedControl};
use crate::eval::{EvalCache, PawnTable};
use crate::mv::Move;
use crate::nnue::{AccumulatorStack, Network};
use crate::piece::Piece;
use crate::position::Position;
use crate::tablebase::{RankedMove, Tablebases};
use crate::tt::TranspositionTable;
use crate::value::MAX_PLY;
use std::sync::atomic::{AtomicU64, Ordering};

/// One ply of the search stack.
#[derive(Clone, Copy, Default)]
pub(super) struct Frame {
    /// Static evaluation, corrected (meaningless when in check).
    pub eval: i32,
    pub in_check: bool,
    /// The move played from this ply (NONE for a null move) and the piece that moved.
    pub mv: Move,
    pub piece: Piece,
    /// The move a singular-extension search at this ply leaves out (NONE: none).
    pub excluded: Move,
    /// Double extensions on the path to this ply.
    pub double_extensions: u8,
}

/// Late-move reductions by [depth][move number], in plies.
pub(super) struct Reductions(Box<[[u8; 64]; 64]>);

impl Reductions {
    /// The table of `p`'s reduction formula (built again when a tuner changes it).
    pub fn new(p: &Params) -> Reductions {
        let (base, divisor) = (p.lmr_base(), p.lmr_divisor());
        let mut table = Box::new([[0u8; 64]; 64]);
        for (d, row) in table.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (base + (d as f64).ln() * (m as f64).ln() / divisor) as u8;
            }
        }
        Reductions(table)
    }

    #[inline(always)]
    pub fn get(&self, depth: i32, searched: i32) -> i32 {
        self.0[(depth as usize).min(63)][(searched as usize).min(63)] as i32
    }
}

/// What one search thread keeps across searches, and its scratch space.
pub(super) struct ThreadData {
    pub pawns: PawnTable,
    pub evals: EvalCache,
    pub nnue: AccumulatorStack,
    pub order: OrderTables,
    pub correction: CorrectionHistory,
    /// Keys of the game before the root, the root, and the current search path.
    pub keys: Vec<u64>,
    /// Where the root's key sits in `keys`.
    pub root_index: usize,
    pub stack: Box<[Frame; MAX_PLY + 4]>,
    /// Triangular principal-variation table and the length of each ply's line.
    pub pv: Box<[[Move; MAX_PLY + 2]; MAX_PLY + 2]>,
    pub pv_len: [usize; MAX_PLY + 2],
}

impl ThreadData {
    pub fn new() -> ThreadData {
        ThreadData {
            pawns: PawnTable::default(),
            evals: EvalCache::default(),
            nnue: AccumulatorStack::default(),
            order: OrderTables::default(),
            correction: CorrectionHistory::default(),
            keys: Vec::new(),
            root_index: 0,
            stack: Box::new([Frame::default(); MAX_PLY + 4]),
            pv: Box::new([[Move::NONE; MAX_PLY + 2]; MAX_PLY + 2]),
            pv_len: [0; MAX_PLY + 2],
        }
    }

    /// Forgets what was learnt (`ucinewgame`).
    pub fn clear(&mut self) {
        self.pawns.clear();
        self.evals.clear();
        self.order.clear();
        self.correction.clear();
    }

    /// Is the position at `ply` a draw by repetition? Since the last irreversible move: one
    /// repetition of a position of the search path (the root included) is a draw, since if it
    /// was good to repeat once it is good to repeat again; a position of the game before the
    /// root must have occurred twice there, so that this is its third occurrence, as the
    /// rules say.
    #[inline]
    pub fn is_repetition(&self, pos: &Position, ply: usize) -> bool {
        let idx = self.root_index + ply;
        let key = pos.key();
        let limit = (pos.halfmove_clock() as usize).min(idx);
        let mut back = 4;
        let mut before_root = 0;
        while back <= limit {
            let earlier = idx - back;
            if self.keys[earlier] == key {
                if earlier >= self.root_index {
                    return true;
                }
                before_root += 1;
                if before_root == 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }
}

/// What all threads of one search share, lent to each.
pub(super) struct Shared<'a> {
    pub tt: &'a TranspositionTable,
    /// The network the search evaluates with.
    pub net: &'a Network,
    pub reductions: &'a Reductions,
    /// The tunable numbers ([`Params`]): constants unless built with the `tune` feature.
    pub params: &'a Params,
    /// Nodes of the helpers in this search, published every 1024 nodes.
    pub helper_nodes: &'a AtomicU64,
    /// Tablebase probes below the root, when they are made (see [`TreeProbe`]).
    pub tb: Option<TreeProbe<'a>>,
    /// The root moves as the tables rank them, when the root is in the tables: their
    /// scores are what is shown while the search finds no mate.
    pub root_tb: &'a [RankedMove],
    /// Tablebase hits of the root ranking and of the helpers (published with their nodes).
    pub other_tb_hits: &'a AtomicU64,
}

/// Which nodes below the root are probed: at most `pieces` pieces, and with exactly that
/// many only at `depth` or deeper; always right after a capture or pawn move, without
/// castling rights.
#[derive(Clone, Copy)]
pub(super) struct TreeProbe<'a> {
    pub tables: &'a Tablebases,
    pub pieces: usize,
    pub depth: i32,
}

/// One thread at work: its own data and counters, and what it shares with the others.
pub(super) struct Worker<'a> {
    pub td: &'a mut ThreadData,
    /// [`Shared::net`], kept here so that an evaluation reaches it in one load.
    pub net: &'a Network,
    pub shared: &'a Shared<'a>,
    pub control: &'a SharedControl,
    /// A helper's own stop, raised when the main thread ends (a helper also stops on the
    /// GUI's `stop`, so that many threads leave the processors at once).
    pub helper_stop: Option<&'a SharedControl>,
    pub is_main: bool,
    pub nodes: u64,
    pub node_limit: u64,
    pub hard: Option<std::time::Duration>,
    pub seldepth: usize,
    pub stopped: bool,
    /// Tablebase probes that gave a result, and how many of them a helper has published.
    pub tb_hits: u64,
    pub tb_hits_published: u64,
}

impl Worker<'_> {
    /// Nodes of all threads so far, for reports.
    pub fn total_nodes(&self) -> u64 {
        self.nodes + self.shared.helper_nodes.load(Ordering::Relaxed)
    }

    /// Tablebase hits of all threads so far, for reports.
    pub fn total_tb_hits(&self) -> u64 {
        self.tb_hits + self.shared.other_tb_hits.load(Ordering::Relaxed)
    }

    /// A helper's hits not yet counted in [`Shared::other_tb_hits`].
    pub fn publish_tb_hits(&mut self) {
        if !self.is_main && self.tb_hits > self.tb_hits_published {
            self.shared.other_tb_hits.fetch_add(self.tb_hits - self.tb_hits_published, Ordering::Relaxed);
            self.tb_hits_published = self.tb_hits;
        }
    }
}

impl<'a> Worker<'a> {
    pub fn new(
        td: &'a mut ThreadData,
        shared: &'a Shared<'a>,
        control: &'a SharedControl,
        is_main: bool,
        limits: &SearchLimits,
    ) -> Worker<'a> {
        Worker {
            td,
            net: shared.net,
            shared,
            control,
            helper_stop: None,
            is_main,
            nodes: 0,
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            hard: limits.time.hard,
            seldepth: 0,
            stopped: false,
            tb_hits: 0,
            tb_hits_published: 0,
        }
    }
}
