//! The engine facade: the position and game history, the option values, and the search.
//!
//! The text layer (`uci`) turns lines into calls on [`Engine`] and [`Event`]s into lines;
//! nothing here reads or writes text, and how moves are written is the text layer's
//! business. The rules this module guarantees:
//!
//! * `set_position` is transactional: on any error (bad FEN, garbled or illegal move, `0000`)
//!   the previous position and history stay as they were.
//! * `go` never blocks: the search runs on its own thread, which holds the engine's one
//!   [`Searcher`] while it searches. Every `go` that is accepted produces exactly one
//!   [`Event::BestMove`], also when the search panics; a `go` that is rejected produces none.
//! * `go infinite`, a bare `go` and `go ponder` never end on their own: if the search returns
//!   early (mate, depth limit), the best move is held back until `stop` (or `ponderhit`).
//! * A watchdog thread stops the search at its hard time limit should the search miss it.
//! * When the search gives no ponder move, the second move of its last principal variation
//!   (if it is legal) is sent as one.
//! * Anything that changes what a search works on (`set_position`, `new_game`, `go`, `Hash`,
//!   `Clear Hash`, `perft`) first stops a running search and waits for its best move.
//! * A task (`go perft`, `bench`) ends when it is done or at `stop`. `shutdown` (`quit`, the
//!   end of input) waits for a task to finish, so that a script that sends a command and then
//!   `quit` gets its output; a search, in contrast, is stopped at once and sends its best move.
//! * Every number of `go` is brought into the range the search can use ([`MAX_DEPTH`],
//!   [`MAX_MATE`]); [`GoParams::adjustments`] names each value changed, for the text layer to
//!   tell.
//! * Nothing waits by polling: the threads sleep on the search's [`SharedControl`] or on a
//!   channel until what they wait for happens.

mod job;
mod limits;
mod network;

use job::{checked_moves, run_on, started, Answer, SearchJob};
pub use limits::{Adjustment, MAX_DEPTH, MAX_MATE};
use network::EvalFile;
pub use network::EvalFileLoad;

use crate::fen::{FenError, FenRepair, STARTPOS};
use crate::movegen::MoveError;
use crate::mv::Move;
use crate::piece::Color;
use crate::position::Position;
use crate::search::params::Params;
use crate::search::{Report, SearchLimits, SearchOutcome, Searcher, SharedControl};
use crate::strength::{self, Limit};
use crate::tablebase::{LoadProblem, Tablebases, TbConfig};
use crate::threads::Executor;
use crate::time::{budget, Clock, TimeBudget, TripMeter, AT_ONCE_DEPTH};
use crate::tt::TableAllocError;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Stack of the search thread: deep recursion must not overflow.
const SEARCH_STACK_BYTES: usize = 32 << 20;

/// What the engine tells the outside world.
#[derive(Clone, Debug)]
pub enum Event {
    /// Search progress.
    Report(Report),
    /// The end of a search; `best` is `None` only when the side to move has no legal move.
    BestMove { best: Option<Move>, ponder: Option<Move> },
    /// The answer to a `go` without a position to search (the last `position` was
    /// rejected): no move at all rather than one from a position the GUI did not send.
    NoPosition,
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
        !self.clock.is_timed() && self.depth.is_none() && self.nodes.is_none() && self.mate.is_none()
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
    /// The hash table could not be allocated; the old size stays.
    Memory(TableAllocError),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Fen { fen, error } => write!(f, "bad FEN '{fen}': {error}"),
            EngineError::Move { index, error } => write!(f, "move {index}: {error}"),
            EngineError::SearchMove(e) => write!(f, "searchmoves: {e}"),
            EngineError::Memory(e) => write!(f, "{e}; the hash table keeps its old size"),
        }
    }
}

impl std::error::Error for EngineError {}

/// The option values the facade acts on. Their ranges are the text layer's (its option
/// table); the facade only keeps the values sane (at least one thread, one line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead_ms: i64,
    /// The search's and the time manager's tunable numbers (constants without `tune`).
    pub params: Params,
}

impl Default for Options {
    fn default() -> Self {
        Options { hash_mb: 16, threads: 1, multipv: 1, ponder: false, move_overhead_ms: 50, params: Params::defaults() }
    }
}

