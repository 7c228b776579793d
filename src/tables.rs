//! The two tables of the design, built at compile time.
//!
//! On a 0x88 board the difference `from - to` of two squares determines their geometric
//! relation uniquely (the padding keeps rows from wrapping), so a table indexed by
//! `from - to + 119` (239 entries) can answer "which piece kinds standing on `from` could
//! reach `to`?" ([`ATTACK`]) and "which unit step walks from `from` towards `to`?" ([`STEP`]).

use crate::piece::{flag, Kind};
use crate::square::{Square, Step, BISHOP_STEPS, KING_STEPS, KNIGHT_STEPS, ROOK_STEPS};

/// Number of distinct square differences: -119..=119.
pub const DELTA_COUNT: usize = 239;

/// Table index of the pair (`from`, `to`).
#[inline(always)]
pub const fn delta_index(from: Square, to: Square) -> usize {
    (from.raw() as usize + 119) - to.raw() as usize
}

/// Attack flags per square difference: bit `k` set when a piece of kind `k` on `from` can
/// move to `to` on an empty board.
pub static ATTACK: [u8; DELTA_COUNT] = build_attack();

/// Unit step from `from` towards `to` along a line, or the knight jump itself; 0 otherwise.
pub static STEP: [Step; DELTA_COUNT] = build_step();

/// Can a piece with `flags` standing on `from` ever reach `to` (ignoring obstacles)?
#[inline(always)]
pub fn pseudo_attacks(flags: u8, from: Square, to: Square) -> bool {
    ATTACK[delta_index(from, to)] & flags != 0
}

/// The step from `from` towards `to` (0 when no line or knight jump joins them).
#[inline(always)]
pub fn step_between(from: Square, to: Square) -> Step {
    STEP[delta_index(from, to)]
}

/// `KING_ZONE[kind][delta_index(from, king)]`: bit `i` set when a piece of `kind` on `from`
/// could reach the king's neighbour `king + KING_STEPS[i]` on an empty board. One lookup per
/// enemy piece then tells which of the king's flight squares it may cover.
pub static KING_ZONE: [[u8; DELTA_COUNT]; 6] = build_king_zone();

/// Attack flags of a kind (white's pawn for pawns).
const fn kind_flags(kind: usize) -> u8 {
    [flag::WHITE_PAWN, flag::KNIGHT, flag::BISHOP, flag::ROOK, flag::QUEEN, flag::KING][kind]
}

const fn build_king_zone() -> [[u8; DELTA_COUNT]; 6] {
    let attack = build_attack();
    let mut table = [[0u8; DELTA_COUNT]; 6];
    let mut kind = Kind::Knight as usize;
    while kind <= Kind::King as usize {
        let mut d: i32 = -119;
        while d <= 119 {
            let mut i = 0;
            while i < 8 {
                // from - neighbour = (from - king) - step
                let e = d - KING_STEPS[i] as i32;
                if e >= -119 && e <= 119 && attack[(e + 119) as usize] & kind_flags(kind) != 0 {
                    table[kind][(d + 119) as usize] |= 1 << i;
                }
                i += 1;
            }
            d += 1;
        }
        kind += 1;
    }
    table
}

const fn build_attack() -> [u8; DELTA_COUNT] {
    let mut table = [0u8; DELTA_COUNT];
    // Sliders: every multiple of each direction that fits on the board.
    let mut d = 0;
    while d < 4 {
        let mut k = 1;
        while k < 8 {
            table[(119 - BISHOP_STEPS[d] as i32 * k) as usize] |= flag::BISHOP;
            table[(119 - ROOK_STEPS[d] as i32 * k) as usize] |= flag::ROOK;
            k += 1;
        }
        d += 1;
    }
    let mut i = 0;
    while i < 8 {
        table[(119 - KNIGHT_STEPS[i] as i32) as usize] |= flag::KNIGHT;
        table[(119 - KING_STEPS[i] as i32) as usize] |= flag::KING;
        i += 1;
    }
    // A white pawn on `from` attacks from-15 and from-17: from - to = +15, +17.
    table[119 + 15] |= flag::WHITE_PAWN;
    table[119 + 17] |= flag::WHITE_PAWN;
    table[119 - 15] |= flag::BLACK_PAWN;
    table[119 - 17] |= flag::BLACK_PAWN;
    table
}

const fn build_step() -> [Step; DELTA_COUNT] {
    let mut table = [0 as Step; DELTA_COUNT];
    let mut d = 0;
    while d < 8 {
        let step = KING_STEPS[d];
        let mut k = 1;
        while k < 8 {
            table[(119 - step as i32 * k) as usize] = step;
            k += 1;
        }
        let jump = KNIGHT_STEPS[d];
        table[(119 - jump as i32) as usize] = jump;
        d += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force from coordinates: what each kind can do from `a` to `b` on an empty board.
    fn geometry(a: Square, b: Square) -> (u8, i8) {
        let (af, ar) = (a.file() as i32, a.rank() as i32);
        let (bf, br) = (b.file() as i32, b.rank() as i32);
        let (df, dr) = (bf - af, br - ar);
        let mut flags = 0;
        let mut step = 0i8;
        if a == b {
            return (0, 0);
        }
        // Board index grows to the east and to the south (down the ranks).
        let unit = |df: i32, dr: i32| (df.signum() - 16 * dr.signum()) as i8;
        if df == 0 || dr == 0 {
            flags |= flag::ROOK;
            step = unit(df, dr);
        }
        if df.abs() == dr.abs() {
            flags |= flag::BISHOP;
            step = unit(df, dr);
        }
        if df.abs().max(dr.abs()) == 1 {
            flags |= flag::KING;
        }
        if (df.abs() == 1 && dr.abs() == 2) || (df.abs() == 2 && dr.abs() == 1) {
            flags |= flag::KNIGHT;
            step = (df - 16 * dr) as i8;
        }
        if df.abs() == 1 && dr == 1 {
            flags |= flag::WHITE_PAWN;
        }
        if df.abs() == 1 && dr == -1 {
            flags |= flag::BLACK_PAWN;
        }
        (flags, step)
    }

    #[test]
    fn tables_match_brute_force_over_all_square_pairs() {
        for a in Square::all() {
            for b in Square::all() {
                let (flags, step) = geometry(a, b);
                let i = delta_index(a, b);
                assert_eq!(ATTACK[i], flags, "attack {a} -> {b}");
                assert_eq!(STEP[i], step, "step {a} -> {b}");
            }
        }
    }

    #[test]
    fn king_zone_matches_brute_force() {
        for king in Square::all() {
            for from in Square::all() {
                for kind in [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::King] {
                    let zone = KING_ZONE[kind as usize][delta_index(from, king)];
                    for (i, &step) in KING_STEPS.iter().enumerate() {
                        let Some(n) = king.offset(step) else { continue };
                        let expected = from != n && geometry(from, n).0 & kind_flags(kind as usize) != 0;
                        assert_eq!(zone >> i & 1 == 1, expected, "{kind:?} {from} king {king} step {step}");
                    }
                }
            }
        }
    }

    #[test]
    fn unused_differences_are_empty() {
        let mut used = [false; DELTA_COUNT];
        for a in Square::all() {
            for b in Square::all() {
                used[delta_index(a, b)] = true;
            }
        }
        for i in 0..DELTA_COUNT {
            if !used[i] {
                assert_eq!((ATTACK[i], STEP[i]), (0, 0), "index {i}");
            }
        }
    }
}
