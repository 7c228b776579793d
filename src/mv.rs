//! Moves and move lists.
//!
//! A [`Move`] packs into 32 bits:
//!
//! ```text
//!  31      24 23     16 15      8 7       0
//! +----------+---------+---------+---------+
//! | (unused) |  flags  |   to    |  from   |     from/to are 0x88 indices
//! +----------+---------+---------+---------+
//! flags: bits 0-2 promotion kind (0 none, 1 N, 2 B, 3 R, 4 Q), bit 3 capture,
//!        bit 4 en passant, bit 5 castling, bit 6 double pawn push
//! ```
//!
//! Castling is stored as "king takes own rook" (`to` is the rook's square), which covers
//! standard chess and Chess960 alike; [`Move::to_uci`] prints either notation.

use crate::piece::{Color, Kind};
use crate::square::Square;
use std::fmt;
use std::mem::MaybeUninit;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u32);

const CAPTURE: u32 = 1 << 19;
const EN_PASSANT: u32 = 1 << 20;
const CASTLE: u32 = 1 << 21;
const DOUBLE_PUSH: u32 = 1 << 22;
const PROMO_SHIFT: u32 = 16;

impl Move {
    /// The null move (a8a8); never legal, used as "no move".
    pub const NONE: Move = Move(0);

    #[inline(always)]
    pub const fn quiet(from: Square, to: Square) -> Move {
        Move(from.raw() as u32 | (to.raw() as u32) << 8)
    }
    #[inline(always)]
    pub const fn capture(from: Square, to: Square) -> Move {
        Move(Move::quiet(from, to).0 | CAPTURE)
    }
    #[inline(always)]
    pub const fn double_push(from: Square, to: Square) -> Move {
        Move(Move::quiet(from, to).0 | DOUBLE_PUSH)
    }
    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move(Move::quiet(from, to).0 | EN_PASSANT | CAPTURE)
    }
    /// Castling, written as the king taking its own rook.
    #[inline(always)]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move(Move::quiet(king, rook).0 | CASTLE)
    }
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, kind: Kind, capture: bool) -> Move {
        let base = Move::quiet(from, to).0 | (kind as u32) << PROMO_SHIFT;
        Move(if capture { base | CAPTURE } else { base })
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index_unchecked(self.0 as u8)
    }
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index_unchecked((self.0 >> 8) as u8)
    }
    #[inline(always)]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }
    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        self.0 & CAPTURE != 0
    }
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.0 & EN_PASSANT != 0
    }
    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.0 & CASTLE != 0
    }
    #[inline(always)]
    pub const fn is_double_push(self) -> bool {
        self.0 & DOUBLE_PUSH != 0
    }
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        (self.0 >> PROMO_SHIFT) & 7 != 0
    }
    /// Captures and promotions: the moves quiescence search looks at.
    #[inline(always)]
    pub const fn is_tactical(self) -> bool {
        self.is_capture() || self.is_promotion()
    }
    /// False for bit patterns no generator makes: a promotion field naming a pawn or king
    /// (or beyond), or bits above the flags. Such values can only come from corrupt input.
    #[inline(always)]
    pub const fn is_well_formed(self) -> bool {
        let promotion = (self.0 >> PROMO_SHIFT) & 7;
        self.0 >> 23 == 0 && (promotion == 0 || promotion <= Kind::Queen as u32)
    }
    #[inline(always)]
    pub const fn promotion_kind(self) -> Option<Kind> {
        match (self.0 >> PROMO_SHIFT) & 7 {
            0 => None,
            k => Some(Kind::from_index(k as usize)),
        }
    }
    /// The raw 32-bit encoding (for hash tables).
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        self.0
    }
    #[inline(always)]
    pub const fn from_bits(bits: u32) -> Move {
        Move(bits)
    }

    /// The square of the piece this move takes when `us` plays it: the target square, but
    /// for en passant the square behind it, where the passed pawn stands.
    #[inline(always)]
    pub const fn captured_square(self, us: Color) -> Square {
        if self.is_en_passant() {
            Square::from_index_unchecked((self.to().raw() as i8 - us.forward()) as u8)
        } else {
            self.to()
        }
    }

    /// Where the king lands when this castling move is played.
    #[inline(always)]
    pub fn castle_king_target(self) -> Square {
        let file = if self.to().file() > self.from().file() { 6 } else { 2 };
        Square::from_coords(file, self.from().rank())
    }

    /// Where the rook lands when this castling move is played.
    #[inline(always)]
    pub fn castle_rook_target(self) -> Square {
        let file = if self.to().file() > self.from().file() { 5 } else { 3 };
        Square::from_coords(file, self.from().rank())
    }

    /// UCI text. Castling is king-takes-rook (`e1h1`) in Chess960 and the king's target square
    /// (`e1g1`) in standard chess, unless that square is less than two files from the king (a
    /// Chess960 start played without the Chess960 option): then `b1c1` could be read as a king
    /// step, and king-takes-rook is written in this mode too.
    pub fn to_uci(self, chess960: bool) -> String {
        if self.is_none() {
            return "0000".to_string();
        }
        let king_to = self.castle_king_target();
        let to = if self.is_castle() && !chess960 && king_to.file().abs_diff(self.from().file()) >= 2 {
            king_to
        } else {
            self.to()
        };
        let mut s = format!("{}{}", self.from(), to);
        if let Some(k) = self.promotion_kind() {
            s.push(k.letter());
        }
        s
    }
}

/// Standard-chess UCI text (castling as `e1g1`); use [`Move::to_uci`] for Chess960.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_uci(false))
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({})", self.to_uci(true))
    }
}

