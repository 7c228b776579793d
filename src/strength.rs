//! Playing strength: what `UCI_LimitStrength` and `UCI_Elo` make of the search.
//!
//! A weaker ox88 is the same search with less to go on, as a weaker player is:
//! - a node budget per move, which cuts the depth it sees: it misses the tactics that take
//!   longer to see (a capture two moves on, a fork, a mate in three), and so loses material
//!   to real oversights rather than to random moves;
//! - at the lower levels, several lines at the root and a choice among them weighted by their
//!   scores: a move a little worse than its best is often played, one a piece worse hardly
//!   ever, and never one outside the best few;
//! - a shorter think: at most half the time the full engine would take up to `UCI_Elo` 2300,
//!   growing to all of it toward the top, and no sooner than a fifth of it (at most a second),
//!   so that it neither makes a person wait nor answers at once.
//!
//! The top of the range is the full engine itself, as measured on the same scale: there the
//! limit changes nothing.
//!
//! Everything is a setting passed down with the search's limits; with the limit off nothing
//! of this runs. The choice is random but repeatable: seeded from the position and the number
//! of games since the engine started, so the same commands replay a game exactly while the
//! next game differs. How the levels were measured against Stockfish's is in docs/strength.md.

use crate::rng::{mix, GOLDEN_GAMMA};
use crate::time::TimeBudget;
use std::time::Duration;

/// The `UCI_Elo` range: from beginners up to the full engine, which plays at about 2610 on
/// this scale (docs/strength.md). At `MAX_ELO` the limit is off.
pub const MIN_ELO: i64 = 1000;
pub const MAX_ELO: i64 = 2600;
pub const DEFAULT_ELO: i64 = 1500;

/// The Elo (on Stockfish's `UCI_Elo` scale) of internal level `1000 + d`, as fitted to games
/// against Stockfish (docs/strength.md, the calibration): `ELO_AT_1000 + SLOPE d`. A parabola
/// fits no better than this line within the games' error.
const ELO_AT_1000: f64 = 1213.1;
const SLOPE: f64 = 1.1262;
/// From this setting the think grows from half the full engine's time to all of it at the top.
const FULL_TIME_FROM: f64 = 2300.0;

/// The node budget at level 1000, and the levels between two doublings of it.
const NODES_AT_1000: f64 = 400.0;
const LEVELS_PER_DOUBLING: f64 = 110.0;
/// Enough for the shortest search to finish its first iteration over a few lines.
const MIN_NODES: u64 = 300;
/// The level from which the choice is no longer random, and how fast the noise grows below it.
const NOISELESS_LEVEL: f64 = 1900.0;
const NOISE_PER_LEVEL: f64 = 0.1;
/// A line further below the best than this many temperatures is never played.
const WINDOW: f64 = 4.0;
/// Scores are capped here for the choice, so that a mate is always taken and a mated line never.
const SCORE_CAP: i32 = 1500;
const MAX_LINES: usize = 6;

/// `UCI_LimitStrength` and `UCI_Elo` as set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub on: bool,
    pub elo: i64,
}

impl Default for Limit {
    fn default() -> Self {
        Limit { on: false, elo: DEFAULT_ELO }
    }
}

impl Limit {
    /// The strength a search plays at: none with the limit off, or set to the top of the
    /// range, which is the full engine.
    pub fn strength(&self, seed: u64) -> Option<Strength> {
        (self.on && self.elo < MAX_ELO).then(|| Strength::new(self.elo, seed))
    }
}

/// A playing strength and the seed of its choices, for one search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    level: f64,
    seed: u64,
}

impl Strength {
    /// The strength of `UCI_Elo` `elo` (brought into range).
    pub fn new(elo: i64, seed: u64) -> Strength {
        let elo = elo.clamp(MIN_ELO, MAX_ELO) as f64;
        Strength { level: 1000.0 + (elo - ELO_AT_1000) / SLOPE, seed }
    }

    /// The internal level: the knob the calibration maps `UCI_Elo` to.
    pub fn level(&self) -> f64 {
        self.level
    }

