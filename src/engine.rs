//! The engine facade: the position and game history, the options, and the search thread.
//!
//! The text layer (`uci.rs`) turns lines into calls on [`Engine`] and [`Event`]s into lines;
//! nothing here reads or writes text. The rules this module guarantees:
//!
//! * `set_position` is transactional: on any error (bad FEN, garbled or illegal move, `0000`)
//!   the previous position and history stay as they were.
//! * `go` never blocks: the search runs on its own thread and owns the [`Searcher`] until it
//!   finishes. Every `go` that is accepted produces exactly one [`Event::BestMove`], also when
//!   the search panics; a `go` that is rejected produces none.
//! * `go infinite`, a bare `go` and `go ponder` never end on their own: if the search returns
//!   early (mate, depth limit), the best move is held back until `stop` (or `ponderhit`).
//! * A watchdog thread stops the search at its hard time limit should the search miss it.
//! * When the search gives no ponder move, the second move of its last principal variation
//!   (if it is legal) is sent as one.
//! * Anything that changes what a search works on (`set_position`, `new_game`, `go`, `Hash`,
//!   `Clear Hash`, `perft`) first stops a running search and waits for its best move.

use crate::fen::{FenError, STARTPOS};
use crate::movegen::MoveError;
use crate::mv::Move;
use crate::perft::divide;
use crate::position::Position;
use crate::search::{Report, SearchLimits, SearchOutcome, Searcher, SharedControl};
use crate::time::{budget, Clock};
use crate::value::MAX_PLY;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 65_536;
pub const MAX_MULTIPV: usize = 64;
/// Search threads (Lazy SMP: the main thread and up to 255 helpers).
pub const MAX_THREADS: usize = 256;
pub const DEFAULT_MOVE_OVERHEAD_MS: i64 = 50;
pub const MAX_MOVE_OVERHEAD_MS: i64 = 10_000;
/// Stack of the search thread: deep recursion must not overflow.
const SEARCH_STACK_BYTES: usize = 32 << 20;

/// What the engine tells the outside world.
#[derive(Clone, Debug)]
pub enum Event {
    /// Search progress; moves are to be written with `chess960` castling.
    Report { report: Report, chess960: bool },
    /// The end of a search; `best` is `None` only when the side to move has no legal move.
    BestMove {
        best: Option<Move>,
        ponder: Option<Move>,
        chess960: bool,
    },
}

/// Where events go; called from the search thread.
pub type EventSink = Arc<dyn Fn(Event) + Send + Sync>;

/// How the position of a `position` command starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    Startpos,
    Fen(String),
}

/// Everything a `go` command can ask for, already split into fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub clock: Clock,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Moves as sent; checked against the legal moves by [`Engine::go`].
    pub searchmoves: Vec<String>,
}

impl GoParams {
    /// No limit at all: a bare `go`, which searches until `stop` like `go infinite`.
    fn is_unlimited(&self) -> bool {
        !self.clock.is_timed()
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.mate.is_none()
    }
}

/// Errors of the facade; each names the offending input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Fen {
        fen: String,
        error: FenError,
    },
    /// Move number `index` (from 1) of a `position` command.
    Move {
        index: usize,
        error: MoveError,
    },
    SearchMove(MoveError),
    OutOfRange {
        option: &'static str,
        value: i64,
        min: i64,
        max: i64,
    },
    /// The hash table could not be allocated; the old size stays.
    Memory(crate::tt::TableAllocError),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Fen { fen, error } => write!(f, "bad FEN '{fen}': {error}"),
            EngineError::Move { index, error } => write!(f, "move {index}: {error}"),
            EngineError::SearchMove(e) => write!(f, "searchmoves: {e}"),
            EngineError::OutOfRange {
                option,
                value,
                min,
                max,
            } => {
                write!(f, "{option} must be between {min} and {max}, not {value}")
            }
            EngineError::Memory(e) => write!(f, "{e}; the hash table keeps its old size"),
        }
    }
}

impl std::error::Error for EngineError {}

/// The option values the facade acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead_ms: i64,
    pub chess960: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: DEFAULT_MOVE_OVERHEAD_MS,
            chess960: false,
        }
    }
}

