//! Static evaluation, from the side to move's point of view.
//!
//! Every term is a middle-game / end-game pair ([`Tapered`]) added for White and subtracted
//! for Black; the sum is blended by the game phase (24 with all pieces on, 0 with none):
//!
//! - material and piece-square values: `pos.psq()`, kept incrementally by make/unmake;
//! - pawn structure (passed, isolated, doubled, backward, connected): depends on pawns only,
//!   so it is cached in a small pawn hash keyed by `pos.pawn_key()`;
//! - passed pawns again with the kings (king proximity matters only in the end game);
//! - mobility: squares each piece reaches along the move-generation steps, not counting
//!   squares held by own pieces or attacked by enemy pawns;
//! - king safety: attack units on the squares around the king, and the pawn shield;
//! - threats: pieces attacked by pawns, by minor pieces, a queen by a rook, pieces attacked
//!   and not defended, and pawn pushes to safe squares that would attack a piece;
//! - bishop pair, rooks on open and semi-open files;
//! - end-game knowledge: insufficient material, drawish material without pawns, opposite
//!   bishops, and "mop-up" (drive the bare king to the edge) for KRK/KQK-like endings.

use crate::nnue::{self, Accumulator, NETWORK};
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::psqt::{s, Tapered, PHASE};
use crate::square::{Square, BISHOP_STEPS, KING_STEPS, KNIGHT_STEPS, ROOK_STEPS};
use crate::value::{nominal, TB_WIN_BOUND};

// --- weights (centipawns; fitted by tools/tune.rs to 20,000 games of ox88 self-play, see README) ---

/// Every evaluation weight, so that a tuner can vary them; the engine uses [`WEIGHTS`].
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    pub doubled: Tapered,
    pub isolated: Tapered,
    pub backward: Tapered,
    /// Supported or phalanx pawn by relative rank (rank 2 = index 1).
    pub connected: [Tapered; 8],
    /// Passed pawn by relative rank (rank 2 = index 1).
    pub passed: [Tapered; 8],
    /// Weight per relative rank for king distance to a passer's stop square.
    pub passed_king: [Tapered; 8],
    pub passed_blocked: Tapered,
    /// Per reachable square, by kind (knight, bishop, rook, queen at 1..=4).
    pub mobility: [Tapered; 6],
    pub bishop_pair: Tapered,
    pub rook_open: Tapered,
    pub rook_semi_open: Tapered,
    pub tempo: i32,
    /// King-attack units per attacked square near the enemy king, by attacker kind.
    pub attack_units: [i32; 6],
    pub shield_missing: Tapered,
    pub shield_advanced: Tapered,
    pub king_open_file: Tapered,
    /// An enemy knight, bishop, rook or queen (index 1..=4) attacked by one of our pawns.
    pub pawn_threat: [Tapered; 6],
    /// An enemy knight, bishop, rook or queen attacked by one of our knights or bishops.
    pub minor_threat: [Tapered; 6],
    /// The enemy queen attacked by one of our rooks.
    pub rook_threat: Tapered,
    /// An enemy piece (not pawn or king) that we attack and no enemy unit defends.
    pub hanging: Tapered,
    /// An enemy piece that one of our pawns would attack after a push to a safe square.
    pub push_threat: Tapered,
}

pub const WEIGHTS: Weights = Weights {
    doubled: s(-14, -4),
    isolated: s(-9, -17),
    backward: s(-2, -24),
    connected: [s(0, 0), s(3, 1), s(11, 3), s(8, 10), s(12, 27), s(36, 62), s(93, 63), s(0, 0)],
    passed: [s(0, 0), s(4, 25), s(0, 23), s(7, 21), s(15, 37), s(71, 47), s(71, 26), s(0, 0)],
    passed_king: [s(0, 0), s(0, 0), s(-1, 1), s(-1, 4), s(-1, 6), s(-2, 10), s(3, 12), s(0, 0)],
    passed_blocked: s(-7, -13),
    mobility: [s(0, 0), s(4, 4), s(4, 5), s(3, 3), s(2, 3), s(0, 0)],
    bishop_pair: s(27, 50),
    rook_open: s(40, -8),
    rook_semi_open: s(19, 16),
    tempo: 10,
    attack_units: [0, 2, 2, 2, 4, 0],
    shield_missing: s(-17, 4),
    shield_advanced: s(-6, 2),
    king_open_file: s(-24, 5),
    pawn_threat: [s(0, 0), s(42, 44), s(42, 50), s(52, 22), s(33, 22), s(0, 0)],
    minor_threat: [s(0, 0), s(9, 24), s(24, 22), s(37, 19), s(27, 22), s(0, 0)],
    rook_threat: s(44, 42),
    hanging: s(9, 21),
    push_threat: s(15, 8),
};

/// The tempo bonus of the side to move (symmetric positions evaluate to this).
pub const TEMPO: i32 = WEIGHTS.tempo;

/// Typical mobility subtracted so that an average piece scores about zero.
pub const MOBILITY_BASE: [i32; 6] = [0, 4, 6, 6, 12, 0];

/// A weight of the evaluation, named for the tuner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Material of a kind (`value::PIECE_VALUES`).
    Material(Kind),
    /// Piece-square value of a kind on a square (`psqt::PST`, index a8 = 0 from White's view).
    Psq(Kind, usize),
    Doubled,
    Isolated,
    Backward,
    Connected(usize),
    Passed(usize),
    PassedKing(usize),
    PassedBlocked,
    Mobility(Kind),
    BishopPair,
    RookOpen,
    RookSemiOpen,
    /// An enemy piece of a kind attacked by a pawn.
    PawnThreat(Kind),
    /// An enemy piece of a kind attacked by a knight or bishop.
    MinorThreat(Kind),
    RookThreat,
    Hanging,
    PushThreat,
    ShieldMissing,
    ShieldAdvanced,
    KingOpenFile,
}

