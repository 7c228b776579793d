//! The independent 10x12 mailbox reference move generator.
//!
//! This crate exists to check ox88's 0x88 generator, so it is built to be obviously right
//! rather than fast, and it shares **no** code with the engine (it does not even depend on
//! it): the engine's tests and benchmarks use it as an oracle, and the engine binary does
//! not link it.
//!
//! - The board is a 120-cell array, 10 columns by 12 rows. The 64 real squares sit in the
//!   middle; a two-row border above and below and a one-column border left and right hold
//!   [`Cell::Offboard`] sentinels, so a step off the board (even a knight's jump) lands on a
//!   sentinel instead of wrapping around. Cell 21 is a8, cell 28 is h8, cell 91 is a1 and cell
//!   98 is h1; "up" the board (towards rank 8) is `-10`.
//! - Knights jump by ±8, ±12, ±19, ±21; kings step by ±1, ±9, ±10, ±11; bishops, rooks and
//!   queens repeat their offsets until they meet a non-empty cell.
//! - Legality is make-and-test: every pseudo-legal move is played on a copy of the board, and
//!   the move is kept when the mover's king is not attacked afterwards. "Attacked" is found by
//!   scanning out from the king's cell with each piece's offsets.
//! - Castling follows the Chess960 rules, of which standard castling is a special case: the
//!   king ends on the g or c file and the rook on the f or d file; every square the king or
//!   the rook crosses or lands on is empty except for those two pieces; the king is not in
//!   check and no square on its path is attacked. Castling is written king-takes-rook
//!   (`e1h1`), the notation ox88's `Move::to_uci(true)` uses.
//!
//! The FEN reader accepts standard FEN, X-FEN (`KQkq` meaning the outermost rook on that side
//! of the king) and Shredder-FEN (rook file letters such as `HFhf`); it returns `None` for
//! text it cannot make sense of and never panics.

use std::fmt;

mod fen;
use fen::parse_placement;

/// Number of cells in the 10x12 array.
const CELL_COUNT: usize = 120;

const KNIGHT_OFFSETS: [i32; 8] = [8, 12, 19, 21, -8, -12, -19, -21];
const KING_OFFSETS: [i32; 8] = [1, 9, 10, 11, -1, -9, -10, -11];
const DIAGONAL_OFFSETS: [i32; 4] = [9, 11, -9, -11];
const ORTHOGONAL_OFFSETS: [i32; 4] = [1, 10, -1, -10];

/// One step towards rank 8.
const UP: i32 = -10;

/// The side a piece belongs to, or whose turn it is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// The offset of a one-square pawn push for this side.
    fn pawn_push(self) -> i32 {
        match self {
            Side::White => UP,
            Side::Black => -UP,
        }
    }

    /// Rank index (0 = rank 1) of this side's back rank.
    fn back_rank(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 7,
        }
    }

    fn index(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }
}

/// A piece kind without colour.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum PieceKind {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl PieceKind {
    fn from_letter(letter: char) -> Option<PieceKind> {
        match letter.to_ascii_lowercase() {
            'p' => Some(PieceKind::Pawn),
            'n' => Some(PieceKind::Knight),
            'b' => Some(PieceKind::Bishop),
            'r' => Some(PieceKind::Rook),
            'q' => Some(PieceKind::Queen),
            'k' => Some(PieceKind::King),
            _ => None,
        }
    }

    fn letter(self) -> char {
        match self {
            PieceKind::Pawn => 'p',
            PieceKind::Knight => 'n',
            PieceKind::Bishop => 'b',
            PieceKind::Rook => 'r',
            PieceKind::Queen => 'q',
            PieceKind::King => 'k',
        }
    }
}

/// The pieces a pawn may promote to.
const PROMOTION_KINDS: [PieceKind; 4] = [PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight];

/// What one cell of the 10x12 array holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Cell {
    /// A border sentinel: not a square of the chess board.
    Offboard,
    Empty,
    Occupied(Side, PieceKind),
}

/// Cell index of the square on `file` (0 = a) and `rank` (0 = rank 1).
fn cell_of(file: usize, rank: usize) -> usize {
    (9 - rank) * 10 + file + 1
}

/// File (0 = a) of a cell that is on the board.
fn file_of(cell: usize) -> usize {
    cell % 10 - 1
}

/// Rank (0 = rank 1) of a cell that is on the board.
fn rank_of(cell: usize) -> usize {
    9 - cell / 10
}

