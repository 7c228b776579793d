//! Time management: the clock fields of `go` minus `Move Overhead` become a [`TimeBudget`].
//!
//! The soft limit is checked between iterations, the hard limit inside the search. The hard
//! limit never exceeds a fraction of what is left on the clock after the overhead, so a
//! loaded machine or a slow pipe costs the overhead, not the game. Clocks at or below the
//! overhead (or negative, as some GUIs send) give a soft limit of zero and a hard limit of
//! 1 ms: a move at once, after a few shallow iterations.

use crate::mv::Move;
use crate::piece::Color;
use crate::search::params::Params;
use crate::value::INFINITY;
use std::time::Duration;

/// Time allowed for one search, measured from the start (or from `ponderhit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeBudget {
    /// Do not start another iteration after this.
    pub soft: Option<Duration>,
    /// Abort the search at once after this.
    pub hard: Option<Duration>,
}

/// The clock part of a `go` command, in milliseconds as sent (negative values allowed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<i64>,
    pub movetime: Option<i64>,
}

impl Clock {
    /// Whether any field that limits the time of the search is present.
    pub fn is_timed(&self) -> bool {
        self.wtime.is_some() || self.btime.is_some() || self.movetime.is_some()
    }

    /// The clock of `side`, as sent.
    pub fn time(&self, side: Color) -> Option<i64> {
        match side {
            Color::White => self.wtime,
            Color::Black => self.btime,
        }
    }

    /// The increment of `side`, as sent.
    pub fn inc(&self, side: Color) -> Option<i64> {
        match side {
            Color::White => self.winc,
            Color::Black => self.binc,
        }
    }
}

// The trade-offs (moves assumed to remain, the increment's part, hard per soft, how the
// soft limit stretches) are tunable entries of `Params`; the numbers here keep the
// answer inside the clock and are not tuned.
/// The smallest hard limit: enough for the search to finish depth 1 and return a legal move.
const MIN_BUDGET_MS: i64 = 1;
/// A clock with nothing to spend (inside the overhead or the trips' reserve) gives a soft
/// limit of zero: a move at once, after the iterations up to this depth (the hard limit of
/// 1 ms still binds), a few hundred to a few thousand nodes, about as deep as the millisecond
/// reaches. Moves played at once are those of a long game's last stretch, where each one's
/// trip is what empties the clock; a search that used its whole millisecond each time would
/// add to every trip.
pub const AT_ONCE_DEPTH: i32 = 4;
/// A larger `movestogo` counts as this many.
const MAX_MOVES_TO_GO: i64 = 50;
/// A `movetime` is cut by `MOVETIME_MARGIN_MS` plus its `1 / MOVETIME_MARGIN_DIV` (at most
/// the overhead), for the reply to get out in time.
const MOVETIME_MARGIN_MS: i64 = 5;
const MOVETIME_MARGIN_DIV: i64 = 100;
/// The hard limit (some soft limits, `Params::hard_per_soft`) is within `1 / HARD_CAP_DIV`
/// of the clock, the soft one within `1 / SOFT_CAP_DIV`; on the last move before the time
/// control within these tenths of it.
const HARD_CAP_DIV: i64 = 2;
const SOFT_CAP_DIV: i64 = 5;
const LAST_MOVE_HARD_TENTHS: i64 = 9;
const LAST_MOVE_SOFT_TENTHS: i64 = 6;
/// Each move costs its reply's trip through the pipes and the GUI besides the search: a few
/// ms that no budget sees, repaid by an increment as large. A game in sudden death (no
/// `movestogo`) can run far past the moves assumed to remain, so it keeps back that cost,
/// less the increment, for `PIPE_RESERVE_MOVES` moves: once the clock falls into the reserve
/// every move is played at once, and the reserve pays a long ending's trips (a game enters
/// it after 40 to 80 moves and may last 200). The cost of a trip is what the GUI's clock
/// shows ([`TripMeter`]), never taken below `PIPE_MS_PER_MOVE` (a quick GUI's trips vary more
/// than they cost) nor above `MAX_TRIP_MS` (a GUI that slow needs `Move Overhead`, not a
/// reserve of the whole clock). At 1+0 through a quick GUI the reserve is 360 ms.
pub const PIPE_MS_PER_MOVE: i64 = 3;
const PIPE_RESERVE_MOVES: i64 = 120;
const MAX_TRIP_MS: i64 = 30;
/// A clock that moved further than this between two searches was set again (a new game or
/// period, a paused game, an analysis): no trip to learn from.
const TRIP_SAMPLE_LIMIT_MS: i64 = 1000;
/// Each trip measured moves the mean by this fraction of its difference from it.
const TRIP_MEAN_DIV: i64 = 8;

