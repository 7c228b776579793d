//! The evaluation cache: recent evaluations by full position key.

use super::{evaluate_with_network, PawnTable};
use crate::nnue::{Accumulator, Network};
use crate::position::Position;

/// Evaluations of recently seen positions, by full Zobrist key: a node's evaluation is asked
/// for again on every re-search, every iteration and every transposition, and a lookup costs
/// far less than [`evaluate_with_network`]. Direct-mapped, one `u64` per slot: the slot index
/// is the key's low bits and the slot keeps the key's high 48 bits beside the 16-bit score, so
/// a hit matches all 64 bits of the key (as the transposition table does) and the score
/// handed back is the one the evaluation gave.
pub struct EvalCache {
    slots: Vec<u64>,
}

/// The score half of an empty slot: never stored, since scores are kept only when they fit
/// in `-32767..=32767`.
const EVAL_NONE: u16 = i16::MIN as u16;

impl EvalCache {
    /// A cache of `1 << bits` slots; the index takes the key's low `bits` bits, which must be
    /// at least 16 so that index and tag together cover the whole key.
    pub fn new(bits: u32) -> EvalCache {
        assert!((16..=30).contains(&bits));
        EvalCache { slots: vec![EVAL_NONE as u64; 1 << bits] }
    }

    pub fn clear(&mut self) {
        self.slots.fill(EVAL_NONE as u64);
    }

    /// Starts loading the slot of `key` (see [`crate::tt::TranspositionTable::prefetch`]).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::memory::prefetch(&self.slots[key as usize & (self.slots.len() - 1)]);
    }

    /// [`evaluate_with_network`], remembered: the cache must be cleared when `net` changes.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position, pawns: &mut PawnTable, net: &Network, acc: &[Accumulator; 2]) -> i32 {
        const TAG: u64 = !0xFFFF;
        let key = pos.key();
        let i = key as usize & (self.slots.len() - 1);
        let slot = self.slots[i];
        if slot & TAG == key & TAG && slot as u16 != EVAL_NONE {
            return slot as u16 as i16 as i32;
        }
        let v = evaluate_with_network(pos, Some(pawns), net, acc);
        if v.unsigned_abs() <= i16::MAX as u32 {
            self.slots[i] = key & TAG | v as i16 as u16 as u64;
        }
        v
    }
}

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache::new(16)
    }
}