/// Square name (`e4`) of a cell that is on the board.
fn square_name(cell: usize) -> String {
    format!("{}{}", (b'a' + file_of(cell) as u8) as char, rank_of(cell) + 1)
}

/// The cell of a square name such as `e4`.
fn parse_square_name(text: &str) -> Option<usize> {
    match text.as_bytes() {
        [file @ b'a'..=b'h', rank @ b'1'..=b'8'] => Some(cell_of((file - b'a') as usize, (rank - b'1') as usize)),
        _ => None,
    }
}

/// The cell `offset` away from `cell`. The border is two rows deep, so any single step or
/// knight jump from a real square stays inside the array.
fn step(cell: usize, offset: i32) -> usize {
    (cell as i32 + offset) as usize
}

/// What kind of move a [`MailboxMove`] is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum MoveKind {
    /// Any move or capture that is none of the others.
    Normal,
    /// A pawn's two-square advance, which sets the en passant square.
    DoublePush,
    EnPassant,
    Promotion(PieceKind),
    /// Castling; the move's `to` is the castling rook's cell.
    Castle,
}

/// A move of the mailbox generator; `from` and `to` are cell indices.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct MailboxMove {
    pub from: usize,
    pub to: usize,
    pub kind: MoveKind,
}

impl MailboxMove {
    /// UCI text; castling is written king-takes-rook (`e1h1`), as in Chess960 UCI.
    pub fn uci(&self) -> String {
        let mut text = format!("{}{}", square_name(self.from), square_name(self.to));
        if let MoveKind::Promotion(kind) = self.kind {
            text.push(kind.letter());
        }
        text
    }
}

impl fmt::Display for MailboxMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.uci())
    }
}

/// A castling right: the side that holds it and where its rook starts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
struct CastlingRight {
    side: Side,
    rook_cell: usize,
}

/// A position on the 10x12 mailbox board.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct MailboxBoard {
    cells: [Cell; CELL_COUNT],
    side_to_move: Side,
    /// Cell of each side's king, indexed by [`Side::index`].
    king_cells: [usize; 2],
    /// At most two rights per side.
    castling_rights: Vec<CastlingRight>,
    /// The square a pawn skipped over on the last move, if it was a double push.
    en_passant: Option<usize>,
}

