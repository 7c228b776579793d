//! Static evaluation, from the side to move's point of view.
//!
//! Every term is a middle-game / end-game pair ([`Tapered`](crate::psqt::Tapered)) added for
//! White and subtracted for Black; the sum is blended by the game phase (24 with all pieces
//! on, 0 with none):
//!
//! - material and piece-square values: `pos.psq()`, kept incrementally by make/unmake;
//! - pawn structure (passed, isolated, doubled, backward, connected): depends on pawns only,
//!   so it is cached in a small pawn hash keyed by `pos.pawn_key()`;
//! - passed pawns again with the kings (king proximity matters only in the end game);
//! - mobility: squares each piece reaches along the move-generation steps, not counting
//!   squares held by own pieces or attacked by enemy pawns;
//! - king safety: attack units on the squares around the king, and the pawn shield;
//! - threats: pieces attacked by pawns, by minor pieces, a queen by a rook, pieces attacked
//!   and not defended, and pawn pushes to safe squares that would attack a piece;
//! - bishop pair, rooks on open and semi-open files;
//! - end-game knowledge: insufficient material, drawish material without pawns, opposite
//!   bishops, and "mop-up" (drive the bare king to the edge) for KRK/KQK-like endings.
//!
//! Each group of terms has its own module (`pawns`, `pieces`, `king`, `threats`, `endgame`,
//! with the square sets they share in `sets`); the weights are in `weights` and what a tuner
//! sees in `trace`. `network` adds the network's correction and `cache` remembers the result.

mod cache;
mod endgame;
mod king;
mod network;
mod pawns;
mod pieces;
mod sets;
#[cfg(test)]
mod tests;
mod threats;
mod trace;
mod weights;

pub use cache::EvalCache;
pub use king::KING_DANGER_CAP;
pub use network::{evaluate, evaluate_by, evaluate_with_network};
pub use pawns::{PawnEntry, PawnTable};
pub use trace::{NoTrace, Term, Trace};
pub use weights::{Weights, MOBILITY_BASE, TEMPO, WEIGHTS};

use crate::nnue::Base;
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::psqt::PHASE;
use crate::square::Square;
use endgame::{dead_draw, Material};
use king::king_shield;
use pawns::{passers_with_kings, pawn_structure};
use pieces::piece_terms;
use sets::Side;
use threats::threats;

/// The hand-written terms alone, for the side to move, without a pawn cache.
pub fn evaluate_hand(pos: &Position) -> i32 {
    evaluate_with::<_, true>(pos, None, &WEIGHTS, &mut NoTrace)
}

/// What a network trained on `base` is added to, for the side to move (no pawn cache): the
/// trainer's residual target. 0 for [`Base::None`].
pub fn evaluate_base(pos: &Position, base: Base) -> i32 {
    base_terms(pos, base, None, &mut NoTrace)
}

/// The hand-written terms of `base`: the one place that maps a base to its terms, for the
/// trainer and the engine alike (the engine passes a constant base, so one arm is compiled).
#[inline(always)]
fn base_terms<T: Trace>(pos: &Position, base: Base, pawns: Option<&mut PawnTable>, t: &mut T) -> i32 {
    match base {
        Base::Full => evaluate_with::<_, true>(pos, pawns, &WEIGHTS, t),
        Base::Light => evaluate_with::<_, false>(pos, pawns, &WEIGHTS, t),
        Base::None => 0,
    }
}

/// Evaluates with the engine's weights and no pawn cache, showing every term to `trace`
/// (for the tuner). `None` when the position is a dead draw by material and has no terms.
pub fn evaluate_traced<T: Trace>(pos: &Position, trace: &mut T) -> Option<i32> {
    if dead_draw(pos) {
        return None;
    }
    Some(evaluate_with::<_, true>(pos, None, &WEIGHTS, trace))
}

