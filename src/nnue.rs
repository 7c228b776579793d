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
const _: () = assert!(HIDDEN > 0 && HIDDEN % 16 == 0, "network file: hidden size must be a multiple of 16");
pub const QA: i32 = 255;
pub const QB: i32 = 64;

/// The first format: a residual network over the full hand-written evaluation (n1, n2).
const MAGIC: &[u8; 8] = b"OX88NNUE";
/// The second: the header names the [`Base`] the network was trained on.
const MAGIC_BASE: &[u8; 8] = b"OX88NNB2";

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
    const fn from_code(code: u32) -> Base {
        match code {
            0 => Base::Full,
            1 => Base::Light,
            2 => Base::None,
            _ => panic!("network file: unknown base"),
        }
    }
}

/// The base the embedded network corrects.
pub const BASE: Base = header(EMBEDDED).0;

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

/// A file's base and the length of its header.
const fn header(b: &[u8]) -> (Base, usize) {
    if has_magic(b, MAGIC) {
        (Base::Full, 16)
    } else if has_magic(b, MAGIC_BASE) {
        (Base::from_code(read_i32(b, 16) as u32), 20)
    } else {
        panic!("network file: bad magic")
    }
}

/// A quantised network.
#[derive(Clone)]
pub struct Network {
    pub w1: [i16; INPUTS * HIDDEN],
    pub b1: [i16; HIDDEN],
    pub w2: [i16; 2 * HIDDEN],
    pub b2: i32,
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

impl Network {
    pub fn to_bytes(&self) -> Vec<u8> {
        file_bytes(self.scale, self.base, &self.w1, &self.b1, &self.w2, self.b2)
    }
}

/// A network file of any width (`b1.len()`): magic, hidden size (u32), scale (i32), the
/// base (u32, only after [`MAGIC_BASE`]: a full-base network keeps the first format, so its
/// files stay byte for byte what they were), then `w1`, `b1`, `w2` as little-endian `i16`
/// and `b2` as `i32`. The trainer writes networks wider or narrower than the engine's with it.
pub fn file_bytes(scale: i32, base: Base, w1: &[i16], b1: &[i16], w2: &[i16], b2: i32) -> Vec<u8> {
    let hidden = b1.len();
    assert!(w1.len() == INPUTS * hidden && w2.len() == 2 * hidden, "network layers of different widths");
    let mut out = Vec::with_capacity(20 + 2 * (INPUTS * hidden + 3 * hidden) + 4);
    out.extend_from_slice(if base == Base::Full { MAGIC } else { MAGIC_BASE });
    out.extend_from_slice(&(hidden as u32).to_le_bytes());
    out.extend_from_slice(&scale.to_le_bytes());
    if base != Base::Full {
        out.extend_from_slice(&(base as u32).to_le_bytes());
    }
    for x in w1.iter().chain(b1).chain(w2) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.extend_from_slice(&b2.to_le_bytes());
    out
}

const fn read_i16(b: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([b[at], b[at + 1]])
}

const fn read_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Reads the embedded file at compile time; a malformed file stops the build.
const fn parse(b: &[u8]) -> Network {
    let (base, header_len) = header(b);
    assert!(read_i32(b, 8) as usize == HIDDEN, "network file: hidden size differs from the embedded network's");
    assert!(b.len() == header_len + 2 * (INPUTS * HIDDEN + 3 * HIDDEN) + 4, "network file: wrong length");
    let mut net = Network {
        w1: [0; INPUTS * HIDDEN],
        b1: [0; HIDDEN],
        w2: [0; 2 * HIDDEN],
        b2: 0,
        scale: read_i32(b, 12),
        base,
    };
    let mut at = header_len;
    let mut i = 0;
    while i < INPUTS * HIDDEN {
        net.w1[i] = read_i16(b, at);
        at += 2;
        i += 1;
    }
    let mut i = 0;
    while i < HIDDEN {
        net.b1[i] = read_i16(b, at);
        at += 2;
        i += 1;
    }
    let mut i = 0;
    while i < 2 * HIDDEN {
        net.w2[i] = read_i16(b, at);
        at += 2;
        i += 1;
    }
    net.b2 = read_i32(b, at);
    net
}

/// The network file compiled into the binary, one of `nets/` (docs/networks.md says how each
/// was made and which one plays).
pub const EMBEDDED: &[u8] = include_bytes!("../nets/n4.nnue");
/// The network ox88 plays with.
pub static NETWORK: Network = parse(EMBEDDED);

/// One perspective's hidden sums.
#[derive(Clone, Copy)]
#[repr(align(64))]
pub struct Accumulator(pub [i16; HIDDEN]);

impl Accumulator {
    #[inline]
    pub fn add(&mut self, net: &Network, f: usize) {
        let row = &net.w1[f * HIDDEN..(f + 1) * HIDDEN];
        for (a, w) in self.0.iter_mut().zip(row) {
            *a = a.wrapping_add(*w);
        }
    }

    #[inline]
    pub fn sub(&mut self, net: &Network, f: usize) {
        let row = &net.w1[f * HIDDEN..(f + 1) * HIDDEN];
        for (a, w) in self.0.iter_mut().zip(row) {
            *a = a.wrapping_sub(*w);
        }
    }
}

/// Both perspectives' accumulators from scratch (White's first).
pub fn refresh(net: &Network, pos: &Position) -> [Accumulator; 2] {
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

/// The output in centipawns for the side whose accumulator is `us`.
#[inline]
pub fn output(net: &Network, us: &Accumulator, them: &Accumulator) -> i32 {
    let sum = simd::activated_dot(&us.0, &net.w2[..HIDDEN]) + simd::activated_dot(&them.0, &net.w2[HIDDEN..]);
    let raw = sum / QA + net.b2;
    (raw as i64 * net.scale as i64 / (QA * QB) as i64) as i32
}

/// The network's output for the side to move of `pos`, from scratch.
pub fn evaluate(net: &Network, pos: &Position) -> i32 {
    output_for(net, &refresh(net, pos), pos.side_to_move())
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
    pub fn set_root(&mut self, net: &Network, pos: &Position) {
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
    pub fn get(&mut self, net: &Network, ply: usize) -> &[Accumulator; 2] {
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

    fn derive(&mut self, net: &Network, p: usize) {
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

/// The network's output for `side` to move, from its accumulators.
#[inline]
pub fn output_for(net: &Network, acc: &[Accumulator; 2], side: Color) -> i32 {
    let s = side.index();
    output(net, &acc[s], &acc[1 - s])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

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
        let again = parse(&bytes);
        assert_eq!(again.to_bytes(), bytes);
        assert!(NETWORK.scale > 0, "the embedded network has no scale");
    }

    /// A full-base network keeps the first format (so `nets/n1`, `n2` are what the trainer
    /// writes today); the other bases are named in the header and read back.
    #[test]
    fn the_file_names_its_base() {
        for base in [Base::Full, Base::Light, Base::None] {
            let mut net = NETWORK.clone();
            net.base = base;
            let bytes = net.to_bytes();
            assert_eq!(&bytes[..8], if base == Base::Full { MAGIC } else { MAGIC_BASE });
            let again = parse(&bytes);
            assert_eq!(again.base, base);
            assert_eq!(again.to_bytes(), bytes);
        }
        assert_eq!(BASE, NETWORK.base);
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
