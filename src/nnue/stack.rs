//! The accumulators along a search path, brought up to date move by move, and the last
//! accumulator of every king bucket, for a king that moves into one.

use super::{feature, refresh, simd, Accumulator, Network, HIDDEN, INPUTS};
use crate::mv::Move;
use crate::piece::{Color, Piece};
use crate::position::Position;
use crate::square::Square;
use crate::value::MAX_PLY;

/// One perspective's accumulator in one king bucket, and the board it was summed for: when
/// a king enters that bucket again, only the squares that changed since are summed.
#[derive(Clone)]
struct Refreshed {
    acc: Accumulator,
    board: [Piece; 64],
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
/// updates are never paid for. Each perspective is kept up to date apart: a king move into
/// another king bucket leaves the other side's rows to be derived as usual.
pub struct AccumulatorStack {
    acc: Box<[[Accumulator; 2]; MAX_PLY + 4]>,
    /// `delta[p]` turns entry `p - 1` into entry `p`.
    delta: Box<[Delta; MAX_PLY + 4]>,
    /// Per entry, whether each perspective's accumulator is up to date.
    computed: [[bool; 2]; MAX_PLY + 4],
    /// Per entry, the king bucket each perspective's accumulator was summed in. An entry is
    /// always its position's exact sum in that bucket; one derived in a bucket its position's
    /// king is not in (the king left the bucket and came back further up the path) is of no
    /// use there, and is summed again if its position asks.
    bucket: [[u8; 2]; MAX_PLY + 4],
    /// Per perspective and king bucket, the last accumulator summed there (White's first).
    refreshed: Vec<Refreshed>,
}

impl Default for AccumulatorStack {
    fn default() -> Self {
        AccumulatorStack {
            acc: Box::new([[Accumulator([0; HIDDEN]); 2]; MAX_PLY + 4]),
            delta: Box::new([Delta::NULL; MAX_PLY + 4]),
            computed: [[false; 2]; MAX_PLY + 4],
            bucket: [[0; 2]; MAX_PLY + 4],
            refreshed: Vec::new(),
        }
    }
}

impl AccumulatorStack {
    /// Sets the root (ply 0) from scratch, and forgets the accumulators kept for king moves
    /// (the network may have changed since).
    pub fn set_root<const B: usize, const K: usize>(&mut self, net: &Network<B, K>, pos: &Position) {
        self.acc[0] = refresh(net, pos);
        self.computed[0] = [true; 2];
        self.bucket[0] = [Color::White, Color::Black].map(|c| net.king_bucket(c, pos.king(c)) as u8);
        if K > 1 {
            let empty = Refreshed { acc: Accumulator(net.b1), board: [Piece::NONE; 64] };
            self.refreshed.clear();
            self.refreshed.resize(2 * K, empty);
        }
    }

    /// Records `m`, played in `pos` (the position before the move), as the step to `ply + 1`.
    #[inline]
    pub fn push(&mut self, ply: usize, pos: &Position, m: Move) {
        self.delta[ply + 1] = Delta::of(pos, m);
        self.computed[ply + 1] = [false; 2];
    }

    /// The step to `ply + 1` is a null move: the pieces stay.
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        self.delta[ply + 1] = Delta::NULL;
        self.computed[ply + 1] = [false; 2];
    }

