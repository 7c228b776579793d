//! UCI text layer: lines in, [`Command`]s to the [`Engine`] facade, lines out.
//!
//! [`parse`] turns a line into a typed command (pure: no state, no I/O); a [`Session`]
//! carries it out on the engine; [`options`] is the one table of UCI options; [`format`]
//! writes moves, `info` and `bestmove` lines. The notation of moves (Chess960 or not) is
//! this layer's setting: the engine below deals in moves, not text.

mod format;
mod options;
mod parse;

pub use format::{format_bestmove, format_event, format_report, move_text};
pub use options::{table as option_table, OptionKind, Setting, UciOption};
pub use parse::{parse_command, Command, UciError};

use crate::engine::{Engine, EventSink};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vampirc_uci::UciMessage;

pub const ENGINE_NAME: &str = "ox88";
pub const ENGINE_AUTHOR: &str = "the ox88 authors";

/// Writes whole lines, flushed at once; shared by the input loop and the search thread.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Box::new(w))))
    }

    /// Writes `text` and a newline, then flushes; write errors (a closed pipe) are ignored.
    pub fn line(&self, text: &str) {
        let mut w = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
    }
}

/// Byte-level access for output written by others (`bench`), under the same lock.
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut w = self.0.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).flush()
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
}

impl Session {
    pub fn new(out: Output) -> Session {
        let events = out.clone();
        let chess960 = Arc::new(AtomicBool::new(false));
        let notation = Arc::clone(&chess960);
        let sink: EventSink = Arc::new(move |event| {
            if let Some(text) = format_event(&event, notation.load(Ordering::SeqCst)) {
                events.line(&text);
            }
        });
        Session { engine: Engine::new(sink), out, debug: false, chess960 }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn chess960(&self) -> bool {
        self.chess960.load(Ordering::SeqCst)
    }

    /// Handles one line; errors become `info string` lines.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        match parse_command(line).and_then(|cmd| self.execute(cmd)) {
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
                for option in options::table() {
                    self.out.line(&UciMessage::Option(option.declaration()).to_string());
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
                self.engine.set_position(&start, &moves, self.chess960())?;
            }
            Command::Go(params) => self.engine.go(&params)?,
            Command::Perft(depth) => {
                let start = std::time::Instant::now();
                let parts = self.engine.perft(depth);
                for (m, n) in &parts {
                    self.out.line(&format!("{}: {n}", move_text(*m, self.chess960())));
                }
                self.out.line("");
                self.out.line(&format!("Nodes searched: {}", parts.iter().map(|(_, n)| n).sum::<u64>()));
                self.out.line("");
                if self.debug {
                    self.info_string(&format!("perft time {} ms", start.elapsed().as_millis()));
                }
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
                self.engine.stop();
                self.engine.wait();
                let mut out = self.out.clone();
                crate::bench::run_to(depth, &mut out).map_err(UciError::Bench)?;
                let _ = out.flush();
            }
        }
        Ok(Flow::Continue)
    }

    /// Stops a running search (its best move is still sent) and lets it end.
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
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    session.quit();
    Ok(0)
}

#[cfg(test)]
mod tests;
