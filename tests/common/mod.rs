//! What the integration tests share: the one harness that drives the real `ox88` binary over
//! pipes (every read has a deadline, so a hang fails a test instead of blocking it; every
//! failure prints the conversation so far and what the engine wrote to stderr), and where the
//! data from outside the repository is, for the checks that need it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub const SHORT: Duration = Duration::from_millis(300);
pub const LONG: Duration = Duration::from_secs(10);

/// Serialises the tests that measure time, so that two of them do not load the two cores of a
/// CI machine at once and blame each other's searches.
pub fn timing_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// The engine under test: this crate's binary, or `OX88_BIN` (to run the same tests against
/// another build, e.g. the main branch's, and see which fail there).
pub fn binary() -> String {
    std::env::var("OX88_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ox88").to_string())
}

/// Whether the tests run on CI (`CI=true`, as every hosted CI sets it), where bounds on
/// latency are relaxed: CI machines are shared, and their answers come later.
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// How much wider a bound on latency is on CI.
pub const CI_SLACK: u32 = 2;

/// The loaded-machine relaxation: a bound on how soon ox88 answers, `CI_SLACK` times wider on
/// CI. A bound of wall time that is not relaxed this way fails on a busy machine while the
/// engine is right.
pub fn relaxed(bound: Duration) -> Duration {
    if on_ci() {
        bound * CI_SLACK
    } else {
        bound
    }
}

pub struct Ox88 {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
    pub log: Vec<String>,
    stderr: Arc<Mutex<String>>,
    started: Instant,
}

impl Ox88 {
    pub fn start() -> Ox88 {
        Ox88::start_with(&[])
    }

    /// Starts `ox88 ARGS` with all three streams piped.
    pub fn start_with(args: &[&str]) -> Ox88 {
        let mut child = Command::new(binary())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ox88");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(l) = line else { break };
                if tx.send((Instant::now(), l)).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let mut err = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                sink.lock().unwrap_or_else(|p| p.into_inner()).push_str(&text);
            }
        });
        Ox88 { stdin: child.stdin.take(), child, lines: rx, log: Vec::new(), stderr, started: Instant::now() }
    }

    fn stamp(&self) -> String {
        format!("{:>7.3}", self.started.elapsed().as_secs_f64())
    }

    /// Writes a line; returns the moment it was written (flushed).
    pub fn send(&mut self, line: &str) -> Instant {
        self.log.push(format!("{} > {line}", self.stamp()));
        let ok = self.try_send_raw(format!("{line}\n").as_bytes());
        if !ok {
            self.fail(&format!("cannot write '{line}': ox88 closed its input"));
        }
        Instant::now()
    }

    /// Writes a line; the moment it was written, or `None` if the engine's input is closed.
    pub fn try_send(&mut self, line: &str) -> Option<Instant> {
        self.log.push(format!("{} > {line}", self.stamp()));
        self.try_send_raw(format!("{line}\n").as_bytes()).then(Instant::now)
    }

    /// Writes bytes as they are (no newline added); fails if the engine's input is closed.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.log.push(format!("{} > {:?} (raw)", self.stamp(), String::from_utf8_lossy(bytes)));
        if !self.try_send_raw(bytes) {
            self.fail("cannot write raw bytes: ox88 closed its input");
        }
    }

    /// Writes bytes as they are; false if the pipe is closed.
    pub fn try_send_raw(&mut self, bytes: &[u8]) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        stdin.write_all(bytes).is_ok() && stdin.flush().is_ok()
    }

    /// Closes the engine's input (end of file).
    pub fn close_stdin(&mut self) {
        self.log.push(format!("{} > (end of input)", self.stamp()));
        self.stdin = None;
    }

    /// The next output line and when it was read, or `None` at the deadline or end of output.
    pub fn next_timed(&mut self, deadline: Instant) -> Option<(Instant, String)> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok((t, l)) => {
                let at = t.duration_since(self.started).as_secs_f64();
                self.log.push(format!("{at:>7.3} < {l}"));
                Some((t, l))
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    pub fn next_line(&mut self, deadline: Instant) -> Option<String> {
        self.next_timed(deadline).map(|(_, l)| l)
    }

    /// Lines up to and including the first one matching `pred`, or `Err` with the lines so
    /// far after `timeout`.
    pub fn try_until(&mut self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Result<Vec<String>, Vec<String>> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        while let Some(l) = self.next_line(deadline) {
            let done = pred(&l);
            got.push(l);
            if done {
                return Ok(got);
            }
        }
        Err(got)
    }

    /// All lines up to and including the first one matching `pred`; fails after `timeout`.
    pub fn until(&mut self, timeout: Duration, what: &str, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            match self.next_line(deadline) {
                Some(l) => {
                    let done = pred(&l);
                    got.push(l);
                    if done {
                        return got;
                    }
                }
                None => self.fail(&format!("no {what} within {timeout:?}")),
            }
        }
    }

    /// The first line starting with `prefix` and when it was read; `None` after `timeout`.
    pub fn wait_for(&mut self, timeout: Duration, prefix: &str) -> Option<(Instant, String)> {
        let deadline = Instant::now() + timeout;
        loop {
            let (t, l) = self.next_timed(deadline)?;
            if l.starts_with(prefix) {
                return Some((t, l));
            }
        }
    }

    pub fn expect(&mut self, timeout: Duration, prefix: &str) -> String {
        self.until(timeout, prefix, |l| l.starts_with(prefix)).pop().unwrap_or_default()
    }

    pub fn bestmove(&mut self, timeout: Duration) -> String {
        self.expect(timeout, "bestmove")
    }

    /// The lines of a search up to its `bestmove` (the last line).
    pub fn search_lines(&mut self, timeout: Duration) -> Vec<String> {
        self.until(timeout, "bestmove", |l| l.starts_with("bestmove"))
    }

    /// Lines that arrive within `d`.
    pub fn quiet_for(&mut self, d: Duration) -> Vec<String> {
        let deadline = Instant::now() + d;
        let mut got = Vec::new();
        while let Some(l) = self.next_line(deadline) {
            got.push(l);
        }
        got
    }

    pub fn assert_no_bestmove_for(&mut self, d: Duration, why: &str) {
        let got = self.quiet_for(d);
        if got.iter().any(|l| l.starts_with("bestmove")) {
            self.fail(&format!("premature bestmove ({why})"));
        }
    }

    pub fn ready(&mut self) {
        self.send("isready");
        self.expect(LONG, "readyok");
    }

    /// The FEN the engine reports with `d`.
    pub fn fen(&mut self) -> String {
        self.send("d");
        self.expect(LONG, "Fen: ").trim_start_matches("Fen: ").to_string()
    }

    /// What the engine wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Fails if the process has exited or has written a panic message.
    pub fn assert_healthy(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            self.fail(&format!("ox88 exited: {status}"));
        }
        let err = self.stderr();
        if err.contains("panicked") {
            self.fail("panic message on stderr");
        }
    }

    /// Waits for the process to exit; its code, or `None` after `within`.
    pub fn wait_exit(&mut self, within: Duration) -> Option<i32> {
        wait_for_exit(&mut self.child, within)
    }

    /// Sends `quit` (or closes the input) and returns the exit code; fails if ox88 does not exit.
    pub fn finish(mut self, quit: bool, within: Duration) -> i32 {
        if quit {
            self.send("quit");
        }
        self.close_stdin();
        match self.wait_exit(within) {
            Some(code) => code,
            None => self.fail(&format!("ox88 did not exit within {within:?}")),
        }
    }

    /// Fails the test with `what`, the conversation and stderr.
    pub fn fail(&self, what: &str) -> ! {
        panic!("{what}\n--- conversation:\n{}\n--- stderr:\n{}", self.log.join("\n"), self.stderr())
    }
}

