//! Square sets and tables of the leaf counter: a bit per square ([`bit`]), the rays and knight
//! jumps as such sets (built at compile time), and byte lookups over a 16-slot piece list.

use crate::square::{Step, KING_STEPS, KNIGHT_STEPS};

/// The place of a line step in `KING_STEPS` (-17, -16, -15, -1, 1, 15, 16, 17).
#[inline(always)]
pub(super) fn ray_index(step: Step) -> usize {
    const INDEX: [u8; 64] = {
        let mut table = [0u8; 64];
        let mut i = 0;
        while i < 8 {
            table[(KING_STEPS[i] + 17) as usize] = i as u8;
            i += 1;
        }
        table
    };
    INDEX[(step as i32 + 17) as usize & 63] as usize
}

/// The bit of the 0x88 square `sq` (on the board) in a 64-bit set, rank 8 first: a reach test
/// is then one AND with the set of the squares a move changed.
#[inline(always)]
pub(super) fn bit(sq: u8) -> u64 {
    BITS[sq as usize]
}

const fn bit_of(sq: u8) -> u64 {
    1 << ((sq + (sq & 7)) >> 1 & 63)
}

/// [`bit`] by table: one load where the sum, shift and mask take four instructions.
static BITS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut sq = 0;
    while sq < 256 {
        table[sq] = bit_of(sq as u8);
        sq += 1;
    }
    table
};

/// The 0x88 square of the only square in the [`bit`] set `set` (which must hold one).
#[inline(always)]
pub(super) fn square_of(set: u64) -> u8 {
    let i = set.trailing_zeros() as u8;
    i + (i & 0x38)
}

/// `BEYOND[sq][i]`: the squares past `sq` along `KING_STEPS[i]` up to the edge ([`bit`] sets;
/// none for a square off the board): the rays that [`line_to_first`] cuts at the first piece.
static BEYOND: [[u64; 8]; 256] = {
    let mut table = [[0u64; 8]; 256];
    let mut sq = 0;
    while sq < 128 {
        if sq & 0x88 == 0 {
            let mut i = 0;
            while i < 8 {
                let d = KING_STEPS[i] as i32;
                let mut s = sq as i32 + d;
                while s >= 0 && s < 128 && s & 0x88 == 0 {
                    table[sq][i] |= bit_of(s as u8);
                    s += d;
                }
                i += 1;
            }
        }
        sq += 1;
    }
    table
};

/// The squares from `q` along `KING_STEPS[i]` up to and including the first one of `occupied`,
/// or to the edge: the walk of a ray as set operations. [`bit`] numbers squares so that the
/// last four steps (1, 15, 16, 17) go up in bit order and the first four down, so the nearest
/// piece is the lowest bit of the ray's pieces or the highest.
#[inline(always)]
pub(super) fn line_to_first(q: u8, i: usize, occupied: u64) -> u64 {
    let ray = BEYOND[q as usize][i & 7];
    let pieces = ray & occupied;
    if i >= 4 {
        let nearest = pieces & pieces.wrapping_neg();
        ray & (nearest << 1).wrapping_sub(1)
    } else {
        ray & (!0u64 << (63 - (pieces | 1).leading_zeros()))
    }
}

/// The squares a knight's jump from `sq` ([`bit`] sets).
pub(super) static JUMPS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut sq = 0;
    while sq < 128 {
        if sq & 0x88 == 0 {
            let mut i = 0;
            while i < 8 {
                let s = sq as i32 + KNIGHT_STEPS[i] as i32;
                if s >= 0 && s < 128 && s & 0x88 == 0 {
                    table[sq] |= bit_of(s as u8);
                }
                i += 1;
            }
        }
        sq += 1;
    }
    table
};

/// Bit `i` set for each non-zero byte `i` (the pinned slots of a pin list).
#[inline(always)]
pub(super) fn nonzero_bytes(bytes: [u8; 16]) -> u16 {
    !equal_bytes(bytes, 0)
}

/// Bit `i` set for each byte `i` equal to `value` (the old slot of a piece, by its square).
#[inline(always)]
pub(super) fn equal_bytes(bytes: [u8; 16], value: u8) -> u16 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        // SAFETY: SSE2 is part of every x86-64 processor; the load reads the 16 bytes given.
        unsafe {
            let v = _mm_loadu_si128(bytes.as_ptr().cast());
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(value as i8))) as u16
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        bytes.iter().enumerate().fold(0, |m, (i, &b)| m | ((b == value) as u16) << i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn square_of_inverts_bit() {
        for sq in (0..128u8).filter(|q| q & 0x88 == 0) {
            assert_eq!(square_of(bit(sq)), sq);
        }
    }

    /// `line_to_first` gives what a walk over the 0x88 board gives, from every square along
    /// every line, on boards from empty to full.
    #[test]
    fn line_to_first_is_the_walk_of_the_ray() {
        let mut rng = SplitMix64::new(5);
        for density in [0, 8, 24, 48, 64] {
            for _ in 0..200 {
                let mut occupied = 0u64;
                for _ in 0..density {
                    occupied |= 1 << rng.below(64);
                }
                for q in (0..128u8).filter(|q| q & 0x88 == 0) {
                    for (i, &d) in KING_STEPS.iter().enumerate() {
                        let mut walked = 0;
                        let mut sq = q as i32 + d as i32;
                        while (0..128).contains(&sq) && sq & 0x88 == 0 {
                            walked |= bit(sq as u8);
                            if occupied & bit(sq as u8) != 0 {
                                break;
                            }
                            sq += d as i32;
                        }
                        assert_eq!(line_to_first(q, i, occupied), walked, "from {q:#x} by {d}, pieces {occupied:#x}");
                    }
                }
            }
        }
    }
}
