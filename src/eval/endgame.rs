//! End-game knowledge: insufficient material, drawish material without pawns, opposite
//! bishops, and "mop-up" (drive the bare king to the edge) for KRK/KQK-like endings.

use super::{distance, sign};
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::square::Square;
use crate::value::nominal;

/// Each colour's pawn count and non-pawn material (nominal values), by [`Color::index`].
pub(super) struct Material {
    pub(super) pawns: [u32; 2],
    pub(super) non_pawn: [i32; 2],
}

impl Material {
    #[inline(always)]
    pub(super) fn of(pos: &Position) -> Material {
        Material {
            pawns: [Color::White, Color::Black].map(|c| pos.count_of(Piece::new(c, Kind::Pawn))),
            non_pawn: [non_pawn(pos, Color::White), non_pawn(pos, Color::Black)],
        }
    }

    /// KK, KNK, KBK, KNKB and the like: no pawns and at most a minor piece each.
    #[inline(always)]
    pub(super) fn dead_draw(&self) -> bool {
        self.pawns[0] + self.pawns[1] == 0
            && self.non_pawn[0] <= nominal(Kind::Bishop)
            && self.non_pawn[1] <= nominal(Kind::Bishop)
    }
}

#[inline(always)]
fn non_pawn(pos: &Position, c: Color) -> i32 {
    pos.count_of(Piece::new(c, Kind::Knight)) as i32 * nominal(Kind::Knight)
        + pos.count_of(Piece::new(c, Kind::Bishop)) as i32 * nominal(Kind::Bishop)
        + pos.count_of(Piece::new(c, Kind::Rook)) as i32 * nominal(Kind::Rook)
        + pos.count_of(Piece::new(c, Kind::Queen)) as i32 * nominal(Kind::Queen)
}

/// Whether `pos` is a dead draw by material ([`Material::dead_draw`]).
#[inline(always)]
pub(super) fn dead_draw(pos: &Position) -> bool {
    Material::of(pos).dead_draw()
}

/// The end-game scale (out of 16) for an evaluation whose end-game part is `eg` (White's
/// view), and the mop-up bonus (White's view) to add to the end game after scaling. Judged
/// from the stronger side's view.
#[inline(always)]
pub(super) fn knowledge(pos: &Position, m: &Material, eg: i32) -> (i32, i32) {
    let strong = if eg >= 0 { Color::White } else { Color::Black };
    let (s, w) = (strong.index(), strong.flip().index());
    let (sp, snp, wnp_weak, wp_weak) = (m.pawns[s], m.non_pawn[s], m.non_pawn[w], m.pawns[w]);
    let strong_can_mate = {
        let n = |k: Kind| pos.count_of(Piece::new(strong, k));
        n(Kind::Queen) + n(Kind::Rook) > 0 || n(Kind::Bishop) >= 2 || (n(Kind::Bishop) >= 1 && n(Kind::Knight) >= 1)
    };
    let mut scale = 16; // out of 16
    if sp == 0 && !strong_can_mate && wnp_weak == 0 && wp_weak == 0 {
        scale = 0; // KNNK and the like: no forced mate
    } else if sp == 0 && snp - wnp_weak <= 350 {
        // Without pawns a minor piece or less of advantage rarely wins (KNNK, KRKB, ...).
        scale = if snp <= 660 && wnp_weak == 0 && wp_weak == 0 { 0 } else { 3 };
    }
    if scale == 16 && m.non_pawn[0] == nominal(Kind::Bishop) && m.non_pawn[1] == nominal(Kind::Bishop) {
        let wb = pos.count_of(Piece::new(Color::White, Kind::Bishop));
        let bb = pos.count_of(Piece::new(Color::Black, Kind::Bishop));
        if wb == 1 && bb == 1 && opposite_bishops(pos) {
            scale = 8;
        }
    }
    let mut mop_up = 0;
    // Mop-up: a bare king against enough material is driven to the edge, and the winning
    // king comes close, so that KRK and KQK are won without tablebases.
    if wnp_weak == 0 && wp_weak == 0 && strong_can_mate {
        let weak_king = pos.king(strong.flip());
        let strong_king = pos.king(strong);
        let bonus = 20 * center_distance(weak_king) + 6 * (7 - distance(weak_king, strong_king)) + 200;
        mop_up = bonus * sign(strong);
    }
    (scale, mop_up)
}

fn opposite_bishops(pos: &Position) -> bool {
    let mut colors = [0u8; 2];
    for c in [Color::White, Color::Black] {
        for &sq in pos.pieces(c) {
            if pos.piece_at(sq).kind() == Kind::Bishop {
                colors[c.index()] = (sq.file() + sq.rank()) & 1;
            }
        }
    }
    colors[0] != colors[1]
}

/// Chebyshev distance to the nearest of the four centre squares (0..3).
#[inline(always)]
fn center_distance(sq: Square) -> i32 {
    let f = sq.file() as i32;
    let r = sq.rank() as i32;
    (3 - f).max(f - 4).max((3 - r).max(r - 4))
}
