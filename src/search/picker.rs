//! Staged move picking: the one place that decides in which order a node tries its moves.
//!
//! Most nodes that fail high do so on the first or second move tried, so a node should not
//! pay for moves it never looks at. The picker hands out moves in stages and generates each
//! group only when the previous one is used up:
//!
//! 1. the hash move, checked for legality and tried before anything is generated;
//! 2. captures and promotions, generated together and picked by MVV-LVA; a capture that
//!    loses material by SEE (and an under-promotion) is set aside for stage 5;
//! 3. the two killers of the ply and the counter-move, each checked for legality;
//! 4. the other quiet moves, generated now and picked by history (skipped altogether once
//!    the search has pruned the quiets of this node by move count);
//! 5. the losing captures set aside in stage 2.
//!
//! In check the evasions are few: they are generated at once and ordered by the same scores.
//! No move comes out twice, and every legal move comes out once unless quiets are skipped.
//!
//! Quiescence has a stage of its own: its captures and promotions (all evasions in check)
//! are generated at once and handed out by [`list_score`], the order the root starts from.

use super::ordering::{
    list_score, mvv_lva, tactical_score, ContRow, OrderTables, COUNTER, GOOD_CAPTURE, HASH_MOVE, KILLER_1, KILLER_2,
};
use crate::attacks::Threats;
use crate::movegen::{gen, MoveSink};
use crate::mv::{Move, MAX_MOVES};
use crate::position::Position;
use std::mem::MaybeUninit;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    HashMove,
    GenerateTactical,
    GoodTactical,
    FirstKiller,
    SecondKiller,
    Counter,
    GenerateQuiets,
    Quiets,
    BadTactical,
    GenerateEvasions,
    Evasions,
    GenerateQuiescence,
    Quiescence,
    Done,
}

#[derive(Clone, Copy)]
struct ScoredMove {
    mv: Move,
    score: i32,
}

/// A stack-allocated list of moves with their ordering scores, filled by the generator.
struct ScoredList {
    entries: [MaybeUninit<ScoredMove>; MAX_MOVES],
    len: usize,
}

impl ScoredList {
    #[inline(always)]
    fn new() -> ScoredList {
        ScoredList { entries: [const { MaybeUninit::uninit() }; MAX_MOVES], len: 0 }
    }

    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [ScoredMove] {
        // SAFETY: the first `len` entries were written by `push`, and ScoredMove is plain data.
        unsafe { std::slice::from_raw_parts_mut(self.entries.as_mut_ptr() as *mut ScoredMove, self.len) }
    }
}

impl MoveSink for ScoredList {
    #[inline(always)]
    fn push(&mut self, mv: Move) {
        // As `MoveList::push`: every accepted position fits, and debug builds check it.
        debug_assert!(self.len < MAX_MOVES, "move list full: more than {MAX_MOVES} moves");
        if self.len < MAX_MOVES {
            self.entries[self.len] = MaybeUninit::new(ScoredMove { mv, score: 0 });
            self.len += 1;
        }
    }
}

/// Hands out the moves of one main-search node, best first (see the module notes).
pub struct MovePicker {
    stage: Stage,
    hash_move: Move,
    killers: [Move; 2],
    counter: Move,
    threats: Threats,
    list: ScoredList,
    /// Next entry to consider, and the end of the current stage's part of the list.
    cur: usize,
    end: usize,
    /// Losing captures are moved to `list[..bad_end]` as stage 2 meets them.
    bad_end: usize,
    skip_quiets: bool,
    /// Continuation-history rows of the two moves before this node.
    rows: [ContRow; 2],
}

impl MovePicker {
    pub fn new(pos: &Position, hash_move: Move, killers: [Move; 2], counter: Move) -> MovePicker {
        let threats = pos.threats();
        let stage = if threats.checkers.count() > 0 { Stage::GenerateEvasions } else { Stage::HashMove };
        MovePicker {
            stage,
            hash_move,
            killers,
            counter,
            threats,
            list: ScoredList::new(),
            cur: 0,
            end: 0,
            bad_end: 0,
            skip_quiets: false,
            rows: [None; 2],
        }
    }

