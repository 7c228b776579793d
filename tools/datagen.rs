//! Training data from ox88's own games: for the evaluation tuner (`tools/tune.rs`) and the
//! win/draw/loss model (`tools/fit_wdl.rs`).
//!
//! ox88 plays itself at a fixed node budget per move (the same games on a loaded machine as
//! on an idle one). Game `i` starts from line `i mod L` of an opening book (EPD, one position
//! per line, L lines), then `--random-plies` uniformly random legal moves drawn from a
//! generator seeded by `--seed` and `i`; a draw that leaves the side to move more than
//! `MAX_OPENING_SCORE` ahead or behind (a hung piece) is drawn again. Every game starts with
//! a cleared search, so game `i` is the same game whichever thread plays it and whenever.
//!
//! Games end by mate, stalemate, threefold repetition, the fifty-move rule, insufficient
//! material, adjudication (the score beyond `RESIGN` for the same side four plies in a row),
//! or a draw at `MAX_PLIES`.
//!
//! Output (appended to OUT): a header line `# ox88-datagen ...` with the settings, then per
//! game one line per position from the engine's first move on, and a closing line:
//!
//! ```text
//! <FEN> | <score> | <result>
//! # game <index> <result> <positions>
//! ```
//!
//! `score` is the search's score of that position from White's view, in centipawns, or
//! `#N` / `#-N` for a mate in N moves for White / Black; `result` is the game's result for
//! White (1, 0.5, 0). Every position is kept, quiet or not: the tuner filters.
//!
//! Stopping and resuming: games are written whole and in index order, each followed by its
//! `# game` line. Ctrl-C stops at once (games in play are dropped); rerunning the same
//! command resumes: whatever follows the last `# game` line (a game cut off by `kill`) is
//! cut away and play resumes at the next index. A file made with other settings is refused.
//!
//! `cargo run --release --example datagen -- BOOK.epd OUT.txt [--games N] [--nodes N]
//!  [--threads T] [--random-plies R] [--seed S]`

use ox88::search::{insufficient_material, Report, SearchLimits, Searcher, SharedControl};
use ox88::value::Score;
use ox88::{Color, Position};
use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

const RESIGN: i32 = 1_000;
const MAX_PLIES: usize = 400;
/// The random plies are drawn again while the first search scores the side to move beyond
/// this (centipawns).
const MAX_OPENING_SCORE: i32 = 200;
const OPENING_TRIES: usize = 20;
/// A mate score written as centipawns, for adjudication.
const MATE_CP: i32 = 30_000;
const HASH_MB: usize = 16;
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

struct Args {
    book: String,
    out: String,
    games: Option<usize>,
    nodes: u64,
    threads: usize,
    random_plies: usize,
    seed: u64,
}

fn parse_args() -> Result<Args, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let mut a = Args {
        book: String::new(),
        out: String::new(),
        games: None,
        nodes: 5_000,
        threads: 1,
        random_plies: 2,
        seed: 1,
    };
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if !flag.starts_with("--") {
            positional.push(args[i].clone());
            i += 1;
            continue;
        }
        let value = args.get(i + 1).ok_or(format!("{flag} needs a value"))?;
        let bad = |e: std::num::ParseIntError| format!("{flag} {value}: {e}");
        match flag {
            "--games" => a.games = Some(value.parse().map_err(bad)?),
            "--nodes" => a.nodes = value.parse().map_err(bad)?,
            "--threads" => a.threads = value.parse::<usize>().map_err(bad)?.max(1),
            "--random-plies" => a.random_plies = value.parse().map_err(bad)?,
            "--seed" => a.seed = value.parse().map_err(bad)?,
            _ => return Err(format!("unknown option {flag}")),
        }
        i += 2;
    }
    match positional.as_slice() {
        [book, out] => {
            a.book = book.clone();
            a.out = out.clone();
            Ok(a)
        }
        _ => Err("usage: datagen BOOK.epd OUT.txt [--games N] [--nodes N] [--threads T] \
                  [--random-plies R] [--seed S]"
            .into()),
    }
}

