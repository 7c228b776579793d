//! Gradient tuner for every evaluation weight: material, piece-square tables and the terms
//! of `ox88::eval::Weights`, fitted to ox88's own self-play games.
//!
//! Method:
//! 1. Positions come from the chunks of `tools/datagen.rs`, read by `tools/selfplay.rs`:
//!    quiet positions only (side to move not in check, no capture or promotion played, not
//!    among a game's first plies, no mate score), every tenth game held out whole, to judge
//!    the fit on games it never saw. `--see-quiet` also drops a position with a capture of
//!    positive static exchange or a promotion on the board: the static evaluation stands in
//!    for the quiescence score, which such a move changes even when the game went otherwise.
//! 2. Each position is read once through `eval::evaluate_traced`, which reports every term as
//!    "n more of weight w for this colour". The evaluation is then linear in the weights
//!    (blended by phase, scaled by the end-game scale), except the king attack, whose
//!    quadratic is differentiated as it stands. The traced sum is checked against the
//!    engine's own evaluation before anything is fitted.
//! 3. The prediction is `sigmoid(K * eval_white / 400)` with `sigmoid(x) = 1 / (1 + 10^-x)`;
//!    K is fitted to the current weights first. The target is the game result, or with
//!    `--lambda L < 1` the blend `L * result + (1 - L) * sigmoid(K * score / 400)` of the
//!    result and the search's score of the position in the game.
//! 4. The mean squared error is minimised by full-batch Adam on threads; the learning rate
//!    drops to a quarter for the last quarter of the epochs. With `--l2 X`, X times the sum of
//!    the squared piece-square values is added to the error: a square that is rarely seen
//!    keeps a value near the table's mean instead of fitting the few games it occurred in.
//!    The weights kept are those of the epoch that did best on the held-out games.
//! 5. The weights are printed as Rust (for `psqt::PST`, `value::PIECE_VALUES` and
//!    `eval::WEIGHTS`): each piece-square table's mean is moved into the material value, so
//!    a table reads as "better or worse than an average square".
//!
//! `cargo run --release --example tune -- DATA [DATA ...] [--epochs N] [--lr X] [--lambda L]
//!  [--l2 X] [--threads T] [--out FILE] [--see-quiet] [--fold K] [--skip-check=BOOL]
//!  [--skip-tactical=BOOL] [--skip-plies N] [--skip-mates=BOOL]` (DATA: a chunk's `.bin` or a
//! directory of them; defaults: 400 epochs, lr 1, lambda 0.5, l2 0, 2 threads, fold 0, the
//! filters on, 8 plies skipped; `--help` lists them)

use clap::Parser;
use ox88::eval::{evaluate_traced, Term, Trace, KING_DANGER_CAP, WEIGHTS};
use ox88::packed::Record;
use ox88::piece::{Color, Kind};
use ox88::psqt::{Tapered, PST};
use ox88::see::see;
use ox88::value::PIECE_VALUES;
use ox88::Position;
use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "selfplay.rs"]
mod selfplay;
use selfplay::{expected_result, Data, Label};

#[derive(Parser)]
#[command(about = "Fits the hand-written evaluation's weights to ox88's self-play games")]
struct Args {
    #[command(flatten)]
    data: Data,
    #[arg(long, default_value_t = 400)]
    epochs: usize,
    /// Adam's step size (a quarter of it for the last quarter of the epochs).
    #[arg(long, default_value_t = 1.0)]
    lr: f64,
    /// The target's share of the game result; the rest is the search's score.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    /// Pull of the piece-square values towards zero.
    #[arg(long, default_value_t = 0.0)]
    l2: f64,
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Write the weights here instead of to standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also drop positions with a capture of positive static exchange or a promotion on the board.
    #[arg(long)]
    see_quiet: bool,
}

/// No capture with a positive static exchange and no promotion on the board: what the
/// quiescence search would not change.
fn see_quiet(pos: &Position) -> bool {
    pos.legal_tactical_moves().iter().all(|&m| !m.is_promotion() && see(pos, m) <= 0)
}

const KINDS: [Kind; 6] = [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::King];

