//! The command line: `ox88` alone speaks UCI; subcommands run perft, suites and bench; a
//! first argument that is a UCI command makes every argument a line of UCI input.

mod progress;

use crate::perft::{
    divide, divide_with, parse_suite, perft_controlled, run_suite_with, PerftControl, PerftError, PerftOptions,
};
use crate::position::Position;
use clap::{CommandFactory, Parser, Subcommand};
use progress::{run_with_progress, short_duration, Output};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
const INTERRUPTED: i32 = 130;

/// The commit this binary was built from (`build.rs`), or "unknown".
pub const COMMIT: &str = env!("OX88_COMMIT");
const VERSION_TEXT: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("OX88_COMMIT"), ")");

#[derive(Parser, Debug)]
#[command(
    name = "ox88",
    version = VERSION_TEXT,
    about = "A UCI chess engine on a 0x88 board. With no command it speaks UCI on stdin/stdout.",
    after_help = "UCI lines as arguments: ox88 \"genfens 10 seed 3 book None\" quit runs each argument \
                  as a line of UCI input, then ends (the form OpenBench uses)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal move tree.
    Perft {
        /// Plies to count; it may also come last, after the moves of `--moves`.
        depth: Option<u32>,
        /// Start position (default: the standard start). Read strictly: a castling right
        /// without its rook is an error (the UCI loop mends it with a warning).
        #[arg(long)]
        fen: Option<String>,
        /// Moves (UCI) played first from the start position or --fen: `--moves e2e4 e7e5 4`,
        /// or quoted, `--moves "e2e4 e7e5"`.
        #[arg(long, value_name = "MOVE", num_args = 1.., value_delimiter = ' ', action = clap::ArgAction::Append)]
        moves: Vec<String>,
        /// Print the count under each root move.
        #[arg(long)]
        divide: bool,
        /// Chess960 castling rules, also for X-FEN `KQkq` rights.
        #[arg(long)]
        chess960: bool,
        /// Hash table of subtree counts, in megabytes (0: none). Exact at any size.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1 << 20))]
        hash: u64,
        /// Threads sharing the count (and the table).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
        threads: u64,
    },
    /// Check every position of an EPD (`FEN ;D1 n ;D2 n ...`) or `.perft` file.
    PerftSuite {
        file: String,
        /// Skip checks whose expected count is larger than this.
        #[arg(long, default_value_t = u64::MAX)]
        max_nodes: u64,
        #[arg(long)]
        chess960: bool,
        /// Hash table of subtree counts shared by all positions, in megabytes (0: none).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1 << 20))]
        hash: u64,
        /// Threads, each checking one position at a time (default: every processor).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
        threads: Option<u64>,
    },
    /// perftree-compatible divide: `ox88 perftree <depth> <fen> [moves]`.
    Perftree { depth: u32, fen: String, moves: Option<String> },
    /// Search the fixed bench positions; prints `Nodes searched` and `Nodes/second`.
    Bench {
        /// Search depth of every position.
        #[arg(default_value_t = crate::bench::DEFAULT_DEPTH)]
        depth: u32,
    },
    /// Solve the tactics suite (EPD with bm/am/dm) at a fixed time per position.
    Tactics {
        /// EPD file (default: the suite built into ox88, data/tactics.epd of its source).
        file: Option<String>,
        /// Milliseconds per position.
        #[arg(long, default_value_t = crate::tactics::DEFAULT_MS)]
        ms: u64,
    },
    /// Probe Syzygy tables for each FEN line on stdin: prints `WDL DTZ` per line.
    TbProbe {
        /// Table directories, separated as in `SyzygyPath`.
        #[arg(long)]
        path: String,
    },
}

