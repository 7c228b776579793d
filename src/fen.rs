//! FEN and X-FEN / Shredder-FEN reading and writing, with errors that say what is wrong.

use crate::piece::{Color, Kind, Piece};
use crate::position::{rights, Position};
use crate::square::Square;
use std::fmt;

mod repair;
pub use repair::{CastlingFault, Counter, EnPassantFault, FenRepair};

pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Everything that can be wrong with a FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Fewer than 4 or more than 6 space-separated fields.
    FieldCount(usize),
    /// The placement field does not have 8 ranks.
    RankCount(usize),
    BadPieceLetter(char),
    /// A rank (8 = first in the FEN) describes more than 8 squares.
    RankTooLong(u8),
    /// A rank describes fewer than 8 squares.
    RankTooShort(u8),
    MissingKing(Color),
    TooManyKings(Color),
    TooManyPieces(Color),
    /// More than 8 pawns of one colour.
    TooManyPawns(Color),
    /// More queens, rooks, bishops and knights beyond the starting set than the missing pawns
    /// could have promoted to.
    TooManyPromoted {
        color: Color,
        promoted: u8,
        pawns_missing: u8,
    },
    PawnOnBackRank(Square),
    BadSideToMove(String),
    BadCastling(String),
    /// A castling right whose king or rook is not where it must be.
    CastlingContradictsPieces(char),
    BadEnPassant(String),
    ImpossibleEnPassant(Square),
    BadHalfmoveClock(String),
    BadFullmoveNumber(String),
    /// The side that just moved left its king in check.
    OpponentInCheck,
    /// More checkers than any legal sequence of moves can produce.
    ImpossibleCheck,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount(n) => write!(f, "expected 4 to 6 fields, found {n}"),
            FenError::RankCount(n) => write!(f, "expected 8 ranks, found {n}"),
            FenError::BadPieceLetter(c) => write!(f, "bad piece letter '{c}'"),
            FenError::RankTooLong(r) => write!(f, "rank {r} has more than 8 squares"),
            FenError::RankTooShort(r) => write!(f, "rank {r} has fewer than 8 squares"),
            FenError::MissingKing(c) => write!(f, "no {} king", color_name(*c)),
            FenError::TooManyKings(c) => write!(f, "more than one {} king", color_name(*c)),
            FenError::TooManyPieces(c) => write!(f, "more than 16 {} pieces", color_name(*c)),
            FenError::TooManyPawns(c) => write!(f, "more than 8 {} pawns", color_name(*c)),
            FenError::TooManyPromoted { color, promoted, pawns_missing } => write!(
                f,
                "{} has more pieces than promotions can give (beyond the starting set: {promoted}; pawns \
                 missing: {pawns_missing})",
                color_name(*color)
            ),
            FenError::PawnOnBackRank(s) => write!(f, "pawn on {s}, a first or last rank square"),
            FenError::BadSideToMove(s) => write!(f, "side to move must be 'w' or 'b', found '{s}'"),
            FenError::BadCastling(s) => write!(f, "bad castling field '{s}'"),
            FenError::CastlingContradictsPieces(c) => {
                write!(f, "castling right '{c}' has no king and rook in place for it")
            }
            FenError::BadEnPassant(s) => write!(f, "bad en passant field '{s}'"),
            FenError::ImpossibleEnPassant(s) => {
                write!(f, "en passant square {s} cannot follow a double pawn push")
            }
            FenError::BadHalfmoveClock(s) => write!(f, "bad halfmove clock '{s}'"),
            FenError::BadFullmoveNumber(s) => write!(f, "bad fullmove number '{s}'"),
            FenError::OpponentInCheck => write!(f, "the side not to move is in check"),
            FenError::ImpossibleCheck => {
                write!(f, "the side to move is in check by more than two pieces")
            }
        }
    }
}

