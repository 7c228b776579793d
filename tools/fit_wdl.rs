//! Fits ox88's win/draw/loss model (`src/wdl.rs`, what `UCI_ShowWDL` shows) to its own games.
//!
//! Data: chunks written by `tools/datagen.rs`, read by `tools/selfplay.rs` (the search's
//! score and the game's result per position, White's view). The model, for a score `v` in
//! centipawns and the material `m` on the board (`ox88::wdl::material`: pawn 1, knight and
//! bishop 3, rook 5, queen 9, both sides, clamped to `[M_MIN, M_MAX]`):
//!
//! ```text
//! win  = 1 / (1 + exp((a(m) - v) / b(m)))
//! loss = 1 / (1 + exp((a(m) + v) / b(m)))
//! draw = 1 - win - loss
//! ```
//!
//! with `a` and `b` polynomials of degree `--degree` (default 3) in `x = (m - M_MID) / M_HALF`.
//! The model is symmetric (`v -> -v` swaps win and loss), so White's view gives the same
//! likelihood as the side to move's.
//!
//! The model reads the score the engine shows at the root, in any position, so it is fitted on
//! every position by default: the quiet-position filters of the trainers are off here
//! (`--skip-check`, `--skip-tactical` and `--skip-plies` turn them on), all but the one for
//! mate scores, which are no centipawns.
//!
//! Method: maximum likelihood, i.e. the mean negative log-likelihood of each position's game
//! result is minimised by full-batch Adam (positions aggregated by score and material). Whole
//! games are held out for validation (game number `fold` modulo `HOLDOUT`; `--fold`, default 0;
//! `--cross-validate` fits all ten folds so that every game is judged once); the held-out
//! log-loss is reported beside two baselines fitted on the same training games (constant
//! W/D/L frequencies, and the model without material: `a`, `b` constants) and beside the
//! model compiled into the engine, so a refit shows what it gains.
//!
//! `cargo run --release --example fit_wdl -- DATA [DATA ...] [--degree D] [--iterations N]
//!  [--fold K | --cross-validate] [--threads T] [--skip-check=BOOL] [--skip-tactical=BOOL]
//!  [--skip-plies N] [--skip-mates=BOOL]` (DATA: a chunk's `.bin` or a directory of them;
//! defaults: degree 3, 3000 iterations, fold 0, 2 threads, only mate scores skipped)

use clap::Parser;
use ox88::packed::Record;
use ox88::piece::Kind;
use ox88::wdl::{material, M_HALF, M_MAX, M_MID, M_MIN};
use std::collections::HashMap;

#[path = "selfplay.rs"]
mod selfplay;
use selfplay::{Data, HOLDOUT};

const EPS: f64 = 1e-12;

#[derive(Parser)]
#[command(about = "Fits ox88's win/draw/loss model to its self-play games")]
#[command(
    mut_arg("skip_check", |a| a.default_value("false")),
    mut_arg("skip_tactical", |a| a.default_value("false")),
    mut_arg("skip_plies", |a| a.default_value("0"))
)]
struct Args {
    #[command(flatten)]
    data: Data,
    /// Degree of the polynomials a(m) and b(m).
    #[arg(long, default_value_t = 3)]
    degree: usize,
    #[arg(long, default_value_t = 3000)]
    iterations: usize,
    /// Fit ten times, each fold held out once, and pool the held-out results.
    #[arg(long, conflicts_with = "fold")]
    cross_validate: bool,
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

/// Positions of one score and material: how many ended won, drawn and lost for White.
struct Cell {
    v: f64,
    x: f64,
    counts: [f64; 3],
}

/// One whole game: its number across the data read, and per position (score, material) and
/// the outcome for White (0 win, 1 draw, 2 loss).
struct Game {
    number: usize,
    positions: Vec<((i32, i32), usize)>,
}

/// The games a model is fitted on, or judged on.
struct Set<'a> {
    games: Vec<&'a Game>,
}

