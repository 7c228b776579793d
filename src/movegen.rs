//! Legal move generation.
//!
//! One pass over the enemy pieces ([`Position::threats`]) finds the checkers and the pinned
//! pieces; then every generated move is legal by construction:
//! - a pinned piece only moves along its pin line (its step from the king is the pin step);
//! - in single check, other pieces must capture the checker or land between it and the king;
//! - the king never steps onto an attacked square (tested with the king lifted, so it does
//!   not hide in its own shadow on a checking line);
//! - en passant, which can expose the king along the rank, is made and tested;
//! - castling, in Chess960 generality, checks the squares between and the king's path.

use crate::attacks::{pawn_origins, Threats, LEAPERS};
use crate::mv::{Move, MoveList};
use crate::piece::{flag, Color, Kind, Piece};
use crate::position::{rights, Position};
use crate::square::{Square, Step, BISHOP_STEPS, KING_STEPS, KNIGHT_STEPS, ROOK_STEPS};
use crate::tables::{delta_index, ATTACK, KING_ZONE, STEP};

const PROMOTIONS: [Kind; 4] = [Kind::Queen, Kind::Knight, Kind::Rook, Kind::Bishop];

/// Which moves a generator call produces: `ALL`, or one of the two halves that staged move
/// picking asks for separately. `TACTICAL` is captures and promotions (what quiescence
/// searches), `QUIET` everything else, castling included.
pub mod gen {
    pub const ALL: u8 = 0;
    pub const TACTICAL: u8 = 1;
    pub const QUIET: u8 = 2;
}
use gen::{ALL, QUIET, TACTICAL};

/// Rows (row 0 is rank 8) of `us`'s pawns one step from promotion and on their start rank.
#[inline(always)]
fn pawn_rows(us: Color) -> (u8, u8) {
    if us == Color::White {
        (1, 6)
    } else {
        (6, 1)
    }
}

/// Bit set over the 128 0x88 indices: the squares a non-king move may land on.
type Targets = u128;
const ALL_TARGETS: Targets = !0;

