//! Pawn structure (passed, isolated, doubled, backward, connected pawns), cached in the pawn
//! hash since it depends on the pawns alone, and the passed pawns again with the kings.

use super::{distance, rel_rank, sign, NoTrace, Term, Trace, Weights, WEIGHTS};
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::psqt::Tapered;
use crate::square::Square;

/// Pawn-only evaluation, cached by pawn key.
#[derive(Clone, Copy, Default)]
pub struct PawnEntry {
    key: u64,
    valid: bool,
    /// White-minus-Black pawn structure score.
    pub(super) score: Tapered,
    /// Passed pawns per colour, bit [`Square::index64`] of each.
    pub(super) passed: [u64; 2],
    /// Squares attacked by each colour's pawns (bits as [`Side`](super::sets::Side)'s):
    /// pawns only, so kept here rather than found again at every evaluation.
    pub(super) pawn_attacks: [u64; 2],
    /// Files holding pawns of each colour (bit f).
    pub(super) files: [u8; 2],
}

/// The pawn hash: a direct-mapped table of [`PawnEntry`].
pub struct PawnTable {
    entries: Vec<PawnEntry>,
}

impl PawnTable {
    pub fn new(entries: usize) -> PawnTable {
        PawnTable { entries: vec![PawnEntry::default(); entries.next_power_of_two()] }
    }
    pub fn clear(&mut self) {
        for e in self.entries.iter_mut() {
            *e = PawnEntry::default();
        }
    }
    #[inline]
    pub(super) fn get(&mut self, pos: &Position) -> PawnEntry {
        let key = pos.pawn_key();
        let i = (key as usize) & (self.entries.len() - 1);
        let e = self.entries[i];
        if e.valid && e.key == key {
            return e;
        }
        let fresh = pawn_structure(pos, &WEIGHTS, &mut NoTrace);
        self.entries[i] = fresh;
        fresh
    }
}

impl Default for PawnTable {
    fn default() -> Self {
        PawnTable::new(1 << 14)
    }
}

/// Pawn structure from scratch.
pub(super) fn pawn_structure<T: Trace>(pos: &Position, w: &Weights, t: &mut T) -> PawnEntry {
    // ranks[c][f]: bit r set when a pawn of colour c stands on file f, rank r (rank 1 = 0).
    let mut ranks = [[0u8; 8]; 2];
    for c in [Color::White, Color::Black] {
        let pawn = Piece::new(c, Kind::Pawn);
        for &sq in pos.pieces(c) {
            if pos.piece_at(sq) == pawn {
                ranks[c.index()][sq.file() as usize] |= 1 << sq.rank();
            }
        }
    }
    let mut e = PawnEntry { key: pos.pawn_key(), valid: true, ..Default::default() };
    for c in [Color::White, Color::Black] {
        let us = c.index();
        let them = c.flip().index();
        let pawn = Piece::new(c, Kind::Pawn);
        let mut score = Tapered::default();
        for (f, &pawns_on_file) in ranks[us].iter().enumerate() {
            if pawns_on_file != 0 {
                e.files[us] |= 1 << f;
            }
        }
        for &sq in pos.pieces(c) {
            if pos.piece_at(sq) != pawn {
                continue;
            }
            let f = sq.file() as usize;
            let r = sq.rank() as u32;
            let rr = rel_rank(sq, c) as usize;
            // Ranks strictly ahead of this pawn, and at or behind it, from c's side.
            let (ahead, behind_or_level): (u8, u8) = match c {
                Color::White => ((0xFFu16 << (r + 1)) as u8, ((1u16 << (r + 1)) - 1) as u8),
                Color::Black => (((1u16 << r) - 1) as u8, (0xFFu16 << r) as u8),
            };
            let adj = |side: usize| -> (u8, u8) {
                let left = if f > 0 { ranks[side][f - 1] } else { 0 };
                let right = if f < 7 { ranks[side][f + 1] } else { 0 };
                (left, right)
            };
            let (own_l, own_r) = adj(us);
            let (their_l, their_r) = adj(them);
            let own_adjacent = own_l | own_r;
            let their_front = (ranks[them][f] | their_l | their_r) & ahead;
            if ranks[us][f] & ahead != 0 {
                score += w.doubled;
                t.term(Term::Doubled, c, 1);
            }
            if own_adjacent == 0 {
                score += w.isolated;
                t.term(Term::Isolated, c, 1);
            } else {
                // Supported (a pawn diagonally behind) or in a phalanx (level beside it).
                let behind_rank = match c {
                    Color::White => r.wrapping_sub(1),
                    Color::Black => r + 1,
                };
                let level = own_adjacent >> r & 1 != 0;
                let supported = behind_rank < 8 && own_adjacent >> behind_rank & 1 != 0;
                if level || supported {
                    score += w.connected[rr];
                    t.term(Term::Connected(rr), c, 1);
                } else if own_adjacent & behind_or_level == 0 {
                    // Backward: no neighbour can come up beside it; it is weak if an enemy
                    // pawn guards its stop square.
                    let stop_guard_rank = match c {
                        Color::White => r + 2,
                        Color::Black => r.wrapping_sub(2),
                    };
                    if stop_guard_rank < 8 && (their_l | their_r) >> stop_guard_rank & 1 != 0 {
                        score += w.backward;
                        t.term(Term::Backward, c, 1);
                    }
                }
            }
            if their_front == 0 && ranks[us][f] & ahead == 0 {
                score += w.passed[rr];
                t.term(Term::Passed(rr), c, 1);
                e.passed[us] |= 1 << sq.index64();
            }
            for d in [c.forward() - 1, c.forward() + 1] {
                if let Some(t) = sq.offset(d) {
                    e.pawn_attacks[us] |= 1 << t.index64();
                }
            }
        }
        e.score += score * sign(c);
    }
    e
}

/// Passed pawns of `c` (on `passed`) with the kings: the end game wants the own king near
/// the stop square and the enemy king far from it.
#[inline(always)]
pub(super) fn passers_with_kings<T: Trace>(pos: &Position, c: Color, passed: u64, w: &Weights, t: &mut T) -> Tapered {
    let mut score = Tapered::default();
    let mut passed = passed;
    while passed != 0 {
        let sq = Square::from_index64(passed.trailing_zeros() as usize);
        passed &= passed - 1;
        let rr = rel_rank(sq, c) as usize;
        if let Some(stop) = sq.offset(c.forward()) {
            let prox = 5 * distance(pos.king(c.flip()), stop) - 2 * distance(pos.king(c), stop);
            score += w.passed_king[rr] * prox;
            t.term(Term::PassedKing(rr), c, prox);
            if pos.piece_at(stop).is_some() {
                score += w.passed_blocked;
                t.term(Term::PassedBlocked, c, 1);
            }
        }
    }
    score
}
