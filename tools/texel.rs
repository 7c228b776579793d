//! Texel tuner for the evaluation weights (`ox88::eval::Weights`).
//!
//! Method (Peter Österlund's "Texel's tuning method"):
//! 1. Positions come from ox88's own games: the output of `tools/datagen.rs` (fixed-node
//!    self-play, one `FEN | result` per line) or PGN (written by `match.py --pgn`; positions
//!    from ply 10 on). Each position is labelled with the game's result for White
//!    (1, 1/2, 0). Only quiet positions are kept: side to move not in check, no capture with
//!    a positive static exchange, no promotion possible, so the static evaluation is a fair
//!    stand-in for the quiescence score.
//! 2. The prediction is `sigmoid(K * eval_white / 400)`, `sigmoid(x) = 1 / (1 + 10^-x)`; K is
//!    first fitted to the current weights (golden-section search on K).
//!    Besides the `Weights`, the tuner varies a material correction per piece kind (applied
//!    here, outside the engine); a tuned correction is folded into `the mg and eg columns of value::PIECE_VALUES`.
//! 3. The mean squared error over all positions is minimised by coordinate descent: each
//!    weight in turn is moved by +step, else by -step, and kept if the error drops; passes
//!    repeat (step 4, then 2, then 1) until no weight improves.
//! 4. The result is printed as a `Weights { .. }` literal to paste into src/eval.rs, and
//!    must then win in games before it is committed (a lower error is not proof).
//!
//! `cargo run --release --example texel -- data1.txt [games.pgn ...] [--max-passes N] [--threads T]`

use ox88::eval::{evaluate_with_weights, Weights, WEIGHTS};
use ox88::piece::{Color, Kind, Piece};
use ox88::psqt::{Tapered, PHASE};
use ox88::see::see;
use ox88::tactics::san;
use ox88::Position;

struct Sample {
    pos: Position,
    result: f64,
}

fn normalize(s: &str) -> String {
    s.replace("0-0", "O-O").chars().filter(|c| !matches!(c, '+' | '#' | '!' | '?')).collect()
}

/// Reads games from PGN text: headers (for `FEN` and `Result`) and SAN movetext.
fn read_pgn(text: &str, out: &mut Vec<Sample>) {
    let mut fen: Option<String> = None;
    let mut result: Option<f64> = None;
    let mut movetext = String::new();
    let flush = |fen: &mut Option<String>, result: &mut Option<f64>, movetext: &mut String, out: &mut Vec<Sample>| {
        if let Some(r) = *result {
            let start =
                fen.clone().unwrap_or_else(|| "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into());
            if let Ok(mut pos) = Position::from_fen(&start) {
                let mut depth = 0;
                let mut in_comment = false;
                for tok in movetext.split_whitespace() {
                    if tok.starts_with('{') {
                        in_comment = !tok.ends_with('}');
                        continue;
                    }
                    if in_comment {
                        in_comment = !tok.ends_with('}');
                        continue;
                    }
                    let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                    if tok.is_empty() || matches!(tok, "1-0" | "0-1" | "1/2-1/2" | "*") {
                        continue;
                    }
                    let want = normalize(tok);
                    let Some(m) = pos.legal_moves().iter().copied().find(|&m| san(&pos, m) == want) else {
                        break;
                    };
                    pos.make(m);
                    depth += 1;
                    if depth >= 10 && is_quiet(&pos) {
                        out.push(Sample { pos: pos.clone(), result: r });
                    }
                }
            }
        }
        *fen = None;
        *result = None;
        movetext.clear();
    };
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            if !movetext.trim().is_empty() {
                flush(&mut fen, &mut result, &mut movetext, out);
            }
            let value = line.split('"').nth(1).unwrap_or("").to_string();
            if line.starts_with("[FEN ") {
                fen = Some(value);
            } else if line.starts_with("[Result ") {
                result = match value.as_str() {
                    "1-0" => Some(1.0),
                    "0-1" => Some(0.0),
                    "1/2-1/2" => Some(0.5),
                    _ => None,
                };
            }
        } else {
            movetext.push(' ');
            movetext.push_str(line);
        }
    }
    flush(&mut fen, &mut result, &mut movetext, out);
}

fn is_quiet(pos: &Position) -> bool {
    !pos.in_check() && pos.legal_tactical_moves().iter().all(|&m| !m.is_promotion() && see(pos, m) <= 0)
}

