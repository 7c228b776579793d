//! Attack detection on the attack and direction tables.
//!
//! For each candidate attacker (from the piece lists) one table lookup says whether its kind
//! can reach the target at all; only sliders then walk the step from the table towards the
//! target to look for obstacles. Checks and pins come from the same two tables.

use crate::mv::Move;
use crate::piece::{flag, Color, Piece};
use crate::position::Position;
use crate::square::{Square, Step, BISHOP_STEPS, KING_STEPS, KNIGHT_STEPS, ROOK_STEPS};
use crate::tables::{delta_index, ATTACK, STEP};

/// Attack flags that need no obstacle walk.
pub(crate) const LEAPERS: u8 = flag::PAWN | flag::KNIGHT | flag::KING;

/// The pieces giving check: at most two, each with the step from the king towards it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Checkers {
    squares: [Option<(Square, Step)>; 2],
    count: u8,
}

impl Checkers {
    #[inline(always)]
    fn push(&mut self, sq: Square, step: Step) {
        if (self.count as usize) < 2 {
            self.squares[self.count as usize] = Some((sq, step));
        }
        self.count = self.count.saturating_add(1);
    }
    /// Number of checkers (three or more only in impossible positions).
    #[inline(always)]
    pub fn count(&self) -> usize {
        self.count as usize
    }
    /// Checker squares with the step from the king towards each.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Step)> + '_ {
        self.squares.iter().flatten().copied()
    }
    #[inline(always)]
    pub fn first(&self) -> Option<(Square, Step)> {
        self.squares[0]
    }
}

/// Checkers of the side to move and its pinned pieces.
#[derive(Clone, Copy, Debug, Default)]
pub struct Threats {
    pub checkers: Checkers,
    /// Pin step (from the king towards the pinner) per list slot of the side to move; 0 = free.
    pub pin_step: [Step; 16],
}

impl Position {
    /// Does the square `target` lie in the reach of any piece of `by`?
    #[inline]
    pub fn is_attacked(&self, target: Square, by: Color) -> bool {
        // The target itself is never inside a walk, so naming it lifts nothing.
        self.is_attacked_through(target, by, target, target)
    }

    /// Does a pawn of `by` attack `target`? Pawns attack from the two squares diagonally
    /// behind the target (as `by` sees it), so look there instead of visiting every pawn.
    #[inline(always)]
    pub fn pawn_attacks(&self, target: Square, by: Color) -> bool {
        let pawn = Piece::new(by, crate::piece::Kind::Pawn);
        pawn_origins(target, by).iter().any(|&raw| raw & 0x88 == 0 && self.board[raw as usize] == pawn)
    }

    /// Like [`Position::is_attacked`], but the squares `a` and `b` count as empty (a king
    /// stepping away from a checking line, castling king and rook lifted).
    #[inline]
    pub fn is_attacked_through(&self, target: Square, by: Color, a: Square, b: Square) -> bool {
        if self.pawn_attacks(target, by) {
            return true;
        }
        for &from in self.officers(by) {
            let flags = self.board[from.index()].flags();
            let hit = ATTACK[delta_index(from, target)] & flags;
            if hit == 0 {
                continue;
            }
            if hit & LEAPERS != 0 || self.line_is_clear_through(from, target, a, b) {
                return true;
            }
        }
        false
    }

    /// `line_is_clear` with the squares `a` and `b` counted as empty.
    #[inline(always)]
    pub fn line_is_clear_through(&self, from: Square, to: Square, a: Square, b: Square) -> bool {
        let step = STEP[delta_index(from, to)] as u8;
        let mut sq = from.raw().wrapping_add(step);
        while sq != to.raw() {
            if self.board[sq as usize].is_some() && sq != a.raw() && sq != b.raw() {
                return false;
            }
            sq = sq.wrapping_add(step);
        }
        true
    }

    /// True when every square strictly between `a` and `b` (which must share a line) is empty.
    #[inline(always)]
    pub fn line_is_clear(&self, a: Square, b: Square) -> bool {
        self.line_is_clear_through(a, b, b, b)
    }

    /// Is the side to move in check?
    #[inline]
    pub fn in_check(&self) -> bool {
        self.is_attacked(self.king(self.side), self.side.flip())
    }

    /// The pieces checking the side to move.
    pub fn checkers(&self) -> Checkers {
        self.threats().checkers
    }

    /// Checkers and pins of the side to move, in one pass over the enemy pieces.
    #[inline]
    pub fn threats(&self) -> Threats {
        self.threats_for(self.side)
    }