impl std::error::Error for FenError {}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl Position {
    /// Plain-text board diagram, White at the bottom.
    pub fn diagram(&self) -> String {
        let mut out = String::new();
        for rank in (0..8).rev() {
            out.push_str(" +---+---+---+---+---+---+---+---+\n");
            for file in 0..8 {
                let p = self.piece_at(Square::from_coords(file, rank));
                out.push_str(" | ");
                out.push(if p.is_none() { ' ' } else { p.letter() });
            }
            out.push_str(&format!(" | {}\n", rank + 1));
        }
        out.push_str(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n");
        out
    }

    /// The standard starting position.
    pub fn startpos() -> Position {
        Position::from_fen(STARTPOS).expect("the start position FEN is valid")
    }

    /// Reads a FEN (or X-FEN / Shredder-FEN). The two counters may be left out.
    /// Castling follows standard rules unless the castling field uses file letters.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_with(fen, false)
    }

    /// Reads a FEN; with `chess960`, `KQkq` mean the outermost rooks and castling is
    /// written king-takes-rook.
    pub fn from_fen_with(fen: &str, chess960: bool) -> Result<Position, FenError> {
        read_fen(fen, chess960, None)
    }

    /// Reads a FEN as GUIs send it, repairing what Stockfish and python-chess also repair: a
    /// castling right without its king or rook in place, or an en passant square no double push
    /// can have left, is dropped; a move counter beyond 65,535 is read as 65,535. Each repair is
    /// returned (to be reported); a FEN that describes no playable position (no king, a pawn on
    /// a first or last rank, the side not to move in check, ...) is still an error.
    pub fn from_fen_repaired(fen: &str, chess960: bool) -> Result<(Position, Vec<FenRepair>), FenError> {
        let mut repairs = Vec::new();
        let pos = read_fen(fen, chess960, Some(&mut repairs))?;
        Ok((pos, repairs))
    }

    /// Writes the position as FEN; castling rights that standard chess cannot express are
    /// written as rook files (Shredder-FEN), so the text always reads back the same.
    pub fn to_fen(&self) -> String {
        let mut out = placement_text(|sq| self.piece_at(sq));
        out.push_str(if self.side == Color::White { " w " } else { " b " });
        out.push_str(&self.castling_text());
        match self.en_passant {
            Some(ep) => out.push_str(&format!(" {ep}")),
            None => out.push_str(" -"),
        }
        out.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        out
    }

    fn castling_text(&self) -> String {
        let mut s = String::new();
        for (right, color) in [
            (rights::WHITE_KING_SIDE, Color::White),
            (rights::WHITE_QUEEN_SIDE, Color::White),
            (rights::BLACK_KING_SIDE, Color::Black),
            (rights::BLACK_QUEEN_SIDE, Color::Black),
        ] {
            let Some(rook) = self.castle_rook(right) else {
                continue;
            };
            let king_side = right & (rights::WHITE_KING_SIDE | rights::BLACK_KING_SIDE) != 0;
            // `KQkq` only where standard chess reads them the same (king on e, rook in the
            // corner); otherwise the rook's file, which also marks the FEN as Chess960.
            let standard = self.king(color).file() == 4 && rook.file() == if king_side { 7 } else { 0 };
            let letter = if standard {
                if king_side {
                    'k'
                } else {
                    'q'
                }
            } else {
                (b'a' + rook.file()) as char
            };
            s.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
        }
        if s.is_empty() {
            s.push('-');
        }
        s
    }

    /// The rook of `color` furthest from its king on the back rank, on the given side.
    fn outermost_rook(&self, color: Color, king_side: bool) -> Option<Square> {
        let king = self.king(color);
        let rook = Piece::new(color, Kind::Rook);
        let files: Vec<u8> = if king_side { (king.file() + 1..8).rev().collect() } else { (0..king.file()).collect() };
        files.into_iter().map(|f| Square::from_coords(f, king.rank())).find(|&s| self.piece_at(s) == rook)
    }
}