/// Tablebase options: `SyzygyPath` and the probe limits, and the tables loaded from the path.
#[derive(Clone, Debug)]
pub struct TablebaseOptions {
    /// As set, `<empty>` read as empty.
    pub path: String,
    pub probe_depth: i32,
    pub probe_limit: usize,
    tables: Option<Arc<Tablebases>>,
}

impl Default for TablebaseOptions {
    fn default() -> Self {
        TablebaseOptions { path: String::new(), probe_depth: 1, probe_limit: 7, tables: None }
    }
}

/// What setting `SyzygyPath` did, for the text layer to tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablebaseLoad {
    /// The path is the one already loaded: nothing was read again.
    Unchanged { files: usize, max_pieces: usize },
    /// Tables were read; `files` is 0 when none was found (the empty path included).
    Loaded { files: usize, max_pieces: usize, problems: Vec<LoadProblem> },
}

/// A search under way on the engine's search thread. It sends its best move before it waits
/// for its helpers, and the next job on that thread starts only once they have all ended.
struct Running {
    control: Arc<SharedControl>,
    /// Sent on once the search has sent its best move (closed if its thread died).
    done: Receiver<()>,
    /// The search's one answer (none for a task, which sends no best move).
    answer: Option<Arc<Answer>>,
    /// How to stop a task that does not read the control.
    on_stop: Option<Box<dyn Fn() + Send>>,
    /// A ponder search whose clock leaves nothing to spend: at `ponderhit` it answers at once
    /// if its pondering got as deep as a move at once would search.
    at_once: bool,
}

/// How long `stop` lets the search threads send their own best move before the facade sends
/// the one of the last line reported: with many threads on few cores the main search thread
/// may wait a long time for its turn on a processor.
const STOP_GRACE: Duration = Duration::from_millis(5);

/// The engine: position, history, options and the search.
pub struct Engine {
    pos: Position,
    /// False after a rejected `position`, until a good one (or `ucinewgame`) arrives.
    has_position: bool,
    /// Keys of the positions before `pos` in the game, oldest first.
    history: Vec<u64>,
    options: Options,
    tablebases: TablebaseOptions,
    /// The one searcher; a search thread holds it while it searches.
    searcher: Arc<Mutex<Searcher>>,
    running: Option<Running>,
    sink: EventSink,
    /// `UCI_LimitStrength` and `UCI_Elo`.
    limit: Limit,
    /// Games begun (`ucinewgame`): with the position, the seed of a limited strength's choices.
    games: u64,
    eval_file: EvalFile,
    /// The thread every search and task runs on, one after another; started at the first.
    runner: Option<Executor>,
    /// The thread of the searches' watchdogs.
    watchdog: Option<Executor>,
    /// What a reply's trip costs by the GUI's clock, learnt from one timed search to the next.
    trips: TripMeter,
    /// The last timed search: its clock, its side and its answer, for `trips` to learn from
    /// at the next `go`.
    last_timed: Option<(Clock, Color, Arc<Answer>)>,
}

impl Engine {
    pub fn new(sink: EventSink) -> Engine {
        let options = Options::default();
        Engine {
            pos: Position::startpos(),
            has_position: true,
            history: Vec::new(),
            searcher: Arc::new(Mutex::new(Searcher::new(options.hash_mb))),
            options,
            tablebases: TablebaseOptions::default(),
            running: None,
            sink,
            limit: Limit::default(),
            games: 0,
            eval_file: EvalFile::default(),
            runner: None,
            watchdog: None,
            trips: TripMeter::default(),
            last_timed: None,
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

    /// Whether there is a position to search: false after a rejected `position`.
    pub fn has_position(&self) -> bool {
        self.has_position
    }

    pub fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// The searcher, once no search holds it (callers stop and wait first).
    fn searcher(&self) -> MutexGuard<'_, Searcher> {
        lock_searcher(&self.searcher)
    }

    /// Sets the position from a start and UCI moves, the FEN's castling and the moves read
    /// as Chess960 when `chess960` is set. A FEN with a fault that has one obvious mend (a
    /// castling right without its rook, an en-passant square no pawn can have left, counters
    /// beyond their range) is mended, and the mends are returned to be reported. On error
    /// the position stays as it was but is no longer searched: every `go` answers
    /// [`Event::NoPosition`] until a good position.
    pub fn set_position(
        &mut self,
        start: &StartPosition,
        moves: &[&str],
        chess960: bool,
    ) -> Result<Vec<FenRepair>, EngineError> {
        self.stop();
        self.wait();
        self.has_position = false;
        let fen = match start {
            StartPosition::Startpos => STARTPOS,
            StartPosition::Fen(fen) => fen.as_str(),
        };
        let (mut pos, repairs) = Position::from_fen_repaired(fen, chess960)
            .map_err(|error| EngineError::Fen { fen: fen.to_string(), error })?;
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let m = pos.parse_uci_move(text).map_err(|error| EngineError::Move { index: i + 1, error })?;
            history.push(pos.key());
            pos.make(m);
        }
        self.pos = pos;
        self.history = history;
        self.has_position = true;
        Ok(repairs)
    }

