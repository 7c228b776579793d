//! Counting legal moves without listing them: perft's last two plies.
//!
//! Most positions at the leaves of a perft tree are not in check and have few pinned pieces,
//! so the counter handles that case on its own terms: a knight's moves are the sum of eight
//! "empty or enemy" tests, a slider's the lengths of its rays plus one for an enemy at the
//! end, a pawn's a handful of tests added up, all without a branch per move. Pinned pawns,
//! castling, en passant and the king keep the generator's own code with a counting sink, so
//! those counts have one source of truth for legality. A side in check counts its evasions
//! from the few squares that answer the check (`evasions.rs`); the differential test holds
//! every count to the mailbox generator's.
//!
//! [`Position::perft2`] counts two plies. The replies to different moves of one position are
//! counted over the same opponent pieces on nearly the same board: a move changes two squares
//! (four for castling, three for en passant), and a piece none of whose moves can touch those
//! squares moves as before, unless it is pinned now. So each opponent piece's moves are counted
//! once, ignoring pins, and each piece marks the squares whose contents its count depends on
//! (its rays up to and including the first piece met, its pawn squares, and of its jumps those
//! holding a piece of its own side, the only ones a move of the other side can change for it).
//! After each move only the pieces that are pinned, or marked on a changed square (one table
//! lookup per changed square for all of them), are counted again. Each of the king's steps and
//! each castling keep their count likewise unless a changed square lies where it could attack
//! or block one of the squares they need (a step legal before a one-piece move is then tested
//! against the moved piece and the line it opened alone), and the pins found before the moves
//! serve unless a changed square lies on one of the king's lines (up to the second piece met)
//! or a knight's jump from it (with no pins before a one-piece move, only the moved piece and
//! the king's lines through its two squares are looked at again); en passant is found afresh
//! after every move. A plain move (no capture, castling or promotion, and no double step
//! beside an enemy pawn) that touches none of these squares is not made at all: its replies
//! number the node's own count. The other moves are made without updating keys and
//! score, which nothing below needs, and quiet ones on the board and lists alone.

use crate::attacks::{Threats, LEAPERS};
use crate::movegen::{gen, MoveCounter};
use crate::mv::{Move, MoveList};
use crate::piece::{flag, Color, Kind, Piece};
use crate::position::{rights, Position};
use crate::square::{Square, Step, BISHOP_STEPS, KING_STEPS, KNIGHT_STEPS, ROOK_STEPS};
use crate::tables::{delta_index, step_between, ATTACK};

mod evasions;
mod sets;
use sets::{bit, equal_bytes, line_to_first, nonzero_bytes, ray_index, square_of, JUMPS};

/// Bit of the enemy's colour in a board byte, as a shift (see [`crate::piece::flag`]).
#[inline(always)]
fn enemy_shift(us: Color) -> u32 {
    match us {
        Color::White => 7,
        Color::Black => 6,
    }
}

/// What the side to move in a perft tree's leaves could do before the last move, and where a
/// change on the board can alter it. Bit `s` of a `reach` entry stands for the piece in slot
/// `s` of that side's list before the move (a move of the other side never moves those
/// pieces, it can only take one); a `u64` reach has a bit per square ([`bit`]).
struct Base {
    /// Moves of each piece but the king, pins aside, by square (0 elsewhere).
    by_square: [u8; 256],
    /// By list slot, a slider's moves along each ray, a byte per step of `KING_STEPS`: a
    /// change on one of its rays recounts that ray alone.
    rays: [u64; 16],
    /// By square: the pieces whose count depends on what stands there.
    reach: [u16; 256],
    /// The square of each list slot.
    squares: [u8; 16],
    total: u64,
    king_steps: u8,
    /// Squares that can change where the king may step.
    king_reach: u64,
    /// By king step (as in `king_steps`): the squares that can change whether it is legal.
    king_step_reach: [u64; 8],
    /// The castling rights whose castling was legal (bit = right).
    castles: u8,
    /// By castling slot: the squares that can make that castling legal or illegal.
    castle_reach: [u64; 4],
    /// The union of `castle_reach`: when a move touches none of it, the castlings found legal
    /// stay legal and no other becomes so.
    castle_any_reach: u64,
    /// The side's pins (it cannot be in check while the other side is to move).
    threats: Threats,
    /// Squares that can change its checks and pins.
    threat_reach: u64,
    /// Whether a piece of it is pinned.
    pinned: bool,
    /// Squares that can change its king's steps, castling, checks or pins; all when a piece
    /// is pinned (a pinned piece is counted afresh after every move).
    quiet_reach: u64,
    /// Its legal moves, while no square of `quiet_reach` or of a piece's reach changes.
    quiet_count: u64,
}