/// Reads a FEN. With `repairs`, faults that a repair can mend are mended and recorded there;
/// without, they are errors.
fn read_fen(fen: &str, chess960: bool, mut repairs: Option<&mut Vec<FenRepair>>) -> Result<Position, FenError> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if !(4..=6).contains(&fields.len()) {
        return Err(FenError::FieldCount(fields.len()));
    }
    let mut pos = Position::empty();
    pos.chess960 = chess960;
    parse_placement(&mut pos, fields[0])?;
    pos.side = match fields[1] {
        "w" | "W" => Color::White,
        "b" | "B" => Color::Black,
        other => return Err(FenError::BadSideToMove(other.to_string())),
    };
    parse_castling(&mut pos, fields[2], repairs.as_deref_mut())?;
    parse_en_passant(&mut pos, fields[3], repairs.as_deref_mut())?;
    if let Some(h) = fields.get(4) {
        pos.halfmove = parse_counter(h, Counter::Halfmove, repairs.as_deref_mut())
            .ok_or_else(|| FenError::BadHalfmoveClock(h.to_string()))?;
    }
    if let Some(n) = fields.get(5) {
        let n =
            parse_counter(n, Counter::Fullmove, repairs).ok_or_else(|| FenError::BadFullmoveNumber(n.to_string()))?;
        pos.fullmove = n.max(1);
    }
    pos.refresh_keys();
    if pos.is_attacked(pos.king(pos.side.flip()), pos.side) {
        return Err(FenError::OpponentInCheck);
    }
    if pos.checkers().count() > 2 {
        return Err(FenError::ImpossibleCheck);
    }
    Ok(pos)
}

/// A move counter: decimal digits; values beyond `u16` saturate (and are recorded as a
/// repair when repairing) rather than wrap. `None` for anything else.
fn parse_counter(text: &str, counter: Counter, repairs: Option<&mut Vec<FenRepair>>) -> Option<u16> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value = digits.bytes().fold(0u64, |v, b| v.saturating_mul(10).saturating_add(u64::from(b - b'0')));
    match u16::try_from(value) {
        Ok(v) => Some(v),
        Err(_) => {
            if let Some(r) = repairs {
                r.push(FenRepair::CounterSaturated { counter, given: text.to_string() });
            }
            Some(u16::MAX)
        }
    }
}

fn parse_placement(pos: &mut Position, field: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    let mut kings = [0; 2];
    for (row, text) in ranks.iter().enumerate() {
        let rank = 7 - row as u8;
        let mut file: u8 = 0;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(FenError::BadPieceLetter(c));
                }
                file += d as u8;
                if file > 8 {
                    return Err(FenError::RankTooLong(rank + 1));
                }
                continue;
            }
            let piece = Piece::from_letter(c).ok_or(FenError::BadPieceLetter(c))?;
            if file >= 8 {
                return Err(FenError::RankTooLong(rank + 1));
            }
            let sq = Square::from_coords(file, rank);
            let color = piece.color();
            if piece.is_pawn() && (rank == 0 || rank == 7) {
                return Err(FenError::PawnOnBackRank(sq));
            }
            if pos.count[color.index()] >= 16 {
                return Err(FenError::TooManyPieces(color));
            }
            if piece.is_king() {
                kings[color.index()] += 1;
                if kings[color.index()] > 1 {
                    return Err(FenError::TooManyKings(color));
                }
            }
            pos.put_piece(piece, sq);
            file += 1;
        }
        if file < 8 {
            return Err(FenError::RankTooShort(rank + 1));
        }
    }
    for color in [Color::White, Color::Black] {
        if kings[color.index()] == 0 {
            return Err(FenError::MissingKing(color));
        }
        check_material(pos, color)?;
    }
    pos.seat_kings().map_err(FenError::MissingKing)
}

