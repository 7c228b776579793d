//! The evaluation network: one hidden layer over piece-square inputs, trained on ox88's own
//! self-play by `tools/nnue_train.rs`, embedded in the binary and read at compile time.
//! Another file of the same shape may replace it at run time (`EvalFile`,
//! [`Network::load`]); the search is given the network it plays with.
//!
//! Inputs: for each side that looks at the board (the "perspective"), 768 features, one per
//! (own or enemy piece, kind, square seen from that side: ranks mirrored for Black), so one
//! set of weights serves both sides. Each perspective sums the weight rows of the pieces on
//! the board into `HIDDEN` 16-bit accumulators; the side to move's accumulator comes first
//! in the output layer. The activation is a squared clipped ReLU, the output a logit, turned
//! into centipawns by the network's own `scale` (fitted to the search scores of its data).
//!
//! King buckets: the input layer may hold several sets of the 768 rows, one per region of
//! the board where the perspective's own king stands (the file's map, [`Network::kings`]),
//! so that a piece's worth can depend on where its own king is. A king move into another
//! region takes that perspective's last accumulator of the region and sums only the squares
//! changed since ([`AccumulatorStack`]). One king bucket is the plain network.
//!
//! Output buckets: the output layer may hold several sets of weights and biases, one per
//! band of material (the number of pieces on the board, [`bucket`]), so that an end game and
//! a middle game read the same hidden layer differently. The file says how many
//! ([`BUCKETS`]); one bucket is the plain network.
//!
//! Quantisation: first-layer weights and biases times `QA`, output weights times `QB`,
//! so the accumulators are exact integers and incremental updates never drift.

use crate::piece::{Color, Piece};
use crate::position::Position;
use crate::square::Square;

mod format;
mod kings;
mod simd;
mod stack;

use format::{embedded_header, parse, Header};
pub use format::{file_bytes, read_layers, Layers, NetworkFileError, NetworkLoadError};
#[cfg(test)]
use format::{read_header, read_i32, MAGIC, MAGIC_BASE, MAGIC_BUCKETS, MAGIC_KINGS};
pub use kings::{king_layout, oriented, KING_LAYOUTS, MAX_KINGS};
pub use stack::AccumulatorStack;

pub const INPUTS: usize = 768;
/// The embedded file's header: its width, bucket counts and base are this build's.
const EMBEDDED_HEADER: Header = embedded_header(EMBEDDED);
/// The hidden layer's width, read from the embedded file: a wider network is a new file,
/// not a code change (the SIMD paths want a multiple of 16, which the reader checks).
pub const HIDDEN: usize = EMBEDDED_HEADER.hidden;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The number of output buckets, read from the embedded file like `HIDDEN`.
pub const BUCKETS: usize = EMBEDDED_HEADER.buckets;
/// One bucket per piece count (2 to 32) at most: more could never all be used.
pub const MAX_BUCKETS: usize = 31;
/// The number of king buckets, read from the embedded file like `HIDDEN`.
pub const KINGS: usize = EMBEDDED_HEADER.kings;

/// What a network's output is added to: it was trained on what that base leaves unexplained,
/// so the engine must evaluate with the same base.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum Base {
    /// Every hand-written term (`eval::evaluate_hand`).
    Full = 0,
    /// The cheap hand-written terms only: material, piece-square values, pawn structure,
    /// king shield, passed pawns with the kings, the bishop pair and end-game knowledge; no
    /// mobility, king attack, threats or rooks on open files, which need each piece's reach.
    Light = 1,
    /// Nothing: the network is the whole evaluation.
    None = 2,
}

impl Base {
    /// The base's code in a file header (its discriminant).
    const fn from_code(code: u32) -> Option<Base> {
        match code {
            0 => Some(Base::Full),
            1 => Some(Base::Light),
            2 => Some(Base::None),
            _ => None,
        }
    }

    /// The base's name, as the trainer's `--base` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Base::Full => "full",
            Base::Light => "light",
            Base::None => "none",
        }
    }
}

/// The base the embedded network corrects.
pub const BASE: Base = EMBEDDED_HEADER.base;

