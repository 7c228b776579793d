//! Perft: counting the leaves of the legal move tree, the move generator's acceptance test.
//!
//! [`perft`] and [`divide`] count on one thread without a table. [`perft_with`] and
//! [`divide_with`] take [`PerftOptions`]: a hash table of subtree counts ([`table`], exact at
//! any size) and threads. Threads share the table and split the tree two plies down: each
//! (root move, reply) pair is a task, handed out in generation order, so the root moves finish
//! roughly in order and [`divide_with`] can report each as soon as its last task is done. A
//! [`PerftControl`] lets another thread watch the progress and stop the count.
//!
//! Every count recurses once per ply, so its depth is bounded by [`MAX_PERFT_DEPTH`]: at that
//! depth the recursion takes about a hundred kilobytes of stack, well inside the 2 MB of any
//! thread, and every entry point refuses a deeper count with [`PerftError::TooDeep`].

pub mod suite;
pub mod table;

pub use suite::{
    parse_suite, run_suite, run_suite_in, run_suite_with, Mismatch, PerftCase, SuiteParseError, SuiteReport,
};

use crate::movegen::gen;
use crate::mv::{Move, MoveList};
use crate::position::Position;
use crate::rng;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use table::{PerftTable, PerftTableError};

/// The deepest count any entry point accepts. A tree with two moves at every ply has 2^64
/// leaves at this depth, more than the count holds, so beyond it only a tree that is nearly a
/// single line could ever be counted; refusing those costs nothing, and it keeps the recursion
/// within a small, fixed stack.
pub const MAX_PERFT_DEPTH: u32 = 64;

/// [`PerftError::TooDeep`] for a depth beyond [`MAX_PERFT_DEPTH`].
pub fn check_depth(depth: u32) -> Result<(), PerftError> {
    if depth > MAX_PERFT_DEPTH {
        return Err(PerftError::TooDeep { depth });
    }
    Ok(())
}

/// Leaf count of the legal move tree `depth` plies deep (bulk counting at the last ply).
///
/// # Panics
///
/// If `depth` is beyond [`MAX_PERFT_DEPTH`] (input is checked first with [`check_depth`]):
/// a clear message rather than a stack overflow.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    assert!(depth <= MAX_PERFT_DEPTH, "perft depth {depth} is beyond the bound of {MAX_PERFT_DEPTH}");
    perft_plain(pos, depth)
}

fn perft_plain(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal_moves();
    }
    if depth == 2 {
        return pos.perft2();
    }
    let mut moves = MoveList::new();
    pos.generate::<{ gen::ALL }, MoveList>(&mut moves);
    let snapshot = pos.snapshot();
    let mut nodes = 0;
    for &m in moves.iter() {
        let undo = pos.make_from(m, &snapshot);
        nodes += perft_plain(pos, depth - 1);
        pos.unmake(m, &undo);
    }
    nodes
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Result<Vec<(Move, u64)>, PerftError> {
    check_depth(depth)?;
    let moves = pos.legal_moves();
    Ok(moves
        .iter()
        .map(|&m| {
            let undo = pos.make(m);
            let n = if depth <= 1 { 1 } else { perft_plain(pos, depth - 1) };
            pos.unmake(m, &undo);
            (m, n)
        })
        .collect())
}

/// How [`perft_with`] and [`divide_with`] count: `hash_mb` megabytes of table (0: none) and
/// `threads` threads (0 counts as 1). The UCI `Hash` and `Threads` options map onto these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftOptions {
    pub hash_mb: usize,
    pub threads: usize,
}

impl Default for PerftOptions {
    fn default() -> Self {
        PerftOptions { hash_mb: 0, threads: 1 }
    }
}

/// Why a perft run gave no total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerftError {
    /// [`PerftControl::stop`] was called before the count was complete.
    Interrupted,
    /// A depth beyond [`MAX_PERFT_DEPTH`].
    TooDeep {
        depth: u32,
    },
    Table(PerftTableError),
}