/// Refuses material no game can reach: more than 8 pawns, or more pieces beyond the starting
/// set (a second queen, a third rook, ...) than pawns are missing. It keeps every move list
/// (of fixed capacity 256) large enough: with such material the most legal moves known is
/// 218 (Petrović's position of 1964), an exhaustive search in 2024 found no position with
/// more, and `mv`'s tests search for one from the worst cases.
fn check_material(pos: &Position, color: Color) -> Result<(), FenError> {
    let mut count = [0u8; 6];
    for i in 0..64u8 {
        let p = pos.piece_at(Square::from_coords(i % 8, i / 8));
        if p.is_some() && p.color() == color {
            count[p.kind() as usize] += 1;
        }
    }
    let pawns = count[Kind::Pawn as usize];
    if pawns > 8 {
        return Err(FenError::TooManyPawns(color));
    }
    let beyond = |kind: Kind, start: u8| count[kind as usize].saturating_sub(start);
    let promoted = beyond(Kind::Queen, 1) + beyond(Kind::Rook, 2) + beyond(Kind::Bishop, 2) + beyond(Kind::Knight, 2);
    if promoted > 8 - pawns {
        return Err(FenError::TooManyPromoted { color, promoted, pawns_missing: 8 - pawns });
    }
    Ok(())
}

fn parse_castling(pos: &mut Position, field: &str, mut repairs: Option<&mut Vec<FenRepair>>) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    if field.is_empty() || field.len() > 4 {
        return Err(FenError::BadCastling(field.to_string()));
    }
    for c in field.chars() {
        match castling_right(pos, c) {
            Ok(Some((right, king, rook))) => {
                if pos.castling & right != 0 {
                    match repairs.as_deref_mut() {
                        Some(r) => r.push(FenRepair::CastlingRightDropped { right: c, fault: CastlingFault::Repeated }),
                        None => return Err(FenError::BadCastling(field.to_string())),
                    }
                    continue;
                }
                pos.grant_castling(right, king, rook);
            }
            Ok(None) => return Err(FenError::BadCastling(field.to_string())),
            Err(fault) => match repairs.as_deref_mut() {
                Some(r) => r.push(FenRepair::CastlingRightDropped { right: c, fault }),
                None => return Err(FenError::CastlingContradictsPieces(c)),
            },
        }
    }
    Ok(())
}

/// The right a castling letter grants, with its king and rook squares; `Ok(None)` for a
/// letter that means nothing, `Err` when the pieces are not where the right needs them.
/// A file letter (Shredder-FEN) switches the position to Chess960.
fn castling_right(pos: &mut Position, c: char) -> Result<Option<(u8, Square, Square)>, CastlingFault> {
    let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
    let king = pos.king(color);
    let back_rank = if color == Color::White { 0 } else { 7 };
    let lower = c.to_ascii_lowercase();
    if !matches!(lower, 'k' | 'q' | 'a'..='h') {
        return Ok(None);
    }
    if king.rank() != back_rank {
        return Err(CastlingFault::KingOffBackRank(king));
    }
    let rook_piece = Piece::new(color, Kind::Rook);
    let rook = match lower {
        'k' | 'q' => {
            let king_side = lower == 'k';
            let corner = Square::from_coords(if king_side { 7 } else { 0 }, back_rank);
            if !pos.chess960 && king.file() != 4 {
                return Err(CastlingFault::KingOffStartSquare(king));
            }
            let rook = pos.outermost_rook(color, king_side);
            match rook {
                Some(r) if pos.chess960 || r == corner => r,
                _ if pos.chess960 => return Err(CastlingFault::NoRookBesideKing),
                _ => return Err(CastlingFault::NoRookOn(corner)),
            }
        }
        f => {
            let sq = Square::from_coords(f as u8 - b'a', back_rank);
            if pos.piece_at(sq) != rook_piece || sq == king {
                return Err(CastlingFault::NoRookOn(sq));
            }
            pos.chess960 = true;
            sq
        }
    };
    let king_side = rook.file() > king.file();
    let right = match (color, king_side) {
        (Color::White, true) => rights::WHITE_KING_SIDE,
        (Color::White, false) => rights::WHITE_QUEEN_SIDE,
        (Color::Black, true) => rights::BLACK_KING_SIDE,
        (Color::Black, false) => rights::BLACK_QUEEN_SIDE,
    };
    Ok(Some((right, king, rook)))
}