impl Set<'_> {
    fn positions(&self) -> usize {
        self.games.iter().map(|g| g.positions.len()).sum()
    }

    fn cells(&self) -> Vec<Cell> {
        let mut counts: HashMap<(i32, i32), [u32; 3]> = HashMap::new();
        for &(key, outcome) in self.games.iter().flat_map(|g| &g.positions) {
            counts.entry(key).or_default()[outcome] += 1;
        }
        counts
            .into_iter()
            .map(|((v, m), c)| Cell { v: f64::from(v), x: (f64::from(m) - M_MID) / M_HALF, counts: c.map(f64::from) })
            .collect()
    }
}

/// Material as `ox88::wdl::material` counts it, from the record's pieces: building a
/// `Position` for every record would cost more than the whole fit.
fn record_material(r: &Record) -> Option<i32> {
    let worth = |k: Kind| match k {
        Kind::Pawn => 1,
        Kind::Knight | Kind::Bishop => 3,
        Kind::Rook => 5,
        Kind::Queen => 9,
        Kind::King => 0,
    };
    Some(r.pieces().ok()?.iter().map(|(_, p)| worth(p.kind())).sum())
}

/// Reads the games; a position the filters pass must have a readable result and board.
fn read(args: &Args) -> Result<Vec<Game>, String> {
    let filter = &args.data.filter;
    let per_game = |game: selfplay::Game| -> Result<Game, String> {
        let mut positions = Vec::new();
        for (i, r) in game.records.iter().enumerate() {
            if filter.skip(i, r).is_some() {
                continue;
            }
            let bad = || format!("game {}: an unreadable record", game.number);
            let outcome = match r.result().map_err(|_| bad())? {
                ox88::packed::GameResult::WhiteWins => 0,
                ox88::packed::GameResult::Draw => 1,
                ox88::packed::GameResult::BlackWins => 2,
            };
            let m = record_material(r).ok_or_else(bad)?;
            positions.push(((i32::from(r.score_white()), m.clamp(M_MIN, M_MAX)), outcome));
        }
        // `record_material` must agree with the engine's count: checked on each game's end.
        if let Some(last) = game.records.last() {
            let pos = last.position().map_err(|e| format!("game {}: {e}", game.number))?;
            if record_material(last) != Some(material(&pos)) {
                return Err(format!("game {}: material differs from ox88::wdl::material", game.number));
            }
        }
        Ok(Game { number: game.number, positions })
    };
    let mut games = Vec::new();
    let mut fault = None;
    selfplay::read_games(&args.data.paths, args.data.games(), args.threads, per_game, |block| {
        for g in block {
            match g {
                Ok(g) => games.push(g),
                Err(e) => {
                    fault.get_or_insert(e);
                }
            }
        }
    })?;
    fault.map_or(Ok(games), Err)
}