/// What a reply's trip costs beyond the search, as the GUI's clock shows it. Between two
/// timed searches for the same side, the side's clock drops by the first search's time and
/// the trips around it, less the increment; what the engine did not spend searching is the
/// trip. Pondering does not disturb it: a ponder search's time counts from `ponderhit`, when
/// the GUI's clock starts, and a ponder search that was stopped is no sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TripMeter {
    /// The running mean, in microseconds.
    mean_us: i64,
}

impl Default for TripMeter {
    fn default() -> Self {
        TripMeter { mean_us: PIPE_MS_PER_MOVE * 1000 }
    }
}

impl TripMeter {
    /// The cost of a trip the sudden-death reserve assumes, in ms.
    pub fn trip_ms(&self) -> i64 {
        ((self.mean_us + 999) / 1000).clamp(PIPE_MS_PER_MOVE, MAX_TRIP_MS)
    }

    /// A search for `side` under `before` took `spent` (from `go` or `ponderhit` to its best
    /// move); the next search for that side comes with `now`.
    pub fn observe(&mut self, before: &Clock, spent: Duration, now: &Clock, side: Color) {
        let (t0, t1) = (before.time(side), now.time(side));
        let (Some(t0), Some(t1)) = (t0, t1) else { return };
        if before.movestogo == Some(1) {
            return;
        }
        let spent = i64::try_from(spent.as_millis()).unwrap_or(i64::MAX);
        let inc = before.inc(side).unwrap_or(0).max(0);
        let trip = t0.saturating_add(inc).saturating_sub(t1).saturating_sub(spent);
        if !(-TRIP_SAMPLE_LIMIT_MS..=TRIP_SAMPLE_LIMIT_MS).contains(&trip) {
            return;
        }
        // One slow trip (a GUI busy for a moment) moves the mean as far as a slow GUI's would.
        let sample = trip.clamp(0, 2 * MAX_TRIP_MS) * 1000;
        self.mean_us += (sample - self.mean_us) / TRIP_MEAN_DIV;
    }
}

fn ms(v: i64) -> Duration {
    Duration::from_millis(v.max(MIN_BUDGET_MS) as u64)
}

/// A soft limit: zero (a move at once) when there is nothing to spend.
fn soft_ms(v: i64) -> Duration {
    Duration::from_millis(v.max(0) as u64)
}

