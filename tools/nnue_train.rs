//! Trains ox88's evaluation network on ox88's own self-play games (`tools/datagen.rs` chunks).
//!
//! The network (see `src/nnue.rs` for inference): 768 inputs per side (colour relative to
//! the side that looks, kind, square seen from that side), one hidden layer of `--hidden`
//! units (128 by default) shared by both sides, the side to move's half first, squared clipped ReLU, one
//! output. The output is a logit: `sigmoid(out)` is the expected result for the side to
//! move; the engine turns it into centipawns with the scale the data's own search scores
//! have (`K` below), so the search's margins keep their meaning. With `--buckets N` the
//! output layer has N sets of weights and a bias each, and a position trains and uses the
//! set of its piece count (`nnue::bucket`, shared with the engine); one bucket (the default)
//! is the plain network, trained and written exactly as before buckets existed. With
//! `--king-buckets N` the input layer has N sets of rows, one per region of the board where
//! the perspective's own king stands (`nnue::KING_LAYOUTS`); a one-king-bucket `--init` file
//! goes to every region, so training starts from the network it was.
//!
//! Method: quiet positions only, as `tools/selfplay.rs` filters them (side to move not in
//! check, no capture or promotion played, not among a game's first plies, no mate score);
//! every tenth game held out whole; target `lambda * result + (1 - lambda) * sigmoid(K *
//! score / 400)` (White's result and score, turned to the side to move's); mean squared
//! error; Adam on mini-batches split over threads; weights clipped to what the engine's
//! 16-bit quantisation can hold. The network of the epoch that did best on the
//! held-out games is written (quantised, little-endian) to `--out`.
//!
//! The same data, seed and thread count give the same network.
//!
//! `cargo run --release --example nnue_train -- DATA [DATA ...] [--epochs N] [--lr X]
//!  [--schedule step|cosine] [--weight-decay W] [--lambda L] [--batch B] [--threads T] [--seed S] [--out FILE] [--residual | --base B] [--hidden H]
//!  [--buckets N] [--king-buckets N] [--fold K] [--init FILE]
//!  [--skip-check=BOOL] [--skip-tactical=BOOL] [--skip-plies N] [--skip-mates=BOOL]`
//! (DATA: a chunk's `.bin` or a directory of them; defaults: 20 epochs, lr 0.001 with the
//! step schedule, no weight decay, lambda 0.5,
//! batch 16384, 2 threads, seed 1, `ox88.nnue`, 128 hidden, 1 bucket, 1 king bucket, fold 0, the filters
//! on, 8 plies skipped;
//! `--help` lists them)

use clap::Parser;
use ox88::nnue::{
    activated, bucket, centipawns, feature, file_bytes, king_layout, oriented, read_layers, Base, INPUTS, KING_LAYOUTS,
    MAX_BUCKETS, QA, QB,
};
use ox88::packed::Record;
use ox88::piece::{Color, Kind};
use rand::{Rng, SeedableRng};

#[path = "selfplay.rs"]
mod selfplay;
use selfplay::{expected_result, Data, Label};