/// Flat layout of the tapered weights.
const MATERIAL: usize = 0; // 5 kinds (the king's material is fixed at 0)
const PSQ: usize = MATERIAL + 5; // 6 kinds x 64 squares
const REST: usize = PSQ + 6 * 64;
const DOUBLED: usize = REST;
const ISOLATED: usize = REST + 1;
const BACKWARD: usize = REST + 2;
const CONNECTED: usize = REST + 3; // 8 ranks
const PASSED: usize = CONNECTED + 8; // 8 ranks
const PASSED_KING: usize = PASSED + 8; // 8 ranks
const PASSED_BLOCKED: usize = PASSED_KING + 8;
const MOBILITY: usize = PASSED_BLOCKED + 1; // 6 kinds
const BISHOP_PAIR: usize = MOBILITY + 6;
const ROOK_OPEN: usize = BISHOP_PAIR + 1;
const ROOK_SEMI_OPEN: usize = ROOK_OPEN + 1;
const PAWN_THREAT: usize = ROOK_SEMI_OPEN + 1; // 6 victim kinds (knight..queen used)
const MINOR_THREAT: usize = PAWN_THREAT + 6; // 6 victim kinds (knight..queen used)
const ROOK_THREAT: usize = MINOR_THREAT + 6;
const HANGING: usize = ROOK_THREAT + 1;
const PUSH_THREAT: usize = HANGING + 1;
const SHIELD_MISSING: usize = PUSH_THREAT + 1;
const SHIELD_ADVANCED: usize = SHIELD_MISSING + 1;
const KING_OPEN_FILE: usize = SHIELD_ADVANCED + 1;
const N: usize = KING_OPEN_FILE + 1;

fn index(term: Term) -> usize {
    match term {
        Term::Material(k) => MATERIAL + k.index(),
        Term::Psq(k, sq) => PSQ + k.index() * 64 + sq,
        Term::Doubled => DOUBLED,
        Term::Isolated => ISOLATED,
        Term::Backward => BACKWARD,
        Term::Connected(r) => CONNECTED + r,
        Term::Passed(r) => PASSED + r,
        Term::PassedKing(r) => PASSED_KING + r,
        Term::PassedBlocked => PASSED_BLOCKED,
        Term::Mobility(k) => MOBILITY + k.index(),
        Term::BishopPair => BISHOP_PAIR,
        Term::RookOpen => ROOK_OPEN,
        Term::RookSemiOpen => ROOK_SEMI_OPEN,
        Term::PawnThreat(k) => PAWN_THREAT + k.index(),
        Term::MinorThreat(k) => MINOR_THREAT + k.index(),
        Term::RookThreat => ROOK_THREAT,
        Term::Hanging => HANGING,
        Term::PushThreat => PUSH_THREAT,
        Term::ShieldMissing => SHIELD_MISSING,
        Term::ShieldAdvanced => SHIELD_ADVANCED,
        Term::KingOpenFile => KING_OPEN_FILE,
    }
}

/// The king's "material" term is always one each, so it carries no information.
fn is_king_material(i: usize) -> bool {
    i == MATERIAL + Kind::King.index()
}

/// The weights being fitted: tapered pairs, and the king-attack units per attacker kind.
#[derive(Clone)]
struct Params {
    t: Vec<[f64; 2]>,
    units: [f64; 6],
}

fn tapered(x: Tapered) -> [f64; 2] {
    [x.mg as f64, x.eg as f64]
}

