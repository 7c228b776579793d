//! The evaluation network: one hidden layer over piece-square inputs, trained on ox88's own
//! self-play by `tools/nnue_train.rs`, embedded in the binary and read at compile time.
//!
//! Inputs: for each side that looks at the board (the "perspective"), 768 features, one per
//! (own or enemy piece, kind, square seen from that side: ranks mirrored for Black), so one
//! set of weights serves both sides. Each perspective sums the weight rows of the pieces on
//! the board into `HIDDEN` 16-bit accumulators; the side to move's accumulator comes first
//! in the output layer. The activation is a squared clipped ReLU, the output a logit, turned
//! into centipawns by the network's own `scale` (fitted to the search scores of its data).
//!
//! Output buckets: the output layer may hold several sets of weights and biases, one per
//! band of material (the number of pieces on the board, [`bucket`]), so that an end game and
//! a middle game read the same hidden layer differently. The file says how many
//! ([`BUCKETS`]); one bucket is the plain network.
//!
//! Quantisation: first-layer weights and biases times `QA`, output weights times `QB`,
//! so the accumulators are exact integers and incremental updates never drift.

use crate::mv::Move;
use crate::piece::{Color, Piece};
use crate::position::Position;
use crate::square::Square;
use crate::value::MAX_PLY;

mod simd;

pub const INPUTS: usize = 768;
/// The hidden layer's width, read from the embedded file: a wider network is a new file,
/// not a code change (the SIMD paths want a multiple of 16).
pub const HIDDEN: usize = read_i32(EMBEDDED, 8) as usize;
const _: () = assert!(HIDDEN > 0 && HIDDEN.is_multiple_of(16), "network file: hidden size must be a multiple of 16");
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The number of output buckets, read from the embedded file like `HIDDEN`.
pub const BUCKETS: usize = header(EMBEDDED).buckets;
/// One bucket per piece count (2 to 32) at most: more could never all be used.
pub const MAX_BUCKETS: usize = 31;

/// The first format: a residual network over the full hand-written evaluation (n1, n2).
const MAGIC: &[u8; 8] = b"OX88NNUE";
/// The second: the header names the [`Base`] the network was trained on.
const MAGIC_BASE: &[u8; 8] = b"OX88NNB2";
/// The third: the header also gives the number of output buckets (2 or more; a network of
/// one bucket keeps one of the formats above, so its file stays what it was).
const MAGIC_BUCKETS: &[u8; 8] = b"OX88NNB3";

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
}

/// The base the embedded network corrects.
pub const BASE: Base = header(EMBEDDED).base;

const fn has_magic(b: &[u8], magic: &[u8; 8]) -> bool {
    let mut i = 0;
    while i < 8 {
        if b[i] != magic[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// What a file's header says beyond the hidden size and the scale.
struct Header {
    base: Base,
    buckets: usize,
    /// Where the weights start.
    len: usize,
}

/// Why a network file cannot be read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NetworkFileError {
    /// Too short for its header, or none of the three magics.
    BadMagic,
    UnknownBase,
    BucketCount,
    /// The hidden size is not a multiple of 16 (what the SIMD paths need).
    HiddenSize,
    /// The length does not match what the header announces.
    Length,
}

impl std::fmt::Display for NetworkFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NetworkFileError::BadMagic => "not an ox88 network file (bad magic)",
            NetworkFileError::UnknownBase => "unknown base code",
            NetworkFileError::BucketCount => "output bucket count out of range",
            NetworkFileError::HiddenSize => "hidden size is not a positive multiple of 16",
            NetworkFileError::Length => "file length does not match its header",
        })
    }
}

impl std::error::Error for NetworkFileError {}