/// Runs the command line; returns the process exit code.
pub fn run(args: Vec<String>) -> i32 {
    if let Some(lines) = uci_lines(&args) {
        return crate::uci::run_lines(lines, Stdout).unwrap_or(2);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        None => crate::uci::run_stdio(),
        Some(Command::Perft { depth, fen, mut moves, divide, chess960, hash, threads }) => {
            let options = PerftOptions { hash_mb: hash as usize, threads: threads as usize };
            // `--moves` takes every word after it, so a depth written last arrives as a move.
            let depth = depth.or_else(|| {
                let last = moves.last()?.parse().ok()?;
                moves.pop();
                Some(last)
            });
            match depth {
                Some(depth) => cmd_perft(depth, fen, &moves, divide, chess960, &options),
                None => Err("perft: no depth given (ox88 perft DEPTH [--moves M...])".to_string()),
            }
        }
        Some(Command::PerftSuite { file, max_nodes, chess960, hash, threads }) => {
            let threads = threads.map_or_else(available_threads, |t| t as usize);
            cmd_suite(&file, max_nodes, chess960, &PerftOptions { hash_mb: hash as usize, threads })
        }
        Some(Command::Perftree { depth, fen, moves }) => cmd_perftree(depth, &fen, moves.as_deref()),
        Some(Command::Bench { depth }) => crate::bench::run(Some(depth), &mut Stdout),
        Some(Command::Tactics { file, ms }) => crate::tactics::run(file.as_deref(), ms, &mut Stdout),
        Some(Command::TbProbe { path }) => {
            crate::tablebase::probe_lines(&path, std::io::stdin().lock(), &mut Stdout, &mut std::io::stderr())
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// The arguments after the program's name when they are UCI lines: the first is not a
/// subcommand or an option, and reads as a UCI command (`"bench 5"` is one; `bench 5` is the
/// subcommand). A first argument that is neither is left to clap, which reports it.
fn uci_lines(args: &[String]) -> Option<&[String]> {
    let first = args.get(1)?;
    let mut words = first.split_whitespace();
    let word = words.next()?;
    let one_word = words.next().is_none();
    let subcommand = Cli::command().get_subcommands().any(|c| c.get_name() == word) || word == "help";
    if word.starts_with('-') || (one_word && subcommand) {
        return None;
    }
    match crate::uci::parse_command(first) {
        Err(crate::uci::UciError::UnknownCommand(_)) => None,
        _ => Some(&args[1..]),
    }
}

/// Standard output for the subcommands. When the reader has gone (`ox88 perft 5 | head -1`,
/// a GUI that died), the program ends at once with exit code 0: there is no one left to tell.
struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut out = std::io::stdout().lock();
        match out.write_all(buf).and_then(|()| out.flush()) {
            Ok(()) => Ok(buf.len()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Err(e) => Err(e),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn setup(fen: Option<&str>, moves: &[String], chess960: bool) -> Result<Position, String> {
    let fen = fen.unwrap_or(crate::fen::STARTPOS);
    let mut pos = Position::from_fen_with(fen, chess960).map_err(|e| format!("bad FEN '{fen}': {e}"))?;
    for text in moves.iter().flat_map(|m| m.split_whitespace()) {
        let m = pos.parse_uci_move(text).map_err(|e| e.to_string())?;
        pos.make(m);
    }
    Ok(pos)
}

fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A control that Ctrl-C stops (the handler can be set once per process; a second run in
/// the same process keeps the first handler's control, and simply cannot be interrupted).
fn interruptible() -> Arc<PerftControl> {
    let control = Arc::new(PerftControl::new());
    let handle = Arc::clone(&control);
    let _ = ctrlc::set_handler(move || handle.stop());
    control
}

/// `12/20 root moves, 311 M leaves/s, about 4 s left`
fn perft_status(control: &PerftControl, elapsed: Duration, unit: &str) -> String {
    let p = control.progress();
    let rate = p.leaves as f64 / elapsed.as_secs_f64().max(1e-9);
    let eta = if p.tasks_done == 0 {
        "estimating".to_string()
    } else {
        let left = elapsed.as_secs_f64() * (p.tasks - p.tasks_done) as f64 / p.tasks_done as f64;
        format!("about {} left", short_duration(Duration::from_secs_f64(left)))
    };
    format!("{}/{} {unit}, {:.0} M leaves/s, {eta}", p.roots_done, p.roots, rate / 1e6)
}

fn cmd_perft(
    depth: u32,
    fen: Option<String>,
    moves: &[String],
    split: bool,
    chess960: bool,
    options: &PerftOptions,
) -> Result<i32, String> {
    let pos = setup(fen.as_deref(), moves, chess960)?;
    let control = interruptible();
    let start = Instant::now();
    let status = |elapsed| perft_status(&control, elapsed, "root moves");
    let result = run_with_progress(status, |out: &Output| {
        if !split {
            return perft_controlled(&pos, depth, options, &control);
        }
        let parts = divide_with(&pos, depth, options, &control, |m, n| {
            out.line(&format!("{}: {n}", m.to_uci(pos.is_chess960())));
        })?;
        out.line("");
        Ok(if depth == 0 { 1 } else { parts.iter().map(|(_, n)| n).sum() })
    });
    let secs = start.elapsed().as_secs_f64();
    let nodes = match result {
        Ok(nodes) => nodes,
        Err(PerftError::Interrupted) => {
            let done = control.progress();
            eprintln!("interrupted after {secs:.1} s ({} of {} root moves counted)", done.roots_done, done.roots);
            return Ok(INTERRUPTED);
        }
        Err(e) => return Err(e.to_string()),
    };
    let out = Output::plain();
    out.line(&format!("Nodes searched: {nodes}"));
    out.line(&format!("Time: {secs:.3} s"));
    out.line(&format!("Speed: {:.1} Mnps", nodes as f64 / secs.max(1e-9) / 1e6));
    Ok(0)
}

fn cmd_perftree(depth: u32, fen: &str, moves: Option<&str>) -> Result<i32, String> {
    let moves: Vec<String> = moves.map(|m| vec![m.to_string()]).unwrap_or_default();
    let mut pos = setup(Some(fen), &moves, false)?;
    let parts = divide(&mut pos, depth).map_err(|e| e.to_string())?;
    let out = Output::plain();
    for (m, n) in &parts {
        out.line(&format!("{} {n}", m.to_uci(pos.is_chess960())));
    }
    out.line("");
    out.line(&parts.iter().map(|(_, n)| n).sum::<u64>().to_string());
    Ok(0)
}

fn cmd_suite(file: &str, max_nodes: u64, chess960: bool, options: &PerftOptions) -> Result<i32, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let cases = parse_suite(&text).map_err(|e| format!("{file}: {e}"))?;
    let control = interruptible();
    let start = Instant::now();
    let status = |elapsed| perft_status(&control, elapsed, "checks");
    let report =
        run_with_progress(status, |_: &Output| run_suite_with(&cases, max_nodes, chess960, options, &control, |_| {}))
            .map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    let out = Output::plain();
    for m in &report.mismatches {
        out.line(&format!("MISMATCH {} depth {}: expected {}, found {}", m.fen, m.depth, m.expected, m.found));
    }
    for (fen, e) in &report.fen_errors {
        out.line(&format!("BAD FEN {fen}: {e}"));
    }
    if report.interrupted {
        eprintln!("interrupted after {secs:.1} s; the summary covers the checks finished so far");
    }
    out.line(&format!(
        "positions {} checks {} skipped {} nodes {} mismatches {} fen-errors {} time {:.2} s speed {:.1} Mnps \
         threads {} hash {} MB",
        report.positions,
        report.checks,
        report.skipped,
        report.nodes,
        report.mismatches.len(),
        report.fen_errors.len(),
        secs,
        report.nodes as f64 / secs.max(1e-9) / 1e6,
        options.threads,
        options.hash_mb,
    ));
    if report.checks == 0 && !report.interrupted {
        eprintln!("error: no count was checked (no expected counts in {file}, or none within --max-nodes {max_nodes})");
        return Ok(1);
    }
    Ok(if report.interrupted {
        INTERRUPTED
    } else if report.passed() {
        0
    } else {
        1
    })
}