impl Position {
    /// All legal moves.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<ALL, MoveList>(&mut list);
        list
    }

    /// Legal captures and promotions only (for quiescence search).
    #[inline]
    pub fn legal_tactical_moves(&self) -> MoveList {
        let mut tactical = MoveList::new();
        self.generate::<TACTICAL, MoveList>(&mut tactical);
        tactical
    }

    /// Legal quiet moves only: neither captures nor promotions.
    #[inline]
    pub fn legal_quiet_moves(&self) -> MoveList {
        let mut quiet = MoveList::new();
        self.generate::<QUIET, MoveList>(&mut quiet);
        quiet
    }

    /// Fills `list` with the legal moves of kind `MODE` (see [`gen`]).
    #[inline]
    pub fn generate<const MODE: u8, S: MoveSink>(&self, list: &mut S) {
        self.generate_with::<MODE, S>(&self.threats(), list);
    }

    /// [`Position::generate`] with the checkers and pins already known, so that a caller
    /// generating in stages finds them once.
    pub fn generate_with<const MODE: u8, S: MoveSink>(&self, threats: &Threats, list: &mut S) {
        let king = self.king(self.side);
        self.king_moves::<MODE, S>(king, list);
        match threats.checkers.count() {
            0 => {
                if MODE != TACTICAL {
                    self.castling_moves(king, list);
                }
                self.piece_moves::<MODE, false, S>(threats, ALL_TARGETS, list);
            }
            1 => {
                let (checker, step) = threats.checkers.first().unwrap_or((king, 0));
                let targets = evasion_targets(king, checker, step, self.board[checker.index()]);
                self.piece_moves::<MODE, true, S>(threats, targets, list);
            }
            _ => {}
        }
    }

    /// Moves of everything but the king. With `EVASION`, only moves landing on `targets`.
    #[inline(always)]
    fn piece_moves<const MODE: u8, const EVASION: bool, S: MoveSink>(
        &self,
        threats: &Threats,
        targets: Targets,
        list: &mut S,
    ) {
        let c = self.side.index();
        let officers = self.officers[c] as usize;
        let count = self.count[c] as usize;
        for slot in 1..officers {
            let from = self.list[c][slot];
            let pin = threats.pin_step[slot];
            let flags = self.board[from.index()].flags();
            if flags == flag::KNIGHT {
                if pin == 0 {
                    self.knight_moves::<MODE, EVASION, S>(from, targets, list);
                }
                continue;
            }
            if flags & flag::BISHOP != 0 {
                self.slider_moves::<MODE, EVASION, 4, S>(from, &BISHOP_STEPS, pin, targets, list);
            }
            if flags & flag::ROOK != 0 {
                self.slider_moves::<MODE, EVASION, 4, S>(from, &ROOK_STEPS, pin, targets, list);
            }
        }
        for slot in officers..count {
            let from = self.list[c][slot];
            self.pawn_moves::<MODE, EVASION, S>(from, threats.pin_step[slot], targets, list);
        }
    }

    #[inline(always)]
    fn knight_moves<const MODE: u8, const EVASION: bool, S: MoveSink>(
        &self,
        from: Square,
        targets: Targets,
        list: &mut S,
    ) {
        let them = self.side.flip();
        for d in KNIGHT_STEPS {
            let to = from.raw().wrapping_add(d as u8);
            if EVASION && targets >> (to & 0x7F) & 1 == 0 {
                continue;
            }
            // Off-board squares hold the wall: neither empty nor an enemy.
            let target = self.board[to as usize];
            if target.is_none() {
                if MODE != TACTICAL {
                    list.push(Move::quiet(from, Square::from_index_unchecked(to)));
                }
            } else if MODE != QUIET && target.is_color(them) {
                list.push(Move::capture(from, Square::from_index_unchecked(to)));
            }
        }
    }

    #[inline(always)]
    fn slider_moves<const MODE: u8, const EVASION: bool, const N: usize, S: MoveSink>(
        &self,
        from: Square,
        steps: &[Step; N],
        pin: Step,
        targets: Targets,
        list: &mut S,
    ) {
        if pin == 0 {
            for &d in steps {
                self.slide::<MODE, EVASION, S>(from, d, targets, list);
            }
        } else if steps.contains(&pin) {
            // A pinned slider may still move along its pin line, both ways.
            self.slide::<MODE, EVASION, S>(from, pin, targets, list);
            self.slide::<MODE, EVASION, S>(from, -pin, targets, list);
        }
    }

    /// One ray: quiet moves over empty squares, then a capture if the first piece met
    /// (or the board's wall) is an enemy.
    #[inline(always)]
    fn slide<const MODE: u8, const EVASION: bool, S: MoveSink>(
        &self,
        from: Square,
        d: Step,
        targets: Targets,
        list: &mut S,
    ) {
        let them = self.side.flip();
        let mut to = from.raw().wrapping_add(d as u8);
        loop {
            let target = self.board[to as usize];
            let on_target = !EVASION || targets >> (to & 0x7F) & 1 != 0;
            if target.is_some() {
                if MODE != QUIET && on_target && target.is_color(them) {
                    list.push(Move::capture(from, Square::from_index_unchecked(to)));
                }
                return;
            }
            if MODE != TACTICAL && on_target {
                list.push(Move::quiet(from, Square::from_index_unchecked(to)));
            }
            to = to.wrapping_add(d as u8);
        }
    }

    #[inline(always)]
    pub(crate) fn pawn_moves<const MODE: u8, const EVASION: bool, S: MoveSink>(
        &self,
        from: Square,
        pin: Step,
        targets: Targets,
        list: &mut S,
    ) {
        let us = self.side;
        let them = us.flip();
        let king = self.list[us.index()][0];
        let forward = us.forward();
        // Rows count down the board from rank 8 (row 0).
        let row = from.raw() >> 4;
        let (promotion_row, start_row) = pawn_rows(us);
        let promoting = row == promotion_row;
        let allowed = |to: u8| {
            (!EVASION || targets >> to & 1 != 0)
                && (pin == 0 || STEP[delta_index(king, Square::from_index_unchecked(to))] == pin)
        };

        // 0x88 is off the board, so it never equals a capture square.
        let en_passant = self.en_passant.map_or(0x88, |ep| ep.raw());
        let push = from.raw().wrapping_add(forward as u8);
        if self.board[push as usize].is_none() {
            if allowed(push) {
                let to = Square::from_index_unchecked(push);
                if promoting {
                    if MODE != QUIET {
                        for kind in PROMOTIONS {
                            list.push(Move::promotion(from, to, kind, false));
                        }
                    }
                } else if MODE != TACTICAL {
                    list.push(Move::quiet(from, to));
                }
            }
            if MODE != TACTICAL && row == start_row {
                let double = push.wrapping_add(forward as u8);
                if self.board[double as usize].is_none() && allowed(double) {
                    list.push(Move::double_push(from, Square::from_index_unchecked(double)));
                }
            }
        }
        if MODE == QUIET {
            return;
        }
        for side_step in [-1i8, 1] {
            let to = push.wrapping_add(side_step as u8);
            let target = self.board[to as usize];
            // Off-board entries hold the wall, which is of neither colour.
            if target.is_color(them) {
                if allowed(to) {
                    let sq = Square::from_index_unchecked(to);
                    if promoting {
                        for kind in PROMOTIONS {
                            list.push(Move::promotion(from, sq, kind, true));
                        }
                    } else {
                        list.push(Move::capture(from, sq));
                    }
                }
            } else if to == en_passant {
                let m = Move::en_passant(from, Square::from_index_unchecked(to));
                if self.en_passant_is_legal(m) {
                    list.push(m);
                }
            }
        }
    }

    /// Is `m` legal here? For moves that come from elsewhere (the hash table, killers) and
    /// are worth trying before anything is generated. Agrees with membership in
    /// [`Position::legal_moves`] for every `Move` value, flags included.
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        self.is_legal_with(&self.threats(), m)
    }

    /// [`Position::is_legal`] with the checkers and pins already known.
    pub fn is_legal_with(&self, threats: &Threats, m: Move) -> bool {
        let (from, to) = (m.from(), m.to());
        if !m.is_well_formed() || (from.raw() | to.raw()) & 0x88 != 0 || from == to {
            return false;
        }
        let piece = self.board[from.index()];
        if !piece.is_color(self.side) {
            return false;
        }
        let king = self.king(self.side);
        if m.is_castle() {
            return from == king && threats.checkers.count() == 0 && self.castling_slot_is_legal(king, m);
        }
        // The move this position would generate for (from, to, promotion); the flags of `m`
        // must match it exactly.
        let Some(expected) = self.move_shape(piece, from, to, m.promotion_kind()) else {
            return false;
        };
        if expected != m {
            return false;
        }
        if piece.is_king() {
            return !self.is_attacked_through(to, self.side.flip(), from, from);
        }
        if m.is_en_passant() {
            return self.en_passant_is_legal(m);
        }
        let pin = threats.pin_step[self.list_index[from.index()] as usize];
        if pin != 0 && STEP[delta_index(king, to)] != pin {
            return false;
        }
        match threats.checkers.count() {
            0 => true,
            1 => {
                let (checker, step) = threats.checkers.first().unwrap_or((king, 0));
                evasion_targets(king, checker, step, self.board[checker.index()]) >> to.raw() & 1 != 0
            }
            _ => false,
        }
    }

    /// The pseudo-legal move of `piece` from `from` to `to` (with `promotion` for a pawn
    /// reaching the last rank), if the piece can make it on this board.
    fn move_shape(&self, piece: Piece, from: Square, to: Square, promotion: Option<Kind>) -> Option<Move> {
        let target = self.board[to.index()];
        if target.is_color(self.side) {
            return None;
        }
        let capture = target.is_some();
        if !piece.is_pawn() {
            let hit = ATTACK[delta_index(from, to)] & piece.flags();
            let reachable = hit != 0 && (!piece.is_slider() || self.line_is_clear(from, to));
            return (reachable && promotion.is_none()).then(|| {
                if capture {
                    Move::capture(from, to)
                } else {
                    Move::quiet(from, to)
                }
            });
        }
        let forward = self.side.forward();
        let delta = to.raw() as i16 - from.raw() as i16;
        let row = from.raw() >> 4;
        let (promotion_row, start_row) = pawn_rows(self.side);
        let promoting = row == promotion_row;
        if promoting != promotion.is_some() {
            return None;
        }
        let pawn_move = |capture: bool| match promotion {
            Some(kind) => Move::promotion(from, to, kind, capture),
            None if capture => Move::capture(from, to),
            None => Move::quiet(from, to),
        };
        if delta == forward as i16 {
            (!capture).then(|| pawn_move(false))
        } else if delta == 2 * forward as i16 {
            let middle = from.raw().wrapping_add(forward as u8);
            (row == start_row && !capture && self.board[middle as usize].is_none()).then(|| Move::double_push(from, to))
        } else if delta == forward as i16 - 1 || delta == forward as i16 + 1 {
            if capture {
                Some(pawn_move(true))
            } else {
                (self.en_passant == Some(to)).then(|| Move::en_passant(from, to))
            }
        } else {
            None
        }
    }

    /// Is the castling move `m` (king takes own rook) available and legal?
    fn castling_slot_is_legal(&self, king: Square, m: Move) -> bool {
        let rights_of_us = self.castling & rights::of(self.side);
        (0..4).any(|slot| {
            rights_of_us & (1 << slot) != 0
                && self.castle_rook[slot] == m.to()
                && Move::castle(king, m.to()) == m
                && self.castling_is_legal(king, slot)
        })
    }

    /// En passant removes two pieces from a line at once: whether the king is attacked once
    /// the capturing pawn's square and the taken pawn's are empty and the target square filled,
    /// looked at on the board as it is (a copy of the position would cost more than the look).
    pub(crate) fn en_passant_is_legal(&self, m: Move) -> bool {
        let us = self.side;
        let them = us.flip();
        let king = self.king(us);
        let (from, to, taken) = (m.from().raw(), m.to().raw(), m.captured_square(us).raw());
        let their_pawn = Piece::new(them, Kind::Pawn);
        if pawn_origins(king, them)
            .iter()
            .any(|&sq| sq & 0x88 == 0 && sq != taken && self.board[sq as usize] == their_pawn)
        {
            return false;
        }
        for &sq in self.officers(them) {
            let hit = ATTACK[delta_index(sq, king)] & self.board[sq.index()].flags();
            if hit == 0 {
                continue;
            }
            if hit & LEAPERS != 0 {
                return false;
            }
            let step = STEP[delta_index(king, sq)] as u8;
            let mut on = king.raw().wrapping_add(step);
            while on != sq.raw() && on != to && (self.board[on as usize].is_none() || on == from || on == taken) {
                on = on.wrapping_add(step);
            }
            if on == sq.raw() {
                return false;
            }
        }
        true
    }

    /// King steps (castling aside).
    #[inline(always)]
    pub(crate) fn king_moves<const MODE: u8, S: MoveSink>(&self, king: Square, list: &mut S) {
        let mut targets = self.king_targets::<MODE>(self.side, king);
        while targets != 0 {
            let i = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            let to = Square::from_index_unchecked(king.raw().wrapping_add(KING_STEPS[i] as u8));
            list.push(if self.board[to.index()].is_none() { Move::quiet(king, to) } else { Move::capture(king, to) });
        }
    }

    /// The steps (bit `i` for `KING_STEPS[i]`) the king of `us` on `king` may take, whoever is
    /// to move: collect the candidate squares, then let each enemy piece strike off the ones
    /// it covers, found with one `KING_ZONE` lookup per piece.
    pub(crate) fn king_targets<const MODE: u8>(&self, us: Color, king: Square) -> u8 {
        let them = us.flip();
        let mut candidates: u8 = 0;
        for (i, &d) in KING_STEPS.iter().enumerate() {
            let to = king.raw().wrapping_add(d as u8);
            let target = self.board[to as usize];
            let wanted = match MODE {
                TACTICAL => target.is_color(them),
                QUIET => target.is_none(),
                _ => !target.is_color(us),
            };
            if to & 0x88 == 0 && wanted && !self.pawn_attacks(Square::from_index_unchecked(to), them) {
                candidates |= 1 << i;
            }
        }
        if candidates == 0 {
            return 0;
        }
        for &from in self.officers(them) {
            let piece = self.board[from.index()];
            let zone = KING_ZONE[piece.kind().index()][delta_index(from, king)] & candidates;
            if zone == 0 {
                continue;
            }
            if !piece.is_slider() {
                candidates &= !zone;
            } else {
                let mut bits = zone;
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let to = Square::from_index_unchecked(king.raw().wrapping_add(KING_STEPS[i] as u8));
                    if self.line_is_clear_through(from, to, king, king) {
                        candidates &= !(1 << i);
                    }
                }
            }
            if candidates == 0 {
                return 0;
            }
        }
        candidates
    }

    pub(crate) fn castling_moves<S: MoveSink>(&self, king: Square, list: &mut S) {
        let rights_of_us = self.castling & rights::of(self.side);
        let mut bits = rights_of_us;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.castling_is_legal(king, slot) {
                list.push(Move::castle(king, self.castle_rook[slot]));
            }
        }
    }

    /// The squares between king, rook and their targets are empty (but for king and rook),
    /// and no square the king crosses is attacked with both lifted (a lifted rook may have
    /// shielded the king's path, as in Chess960 with the rook on b1 and the king on c1).
    #[inline]
    pub(crate) fn castling_is_legal(&self, king: Square, slot: usize) -> bool {
        self.castling_is_legal_for(self.side, king, slot)
    }

    /// [`Position::castling_is_legal`] for `us`, whether or not it is `us`'s turn (perft
    /// counts the replies' castling once before the moves it answers).
    #[inline]
    pub(crate) fn castling_is_legal_for(&self, us: Color, king: Square, slot: usize) -> bool {
        let path = &self.castle_paths[slot];
        if path.empty[..path.empty_len as usize].iter().any(|&sq| self.board[sq as usize].is_some()) {
            return false;
        }
        let rook = self.castle_rook[slot];
        let them = us.flip();
        path.king_path[..path.king_path_len as usize]
            .iter()
            .all(|&sq| !self.is_attacked_through(Square::from_index_unchecked(sq), them, king, rook))
    }

    /// The legal move whose UCI text is `text` (promotion letters in either case). Castling is
    /// read in both notations whatever the mode, so that every move ox88 prints comes back:
    /// king takes rook (`e1h1`) always, and the king's target square (`e1g1`) when that is at
    /// least two files away, so that it cannot be read as a king step.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, MoveError> {
        let lower = text.to_ascii_lowercase();
        let malformed = || MoveError::Malformed(text.to_string());
        if !(4..=5).contains(&lower.len()) || !lower.is_ascii() {
            return Err(malformed());
        }
        let from: Square = lower[0..2].parse().map_err(|_| malformed())?;
        let to: Square = lower[2..4].parse().map_err(|_| malformed())?;
        let promotion = match lower.as_bytes().get(4) {
            None => None,
            Some(&c) => match Kind::from_letter(c as char) {
                Some(k @ (Kind::Knight | Kind::Bishop | Kind::Rook | Kind::Queen)) => Some(k),
                _ => return Err(malformed()),
            },
        };
        let legal = self.legal_moves();
        let castle_matches = |m: &Move| {
            let king_to = m.castle_king_target();
            m.to() == to || (king_to == to && king_to.file().abs_diff(from.file()) >= 2)
        };
        legal
            .iter()
            .copied()
            .filter(|m| m.from() == from && m.promotion_kind() == promotion)
            .find(|m| if m.is_castle() { castle_matches(m) } else { m.to() == to })
            .ok_or_else(|| MoveError::Illegal(text.to_string()))
    }
}

