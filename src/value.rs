//! Values: what a search score means, how a stored score is bounded, and what pieces are worth.
//!
//! The ground floor for every layer that counts in centipawns: the hash table packs a
//! [`Bound`], the search and the table agree on the mate range, the text layer prints a
//! [`Score`], and SEE, the evaluation and the search margins read one table of piece values.

use crate::piece::{Kind, Piece};

/// Mate scores are `MATE - ply`; anything beyond `MATE_BOUND` is a mate.
pub const MATE: i32 = 32_000;
pub const MATE_BOUND: i32 = MATE - 1_000;
/// A tablebase win: `TB_WIN - ply` at the node `ply` plies from the root, above every
/// evaluation and below every mate, so that a real mate found still counts for more.
pub const TB_WIN: i32 = MATE_BOUND - 1 - MAX_PLY as i32;
/// Scores beyond this are tablebase wins or mates: their distance is counted from the root.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
// A tablebase win at any ply lies between every evaluation and every mate.
const _: () = assert!(TB_WIN < MATE_BOUND && TB_WIN_BOUND > 20_000);
/// Above every score a search can return: the open window's edge.
pub const INFINITY: i32 = MATE + 1;
/// The deepest ply a search reaches (stacks are sized by it).
pub const MAX_PLY: usize = 128;
/// The deepest iteration a search runs (its root clamps every depth to this), which leaves
/// plies of the search's stack for extensions and quiescence.
pub const MAX_DEPTH: u32 = MAX_PLY as u32 - 8;
/// The longest mate `go mate` may ask for: a mate in `n` moves is `2n - 1` plies deep, and
/// those fit in [`MAX_DEPTH`].
pub const MAX_MATE_MOVES: u32 = MAX_DEPTH.div_ceil(2);
/// The largest static evaluation: one short of the tablebase and mate ranges, so that no
/// evaluation is ever read as a won or lost position.
pub const EVAL_LIMIT: i32 = TB_WIN_BOUND - 1;

/// An evaluation brought inside `-EVAL_LIMIT..=EVAL_LIMIT`.
#[inline(always)]
pub fn clamp_eval(v: i32) -> i32 {
    v.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// How a search result relates to the true value of its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most this (every move failed low).
    Upper,
    /// The true value is at least this (a move failed high).
    Lower,
    Exact,
}

impl Bound {
    /// The bound a result `best` has against the window (`alpha`, `beta`) it was searched with.
    #[inline]
    pub fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Does a score with this bound settle a node searched with the window (`alpha`, `beta`)?
    #[inline]
    pub fn settles(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }

    /// Two bits; 0 is left for "no entry".
    #[inline(always)]
    pub const fn to_bits(self) -> u8 {
        match self {
            Bound::Upper => 1,
            Bound::Lower => 2,
            Bound::Exact => 3,
        }
    }

    /// The bound of two bits, `None` for the empty code 0.
    #[inline(always)]
    pub const fn from_bits(bits: u8) -> Option<Bound> {
        match bits & 3 {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
}

/// A score as UCI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Centipawns(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// The score of a search value (mate distances in plies become moves).
    pub fn from_value(v: i32) -> Score {
        if v > MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v < -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Centipawns(v)
        }
    }
}

/// What a piece of one kind is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceValue {
    /// Nominal value: exchanges (SEE), move ordering, pruning margins, counting material.
    /// The king's is "infinite": it may only capture last in an exchange.
    pub nominal: i32,
    /// Material in the evaluation, middle game and end game (fitted by tools/tune.rs to ox88's games).
    pub mg: i32,
    pub eg: i32,
}

const fn v(nominal: i32, mg: i32, eg: i32) -> PieceValue {
    PieceValue { nominal, mg, eg }
}

/// Per kind: pawn, knight, bishop, rook, queen, king.
pub const PIECE_VALUES: [PieceValue; 6] =
    [v(100, 86, 110), v(320, 332, 332), v(330, 342, 366), v(500, 454, 613), v(950, 1206, 997), v(20_000, 0, 0)];

/// The nominal value of a kind.
#[inline(always)]
pub const fn nominal(kind: Kind) -> i32 {
    PIECE_VALUES[kind as usize].nominal
}

/// The nominal value of a piece; 0 for an empty square.
#[inline(always)]
pub fn nominal_of(p: Piece) -> i32 {
    if p.is_none() {
        0
    } else {
        PIECE_VALUES[p.kind().index()].nominal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_pack_into_two_bits_and_back() {
        for b in [Bound::Upper, Bound::Lower, Bound::Exact] {
            assert_eq!(Bound::from_bits(b.to_bits()), Some(b));
        }
        assert_eq!(Bound::from_bits(0), None);
    }

    #[test]
    fn mate_values_become_moves() {
        assert_eq!(Score::from_value(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_value(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_value(-(MATE - 2)), Score::Mate(-1));
        assert_eq!(Score::from_value(35), Score::Centipawns(35));
    }
}