struct Running {
    control: Arc<SharedControl>,
    handle: JoinHandle<Searcher>,
}

/// The engine: position, history, options and (while searching) the search thread.
pub struct Engine {
    pos: Position,
    /// Keys of the positions before `pos` in the game, oldest first.
    history: Vec<u64>,
    options: Options,
    /// `None` while a search thread owns it.
    searcher: Option<Searcher>,
    running: Option<Running>,
    sink: EventSink,
}

impl Engine {
    pub fn new(sink: EventSink) -> Engine {
        let options = Options::default();
        Engine {
            pos: Position::startpos(),
            history: Vec::new(),
            searcher: Some(Searcher::new(options.hash_mb)),
            options,
            running: None,
            sink,
        }
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Keys of the positions before the current one, oldest first.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// Sets the position from a start and UCI moves; on error nothing changes.
    pub fn set_position(
        &mut self,
        start: &StartPosition,
        moves: &[&str],
    ) -> Result<(), EngineError> {
        self.stop();
        self.wait();
        let chess960 = self.options.chess960;
        let mut pos = match start {
            StartPosition::Startpos => Position::from_fen_with(STARTPOS, chess960),
            StartPosition::Fen(fen) => Position::from_fen_with(fen, chess960),
        }
        .map_err(|error| EngineError::Fen {
            fen: match start {
                StartPosition::Startpos => STARTPOS.to_string(),
                StartPosition::Fen(f) => f.clone(),
            },
            error,
        })?;
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let m = pos
                .parse_uci_move(text)
                .map_err(|error| EngineError::Move {
                    index: i + 1,
                    error,
                })?;
            history.push(pos.key());
            pos.make(m);
        }
        self.pos = pos;
        self.history = history;
        Ok(())
    }

    /// `ucinewgame`: stops a search, forgets what the search learnt, back to the start position.
    pub fn new_game(&mut self) {
        self.stop();
        self.wait();
        if let Some(s) = self.searcher.as_mut() {
            s.clear();
        }
        self.pos = Position::startpos();
        self.pos.set_chess960(self.options.chess960);
        self.history.clear();
    }

    /// Resizes the hash table now (not at the next search).
    pub fn set_hash(&mut self, mb: i64) -> Result<(), EngineError> {
        let mb = check_range("Hash", mb, 1, MAX_HASH_MB as i64)? as usize;
        self.stop();
        self.wait();
        match self.searcher.as_mut() {
            Some(s) => s.resize(mb).map_err(EngineError::Memory)?,
            None => self.searcher = Some(Searcher::new(mb)),
        }
        self.options.hash_mb = mb;
        Ok(())
    }

    pub fn clear_hash(&mut self) {
        self.stop();
        self.wait();
        if let Some(s) = self.searcher.as_mut() {
            s.clear();
        }
    }

    /// Takes effect at the next `go` (helpers are made while no search runs).
    pub fn set_threads(&mut self, n: i64) -> Result<(), EngineError> {
        self.options.threads = check_range("Threads", n, 1, MAX_THREADS as i64)? as usize;
        if let Some(s) = self.searcher.as_mut() {
            s.set_threads(self.options.threads);
        }
        Ok(())
    }

    pub fn set_multipv(&mut self, n: i64) -> Result<(), EngineError> {
        self.options.multipv = check_range("MultiPV", n, 1, MAX_MULTIPV as i64)? as usize;
        Ok(())
    }

    pub fn set_move_overhead(&mut self, ms: i64) -> Result<(), EngineError> {
        self.options.move_overhead_ms = check_range("Move Overhead", ms, 0, MAX_MOVE_OVERHEAD_MS)?;
        Ok(())
    }

    pub fn set_ponder(&mut self, on: bool) {
        self.options.ponder = on;
    }

    /// Switches Chess960 castling notation (king takes rook) for input and output.
    pub fn set_chess960(&mut self, on: bool) {
        self.options.chess960 = on;
        self.pos.set_chess960(on);
    }

