//! Correction history: how far searches found the static evaluation to be off, by the
//! pawn structure and by where each side's other pieces stand.
//!
//! The evaluation misjudges some positions in ways that repeat: a pawn structure, or a set
//! of piece placements, that it gets wrong it gets wrong wherever it recurs. After a quiet
//! node is searched, the gap between the score found and the (corrected) static evaluation
//! nudges an entry of each table, kept per side to move and indexed by the position's pawn
//! key and by each colour's non-pawn key; later evaluations read the entries back as a
//! correction. Because the gap is measured from the corrected evaluation, an entry stops
//! growing once the correction closes it: the tables follow the evaluation's average error.
//!
//! Fixed point: entries are kept in 1/[`GRAIN`] centipawn-units of the update, within
//! ±[`LIMIT`]. An update of `bonus` moves an entry by `bonus - entry * |bonus| / LIMIT`
//! (the "gravity" of the history tables): strong evidence moves it further, and an entry
//! near the limit yields to evidence against it.

use super::params::{Params, CORRECTION_LIMIT, CORRECTION_MAX_BONUS};
use crate::piece::Color;
use crate::position::Position;
use crate::value::clamp_eval;

/// Entries per table and side to move (a power of two, indexed by a key's top bits).
const BITS: u32 = 14;
const SIZE: usize = 1 << BITS;
/// Entries are kept in 1/GRAIN of an update's centipawn unit, so that small updates are
/// not rounded away.
const GRAIN: i32 = 16;
/// The largest entry, in 1/GRAIN units.
const LIMIT: i32 = CORRECTION_LIMIT * GRAIN;
/// The largest single update, in 1/GRAIN units.
const MAX_BONUS: i32 = CORRECTION_MAX_BONUS * GRAIN;

type Table = [[i16; SIZE]; 2];

/// Per-thread correction tables, [side to move][key index] each.
pub struct CorrectionHistory {
    pawn: Box<Table>,
    /// One table per colour, indexed by that colour's non-pawn key.
    non_pawn: [Box<Table>; 2],
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        let table = || Box::new([[0; SIZE]; 2]);
        CorrectionHistory { pawn: table(), non_pawn: [table(), table()] }
    }
}

#[inline(always)]
fn index(key: u64) -> usize {
    (key >> (64 - BITS)) as usize
}

impl CorrectionHistory {
    pub fn clear(&mut self) {
        let [white, black] = &mut self.non_pawn;
        for t in [&mut self.pawn, white, black] {
            for row in t.iter_mut() {
                row.fill(0);
            }
        }
    }

    /// The static evaluation `raw` of `pos` (side to move's view), corrected and kept below
    /// the tablebase and mate ranges.
    #[inline(always)]
    pub fn corrected(&self, pos: &Position, raw: i32, p: &Params) -> i32 {
        let stm = pos.side_to_move().index();
        let pawn = self.pawn[stm][index(pos.pawn_key())] as i32;
        let white = self.non_pawn[0][stm][index(pos.non_pawn_key(Color::White))] as i32;
        let black = self.non_pawn[1][stm][index(pos.non_pawn_key(Color::Black))] as i32;
        // The weighted sum of the entries over the read divisor, in GRAIN units.
        let correction = (p.correction_pawn_weight() * pawn + white + black) / (p.correction_read_div() * GRAIN);
        clamp_eval(raw + correction)
    }

    /// A search of `pos` to `depth` found `score` where the corrected static evaluation
    /// said `eval`: every table's entry for `pos` moves toward the difference.
    #[inline]
    pub fn update(&mut self, pos: &Position, depth: i32, score: i32, eval: i32, p: &Params) {
        let bonus = ((score - eval) * GRAIN * depth / p.correction_depth_div()).clamp(-MAX_BONUS, MAX_BONUS);
        let stm = pos.side_to_move().index();
        let nudge = |entry: &mut i16| {
            let e = *entry as i32;
            *entry = (e + bonus - e * bonus.abs() / LIMIT) as i16;
        };
        nudge(&mut self.pawn[stm][index(pos.pawn_key())]);
        nudge(&mut self.non_pawn[0][stm][index(pos.non_pawn_key(Color::White))]);
        nudge(&mut self.non_pawn[1][stm][index(pos.non_pawn_key(Color::Black))]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays the search loop in miniature: a position whose evaluation is always `error`
    /// centipawns short is corrected toward it, without overshooting far, and the
    /// correction stays within the tables' range.
    #[test]
    fn corrections_close_the_gap_and_stay_bounded() {
        let mut ch = CorrectionHistory::default();
        let pos = Position::from_fen(crate::fen::STARTPOS).unwrap();
        assert_eq!(ch.corrected(&pos, 30, &Params::defaults()), 30);
        for error in [40, -25, 500, -500] {
            for _ in 0..300 {
                let eval = ch.corrected(&pos, 0, &Params::defaults());
                ch.update(&pos, 8, error, eval, &Params::defaults());
            }
            let c = ch.corrected(&pos, 0, &Params::defaults());
            let bound = error.clamp(-128, 128);
            assert!((c - bound).abs() <= bound.abs() / 4 + 2, "error {error}: correction {c}");
        }
        // The other side to move has entries of its own.
        let black = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1").unwrap();
        assert_eq!(ch.corrected(&black, 7, &Params::defaults()), 7);
        ch.clear();
        assert_eq!(ch.corrected(&pos, 7, &Params::defaults()), 7);
    }

    #[test]
    fn extreme_updates_stay_in_range() {
        let mut ch = CorrectionHistory::default();
        let pos = Position::from_fen(crate::fen::STARTPOS).unwrap();
        for i in 0..1000 {
            let score = if i % 3 == 0 { -20_000 } else { 20_000 };
            ch.update(&pos, 60, score, 0, &Params::defaults());
            let c = ch.corrected(&pos, 0, &Params::defaults());
            assert!(c.abs() <= 128, "correction {c}");
        }
    }
}