    /// The picker of a quiescence node: captures and promotions, or every evasion in check.
    pub fn quiescence(pos: &Position, hash_move: Move) -> MovePicker {
        MovePicker {
            stage: Stage::GenerateQuiescence,
            hash_move,
            killers: [Move::NONE; 2],
            counter: Move::NONE,
            threats: pos.threats(),
            list: ScoredList::new(),
            cur: 0,
            end: 0,
            bad_end: 0,
            skip_quiets: false,
            rows: [None; 2],
        }
    }

    /// Quiet moves are ordered also by how they fared after the two moves before them.
    /// (Set in place: the picker holds its move list, and moving it would copy kilobytes.)
    #[inline]
    pub fn set_continuations(&mut self, rows: [ContRow; 2]) {
        self.rows = rows;
    }

    /// From now on, hand out no more quiet moves (captures still come).
    #[inline]
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// The next move and its ordering score (the bands of [`super::ordering`]), or `None`
    /// when the node has no more moves.
    ///
    /// Handing out the next move of a stage is most calls; the stages that generate or look
    /// up moves are [`MovePicker::step`], kept out of line so that their set-up is not paid
    /// on every call.
    #[inline]
    pub fn next(&mut self, pos: &Position, order: &OrderTables) -> Option<(Move, i32)> {
        loop {
            match self.stage {
                Stage::GoodTactical => {
                    while self.cur < self.end {
                        let mv = self.take_best().mv;
                        if mv == self.hash_move {
                            continue;
                        }
                        // SEE only now, for the move about to be tried.
                        let score = tactical_score(pos, mv);
                        if score < GOOD_CAPTURE {
                            self.list.as_mut_slice()[self.bad_end] = ScoredMove { mv, score };
                            self.bad_end += 1;
                            continue;
                        }
                        return Some((mv, score));
                    }
                    self.stage = Stage::FirstKiller;
                }
                Stage::Quiets => {
                    while self.cur < self.end && !self.skip_quiets {
                        let ScoredMove { mv, score } = self.take_best();
                        if mv != self.hash_move && !self.killers.contains(&mv) && mv != self.counter {
                            return Some((mv, score));
                        }
                    }
                    self.start_bad_tactical();
                }
                Stage::BadTactical => {
                    if self.cur < self.end {
                        let ScoredMove { mv, score } = self.take_best();
                        return Some((mv, score));
                    }
                    self.stage = Stage::Done;
                }
                Stage::Evasions | Stage::Quiescence => {
                    if self.cur < self.end {
                        let ScoredMove { mv, score } = self.take_best();
                        return Some((mv, score));
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
                _ => {
                    if let Some(found) = self.step(pos, order) {
                        return Some(found);
                    }
                }
            }
        }
    }

    /// One stage that generates or looks up moves: the move it found, if it hands one out at
    /// once, and in any case the stage after it set.
    #[inline(never)]
    fn step(&mut self, pos: &Position, order: &OrderTables) -> Option<(Move, i32)> {
        match self.stage {
            Stage::HashMove => {
                self.stage = Stage::GenerateTactical;
                if !self.hash_move.is_none() && pos.is_legal_with(&self.threats, self.hash_move) {
                    return Some((self.hash_move, HASH_MOVE));
                }
            }
            Stage::GenerateTactical => {
                pos.generate_with::<{ gen::TACTICAL }, ScoredList>(&self.threats, &mut self.list);
                for entry in self.list.as_mut_slice() {
                    entry.score = mvv_lva(pos, entry.mv);
                }
                (self.cur, self.end) = (0, self.list.len);
                self.stage = Stage::GoodTactical;
            }
            Stage::FirstKiller => {
                self.stage = Stage::SecondKiller;
                let killer = self.killers[0];
                if self.is_new_legal_quiet(pos, killer) {
                    return Some((killer, KILLER_1));
                }
            }
            Stage::SecondKiller => {
                self.stage = Stage::Counter;
                let killer = self.killers[1];
                if killer != self.killers[0] && self.is_new_legal_quiet(pos, killer) {
                    return Some((killer, KILLER_2));
                }
            }
            Stage::Counter => {
                self.stage = Stage::GenerateQuiets;
                let counter = self.counter;
                if !self.killers.contains(&counter) && self.is_new_legal_quiet(pos, counter) {
                    return Some((counter, COUNTER));
                }
            }
            Stage::GenerateQuiets => {
                if self.skip_quiets {
                    self.start_bad_tactical();
                    return None;
                }
                let start = self.list.len;
                pos.generate_with::<{ gen::QUIET }, ScoredList>(&self.threats, &mut self.list);
                let side = pos.side_to_move().index();
                let rows = self.rows;
                for entry in &mut self.list.as_mut_slice()[start..] {
                    entry.score = order.quiet_score(side, pos.piece_at(entry.mv.from()), entry.mv, &rows);
                }
                (self.cur, self.end) = (start, self.list.len);
                self.stage = Stage::Quiets;
            }
            Stage::GenerateEvasions => {
                pos.generate_with::<{ gen::ALL }, ScoredList>(&self.threats, &mut self.list);
                let side = pos.side_to_move().index();
                for i in 0..self.list.len {
                    let mv = self.list.as_mut_slice()[i].mv;
                    self.list.as_mut_slice()[i].score = self.evasion_score(pos, order, side, mv);
                }
                (self.cur, self.end) = (0, self.list.len);
                self.stage = Stage::Evasions;
            }
            Stage::GenerateQuiescence => {
                if self.threats.checkers.count() > 0 {
                    pos.generate_with::<{ gen::ALL }, ScoredList>(&self.threats, &mut self.list);
                } else {
                    pos.generate_with::<{ gen::TACTICAL }, ScoredList>(&self.threats, &mut self.list);
                }
                let side = pos.side_to_move().index();
                let hash_move = self.hash_move;
                for entry in self.list.as_mut_slice() {
                    entry.score = list_score(pos, entry.mv, hash_move, |m| order.history(side, m));
                }
                (self.cur, self.end) = (0, self.list.len);
                self.stage = Stage::Quiescence;
            }
            Stage::GoodTactical
            | Stage::Quiets
            | Stage::BadTactical
            | Stage::Evasions
            | Stage::Quiescence
            | Stage::Done => {
                unreachable!("handed out by `next`")
            }
        }
        None
    }

    fn start_bad_tactical(&mut self) {
        (self.cur, self.end) = (0, self.bad_end);
        self.stage = Stage::BadTactical;
    }

    /// A killer or counter-move from elsewhere: worth a try if it is quiet, not the hash
    /// move already tried, and legal here.
    #[inline]
    fn is_new_legal_quiet(&self, pos: &Position, m: Move) -> bool {
        !self.skip_quiets
            && !m.is_none()
            && !m.is_tactical()
            && m != self.hash_move
            && pos.is_legal_with(&self.threats, m)
    }

    /// Evasions are ordered in one list by the same bands as the stages.
    fn evasion_score(&self, pos: &Position, order: &OrderTables, side: usize, m: Move) -> i32 {
        if m == self.hash_move {
            HASH_MOVE
        } else if m.is_tactical() {
            tactical_score(pos, m)
        } else if m == self.killers[0] {
            KILLER_1
        } else if m == self.killers[1] {
            KILLER_2
        } else if m == self.counter {
            COUNTER
        } else {
            order.quiet_score(side, pos.piece_at(m.from()), m, &self.rows)
        }
    }

    /// Swaps the best-scored entry of `list[cur..end]` to `cur`, returns it and moves on.
    #[inline(always)]
    fn take_best(&mut self) -> ScoredMove {
        let (cur, end) = (self.cur, self.end);
        let entries = &mut self.list.as_mut_slice()[..end];
        // The best score so far is held, not read back through `best` each time.
        let mut best = cur;
        let mut best_score = entries[cur].score;
        for (j, e) in entries.iter().enumerate().skip(cur + 1) {
            if e.score > best_score {
                best = j;
                best_score = e.score;
            }
        }
        entries.swap(cur, best);
        self.cur += 1;
        entries[cur]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Kind;
    use crate::search::ordering::{capture_is_good, BAD_CAPTURE};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use std::collections::HashSet;

    const STARTS: &[&str] = &[
        crate::fen::STARTPOS,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];

    /// Positions from seeded random games, with moves that were legal a few plies earlier
    /// (the kind of stale move a hash entry or killer slot holds).
    fn positions_with_stale_moves() -> Vec<(Position, Vec<Move>)> {
        let mut rng = StdRng::seed_from_u64(0x5EED_0088);
        let mut out = Vec::new();
        for fen in STARTS {
            for _ in 0..20 {
                let mut pos = Position::from_fen(fen).unwrap();
                let mut recent: Vec<Move> = Vec::new();
                for _ in 0..rng.gen_range(0..60) {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    recent.extend(legal.iter().copied().take(12));
                    pos.make(legal[rng.gen_range(0..legal.len())]);
                }
                let start = recent.len().saturating_sub(40);
                out.push((pos, recent.split_off(start)));
            }
        }
        out
    }

    fn drain(picker: &mut MovePicker, pos: &Position, order: &OrderTables) -> Vec<(Move, i32)> {
        std::iter::from_fn(|| picker.next(pos, order)).collect()
    }

    #[test]
    fn every_legal_move_comes_out_exactly_once() {
        let order = OrderTables::default();
        let mut rng = StdRng::seed_from_u64(7);
        for (pos, stale) in positions_with_stale_moves() {
            let legal = pos.legal_moves();
            let mut candidates: Vec<Move> = stale.clone();
            candidates.extend(legal.iter().copied());
            candidates.push(Move::NONE);
            let mut choose = || candidates[rng.gen_range(0..candidates.len())];
            let (hash, k1, k2, counter) = (choose(), choose(), choose(), choose());
            let mut picker = MovePicker::new(&pos, hash, [k1, k2], counter);
            let picked: Vec<Move> = drain(&mut picker, &pos, &order).into_iter().map(|(m, _)| m).collect();
            let unique: HashSet<Move> = picked.iter().copied().collect();
            assert_eq!(unique.len(), picked.len(), "a move came out twice in {}: {picked:?}", pos.to_fen());
            let expected: HashSet<Move> = legal.iter().copied().collect();
            assert_eq!(unique, expected, "{} hash {hash:?} killers {k1:?} {k2:?} counter {counter:?}", pos.to_fen());
        }
    }

    #[test]
    fn stages_come_in_order() {
        let order = OrderTables::default();
        for (pos, stale) in positions_with_stale_moves() {
            if pos.in_check() {
                continue;
            }
            let legal = pos.legal_moves();
            let Some(&hash) = legal.iter().find(|m| !m.is_tactical()) else {
                continue;
            };
            let killer = stale.iter().copied().find(|&m| m != hash && !m.is_tactical() && pos.is_legal(m));
            let picked = drain(
                &mut MovePicker::new(&pos, hash, [killer.unwrap_or(Move::NONE), Move::NONE], Move::NONE),
                &pos,
                &order,
            );
            assert_eq!(picked[0], (hash, HASH_MOVE), "{}", pos.to_fen());
            let band = |s: i32| match s {
                HASH_MOVE => 0,
                s if s >= GOOD_CAPTURE => 1,
                KILLER_1 => 2,
                s if s > BAD_CAPTURE / 2 => 3,
                _ => 4,
            };
            let bands: Vec<i32> = picked.iter().map(|&(_, s)| band(s)).collect();
            assert!(bands.windows(2).all(|w| w[0] <= w[1]), "{}: bands {bands:?} for {picked:?}", pos.to_fen());
            if let Some(k) = killer {
                assert!(picked.contains(&(k, KILLER_1)), "{}: killer {k:?} missing from {picked:?}", pos.to_fen());
            }
            for &(m, s) in &picked[1..] {
                let good =
                    m.is_tactical() && m.promotion_kind().is_none_or(|k| k == Kind::Queen) && capture_is_good(&pos, m);
                assert_eq!(s >= GOOD_CAPTURE, good, "{}: {m:?} scored {s}", pos.to_fen());
            }
        }
    }

    #[test]
    fn skipping_quiets_still_gives_every_capture() {
        let order = OrderTables::default();
        for (pos, _) in positions_with_stale_moves() {
            if pos.in_check() {
                continue;
            }
            let mut picker = MovePicker::new(&pos, Move::NONE, [Move::NONE; 2], Move::NONE);
            let mut picked = Vec::new();
            while let Some((m, _)) = picker.next(&pos, &order) {
                picked.push(m);
                if !m.is_tactical() {
                    picker.skip_quiets();
                }
            }
            let quiets = picked.iter().filter(|m| !m.is_tactical()).count();
            let tactical: HashSet<Move> = picked.iter().copied().filter(|m| m.is_tactical()).collect();
            let expected: HashSet<Move> = pos.legal_tactical_moves().iter().copied().collect();
            assert!(quiets <= 1, "{}: {quiets} quiet moves after skipping", pos.to_fen());
            assert_eq!(tactical, expected, "{}", pos.to_fen());
        }
    }
}
