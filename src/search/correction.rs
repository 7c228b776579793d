//! Correction history: what searches found the static evaluation to miss, by pawn structure.
//!
//! The evaluation is wrong in ways that repeat: a pawn structure it misjudges is misjudged in
//! every position that has it. After a search of a quiet node, the difference between the
//! score found and the static evaluation is folded into a running average kept per side to
//! move and pawn structure, and later static evaluations at that structure are moved by it.
//! The pruning that reads the static evaluation (reverse futility, null move, futility,
//! "improving") then works from a better guess.

use crate::position::Position;
use crate::value::MATE_BOUND;

/// Entries per side (a power of two, indexed by the low bits of the pawn key).
const SIZE: usize = 16_384;
/// Entries are kept in 1/GRAIN centipawns so that small updates are not rounded away.
const GRAIN: i32 = 256;
/// The most an entry moves the evaluation, in centipawns.
const LIMIT: i32 = 128;
/// An update's weight out of WEIGHT_SCALE grows with the depth of the search that found it,
/// up to WEIGHT_MAX: deeper results are better evidence.
const WEIGHT_SCALE: i32 = 256;
const WEIGHT_MAX: i32 = 16;

/// Running averages of (search score - static evaluation): [side to move][pawn key].
pub struct CorrectionHistory {
    table: Box<[[i32; SIZE]; 2]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory { table: Box::new([[0; SIZE]; 2]) }
    }
}

impl CorrectionHistory {
    pub fn clear(&mut self) {
        *self = CorrectionHistory::default();
    }

    #[inline(always)]
    fn slot(pos: &Position) -> (usize, usize) {
        (pos.side_to_move().index(), pos.pawn_key() as usize & (SIZE - 1))
    }

    /// The static evaluation `raw` of `pos`, corrected, and kept clear of the mate range.
    #[inline(always)]
    pub fn corrected(&self, pos: &Position, raw: i32) -> i32 {
        let (side, i) = Self::slot(pos);
        (raw + self.table[side][i] / GRAIN).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// A search to `depth` of `pos` found `score` where the uncorrected evaluation said `raw`.
    #[inline]
    pub fn update(&mut self, pos: &Position, depth: i32, score: i32, raw: i32) {
        let (side, i) = Self::slot(pos);
        let target = (score - raw).clamp(-LIMIT, LIMIT) * GRAIN;
        let weight = (depth + 1).min(WEIGHT_MAX);
        let entry = &mut self.table[side][i];
        *entry = (*entry * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_follow_the_searches_and_stay_bounded() {
        let mut ch = CorrectionHistory::default();
        let pos = Position::from_fen(crate::fen::STARTPOS).unwrap();
        assert_eq!(ch.corrected(&pos, 30), 30);
        for _ in 0..200 {
            ch.update(&pos, 10, 10_000, 0);
        }
        let c = ch.corrected(&pos, 0);
        assert!(c > LIMIT / 2 && c <= LIMIT, "correction {c}");
        for _ in 0..400 {
            ch.update(&pos, 10, -40, 0);
        }
        let c = ch.corrected(&pos, 0);
        assert!((-41..=-30).contains(&c), "correction {c}");
        // The other side to move has a table of its own.
        let black = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1").unwrap();
        assert_eq!(ch.corrected(&black, 7), 7);
    }
}