/// The output bucket of a position with `pieces` on the board (kings included: 2 to 32) in a
/// network of `buckets`: the 31 piece counts cut into `buckets` runs of near-equal length,
/// fewest pieces first, by `(pieces - 2) * buckets / 31`. With 8 buckets that is
/// `(pieces - 2) / 4`: 2 to 5 pieces in bucket 0, ..., 30 to 32 in bucket 7. The trainer and
/// the engine share this rule, so a network is read as it was trained.
#[inline(always)]
pub const fn bucket(pieces: usize, buckets: usize) -> usize {
    if buckets == 1 {
        return 0;
    }
    // A board never holds fewer than the two kings or more than 32 pieces; clamp anyway,
    // since a wrong bucket costs only accuracy but an index past the last costs a panic.
    let past_kings = if pieces < 2 {
        0
    } else if pieces > 32 {
        30
    } else {
        pieces - 2
    };
    past_kings * buckets / 31
}

/// A quantised network with `B` output buckets and `K` king buckets (the embedded network's
/// by default). The engine plays with `Network`; tests build others to check the format and
/// the buckets.
#[derive(Clone)]
pub struct Network<const B: usize = BUCKETS, const K: usize = KINGS> {
    /// Per king bucket, a row of `HIDDEN` weights for each of the 768 inputs.
    pub w1: [[i16; INPUTS * HIDDEN]; K],
    pub b1: [i16; HIDDEN],
    /// Per bucket, the output weights: the side to move's half first.
    pub w2: [[i16; 2 * HIDDEN]; B],
    pub b2: [i32; B],
    /// Centipawns per unit of the output logit.
    pub scale: i32,
    /// What the output is added to.
    pub base: Base,
    /// The king bucket of each square of a perspective's own king, as that side sees the
    /// board ([`oriented`]); every entry is below `K` (the readers check it).
    pub kings: [u8; 64],
}

/// The input index of `piece` on `sq` as `perspective` sees it.
#[inline(always)]
pub const fn feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    let own = piece.color() as usize == perspective as usize;
    let square = match perspective {
        Color::White => sq.index64(),
        Color::Black => sq.index64() ^ 56,
    };
    (if own { 0 } else { 384 }) + piece.kind().index() * 64 + square
}

impl<const B: usize, const K: usize> Network<B, K> {
    pub fn to_bytes(&self) -> Vec<u8> {
        let w1: Vec<i16> = self.w1.iter().flatten().copied().collect();
        let w2: Vec<i16> = self.w2.iter().flatten().copied().collect();
        file_bytes(self.scale, self.base, &self.kings, &w1, &self.b1, &w2, &self.b2)
    }

    /// A network of zeros on the heap: a king-bucketed one is megabytes, more than a
    /// thread's stack may hold on its way to the heap.
    pub(crate) fn boxed_zero() -> Box<Network<B, K>> {
        let layout = std::alloc::Layout::new::<Network<B, K>>();
        // SAFETY: the layout is the type's own (never of size 0: it holds the biases); every
        // field is an integer, an array of integers or a `Base` (`repr(u32)`, whose 0 is
        // `Base::Full`), so the zeroed memory is a valid value, which the box then owns.
        unsafe {
            let p = std::alloc::alloc_zeroed(layout) as *mut Network<B, K>;
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(p)
        }
    }

    /// The king bucket `perspective` reads its inputs through, with its king on `king`.
    #[inline(always)]
    pub fn king_bucket(&self, perspective: Color, king: Square) -> usize {
        if K == 1 {
            0
        } else {
            self.kings[oriented(perspective, king)] as usize
        }
    }

    /// The weights of input `f` in king bucket `kb`.
    #[inline(always)]
    pub(crate) fn row(&self, kb: usize, f: usize) -> &[i16] {
        &self.w1[kb][f * HIDDEN..(f + 1) * HIDDEN]
    }

    /// `perspective`'s accumulator of `pos` from scratch.
    fn refresh_side(&self, pos: &Position, perspective: Color) -> Accumulator {
        let kb = self.king_bucket(perspective, pos.king(perspective));
        let mut acc = Accumulator(self.b1);
        for c in [Color::White, Color::Black] {
            for &sq in pos.pieces(c) {
                acc.add(self.row(kb, feature(perspective, pos.piece_at(sq), sq)));
            }
        }
        acc
    }
}

