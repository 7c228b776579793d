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
        s(99, 20), s(55, 79), s(15, 64), s(43, 85), s(103, 58), s(58, 75), s(-30, 85), s(116, -3),
        s(-6, -7), s(-19, -1), s(-27, 14), s(-6, 6), s(23, -10), s(30, -16), s(17, -13), s(8, -17),
        s(-18, 0), s(-12, -4), s(-19, -11), s(4, -19), s(6, -16), s(9, -27), s(3, -17), s(-17, -14),
        s(-20, -8), s(-23, -12), s(-12, -17), s(-3, -18), s(3, -19), s(-1, -22), s(-19, -17), s(-19, -16),
        s(-22, -11), s(-28, -12), s(-22, -13), s(-28, -2), s(-19, -3), s(-19, -9), s(-16, -18), s(-20, -20),
        s(-25, -12), s(-21, -15), s(-28, 2), s(-31, -14), s(-28, -4), s(-5, -5), s(-7, -21), s(-20, -25),
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    ],
    // knight
    [
        s(-89, -75), s(-10, 1), s(-30, 7), s(-22, 41), s(-19, 25), s(-89, 45), s(-12, -50), s(-38, -16),
        s(-28, 20), s(-20, 10), s(34, 1), s(71, 3), s(28, 3), s(37, 0), s(-55, 39), s(-1, -6),
        s(14, -10), s(19, 13), s(21, 13), s(60, 8), s(61, 10), s(65, -13), s(37, 5), s(27, -5),
        s(13, 11), s(7, 14), s(22, 24), s(31, 33), s(14, 42), s(16, 25), s(11, 30), s(26, 3),
        s(-1, -4), s(3, 13), s(8, 32), s(10, 22), s(12, 26), s(13, 20), s(8, 12), s(2, 9),
        s(-23, -10), s(-5, 7), s(-1, -7), s(5, 21), s(1, 17), s(4, 4), s(8, -4), s(-8, -26),
        s(-41, -29), s(-4, -3), s(-3, -11), s(-1, 7), s(1, -6), s(11, -26), s(-7, -5), s(-11, -52),
        s(-96, -66), s(-20, -27), s(-1, -28), s(4, -35), s(0, -20), s(-15, -8), s(-20, -49), s(-34, -18),
    ],
    // bishop
    [
        s(-6, 9), s(-40, 26), s(-9, 18), s(-60, 21), s(-39, 20), s(39, 20), s(-6, 33), s(0, 10),
        s(-35, -13), s(16, -11), s(-31, 4), s(8, 9), s(3, -2), s(-3, 34), s(-11, 19), s(-37, 33),
        s(-5, -16), s(3, -9), s(16, -5), s(12, 1), s(12, 19), s(59, 11), s(28, 14), s(-2, 5),
        s(-24, 9), s(10, 11), s(2, 6), s(33, 10), s(14, 4), s(6, 13), s(9, 14), s(-11, -5),
        s(-3, -4), s(5, -4), s(7, 11), s(5, 2), s(22, 5), s(1, -1), s(14, -2), s(-23, 14),
        s(6, -13), s(-1, -5), s(11, 2), s(3, 7), s(-2, 3), s(19, -10), s(10, -8), s(7, 4),
        s(9, -34), s(4, -19), s(-10, -3), s(4, -13), s(11, -12), s(0, -20), s(20, -24), s(6, -39),
        s(-28, -26), s(-27, -7), s(-8, -33), s(-4, -9), s(-3, -4), s(-7, -26), s(9, -34), s(-8, -13),
    ],
    // rook
    [
        s(29, -1), s(4, 5), s(10, 5), s(22, 3), s(29, -3), s(35, 2), s(27, 6), s(17, 7),
        s(30, 10), s(11, 20), s(19, 15), s(63, -4), s(57, 7), s(46, 9), s(15, 21), s(4, 16),
        s(1, 15), s(32, 2), s(4, 20), s(29, 14), s(24, -6), s(13, 10), s(26, 16), s(15, 6),
        s(-8, 10), s(-4, 12), s(2, 14), s(13, 3), s(25, -4), s(-10, 8), s(0, 17), s(-8, 12),
        s(-27, 9), s(0, 5), s(-2, -2), s(-8, 8), s(-25, 7), s(-12, 4), s(-33, 19), s(-15, 3),
        s(-24, -5), s(-23, -3), s(-25, 5), s(-29, 0), s(-35, 0), s(-20, -11), s(-30, -10), s(-32, -18),
        s(-28, -16), s(-28, -12), s(-16, 2), s(-10, -25), s(-15, -23), s(-9, -28), s(-13, -5), s(-34, -31),
        s(-15, -12), s(-14, -17), s(-10, -8), s(-4, -21), s(-4, -20), s(0, -24), s(-19, -8), s(-13, -29),
    ],
    // queen
    [
        s(-13, 8), s(-25, 23), s(38, 0), s(45, 8), s(10, 30), s(29, 15), s(-50, 47), s(0, -27),
        s(-19, 30), s(-22, 17), s(1, 49), s(8, 28), s(13, 60), s(9, 33), s(6, 63), s(-5, 20),
        s(-27, 17), s(-2, 20), s(9, 33), s(20, 27), s(31, 26), s(18, 51), s(20, 66), s(-21, 60),
        s(-11, 8), s(-7, 26), s(-7, 37), s(-6, 34), s(-15, 55), s(-9, 38), s(3, 34), s(-5, 33),
        s(-8, -30), s(-20, 31), s(-9, 7), s(-16, 34), s(0, 18), s(-3, 49), s(-17, 41), s(-17, 7),
        s(-17, -8), s(1, -27), s(-8, -10), s(4, -24), s(1, -15), s(-8, -5), s(-3, -1), s(0, -28),
        s(-9, -25), s(2, -43), s(7, -68), s(10, -38), s(12, -64), s(8, -62), s(5, -70), s(19, -29),
        s(-4, -56), s(11, -95), s(9, -76), s(4, -80), s(-7, -38), s(1, -87), s(21, -74), s(16, -102),
    ],
    // king
    [
        s(-65, -160), s(-5, 4), s(11, -13), s(70, -34), s(82, -22), s(41, 0), s(33, -12), s(-69, -139),
        s(2, -22), s(-83, 42), s(15, 0), s(54, 8), s(34, 3), s(30, 10), s(-46, 20), s(-17, -50),
        s(39, 9), s(-57, 33), s(-91, 42), s(45, 25), s(-46, 37), s(59, 30), s(61, 16), s(-56, 24),
        s(-18, 6), s(57, 9), s(4, 35), s(-39, 34), s(4, 29), s(-17, 40), s(50, 14), s(5, 15),
        s(-48, 3), s(22, 14), s(-50, 25), s(-51, 22), s(-36, 23), s(-19, 21), s(10, 15), s(-52, 6),
        s(-6, -1), s(12, 5), s(-14, 4), s(6, 2), s(-16, 6), s(-18, 10), s(-12, 7), s(-45, 18),
        s(23, -20), s(4, -4), s(25, -7), s(-1, 2), s(-3, 1), s(14, -1), s(22, -2), s(11, -7),
        s(-32, 7), s(39, -22), s(37, -27), s(-6, -25), s(21, -31), s(5, -17), s(44, -23), s(28, -37),
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
