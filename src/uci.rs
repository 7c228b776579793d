//! UCI text layer: lines in, [`Command`]s to the [`Engine`] facade, lines out.
//!
//! Parsing is split into a pure [`parse_command`] (text to a typed command, no state) and
//! [`Session::execute`]. `vampirc-uci` 0.11.1 sits behind our own tokeniser, and only where it
//! is right (see `/work/shared/design/uci-expectations.md` §2 for its defects):
//!
//! * We tokenise (`split_whitespace`: any run of spaces, tabs, CR) and check the command word
//!   ourselves as a whole token, so `isreadyx`, `quit now`, `isready stop` are not taken for
//!   `isready`/`quit`. Simple commands are then recognised by `vampirc_uci::parse_one` on the
//!   single normalised token.
//! * `go` is parsed here: vampirc panics on numbers above 255 (`go depth 256`), drops
//!   `ponder`/`infinite`/`movetime` next to clock times, and cannot express `go perft`.
//! * `position` is parsed here: vampirc reads no moves after two spaces, silently truncates at
//!   `0000` or a bad move, drops the `k` of `e7e8k`, and rejects FENs without counters and
//!   Shredder/X-FEN castling. Moves are checked against the legal moves by the engine.
//! * `setoption` name/value splitting is vampirc's on a normalised line, with two covers:
//!   a name starting with `value` (vampirc: Unknown) is split by us, and a bare trailing
//!   `value` means the empty string (vampirc: no value).
//! * `id`, `option`, `uciok`, `readyok` are serialised by vampirc; `info` (it writes
//!   `currmovenum`, and limits depth to u8 and mate to i8) and `bestmove` (no `(none)`, no
//!   Chess960 castling) are written here.

use crate::engine::{Engine, EngineError, Event, EventSink, GoParams, StartPosition};
use crate::engine::{
    DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, MAX_HASH_MB, MAX_MOVE_OVERHEAD_MS, MAX_MULTIPV,
    MAX_THREADS,
};
use crate::mv::Move;
use crate::search::Report;
use crate::value::{Bound, Score};
use std::fmt;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vampirc_uci::{UciMessage, UciOptionConfig};

pub const ENGINE_NAME: &str = "ox88";
pub const ENGINE_AUTHOR: &str = "the ox88 authors";
/// `currmove` lines start after this much search time.
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);

/// A parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Blank line.
    Empty,
    Uci,
    Debug(bool),
    IsReady,
    Register,
    UciNewGame,
    Stop,
    PonderHit,
    Quit,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        start: StartPosition,
        moves: Vec<String>,
    },
    Go(GoParams),
    /// `go perft N` (also `perft N`).
    Perft(u32),
    /// `d`: board diagram, FEN, key, checkers.
    Display,
    /// `eval`: static evaluation.
    Eval,
    /// `bench [depth]`.
    Bench(Option<u32>),
}

/// Everything that can be wrong with an input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciError {
    UnknownCommand(String),
    UnexpectedToken {
        command: &'static str,
        token: String,
    },
    MissingArgument {
        command: &'static str,
        what: &'static str,
    },
    BadNumber {
        keyword: String,
        token: String,
    },
    UnknownOption(String),
    BadOptionValue {
        option: &'static str,
        value: String,
    },
    Engine(EngineError),
    Bench(String),
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::UnknownCommand(s) => write!(f, "unknown command: {s}"),
            UciError::UnexpectedToken { command, token } => {
                write!(f, "{command}: unexpected token '{token}'")
            }
            UciError::MissingArgument { command, what } => write!(f, "{command}: missing {what}"),
            UciError::BadNumber { keyword, token } => {
                write!(f, "{keyword}: '{token}' is not a valid number")
            }
            UciError::UnknownOption(name) => write!(f, "no such option: '{name}'"),
            UciError::BadOptionValue { option, value } => {
                write!(f, "{option}: bad value '{value}'")
            }
            UciError::Engine(e) => write!(f, "{e}"),
            UciError::Bench(e) => write!(f, "bench: {e}"),
        }
    }
}

impl std::error::Error for UciError {}

impl From<EngineError> for UciError {
    fn from(e: EngineError) -> Self {
        UciError::Engine(e)
    }
}

/// Command words; a line starting with unknown tokens is read from the first of these
/// (the spec's "joho debug on" rule).
const COMMAND_WORDS: [&str; 11] = [
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
];