impl std::fmt::Display for PerftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PerftError::Interrupted => write!(f, "perft interrupted"),
            PerftError::TooDeep { depth } => write!(
                f,
                "perft depth {depth} refused: the bound is {MAX_PERFT_DEPTH} (a tree with two moves a ply has \
                 more leaves at that depth than a 64-bit count holds)"
            ),
            PerftError::Table(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PerftError {}

impl From<PerftTableError> for PerftError {
    fn from(e: PerftTableError) -> Self {
        PerftError::Table(e)
    }
}

/// Shared with a running count: its progress, and a way to stop it (Ctrl-C, UCI `stop`).
#[derive(Debug, Default)]
pub struct PerftControl {
    stop: AtomicBool,
    leaves: AtomicU64,
    roots: AtomicUsize,
    roots_done: AtomicUsize,
    tasks: AtomicUsize,
    tasks_done: AtomicUsize,
}

/// A snapshot of a running count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftProgress {
    /// Root moves (for a suite, checks) whose counts are complete, of `roots`.
    pub roots_done: usize,
    pub roots: usize,
    /// Units of work finished, of `tasks`: (root, reply) pairs, or a suite's expected leaves.
    pub tasks_done: usize,
    pub tasks: usize,
    /// Leaves counted so far, in finished tasks.
    pub leaves: u64,
}

impl PerftControl {
    pub fn new() -> PerftControl {
        PerftControl::default()
    }
    /// Asks the count to stop soon; it then returns [`PerftError::Interrupted`].
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    pub fn progress(&self) -> PerftProgress {
        PerftProgress {
            roots_done: self.roots_done.load(Ordering::Relaxed),
            roots: self.roots.load(Ordering::Relaxed),
            tasks_done: self.tasks_done.load(Ordering::Relaxed),
            tasks: self.tasks.load(Ordering::Relaxed),
            leaves: self.leaves.load(Ordering::Relaxed),
        }
    }
    /// A suite check of `found` leaves is done; suites measure their work in expected leaves.
    fn check_done(&self, found: u64, expected: u64) {
        self.leaves.fetch_add(found, Ordering::Relaxed);
        self.roots_done.fetch_add(1, Ordering::Relaxed);
        self.tasks_done.fetch_add(expected.min(usize::MAX as u64) as usize, Ordering::Relaxed);
    }

    /// A task of `n` leaves is done.
    fn task_done(&self, n: u64) {
        self.leaves.fetch_add(n, Ordering::Relaxed);
        self.tasks_done.fetch_add(1, Ordering::Relaxed);
    }
}

/// Perft with a hash table and threads (see [`PerftOptions`]); the same count as [`perft`].
pub fn perft_with(pos: &Position, depth: u32, options: &PerftOptions) -> Result<u64, PerftError> {
    perft_controlled(pos, depth, options, &PerftControl::new())
}

/// [`perft_with`] under a [`PerftControl`], for a caller that shows progress or may stop it.
pub fn perft_controlled(
    pos: &Position,
    depth: u32,
    options: &PerftOptions,
    control: &PerftControl,
) -> Result<u64, PerftError> {
    check_depth(depth)?;
    if depth == 0 {
        return Ok(1);
    }
    Ok(divide_with(pos, depth, options, control, |_, _| {})?.iter().map(|&(_, n)| n).sum())
}

/// Perft split by root move with a hash table and threads. `on_root` hears each root move's
/// count as soon as it is complete (in the order they complete, on the calling thread); the
/// result lists them in generation order, as [`divide`] does. Depth 0 has no root moves.
pub fn divide_with(
    pos: &Position,
    depth: u32,
    options: &PerftOptions,
    control: &PerftControl,
    on_root: impl FnMut(Move, u64),
) -> Result<Vec<(Move, u64)>, PerftError> {
    check_depth(depth)?;
    if depth == 0 {
        return Ok(Vec::new());
    }
    let table = if options.hash_mb > 0 { Some(PerftTable::new(options.hash_mb)?) } else { None };
    divide_in(pos, depth, options.threads, table.as_ref(), control, on_root)
}

