//! Zobrist keys from a fixed const-fn xorshift64* generator.
//!
//! The keys are part of the engine's behaviour (hash-table layout, and so the `bench` node
//! count), so they must never change when a dependency is upgraded: they are computed at
//! compile time from a fixed seed by the generator below, with no crate involved.

use crate::piece::Piece;
use crate::square::Square;

pub struct Keys {
    pub piece: [[u64; 128]; 12],
    pub castling: [u64; 16],
    pub en_passant_file: [u64; 8],
    pub side: u64,
}

pub static KEYS: Keys = build();

#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    KEYS.piece[piece.index()][sq.index()]
}

/// One step of xorshift64* (Vigna): returns (next state, output).
const fn next(state: u64) -> (u64, u64) {
    let mut x = state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    (x, x.wrapping_mul(0x2545_F491_4F6C_DD1D))
}

const fn build() -> Keys {
    let mut state: u64 = 0x0088_C0FF_EE88_1234;
    let mut keys = Keys { piece: [[0; 128]; 12], castling: [0; 16], en_passant_file: [0; 8], side: 0 };
    let mut p = 0;
    while p < 12 {
        let mut sq = 0;
        while sq < 128 {
            if sq & 0x88 == 0 {
                let (s, k) = next(state);
                state = s;
                keys.piece[p][sq] = k;
            }
            sq += 1;
        }
        p += 1;
    }
    // Castling keys are the XOR of one key per right, so a mask's key is well defined.
    let mut rights = [0u64; 4];
    let mut r = 0;
    while r < 4 {
        let (s, k) = next(state);
        state = s;
        rights[r] = k;
        r += 1;
    }
    let mut mask = 0;
    while mask < 16 {
        let mut key = 0;
        let mut r = 0;
        while r < 4 {
            if mask & (1 << r) != 0 {
                key ^= rights[r];
            }
            r += 1;
        }
        keys.castling[mask] = key;
        mask += 1;
    }
    let mut f = 0;
    while f < 8 {
        let (s, k) = next(state);
        state = s;
        keys.en_passant_file[f] = k;
        f += 1;
    }
    let (_, side) = next(state);
    keys.side = side;
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_stable() {
        let mut all: Vec<u64> = KEYS.piece.iter().flatten().copied().filter(|&k| k != 0).collect();
        all.extend_from_slice(&KEYS.en_passant_file);
        all.push(KEYS.side);
        let n = all.len();
        assert_eq!(n, 12 * 64 + 8 + 1);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
        // Pinned: a change here changes every hash and the bench signature.
        assert_eq!(KEYS.piece[0][0], next(0x0088_C0FF_EE88_1234).1);
    }
}