/// Evaluates `pos` for the side to move, using (and filling) a pawn hash.
pub fn evaluate_cached(pos: &Position, pawns: &mut PawnTable) -> i32 {
    evaluate_with::<_, true>(pos, Some(pawns), &WEIGHTS, &mut NoTrace)
}

/// The hand-written evaluation; without `REACH`, only the terms of [`Base::Light`]: no
/// piece's reach is walked (mobility, king attack, threats, rooks on open files).
#[inline(always)]
fn evaluate_with<T: Trace, const REACH: bool>(
    pos: &Position,
    pawns: Option<&mut PawnTable>,
    w: &Weights,
    t: &mut T,
) -> i32 {
    // Insufficient material first: no search needed to know KNK, KBK, KK are dead.
    let material = Material::of(pos);
    if material.dead_draw() {
        return 0;
    }

    let pawn_entry = match pawns {
        Some(table) => table.get(pos),
        None => pawn_structure(pos, w, t),
    };
    let mut total = pos.psq() + pawn_entry.score;
    if T::ON {
        // The incremental material and piece-square sum, term by term.
        for c in [Color::White, Color::Black] {
            for &sq in pos.pieces(c) {
                let kind = pos.piece_at(sq).kind();
                let white_sq = if c == Color::White { sq } else { sq.flip() };
                t.term(Term::Material(kind), c, 1);
                t.term(Term::Psq(kind, white_sq.index64()), c, 1);
            }
        }
    }

    if REACH {
        let mut sides = [Color::White, Color::Black].map(|c| Side::new(pos, c, pawn_entry.pawn_attacks[c.index()]));
        for c in [Color::White, Color::Black] {
            total += piece_terms(pos, c, &mut sides, &pawn_entry, w, t) * sign(c);
        }
        // Threats, now that both colours' attacks are known.
        for c in [Color::White, Color::Black] {
            total += threats(pos, c, &sides[c.index()], &sides[c.flip().index()], w, t) * sign(c);
        }
    } else {
        // The light base keeps, of the pieces pass, only what needs no piece's reach.
        for c in [Color::White, Color::Black] {
            if pos.count_of(Piece::new(c, Kind::Bishop)) >= 2 {
                total += w.bishop_pair * sign(c);
                t.term(Term::BishopPair, c, 1);
            }
        }
    }
    for c in [Color::White, Color::Black] {
        // Own king's pawn shield (middle game only).
        let score =
            king_shield(pos, c, &pawn_entry, w, t) + passers_with_kings(pos, c, pawn_entry.passed[c.index()], w, t);
        total += score * sign(c);
    }

    let (scale, mop_up) = endgame::knowledge(pos, &material, total.eg);
    let mg = total.mg * scale / 16;
    let eg = total.eg * scale / 16 + mop_up;
    let phase = phase(pos);
    t.finish(phase, scale, mop_up, pos.side_to_move());

    // Blend by phase.
    let blended = (mg * phase + eg * (24 - phase)) / 24;
    let v = match pos.side_to_move() {
        Color::White => blended,
        Color::Black => -blended,
    };
    v + w.tempo
}

/// The game phase: 24 with all pieces on, 0 with none.
#[inline(always)]
fn phase(pos: &Position) -> i32 {
    let mut phase = 0;
    for kind in [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen] {
        let n = pos.count_of(Piece::new(Color::White, kind)) + pos.count_of(Piece::new(Color::Black, kind));
        phase += n as i32 * PHASE[kind.index()];
    }
    phase.min(24)
}

#[inline(always)]
fn rel_rank(sq: Square, c: Color) -> i32 {
    match c {
        Color::White => sq.rank() as i32,
        Color::Black => 7 - sq.rank() as i32,
    }
}

#[inline(always)]
fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs().max((a.rank() as i32 - b.rank() as i32).abs())
}

fn sign(c: Color) -> i32 {
    match c {
        Color::White => 1,
        Color::Black => -1,
    }
}
