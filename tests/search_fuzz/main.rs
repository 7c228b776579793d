//! The search fuzzer: a seeded random stream of a few hundred UCI commands drives the
//! real binary over pipes, with timing, where threads break: `go` with random limits
//! (infinite, ponder, movetime, depth, nodes, mate, clocks, searchmoves), `stop` at random
//! moments, `ponderhit`, `setoption Threads/Hash/MultiPV/Ponder/UCI_Chess960/Clear Hash` idle
//! and searching, `position` from random games out of random starts (and some bad FENs,
//! repairable FENs and illegal moves), `ucinewgame`, `isready` anywhere, `go perft` (depths 1
//! to 4, now and then raced by a `stop` or a `Clear Hash`) and `bench` (depths 1 and 2) between
//! them, random sleeps of 0-50 ms. After each step it checks:
//!
//! * every `isready` is answered within 100 ms (250 ms with `CI=true`), measured from writing
//!   the line to reading `readyok`. On a 2-core machine at a load average of 4, 23 seeds of
//!   well-formed input stayed under 51 ms; at a load average near 20 (other builds running),
//!   `readyok` took 106-257 ms a few times (8 search threads, or a 64 MB `Hash` resize, ahead of
//!   it) and once 1.2 s: a loaded machine fails this check, hence the CI bound. After a `Hash`
//!   change the bound is 1 s (`RESIZE_READY_BOUND`): `readyok` then waits for the new table;
//! * exactly one `bestmove` per `go`, none otherwise; none before `stop` (or another command
//!   that ends it) for `go infinite`, a bare `go` and `go ponder` before `ponderhit`; one within
//!   5 s of a search that has limits being free to end;
//! * every `bestmove` is legal in the position of its `go` (tracked here and checked with the
//!   library's own generator, `Position::from_fen_repaired` and `parse_uci_move`), inside its
//!   `searchmoves`, written in the castling notation of the `UCI_Chess960` value of the `go`,
//!   with a ponder move legal after it; after a rejected `position`, `bestmove 0000`;
//! * every `go perft` ends in its total (the independent mailbox generator's count for the
//!   position) or, when raced, in `info string perft interrupted`; every `bench` in its
//!   `Nodes/second` line, each within 10 s;
//! * no panic on stderr, the process alive, and `quit` (or end of input) exits with code 0.
//!
//! The seeds in `REGRESSION_SEEDS` run every time, then fresh seeds until the time budget
//! (20 s; `OX88_FUZZ_SECS=600` for a night run) is spent; each seed is printed
//! (`cargo test --release --test search_fuzz -- --nocapture`). `OX88_FUZZ_SEED=N` runs seed N
//! alone; `OX88_BIN` drives another build; `OX88_FUZZ_VALID_ONLY=1` sends only well-formed input
//! (no bad or repairable FEN, bad move or `go` token, other castling notation, or `infinite` with a
//! time limit), to look at the search and its threads alone.
//!
//! Faults are attributed as the engine answers: a `bestmove` goes to the oldest `go` it fits.
//! After a `go` the engine never answers, two waiting `go`s in the same position can swap
//! blame; the first fault of a seed is exact.

mod commands;
#[path = "../common/mod.rs"]
mod common;

use common::{on_ci, Ox88};
use ox88::{Move, Position};
use ox88_mailbox::MailboxBoard;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// Seeds that found faults; they run first, every time. Against 3de8f48:
/// - 199914: `position fen hello`, then `go mate 2` plays a move of the previous position
///   (fault A of docs/uci.md: after a rejected position every `go` answers `bestmove 0000`);
/// - 963136: `go infinite movetime 28` answers before `stop` (C), `go … frobnicate` gets no
///   bestmove (I), moves from stale positions (A);
/// - 688676: `go … depth x`, `go mate 3 frobnicate` get no bestmove (I), stale moves (A).
const REGRESSION_SEEDS: &[u64] = &[199914, 963136, 688676];

