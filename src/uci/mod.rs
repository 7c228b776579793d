//! UCI text layer: lines in, [`Command`]s to the [`Engine`] facade, lines out.
//!
//! `parse` turns a line into a typed command (pure: no state, no I/O); a [`Session`]
//! carries it out on the engine; `options` is the one table of UCI options; `format`
//! writes moves, `info` and `bestmove` lines. The notation of moves (Chess960 or not) is
//! this layer's setting: the engine below deals in moves, not text.

mod format;
mod options;
mod parse;

pub use format::{format_bestmove, format_event, format_report, format_report_wdl, move_text};
pub use options::{table as option_table, OptionKind, Setting, UciOption};
pub use parse::{parse_command, Command, UciError};

use crate::engine::{Engine, EventSink, GoParams};
use crate::perft::{check_depth, divide_with, PerftControl, PerftOptions};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vampirc_uci::UciMessage;

pub const ENGINE_NAME: &str = "ox88";
pub const ENGINE_AUTHOR: &str = "the ox88 authors";
/// The answer to `help`.
const HELP: [&str; 11] = [
    "ox88 reads the UCI commands: uci, isready, setoption name N [value V], ucinewgame,",
    "  position startpos|fen FEN [moves M...], go [wtime btime winc binc movestogo depth nodes mate",
    "  movetime infinite ponder searchmoves], stop, ponderhit, debug on|off, quit",
    "and these of its own:",
    "  d                                board, FEN, key and checkers",
    "  eval                             static evaluation",
    "  go perft N | perft N             count the leaves of the move tree, per root move",
    "  bench [depth]                    the fixed search whose node count is the engine's signature",
    "  genfens N seed S book None|FILE  N balanced openings as 'info string genfens FEN' (OpenBench)",
    "  spsa-inputs                      the tunable numbers as OpenBench's SPSA input (tune builds)",
    "  help                             this list",
];
/// How long a garbled `go` that limits nothing searches.
const GARBLED_GO_MS: i64 = 1000;

/// Writes whole lines, flushed at once; shared by the input loop and the search thread.
/// A write that fails (the GUI has closed its end) marks the output closed, which the input
/// loop takes for `quit`. With `Debug Log File` set, every line in and out is also appended
/// to the log with a timestamp and its direction.
#[derive(Clone)]
pub struct Output {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
    closed: Arc<AtomicBool>,
    log: Arc<Mutex<Option<std::fs::File>>>,
}

impl Output {
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output { out: Arc::new(Mutex::new(Box::new(w))), closed: Arc::default(), log: Arc::default() }
    }

    /// Writes `text` and a newline, then flushes.
    pub fn line(&self, text: &str) {
        self.log("out", text);
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        if writeln!(w, "{text}").and_then(|()| w.flush()).is_err() {
            self.closed.store(true, Ordering::SeqCst);
        }
    }

    /// Whether a write has failed: nobody reads what the engine says any more.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Starts logging to the file at `path` (appending), or stops with `None`.
    pub fn set_log(&self, path: Option<&str>) -> std::io::Result<()> {
        let file = match path {
            Some(p) => Some(std::fs::OpenOptions::new().create(true).append(true).open(p)?),
            None => None,
        };
        *self.log.lock().unwrap_or_else(|p| p.into_inner()) = file;
        Ok(())
    }

    /// Appends a line to the log, if one is open: seconds since the Unix epoch, `in` or
    /// `out`, the text.
    pub fn log(&self, direction: &str, text: &str) {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(file) = log.as_mut() {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            let _ = writeln!(file, "{}.{:03} {direction:<3} {}", now.as_secs(), now.subsec_millis(), text.trim_end());
        }
    }
}

/// Byte-level access for output written by others (`bench`), under the same lock.
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.log("out", &String::from_utf8_lossy(buf));
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(buf).inspect_err(|_| self.closed.store(true, Ordering::SeqCst))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.lock().unwrap_or_else(|p| p.into_inner()).flush()
    }
}

/// What the input loop does after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// One UCI conversation: the engine, where its output goes, and how moves are written.
pub struct Session {
    engine: Engine,
    out: Output,
    debug: bool,
    /// `UCI_Chess960`: castling read and written as king takes rook. Shared with the sink,
    /// which writes the search's moves.
    chess960: Arc<AtomicBool>,
    /// `UCI_ShowWDL`, and the material of the position searched (set at each `go`): the sink
    /// adds `wdl` to scores with them.
    show_wdl: Arc<AtomicBool>,
    wdl_material: Arc<AtomicI32>,
}

