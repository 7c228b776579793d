//! Input lines to typed commands: pure (no state, no I/O) and panic-free on any input.
//!
//! `vampirc-uci` 0.11.1 sits behind our own tokeniser, and only where it is right; where it
//! is not, and what is done instead:
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

use crate::engine::{EngineError, GoParams, StartPosition};
use crate::perft::PerftError;
use std::fmt;
use vampirc_uci::UciMessage;

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
    /// `genfens N seed S book <None|FILE> [extra]`: opening positions for OpenBench.
    Genfens {
        count: u64,
        seed: u64,
        book: Option<String>,
        /// Tokens after the known ones, which OpenBench may add; reported and ignored.
        extra: Vec<String>,
    },
    /// `spsa-inputs`: the tunable numbers as OpenBench's SPSA input (`tune` builds).
    SpsaInputs,
    /// `help`: the commands ox88 reads.
    Help,
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
    OutOfRange {
        option: &'static str,
        value: i64,
        min: i64,
        max: i64,
    },
    /// A `go` with faults; `understood` is the rest of it, which is still searched.
    GarbledGo {
        understood: Box<GoParams>,
        problems: Vec<UciError>,
    },
    Engine(EngineError),
    Bench(String),
    Perft(PerftError),
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
            UciError::OutOfRange { option, value, min, max } => {
                write!(f, "{option} must be between {min} and {max}, not {value}")
            }
            UciError::GarbledGo { problems, .. } => {
                let problems: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
                write!(f, "{}; searching with the rest of the command", problems.join("; "))
            }
            UciError::Engine(e) => write!(f, "{e}"),
            UciError::Bench(e) => write!(f, "bench: {e}"),
            UciError::Perft(e) => write!(f, "{e}"),
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
const COMMAND_WORDS: [&str; 11] =
    ["uci", "debug", "isready", "setoption", "register", "ucinewgame", "position", "go", "stop", "ponderhit", "quit"];

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
            let start = tokens.iter().position(|t| COMMAND_WORDS.iter().any(|w| t.eq_ignore_ascii_case(w)));
            match start {
                Some(i) if i > 0 => parse_tokens(&tokens[i..]).map_err(|_| e),
                _ => Err(e),
            }
        }
        other => Err(other),
    })
}

/// The command word a line is read as (the first known one), lower case.
pub fn command_word(line: &str) -> Option<String> {
    line.split_whitespace()
        .find(|t| COMMAND_WORDS.iter().any(|w| t.eq_ignore_ascii_case(w)))
        .map(str::to_ascii_lowercase)
}