/// SplitMix64: a small seeded generator, so that a game's random plies depend on nothing but
/// the seed and the game's index.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One search at the node budget: the move and the score from the side to move's view.
fn search(searcher: &mut Searcher, pos: &Position, keys: &[u64], nodes: u64) -> (Option<ox88::Move>, Score) {
    let limits = SearchLimits { nodes: Some(nodes), multipv: 1, ..Default::default() };
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

/// The book position with random plies that leave a playable game.
fn opening(book: &Position, rng: &mut Rng, plies: usize, searcher: &mut Searcher, nodes: u64) -> Position {
    for _ in 0..OPENING_TRIES {
        let mut pos = book.clone();
        let mut ok = true;
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                ok = false;
                break;
            }
            pos.make(legal[rng.below(legal.len())]);
        }
        if !ok || pos.legal_moves().is_empty() {
            continue;
        }
        searcher.clear();
        let (_, score) = search(searcher, &pos, &[pos.key()], nodes);
        if centipawns(score).abs() <= MAX_OPENING_SCORE {
            return pos;
        }
    }
    book.clone()
}

/// Plays game `index`; returns its lines (positions and the closing line) and the number of
/// positions, or `None` if `stop` was raised during the game.
fn play(
    index: usize,
    book: &Position,
    args: &Args,
    searcher: &mut Searcher,
    stop: &AtomicBool,
) -> Option<(String, usize)> {
    let mut rng = Rng(args.seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
    let mut pos = opening(book, &mut rng, args.random_plies, searcher, args.nodes);
    searcher.clear();
    let mut keys = vec![pos.key()];
    let mut records: Vec<(String, String)> = Vec::new();
    let mut winning_streak = [0u32; 2];
    let mut result = 0.5;
    for _ in 0..MAX_PLIES {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let white = pos.side_to_move() == Color::White;
        if pos.legal_moves().is_empty() {
            result = match (pos.in_check(), white) {
                (false, _) => 0.5,
                (true, true) => 0.0,
                (true, false) => 1.0,
            };
            break;
        }
        let repeated = keys.iter().filter(|&&k| k == pos.key()).count() >= 3;
        if repeated || pos.halfmove_clock() >= 100 || insufficient_material(&pos) {
            break;
        }
        let (best, score) = search(searcher, &pos, &keys, args.nodes);
        let Some(best) = best else { break };
        let white_score = if white { centipawns(score) } else { -centipawns(score) };
        // Adjudication: both sides agree one of them is winning, four plies in a row.
        winning_streak = match (white_score > RESIGN, white_score < -RESIGN) {
            (true, _) => [winning_streak[0] + 1, 0],
            (_, true) => [0, winning_streak[1] + 1],
            _ => [0, 0],
        };
        if winning_streak[0] >= 4 {
            result = 1.0;
            break;
        }
        if winning_streak[1] >= 4 {
            result = 0.0;
            break;
        }
        let shown = match score {
            Score::Centipawns(_) => white_score.to_string(),
            Score::Mate(n) => format!("#{}", if white { n } else { -n }),
        };
        records.push((pos.to_fen(), shown));
        pos.make(best);
        keys.push(pos.key());
    }
    let mut text = String::new();
    for (fen, score) in &records {
        text.push_str(&format!("{fen} | {score} | {result}\n"));
    }
    text.push_str(&format!("# game {index} {result} {}\n", records.len()));
    Some((text, records.len()))
}

/// The header that identifies a file's settings: a resumed run must use the same ones.
fn header(args: &Args, book_text: &str) -> String {
    // FNV-1a of the book, so that the same book under another path still matches.
    let hash = book_text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    format!(
        "# ox88-datagen v2 book={hash:016x} nodes={} random-plies={} seed={} max-opening-score={MAX_OPENING_SCORE} \
         resign={RESIGN} max-plies={MAX_PLIES}",
        args.nodes, args.random_plies, args.seed
    )
}

/// Opens OUT for appending: a new file gets the header; an existing one is checked against
/// it and cut back to its last whole game. Returns the file, the next game index and the
/// positions already there.
fn open_output(path: &str, header: &str) -> Result<(std::fs::File, usize, usize), String> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot open {path}: {e}"))?;
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(|e| format!("cannot read {path}: {e}"))?;
    if text.is_empty() {
        writeln!(file, "{header}").map_err(|e| format!("cannot write {path}: {e}"))?;
        return Ok((file, 0, 0));
    }
    let first = text.lines().next().unwrap_or("");
    if first != header {
        return Err(format!("{path} was made with other settings:\n  {first}\nnot\n  {header}"));
    }
    let (mut keep, mut next, mut positions) = (first.len() + 1, 0, 0);
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        let mut words = line.split_whitespace();
        if line.ends_with('\n') && words.next() == Some("#") && words.next() == Some("game") {
            let index: Option<usize> = words.next().and_then(|w| w.parse().ok());
            let count: Option<usize> = words.nth(1).and_then(|w| w.parse().ok());
            if let (Some(index), Some(count)) = (index, count) {
                keep = offset;
                next = index + 1;
                positions += count;
            }
        }
    }
    if keep < text.len() {
        eprintln!("{path}: cutting {} bytes of an unfinished game", text.len() - keep);
    }
    file.set_len(keep as u64).map_err(|e| format!("cannot truncate {path}: {e}"))?;
    file.seek(std::io::SeekFrom::End(0)).map_err(|e| format!("cannot seek {path}: {e}"))?;
    Ok((file, next, positions))
}

