//! Square sets for the evaluation: what pieces reach, and each colour's sets gathered once
//! per evaluation ([`Side`]).

use crate::piece::Color;
use crate::position::Position;
use crate::square::{Square, KING_STEPS, KNIGHT_STEPS};

/// The squares `steps` lead to from each square (by [`Square::index64`]), as 64-bit sets,
/// and the square itself when `with_self`: a knight's reach and a king's zone are then one
/// look-up instead of eight steps.
const fn leaper_sets(steps: [i8; 8], with_self: bool) -> [u64; 64] {
    let mut sets = [0u64; 64];
    let mut i = 0;
    while i < 64 {
        let from = Square::from_index64(i);
        if with_self {
            sets[i] |= 1 << from.index64();
        }
        let mut k = 0;
        while k < 8 {
            if let Some(t) = from.offset(steps[k]) {
                sets[i] |= 1 << t.index64();
            }
            k += 1;
        }
        i += 1;
    }
    sets
}

/// The squares a knight on each square attacks.
pub(super) const KNIGHT_REACH: [u64; 64] = leaper_sets(KNIGHT_STEPS, false);
/// The 3x3 zone around a king.
const KING_ZONE: [u64; 64] = leaper_sets(KING_STEPS, true);

/// The squares a slider on `from` attacks along `steps` (up to and including the first
/// piece on each line).
#[inline(always)]
pub(super) fn slider_reach(pos: &Position, from: Square, steps: &[i8; 4]) -> u64 {
    let mut reach = 0u64;
    for &d in steps {
        let mut t = from.raw().wrapping_add(d as u8);
        while t & 0x88 == 0 {
            let sq = Square::from_index_unchecked(t);
            reach |= 1 << sq.index64();
            if pos.piece_at(sq).is_some() {
                break;
            }
            t = t.wrapping_add(d as u8);
        }
    }
    reach
}

/// Files a and h as 64-bit sets (bit [`Square::index64`]).
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// The squares the pawns of `c` on `pawns` attack.
#[inline(always)]
pub(super) fn pawn_attacks_of(pawns: u64, c: Color) -> u64 {
    // Index 0 is a8: White moves to lower indices, Black to higher.
    match c {
        Color::White => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
        Color::Black => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
    }
}

/// Per-colour facts gathered in one pass, used by several terms. Square sets are 64-bit,
/// bit [`Square::index64`] of a square: tested once per square a piece reaches, a `u64`
/// shift is cheaper than the `u128` one the 0x88 numbering would need.
pub(super) struct Side {
    /// Squares attacked by this colour's pawns.
    pub(super) pawn_attacks: u64,
    /// The 3x3 zone around this colour's king.
    pub(super) king_zone: u64,
    pub(super) occupied: u64,
    pub(super) pawns: u64,
    /// Squares attacked by this colour's knights and bishops.
    pub(super) minor_attacks: u64,
    /// Squares attacked by this colour's rooks.
    pub(super) rook_attacks: u64,
    /// Squares attacked by anything of this colour, king and pawns included.
    pub(super) attacks: u64,
}

impl Side {
    /// `c`'s sets before its pieces are looked at: the pieces' attacks are added by the
    /// pieces pass.
    #[inline(always)]
    pub(super) fn new(pos: &Position, c: Color, pawn_attacks: u64) -> Side {
        let mut occupied = 0u64;
        for &sq in pos.officers(c) {
            occupied |= 1 << sq.index64();
        }
        let mut pawns = 0u64;
        for &sq in pos.pawns(c) {
            pawns |= 1 << sq.index64();
        }
        let king = pos.king(c).index64();
        Side {
            pawn_attacks,
            king_zone: KING_ZONE[king],
            occupied: occupied | pawns,
            pawns,
            minor_attacks: 0,
            rook_attacks: 0,
            attacks: pawn_attacks | (KING_ZONE[king] & !(1 << king)),
        }
    }
}
