//! The moves perft plays and the search never does: they skip what perft's last plies do
//! not read (keys, score, clocks), so they live apart from `make` and `unmake`.

use super::{Position, Undo};
use crate::mv::Move;

impl Position {
    /// [`Position::make_from`] for perft below its table: board, piece lists, side, castling
    /// and en passant only; the keys and the score keep the values of the position before the
    /// move, so only [`Position::unmake_unkeyed`] takes it back.
    #[inline]
    pub(crate) fn make_unkeyed_from(&mut self, m: Move, snapshot: &Undo) -> Undo {
        self.make_keyed::<false>(m, snapshot)
    }

    /// For counting the replies to a legal move that takes nothing, castles not and promotes
    /// not: plays it on the board, the piece lists, the side to move and the en passant square
    /// alone (castling rights, clocks, keys and score keep their values, none of which the
    /// replies' count reads). Only [`Position::unmake_quiet`] may take it back.
    #[inline(always)]
    pub(crate) fn make_quiet(&mut self, m: Move) {
        let (from, to) = (m.from(), m.to());
        self.shift_piece(from, to);
        self.en_passant = None;
        if m.is_double_push() {
            self.set_en_passant_after_double_push::<false>(from, to);
        }
        self.side = self.side.flip();
    }

    /// Takes back [`Position::make_quiet`]'s `m`, given the position's snapshot.
    #[inline(always)]
    pub(crate) fn unmake_quiet(&mut self, m: Move, snapshot: &Undo) {
        self.side = self.side.flip();
        self.shift_piece(m.to(), m.from());
        self.en_passant = snapshot.en_passant;
    }

    /// Takes back a move of [`Position::make_unkeyed_from`], which left keys and score alone.
    #[inline]
    pub(crate) fn unmake_unkeyed(&mut self, m: Move, undo: &Undo) {
        self.unmake_keyed::<false>(m, undo);
    }
}
