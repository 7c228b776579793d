//! Colours and pieces.
//!
//! A piece's kind bits are exactly the attack-table flags (Fruit 2.1's habit): a queen is
//! `BISHOP | ROOK`, and pawns carry one flag per colour because they attack in one direction.
//! So "can this piece ever move along this vector?" is one AND against the attack table.

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The pawn push step for this colour.
    #[inline(always)]
    pub const fn forward(self) -> i8 {
        match self {
            Color::White => -16,
            Color::Black => 16,
        }
    }
}

/// Attack-table flags; also the kind bits of a [`Piece`].
pub mod flag {
    pub const WHITE_PAWN: u8 = 1;
    pub const BLACK_PAWN: u8 = 2;
    pub const KNIGHT: u8 = 4;
    pub const BISHOP: u8 = 8;
    pub const ROOK: u8 = 16;
    pub const KING: u8 = 32;
    pub const QUEEN: u8 = BISHOP | ROOK;
    pub const PAWN: u8 = WHITE_PAWN | BLACK_PAWN;
    pub const SLIDER: u8 = BISHOP | ROOK;
    pub const WHITE: u8 = 64;
    pub const BLACK: u8 = 128;
    pub const KIND_MASK: u8 = 63;
}

/// Piece kind without colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Kind {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl Kind {
    pub const ALL: [Kind; 6] = [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::King];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Kind {
        Kind::ALL[i]
    }

    /// The lower-case letter of the kind (`p n b r q k`).
    pub const fn letter(self) -> char {
        [b'p', b'n', b'b', b'r', b'q', b'k'][self as usize] as char
    }

    pub fn from_letter(c: char) -> Option<Kind> {
        match c.to_ascii_lowercase() {
            'p' => Some(Kind::Pawn),
            'n' => Some(Kind::Knight),
            'b' => Some(Kind::Bishop),
            'r' => Some(Kind::Rook),
            'q' => Some(Kind::Queen),
            'k' => Some(Kind::King),
            _ => None,
        }
    }
}

/// A coloured piece, stored in one byte: kind flags in the low six bits, colour in the top two.
/// The board's empty square is `Piece::NONE` (zero).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Piece(u8);

impl Piece {
    pub const NONE: Piece = Piece(0);
    /// The wall in the board's off-board entries: not empty, and of neither colour, so a
    /// slide stops on it and nothing captures it.
    pub const OFF_BOARD: Piece = Piece(flag::KIND_MASK);

    #[inline(always)]
    pub const fn new(color: Color, kind: Kind) -> Piece {
        let kind_bits = match kind {
            Kind::Pawn => match color {
                Color::White => flag::WHITE_PAWN,
                Color::Black => flag::BLACK_PAWN,
            },
            Kind::Knight => flag::KNIGHT,
            Kind::Bishop => flag::BISHOP,
            Kind::Rook => flag::ROOK,
            Kind::Queen => flag::QUEEN,
            Kind::King => flag::KING,
        };
        let color_bit = match color {
            Color::White => flag::WHITE,
            Color::Black => flag::BLACK,
        };
        Piece(kind_bits | color_bit)
    }

    #[inline(always)]
    pub const fn raw(self) -> u8 {
        self.0
    }

    #[inline(always)]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn is_some(self) -> bool {
        self.0 != 0
    }

    /// The attack-table flags of this piece.
    #[inline(always)]
    pub const fn flags(self) -> u8 {
        self.0 & flag::KIND_MASK
    }

    #[inline(always)]
    pub const fn is_color(self, color: Color) -> bool {
        self.0 & color_bit(color) != 0
    }

    /// Colour of a non-empty piece.
    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0 & flag::WHITE != 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline(always)]
    pub const fn kind(self) -> Kind {
        KIND_OF_FLAGS[(self.0 & flag::KIND_MASK) as usize]
    }

    #[inline(always)]
    pub const fn is_pawn(self) -> bool {
        self.0 & flag::PAWN != 0
    }

    #[inline(always)]
    pub const fn is_king(self) -> bool {
        self.0 & flag::KING != 0
    }

    #[inline(always)]
    pub const fn is_slider(self) -> bool {
        self.0 & flag::SLIDER != 0
    }

    /// Dense index 0..12 (white pawn..king, then black), for Zobrist and evaluation tables.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.color().index() * 6 + self.kind().index()
    }

    pub const fn from_index(i: usize) -> Piece {
        let color = if i < 6 { Color::White } else { Color::Black };
        Piece::new(color, Kind::from_index(i % 6))
    }

    /// FEN letter: upper case for White.
    pub fn letter(self) -> char {
        let c = self.kind().letter();
        match self.color() {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = Kind::from_letter(c)?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece::new(color, kind))
    }
}

#[inline(always)]
pub const fn color_bit(color: Color) -> u8 {
    match color {
        Color::White => flag::WHITE,
        Color::Black => flag::BLACK,
    }
}

const KIND_OF_FLAGS: [Kind; 64] = {
    let mut t = [Kind::Pawn; 64];
    t[flag::KNIGHT as usize] = Kind::Knight;
    t[flag::BISHOP as usize] = Kind::Bishop;
    t[flag::ROOK as usize] = Kind::Rook;
    t[flag::QUEEN as usize] = Kind::Queen;
    t[flag::KING as usize] = Kind::King;
    t
};

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            write!(f, ".")
        } else {
            write!(f, "{}", self.letter())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_round_trip() {
        for i in 0..12 {
            let p = Piece::from_index(i);
            assert_eq!(p.index(), i);
            assert_eq!(Piece::from_letter(p.letter()), Some(p));
        }
        assert_eq!(Piece::new(Color::White, Kind::Queen).flags(), flag::BISHOP | flag::ROOK);
        assert!(Piece::new(Color::Black, Kind::Pawn).is_color(Color::Black));
        assert!(!Piece::new(Color::Black, Kind::Pawn).is_color(Color::White));
    }
}