impl Params {
    fn from_engine() -> Params {
        let mut t = vec![[0.0; 2]; N];
        let w = &WEIGHTS;
        for k in KINDS {
            if k != Kind::King {
                t[MATERIAL + k.index()] = [PIECE_VALUES[k.index()].mg as f64, PIECE_VALUES[k.index()].eg as f64];
            }
            for sq in 0..64 {
                t[PSQ + k.index() * 64 + sq] = tapered(PST[k.index()][sq]);
            }
        }
        t[DOUBLED] = tapered(w.doubled);
        t[ISOLATED] = tapered(w.isolated);
        t[BACKWARD] = tapered(w.backward);
        for r in 0..8 {
            t[CONNECTED + r] = tapered(w.connected[r]);
            t[PASSED + r] = tapered(w.passed[r]);
            t[PASSED_KING + r] = tapered(w.passed_king[r]);
        }
        t[PASSED_BLOCKED] = tapered(w.passed_blocked);
        for k in 0..6 {
            t[MOBILITY + k] = tapered(w.mobility[k]);
            t[PAWN_THREAT + k] = tapered(w.pawn_threat[k]);
            t[MINOR_THREAT + k] = tapered(w.minor_threat[k]);
        }
        t[BISHOP_PAIR] = tapered(w.bishop_pair);
        t[ROOK_OPEN] = tapered(w.rook_open);
        t[ROOK_SEMI_OPEN] = tapered(w.rook_semi_open);
        t[ROOK_THREAT] = tapered(w.rook_threat);
        t[HANGING] = tapered(w.hanging);
        t[PUSH_THREAT] = tapered(w.push_threat);
        t[SHIELD_MISSING] = tapered(w.shield_missing);
        t[SHIELD_ADVANCED] = tapered(w.shield_advanced);
        t[KING_OPEN_FILE] = tapered(w.king_open_file);
        let units = w.attack_units.map(|u| u as f64);
        Params { t, units }
    }
}

/// One position as the tuner sees it.
struct Sample {
    /// (weight index, White's count minus Black's), non-zero only.
    terms: Vec<(u16, i16)>,
    /// King-attack hits per colour and attacker kind, and whether the term counts.
    hits: [[i8; 6]; 2],
    attack_counts: [bool; 2],
    phase: u8,
    scale: u8,
    mop_up: i16,
    white_to_move: bool,
    /// The engine's own evaluation, White's view (to check the trace).
    engine_eval: i32,
    result: f32,
    /// The search's score in the game, White's view (None for a mate score).
    score: Option<f32>,
}

struct Recorder {
    counts: [i32; N],
    hits: [[i8; 6]; 2],
    attack_counts: [bool; 2],
    phase: i32,
    scale: i32,
    mop_up: i32,
    stm: Color,
}

impl Trace for Recorder {
    const ON: bool = true;
    fn term(&mut self, term: Term, c: Color, n: i32) {
        let sign = if c == Color::White { 1 } else { -1 };
        self.counts[index(term)] += sign * n;
    }
    fn king_attack(&mut self, c: Color, hits: [i32; 6], counts: bool) {
        self.hits[c.index()] = hits.map(|h| h as i8);
        self.attack_counts[c.index()] = counts;
    }
    fn finish(&mut self, phase: i32, scale: i32, mop_up: i32, stm: Color) {
        (self.phase, self.scale, self.mop_up, self.stm) = (phase, scale, mop_up, stm);
    }
}

fn sample(r: &Record, label: Label, see_filter: bool) -> Option<Sample> {
    let pos = r.position().ok()?;
    if see_filter && !see_quiet(&pos) {
        return None;
    }
    let mut rec = Recorder {
        counts: [0; N],
        hits: [[0; 6]; 2],
        attack_counts: [false; 2],
        phase: 0,
        scale: 16,
        mop_up: 0,
        stm: Color::White,
    };
    let v = evaluate_traced(&pos, &mut rec)?;
    let terms = rec
        .counts
        .iter()
        .enumerate()
        .filter(|&(i, &n)| n != 0 && !is_king_material(i))
        .map(|(i, &n)| (i as u16, n as i16))
        .collect();
    Some(Sample {
        terms,
        hits: rec.hits,
        attack_counts: rec.attack_counts,
        phase: rec.phase as u8,
        scale: rec.scale as u8,
        mop_up: rec.mop_up as i16,
        white_to_move: rec.stm == Color::White,
        engine_eval: if rec.stm == Color::White { v } else { -v },
        result: label.result,
        score: label.score,
    })
}

/// `eval::king_danger`'s cap, as a float for the gradient.
const DANGER_CAP: f64 = KING_DANGER_CAP as f64;