#[derive(Parser)]
#[command(about = "Trains ox88's evaluation network on its self-play games")]
struct Args {
    #[command(flatten)]
    data: Data,
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Adam's step size at the start (see `--schedule`).
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// How the step size falls: `step` (a tenth of `--lr` for the last third of the epochs)
    /// or `cosine` (from `--lr` down to a hundredth of it along half a cosine, step by step).
    #[arg(long, default_value = "step", value_parser = schedule_name)]
    schedule: Schedule,
    /// Decoupled weight decay (AdamW): each step pulls the weights it updates (not the
    /// biases) toward zero by this share of the step size. 0 (the default) is plain Adam.
    #[arg(long, default_value_t = 0.0)]
    weight_decay: f32,
    /// The target's share of the game result; the rest is the search's score.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 16384, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    batch: usize,
    /// Seeds the initial weights and the order of the positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "ox88.nnue")]
    out: String,
    /// Train the network on what the hand-written evaluation leaves: its output is added to
    /// it (the same as `--base full`).
    #[arg(long, conflicts_with = "base")]
    residual: bool,
    /// What the network's output is added to: `full` (every hand-written term), `light` (the
    /// terms that need no piece's reach) or `none` (the network is the whole evaluation).
    /// The file records it, and the engine evaluates with the base of the network it embeds.
    #[arg(long, value_parser = base_name)]
    base: Option<Base>,
    /// Hidden units: a multiple of 16, at most 512. The engine takes its width from the
    /// network file it embeds.
    #[arg(long, default_value_t = 128, value_parser = hidden_width)]
    hidden: usize,
    /// Output buckets by material, 1 to 31: the output layer gets one set of weights per
    /// band of piece counts (with 8: 2-5 pieces, 6-9, ..., 30-32). 1 is the plain network;
    /// more write the bucketed file format, which the engine reads when it embeds one.
    #[arg(long, default_value_t = 1, value_parser = bucket_count)]
    buckets: usize,
    /// King buckets: the input layer gets one set of rows per region of the board where the
    /// perspective's own king stands (1, 4 or 7; see `nnue::KING_LAYOUTS`). 1 is the plain
    /// network; more write the king-bucketed file format.
    #[arg(long, default_value_t = 1, value_parser = king_bucket_count)]
    king_buckets: usize,
    /// Start from this network file instead of random weights: a network refined on new
    /// games keeps what it learnt from games that are gone. Its base must be the one asked
    /// for; a narrower file is widened to `--hidden` and a one-bucket file given `--buckets`
    /// without changing what it computes. Epoch 0 is then its error on the held-out games.
    #[arg(long)]
    init: Option<String>,
}

/// The widest hidden layer the trainer's per-sample buffers hold.
const MAX_HIDDEN: usize = 512;

/// How the step size falls over a run.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Schedule {
    Step,
    Cosine,
}

fn schedule_name(s: &str) -> Result<Schedule, String> {
    match s {
        "step" => Ok(Schedule::Step),
        "cosine" => Ok(Schedule::Cosine),
        _ => Err(format!("{s}: the schedules are step and cosine")),
    }
}

/// The step size of optimiser step `t` (0-based) of `total`, in epoch `epoch` (1-based) of `epochs`.
fn step_size(schedule: Schedule, lr: f32, epoch: usize, epochs: usize, t: usize, total: usize) -> f32 {
    match schedule {
        Schedule::Step if epoch > epochs * 2 / 3 => lr / 10.0,
        Schedule::Step => lr,
        Schedule::Cosine => {
            let floor = lr / 100.0;
            let progress = t as f64 / total.max(1) as f64;
            floor + (lr - floor) * (0.5 * (1.0 + (std::f64::consts::PI * progress).cos())) as f32
        }
    }
}

fn base_name(s: &str) -> Result<Base, String> {
    match s {
        "full" => Ok(Base::Full),
        "light" => Ok(Base::Light),
        "none" => Ok(Base::None),
        _ => Err(format!("{s}: the bases are full, light and none")),
    }
}

fn hidden_width(s: &str) -> Result<usize, String> {
    let h: usize = s.parse().map_err(|e| format!("{e}"))?;
    if h == 0 || !h.is_multiple_of(16) || h > MAX_HIDDEN {
        return Err(format!("{h} is not a multiple of 16 from 16 to {MAX_HIDDEN}"));
    }
    Ok(h)
}

fn bucket_count(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if n == 0 || n > MAX_BUCKETS {
        return Err(format!("{n} buckets: from 1 to {MAX_BUCKETS}, one per piece count at most"));
    }
    Ok(n)
}

fn king_bucket_count(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    king_layout(n).map(|_| n).ok_or_else(|| {
        let offered: Vec<String> = KING_LAYOUTS.iter().map(|(k, _)| k.to_string()).collect();
        format!("{n} king buckets: the layouts have {}", offered.join(", "))
    })
}

/// The clip that keeps `QA * w` inside an `i16` with room for sums.
const CLIP: f32 = 1.98;

struct Sample {
    /// Input rows seen from White and from Black (the king bucket's offset included).
    white: [u16; 32],
    black: [u16; 32],
    len: u8,
    white_to_move: bool,
    /// White's result (1, 0.5, 0) and White's search score in centipawns (None for mates).
    result: f32,
    score: Option<f32>,
    /// With a base: the hand-written evaluation for the side to move, first in
    /// centipawns, then (once K is known) as a logit the network's output is added to.
    base: f32,
}

