//! The command line: `ox88` alone speaks UCI; subcommands run perft, suites and bench.

use crate::perft::{divide, parse_suite, perft, run_suite};
use crate::position::Position;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "ox88",
    version,
    about = "A UCI chess engine on a 0x88 board. With no command it speaks UCI on stdin/stdout."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal move tree.
    Perft {
        depth: u32,
        /// Start position (default: the standard start).
        #[arg(long)]
        fen: Option<String>,
        /// Moves (UCI) to play from the start position first.
        #[arg(long, num_args = 1.., value_delimiter = ' ')]
        moves: Vec<String>,
        /// Print the count under each root move.
        #[arg(long)]
        divide: bool,
        /// Chess960 castling rules, also for X-FEN `KQkq` rights.
        #[arg(long)]
        chess960: bool,
    },
    /// Check every position of an EPD (`FEN ;D1 n ;D2 n ...`) or `.perft` file.
    PerftSuite {
        file: String,
        /// Skip checks whose expected count is larger than this.
        #[arg(long, default_value_t = u64::MAX)]
        max_nodes: u64,
        #[arg(long)]
        chess960: bool,
    },
    /// perftree-compatible divide: `ox88 perftree <depth> <fen> [moves]`.
    Perftree { depth: u32, fen: String, moves: Option<String> },
    /// Search the fixed bench positions; prints `Nodes searched` and `Nodes/second`.
    Bench { depth: Option<u32> },
    /// Solve the tactics suite (EPD with bm/am/dm) at a fixed time per position.
    Tactics {
        /// EPD file (default: data/tactics.epd).
        file: Option<String>,
        /// Milliseconds per position.
        #[arg(long)]
        ms: Option<u64>,
    },
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

/// `println!` through [`Stdout`].
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(Stdout, $($arg)*);
    }};
}

/// Runs the command line; returns the process exit code.
pub fn run(args: Vec<String>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        None => crate::uci::run_stdio(),
        Some(Command::Perft { depth, fen, moves, divide, chess960 }) => cmd_perft(depth, fen, &moves, divide, chess960),
        Some(Command::PerftSuite { file, max_nodes, chess960 }) => cmd_suite(&file, max_nodes, chess960),
        Some(Command::Perftree { depth, fen, moves }) => cmd_perftree(depth, &fen, moves.as_deref()),
        Some(Command::Bench { depth }) => crate::bench::run(depth, &mut Stdout),
        Some(Command::Tactics { file, ms }) => crate::tactics::run(file.as_deref(), ms, &mut Stdout),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
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

fn cmd_perft(depth: u32, fen: Option<String>, moves: &[String], split: bool, chess960: bool) -> Result<i32, String> {
    let mut pos = setup(fen.as_deref(), moves, chess960)?;
    let start = Instant::now();
    let nodes = if split {
        let parts = divide(&mut pos, depth);
        for (m, n) in &parts {
            say!("{}: {n}", m.to_uci(pos.is_chess960()));
        }
        say!("");
        parts.iter().map(|(_, n)| n).sum()
    } else {
        perft(&mut pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    say!("Nodes searched: {nodes}");
    say!("Time: {:.3} s", secs);
    say!("Speed: {:.1} Mnps", nodes as f64 / secs.max(1e-9) / 1e6);
    Ok(0)
}

fn cmd_perftree(depth: u32, fen: &str, moves: Option<&str>) -> Result<i32, String> {
    let moves: Vec<String> = moves.map(|m| vec![m.to_string()]).unwrap_or_default();
    let mut pos = setup(Some(fen), &moves, false)?;
    let parts = divide(&mut pos, depth);
    for (m, n) in &parts {
        say!("{} {n}", m.to_uci(pos.is_chess960()));
    }
    say!("");
    say!("{}", parts.iter().map(|(_, n)| n).sum::<u64>());
    Ok(0)
}

fn cmd_suite(file: &str, max_nodes: u64, chess960: bool) -> Result<i32, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let cases = parse_suite(&text).map_err(|e| format!("{file}: {e}"))?;
    let total: u64 = cases.iter().flat_map(|c| c.expected.iter()).map(|&(_, n)| n).filter(|&n| n <= max_nodes).sum();
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {percent}% nodes, eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    let report = run_suite(&cases, max_nodes, chess960, |n| bar.inc(n));
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    for m in &report.mismatches {
        say!("MISMATCH {} depth {}: expected {}, found {}", m.fen, m.depth, m.expected, m.found);
    }
    for (fen, e) in &report.fen_errors {
        say!("BAD FEN {fen}: {e}");
    }
    say!(
        "positions {} checks {} skipped {} nodes {} mismatches {} fen-errors {} time {:.2} s speed {:.1} Mnps",
        report.positions,
        report.checks,
        report.skipped,
        report.nodes,
        report.mismatches.len(),
        report.fen_errors.len(),
        secs,
        report.nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(if report.passed() { 0 } else { 1 })
}