    /// Starts a search on its own thread and returns at once. A running search is stopped
    /// first (its best move is sent). On error no search starts and no best move is sent.
    pub fn go(&mut self, params: &GoParams) -> Result<(), EngineError> {
        self.stop();
        self.wait();
        let mut searchmoves = Vec::with_capacity(params.searchmoves.len());
        for text in &params.searchmoves {
            searchmoves.push(
                self.pos
                    .parse_uci_move(text)
                    .map_err(EngineError::SearchMove)?,
            );
        }
        let mut depth = params.depth.map(|d| d.clamp(1, MAX_PLY as u32 - 1));
        if let (None, Some(m)) = (depth, params.mate) {
            // A mate in m moves lies within 2m - 1 plies; the search may extend beyond that.
            depth = Some(
                m.saturating_mul(2)
                    .saturating_sub(1)
                    .clamp(1, MAX_PLY as u32 - 1),
            );
        }
        let limits = SearchLimits {
            depth,
            nodes: params.nodes,
            mate: params.mate,
            searchmoves,
            multipv: self.options.multipv,
            time: budget(
                &params.clock,
                self.pos.side_to_move(),
                self.options.move_overhead_ms,
            ),
        };
        let hold = params.infinite || params.is_unlimited();
        let control = Arc::new(SharedControl::default());
        control.pondering.store(params.ponder, Ordering::SeqCst);
        control.start_clock();
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(self.options.hash_mb));
        // Also for a searcher made afresh (after a panic), which has no helpers.
        searcher.set_threads(self.options.threads);
        let job = SearchJob {
            pos: self.pos.clone(),
            history: self.history.clone(),
            limits,
            control: Arc::clone(&control),
            hold,
            sink: Arc::clone(&self.sink),
            chess960: self.options.chess960,
            hash_mb: self.options.hash_mb,
        };
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || job.run(searcher));
        match spawned {
            Ok(handle) => self.running = Some(Running { control, handle }),
            Err(_) => {
                // No thread: answer at once so the GUI still gets its one best move.
                let (best, ponder) = checked_moves(&self.pos, &[], SearchOutcome::default());
                (self.sink)(Event::BestMove {
                    best,
                    ponder,
                    chess960: self.options.chess960,
                });
                self.searcher = Some(Searcher::new(self.options.hash_mb));
            }
        }
        Ok(())
    }

    /// Asks a running search to stop (it then sends its best move); idle: does nothing.
    pub fn stop(&mut self) {
        if let Some(r) = &self.running {
            r.control.request_stop();
        }
    }

    /// `ponderhit`: the ponder search becomes a normal timed search, the clock starting now.
    pub fn ponderhit(&mut self) {
        if let Some(r) = &self.running {
            r.control.start_clock();
            r.control.pondering.store(false, Ordering::SeqCst);
        }
    }

    /// Waits until the running search (if any) has sent its best move.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let searcher = r
                .handle
                .join()
                .unwrap_or_else(|_| Searcher::new(self.options.hash_mb));
            self.searcher = Some(searcher);
        }
    }

    /// Stops the search and waits at most `limit` for it (for `quit`); false if it did not end.
    pub fn shutdown(&mut self, limit: Duration) -> bool {
        self.stop();
        let start = Instant::now();
        while let Some(r) = &self.running {
            if r.handle.is_finished() {
                self.wait();
                return true;
            }
            if start.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }

    /// Perft divide of the current position (stops a running search first).
    pub fn perft(&mut self, depth: u32) -> Vec<(Move, u64)> {
        self.stop();
        self.wait();
        let mut pos = self.pos.clone();
        divide(&mut pos, depth)
    }

    /// Static evaluation of the current position in centipawns, White's point of view.
    pub fn static_eval(&self) -> i32 {
        let v = crate::eval::evaluate(&self.pos);
        match self.pos.side_to_move() {
            crate::piece::Color::White => v,
            crate::piece::Color::Black => -v,
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.shutdown(Duration::from_secs(1));
    }
}

fn check_range(option: &'static str, value: i64, min: i64, max: i64) -> Result<i64, EngineError> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(EngineError::OutOfRange {
            option,
            value,
            min,
            max,
        })
    }
}

