//! Squares of the 0x88 board.
//!
//! The board is an 8x16 array: the left half holds the 64 real squares, the right half is
//! padding, so `index & 0x88 != 0` tells at once that a step left the board. Numbering is the
//! classic one of the founding note: a8 = 0, h8 = 7, a7 = 16, ..., a1 = 112, h1 = 119.
//! "Up" the board (towards rank 8) is therefore `-16`.

use std::fmt;
use std::str::FromStr;

/// A unit step (or knight jump) on the 0x88 board, added to a square index.
pub type Step = i8;

pub const NORTH: Step = -16;
pub const SOUTH: Step = 16;
pub const EAST: Step = 1;
pub const WEST: Step = -1;
pub const NORTH_EAST: Step = -15;
pub const NORTH_WEST: Step = -17;
pub const SOUTH_EAST: Step = 17;
pub const SOUTH_WEST: Step = 15;

pub const KNIGHT_STEPS: [Step; 8] = [-33, -31, -18, -14, 14, 18, 31, 33];
pub const KING_STEPS: [Step; 8] = [-17, -16, -15, -1, 1, 15, 16, 17];
pub const BISHOP_STEPS: [Step; 4] = [-17, -15, 15, 17];
pub const ROOK_STEPS: [Step; 4] = [-16, -1, 1, 16];

/// A square of the 0x88 board; the invariant `index & 0x88 == 0` always holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

/// Error for square text that is not `a1`..`h8`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad square '{}'", self.0)
    }
}
impl std::error::Error for ParseSquareError {}

impl Square {
    /// Builds a square from a 0x88 index, or `None` when the index is off the board.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index & 0x88 == 0 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// Builds a square from `index` without checking; callers guarantee `index & 0x88 == 0`.
    #[inline(always)]
    pub const fn from_index_unchecked(index: u8) -> Square {
        debug_assert!(index & 0x88 == 0);
        Square(index)
    }

    /// File 0..8 (a = 0) and rank 0..8 (rank 1 = 0).
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        debug_assert!(file < 8 && rank < 8);
        Square((7 - rank) * 16 + file)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn raw(self) -> u8 {
        self.0
    }

    /// File 0..8, a = 0.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank 0..8, rank 1 = 0.
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        7 - (self.0 >> 4)
    }

    /// The square `step` away, or `None` when that leaves the board.
    #[inline(always)]
    pub const fn offset(self, step: Step) -> Option<Square> {
        let target = (self.0 as i16 + step as i16) as u16;
        if target & 0xFF88 == 0 {
            Some(Square(target as u8))
        } else {
            None
        }
    }

    /// The same square seen from the other side (a1 <-> a8).
    #[inline(always)]
    pub const fn flip(self) -> Square {
        Square(self.0 ^ 0x70)
    }

    /// Index 0..64 with a8 = 0 .. h1 = 63 (for dense tables).
    #[inline(always)]
    pub const fn index64(self) -> usize {
        ((self.0 >> 4) * 8 + (self.0 & 7)) as usize
    }

    /// Inverse of [`Square::index64`].
    #[inline(always)]
    pub const fn from_index64(i: usize) -> Square {
        Square((((i / 8) << 4) | (i % 8)) as u8)
    }

    /// All 64 squares, a8 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square::from_index64)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Ok(Square::from_coords(f - b'a', r - b'1')),
            _ => Err(ParseSquareError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_follows_the_founding_note() {
        assert_eq!("a8".parse::<Square>().unwrap().raw(), 0);
        assert_eq!("h8".parse::<Square>().unwrap().raw(), 7);
        assert_eq!("a1".parse::<Square>().unwrap().raw(), 112);
        assert_eq!("h1".parse::<Square>().unwrap().raw(), 119);
        assert_eq!("e4".parse::<Square>().unwrap().to_string(), "e4");
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("".parse::<Square>().is_err());
    }

    #[test]
    fn offsets_detect_the_edge() {
        let h1: Square = "h1".parse().unwrap();
        assert_eq!(h1.offset(EAST), None);
        assert_eq!(h1.offset(SOUTH), None);
        assert_eq!(h1.offset(NORTH).unwrap().to_string(), "h2");
        let a8: Square = "a8".parse().unwrap();
        assert_eq!(a8.offset(NORTH), None);
        assert_eq!(a8.offset(WEST), None);
        for i in 0..64 {
            assert_eq!(Square::from_index64(i).index64(), i);
        }
    }
}