/// Steps of one stream; a step writes one to four lines.
const STEPS: usize = 300;
/// Default time budget of a run, regression seeds included.
const DEFAULT_SECS: u64 = 20;
/// `readyok` after a `Hash` change, which it follows only once the new table is allocated and
/// cleared. A 64 MB table took 8 ms at the median on an idle 2-core machine, but the kernel's
/// first supply of fresh pages now and then took 100-190 ms, and Stockfish 15.1's table in the
/// same run up to 240 ms; a second still catches a resize that stalls.
const RESIZE_READY_BOUND: Duration = Duration::from_secs(1);
/// A search with limits must answer within this once it is free to end.
const FINITE_ANSWER: Duration = Duration::from_secs(5);
/// After `stop`, every search must answer within this.
const STOP_ANSWER: Duration = Duration::from_secs(2);
/// A `go perft` or `bench` must end within this.
const TASK_ANSWER: Duration = Duration::from_secs(10);
/// Faults recorded per seed before its stream is cut short.
const MAX_FAULTS: usize = 12;

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Starts of the random games: standard, tactical, endgames, Chess960 (Shredder-FEN and X-FEN),
/// a mated and a stalemated side.
const STARTS: &[&str] = &[
    STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
    "7k/8/8/8/8/8/8/1Q5K w - - 0 1",
    "8/8/8/4k3/8/8/3PK3/8 w - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NRK3RN w GBgb - 0 1",
    "1r3kr1/pppppppp/8/8/8/8/PPPPPPPP/1R3KR1 w GBgb - 0 1",
    "4r3/3k4/8/8/8/8/6PP/qR1K1R2 w KQ - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

/// FENs a GUI may send that are wrong: repairable ones (a castling right without its rook, an
/// impossible en passant square, huge counters) and unusable ones.
const ODD_FENS: &[&str] = &[
    "r3k2r/8/8/8/8/8/8/R3K1R1 w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
    "4k3/8/8/8/8/8/8/4K2R w KQkq - 70000 99999",
    "8/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k2R/8/8/8/8/8/8/4K3 w - - 0 1",
    "hello",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
];

/// One `go` the engine owes a `bestmove`.
struct Go {
    step: usize,
    text: String,
    /// The position of the `go`; `None` after a rejected `position` (`bestmove 0000`).
    pos: Option<Position>,
    /// The position an engine has that keeps the previous one when it refuses a `position`
    /// (to tell a move from a stale position from an illegal one).
    kept: Position,
    /// Its position came from a repaired FEN.
    repaired: bool,
    chess960: bool,
    /// `UCI_Chess960` changed while it ran: either notation is accepted.
    notation_changed: bool,
    searchmoves: Vec<Move>,
    ponder: bool,
    /// `infinite`, or no limit at all: only `stop` (or a command that ends it) ends it.
    infinite: bool,
    /// A command that may end it was sent.
    released: bool,
    /// Since when it may end by its own limits.
    free_since: Option<Instant>,
}

impl Go {
    fn holds(&self) -> bool {
        !self.released && (self.ponder || self.infinite)
    }
}

/// A fault: its kind (for the summary) and what happened.
struct Fault {
    kind: &'static str,
    step: usize,
    what: String,
}

struct Fuzzer {
    rng: StdRng,
    /// Chooses the `go perft` and `bench` steps and their depths.
    tasks: StdRng,
    e: Ox88,
    step: usize,
    /// The position the engine should have (`None`: the last `position` was rejected).
    pos: Option<Position>,
    /// What an engine that refuses repairable FENs and keeps the old position would have.
    kept: Position,
    /// The last `position` needed a repair (the strict reader refuses it).
    repaired: bool,
    chess960: bool,
    outstanding: VecDeque<Go>,
    faults: Vec<Fault>,
    ready_bound: Duration,
    /// A `Hash` change was sent since the last `readyok`.
    resized: bool,
    ready_worst: Duration,
    lines_sent: usize,
    /// Also the odd inputs of the faults table in docs/uci.md (bad and repairable FENs, bad moves and go tokens, the
    /// other castling notation, infinite with a time limit); off with `OX88_FUZZ_VALID_ONLY=1`
    /// to look at the search and its threads alone.
    odd: bool,
}

impl Fuzzer {
    fn new(seed: u64) -> Fuzzer {
        let ready_ms = if on_ci() { 250 } else { 100 };
        Fuzzer {
            rng: StdRng::seed_from_u64(seed),
            tasks: StdRng::seed_from_u64(seed ^ 0x7065_7266_7400),
            e: Ox88::start(),
            step: 0,
            pos: Some(Position::startpos()),
            kept: Position::startpos(),
            repaired: false,
            chess960: false,
            outstanding: VecDeque::new(),
            faults: Vec::new(),
            ready_bound: Duration::from_millis(ready_ms),
            resized: false,
            ready_worst: Duration::ZERO,
            lines_sent: 0,
            odd: std::env::var("OX88_FUZZ_VALID_ONLY").map_or(true, |v| v != "1"),
        }
    }

    fn fault(&mut self, kind: &'static str, what: String) {
        // The conversation just before it, for the first few faults of a seed.
        let what = if self.faults.len() < 3 {
            let log = &self.e.log;
            let tail = log[log.len().saturating_sub(14)..].join("\n        ");
            format!("{what}\n        {tail}")
        } else {
            what
        };
        self.faults.push(Fault { kind, step: self.step, what });
    }

    fn send(&mut self, line: &str) -> Instant {
        self.lines_sent += 1;
        match self.e.try_send(line) {
            Some(t) => t,
            None => {
                if !self.faults.iter().any(|f| f.kind == "died") {
                    self.fault("died", format!("cannot write '{line}': ox88 closed its input"));
                }
                Instant::now()
            }
        }
    }

    // --- reading ----------------------------------------------------------------------------

    /// Reads and checks output until `until`; returns the time `readyok` was read if `want_ready`
    /// and it came.
    fn pump(&mut self, until: Instant, want_ready: bool) -> Option<Instant> {
        while let Some((at, line)) = self.e.next_timed(until) {
            if line.starts_with("bestmove") {
                self.on_bestmove(&line);
            } else if line == "readyok" && want_ready {
                return Some(at);
            }
        }
        None
    }

    /// A `bestmove` answers the oldest `go` waiting for one. If it does not fit that one but
    /// fits a later one, the engine gave the earlier ones no `bestmove` at all (a `go` it
    /// rejected): those are faults, and the later `go` is the one answered.
    fn on_bestmove(&mut self, line: &str) {
        if self.outstanding.is_empty() {
            self.fault("extra-bestmove", format!("'{line}' with no go waiting for one"));
            return;
        }
        let answers = |g: &Go| !matches!(judge(g, line), Err(("illegal-bestmove" | "outside-searchmoves", _)));
        let fits = (0..self.outstanding.len()).find(|&i| answers(&self.outstanding[i]));
        let skipped = fits.unwrap_or(0);
        for _ in 0..skipped {
            if let Some(g) = self.outstanding.pop_front() {
                let what = format!("'{}' (step {}) got none; '{line}' answers a later go", g.text, g.step);
                self.fault("missing-bestmove", what);
            }
        }
        let Some(go) = self.outstanding.pop_front() else {
            return;
        };
        let refused_repairable = go.repaired && line == "bestmove 0000";
        if go.holds() && go.pos.is_some() && !refused_repairable {
            self.fault("premature-bestmove", format!("'{line}' for '{}' (step {}) before stop", go.text, go.step));
        }
        if let Err((kind, what)) = judge(&go, line) {
            self.fault(kind, what);
        }
    }

    /// Checks that the engine lives, wrote no panic, and answered every search that had to.
    fn check(&mut self) {
        if let Ok(Some(status)) = self.e.child.try_wait() {
            self.fault("died", format!("ox88 exited: {status}"));
            return;
        }
        if self.e.stderr().contains("panicked") {
            self.fault("panic", "panic message on stderr".into());
            return;
        }
        let now = Instant::now();
        let late = self
            .outstanding
            .iter()
            .find(|g| g.free_since.is_some_and(|t| now.duration_since(t) > FINITE_ANSWER))
            .map(|g| format!("no bestmove {FINITE_ANSWER:?} after '{}' (step {}) could end", g.text, g.step));
        if let Some(what) = late {
            self.fault("missing-bestmove", what);
            self.resync();
        }
    }

    /// After a fault that leaves the conversation in doubt: stop everything, wait, forget.
    fn resync(&mut self) {
        self.release_all();
        self.send("stop");
        self.send("isready");
        let got = self.pump(Instant::now() + Duration::from_secs(5), true);
        if got.is_none() {
            self.fault("no-readyok", "no readyok within 5 s while resynchronising".into());
        }
        self.pump(Instant::now() + Duration::from_millis(300), false);
        self.outstanding.clear();
    }

    fn release_all(&mut self) {
        let now = Instant::now();
        for g in self.outstanding.iter_mut() {
            g.released = true;
            g.free_since.get_or_insert(now);
        }
    }

    // --- the stream -------------------------------------------------------------------------

    fn run(mut self) -> (Vec<Fault>, Duration, usize) {
        self.send("uci");
        if self.e.try_until(Duration::from_secs(5), |l| l == "uciok").is_err() {
            self.fault("no-uciok", "no uciok".into());
        }
        for step in 0..STEPS {
            self.step = step;
            match self.rng.gen_range(0..100) {
                0..=19 => self.go(),
                20..=31 => self.stop(),
                32..=37 => self.ponderhit(),
                38..=51 => self.setoption(),
                52..=67 => self.position(),
                68..=71 => self.ucinewgame(),
                _ => self.isready(),
            }
            // Counts and benches draw on a stream of their own, so that the commands of a seed
            // stay the ones that found its faults.
            if self.tasks.gen_bool(0.05) {
                if self.tasks.gen_bool(0.8) {
                    self.perft();
                } else {
                    self.bench();
                }
            }
            if self.rng.gen_bool(0.5) {
                self.sleep();
            } else {
                self.pump(Instant::now(), false);
            }
            self.check();
            if self.faults.len() >= MAX_FAULTS || self.faults.iter().any(|f| f.kind == "died" || f.kind == "panic") {
                break;
            }
        }
        self.finish()
    }

    /// Ends the stream: every search answers, then `quit` (or end of input) exits with 0.
    fn finish(mut self) -> (Vec<Fault>, Duration, usize) {
        self.step = STEPS;
        let alive = !self.faults.iter().any(|f| f.kind == "died");
        if alive {
            // Searches with limits end by themselves.
            let deadline = Instant::now() + FINITE_ANSWER;
            while self.outstanding.iter().any(|g| g.free_since.is_some()) && Instant::now() < deadline {
                self.pump(Instant::now() + Duration::from_millis(20), false);
            }
            self.check();
            self.stop();
            let deadline = Instant::now() + STOP_ANSWER;
            while !self.outstanding.is_empty() && Instant::now() < deadline {
                self.pump(Instant::now() + Duration::from_millis(20), false);
            }
            if let Some(g) = self.outstanding.front() {
                let what = format!("no bestmove {STOP_ANSWER:?} after stop for '{}' (step {})", g.text, g.step);
                self.fault("missing-bestmove", what);
            }
            self.isready();
            let quit = self.rng.gen_bool(0.5);
            if quit {
                self.send("quit");
            }
            self.e.close_stdin();
            match self.e.wait_exit(Duration::from_secs(3)) {
                Some(0) => {}
                other => self
                    .fault("bad-exit", format!("exit {other:?} after {}", if quit { "quit" } else { "end of input" })),
            }
            if self.e.stderr().contains("panicked") {
                self.fault("panic", "panic message on stderr".into());
            }
        }
        (self.faults, self.ready_worst, self.lines_sent)
    }
}

/// Whether `line` is a right answer to `go`: the fault if not. A move that is legal only in
/// the position an engine keeps when it refuses a `position` is a stale move.
fn judge(go: &Go, line: &str) -> Result<(), (&'static str, String)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let context = || format!("'{line}' for '{}' (step {})", go.text, go.step);
    let stale = |why: &str| {
        if legal_answer(&go.kept, go, &words).is_ok() {
            Err(("stale-bestmove", format!("{} {why}, a move from the previous position", context())))
        } else {
            Err(("illegal-bestmove", format!("{} {why}", context())))
        }
    };
    if go.repaired && line == "bestmove 0000" {
        let what = format!("{}: the position was repairable, not to be refused", context());
        return Err(("refused-repairable", what));
    }
    match &go.pos {
        None if line == "bestmove 0000" => Ok(()),
        None => stale("after a rejected position, not 0000"),
        Some(pos) => match legal_answer(pos, go, &words) {
            Ok(()) => Ok(()),
            Err(e) if e.0 == "illegal-bestmove" => stale(&format!("in {}", pos.to_fen())),
            Err(_) if legal_answer(&go.kept, go, &words).is_ok() => stale(&format!("in {}", pos.to_fen())),
            Err(e) => Err((e.0, format!("{} {}", context(), e.1))),
        },
    }
}

/// Whether the words of a `bestmove` line are a legal answer in `pos` to `go`.
fn legal_answer(pos: &Position, go: &Go, words: &[&str]) -> Result<(), (&'static str, String)> {
    let mv = words.get(1).copied().unwrap_or("");
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return if mv == "(none)" || mv == "0000" {
            Ok(())
        } else {
            Err(("illegal-bestmove", "with no legal move".into()))
        };
    }
    let notations: &[bool] = if go.notation_changed {
        &[false, true]
    } else if go.chess960 {
        &[true]
    } else {
        &[false]
    };
    let Some(best) = legal.iter().copied().find(|m| notations.iter().any(|&c| m.to_uci(c) == mv)) else {
        return Err(("illegal-bestmove", String::new()));
    };
    if !go.searchmoves.is_empty() && !go.searchmoves.contains(&best) {
        return Err(("outside-searchmoves", String::new()));
    }
    if let (Some(&"ponder"), Some(p)) = (words.get(2), words.get(3)) {
        let mut after = pos.clone();
        after.make(best);
        let ok = after.legal_moves().iter().any(|m| notations.iter().any(|&c| m.to_uci(c) == *p));
        if !ok {
            return Err(("illegal-ponder", format!("in {}", pos.to_fen())));
        }
    }
    Ok(())
}