/// Sees the evaluation as it is summed, so that a tuner can write it as weights times
/// counts. Everything in White's view. The engine passes [`NoTrace`], for which every call
/// compiles away.
pub trait Trace {
    /// Whether anything is recorded (work done only for the trace is skipped when not).
    const ON: bool;
    /// `n` more of `term` for colour `c`.
    fn term(&mut self, _term: Term, _c: Color, _n: i32) {}
    /// Squares next to the enemy king that `c`'s pieces of `kind` attack, and whether the
    /// king-attack term counts (two attackers or more).
    fn king_attack(&mut self, _c: Color, _hits: [i32; 6], _counts: bool) {}
    /// The game phase (0..=24), the end-game scale (out of 16), the mop-up bonus added to the
    /// end game after scaling, and the side to move.
    fn finish(&mut self, _phase: i32, _scale: i32, _mop_up: i32, _stm: Color) {}
}

/// The engine's trace: records nothing.
pub struct NoTrace;
impl Trace for NoTrace {
    const ON: bool = false;
}

/// Pawn-only evaluation, cached by pawn key.
#[derive(Clone, Copy, Default)]
pub struct PawnEntry {
    key: u64,
    valid: bool,
    /// White-minus-Black pawn structure score.
    score: Tapered,
    /// Passed pawns per colour, bit [`Square::index64`] of each.
    passed: [u64; 2],
    /// Squares attacked by each colour's pawns (bits as [`Side`]'s): pawns only, so kept
    /// here rather than found again at every evaluation.
    pawn_attacks: [u64; 2],
    /// Files holding pawns of each colour (bit f).
    files: [u8; 2],
}

/// The pawn hash: a direct-mapped table of [`PawnEntry`].
pub struct PawnTable {
    entries: Vec<PawnEntry>,
}

impl PawnTable {
    pub fn new(entries: usize) -> PawnTable {
        PawnTable { entries: vec![PawnEntry::default(); entries.next_power_of_two()] }
    }
    pub fn clear(&mut self) {
        for e in self.entries.iter_mut() {
            *e = PawnEntry::default();
        }
    }
    #[inline]
    fn get(&mut self, pos: &Position) -> PawnEntry {
        let key = pos.pawn_key();
        let i = (key as usize) & (self.entries.len() - 1);
        let e = self.entries[i];
        if e.valid && e.key == key {
            return e;
        }
        let fresh = pawn_structure(pos, &WEIGHTS, &mut NoTrace);
        self.entries[i] = fresh;
        fresh
    }
}

impl Default for PawnTable {
    fn default() -> Self {
        PawnTable::new(1 << 14)
    }
}

/// Evaluations of recently seen positions, by full Zobrist key: a node's evaluation is asked
/// for again on every re-search, every iteration and every transposition, and a lookup costs
/// far less than [`evaluate_cached`]. Direct-mapped, one `u64` per slot: the slot index is the
/// key's low bits and the slot keeps the key's high 48 bits beside the 16-bit score, so a hit
/// matches all 64 bits of the key (as the transposition table does) and the score handed back
/// is the one the evaluation gave.
pub struct EvalCache {
    slots: Vec<u64>,
}

/// The score half of an empty slot: never stored, since scores are kept only when they fit
/// in `-32767..=32767`.
const EVAL_NONE: u16 = i16::MIN as u16;

impl EvalCache {
    /// A cache of `1 << bits` slots; the index takes the key's low `bits` bits, which must be
    /// at least 16 so that index and tag together cover the whole key.
    pub fn new(bits: u32) -> EvalCache {
        assert!((16..=30).contains(&bits));
        EvalCache { slots: vec![EVAL_NONE as u64; 1 << bits] }
    }

    pub fn clear(&mut self) {
        self.slots.fill(EVAL_NONE as u64);
    }

    /// Starts loading the slot of `key` (see [`crate::tt::TranspositionTable::prefetch`]).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::memory::prefetch(&self.slots[key as usize & (self.slots.len() - 1)]);
    }

    /// [`evaluate_cached`], remembered.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position, pawns: &mut PawnTable, acc: &[Accumulator; 2]) -> i32 {
        const TAG: u64 = !0xFFFF;
        let key = pos.key();
        let i = key as usize & (self.slots.len() - 1);
        let slot = self.slots[i];
        if slot & TAG == key & TAG && slot as u16 != EVAL_NONE {
            return slot as u16 as i16 as i32;
        }
        let v = evaluate_with_network(pos, Some(pawns), acc);
        if v.unsigned_abs() <= i16::MAX as u32 {
            self.slots[i] = key & TAG | v as i16 as u16 as u64;
        }
        v
    }
}

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache::new(16)
    }
}

/// The engine's evaluation for the side to move: the hand-written terms plus the network's
/// correction, from the position's accumulators (dead draws are 0).
pub fn evaluate_with_network(pos: &Position, pawns: Option<&mut PawnTable>, acc: &[Accumulator; 2]) -> i32 {
    if dead_draw(pos) {
        return 0;
    }
    let mut scale = EndgameScale(16);
    let hce = evaluate_with(pos, pawns, &WEIGHTS, &mut scale);
    // Where the hand-written evaluation knows there is no win (KNNK and the like: scale 0)
    // the correction has nothing to add. Where it only judges the chances smaller (scale 3
    // or 8) the network is left alone: scaling it too lost 8.0 +- 5.6 Elo at 6000 nodes.
    let correction = if scale.0 == 0 { 0 } else { nnue::output_for(&NETWORK, acc, pos.side_to_move()) };
    (hce + correction).clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
}