fn sample(r: &Record, label: Label, base: Base, kings: &[u8; 64]) -> Option<Sample> {
    let mut s = Sample {
        white: [0; 32],
        black: [0; 32],
        len: 0,
        white_to_move: r.side_to_move() == Color::White,
        result: label.result,
        score: label.score,
        base: 0.0,
    };
    if base != Base::None {
        s.base = ox88::eval::evaluate_base(&r.position().ok()?, base) as f32;
    }
    let pieces = r.pieces().ok()?;
    let king_row = |perspective: Color| -> Option<usize> {
        let (sq, _) = pieces.iter().find(|(_, p)| p.kind() == Kind::King && p.color() == perspective)?;
        Some(kings[oriented(perspective, *sq)] as usize * INPUTS)
    };
    let (white_row, black_row) = (king_row(Color::White)?, king_row(Color::Black)?);
    for (sq, piece) in pieces {
        let i = s.len as usize;
        if i == 32 {
            return None;
        }
        s.white[i] = (white_row + feature(Color::White, piece, sq)) as u16;
        s.black[i] = (black_row + feature(Color::Black, piece, sq)) as u16;
        s.len += 1;
    }
    Some(s)
}

/// The scale of the data's scores: the K that best predicts results from them.
fn fit_k(samples: &[Sample]) -> f64 {
    let err = |k: f64| -> f64 {
        let (mut e, mut n) = (0.0, 0usize);
        for s in samples {
            if let Some(score) = s.score {
                let d = s.result as f64 - expected_result(k, score as f64);
                e += d * d;
                n += 1;
            }
        }
        e / n.max(1) as f64
    };
    let (mut lo, mut hi) = (0.2f64, 3.0f64);
    for _ in 0..40 {
        let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if err(a) < err(b) {
            hi = b
        } else {
            lo = a
        }
    }
    (lo + hi) / 2.0
}

/// Float weights during training.
#[derive(Clone)]
struct Net {
    /// The hidden layer's width.
    h: usize,
    /// Output buckets.
    buckets: usize,
    /// The king bucket of each square (`nnue::oriented`); the input layer has a set of rows
    /// for each.
    map: [u8; 64],
    w1: Vec<f32>, // kings x INPUTS x h
    b1: Vec<f32>, // h
    w2: Vec<f32>, // buckets x 2 x h
    b2: Vec<f32>, // buckets
}

impl Net {
    fn zero(h: usize, buckets: usize, kings: usize) -> Net {
        Net {
            h,
            buckets,
            map: king_layout(kings).expect("a layout the arguments checked"),
            w1: vec![0.0; kings * INPUTS * h],
            b1: vec![0.0; h],
            w2: vec![0.0; buckets * 2 * h],
            b2: vec![0.0; buckets],
        }
    }

    /// Bucket 0's output weights are drawn first, so one bucket draws what the network of
    /// the same seed did before buckets existed.
    fn random(h: usize, buckets: usize, kings: usize, seed: u64) -> Net {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut n = Net::zero(h, buckets, kings);
        let a = (1.0 / 32f32).sqrt();
        for w in &mut n.w1 {
            *w = rng.gen_range(-a..a);
        }
        let b = (1.0 / (2 * h) as f32).sqrt();
        for w in &mut n.w2 {
            *w = rng.gen_range(-b..b);
        }
        n
    }

