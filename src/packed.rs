//! The 32-byte training record that self-play data is stored in.
//!
//! Data grows to tens of millions of positions, so a record must be small,
//! fixed-size (a file is an array: counting, splitting and resuming need no parsing) and
//! hold everything a trainer filters on without rebuilding a position. Layout, little-endian:
//!
//! ```text
//! bytes  0..8   occupancy: bit i set when square index64 i (a8 = 0 .. h1 = 63) holds a piece
//! bytes  8..24  one nibble per occupied square in bit order, low nibble first:
//!               colour << 3 | kind (pawn 0 .. king 5)
//! bytes 24..26  score, i16, White's view: centipawns, or ±(MATE_BASE - n) for mate in n moves
//! byte  26      game result for White: 0 loss, 1 draw, 2 win
//! byte  27      bit 0 Black to move, bit 1 side to move in check, bit 2 last record of its
//!               game, bits 4..8 castling rights (K, Q, k, q)
//! bytes 28..30  the move played: from index64 | to index64 << 6 | promotion kind << 12
//!               (0 none, 1 knight .. 4 queen) | capture << 15
//! byte  30      ply within the game's records (0 = its first), saturating at 255
//! byte  31      halfmove clock, saturating at 255
//! ```
//!
//! The en passant square is not kept: no evaluation looks at it.

use crate::fen::{placement_text, FenError};
use crate::mv::Move;
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::square::Square;
use std::fmt;

pub const RECORD_BYTES: usize = 32;
/// A stored score at or beyond this magnitude is a mate: `MATE_BASE - n` for mate in `n`.
pub const MATE_BASE: i16 = 32_000;
pub const MATE_THRESHOLD: i16 = 31_000;

const BLACK_TO_MOVE: u8 = 1;
const IN_CHECK: u8 = 2;
const LAST_OF_GAME: u8 = 4;

/// A game's result from White's side.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GameResult {
    BlackWins = 0,
    Draw = 1,
    WhiteWins = 2,
}

impl GameResult {
    /// 0, 0.5 or 1: White's score.
    pub fn white_score(self) -> f32 {
        self as u8 as f32 / 2.0
    }
}