fn parse_tokens(tokens: &[&str]) -> Result<Command, UciError> {
    let Some((first, args)) = tokens.split_first() else {
        return Ok(Command::Empty);
    };
    let word = first.to_ascii_lowercase();
    match word.as_str() {
        "uci" | "isready" | "ucinewgame" | "stop" | "ponderhit" | "quit" => {
            if let Some(extra) = args.first() {
                return Err(UciError::UnexpectedToken { command: command_name(&word), token: extra.to_string() });
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
            [] => Err(UciError::MissingArgument { command: "debug", what: "on or off" }),
            [v, ..] => Err(UciError::UnexpectedToken { command: "debug", token: v.to_string() }),
        },
        "register" => Ok(Command::Register),
        "setoption" => parse_setoption(args),
        "position" => parse_position(args),
        "go" => parse_go(args),
        "perft" => match args {
            [n] => Ok(Command::Perft(parse_u32("perft", n)?)),
            [] => Err(UciError::MissingArgument { command: "perft", what: "depth" }),
            [_, extra, ..] => Err(UciError::UnexpectedToken { command: "perft", token: extra.to_string() }),
        },
        "d" => no_args("d", args, Command::Display),
        "eval" => no_args("eval", args, Command::Eval),
        "bench" => match args {
            [] => Ok(Command::Bench(None)),
            [n] => Ok(Command::Bench(Some(parse_u32("bench", n)?))),
            [_, extra, ..] => Err(UciError::UnexpectedToken { command: "bench", token: extra.to_string() }),
        },
        "genfens" => parse_genfens(args),
        "spsa-inputs" => no_args("spsa-inputs", args, Command::SpsaInputs),
        "help" => no_args("help", args, Command::Help),
        _ => Err(UciError::UnknownCommand(tokens.join(" "))),
    }
}

/// Reads `genfens N [seed S] [book None|FILE]`, OpenBench's form; tokens after those are kept
/// as `extra`. Numbers must be whole and fit in 64 bits (no saturation: a seed is an identity).
fn parse_genfens(args: &[&str]) -> Result<Command, UciError> {
    let whole = |keyword: &str, token: &str| {
        token.parse::<u64>().map_err(|_| UciError::BadNumber { keyword: keyword.to_string(), token: token.to_string() })
    };
    let Some((n, mut rest)) = args.split_first() else {
        return Err(UciError::MissingArgument { command: "genfens", what: "the number of positions" });
    };
    let count = whole("genfens", n)?;
    let (mut seed, mut book) = (0, None);
    while let [keyword, tail @ ..] = rest {
        let keyword = keyword.to_ascii_lowercase();
        if keyword != "seed" && keyword != "book" {
            break;
        }
        let Some((value, tail)) = tail.split_first() else {
            return Err(UciError::MissingArgument {
                command: "genfens",
                what: if keyword == "seed" { "a seed" } else { "a book (None or a file)" },
            });
        };
        if keyword == "seed" {
            seed = whole("seed", value)?;
        } else {
            book = (!value.eq_ignore_ascii_case("none")).then(|| value.to_string());
        }
        rest = tail;
    }
    Ok(Command::Genfens { count, seed, book, extra: rest.iter().map(|t| t.to_string()).collect() })
}

fn command_name(word: &str) -> &'static str {
    COMMAND_WORDS.iter().find(|w| **w == word).copied().unwrap_or("command")
}

