//! The tunable numbers of the search and the time manager in one table: pruning margins and
//! the depths they apply at, reductions, history bonuses, the aspiration window, the scales
//! of the correction history, and how the soft time limit stretches. Centipawns and plies
//! unless a line says otherwise; a fraction is kept in hundredths (`_pct`), so that every
//! entry is an integer a UCI spin option can carry. Which selective parts are on at all is
//! decided by the search's feature switches.
//!
//! Each entry has a default, a range and SPSA's final perturbation and learning rate
//! (`c_end`, `r_end`, as OpenBench takes them). The search reads an entry through an
//! accessor of [`Params`], a value the searcher lends to every thread:
//!
//! - without the `tune` feature (every release build) `Params` is a zero-sized type whose
//!   accessors are `const fn`s returning the defaults, so the search compiles to the same
//!   code as with plain constants;
//! - with `--features tune` it holds one field per entry, each a UCI spin option
//!   (`Params::set` refuses a value outside its range), and [`spsa_inputs`] prints the
//!   table in OpenBench's SPSA input format for a tuner.
//!
//! The numbers that are limits rather than trade-offs (the history range the move
//! ordering's bands rely on, the correction tables' grain, the fifty-move trust) stay plain
//! constants below the table.

use std::fmt;

/// One entry of the table: what a tuner needs to know of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// The UCI option's name (lower case, as the accessor).
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// SPSA's perturbation at the end of a run, in the entry's own units.
    pub c_end: f64,
    /// SPSA's learning rate at the end of a run.
    pub r_end: f64,
}

/// A value refused by `Params::set` (the tune build).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    Unknown(String),
    OutOfRange { name: &'static str, value: i64, min: i32, max: i32 },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Unknown(name) => write!(f, "no search parameter '{name}'"),
            ParamError::OutOfRange { name, value, min, max } => {
                write!(f, "{name} must be between {min} and {max}, not {value}")
            }
        }
    }
}

impl std::error::Error for ParamError {}