/// The budget for `side` to move; `overhead_ms` is the `Move Overhead` option.
///
/// * `movetime m`: both limits are `m` less a small margin (at most the overhead, about 1 %
///   plus 5 ms), so the reply comes within a few ms of `m`, never after it.
/// * clock: `soft = left / movestogo + 3/4 inc`, capped at 1/5 of what is left; `hard` is
///   three times `soft`, capped at half of what is left (6/10 and 9/10 when this is the last
///   move before the time control), where `left` is the clock minus the overhead and
///   `movestogo` is `Params::default_moves_to_go` (25) when not given; then (sudden death)
///   `soft` is taken from `left` less `trip_ms - inc` (a trip's cost, [`TripMeter::trip_ms`])
///   for each of `PIPE_RESERVE_MOVES`.
/// * a clock for the other side only (`go btime 100` with White to move, as older fastchess
///   releases send in their compliance check): the side to move is taken to have no time left,
///   as Stockfish does, so the answer comes at once rather than after a search without end.
/// * no clock at all and no `movetime`: no limit from time.
///
/// `p` holds the tunable numbers (moves to go, the increment's part, hard per soft).
pub fn budget(clock: &Clock, side: Color, overhead_ms: i64, trip_ms: i64, p: &Params) -> TimeBudget {
    let overhead = overhead_ms.max(0);
    let movetime = clock.movetime.map(|m| {
        let m = m.max(0);
        let margin = overhead.min(MOVETIME_MARGIN_MS + m / MOVETIME_MARGIN_DIV);
        m.saturating_sub(margin)
    });
    let (time, inc, other) = (clock.time(side), clock.inc(side), clock.time(side.flip()));
    let time = time.or(other.map(|_| 0));
    let from_clock = time.map(|t| {
        let inc = inc.unwrap_or(0).max(0);
        // `movestogo 0` (or less) is no count at all: sudden death, as if it were absent.
        let given_mtg = clock.movestogo.filter(|&m| m > 0);
        let mtg = given_mtg.unwrap_or(p.default_moves_to_go() as i64).clamp(1, MAX_MOVES_TO_GO);
        let trip = trip_ms.clamp(PIPE_MS_PER_MOVE, MAX_TRIP_MS);
        let pipes = if given_mtg.is_none() { (trip - inc).max(0) * PIPE_RESERVE_MOVES } else { 0 };
        let left = t.saturating_sub(overhead).max(0);
        let spendable = left.saturating_sub(pipes).max(0);
        // The last move before the time control may use most of the clock; otherwise a low
        // clock is rebuilt from the increment rather than spent.
        let (soft_cap, hard_cap) = if mtg == 1 {
            (left / 10 * LAST_MOVE_SOFT_TENTHS, left / 10 * LAST_MOVE_HARD_TENTHS)
        } else {
            (left / SOFT_CAP_DIV, left / HARD_CAP_DIV)
        };
        let soft = (spendable / mtg).saturating_add(inc.saturating_mul(p.inc_quarters() as i64) / 4).min(soft_cap);
        let hard = soft.saturating_mul(p.hard_per_soft() as i64).min(hard_cap).max(soft);
        (soft, hard)
    });
    match (movetime, from_clock) {
        (None, None) => TimeBudget::default(),
        (Some(m), None) => TimeBudget { soft: Some(ms(m)), hard: Some(ms(m)) },
        (None, Some((s, h))) => TimeBudget { soft: Some(soft_ms(s)), hard: Some(ms(h)) },
        (Some(m), Some((s, h))) => TimeBudget { soft: Some(soft_ms(s.min(m))), hard: Some(ms(h.min(m))) },
    }
}

/// How the soft limit stretches between iterations is `Params`' (`instability_decay` to
/// `max_scale`). The only legal move is searched to `ONLY_MOVE_DEPTH`, then played.
const ONLY_MOVE_DEPTH: i32 = 4;

/// Between iterations: whether to start another one. The soft limit stretches while the
/// best move keeps changing and when the score drops, and shrinks to nothing for the only
/// legal move; it never passes the hard limit. A `movetime` budget is used whole.
#[derive(Clone, Debug)]
pub struct SoftStop {
    budget: TimeBudget,
    /// Recent changes of the best move, older ones counting half as much at each iteration.
    instability: f64,
    last_best: Move,
    last_score: i32,
    params: Params,
}

impl SoftStop {
    /// For a search whose first root move (before any iteration) is `first`, stretching its
    /// soft limit by the tunable numbers of `params`.
    pub fn new(budget: TimeBudget, first: Move, params: Params) -> SoftStop {
        SoftStop { budget, instability: 0.0, last_best: first, last_score: -INFINITY, params }
    }

    /// Whether the budget asks for a move at once (nothing on the clock to spend).
    pub fn at_once(&self) -> bool {
        self.budget.soft == Some(Duration::ZERO)
    }