impl Drop for Ox88 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `child` to exit; its code (-1 for a signal), or `None` after `within`.
pub fn wait_for_exit(child: &mut Child, within: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status.code().unwrap_or(-1));
        }
        if start.elapsed() > within {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The legal moves of `fen` (read in the given Chess960 mode) as ox88 writes them in that mode.
pub fn legal_moves_of(fen: &str, chess960: bool) -> Vec<String> {
    let pos = ox88::Position::from_fen_with(fen, chess960).expect("fen");
    pos.legal_moves().iter().map(|m| m.to_uci(chess960)).collect()
}

/// The move of a `bestmove` line (`bestmove e2e4 ponder e7e5` gives `e2e4`).
pub fn bestmove_of(line: &str) -> &str {
    line.split_whitespace().nth(1).unwrap_or("")
}

/// A score as an `info` line gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i64),
    Mate(i64),
}

/// Depth and score of the last `info depth … score …` line (bounds excluded).
pub fn last_score(lines: &[String]) -> Option<(u32, Score)> {
    lines.iter().rev().find_map(|l| {
        let t: Vec<&str> = l.split_whitespace().collect();
        if t.first() != Some(&"info") || l.contains("bound") {
            return None;
        }
        let at = |k: &str| t.iter().position(|x| *x == k);
        let depth = t.get(at("depth")? + 1)?.parse().ok()?;
        let s = at("score")?;
        let v: i64 = t.get(s + 2)?.parse().ok()?;
        match *t.get(s + 1)? {
            "cp" => Some((depth, Score::Cp(v))),
            "mate" => Some((depth, Score::Mate(v))),
            _ => None,
        }
    })
}

pub fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

// --- data from outside the repository -------------------------------------------------------

/// A check that needs data from outside the repository: the test `test` of `tests/<target>.rs`,
/// which reads `needs` inside the data folder.
#[derive(Clone, Copy, Debug)]
pub struct ExternalCheck {
    pub target: &'static str,
    pub test: &'static str,
    pub needs: &'static str,
}

const fn check(target: &'static str, test: &'static str, needs: &'static str) -> ExternalCheck {
    ExternalCheck { target, test, needs }
}

const TABLES: &str = "syzygy/KQvK.rtbw";

