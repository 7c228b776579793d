//! Training data from ox88's own games, written as 32-byte records (`src/packed.rs`).
//!
//! ox88 plays itself at a fixed node budget per move, so a game is the same on a loaded
//! machine as on an idle one. Game `i` opens with 8 or 9 uniformly random legal plies from the
//! start position (or from line `i mod L` of `--book`, then `--random-plies`), drawn from a
//! generator seeded by `--seed` and `i`; an opening a short search scores beyond
//! `--max-opening-score` for either side is drawn again. Every game starts with a cleared
//! search and a small hash, so game `i` is the same whichever thread plays it and whenever.
//!
//! Games end by mate, stalemate, threefold repetition, the fifty-move rule, insufficient
//! material, a win adjudicated when the score stays beyond `WIN_SCORE` for the same side
//! `WIN_PLIES` plies, a draw adjudicated when it stays within `DRAW_SCORE` for `DRAW_PLIES`
//! plies from ply `DRAW_FROM`, or a draw at `MAX_PLIES`. Every position searched is kept:
//! trainers filter (in check, a capture or promotion played, the first plies).
//!
//! A chunk is `NAME.bin` (the records, games whole and in index order, the last record of a
//! game flagged) and `NAME.info` (what made it: engine, network, settings, games and
//! positions so far). Ctrl-C or `kill` stops a run; the same command resumes after the last
//! whole game. A chunk made by another engine or with other settings is refused.
//!
//! `cargo run --release --example datagen -- DIR/NAME --games N --nodes N --threads T --seed S`
//! `cargo run --release --example datagen -- --list DIR`

#[path = "selfplay.rs"]
mod selfplay;

use clap::Parser;
use ox88::genfens::{random_opening, Plies, OPENING_NODES};
use ox88::packed::{Annotation, GameResult, Record, MATE_BASE, RECORD_BYTES};
use ox88::rng::SplitMix64;
use ox88::search::{insufficient_material, Report, SearchLimits, Searcher, SharedControl};
use ox88::value::Score;
use ox88::{Color, Move, Position};
use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WIN_SCORE: i32 = 1_000;
const WIN_PLIES: u32 = 4;
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: u32 = 12;
const DRAW_FROM: usize = 80;
const MAX_PLIES: usize = 400;
/// A mate score written as centipawns, for adjudication.
const MATE_CP: i32 = 30_000;
const HASH_MB: usize = 8;
const PROGRESS_EVERY: Duration = Duration::from_secs(30);
/// The searched positions of a game the trainers drop first (their default `--skip-plies`).
const LIGHT_PLIES: usize = selfplay::SKIP_PLIES;

#[derive(Parser)]
#[command(about = "Self-play training data: ox88 plays itself at a fixed node budget per move")]
struct Args {
    /// The chunk: records go to CHUNK.bin, its description to CHUNK.info.
    #[arg(required_unless_present = "list")]
    chunk: Option<PathBuf>,
    /// Print a table of the chunks in this folder and stop.
    #[arg(long, value_name = "DIR")]
    list: Option<PathBuf>,
    #[arg(long, default_value_t = 10_000)]
    games: usize,
    /// Nodes searched per move (with `--soft-nodes`, the most a move may take).
    #[arg(long, default_value_t = 6_000)]
    nodes: u64,
    /// End each move's search after the first completed iteration that reaches this many
    /// nodes, `--nodes` capping it: no nodes spent on an iteration cut off half-way.
    #[arg(long)]
    soft_nodes: Option<u64>,
    /// Search the positions the trainers drop by default (a game's first `LIGHT_PLIES`
    /// searched positions, and those in check) at 1/K of the budgets above: their search only
    /// picks the move and feeds adjudication.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    lighter: u64,
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start game i from line i mod L of this EPD file instead of the start position.
    #[arg(long)]
    book: Option<PathBuf>,
    /// Random plies after the opening position (default: 8 or 9 from the start position,
    /// 2 after a book line).
    #[arg(long)]
    random_plies: Option<usize>,
    /// Openings scored beyond this (centipawns, either side) are drawn again.
    #[arg(long, default_value_t = 200)]
    max_opening_score: i32,
}