    /// The accumulators of `pos`, the position at `ply` (White's first), derived now from the
    /// nearest entry below that is up to date, or, for a perspective whose king is in another
    /// bucket than that entry's, from the last accumulator of its bucket.
    #[inline]
    pub fn get<const B: usize, const K: usize>(
        &mut self,
        net: &Network<B, K>,
        ply: usize,
        pos: &Position,
    ) -> &[Accumulator; 2] {
        if K == 1 {
            // One king bucket: both sides are always brought up to date together.
            let mut base = ply;
            while !self.computed[base][0] {
                base -= 1;
            }
            for p in base + 1..=ply {
                self.derive(&net.w1[0], p, 0, Color::White);
                self.derive(&net.w1[0], p, 1, Color::Black);
                self.computed[p] = [true; 2];
            }
            return &self.acc[ply];
        }
        let sides = [Color::White, Color::Black];
        let kb = sides.map(|c| net.king_bucket(c, pos.king(c)));
        let mut base = [ply; 2];
        for (side, base) in base.iter_mut().enumerate() {
            while !self.computed[*base][side] {
                *base -= 1;
            }
        }
        let same = |stack: &Self, side: usize| stack.bucket[base[side]][side] as usize == kb[side];
        let same = [same(self, 0), same(self, 1)];
        if base == [ply; 2] && same == [true; 2] {
            return &self.acc[ply];
        }
        let rows = kb.map(|kb| &net.w1[kb]);
        for (side, perspective) in sides.into_iter().enumerate() {
            if !same[side] {
                // The entries between stay stale: their positions are gone, and the way back
                // down derives or sums them again if an evaluation asks.
                self.acc[ply][side] = self.refresh_cached(net, pos, side, perspective, kb[side]);
                self.computed[ply][side] = true;
                self.bucket[ply][side] = kb[side] as u8;
                continue;
            }
            for p in base[side] + 1..=ply {
                self.derive(rows[side], p, side, perspective);
                self.computed[p][side] = true;
                self.bucket[p][side] = kb[side] as u8;
            }
        }
        &self.acc[ply]
    }

    /// `perspective`'s accumulator of `pos`, whose king is in bucket `kb`: the bucket's last
    /// accumulator, brought up to date square by square.
    fn refresh_cached<const B: usize, const K: usize>(
        &mut self,
        net: &Network<B, K>,
        pos: &Position,
        side: usize,
        perspective: Color,
        kb: usize,
    ) -> Accumulator {
        let mut board = [Piece::NONE; 64];
        for c in [Color::White, Color::Black] {
            for &sq in pos.pieces(c) {
                board[sq.index64()] = pos.piece_at(sq);
            }
        }
        let kept = &mut self.refreshed[side * K + kb];
        // A board holds 32 pieces at most, so at most 32 squares gain a piece and 32 lose one.
        let (mut adds, mut subs) = ([&[][..]; 32], [&[][..]; 32]);
        let (mut n_add, mut n_sub) = (0, 0);
        for (i, (&now, was)) in board.iter().zip(kept.board.iter_mut()).enumerate() {
            if now != *was {
                let sq = Square::from_index64(i);
                if was.is_some() && n_sub < 32 {
                    subs[n_sub] = net.row(kb, feature(perspective, *was, sq));
                    n_sub += 1;
                }
                if now.is_some() && n_add < 32 {
                    adds[n_add] = net.row(kb, feature(perspective, now, sq));
                    n_add += 1;
                }
                *was = now;
            }
        }
        simd::apply(&mut kept.acc.0, &adds[..n_add], &subs[..n_sub]);
        kept.acc
    }

    /// Entry `p` of `perspective` from entry `p - 1`, through the input rows of its king's
    /// bucket.
    #[inline(always)]
    fn derive(&mut self, rows: &[i16; INPUTS * HIDDEN], p: usize, side: usize, perspective: Color) {
        let d = self.delta[p];
        let (before, after) = self.acc.split_at_mut(p);
        let prev = &before[p - 1][side];
        let next = &mut after[0][side];
        if d.n_add == 0 {
            *next = *prev;
            return;
        }
        let row = |(piece, sq): (Piece, Square)| {
            let f = feature(perspective, piece, sq);
            &rows[f * HIDDEN..(f + 1) * HIDDEN]
        };
        let sub1 = (d.n_sub == 2).then(|| row(d.subs[1]));
        simd::update(&mut next.0, &prev.0, row(d.adds[0]), row(d.subs[0]), sub1);
        if d.n_add == 2 {
            next.add(row(d.adds[1]));
        }
    }
}