/// The best and ponder moves to send: the search's if legal (and allowed by `searchmoves`),
/// otherwise the first allowed legal move; `None` only when there is no legal move.
fn checked_moves(
    pos: &Position,
    searchmoves: &[Move],
    outcome: SearchOutcome,
) -> (Option<Move>, Option<Move>) {
    let legal = pos.legal_moves();
    let allowed =
        |m: &Move| legal.contains(*m) && (searchmoves.is_empty() || searchmoves.contains(m));
    let best = outcome
        .best
        .filter(|m| allowed(m))
        .or_else(|| legal.iter().copied().find(|m| allowed(m)))
        .or_else(|| legal.iter().copied().next());
    let ponder = match (best, outcome.ponder) {
        (Some(b), Some(p)) if outcome.best == Some(b) => {
            let mut after = pos.clone();
            after.make(b);
            after.legal_moves().contains(p).then_some(p)
        }
        _ => None,
    };
    (best, ponder)
}

/// Everything a search thread needs, moved into it.
struct SearchJob {
    pos: Position,
    history: Vec<u64>,
    limits: SearchLimits,
    control: Arc<SharedControl>,
    /// Hold the best move until `stop` (infinite or unlimited search).
    hold: bool,
    sink: EventSink,
    chess960: bool,
    hash_mb: usize,
}

impl SearchJob {
    fn run(self, mut searcher: Searcher) -> Searcher {
        let sink = Arc::clone(&self.sink);
        let chess960 = self.chess960;
        // The principal variation of the last report, for a ponder move the search did not give.
        let mut last_pv: Vec<Move> = Vec::new();
        let mut report = |report: Report| {
            if let Report::Iteration { multipv: 1, pv, .. } = &report {
                last_pv.clone_from(pv);
            }
            sink(Event::Report { report, chess960 })
        };
        let watchdog = self
            .limits
            .time
            .hard
            .map(|hard| Watchdog::start(Arc::clone(&self.control), hard));
        let result = catch_unwind(AssertUnwindSafe(|| {
            searcher.search(
                &self.pos,
                &self.history,
                &self.limits,
                &self.control,
                &mut report,
            )
        }));
        drop(watchdog);
        let (mut outcome, searcher) = match result {
            Ok(outcome) => (outcome, searcher),
            // A panicking search may leave its tables half-written: start afresh.
            Err(_) => (SearchOutcome::default(), Searcher::new(self.hash_mb)),
        };
        if outcome.ponder.is_none()
            && outcome.best.is_some()
            && last_pv.first() == outcome.best.as_ref()
        {
            outcome.ponder = last_pv.get(1).copied();
        }
        while !self.control.stopped()
            && (self.hold || self.control.pondering.load(Ordering::SeqCst))
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        let (best, ponder) = checked_moves(&self.pos, &self.limits.searchmoves, outcome);
        (self.sink)(Event::BestMove {
            best,
            ponder,
            chess960,
        });
        searcher
    }
}

/// Stops the search at its hard time limit even if the search misses the limit itself (a
/// long node, a search without time checks): a safety net against losing on time.
struct Watchdog {
    done: Arc<AtomicBool>,
}