/// White's evaluation under `p`, and (if `grad` is given) its derivative times `g` added
/// to the gradient.
#[inline]
fn eval(s: &Sample, p: &Params, tempo: f64, grad: Option<(&mut Params, f64)>) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(i, n) in &s.terms {
        let w = p.t[i as usize];
        mg += w[0] * n as f64;
        eg += w[1] * n as f64;
    }
    let mut units = [0.0; 2];
    for (c, slot) in units.iter_mut().enumerate() {
        if s.attack_counts[c] {
            let u: f64 = (1..5).map(|k| p.units[k] * s.hits[c][k] as f64).sum();
            let d = (u * u / 4.0).min(DANGER_CAP);
            let sign = if c == 0 { 1.0 } else { -1.0 };
            mg += sign * d;
            eg += sign * d / 8.0;
            *slot = u;
        }
    }
    let phase = s.phase as f64;
    let scale = s.scale as f64 / 16.0;
    let (wm, we) = (scale * phase / 24.0, scale * (24.0 - phase) / 24.0);
    let v = mg * wm + eg * we + s.mop_up as f64 * (24.0 - phase) / 24.0 + if s.white_to_move { tempo } else { -tempo };
    if let Some((gp, g)) = grad {
        for &(i, n) in &s.terms {
            let e = &mut gp.t[i as usize];
            e[0] += g * wm * n as f64;
            e[1] += g * we * n as f64;
        }
        for (c, &u) in units.iter().enumerate() {
            if s.attack_counts[c] && u * u / 4.0 < DANGER_CAP {
                let sign = if c == 0 { 1.0 } else { -1.0 };
                // d(u^2/4)/du = u/2; the danger enters mg fully and eg at an eighth.
                let dv = sign * (u / 2.0) * (wm + we / 8.0);
                for k in 1..5 {
                    gp.units[k] += g * dv * s.hits[c][k] as f64;
                }
            }
        }
    }
    v
}

fn target(s: &Sample, k: f64, lambda: f64) -> f64 {
    match s.score {
        Some(score) if lambda < 1.0 => lambda * s.result as f64 + (1.0 - lambda) * expected_result(k, score as f64),
        _ => s.result as f64,
    }
}

/// Mean squared error, and the gradient when asked.
fn loss(
    samples: &[Sample],
    p: &Params,
    k: f64,
    lambda: f64,
    tempo: f64,
    threads: usize,
    want_grad: bool,
) -> (f64, Params) {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let zero = Params { t: vec![[0.0; 2]; N], units: [0.0; 6] };
    let parts: Vec<(f64, Params)> = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                let mut g = zero.clone();
                scope.spawn(move || {
                    let mut sum = 0.0;
                    for s in part {
                        let y = target(s, k, lambda);
                        if want_grad {
                            let v = eval(s, p, tempo, None);
                            let q = expected_result(k, v);
                            sum += (q - y) * (q - y);
                            // d/dv (q - y)^2 = 2 (q - y) q (1 - q) ln10 k / 400
                            let d = 2.0 * (q - y) * q * (1.0 - q) * std::f64::consts::LN_10 * k / 400.0;
                            eval(s, p, tempo, Some((&mut g, d)));
                        } else {
                            let q = expected_result(k, eval(s, p, tempo, None));
                            sum += (q - y) * (q - y);
                        }
                    }
                    (sum, g)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("loss thread")).collect()
    });
    let n = samples.len().max(1) as f64;
    let mut total = 0.0;
    let mut grad = zero;
    for (sum, g) in parts {
        total += sum;
        for i in 0..N {
            grad.t[i][0] += g.t[i][0] / n;
            grad.t[i][1] += g.t[i][1] / n;
        }
        for k in 0..6 {
            grad.units[k] += g.units[k] / n;
        }
    }
    (total / n, grad)
}