/// Every check that reads the external data folder. A check asks for its data through
/// [`external`], which refuses a check missing here, and `tests/external_data.rs` reports on
/// this same list, so that what is skipped cannot differ from what is reported.
pub const EXTERNAL_CHECKS: &[ExternalCheck] = &[
    check("perft", "shared_perftsuite", "perft/perftsuite.epd"),
    check("perft", "shared_ethereal_standard", "perft/ethereal-standard.epd"),
    check("perft", "shared_ethereal_fischer", "perft/ethereal-fischer.epd"),
    check("perft", "shared_python_chess_tricky", "perft/python-chess-tricky.perft"),
    check("perft_hashed", "shared_suites", "perft"),
    check("syzygy", "tables_raise_tbhits_and_show_a_tablebase_win", TABLES),
    check("syzygy", "empty_switches_the_tables_off", TABLES),
    check("syzygy", "the_probe_limit_decides_which_positions_are_probed", TABLES),
    check("syzygy", "several_directories_are_all_read", TABLES),
    check("syzygy", "corrupt_tables_do_not_crash_the_engine", TABLES),
    check("syzygy", "win_kqk", TABLES),
    check("syzygy", "win_krk", TABLES),
    check("syzygy", "win_kpk", TABLES),
    check("syzygy", "win_kbnk", TABLES),
    check("syzygy", "win_kbnk_wrong_corner", TABLES),
    check("syzygy", "win_kqkr", TABLES),
    check("syzygy", "win_krkp", TABLES),
    check("syzygy", "win_kpkp", TABLES),
    check("syzygy", "loss_kpk_black_promotes", TABLES),
    check("syzygy", "draw_krkr", TABLES),
    check("syzygy", "draw_kbkp", TABLES),
    check("syzygy", "draw_kpk", TABLES),
    check("syzygy", "draw_krkb", TABLES),
    check("syzygy", "draw_kqkq", TABLES),
    check("syzygy", "draw_krkp", TABLES),
    check("syzygy", "a_sure_win_takes_the_shortest_route", TABLES),
];

/// The external data folder: the one `OX88_DATA` names, else `../shared` beside the checkout.
/// `Err` says why there is none.
pub fn external_data() -> Result<std::path::PathBuf, String> {
    match std::env::var_os("OX88_DATA").filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = std::path::PathBuf::from(dir);
            if dir.is_dir() {
                Ok(dir)
            } else {
                Err(format!("OX88_DATA={} is not a directory", dir.display()))
            }
        }
        None => {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
            if dir.is_dir() {
                Ok(dir)
            } else {
                Err(format!("OX88_DATA is unset and {} does not exist", dir.display()))
            }
        }
    }
}

/// Whether `OX88_REQUIRE_DATA` asks for every external check to run (`1` or `true`), as the
/// project's own CI (`.ci/run`) does. `CI=true` alone does not: a fork's hosted CI has no data
/// folder, and its run passes, naming what it skipped.
pub fn data_demanded() -> bool {
    std::env::var("OX88_REQUIRE_DATA").is_ok_and(|v| v == "1" || v == "true")
}

/// Whether `OX88_DATA` is set but names no folder (a typo must not turn checks into skips).
pub fn data_folder_mistyped() -> bool {
    std::env::var_os("OX88_DATA").is_some_and(|v| !v.is_empty() && !std::path::Path::new(&v).is_dir())
}

/// Whether missing data fails rather than skips: when [`data_demanded`], so that such a run
/// cannot pass by checking nothing, and when [`data_folder_mistyped`].
pub fn data_required() -> bool {
    data_demanded() || data_folder_mistyped()
}

impl ExternalCheck {
    /// `target::test`.
    pub fn name(&self) -> String {
        format!("{}::{}", self.target, self.test)
    }

    /// The path of the data this check reads, or `Err` with why it is not there.
    pub fn data(&self) -> Result<std::path::PathBuf, String> {
        let dir = external_data()?;
        let path = dir.join(self.needs);
        if path.exists() {
            Ok(path)
        } else {
            Err(format!("{} does not exist", path.display()))
        }
    }
}

/// The data of the external check `target::test` (see [`EXTERNAL_CHECKS`]), or `None` when it
/// is missing and may be skipped; the test then returns having checked nothing, and
/// `external_data_summary` names it. Missing data fails when [`data_required`].
pub fn external(target: &str, test: &str) -> Option<std::path::PathBuf> {
    let Some(check) = EXTERNAL_CHECKS.iter().find(|c| c.target == target && c.test == test) else {
        panic!("{target}::{test} reads external data but is not listed in tests/common's EXTERNAL_CHECKS");
    };
    match check.data() {
        Ok(path) => Some(path),
        Err(why) if data_required() => {
            panic!(
                "{}: its data is missing: {why} (with OX88_REQUIRE_DATA=1, or OX88_DATA naming no folder, missing data fails)",
                check.name()
            )
        }
        Err(why) => {
            eprintln!("SKIPPED {}: {why}", check.name());
            None
        }
    }
}
