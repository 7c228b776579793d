//! The position: a 0x88 board with piece lists, and incremental make/unmake.
//!
//! Besides the board, each colour keeps a piece list, as Fruit 2.1 does, so attack detection
//! can visit the few enemy pieces and ask the attack table about each instead of scanning
//! rays. A list is ordered king, other pieces ("officers"), then pawns: pawns are tested as
//! attackers by looking at the two squares they attack from, so loops visit officers only.
//! `list_index` maps a square back to its list slot.
//!
//! The 128-square board and the per-square tables are padded to 256 entries so that any
//! `u8` index is in bounds, and every off-board entry of the board holds a wall
//! ([`Piece::OFF_BOARD`]): a slide stops there as on a piece of neither colour.

use crate::mv::Move;
use crate::piece::{Color, Kind, Piece};
use crate::psqt::{self, Tapered};
use crate::square::Square;
use crate::zobrist::{piece_key, KEYS};

mod castle;
mod check;
mod perft_moves;
#[cfg(test)]
mod tests;

pub(crate) use castle::CastlePath;

/// Castling right bits, in the order of [`Position::castle_rook`]'s slots.
pub mod rights {
    pub const WHITE_KING_SIDE: u8 = 1;
    pub const WHITE_QUEEN_SIDE: u8 = 2;
    pub const BLACK_KING_SIDE: u8 = 4;
    pub const BLACK_QUEEN_SIDE: u8 = 8;
    pub const ALL: u8 = 15;
    /// The two rights of a colour.
    pub const fn of(color: crate::piece::Color) -> u8 {
        match color {
            crate::piece::Color::White => WHITE_KING_SIDE | WHITE_QUEEN_SIDE,
            crate::piece::Color::Black => BLACK_KING_SIDE | BLACK_QUEEN_SIDE,
        }
    }
}

/// What [`Position::unmake`] needs to restore, beyond the move itself.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    captured: Piece,
    captured_slot: u8,
    /// List slot of a promoting pawn.
    pawn_slot: u8,
    castling: u8,
    en_passant: Option<Square>,
    halfmove: u16,
    fullmove: u16,
    key: u64,
    pawn_key: u64,
    non_pawn_keys: [u64; 2],
    psq: Tapered,
}

#[derive(Clone)]
pub struct Position {
    pub(crate) board: [Piece; 256],
    pub(crate) list: [[Square; 16]; 2],
    /// Pieces per colour; slots `0..officers` hold king and pieces, `officers..count` pawns.
    pub(crate) count: [u8; 2],
    pub(crate) officers: [u8; 2],
    pub(crate) list_index: [u8; 256],
    pub(crate) side: Color,
    pub(crate) castling: u8,
    /// Rook start square for each castling right (slot = bit index of the right).
    pub(crate) castle_rook: [Square; 4],
    /// Squares each castling right needs empty, and the squares its king crosses.
    pub(crate) castle_paths: [CastlePath; 4],
    /// Rights kept when a piece moves from or to a square.
    pub(crate) castle_keep: [u8; 256],
    pub(crate) en_passant: Option<Square>,
    pub(crate) halfmove: u16,
    pub(crate) fullmove: u16,
    pub(crate) key: u64,
    pub(crate) pawn_key: u64,
    /// Per colour, the key of its king and pieces other than pawns (by square).
    pub(crate) non_pawn_keys: [u64; 2],
    pub(crate) psq: Tapered,
    pub(crate) piece_count: [u8; 12],
    pub(crate) chess960: bool,
}