    /// The float weights a quantised file stands for, grown to `h` hidden units and
    /// `buckets` output buckets when the file has fewer: the new units get random input
    /// weights (those of `Net::random` for `seed`) and zero output weights, and a one-bucket
    /// file's output layer goes to every bucket and a one-king-bucket file's input layer to
    /// every king bucket, so the grown network evaluates exactly as the file does and
    /// training starts from there.
    fn from_file(path: &str, h: usize, buckets: usize, kings: usize, base: Base, seed: u64) -> Result<Net, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let l = read_layers(&bytes).map_err(|e| format!("{path}: {e}"))?;
        let (h0, buckets0) = (l.b1.len(), l.b2.len());
        let kings0 = l.w1.len() / (INPUTS * h0);
        let mut n = Net::random(h, buckets, kings, seed);
        let same_kings = kings0 == kings && l.kings == n.map;
        if h0 > h || !(buckets0 == buckets || buckets0 == 1) || !(same_kings || kings0 == 1) || l.base != base {
            return Err(format!(
                "{path}: {h0} hidden, {buckets0} buckets, {kings0} king buckets, base {:?}; asked for {h}, \
                 {buckets}, {kings}, {base:?} (a network can be widened, and a one-bucket one given buckets or \
                 king buckets, not the reverse)",
                l.base
            ));
        }
        for k in 0..kings {
            let k0 = if kings0 == 1 { 0 } else { k };
            for (i, row) in l.w1[k0 * INPUTS * h0..(k0 + 1) * INPUTS * h0].chunks_exact(h0).enumerate() {
                for (j, &w) in row.iter().enumerate() {
                    n.w1[(k * INPUTS + i) * h + j] = w as f32 / QA as f32;
                }
            }
        }
        for (dst, &b) in n.b1.iter_mut().zip(&l.b1) {
            *dst = b as f32 / QA as f32;
        }
        n.w2.fill(0.0);
        for k in 0..buckets {
            let k0 = if buckets0 == 1 { 0 } else { k };
            for side in 0..2 {
                for j in 0..h0 {
                    n.w2[(k * 2 + side) * h + j] = l.w2[(k0 * 2 + side) * h0 + j] as f32 / QB as f32;
                }
            }
            n.b2[k] = l.b2[k0] as f32 / (QA * QB) as f32;
        }
        Ok(n)
    }

    fn add(&mut self, o: &Net) {
        for (a, b) in self.w1.iter_mut().zip(&o.w1) {
            *a += b;
        }
        for (a, b) in self.b1.iter_mut().zip(&o.b1) {
            *a += b;
        }
        for (a, b) in self.w2.iter_mut().zip(&o.w2) {
            *a += b;
        }
        for (a, b) in self.b2.iter_mut().zip(&o.b2) {
            *a += b;
        }
    }
}

fn target(s: &Sample, k: f64, lambda: f64) -> f32 {
    let white = match s.score {
        Some(score) => lambda * s.result as f64 + (1.0 - lambda) * expected_result(k, score as f64),
        None => s.result as f64,
    } as f32;
    if s.white_to_move {
        white
    } else {
        1.0 - white
    }
}

/// The squared error of one sample and (with `grad`) its gradient added in.
#[inline]
fn step(net: &Net, s: &Sample, t: f32, grad: Option<&mut Net>) -> f32 {
    let (us, them) = if s.white_to_move { (&s.white, &s.black) } else { (&s.black, &s.white) };
    let n = s.len as usize;
    let h = net.h;
    // One feature per piece, so `n` is the piece count the engine buckets by.
    let k = bucket(n, net.buckets);
    let w2 = &net.w2[k * 2 * h..(k + 1) * 2 * h];
    let mut buffers = [[0f32; MAX_HIDDEN]; 2];
    let [a0, a1] = &mut buffers;
    let acc = [&mut a0[..h], &mut a1[..h]];
    for (side, feats) in [us, them].into_iter().enumerate() {
        acc[side].copy_from_slice(&net.b1);
        for &f in &feats[..n] {
            let row = &net.w1[f as usize * h..(f as usize + 1) * h];
            for (a, w) in acc[side].iter_mut().zip(row) {
                *a += w;
            }
        }
    }
    let mut out = net.b2[k] + s.base;
    for (side, acc) in acc.iter().enumerate() {
        for (j, &a) in acc.iter().enumerate() {
            let c = a.clamp(0.0, 1.0);
            out += c * c * w2[side * h + j];
        }
    }
    let p = 1.0 / (1.0 + (-out).exp());
    let e = p - t;
    if let Some(g) = grad {
        let d_out = 2.0 * e * p * (1.0 - p);
        g.b2[k] += d_out;
        let g_w2 = &mut g.w2[k * 2 * h..(k + 1) * 2 * h];
        for (side, feats) in [us, them].into_iter().enumerate() {
            let mut d_buffer = [0f32; MAX_HIDDEN];
            let d = &mut d_buffer[..h];
            for (j, &a) in acc[side].iter().enumerate() {
                let c = a.clamp(0.0, 1.0);
                g_w2[side * h + j] += d_out * c * c;
                if a > 0.0 && a < 1.0 {
                    d[j] = d_out * w2[side * h + j] * 2.0 * a;
                }
            }
            for (b, x) in g.b1.iter_mut().zip(d.iter()) {
                *b += x;
            }
            for &f in &feats[..n] {
                let row = &mut g.w1[f as usize * h..(f as usize + 1) * h];
                for (w, x) in row.iter_mut().zip(d.iter()) {
                    *w += x;
                }
            }
        }
    }
    e * e
}