/// One search at the node budget (divided by `divisor`): the move and the score from the side
/// to move's view.
fn search(searcher: &mut Searcher, pos: &Position, keys: &[u64], args: &Args, divisor: u64) -> (Option<Move>, Score) {
    let nodes = Some((args.nodes / divisor).max(1));
    let soft_nodes = args.soft_nodes.map(|s| (s / divisor).max(1));
    let limits = SearchLimits { nodes, soft_nodes, multipv: 1, ..Default::default() };
    let control = SharedControl::default();
    let mut score = Score::Centipawns(0);
    let outcome = searcher.search(pos, keys, &limits, &control, &mut |r| {
        if let Report::Iteration { score: s, multipv: 1, .. } = r {
            score = s;
        }
    });
    (outcome.best, score)
}

fn centipawns(score: Score) -> i32 {
    match score {
        Score::Centipawns(cp) => cp,
        Score::Mate(n) if n > 0 => MATE_CP,
        Score::Mate(_) => -MATE_CP,
    }
}

/// The score as stored: centipawns clamped below the mate range, or `±(MATE_BASE - n)`.
fn stored(score: Score) -> i16 {
    match score {
        Score::Centipawns(cp) => cp.clamp(-30_000, 30_000) as i16,
        Score::Mate(n) if n > 0 => MATE_BASE - n.min(900) as i16,
        Score::Mate(n) => -(MATE_BASE - n.unsigned_abs().min(900) as i16),
    }
}

/// How games open.
struct Openings {
    book: Vec<Position>,
    plies: Option<usize>,
    max_score: i32,
}

impl Openings {
    fn opening(&self, index: usize, rng: &mut SplitMix64, searcher: &mut Searcher) -> Position {
        let start =
            if self.book.is_empty() { Position::startpos() } else { self.book[index % self.book.len()].clone() };
        let plies = match (self.plies, self.book.is_empty()) {
            (Some(p), _) => Plies::Exactly(p),
            (None, true) => Plies::EightOrNine,
            (None, false) => Plies::Exactly(2),
        };
        random_opening(&start, plies, self.max_score, rng, searcher).unwrap_or(start)
    }
}

