//! The position's redundant state recomputed from the board: the consistency check that
//! tests and debug builds run after every make and unmake.

use super::Position;
use crate::piece::{Color, Piece};
use crate::psqt::{self, Tapered};
use crate::square::Square;
use crate::zobrist::{piece_key, KEYS};

impl Position {
    /// Key, pawn key, non-pawn keys and score computed from scratch (for the consistency
    /// check).
    pub fn recompute_key(&self) -> (u64, u64, [u64; 2], Tapered) {
        let mut key = 0;
        let mut pawn_key = 0;
        let mut non_pawn_keys = [0; 2];
        let mut psq = Tapered::default();
        for sq in Square::all() {
            let p = self.board[sq.index()];
            if p.is_some() {
                key ^= piece_key(p, sq);
                if p.is_pawn() {
                    pawn_key ^= piece_key(p, sq);
                } else {
                    non_pawn_keys[p.color().index()] ^= piece_key(p, sq);
                }
                psq += psqt::value(p, sq);
            }
        }
        key ^= KEYS.castling[self.castling as usize];
        if let Some(ep) = self.en_passant {
            key ^= KEYS.en_passant_file[ep.file() as usize];
        }
        if self.side == Color::Black {
            key ^= KEYS.side;
        }
        (key, pawn_key, non_pawn_keys, psq)
    }

    /// Checks every redundant piece of state against the board (used by tests; run after
    /// every make and unmake in debug builds).
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut seen = 0;
        for c in [Color::White, Color::Black] {
            let pieces = self.pieces(c);
            if pieces.is_empty() || !self.board[pieces[0].index()].is_king() {
                return Err(format!("{c:?} king is not first in its list"));
            }
            for (slot, &sq) in pieces.iter().enumerate() {
                let p = self.board[sq.index()];
                if p.is_none() || p.color() != c {
                    return Err(format!("list {c:?} slot {slot} points at {sq} holding {p}"));
                }
                if p.is_pawn() != (slot >= self.officers[c.index()] as usize) {
                    return Err(format!("list {c:?} slot {slot}: {p} on the wrong side of the pawn boundary"));
                }
                if self.list_index[sq.index()] as usize != slot {
                    return Err(format!("list_index of {sq} is not {slot}"));
                }
            }
            seen += pieces.len();
        }
        let on_board = Square::all().filter(|&s| self.board[s.index()].is_some()).count();
        if on_board != seen {
            return Err(format!("{on_board} pieces on the board, {seen} in the lists"));
        }
        for i in 0..12 {
            let p = Piece::from_index(i);
            let n = Square::all().filter(|&s| self.board[s.index()] == p).count();
            if n != self.piece_count[i] as usize {
                return Err(format!("count of {p} is {} but {n} are on the board", self.piece_count[i]));
            }
        }
        let (key, pawn_key, non_pawn_keys, psq) = self.recompute_key();
        if key != self.key || pawn_key != self.pawn_key || non_pawn_keys != self.non_pawn_keys {
            return Err("incremental key differs from a fresh computation".into());
        }
        if psq != self.psq {
            return Err("incremental score differs from a fresh computation".into());
        }
        Ok(())
    }

    #[inline(always)]
    pub(super) fn debug_check(&self) {
        #[cfg(debug_assertions)]
        if let Err(e) = self.check_consistency() {
            panic!("inconsistent position after make/unmake: {e}\n{}", self.to_fen());
        }
    }
}