fn no_args(command: &'static str, args: &[&str], cmd: Command) -> Result<Command, UciError> {
    match args.first() {
        None => Ok(cmd),
        Some(t) => Err(UciError::UnexpectedToken { command, token: t.to_string() }),
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
        Some(t) => return Err(UciError::UnexpectedToken { command: "setoption", token: t.to_string() }),
        None => return Err(UciError::MissingArgument { command: "setoption", what: "name" }),
    }
    let rest = &args[1..];
    if rest.is_empty() {
        return Err(UciError::MissingArgument { command: "setoption", what: "option name" });
    }
    let trailing_value = rest.len() > 1 && rest.last().is_some_and(|t| t.eq_ignore_ascii_case("value"));
    let normalised = format!("setoption name {}", rest.join(" "));
    match vampirc_uci::parse_one(&normalised) {
        UciMessage::SetOption { name, value } if !name.is_empty() => {
            let value = value.or_else(|| trailing_value.then(String::new));
            Ok(Command::SetOption { name, value })
        }
        // vampirc cannot read a name that starts with "value": split after the first name token.
        _ => {
            let split = rest.iter().skip(1).position(|t| t.eq_ignore_ascii_case("value")).map(|i| i + 1);
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
        return Err(UciError::MissingArgument { command: "position", what: "startpos or fen" });
    };
    let moves_at = rest.iter().position(|t| t.eq_ignore_ascii_case("moves"));
    let (before, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let start = if kind.eq_ignore_ascii_case("startpos") {
        if let Some(t) = before.first() {
            return Err(UciError::UnexpectedToken { command: "position", token: t.to_string() });
        }
        StartPosition::Startpos
    } else if kind.eq_ignore_ascii_case("fen") {
        if before.is_empty() {
            return Err(UciError::MissingArgument { command: "position", what: "FEN" });
        }
        StartPosition::Fen(before.join(" "))
    } else {
        return Err(UciError::UnexpectedToken { command: "position", token: kind.to_string() });
    };
    Ok(Command::Position { start, moves: moves.iter().map(|m| m.to_string()).collect() })
}

/// Reads an integer with an optional sign; values beyond i64 saturate.
pub(super) fn parse_int(keyword: &str, token: &str) -> Result<i64, UciError> {
    let bad = || UciError::BadNumber { keyword: keyword.to_string(), token: token.to_string() };
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
    u64::try_from(v).map_err(|_| UciError::BadNumber { keyword: keyword.to_string(), token: token.to_string() })
}

fn parse_u32(keyword: &str, token: &str) -> Result<u32, UciError> {
    Ok(parse_u64(keyword, token)?.min(u64::from(u32::MAX)) as u32)
}

/// Reads `go`. A fault (a bad number, a missing value, a stray token) does not lose the
/// rest: the error carries what was understood ([`UciError::GarbledGo`]), so that the GUI
/// still gets a search and its one `bestmove`.
fn parse_go(args: &[&str]) -> Result<Command, UciError> {
    if args.first().is_some_and(|t| t.eq_ignore_ascii_case("perft")) {
        return match args {
            [_, n] => Ok(Command::Perft(parse_u32("perft", n)?)),
            [_] => Err(UciError::MissingArgument { command: "go", what: "perft depth" }),
            [_, _, extra, ..] => Err(UciError::UnexpectedToken { command: "go", token: extra.to_string() }),
            [] => unreachable!("args has a first token"),
        };
    }
    let is_keyword = |t: &str| GO_KEYWORDS.iter().any(|k| t.eq_ignore_ascii_case(k));
    let mut p = GoParams::default();
    let mut problems = Vec::new();
    let mut i = 0;
    while let Some(token) = args.get(i) {
        let kw = token.to_ascii_lowercase();
        i += 1;
        match kw.as_str() {
            "infinite" => p.infinite = true,
            "ponder" => p.ponder = true,
            "searchmoves" => {
                let n = args[i..].iter().take_while(|t| !is_keyword(t)).count();
                if n == 0 {
                    problems.push(UciError::MissingArgument { command: "go", what: "moves after searchmoves" });
                }
                p.searchmoves.extend(args[i..i + n].iter().map(|m| m.to_string()));
                i += n;
            }
            "perft" => problems.push(UciError::UnexpectedToken { command: "go", token: token.to_string() }),
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "depth" | "mate" | "nodes" => {
                let Some(&text) = args.get(i).filter(|t| !is_keyword(t)) else {
                    problems.push(UciError::MissingArgument { command: "go", what: "a number" });
                    continue;
                };
                i += 1;
                let read = match kw.as_str() {
                    "depth" => parse_u32(&kw, text).map(|v| p.depth = Some(v)),
                    "mate" => parse_u32(&kw, text).map(|v| p.mate = Some(v)),
                    "nodes" => parse_u64(&kw, text).map(|v| p.nodes = Some(v)),
                    _ => parse_int(&kw, text).map(|v| {
                        let field = match kw.as_str() {
                            "wtime" => &mut p.clock.wtime,
                            "btime" => &mut p.clock.btime,
                            "winc" => &mut p.clock.winc,
                            "binc" => &mut p.clock.binc,
                            "movestogo" => &mut p.clock.movestogo,
                            _ => &mut p.clock.movetime,
                        };
                        *field = Some(v);
                    }),
                };
                if let Err(e) = read {
                    problems.push(e);
                }
            }
            _ => problems.push(UciError::UnexpectedToken { command: "go", token: token.to_string() }),
        }
    }
    if problems.is_empty() {
        Ok(Command::Go(p))
    } else {
        Err(UciError::GarbledGo { understood: Box::new(p), problems })
    }
}
