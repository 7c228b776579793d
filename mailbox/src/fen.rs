//! The FEN fields that need more than one look: the placement, and the castling and en
//! passant fields, which are read against the placed pieces.

use super::*;

impl MailboxBoard {
    /// Castling field: `-`, or letters `KQkq` (outermost rook on that side of the king) and
    /// `A`-`H` / `a`-`h` (the rook on that file).
    pub(super) fn parse_castling(&self, field: &str) -> Option<Vec<CastlingRight>> {
        let mut rights: Vec<CastlingRight> = Vec::new();
        if field == "-" {
            return Some(rights);
        }
        for letter in field.chars() {
            let side = if letter.is_ascii_uppercase() { Side::White } else { Side::Black };
            let king = self.king_cells[side.index()];
            if rank_of(king) != side.back_rank() {
                return None;
            }
            let rook_cell = match letter.to_ascii_lowercase() {
                'k' => self.outermost_rook(side, true)?,
                'q' => self.outermost_rook(side, false)?,
                file @ 'a'..='h' => {
                    let cell = cell_of((file as u8 - b'a') as usize, side.back_rank());
                    if self.cells[cell] != Cell::Occupied(side, PieceKind::Rook) {
                        return None;
                    }
                    cell
                }
                _ => return None,
            };
            let right = CastlingRight { side, rook_cell };
            let same_wing = |r: &CastlingRight| r.side == side && (r.rook_cell > king) == (rook_cell > king);
            if rights.iter().any(same_wing) {
                return None;
            }
            rights.push(right);
        }
        Some(rights)
    }

    /// The rook of `side` on its back rank furthest from the king, towards the h file
    /// (`king_side`) or the a file.
    pub(super) fn outermost_rook(&self, side: Side, king_side: bool) -> Option<usize> {
        let king = self.king_cells[side.index()];
        let rank = side.back_rank();
        let rook = Cell::Occupied(side, PieceKind::Rook);
        let files: Vec<usize> =
            if king_side { (file_of(king) + 1..8).rev().collect() } else { (0..file_of(king)).collect() };
        files.into_iter().map(|file| cell_of(file, rank)).find(|&cell| self.cells[cell] == rook)
    }

    /// En passant field: `-`, or the skipped square of a double push the opponent just made
    /// (empty, with the opponent's pawn in front of it and nothing behind it).
    /// The outer `Option` is parse success; the inner one is the square.
    pub(super) fn parse_en_passant(&self, field: &str) -> Option<Option<usize>> {
        if field == "-" {
            return Some(None);
        }
        let cell = parse_square_name(field)?;
        let us = self.side_to_move;
        let them = us.opponent();
        let expected_rank = match us {
            Side::White => 5,
            Side::Black => 2,
        };
        let pushed_pawn = step(cell, -us.pawn_push());
        let origin = step(cell, us.pawn_push());
        let plausible = rank_of(cell) == expected_rank
            && self.cells[cell] == Cell::Empty
            && self.cells[pushed_pawn] == Cell::Occupied(them, PieceKind::Pawn)
            && self.cells[origin] == Cell::Empty;
        if plausible {
            Some(Some(cell))
        } else {
            None
        }
    }
}

/// The placement field: cells and the two king cells, or `None` when malformed or when a
/// side does not have exactly one king. Pawns on the first or last rank are refused.
pub(super) fn parse_placement(field: &str) -> Option<([Cell; CELL_COUNT], [usize; 2])> {
    let mut cells = [Cell::Offboard; CELL_COUNT];
    let mut kings: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    let rows: Vec<&str> = field.split('/').collect();
    if rows.len() != 8 {
        return None;
    }
    for (row, text) in rows.iter().enumerate() {
        let rank = 7 - row;
        let mut file = 0;
        for letter in text.chars() {
            if let Some(run) = letter.to_digit(10) {
                if run == 0 || file + run as usize > 8 {
                    return None;
                }
                for _ in 0..run {
                    cells[cell_of(file, rank)] = Cell::Empty;
                    file += 1;
                }
                continue;
            }
            let kind = PieceKind::from_letter(letter)?;
            if file >= 8 || (kind == PieceKind::Pawn && (rank == 0 || rank == 7)) {
                return None;
            }
            let side = if letter.is_ascii_uppercase() { Side::White } else { Side::Black };
            let cell = cell_of(file, rank);
            cells[cell] = Cell::Occupied(side, kind);
            if kind == PieceKind::King {
                kings[side.index()].push(cell);
            }
            file += 1;
        }
        if file != 8 {
            return None;
        }
    }
    match (kings[0].as_slice(), kings[1].as_slice()) {
        ([white], [black]) => Some((cells, [*white, *black])),
        _ => None,
    }
}
