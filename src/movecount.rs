//! Counting legal moves without listing them: perft's last two plies.
//!
//! Most positions at the leaves of a perft tree are not in check and have few pinned pieces,
//! so the counter handles that case on its own terms: a knight's moves are the sum of eight
//! "empty or enemy" tests, a slider's the lengths of its rays plus one for an enemy at the
//! end, a pawn's a handful of tests added up, all without a branch per move. Positions in
//! check, pinned pieces, castling, en passant and the king keep the generator's own code with
//! a counting sink, so every count has one source of truth for legality.
//!
//! [`Position::perft2`] counts two plies. The replies to different moves of one position are
//! counted over the same opponent pieces on nearly the same board: a move changes two squares
//! (four for castling, three for en passant), and a piece none of whose moves can touch those
//! squares moves as before, unless it is pinned now. So each opponent piece's moves are counted
//! once, ignoring pins, and after each move only the pieces that are pinned, or that reach a
//! changed square on an empty board (one attack-table lookup), are counted again. King moves,
//! castling, checks and en passant are found afresh after every move.

use crate::attacks::Threats;
use crate::movegen::{gen, MoveCounter};
use crate::mv::{Move, MoveList};
use crate::piece::{flag, Color, Kind, Piece};
use crate::position::{rights, Position};
use crate::square::{Square, Step, BISHOP_STEPS, KING_STEPS, KNIGHT_STEPS, ROOK_STEPS};
use crate::tables::{delta_index, ATTACK, DELTA_COUNT, KING_ZONE};

/// Bit of the enemy's colour in a board byte, as a shift (see [`crate::piece::flag`]).
#[inline(always)]
fn enemy_shift(us: Color) -> u32 {
    match us {
        Color::White => 7,
        Color::Black => 6,
    }
}

/// What the side to move in a perft tree's leaves could do before the last move: moves of
/// each piece but the king by square (pins aside), their sum, the king's steps, and the
/// castling rights whose castling was legal (bit = right).
struct Base<'a> {
    pieces: &'a [u8; 128],
    total: u64,
    king_steps: u8,
    castles: u8,
}

/// `PAWN_REACH[color][delta_index(sq, pawn)]`: whether what stands on `sq` can change the
/// moves of a pawn of `color` (the squares one and two ahead, and the two it captures on).
static PAWN_REACH: [[bool; DELTA_COUNT]; 2] = build_pawn_reach();

const fn build_pawn_reach() -> [[bool; DELTA_COUNT]; 2] {
    let mut table = [[false; DELTA_COUNT]; 2];
    let forward = [Color::White.forward() as i32, Color::Black.forward() as i32];
    let mut c = 0;
    while c < 2 {
        let f = forward[c];
        let deltas = [f, 2 * f, f - 1, f + 1];
        let mut i = 0;
        while i < 4 {
            table[c][(deltas[i] + 119) as usize] = true;
            i += 1;
        }
        c += 1;
    }
    table
}