/// Plays game `index`; returns its records, or `None` if `stop` was raised during the game.
fn play(index: usize, args: &Args, openings: &Openings, searcher: &mut Searcher, stop: &AtomicBool) -> Option<Vec<u8>> {
    let mut rng = SplitMix64::for_index(args.seed, index as u64);
    let mut pos = openings.opening(index, &mut rng, searcher);
    searcher.clear();
    let mut keys = vec![pos.key()];
    let mut records: Vec<(Position, i16, Move)> = Vec::new();
    let mut winning = [0u32; 2];
    let mut drawn = 0u32;
    let mut result = GameResult::Draw;
    for _ in 0..MAX_PLIES {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let white = pos.side_to_move() == Color::White;
        if pos.legal_moves().is_empty() {
            if pos.in_check() {
                result = if white { GameResult::BlackWins } else { GameResult::WhiteWins };
            }
            break;
        }
        let repeated = keys.iter().filter(|&&k| k == pos.key()).count() >= 3;
        if repeated || pos.halfmove_clock() >= 100 || insufficient_material(&pos) {
            break;
        }
        let dropped = records.len() < LIGHT_PLIES || pos.in_check();
        let (best, score) = search(searcher, &pos, &keys, args, if dropped { args.lighter } else { 1 });
        let Some(best) = best else { break };
        let cp = if white { centipawns(score) } else { -centipawns(score) };
        winning = match (cp > WIN_SCORE, cp < -WIN_SCORE) {
            (true, _) => [winning[0] + 1, 0],
            (_, true) => [0, winning[1] + 1],
            _ => [0, 0],
        };
        drawn = if cp.abs() <= DRAW_SCORE && records.len() >= DRAW_FROM { drawn + 1 } else { 0 };
        let white_score = if white { stored(score) } else { -stored(score) };
        records.push((pos.clone(), white_score, best));
        if winning[0] >= WIN_PLIES {
            result = GameResult::WhiteWins;
            break;
        }
        if winning[1] >= WIN_PLIES {
            result = GameResult::BlackWins;
            break;
        }
        if drawn >= DRAW_PLIES {
            break;
        }
        pos.make(best);
        keys.push(pos.key());
    }
    let mut bytes = Vec::with_capacity(records.len() * RECORD_BYTES);
    let last = records.len().saturating_sub(1);
    for (ply, (p, score_white, played)) in records.iter().enumerate() {
        let a = Annotation { score_white: *score_white, result, played: *played, ply, last_of_game: ply == last };
        bytes.extend_from_slice(Record::pack(p, &a).as_bytes());
    }
    Some(bytes)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// The lines of `.info` that a resumed run must match: what decides the games.
fn settings(args: &Args, book_text: Option<&str>, bench: u64) -> Vec<String> {
    let openings = match book_text {
        None => format!(
            "{} random plies from the start position",
            args.random_plies.map_or("8-9".into(), |p| p.to_string())
        ),
        Some(text) => {
            format!("book fnv1a {:016x}, then {} random plies", fnv1a(text.as_bytes()), args.random_plies.unwrap_or(2))
        }
    };
    let mut lines = vec![
        format!("engine: bench {bench}, network fnv1a {:016x}", fnv1a(ox88::nnue::EMBEDDED)),
        format!("nodes: {}", args.nodes),
        format!("seed: {}", args.seed),
        format!("openings: {openings}, redrawn beyond {} cp at {OPENING_NODES} nodes", args.max_opening_score),
        format!(
            "adjudication: win beyond {WIN_SCORE} cp for {WIN_PLIES} plies; draw within {DRAW_SCORE} cp for \
             {DRAW_PLIES} plies after {DRAW_FROM}; draw at {MAX_PLIES} plies; hash {HASH_MB} MB cleared per game"
        ),
    ];
    // Only when given, so that chunks made without it resume as before.
    if let Some(soft) = args.soft_nodes {
        lines.push(format!("soft nodes: {soft}"));
    }
    if args.lighter > 1 {
        lines.push(format!(
            "lighter: 1/{} of the nodes for the first {LIGHT_PLIES} positions and those in check",
            args.lighter
        ));
    }
    lines
}

fn info_path(chunk: &Path) -> PathBuf {
    chunk.with_extension("info")
}

fn bin_path(chunk: &Path) -> PathBuf {
    chunk.with_extension("bin")
}

fn write_info(chunk: &Path, settings: &[String], planned: usize, games: usize, positions: usize) -> Result<(), String> {
    let mut text =
        String::from("# ox88 self-play chunk: tools/datagen.rs; records in the .bin beside it, 32 bytes each\n");
    text.push_str(&format!("version: ox88 {} ({})\n", env!("CARGO_PKG_VERSION"), ox88::cli::COMMIT));
    for s in settings {
        text.push_str(s);
        text.push('\n');
    }
    text.push_str(&format!("games planned: {planned}\ngames: {games}\npositions: {positions}\n"));
    let path = info_path(chunk);
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Opens the chunk's records for appending, cut back to the last whole game; checks an
/// existing chunk's settings. Returns the file, the games and the positions already there.
fn open_chunk(chunk: &Path, settings: &[String]) -> Result<(std::fs::File, usize, usize), String> {
    if let Ok(info) = std::fs::read_to_string(info_path(chunk)) {
        for s in settings {
            if !info.lines().any(|l| l == s) {
                return Err(format!("{} was made otherwise: it lacks\n  {s}", info_path(chunk).display()));
            }
        }
        if let Some(extra) = info.lines().find(|l| l.starts_with("soft nodes:") && !settings.iter().any(|s| s == l)) {
            return Err(format!("{} was made otherwise, with\n  {extra}", info_path(chunk).display()));
        }
    }
    let path = bin_path(chunk);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (mut games, mut keep) = (0, 0);
    for (i, r) in bytes.chunks_exact(RECORD_BYTES).enumerate() {
        if Record::from_bytes(r.try_into().expect("32 bytes")).is_last_of_game() {
            games += 1;
            keep = (i + 1) * RECORD_BYTES;
        }
    }
    if keep < bytes.len() {
        eprintln!("{}: cutting {} bytes of an unfinished game", path.display(), bytes.len() - keep);
    }
    file.set_len(keep as u64).map_err(|e| format!("cannot truncate {}: {e}", path.display()))?;
    file.seek(std::io::SeekFrom::End(0)).map_err(|e| format!("cannot seek {}: {e}", path.display()))?;
    Ok((file, games, keep / RECORD_BYTES))
}

fn duration_text(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
}

fn list(dir: &Path) -> Result<(), String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "info"))
        .collect();
    entries.sort();
    let (mut games, mut positions) = (0usize, 0usize);
    for p in &entries {
        let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        let field = |key: &str| text.lines().find_map(|l| l.strip_prefix(key)).unwrap_or("?").trim().to_string();
        let (g, n) = (field("games:"), field("positions:"));
        games += g.parse::<usize>().unwrap_or(0);
        positions += n.parse::<usize>().unwrap_or(0);
        println!(
            "{:<24} games {:>8}  positions {:>10}  nodes {:>6}  seed {:>4}  {}  {}",
            p.file_stem().unwrap_or_default().to_string_lossy(),
            g,
            n,
            field("nodes:"),
            field("seed:"),
            field("version:"),
            field("engine:")
        );
    }
    println!("total: {} chunks, {games} games, {positions} positions", entries.len());
    Ok(())
}

