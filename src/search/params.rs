//! The search's tunable numbers in one place: pruning margins and the depths they apply at,
//! reductions, history bonuses, the aspiration window, and the scales of the correction
//! history. Centipawns and plies unless a line says otherwise. Which selective parts are on
//! at all is decided by the search's feature switches; when to stop between iterations is
//! the time manager's ([`crate::time`]).

// --- Pruning before the moves ---

/// Deepest depth at which reverse futility (static null move) prunes.
pub const RFP_MAX_DEPTH: i32 = 7;
/// Reverse futility margin per ply of depth (one ply fewer when the eval is improving).
pub const RFP_MARGIN: i32 = 80;
/// Shallowest depth at which the null move is tried.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Null-move reduction before the depth and eval terms.
pub const NMP_BASE: i32 = 3;
/// The null-move reduction grows by one ply per this many plies of depth.
pub const NMP_DEPTH_DIV: i32 = 4;
/// The null-move reduction grows by one ply per this many centipawns of eval above beta...
pub const NMP_EVAL_DIV: i32 = 200;
/// ...by at most this many plies.
pub const NMP_EVAL_MAX: i32 = 3;
/// Shallowest depth at which a node without a hash move is searched one ply shallower
/// (internal iterative reduction).
pub const IIR_MIN_DEPTH: i32 = 5;

// --- Pruning of moves ---

/// Deepest depth at which late-move pruning skips the remaining quiet moves.
pub const LMP_MAX_DEPTH: i32 = 8;
/// Late-move pruning keeps `LMP_BASE + depth * depth` quiet moves...
pub const LMP_BASE: i32 = 3;
/// ...divided by this when the eval is not improving.
pub const LMP_NOT_IMPROVING_DIV: i32 = 2;
/// Deepest depth at which a losing capture is pruned by SEE.
pub const SEE_CAPTURE_MAX_DEPTH: i32 = 6;
/// A capture is pruned when SEE loses more than this times the depth.
pub const SEE_CAPTURE_MARGIN: i32 = 90;
/// Deepest depth at which a quiet move losing material by SEE is pruned (unless it checks).
pub const SEE_QUIET_MAX_DEPTH: i32 = 8;
/// A quiet move is pruned when SEE loses more than this times the depth squared.
pub const SEE_QUIET_MARGIN: i32 = 20;
/// Deepest depth at which futility pruning skips quiet moves that do not check.
pub const FUTILITY_MAX_DEPTH: i32 = 6;
/// Futility margin before the depth term.
pub const FUTILITY_BASE: i32 = 100;
/// Futility margin per ply of depth.
pub const FUTILITY_MARGIN: i32 = 100;
/// Quiescence delta pruning: margin over the victim's value a capture must be able to reach
/// alpha by.
pub const DELTA_MARGIN: i32 = 200;
/// A stored score settles a node only while the halfmove clock is below this: nearer the
/// fifty-move limit it may hold a result the clock no longer allows.
pub const TT_TRUST_CLOCK: u16 = 90;

// --- Extensions ---

/// Shallowest depth at which the hash move is tested for being singular.
pub const SE_MIN_DEPTH: i32 = 8;
/// The hash entry must be at most this many plies shallower than the node.
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
/// The other moves are searched against the hash score less this much per ply of depth...
pub const SE_MARGIN: i32 = 2;
/// ...at the node's depth less one, divided by this.
pub const SE_DEPTH_DIV: i32 = 2;
/// A non-PV hash move is extended two plies when the others fall this far below that bar...
pub const SE_DOUBLE_MARGIN: i32 = 20;
/// ...at most this many times along one path.
pub const SE_DOUBLE_MAX: u8 = 6;

// --- Late-move reductions ---

/// Shallowest depth at which late moves are reduced.
pub const LMR_MIN_DEPTH: i32 = 3;
/// The reduction table is `LMR_BASE + ln(depth) * ln(move number) / LMR_DIVISOR` plies,
/// rounded down.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
/// A quiet move's reduction shrinks by one ply per this much of its ordering score (history
/// and continuation history), and grows by one per this much below zero.
pub const LMR_HISTORY_DIV: i32 = 8000;
/// Plies less reduction in a PV node...
pub const LMR_PV: i32 = 1;
/// ...more when the eval is not improving...
pub const LMR_NOT_IMPROVING: i32 = 1;
/// ...and less for the killers and the counter-move.
pub const LMR_REFUTATION: i32 = 1;

// --- Move ordering ---

/// History scores stay within +-HISTORY_MAX (well below the killer band).
pub const HISTORY_MAX: i32 = 16_384;
/// History bonus of a quiet move that cuts off: `HISTORY_DEPTH2 * depth^2 +
/// HISTORY_DEPTH * depth`, at most [`HISTORY_BONUS_MAX`] (the moves tried before it lose
/// as much).
pub const HISTORY_DEPTH2: i32 = 16;
/// See [`HISTORY_DEPTH2`].
pub const HISTORY_DEPTH: i32 = 32;
/// The largest history bonus.
pub const HISTORY_BONUS_MAX: i32 = 1600;

// --- Root ---

/// Shallowest depth searched in an aspiration window around the last score.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;
/// The first aspiration window's half-width.
pub const ASPIRATION_DELTA: i32 = 18;
/// After a fail the half-width grows by half of itself plus this.
pub const ASPIRATION_GROWTH: i32 = 5;

// --- Tablebases in the tree ---

/// A tablebase result is stored in the hash table this many plies deeper than the node's
/// depth (capped below the maximum ply): it is exact however deep one searches.
pub const TB_DRAFT_BONUS: i32 = 6;

// --- Correction history (centipawns, before the tables' fixed-point grain) ---

/// The largest correction entry.
pub const CORRECTION_LIMIT: i32 = 1024;
/// The largest single update of an entry.
pub const CORRECTION_MAX_BONUS: i32 = 256;
/// An update's bonus is `(score - eval) * depth / CORRECTION_DEPTH_DIV`, at most
/// [`CORRECTION_MAX_BONUS`] either way.
pub const CORRECTION_DEPTH_DIV: i32 = 8;
/// The pawn-structure entry weighs this many times a non-pawn entry...
pub const CORRECTION_PAWN_WEIGHT: i32 = 2;
/// ...and the weighted sum of the entries is divided by this: a full pawn entry corrects by
/// 64 centipawns, a full non-pawn entry by 32.
pub const CORRECTION_READ_DIV: i32 = 32;
