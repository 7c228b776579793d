//! What a tuner sees of the evaluation: every weight named ([`Term`]) and counted as it is
//! summed ([`Trace`]).

use crate::piece::{Color, Kind};

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
