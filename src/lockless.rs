//! The bucket both hash tables are made of, the search's (`tt`) and perft's
//! (`perft::table`): four 16-byte entries in one 64-byte cache line, so a probe costs one
//! memory access, each entry two atomic words shared by threads without locks.
//!
//! The first word holds `key ^ data`: an entry torn by two threads writing at once (the key
//! word of one, the data word of the other) then fails the key check instead of handing out
//! another position's data (lockless hashing, Hyatt and Mann). Relaxed loads and stores are
//! enough: the key check, not the memory order, guards consistency.

use crate::memory::Zeroable;
use std::sync::atomic::{AtomicU64, Ordering};

/// One entry: what a table stores is 64 bits of data under a full 64-bit key.
#[derive(Default)]
#[repr(C)]
pub(crate) struct Entry {
    pub(crate) key_xor_data: AtomicU64,
    pub(crate) data: AtomicU64,
}

impl Entry {
    /// The entry's key and data (a torn entry's key matches no position's).
    #[inline(always)]
    pub(crate) fn load(&self) -> (u64, u64) {
        let data = self.data.load(Ordering::Relaxed);
        (self.key_xor_data.load(Ordering::Relaxed) ^ data, data)
    }

    #[inline(always)]
    pub(crate) fn save(&self, key: u64, data: u64) {
        self.key_xor_data.store(key ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
}

pub(crate) const BUCKET: usize = 4;

#[derive(Default)]
#[repr(C, align(64))]
pub(crate) struct Bucket {
    pub(crate) entries: [Entry; BUCKET],
}

// SAFETY: a bucket is atomic integers only; all zero is an empty bucket.
unsafe impl Zeroable for Bucket {}

/// The bucket of `key` in a table of `len` buckets: the high half of `key * len`, always
/// below `len`, so the index needs no bounds test and every key bit counts.
#[inline(always)]
pub(crate) fn index(key: u64, len: usize) -> usize {
    ((key as u128 * len as u128) >> 64) as usize
}

/// Empties `buckets`, one thread per processor each taking a slice, so that a table of
/// gigabytes is cleared (and its pages first touched, which the kernel makes slow) in a
/// fraction of the time.
pub(crate) fn clear(buckets: &[Bucket]) {
    const SLICE_MIN: usize = 1 << 16;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let slice = buckets.len().div_ceil(threads).max(SLICE_MIN);
    let clear = |part: &[Bucket]| {
        for e in part.iter().flat_map(|b| b.entries.iter()) {
            e.save(0, 0);
        }
    };
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for part in buckets.chunks(slice) {
            match std::thread::Builder::new().spawn_scoped(scope, move || clear(part)) {
                Ok(handle) => handles.push(handle),
                // Without a thread, the caller clears this slice itself.
                Err(_) => clear(part),
            }
        }
        crate::threads::join_all(handles);
    });
}
