//! Material and piece-square values, kept incrementally by the position.
//!
//! Tables are written from White's point of view with a8 first (as a board diagram reads);
//! Black's values are the same tables mirrored vertically and negated.

use crate::piece::Piece;
use crate::square::Square;
use crate::value::PIECE_VALUES;
use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};

/// A middle-game / end-game pair of centipawn values.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Tapered {
    pub mg: i32,
    pub eg: i32,
}

pub const fn s(mg: i32, eg: i32) -> Tapered {
    Tapered { mg, eg }
}

impl Add for Tapered {
    type Output = Tapered;
    #[inline(always)]
    fn add(self, o: Tapered) -> Tapered {
        s(self.mg + o.mg, self.eg + o.eg)
    }
}
impl Sub for Tapered {
    type Output = Tapered;
    #[inline(always)]
    fn sub(self, o: Tapered) -> Tapered {
        s(self.mg - o.mg, self.eg - o.eg)
    }
}
impl Neg for Tapered {
    type Output = Tapered;
    #[inline(always)]
    fn neg(self) -> Tapered {
        s(-self.mg, -self.eg)
    }
}
impl AddAssign for Tapered {
    #[inline(always)]
    fn add_assign(&mut self, o: Tapered) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}
impl SubAssign for Tapered {
    #[inline(always)]
    fn sub_assign(&mut self, o: Tapered) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}
impl std::ops::Mul<i32> for Tapered {
    type Output = Tapered;
    #[inline(always)]
    fn mul(self, k: i32) -> Tapered {
        s(self.mg * k, self.eg * k)
    }
}