impl Position {
    /// The number of legal moves, counted without building a list.
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let threats = self.threats();
        if threats.checkers.count() != 0 {
            return self.count_evasions(&threats);
        }
        let mut n = self.count_king_moves();
        let c = self.side.index();
        let shift = enemy_shift(self.side);
        for slot in 1..self.officers[c] as usize {
            n += self.officer_moves(self.list[c][slot & 15].raw(), threats.pin_step[slot & 15], shift);
        }
        for slot in self.officers[c] as usize..self.count[c] as usize {
            n += self.pawn_moves_counted(self.list[c][slot & 15], threats.pin_step[slot & 15]);
        }
        n + self.count_en_passant(&threats)
    }

    /// Perft to depth 2: the legal replies to every legal move, added up (see the module
    /// notes for how the replies of sibling positions share their counting).
    pub fn perft2(&mut self) -> u64 {
        let mut moves = MoveList::new();
        self.generate::<{ gen::ALL }, MoveList>(&mut moves);
        // Each opponent piece's moves on this board, pins and checks aside, by square.
        let them = self.side.flip();
        let t = them.index();
        let shift = enemy_shift(them);
        let mut base = [0u8; 128];
        let mut base_total = 0u64;
        for slot in 1..self.officers[t] as usize {
            let from = self.list[t][slot & 15].raw();
            let n = self.officer_moves(from, 0, shift);
            base[from as usize & 127] = n as u8;
            base_total += n;
        }
        for slot in self.officers[t] as usize..self.count[t] as usize {
            let from = self.list[t][slot & 15];
            let n = self.unpinned_pawn_moves(from, them);
            base[from.index() & 127] = n as u8;
            base_total += n;
        }
        // The opponent king's steps and castling moves on this board.
        let king = self.king(them);
        let king_steps = self.king_targets::<{ gen::ALL }>(them, king);
        let mut castles = 0u8;
        let mut bits = self.castling & rights::of(them);
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            castles |= (self.castling_is_legal_for(them, king, slot) as u8) << slot;
        }
        let base = Base { pieces: &base, total: base_total, king_steps, castles };
        let mut nodes = 0;
        for &m in moves.iter() {
            let undo = self.make(m);
            let (from, to) = (m.from().raw(), m.to().raw());
            nodes += if m.is_castle() {
                let squares = [from, to, m.castle_king_target().raw(), m.castle_rook_target().raw()];
                self.count_after::<4>(squares, &base)
            } else if m.is_en_passant() {
                // The taken pawn stands one step beyond `to` as the side now to move sees it.
                let taken = to.wrapping_add(self.side.forward() as u8);
                self.count_after::<3>([from, to, taken], &base)
            } else {
                self.count_after::<2>([from, to], &base)
            };
            self.unmake(m, &undo);
        }
        nodes
    }

    /// [`Position::count_legal_moves`] just after a move that changed the squares `changed`
    /// (from and to; for en passant the taken pawn's square; for castling the king's and
    /// rook's targets too), given what the side to move could do before it (`base`).
    #[inline(always)]
    fn count_after<const N: usize>(&self, changed: [u8; N], base: &Base) -> u64 {
        let threats = self.threats();
        if threats.checkers.count() != 0 {
            return self.count_evasions(&threats);
        }
        let changed = changed.map(Square::from_index_unchecked);
        let us = self.side;
        let king = self.king(us);
        let king_steps = if self.king_steps_may_differ(king, &changed) {
            self.king_targets::<{ gen::ALL }>(us, king)
        } else {
            base.king_steps
        };
        let mut n = base.total + king_steps.count_ones() as u64 + self.count_en_passant(&threats);
        let mut bits = self.castling & rights::of(us);
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            // A blocked path is the common case, and the cheapest to see.
            let path = &self.castle_paths[slot & 3];
            let clear = path.empty[..path.empty_len as usize & 7].iter().all(|&sq| self.board[sq as usize].is_none());
            n += (clear
                && if self.castling_may_differ(king, slot, &changed) {
                    self.castling_is_legal(king, slot)
                } else {
                    base.castles >> slot & 1 != 0
                }) as u64;
        }
        // A piece taken by the move stood on a changed square; nothing else of ours did.
        let base_moves = base.pieces;
        for sq in changed {
            n -= base_moves[sq.index() & 127] as u64;
        }
        let c = us.index();
        let shift = enemy_shift(us);
        for slot in 1..self.officers[c] as usize {
            let from = self.list[c][slot & 15];
            let pin = threats.pin_step[slot & 15];
            let flags = self.board[from.index()].flags();
            // A slider's count changes only where a changed square is the first piece (or
            // gap) along one of its rays, so it sees that square along a clear line.
            let reached = changed.iter().any(|&sq| {
                ATTACK[delta_index(from, sq)] & flags != 0 && (flags == flag::KNIGHT || self.line_is_clear(from, sq))
            });
            if pin != 0 || reached {
                n = n - base_moves[from.index() & 127] as u64 + self.officer_moves(from.raw(), pin, shift);
            }
        }
        let pawn_reach = &PAWN_REACH[c];
        for slot in self.officers[c] as usize..self.count[c] as usize {
            let from = self.list[c][slot & 15];
            let pin = threats.pin_step[slot & 15];
            let reached = changed.iter().fold(false, |r, &sq| r | pawn_reach[delta_index(sq, from)]);
            if pin != 0 || reached {
                n = n - base_moves[from.index() & 127] as u64 + self.pawn_moves_counted(from, pin);
            }
        }
        n
    }

    /// Can the squares `changed` by the last move have changed where the king on `king` may
    /// step? Only if one is next to the king, or a knight's jump from a square it might step
    /// to, or sees such a square along a clear line (the king lifted, as when it steps away
    /// along a checking line): a piece arriving, leaving, unmasking or blocking a line there.
    #[inline(always)]
    fn king_steps_may_differ(&self, king: Square, changed: &[Square]) -> bool {
        let us = self.side;
        // The squares the king might step to: on the board and not held by its own side.
        let mut free = 0u8;
        for (i, &d) in KING_STEPS.iter().enumerate() {
            let to = king.raw().wrapping_add(d as u8);
            free |= ((to & 0x88 == 0 && !self.board[to as usize].is_color(us)) as u8) << i;
        }
        changed.iter().any(|&sq| {
            let d = delta_index(sq, king);
            if ATTACK[d] & flag::KING != 0 || KING_ZONE[Kind::Knight.index()][d] & free != 0 {
                return true;
            }
            let mut lines = KING_ZONE[Kind::Queen.index()][d] & free;
            while lines != 0 {
                let i = lines.trailing_zeros() as usize;
                lines &= lines - 1;
                let q = Square::from_index_unchecked(king.raw().wrapping_add(KING_STEPS[i] as u8));
                if self.line_is_clear_through(sq, q, king, king) {
                    return true;
                }
            }
            false
        })
    }

    /// Can the squares `changed` by the last move have made castling right `slot` legal or
    /// illegal? Only if one is on the castling path (the squares between, king and rook), or
    /// is a knight's jump or a step from a square the king crosses, or sees one along a clear
    /// line with king and rook lifted (a piece arriving, leaving, unmasking or blocking there).
    #[inline(always)]
    fn castling_may_differ(&self, king: Square, slot: usize, changed: &[Square]) -> bool {
        let path = &self.castle_paths[slot & 3];
        let rook = self.castle_rook[slot & 3];
        let row = king.raw() & 0x70;
        let mut path_files = 1u8 << (king.raw() & 7) | 1 << (rook.raw() & 7);
        for &sq in &path.empty[..path.empty_len as usize & 7] {
            path_files |= 1 << (sq & 7);
        }
        for &sq in changed {
            if sq.raw() & 0x70 == row && path_files >> (sq.raw() & 7) & 1 != 0 {
                return true;
            }
            for &q in &path.king_path[..path.king_path_len as usize & 7] {
                let q = Square::from_index_unchecked(q);
                let relation = ATTACK[delta_index(sq, q)];
                if relation & (flag::KNIGHT | flag::KING) != 0
                    || relation & flag::SLIDER != 0 && self.line_is_clear_through(sq, q, king, rook)
                {
                    return true;
                }
            }
        }
        false
    }

    /// Legal moves in check, by the generator.
    #[inline(never)]
    fn count_evasions(&self, threats: &Threats) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate_with::<{ gen::ALL }, MoveCounter>(threats, &mut counter);
        counter.0
    }

    /// King steps and castling, not in check.
    #[inline(always)]
    fn count_king_moves(&self) -> u64 {
        let king = self.king(self.side);
        let mut counter = MoveCounter(0);
        self.king_moves::<{ gen::ALL }, MoveCounter>(king, &mut counter);
        if self.castling != 0 {
            self.castling_moves(king, &mut counter);
        }
        counter.0
    }

    /// Moves of the knight, bishop, rook or queen on `from` (of the side whose enemy colour
    /// bit is at `shift`), not in check; a pinned piece keeps those along its pin line.
    #[inline(always)]
    fn officer_moves(&self, from: u8, pin: Step, shift: u32) -> u64 {
        let flags = self.board[from as usize].flags();
        let mut n = 0u64;
        if flags == flag::KNIGHT {
            if pin == 0 {
                for d in KNIGHT_STEPS {
                    let target = self.board[from.wrapping_add(d as u8) as usize].raw();
                    // Empty, or an enemy (walls and our own pieces are neither).
                    n += (target == 0) as u64 | (target >> shift) as u64 & 1;
                }
            }
            return n;
        }
        if pin == 0 {
            if flags & flag::BISHOP != 0 {
                n += self.count_rays(from, &BISHOP_STEPS, shift);
            }
            if flags & flag::ROOK != 0 {
                n += self.count_rays(from, &ROOK_STEPS, shift);
            }
        } else {
            // A pinned slider keeps the moves along its pin line when it moves that way.
            let along = if pin.unsigned_abs() == 16 || pin.unsigned_abs() == 1 { flag::ROOK } else { flag::BISHOP };
            if flags & along != 0 {
                n += self.count_ray(from, pin, shift) + self.count_ray(from, -pin, shift);
            }
        }
        n
    }

    #[inline(always)]
    fn count_rays(&self, from: u8, steps: &[Step; 4], shift: u32) -> u64 {
        steps.iter().map(|&d| self.count_ray(from, d, shift)).sum()
    }

    /// Empty squares along one ray, plus one if the piece that ends it is an enemy.
    #[inline(always)]
    fn count_ray(&self, from: u8, d: Step, shift: u32) -> u64 {
        let mut to = from.wrapping_add(d as u8);
        let mut n = 0u64;
        while self.board[to as usize].is_none() {
            n += 1;
            to = to.wrapping_add(d as u8);
        }
        n + ((self.board[to as usize].raw() >> shift) & 1) as u64
    }

    /// Moves of the side to move's pawn on `from` but en passant, not in check: a pinned one
    /// by the generator (en passant included, as [`Position::count_en_passant`] leaves it).
    #[inline(always)]
    fn pawn_moves_counted(&self, from: Square, pin: Step) -> u64 {
        if pin == 0 {
            return self.unpinned_pawn_moves(from, self.side);
        }
        let mut counter = MoveCounter(0);
        self.pawn_moves::<{ gen::ALL }, false, MoveCounter>(from, pin, !0, &mut counter);
        counter.0
    }

    /// Pushes and captures of `us`'s pawn on `from`, pins and en passant aside, added up
    /// without a branch per move.
    #[inline(always)]
    fn unpinned_pawn_moves(&self, from: Square, us: Color) -> u64 {
        let shift = enemy_shift(us);
        let forward = us.forward() as u8;
        let (promotion_row, start_row) = if us == Color::White { (1, 6) } else { (6, 1) };
        let enemy = |sq: u8| ((self.board[sq as usize].raw() >> shift) & 1) as u64;
        let empty = |sq: u8| self.board[sq as usize].is_none() as u64;
        let push = from.raw().wrapping_add(forward);
        let row = from.raw() >> 4;
        let single = empty(push);
        let moves = single + enemy(push.wrapping_sub(1)) + enemy(push.wrapping_add(1));
        if row == promotion_row {
            4 * moves
        } else {
            moves + (single & (row == start_row) as u64 & empty(push.wrapping_add(forward)))
        }
    }

    /// En passant captures by unpinned pawns (pinned ones were counted with their other moves).
    #[inline(always)]
    fn count_en_passant(&self, threats: &Threats) -> u64 {
        match self.en_passant {
            None => 0,
            Some(ep) => self.count_en_passant_to(ep, threats),
        }
    }

    #[inline(never)]
    fn count_en_passant_to(&self, ep: Square, threats: &Threats) -> u64 {
        let us = self.side;
        let pawn = Piece::new(us, Kind::Pawn);
        let behind = ep.raw().wrapping_sub(us.forward() as u8);
        let mut n = 0;
        for from in [behind.wrapping_sub(1), behind.wrapping_add(1)] {
            if from & 0x88 == 0
                && self.board[from as usize] == pawn
                && threats.pin_step[self.list_index[from as usize] as usize & 15] == 0
            {
                let m = Move::en_passant(Square::from_index_unchecked(from), ep);
                n += self.en_passant_is_legal(m) as u64;
            }
        }
        n
    }
}