/// Reads the end-game scale (out of 16) off an evaluation; records nothing else.
struct EndgameScale(i32);
impl Trace for EndgameScale {
    const ON: bool = false;
    fn finish(&mut self, _phase: i32, scale: i32, _mop_up: i32, _stm: Color) {
        self.0 = scale;
    }
}

/// Evaluates `pos` for the side to move as the search does (hand-written terms and the
/// network), from scratch.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with_network(pos, None, &nnue::refresh(&NETWORK, pos))
}

/// The hand-written terms alone, for the side to move, without a pawn cache.
pub fn evaluate_hand(pos: &Position) -> i32 {
    evaluate_with(pos, None, &WEIGHTS, &mut NoTrace)
}

/// Evaluates with the engine's weights and no pawn cache, showing every term to `trace`
/// (for the tuner). `None` when the position is a dead draw by material and has no terms.
pub fn evaluate_traced<T: Trace>(pos: &Position, trace: &mut T) -> Option<i32> {
    if dead_draw(pos) {
        return None;
    }
    Some(evaluate_with(pos, None, &WEIGHTS, trace))
}

/// Evaluates `pos` for the side to move, using (and filling) a pawn hash.
pub fn evaluate_cached(pos: &Position, pawns: &mut PawnTable) -> i32 {
    evaluate_with(pos, Some(pawns), &WEIGHTS, &mut NoTrace)
}

#[inline(always)]
fn rel_rank(sq: Square, c: Color) -> i32 {
    match c {
        Color::White => sq.rank() as i32,
        Color::Black => 7 - sq.rank() as i32,
    }
}

#[inline(always)]
fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs().max((a.rank() as i32 - b.rank() as i32).abs())
}

/// Chebyshev distance to the nearest of the four centre squares (0..3).
#[inline(always)]
fn center_distance(sq: Square) -> i32 {
    let f = sq.file() as i32;
    let r = sq.rank() as i32;
    (3 - f).max(f - 4).max((3 - r).max(r - 4))
}