fn parse_en_passant(pos: &mut Position, field: &str, repairs: Option<&mut Vec<FenRepair>>) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let ep: Square = field.parse().map_err(|_| FenError::BadEnPassant(field.to_string()))?;
    if let Err(fault) = en_passant_fault(pos, ep) {
        return match repairs {
            Some(r) => {
                r.push(FenRepair::EnPassantDropped { square: ep, fault });
                Ok(())
            }
            None => Err(FenError::ImpossibleEnPassant(ep)),
        };
    }
    // Keep the square only when a pawn can take, as `make` does, so keys agree. A square no
    // pawn can use is not a fault: FEN records it after every double push.
    let us = pos.side;
    let our_pawn = Piece::new(us, Kind::Pawn);
    let pushed = ep.offset(-us.forward()).unwrap_or(ep);
    let can_take = [1, -1].iter().any(|&d| pushed.offset(d).is_some_and(|s| pos.piece_at(s) == our_pawn));
    if can_take {
        pos.en_passant = Some(ep);
    }
    Ok(())
}

/// Why no double pawn push can have left `ep` as the en passant square, if none can.
fn en_passant_fault(pos: &Position, ep: Square) -> Result<(), EnPassantFault> {
    let us = pos.side;
    let them = us.flip();
    let expected_rank = if us == Color::White { 5 } else { 2 };
    if ep.rank() != expected_rank {
        return Err(EnPassantFault::WrongRank);
    }
    let pushed = ep.offset(-us.forward()).unwrap_or(ep);
    let origin = ep.offset(us.forward()).unwrap_or(ep);
    if pos.piece_at(pushed) != Piece::new(them, Kind::Pawn) {
        return Err(EnPassantFault::NoPawnOn(pushed));
    }
    for sq in [ep, origin] {
        if pos.piece_at(sq).is_some() {
            return Err(EnPassantFault::Occupied(sq));
        }
    }
    Ok(())
}

