//! Transposition table: a fixed array of 64-byte buckets of four 16-byte entries.
//!
//! Sized in megabytes by the `Hash` option and allocated at once by [`TranspositionTable::new`]
//! / [`TranspositionTable::resize`], so no search ever allocates (the system supplies the
//! pages, zeroed, at their first touch; the table touches them all when it is made). Each
//! entry keeps the full 64-bit key (no false hits worth worrying about), the best move, a
//! score, the draft and a bound; a generation counter ("age") lets entries of earlier
//! searches be replaced first.
//!
//! Mate scores are stored relative to the node ("mate in k from here"), not to the root:
//! [`score_to_tt`] / [`score_from_tt`] convert, so an entry found at another ply still
//! reports the right distance to mate.

use crate::lockless::{self, Bucket, Entry};
use crate::memory::{prefetch, ZeroedSlice};
use crate::mv::Move;
use crate::value::{Bound, TB_WIN_BOUND};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// The bound bits of an empty entry ([`Bound::to_bits`] never gives them).
const BOUND_NONE: u8 = 0;
/// In replacement, each generation an entry is old costs it this many plies of draft: an
/// entry of the last search is worth more than a deeper one of several searches ago.
const AGE_COST: i32 = 8;
/// A same-key entry of the same search more than this many plies deeper than a non-exact
/// result keeps its score and draft; only its move is updated.
const KEEP_DEEPER: i32 = 2;

/// The decoded contents of an entry; `data` packs `mv`, `score`, `depth` and `gen_bound`.
#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    mv: u32,
    score: i16,
    depth: i8,
    /// Low two bits: bound; high six bits: generation.
    gen_bound: u8,
}

impl Slot {
    fn data(&self) -> u64 {
        self.mv as u64
            | (self.score as u16 as u64) << 32
            | (self.depth as u8 as u64) << 48
            | (self.gen_bound as u64) << 56
    }

    #[inline(always)]
    fn load(entry: &Entry) -> Slot {
        let (key, data) = entry.load();
        Slot {
            key,
            mv: data as u32,
            score: (data >> 32) as u16 as i16,
            depth: (data >> 48) as u8 as i8,
            gen_bound: (data >> 56) as u8,
        }
    }

    #[inline(always)]
    fn save(self, entry: &Entry) {
        entry.save(self.key, self.data());
    }
}

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    pub mv: Move,
    /// Already converted to be relative to the root (see [`score_from_tt`]).
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// Shared by all search threads: probes and stores take `&self`; only resizing needs the
/// table to itself.
pub struct TranspositionTable {
    buckets: ZeroedSlice<Bucket>,
    generation: AtomicU8,
    /// Nothing stored since the table was last cleared: it is all zero already, and clearing
    /// it again (`ucinewgame` right after `setoption Hash`) would only cost time.
    pristine: AtomicBool,
}

/// Converts a root-relative mate (or tablebase win) score to one relative to the node at `ply`.
#[inline(always)]
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score > TB_WIN_BOUND {
        score + ply as i32
    } else if score < -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Inverse of [`score_to_tt`]: a node-relative mate score back to the root's view.
#[inline(always)]
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score > TB_WIN_BOUND {
        score - ply as i32
    } else if score < -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The operating system refused the memory for a hash table of this size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableAllocError {
    pub mb: usize,
}

impl std::fmt::Display for TableAllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot allocate a {} MB hash table", self.mb)
    }
}

impl std::error::Error for TableAllocError {}

impl TranspositionTable {
    /// A table of `mb` megabytes, or of one bucket when that much memory cannot be had.
    pub fn new(mb: usize) -> TranspositionTable {
        let mut tt = TranspositionTable {
            buckets: ZeroedSlice::empty(),
            generation: AtomicU8::new(0),
            pristine: AtomicBool::new(true),
        };
        let _ = tt.resize(mb);
        tt
    }

