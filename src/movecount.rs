//! Counting legal moves without listing them: perft's last ply.
//!
//! Most positions at the leaves of a perft tree are not in check and have few pinned pieces,
//! so the counter handles that case on its own terms: a knight's moves are the sum of eight
//! "empty or enemy" tests, a slider's the lengths of its rays plus one for an enemy at the
//! end, a pawn's a handful of tests added up, all without a branch per move. Positions in
//! check, pinned pieces, castling, en passant and the king keep the generator's own code with
//! a counting sink, so every count has one source of truth for legality.

use crate::attacks::Threats;
use crate::movegen::{gen, MoveCounter};
use crate::piece::{flag, Color};
use crate::position::Position;
use crate::square::{Square, Step, BISHOP_STEPS, KNIGHT_STEPS, ROOK_STEPS};

/// Bit of the enemy's colour in a board byte, as a shift (see [`crate::piece::flag`]).
#[inline(always)]
fn enemy_shift(us: Color) -> u32 {
    match us {
        Color::White => 7,
        Color::Black => 6,
    }
}

impl Position {
    /// The number of legal moves, counted without building a list.
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let threats = self.threats();
        if threats.checkers.count() != 0 {
            let mut counter = MoveCounter(0);
            self.generate_with::<{ gen::ALL }, MoveCounter>(&threats, &mut counter);
            return counter.0;
        }
        let king = self.king(self.side);
        let mut counter = MoveCounter(0);
        self.king_moves::<{ gen::ALL }, MoveCounter>(king, &mut counter);
        if self.castling != 0 {
            self.castling_moves(king, &mut counter);
        }
        counter.0 + self.count_officer_moves(&threats) + self.count_pawn_moves(&threats)
    }

    /// Moves of the side to move's pieces other than king and pawns, not in check.
    #[inline(always)]
    fn count_officer_moves(&self, threats: &Threats) -> u64 {
        let c = self.side.index();
        let shift = enemy_shift(self.side);
        let mut n = 0u64;
        for slot in 1..self.officers[c] as usize {
            let from = self.list[c][slot].raw();
            let pin = threats.pin_step[slot & 15];
            let flags = self.board[from as usize].flags();
            if flags == flag::KNIGHT {
                if pin == 0 {
                    for d in KNIGHT_STEPS {
                        let target = self.board[from.wrapping_add(d as u8) as usize].raw();
                        // Empty, or an enemy (walls and our own pieces are neither).
                        n += (target == 0) as u64 | (target >> shift) as u64 & 1;
                    }
                }
                continue;
            }
            if pin == 0 {
                if flags & flag::BISHOP != 0 {
                    n += self.count_rays(from, &BISHOP_STEPS, shift);
                }
                if flags & flag::ROOK != 0 {
                    n += self.count_rays(from, &ROOK_STEPS, shift);
                }
            } else {
                // A pinned slider keeps the moves along its pin line when it moves that way.
                let along = if pin.unsigned_abs() == 16 || pin.unsigned_abs() == 1 { flag::ROOK } else { flag::BISHOP };
                if flags & along != 0 {
                    n += self.count_ray(from, pin, shift) + self.count_ray(from, -pin, shift);
                }
            }
        }
        n
    }

    #[inline(always)]
    fn count_rays(&self, from: u8, steps: &[Step; 4], shift: u32) -> u64 {
        steps.iter().map(|&d| self.count_ray(from, d, shift)).sum()
    }

    /// Empty squares along one ray, plus one if the piece that ends it is an enemy.
    #[inline(always)]
    fn count_ray(&self, from: u8, d: Step, shift: u32) -> u64 {
        let mut to = from.wrapping_add(d as u8);
        let mut n = 0u64;
        while self.board[to as usize].is_none() {
            n += 1;
            to = to.wrapping_add(d as u8);
        }
        n + ((self.board[to as usize].raw() >> shift) & 1) as u64
    }

    /// Pawn moves, not in check: unpinned pawns added up without branches per move, pinned
    /// ones and en passant by the generator.
    #[inline(always)]
    fn count_pawn_moves(&self, threats: &Threats) -> u64 {
        let us = self.side;
        let c = us.index();
        let shift = enemy_shift(us);
        let forward = us.forward() as u8;
        let (promotion_row, start_row) = if us == Color::White { (1, 6) } else { (6, 1) };
        let enemy = |sq: u8| (self.board[sq as usize].raw() >> shift) as u64 & 1;
        let empty = |sq: u8| self.board[sq as usize].is_none() as u64;
        let mut n = 0u64;
        let mut counter = MoveCounter(0);
        for slot in self.officers[c] as usize..self.count[c] as usize {
            let from = self.list[c][slot & 15];
            let pin = threats.pin_step[slot & 15];
            if pin != 0 {
                self.pawn_moves::<{ gen::ALL }, false, MoveCounter>(from, pin, !0, &mut counter);
                continue;
            }
            let push = from.raw().wrapping_add(forward);
            let row = from.raw() >> 4;
            let single = empty(push);
            let moves = single + enemy(push.wrapping_sub(1)) + enemy(push.wrapping_add(1));
            if row == promotion_row {
                n += 4 * moves;
            } else {
                let double = single & (row == start_row) as u64 & empty(push.wrapping_add(forward));
                n += moves + double;
            }
        }
        if let Some(ep) = self.en_passant {
            n += self.count_en_passant(ep, threats);
        }
        n + counter.0
    }

    /// En passant captures by unpinned pawns (pinned ones were counted with their other moves).
    #[inline(never)]
    fn count_en_passant(&self, ep: Square, threats: &Threats) -> u64 {
        let us = self.side;
        let pawn = crate::piece::Piece::new(us, crate::piece::Kind::Pawn);
        let behind = ep.raw().wrapping_sub(us.forward() as u8);
        let mut n = 0;
        for from in [behind.wrapping_sub(1), behind.wrapping_add(1)] {
            if from & 0x88 == 0
                && self.board[from as usize] == pawn
                && threats.pin_step[self.list_index[from as usize] as usize & 15] == 0
            {
                let m = crate::mv::Move::en_passant(Square::from_index_unchecked(from), ep);
                n += self.en_passant_is_legal(m) as u64;
            }
        }
        n
    }
}
