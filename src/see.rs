//! Static exchange evaluation on the attack tables.
//!
//! The exchange on a square is played out with the least valuable attacker first. Attackers
//! are found the way `is_attacked` finds them: for each piece in a colour's list one look at
//! `ATTACK[from - to]` says whether its kind could reach the square; sliders then walk the
//! `STEP` towards it, where squares of pieces already used in the exchange count as empty —
//! which is how x-ray attackers behind them join in. Pins are ignored (as usual for SEE).

use crate::attacks::pawn_origins;
use crate::mv::Move;
use crate::piece::{flag, Color, Kind, Piece};
use crate::position::Position;
use crate::square::Square;
use crate::tables::{delta_index, ATTACK, STEP};
use crate::value::{nominal, nominal_of};

/// Squares (0x88 bits) already taken off the board during the exchange.
type Removed = u128;

/// Is the line from `a` to `b` clear, counting `removed` squares as empty?
#[inline(always)]
fn clear_with(pos: &Position, a: Square, b: Square, removed: Removed) -> bool {
    let step = STEP[delta_index(a, b)] as u8;
    let mut sq = a.raw().wrapping_add(step);
    while sq != b.raw() {
        if pos.piece_at(Square::from_index_unchecked(sq & 0x77)).is_some() && removed >> sq & 1 == 0 {
            return false;
        }
        sq = sq.wrapping_add(step);
    }
    true
}

/// The least valuable piece of `by` attacking `to`, skipping `removed` pieces.
#[inline]
fn least_attacker(pos: &Position, to: Square, by: Color, removed: Removed) -> Option<(Square, Piece)> {
    // Pawns are the cheapest attackers, so one found settles it. They attack from the two
    // squares diagonally behind `to`: looking there spares visiting every pawn. Of two, the
    // one earlier in the piece list is taken, as the list walk below would take it (which
    // pawn goes decides which x-rays open).
    let pawn = Piece::new(by, Kind::Pawn);
    let mut best_pawn: Option<Square> = None;
    for raw in pawn_origins(to, by) {
        if raw & 0x88 == 0 && pos.board[raw as usize] == pawn && removed >> raw & 1 == 0 {
            let sq = Square::from_index_unchecked(raw);
            let earlier = match best_pawn {
                Some(b) => pos.list_index[raw as usize] < pos.list_index[b.index()],
                None => true,
            };
            if earlier {
                best_pawn = Some(sq);
            }
        }
    }
    if let Some(sq) = best_pawn {
        return Some((sq, pawn));
    }
    let mut best: Option<(Square, Piece)> = None;
    let mut best_value = i32::MAX;
    for &from in pos.officers(by) {
        if removed >> from.raw() & 1 != 0 {
            continue;
        }
        let p = pos.piece_at(from);
        let hit = ATTACK[delta_index(from, to)] & p.flags();
        if hit == 0 {
            continue;
        }
        let v = nominal_of(p);
        if v >= best_value {
            continue;
        }
        if hit & (flag::PAWN | flag::KNIGHT | flag::KING) != 0 || clear_with(pos, from, to, removed) {
            best = Some((from, p));
            best_value = v;
        }
    }
    best
}

/// The material balance of playing `m` and the best sequence of recaptures on its square,
/// from the mover's point of view.
pub fn see(pos: &Position, m: Move) -> i32 {
    if m.is_castle() {
        return 0;
    }
    let from = m.from();
    let to = m.to();
    let us = pos.side_to_move();
    let mover = pos.piece_at(from);
    let mut gain = [0i32; 40];
    let mut removed: Removed = 1 << from.raw();
    gain[0] = if m.is_en_passant() {
        let captured = m.captured_square(us);
        removed |= 1 << captured.raw();
        nominal(Kind::Pawn)
    } else {
        nominal_of(pos.piece_at(to))
    };
    // The value now standing on `to`, which the next capture wins.
    let mut on_square = match m.promotion_kind() {
        Some(k) => {
            gain[0] += nominal(k) - nominal(Kind::Pawn);
            nominal(k)
        }
        None => nominal_of(mover),
    };
    let mut side = us.flip();
    let mut d = 0;
    while d + 1 < gain.len() {
        let Some((sq, p)) = least_attacker(pos, to, side, removed) else {
            break;
        };
        // A king may only capture when nothing can take it back.
        if p.kind() == Kind::King && least_attacker(pos, to, side.flip(), removed | 1 << sq.raw()).is_some() {
            break;
        }
        d += 1;
        gain[d] = on_square - gain[d - 1];
        if (-gain[d - 1]).max(gain[d]) < 0 {
            break; // neither side gains by going on
        }
        on_square = nominal_of(p);
        removed |= 1 << sq.raw();
        side = side.flip();
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Does `m` win at least `threshold` by static exchange?
#[inline]
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    see(pos, m) >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        see(&pos, m)
    }

    #[test]
    fn simple_exchanges() {
        // Pawn takes an undefended knight.
        assert_eq!(see_of("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5"), 320);
        // Queen takes a pawn defended by a pawn: loses the queen for a pawn.
        assert_eq!(see_of("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5"), 100 - 950);
        // Rook takes a pawn defended by a rook, backed by a second rook behind (x-ray).
        assert_eq!(see_of("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5"), 100);
        // Without the back rook the exchange loses the rook.
        assert_eq!(see_of("3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5"), 100 - 500);
        // A king cannot recapture a defended piece.
        assert_eq!(see_of("8/8/8/4k3/3p4/8/3RN3/4K3 w - - 0 1", "d2d4"), 100);
    }
}
