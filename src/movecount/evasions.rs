//! Counting the legal moves of a side in check.
//!
//! The generator finds evasions by walking every move of every piece and keeping those that
//! land on the checking line; counting needs less. Besides the king's steps, a legal evasion
//! takes the single checker or lands between it and the king, and no pinned piece can do
//! either (its pin line and the checking line meet only on the king's square). So each of the
//! few target squares asks each free piece one table question: can it get there?

use crate::attacks::{pawn_origins, Threats};
use crate::movegen::gen;
use crate::piece::{flag, Color, Kind, Piece};
use crate::position::Position;
use crate::square::Square;
use crate::tables::{delta_index, ATTACK};

impl Position {
    /// Legal moves of the side to move, which is in check (`threats` are its checkers and pins).
    #[inline(never)]
    pub(super) fn count_evasions(&self, threats: &Threats) -> u64 {
        let us = self.side;
        let king = self.king(us);
        let mut n = self.king_targets::<{ gen::ALL }>(us, king).count_ones() as u64;
        let Some((checker, step)) = threats.checkers.first() else { return n };
        if threats.checkers.count() != 1 {
            return n;
        }
        let c = us.index();
        let pawn = Piece::new(us, Kind::Pawn);
        let forward = us.forward() as u8;
        // Rows count down the board from rank 8 (row 0): where a pawn promotes, and where a
        // double step lands.
        let (last_row, double_row) = if us == Color::White { (0, 4) } else { (7, 3) };
        // A free pawn of ours on `sq` (a square off the board holds none).
        let free_pawn = |sq: u8| {
            sq & 0x88 == 0
                && self.board[sq as usize] == pawn
                && threats.pin_step[self.list_index[sq as usize] as usize & 15] == 0
        };
        // The checker, then the empty squares between it and the king (for a slider only).
        let slider = self.board[checker.index()].is_slider();
        let mut target = checker.raw();
        let mut first = true;
        loop {
            let t = Square::from_index_unchecked(target);
            let promotion = if target >> 4 == last_row { 4 } else { 1 };
            for slot in 1..self.officers[c] as usize {
                let from = self.list[c][slot & 15];
                if threats.pin_step[slot & 15] != 0 {
                    continue;
                }
                let flags = self.board[from.index()].flags();
                let hit = ATTACK[delta_index(from, t)] & flags & (flag::KNIGHT | flag::SLIDER);
                if hit != 0 && (hit == flag::KNIGHT || self.line_is_clear(from, t)) {
                    n += 1;
                }
            }
            if first {
                for from in pawn_origins(t, us) {
                    n += free_pawn(from) as u64 * promotion;
                }
            } else {
                let behind = target.wrapping_sub(forward);
                if free_pawn(behind) {
                    n += promotion;
                } else if target >> 4 == double_row
                    && self.board[behind as usize].is_none()
                    && free_pawn(behind.wrapping_sub(forward))
                {
                    n += 1;
                }
            }
            if !slider {
                break;
            }
            target = if first { king.raw().wrapping_add(step as u8) } else { target.wrapping_add(step as u8) };
            first = false;
            if target == checker.raw() {
                break;
            }
        }
        // En passant can take a checking pawn, or block: the full test decides. A pinned pawn
        // never can: it lands on its pin line, which meets a checking line only at the king,
        // and the pawn it takes attacks no square of that line.
        n + self.count_en_passant(threats)
    }
}