/// The board field of a FEN (rank 8 first) for the pieces `piece_at` gives.
pub fn placement_text(piece_at: impl Fn(Square) -> Piece) -> String {
    let mut out = String::with_capacity(72);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let p = piece_at(Square::from_coords(file, rank));
            if p.is_none() {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
                empty = 0;
            }
            out.push(p.letter());
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(fen: &str) -> FenError {
        Position::from_fen(fen).expect_err(fen)
    }

    #[test]
    fn round_trips() {
        for fen in [
            STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
        }
    }

    #[test]
    fn counters_are_optional() {
        let p = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - -").unwrap();
        assert_eq!((p.halfmove_clock(), p.fullmove_number()), (0, 1));
    }

    #[test]
    fn each_bad_fen_names_its_fault() {
        use FenError::*;
        assert_eq!(err("8/8/8 w - -  0 1 x"), FieldCount(7));
        assert_eq!(err("4k3/8/8/8/8/8/8 w - - 0 1"), RankCount(7));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K2X w - - 0 1"), BadPieceLetter('X'));
        assert_eq!(err("4k3/9/8/8/8/8/8/4K3 w - - 0 1"), BadPieceLetter('9'));
        assert_eq!(err("4k4/8/8/8/8/8/8/4K3 w - - 0 1"), RankTooLong(8));
        assert_eq!(err("4k2/8/8/8/8/8/8/4K3 w - - 0 1"), RankTooShort(8));
        assert_eq!(err("8/8/8/8/8/8/8/4K3 w - - 0 1"), MissingKing(Color::Black));
        assert_eq!(err("4k3/8/8/8/8/8/8/4KK2 w - - 0 1"), TooManyKings(Color::White));
        assert_eq!(err("4k2P/8/8/8/8/8/8/4K3 w - - 0 1"), PawnOnBackRank("h8".parse().unwrap()));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K3 x - - 0 1"), BadSideToMove("x".into()));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K3 w KX - 0 1"), CastlingContradictsPieces('K'));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K2R w Kx - 0 1"), BadCastling("Kx".into()));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K2R w - e9 0 1"), BadEnPassant("e9".into()));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K2R w - e6 0 1"), ImpossibleEnPassant("e6".parse().unwrap()));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K2R w - - x 1"), BadHalfmoveClock("x".into()));
        assert_eq!(err("4k3/8/8/8/8/8/8/4K2R w - - 0 y"), BadFullmoveNumber("y".into()));
        assert_eq!(err("4k2R/8/8/8/8/8/8/4K3 w - - 0 1"), OpponentInCheck);
        assert_eq!(err("4k3/8/8/8/8/8/8/3K3R w K - 0 1"), CastlingContradictsPieces('K'));
        assert_eq!(err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1"), RankCount(9));
        assert_eq!(err("QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/8/8/8/8/K6k w - - 0 1"), TooManyPieces(Color::White));
    }

    #[test]
    fn material_no_game_can_reach_is_refused() {
        use FenError::*;
        assert_eq!(err("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1"), TooManyPawns(Color::White));
        assert_eq!(err("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1"), TooManyPawns(Color::Black));
        let nine_queens = "k7/8/8/8/QQQQQQQQ/Q7/P7/4K3 w - - 0 1";
        assert_eq!(err(nine_queens), TooManyPromoted { color: Color::White, promoted: 8, pawns_missing: 7 });
        assert_eq!(
            err("nnnk4/pppppppp/8/8/8/8/8/4K3 b - - 0 1"),
            TooManyPromoted { color: Color::Black, promoted: 1, pawns_missing: 0 }
        );
        assert!(err(nine_queens).to_string().contains("beyond the starting set: 8; pawns missing: 7"));
        // Exactly what the missing pawns allow is fine: 9 queens without pawns, a third
        // knight beside 7 pawns, two promoted rooks and a bishop beside 5.
        for fen in [
            "kn6/pp6/8/8/QQQQQQQQ/Q7/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/PPPPPPP1/NNNK4 w - - 0 1",
            "4k3/8/8/8/8/8/PPPPP3/RRRRBBBK w - - 0 1",
        ] {
            assert!(Position::from_fen(fen).is_ok(), "{fen}");
        }
    }

    #[test]
    fn chess960_castling_fields() {
        // Shredder-FEN letters imply Chess960.
        let p = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
        assert!(p.is_chess960());
        assert_eq!(p.castle_rook(rights::WHITE_KING_SIDE), Some("h1".parse().unwrap()));
        assert_eq!(p.castle_rook(rights::WHITE_QUEEN_SIDE), Some("f1".parse().unwrap()));
        // X-FEN: K means the outermost rook; an inner rook gets its file letter back on output.
        let x = Position::from_fen_with("4r3/3k4/8/8/8/8/6PP/qR1K1R2 w KQ - 0 1", true).unwrap();
        assert_eq!(x.castle_rook(rights::WHITE_KING_SIDE), Some("f1".parse().unwrap()));
        assert_eq!(x.castle_rook(rights::WHITE_QUEEN_SIDE), Some("b1".parse().unwrap()));
        // Written back with rook files, the FEN reads the same even without the flag.
        assert!(x.to_fen().contains(" FB "), "{}", x.to_fen());
        assert_eq!(Position::from_fen(&x.to_fen()).unwrap().key(), x.key());
        let inner = Position::from_fen("1r2k1r1/8/8/8/8/8/8/RR2K2R w Bg - 0 1").unwrap();
        assert!(inner.to_fen().contains(" Bg "), "{}", inner.to_fen());
        let start960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        assert_eq!(Position::from_fen(start960).unwrap().to_fen(), start960);
    }
}