fn duration_text(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
}

fn run(args: Args) -> Result<(), String> {
    let book_text = std::fs::read_to_string(&args.book).map_err(|e| format!("cannot read {}: {e}", args.book))?;
    let mut book = Vec::new();
    for line in book_text.lines().filter(|l| !l.trim().is_empty()) {
        let fen = line.split(';').next().unwrap_or("").trim();
        match Position::from_fen(fen) {
            Ok(p) => book.push(p),
            Err(e) => eprintln!("skipping bad book line '{line}': {e}"),
        }
    }
    if book.is_empty() {
        return Err(format!("{}: no opening positions", args.book));
    }
    let total = args.games.unwrap_or(book.len());
    let (mut file, first, mut positions) = open_output(&args.out, &header(&args, &book_text))?;
    if first >= total {
        eprintln!("{}: already {first} games of {total}", args.out);
        return Ok(());
    }
    eprintln!(
        "{}: games {first}..{total} at {} nodes per move, {} thread(s); {positions} positions already",
        args.out, args.nodes, args.threads
    );

    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)).map_err(|e| format!("Ctrl-C handler: {e}"))?;

    let next = AtomicUsize::new(first);
    let (tx, rx) = mpsc::channel::<(usize, String, usize)>();
    let started = Instant::now();
    let positions_before = positions;
    let (args, book) = (&args, &book);
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..args.threads {
            let (tx, stop, next) = (tx.clone(), Arc::clone(&stop), &next);
            scope.spawn(move || {
                let mut searcher = Searcher::new(HASH_MB);
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= total || stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Some((text, n)) = play(i, &book[i % book.len()], args, &mut searcher, &stop) else {
                        break;
                    };
                    if tx.send((i, text, n)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Games come back in any order and are written in index order.
        let mut pending = BTreeMap::new();
        let mut written = first;
        let mut last_report = Instant::now();
        let mut fault = None;
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok((i, text, n)) => {
                    pending.insert(i, (text, n));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            while let Some((text, n)) = pending.remove(&written) {
                if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                    fault = Some(format!("cannot write {}: {e}", args.out));
                    stop.store(true, Ordering::SeqCst);
                    break;
                }
                written += 1;
                positions += n;
            }
            if last_report.elapsed() >= PROGRESS_EVERY {
                last_report = Instant::now();
                let secs = started.elapsed().as_secs_f64();
                let rate = (written - first) as f64 / secs;
                let eta = if rate > 0.0 { duration_text((total - written) as f64 / rate) } else { "?".into() };
                eprintln!(
                    "games {written}/{total}, positions {positions}, {rate:.2} games/s, {:.0} positions/s, ETA {eta}",
                    (positions - positions_before) as f64 / secs
                );
            }
        }
        let secs = started.elapsed().as_secs_f64();
        let more = if written < total { "; the same command goes on from here" } else { "" };
        eprintln!("{written} games of {total}, {positions} positions ({} this run){more}", duration_text(secs));
        fault.map_or(Ok(()), Err)
    })
}

fn main() {
    let result = parse_args().and_then(run);
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(2);
    }
}