    /// [`Position::threats`] of `us`, whether or not it is `us`'s turn (perft finds the
    /// replies' pins once, before the moves they answer).
    #[inline(always)]
    pub(crate) fn threats_for(&self, us: Color) -> Threats {
        let king = self.king(us);
        let mut threats = Threats::default();
        let them = us.flip();
        let enemy_pawn = Piece::new(them, crate::piece::Kind::Pawn);
        for side_step in [-1i8, 1] {
            let from = king.raw().wrapping_add(us.forward().wrapping_add(side_step) as u8);
            if from & 0x88 == 0 && self.board[from as usize] == enemy_pawn {
                threats.checkers.push(Square::from_index_unchecked(from), us.forward() + side_step);
            }
        }
        for &from in &self.officers(them)[1..] {
            let flags = self.board[from.index()].flags();
            let hit = ATTACK[delta_index(from, king)] & flags;
            if hit == 0 {
                continue;
            }
            let step = STEP[delta_index(king, from)];
            if hit & LEAPERS != 0 {
                threats.checkers.push(from, step);
                continue;
            }
            // Walk from the king towards the slider: the first piece met either is the slider
            // (check) or, if ours, may be pinned when the next piece met is the slider.
            let mut sq = king.raw().wrapping_add(step as u8);
            while self.board[sq as usize].is_none() {
                sq = sq.wrapping_add(step as u8);
            }
            if sq == from.raw() {
                threats.checkers.push(from, step);
                continue;
            }
            let blocker = self.board[sq as usize];
            if !blocker.is_color(us) {
                continue;
            }
            let mut beyond = sq.wrapping_add(step as u8);
            while self.board[beyond as usize].is_none() {
                beyond = beyond.wrapping_add(step as u8);
            }
            if beyond == from.raw() {
                threats.pin_step[self.list_index[sq as usize] as usize] = step;
            }
        }
        threats
    }

    /// [`Position::threats`] just after the other side moved one piece from `from` to `to`
    /// (no castling, no en passant), given that before the move the side now to move had
    /// neither checkers nor pinned pieces: only the moved piece, and the lines from the king
    /// through `to` and through `from`, can have changed, so those alone are looked at.
    #[inline(always)]
    pub(crate) fn threats_after_one_move(&self, from: Square, to: Square) -> Threats {
        let king = self.king(self.side);
        let mut threats = Threats::default();
        let hit = ATTACK[delta_index(to, king)] & self.board[to.index()].flags() & LEAPERS;
        if hit != 0 {
            threats.checkers.push(to, STEP[delta_index(king, to)]);
        }
        let along_to = ATTACK[delta_index(to, king)] & flag::SLIDER;
        if along_to != 0 {
            self.line_threats(king, STEP[delta_index(king, to)], along_to, &mut threats);
        }
        let along_from = ATTACK[delta_index(from, king)] & flag::SLIDER;
        if along_from != 0 && STEP[delta_index(king, from)] != STEP[delta_index(king, to)] {
            self.line_threats(king, STEP[delta_index(king, from)], along_from, &mut threats);
        }
        threats
    }

    /// The check or pin along one line from the king (`step`), whose sliders move as `along`
    /// (bishop or rook flag): the first piece met gives check if it is an enemy slider of that
    /// kind; if it is ours, it is pinned when the next piece met is one.
    #[inline(always)]
    fn line_threats(&self, king: Square, step: Step, along: u8, threats: &mut Threats) {
        let us = self.side;
        let slider = |p: Piece| p.is_color(us.flip()) && p.flags() & along != 0;
        let mut sq = king.raw().wrapping_add(step as u8);
        while self.board[sq as usize].is_none() {
            sq = sq.wrapping_add(step as u8);
        }
        let first = self.board[sq as usize];
        if slider(first) {
            threats.checkers.push(Square::from_index_unchecked(sq), step);
            return;
        }
        if !first.is_color(us) {
            return;
        }
        let mut beyond = sq.wrapping_add(step as u8);
        while self.board[beyond as usize].is_none() {
            beyond = beyond.wrapping_add(step as u8);
        }
        if slider(self.board[beyond as usize]) {
            threats.pin_step[self.list_index[sq as usize] as usize & 15] = step;
        }
    }

