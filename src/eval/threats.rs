//! Threats: enemy pieces attacked by pawns, by minor pieces, the queen by a rook, pieces
//! attacked and not defended, and pawn pushes that would attack a piece.

use super::sets::{pawn_attacks_of, Side};
use super::{Term, Trace, Weights};
use crate::piece::{Color, Kind};
use crate::position::Position;
use crate::psqt::Tapered;

/// Threats by `c` (`us`) against the other colour (`them`), in `c`'s favour.
#[inline(always)]
pub(super) fn threats<T: Trace>(pos: &Position, c: Color, us: &Side, them: &Side, w: &Weights, t: &mut T) -> Tapered {
    let mut score = Tapered::default();
    let enemy = c.flip();
    // The enemy's pieces other than the king.
    for &sq in &pos.officers(enemy)[1..] {
        let b = 1u64 << sq.index64();
        if us.attacks & b == 0 {
            continue;
        }
        let kind = pos.piece_at(sq).kind();
        if us.pawn_attacks & b != 0 {
            score += w.pawn_threat[kind.index()];
            t.term(Term::PawnThreat(kind), c, 1);
        }
        if us.minor_attacks & b != 0 {
            score += w.minor_threat[kind.index()];
            t.term(Term::MinorThreat(kind), c, 1);
        }
        if kind == Kind::Queen && us.rook_attacks & b != 0 {
            score += w.rook_threat;
            t.term(Term::RookThreat, c, 1);
        }
        if them.attacks & b == 0 {
            score += w.hanging;
            t.term(Term::Hanging, c, 1);
        }
    }
    // Pawn pushes (one step, or two from the start) to squares that enemy pawns do not
    // attack and that are defended or not attacked, then attacking an enemy piece that no
    // pawn of ours attacks yet.
    let empty = !(us.occupied | them.occupied);
    let (push, double_rank) = match c {
        Color::White => ((us.pawns >> 8) & empty, 0xFFu64 << 40),
        Color::Black => ((us.pawns << 8) & empty, 0xFFu64 << 16),
    };
    let double = match c {
        Color::White => ((push & double_rank) >> 8) & empty,
        Color::Black => ((push & double_rank) << 8) & empty,
    };
    let safe = (push | double) & !them.pawn_attacks & (us.attacks | !them.attacks);
    let targets = (them.occupied & !them.pawns & !(1 << pos.king(enemy).index64())) & !us.pawn_attacks;
    let n = (pawn_attacks_of(safe, c) & targets).count_ones() as i32;
    if n > 0 {
        score += w.push_threat * n;
        t.term(Term::PushThreat, c, n);
    }
    score
}