fn run(args: Args) -> Result<(), String> {
    if let Some(dir) = &args.list {
        return list(dir);
    }
    let chunk = args.chunk.clone().ok_or("no chunk named")?;
    let book_text = match &args.book {
        Some(p) => Some(std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?),
        None => None,
    };
    let mut book = Vec::new();
    for line in book_text.iter().flat_map(|t| t.lines()).filter(|l| !l.trim().is_empty()) {
        let fen = line.split(';').next().unwrap_or("").trim();
        match Position::from_fen(fen) {
            Ok(p) => book.push(p),
            Err(e) => eprintln!("skipping bad book line '{line}': {e}"),
        }
    }
    if book_text.is_some() && book.is_empty() {
        return Err("the book holds no opening positions".into());
    }
    let bench = ox88::bench::run_to(None, &mut std::io::sink())?;
    let settings = settings(&args, book_text.as_deref(), bench);
    if let Some(dir) = chunk.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let (mut file, first, mut positions) = open_chunk(&chunk, &settings)?;
    let total = args.games;
    write_info(&chunk, &settings, total, first, positions)?;
    if first >= total {
        eprintln!("{}: already {first} games of {total}", chunk.display());
        return Ok(());
    }
    eprintln!(
        "{}: games {first}..{total} at {} nodes per move, {} thread(s); {positions} positions already",
        chunk.display(),
        args.nodes,
        args.threads
    );

    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)).map_err(|e| format!("Ctrl-C handler: {e}"))?;

    let openings = Openings { book, plies: args.random_plies, max_score: args.max_opening_score };
    let next = AtomicUsize::new(first);
    let (tx, rx) = mpsc::channel::<(usize, Vec<u8>)>();
    let started = Instant::now();
    let positions_before = positions;
    let (args, openings) = (&args, &openings);
    std::thread::scope(|scope| -> Result<(), String> {
        let mut workers = Vec::new();
        for _ in 0..args.threads.max(1) {
            let (tx, stop, next) = (tx.clone(), Arc::clone(&stop), &next);
            workers.push(scope.spawn(move || {
                let mut searcher = Searcher::new(HASH_MB);
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= total || stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Some(bytes) = play(i, args, openings, &mut searcher, &stop) else { break };
                    if tx.send((i, bytes)).is_err() {
                        break;
                    }
                }
            }));
        }
        drop(tx);
        // Games come back in any order and are written in index order.
        let mut pending = BTreeMap::new();
        let mut written = first;
        let mut last_report = Instant::now();
        let mut fault = None;
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok((i, bytes)) => {
                    pending.insert(i, bytes);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            while let Some(bytes) = pending.remove(&written) {
                if let Err(e) = file.write_all(&bytes).and_then(|()| file.flush()) {
                    fault = Some(format!("cannot write {}: {e}", bin_path(&chunk).display()));
                    stop.store(true, Ordering::SeqCst);
                    break;
                }
                written += 1;
                positions += bytes.len() / RECORD_BYTES;
            }
            if last_report.elapsed() >= PROGRESS_EVERY {
                last_report = Instant::now();
                write_info(&chunk, &settings, total, written, positions)?;
                let secs = started.elapsed().as_secs_f64();
                let rate = (written - first) as f64 / secs;
                let eta = if rate > 0.0 { duration_text((total - written) as f64 / rate) } else { "?".into() };
                eprintln!(
                    "games {written}/{total}, positions {positions}, {rate:.2} games/s, {:.0} positions/s, ETA {eta}",
                    (positions - positions_before) as f64 / secs
                );
            }
        }
        ox88::threads::join_all(workers);
        write_info(&chunk, &settings, total, written, positions)?;
        let secs = started.elapsed().as_secs_f64();
        let more = if written < total { "; the same command goes on from here" } else { "" };
        eprintln!("{written} games of {total}, {positions} positions ({} this run){more}", duration_text(secs));
        fault.map_or(Ok(()), Err)
    })
}

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("{e}");
        std::process::exit(2);
    }
}