const fn try_header(b: &[u8]) -> Result<Header, NetworkFileError> {
    if b.len() < 24 {
        return Err(NetworkFileError::BadMagic);
    }
    let (base, buckets, len) = if has_magic(b, MAGIC) {
        (Some(Base::Full), 1, 16)
    } else if has_magic(b, MAGIC_BASE) {
        (Base::from_code(read_i32(b, 16) as u32), 1, 20)
    } else if has_magic(b, MAGIC_BUCKETS) {
        let buckets = read_i32(b, 20) as u32 as usize;
        if buckets < 2 || buckets > MAX_BUCKETS {
            return Err(NetworkFileError::BucketCount);
        }
        (Base::from_code(read_i32(b, 16) as u32), buckets, 24)
    } else {
        return Err(NetworkFileError::BadMagic);
    };
    match base {
        Some(base) => Ok(Header { base, buckets, len }),
        None => Err(NetworkFileError::UnknownBase),
    }
}

const fn header(b: &[u8]) -> Header {
    match try_header(b) {
        Ok(h) => h,
        Err(NetworkFileError::BadMagic) => panic!("network file: bad magic"),
        Err(NetworkFileError::UnknownBase) => panic!("network file: unknown base"),
        Err(NetworkFileError::BucketCount) => panic!("network file: bucket count out of range"),
        Err(_) => panic!("network file: bad header"),
    }
}

/// A network file of any width and bucket count, as its integers: what the trainer starts
/// from when it refines a network (`--init`).
pub struct Layers {
    pub scale: i32,
    pub base: Base,
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    /// Bucket by bucket, the side to move's half first.
    pub w2: Vec<i16>,
    pub b2: Vec<i32>,
}

/// The length of a file whose header is `header_len` bytes: the 16-bit layers, then a 32-bit
/// output bias per bucket.
const fn file_len(header_len: usize, hidden: usize, buckets: usize) -> usize {
    header_len + 2 * (INPUTS * hidden + hidden + 2 * hidden * buckets) + 4 * buckets
}

/// Reads what [`file_bytes`] writes.
pub fn read_layers(b: &[u8]) -> Result<Layers, NetworkFileError> {
    let h = try_header(b)?;
    let hidden = read_i32(b, 8) as u32 as usize;
    if hidden == 0 || !hidden.is_multiple_of(16) || hidden > 4096 {
        return Err(NetworkFileError::HiddenSize);
    }
    if b.len() != file_len(h.len, hidden, h.buckets) {
        return Err(NetworkFileError::Length);
    }
    let mut l = Layers {
        scale: read_i32(b, 12),
        base: h.base,
        w1: vec![0; INPUTS * hidden],
        b1: vec![0; hidden],
        w2: vec![0; 2 * hidden * h.buckets],
        b2: vec![0; h.buckets],
    };
    let mut at = read_i16s(b, h.len, &mut l.w1);
    at = read_i16s(b, at, &mut l.b1);
    at = read_i16s(b, at, &mut l.w2);
    for x in l.b2.iter_mut() {
        *x = read_i32(b, at);
        at += 4;
    }
    Ok(l)
}

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

