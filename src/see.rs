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

/// Squares already taken off the board during the exchange, a bit per square by
/// [`Square::index64`] (a `u64` shifts in one instruction; a `u128` by a variable amount
/// took a tenth of SEE's time).
type Removed = u64;

/// The bit of the on-board square `raw` (0x88 numbering) in a [`Removed`] set.
#[inline(always)]
fn bit(raw: u8) -> Removed {
    1 << ((raw >> 4) * 8 + (raw & 7))
}

/// Is the line from `a` to `b` clear, counting `removed` squares as empty?
#[inline(always)]
fn clear_with(pos: &Position, a: Square, b: Square, removed: Removed) -> bool {
    let step = STEP[delta_index(a, b)] as u8;
    let mut sq = a.raw().wrapping_add(step);
    while sq != b.raw() {
        if pos.piece_at(Square::from_index_unchecked(sq & 0x77)).is_some() && removed & bit(sq & 0x77) == 0 {
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
        if raw & 0x88 == 0 && pos.board[raw as usize] == pawn && removed & bit(raw) == 0 {
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
        // Most pieces cannot reach `to` at all: the table says so before the removed set is
        // looked at (a piece on `to` itself, the one taken first, has no entry there).
        let p = pos.piece_at(from);
        let hit = ATTACK[delta_index(from, to)] & p.flags();
        if hit == 0 || removed & bit(from.raw()) != 0 {
            continue;
        }
        let v = nominal_of(p);
        if v >= best_value {
            continue;
        }
        if hit & (flag::PAWN | flag::KNIGHT | flag::KING) != 0 || clear_with(pos, from, to, removed) {
            best = Some((from, p));
            best_value = v;
            // No officer is cheaper than a knight, and of two the first in the list goes.
            if v <= nominal(Kind::Knight) {
                break;
            }
        }
    }
    best
}

/// What `m` wins at once (the victim, plus the promotion's gain) and the value then standing
/// on its square, which the first recapture wins back. Also the squares it empties.
#[inline(always)]
fn first_gain(pos: &Position, m: Move) -> (i32, i32, Removed) {
    let from = m.from();
    let mut removed: Removed = bit(from.raw());
    let mut gain = if m.is_en_passant() {
        removed |= bit(m.captured_square(pos.side_to_move()).raw());
        nominal(Kind::Pawn)
    } else {
        nominal_of(pos.piece_at(m.to()))
    };
    let on_square = match m.promotion_kind() {
        Some(k) => {
            gain += nominal(k) - nominal(Kind::Pawn);
            nominal(k)
        }
        None => nominal_of(pos.piece_at(from)),
    };
    (gain, on_square, removed)
}

/// The material balance of playing `m` and the best sequence of recaptures on its square,
/// from the mover's point of view.
pub fn see(pos: &Position, m: Move) -> i32 {
    if m.is_castle() {
        return 0;
    }
    let to = m.to();
    let (first, mut on_square, mut removed) = first_gain(pos, m);
    let mut gain = [0i32; 40];
    gain[0] = first;
    let mut side = pos.side_to_move().flip();
    let mut d = 0;
    while d + 1 < gain.len() {
        let Some((sq, p)) = least_attacker(pos, to, side, removed) else {
            break;
        };
        // A king may only capture when nothing can take it back.
        if p.kind() == Kind::King && least_attacker(pos, to, side.flip(), removed | bit(sq.raw())).is_some() {
            break;
        }
        d += 1;
        gain[d] = on_square - gain[d - 1];
        if (-gain[d - 1]).max(gain[d]) < 0 {
            break; // behind either way: the capture counts as standing, no reply is looked for
        }
        on_square = nominal_of(p);
        removed |= bit(sq.raw());
        side = side.flip();
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Does `m` win at least `threshold` by static exchange? The same answer as
/// `see(pos, m) >= threshold`, found by playing the exchange only as far as the answer is in
/// doubt: the side about to recapture may always stop, so before each recapture the balance
/// so far bounds the result from one side, and the balance after it, if the recapturer's
/// piece is then lost for nothing, from the other. Most exchanges are settled by the first
/// capture alone, or after one recapture, before any attacker is looked for.
#[inline]
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    if m.is_castle() {
        return 0 >= threshold;
    }
    let to = m.to();
    let (mut balance, mut on_square, mut removed) = first_gain(pos, m);
    let mover = pos.side_to_move();
    let mut side = mover.flip();
    loop {
        if side == mover {
            // We may stop here, or take and perhaps be taken back.
            if balance >= threshold {
                return true;
            }
            if balance + on_square < threshold {
                return false;
            }
        } else {
            // They may stop here, or take and perhaps be taken back.
            if balance < threshold {
                return false;
            }
            if balance - on_square >= threshold {
                return true;
            }
        }
        let Some((sq, p)) = least_attacker(pos, to, side, removed) else {
            return balance >= threshold;
        };
        // A king may only capture when nothing can take it back.
        if p.kind() == Kind::King && least_attacker(pos, to, side.flip(), removed | bit(sq.raw())).is_some() {
            return balance >= threshold;
        }
        // Where the side to take is behind whether it stops or takes (its capture counted as
        // standing), `see` ends the exchange with the better of the two for that side,
        // without looking for a reply to the capture: so does this, to give its answer.
        let (stop, take) = if side == mover { (balance, balance + on_square) } else { (-balance, on_square - balance) };
        if stop < 0 && take < 0 {
            let standing =
                if side == mover { balance.max(balance + on_square) } else { balance.min(balance - on_square) };
            return standing >= threshold;
        }
        balance += if side == mover { on_square } else { -on_square };
        on_square = nominal_of(p);
        removed |= bit(sq.raw());
        side = side.flip();
    }
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

    /// Every position with a legal move of 60 seeded random games from the start, 10 to 89
    /// plies each.
    fn positions_of_random_games(seed: u64) -> Vec<Position> {
        use rand::rngs::StdRng;
        use rand::{Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::new();
        for _ in 0..60 {
            let mut pos = Position::startpos();
            for _ in 0..rng.gen_range(10..90) {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                out.push(pos.clone());
                pos.make(legal[rng.gen_range(0..legal.len())]);
            }
        }
        out
    }

    /// The attacker `least_attacker` picks is the cheapest that reaches the square, the first
    /// in the piece list among equals, as a scan of every piece finds it (on every capture
    /// square of seeded random games, with and without the mover lifted).
    #[test]
    fn least_attacker_is_the_cheapest_first_in_the_list() {
        let scan = |pos: &Position, to: Square, by: Color, removed: Removed| {
            let pawn = Piece::new(by, Kind::Pawn);
            let pawns = pos.pawns(by).iter().filter(|&&sq| {
                removed & bit(sq.raw()) == 0 && pawn_origins(to, by).contains(&sq.raw()) && pos.piece_at(sq) == pawn
            });
            let officers = pos.officers(by).iter().filter(|&&sq| {
                let p = pos.piece_at(sq);
                let hit = ATTACK[delta_index(sq, to)] & p.flags();
                removed & bit(sq.raw()) == 0
                    && hit != 0
                    && (hit & (flag::PAWN | flag::KNIGHT | flag::KING) != 0 || clear_with(pos, sq, to, removed))
            });
            let first_pawn = pawns.min_by_key(|sq| pos.list_index[sq.index()]).copied();
            // `min_by_key` keeps the first of equal keys, as the list order wants.
            first_pawn.or_else(|| officers.min_by_key(|&&sq| nominal_of(pos.piece_at(sq))).copied())
        };
        let mut checked = 0;
        for pos in positions_of_random_games(0x1EA5_7088) {
            for &m in pos.legal_moves().iter().filter(|m| m.is_capture()) {
                for by in [Color::White, Color::Black] {
                    for removed in [0, bit(m.from().raw())] {
                        let found = least_attacker(&pos, m.to(), by, removed).map(|(sq, _)| sq);
                        assert_eq!(found, scan(&pos, m.to(), by, removed), "{} {m:?} by {by:?}", pos.to_fen());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 2_000, "only {checked} checks");
    }

    /// `see_ge` answers from bounds where it can; on every move of seeded random games it must
    /// agree with the full exchange at thresholds around each move's value.
    #[test]
    fn see_ge_agrees_with_see() {
        let mut checked = 0;
        for pos in positions_of_random_games(0x5EE_0088) {
            for &m in pos.legal_moves().iter() {
                let exact = see(&pos, m);
                for t in [exact - 1, exact, exact + 1, 0, -100, 100, -320, -500, 320, -1280] {
                    assert_eq!(see_ge(&pos, m, t), exact >= t, "{} {m:?} threshold {t}", pos.to_fen());
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "only {checked} checks");
    }
}
