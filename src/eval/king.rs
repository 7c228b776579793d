//! King safety: the danger of an attack on the king's zone, and the pawn shield.

use super::pawns::PawnEntry;
use super::{rel_rank, Term, Trace, Weights};
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::psqt::{s, Tapered};
use crate::square::Square;

/// The most a king attack can be worth in the middle game (centipawns).
pub const KING_DANGER_CAP: i32 = 600;

/// A king attack of `units` attack units: quadratic, capped, an eighth of it in the end game.
#[inline(always)]
pub(super) fn king_danger(units: i32) -> Tapered {
    let danger = (units * units / 4).min(KING_DANGER_CAP);
    s(danger, danger / 8)
}

/// Pawn shield in front of `c`'s king: files around the king should keep a pawn on the
/// second or third rank (relative).
pub(super) fn king_shield<T: Trace>(pos: &Position, c: Color, pawns: &PawnEntry, w: &Weights, t: &mut T) -> Tapered {
    let k = pos.king(c);
    if rel_rank(k, c) > 2 {
        t.term(Term::ShieldMissing, c, 2);
        return w.shield_missing * 2; // a king in the open
    }
    let pawn = Piece::new(c, Kind::Pawn);
    let kf = k.file() as i32;
    let mut v = Tapered::default();
    for f in (kf - 1).max(0)..=(kf + 1).min(7) {
        let near = Square::from_coords(f as u8, if c == Color::White { 1 } else { 6 });
        let next = Square::from_coords(f as u8, if c == Color::White { 2 } else { 5 });
        if pos.piece_at(near) == pawn {
            // fine
        } else if pos.piece_at(next) == pawn {
            v += w.shield_advanced;
            t.term(Term::ShieldAdvanced, c, 1);
        } else {
            v += w.shield_missing;
            t.term(Term::ShieldMissing, c, 1);
        }
        if (pawns.files[0] | pawns.files[1]) >> f & 1 == 0 {
            v += w.king_open_file;
            t.term(Term::KingOpenFile, c, 1);
        }
    }
    v
}