/// The mean of `f` over the held-out samples, split over `threads`.
fn held_mean(held: &[Sample], threads: usize, f: impl Fn(&Sample) -> f64 + Sync) -> f64 {
    let chunk = held.len().div_ceil(threads).max(1);
    let f = &f;
    let sum: f64 = std::thread::scope(|scope| {
        let hs: Vec<_> = held.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(f).sum::<f64>())).collect();
        hs.into_iter().map(|h| h.join().expect("thread")).sum()
    });
    sum / held.len() as f64
}

fn held_error(net: &Net, held: &[Sample], threads: usize) -> f64 {
    // Held-out games are judged against their results.
    held_mean(held, threads, |s| step(net, s, target(s, 1.0, 1.0), None) as f64)
}

/// A network quantised as the engine reads it: `w1`, `b1` at `QA`, `w2` at `QB`, `b2` at
/// `QA * QB`, and the centipawns per unit of the output logit.
struct Quantised {
    h: usize,
    map: [u8; 64],
    w1: Vec<i16>,
    b1: Vec<i16>,
    /// Per bucket, the side to move's half first.
    w2: Vec<i16>,
    b2: Vec<i32>,
    scale: i32,
}

fn quantise(net: &Net, k: f64) -> Quantised {
    let q = |w: &[f32], s: i32| -> Vec<i16> {
        w.iter().map(|&x| (x * s as f32).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16).collect()
    };
    // Logit to centipawns on the scale of the data's scores: 10^(K v / 400) = e^out.
    let scale = (400.0 / (k * std::f64::consts::LN_10)).round() as i32;
    Quantised {
        h: net.h,
        map: net.map,
        w1: q(&net.w1, QA),
        b1: q(&net.b1, QA),
        w2: q(&net.w2, QB),
        b2: net.b2.iter().map(|&b| (b * (QA * QB) as f32).round() as i32).collect(),
        scale,
    }
}

impl Quantised {
    fn file(&self, base: Base) -> Vec<u8> {
        file_bytes(self.scale, base, &self.map, &self.w1, &self.b1, &self.w2, &self.b2)
    }

    /// The network's output in centipawns for the side to move, in the engine's integers:
    /// 16-bit accumulators, the squared clipped activation summed in 32 bits, then scaled.
    fn centipawns(&self, s: &Sample) -> i32 {
        let (us, them) = if s.white_to_move { (&s.white, &s.black) } else { (&s.black, &s.white) };
        let h = self.h;
        // One feature per piece: the piece count the engine buckets by.
        let k = bucket(s.len as usize, self.b2.len());
        let w2 = &self.w2[k * 2 * h..(k + 1) * 2 * h];
        let mut sum = 0i32;
        for (side, feats) in [us, them].into_iter().enumerate() {
            let mut acc_buffer = [0i16; MAX_HIDDEN];
            let acc = &mut acc_buffer[..h];
            acc.copy_from_slice(&self.b1);
            for &f in &feats[..s.len as usize] {
                for (a, w) in acc.iter_mut().zip(&self.w1[f as usize * h..(f as usize + 1) * h]) {
                    *a = a.wrapping_add(*w);
                }
            }
            for (&a, &w) in acc.iter().zip(&w2[side * h..(side + 1) * h]) {
                sum = sum.wrapping_add(activated(a, w));
            }
        }
        centipawns(sum, self.b2[k], self.scale)
    }
}

/// The held-out error of the quantised network, as the engine would play it: what the
/// quantisation costs shows against the float network's error.
fn quantised_error(q: &Quantised, held: &[Sample], to_logit: f32, threads: usize) -> f64 {
    held_mean(held, threads, |s| {
        let out = s.base + q.centipawns(s) as f32 * to_logit;
        let e = 1.0 / (1.0 + (-out as f64).exp()) - target(s, 1.0, 1.0) as f64;
        e * e
    })
}