const GO_KEYWORDS: [&str; 13] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

/// Parses one input line; pure (no state, no I/O) and panic-free on any input.
pub fn parse_command(line: &str) -> Result<Command, UciError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    parse_tokens(&tokens).or_else(|e| match e {
        UciError::UnknownCommand(_) => {
            // Skip leading unknown tokens if a known command follows and parses.
            let start = tokens
                .iter()
                .position(|t| COMMAND_WORDS.iter().any(|w| t.eq_ignore_ascii_case(w)));
            match start {
                Some(i) if i > 0 => parse_tokens(&tokens[i..]).map_err(|_| e),
                _ => Err(e),
            }
        }
        other => Err(other),
    })
}

fn parse_tokens(tokens: &[&str]) -> Result<Command, UciError> {
    let Some((first, args)) = tokens.split_first() else {
        return Ok(Command::Empty);
    };
    let word = first.to_ascii_lowercase();
    match word.as_str() {
        "uci" | "isready" | "ucinewgame" | "stop" | "ponderhit" | "quit" => {
            if let Some(extra) = args.first() {
                return Err(UciError::UnexpectedToken {
                    command: command_name(&word),
                    token: extra.to_string(),
                });
            }
            simple_command(&word)
        }
        "debug" => match args {
            [v] if v.eq_ignore_ascii_case("on") || v.eq_ignore_ascii_case("off") => {
                match vampirc_uci::parse_one(&format!("debug {}", v.to_ascii_lowercase())) {
                    UciMessage::Debug(on) => Ok(Command::Debug(on)),
                    _ => Err(UciError::UnknownCommand(tokens.join(" "))),
                }
            }
            [] => Err(UciError::MissingArgument {
                command: "debug",
                what: "on or off",
            }),
            [v, ..] => Err(UciError::UnexpectedToken {
                command: "debug",
                token: v.to_string(),
            }),
        },
        "register" => Ok(Command::Register),
        "setoption" => parse_setoption(args),
        "position" => parse_position(args),
        "go" => parse_go(args),
        "perft" => match args {
            [n] => Ok(Command::Perft(parse_u32("perft", n)?)),
            [] => Err(UciError::MissingArgument {
                command: "perft",
                what: "depth",
            }),
            [_, extra, ..] => Err(UciError::UnexpectedToken {
                command: "perft",
                token: extra.to_string(),
            }),
        },
        "d" => no_args("d", args, Command::Display),
        "eval" => no_args("eval", args, Command::Eval),
        "bench" => match args {
            [] => Ok(Command::Bench(None)),
            [n] => Ok(Command::Bench(Some(parse_u32("bench", n)?))),
            [_, extra, ..] => Err(UciError::UnexpectedToken {
                command: "bench",
                token: extra.to_string(),
            }),
        },
        _ => Err(UciError::UnknownCommand(tokens.join(" "))),
    }
}

fn command_name(word: &str) -> &'static str {
    COMMAND_WORDS
        .iter()
        .find(|w| **w == word)
        .copied()
        .unwrap_or("command")
}

fn no_args(command: &'static str, args: &[&str], cmd: Command) -> Result<Command, UciError> {
    match args.first() {
        None => Ok(cmd),
        Some(t) => Err(UciError::UnexpectedToken {
            command,
            token: t.to_string(),
        }),
    }
}

/// A one-word command, already checked to be exactly that word; vampirc names it.
fn simple_command(word: &str) -> Result<Command, UciError> {
    match vampirc_uci::parse_one(word) {
        UciMessage::Uci => Ok(Command::Uci),
        UciMessage::IsReady => Ok(Command::IsReady),
        UciMessage::UciNewGame => Ok(Command::UciNewGame),
        UciMessage::Stop => Ok(Command::Stop),
        UciMessage::PonderHit => Ok(Command::PonderHit),
        UciMessage::Quit => Ok(Command::Quit),
        _ => Err(UciError::UnknownCommand(word.to_string())),
    }
}