/// Capacity of a [`MoveList`]. The FEN reader refuses material no game can reach, and with
/// reachable material no position is known to have more than 218 moves (see the tests).
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of moves that lives on the stack.
pub struct MoveList {
    moves: [MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl MoveList {
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList { moves: [const { MaybeUninit::uninit() }; MAX_MOVES], len: 0 }
    }

    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        // Every position the engine accepts fits (see `MAX_MOVES`): the bound check only keeps
        // memory safe, and debug builds say loudly if that reasoning ever fails.
        debug_assert!(self.len < MAX_MOVES, "move list full: more than {MAX_MOVES} moves");
        if self.len < MAX_MOVES {
            self.moves[self.len] = MaybeUninit::new(m);
            self.len += 1;
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`, and Move is plain data.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr() as *const Move, self.len) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr() as *mut Move, self.len) }
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for MoveList {
    fn deref_mut(&mut self) -> &mut [Move] {
        self.as_mut_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn moves_print_as_uci() {
        assert_eq!(Move::quiet(sq("e2"), sq("e4")).to_string(), "e2e4");
        assert_eq!(Move::promotion(sq("a7"), sq("b8"), Kind::Knight, true).to_string(), "a7b8n");
        let castle = Move::castle(sq("e1"), sq("h1"));
        assert_eq!(castle.to_uci(false), "e1g1");
        assert_eq!(castle.to_uci(true), "e1h1");
        assert_eq!(Move::castle(sq("b8"), sq("h8")).to_uci(false), "b8g8");
        // The king's target one file away would read as a king step: king takes rook instead.
        assert_eq!(Move::castle(sq("b8"), sq("a8")).to_uci(false), "b8a8");
        assert_eq!(Move::castle(sq("f1"), sq("h1")).to_uci(false), "f1h1");
        assert_eq!(Move::castle(sq("g1"), sq("h1")).to_uci(false), "g1h1");
        assert!(Move::en_passant(sq("e5"), sq("d6")).is_capture());
    }

    /// Hill-climbs for a position with more legal moves than a list holds, from the most
    /// crowded positions known: a piece moved, changed or taken off, or one added, is kept when
    /// the FEN reader accepts the result and White's move count does not fall.
    #[test]
    fn no_position_the_fen_reader_accepts_has_more_moves_than_a_list_holds() {
        use crate::position::Position;
        use rand::{rngs::StdRng, Rng, SeedableRng};
        // Published: Nenad Petrović (1964), 218 legal moves, the most known in any position.
        const PETROVIC: &str = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1";
        const MOST_KNOWN: usize = 218;
        let moves = |fen: &str| {
            let pos = Position::from_fen(fen).ok()?;
            let n = pos.legal_moves().len();
            // The counter does not go through a list: it would see a list that dropped moves.
            assert_eq!(pos.count_legal_moves(), n as u64, "{fen}");
            Some(n)
        };
        assert_eq!(moves(PETROVIC), Some(MOST_KNOWN));
        let starts = [
            PETROVIC,
            // Promotions with captures on every file, and a queen for each missing pawn.
            "1n1n1n1n/PPPPPPPP/8/8/8/8/pp6/kBNNQKBR w - - 0 1",
            "3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/3Q4/pp6/kBN1K2R w - - 0 1",
        ];
        let letters = b"PNBRQKpnbrqk";
        let mut rng = StdRng::seed_from_u64(218);
        let mut most = 0;
        for start in starts {
            let mut board = board_of(start);
            let mut best = moves(start).unwrap_or_else(|| panic!("start {start} is refused"));
            for _ in 0..4000 {
                let mut next = board;
                let (a, b) = (rng.gen_range(0..64), rng.gen_range(0..64));
                match rng.gen_range(0..3) {
                    0 => next.swap(a, b),
                    1 => next[a] = letters[rng.gen_range(0..letters.len())],
                    _ => next[a] = b'.',
                }
                let fen = fen_of(&next);
                if let Some(n) = moves(&fen).filter(|&n| n >= best) {
                    (board, best) = (next, n);
                }
            }
            assert!(best <= MOST_KNOWN, "{} has {best} moves", fen_of(&board));
            most = most.max(best);
        }
        assert!(most >= 200, "the climb should stay among the crowded positions ({most})");
    }

    /// The placement of a FEN as 64 letters, a8 first, '.' for an empty square.
    fn board_of(fen: &str) -> [u8; 64] {
        let mut board = [b'.'; 64];
        let mut i = 0;
        for c in fen.split(' ').next().unwrap_or("").bytes() {
            match c {
                b'/' => {}
                b'1'..=b'8' => i += usize::from(c - b'0'),
                _ => {
                    board[i] = c;
                    i += 1;
                }
            }
        }
        board
    }

    /// A FEN with White to move and no rights for `board_of`'s letters.
    fn fen_of(board: &[u8; 64]) -> String {
        let ranks: Vec<String> = board
            .chunks(8)
            .map(|rank| {
                let mut text = String::new();
                let mut empty = 0;
                for &c in rank {
                    if c == b'.' {
                        empty += 1;
                        continue;
                    }
                    if empty > 0 {
                        text.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    text.push(char::from(c));
                }
                if empty > 0 {
                    text.push(char::from(b'0' + empty));
                }
                text
            })
            .collect();
        format!("{} w - - 0 1", ranks.join("/"))
    }

    #[test]
    fn list_holds_moves() {
        let mut l = MoveList::new();
        assert!(l.is_empty());
        l.push(Move::quiet(sq("e2"), sq("e4")));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].to_string(), "e2e4");
    }
}