    /// Does the legal move `m` give check? Answered on the two tables without making the move,
    /// so pruning can spare checking moves for a few lookups instead of a make and unmake.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let king = self.king(us.flip());
        let from = m.from();
        let mover = self.board[from.index()];
        // After the move: `checker` stands on `landing` (the rook, when castling), the
        // squares in `filled` are taken and those in `emptied` are free.
        let (checker, landing, emptied, filled) = if m.is_castle() {
            let rook = self.board[m.to().index()];
            (rook, m.castle_rook_target(), [from, m.to()], [m.castle_rook_target(), m.castle_king_target()])
        } else {
            let placed = m.promotion_kind().map_or(mover, |k| Piece::new(us, k));
            (placed, m.to(), [from, m.captured_square(us)], [m.to(), m.to()])
        };
        let occupied = |sq: u8| {
            if filled[0].raw() == sq || filled[1].raw() == sq {
                true
            } else if emptied[0].raw() == sq || emptied[1].raw() == sq {
                false
            } else {
                self.board[sq as usize].is_some()
            }
        };
        // Direct: the piece that lands reaches the king.
        let hit = ATTACK[delta_index(landing, king)] & checker.flags();
        if hit != 0 {
            if hit & LEAPERS != 0 {
                return true;
            }
            let step = STEP[delta_index(landing, king)] as u8;
            let mut sq = landing.raw().wrapping_add(step);
            while sq != king.raw() && !occupied(sq) {
                sq = sq.wrapping_add(step);
            }
            if sq == king.raw() {
                return true;
            }
        }
        // Discovered: a square the move frees opens a line from one of our sliders.
        for freed in emptied {
            if ATTACK[delta_index(freed, king)] & flag::QUEEN == 0 {
                continue;
            }
            let step = STEP[delta_index(king, freed)] as u8;
            let mut sq = king.raw().wrapping_add(step);
            while !occupied(sq) {
                sq = sq.wrapping_add(step);
            }
            let p = self.board[sq as usize];
            if filled[0].raw() != sq
                && filled[1].raw() != sq
                && p.is_color(us)
                && ATTACK[delta_index(Square::from_index_unchecked(sq), king)] & p.flags() & flag::SLIDER != 0
            {
                return true;
            }
        }
        false
    }

    /// Is the piece on `sq` (of the side to move) pinned to its king? Returns the pin step.
    pub fn pin_step(&self, sq: Square) -> Step {
        let p = self.board[sq.index()];
        if p.is_none() || !p.is_color(self.side) || p.is_king() {
            return 0;
        }
        self.threats().pin_step[self.list_index[sq.index()] as usize]
    }
}

/// The two squares (raw 0x88 indices, either may be off the board) from which a pawn of `by`
/// attacks `target`: diagonally behind it, as `by` sees it.
#[inline(always)]
pub(crate) fn pawn_origins(target: Square, by: Color) -> [u8; 2] {
    let behind = target.raw().wrapping_sub(by.forward() as u8);
    [behind.wrapping_sub(1), behind.wrapping_add(1)]
}

/// The naive alternative the tables replace: scan every ray out of `target` for an attacker.
/// Kept as the benchmark baseline and as a test oracle.
pub fn is_attacked_by_ray_scan(pos: &Position, target: Square, by: Color) -> bool {
    use crate::piece::Kind;
    let is = |sq: Option<Square>, kind: Kind| sq.is_some_and(|s| pos.piece_at(s) == Piece::new(by, kind));
    // A pawn of `by` attacks `target` from one rank behind it (as seen from `by`).
    let back = -by.forward();
    if is(target.offset(back - 1), Kind::Pawn) || is(target.offset(back + 1), Kind::Pawn) {
        return true;
    }
    if KNIGHT_STEPS.iter().any(|&d| is(target.offset(d), Kind::Knight))
        || KING_STEPS.iter().any(|&d| is(target.offset(d), Kind::King))
    {
        return true;
    }
    let slides = |steps: &[Step], kind: Kind| {
        steps.iter().any(|&d| {
            let mut sq = target.offset(d);
            while let Some(s) = sq {
                let p = pos.piece_at(s);
                if p.is_some() {
                    return p == Piece::new(by, kind) || p == Piece::new(by, Kind::Queen);
                }
                sq = s.offset(d);
            }
            false
        })
    };
    slides(&BISHOP_STEPS, Kind::Bishop) || slides(&ROOK_STEPS, Kind::Rook)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_walk_agrees_with_ray_scan() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for sq in Square::all() {
                for by in [Color::White, Color::Black] {
                    assert_eq!(pos.is_attacked(sq, by), is_attacked_by_ray_scan(&pos, sq, by), "{fen} {sq} {by:?}");
                }
            }
        }
    }

    #[test]
    fn finds_checkers_and_pins() {
        // Black king e8: checked by the rook on e1 and the knight on d6; bishop b5 pins d7.
        let pos = Position::from_fen("4k3/3p4/3N4/1B6/8/8/8/K3R3 b - - 0 1").unwrap();
        let t = pos.threats();
        assert_eq!(t.checkers.count(), 2);
        let d7: Square = "d7".parse().unwrap();
        assert_eq!(pos.pin_step(d7), STEP[delta_index("e8".parse().unwrap(), d7)]);
        let quiet = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(quiet.checkers().count(), 0);
    }
}