/// Generates [`TABLE`] and [`Params`] from one list, so that a name, its default and its
/// range cannot drift apart: `name: default, min, max, c_end, r_end;`.
macro_rules! params {
    ($( $(#[$doc:meta])* $name:ident: $default:literal, $min:literal, $max:literal, $c_end:literal, $r_end:literal; )*) => {
        /// Every tunable number, in the order of the search's phases.
        pub const TABLE: &[Param] = &[
            $( Param { name: stringify!($name), default: $default, min: $min, max: $max, c_end: $c_end, r_end: $r_end }, )*
        ];

        /// The values the search runs with: the defaults, as constants (no `tune` feature).
        #[cfg(not(feature = "tune"))]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Params;

        #[cfg(not(feature = "tune"))]
        impl Params {
            /// The defaults (the only values there are without the feature).
            pub const fn defaults() -> Params {
                Params
            }

            $( $(#[$doc])* #[inline(always)] pub const fn $name(&self) -> i32 { $default } )*
        }

        /// The values the search runs with, each set by its UCI option (`tune` feature).
        #[cfg(feature = "tune")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params {
            $( $name: i32, )*
        }

        #[cfg(feature = "tune")]
        impl Default for Params {
            fn default() -> Self {
                Params::defaults()
            }
        }

        #[cfg(feature = "tune")]
        impl Params {
            /// Every entry at its default.
            pub const fn defaults() -> Params {
                Params { $( $name: $default, )* }
            }

            $( $(#[$doc])* #[inline(always)] pub const fn $name(&self) -> i32 { self.$name } )*

            fn slot(&mut self, name: &str) -> Option<(&'static Param, &mut i32)> {
                let entry = TABLE.iter().find(|p| p.name.eq_ignore_ascii_case(name))?;
                match entry.name {
                    $( stringify!($name) => Some((entry, &mut self.$name)), )*
                    _ => None,
                }
            }

            /// The value of the entry `name` (case does not matter).
            pub fn get(&self, name: &str) -> Option<i32> {
                let mut copy = *self;
                copy.slot(name).map(|(_, v)| *v)
            }
        }
    };
}

params! {
    // --- Pruning before the moves ---
    /// Deepest depth at which reverse futility (static null move) prunes.
    rfp_max_depth: 7, 3, 12, 0.5, 0.002;
    /// Reverse futility margin per ply of depth (one ply fewer when the eval is improving).
    rfp_margin: 80, 30, 160, 6.0, 0.002;
    /// Shallowest depth at which the null move is tried.
    nmp_min_depth: 3, 1, 6, 0.5, 0.002;
    /// Null-move reduction before the depth and eval terms.
    nmp_base: 3, 1, 6, 0.5, 0.002;
    /// The null-move reduction grows by one ply per this many plies of depth.
    nmp_depth_div: 4, 2, 8, 0.5, 0.002;
    /// The null-move reduction grows by one ply per this many centipawns of eval above beta...
    nmp_eval_div: 200, 80, 400, 15.0, 0.002;
    /// ...by at most this many plies.
    nmp_eval_max: 3, 1, 6, 0.5, 0.002;
    /// Shallowest depth at which a node without a hash move is searched one ply shallower
    /// (internal iterative reduction).
    iir_min_depth: 5, 2, 10, 0.5, 0.002;

    // --- Pruning of moves ---
    /// Deepest depth at which late-move pruning skips the remaining quiet moves.
    lmp_max_depth: 8, 3, 12, 0.5, 0.002;
    /// Late-move pruning keeps `lmp_base + depth * depth` quiet moves...
    lmp_base: 3, 0, 10, 0.5, 0.002;
    /// ...divided by this when the eval is not improving.
    lmp_not_improving_div: 2, 1, 4, 0.5, 0.002;
    /// Deepest depth at which a losing capture is pruned by SEE.
    see_capture_max_depth: 6, 2, 12, 0.5, 0.002;
    /// A capture is pruned when SEE loses more than this times the depth.
    see_capture_margin: 90, 30, 200, 8.0, 0.002;
    /// Deepest depth at which a quiet move losing material by SEE is pruned (unless it checks).
    see_quiet_max_depth: 8, 2, 12, 0.5, 0.002;
    /// A quiet move is pruned when SEE loses more than this times the depth squared.
    see_quiet_margin: 20, 5, 60, 2.0, 0.002;
    /// Deepest depth at which futility pruning skips quiet moves that do not check.
    futility_max_depth: 6, 2, 12, 0.5, 0.002;
    /// Futility margin before the depth term.
    futility_base: 100, 20, 250, 10.0, 0.002;
    /// Futility margin per ply of depth.
    futility_margin: 100, 30, 250, 10.0, 0.002;
    /// Quiescence delta pruning: margin over the victim's value a capture must be able to
    /// reach alpha by.
    delta_margin: 200, 50, 400, 15.0, 0.002;

    // --- Extensions ---
    /// Shallowest depth at which the hash move is tested for being singular.
    se_min_depth: 8, 4, 12, 0.5, 0.002;
    /// The hash entry must be at most this many plies shallower than the node.
    se_tt_depth_margin: 3, 1, 6, 0.5, 0.002;
    /// The other moves are searched against the hash score less this much per ply of depth...
    se_margin: 2, 1, 6, 0.5, 0.002;
    /// ...at the node's depth less one, divided by this.
    se_depth_div: 2, 1, 4, 0.5, 0.002;
    /// A non-PV hash move is extended two plies when the others fall this far below that bar...
    se_double_margin: 20, 0, 60, 3.0, 0.002;
    /// ...at most this many times along one path.
    se_double_max: 6, 0, 12, 0.5, 0.002;

    // --- Late-move reductions ---
    /// Shallowest depth at which late moves are reduced.
    lmr_min_depth: 3, 2, 6, 0.5, 0.002;
    /// The reduction table is `lmr_base + ln(depth) * ln(move number) / lmr_divisor` plies,
    /// rounded down, both in hundredths here.
    lmr_base_pct: 75, 0, 200, 8.0, 0.002;
    /// See `lmr_base_pct`.
    lmr_divisor_pct: 225, 100, 400, 15.0, 0.002;
    /// A quiet move's reduction shrinks by one ply per this much of its ordering score
    /// (history and continuation history), and grows by one per this much below zero.
    lmr_history_div: 8000, 2000, 20000, 500.0, 0.002;
    /// Plies less reduction in a PV node...
    lmr_pv: 1, 0, 3, 0.5, 0.002;
    /// ...more when the eval is not improving...
    lmr_not_improving: 1, 0, 3, 0.5, 0.002;
    /// ...and less for the killers and the counter-move.
    lmr_refutation: 1, 0, 3, 0.5, 0.002;

    // --- Move ordering ---
    /// History bonus of a quiet move that cuts off: `history_depth2 * depth^2 +
    /// history_depth * depth`, at most `history_bonus_max` (the moves tried before it lose
    /// as much).
    history_depth2: 16, 0, 64, 2.0, 0.002;
    /// See `history_depth2`.
    history_depth: 32, 0, 128, 4.0, 0.002;
    /// The largest history bonus (at most [`HISTORY_MAX`]).
    history_bonus_max: 1600, 400, 4000, 100.0, 0.002;

    // --- Root ---
    /// Shallowest depth searched in an aspiration window around the last score.
    aspiration_min_depth: 5, 2, 10, 0.5, 0.002;
    /// The first aspiration window's half-width.
    aspiration_delta: 18, 5, 60, 2.0, 0.002;
    /// After a fail the half-width grows by half of itself plus this.
    aspiration_growth: 5, 0, 30, 1.0, 0.002;

    // --- Correction history ---
    /// An update's bonus is `(score - eval) * depth / correction_depth_div`, at most
    /// [`CORRECTION_MAX_BONUS`] either way.
    correction_depth_div: 8, 2, 32, 1.0, 0.002;
    /// The pawn-structure entry weighs this many times a non-pawn entry...
    correction_pawn_weight: 2, 0, 6, 0.5, 0.002;
    /// ...and the weighted sum of the entries is divided by this: a full pawn entry corrects
    /// by 64 centipawns, a full non-pawn entry by 32.
    correction_read_div: 32, 8, 128, 3.0, 0.002;

    // --- Time: the share of the clock ---
    /// Moves assumed to remain in a sudden-death game.
    default_moves_to_go: 25, 10, 50, 2.0, 0.002;
    /// Quarters of the increment added to a move's share of the clock.
    inc_quarters: 3, 0, 4, 0.5, 0.002;
    /// The hard limit is this many soft limits (within the caps of the clock).
    hard_per_soft: 3, 1, 6, 0.5, 0.002;

    // --- Time: between iterations ---
    /// How much of the best move's instability an iteration carries over to the next.
    instability_decay_pct: 50, 0, 100, 5.0, 0.002;
    /// The soft limit is scaled by `stable_scale + instability_scale * instability`...
    stable_scale_pct: 70, 30, 150, 5.0, 0.002;
    /// See `stable_scale_pct`.
    instability_scale_pct: 80, 0, 200, 8.0, 0.002;
    /// ...stretched by `small_drop_stretch` when the score fell since the last iteration by
    /// more than `small_drop` centipawns...
    small_drop: 20, 5, 60, 3.0, 0.002;
    /// See `small_drop`.
    small_drop_stretch_pct: 25, 0, 100, 5.0, 0.002;
    /// ...and again by `big_drop_stretch` when it fell by more than `big_drop`...
    big_drop: 60, 20, 200, 8.0, 0.002;
    /// See `big_drop`.
    big_drop_stretch_pct: 35, 0, 100, 5.0, 0.002;
    /// ...from `share_min_depth` on, scaled by `(share_pivot - share) * share_scale` with
    /// `share` the best move's part of the iteration's nodes...
    share_min_depth: 8, 4, 16, 0.5, 0.002;
    /// See `share_min_depth`.
    share_pivot_pct: 150, 100, 250, 8.0, 0.002;
    /// See `share_min_depth`.
    share_scale_pct: 135, 50, 250, 8.0, 0.002;
    /// ...and at most this many times itself.
    max_scale_pct: 250, 100, 500, 15.0, 0.002;
}

/// Each fraction `$name` from its entry `$pct` in hundredths.
macro_rules! fractions {
    ($( $name:ident = $pct:ident; )*) => {
        $( #[doc = concat!("`", stringify!($pct), "` as a fraction.")]
           #[inline(always)]
           pub const fn $name(&self) -> f64 {
               self.$pct() as f64 / 100.0
           } )*
    };
}

/// The fractions, from their hundredths. A division by 100 is exact to the double nearest
/// the decimal, so each equals the literal it replaced (`0.7`, `1.35`): no node changes.
impl Params {
    fractions! {
        lmr_base = lmr_base_pct;
        lmr_divisor = lmr_divisor_pct;
        instability_decay = instability_decay_pct;
        stable_scale = stable_scale_pct;
        instability_scale = instability_scale_pct;
        small_drop_stretch = small_drop_stretch_pct;
        big_drop_stretch = big_drop_stretch_pct;
        share_pivot = share_pivot_pct;
        share_scale = share_scale_pct;
        max_scale = max_scale_pct;
    }

    /// The history bonus of a quiet move that cut off at `depth`.
    #[inline(always)]
    pub const fn history_bonus(&self, depth: i32) -> i32 {
        let bonus = self.history_depth2() * depth * depth + self.history_depth() * depth;
        if bonus < self.history_bonus_max() {
            bonus
        } else {
            self.history_bonus_max()
        }
    }
}

#[cfg(feature = "tune")]
impl Params {
    /// Sets the entry `name` (case does not matter) to `value`, which must lie in its range;
    /// otherwise nothing changes.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), ParamError> {
        let (entry, slot) = self.slot(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        if !(entry.min as i64..=entry.max as i64).contains(&value) {
            return Err(ParamError::OutOfRange { name: entry.name, value, min: entry.min, max: entry.max });
        }
        *slot = value as i32;
        Ok(())
    }
}

/// The table as OpenBench's SPSA input takes it, one line per entry:
/// `name, int, default, min, max, c_end, r_end`.
pub fn spsa_inputs() -> String {
    TABLE
        .iter()
        .map(|p| format!("{}, int, {}, {}, {}, {}, {}\n", p.name, p.default, p.min, p.max, p.c_end, p.r_end))
        .collect()
}

// --- Limits, not tuned ---

/// A stored score settles a node only while the halfmove clock is below this: nearer the
/// fifty-move limit it may hold a result the clock no longer allows.
pub const TT_TRUST_CLOCK: u16 = 90;
/// History scores stay within +-HISTORY_MAX (well below the killer band); entries are `i16`.
pub const HISTORY_MAX: i32 = 16_384;
/// A tablebase result is stored in the hash table this many plies deeper than the node's
/// depth (capped below the maximum ply): it is exact however deep one searches.
pub const TB_DRAFT_BONUS: i32 = 6;
/// The largest correction entry, in centipawns before the tables' fixed-point grain.
pub const CORRECTION_LIMIT: i32 = 1024;
/// The largest single update of a correction entry.
pub const CORRECTION_MAX_BONUS: i32 = 256;

const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        let p = &TABLE[i];
        assert!(p.min <= p.default && p.default <= p.max, "a default lies outside its range");
        i += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_ranges_leave_room_to_perturb() {
        for (i, p) in TABLE.iter().enumerate() {
            assert!(TABLE[..i].iter().all(|q| q.name != p.name), "{} twice", p.name);
            assert!(p.min < p.max, "{}: empty range", p.name);
            assert!(p.c_end > 0.0 && p.c_end <= (p.max - p.min) as f64 / 2.0, "{}: c_end {}", p.name, p.c_end);
            assert!(p.r_end > 0.0, "{}", p.name);
        }
        // The history bonus stays within the entries' range however it is tuned.
        let bonus = TABLE.iter().find(|p| p.name == "history_bonus_max").unwrap();
        assert!(bonus.max <= HISTORY_MAX);
    }

    #[test]
    fn spsa_inputs_are_one_openbench_line_per_entry() {
        let text = spsa_inputs();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), TABLE.len());
        assert_eq!(lines[1], "rfp_margin, int, 80, 30, 160, 6, 0.002");
        for line in lines {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[1], "int");
            for f in &fields[2..] {
                assert!(f.parse::<f64>().is_ok(), "{line}");
            }
        }
    }

    /// The fractions equal the literals they replaced, bit for bit.
    #[test]
    fn fractions_are_the_old_constants() {
        let p = Params::defaults();
        assert_eq!(p.lmr_base(), 0.75);
        assert_eq!(p.lmr_divisor(), 2.25);
        assert_eq!(p.instability_decay(), 0.5);
        assert_eq!(p.stable_scale(), 0.7);
        assert_eq!(p.instability_scale(), 0.8);
        assert_eq!(p.small_drop_stretch(), 0.25);
        assert_eq!(p.big_drop_stretch(), 0.35);
        assert_eq!(p.share_pivot(), 1.5);
        assert_eq!(p.share_scale(), 1.35);
        assert_eq!(p.max_scale(), 2.5);
        assert_eq!(p.history_bonus(1), 48);
        assert_eq!(p.history_bonus(20), 1600);
    }

    #[cfg(feature = "tune")]
    #[test]
    fn set_changes_one_value_and_refuses_what_lies_outside_the_range() {
        let mut p = Params::defaults();
        for entry in TABLE {
            assert_eq!(p.get(entry.name), Some(entry.default), "{}", entry.name);
        }
        p.set("RFP_Margin", 95).unwrap();
        assert_eq!(p.rfp_margin(), 95);
        assert_eq!(p.get("rfp_margin"), Some(95));
        assert_eq!(p.nmp_eval_div(), 200);
        assert_eq!(
            p.set("rfp_margin", 29),
            Err(ParamError::OutOfRange { name: "rfp_margin", value: 29, min: 30, max: 160 })
        );
        assert!(p.set("rfp_margin", i64::MAX).is_err());
        assert_eq!(p.rfp_margin(), 95);
        assert!(matches!(p.set("no_such", 1), Err(ParamError::Unknown(_))));
        // Every entry reaches its own field.
        for (i, entry) in TABLE.iter().enumerate() {
            let mut q = Params::defaults();
            q.set(entry.name, entry.max as i64).unwrap();
            for (j, other) in TABLE.iter().enumerate() {
                let want = if i == j { entry.max } else { other.default };
                assert_eq!(q.get(other.name), Some(want), "set {}, read {}", entry.name, other.name);
            }
        }
    }
}