/// [`divide_with`] on a table the caller owns (it may be shared by several counts, and be of
/// any size, down to the single bucket the tests use to make replacement constant).
pub fn divide_in(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&PerftTable>,
    control: &PerftControl,
    mut on_root: impl FnMut(Move, u64),
) -> Result<Vec<(Move, u64)>, PerftError> {
    check_depth(depth)?;
    if depth == 0 {
        return Ok(Vec::new());
    }
    let roots = pos.legal_moves();
    let tasks = split(pos, &roots, depth);
    let remaining: Vec<AtomicUsize> = roots.iter().map(|_| AtomicUsize::new(0)).collect();
    for task in &tasks {
        remaining[task.root].fetch_add(1, Ordering::Relaxed);
    }
    let totals: Vec<AtomicU64> = roots.iter().map(|_| AtomicU64::new(0)).collect();
    control.roots.store(roots.len(), Ordering::Relaxed);
    control.tasks.store(tasks.len(), Ordering::Relaxed);
    let walk = Walk { table, salt: root_salt(pos), stop: control };
    let next = AtomicUsize::new(0);
    let mut done = vec![false; roots.len()];
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        let mut workers = Vec::new();
        for _ in 0..threads.clamp(1, tasks.len().max(1)) {
            let sender = sender.clone();
            let (tasks, roots, remaining, totals, walk, next) = (&tasks, &roots, &remaining, &totals, &walk, &next);
            let mut pos = pos.clone();
            workers.push(scope.spawn(move || {
                while !control.is_stopped() {
                    let Some(task) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let n = task.run(&mut pos, roots, depth, walk);
                    if control.is_stopped() {
                        break;
                    }
                    control.task_done(n);
                    totals[task.root].fetch_add(n, Ordering::Relaxed);
                    if remaining[task.root].fetch_sub(1, Ordering::AcqRel) == 1 && sender.send(task.root).is_err() {
                        break;
                    }
                }
            }));
        }
        drop(sender);
        for root in receiver {
            done[root] = true;
            control.roots_done.fetch_add(1, Ordering::Relaxed);
            on_root(roots[root], totals[root].load(Ordering::Acquire));
        }
        crate::threads::join_all(workers);
    });
    if done.iter().any(|&d| !d) {
        return Err(PerftError::Interrupted);
    }
    Ok(roots.iter().zip(&totals).map(|(&m, n)| (m, n.load(Ordering::Relaxed))).collect())
}

/// One unit of threaded work: a root move, and from depth 3 on one reply to it.
struct Task {
    root: usize,
    reply: Option<Move>,
}

impl Task {
    fn run(&self, pos: &mut Position, roots: &[Move], depth: u32, walk: &Walk) -> u64 {
        let root = roots[self.root];
        let undo = pos.make(root);
        let n = match self.reply {
            Some(reply) => {
                let reply_undo = pos.make(reply);
                let n = count(pos, depth - 2, walk);
                pos.unmake(reply, &reply_undo);
                n
            }
            None => count(pos, depth - 1, walk),
        };
        pos.unmake(root, &undo);
        n
    }
}

/// The tasks of a count `depth` plies deep: (root, reply) pairs from depth 3, else the roots.
/// A root move without replies is one task (its count is 0).
fn split(pos: &Position, roots: &[Move], depth: u32) -> Vec<Task> {
    let mut pos = pos.clone();
    let mut tasks = Vec::new();
    for (i, &m) in roots.iter().enumerate() {
        if depth < 3 {
            tasks.push(Task { root: i, reply: None });
            continue;
        }
        let undo = pos.make(m);
        let replies = pos.legal_moves();
        if replies.is_empty() {
            tasks.push(Task { root: i, reply: None });
        }
        tasks.extend(replies.iter().map(|&r| Task { root: i, reply: Some(r) }));
        pos.unmake(m, &undo);
    }
    tasks
}