fn parse_setoption(args: &[&str]) -> Result<Command, UciError> {
    match args.first() {
        Some(t) if t.eq_ignore_ascii_case("name") => {}
        Some(t) => {
            return Err(UciError::UnexpectedToken {
                command: "setoption",
                token: t.to_string(),
            })
        }
        None => {
            return Err(UciError::MissingArgument {
                command: "setoption",
                what: "name",
            })
        }
    }
    let rest = &args[1..];
    if rest.is_empty() {
        return Err(UciError::MissingArgument {
            command: "setoption",
            what: "option name",
        });
    }
    let trailing_value =
        rest.len() > 1 && rest.last().is_some_and(|t| t.eq_ignore_ascii_case("value"));
    let normalised = format!("setoption name {}", rest.join(" "));
    match vampirc_uci::parse_one(&normalised) {
        UciMessage::SetOption { name, value } if !name.is_empty() => {
            let value = value.or_else(|| trailing_value.then(String::new));
            Ok(Command::SetOption { name, value })
        }
        // vampirc cannot read a name that starts with "value": split after the first name token.
        _ => {
            let split = rest
                .iter()
                .skip(1)
                .position(|t| t.eq_ignore_ascii_case("value"))
                .map(|i| i + 1);
            let (name, value) = match split {
                Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
                None => (rest.join(" "), None),
            };
            Ok(Command::SetOption { name, value })
        }
    }
}