/// A quantised network with `B` output buckets (the embedded network's by default). The
/// engine plays with `Network`; tests build others to check the format and the buckets.
#[derive(Clone)]
pub struct Network<const B: usize = BUCKETS> {
    pub w1: [i16; INPUTS * HIDDEN],
    pub b1: [i16; HIDDEN],
    /// Per bucket, the output weights: the side to move's half first.
    pub w2: [[i16; 2 * HIDDEN]; B],
    pub b2: [i32; B],
    /// Centipawns per unit of the output logit.
    pub scale: i32,
    /// What the output is added to.
    pub base: Base,
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

impl<const B: usize> Network<B> {
    pub fn to_bytes(&self) -> Vec<u8> {
        let w2: Vec<i16> = self.w2.iter().flatten().copied().collect();
        file_bytes(self.scale, self.base, &self.w1, &self.b1, &w2, &self.b2)
    }
}

/// A network file of any width (`b1.len()`) and any number of output buckets (`b2.len()`):
/// magic, hidden size (u32), scale (i32), the base (u32, only after [`MAGIC_BASE`] or
/// [`MAGIC_BUCKETS`]), the number of buckets (u32, only after [`MAGIC_BUCKETS`]), then
/// `w1`, `b1`, `w2` (bucket by bucket) as little-endian `i16` and the buckets' `b2` as `i32`.
/// A network of one bucket keeps the older formats (the first for a full base, the second
/// for the others), so their files stay byte for byte what they were. The trainer writes
/// networks wider or narrower than the engine's with it.
pub fn file_bytes(scale: i32, base: Base, w1: &[i16], b1: &[i16], w2: &[i16], b2: &[i32]) -> Vec<u8> {
    let (hidden, buckets) = (b1.len(), b2.len());
    assert!(w1.len() == INPUTS * hidden && w2.len() == 2 * hidden * buckets, "network layers of different widths");
    assert!((1..=MAX_BUCKETS).contains(&buckets), "{buckets} output buckets");
    let mut out = Vec::with_capacity(24 + 2 * (w1.len() + b1.len() + w2.len()) + 4 * buckets);
    out.extend_from_slice(match (buckets, base) {
        (1, Base::Full) => MAGIC,
        (1, _) => MAGIC_BASE,
        _ => MAGIC_BUCKETS,
    });
    out.extend_from_slice(&(hidden as u32).to_le_bytes());
    out.extend_from_slice(&scale.to_le_bytes());
    if buckets > 1 || base != Base::Full {
        out.extend_from_slice(&(base as u32).to_le_bytes());
    }
    if buckets > 1 {
        out.extend_from_slice(&(buckets as u32).to_le_bytes());
    }
    for x in w1.iter().chain(b1).chain(w2) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for x in b2 {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

const fn read_i16(b: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([b[at], b[at + 1]])
}

const fn read_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Fills `out` with the little-endian `i16`s of `b` from `at`; returns where they end.
const fn read_i16s(b: &[u8], mut at: usize, out: &mut [i16]) -> usize {
    let mut i = 0;
    while i < out.len() {
        out[i] = read_i16(b, at);
        at += 2;
        i += 1;
    }
    at
}

/// Reads a network file of `B` buckets; run at compile time on the embedded file, where a
/// malformed file stops the build.
const fn parse<const B: usize>(b: &[u8]) -> Network<B> {
    let header = header(b);
    assert!(header.buckets == B, "network file: a different number of output buckets");
    assert!(read_i32(b, 8) as usize == HIDDEN, "network file: hidden size differs from the embedded network's");
    assert!(b.len() == file_len(header.len, HIDDEN, B), "network file: wrong length");
    let mut net = Network {
        w1: [0; INPUTS * HIDDEN],
        b1: [0; HIDDEN],
        w2: [[0; 2 * HIDDEN]; B],
        b2: [0; B],
        scale: read_i32(b, 12),
        base: header.base,
    };
    let mut at = read_i16s(b, header.len, &mut net.w1);
    at = read_i16s(b, at, &mut net.b1);
    let mut k = 0;
    while k < B {
        at = read_i16s(b, at, &mut net.w2[k]);
        k += 1;
    }
    let mut k = 0;
    while k < B {
        net.b2[k] = read_i32(b, at);
        at += 4;
        k += 1;
    }
    net
}

/// The network file compiled into the binary, one of `nets/` (docs/networks.md says how each
/// was made and which one plays).
pub const EMBEDDED: &[u8] = include_bytes!("../nets/n7.nnue");
/// The network ox88 plays with.
pub static NETWORK: Network = parse(EMBEDDED);

/// One perspective's hidden sums.
#[derive(Clone, Copy)]
#[repr(align(64))]
pub struct Accumulator(pub [i16; HIDDEN]);

impl Accumulator {
    #[inline]
    pub fn add<const B: usize>(&mut self, net: &Network<B>, f: usize) {
        let row = &net.w1[f * HIDDEN..(f + 1) * HIDDEN];
        for (a, w) in self.0.iter_mut().zip(row) {
            *a = a.wrapping_add(*w);
        }
    }

    #[inline]
    pub fn sub<const B: usize>(&mut self, net: &Network<B>, f: usize) {
        let row = &net.w1[f * HIDDEN..(f + 1) * HIDDEN];
        for (a, w) in self.0.iter_mut().zip(row) {
            *a = a.wrapping_sub(*w);
        }
    }
}

/// Both perspectives' accumulators from scratch (White's first).
pub fn refresh<const B: usize>(net: &Network<B>, pos: &Position) -> [Accumulator; 2] {
    let mut acc = [Accumulator(net.b1), Accumulator(net.b1)];
    for c in [Color::White, Color::Black] {
        for &sq in pos.pieces(c) {
            let piece = pos.piece_at(sq);
            acc[0].add(net, feature(Color::White, piece, sq));
            acc[1].add(net, feature(Color::Black, piece, sq));
        }
    }
    acc
}

/// The output in centipawns for the side whose accumulator is `us`, through the output
/// weights of `bucket`.
#[inline]
pub fn output<const B: usize>(net: &Network<B>, us: &Accumulator, them: &Accumulator, bucket: usize) -> i32 {
    let w2 = &net.w2[bucket];
    let sum = simd::activated_dot(&us.0, &w2[..HIDDEN]) + simd::activated_dot(&them.0, &w2[HIDDEN..]);
    let raw = sum / QA + net.b2[bucket];
    (raw as i64 * net.scale as i64 / (QA * QB) as i64) as i32
}

/// The network's output for the side to move of `pos`, from scratch.
pub fn evaluate<const B: usize>(net: &Network<B>, pos: &Position) -> i32 {
    output_for(net, &refresh(net, pos), pos)
}

/// What a move changes on the board, as feature rows: at most two pieces placed and two
/// lifted (castling, a capture). A null move changes nothing.
#[derive(Clone, Copy)]
struct Delta {
    adds: [(Piece, Square); 2],
    subs: [(Piece, Square); 2],
    n_add: u8,
    n_sub: u8,
}

impl Delta {
    const NULL: Delta = Delta {
        adds: [(Piece::NONE, Square::from_index64(0)); 2],
        subs: [(Piece::NONE, Square::from_index64(0)); 2],
        n_add: 0,
        n_sub: 0,
    };

    fn of(pos: &Position, m: Move) -> Delta {
        let (from, to) = (m.from(), m.to());
        let piece = pos.piece_at(from);
        let mut d = Delta { adds: [(piece, to); 2], subs: [(piece, from); 2], n_add: 1, n_sub: 1 };
        if m.is_castle() {
            let rook = pos.piece_at(to);
            d.adds = [(piece, m.castle_king_target()), (rook, m.castle_rook_target())];
            d.subs[1] = (rook, to);
            d.n_add = 2;
            d.n_sub = 2;
        } else {
            let captured_sq = m.captured_square(piece.color());
            let captured = pos.piece_at(captured_sq);
            if captured.is_some() {
                d.subs[1] = (captured, captured_sq);
                d.n_sub = 2;
            }
            if let Some(kind) = m.promotion_kind() {
                d.adds[0] = (Piece::new(piece.color(), kind), to);
            }
        }
        d
    }
}

/// The accumulators along a search path: entry `ply` belongs to the position at that ply.
/// A move made records only what it changes; the entry is derived from the one before, by
/// those few rows instead of summing every piece again, when an evaluation first asks for it.
/// Many nodes never evaluate (a hash cut-off, an evaluation found in the cache), and their
/// updates are never paid for.
pub struct AccumulatorStack {
    acc: Box<[[Accumulator; 2]; MAX_PLY + 4]>,
    /// `delta[p]` turns entry `p - 1` into entry `p`.
    delta: Box<[Delta; MAX_PLY + 4]>,
    computed: [bool; MAX_PLY + 4],
}

impl Default for AccumulatorStack {
    fn default() -> Self {
        AccumulatorStack {
            acc: Box::new([[Accumulator([0; HIDDEN]); 2]; MAX_PLY + 4]),
            delta: Box::new([Delta::NULL; MAX_PLY + 4]),
            computed: [false; MAX_PLY + 4],
        }
    }
}

impl AccumulatorStack {
    /// Sets the root (ply 0) from scratch.
    pub fn set_root<const B: usize>(&mut self, net: &Network<B>, pos: &Position) {
        self.acc[0] = refresh(net, pos);
        self.computed[0] = true;
    }

    /// Records `m`, played in `pos` (the position before the move), as the step to `ply + 1`.
    #[inline]
    pub fn push(&mut self, ply: usize, pos: &Position, m: Move) {
        self.delta[ply + 1] = Delta::of(pos, m);
        self.computed[ply + 1] = false;
    }

    /// The step to `ply + 1` is a null move: the pieces stay.
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        self.delta[ply + 1] = Delta::NULL;
        self.computed[ply + 1] = false;
    }

    /// The accumulators of the position at `ply` (White's first), derived now from the
    /// nearest entry below that is up to date.
    #[inline]
    pub fn get<const B: usize>(&mut self, net: &Network<B>, ply: usize) -> &[Accumulator; 2] {
        let mut base = ply;
        while !self.computed[base] {
            base -= 1;
        }
        for p in base + 1..=ply {
            self.derive(net, p);
            self.computed[p] = true;
        }
        &self.acc[ply]
    }

    fn derive<const B: usize>(&mut self, net: &Network<B>, p: usize) {
        let d = self.delta[p];
        let (before, after) = self.acc.split_at_mut(p);
        let prev = &before[p - 1];
        let next = &mut after[0];
        if d.n_add == 0 {
            *next = *prev;
            return;
        }
        for (side, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let row = |(piece, sq): (Piece, Square)| {
                let f = feature(perspective, piece, sq);
                &net.w1[f * HIDDEN..(f + 1) * HIDDEN]
            };
            let sub1 = (d.n_sub == 2).then(|| row(d.subs[1]));
            simd::update(&mut next[side].0, &prev[side].0, row(d.adds[0]), row(d.subs[0]), sub1);
            if d.n_add == 2 {
                next[side].add(net, feature(perspective, d.adds[1].0, d.adds[1].1));
            }
        }
    }
}

/// The network's output for the side to move of `pos`, from the accumulators of `pos`, through
/// the output bucket of its piece count (which the piece lists keep, so it costs two loads).
#[inline]
pub fn output_for<const B: usize>(net: &Network<B>, acc: &[Accumulator; 2], pos: &Position) -> i32 {
    let s = pos.side_to_move().index();
    let pieces = pos.pieces(Color::White).len() + pos.pieces(Color::Black).len();
    output(net, &acc[s], &acc[1 - s], bucket(pieces, B))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Every network in `nets/`, oldest first.
    const KEPT: [&[u8]; 7] = [
        include_bytes!("../nets/n1.nnue"),
        include_bytes!("../nets/n2.nnue"),
        include_bytes!("../nets/n3.nnue"),
        include_bytes!("../nets/n4.nnue"),
        include_bytes!("../nets/n5.nnue"),
        include_bytes!("../nets/n6.nnue"),
        include_bytes!("../nets/n7.nnue"),
    ];

    /// Random games from positions with castling (also Chess960), en passant and promotions:
    /// after every move (and null move) the derived entry must equal a fresh sum.
    #[test]
    fn incremental_updates_match_a_fresh_sum() {
        let fens = [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", false),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", false),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
            ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", false),
            ("rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 3", false),
            ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", true),
            ("2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1", true),
        ];
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut checked = 0;
        for (fen, chess960) in fens {
            for _ in 0..20 {
                let mut pos = Position::from_fen(fen).expect("test FEN");
                pos.set_chess960(chess960);
                let mut stack = AccumulatorStack::default();
                stack.set_root(&NETWORK, &pos);
                for ply in 0..60 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    if rng.gen_range(0..10) == 0 && !pos.in_check() {
                        stack.push_null(ply);
                        pos.make_null();
                    } else {
                        let m = legal[rng.gen_range(0..legal.len())];
                        stack.push(ply, &pos, m);
                        pos.make(m);
                    }
                    // Asked for now and then: an entry may be derived over several plies.
                    if rng.gen_range(0..3) == 0 {
                        let fresh = refresh(&NETWORK, &pos);
                        let derived = stack.get(&NETWORK, ply + 1);
                        for (d, f) in derived.iter().zip(&fresh) {
                            assert_eq!(d.0, f.0, "{fen} after {ply} plies");
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1500, "only {checked} positions checked");
    }

    #[test]
    fn the_file_format_round_trips() {
        let bytes = NETWORK.to_bytes();
        let again: Network = parse(&bytes);
        assert_eq!(again.to_bytes(), bytes);
        assert!(NETWORK.scale > 0, "the embedded network has no scale");
    }

    /// A full-base network of one bucket keeps the first format (so `nets/n1`, `n2` are what
    /// the trainer writes today); the other bases are named in the header and read back.
    /// (One bucket whatever the embedded network has: the bucketed format has its own test.)
    #[test]
    fn the_file_names_its_base() {
        for base in [Base::Full, Base::Light, Base::None] {
            let mut net = bucketed::<1>();
            net.base = base;
            let bytes = net.to_bytes();
            assert_eq!(&bytes[..8], if base == Base::Full { MAGIC } else { MAGIC_BASE });
            let again: Box<Network<1>> = Box::new(parse(&bytes));
            assert_eq!(again.base, base);
            assert_eq!(again.to_bytes(), bytes);
        }
        assert_eq!(BASE, NETWORK.base);
    }

    /// `nets/` files of the engine's width load and write back byte for byte, and the
    /// embedded one is what the engine plays with.
    #[test]
    fn the_kept_networks_load_unchanged() {
        assert_eq!(NETWORK.to_bytes(), EMBEDDED);
        for (i, bytes) in KEPT.into_iter().enumerate() {
            assert_eq!(header(bytes).buckets, 1, "n{}", i + 1);
            if read_i32(bytes, 8) as usize == HIDDEN {
                let net: Box<Network<1>> = Box::new(parse(bytes));
                assert_eq!(net.to_bytes(), bytes, "n{}", i + 1);
            }
        }
    }

    /// `read_layers` reads every kept network, whatever its width, back to its own bytes,
    /// and tells a damaged file from a good one instead of panicking.
    #[test]
    fn layers_read_back_and_damage_is_an_error() {
        for bytes in KEPT {
            let l = read_layers(bytes).expect("a kept network");
            assert_eq!(file_bytes(l.scale, l.base, &l.w1, &l.b1, &l.w2, &l.b2), bytes);
        }
        let l = read_layers(EMBEDDED).expect("embedded");
        assert_eq!((l.b1.len(), l.b2.len(), l.base), (HIDDEN, BUCKETS, BASE));
        assert_eq!(read_layers(&EMBEDDED[..EMBEDDED.len() - 1]).err(), Some(NetworkFileError::Length));
        assert_eq!(read_layers(b"OX88NNB2").err(), Some(NetworkFileError::BadMagic));
        let mut bad = EMBEDDED.to_vec();
        bad[0] = b'X';
        assert_eq!(read_layers(&bad).err(), Some(NetworkFileError::BadMagic));
        let mut bad = file_bytes(l.scale, Base::Light, &l.w1, &l.b1, &l.w2, &l.b2);
        bad[16] = 9;
        assert_eq!(read_layers(&bad).err(), Some(NetworkFileError::UnknownBase));
        let mut bad = bad.clone();
        bad[8] = 17;
        bad[16] = 1;
        assert_eq!(read_layers(&bad).err(), Some(NetworkFileError::HiddenSize));
    }

    /// The 31 piece counts in order over every bucket, in runs whose lengths differ by one at
    /// most; with 8 buckets, four counts each from 2 pieces up.
    #[test]
    fn the_bucket_rule_spreads_piece_counts_evenly() {
        for buckets in 1..=MAX_BUCKETS {
            let mut run = vec![0; buckets];
            for pieces in 2..=32 {
                let k = bucket(pieces, buckets);
                assert!(k < buckets, "{pieces} pieces in bucket {k} of {buckets}");
                if pieces == 2 {
                    assert_eq!(k, 0);
                } else {
                    let step = k - bucket(pieces - 1, buckets);
                    assert!(step <= 1, "{pieces} pieces skip a bucket of {buckets}");
                }
                run[k] += 1;
            }
            assert_eq!(bucket(32, buckets), buckets - 1);
            let (shortest, longest) = (run.iter().min().copied(), run.iter().max().copied());
            assert!(shortest >= Some(1) && longest <= shortest.map(|s| s + 1), "{buckets} buckets: runs {run:?}");
        }
        for pieces in 2..=32 {
            assert_eq!(bucket(pieces, 8), (pieces - 2) / 4);
        }
    }

    /// The embedded network's layers with `B` output buckets that differ: bucket `k` has the
    /// embedded output weights, negated in odd buckets, and a bias raised by `k` times 4096.
    fn bucketed<const B: usize>() -> Box<Network<B>> {
        let mut w2 = [[0; 2 * HIDDEN]; B];
        let mut b2 = [0; B];
        for (k, (w2, b2)) in w2.iter_mut().zip(&mut b2).enumerate() {
            for (w, &x) in w2.iter_mut().zip(&NETWORK.w2[0]) {
                *w = if k % 2 == 1 { -x } else { x };
            }
            *b2 = NETWORK.b2[0] + 4096 * k as i32;
        }
        Box::new(Network { w1: NETWORK.w1, b1: NETWORK.b1, w2, b2, scale: NETWORK.scale, base: NETWORK.base })
    }

    /// A network of several buckets is written in the third format, whatever its base, and
    /// reads back to the same weights and the same bytes.
    #[test]
    fn a_bucketed_file_round_trips() {
        for base in [Base::Full, Base::Light, Base::None] {
            let mut net = bucketed::<8>();
            net.base = base;
            let bytes = net.to_bytes();
            assert_eq!(&bytes[..8], MAGIC_BUCKETS);
            assert_eq!(read_i32(&bytes, 16), base as i32);
            assert_eq!(read_i32(&bytes, 20), 8);
            assert_eq!(bytes.len(), 24 + 2 * (INPUTS * HIDDEN + HIDDEN + 8 * 2 * HIDDEN) + 4 * 8);
            let again: Box<Network<8>> = Box::new(parse(&bytes));
            assert!(again.w1 == net.w1 && again.b1 == net.b1 && again.w2 == net.w2, "{base:?}");
            assert_eq!((again.b2, again.scale, again.base), (net.b2, net.scale, base));
            assert_eq!(again.to_bytes(), bytes);
        }
        let three = bucketed::<3>().to_bytes();
        let again: Box<Network<3>> = Box::new(parse(&three));
        assert_eq!(again.to_bytes(), three);
    }

    #[test]
    #[should_panic(expected = "a different number of output buckets")]
    fn a_file_is_read_with_its_own_bucket_count() {
        let bytes = bucketed::<8>().to_bytes();
        let _: Box<Network<4>> = Box::new(parse(&bytes));
    }

    /// The output by the textbook formula, in wide integers, summed from the board (no
    /// accumulators, no SIMD), through the output weights of `bucket`.
    fn plain_output<const B: usize>(net: &Network<B>, pos: &Position, bucket: usize) -> i32 {
        let mut acc = [[0i64; HIDDEN]; 2];
        for (acc, perspective) in acc.iter_mut().zip([Color::White, Color::Black]) {
            for (a, &b) in acc.iter_mut().zip(&net.b1) {
                *a = b as i64;
            }
            for sq in Square::all().filter(|&sq| pos.piece_at(sq).is_some()) {
                let f = feature(perspective, pos.piece_at(sq), sq);
                for (a, &w) in acc.iter_mut().zip(&net.w1[f * HIDDEN..(f + 1) * HIDDEN]) {
                    *a += w as i64;
                }
            }
        }
        let us = pos.side_to_move().index();
        let mut sum = 0i64;
        for (half, acc) in [&acc[us], &acc[1 - us]].into_iter().enumerate() {
            for (&a, &w) in acc.iter().zip(&net.w2[bucket][half * HIDDEN..(half + 1) * HIDDEN]) {
                let c = a.clamp(0, QA as i64);
                sum += c * c * w as i64;
            }
        }
        let raw = sum / QA as i64 + net.b2[bucket] as i64;
        (raw * net.scale as i64 / (QA * QB) as i64) as i32
    }

    /// Positions and their piece counts, kings included.
    const COUNTED: [(&str, usize); 9] = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 32),
        ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 5 4", 32),
        ("r1bqk2r/pppp1ppp/2n5/4p3/4P3/8/PPPP1PPP/R1BQK2R w KQkq - 0 1", 27),
        ("r4rk1/pp3ppp/2n1b3/8/3P4/2N5/PP3PPP/R4RK1 w - - 0 15", 20),
        ("8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1", 14),
        ("r7/pp3k2/4p3/8/8/4P3/PP3K2/R7 w - - 0 1", 10),
        ("8/8/4k3/3r4/8/2B1K3/5PP1/8 w - - 0 1", 6),
        ("8/8/4k3/3r4/8/2B1K3/8/8 w - - 0 1", 4),
        ("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", 3),
    ];

    #[test]
    fn the_counted_positions_are_counted_right() {
        for (fen, pieces) in COUNTED {
            let pos = Position::from_fen(fen).expect("test FEN");
            assert_eq!(Square::all().filter(|&sq| pos.piece_at(sq).is_some()).count(), pieces, "{fen}");
        }
    }

    /// The network that plays: its output through the optimised path is the textbook formula's.
    #[test]
    fn the_embedded_network_gives_the_plain_formula() {
        for (fen, pieces) in COUNTED {
            let pos = Position::from_fen(fen).expect("test FEN");
            assert_eq!(evaluate(&NETWORK, &pos), plain_output(&NETWORK, &pos, bucket(pieces, BUCKETS)), "{fen}");
        }
    }

    /// A position is read through the output weights of its piece count's bucket, and with
    /// buckets that differ, another bucket would have given another output.
    #[test]
    fn each_position_reads_its_own_bucket() {
        let net = bucketed::<8>();
        let mut seen = [false; 8];
        for (fen, pieces) in COUNTED {
            let pos = Position::from_fen(fen).expect("test FEN");
            let own = (pieces - 2) / 4;
            seen[own] = true;
            let got = output_for(&net, &refresh(&net, &pos), &pos);
            assert_eq!(got, plain_output(&net, &pos, own), "{fen}");
            for other in (0..8).filter(|&k| k != own) {
                assert_ne!(got, plain_output(&net, &pos, other), "{fen}: buckets {own} and {other}");
            }
        }
        assert_eq!(seen.iter().filter(|&&s| s).count(), 7, "the positions cover seven buckets");
    }

    /// Every SIMD path computes each bucket's output sums alike on real accumulators.
    #[test]
    fn every_path_agrees_in_every_bucket() {
        let net = bucketed::<8>();
        for (fen, _) in COUNTED {
            let acc = refresh(&net, &Position::from_fen(fen).expect("test FEN"));
            for (acc, w2) in acc.iter().flat_map(|a| net.w2.iter().map(move |w| (a, w))) {
                for w in [&w2[..HIDDEN], &w2[HIDDEN..]] {
                    let expected = simd::portable::activated_dot(&acc.0, w);
                    assert_eq!(simd::activated_dot(&acc.0, w), expected);
                    #[cfg(target_arch = "x86_64")]
                    assert_eq!(simd::sse2::activated_dot(&acc.0, w), expected);
                    #[cfg(target_arch = "x86_64")]
                    if std::arch::is_x86_feature_detected!("avx2") {
                        // SAFETY: AVX2 checked; `w` holds HIDDEN elements.
                        assert_eq!(unsafe { simd::avx2::activated_dot(&acc.0, w) }, expected);
                    }
                }
            }
        }
    }

    /// The same position with colours swapped (and the board mirrored) gets the same output.
    #[test]
    fn both_sides_are_seen_alike() {
        let pairs = [
            (
                "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
                "rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
            ),
            ("8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1", "8/8/p4p1k/Pp2pP1p/1P1pP2P/3P4/5K2/8 w - - 0 1"),
        ];
        for (a, b) in pairs {
            let (a, b) = (Position::from_fen(a).expect("test FEN"), Position::from_fen(b).expect("test FEN"));
            assert_eq!(evaluate(&NETWORK, &a), evaluate(&NETWORK, &b));
        }
    }
}