/// What a count below the split consults: the table (if any), the root's salt for its keys,
/// and the stop flag.
pub(crate) struct Walk<'a> {
    pub table: Option<&'a PerftTable>,
    pub salt: u64,
    pub stop: &'a PerftControl,
}

/// Perft through the table: subtrees two or more plies deep are looked up and stored. A
/// stopped count returns early with a partial (wrong) number, which is never stored.
pub(crate) fn count(pos: &mut Position, depth: u32, walk: &Walk) -> u64 {
    if depth <= 1 {
        return if depth == 0 { 1 } else { pos.count_legal_moves() };
    }
    let key = pos.key() ^ walk.salt;
    if let Some(table) = walk.table {
        if let Some(n) = table.probe(key, depth) {
            return n;
        }
    }
    let nodes = if depth == 2 {
        pos.perft2()
    } else {
        if walk.stop.is_stopped() {
            return 0;
        }
        let mut moves = MoveList::new();
        pos.generate::<{ gen::ALL }, MoveList>(&mut moves);
        let snapshot = pos.snapshot();
        if let Some(table) = walk.table {
            // The children's entries are all over the table: ask for them all first, so
            // that their cache misses overlap instead of stalling one probe at a time.
            for &m in moves.iter() {
                table.prefetch(pos.key_after(m) ^ walk.salt);
            }
        }
        let mut nodes = 0;
        if walk.table.is_some() {
            for &m in moves.iter() {
                let undo = pos.make_from(m, &snapshot);
                nodes += count(pos, depth - 1, walk);
                pos.unmake(m, &undo);
            }
        } else {
            // Without a table nothing below reads the keys or the score: they are left as
            // they are, stale, until the unmake puts the move back.
            for &m in moves.iter() {
                let undo = pos.make_unkeyed_from(m, &snapshot);
                nodes += count(pos, depth - 1, walk);
                pos.unmake_unkeyed(m, &undo);
            }
        }
        nodes
    };
    if let Some(table) = walk.table {
        if !walk.stop.is_stopped() {
            table.store(key, depth, nodes);
        }
    }
    nodes
}