fn sign(c: Color) -> i32 {
    match c {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// Pawn structure from scratch.
fn pawn_structure<T: Trace>(pos: &Position, w: &Weights, t: &mut T) -> PawnEntry {
    // ranks[c][f]: bit r set when a pawn of colour c stands on file f, rank r (rank 1 = 0).
    let mut ranks = [[0u8; 8]; 2];
    for c in [Color::White, Color::Black] {
        let pawn = Piece::new(c, Kind::Pawn);
        for &sq in pos.pieces(c) {
            if pos.piece_at(sq) == pawn {
                ranks[c.index()][sq.file() as usize] |= 1 << sq.rank();
            }
        }
    }
    let mut e = PawnEntry { key: pos.pawn_key(), valid: true, ..Default::default() };
    for c in [Color::White, Color::Black] {
        let us = c.index();
        let them = c.flip().index();
        let pawn = Piece::new(c, Kind::Pawn);
        let mut score = Tapered::default();
        for (f, &pawns_on_file) in ranks[us].iter().enumerate() {
            if pawns_on_file != 0 {
                e.files[us] |= 1 << f;
            }
        }
        for &sq in pos.pieces(c) {
            if pos.piece_at(sq) != pawn {
                continue;
            }
            let f = sq.file() as usize;
            let r = sq.rank() as u32;
            let rr = rel_rank(sq, c) as usize;
            // Ranks strictly ahead of this pawn, and at or behind it, from c's side.
            let (ahead, behind_or_level): (u8, u8) = match c {
                Color::White => ((0xFFu16 << (r + 1)) as u8, ((1u16 << (r + 1)) - 1) as u8),
                Color::Black => (((1u16 << r) - 1) as u8, (0xFFu16 << r) as u8),
            };
            let adj = |side: usize| -> (u8, u8) {
                let left = if f > 0 { ranks[side][f - 1] } else { 0 };
                let right = if f < 7 { ranks[side][f + 1] } else { 0 };
                (left, right)
            };
            let (own_l, own_r) = adj(us);
            let (their_l, their_r) = adj(them);
            let own_adjacent = own_l | own_r;
            let their_front = (ranks[them][f] | their_l | their_r) & ahead;
            if ranks[us][f] & ahead != 0 {
                score += w.doubled;
                t.term(Term::Doubled, c, 1);
            }
            if own_adjacent == 0 {
                score += w.isolated;
                t.term(Term::Isolated, c, 1);
            } else {
                // Supported (a pawn diagonally behind) or in a phalanx (level beside it).
                let behind_rank = match c {
                    Color::White => r.wrapping_sub(1),
                    Color::Black => r + 1,
                };
                let level = own_adjacent >> r & 1 != 0;
                let supported = behind_rank < 8 && own_adjacent >> behind_rank & 1 != 0;
                if level || supported {
                    score += w.connected[rr];
                    t.term(Term::Connected(rr), c, 1);
                } else if own_adjacent & behind_or_level == 0 {
                    // Backward: no neighbour can come up beside it; it is weak if an enemy
                    // pawn guards its stop square.
                    let stop_guard_rank = match c {
                        Color::White => r + 2,
                        Color::Black => r.wrapping_sub(2),
                    };
                    if stop_guard_rank < 8 && (their_l | their_r) >> stop_guard_rank & 1 != 0 {
                        score += w.backward;
                        t.term(Term::Backward, c, 1);
                    }
                }
            }
            if their_front == 0 && ranks[us][f] & ahead == 0 {
                score += w.passed[rr];
                t.term(Term::Passed(rr), c, 1);
                e.passed[us] |= 1 << sq.index64();
            }
            for d in [c.forward() - 1, c.forward() + 1] {
                if let Some(t) = sq.offset(d) {
                    e.pawn_attacks[us] |= 1 << t.index64();
                }
            }
        }
        e.score += score * sign(c);
    }
    e
}

/// Per-colour facts gathered in one pass, used by several terms. Square sets are 64-bit,
/// bit [`Square::index64`] of a square: tested once per square a piece reaches, a `u64`
/// shift is cheaper than the `u128` one the 0x88 numbering would need.
struct Side {
    /// Squares attacked by this colour's pawns.
    pawn_attacks: u64,
    /// The 3x3 zone around this colour's king.
    king_zone: u64,
    occupied: u64,
    pawns: u64,
    /// Squares attacked by this colour's knights and bishops.
    minor_attacks: u64,
    /// Squares attacked by this colour's rooks.
    rook_attacks: u64,
    /// Squares attacked by anything of this colour, king and pawns included.
    attacks: u64,
}

impl Side {
    const EMPTY: Side =
        Side { pawn_attacks: 0, king_zone: 0, occupied: 0, pawns: 0, minor_attacks: 0, rook_attacks: 0, attacks: 0 };
}

#[inline(always)]
fn non_pawn(pos: &Position, c: Color) -> i32 {
    pos.count_of(Piece::new(c, Kind::Knight)) as i32 * nominal(Kind::Knight)
        + pos.count_of(Piece::new(c, Kind::Bishop)) as i32 * nominal(Kind::Bishop)
        + pos.count_of(Piece::new(c, Kind::Rook)) as i32 * nominal(Kind::Rook)
        + pos.count_of(Piece::new(c, Kind::Queen)) as i32 * nominal(Kind::Queen)
}

/// KK, KNK, KBK, KNKB and the like: no pawns and at most a minor piece each.
#[inline(always)]
fn dead_draw(pos: &Position) -> bool {
    let pawns = pos.count_of(Piece::new(Color::White, Kind::Pawn)) + pos.count_of(Piece::new(Color::Black, Kind::Pawn));
    pawns == 0
        && non_pawn(pos, Color::White) <= nominal(Kind::Bishop)
        && non_pawn(pos, Color::Black) <= nominal(Kind::Bishop)
}

#[inline(always)]
fn evaluate_with<T: Trace>(pos: &Position, pawns: Option<&mut PawnTable>, w: &Weights, t: &mut T) -> i32 {
    // Insufficient material first: no search needed to know KNK, KBK, KK are dead.
    let wp = pos.count_of(Piece::new(Color::White, Kind::Pawn));
    let bp = pos.count_of(Piece::new(Color::Black, Kind::Pawn));
    let (wnp, bnp) = (non_pawn(pos, Color::White), non_pawn(pos, Color::Black));
    if wp + bp == 0 && wnp <= nominal(Kind::Bishop) && bnp <= nominal(Kind::Bishop) {
        return 0;
    }

    let pawn_entry = match pawns {
        Some(table) => table.get(pos),
        None => pawn_structure(pos, w, t),
    };
    let mut total = pos.psq() + pawn_entry.score;
    if T::ON {
        // The incremental material and piece-square sum, term by term.
        for c in [Color::White, Color::Black] {
            for &sq in pos.pieces(c) {
                let kind = pos.piece_at(sq).kind();
                let white_sq = if c == Color::White { sq } else { sq.flip() };
                t.term(Term::Material(kind), c, 1);
                t.term(Term::Psq(kind, white_sq.index64()), c, 1);
            }
        }
    }

    let mut sides = [Side::EMPTY, Side::EMPTY];
    for c in [Color::White, Color::Black] {
        let side = &mut sides[c.index()];
        for &sq in pos.officers(c) {
            side.occupied |= 1 << sq.index64();
        }
        for &sq in pos.pawns(c) {
            side.pawns |= 1 << sq.index64();
        }
        side.occupied |= side.pawns;
        side.pawn_attacks = pawn_entry.pawn_attacks[c.index()];
        let king = pos.king(c).index64();
        side.king_zone = KING_ZONE[king];
        side.attacks = side.pawn_attacks | (KING_ZONE[king] & !(1 << king));
    }

    for c in [Color::White, Color::Black] {
        let us = c.index();
        let them = c.flip().index();
        let mut score = Tapered::default();
        let area = !(sides[us].occupied | sides[them].pawn_attacks);
        let enemy_zone = sides[them].king_zone;
        let mut attack_units = 0;
        let mut attackers = 0;
        let mut bishops = 0;
        let mut hits = [0; 6];
        // Pieces other than king and pawns: the king leads the officers, the pawns follow them.
        let (mut minor_attacks, mut rook_attacks, mut attacks) = (0u64, 0u64, 0u64);
        for &sq in &pos.officers(c)[1..] {
            let p = pos.piece_at(sq);
            let kind = p.kind();
            let reach = match kind {
                Kind::Knight => {
                    let reach = KNIGHT_REACH[sq.index64()];
                    minor_attacks |= reach;
                    reach
                }
                Kind::Bishop => {
                    bishops += 1;
                    let reach = slider_reach(pos, sq, &BISHOP_STEPS);
                    minor_attacks |= reach;
                    reach
                }
                Kind::Rook => {
                    let file_bit = 1u8 << sq.file();
                    if (pawn_entry.files[us] | pawn_entry.files[them]) & file_bit == 0 {
                        score += w.rook_open;
                        t.term(Term::RookOpen, c, 1);
                    } else if pawn_entry.files[us] & file_bit == 0 {
                        score += w.rook_semi_open;
                        t.term(Term::RookSemiOpen, c, 1);
                    }
                    let reach = slider_reach(pos, sq, &ROOK_STEPS);
                    rook_attacks |= reach;
                    reach
                }
                Kind::Queen => slider_reach(pos, sq, &BISHOP_STEPS) | slider_reach(pos, sq, &ROOK_STEPS),
                _ => continue,
            };
            attacks |= reach;
            let mobility = (reach & area).count_ones() as i32;
            score += w.mobility[kind.index()] * (mobility - MOBILITY_BASE[kind.index()]);
            t.term(Term::Mobility(kind), c, mobility - MOBILITY_BASE[kind.index()]);
            let zone = reach & enemy_zone;
            if zone != 0 {
                let zone_hits = zone.count_ones() as i32;
                attackers += 1;
                attack_units += w.attack_units[kind.index()] * zone_hits;
                if T::ON {
                    hits[kind.index()] += zone_hits;
                }
            }
        }
        if bishops >= 2 {
            score += w.bishop_pair;
            t.term(Term::BishopPair, c, 1);
        }
        t.king_attack(c, hits, attackers >= 2);
        // King attack: counts only with two attackers (or a queen among few), grows
        // quadratically, capped.
        if attackers >= 2 {
            score += king_danger(attack_units);
        }
        // Own king's pawn shield (middle game only).
        score += king_shield(pos, c, &pawn_entry, w, t);
        // Passed pawns with the kings: the end game wants the own king near the stop
        // square and the enemy king far from it.
        let mut passed = pawn_entry.passed[us];
        while passed != 0 {
            let sq = Square::from_index64(passed.trailing_zeros() as usize);
            passed &= passed - 1;
            let rr = rel_rank(sq, c) as usize;
            if let Some(stop) = sq.offset(c.forward()) {
                let prox = 5 * distance(pos.king(c.flip()), stop) - 2 * distance(pos.king(c), stop);
                score += w.passed_king[rr] * prox;
                t.term(Term::PassedKing(rr), c, prox);
                if pos.piece_at(stop).is_some() {
                    score += w.passed_blocked;
                    t.term(Term::PassedBlocked, c, 1);
                }
            }
        }
        total += score * sign(c);
        let side = &mut sides[us];
        side.minor_attacks = minor_attacks;
        side.rook_attacks = rook_attacks;
        side.attacks |= attacks;
    }

    // Threats, now that both colours' attacks are known.
    for c in [Color::White, Color::Black] {
        total += threats(pos, c, &sides[c.index()], &sides[c.flip().index()], w, t) * sign(c);
    }

    // Blend by phase.
    let mut phase = 0;
    for kind in [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen] {
        let n = pos.count_of(Piece::new(Color::White, kind)) + pos.count_of(Piece::new(Color::Black, kind));
        phase += n as i32 * PHASE[kind.index()];
    }
    let phase = phase.min(24);
    let mut eg = total.eg;

    // End-game knowledge, from the stronger side's view.
    let strong = if eg >= 0 { Color::White } else { Color::Black };
    let (sp, snp, wnp_weak, wp_weak) = match strong {
        Color::White => (wp, wnp, bnp, bp),
        Color::Black => (bp, bnp, wnp, wp),
    };
    let strong_can_mate = {
        let n = |k: Kind| pos.count_of(Piece::new(strong, k));
        n(Kind::Queen) + n(Kind::Rook) > 0 || n(Kind::Bishop) >= 2 || (n(Kind::Bishop) >= 1 && n(Kind::Knight) >= 1)
    };
    let mut scale = 16; // out of 16
    if sp == 0 && !strong_can_mate && wnp_weak == 0 && wp_weak == 0 {
        scale = 0; // KNNK and the like: no forced mate
    } else if sp == 0 && snp - wnp_weak <= 350 {
        // Without pawns a minor piece or less of advantage rarely wins (KNNK, KRKB, ...).
        scale = if snp <= 660 && wnp_weak == 0 && wp_weak == 0 { 0 } else { 3 };
    }
    if scale == 16 && wnp == nominal(Kind::Bishop) && bnp == nominal(Kind::Bishop) {
        let wb = pos.count_of(Piece::new(Color::White, Kind::Bishop));
        let bb = pos.count_of(Piece::new(Color::Black, Kind::Bishop));
        if wb == 1 && bb == 1 && opposite_bishops(pos) {
            scale = 8;
        }
    }
    eg = eg * scale / 16;
    let mg = total.mg * scale / 16;
    let mut mop_up = 0;
    // Mop-up: a bare king against enough material is driven to the edge, and the winning
    // king comes close, so that KRK and KQK are won without tablebases.
    if wnp_weak == 0 && wp_weak == 0 && strong_can_mate {
        let weak_king = pos.king(strong.flip());
        let strong_king = pos.king(strong);
        let bonus = 20 * center_distance(weak_king) + 6 * (7 - distance(weak_king, strong_king)) + 200;
        eg += bonus * sign(strong);
        mop_up = bonus * sign(strong);
    }
    t.finish(phase, scale, mop_up, pos.side_to_move());

    let blended = (mg * phase + eg * (24 - phase)) / 24;
    let v = match pos.side_to_move() {
        Color::White => blended,
        Color::Black => -blended,
    };
    v + w.tempo
}

/// The most a king attack can be worth in the middle game (centipawns).
pub const KING_DANGER_CAP: i32 = 600;

/// A king attack of `units` attack units: quadratic, capped, an eighth of it in the end game.
#[inline(always)]
fn king_danger(units: i32) -> Tapered {
    let danger = (units * units / 4).min(KING_DANGER_CAP);
    s(danger, danger / 8)
}

fn opposite_bishops(pos: &Position) -> bool {
    let mut colors = [0u8; 2];
    for c in [Color::White, Color::Black] {
        for &sq in pos.pieces(c) {
            if pos.piece_at(sq).kind() == Kind::Bishop {
                colors[c.index()] = (sq.file() + sq.rank()) & 1;
            }
        }
    }
    colors[0] != colors[1]
}

/// The squares `steps` lead to from each square (by [`Square::index64`]), as 64-bit sets,
/// and the square itself when `with_self`: a knight's reach and a king's zone are then one
/// look-up instead of eight steps.
const fn leaper_sets(steps: [i8; 8], with_self: bool) -> [u64; 64] {
    let mut sets = [0u64; 64];
    let mut i = 0;
    while i < 64 {
        let from = Square::from_index64(i);
        if with_self {
            sets[i] |= 1 << from.index64();
        }
        let mut k = 0;
        while k < 8 {
            if let Some(t) = from.offset(steps[k]) {
                sets[i] |= 1 << t.index64();
            }
            k += 1;
        }
        i += 1;
    }
    sets
}

const KNIGHT_REACH: [u64; 64] = leaper_sets(KNIGHT_STEPS, false);
/// The 3x3 zone around a king.
const KING_ZONE: [u64; 64] = leaper_sets(KING_STEPS, true);

/// The squares a slider on `from` attacks along `steps` (up to and including the first
/// piece on each line).
#[inline(always)]
fn slider_reach(pos: &Position, from: Square, steps: &[i8; 4]) -> u64 {
    let mut reach = 0u64;
    for &d in steps {
        let mut t = from.raw().wrapping_add(d as u8);
        while t & 0x88 == 0 {
            let sq = Square::from_index_unchecked(t);
            reach |= 1 << sq.index64();
            if pos.piece_at(sq).is_some() {
                break;
            }
            t = t.wrapping_add(d as u8);
        }
    }
    reach
}

/// Files a and h as 64-bit sets (bit [`Square::index64`]).
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// The squares the pawns of `c` on `pawns` attack.
#[inline(always)]
fn pawn_attacks_of(pawns: u64, c: Color) -> u64 {
    // Index 0 is a8: White moves to lower indices, Black to higher.
    match c {
        Color::White => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
        Color::Black => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
    }
}

/// Threats by `c` (`us`) against the other colour (`them`), in `c`'s favour.
#[inline(always)]
fn threats<T: Trace>(pos: &Position, c: Color, us: &Side, them: &Side, w: &Weights, t: &mut T) -> Tapered {
    let mut score = Tapered::default();
    let enemy = c.flip();
    // The enemy's pieces other than the king.
    for &sq in &pos.officers(enemy)[1..] {
        let b = 1u64 << sq.index64();
        if us.attacks & b == 0 {
            continue;
        }
        let kind = pos.piece_at(sq).kind();
        if us.pawn_attacks & b != 0 {
            score += w.pawn_threat[kind.index()];
            t.term(Term::PawnThreat(kind), c, 1);
        }
        if us.minor_attacks & b != 0 {
            score += w.minor_threat[kind.index()];
            t.term(Term::MinorThreat(kind), c, 1);
        }
        if kind == Kind::Queen && us.rook_attacks & b != 0 {
            score += w.rook_threat;
            t.term(Term::RookThreat, c, 1);
        }
        if them.attacks & b == 0 {
            score += w.hanging;
            t.term(Term::Hanging, c, 1);
        }
    }
    // Pawn pushes (one step, or two from the start) to squares that enemy pawns do not
    // attack and that are defended or not attacked, then attacking an enemy piece that no
    // pawn of ours attacks yet.
    let empty = !(us.occupied | them.occupied);
    let (push, double_rank) = match c {
        Color::White => ((us.pawns >> 8) & empty, 0xFFu64 << 40),
        Color::Black => ((us.pawns << 8) & empty, 0xFFu64 << 16),
    };
    let double = match c {
        Color::White => ((push & double_rank) >> 8) & empty,
        Color::Black => ((push & double_rank) << 8) & empty,
    };
    let safe = (push | double) & !them.pawn_attacks & (us.attacks | !them.attacks);
    let targets = (them.occupied & !them.pawns & !(1 << pos.king(enemy).index64())) & !us.pawn_attacks;
    let n = (pawn_attacks_of(safe, c) & targets).count_ones() as i32;
    if n > 0 {
        score += w.push_threat * n;
        t.term(Term::PushThreat, c, n);
    }
    score
}

/// Pawn shield in front of `c`'s king: files around the king should keep a pawn on the
/// second or third rank (relative).
fn king_shield<T: Trace>(pos: &Position, c: Color, pawns: &PawnEntry, w: &Weights, t: &mut T) -> Tapered {
    let k = pos.king(c);
    if rel_rank(k, c) > 2 {
        t.term(Term::ShieldMissing, c, 2);
        return w.shield_missing * 2; // a king in the open
    }
    let pawn = Piece::new(c, Kind::Pawn);
    let kf = k.file() as i32;
    let mut v = Tapered::default();
    for f in (kf - 1).max(0)..=(kf + 1).min(7) {
        let near = Square::from_coords(f as u8, if c == Color::White { 1 } else { 6 });
        let next = Square::from_coords(f as u8, if c == Color::White { 2 } else { 5 });
        if pos.piece_at(near) == pawn {
            // fine
        } else if pos.piece_at(next) == pawn {
            v += w.shield_advanced;
            t.term(Term::ShieldAdvanced, c, 1);
        } else {
            v += w.shield_missing;
            t.term(Term::ShieldMissing, c, 1);
        }
        if (pawns.files[0] | pawns.files[1]) >> f & 1 == 0 {
            v += w.king_open_file;
            t.term(Term::KingOpenFile, c, 1);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same position with colours swapped and the board mirrored top to bottom.
    fn flip_fen(fen: &str) -> String {
        let parts: Vec<&str> = fen.split_whitespace().collect();
        let board: Vec<String> = parts[0]
            .split('/')
            .rev()
            .map(|row| {
                row.chars()
                    .map(|ch| if ch.is_ascii_uppercase() { ch.to_ascii_lowercase() } else { ch.to_ascii_uppercase() })
                    .collect()
            })
            .collect();
        let side = if parts[1] == "w" { "b" } else { "w" };
        let castling: String = if parts[2] == "-" {
            "-".into()
        } else {
            let mut c: Vec<char> = parts[2]
                .chars()
                .map(|ch| if ch.is_ascii_uppercase() { ch.to_ascii_lowercase() } else { ch.to_ascii_uppercase() })
                .collect();
            c.sort_by_key(|ch| (ch.is_ascii_lowercase(), *ch));
            c.into_iter().collect()
        };
        let ep = if parts[3] == "-" {
            "-".to_string()
        } else {
            let b = parts[3].as_bytes();
            format!("{}{}", b[0] as char, if b[1] == b'3' { '6' } else { '3' })
        };
        format!("{} {} {} {} 0 1", board.join("/"), side, castling, ep)
    }

    const FENS: [&str; 8] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 1",
        "8/8/4k3/8/8/3K4/3R4/8 w - - 0 1",
        "6k1/5ppp/8/3P4/8/8/5PPP/6K1 b - - 0 1",
        "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - b3 0 1",
        "8/8/8/3b4/8/5B2/2k5/K7 w - - 0 1",
    ];

    #[test]
    fn colour_flip_is_symmetric() {
        for fen in FENS {
            let a = Position::from_fen(fen).unwrap();
            let b = Position::from_fen(&flip_fen(fen)).unwrap();
            assert_eq!(evaluate(&a), evaluate(&b), "{fen} vs {}", flip_fen(fen));
        }
    }

    #[test]
    fn symmetric_positions_are_equal_for_both_sides() {
        // In a symmetric position the only difference between the two sides is the tempo.
        for fen in [FENS[0], "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 0 1"] {
            let w = Position::from_fen(fen).unwrap();
            let b = Position::from_fen(&fen.replace(" w ", " b ")).unwrap();
            assert_eq!(evaluate_hand(&w), TEMPO);
            assert_eq!(evaluate_hand(&b), TEMPO);
        }
    }

    #[test]
    fn pawn_cache_agrees() {
        let mut table = PawnTable::new(1024);
        for fen in FENS {
            let p = Position::from_fen(fen).unwrap();
            assert_eq!(evaluate_cached(&p, &mut table), evaluate_hand(&p));
            assert_eq!(evaluate_cached(&p, &mut table), evaluate_hand(&p));
        }
    }

    #[test]
    fn eval_cache_agrees() {
        let mut pawns = PawnTable::new(1024);
        let mut cache = EvalCache::new(16);
        for _ in 0..2 {
            for fen in FENS {
                let p = Position::from_fen(fen).unwrap();
                assert_eq!(cache.evaluate(&p, &mut pawns, &nnue::refresh(&NETWORK, &p)), evaluate(&p), "{fen}");
            }
        }
    }

    /// Sums the trace with the engine's weights, as the tuner does.
    struct Sum {
        total: Tapered,
        finish: (i32, i32, i32, Color),
    }
    fn weight(term: Term) -> Tapered {
        let w = &WEIGHTS;
        match term {
            Term::Material(k) => s(crate::value::PIECE_VALUES[k.index()].mg, crate::value::PIECE_VALUES[k.index()].eg),
            Term::Psq(k, sq) => crate::psqt::PST[k.index()][sq],
            Term::Doubled => w.doubled,
            Term::Isolated => w.isolated,
            Term::Backward => w.backward,
            Term::Connected(r) => w.connected[r],
            Term::Passed(r) => w.passed[r],
            Term::PassedKing(r) => w.passed_king[r],
            Term::PassedBlocked => w.passed_blocked,
            Term::Mobility(k) => w.mobility[k.index()],
            Term::BishopPair => w.bishop_pair,
            Term::RookOpen => w.rook_open,
            Term::RookSemiOpen => w.rook_semi_open,
            Term::PawnThreat(k) => w.pawn_threat[k.index()],
            Term::MinorThreat(k) => w.minor_threat[k.index()],
            Term::RookThreat => w.rook_threat,
            Term::Hanging => w.hanging,
            Term::PushThreat => w.push_threat,
            Term::ShieldMissing => w.shield_missing,
            Term::ShieldAdvanced => w.shield_advanced,
            Term::KingOpenFile => w.king_open_file,
        }
    }
    impl Trace for Sum {
        const ON: bool = true;
        fn term(&mut self, term: Term, c: Color, n: i32) {
            self.total += weight(term) * (n * sign(c));
        }
        fn king_attack(&mut self, c: Color, hits: [i32; 6], counts: bool) {
            let units: i32 = (0..6).map(|k| WEIGHTS.attack_units[k] * hits[k]).sum();
            if counts {
                self.total += king_danger(units) * sign(c);
            }
        }
        fn finish(&mut self, phase: i32, scale: i32, mop_up: i32, stm: Color) {
            self.finish = (phase, scale, mop_up, stm);
        }
    }

    #[test]
    fn trace_adds_up_to_the_evaluation() {
        let mut checked = 0;
        for fen in FENS.iter().copied().chain([
            "8/8/4k3/8/8/3K4/3R4/8 b - - 0 1",
            "6k1/8/8/8/8/8/1N6/6K1 w - - 0 1",
            "4k3/5r2/8/4N3/8/2b5/8/3K4 b - - 0 1",
            "r2qk2r/ppp2ppp/2n2n2/3pp1B1/1b2P3/2NP1N2/PPP2PPP/R2QKB1R w KQkq - 0 1",
        ]) {
            let p = Position::from_fen(fen).unwrap();
            let mut sum = Sum { total: Tapered::default(), finish: (0, 0, 0, Color::White) };
            let Some(v) = evaluate_traced(&p, &mut sum) else {
                assert_eq!(evaluate(&p), 0, "{fen}");
                continue;
            };
            let (phase, scale, mop_up, stm) = sum.finish;
            let (mg, eg) = (sum.total.mg * scale / 16, sum.total.eg * scale / 16 + mop_up);
            let white = (mg * phase + eg * (24 - phase)) / 24;
            let rebuilt = if stm == Color::White { white } else { -white } + WEIGHTS.tempo;
            assert_eq!(rebuilt, v, "{fen}");
            assert_eq!(v, evaluate_hand(&p), "{fen}");
            checked += 1;
        }
        assert!(checked >= 8);
    }

    /// Records the threat terms, White minus Black.
    #[derive(Default)]
    struct Threats(Vec<(Term, i32)>);
    impl Trace for Threats {
        const ON: bool = true;
        fn term(&mut self, term: Term, c: Color, n: i32) {
            if matches!(
                term,
                Term::PawnThreat(_) | Term::MinorThreat(_) | Term::RookThreat | Term::Hanging | Term::PushThreat
            ) {
                self.0.push((term, n * sign(c)));
            }
        }
    }

    #[test]
    fn threats_are_seen() {
        let cases: [(&str, &[(Term, i32)]); 5] = [
            // A pawn attacks an undefended knight.
            ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", &[(Term::PawnThreat(Kind::Knight), 1), (Term::Hanging, 1)]),
            // Rook and queen face each other, both defended by their kings.
            ("3qk3/8/8/8/8/8/8/3RK3 w - - 0 1", &[(Term::RookThreat, 1)]),
            // d3-d4 would fork knight and rook; d4 is not attacked.
            ("4k3/8/8/2n1r3/8/3P4/8/4K3 w - - 0 1", &[(Term::PushThreat, 2)]),
            // d2-d3 attacks the knight (d2-d4 attacks nothing).
            ("4k3/8/8/8/2n5/8/3P4/4K3 w - - 0 1", &[(Term::PushThreat, 1)]),
            // A knight attacks a rook its king defends; a bishop attacks the undefended knight.
            (
                "4k3/5r2/8/4N3/8/2b5/8/3K4 b - - 0 1",
                &[(Term::MinorThreat(Kind::Rook), 1), (Term::MinorThreat(Kind::Knight), -1), (Term::Hanging, -1)],
            ),
        ];
        for (fen, want) in cases {
            let p = Position::from_fen(fen).unwrap();
            let mut got = Threats::default();
            evaluate_traced(&p, &mut got).unwrap();
            let mut got = got.0;
            let mut want = want.to_vec();
            let key = |x: &(Term, i32)| format!("{x:?}");
            got.sort_by_key(key);
            want.sort_by_key(key);
            assert_eq!(got, want, "{fen}");
            let flipped = Position::from_fen(&flip_fen(fen)).unwrap();
            assert_eq!(evaluate(&p), evaluate(&flipped), "{fen}");
        }
    }

    #[test]
    fn endgame_knowledge() {
        for fen in
            ["8/8/4k3/8/8/3K4/3N4/8 w - - 0 1", "8/8/4k3/8/8/3K4/3B4/8 b - - 0 1", "8/8/4k3/8/8/3K4/3NN3/8 w - - 0 1"]
        {
            let p = Position::from_fen(fen).unwrap();
            assert!(evaluate(&p).abs() <= TEMPO, "{fen}: {}", evaluate(&p));
        }
        // KRK: the bare king on the edge is worse for it than in the centre.
        let edge = evaluate(&Position::from_fen("4k3/8/4K3/8/8/8/8/7R w - - 0 1").unwrap());
        let centre = evaluate(&Position::from_fen("8/8/8/4k3/8/8/8/K6R w - - 0 1").unwrap());
        assert!(edge > centre && centre > 400, "{edge} {centre}");
    }
}