impl Session {
    pub fn new(out: Output) -> Session {
        let events = out.clone();
        let chess960 = Arc::new(AtomicBool::new(false));
        let notation = Arc::clone(&chess960);
        let (show_wdl, wdl_material) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicI32::new(0)));
        let (wdl_on, material) = (Arc::clone(&show_wdl), Arc::clone(&wdl_material));
        let sink: EventSink = Arc::new(move |event| {
            let wdl = wdl_on.load(Ordering::SeqCst).then(|| material.load(Ordering::SeqCst));
            if let Some(text) = format_event(&event, notation.load(Ordering::SeqCst), wdl) {
                events.line(&text);
            }
        });
        Session { engine: Engine::new(sink), out, debug: false, chess960, show_wdl, wdl_material }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Whether `params` end a search by themselves (not counting `infinite`).
    fn limits_itself(&self, params: &GoParams) -> bool {
        // Either side's clock: with only the other side's, the side to move has no time left.
        let clock = &params.clock;
        params.depth.is_some()
            || params.nodes.is_some()
            || params.mate.is_some()
            || clock.movetime.is_some()
            || clock.wtime.is_some()
            || clock.btime.is_some()
    }

    fn chess960(&self) -> bool {
        self.chess960.load(Ordering::SeqCst)
    }

    /// Handles one line; errors become `info string` lines.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        self.out.log("in", line);
        let result = match parse_command(line) {
            Err(UciError::GarbledGo { understood, problems }) => {
                self.info_string(&UciError::GarbledGo { understood: Box::default(), problems }.to_string());
                let mut params = *understood;
                if !params.infinite && !params.ponder && !self.limits_itself(&params) {
                    // Nothing understood bounds the search (the clock of the side to move
                    // was among the faults): a short search rather than one without end.
                    self.info_string("no limit understood: searching for 1 s");
                    params.clock.movetime = Some(GARBLED_GO_MS);
                }
                self.execute(Command::Go(params))
            }
            Err(e) if parse::command_word(line).as_deref() == Some("position") => {
                // A position the engine never saw must not leave the old one to be played.
                self.engine.reject_position();
                Err(e)
            }
            parsed => parsed.and_then(|cmd| self.execute(cmd)),
        };
        match result {
            Ok(flow) => flow,
            Err(e) => {
                self.info_string(&e.to_string());
                Flow::Continue
            }
        }
    }

    fn info_string(&self, text: &str) {
        // One line per message, whatever the text holds.
        let text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        self.out.line(&format!("info string {text}"));
    }

    /// Carries out a command; the engine keeps its state on error.
    pub fn execute(&mut self, cmd: Command) -> Result<Flow, UciError> {
        match cmd {
            Command::Empty | Command::Register => {}
            Command::Uci => {
                let version = env!("CARGO_PKG_VERSION");
                let id = UciMessage::Id { name: Some(format!("{ENGINE_NAME} {version}")), author: None };
                self.out.line(&id.to_string());
                self.out.line(&UciMessage::Id { name: None, author: Some(ENGINE_AUTHOR.into()) }.to_string());
                for declaration in options::declarations() {
                    self.out.line(&UciMessage::Option(declaration).to_string());
                }
                self.out.line(&UciMessage::UciOk.to_string());
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => self.out.line(&UciMessage::ReadyOk.to_string()),
            Command::UciNewGame => self.engine.new_game(self.chess960()),
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => {
                self.quit();
                return Ok(Flow::Quit);
            }
            Command::SetOption { name, value } => options::set(self, &name, value.as_deref())?,
            Command::Position { start, moves } => {
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                for repair in self.engine.set_position(&start, &moves, self.chess960())? {
                    self.info_string(&format!("FEN repaired: {repair}"));
                }
            }
            Command::Go(mut params) => {
                if !self.engine.has_position() {
                    self.info_string("no position to search: the last position command was rejected");
                }
                // A move of `searchmoves` that is not legal here is reported and left out.
                let pos = self.engine.position();
                let (legal, illegal): (Vec<String>, Vec<String>) =
                    params.searchmoves.drain(..).partition(|m| pos.parse_uci_move(m).is_ok());
                for m in &illegal {
                    self.info_string(&format!("searchmoves: '{m}' is not a legal move here; left out"));
                }
                params.searchmoves = legal;
                for adjustment in params.adjustments() {
                    self.info_string(&format!("go {adjustment}"));
                }
                self.wdl_material.store(crate::wdl::material(pos), Ordering::SeqCst);
                self.engine.go(&params)?
            }
            Command::Perft(depth) => {
                check_depth(depth).map_err(UciError::Perft)?;
                let (out, chess960, debug) = (self.out.clone(), self.chess960(), self.debug);
                // `go perft` counts with the `Hash` and `Threads` of the search.
                let options =
                    PerftOptions { hash_mb: self.engine.options().hash_mb, threads: self.engine.options().threads };
                let control = Arc::new(PerftControl::new());
                let stop = Arc::clone(&control);
                let work = move |pos: &crate::position::Position| {
                    let start = std::time::Instant::now();
                    let counted = divide_with(pos, depth, &options, &control, |m, n| {
                        out.line(&format!("{}: {n}", move_text(m, chess960)));
                    });
                    match counted {
                        Ok(parts) => {
                            out.line("");
                            out.line(&format!("Nodes searched: {}", parts.iter().map(|(_, n)| n).sum::<u64>()));
                            out.line("");
                            if debug {
                                out.line(&format!("info string perft time {} ms", start.elapsed().as_millis()));
                            }
                        }
                        Err(e) => out.line(&format!("info string {e}")),
                    }
                };
                self.engine.run_task(work, Some(Box::new(move || stop.stop())));
            }
            Command::Display => {
                let pos = self.engine.position();
                let checkers: Vec<String> = pos.checkers().iter().map(|(sq, _)| sq.to_string()).collect();
                self.out.line(&format!(
                    "\n{}\nFen: {}\nKey: {:016X}\nCheckers: {}",
                    pos.diagram(),
                    pos.to_fen(),
                    pos.key(),
                    checkers.join(" ")
                ));
            }
            Command::Eval => {
                let v = self.engine.static_eval();
                self.out.line(&format!("Static evaluation: {v:+} cp (White's point of view)"));
            }
            Command::Bench(depth) => {
                crate::bench::check_depth(depth).map_err(UciError::Bench)?;
                let mut out = self.out.clone();
                let control = Arc::new(crate::search::SharedControl::default());
                let stop = Arc::clone(&control);
                let work = move |_: &crate::position::Position| {
                    if let Err(e) = crate::bench::run_controlled(depth, &mut out, &control) {
                        out.line(&format!("info string {}", UciError::Bench(e)));
                    }
                    let _ = out.flush();
                };
                self.engine.run_task(work, Some(Box::new(move || stop.request_stop())));
            }
            Command::Genfens { count, seed, book, extra } => self.genfens(count, seed, book.as_deref(), &extra),
            Command::SpsaInputs if cfg!(feature = "tune") => {
                for line in crate::search::params::spsa_inputs().lines() {
                    self.out.line(line);
                }
            }
            Command::SpsaInputs => {
                self.info_string("spsa-inputs: built without the tune feature, no number is tunable")
            }
            Command::Help => {
                for line in HELP {
                    self.out.line(line);
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// Runs in the input loop, not as a task: OpenBench sends `quit` right after it, and
    /// `quit` must not end it early. Nothing but the positions is printed when all is well.
    fn genfens(&mut self, count: u64, seed: u64, book: Option<&str>, extra: &[String]) {
        if !extra.is_empty() {
            self.info_string(&format!("genfens: ignored '{}'", extra.join(" ")));
        }
        let book = match book.map(crate::genfens::read_book).transpose() {
            Ok(book) => book,
            Err(e) => return self.info_string(&e.to_string()),
        };
        let (book, bad) = book.unwrap_or_default();
        if bad > 0 {
            self.info_string(&format!("genfens: {bad} book lines are not a legal position in play; left out"));
        }
        let out = self.out.clone();
        let made =
            crate::genfens::generate(count, seed, &book, &mut |fen| out.line(&format!("info string genfens {fen}")));
        if let Err(e) = made {
            self.info_string(&e.to_string());
        }
    }

    /// Stops a running search (its best move is still sent) and lets it end; a running task
    /// (`go perft`, `bench`) is let finish, so that its output is complete.
    pub fn quit(&mut self) {
        let _ = self.engine.shutdown(Duration::from_secs(2));
    }
}

/// The UCI loop on stdin/stdout; returns at `quit` or end of input with exit code 0.
pub fn run_stdio() -> Result<i32, String> {
    let mut session = Session::new(Output::new(std::io::stdout()));
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if session.handle_line(&line) == Flow::Quit {
                    return Ok(0);
                }
                if session.out.is_closed() {
                    // Nobody reads any more: a task is stopped, not waited for.
                    session.engine.stop();
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    session.quit();
    Ok(0)
}

/// Runs `lines` as UCI input, then ends as at the end of input: the form
/// `ox88 "genfens 10 seed 3 book None" quit` in which OpenBench calls engines. The lines come
/// all at once, so what ends by itself (`bench`, `perft`, a `go` with a limit) is let finish
/// before the next line, as someone typing them would wait; a `go infinite` still running at
/// the end is stopped, as `quit` stops it.
pub fn run_lines(lines: &[String], out: impl Write + Send + 'static) -> Result<i32, String> {
    let mut session = Session::new(Output::new(out));
    for line in lines {
        let finite = match parse_command(line) {
            Ok(Command::Bench(_) | Command::Perft(_)) => true,
            Ok(Command::Go(p)) => !p.infinite && !p.ponder && session.limits_itself(&p),
            _ => false,
        };
        if session.handle_line(line) == Flow::Quit {
            return Ok(0);
        }
        if finite {
            session.engine.wait();
        }
    }
    session.quit();
    Ok(0)
}

#[cfg(test)]
mod tests;