    /// Nodes the search may spend on a move.
    pub fn nodes(&self) -> u64 {
        let n = NODES_AT_1000 * ((self.level - 1000.0) / LEVELS_PER_DOUBLING).exp2();
        (n as u64).max(MIN_NODES)
    }

    /// How far (in centipawns) a worse line may be from the best and still be played often.
    pub fn temperature(&self) -> f64 {
        ((NOISELESS_LEVEL - self.level) * NOISE_PER_LEVEL).max(0.0)
    }

    /// Root lines to search exactly, to choose from.
    pub fn lines(&self) -> usize {
        (1 + (self.temperature() / 20.0).ceil() as usize).min(MAX_LINES)
    }

    /// The setting this strength was made from.
    fn elo(&self) -> f64 {
        ELO_AT_1000 + SLOPE * (self.level - 1000.0)
    }

    /// The share of the full engine's time it thinks: a half up to `FULL_TIME_FROM`, then
    /// rising in a line to the whole of it at the top, so that the settings near the top
    /// differ from the full engine in their node budget alone.
    fn time_share(&self) -> f64 {
        let rise = ((self.elo() - FULL_TIME_FROM) / (MAX_ELO as f64 - FULL_TIME_FROM)).clamp(0.0, 1.0);
        0.5 + 0.5 * rise
    }

    /// The time of a search: a share of what the full engine would think (the hard limit no
    /// more than twice that), and the pace, the least time before the answer.
    pub fn think(&self, budget: TimeBudget) -> (TimeBudget, Option<Duration>) {
        let Some(full) = budget.soft else { return (budget, None) };
        let share = self.time_share();
        let soft = full.mul_f64(share);
        let hard = budget.hard.map_or(full, |h| h.min(full.mul_f64(2.0 * share)));
        let pace = (full / 5).min(Duration::from_secs(1));
        (TimeBudget { soft: Some(soft), hard: Some(hard) }, Some(pace))
    }

    /// The line to play among `scores` (best first, as the search sorted them): the first
    /// without noise, otherwise one drawn with weight `exp(-(best - score) / temperature)`
    /// among those within the window.
    pub fn pick(&self, scores: &[i32]) -> usize {
        let t = self.temperature();
        let Some(&best) = scores.first() else { return 0 };
        if t <= 0.0 || scores.len() == 1 {
            return 0;
        }
        let capped = |s: i32| s.clamp(-SCORE_CAP, SCORE_CAP) as f64;
        let weights: Vec<f64> = scores
            .iter()
            .map(|&s| capped(best) - capped(s))
            .map(|behind| if behind <= WINDOW * t { (-behind / t).exp() } else { 0.0 })
            .collect();
        let mut draw = unit(self.seed) * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if draw < *w {
                return i;
            }
            draw -= w;
        }
        0
    }
}

/// The seed of a search: the position's key and the number of the game.
pub fn seed(key: u64, game: u64) -> u64 {
    mix(key ^ mix(game.wrapping_add(GOLDEN_GAMMA)))
}

