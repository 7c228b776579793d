//! `stop` latency of a UCI engine: the time from writing `stop` to reading `bestmove`, after
//! `go infinite` has searched for a while, at several thread counts.
//!
//! ```text
//! cargo run --release --example stop_latency -- [ENGINE] [--trials N] [--threads 1,2,256] [--search-ms MS]
//! ```
//!
//! ENGINE defaults to `target/release/ox88`. For each thread count one engine process runs N
//! trials (default 20) and a line gives the median, the worst and the first trial (which
//! includes starting the helper threads), in milliseconds.

use clap::Parser;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "Time from `stop` to `bestmove` of a UCI engine, at several thread counts")]
struct Args {
    /// The engine to start.
    #[arg(default_value = "target/release/ox88")]
    engine: String,
    /// Trials per thread count.
    #[arg(long, default_value_t = 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    trials: usize,
    /// Thread counts, separated by commas.
    #[arg(long, value_delimiter = ',', default_value = "1,2,256")]
    threads: Vec<usize>,
    /// How long `go infinite` searches before `stop`.
    #[arg(long, default_value_t = 200)]
    search_ms: u64,
}

struct Engine {
    child: std::process::Child,
    input: std::process::ChildStdin,
    lines: Receiver<(Instant, String)>,
}

impl Engine {
    fn start(path: &str) -> Result<Engine, String> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {path}: {e}"))?;
        let input = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Ok(Engine { child, input, lines })
    }

    fn send(&mut self, line: &str) -> Result<Instant, String> {
        writeln!(self.input, "{line}").and_then(|_| self.input.flush()).map_err(|e| format!("write '{line}': {e}"))?;
        Ok(Instant::now())
    }

    /// When the first line starting with `prefix` was read.
    fn wait_for(&mut self, prefix: &str, limit: Duration) -> Result<Instant, String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((t, l)) if l.starts_with(prefix) => return Ok(t),
                Ok(_) => {}
                Err(_) => return Err(format!("no '{prefix}' within {limit:?}")),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn measure(path: &str, threads: usize, trials: usize, search: Duration) -> Result<Vec<Duration>, String> {
    let mut e = Engine::start(path)?;
    e.send("uci")?;
    e.wait_for("uciok", Duration::from_secs(10))?;
    e.send(&format!("setoption name Threads value {threads}"))?;
    e.send("isready")?;
    e.wait_for("readyok", Duration::from_secs(60))?;
    let mut out = Vec::with_capacity(trials);
    for _ in 0..trials {
        e.send("position startpos moves e2e4 e7e5 g1f3")?;
        e.send("go infinite")?;
        std::thread::sleep(search);
        let sent = e.send("stop")?;
        let got = e.wait_for("bestmove", Duration::from_secs(120))?;
        out.push(got.duration_since(sent));
    }
    Ok(out)
}

fn run() -> Result<(), String> {
    let Args { engine: path, trials, threads, search_ms } = Args::parse();
    println!("engine {path}, {trials} trials per thread count, stop after {search_ms} ms of go infinite");
    for t in threads {
        let lat = measure(&path, t, trials, Duration::from_millis(search_ms))?;
        let first = lat[0];
        let mut sorted = lat.clone();
        sorted.sort();
        let median = sorted[sorted.len() / 2];
        let worst = sorted[sorted.len() - 1];
        println!(
            "threads {t:>3}: median {:8.2} ms  worst {:8.2} ms  first {:8.2} ms",
            ms(median),
            ms(worst),
            ms(first)
        );
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("stop_latency: {e}");
        std::process::exit(2);
    }
}
