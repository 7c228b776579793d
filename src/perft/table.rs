//! The perft hash table: subtree leaf counts by position and depth, shared by threads.
//!
//! Exact at any size: an entry keeps the full 64-bit key and the depth, so a hit is another
//! route to the same position at the same remaining depth, never a neighbour's count. The
//! buckets are the transposition table's: lockless entries of two atomic words, the first
//! holding `key ^ data`, so an entry torn by two threads writing at once fails the key check
//! instead of handing out a count. A count needs 56 bits (the start position's perft 11 has
//! 53), so the depth shares its word; a count too large for that is simply not stored.

use crate::lockless::{self, Bucket, BUCKET};
use crate::memory::{prefetch, ZeroedSlice};

/// Counts at or above this do not fit beside the depth and are not stored.
const COUNT_LIMIT: u64 = 1 << 56;

/// The operating system refused the memory for a perft table of this size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftTableError {
    pub mb: usize,
}

impl std::fmt::Display for PerftTableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot allocate a {} MB perft hash table", self.mb)
    }
}

impl std::error::Error for PerftTableError {}

/// Leaf counts of subtrees, keyed by Zobrist key and depth. Probes and stores take `&self`.
pub struct PerftTable {
    /// Data words hold `count << 8 | depth`; 0 marks an empty entry (no stored subtree has
    /// depth 0).
    buckets: ZeroedSlice<Bucket>,
}

impl PerftTable {
    /// A table of `mb` megabytes (0 gives one bucket).
    pub fn new(mb: usize) -> Result<PerftTable, PerftTableError> {
        let count = mb.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>();
        PerftTable::with_buckets(count).map_err(|_| PerftTableError { mb })
    }

    /// A table of `count` buckets of four entries (at least one).
    pub fn with_buckets(count: usize) -> Result<PerftTable, PerftTableError> {
        let count = count.max(1);
        let mb = count.saturating_mul(std::mem::size_of::<Bucket>()) >> 20;
        let buckets = ZeroedSlice::new(count).map_err(|_| PerftTableError { mb })?;
        // The first write to each page makes the kernel clear it, which for a large table
        // takes longer than many counts: every processor takes a slice now.
        lockless::clear(&buckets);
        Ok(PerftTable { buckets })
    }

    /// Starts loading the bucket of `key` into the cache, for a probe a little later.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.bucket(key));
    }

    /// Number of entries.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets[lockless::index(key, self.buckets.len())]
    }

    /// The stored leaf count of the subtree `depth` plies below the position with `key`.
    #[inline]
    pub fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        for e in &self.bucket(key).entries {
            let (stored_key, data) = e.load();
            if stored_key == key && data & 0xFF == depth as u64 && data != 0 {
                return Some(data >> 8);
            }
        }
        None
    }

    /// Stores a subtree's leaf count. Replaces the entry of the same position and depth, else
    /// an empty one, else the one of the smallest depth (the cheapest subtree to count again).
    #[inline]
    pub fn store(&self, key: u64, depth: u32, count: u64) {
        if count >= COUNT_LIMIT || depth == 0 || depth > 0xFF {
            return;
        }
        let bucket = self.bucket(key);
        let mut victim = &bucket.entries[0];
        let mut victim_depth = u64::MAX;
        for e in &bucket.entries {
            let (stored_key, data) = e.load();
            if data == 0 || (stored_key == key && data & 0xFF == depth as u64) {
                victim = e;
                break;
            }
            if data & 0xFF < victim_depth {
                victim_depth = data & 0xFF;
                victim = e;
            }
        }
        victim.save(key, count << 8 | depth as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn stores_and_finds_counts_by_key_and_depth() {
        let table = PerftTable::new(1).unwrap();
        assert_eq!(table.capacity(), (1 << 20) / 16);
        table.store(0xDEAD_BEEF, 3, 8_902);
        assert_eq!(table.probe(0xDEAD_BEEF, 3), Some(8_902));
        assert_eq!(table.probe(0xDEAD_BEEF, 4), None, "another depth is another subtree");
        assert_eq!(table.probe(0xDEAD_BEEE, 3), None);
        table.store(7, 2, COUNT_LIMIT);
        assert_eq!(table.probe(7, 2), None, "too large to store beside the depth");
    }

    #[test]
    fn a_full_bucket_gives_up_its_shallowest_entry() {
        let table = PerftTable::new(0).unwrap();
        assert_eq!(table.capacity(), BUCKET);
        for (key, depth) in [(1u64, 5u32), (2, 2), (3, 7), (4, 4)] {
            table.store(key, depth, key * 100);
        }
        table.store(5, 3, 500);
        assert_eq!(table.probe(2, 2), None);
        for (key, depth) in [(1u64, 5u32), (3, 7), (4, 4), (5, 3)] {
            assert_eq!(table.probe(key, depth), Some(key * 100), "key {key}");
        }
    }

    #[test]
    fn a_torn_entry_is_not_a_hit() {
        let table = PerftTable::new(0).unwrap();
        table.store(11, 4, 1_000);
        // Another thread's data word lands beside this entry's key word.
        let e = &table.buckets[0].entries[0];
        e.data.store(2_000 << 8 | 4, Ordering::Relaxed);
        assert_eq!(table.probe(11, 4), None);
    }
}