fn main() {
    let args = Args::parse();
    let (epochs, lr, lambda, batch, seed) = (args.epochs, args.lr, args.lambda, args.batch, args.seed);
    let threads = args.threads.max(1);
    let base = match (args.residual, args.base) {
        (true, _) => Base::Full,
        (false, b) => b.unwrap_or(Base::None),
    };
    // Read before the data, so that a wrong file is told at once.
    let init = args.init.as_ref().map(|path| {
        Net::from_file(path, args.hidden, args.buckets, args.king_buckets, base, args.seed).unwrap_or_else(|e| {
            eprintln!("cannot start from {e}");
            std::process::exit(2);
        })
    });
    let kings = args.king_buckets;
    let map = king_layout(kings).expect("a layout the arguments checked");
    let (mut train, mut held) = selfplay::training_set(&args.data, threads, |r, label| sample(r, label, base, &map));
    let k = fit_k(&train);
    eprintln!("K = {k:.4} (scores to results)");
    let to_logit = (k * std::f64::consts::LN_10 / 400.0) as f32;
    for s in train.iter_mut().chain(held.iter_mut()) {
        s.base *= to_logit;
    }
    let buckets = args.buckets;
    if buckets > 1 {
        let mut per_bucket = vec![0usize; buckets];
        for s in &train {
            per_bucket[bucket(s.len as usize, buckets)] += 1;
        }
        eprintln!("positions fitted per output bucket: {per_bucket:?}");
    }
    if base != Base::None {
        let base_only = Net::zero(args.hidden, buckets, kings);
        eprintln!("hand-written evaluation alone ({base:?}): held out {:.6}", held_error(&base_only, &held, threads));
    }
    let targets: Vec<f32> = train.iter().map(|s| target(s, k, lambda)).collect();

    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let h = args.hidden;
    let mut net = init.unwrap_or_else(|| Net::random(h, buckets, kings, seed));
    let (mut m, mut v) = (Net::zero(h, buckets, kings), Net::zero(h, buckets, kings));
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut t = 0i32;
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut best = (held_error(&net, &held, threads), net.clone(), 0);
    if let Some(path) = &args.init {
        eprintln!("epoch   0: held out {:.6} ({path} as it is)", best.0);
    }
    let started = std::time::Instant::now();
    let total_steps = epochs * order.len().div_ceil(batch);
    let decay = args.weight_decay;
    for epoch in 1..=epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.gen_range(0..=i));
        }
        let mut train_err = 0f64;
        for idx in order.chunks(batch) {
            let chunk = idx.len().div_ceil(threads).max(1);
            let parts: Vec<(Net, f64)> = std::thread::scope(|scope| {
                let hs: Vec<_> = idx
                    .chunks(chunk)
                    .map(|part| {
                        let (net, train, targets) = (&net, &train, &targets);
                        scope.spawn(move || {
                            let mut g = Net::zero(h, buckets, kings);
                            let mut e = 0f64;
                            for &i in part {
                                e += step(net, &train[i as usize], targets[i as usize], Some(&mut g)) as f64;
                            }
                            (g, e)
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().expect("thread")).collect()
            });
            let mut g = Net::zero(h, buckets, kings);
            for (p, e) in parts {
                g.add(&p);
                train_err += e;
            }
            let rate = step_size(args.schedule, lr, epoch, epochs, t as usize, total_steps);
            t += 1;
            let scale = 1.0 / idx.len() as f32;
            let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
            let adam = |x: &mut f32, g: f32, m: &mut f32, v: &mut f32| {
                let g = g * scale;
                *m = b1 * *m + (1.0 - b1) * g;
                *v = b2 * *v + (1.0 - b2) * g * g;
                *x -= rate * (*m / c1) / ((*v / c2).sqrt() + eps);
            };
            for i in 0..net.w1.len() {
                // Rows of absent features have no gradient: leave their moments alone.
                if g.w1[i] != 0.0 {
                    if decay != 0.0 {
                        net.w1[i] -= rate * decay * net.w1[i];
                    }
                    adam(&mut net.w1[i], g.w1[i], &mut m.w1[i], &mut v.w1[i]);
                    net.w1[i] = net.w1[i].clamp(-CLIP, CLIP);
                }
            }
            for i in 0..h {
                adam(&mut net.b1[i], g.b1[i], &mut m.b1[i], &mut v.b1[i]);
                net.b1[i] = net.b1[i].clamp(-CLIP, CLIP);
            }
            // A bucket no position of the step falls in has no gradient: leave its weights
            // and moments alone, as for absent features (every step uses the one bucket
            // of a plain network).
            let mut used = vec![false; buckets];
            for &i in idx {
                used[bucket(train[i as usize].len as usize, buckets)] = true;
            }
            for k in (0..buckets).filter(|&k| used[k]) {
                for i in k * 2 * h..(k + 1) * 2 * h {
                    if decay != 0.0 {
                        net.w2[i] -= rate * decay * net.w2[i];
                    }
                    adam(&mut net.w2[i], g.w2[i], &mut m.w2[i], &mut v.w2[i]);
                    net.w2[i] = net.w2[i].clamp(-CLIP, CLIP);
                }
                adam(&mut net.b2[k], g.b2[k], &mut m.b2[k], &mut v.b2[k]);
            }
        }
        let h = held_error(&net, &held, threads);
        if h < best.0 {
            best = (h, net.clone(), epoch);
        }
        eprintln!(
            "epoch {epoch:3}: train {:.6}, held out {h:.6} (best {:.6} at {}), {:.0} s",
            train_err / train.len() as f64,
            best.0,
            best.2,
            started.elapsed().as_secs_f64()
        );
    }
    let q = quantise(&best.1, k);
    eprintln!("held out with the quantised network: {:.6}", quantised_error(&q, &held, to_logit, threads));
    let out = &args.out;
    match std::fs::write(out, q.file(base)) {
        Ok(()) => eprintln!("wrote {out} (epoch {}, held out {:.6}, scale {})", best.2, best.0, q.scale),
        Err(e) => {
            eprintln!("cannot write {out}: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain network given king buckets starts with its rows in every bucket, as the
    /// engine's test of the same rows in every bucket needs; a wider layout cannot be shrunk.
    #[test]
    fn a_plain_network_goes_to_every_king_bucket() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/n12.nnue");
        let plain = Net::from_file(path, 256, 1, 1, Base::Light, 1).expect("n12");
        let kinged = Net::from_file(path, 256, 1, 4, Base::Light, 1).expect("n12 with king buckets");
        assert_eq!(kinged.map, king_layout(4).expect("the four-bucket layout"));
        assert_eq!(kinged.w1.len(), 4 * plain.w1.len());
        for rows in kinged.w1.chunks_exact(plain.w1.len()) {
            assert!(rows == &plain.w1[..]);
        }
        let file = std::env::temp_dir().join(format!("ox88-train-kings-{}.nnue", std::process::id()));
        std::fs::write(&file, quantise(&kinged, 1.0).file(Base::Light)).expect("write");
        let file = file.to_str().expect("a UTF-8 temp path");
        assert!(Net::from_file(file, 256, 1, 4, Base::Light, 1).is_ok());
        assert!(Net::from_file(file, 256, 1, 7, Base::Light, 1).is_err(), "four king buckets are not seven");
        assert!(Net::from_file(file, 256, 1, 1, Base::Light, 1).is_err(), "nor one");
        let _ = std::fs::remove_file(file);
    }

    #[test]
    fn the_step_schedule_drops_to_a_tenth_for_the_last_third() {
        let at = |epoch| step_size(Schedule::Step, 0.001, epoch, 12, 0, 1);
        assert_eq!((at(1), at(8)), (0.001, 0.001));
        assert_eq!((at(9), at(12)), (0.001 / 10.0, 0.001 / 10.0));
    }

    #[test]
    fn the_cosine_schedule_falls_smoothly_from_the_rate_to_a_hundredth() {
        let total = 1000;
        let sizes: Vec<f32> = (0..=total).map(|t| step_size(Schedule::Cosine, 0.001, 1, 10, t, total)).collect();
        assert!((sizes[0] - 0.001).abs() < 1e-9);
        assert!((sizes[total / 2] - (0.001 + 0.00001) / 2.0).abs() < 1e-7, "halfway: {}", sizes[total / 2]);
        assert!((sizes[total] - 0.00001).abs() < 1e-9);
        assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "never rises");
    }
}