impl MailboxBoard {
    /// Reads a FEN, X-FEN or Shredder-FEN. The move counters may be missing and are ignored.
    /// Returns `None` for anything malformed, for a side without exactly one king, for a
    /// castling right without its king and rook in place, and for an en passant square no
    /// double push could have left.
    pub fn from_fen(fen: &str) -> Option<MailboxBoard> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 4 || fields.len() > 6 {
            return None;
        }
        let (cells, king_cells) = parse_placement(fields[0])?;
        let side_to_move = match fields[1] {
            "w" => Side::White,
            "b" => Side::Black,
            _ => return None,
        };
        let mut board = MailboxBoard { cells, side_to_move, king_cells, castling_rights: Vec::new(), en_passant: None };
        board.castling_rights = board.parse_castling(fields[2])?;
        board.en_passant = board.parse_en_passant(fields[3])?;
        Some(board)
    }

    /// The board in the standard starting position.
    pub fn startpos() -> MailboxBoard {
        const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        match MailboxBoard::from_fen(START) {
            Some(board) => board,
            None => unreachable!("the start position FEN is well formed"),
        }
    }

    pub fn side_to_move(&self) -> Side {
        self.side_to_move
    }

    /// What is on the square `file` (0 = a), `rank` (0 = rank 1).
    pub fn piece_on(&self, file: usize, rank: usize) -> Cell {
        if file < 8 && rank < 8 {
            self.cells[cell_of(file, rank)]
        } else {
            Cell::Offboard
        }
    }

    /// Is the side to move in check?
    pub fn in_check(&self) -> bool {
        let us = self.side_to_move;
        self.is_attacked(self.king_cells[us.index()], us.opponent())
    }

    /// Leaf count of the legal move tree `depth` plies deep.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|m| self.make(m).perft(depth - 1)).sum()
    }

    /// All legal moves: pseudo-legal moves that do not leave the mover's king attacked.
    pub fn legal_moves(&self) -> Vec<MailboxMove> {
        let us = self.side_to_move;
        let mut moves = self.pseudo_legal_moves();
        moves.retain(|m| {
            let after = self.make(m);
            !after.is_attacked(after.king_cells[us.index()], us.opponent())
        });
        moves.extend(self.castling_moves());
        moves
    }

    /// Plays `m` on a copy of the board and returns the copy. `m` must be a move of this
    /// position (pseudo-legal is enough).
    pub fn make(&self, m: &MailboxMove) -> MailboxBoard {
        let mut next = self.clone();
        let us = self.side_to_move;
        let moving = self.cells[m.from];
        next.en_passant = None;
        match m.kind {
            MoveKind::Castle => next.play_castle(m.from, m.to),
            MoveKind::EnPassant => {
                next.cells[m.to] = moving;
                next.cells[m.from] = Cell::Empty;
                next.cells[step(m.to, -us.pawn_push())] = Cell::Empty;
            }
            MoveKind::Promotion(kind) => {
                next.cells[m.to] = Cell::Occupied(us, kind);
                next.cells[m.from] = Cell::Empty;
            }
            MoveKind::DoublePush => {
                next.cells[m.to] = moving;
                next.cells[m.from] = Cell::Empty;
                next.en_passant = Some(step(m.from, us.pawn_push()));
            }
            MoveKind::Normal => {
                next.cells[m.to] = moving;
                next.cells[m.from] = Cell::Empty;
                if moving == Cell::Occupied(us, PieceKind::King) {
                    next.king_cells[us.index()] = m.to;
                }
            }
        }
        next.drop_castling_rights_touched_by(m);
        next.side_to_move = us.opponent();
        next
    }

    // --- move generation ---

    /// Every move of the side to move except castling, without regard to its own king.
    fn pseudo_legal_moves(&self) -> Vec<MailboxMove> {
        let us = self.side_to_move;
        let mut moves = Vec::with_capacity(64);
        for from in 0..CELL_COUNT {
            let Cell::Occupied(side, kind) = self.cells[from] else {
                continue;
            };
            if side != us {
                continue;
            }
            match kind {
                PieceKind::Pawn => self.pawn_moves(from, &mut moves),
                PieceKind::Knight => self.leaper_moves(from, &KNIGHT_OFFSETS, &mut moves),
                PieceKind::King => self.leaper_moves(from, &KING_OFFSETS, &mut moves),
                PieceKind::Bishop => self.slider_moves(from, &DIAGONAL_OFFSETS, &mut moves),
                PieceKind::Rook => self.slider_moves(from, &ORTHOGONAL_OFFSETS, &mut moves),
                PieceKind::Queen => {
                    self.slider_moves(from, &DIAGONAL_OFFSETS, &mut moves);
                    self.slider_moves(from, &ORTHOGONAL_OFFSETS, &mut moves);
                }
            }
        }
        moves
    }

    /// Can a piece of the side to move land on `cell` (empty or holding an enemy piece)?
    fn can_land_on(&self, cell: usize) -> bool {
        match self.cells[cell] {
            Cell::Empty => true,
            Cell::Occupied(side, _) => side != self.side_to_move,
            Cell::Offboard => false,
        }
    }

    fn leaper_moves(&self, from: usize, offsets: &[i32], moves: &mut Vec<MailboxMove>) {
        for &offset in offsets {
            let to = step(from, offset);
            if self.can_land_on(to) {
                moves.push(MailboxMove { from, to, kind: MoveKind::Normal });
            }
        }
    }

    fn slider_moves(&self, from: usize, offsets: &[i32], moves: &mut Vec<MailboxMove>) {
        for &offset in offsets {
            let mut to = step(from, offset);
            while self.cells[to] == Cell::Empty {
                moves.push(MailboxMove { from, to, kind: MoveKind::Normal });
                to = step(to, offset);
            }
            if self.can_land_on(to) {
                moves.push(MailboxMove { from, to, kind: MoveKind::Normal });
            }
        }
    }

    fn pawn_moves(&self, from: usize, moves: &mut Vec<MailboxMove>) {
        let us = self.side_to_move;
        let push = us.pawn_push();
        let one_ahead = step(from, push);
        if self.cells[one_ahead] == Cell::Empty {
            push_pawn_move(from, one_ahead, moves);
            let start_rank = match us {
                Side::White => 1,
                Side::Black => 6,
            };
            let two_ahead = step(one_ahead, push);
            if rank_of(from) == start_rank && self.cells[two_ahead] == Cell::Empty {
                moves.push(MailboxMove { from, to: two_ahead, kind: MoveKind::DoublePush });
            }
        }
        for side_step in [-1, 1] {
            let to = step(one_ahead, side_step);
            match self.cells[to] {
                Cell::Occupied(side, _) if side != us => push_pawn_move(from, to, moves),
                Cell::Empty if self.en_passant == Some(to) => {
                    moves.push(MailboxMove { from, to, kind: MoveKind::EnPassant });
                }
                _ => {}
            }
        }
    }

    /// Legal castling moves of the side to move (their legality is complete here).
    fn castling_moves(&self) -> Vec<MailboxMove> {
        let us = self.side_to_move;
        let king = self.king_cells[us.index()];
        self.castling_rights
            .iter()
            .filter(|right| right.side == us && self.castling_is_legal(king, right.rook_cell))
            .map(|right| MailboxMove { from: king, to: right.rook_cell, kind: MoveKind::Castle })
            .collect()
    }

    /// The Chess960 castling rules: king and rook land on g/f or c/d; every square either
    /// crosses or lands on is empty but for the two of them; the king is not in check and
    /// no square on its path is attacked; and (make-and-test) the king is safe afterwards.
    fn castling_is_legal(&self, king: usize, rook: usize) -> bool {
        let them = self.side_to_move.opponent();
        let (king_target, rook_target) = castling_targets(king, rook);
        let mut must_be_empty = cells_between_inclusive(king, king_target);
        must_be_empty.extend(cells_between_inclusive(rook, rook_target));
        let blocked = must_be_empty.iter().any(|&cell| cell != king && cell != rook && self.cells[cell] != Cell::Empty);
        if blocked {
            return false;
        }
        if cells_between_inclusive(king, king_target).iter().any(|&cell| self.is_attacked(cell, them)) {
            return false;
        }
        let after = self.make(&MailboxMove { from: king, to: rook, kind: MoveKind::Castle });
        !after.is_attacked(after.king_cells[self.side_to_move.index()], them)
    }

    /// Moves king and rook to their castling targets: lift both, then put both down, since
    /// in Chess960 a target may be the other piece's start square.
    fn play_castle(&mut self, king: usize, rook: usize) {
        let us = self.side_to_move;
        let (king_target, rook_target) = castling_targets(king, rook);
        self.cells[king] = Cell::Empty;
        self.cells[rook] = Cell::Empty;
        self.cells[king_target] = Cell::Occupied(us, PieceKind::King);
        self.cells[rook_target] = Cell::Occupied(us, PieceKind::Rook);
        self.king_cells[us.index()] = king_target;
    }

    /// A right goes when its king moves, or when anything moves from or to its rook's cell.
    fn drop_castling_rights_touched_by(&mut self, m: &MailboxMove) {
        let mover = self.side_to_move;
        let king_moved =
            matches!(m.kind, MoveKind::Castle) || self.cells[m.to] == Cell::Occupied(mover, PieceKind::King);
        self.castling_rights.retain(|right| {
            let own_king_moved = king_moved && right.side == mover;
            !own_king_moved && right.rook_cell != m.from && right.rook_cell != m.to
        });
    }

    // --- attack detection by scanning out from the target ---

    /// Is `target` attacked by any piece of `attacker`? Scans from `target` outwards: knight
    /// and king offsets for those pieces, the two pawn cells, and each ray until it is blocked.
    pub fn is_attacked(&self, target: usize, attacker: Side) -> bool {
        let holds = |cell: usize, kind: PieceKind| self.cells[cell] == Cell::Occupied(attacker, kind);
        // An attacking pawn stands one row behind the target, seen from the attacker.
        let pawn_row = step(target, -attacker.pawn_push());
        if holds(step(pawn_row, -1), PieceKind::Pawn) || holds(step(pawn_row, 1), PieceKind::Pawn) {
            return true;
        }
        if KNIGHT_OFFSETS.iter().any(|&o| holds(step(target, o), PieceKind::Knight)) {
            return true;
        }
        if KING_OFFSETS.iter().any(|&o| holds(step(target, o), PieceKind::King)) {
            return true;
        }
        let ray_hits = |offsets: &[i32], kind: PieceKind| {
            offsets.iter().any(|&offset| {
                let first_piece = self.first_non_empty(target, offset);
                holds(first_piece, kind) || holds(first_piece, PieceKind::Queen)
            })
        };
        ray_hits(&DIAGONAL_OFFSETS, PieceKind::Bishop) || ray_hits(&ORTHOGONAL_OFFSETS, PieceKind::Rook)
    }

    /// The first cell from `from` (exclusive) along `offset` that is not empty (a piece or a
    /// border sentinel).
    fn first_non_empty(&self, from: usize, offset: i32) -> usize {
        let mut cell = step(from, offset);
        while self.cells[cell] == Cell::Empty {
            cell = step(cell, offset);
        }
        cell
    }
}

