//! Move ordering: what to try first, and what the search learns about quiet moves.
//!
//! Order at a node: the hash move; captures that do not lose material (by SEE, ranked by
//! MVV-LVA) and queen promotions; the two killers of the ply; the counter-move to the
//! opponent's last move; other quiet moves by history; losing captures last. Every node
//! gets its moves from [`super::picker`], which generates each group only when it is
//! reached; quiescence and the root order whole lists by [`list_score`].

use super::params::HISTORY_MAX;
use crate::mv::Move;
use crate::piece::{Kind, Piece};
use crate::position::Position;
use crate::see::see_ge;
use crate::value::MAX_PLY;
use crate::value::{nominal, nominal_of};

pub const HASH_MOVE: i32 = 1 << 30;
pub const GOOD_CAPTURE: i32 = 1 << 29;
pub const KILLER_1: i32 = 1 << 28;
pub const KILLER_2: i32 = KILLER_1 - 1;
pub const COUNTER: i32 = KILLER_1 - 2;
pub const BAD_CAPTURE: i32 = -(1 << 28);
/// Under-promotions go behind every losing capture.
pub const UNDER_PROMOTION: i32 = -10_000;

/// Tables the search learns from (kept across searches, cleared by `ucinewgame`).
pub struct OrderTables {
    /// Butterfly history: [side][from64][to64]. Entries stay within +-HISTORY_MAX, so they
    /// are kept as `i16`: half the memory, and the continuation table then fits the cache
    /// far better (its reads were the picker's costliest line).
    history: Box<[[[i16; 64]; 64]; 2]>,
    pub killers: [[Move; 2]; MAX_PLY + 2],
    /// Reply that refuted the opponent's move: [moved piece][to64].
    counter: Box<[[Move; 64]; 12]>,
    /// Continuation history: how a quiet move (piece, to) fared after the move (piece, to)
    /// one or two plies earlier, flattened [earlier piece][earlier to][piece][to].
    continuation: Vec<i16>,
}

// The largest history bonus is kept within HISTORY_MAX by its range (`params`' tests).
const _: () = assert!(HISTORY_MAX <= i16::MAX as i32, "history entries are stored as i16");

/// Where a move's row of the continuation history starts (see [`OrderTables::continuation_row`]).
pub type ContRow = Option<usize>;

const CONT_ROW: usize = 12 * 64;

/// A move's index among the `CONT_ROW` (piece, destination) pairs, both as the earlier move
/// that picks a row and as the move scored in it.
#[inline(always)]
fn piece_to(piece: Piece, m: Move) -> usize {
    piece.index() * 64 + m.to().index64()
}

impl Default for OrderTables {
    fn default() -> Self {
        OrderTables {
            history: Box::new([[[0; 64]; 64]; 2]),
            killers: [[Move::NONE; 2]; MAX_PLY + 2],
            counter: Box::new([[Move::NONE; 64]; 12]),
            continuation: vec![0; CONT_ROW * CONT_ROW],
        }
    }
}

/// Most valuable victim, least valuable attacker.
#[inline(always)]
pub fn mvv_lva(pos: &Position, m: Move) -> i32 {
    let victim = if m.is_en_passant() { nominal(Kind::Pawn) } else { nominal_of(pos.piece_at(m.to())) };
    let attacker = pos.piece_at(m.from()).kind().index() as i32;
    victim * 8 - attacker + m.promotion_kind().map_or(0, nominal)
}

impl OrderTables {
    pub fn clear(&mut self) {
        *self = OrderTables::default();
    }

