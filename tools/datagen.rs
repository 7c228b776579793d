//! Training data for the Texel tuner (`tools/texel.rs`): ox88 plays itself at a fixed node
//! budget per move, and every position of every game is written with the game's result.
//!
//! Fixed nodes rather than a clock, so a run gives the same games on a loaded machine as on an
//! idle one. Each game starts from one line of an opening book (EPD, one position per line);
//! games end by mate, stalemate, threefold repetition, the fifty-move rule, insufficient
//! material, adjudication (the score stays beyond `RESIGN` for the same side four plies in a
//! row), or a draw at `MAX_PLIES`.
//!
//! Output, one position per line: `<FEN> | <result for White: 1, 0.5 or 0>`. Positions of the
//! opening book itself (before the first engine move) are not written.
//!
//! `cargo run --release --example datagen -- BOOK.epd OUT.txt [--nodes N] [--from I] [--count C]`

use ox88::search::{insufficient_material, Report, SearchLimits, Searcher, SharedControl};
use ox88::value::Score;
use ox88::Position;
use std::io::Write;

const RESIGN: i32 = 1_000;
const MAX_PLIES: usize = 400;

struct Args {
    book: String,
    out: String,
    nodes: u64,
    from: usize,
    count: usize,
}

fn parse_args() -> Result<Args, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let (mut nodes, mut from, mut count) = (5_000u64, 0usize, usize::MAX);
    let mut i = 0;
    while i < args.len() {
        let value = || args.get(i + 1).ok_or(format!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--nodes" => nodes = value()?.parse().map_err(|e| format!("--nodes: {e}"))?,
            "--from" => from = value()?.parse().map_err(|e| format!("--from: {e}"))?,
            "--count" => count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            other => {
                positional.push(other.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    match positional.as_slice() {
        [book, out] => Ok(Args { book: book.clone(), out: out.clone(), nodes, from, count }),
        _ => Err("usage: datagen BOOK.epd OUT.txt [--nodes N] [--from I] [--count C]".into()),
    }
}

/// Plays one game; returns the FENs after the book and the result for White.
fn play(searcher: &mut Searcher, start: Position, nodes: u64) -> (Vec<String>, f64) {
    let mut pos = start;
    let mut keys = vec![pos.key()];
    let mut fens = Vec::new();
    let mut winning_streak = [0u32; 2];
    let limits = SearchLimits { nodes: Some(nodes), multipv: 1, ..Default::default() };
    searcher.clear();
    for _ in 0..MAX_PLIES {
        let legal = pos.legal_moves();
        let white = pos.side_to_move() == ox88::piece::Color::White;
        if legal.is_empty() {
            let result = if !pos.in_check() {
                0.5
            } else if white {
                0.0
            } else {
                1.0
            };
            return (fens, result);
        }
        let repeated = keys.iter().filter(|&&k| k == pos.key()).count() >= 3;
        if repeated || pos.halfmove_clock() >= 100 || insufficient_material(&pos) {
            return (fens, 0.5);
        }
        let control = SharedControl::default();
        let mut score = 0;
        let outcome = searcher.search(&pos, &keys, &limits, &control, &mut |r| {
            if let Report::Iteration { score: s, multipv: 1, .. } = r {
                score = match s {
                    Score::Centipawns(cp) => cp,
                    Score::Mate(n) if n > 0 => 30_000,
                    Score::Mate(_) => -30_000,
                };
            }
        });
        let Some(best) = outcome.best else {
            return (fens, 0.5);
        };
        // Adjudication: both sides agree one of them is winning, four plies in a row.
        let white_score = if white { score } else { -score };
        winning_streak = match (white_score > RESIGN, white_score < -RESIGN) {
            (true, _) => [winning_streak[0] + 1, 0],
            (_, true) => [0, winning_streak[1] + 1],
            _ => [0, 0],
        };
        if winning_streak[0] >= 4 {
            return (fens, 1.0);
        }
        if winning_streak[1] >= 4 {
            return (fens, 0.0);
        }
        fens.push(pos.to_fen());
        pos.make(best);
        keys.push(pos.key());
    }
    (fens, 0.5)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let book = match std::fs::read_to_string(&args.book) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {}: {e}", args.book);
            std::process::exit(2);
        }
    };
    let mut out = match std::fs::File::create(&args.out) {
        Ok(f) => std::io::BufWriter::new(f),
        Err(e) => {
            eprintln!("cannot create {}: {e}", args.out);
            std::process::exit(2);
        }
    };
    let mut searcher = Searcher::new(16);
    let (mut games, mut positions, mut score) = (0usize, 0usize, 0.0);
    for line in book.lines().skip(args.from).take(args.count) {
        let fen = line.split(';').next().unwrap_or("").trim();
        let Ok(start) = Position::from_fen(fen) else {
            eprintln!("skipping bad book line: {line}");
            continue;
        };
        let (fens, result) = play(&mut searcher, start, args.nodes);
        for f in &fens {
            let _ = writeln!(out, "{f} | {result}");
        }
        games += 1;
        positions += fens.len();
        score += result;
        if games % 50 == 0 {
            eprintln!("{games} games, {positions} positions, White scored {:.3}", score / games as f64);
        }
    }
    let _ = out.flush();
    eprintln!("done: {games} games, {positions} positions, White scored {:.3}", score / games.max(1) as f64);
}
