//! The evaluation's weights (centipawns), fitted by tools/tune.rs to 20,000 games of ox88
//! self-play (docs/search-and-eval.md, "Tuning the evaluation").

use crate::psqt::{s, Tapered};

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