    /// Between searches: old history counts half, killers are forgotten.
    pub fn age(&mut self) {
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 2;
                }
            }
        }
        self.killers = [[Move::NONE; 2]; MAX_PLY + 2];
    }

    #[inline(always)]
    pub fn history(&self, side: usize, m: Move) -> i32 {
        self.history[side][m.from().index64()][m.to().index64()] as i32
    }

    /// The row of the continuation history that follows `m` played by `piece` (none after a
    /// null move).
    #[inline(always)]
    pub fn continuation_row(piece: Piece, m: Move) -> ContRow {
        (!m.is_none() && piece.is_some()).then(|| piece_to(piece, m) * CONT_ROW)
    }

    /// A quiet move's score: its history, and how it fared after each of the two moves
    /// before it.
    #[inline(always)]
    pub fn quiet_score(&self, side: usize, piece: Piece, m: Move, rows: &[ContRow; 2]) -> i32 {
        let col = piece_to(piece, m);
        let mut score = self.history(side, m);
        for row in rows.iter().flatten() {
            score += self.continuation[row + col] as i32;
        }
        score
    }

    #[inline(always)]
    pub fn counter(&self, (prev_piece, prev): (Piece, Move)) -> Move {
        if prev.is_none() || prev_piece.is_none() {
            Move::NONE
        } else {
            self.counter[prev_piece.index()][prev.to().index64()]
        }
    }

    /// "Gravity" update: the entry moves towards +-HISTORY_MAX by `bonus`, more slowly the
    /// closer it is, so old knowledge fades instead of saturating.
    #[inline(always)]
    fn nudge(entry: &mut i16, bonus: i32) {
        let e = *entry as i32;
        // |bonus| <= HISTORY_MAX keeps the result within +-HISTORY_MAX, so it fits again.
        *entry = (e + bonus - e * bonus.abs() / HISTORY_MAX) as i16;
    }

    /// Moves a quiet move's history and its continuation entries by `bonus`.
    #[inline(always)]
    fn nudge_quiet(&mut self, pos: &Position, side: usize, m: Move, rows: &[ContRow; 2], bonus: i32) {
        Self::nudge(&mut self.history[side][m.from().index64()][m.to().index64()], bonus);
        let col = piece_to(pos.piece_at(m.from()), m);
        for row in rows.iter().flatten() {
            Self::nudge(&mut self.continuation[row + col], bonus);
        }
    }

    /// A quiet move caused a beta cut-off: reward it, penalise the quiets tried before it.
    /// `prev` is the opponent's last move and the piece it moved (for the counter-move);
    /// `rows` are the continuation rows of the two moves before this node's; `bonus` is
    /// the history bonus of the node's depth.
    #[allow(clippy::too_many_arguments)]
    pub fn reward_quiet(
        &mut self,
        pos: &Position,
        ply: usize,
        bonus: i32,
        best: Move,
        tried: &[Move],
        (prev_piece, prev): (Piece, Move),
        rows: &[ContRow; 2],
    ) {
        let side = pos.side_to_move().index();
        self.nudge_quiet(pos, side, best, rows, bonus);
        for &m in tried {
            if m != best {
                self.nudge_quiet(pos, side, m, rows, -bonus);
            }
        }
        if self.killers[ply][0] != best {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = best;
        }
        if !prev.is_none() && prev_piece.is_some() {
            self.counter[prev_piece.index()][prev.to().index64()] = best;
        }
    }
}

/// The band of a capture or promotion: above the killers when it does not lose material
/// (queen promotions included), below every quiet move when it does, under-promotions last;
/// MVV-LVA within the band.
#[inline]
pub fn tactical_score(pos: &Position, m: Move) -> i32 {
    let mvv = mvv_lva(pos, m);
    if m.promotion_kind().is_some_and(|k| k != Kind::Queen) {
        BAD_CAPTURE + mvv + UNDER_PROMOTION
    } else if capture_is_good(pos, m) {
        GOOD_CAPTURE + mvv
    } else {
        BAD_CAPTURE + mvv
    }
}

/// A capture that does not lose material by SEE (a victim worth at least the attacker
/// settles it before any exchange is played out).
#[inline(always)]
pub fn capture_is_good(pos: &Position, m: Move) -> bool {
    see_ge(pos, m, 0)
}

/// The score of a move in a list ordered at once (quiescence, the root's first order): the
/// hash move, then captures and promotions by MVV-LVA, then quiet moves by `quiet`.
#[inline(always)]
pub fn list_score(pos: &Position, m: Move, hash_move: Move, quiet: impl Fn(Move) -> i32) -> i32 {
    if m == hash_move {
        HASH_MOVE
    } else if m.is_tactical() {
        GOOD_CAPTURE + mvv_lva(pos, m)
    } else {
        quiet(m)
    }
}