impl Watchdog {
    fn start(control: Arc<SharedControl>, hard: Duration) -> Watchdog {
        let done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&done);
        let spawned = std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(move || {
                while !flag.load(Ordering::SeqCst) && !control.stopped() {
                    if !control.pondering.load(Ordering::SeqCst) && control.elapsed() >= hard {
                        control.request_stop();
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
        // Without a thread the search's own checks remain.
        drop(spawned);
        Watchdog { done }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn engine() -> (Engine, Arc<Mutex<Vec<Event>>>) {
        let events = Arc::new(Mutex::new(Vec::new()));
        let e2 = Arc::clone(&events);
        let sink: EventSink = Arc::new(move |e| e2.lock().unwrap().push(e));
        (Engine::new(sink), events)
    }

    fn bestmoves(events: &Mutex<Vec<Event>>) -> Vec<(Option<Move>, Option<Move>)> {
        events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                Event::BestMove { best, ponder, .. } => Some((*best, *ponder)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn bad_move_keeps_the_previous_position() {
        let (mut e, _) = engine();
        e.set_position(&StartPosition::Startpos, &["e2e4"]).unwrap();
        let fen = e.position().to_fen();
        for bad in [
            &["e2e4", "0000"][..],
            &["e7e5"],
            &["e2e4", "e7e5", "e1e3"],
            &["e2e4", "e7e8k"],
        ] {
            assert!(
                e.set_position(&StartPosition::Startpos, bad).is_err(),
                "{bad:?}"
            );
            assert_eq!(e.position().to_fen(), fen);
            assert_eq!(e.history().len(), 1);
        }
        assert!(e
            .set_position(&StartPosition::Fen("hello".into()), &[])
            .is_err());
        assert_eq!(e.position().to_fen(), fen);
    }

    #[test]
    fn history_holds_the_keys_before_the_current_position() {
        let (mut e, _) = engine();
        e.set_position(&StartPosition::Startpos, &["g1f3", "g8f6", "f3g1", "f6g8"])
            .unwrap();
        assert_eq!(e.history().len(), 4);
        assert_eq!(e.history()[0], e.position().key());
    }

    #[test]
    fn one_bestmove_per_go_even_when_go_interrupts_go() {
        let (mut e, events) = engine();
        e.go(&GoParams {
            infinite: true,
            ..GoParams::default()
        })
        .unwrap();
        e.go(&GoParams {
            depth: Some(2),
            ..GoParams::default()
        })
        .unwrap();
        e.wait();
        assert_eq!(bestmoves(&events).len(), 2);
        e.stop();
        e.wait();
        assert_eq!(bestmoves(&events).len(), 2);
    }

    #[test]
    fn mated_side_gets_no_move_and_searchmoves_restrict_the_root() {
        let (mut e, events) = engine();
        e.set_position(&StartPosition::Startpos, &["f2f3", "e7e5", "g2g4", "d8h4"])
            .unwrap();
        e.go(&GoParams {
            depth: Some(3),
            ..GoParams::default()
        })
        .unwrap();
        e.wait();
        assert_eq!(bestmoves(&events), vec![(None, None)]);
        e.set_position(&StartPosition::Startpos, &[]).unwrap();
        e.go(&GoParams {
            depth: Some(2),
            searchmoves: vec!["a2a3".into()],
            ..GoParams::default()
        })
        .unwrap();
        e.wait();
        assert_eq!(
            bestmoves(&events)[1].0.map(|m| m.to_string()),
            Some("a2a3".into())
        );
        assert!(e
            .go(&GoParams {
                searchmoves: vec!["e2e5".into()],
                ..GoParams::default()
            })
            .is_err());
        assert!(!e.is_searching());
    }

    #[test]
    fn options_reject_out_of_range_values_and_keep_the_old_one() {
        let (mut e, _) = engine();
        assert!(e.set_hash(0).is_err());
        assert!(e.set_threads(0).is_err());
        assert!(e.set_threads(MAX_THREADS as i64 + 1).is_err());
        assert!(e.set_multipv(65).is_err());
        assert!(e.set_move_overhead(-1).is_err());
        assert_eq!(*e.options(), Options::default());
        e.set_hash(32).unwrap();
        assert_eq!(e.options().hash_mb, 32);
    }

    #[test]
    fn two_threads_give_a_legal_move_and_stop_promptly() {
        let (mut e, events) = engine();
        e.set_threads(2).unwrap();
        e.set_hash(32).unwrap(); // resizing with helpers present
        e.set_position(&StartPosition::Startpos, &["e2e4", "e7e5", "g1f3"])
            .unwrap();
        e.go(&GoParams {
            depth: Some(8),
            ..GoParams::default()
        })
        .unwrap();
        e.wait();
        let moves = bestmoves(&events);
        let best = moves[0].0.expect("a move");
        assert!(e.position().legal_moves().contains(best));

        e.go(&GoParams {
            infinite: true,
            ..GoParams::default()
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let asked = Instant::now();
        e.stop();
        e.wait();
        assert!(
            asked.elapsed() < Duration::from_millis(500),
            "stop took {:?}",
            asked.elapsed()
        );
        assert_eq!(bestmoves(&events).len(), 2);
        e.set_threads(1).unwrap();
        e.go(&GoParams {
            depth: Some(4),
            ..GoParams::default()
        })
        .unwrap();
        e.wait();
        assert_eq!(bestmoves(&events).len(), 3);
    }
}
