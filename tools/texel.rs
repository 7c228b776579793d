//! Texel tuner for the evaluation weights (`ox88::eval::Weights`).
//!
//! Method (Peter Österlund's "Texel's tuning method"):
//! 1. Positions come from ox88's own games (PGN written by `match.py --pgn`). Each position
//!    after the opening (ply >= 10) is labelled with the game's result for White
//!    (1, 1/2, 0). Only quiet positions are kept: side to move not in check, no capture with
//!    a positive static exchange, no promotion possible, so the static evaluation is a fair
//!    stand-in for the quiescence score.
//! 2. The prediction is `sigmoid(K * eval_white / 400)`, `sigmoid(x) = 1 / (1 + 10^-x)`; K is
//!    first fitted to the current weights (golden-section search on K).
//! 3. The mean squared error over all positions is minimised by coordinate descent: each
//!    weight in turn is moved by +step, else by -step, and kept if the error drops; passes
//!    repeat (step 4, then 2, then 1) until no weight improves.
//! 4. The result is printed as a `Weights { .. }` literal to paste into src/eval.rs, and
//!    must then win in games before it is committed (a lower error is not proof).
//!
//! `cargo run --release --example texel -- games1.pgn [games2.pgn ...] [--max-passes N]`

use ox88::eval::{evaluate_with_weights, Weights, WEIGHTS};
use ox88::piece::Color;
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
            let start = fen.clone().unwrap_or_else(|| "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into());
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
                    let Some(m) = pos.legal_moves().iter().copied().find(|&m| san(&pos, m) == want) else { break };
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

fn white_eval(pos: &Position, w: &Weights) -> f64 {
    let v = evaluate_with_weights(pos, w) as f64;
    if pos.side_to_move() == Color::White {
        v
    } else {
        -v
    }
}

fn error(samples: &[Sample], w: &Weights, k: f64) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let p = 1.0 / (1.0 + 10f64.powf(-k * white_eval(&s.pos, w) / 400.0));
            (s.result - p) * (s.result - p)
        })
        .sum();
    sum / samples.len().max(1) as f64
}

fn fit_k(samples: &[Sample], w: &Weights) -> f64 {
    let (mut a, mut b) = (0.1f64, 3.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if error(samples, w, c) < error(samples, w, d) {
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
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--max-passes" {
            max_passes = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(max_passes);
            i += 2;
        } else {
            files.push(args[i].clone());
            i += 1;
        }
    }
    let mut samples = Vec::new();
    for f in &files {
        match std::fs::read_to_string(f) {
            Ok(text) => read_pgn(&text, &mut samples),
            Err(e) => eprintln!("cannot read {f}: {e}"),
        }
    }
    eprintln!("{} quiet positions from {} file(s)", samples.len(), files.len());
    if samples.is_empty() {
        std::process::exit(2);
    }
    let mut w = WEIGHTS.clone();
    let k = fit_k(&samples, &w);
    let mut best = error(&samples, &w, k);
    eprintln!("K = {k:.3}, initial error {best:.6}");
    for step in [4, 2, 1] {
        for pass in 0..max_passes {
            let mut improved = false;
            let n = w.params_mut().len();
            for p in 0..n {
                for delta in [step, -step] {
                    let mut trial = w.clone();
                    *trial.params_mut()[p] += delta;
                    let e = error(&samples, &trial, k);
                    if e < best {
                        best = e;
                        w = trial;
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
    println!("{w:#?}");
}