/// Mixed into every key of a count: the squares of the root's castling rooks. Within one
/// tree they never change, but two suite positions may share a table while the same right
/// names another rook (Chess960), and their subtrees must not meet. Zero without rights.
pub(crate) fn root_salt(pos: &Position) -> u64 {
    let mut salt = 0u64;
    for bit in 0..4u8 {
        if let Some(rook) = pos.castle_rook(1 << bit) {
            // The SplitMix64 finaliser spreads the few input bits over the whole word.
            let z = ((bit as u64 + 1) << 8 | rook.raw() as u64).wrapping_mul(rng::GOLDEN_GAMMA);
            salt ^= rng::mix(z);
        }
    }
    salt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_to_depth_four() {
        // Published: chessprogramming.org "Perft Results", initial position.
        let mut pos = Position::startpos();
        assert_eq!(perft(&mut pos, 4), 197_281);
        let split = divide(&mut pos, 3).unwrap();
        assert_eq!(split.len(), 20);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 8_902);
    }

    #[test]
    fn one_table_keeps_apart_positions_whose_rights_name_other_rooks() {
        // Same pieces, same right bit (White's queen side), so the same Zobrist key; but the
        // right names the b1 rook in one and the a1 rook (blocked by b1) in the other.
        let b_rook = Position::from_fen_with("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1", true).unwrap();
        let a_rook = Position::from_fen_with("4k3/8/8/8/8/8/8/RR2K3 w A - 0 1", true).unwrap();
        assert_eq!(b_rook.key(), a_rook.key());
        assert_ne!(perft(&mut b_rook.clone(), 1), perft(&mut a_rook.clone(), 1));
        let table = PerftTable::with_buckets(1 << 12).unwrap();
        let control = PerftControl::new();
        for depth in 2..=4 {
            for pos in [&b_rook, &a_rook] {
                let walk = Walk { table: Some(&table), salt: root_salt(pos), stop: &control };
                assert_eq!(count(&mut pos.clone(), depth, &walk), perft(&mut pos.clone(), depth), "depth {depth}");
            }
        }
    }

    #[test]
    fn the_key_after_a_move_is_the_key_make_gives() {
        // Castling both ways (and Chess960's), en passant with and without a taker, promotions
        // with capture, rights lost by captured rooks.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkb1r/pp1p1ppp/4pn2/2pP4/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 4",
            "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
        ];
        for fen in fens {
            let mut pos = Position::from_fen_with(fen, fen.contains("GB")).unwrap();
            for m in pos.legal_moves().iter().copied() {
                let expected = pos.key_after(m);
                let undo = pos.make(m);
                assert_eq!(pos.key(), expected, "{fen} {m}");
                for r in pos.legal_moves().iter().copied() {
                    let expected = pos.key_after(r);
                    let reply_undo = pos.make(r);
                    assert_eq!(pos.key(), expected, "{fen} {m} {r}");
                    pos.unmake(r, &reply_undo);
                }
                pos.unmake(m, &undo);
            }
        }
    }

    /// Both kings shuffle between two corner squares and nothing else can move: every pawn is
    /// blocked head-on with nothing to take, and each bishop is hemmed in by its own pawns. So
    /// every ply has one legal move, the count is 1 at any depth, and the recursion really goes
    /// that deep.
    pub(crate) const ONE_LINE: &str = "4b2k/3pPp1p/3P1P1P/8/8/p1p1p3/P1PpP3/K2B4 w - - 0 1";

    #[test]
    fn every_entry_counts_a_single_line_at_the_bound_and_refuses_beyond_it() {
        let pos = Position::from_fen(ONE_LINE).unwrap();
        for depth in [1, 2, 3, 10, MAX_PERFT_DEPTH] {
            assert_eq!(perft(&mut pos.clone(), depth), 1, "depth {depth}");
            let parts = divide(&mut pos.clone(), depth).unwrap();
            assert_eq!(parts.iter().map(|(m, n)| (m.to_string(), *n)).collect::<Vec<_>>(), [("a1b1".into(), 1)]);
            for options in [PerftOptions::default(), PerftOptions { hash_mb: 1, threads: 2 }] {
                assert_eq!(perft_with(&pos, depth, &options), Ok(1), "depth {depth} {options:?}");
            }
        }
        for depth in [MAX_PERFT_DEPTH + 1, 3000, u32::MAX] {
            fn refused<T>(r: Result<T, PerftError>, depth: u32) -> bool {
                matches!(r, Err(PerftError::TooDeep { depth: d }) if d == depth)
            }
            assert!(refused(divide(&mut pos.clone(), depth), depth), "divide {depth}");
            assert!(refused(perft_with(&pos, depth, &PerftOptions::default()), depth), "perft_with {depth}");
            let table = PerftTable::with_buckets(16).unwrap();
            let split = divide_in(&pos, depth, 2, Some(&table), &PerftControl::new(), |_, _| {});
            assert!(refused(split, depth), "divide_in {depth}");
        }
        assert!(PerftError::TooDeep { depth: 3000 }.to_string().contains("bound is 64"));
    }

    #[test]
    fn a_stopped_count_is_an_error_not_a_number() {
        let control = PerftControl::new();
        control.stop();
        let options = PerftOptions { hash_mb: 1, threads: 2 };
        assert_eq!(perft_controlled(&Position::startpos(), 5, &options, &control), Err(PerftError::Interrupted));
        let mut heard = 0;
        assert!(divide_with(&Position::startpos(), 4, &options, &PerftControl::new(), |_, _| heard += 1).is_ok());
        assert_eq!(heard, 20, "every root move is reported once");
    }
}