    /// After the iteration at `depth` found `best` with `score` (`root_moves` moves at the
    /// root, `best_share` of the iteration's nodes spent below `best`), `elapsed` into the
    /// search: true when the search should stop now.
    #[allow(clippy::too_many_arguments)]
    pub fn after_iteration(
        &mut self,
        best: Move,
        score: i32,
        best_share: f64,
        root_moves: usize,
        depth: i32,
        elapsed: Duration,
    ) -> bool {
        if let Some(soft) = self.budget.soft {
            if soft.is_zero() {
                return depth >= AT_ONCE_DEPTH;
            }
            let p = self.params;
            let changed = best != self.last_best;
            self.instability = self.instability * p.instability_decay() + if changed { 1.0 } else { 0.0 };
            let drop = if self.last_score > -INFINITY { self.last_score - score } else { 0 };
            // `movetime` (soft and hard alike) asks for that much thinking: no scaling.
            let fixed = self.budget.hard == Some(soft);
            let mut factor = if fixed { 1.0 } else { p.stable_scale() + p.instability_scale() * self.instability };
            if drop > p.small_drop() && !fixed {
                factor += p.small_drop_stretch();
            }
            if drop > p.big_drop() && !fixed {
                factor += p.big_drop_stretch();
            }
            // A best move that took nearly all the effort has little competition: less time;
            // one whose rivals took much of it may yet be overtaken: more. Shallow
            // iterations spread their nodes too evenly to say.
            if depth >= p.share_min_depth() && !fixed {
                factor *= (p.share_pivot() - best_share.clamp(0.0, 1.0)) * p.share_scale();
            }
            if root_moves == 1 && depth >= ONLY_MOVE_DEPTH {
                factor = 0.0;
            }
            let factor = factor.clamp(0.0, p.max_scale());
            let mut budget = soft.mul_f64(factor);
            if let Some(hard) = self.budget.hard {
                budget = budget.min(hard);
            }
            if elapsed >= budget {
                return true;
            }
        }
        self.last_best = best;
        self.last_score = score;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(b: TimeBudget) -> (u128, u128) {
        (b.soft.map_or(0, |d| d.as_millis()), b.hard.map_or(0, |d| d.as_millis()))
    }

    #[test]
    fn movetime_is_honoured_within_a_few_ms() {
        let c = Clock { movetime: Some(1000), ..Clock::default() };
        let (s, h) = get(budget(&c, Color::White, 30, PIPE_MS_PER_MOVE, &Params::defaults()));
        assert_eq!(s, h);
        assert!((980..1000).contains(&h), "{h}");
        let c = Clock { movetime: Some(50), ..Clock::default() };
        assert!((40..50).contains(&get(budget(&c, Color::Black, 30, PIPE_MS_PER_MOVE, &Params::defaults())).1));
    }

    #[test]
    fn tiny_and_negative_clocks_give_a_move_at_once() {
        for t in [-500, 0, 1, 10, 30] {
            let c = Clock { wtime: Some(t), btime: Some(6354), winc: Some(1000), binc: Some(1000), ..Clock::default() };
            let (s, h) = get(budget(&c, Color::White, 30, PIPE_MS_PER_MOVE, &Params::defaults()));
            assert!(s == 0 && h == 1, "wtime {t}: {s} {h}");
        }
    }

    #[test]
    fn hard_limit_stays_well_inside_the_clock() {
        for t in [100i64, 500, 1000, 2000, 10_000, 60_000, 600_000] {
            for inc in [0i64, 10, 100, 1000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let c = Clock { btime: Some(t), binc: Some(inc), movestogo: mtg, ..Clock::default() };
                    let (s, h) = get(budget(&c, Color::Black, 30, PIPE_MS_PER_MOVE, &Params::defaults()));
                    assert!(s <= h, "{t} {inc} {mtg:?}");
                    let cap = if mtg == Some(1) { (t - 30) * 9 / 10 } else { (t - 30) / 2 };
                    assert!((h as i64) <= cap.max(1), "{t} {inc} {mtg:?}: hard {h}");
                }
            }
        }
    }