    /// Reallocates for `mb` megabytes (at least one bucket) and clears. When the memory
    /// cannot be had, the table keeps its old size (cleared) and the error says so.
    pub fn resize(&mut self, mb: usize) -> Result<(), TableAllocError> {
        let old_count = self.buckets.len().max(1);
        self.buckets = ZeroedSlice::empty(); // free the old table before allocating the new one
        let result = ZeroedSlice::new(Self::bucket_count(mb)).map(|b| self.buckets = b);
        if result.is_err() {
            self.buckets =
                ZeroedSlice::new(old_count).or_else(|_| ZeroedSlice::new(1)).unwrap_or_else(|_| ZeroedSlice::empty());
        }
        // The first touch of each page (2 MB pages, on Linux) is slow: taken now, all at once,
        // rather than by the first searches (a 20 ms `go` then once had no time to finish a
        // ply); the clearing threads take it in parallel.
        self.pristine = AtomicBool::new(false);
        self.clear();
        result.map_err(|_| TableAllocError { mb })
    }

    fn bucket_count(mb: usize) -> usize {
        let bytes = mb.max(1).saturating_mul(1 << 20);
        (bytes / std::mem::size_of::<Bucket>()).max(1)
    }

    /// Empties the table. Not to be called while a search runs (it would race with stores,
    /// harmlessly but pointlessly).
    ///
    /// A large table is cleared by one thread per processor, each taking a slice, so that
    /// `ucinewgame` with gigabytes of hash is done before the GUI's `isready` is answered.
    pub fn clear(&self) {
        self.generation.store(0, Ordering::Relaxed);
        if self.pristine.load(Ordering::Relaxed) {
            return;
        }
        lockless::clear(&self.buckets);
        self.pristine.store(true, Ordering::Relaxed);
    }

