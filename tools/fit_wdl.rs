//! Fits ox88's win/draw/loss model (`src/wdl.rs`, what `UCI_ShowWDL` shows) to its own games.
//!
//! Data: files written by `tools/datagen.rs` (`FEN | score | result` per position, White's
//! view; `# game I R N` closing each game). The model, for a score `v` in centipawns and the
//! material `m` on the board (`ox88::wdl::material`: pawn 1, knight and bishop 3, rook 5,
//! queen 9, both sides, clamped to `[M_MIN, M_MAX]`):
//!
//! ```text
//! win  = 1 / (1 + exp((a(m) - v) / b(m)))
//! loss = 1 / (1 + exp((a(m) + v) / b(m)))
//! draw = 1 - win - loss
//! ```
//!
//! with `a` and `b` polynomials of degree `--degree` (default 3) in `x = (m - M_MID) / M_HALF`.
//! The model is symmetric (`v -> -v` swaps win and loss), so White's view gives the same
//! likelihood as the side to move's. Positions with a mate score are left out.
//!
//! Method: maximum likelihood, i.e. the mean negative log-likelihood of each position's game
//! result is minimised by full-batch Adam (positions aggregated by score and material). Whole
//! games are held out for validation (game index `fold` modulo `HOLDOUT`; `--fold`, default 0,
//! so that the ten folds together judge every game once); the held-out
//! log-loss is reported beside two baselines fitted on the same training games (constant
//! W/D/L frequencies, and the model without material: `a`, `b` constants) and beside the
//! model compiled into the engine, so a refit shows what it gains.
//!
//! `cargo run --release --example fit_wdl -- DATA.txt [more ...] [--degree D] [--iterations N] [--fold K]`

use ox88::wdl::{material, M_HALF, M_MAX, M_MID, M_MIN};
use ox88::Position;
use std::collections::HashMap;

const HOLDOUT: usize = 10;
const EPS: f64 = 1e-12;

/// Positions of one score and material: how many ended won, drawn and lost for White.
struct Cell {
    v: f64,
    x: f64,
    counts: [f64; 3],
}

#[derive(Default)]
struct Set {
    cells: HashMap<(i32, i32), [u32; 3]>,
    /// Each game's positions, (score, material) and outcome (0 win, 1 draw, 2 loss for White).
    per_game: Vec<Vec<((i32, i32), usize)>>,
    games: usize,
    positions: usize,
}

impl Set {
    fn cells(&self) -> Vec<Cell> {
        self.cells
            .iter()
            .map(|(&(v, m), c)| Cell { v: f64::from(v), x: (f64::from(m) - M_MID) / M_HALF, counts: c.map(f64::from) })
            .collect()
    }
}

/// Reads datagen files into training and held-out sets. Only whole games count.
fn read(paths: &[String], fold: usize) -> Result<(Set, Set), String> {
    let (mut train, mut test) = (Set::default(), Set::default());
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let mut pending: Vec<((i32, i32), usize)> = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# game ") {
                let Some(index) = rest.split_whitespace().next().and_then(|w| w.parse::<usize>().ok()) else {
                    continue;
                };
                let set = if index % HOLDOUT == fold { &mut test } else { &mut train };
                set.games += 1;
                set.positions += pending.len();
                for &(key, outcome) in &pending {
                    set.cells.entry(key).or_default()[outcome] += 1;
                }
                set.per_game.push(std::mem::take(&mut pending));
                continue;
            }
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let [fen, score, result] = fields[..] else { continue };
            let (Ok(v), Ok(result), Ok(pos)) = (score.parse::<i32>(), result.parse::<f64>(), Position::from_fen(fen))
            else {
                continue;
            };
            let outcome = if result == 1.0 {
                0
            } else if result == 0.0 {
                2
            } else {
                1
            };
            pending.push(((v, material(&pos).clamp(M_MIN, M_MAX)), outcome));
        }
    }
    Ok((train, test))
}

