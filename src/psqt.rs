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
pub const PST: [[Tapered; 64]; 6] = {
    const Z: Tapered = s(0, 0);
    let mut t = [[Z; 64]; 6];
    // Pawns: advance and hold the centre; the end game rewards advancing more.
    let pawn_mg: [i32; 8] = [0, 60, 25, 8, 3, 0, -2, 0];   // by row from rank 8
    let pawn_eg: [i32; 8] = [0, 90, 55, 25, 10, 3, 0, 0];
    let center_file: [i32; 8] = [-4, -2, 3, 8, 8, 3, -2, -4];
    let center: [i32; 8] = [-20, -10, 0, 5, 5, 0, -10, -20];
    let mut i = 0;
    while i < 64 {
        let row = i / 8;
        let file = i % 8;
        t[0][i] = s(pawn_mg[row] + if row >= 2 && row <= 5 { center_file[file] } else { 0 }, pawn_eg[row]);
        let c = center[row] + center[file];
        t[1][i] = s(c, c);                     // knight: centralise
        t[2][i] = s(c / 2, c / 2);             // bishop
        t[3][i] = s(if row == 1 { 12 } else { 0 } + center_file[file] / 2, 0); // rook: seventh rank
        t[4][i] = s(c / 4, c / 2);             // queen
        let king_mg = if row == 7 { [20, 30, 10, 0, 0, 10, 30, 20][file] } else if row == 6 { 5 } else { -30 + 5 * row as i32 };
        t[5][i] = s(king_mg, c);               // king: shelter early, centre late
        i += 1;
    }
    t
};

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