/// Where the generator puts moves: a list, or a counter for perft.
pub trait MoveSink {
    fn push(&mut self, m: Move);
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m);
    }
}

/// A sink that only counts.
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
}

/// Squares where a non-king piece ends a single check: the checker's square, and for a
/// slider the squares between it and the king.
fn evasion_targets(king: Square, checker: Square, step: Step, piece: Piece) -> Targets {
    let mut targets: Targets = 1 << checker.raw();
    if piece.is_slider() {
        let mut sq = king.raw().wrapping_add(step as u8);
        while sq != checker.raw() {
            targets |= 1 << sq;
            sq = sq.wrapping_add(step as u8);
        }
    }
    targets
}

/// A move string that is not a legal move here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not of the form `e2e4` / `e7e8q`.
    Malformed(String),
    /// Well formed, but not legal in the position.
    Illegal(String),
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveError::Malformed(s) => write!(f, "malformed move '{s}'"),
            MoveError::Illegal(s) => write!(f, "illegal move '{s}'"),
        }
    }
}

impl std::error::Error for MoveError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(fen: &str) -> Vec<String> {
        let pos = Position::from_fen(fen).unwrap();
        let mut v: Vec<String> = pos.legal_moves().iter().map(|m| m.to_uci(pos.is_chess960())).collect();
        v.sort();
        v
    }

    #[test]
    fn start_position_has_twenty_moves() {
        assert_eq!(moves(crate::fen::STARTPOS).len(), 20);
    }

    #[test]
    fn en_passant_horizontal_pin() {
        // Taking e.p. would leave the white king on a5 in check from the rook on h5.
        let m = moves("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1");
        assert!(!m.contains(&"b5c6".to_string()), "{m:?}");
    }

    #[test]
    fn chess960_castling_cannot_unshield_the_king() {
        // King c1 stays put while the rook leaves b1 for d1, exposing c1 to the rook on a1.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/rRK5 w B - 0 1").unwrap();
        let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_uci(true)).collect();
        assert!(!moves.contains(&"c1b1".to_string()), "{moves:?}");
        // Without the rook on a1 the same castling is legal.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/1RK5 w B - 0 1").unwrap();
        assert!(pos.legal_moves().iter().any(|m| m.is_castle()));
    }

    #[test]
    fn parses_moves_against_the_legal_list() {
        let pos = Position::startpos();
        assert_eq!(pos.parse_uci_move("e2e4").unwrap().to_string(), "e2e4");
        assert_eq!(pos.parse_uci_move("e2e5"), Err(MoveError::Illegal("e2e5".into())));
        assert_eq!(pos.parse_uci_move("e2"), Err(MoveError::Malformed("e2".into())));
        assert_eq!(pos.parse_uci_move("é2e4"), Err(MoveError::Malformed("é2e4".into())));
        let promo = Position::from_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1").unwrap();
        assert!(promo.parse_uci_move("a7a8Q").is_ok());
        assert!(promo.parse_uci_move("a7a8k").is_err());
        assert!(promo.parse_uci_move("a7a8").is_err());
    }
}