/// The network file compiled into the binary, one of `nets/` (docs/networks.md says how each
/// was made and which one plays).
#[cfg(not(ox88_evalfile))]
pub const EMBEDDED: &[u8] = include_bytes!("../nets/n18.nnue");
/// The file named by `OX88_EVALFILE` when the binary was built (`make EVALFILE=...`; the
/// build script makes the path absolute), embedded instead of the default.
#[cfg(ox88_evalfile)]
pub const EMBEDDED: &[u8] = include_bytes!(env!("OX88_EVALFILE_PATH"));
/// The embedded network: the default of every search, and what `EvalFile` falls back to.
// A king-bucketed file has millions of weights to read at compile time: more steps than the
// compiler's patience for a constant, which is a lint, not a limit.
#[allow(long_running_const_eval)]
pub static NETWORK: Network = parse(EMBEDDED);

/// One perspective's hidden sums.
#[derive(Clone, Copy)]
#[repr(align(64))]
pub struct Accumulator(pub [i16; HIDDEN]);

impl Accumulator {
    #[inline]
    pub fn add(&mut self, row: &[i16]) {
        for (a, w) in self.0.iter_mut().zip(row) {
            *a = a.wrapping_add(*w);
        }
    }
}

/// Both perspectives' accumulators from scratch (White's first).
pub fn refresh<const B: usize, const K: usize>(net: &Network<B, K>, pos: &Position) -> [Accumulator; 2] {
    [net.refresh_side(pos, Color::White), net.refresh_side(pos, Color::Black)]
}

/// The output in centipawns for the side whose accumulator is `us`, through the output
/// weights of `bucket`.
#[inline]
pub fn output<const B: usize, const K: usize>(
    net: &Network<B, K>,
    us: &Accumulator,
    them: &Accumulator,
    bucket: usize,
) -> i32 {
    let w2 = &net.w2[bucket];
    let sum = simd::activated_dot(&us.0, &w2[..HIDDEN]) + simd::activated_dot(&them.0, &w2[HIDDEN..]);
    centipawns(sum, net.b2[bucket], net.scale)
}

/// One hidden unit's share of the output sum: the accumulator clipped to `0..=QA`, squared,
/// times its output weight, with the 16-bit product `c * w` of the SIMD paths (exact for
/// the trainer's clipped weights).
#[inline(always)]
pub const fn activated(acc: i16, w: i16) -> i32 {
    let c = if acc < 0 {
        0
    } else if acc > QA as i16 {
        QA as i16
    } else {
        acc
    };
    (c.wrapping_mul(w) as i32).wrapping_mul(c as i32)
}

/// The output in centipawns from the activated sum of both halves (at `QA * QA * QB`), the
/// bucket's bias (at `QA * QB`) and the network's scale. The trainer measures its quantised
/// network through this too, so what it reports is what the engine plays.
#[inline(always)]
pub const fn centipawns(sum: i32, bias: i32, scale: i32) -> i32 {
    let raw = sum / QA + bias;
    (raw as i64 * scale as i64 / (QA * QB) as i64) as i32
}

/// The network's output for the side to move of `pos`, from scratch.
pub fn evaluate<const B: usize, const K: usize>(net: &Network<B, K>, pos: &Position) -> i32 {
    output_for(net, &refresh(net, pos), pos)
}

/// The network's output for the side to move of `pos`, from the accumulators of `pos`, through
/// the output bucket of its piece count (which the piece lists keep, so it costs two loads).
#[inline]
pub fn output_for<const B: usize, const K: usize>(net: &Network<B, K>, acc: &[Accumulator; 2], pos: &Position) -> i32 {
    let s = pos.side_to_move().index();
    let pieces = pos.pieces(Color::White).len() + pos.pieces(Color::Black).len();
    output(net, &acc[s], &acc[1 - s], bucket(pieces, B))
}

#[cfg(test)]
mod tests;