    /// A `position` command that could not even be read: as a rejected position, nothing is
    /// searched until a good one arrives.
    pub fn reject_position(&mut self) {
        self.stop();
        self.wait();
        self.has_position = false;
    }

    /// `ucinewgame`: stops a search, forgets what the search learnt, back to the start position.
    pub fn new_game(&mut self, chess960: bool) {
        self.stop();
        self.wait();
        self.searcher().clear();
        self.last_timed = None;
        self.games = self.games.wrapping_add(1);
        self.pos = Position::startpos();
        self.pos.set_chess960(chess960);
        self.history.clear();
        self.has_position = true;
    }

    /// Resizes the hash table now (not at the next search).
    pub fn set_hash(&mut self, mb: usize) -> Result<(), EngineError> {
        self.stop();
        self.wait();
        self.searcher().resize(mb).map_err(EngineError::Memory)?;
        self.options.hash_mb = mb;
        Ok(())
    }

    pub fn clear_hash(&mut self) {
        self.stop();
        self.wait();
        self.searcher().clear();
    }

    /// Takes effect at the next `go`.
    pub fn set_threads(&mut self, n: usize) {
        self.options.threads = n.max(1);
    }

    pub fn set_multipv(&mut self, n: usize) {
        self.options.multipv = n.max(1);
    }

    pub fn set_move_overhead(&mut self, ms: i64) {
        self.options.move_overhead_ms = ms.max(0);
    }

    pub fn set_ponder(&mut self, on: bool) {
        self.options.ponder = on;
    }

    /// A tunable number (`tune` feature), from the next `go` on; refused outside its range.
    #[cfg(feature = "tune")]
    pub fn set_param(&mut self, name: &str, value: i64) -> Result<(), crate::search::params::ParamError> {
        self.options.params.set(name, value)
    }

    pub fn tablebase_options(&self) -> &TablebaseOptions {
        &self.tablebases
    }

    /// `SyzygyPath`: loads the tables of its directories (empty or `<empty>`: none). The same
    /// path again reads nothing; a directory that cannot be read is left out and reported.
    pub fn set_syzygy_path(&mut self, path: &str) -> TablebaseLoad {
        let path = if path.trim() == "<empty>" { "" } else { path.trim() };
        if path == self.tablebases.path && (path.is_empty() || self.tablebases.tables.is_some()) {
            let t = self.tablebases.tables.as_ref();
            return TablebaseLoad::Unchanged {
                files: t.map_or(0, |t| t.files()),
                max_pieces: t.map_or(0, |t| t.max_pieces()),
            };
        }
        self.stop();
        self.wait();
        let loaded = Tablebases::load(path);
        self.tablebases.path = path.to_string();
        self.tablebases.tables = loaded.tables;
        let t = self.tablebases.tables.as_ref();
        TablebaseLoad::Loaded {
            files: t.map_or(0, |t| t.files()),
            max_pieces: t.map_or(0, |t| t.max_pieces()),
            problems: loaded.problems,
        }
    }

    /// `SyzygyProbeDepth`: takes effect at the next `go`.
    pub fn set_syzygy_probe_depth(&mut self, depth: i32) {
        self.tablebases.probe_depth = depth.max(1);
    }