/// The training games and the held-out ones (numbered `fold` modulo `HOLDOUT`).
fn split(games: &[Game], fold: usize) -> (Set<'_>, Set<'_>) {
    let (test, train) = games.iter().partition(|g| g.number % HOLDOUT == fold);
    (Set { games: train }, Set { games: test })
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

/// Per game: the fitted model's log-likelihood minus that of the model compiled into the
/// engine (`src/wdl.rs`), the compiled model's log-loss, and the number of positions.
fn against_shipped(params: &[f64], set: &Set) -> Vec<(f64, f64, f64)> {
    set.games
        .iter()
        .map(|game| {
            let (mut diff, mut old_loss) = (0.0, 0.0);
            for &((v, m), outcome) in &game.positions {
                let (w, l) = ox88::wdl::win_loss(v, m);
                let old = [w, 1.0 - w - l, l][outcome].max(EPS).ln();
                let new = probabilities(params, f64::from(v), (f64::from(m) - M_MID) / M_HALF)[outcome].max(EPS).ln();
                diff += new - old;
                old_loss -= old;
            }
            (diff, old_loss, game.positions.len() as f64)
        })
        .collect()
}

/// The compiled model's log-loss, how much lower the fitted model's is, and the standard error
/// of that gain. Positions of one game share a result, so the error comes from the spread of
/// the games' summed differences (a ratio estimator over games), not from the positions as if
/// they were independent.
fn gain_over_shipped(per_game: &[(f64, f64, f64)]) -> (f64, f64, f64) {
    let positions = f64::max(per_game.iter().map(|g| g.2).sum(), 1.0);
    let old_loss = per_game.iter().map(|g| g.1).sum::<f64>() / positions;
    let gain = per_game.iter().map(|g| g.0).sum::<f64>() / positions;
    let games = per_game.len() as f64;
    let spread =
        per_game.iter().map(|&(d, _, n)| (d - gain * n).powi(2)).sum::<f64>() * games / f64::max(games - 1.0, 1.0);
    (old_loss, gain, spread.sqrt() / positions)
}

/// Fits the model without material, then with it: both parameter vectors.
fn fit_both(train: &[Cell], degree: usize, iterations: usize) -> (Vec<f64>, Vec<f64>) {
    let n = degree + 1;
    let mut start = vec![0.0; 2 * n];
    (start[0], start[n]) = (150.0, 100.0);
    let mut free = vec![false; 2 * n];
    (free[0], free[n]) = (true, true);
    eprintln!("without material:");
    let flat = fit(train, start, &free, iterations / 2);
    eprintln!("with material, degree {degree}:");
    let params = fit(train, flat.clone(), &vec![true; 2 * n], iterations);
    (flat, params)
}

/// Every game held out once: each fold's model judged on its own held-out games, and the gain
/// over the compiled model pooled over all of them.
fn cross_validate(games: &[Game], degree: usize, iterations: usize) {
    let (mut pooled, mut new_loss, mut positions) = (Vec::new(), 0.0, 0.0);
    for fold in 0..HOLDOUT {
        let (train_set, test_set) = split(games, fold);
        let test = test_set.cells();
        let params = fit_both(&train_set.cells(), degree, iterations).1;
        let per_game = against_shipped(&params, &test_set);
        let (old, gain, error) = gain_over_shipped(&per_game);
        let (loss, n) = (loss_and_gradient(&params, &test).0, test_set.positions() as f64);
        println!(
            "fold {fold}: {} games held out; log-loss {loss:.5}, src/wdl.rs {old:.5}, gain {gain:.5} ± {:.5}",
            test_set.games.len(),
            1.96 * error
        );
        (new_loss, positions) = (new_loss + loss * n, positions + n);
        pooled.extend(per_game);
    }
    let (old, gain, error) = gain_over_shipped(&pooled);
    println!(
        "all {} games held out once ({positions} positions): log-loss {:.5}, src/wdl.rs {old:.5}; \
         the fits are {gain:.5} ± {:.5} (95%) lower",
        pooled.len(),
        new_loss / f64::max(positions, 1.0),
        1.96 * error
    );
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
    let args = Args::parse();
    let (degree, iterations, fold) = (args.degree, args.iterations, args.data.fold);
    let games = read(&args)?;
    if args.cross_validate {
        cross_validate(&games, degree, iterations);
        return Ok(());
    }
    let (train_set, test_set) = split(&games, fold);
    println!(
        "training: {} games, {} positions; held out: {} games, {} positions",
        train_set.games.len(),
        train_set.positions(),
        test_set.games.len(),
        test_set.positions()
    );
    let (train, test) = (train_set.cells(), test_set.cells());
    let n = degree + 1;

    let (base, freq) = constant_loss(&train, &test);
    let (flat, params) = fit_both(&train, degree, iterations);

    let flat_test = loss_and_gradient(&flat, &test).0;
    let (train_loss, test_loss) = (loss_and_gradient(&params, &train).0, loss_and_gradient(&params, &test).0);
    println!("constant frequencies (W {:.3} D {:.3} L {:.3}): held-out log-loss {base:.5}", freq[0], freq[1], freq[2]);
    println!("without material (a = {:.2}, b = {:.2}): held-out log-loss {flat_test:.5}", flat[0], flat[n]);
    println!("model: training log-loss {train_loss:.5}, held-out log-loss {test_loss:.5}");
    let (shipped, gain, error) = gain_over_shipped(&against_shipped(&params, &test_set));
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