fn parse_position(args: &[&str]) -> Result<Command, UciError> {
    let Some((kind, rest)) = args.split_first() else {
        return Err(UciError::MissingArgument {
            command: "position",
            what: "startpos or fen",
        });
    };
    let moves_at = rest.iter().position(|t| t.eq_ignore_ascii_case("moves"));
    let (before, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let start = if kind.eq_ignore_ascii_case("startpos") {
        if let Some(t) = before.first() {
            return Err(UciError::UnexpectedToken {
                command: "position",
                token: t.to_string(),
            });
        }
        StartPosition::Startpos
    } else if kind.eq_ignore_ascii_case("fen") {
        if before.is_empty() {
            return Err(UciError::MissingArgument {
                command: "position",
                what: "FEN",
            });
        }
        StartPosition::Fen(before.join(" "))
    } else {
        return Err(UciError::UnexpectedToken {
            command: "position",
            token: kind.to_string(),
        });
    };
    Ok(Command::Position {
        start,
        moves: moves.iter().map(|m| m.to_string()).collect(),
    })
}

/// Reads an integer with an optional sign; values beyond i64 saturate.
fn parse_int(keyword: &str, token: &str) -> Result<i64, UciError> {
    let bad = || UciError::BadNumber {
        keyword: keyword.to_string(),
        token: token.to_string(),
    };
    let (negative, digits) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let mut v: i64 = 0;
    for b in digits.bytes() {
        v = v.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    Ok(if negative { -v } else { v })
}

fn parse_u64(keyword: &str, token: &str) -> Result<u64, UciError> {
    let v = parse_int(keyword, token)?;
    u64::try_from(v).map_err(|_| UciError::BadNumber {
        keyword: keyword.to_string(),
        token: token.to_string(),
    })
}

fn parse_u32(keyword: &str, token: &str) -> Result<u32, UciError> {
    Ok(parse_u64(keyword, token)?.min(u64::from(u32::MAX)) as u32)
}

fn parse_go(args: &[&str]) -> Result<Command, UciError> {
    let mut p = GoParams::default();
    let mut i = 0;
    while let Some(token) = args.get(i) {
        let kw = token.to_ascii_lowercase();
        let value = || {
            args.get(i + 1).copied().ok_or(UciError::MissingArgument {
                command: "go",
                what: "a number",
            })
        };
        match kw.as_str() {
            "infinite" => p.infinite = true,
            "ponder" => p.ponder = true,
            "searchmoves" => {
                let n = args[i + 1..]
                    .iter()
                    .take_while(|t| !GO_KEYWORDS.iter().any(|k| t.eq_ignore_ascii_case(k)))
                    .count();
                if n == 0 {
                    return Err(UciError::MissingArgument {
                        command: "go",
                        what: "moves after searchmoves",
                    });
                }
                p.searchmoves
                    .extend(args[i + 1..i + 1 + n].iter().map(|m| m.to_string()));
                i += n;
            }
            "perft" => {
                if i != 0 || args.len() != 2 {
                    return Err(UciError::UnexpectedToken {
                        command: "go",
                        token: token.to_string(),
                    });
                }
                return Ok(Command::Perft(parse_u32("perft", value()?)?));
            }
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" => {
                let v = Some(parse_int(&kw, value()?)?);
                match kw.as_str() {
                    "wtime" => p.clock.wtime = v,
                    "btime" => p.clock.btime = v,
                    "winc" => p.clock.winc = v,
                    "binc" => p.clock.binc = v,
                    "movestogo" => p.clock.movestogo = v,
                    _ => p.clock.movetime = v,
                }
                i += 1;
            }
            "depth" => {
                p.depth = Some(parse_u32(&kw, value()?)?);
                i += 1;
            }
            "mate" => {
                p.mate = Some(parse_u32(&kw, value()?)?);
                i += 1;
            }
            "nodes" => {
                p.nodes = Some(parse_u64(&kw, value()?)?);
                i += 1;
            }
            _ => {
                return Err(UciError::UnexpectedToken {
                    command: "go",
                    token: token.to_string(),
                })
            }
        }
        i += 1;
    }
    Ok(Command::Go(p))
}

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

fn move_text(m: Move, chess960: bool) -> String {
    m.to_uci(chess960)
}

/// The `bestmove` line: `bestmove (none)` when there is no legal move.
pub fn format_bestmove(best: Option<Move>, ponder: Option<Move>, chess960: bool) -> String {
    match (best, ponder) {
        (None, _) => "bestmove (none)".to_string(),
        (Some(b), None) => format!("bestmove {}", move_text(b, chess960)),
        (Some(b), Some(p)) => format!(
            "bestmove {} ponder {}",
            move_text(b, chess960),
            move_text(p, chess960)
        ),
    }
}

/// The `info` line of a search report, or `None` (a current move in the first second).
pub fn format_report(report: &Report, chess960: bool) -> Option<String> {
    match report {
        Report::Iteration {
            depth,
            seldepth,
            multipv,
            score,
            bound,
            nodes,
            time,
            hashfull,
            pv,
        } => {
            let score = match score {
                Score::Centipawns(cp) => format!("cp {cp}"),
                Score::Mate(m) => format!("mate {m}"),
            };
            let bound = match bound {
                Bound::Exact => "",
                Bound::Lower => " lowerbound",
                Bound::Upper => " upperbound",
            };
            let micros = time.as_micros().max(1);
            let nps = u128::from(*nodes) * 1_000_000 / micros;
            let mut line = format!(
                "info depth {depth} seldepth {seldepth} multipv {multipv} score {score}{bound} nodes {nodes} nps {nps} \
                 hashfull {hashfull} time {}",
                time.as_millis()
            );
            if !pv.is_empty() {
                line.push_str(" pv");
                for m in pv {
                    line.push(' ');
                    line.push_str(&move_text(*m, chess960));
                }
            }
            Some(line)
        }
        Report::CurrentMove {
            depth,
            mv,
            number,
            time,
            ..
        } => (*time >= CURRMOVE_AFTER).then(|| {
            format!(
                "info depth {depth} currmove {} currmovenumber {number}",
                move_text(*mv, chess960)
            )
        }),
    }
}

pub fn format_event(event: &Event) -> Option<String> {
    match event {
        Event::Report { report, chess960 } => format_report(report, *chess960),
        Event::BestMove {
            best,
            ponder,
            chess960,
        } => Some(format_bestmove(*best, *ponder, *chess960)),
    }
}

/// The options ox88 declares, in `uci` order.
pub fn option_declarations() -> Vec<UciOptionConfig> {
    vec![
        UciOptionConfig::Spin {
            name: "Hash".into(),
            default: Some(DEFAULT_HASH_MB as i64),
            min: Some(1),
            max: Some(MAX_HASH_MB as i64),
        },
        UciOptionConfig::Button {
            name: "Clear Hash".into(),
        },
        UciOptionConfig::Spin {
            name: "Threads".into(),
            default: Some(1),
            min: Some(1),
            max: Some(MAX_THREADS as i64),
        },
        UciOptionConfig::Spin {
            name: "MultiPV".into(),
            default: Some(1),
            min: Some(1),
            max: Some(MAX_MULTIPV as i64),
        },
        UciOptionConfig::Check {
            name: "Ponder".into(),
            default: Some(false),
        },
        UciOptionConfig::Spin {
            name: "Move Overhead".into(),
            default: Some(DEFAULT_MOVE_OVERHEAD_MS),
            min: Some(0),
            max: Some(MAX_MOVE_OVERHEAD_MS),
        },
        UciOptionConfig::Check {
            name: "UCI_Chess960".into(),
            default: Some(false),
        },
    ]
}

/// What the input loop does after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// One UCI conversation: the engine and where its output goes.
pub struct Session {
    engine: Engine,
    out: Output,
    debug: bool,
}

impl Session {
    pub fn new(out: Output) -> Session {
        let events = out.clone();
        let sink: EventSink = Arc::new(move |event| {
            if let Some(text) = format_event(&event) {
                events.line(&text);
            }
        });
        Session {
            engine: Engine::new(sink),
            out,
            debug: false,
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
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
        let text: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.out.line(&format!("info string {text}"));
    }

    /// Carries out a command; the engine keeps its state on error.
    pub fn execute(&mut self, cmd: Command) -> Result<Flow, UciError> {
        match cmd {
            Command::Empty | Command::Register => {}
            Command::Uci => {
                let version = env!("CARGO_PKG_VERSION");
                let id = UciMessage::Id {
                    name: Some(format!("{ENGINE_NAME} {version}")),
                    author: None,
                };
                self.out.line(&id.to_string());
                self.out.line(
                    &UciMessage::Id {
                        name: None,
                        author: Some(ENGINE_AUTHOR.into()),
                    }
                    .to_string(),
                );
                for option in option_declarations() {
                    self.out.line(&UciMessage::Option(option).to_string());
                }
                self.out.line(&UciMessage::UciOk.to_string());
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => self.out.line(&UciMessage::ReadyOk.to_string()),
            Command::UciNewGame => self.engine.new_game(),
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => {
                self.quit();
                return Ok(Flow::Quit);
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref())?,
            Command::Position { start, moves } => {
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                self.engine.set_position(&start, &moves)?;
            }
            Command::Go(params) => self.engine.go(&params)?,
            Command::Perft(depth) => {
                let start = std::time::Instant::now();
                let parts = self.engine.perft(depth);
                let chess960 = self.engine.options().chess960;
                for (m, n) in &parts {
                    self.out.line(&format!("{}: {n}", m.to_uci(chess960)));
                }
                self.out.line("");
                self.out.line(&format!(
                    "Nodes searched: {}",
                    parts.iter().map(|(_, n)| n).sum::<u64>()
                ));
                self.out.line("");
                if self.debug {
                    self.info_string(&format!("perft time {} ms", start.elapsed().as_millis()));
                }
            }
            Command::Display => {
                let pos = self.engine.position();
                let checkers: Vec<String> = pos
                    .checkers()
                    .iter()
                    .map(|(sq, _)| sq.to_string())
                    .collect();
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
                self.out.line(&format!(
                    "Static evaluation: {v:+} cp (White's point of view)"
                ));
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

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), UciError> {
        let key = name
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_ascii_lowercase();
        match key.as_str() {
            "hash" => self.engine.set_hash(spin("Hash", value)?)?,
            "clear hash" => self.engine.clear_hash(),
            "threads" => self.engine.set_threads(spin("Threads", value)?)?,
            "multipv" => self.engine.set_multipv(spin("MultiPV", value)?)?,
            "move overhead" => self
                .engine
                .set_move_overhead(spin("Move Overhead", value)?)?,
            "ponder" => self.engine.set_ponder(check("Ponder", value)?),
            "uci_chess960" => self.engine.set_chess960(check("UCI_Chess960", value)?),
            _ => return Err(UciError::UnknownOption(name.to_string())),
        }
        Ok(())
    }

    /// Stops a running search (its best move is still sent) and lets it end.
    pub fn quit(&mut self) {
        let _ = self.engine.shutdown(Duration::from_secs(2));
    }
}

fn spin(option: &'static str, value: Option<&str>) -> Result<i64, UciError> {
    let text = value.unwrap_or("").trim();
    parse_int(option, text).map_err(|_| UciError::BadOptionValue {
        option,
        value: text.to_string(),
    })
}

fn check(option: &'static str, value: Option<&str>) -> Result<bool, UciError> {
    match value.map(str::trim) {
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        v => Err(UciError::BadOptionValue {
            option,
            value: v.unwrap_or("").to_string(),
        }),
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