fn polynomial(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

fn sigmoid(t: f64) -> f64 {
    1.0 / (1.0 + (-t).exp())
}

/// Win, draw and loss probabilities; `params` holds `a`'s coefficients, then `b`'s.
fn probabilities(params: &[f64], v: f64, x: f64) -> [f64; 3] {
    let n = params.len() / 2;
    let a = polynomial(&params[..n], x).max(0.0);
    let b = polynomial(&params[n..], x).max(1.0);
    let (w, l) = (sigmoid((v - a) / b), sigmoid((-v - a) / b));
    [w, (1.0 - w - l).max(0.0), l]
}

/// Mean negative log-likelihood of the results, and its gradient.
fn loss_and_gradient(params: &[f64], cells: &[Cell]) -> (f64, Vec<f64>) {
    let n = params.len() / 2;
    let (mut total, mut count) = (0.0, 0.0);
    let mut grad = vec![0.0; params.len()];
    for cell in cells {
        let a = polynomial(&params[..n], cell.x).max(0.0);
        let b = polynomial(&params[n..], cell.x).max(1.0);
        let (u, t) = ((cell.v - a) / b, (-cell.v - a) / b);
        let (w, l) = (sigmoid(u), sigmoid(t));
        let (pw, pl, pd) = (w.max(EPS), l.max(EPS), (1.0 - w - l).max(EPS));
        let [cw, cd, cl] = cell.counts;
        total -= cw * pw.ln() + cd * pd.ln() + cl * pl.ln();
        count += cw + cd + cl;
        // dW/da = -W'/b and dW/db = -W' u/b with W' = w(1 - w); L likewise with t;
        // D = 1 - W - L. d(-ln P)/dθ = -(count / P) dP/dθ over the three outcomes.
        let (sw, sl) = (w * (1.0 - w), l * (1.0 - l));
        let (dw_da, dw_db, dl_da, dl_db) = (-sw / b, -sw * u / b, -sl / b, -sl * t / b);
        let g_a = -(cw / pw) * dw_da - (cl / pl) * dl_da + (cd / pd) * (dw_da + dl_da);
        let g_b = -(cw / pw) * dw_db - (cl / pl) * dl_db + (cd / pd) * (dw_db + dl_db);
        let mut xk = 1.0;
        for k in 0..n {
            grad[k] += g_a * xk;
            grad[n + k] += g_b * xk;
            xk *= cell.x;
        }
    }
    let count = count.max(1.0);
    (total / count, grad.into_iter().map(|g| g / count).collect())
}

/// Full-batch Adam on the parameters marked free; the step size decays from 2 to 0.04.
fn fit(cells: &[Cell], mut params: Vec<f64>, free: &[bool], iterations: usize) -> Vec<f64> {
    let (mut m1, mut m2) = (vec![0.0; params.len()], vec![0.0; params.len()]);
    let (beta1, beta2) = (0.9f64, 0.999f64);
    for i in 1..=iterations {
        let rate = 2.0 * 0.02f64.powf(i as f64 / iterations as f64);
        let (loss, grad) = loss_and_gradient(&params, cells);
        for k in (0..params.len()).filter(|&k| free[k]) {
            m1[k] = beta1 * m1[k] + (1.0 - beta1) * grad[k];
            m2[k] = beta2 * m2[k] + (1.0 - beta2) * grad[k] * grad[k];
            let (mh, vh) = (m1[k] / (1.0 - beta1.powi(i as i32)), m2[k] / (1.0 - beta2.powi(i as i32)));
            params[k] -= rate * mh / (vh.sqrt() + 1e-12);
        }
        if i % 500 == 0 || i == iterations {
            eprintln!("  iteration {i}: training log-loss {loss:.5}");
        }
    }
    params
}

/// How much lower the fitted model's log-loss is than that of the model compiled into the
/// engine (`src/wdl.rs`) on a set, with its standard error. Positions of one game share a
/// result, so the error comes from the spread of the games' summed differences (a ratio
/// estimator over games), not from the positions as if they were independent.
fn gain_over_shipped(params: &[f64], set: &Set) -> (f64, f64, f64) {
    let (mut per_game, mut total_old, mut positions) = (Vec::new(), 0.0, 0.0);
    for game in &set.per_game {
        let mut diff = 0.0;
        for &((v, m), outcome) in game {
            let (w, l) = ox88::wdl::win_loss(v, m);
            let old = [w, 1.0 - w - l, l][outcome].max(EPS).ln();
            let new = probabilities(params, f64::from(v), (f64::from(m) - M_MID) / M_HALF)[outcome].max(EPS).ln();
            diff += new - old;
            total_old -= old;
        }
        per_game.push((diff, game.len() as f64));
        positions += game.len() as f64;
    }
    let positions = f64::max(positions, 1.0);
    let gain = per_game.iter().map(|g| g.0).sum::<f64>() / positions;
    let games = per_game.len() as f64;
    let spread =
        per_game.iter().map(|&(d, n)| (d - gain * n).powi(2)).sum::<f64>() * games / f64::max(games - 1.0, 1.0);
    (total_old / positions, gain, spread.sqrt() / positions)
}

/// Held-out log-loss of the training set's constant W/D/L frequencies.
fn constant_loss(train: &[Cell], test: &[Cell]) -> (f64, [f64; 3]) {
    let mut sum = [0.0; 3];
    for c in train {
        for (s, n) in sum.iter_mut().zip(c.counts) {
            *s += n;
        }
    }
    let all: f64 = sum.iter().sum();
    let freq = sum.map(|s| s / all.max(1.0));
    let (mut total, mut count) = (0.0, 0.0);
    for c in test {
        for (n, f) in c.counts.iter().zip(freq) {
            total -= n * f.max(EPS).ln();
            count += n;
        }
    }
    (total / f64::max(count, 1.0), freq)
}

fn list(c: &[f64]) -> String {
    c.iter().map(|v| format!("{v:.3}")).collect::<Vec<_>>().join(", ")
}

fn run() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |name: &str, default: usize| -> Result<usize, String> {
        match args.iter().position(|a| a == name) {
            None => Ok(default),
            Some(i) => {
                let v = args.get(i + 1).and_then(|v| v.parse().ok()).ok_or(format!("{name} needs a number"))?;
                args.drain(i..i + 2);
                Ok(v)
            }
        }
    };
    let degree = option("--degree", 3)?;
    let iterations = option("--iterations", 3000)?;
    let fold = option("--fold", 0)?;
    if args.is_empty() {
        return Err("usage: fit_wdl DATA.txt [more ...] [--degree D] [--iterations N] [--fold K]".into());
    }
    if fold >= HOLDOUT {
        return Err(format!("--fold must be below {HOLDOUT}"));
    }
    let (train_set, test_set) = read(&args, fold)?;
    println!(
        "training: {} games, {} positions; held out: {} games, {} positions",
        train_set.games, train_set.positions, test_set.games, test_set.positions
    );
    let (train, test) = (train_set.cells(), test_set.cells());
    let n = degree + 1;

    let (base, freq) = constant_loss(&train, &test);
    let mut start = vec![0.0; 2 * n];
    (start[0], start[n]) = (150.0, 100.0);
    let mut free = vec![false; 2 * n];
    (free[0], free[n]) = (true, true);
    eprintln!("without material:");
    let flat = fit(&train, start, &free, iterations / 2);
    eprintln!("with material, degree {degree}:");
    let params = fit(&train, flat.clone(), &vec![true; 2 * n], iterations);

    let flat_test = loss_and_gradient(&flat, &test).0;
    let (train_loss, test_loss) = (loss_and_gradient(&params, &train).0, loss_and_gradient(&params, &test).0);
    println!("constant frequencies (W {:.3} D {:.3} L {:.3}): held-out log-loss {base:.5}", freq[0], freq[1], freq[2]);
    println!("without material (a = {:.2}, b = {:.2}): held-out log-loss {flat_test:.5}", flat[0], flat[n]);
    println!("model: training log-loss {train_loss:.5}, held-out log-loss {test_loss:.5}");
    let (shipped, gain, error) = gain_over_shipped(&params, &test_set);
    println!(
        "model in src/wdl.rs now: held-out log-loss {shipped:.5}; the fit is {gain:.5} ± {:.5} (95%) lower",
        1.96 * error
    );
    println!();
    println!("const A: [f64; {n}] = [{}];", list(&params[..n]));
    println!("const B: [f64; {n}] = [{}];", list(&params[n..]));
    println!();
    println!("material    a(m)    b(m)   W/D/L per mille at +100 cp");
    for m in [M_MAX, 70, 60, 50, 40, 30, 20, 14, M_MIN] {
        let x = (f64::from(m) - M_MID) / M_HALF;
        let [w, d, l] = probabilities(&params, 100.0, x);
        println!(
            "{m:8} {:7.1} {:7.1}   {:.0}/{:.0}/{:.0}",
            polynomial(&params[..n], x),
            polynomial(&params[n..], x),
            w * 1000.0,
            d * 1000.0,
            l * 1000.0
        );
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("{e}");
        std::process::exit(2);
    }
}