impl Position {
    /// An empty board, White to move; the FEN parser fills it.
    pub(crate) fn empty() -> Position {
        Position {
            board: walled_board(),
            list: [[Square::from_index_unchecked(0); 16]; 2],
            count: [0; 2],
            officers: [0; 2],
            list_index: [0; 256],
            side: Color::White,
            castling: 0,
            castle_rook: [Square::from_index_unchecked(0); 4],
            castle_paths: [CastlePath::default(); 4],
            castle_keep: [rights::ALL; 256],
            en_passant: None,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            pawn_key: 0,
            non_pawn_keys: [0; 2],
            psq: Tapered::default(),
            piece_count: [0; 12],
            chess960: false,
        }
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Piece {
        self.board[sq.index()]
    }
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    #[inline(always)]
    pub fn king(&self, color: Color) -> Square {
        self.list[color.index()][0]
    }
    /// The squares of a colour's pieces: king first, then other pieces, then pawns.
    #[inline(always)]
    pub fn pieces(&self, color: Color) -> &[Square] {
        &self.list[color.index()][..self.count[color.index()] as usize]
    }
    /// The squares of a colour's king and pieces other than pawns, king first.
    #[inline(always)]
    pub fn officers(&self, color: Color) -> &[Square] {
        &self.list[color.index()][..self.officers[color.index()] as usize]
    }
    /// The squares of a colour's pawns.
    #[inline(always)]
    pub fn pawns(&self, color: Color) -> &[Square] {
        let c = color.index();
        &self.list[c][self.officers[c] as usize..self.count[c] as usize]
    }
    #[inline(always)]
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }
    #[inline(always)]
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }
    /// Rook start square of a castling right (a bit of [`rights`]).
    pub fn castle_rook(&self, right: u8) -> Option<Square> {
        if self.castling & right != 0 {
            Some(self.castle_rook[right.trailing_zeros() as usize])
        } else {
            None
        }
    }
    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }
    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }
    #[inline(always)]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }
    /// A key of where `color`'s king and other pieces but pawns stand.
    #[inline(always)]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        self.non_pawn_keys[color.index()]
    }
    /// Material plus piece-square score, White's point of view.
    #[inline(always)]
    pub fn psq(&self) -> Tapered {
        self.psq
    }
    /// How many of `piece` are on the board.
    #[inline(always)]
    pub fn count_of(&self, piece: Piece) -> u32 {
        self.piece_count[piece.index()] as u32
    }
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }
    /// Switches how castling is written and read in UCI text (king takes rook when on).
    pub fn set_chess960(&mut self, on: bool) {
        self.chess960 = on;
    }
    /// The game's keys before this position, oldest first: `history` without its last key
    /// when that is this position's own, since callers pass the game with or without it.
    pub fn keys_before<'a>(&self, history: &'a [u64]) -> &'a [u64] {
        match history.split_last() {
            Some((&k, before)) if k == self.key => before,
            _ => history,
        }
    }

    // --- piece placement, keeping board, lists, keys and scores in step ---

    #[inline(always)]
    fn hash_piece(&mut self, piece: Piece, sq: Square) {
        let k = piece_key(piece, sq);
        self.key ^= k;
        if piece.is_pawn() {
            self.pawn_key ^= k;
        } else {
            self.non_pawn_keys[piece.color().index()] ^= k;
        }
    }

    #[inline(always)]
    fn set_slot(&mut self, c: usize, slot: usize, sq: Square) {
        self.list[c][slot] = sq;
        self.list_index[sq.index()] = slot as u8;
    }

    /// Adds a square to colour `c`'s list: pawns at the end, officers at the boundary
    /// (whose pawn moves to the end). Returns nothing: `unlist` undoes it exactly.
    #[inline(always)]
    fn enlist(&mut self, c: usize, sq: Square, pawn: bool) {
        let count = self.count[c] as usize;
        if !pawn {
            let boundary = self.officers[c] as usize;
            if count > boundary {
                self.set_slot(c, count, self.list[c][boundary]);
            }
            self.set_slot(c, boundary, sq);
            self.officers[c] += 1;
        } else {
            self.set_slot(c, count, sq);
        }
        self.count[c] += 1;
    }

    /// Removes the entry of `sq` from colour `c`'s list, keeping the list contiguous and
    /// ordered; returns its slot for `relist`.
    #[inline(always)]
    fn unlist(&mut self, c: usize, sq: Square) -> u8 {
        let slot = self.list_index[sq.index()] as usize;
        let last = self.count[c] as usize - 1;
        let boundary = self.officers[c] as usize;
        if slot >= boundary {
            self.set_slot(c, slot, self.list[c][last]);
        } else {
            let last_officer = boundary - 1;
            self.set_slot(c, slot, self.list[c][last_officer]);
            if last > last_officer {
                self.set_slot(c, last_officer, self.list[c][last]);
            }
            self.officers[c] -= 1;
        }
        self.count[c] -= 1;
        slot as u8
    }

    /// Exact inverse of `unlist`: puts `sq` back into `slot`, restoring the old order.
    #[inline(always)]
    fn relist(&mut self, c: usize, sq: Square, slot: u8, pawn: bool) {
        let slot = slot as usize;
        let count = self.count[c] as usize;
        if pawn {
            if slot < count {
                self.set_slot(c, count, self.list[c][slot]);
            }
        } else {
            let boundary = self.officers[c] as usize;
            if count > boundary {
                self.set_slot(c, count, self.list[c][boundary]);
            }
            if slot < boundary {
                self.set_slot(c, boundary, self.list[c][slot]);
            }
            self.officers[c] += 1;
        }
        self.set_slot(c, slot, sq);
        self.count[c] += 1;
    }

    /// Puts `piece` on the empty square `sq`.
    pub(crate) fn put_piece(&mut self, piece: Piece, sq: Square) {
        self.board[sq.index()] = piece;
        self.enlist(piece.color().index(), sq, piece.is_pawn());
        self.piece_count[piece.index()] += 1;
        self.hash_piece(piece, sq);
        self.psq += psqt::value(piece, sq);
    }

    /// Ends a setup by piece placement: each king moves to the front of its list, where
    /// [`Position::king`] reads it. Returns the colour without a king, if any.
    pub(crate) fn seat_kings(&mut self) -> Result<(), Color> {
        for color in [Color::White, Color::Black] {
            let c = color.index();
            let king_slot =
                (0..self.officers[c] as usize).find(|&i| self.board[self.list[c][i].index()].is_king()).ok_or(color)?;
            self.list[c].swap(0, king_slot);
            let (a, b) = (self.list[c][0], self.list[c][king_slot]);
            self.list_index[a.index()] = 0;
            self.list_index[b.index()] = king_slot as u8;
        }
        Ok(())
    }

    /// Grants a castling right (one bit of [`rights`]) for the king and rook on these squares.
    pub(crate) fn grant_castling(&mut self, right: u8, king: Square, rook: Square) {
        let slot = right.trailing_zeros() as usize;
        self.castling |= right;
        self.castle_rook[slot] = rook;
        self.castle_paths[slot] = CastlePath::new(king, rook);
        self.castle_keep[king.index()] &= !rights::of(self.board[king.index()].color());
        self.castle_keep[rook.index()] &= !right;
    }

    /// Sets the keys and the score from the board, once a setup is complete.
    pub(crate) fn refresh_keys(&mut self) {
        (self.key, self.pawn_key, self.non_pawn_keys, self.psq) = self.recompute_key();
    }

    /// Removes the piece on `sq` (no hashing). Returns it and its list slot.
    #[inline(always)]
    fn remove_piece(&mut self, sq: Square) -> (Piece, u8) {
        let piece = self.board[sq.index()];
        let slot = self.unlist(piece.color().index(), sq);
        self.board[sq.index()] = Piece::NONE;
        self.piece_count[piece.index()] -= 1;
        (piece, slot)
    }

    /// Inverse of `remove_piece`: puts `piece` back into exactly its old slot.
    #[inline(always)]
    fn restore_piece(&mut self, piece: Piece, sq: Square, slot: u8) {
        self.relist(piece.color().index(), sq, slot, piece.is_pawn());
        self.board[sq.index()] = piece;
        self.piece_count[piece.index()] += 1;
    }

    /// Moves a piece between squares (the target must be empty); no hashing.
    #[inline(always)]
    fn shift_piece(&mut self, from: Square, to: Square) {
        let piece = self.board[from.index()];
        let slot = self.list_index[from.index()];
        self.board[to.index()] = piece;
        self.board[from.index()] = Piece::NONE;
        self.list[piece.color().index()][slot as usize] = to;
        self.list_index[to.index()] = slot;
    }

    /// What [`Position::unmake`] restores after any move from here, before the move adds
    /// what it takes. A loop over one position's moves reads it once ([`Position::make_from`]):
    /// read again right after `unmake` wrote it, fields written one by one and read together
    /// stall until the writes reach the cache.
    #[inline(always)]
    pub(crate) fn snapshot(&self) -> Undo {
        Undo {
            captured: Piece::NONE,
            captured_slot: 0,
            pawn_slot: 0,
            castling: self.castling,
            en_passant: self.en_passant,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            key: self.key,
            pawn_key: self.pawn_key,
            non_pawn_keys: self.non_pawn_keys,
            psq: self.psq,
        }
    }

    /// The state every move changes the same way, from the position's `snapshot`: clear the
    /// en passant square, advance the halfmove clock.
    #[inline(always)]
    fn begin_move<const KEYED: bool>(&mut self, undo: &Undo) {
        if let Some(ep) = undo.en_passant {
            self.en_passant = None;
            if KEYED {
                self.key ^= KEYS.en_passant_file[ep.file() as usize];
            }
        }
        // Both counters stop at their largest value rather than wrap (a FEN may start there).
        self.halfmove = undo.halfmove.saturating_add(1);
    }

    /// Plays a legal move. The move must come from this position's legal move list.
    #[inline]
    pub fn make(&mut self, m: Move) -> Undo {
        self.make_keyed::<true>(m, &self.snapshot())
    }

    /// [`Position::make`] given this position's [`Position::snapshot`].
    #[inline]
    pub(crate) fn make_from(&mut self, m: Move, snapshot: &Undo) -> Undo {
        self.make_keyed::<true>(m, snapshot)
    }

    #[inline(always)]
    fn make_keyed<const KEYED: bool>(&mut self, m: Move, snapshot: &Undo) -> Undo {
        let us = self.side;
        let from = m.from();
        let to = m.to();
        let piece = self.board[from.index()];
        let mut undo = *snapshot;
        self.begin_move::<KEYED>(snapshot);

        if m.is_castle() {
            self.make_castle::<KEYED>(m, piece);
        } else {
            let captured_sq = m.captured_square(us);
            let target = self.board[captured_sq.index()];
            if target.is_some() {
                let (captured, slot) = self.remove_piece(captured_sq);
                if KEYED {
                    self.hash_piece(captured, captured_sq);
                    self.psq -= psqt::value(captured, captured_sq);
                }
                undo.captured = captured;
                undo.captured_slot = slot;
                self.halfmove = 0;
            }
            self.shift_piece(from, to);
            if KEYED {
                self.hash_piece(piece, from);
                self.psq -= psqt::value(piece, from);
            }
            let landed = match m.promotion_kind() {
                Some(kind) => {
                    let promoted = Piece::new(us, kind);
                    undo.pawn_slot = self.unlist(us.index(), to);
                    self.enlist(us.index(), to, false);
                    self.board[to.index()] = promoted;
                    self.piece_count[piece.index()] -= 1;
                    self.piece_count[promoted.index()] += 1;
                    promoted
                }
                None => piece,
            };
            if KEYED {
                self.hash_piece(landed, to);
                self.psq += psqt::value(landed, to);
            }
            if piece.is_pawn() {
                self.halfmove = 0;
                if m.is_double_push() {
                    self.set_en_passant_after_double_push::<KEYED>(from, to);
                }
            }
        }

        let kept = undo.castling & self.castle_keep[from.index()] & self.castle_keep[to.index()];
        if kept != undo.castling {
            if KEYED {
                self.key ^= KEYS.castling[undo.castling as usize] ^ KEYS.castling[kept as usize];
            }
            self.castling = kept;
        }
        if us == Color::Black {
            self.fullmove = undo.fullmove.saturating_add(1);
        }
        self.side = us.flip();
        if KEYED {
            self.key ^= KEYS.side;
            self.debug_check();
        }
        undo
    }

    /// The key of the position after the legal move `m`, without making it (to prefetch the
    /// child's table entry); the same as [`Position::key`] after [`Position::make`].
    #[inline]
    pub(crate) fn key_after(&self, m: Move) -> u64 {
        let us = self.side;
        let (from, to) = (m.from(), m.to());
        let piece = self.board[from.index()];
        let mut key = self.key ^ KEYS.side;
        if let Some(ep) = self.en_passant {
            key ^= KEYS.en_passant_file[ep.file() as usize];
        }
        if m.is_castle() {
            let rook = self.board[to.index()];
            key ^= piece_key(piece, from)
                ^ piece_key(rook, to)
                ^ piece_key(piece, m.castle_king_target())
                ^ piece_key(rook, m.castle_rook_target());
        } else {
            let captured_sq = m.captured_square(us);
            let target = self.board[captured_sq.index()];
            if target.is_some() {
                key ^= piece_key(target, captured_sq);
            }
            let landed = m.promotion_kind().map_or(piece, |kind| Piece::new(us, kind));
            key ^= piece_key(piece, from) ^ piece_key(landed, to);
            if m.is_double_push() {
                let them_pawn = Piece::new(us.flip(), Kind::Pawn);
                let beside = |step: i8| self.board[to.raw().wrapping_add(step as u8) as usize] == them_pawn;
                if beside(1) || beside(-1) {
                    key ^= KEYS.en_passant_file[to.file() as usize];
                }
            }
        }
        let kept = self.castling & self.castle_keep[from.index()] & self.castle_keep[to.index()];
        key ^ KEYS.castling[self.castling as usize] ^ KEYS.castling[kept as usize]
    }

    fn make_castle<const KEYED: bool>(&mut self, m: Move, king: Piece) {
        let (king_from, rook_from) = (m.from(), m.to());
        let (king_to, rook_to) = (m.castle_king_target(), m.castle_rook_target());
        let rook = self.board[rook_from.index()];
        let c = king.color().index();
        let rook_slot = self.list_index[rook_from.index()];
        // Lift both first: in Chess960 the targets may overlap the start squares.
        self.board[king_from.index()] = Piece::NONE;
        self.board[rook_from.index()] = Piece::NONE;
        self.board[king_to.index()] = king;
        self.board[rook_to.index()] = rook;
        self.list[c][0] = king_to;
        self.list[c][rook_slot as usize] = rook_to;
        self.list_index[king_to.index()] = 0;
        self.list_index[rook_to.index()] = rook_slot;
        if KEYED {
            self.hash_piece(king, king_from);
            self.hash_piece(rook, rook_from);
            self.hash_piece(king, king_to);
            self.hash_piece(rook, rook_to);
            self.psq += psqt::value(king, king_to) - psqt::value(king, king_from) + psqt::value(rook, rook_to)
                - psqt::value(rook, rook_from);
        }
    }

    /// Records the en passant square only when an enemy pawn could take, so that equal
    /// positions get equal keys.
    #[inline(always)]
    fn set_en_passant_after_double_push<const KEYED: bool>(&mut self, from: Square, to: Square) {
        let them_pawn = Piece::new(self.side.flip(), Kind::Pawn);
        let adjacent = |step: i8| to.offset(step).is_some_and(|s| self.board[s.index()] == them_pawn);
        if adjacent(1) || adjacent(-1) {
            let ep = Square::from_index_unchecked((from.raw() + to.raw()) / 2);
            self.en_passant = Some(ep);
            if KEYED {
                self.key ^= KEYS.en_passant_file[ep.file() as usize];
            }
        }
    }

    /// Takes back `m`, which must be the last move made, with the `Undo` it returned.
    pub fn unmake(&mut self, m: Move, undo: &Undo) {
        self.unmake_keyed::<true>(m, undo);
    }

    #[inline(always)]
    fn unmake_keyed<const KEYED: bool>(&mut self, m: Move, undo: &Undo) {
        self.side = self.side.flip();
        let us = self.side;
        self.fullmove = undo.fullmove;
        let from = m.from();
        let to = m.to();
        if m.is_castle() {
            self.unmake_castle(m);
        } else {
            if m.is_promotion() {
                let promoted = self.board[to.index()];
                let pawn = Piece::new(us, Kind::Pawn);
                self.unlist(us.index(), to);
                self.relist(us.index(), to, undo.pawn_slot, true);
                self.board[to.index()] = pawn;
                self.piece_count[promoted.index()] -= 1;
                self.piece_count[pawn.index()] += 1;
            }
            self.shift_piece(to, from);
            if undo.captured.is_some() {
                let captured_sq = m.captured_square(us);
                self.restore_piece(undo.captured, captured_sq, undo.captured_slot);
            }
        }
        self.castling = undo.castling;
        self.en_passant = undo.en_passant;
        self.halfmove = undo.halfmove;
        if KEYED {
            self.key = undo.key;
            self.pawn_key = undo.pawn_key;
            self.non_pawn_keys = undo.non_pawn_keys;
            self.psq = undo.psq;
            self.debug_check();
        }
    }

    fn unmake_castle(&mut self, m: Move) {
        let (king_from, rook_from) = (m.from(), m.to());
        let (king_to, rook_to) = (m.castle_king_target(), m.castle_rook_target());
        let king = self.board[king_to.index()];
        let rook = self.board[rook_to.index()];
        let c = king.color().index();
        let rook_slot = self.list_index[rook_to.index()];
        self.board[king_to.index()] = Piece::NONE;
        self.board[rook_to.index()] = Piece::NONE;
        self.board[king_from.index()] = king;
        self.board[rook_from.index()] = rook;
        self.list[c][0] = king_from;
        self.list[c][rook_slot as usize] = rook_from;
        self.list_index[king_from.index()] = 0;
        self.list_index[rook_from.index()] = rook_slot;
    }

    /// Passes the move to the opponent (for null-move pruning); undo with `unmake_null`.
    pub fn make_null(&mut self) -> Undo {
        let undo = self.snapshot();
        self.begin_move::<true>(&undo);
        self.side = self.side.flip();
        self.key ^= KEYS.side;
        undo
    }

    pub fn unmake_null(&mut self, undo: &Undo) {
        self.side = self.side.flip();
        self.en_passant = undo.en_passant;
        self.halfmove = undo.halfmove;
        self.key = undo.key;
    }
}

/// An empty board whose off-board entries (index & 0x88 != 0, and the padding up to 256) hold
/// the wall, so sliding loops need no separate bounds test.
const fn walled_board() -> [Piece; 256] {
    let mut board = [Piece::NONE; 256];
    let mut i = 0;
    while i < 256 {
        if i & 0x88 != 0 {
            board[i] = Piece::OFF_BOARD;
        }
        i += 1;
    }
    board
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}