/// Adds a pawn move to `to`, or the four promotions when `to` is on a last rank.
fn push_pawn_move(from: usize, to: usize, moves: &mut Vec<MailboxMove>) {
    let last_rank = rank_of(to) == 0 || rank_of(to) == 7;
    if last_rank {
        for kind in PROMOTION_KINDS {
            moves.push(MailboxMove { from, to, kind: MoveKind::Promotion(kind) });
        }
    } else {
        moves.push(MailboxMove { from, to, kind: MoveKind::Normal });
    }
}

/// Where king and rook end up: g and f files when the rook is towards h, c and d otherwise.
fn castling_targets(king: usize, rook: usize) -> (usize, usize) {
    let rank = rank_of(king);
    if rook > king {
        (cell_of(6, rank), cell_of(5, rank))
    } else {
        (cell_of(2, rank), cell_of(3, rank))
    }
}

/// The cells of one rank from `a` to `b`, both included, in either order.
fn cells_between_inclusive(a: usize, b: usize) -> Vec<usize> {
    (a.min(b)..=a.max(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted_moves(fen: &str) -> Vec<String> {
        let board = MailboxBoard::from_fen(fen).unwrap();
        let mut moves: Vec<String> = board.legal_moves().iter().map(MailboxMove::uci).collect();
        moves.sort();
        moves
    }

    #[test]
    fn cells_follow_the_10x12_layout() {
        assert_eq!(parse_square_name("a8"), Some(21));
        assert_eq!(parse_square_name("h8"), Some(28));
        assert_eq!(parse_square_name("a1"), Some(91));
        assert_eq!(parse_square_name("h1"), Some(98));
        assert_eq!(square_name(65), "e4");
        assert_eq!(parse_square_name("i1"), None);
    }

    #[test]
    fn start_position_perft() {
        // Published: chessprogramming.org "Perft Results", initial position.
        let board = MailboxBoard::startpos();
        assert_eq!(board.perft(1), 20);
        assert_eq!(board.perft(2), 400);
        assert_eq!(board.perft(3), 8_902);
    }

    #[test]
    fn castling_is_king_takes_rook() {
        let moves = sorted_moves("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert!(moves.contains(&"e1h1".to_string()) && moves.contains(&"e1a1".to_string()), "{moves:?}");
        // Attacked path square f1: no short castling.
        let moves = sorted_moves("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert!(!moves.contains(&"e1h1".to_string()), "{moves:?}");
        // Only b1 attacked: long castling is still legal (the rook crosses b1, the king does not).
        let moves = sorted_moves("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert!(moves.contains(&"e1a1".to_string()), "{moves:?}");
    }

    #[test]
    fn chess960_castling_with_king_already_on_target() {
        // King g1, rook h1: castling only moves the rook to f1.
        let moves = sorted_moves("6kr/8/8/8/8/8/8/6KR w Hh - 0 1");
        assert!(moves.contains(&"g1h1".to_string()), "{moves:?}");
    }

    #[test]
    fn en_passant_horizontal_pin_is_refused() {
        let moves = sorted_moves("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1");
        assert!(!moves.contains(&"b5c6".to_string()), "{moves:?}");
        let moves = sorted_moves("8/8/8/KPp5/8/8/8/4k3 w - c6 0 1");
        assert!(moves.contains(&"b5c6".to_string()), "{moves:?}");
    }

    #[test]
    fn malformed_fens_are_refused() {
        for fen in [
            "",
            "8/8/8/8/8/8/8/8 w - -",
            "4k3/8/8/8/8/8/8/4K3 x - -",
            "4k3/8/8/8/8/8/8/4K3 w K -",
            "4k3/8/8/8/8/8/8/4K3 w - e3",
            "4k3/8/8/8/8/8/8/4K2R w KK -",
            "4k4/8/8/8/8/8/8/4K3 w - -",
            "P3k3/8/8/8/8/8/8/4K3 w - -",
        ] {
            assert!(MailboxBoard::from_fen(fen).is_none(), "{fen}");
        }
    }
}