    /// `SyzygyProbeLimit` (pieces; 0: no probing): takes effect at the next `go`.
    pub fn set_syzygy_probe_limit(&mut self, pieces: usize) {
        self.tablebases.probe_limit = pieces;
    }

    /// The tables as the next search uses them.
    fn tb_config(&self) -> Option<TbConfig> {
        let t = &self.tablebases;
        t.tables.as_ref().filter(|_| t.probe_limit > 0).map(|tables| TbConfig {
            tables: Arc::clone(tables),
            probe_depth: t.probe_depth,
            probe_limit: t.probe_limit,
        })
    }

    /// `UCI_LimitStrength` and `UCI_Elo`: take effect at the next `go`.
    pub fn set_limit(&mut self, limit: Limit) {
        self.limit = limit;
    }

    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// Starts a search on its own thread and returns at once. A running search is stopped
    /// first (its best move is sent). On error no search starts and no best move is sent.
    pub fn go(&mut self, params: &GoParams) -> Result<(), EngineError> {
        self.stop();
        self.wait();
        if !self.has_position {
            (self.sink)(Event::NoPosition);
            return Ok(());
        }
        let mut searchmoves = Vec::with_capacity(params.searchmoves.len());
        for text in &params.searchmoves {
            searchmoves.push(self.pos.parse_uci_move(text).map_err(EngineError::SearchMove)?);
        }
        // Every number a parser accepts is brought into the range the search can use: no
        // mate is longer than the deepest line, no search deeper than the stack. Without a
        // depth, `go mate` searches until it finds the mate (the search's own bound): pruning
        // may hide a mate in m at depth 2m - 1, so that depth is no limit.
        let (depth, mate, nodes) = params.bounded();
        let side = self.pos.side_to_move();
        if let Some((before, side_before, answer)) = self.last_timed.take() {
            if let Some(spent) = answer.spent().filter(|_| side_before == side) {
                self.trips.observe(&before, spent, &params.clock, side);
            }
        }
        // `infinite` wins over every clock field: no best move until `stop`.
        let time = if params.infinite {
            TimeBudget::default()
        } else {
            let overhead = self.options.move_overhead_ms;
            budget(&params.clock, side, overhead, self.trips.trip_ms(), &self.options.params)
        };
        let mut limits = SearchLimits {
            depth,
            nodes,
            soft_nodes: None,
            mate,
            searchmoves,
            multipv: self.options.multipv,
            time,
            strength: self.limit.strength(strength::seed(self.pos.key(), self.games)),
        };
        // A limited strength thinks on one thread within its node budget and its own time.
        let (mut threads, mut pace) = (self.options.threads, None);
        if let Some(s) = limits.strength {
            limits.nodes = Some(limits.nodes.map_or(s.nodes(), |n| n.min(s.nodes())));
            (limits.time, pace) = s.think(limits.time);
            threads = 1;
            pace = pace.filter(|_| !params.ponder);
        }
        let at_once = params.ponder && limits.time.soft == Some(Duration::ZERO);
        let control = Arc::new(SharedControl::starting(params.ponder));
        let (done, done_rx) = mpsc::channel();
        let answer = Arc::new(Answer::new(
            self.pos.clone(),
            limits.searchmoves.clone(),
            Arc::clone(&self.sink),
            Arc::clone(&control),
            done,
        ));
        let job = SearchJob {
            pos: self.pos.clone(),
            history: self.history.clone(),
            limits,
            threads,
            params: self.options.params,
            tablebases: self.tb_config(),
            network: self.eval_file.shared(),
            pace,
            control: Arc::clone(&control),
            hold: params.infinite || params.is_unlimited(),
            answer: Arc::clone(&answer),
            watchdog: started(&mut self.watchdog, "watchdog", None).cloned(),
        };
        let searcher = Arc::clone(&self.searcher);
        match run_on(&mut self.runner, "search", move || job.run(&searcher)) {
            true => {
                if !params.infinite && params.clock.time(side).is_some() {
                    self.last_timed = Some((params.clock, side, Arc::clone(&answer)));
                }
                self.running = Some(Running { control, done: done_rx, answer: Some(answer), on_stop: None, at_once })
            }
            false => {
                // No thread: answer at once so the GUI still gets its one best move.
                let (best, ponder) = checked_moves(&self.pos, &[], SearchOutcome::default());
                (self.sink)(Event::BestMove { best, ponder });
            }
        }
        Ok(())
    }