/// A number in [0, 1) from a seed.
fn unit(seed: u64) -> f64 {
    (mix(seed) >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_settings_search_less_and_choose_more_loosely() {
        let low = Strength::new(MIN_ELO, 1);
        let high = Strength::new(MAX_ELO - 1, 1);
        assert!(low.nodes() < high.nodes() / 50, "{} {}", low.nodes(), high.nodes());
        assert!(low.temperature() > 4.0 * high.temperature(), "{} {}", low.temperature(), high.temperature());
        assert!(low.lines() > high.lines());
        // The fit's levels rise with the setting.
        let levels: Vec<f64> = (MIN_ELO..=MAX_ELO).step_by(50).map(|e| Strength::new(e, 0).level()).collect();
        assert!(levels.windows(2).all(|w| w[0] < w[1]), "{levels:?}");
        assert_eq!(Strength::new(-5, 1), low);
        assert_eq!(Strength::new(1 << 40, 1), Strength::new(MAX_ELO, 1));
    }

    #[test]
    fn the_top_of_the_range_is_the_full_engine_and_the_think_grows_toward_it() {
        assert_eq!(Limit { on: true, elo: MAX_ELO }.strength(3), None);
        assert!(Limit { on: true, elo: MAX_ELO - 1 }.strength(3).is_some());
        assert_eq!(Limit { on: false, elo: 1500 }.strength(3), None);
        let ms = Duration::from_millis;
        let full = TimeBudget { soft: Some(ms(2000)), hard: Some(ms(6000)) };
        let seconds = |elo: i64| {
            let (b, _) = Strength::new(elo, 0).think(full);
            [b.soft, b.hard].map(|d| d.unwrap_or_default().as_secs_f64())
        };
        let near = |elo: i64, want: [f64; 2]| {
            let got = seconds(elo);
            assert!(got.iter().zip(want).all(|(g, w)| (g - w).abs() < 0.005), "{elo}: {got:?}, not {want:?}");
        };
        // Half of the full engine's think up to 2300, hard limit no more than the full soft one.
        near(1500, [1.0, 2.0]);
        near(2300, [1.0, 2.0]);
        // Then the share grows in a line, to the whole at the top.
        near(2450, [1.5, 3.0]);
        near(MAX_ELO - 1, [1.997, 3.993]);
    }

    #[test]
    fn the_choice_favours_the_best_and_never_leaves_the_window() {
        let scores = [50, 30, -40, -900];
        let mut counts = [0usize; 4];
        for game in 0..4000 {
            counts[Strength::new(MIN_ELO, seed(12345, game)).pick(&scores)] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2], "{counts:?}");
        assert!(counts[2] > 0, "{counts:?}");
        assert_eq!(counts[3], 0, "a piece-losing line outside the window: {counts:?}");
        // Mates are always taken.
        assert_eq!(Strength::new(MIN_ELO, 7).pick(&[31_990, 500, 480]), 0);
        // Without noise, the best.
        assert_eq!(Strength::new(MAX_ELO, 7).pick(&scores), 0);
    }

    /// The first four outputs of SplitMix64 (Steele, Lea and Flood, 2014) from state 0, as
    /// Vigna's reference `splitmix64.c` gives them: output `n` is the finaliser of `n` times
    /// the golden-ratio increment.
    const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
    const SPLITMIX64_FROM_0: [u64; 4] =
        [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC];

    #[test]
    fn mix_is_splitmix64s_finaliser() {
        for (n, want) in (1..).zip(SPLITMIX64_FROM_0) {
            assert_eq!(mix(GOLDEN.wrapping_mul(n)), want, "output {n}");
        }
    }

    /// Seeds are fixed values of the key and the game, the same in every process (the same
    /// commands replay a game exactly, in another run too), not merely equal twice in one.
    #[test]
    fn seeds_repeat_for_a_game_and_differ_between_games() {
        // Game 0's part is mix(GOLDEN), the first output; game GOLDEN's is the second. Keys
        // that cancel it leave mix(3 GOLDEN) and mix(4 GOLDEN), the third and fourth.
        let [first, second, third, fourth] = SPLITMIX64_FROM_0;
        assert_eq!(seed(first ^ GOLDEN.wrapping_mul(3), 0), third);
        assert_eq!(seed(second ^ GOLDEN.wrapping_mul(4), GOLDEN), fourth);
        assert_ne!(seed(99, 3), seed(99, 4));
        assert_ne!(seed(99, 3), seed(98, 3));
    }

    #[test]
    fn thinking_stays_inside_half_the_budget_and_takes_a_moment() {
        let s = Strength::new(1500, 0);
        let full = TimeBudget { soft: Some(Duration::from_millis(2000)), hard: Some(Duration::from_millis(6000)) };
        let (capped, pace) = s.think(full);
        assert_eq!(capped.soft, Some(Duration::from_millis(1000)));
        assert_eq!(capped.hard, Some(Duration::from_millis(2000)));
        assert_eq!(pace, Some(Duration::from_millis(400)));
        assert_eq!(s.think(TimeBudget::default()), (TimeBudget::default(), None));
    }
}