    /// Called once per search (by the main thread only) so that older entries lose their
    /// priority.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store((g + 1) & 63, Ordering::Relaxed);
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        lockless::index(key, self.buckets.len())
    }

    /// Starts loading the bucket of `key` into the cache, so that a probe soon after (the
    /// child node's, when called just after a move is made) does not wait for memory: the
    /// table is far larger than the caches and its probe was the search's second cost.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.buckets[self.index(key)]);
    }

    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let bucket = &self.buckets[self.index(key)];
        for e in bucket.entries.iter().map(Slot::load) {
            if e.key != key {
                continue;
            }
            if let Some(bound) = Bound::from_bits(e.gen_bound) {
                return Some(TtHit {
                    mv: Move::from_bits(e.mv),
                    score: score_from_tt(e.score as i32, ply),
                    depth: e.depth as i32,
                    bound,
                });
            }
        }
        None
    }

    /// Stores a result. Replacement: the same key always; otherwise the entry with the
    /// lowest draft, where every generation of age costs it `AGE_COST` plies.
    #[inline]
    pub fn store(&self, key: u64, mv: Move, score: i32, depth: i32, bound: Bound, ply: usize) {
        // Read far more often than written: the line stays shared in every core's cache.
        if self.pristine.load(Ordering::Relaxed) {
            self.pristine.store(false, Ordering::Relaxed);
        }
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = &self.buckets[self.index(key)];
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, e) in bucket.entries.iter().map(Slot::load).enumerate() {
            if e.key == key || e.gen_bound & 3 == BOUND_NONE {
                victim = i;
                break;
            }
            let age = ((generation as i32 - (e.gen_bound >> 2) as i32) + 64) & 63;
            let worth = e.depth as i32 - AGE_COST * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        let entry = &bucket.entries[victim];
        let e = Slot::load(entry);
        // Keep a known best move when the new result has none (a fail-low node).
        let mv_bits = if mv.is_none() && e.key == key { e.mv } else { mv.bits() };
        // A same-key entry of a deeper draft survives a shallow non-exact result.
        if e.key == key
            && bound != Bound::Exact
            && (e.depth as i32) > depth + KEEP_DEEPER
            && (e.gen_bound >> 2) == generation
        {
            Slot { mv: mv_bits, ..e }.save(entry);
            return;
        }
        Slot {
            key,
            mv: mv_bits,
            score: score_to_tt(score, ply).clamp(i16::MIN as i32 + 1, i16::MAX as i32) as i16,
            depth: depth.clamp(-1, 127) as i8,
            gen_bound: (generation << 2) | bound.to_bits(),
        }
        .save(entry);
    }

    /// Per mille of the first thousand entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let mut used = 0u32;
        let mut seen = 0;
        'outer: for b in self.buckets.iter() {
            for e in b.entries.iter().map(Slot::load) {
                if seen == 1000 {
                    break 'outer;
                }
                seen += 1;
                if e.gen_bound & 3 != BOUND_NONE && (e.gen_bound >> 2) == generation {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(seen).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::MATE;

    #[test]
    fn impossible_sizes_keep_the_old_table() {
        let mut tt = TranspositionTable::new(1);
        let before = tt.buckets.len();
        assert_eq!(tt.resize(usize::MAX), Err(TableAllocError { mb: usize::MAX }));
        assert_eq!(tt.buckets.len(), before);
        assert!(tt.resize(2).is_ok());
        assert_eq!(tt.buckets.len(), 2 * before);
    }

    #[test]
    fn mate_scores_are_node_relative() {
        let tt = TranspositionTable::new(1);
        // At ply 5 the search found "mate in 3 plies from here": root-relative MATE - 8.
        let key = 0x1234_5678_9abc_def0;
        tt.store(key, Move::NONE, MATE - 8, 4, Bound::Exact, 5);
        // Found again at ply 9 (a transposition deeper in the tree): mate is 3 plies after
        // that node, so root-relative MATE - 12.
        let hit = tt.probe(key, 9).expect("stored");
        assert_eq!(hit.score, MATE - 12);
        // And the losing side's scores likewise.
        tt.store(key, Move::NONE, -(MATE - 8), 4, Bound::Exact, 5);
        assert_eq!(tt.probe(key, 2).expect("stored").score, -(MATE - 5));
        // Ordinary scores pass unchanged.
        tt.store(key, Move::NONE, 37, 4, Bound::Exact, 5);
        assert_eq!(tt.probe(key, 11).expect("stored").score, 37);
    }

    #[test]
    fn sizes_and_fill() {
        let tt = TranspositionTable::new(16);
        assert_eq!(tt.buckets.len() * 64, 16 << 20);
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        assert_eq!(tt.hashfull(), 0);
    }

    #[test]
    fn torn_entries_miss() {
        let tt = TranspositionTable::new(1);
        let key = 0x0f0f_1234_abcd_5678;
        tt.store(key, Move::NONE, 55, 6, Bound::Exact, 0);
        assert_eq!(tt.probe(key, 0).expect("stored").score, 55);
        // Another thread's data word lands in the slot, the key word stays ours: a torn
        // entry, which must not be taken for this position.
        let entry = &tt.buckets[tt.index(key)].entries[0];
        let other = Slot { key: key ^ 1, mv: 0, score: -300, depth: 9, gen_bound: Bound::Exact.to_bits() };
        entry.data.store(other.data(), Ordering::Relaxed);
        assert!(tt.probe(key, 0).is_none());
        assert!(tt.probe(key ^ 1, 0).is_none());
    }

    #[test]
    fn threads_share_the_table() {
        let tt = std::sync::Arc::new(TranspositionTable::new(1));
        let writers: Vec<_> = (0..2u64)
            .map(|t| {
                let tt = std::sync::Arc::clone(&tt);
                std::thread::spawn(move || {
                    for i in 0..10_000u64 {
                        let key = (i * 2 + t).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                        tt.store(key, Move::NONE, (i % 1000) as i32, 3, Bound::Lower, 0);
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("writer");
        }
        // Every hit that survived is one of the values written for that key; and nearly all
        // survive: 20,000 keys over 16,384 buckets of four is 1.2 a bucket, and a bucket
        // holding more than four (where a store must replace one) has odds under 1 %.
        let mut hits = 0;
        for t in 0..2u64 {
            for i in 0..10_000u64 {
                let key = (i * 2 + t).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                if let Some(h) = tt.probe(key, 0) {
                    assert_eq!(h.score, (i % 1000) as i32);
                    hits += 1;
                }
            }
        }
        assert_eq!(tt.buckets.len(), 16_384);
        assert!(hits >= 19_000, "{hits} of 20,000 stores found again");
    }
}