    /// Asks a running search to stop; its best move is sent within a few milliseconds (by
    /// the search, or else from its last line reported). Idle: does nothing.
    pub fn stop(&mut self) {
        let Some(r) = &self.running else { return };
        r.control.request_stop();
        if let Some(stop_task) = &r.on_stop {
            stop_task();
        }
        if let Some(answer) = &r.answer {
            answer.wait_sent(STOP_GRACE);
            answer.send(None);
        }
    }

    /// `ponderhit`: the ponder search becomes a normal timed search, the clock starting now.
    /// Sent during a search that is not pondering, it means nothing and is ignored. With
    /// nothing on the clock to spend, a ponder search that has gone as deep as a move at once
    /// would answers now, as a search that had used its time.
    pub fn ponderhit(&mut self) {
        if let Some(r) = self.running.as_ref().filter(|r| r.control.is_pondering()) {
            r.control.ponderhit();
            let deep = r.answer.as_ref().is_some_and(|a| a.depth() >= AT_ONCE_DEPTH as u32);
            if r.at_once && deep {
                r.control.request_stop();
            }
        }
    }

    /// What a reply's trip costs by the GUI's clock, in ms, as the sudden-death reserve
    /// assumes it.
    pub fn trip_ms(&self) -> i64 {
        self.trips.trip_ms()
    }

    /// Waits until the running search (if any) has sent its best move.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            // Disconnected: the thread died without a word; it gave up the searcher, which
            // `lock_searcher` then clears.
            let _ = r.done.recv();
        }
    }

    /// For `quit` and the end of input: lets a task (perft, bench) finish, so that its output
    /// is all written, or stops a search and waits at most `limit` for its best move; false if
    /// that did not come.
    pub fn shutdown(&mut self, limit: Duration) -> bool {
        if self.running.as_ref().is_some_and(|r| r.answer.is_none()) {
            self.wait();
            return true;
        }
        self.stop();
        let Some(r) = &self.running else { return true };
        match r.done.recv_timeout(limit) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                self.running = None;
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
        }
    }

    /// Runs `work` on the current position on a thread of its own, as a search runs (a
    /// running search is stopped first): `go`, `position` and the rest wait for it, while
    /// `isready` is answered at once and `quit` waits for the task to finish. For `go perft`
    /// and `bench`, which send no best move; `on_stop` is how `stop` ends the task.
    pub fn run_task(&mut self, work: impl FnOnce(&Position) + Send + 'static, on_stop: Option<Box<dyn Fn() + Send>>) {
        self.stop();
        self.wait();
        let control = Arc::new(SharedControl::default());
        let (done, done_rx) = mpsc::channel();
        let pos = self.pos.clone();
        let queued = run_on(&mut self.runner, "search", move || {
            let _ = catch_unwind(AssertUnwindSafe(|| work(&pos)));
            let _ = done.send(());
        });
        if queued {
            self.running = Some(Running { control, done: done_rx, answer: None, on_stop, at_once: false });
        }
    }

    /// Static evaluation of the current position in centipawns, White's point of view.
    pub fn static_eval(&self) -> i32 {
        let v = crate::eval::evaluate_by(self.network(), &self.pos);
        match self.pos.side_to_move() {
            crate::piece::Color::White => v,
            crate::piece::Color::Black => -v,
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Nobody is left to read a task's output: stop it rather than wait for it.
        self.stop();
        let _ = self.shutdown(Duration::from_secs(1));
    }
}

/// The searcher behind its lock. A thread that panicked while holding it may have left its
/// tables half-written: they are cleared before anyone uses them again.
fn lock_searcher(searcher: &Mutex<Searcher>) -> MutexGuard<'_, Searcher> {
    match searcher.lock() {
        Ok(guard) => guard,
        Err(poisoned) => {
            let mut guard = poisoned.into_inner();
            guard.clear();
            searcher.clear_poison();
            guard
        }
    }
}

#[cfg(test)]
mod tests;