/// Why bytes are not a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// More than 32 pieces, or a nibble that names no piece.
    BadPieces,
    BadResult(u8),
    /// The board does not make a legal position.
    Position(FenError),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::BadPieces => write!(f, "record: bad piece list"),
            RecordError::BadResult(r) => write!(f, "record: bad result byte {r}"),
            RecordError::Position(e) => write!(f, "record: {e}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// One position of a self-play game with its search score, the move played and the result.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Record([u8; RECORD_BYTES]);

/// What goes into a record besides the position.
#[derive(Clone, Copy, Debug)]
pub struct Annotation {
    pub score_white: i16,
    pub result: GameResult,
    pub played: Move,
    pub ply: usize,
    pub last_of_game: bool,
}

impl Record {
    pub fn pack(pos: &Position, a: &Annotation) -> Record {
        let mut b = [0u8; RECORD_BYTES];
        let mut occupancy = 0u64;
        let mut n = 0;
        for i in 0..64 {
            let piece = pos.piece_at(Square::from_index64(i));
            if piece.is_none() {
                continue;
            }
            occupancy |= 1 << i;
            let nibble = (piece.color() as u8) << 3 | piece.kind() as u8;
            b[8 + n / 2] |= nibble << (4 * (n % 2));
            n += 1;
        }
        b[0..8].copy_from_slice(&occupancy.to_le_bytes());
        b[24..26].copy_from_slice(&a.score_white.to_le_bytes());
        b[26] = a.result as u8;
        let mut flags = pos.castling_rights() << 4;
        if pos.side_to_move() == Color::Black {
            flags |= BLACK_TO_MOVE;
        }
        if pos.in_check() {
            flags |= IN_CHECK;
        }
        if a.last_of_game {
            flags |= LAST_OF_GAME;
        }
        b[27] = flags;
        let m = a.played;
        let promotion = m.promotion_kind().map_or(0, |k| k as u16);
        let mv = m.from().index64() as u16
            | (m.to().index64() as u16) << 6
            | promotion << 12
            | (m.is_capture() as u16) << 15;
        b[28..30].copy_from_slice(&mv.to_le_bytes());
        b[30] = a.ply.min(255) as u8;
        b[31] = pos.halfmove_clock().min(255) as u8;
        Record(b)
    }

    pub fn from_bytes(bytes: [u8; RECORD_BYTES]) -> Record {
        Record(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; RECORD_BYTES] {
        &self.0
    }

    /// The pieces as (square, piece), a8 first; `Err` for bytes no `pack` wrote.
    pub fn pieces(&self) -> Result<Vec<(Square, Piece)>, RecordError> {
        let occupancy = u64::from_le_bytes(self.0[0..8].try_into().expect("8 bytes"));
        if occupancy.count_ones() > 32 {
            return Err(RecordError::BadPieces);
        }
        let mut out = Vec::with_capacity(occupancy.count_ones() as usize);
        let mut bits = occupancy;
        let mut n = 0;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let nibble = self.0[8 + n / 2] >> (4 * (n % 2)) & 15;
            let kind = nibble & 7;
            if kind > 5 {
                return Err(RecordError::BadPieces);
            }
            let color = if nibble & 8 == 0 { Color::White } else { Color::Black };
            out.push((Square::from_index64(i), Piece::new(color, Kind::from_index(kind as usize))));
            n += 1;
        }
        Ok(out)
    }

    pub fn side_to_move(&self) -> Color {
        if self.0[27] & BLACK_TO_MOVE != 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    pub fn score_white(&self) -> i16 {
        i16::from_le_bytes([self.0[24], self.0[25]])
    }

    pub fn is_mate_score(&self) -> bool {
        self.score_white().unsigned_abs() >= MATE_THRESHOLD as u16
    }

    pub fn result(&self) -> Result<GameResult, RecordError> {
        match self.0[26] {
            0 => Ok(GameResult::BlackWins),
            1 => Ok(GameResult::Draw),
            2 => Ok(GameResult::WhiteWins),
            r => Err(RecordError::BadResult(r)),
        }
    }

    pub fn in_check(&self) -> bool {
        self.0[27] & IN_CHECK != 0
    }

    pub fn is_last_of_game(&self) -> bool {
        self.0[27] & LAST_OF_GAME != 0
    }

    /// The move played was a capture or a promotion.
    pub fn played_tactical(&self) -> bool {
        let mv = u16::from_le_bytes([self.0[28], self.0[29]]);
        mv >> 12 != 0
    }

    /// The played move's (from, to) as index64 squares and its promotion kind.
    pub fn played(&self) -> (usize, usize, Option<Kind>) {
        let mv = u16::from_le_bytes([self.0[28], self.0[29]]);
        let promotion = (mv >> 12 & 7) as usize;
        ((mv & 63) as usize, (mv >> 6 & 63) as usize, (promotion != 0).then(|| Kind::from_index(promotion)))
    }

    pub fn ply(&self) -> u8 {
        self.0[30]
    }

    /// The position (without its en passant square, which is not stored).
    pub fn position(&self) -> Result<Position, RecordError> {
        let mut board = [Piece::NONE; 64];
        for (sq, piece) in self.pieces()? {
            board[sq.index64()] = piece;
        }
        let mut fen = placement_text(|sq| board[sq.index64()]);
        fen.push_str(if self.side_to_move() == Color::White { " w " } else { " b " });
        let castling = self.0[27] >> 4;
        let letters: String =
            ['K', 'Q', 'k', 'q'].iter().enumerate().filter(|&(i, _)| castling >> i & 1 != 0).map(|(_, &c)| c).collect();
        fen.push_str(if letters.is_empty() { "-" } else { &letters });
        fen.push_str(&format!(" - {} 1", self.0[31]));
        Position::from_fen(&fen).map_err(RecordError::Position)
    }
}

impl fmt::Debug for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position() {
            Ok(p) => write!(f, "Record({} | {} | {:?})", p.to_fen(), self.score_white(), self.result()),
            Err(e) => write!(f, "Record({e})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotation(m: Move, ply: usize) -> Annotation {
        Annotation { score_white: -123, result: GameResult::Draw, played: m, ply, last_of_game: ply.is_multiple_of(7) }
    }

    /// Random games from the start: every record gives back the board, side, castling
    /// rights, halfmove clock, check, the move played and the annotation.
    #[test]
    fn records_round_trip_along_random_games() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Position::startpos();
            for ply in 0..200 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(next() % moves.len() as u64) as usize];
                let r = Record::pack(&pos, &annotation(m, ply));
                let back = Record::from_bytes(*r.as_bytes());
                let q = back.position().expect("a packed position reads back");
                for sq in Square::all() {
                    assert_eq!(q.piece_at(sq), pos.piece_at(sq), "{}", pos.to_fen());
                }
                assert_eq!(q.side_to_move(), pos.side_to_move());
                assert_eq!(q.castling_rights(), pos.castling_rights());
                assert_eq!(q.halfmove_clock(), pos.halfmove_clock().min(255));
                assert_eq!(back.in_check(), pos.in_check());
                assert_eq!(back.played_tactical(), m.is_tactical());
                let (from, to, promo) = back.played();
                assert_eq!((from, to, promo), (m.from().index64(), m.to().index64(), m.promotion_kind()));
                assert_eq!(back.ply() as usize, ply.min(255));
                assert_eq!(back.is_last_of_game(), ply % 7 == 0);
                assert_eq!(back.score_white(), -123);
                assert_eq!(back.result(), Ok(GameResult::Draw));
                pos.make(m);
                checked += 1;
            }
        }
        assert!(checked > 2000);
    }

    #[test]
    fn corrupt_records_are_errors() {
        let mut b = [0u8; RECORD_BYTES];
        b[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(Record::from_bytes(b).pieces(), Err(RecordError::BadPieces));
        let mut b = [0u8; RECORD_BYTES];
        b[0] = 1;
        b[8] = 7; // kind 7 names no piece
        assert_eq!(Record::from_bytes(b).pieces(), Err(RecordError::BadPieces));
        let mut b = [0u8; RECORD_BYTES];
        b[26] = 3;
        assert_eq!(Record::from_bytes(b).result(), Err(RecordError::BadResult(3)));
        // No kings: not a position.
        assert!(matches!(Record::from_bytes([0u8; RECORD_BYTES]).position(), Err(RecordError::Position(_))));
    }
}
