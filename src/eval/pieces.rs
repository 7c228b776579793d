//! The pieces pass: mobility, rooks on open and semi-open files, the bishop pair and the
//! attack on the enemy king's zone, gathering each piece's reach into the colour's [`Side`].

use super::king::king_danger;
use super::pawns::PawnEntry;
use super::sets::{slider_reach, Side, KNIGHT_REACH};
use super::{Term, Trace, Weights, MOBILITY_BASE};
use crate::piece::{Color, Kind};
use crate::position::Position;
use crate::psqt::Tapered;
use crate::square::{BISHOP_STEPS, ROOK_STEPS};

/// `c`'s pieces other than king and pawns, in `c`'s favour; fills in the attacks of
/// `sides[c]`.
#[inline(always)]
pub(super) fn piece_terms<T: Trace>(
    pos: &Position,
    c: Color,
    sides: &mut [Side; 2],
    pawn_entry: &PawnEntry,
    w: &Weights,
    t: &mut T,
) -> Tapered {
    let us = c.index();
    let them = c.flip().index();
    let mut score = Tapered::default();
    let area = !(sides[us].occupied | sides[them].pawn_attacks);
    let enemy_zone = sides[them].king_zone;
    let mut attack_units = 0;
    let mut attackers = 0;
    let mut bishops = 0;
    let mut hits = [0; 6];
    // Pieces other than king and pawns: the king leads the officers, the pawns follow them.
    let (mut minor_attacks, mut rook_attacks, mut attacks) = (0u64, 0u64, 0u64);
    for &sq in &pos.officers(c)[1..] {
        let p = pos.piece_at(sq);
        let kind = p.kind();
        let reach = match kind {
            Kind::Knight => {
                let reach = KNIGHT_REACH[sq.index64()];
                minor_attacks |= reach;
                reach
            }
            Kind::Bishop => {
                bishops += 1;
                let reach = slider_reach(pos, sq, &BISHOP_STEPS);
                minor_attacks |= reach;
                reach
            }
            Kind::Rook => {
                let file_bit = 1u8 << sq.file();
                if (pawn_entry.files[us] | pawn_entry.files[them]) & file_bit == 0 {
                    score += w.rook_open;
                    t.term(Term::RookOpen, c, 1);
                } else if pawn_entry.files[us] & file_bit == 0 {
                    score += w.rook_semi_open;
                    t.term(Term::RookSemiOpen, c, 1);
                }
                let reach = slider_reach(pos, sq, &ROOK_STEPS);
                rook_attacks |= reach;
                reach
            }
            Kind::Queen => slider_reach(pos, sq, &BISHOP_STEPS) | slider_reach(pos, sq, &ROOK_STEPS),
            _ => continue,
        };
        attacks |= reach;
        let mobility = (reach & area).count_ones() as i32;
        score += w.mobility[kind.index()] * (mobility - MOBILITY_BASE[kind.index()]);
        t.term(Term::Mobility(kind), c, mobility - MOBILITY_BASE[kind.index()]);
        let zone = reach & enemy_zone;
        if zone != 0 {
            let zone_hits = zone.count_ones() as i32;
            attackers += 1;
            attack_units += w.attack_units[kind.index()] * zone_hits;
            if T::ON {
                hits[kind.index()] += zone_hits;
            }
        }
    }
    if bishops >= 2 {
        score += w.bishop_pair;
        t.term(Term::BishopPair, c, 1);
    }
    t.king_attack(c, hits, attackers >= 2);
    // King attack: counts only with two attackers (or a queen among few), grows
    // quadratically, capped.
    if attackers >= 2 {
        score += king_danger(attack_units);
    }
    let side = &mut sides[us];
    side.minor_attacks = minor_attacks;
    side.rook_attacks = rook_attacks;
    side.attacks |= attacks;
    score
}