fn fit_k(samples: &[Sample], p: &Params, tempo: f64, threads: usize) -> f64 {
    let (mut a, mut b) = (0.1f64, 3.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..30 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if loss(samples, p, c, 1.0, tempo, threads, false).0 < loss(samples, p, d, 1.0, tempo, threads, false).0 {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// Moves each piece-square table's mean into the material value and rounds everything.
fn normalised(p: &Params) -> Params {
    let mut q = p.clone();
    for k in KINDS {
        let squares: Vec<usize> = if k == Kind::Pawn { (8..56).collect() } else { (0..64).collect() };
        for side in 0..2 {
            let mean =
                squares.iter().map(|&sq| q.t[PSQ + k.index() * 64 + sq][side]).sum::<f64>() / squares.len() as f64;
            for &sq in &squares {
                q.t[PSQ + k.index() * 64 + sq][side] -= mean;
            }
            if k != Kind::King {
                q.t[MATERIAL + k.index()][side] += mean;
            }
        }
    }
    for x in q.t.iter_mut() {
        x[0] = x[0].round();
        x[1] = x[1].round();
    }
    for u in q.units.iter_mut() {
        *u = u.round().max(0.0);
    }
    q
}

fn s(x: [f64; 2]) -> String {
    format!("s({}, {})", x[0] as i32, x[1] as i32)
}

fn list(p: &Params, base: usize, n: usize) -> String {
    (0..n).map(|i| s(p.t[base + i])).collect::<Vec<_>>().join(", ")
}

/// The fitted weights as Rust source for the three places they live.
fn rust(p: &Params) -> String {
    let mut out = String::new();
    let names = ["pawn", "knight", "bishop", "rook", "queen", "king"];
    let _ = writeln!(out, "// value.rs: PIECE_VALUES (mg, eg) per kind");
    for (k, name) in names.iter().enumerate().take(5) {
        let _ = writeln!(out, "//   {name:<6} mg {} eg {}", p.t[MATERIAL + k][0] as i32, p.t[MATERIAL + k][1] as i32);
    }
    let _ = writeln!(out, "\n// psqt.rs");
    let _ = writeln!(out, "pub const PST: [[Tapered; 64]; 6] = [");
    for (k, name) in names.iter().enumerate() {
        let _ = writeln!(out, "    // {name}");
        let _ = writeln!(out, "    [");
        for row in 0..8 {
            let _ = writeln!(out, "        {},", list(p, PSQ + k * 64 + row * 8, 8));
        }
        let _ = writeln!(out, "    ],");
    }
    let _ = writeln!(out, "];");
    let _ = writeln!(out, "\n// eval.rs");
    let _ = writeln!(out, "pub const WEIGHTS: Weights = Weights {{");
    let _ = writeln!(out, "    doubled: {},", s(p.t[DOUBLED]));
    let _ = writeln!(out, "    isolated: {},", s(p.t[ISOLATED]));
    let _ = writeln!(out, "    backward: {},", s(p.t[BACKWARD]));
    let _ = writeln!(out, "    connected: [{}],", list(p, CONNECTED, 8));
    let _ = writeln!(out, "    passed: [{}],", list(p, PASSED, 8));
    let _ = writeln!(out, "    passed_king: [{}],", list(p, PASSED_KING, 8));
    let _ = writeln!(out, "    passed_blocked: {},", s(p.t[PASSED_BLOCKED]));
    let _ = writeln!(out, "    mobility: [{}],", list(p, MOBILITY, 6));
    let _ = writeln!(out, "    bishop_pair: {},", s(p.t[BISHOP_PAIR]));
    let _ = writeln!(out, "    rook_open: {},", s(p.t[ROOK_OPEN]));
    let _ = writeln!(out, "    rook_semi_open: {},", s(p.t[ROOK_SEMI_OPEN]));
    let _ = writeln!(out, "    tempo: {},", WEIGHTS.tempo);
    let units: Vec<String> = p.units.iter().map(|u| format!("{}", *u as i32)).collect();
    let _ = writeln!(out, "    attack_units: [{}],", units.join(", "));
    let _ = writeln!(out, "    shield_missing: {},", s(p.t[SHIELD_MISSING]));
    let _ = writeln!(out, "    shield_advanced: {},", s(p.t[SHIELD_ADVANCED]));
    let _ = writeln!(out, "    king_open_file: {},", s(p.t[KING_OPEN_FILE]));
    let _ = writeln!(out, "    pawn_threat: [{}],", list(p, PAWN_THREAT, 6));
    let _ = writeln!(out, "    minor_threat: [{}],", list(p, MINOR_THREAT, 6));
    let _ = writeln!(out, "    rook_threat: {},", s(p.t[ROOK_THREAT]));
    let _ = writeln!(out, "    hanging: {},", s(p.t[HANGING]));
    let _ = writeln!(out, "    push_threat: {},", s(p.t[PUSH_THREAT]));
    let _ = writeln!(out, "}};");
    out
}

fn main() {
    let args = Args::parse();
    let (epochs, lr, lambda, l2) = (args.epochs, args.lr, args.lambda, args.l2);
    let threads = args.threads.max(1);
    let (train, held) = selfplay::training_set(&args.data, threads, |r, label| sample(r, label, args.see_quiet));
    let tempo = WEIGHTS.tempo as f64;
    let mut p = Params::from_engine();

    // The traced sum must be the engine's evaluation (up to its integer rounding).
    let off = train.iter().filter(|s| (eval(s, &p, tempo, None) - s.engine_eval as f64).abs() > 2.5).count();
    eprintln!(
        "trace check: {off} of {} positions differ from the engine's evaluation by more than 2.5 cp",
        train.len()
    );
    if off * 1000 > train.len() {
        eprintln!("the trace does not reproduce the evaluation; fix eval::evaluate_traced first");
        std::process::exit(1);
    }

    let k = fit_k(&train, &p, tempo, threads);
    let start_train = loss(&train, &p, k, lambda, tempo, threads, false).0;
    // Held-out games are always judged against their results, whatever the target.
    let start_held = loss(&held, &p, k, 1.0, tempo, threads, false).0;
    eprintln!("K = {k:.4}; before: train {start_train:.6}, held out {start_held:.6} (lambda {lambda})");
    let mut best = (start_held, p.clone(), 0);

    // Adam.
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let zero = Params { t: vec![[0.0; 2]; N], units: [0.0; 6] };
    let (mut m, mut v) = (zero.clone(), zero.clone());
    let started = std::time::Instant::now();
    for epoch in 1..=epochs {
        let rate = if epoch > epochs * 3 / 4 { lr / 4.0 } else { lr };
        let (e, mut g) = loss(&train, &p, k, lambda, tempo, threads, true);
        for i in PSQ..PSQ + 6 * 64 {
            for side in 0..2 {
                g.t[i][side] += 2.0 * l2 * p.t[i][side];
            }
        }
        let (c1, c2) = (1.0 - b1.powi(epoch as i32), 1.0 - b2.powi(epoch as i32));
        let step = |x: &mut f64, g: f64, m: &mut f64, v: &mut f64, rate: f64| {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            *x -= rate * (*m / c1) / ((*v / c2).sqrt() + eps);
        };
        for i in 0..N {
            for side in 0..2 {
                step(&mut p.t[i][side], g.t[i][side], &mut m.t[i][side], &mut v.t[i][side], rate);
            }
        }
        for kind in 1..5 {
            // Attack units are small numbers: a smaller step.
            step(&mut p.units[kind], g.units[kind], &mut m.units[kind], &mut v.units[kind], rate / 20.0);
            p.units[kind] = p.units[kind].max(0.0);
        }
        if epoch % 25 == 0 || epoch == epochs {
            let h = loss(&held, &p, k, 1.0, tempo, threads, false).0;
            if h < best.0 {
                best = (h, p.clone(), epoch);
            }
            if epoch % 100 == 0 || epoch == epochs {
                eprintln!("epoch {epoch}: train {e:.6}, held out {h:.6} ({:.0} s)", started.elapsed().as_secs_f64());
            }
        }
    }
    // Early stopping: the weights that did best on the held-out games.
    let best_epoch = best.2;
    let q = normalised(&best.1);
    let end_train = loss(&train, &q, k, lambda, tempo, threads, false).0;
    let end_held = loss(&held, &q, k, 1.0, tempo, threads, false).0;
    eprintln!("kept epoch {best_epoch} (rounded): train {end_train:.6}, held out {end_held:.6}");
    let text = format!(
        "// tools/tune.rs on {} positions ({} held out), K = {k:.4}, lambda {lambda}, l2 {l2}, {epochs} epochs (kept {best_epoch}), lr {lr}\n\
         // mean squared error: train {start_train:.6} -> {end_train:.6}, held out {start_held:.6} -> {end_held:.6}\n{}",
        train.len(),
        held.len(),
        rust(&q)
    );
    match args.out {
        Some(f) => {
            if let Err(e) = std::fs::write(&f, &text) {
                eprintln!("cannot write {}: {e}", f.display());
                std::process::exit(1);
            }
            eprintln!("written to {}", f.display());
        }
        None => print!("{text}"),
    }
}