/// Reads the `FEN | score | result` lines written by `tools/datagen.rs` (or the older
/// `FEN | result`); comment lines and unreadable lines are skipped.
fn read_datagen(text: &str, out: &mut Vec<Sample>) {
    for line in text.lines() {
        let (Some(fen), Some(result)) = (line.split('|').next(), line.rsplit_once('|').map(|(_, r)| r)) else {
            continue;
        };
        let (Ok(pos), Ok(result)) = (Position::from_fen(fen.trim()), result.trim().parse::<f64>()) else {
            continue;
        };
        if is_quiet(&pos) {
            out.push(Sample { pos, result });
        }
    }
}

/// What the tuner varies: the evaluation weights and a material correction per kind.
#[derive(Clone, Debug)]
struct Params {
    weights: Weights,
    material: [Tapered; 6],
}

impl Params {
    fn values_mut(&mut self) -> Vec<&mut i32> {
        let mut v = self.weights.params_mut();
        for m in self.material[..5].iter_mut() {
            v.push(&mut m.mg);
            v.push(&mut m.eg);
        }
        v
    }
}

/// The material correction blended by phase as the evaluation does (White's view).
fn material_correction(pos: &Position, material: &[Tapered; 6]) -> f64 {
    let (mut mg, mut eg, mut phase) = (0, 0, 0);
    for kind in [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen] {
        let white = pos.count_of(Piece::new(Color::White, kind)) as i32;
        let black = pos.count_of(Piece::new(Color::Black, kind)) as i32;
        mg += (white - black) * material[kind.index()].mg;
        eg += (white - black) * material[kind.index()].eg;
        phase += (white + black) * PHASE[kind.index()];
    }
    let phase = phase.min(24);
    ((mg * phase + eg * (24 - phase)) / 24) as f64
}

fn white_eval(pos: &Position, p: &Params) -> f64 {
    let v = evaluate_with_weights(pos, &p.weights) as f64;
    let v = if pos.side_to_move() == Color::White { v } else { -v };
    v + material_correction(pos, &p.material)
}

fn error(samples: &[Sample], p: &Params, k: f64, threads: usize) -> f64 {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let sum: f64 = std::thread::scope(|scope| {
        let parts: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|s| {
                            let predicted = 1.0 / (1.0 + 10f64.powf(-k * white_eval(&s.pos, p) / 400.0));
                            (s.result - predicted) * (s.result - predicted)
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        parts.into_iter().map(|h| h.join().unwrap_or(f64::NAN)).sum()
    });
    sum / samples.len().max(1) as f64
}

fn fit_k(samples: &[Sample], p: &Params, threads: usize) -> f64 {
    let (mut a, mut b) = (0.1f64, 3.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if error(samples, p, c, threads) < error(samples, p, d, threads) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut max_passes = 10;
    let mut threads = 2;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).and_then(|v| v.parse().ok());
        match args[i].as_str() {
            "--max-passes" => max_passes = value.unwrap_or(max_passes),
            "--threads" => threads = value.unwrap_or(threads),
            file => {
                files.push(file.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let mut samples = Vec::new();
    for f in &files {
        match std::fs::read_to_string(f) {
            Ok(text) if f.ends_with(".pgn") => read_pgn(&text, &mut samples),
            Ok(text) => read_datagen(&text, &mut samples),
            Err(e) => eprintln!("cannot read {f}: {e}"),
        }
    }
    eprintln!("{} quiet positions from {} file(s)", samples.len(), files.len());
    if samples.is_empty() {
        std::process::exit(2);
    }
    let mut p = Params { weights: WEIGHTS.clone(), material: [Tapered::default(); 6] };
    let k = fit_k(&samples, &p, threads);
    let mut best = error(&samples, &p, k, threads);
    eprintln!("K = {k:.3}, initial error {best:.6}");
    for step in [4, 2, 1] {
        for pass in 0..max_passes {
            let mut improved = false;
            let n = p.values_mut().len();
            for i in 0..n {
                for delta in [step, -step] {
                    let mut trial = p.clone();
                    *trial.values_mut()[i] += delta;
                    let e = error(&samples, &trial, k, threads);
                    if e < best {
                        best = e;
                        p = trial;
                        improved = true;
                        break;
                    }
                }
            }
            eprintln!("step {step} pass {pass}: error {best:.6}");
            if !improved {
                break;
            }
        }
    }
    println!("{:#?}", p.weights);
    println!("material correction (add to the mg and eg columns of value::PIECE_VALUES): {:?}", p.material);
}