/// Piece-square bonuses per kind, White's view, a8 first.
#[rustfmt::skip]
pub const PST: [[Tapered; 64]; 6] = [
    // pawn
    [
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
        s(83, 35), s(73, 65), s(34, 81), s(10, 110), s(84, 43), s(40, 49), s(-44, 91), s(103, 12),
        s(-1, 5), s(-3, 0), s(-3, 16), s(-3, 20), s(14, 10), s(42, -17), s(22, 2), s(10, -5),
        s(-8, -10), s(-15, -9), s(-9, -13), s(-2, -6), s(3, -20), s(-8, -18), s(-3, -12), s(-17, -10),
        s(-16, -18), s(-21, -16), s(-9, -20), s(-3, -20), s(-1, -22), s(-3, -23), s(-18, -21), s(-21, -14),
        s(-18, -17), s(-25, -17), s(-17, -14), s(-22, -8), s(-12, -13), s(-15, -17), s(-15, -21), s(-21, -24),
        s(-22, -21), s(-21, -25), s(-22, -9), s(-26, -10), s(-25, -9), s(-12, -14), s(-13, -23), s(-24, -24),
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    ],
    // knight
    [
        s(-87, -66), s(-7, -7), s(1, -10), s(-52, 18), s(-16, 30), s(-112, 21), s(-19, -25), s(-58, -29),
        s(-25, -5), s(-46, 14), s(10, 17), s(106, -10), s(29, 11), s(68, -13), s(-43, 23), s(-26, -23),
        s(-10, -14), s(16, 5), s(20, 10), s(35, 13), s(29, 13), s(44, -5), s(16, 13), s(44, -19),
        s(-7, 9), s(3, 19), s(19, 13), s(26, 22), s(18, 38), s(12, 31), s(12, 20), s(34, -19),
        s(3, -9), s(24, 11), s(3, 37), s(14, 24), s(16, 29), s(14, 20), s(0, 2), s(8, -12),
        s(-15, -13), s(-3, 13), s(3, 4), s(10, 21), s(6, 19), s(7, 7), s(12, 3), s(-5, -22),
        s(-13, -18), s(-11, 2), s(-8, 4), s(7, 17), s(6, 1), s(10, -7), s(-1, 16), s(-8, -31),
        s(-78, -35), s(-12, -37), s(-16, -20), s(7, -31), s(10, -19), s(-13, -16), s(-11, -34), s(2, -24),
    ],
    // bishop
    [
        s(-35, 19), s(-50, 12), s(24, 2), s(-34, 15), s(-42, 10), s(17, -6), s(29, 11), s(10, 38),
        s(-28, -15), s(-20, 11), s(-14, 4), s(-23, 5), s(-11, 9), s(-3, 15), s(-33, 27), s(-34, 1),
        s(-11, -11), s(3, 5), s(7, -3), s(39, -8), s(9, 12), s(45, 17), s(-4, 19), s(8, 3),
        s(6, 11), s(1, 7), s(-7, 4), s(36, -1), s(27, 7), s(10, 5), s(3, 8), s(-17, -6),
        s(1, -4), s(11, 5), s(14, 5), s(14, 4), s(20, -1), s(4, 6), s(5, 9), s(10, -14),
        s(-2, -14), s(-2, -4), s(13, 3), s(3, 2), s(5, 11), s(7, -1), s(16, -18), s(-6, 0),
        s(16, -19), s(8, -16), s(5, -13), s(6, -4), s(11, -17), s(3, -12), s(7, -18), s(-3, -20),
        s(-36, -10), s(1, -27), s(-2, -17), s(-6, -7), s(2, -8), s(-11, -19), s(-20, -7), s(-3, -2),
    ],
    // rook
    [
        s(37, -7), s(8, 7), s(38, 1), s(20, 2), s(48, -4), s(47, -8), s(-2, 10), s(20, 7),
        s(33, 8), s(32, 7), s(14, 15), s(56, 3), s(63, 2), s(28, 4), s(7, 17), s(4, 11),
        s(-3, 14), s(32, -1), s(27, 15), s(31, 1), s(24, 7), s(44, 2), s(3, 5), s(-18, 17),
        s(-4, 13), s(-25, 21), s(16, 9), s(-12, 12), s(10, 0), s(13, 4), s(-30, 26), s(-12, 13),
        s(-14, 0), s(-10, 3), s(-25, 12), s(-18, 7), s(-25, 9), s(-28, 15), s(-28, 11), s(-29, 1),
        s(-15, -12), s(-26, 8), s(-8, 1), s(-17, -9), s(-20, 0), s(-15, -2), s(-26, -11), s(-28, -3),
        s(-20, -20), s(-20, -11), s(-14, -8), s(-11, -23), s(-17, -22), s(-8, -17), s(-30, -8), s(-33, -14),
        s(-11, -13), s(-7, -18), s(-4, -13), s(5, -24), s(1, -21), s(5, -25), s(-26, -12), s(-24, -14),
    ],
    // queen
    [
        s(1, 1), s(-37, 42), s(49, -16), s(42, 5), s(6, 35), s(8, 12), s(-52, 42), s(33, -42),
        s(-21, 35), s(-5, 26), s(-7, 36), s(8, -1), s(13, 42), s(4, 53), s(-16, 58), s(-1, 17),
        s(-15, 10), s(14, 18), s(16, 9), s(9, 20), s(20, 23), s(20, 37), s(-14, 92), s(-24, 48),
        s(5, 18), s(-1, 0), s(-7, 56), s(8, 27), s(-15, 54), s(3, 6), s(-4, 14), s(-5, 61),
        s(2, -34), s(-11, 8), s(-3, 0), s(-8, 44), s(-7, 14), s(-9, 40), s(-25, 52), s(-11, 17),
        s(-13, 27), s(-1, -35), s(-3, 11), s(2, -26), s(-2, -11), s(-6, 10), s(2, 6), s(-9, -17),
        s(1, -56), s(12, -66), s(5, -55), s(3, -31), s(5, -34), s(8, -49), s(1, -44), s(-15, -43),
        s(-3, -49), s(2, -100), s(9, -52), s(1, -67), s(9, -56), s(-5, -54), s(-4, -101), s(35, -83),
    ],
    // king
    [
        s(-53, -120), s(-3, 25), s(21, 5), s(62, -18), s(73, -2), s(72, 47), s(55, 29), s(-43, -95),
        s(-24, -51), s(-98, 50), s(20, 15), s(26, -4), s(32, 3), s(45, 39), s(-18, 65), s(0, -19),
        s(16, -22), s(-92, 33), s(-123, 49), s(23, 2), s(-43, 18), s(78, 15), s(63, 22), s(-79, 16),
        s(-44, 6), s(42, 6), s(4, 16), s(-15, 14), s(13, 4), s(-26, 21), s(54, -6), s(3, 4),
        s(-79, 12), s(-9, 4), s(-37, 11), s(-35, 12), s(-21, 15), s(-27, 9), s(11, -4), s(-38, 2),
        s(26, -16), s(32, -5), s(-31, 7), s(-5, 7), s(-13, 9), s(-7, 7), s(-9, 1), s(-11, -6),
        s(38, -30), s(20, -5), s(22, -9), s(2, 2), s(0, 0), s(9, -2), s(11, -9), s(6, -15),
        s(4, -18), s(31, -28), s(29, -21), s(-8, -12), s(15, -22), s(1, -10), s(23, -18), s(13, -37),
    ],
];

/// `PSQT[piece.index()][square]`: material plus placement, positive for White.
pub static PSQT: [[Tapered; 128]; 12] = build();

const fn build() -> [[Tapered; 128]; 12] {
    let mut t = [[s(0, 0); 128]; 12];
    let mut kind = 0;
    while kind < 6 {
        let mut i = 0;
        while i < 64 {
            let sq = Square::from_index64(i);
            let white = PST[kind][i];
            let m = PIECE_VALUES[kind];
            t[kind][sq.index()] = s(m.mg + white.mg, m.eg + white.eg);
            // Black's piece on the mirrored square gets the negated value.
            let mirrored = sq.flip();
            t[6 + kind][mirrored.index()] = s(-(m.mg + white.mg), -(m.eg + white.eg));
            i += 1;
        }
        kind += 1;
    }
    t
}

#[inline(always)]
pub fn value(piece: Piece, sq: Square) -> Tapered {
    PSQT[piece.index()][sq.index()]
}

/// Game phase weight of a kind (24 in the opening with all pieces on).
pub const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