#[test]
fn search_fuzz() {
    let budget =
        Duration::from_secs(std::env::var("OX88_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SECS));
    let started = Instant::now();
    let mut seeds: Vec<(u64, bool)> = match std::env::var("OX88_FUZZ_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![(seed, false)],
        None => REGRESSION_SEEDS.iter().map(|&s| (s, true)).collect(),
    };
    let fresh = std::env::var("OX88_FUZZ_SEED").is_err();
    let mut report: BTreeMap<u64, Vec<Fault>> = BTreeMap::new();
    let mut runs = 0;
    let mut i = 0;
    loop {
        if i == seeds.len() {
            // At least one fresh seed per run, then more while the budget lasts.
            if !fresh || (runs > REGRESSION_SEEDS.len() && started.elapsed() >= budget) {
                break;
            }
            seeds.push((rand::random::<u64>() % 1_000_000, false));
        }
        let (seed, regression) = seeds[i];
        i += 1;
        let t = Instant::now();
        let (faults, ready_worst, lines) = Fuzzer::new(seed).run();
        runs += 1;
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &faults {
            *kinds.entry(f.kind).or_default() += 1;
        }
        println!(
            "seed {seed}{}: {lines} lines in {:.1} s, worst readyok {ready_worst:?}, faults {kinds:?}",
            if regression { " (regression)" } else { "" },
            t.elapsed().as_secs_f64()
        );
        if !faults.is_empty() {
            report.insert(seed, faults);
        }
    }
    if !report.is_empty() {
        let mut text = String::new();
        for (seed, faults) in &report {
            text.push_str(&format!("seed {seed} (rerun: OX88_FUZZ_SEED={seed}):\n"));
            for f in faults {
                text.push_str(&format!("  step {:>3} {}: {}\n", f.step, f.kind, f.what));
            }
        }
        panic!("{} of {runs} seeds found faults:\n{text}", report.len());
    }
}