impl Base {
    #[inline(always)]
    fn empty() -> Base {
        Base {
            by_square: [0; 256],
            rays: [0; 16],
            reach: [0; 256],
            squares: [0; 16],
            total: 0,
            king_steps: 0,
            king_reach: 0,
            king_step_reach: [0; 8],
            castles: 0,
            castle_reach: [0; 4],
            castle_any_reach: 0,
            threats: Threats::default(),
            threat_reach: 0,
            pinned: false,
            quiet_reach: !0,
            quiet_count: 0,
        }
    }
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
        let mut base = Base::empty();
        self.reply_base(&mut base);
        let base = &base;
        let snapshot = self.snapshot();
        let their_pawn = Piece::new(self.side.flip(), Kind::Pawn);
        let mut nodes = 0;
        for &m in moves.iter() {
            let (from, to) = (m.from().raw(), m.to().raw());
            // A move that takes nothing, lets them take nothing en passant (a double step
            // beside no pawn of theirs) and lands no new piece leaves the replies as they were
            // when none of them depends on its two squares: count them without making it.
            if !(m.is_capture() || m.is_castle() || m.is_promotion())
                && (bit(from) | bit(to)) & base.quiet_reach == 0
                && base.reach[from as usize] | base.reach[to as usize] == 0
                && !(m.is_double_push()
                    && (self.board[to.wrapping_sub(1) as usize] == their_pawn
                        || self.board[to.wrapping_add(1) as usize] == their_pawn))
            {
                nodes += base.quiet_count;
                continue;
            }
            if !(m.is_capture() || m.is_castle() || m.is_promotion()) {
                self.make_quiet(m);
                nodes += self.count_after::<2>([from, to], false, base);
                self.unmake_quiet(m, &snapshot);
                continue;
            }
            let undo = self.make_unkeyed_from(m, &snapshot);
            nodes += if m.is_castle() {
                let squares = [from, to, m.castle_king_target().raw(), m.castle_rook_target().raw()];
                self.count_after::<4>(squares, false, base)
            } else if m.is_en_passant() {
                // The taken pawn stands one step beyond `to` as the side now to move sees it.
                let taken = to.wrapping_add(self.side.forward() as u8);
                self.count_after::<3>([from, to, taken], true, base)
            } else {
                self.count_after::<2>([from, to], m.is_capture(), base)
            };
            self.unmake_unkeyed(m, &undo);
        }
        nodes
    }

    /// The opponent's moves on this board, pins and checks aside, with where each count can
    /// change (see [`Base`]), written into a fresh [`Base::empty`] in place: it is a kilobyte,
    /// which a return by value would copy.
    fn reply_base(&self, base: &mut Base) {
        let them = self.side.flip();
        let t = them.index();
        let shift = enemy_shift(them);
        base.threats = self.threats_for(them);
        for slot in 1..self.count[t] as usize {
            let slot = slot & 15;
            let from = self.list[t][slot].raw();
            let bit = 1u16 << slot;
            let flags = self.board[from as usize].flags();
            let reach = &mut base.reach;
            let mut n = 0u64;
            if flags & flag::PAWN != 0 {
                let forward = them.forward() as u8;
                let push = from.wrapping_add(forward);
                for sq in [push, push.wrapping_sub(1), push.wrapping_add(1), push.wrapping_add(forward)] {
                    reach[sq as usize] |= bit;
                }
                n = self.unpinned_pawn_moves(Square::from_index_unchecked(from), them);
            } else if flags == flag::KNIGHT {
                // The other side's moves leave an empty square or one of theirs empty or
                // theirs, which a knight may jump to either way: only taking one of its own
                // side's pieces, which it could not, changes its count.
                let own = self.board[from as usize].raw() & (flag::WHITE | flag::BLACK);
                for d in KNIGHT_STEPS {
                    let to = from.wrapping_add(d as u8);
                    let target = self.board[to as usize].raw();
                    reach[to as usize] |= bit * (target & own != 0) as u16;
                    n += (target == 0) as u64 | (target >> shift) as u64 & 1;
                }
            } else {
                let mut rays = 0u64;
                for (i, &d) in KING_STEPS.iter().enumerate() {
                    // KING_STEPS alternate no kind: 0, 2, 5, 7 are diagonal, the rest straight.
                    let along = if matches!(i, 0 | 2 | 5 | 7) { flag::BISHOP } else { flag::ROOK };
                    if flags & along != 0 {
                        let count = self.count_ray_reaching(from, d, shift, reach, bit);
                        rays |= count << (8 * i);
                        n += count;
                    }
                }
                base.rays[slot] = rays;
            }
            base.squares[slot] = from;
            base.by_square[from as usize] = n as u8;
            base.total += n;
        }
        let king = self.king(them);
        base.king_steps = self.king_targets::<{ gen::ALL }>(them, king);
        // The lines from the king and its steps are walked as sets over the occupied squares.
        let occupied = self.occupied();
        base.king_step_reach = self.king_step_reach(king, occupied);
        base.king_reach = base.king_step_reach.iter().fold(0, |a, &r| a | r);
        base.threat_reach = self.threat_reach(king, occupied);
        let mut bits = self.castling & rights::of(them);
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize & 3;
            bits &= bits - 1;
            let blockers = self.castle_blockers(slot);
            if blockers != 0 {
                // Only a move off one of these squares can clear the way.
                base.castle_reach[slot] = blockers;
            } else {
                base.castles |= (self.castling_is_legal_for(them, king, slot) as u8) << slot;
                base.castle_reach[slot] = self.castle_reach(king, slot, &base.king_step_reach, occupied);
            }
        }
        debug_assert_eq!(base.threats.checkers.count(), 0);
        base.pinned = base.threats.pin_step.iter().any(|&p| p != 0);
        base.castle_any_reach = base.castle_reach.iter().fold(0, |a, &r| a | r);
        if !base.pinned {
            base.quiet_reach = base.threat_reach | base.king_reach | base.castle_any_reach;
        }
        base.quiet_count = base.total + base.king_steps.count_ones() as u64 + base.castles.count_ones() as u64;
    }

    /// [`Position::count_legal_moves`] just after a move that changed the squares `changed`
    /// (from and to; for en passant the taken pawn's square; for castling the king's and
    /// rook's targets too), given what the side to move could do before it (`base`).
    /// A capture reorders the side's piece list, by which pins are kept: the pins found
    /// before it serve only when there were none.
    #[inline(always)]
    fn count_after<const N: usize>(&self, changed: [u8; N], capture: bool, base: &Base) -> u64 {
        let fresh;
        let changed_set = changed.iter().fold(0, |set, &sq| set | bit(sq));
        let hits = |mask: u64| mask & changed_set != 0;
        let threats = if N == 2 && !base.pinned && hits(base.threat_reach) {
            let [from, to] = [changed[0], changed[1 % N]].map(Square::from_index_unchecked);
            fresh = self.threats_after_one_move(from, to);
            &fresh
        } else if (capture && base.pinned) || hits(base.threat_reach) {
            fresh = self.threats();
            &fresh
        } else {
            &base.threats
        };
        if threats.checkers.count() != 0 {
            return self.count_evasions(threats);
        }
        let us = self.side;
        let king = self.king(us);
        let king_steps = if hits(base.king_reach) {
            self.king_steps_after(king, base, changed, changed_set)
        } else {
            base.king_steps
        };
        let mut n = base.total + king_steps.count_ones() as u64 + self.count_en_passant(threats);
        // A right lost to the move was either found illegal or had its rook's square changed.
        let mut bits = 0;
        if hits(base.castle_any_reach) {
            bits = self.castling & rights::of(us);
        } else {
            n += base.castles.count_ones() as u64;
        }
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize & 3;
            bits &= bits - 1;
            n += if hits(base.castle_reach[slot]) {
                self.castling_is_legal(king, slot)
            } else {
                base.castles >> slot & 1 != 0
            } as u64;
        }
        // A piece taken by the move stood on a changed square; nothing else of ours did.
        let mut reached = 0u16;
        for sq in changed {
            n -= base.by_square[sq as usize] as u64;
            reached |= base.reach[sq as usize];
        }
        let pins = threats.pin_step.map(|p| p as u8);
        let pinned_any = u128::from_ne_bytes(pins) != 0;
        if pinned_any && !capture {
            // Only a capture reorders the list: the slots are those of `base`.
            reached |= nonzero_bytes(pins);
        } else if pinned_any {
            // `base` leaves square 0, a corner, in the king's slot and the unused ones; no
            // pinned piece stands on a corner, so only its own old slot matches its square.
            let c = us.index();
            let mut bits = nonzero_bytes(pins);
            while bits != 0 {
                let slot = bits.trailing_zeros() as usize & 15;
                bits &= bits - 1;
                reached |= equal_bytes(base.squares, self.list[c][slot].raw());
            }
        }
        reached &= !1;
        let shift = enemy_shift(us);
        while reached != 0 {
            let slot = reached.trailing_zeros() as usize & 15;
            reached &= reached - 1;
            let from = base.squares[slot];
            let piece = self.board[from as usize];
            // A piece taken by the move was accounted for above.
            if !piece.is_color(us) {
                continue;
            }
            let pin = if pinned_any { threats.pin_step[self.list_index[from as usize] as usize & 15] } else { 0 };
            if pin == 0 && piece.flags() & (flag::BISHOP | flag::ROOK) != 0 {
                // Only the rays through a changed square can have changed.
                let mut steps = 0u8;
                for sq in changed {
                    if base.reach[sq as usize] >> slot & 1 != 0 {
                        let (at, changed) = (Square::from_index_unchecked(from), Square::from_index_unchecked(sq));
                        steps |= 1 << ray_index(step_between(at, changed));
                    }
                }
                while steps != 0 {
                    let i = steps.trailing_zeros() as usize & 7;
                    steps &= steps - 1;
                    n = n + self.count_ray(from, KING_STEPS[i], shift) - (base.rays[slot] >> (8 * i) & 0xff);
                }
                continue;
            }
            let moves = if piece.is_pawn() {
                self.pawn_moves_counted(Square::from_index_unchecked(from), pin)
            } else {
                self.officer_moves(from, pin, shift)
            };
            n = n - base.by_square[from as usize] as u64 + moves;
        }
        n
    }

    /// By king step, the squares whose contents can change whether the king on `king` may
    /// take it: the square it steps to, and unless one of its own pieces stands there, a
    /// knight's jump from it, and the squares along each line from it up to the first piece
    /// met (the king lifted, as when it steps away along a checking line), that piece's square
    /// included. Off-board steps have none.
    fn king_step_reach(&self, king: Square, occupied: u64) -> [u64; 8] {
        let own = self.board[king.index()].raw() & (flag::WHITE | flag::BLACK);
        let mut masks = [0u64; 8];
        for (mask, d) in masks.iter_mut().zip(KING_STEPS) {
            let q = king.raw().wrapping_add(d as u8);
            if q & 0x88 != 0 {
                continue;
            }
            *mask = bit(q);
            if self.board[q as usize].raw() & own == 0 {
                *mask |= square_reach(q, occupied & !bit(king.raw()));
            }
        }
        masks
    }

    /// The steps the king on `king` of the side to move may take after a move that changed
    /// the squares `changed`: the steps found before it, but for those whose reach it touched,
    /// which are tested again (the king lifted). After a move of one piece from `changed[0]`
    /// to `changed[1]` a step that was legal can only have come under attack, by the moved
    /// piece or along a line the move opened: that is tested, not every enemy piece.
    #[inline(always)]
    fn king_steps_after<const N: usize>(&self, king: Square, base: &Base, changed: [u8; N], set: u64) -> u8 {
        let us = self.side;
        let mut steps = base.king_steps;
        for (i, &mask) in base.king_step_reach.iter().enumerate() {
            if mask & set == 0 {
                continue;
            }
            let q = Square::from_index_unchecked(king.raw().wrapping_add(KING_STEPS[i] as u8));
            let legal = if N == 2 && base.king_steps >> i & 1 != 0 {
                !self.newly_attacked(q, changed[0], changed[1], king, mask)
            } else {
                !self.board[q.index()].is_color(us) && !self.is_attacked_through(q, us.flip(), king, king)
            };
            steps = steps & !(1 << i) | (legal as u8) << i;
        }
        steps
    }

    /// Whether the king's step to `q`, which no enemy piece attacked before the enemy's move
    /// from `from` to `to` and whose reach (`mask`) that move touched, is attacked now: by
    /// the moved piece, or along the line from `q` through `from`, which the move may have
    /// opened (the king on `king` lifted, as when it steps).
    #[inline(always)]
    fn newly_attacked(&self, q: Square, from: u8, to: u8, king: Square, mask: u64) -> bool {
        let at = Square::from_index_unchecked(to);
        let hit = ATTACK[delta_index(at, q)] & self.board[to as usize].flags();
        if hit != 0 && (hit & LEAPERS != 0 || self.line_is_clear_through(at, q, king, king)) {
            return true;
        }
        let left = Square::from_index_unchecked(from);
        let line = ATTACK[delta_index(left, q)] & flag::QUEEN;
        if mask & bit(from) == 0 || line == 0 {
            return false;
        }
        // The first piece met from `q` through `from`: an enemy slider along such lines?
        let d = step_between(q, left) as u8;
        let mut sq = q.raw().wrapping_add(d);
        while self.board[sq as usize].is_none() || sq == king.raw() {
            sq = sq.wrapping_add(d);
        }
        let piece = self.board[sq as usize];
        piece.is_color(self.side.flip()) && piece.flags() & line != 0
    }

    /// The squares whose contents can change the checks and pins of the king on `king` (see
    /// [`Position::threats`]): a knight's jump away, and along each line the squares up to the
    /// first piece met if it is an enemy, else up to the second (a pinner behind a blocker).
    fn threat_reach(&self, king: Square, occupied: u64) -> u64 {
        let own = self.board[king.index()].raw() & (flag::WHITE | flag::BLACK);
        let k = king.raw();
        let mut mask = JUMPS[k as usize];
        for i in 0..8 {
            let line = line_to_first(k, i, occupied);
            let first = line & occupied;
            // A piece of ours may be pinned by the next piece met: look past it too.
            mask |= if first != 0 && self.board[square_of(first) as usize].raw() & own != 0 {
                line_to_first(k, i, occupied & !first)
            } else {
                line
            };
        }
        mask
    }

    /// The occupied squares among those castling `slot` needs empty.
    fn castle_blockers(&self, slot: usize) -> u64 {
        let path = &self.castle_paths[slot & 3];
        let mut mask = 0u64;
        for &sq in &path.empty[..path.empty_len as usize & 7] {
            mask |= bit(sq) * self.board[sq as usize].is_some() as u64;
        }
        mask
    }

    /// The squares whose contents can change whether castling `slot` is legal: the castling
    /// row from the outermost to the outermost of king, rook and their targets, and what can
    /// attack a square the king crosses ([`square_reach`], king and rook lifted).
    /// An empty square the king crosses next to the king has its reach in `step_reach` already
    /// (the king lifted; lifting the castling rook too only lengthens lines along the castling
    /// rank, which is then taken whole).
    fn castle_reach(&self, king: Square, slot: usize, step_reach: &[u64; 8], occupied: u64) -> u64 {
        let path = &self.castle_paths[slot & 3];
        let rook = self.castle_rook[slot & 3];
        let mut mask = bit(king.raw()) | bit(rook.raw());
        for &sq in &path.empty[..path.empty_len as usize & 7] {
            mask |= bit(sq);
        }
        let rank = 0xffu64 << (bit(king.raw()).trailing_zeros() & 56);
        for &q in &path.king_path[..path.king_path_len as usize & 7] {
            let d = q.wrapping_sub(king.raw()) as i8;
            mask |= if (d == 1 || d == -1) && self.board[q as usize].is_none() {
                step_reach[ray_index(d)] | rank
            } else {
                square_reach(q, occupied & !bit(king.raw()) & !bit(rook.raw()))
            };
        }
        mask
    }

    /// The occupied squares, as a [`bit`] set.
    fn occupied(&self) -> u64 {
        let mut set = 0;
        for c in 0..2 {
            for sq in self.list[c].iter().take(self.count[c] as usize) {
                set |= bit(sq.raw());
            }
        }
        set
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

    /// [`Position::count_ray`], marking in `reach` with `bit` every square it looked at.
    #[inline(always)]
    fn count_ray_reaching(&self, from: u8, d: Step, shift: u32, reach: &mut [u16; 256], bit: u16) -> u64 {
        let mut to = from.wrapping_add(d as u8);
        let mut n = 0u64;
        while self.board[to as usize].is_none() {
            reach[to as usize] |= bit;
            n += 1;
            to = to.wrapping_add(d as u8);
        }
        reach[to as usize] |= bit;
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

    /// En passant captures onto `ep` by unpinned pawns, each by the full legality test.
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

/// The squares from which a piece could attack `q`, or could stop attacking it, on a board
/// whose occupied squares are `occupied`: a knight's jump away, and along each line up to the
/// first piece met, that piece included.
fn square_reach(q: u8, occupied: u64) -> u64 {
    (0..8).fold(JUMPS[q as usize], |mask, i| mask | line_to_first(q, i, occupied))
}
