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
        s(98, 21), s(55, 79), s(14, 63), s(43, 85), s(103, 59), s(57, 75), s(-30, 86), s(115, -3),
        s(-5, -7), s(-20, -1), s(-28, 14), s(-8, 6), s(22, -10), s(30, -15), s(15, -12), s(8, -17),
        s(-17, -1), s(-12, -4), s(-19, -11), s(3, -19), s(5, -16), s(9, -27), s(3, -17), s(-16, -14),
        s(-20, -8), s(-23, -11), s(-12, -17), s(-4, -18), s(1, -19), s(-1, -22), s(-22, -16), s(-19, -16),
        s(-21, -11), s(-26, -12), s(-21, -14), s(-28, -3), s(-18, -4), s(-18, -9), s(-16, -18), s(-20, -20),
        s(-24, -12), s(-20, -15), s(-27, 2), s(-31, -14), s(-27, -4), s(-4, -5), s(-6, -21), s(-20, -26),
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    ],
    // knight
    [
        s(-89, -75), s(-13, 0), s(-30, 7), s(-22, 41), s(-20, 26), s(-89, 44), s(-10, -51), s(-38, -18),
        s(-34, 20), s(-21, 8), s(22, 3), s(70, 3), s(26, 4), s(33, 1), s(-52, 37), s(-6, -8),
        s(12, -11), s(1, 16), s(10, 16), s(51, 10), s(54, 11), s(63, -13), s(18, 11), s(28, -7),
        s(13, 10), s(13, 13), s(22, 24), s(32, 35), s(19, 43), s(19, 26), s(19, 31), s(28, 2),
        s(2, -4), s(12, 12), s(16, 31), s(17, 23), s(19, 26), s(24, 20), s(19, 11), s(7, 9),
        s(-21, -9), s(-4, 6), s(2, -6), s(7, 21), s(3, 18), s(7, 5), s(9, -3), s(-7, -25),
        s(-42, -32), s(-4, -4), s(-2, -11), s(-1, 6), s(2, -6), s(12, -25), s(-8, -6), s(-13, -52),
        s(-97, -67), s(-21, -28), s(0, -31), s(4, -36), s(0, -20), s(-15, -10), s(-20, -50), s(-35, -22),
    ],
    // bishop
    [
        s(-6, 10), s(-41, 27), s(-9, 18), s(-61, 22), s(-39, 20), s(40, 20), s(-6, 34), s(-2, 11),
        s(-38, -11), s(9, -10), s(-35, 4), s(7, 8), s(-3, -1), s(-4, 34), s(-21, 20), s(-37, 34),
        s(-4, -15), s(1, -8), s(10, -5), s(9, 0), s(8, 18), s(55, 11), s(28, 14), s(-2, 7),
        s(-23, 10), s(13, 9), s(4, 3), s(32, 8), s(14, 2), s(10, 10), s(11, 12), s(-7, -5),
        s(-3, -4), s(9, -6), s(12, 10), s(7, -1), s(26, 3), s(8, -3), s(20, -3), s(-22, 14),
        s(5, -12), s(1, -6), s(11, 1), s(5, 6), s(0, 2), s(20, -11), s(13, -9), s(7, 3),
        s(9, -33), s(3, -18), s(-9, -4), s(5, -12), s(12, -11), s(1, -21), s(20, -23), s(4, -34),
        s(-30, -24), s(-27, -6), s(-8, -30), s(-4, -8), s(-3, -2), s(-7, -23), s(8, -32), s(-8, -11),
    ],
    // rook
    [
        s(28, -1), s(4, 5), s(10, 5), s(22, 4), s(27, -2), s(37, 2), s(27, 7), s(13, 9),
        s(29, 10), s(12, 19), s(17, 15), s(60, -3), s(53, 8), s(44, 10), s(17, 21), s(3, 16),
        s(-2, 15), s(30, 2), s(2, 20), s(26, 15), s(23, -6), s(10, 10), s(24, 17), s(14, 6),
        s(-9, 10), s(-3, 12), s(4, 13), s(13, 4), s(28, -4), s(-4, 7), s(2, 18), s(-7, 12),
        s(-27, 9), s(7, 3), s(0, -1), s(-4, 8), s(-19, 7), s(-4, 3), s(-23, 18), s(-14, 3),
        s(-25, -4), s(-24, -3), s(-24, 4), s(-28, -1), s(-33, 0), s(-17, -12), s(-30, -10), s(-33, -19),
        s(-30, -16), s(-30, -11), s(-17, 1), s(-12, -25), s(-16, -23), s(-10, -29), s(-15, -5), s(-36, -30),
        s(-17, -13), s(-16, -17), s(-11, -9), s(-6, -21), s(-6, -21), s(-2, -24), s(-21, -8), s(-15, -29),
    ],
    // queen
    [
        s(-12, 9), s(-24, 22), s(41, 0), s(45, 10), s(12, 30), s(29, 17), s(-45, 50), s(0, -24),
        s(-19, 31), s(-22, 17), s(1, 50), s(8, 28), s(13, 60), s(9, 33), s(4, 64), s(-8, 23),
        s(-28, 16), s(-3, 18), s(9, 32), s(17, 28), s(32, 26), s(17, 51), s(19, 66), s(-21, 60),
        s(-10, 6), s(-5, 24), s(-2, 31), s(-4, 34), s(-11, 52), s(-3, 36), s(9, 32), s(-2, 31),
        s(-8, -31), s(-16, 26), s(-6, 4), s(-11, 28), s(4, 17), s(0, 48), s(-11, 39), s(-16, 9),
        s(-19, -7), s(-1, -26), s(-10, -9), s(1, -23), s(0, -13), s(-9, -5), s(-4, 2), s(-2, -27),
        s(-12, -24), s(-1, -42), s(4, -67), s(7, -36), s(9, -61), s(5, -60), s(2, -69), s(17, -31),
        s(-6, -55), s(9, -96), s(7, -76), s(1, -78), s(-9, -37), s(-1, -86), s(20, -74), s(12, -104),
    ],
    // king
    [
        s(-64, -160), s(-5, 4), s(12, -13), s(71, -34), s(83, -22), s(41, 0), s(33, -12), s(-69, -139),
        s(2, -22), s(-84, 41), s(16, 0), s(54, 8), s(33, 2), s(31, 10), s(-46, 20), s(-17, -50),
        s(40, 9), s(-57, 33), s(-91, 42), s(45, 25), s(-46, 37), s(59, 30), s(61, 16), s(-55, 24),
        s(-18, 6), s(56, 9), s(3, 35), s(-39, 33), s(4, 29), s(-17, 39), s(49, 14), s(4, 15),
        s(-48, 3), s(22, 14), s(-51, 25), s(-52, 21), s(-36, 23), s(-20, 21), s(9, 15), s(-53, 6),
        s(-5, -1), s(14, 4), s(-14, 4), s(5, 2), s(-18, 6), s(-18, 11), s(-12, 7), s(-45, 18),
        s(24, -19), s(4, -4), s(26, -7), s(-1, 3), s(-2, 1), s(14, -1), s(22, -2), s(11, -7),
        s(-32, 8), s(39, -22), s(37, -27), s(-6, -25), s(21, -31), s(5, -17), s(44, -23), s(29, -37),
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