    #[test]
    fn any_clock_values_give_a_budget_without_overflow() {
        let extremes = [None, Some(i64::MIN), Some(-1), Some(0), Some(1), Some(i64::MAX / 3), Some(i64::MAX)];
        let mut budgets = 0;
        for &time in &extremes {
            for &inc in &extremes {
                for &other in &extremes {
                    for mtg in [None, Some(i64::MIN), Some(0), Some(1), Some(i64::MAX)] {
                        for movetime in [None, Some(i64::MIN), Some(0), Some(i64::MAX)] {
                            let c = Clock { wtime: time, btime: other, winc: inc, binc: inc, movestogo: mtg, movetime };
                            for overhead in [i64::MIN, 0, i64::MAX] {
                                let b = budget(&c, Color::White, overhead, PIPE_MS_PER_MOVE, &Params::defaults());
                                assert!(b.soft <= b.hard, "{c:?} {overhead}: {b:?}");
                                // No sum wrapped round: no time gives a move at once, plenty
                                // gives a long think.
                                let day = Duration::from_secs(86_400);
                                match (time, movetime) {
                                    (Some(t), None) if t <= 0 => assert_eq!(b.hard, Some(ms(1)), "{c:?}"),
                                    (Some(i64::MAX), None) if overhead < i64::MAX => {
                                        assert!(b.soft.is_some_and(|s| s > day), "{c:?} {overhead}: {b:?}")
                                    }
                                    _ => {}
                                }
                                // The searches that use it scale and compare the budget.
                                let mut stop = SoftStop::new(b, Move::NONE, Params::defaults());
                                let _ = stop.after_iteration(Move::NONE, -INFINITY, 2.0, 1, 99, Duration::MAX);
                                budgets += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(budgets, 7 * 7 * 7 * 5 * 4 * 3);
        // The largest clock still leaves a move that comes: the hard limit is finite.
        let c = Clock { wtime: Some(i64::MAX), movestogo: Some(1), ..Clock::default() };
        assert!(budget(&c, Color::White, 0, PIPE_MS_PER_MOVE, &Params::defaults())
            .hard
            .is_some_and(|h| h < Duration::MAX));
    }

    #[test]
    fn sudden_death_keeps_a_reserve_for_the_replies_trips() {
        let p = Params::defaults();
        let go = |t: i64, inc: i64, mtg: Option<i64>| {
            let c = Clock { wtime: Some(t), winc: Some(inc), movestogo: mtg, ..Clock::default() };
            get(budget(&c, Color::White, 50, PIPE_MS_PER_MOVE, &p))
        };
        // 1+0 late in a long game: 350 ms left, all of it reserve and overhead: a move at once.
        assert_eq!(go(350, 0, None), (0, 1));
        // Earlier, what lies above the reserve is shared as before.
        assert_eq!(go(1000, 0, None).0 as i64, (1000 - 50 - PIPE_MS_PER_MOVE * PIPE_RESERVE_MOVES) / 25);
        // An increment that repays the trips, or a period that ends: no reserve.
        assert_eq!(go(1000, 5, None).0, (1000 - 50) / 25 + 5 * 3 / 4);
        assert_eq!(go(1000, 0, Some(40)).0, (1000 - 50) / 40);
        // A game of 1+0 whose every reply costs 3 ms of pipes beyond the search, the search
        // taking its soft limit: the clock lasts 150 moves within the 100 ms a runner allows.
        let mut clock = 1000i64;
        for moves in 0..150 {
            assert!(clock > -100, "flagged after {moves} moves");
            clock -= go(clock, 0, None).0 as i64 + 3;
        }
    }

    #[test]
    fn the_trip_meter_learns_what_the_gui_clock_shows() {
        let clock = |t: i64, inc: i64, mtg: Option<i64>| Clock {
            btime: Some(t),
            binc: Some(inc),
            movestogo: mtg,
            wtime: Some(99),
            ..Clock::default()
        };
        let at = Duration::from_millis;
        let mut m = TripMeter::default();
        assert_eq!(m.trip_ms(), PIPE_MS_PER_MOVE);
        // 5+0: each search takes 100 ms and the clock drops by 109: 9 ms a trip.
        let mut t = 5000;
        for _ in 0..40 {
            m.observe(&clock(t, 0, None), at(100), &clock(t - 109, 0, None), Color::Black);
            t -= 109;
        }
        assert_eq!(m.trip_ms(), 9);
        // The increment is counted back in: 2+0.05, 60 ms searched, 12 ms trips.
        let mut m = TripMeter::default();
        for _ in 0..40 {
            m.observe(&clock(2000, 50, None), at(60), &clock(2000 - 60 - 12 + 50, 50, None), Color::Black);
        }
        assert_eq!(m.trip_ms(), 12);
        // The clock set again (a new period, a new game, an analysis), White's clock, or a
        // side without a clock teach nothing.
        let before = m;
        m.observe(&clock(3000, 0, Some(1)), at(10), &clock(63_000, 0, Some(40)), Color::Black);
        m.observe(&clock(3000, 0, None), at(10), &clock(60_000, 0, None), Color::Black);
        m.observe(&clock(60_000, 0, None), at(10), &clock(3000, 0, None), Color::Black);
        m.observe(&Clock::default(), at(10), &clock(2000, 0, None), Color::Black);
        assert_eq!(m, before);
        // A GUI slower than any reserve should pay for is held at the cap; a quick one at the
        // floor; extreme numbers do not overflow.
        for _ in 0..100 {
            m.observe(&clock(5000, 0, None), at(10), &clock(5000 - 10 - 500, 0, None), Color::Black);
        }
        assert_eq!(m.trip_ms(), MAX_TRIP_MS);
        for _ in 0..100 {
            m.observe(&clock(5000, 0, None), at(10), &clock(5000 - 9, 0, None), Color::Black);
        }
        assert_eq!(m.trip_ms(), PIPE_MS_PER_MOVE);
        m.observe(&clock(i64::MAX, i64::MAX, None), Duration::MAX, &clock(i64::MIN, 0, None), Color::Black);
        m.observe(&clock(i64::MIN, i64::MIN, None), at(0), &clock(i64::MAX, 0, None), Color::Black);
        assert_eq!(m.trip_ms(), PIPE_MS_PER_MOVE);
    }

    /// A game of `secs`+0 of `moves` moves a side, every search taking its soft limit and
    /// every reply costing a trip of `mean - 3` to `mean + 3` ms, the trip meter learning
    /// (`learn`) or not: the least the clock held before a move, in ms.
    fn sudden_death_game(secs: i64, mean: i64, moves: usize, learn: bool) -> i64 {
        let p = Params::defaults();
        let mut meter = TripMeter::default();
        let mut t = secs * 1000;
        let mut least = t;
        let mut before: Option<(Clock, Duration)> = None;
        for n in 0..moves {
            let now = Clock { wtime: Some(t), winc: Some(0), ..Clock::default() };
            if let Some((c, spent)) = before.filter(|_| learn) {
                meter.observe(&c, spent, &now, Color::White);
            }
            least = least.min(t);
            let (soft, _) = get(budget(&now, Color::White, 50, meter.trip_ms(), &p));
            let trip = mean - 3 + (n as i64 * 5) % 7;
            t -= soft as i64 + trip;
            before = Some((now, Duration::from_millis(soft as u64)));
        }
        least
    }

    #[test]
    fn a_long_sudden_death_game_lasts_when_trips_are_slow() {
        // 5+0 through a GUI whose trips cost 8 ms on average (as a Python client does with both
        // engines pondering on two cores), 180 moves a side: the reserve grows with the trips
        // and the clock never runs out; a reserve of the quick GUI's trips ends past the
        // 100 ms a runner allows.
        let learnt = sudden_death_game(5, 8, 180, true);
        assert!(learnt > 0, "{learnt}");
        assert!(sudden_death_game(5, 8, 180, false) < -100);
        // Quick trips: 1+0 at 3 ms a trip lasts 160 moves.
        let quick = sudden_death_game(1, 3, 160, true);
        assert!(quick > -100, "{quick}");
    }

    #[test]
    fn uses_the_clock_of_the_side_to_move() {
        let c = Clock { wtime: Some(10_000), ..Clock::default() };
        let (s, h) = get(budget(&c, Color::White, 30, PIPE_MS_PER_MOVE, &Params::defaults()));
        assert!(s >= 100 && h >= s, "{s} {h}");
        // Black has no clock of its own here: no time left, a move at once.
        assert_eq!(get(budget(&c, Color::Black, 30, PIPE_MS_PER_MOVE, &Params::defaults())), (0, 1));
        assert_eq!(
            budget(&Clock::default(), Color::Black, 30, PIPE_MS_PER_MOVE, &Params::defaults()),
            TimeBudget::default()
        );
    }

    #[test]
    fn soft_stop_stretches_with_instability_and_stops_for_the_only_move() {
        let budget = TimeBudget { soft: Some(Duration::from_millis(1000)), hard: Some(Duration::from_millis(3000)) };
        let (a, b) = (Move::NONE, Move::from_bits(1));
        let at = Duration::from_millis;
        // Stable best move: stops once 0.7 of the soft limit is spent.
        let mut stable = SoftStop::new(budget, a, Params::defaults());
        assert!(!stable.after_iteration(a, 30, 0.75, 20, 5, at(600)));
        assert!(stable.after_iteration(a, 30, 0.75, 20, 6, at(750)));
        // A best move that changed at this iteration stretches the limit to 1.5 of it.
        let mut unstable = SoftStop::new(budget, a, Params::defaults());
        assert!(!unstable.after_iteration(b, 30, 0.75, 20, 5, at(1400)));
        // A score that drops by more than 60 stretches it too.
        let mut dropping = SoftStop::new(budget, a, Params::defaults());
        assert!(!dropping.after_iteration(a, 30, 0.75, 20, 5, at(100)));
        assert!(!dropping.after_iteration(a, -40, 0.75, 20, 6, at(1200)));
        // The only legal move: no thinking beyond depth 4.
        let mut only = SoftStop::new(budget, a, Params::defaults());
        assert!(!only.after_iteration(a, 0, 0.75, 1, 3, at(1)));
        assert!(only.after_iteration(a, 0, 0.75, 1, 4, at(1)));
        // `movetime`: the whole budget is used, whatever the stability.
        let fixed = TimeBudget { soft: Some(Duration::from_millis(400)), hard: Some(Duration::from_millis(400)) };
        let mut movetime = SoftStop::new(fixed, a, Params::defaults());
        assert!(!movetime.after_iteration(a, 30, 0.75, 20, 5, at(100)));
        assert!(!movetime.after_iteration(a, 30, 0.75, 20, 6, at(350)));
        assert!(movetime.after_iteration(a, 30, 0.75, 20, 7, at(400)));
        // From depth 8, a best move that took nearly every node stops sooner than one whose
        // rivals took half of them.
        let mut dominant = SoftStop::new(budget, a, Params::defaults());
        assert!(dominant.after_iteration(a, 30, 0.95, 20, 9, at(600)));
        let mut contested = SoftStop::new(budget, a, Params::defaults());
        assert!(!contested.after_iteration(a, 30, 0.5, 20, 9, at(900)));
        assert!(contested.after_iteration(a, 30, 0.5, 20, 10, at(1000)));
        // Nothing to spend: a move at once, after the iterations to `AT_ONCE_DEPTH`, however
        // unstable; the hard limit still binds inside them.
        let at_once = TimeBudget { soft: Some(Duration::ZERO), hard: Some(Duration::from_millis(1)) };
        let mut quick = SoftStop::new(at_once, a, Params::defaults());
        for depth in 1..AT_ONCE_DEPTH {
            assert!(!quick.after_iteration(b, -300 * depth, 0.1, 20, depth, at(0)), "{depth}");
        }
        assert!(quick.after_iteration(a, 0, 0.1, 20, AT_ONCE_DEPTH, at(0)));
        // No clock: never stops on time.
        let mut untimed = SoftStop::new(TimeBudget::default(), a, Params::defaults());
        assert!(!untimed.after_iteration(b, -500, 0.75, 1, 9, at(100_000)));
    }
}
