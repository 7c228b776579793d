//! King buckets: where a perspective's own king stands chooses the set of input rows it reads
//! the board through. A network file carries its own map of the 64 squares to buckets; the
//! layouts below are the ones the trainer offers.

use crate::piece::Color;
use crate::square::Square;

/// The most king buckets a file may have: a bound on what a garbled header can ask for.
pub const MAX_KINGS: usize = 32;

/// The index of `sq` as `perspective` sees the board, its own back rank first: a1 is 0 for
/// White, a8 for Black (`Square::index64` counts from a8).
#[inline(always)]
pub const fn oriented(perspective: Color, sq: Square) -> usize {
    match perspective {
        Color::White => sq.index64() ^ 56,
        Color::Black => sq.index64(),
    }
}

/// A map from the 64 squares (a1 first, as the side sees them) to buckets, by bands of
/// ranks: each band is the rank it begins on (the first band on the first rank) and the files
/// where a new bucket begins within it; buckets are numbered on from band to band.
const fn layout(bands: &[(usize, &[usize])]) -> [u8; 64] {
    let mut map = [0u8; 64];
    let mut next = 0;
    let mut band = 0;
    while band < bands.len() {
        let (from, cuts) = bands[band];
        let to = if band + 1 < bands.len() { bands[band + 1].0 } else { 8 };
        let mut rank = from;
        let mut last = next;
        while rank < to {
            let (mut file, mut c, mut bucket) = (0, 0, next);
            while file < 8 {
                if c < cuts.len() && cuts[c] == file {
                    bucket += 1;
                    c += 1;
                }
                map[rank * 8 + file] = bucket as u8;
                file += 1;
            }
            last = bucket;
            rank += 1;
        }
        next = last + 1;
        band += 1;
    }
    map
}

/// The trainer's layouts, by their number of buckets:
/// - 1: the plain network;
/// - 4: the back rank and the rest of the board, each cut between the d- and e-files;
/// - 7: the back rank in three (a–c, d–e, f–h: castled long, at home, castled short), the
///   second rank and the rest of the board each cut between the d- and e-files.
pub const KING_LAYOUTS: [(usize, [u8; 64]); 3] =
    [(1, [0; 64]), (4, layout(&[(0, &[4]), (1, &[4])])), (7, layout(&[(0, &[3, 5]), (1, &[4]), (2, &[4])]))];

/// The layout of `n` buckets, if the trainer offers one.
pub fn king_layout(n: usize) -> Option<[u8; 64]> {
    KING_LAYOUTS.iter().find(|(k, _)| *k == n).map(|(_, map)| *map)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout, drawn rank 8 first, as one would read a diagram.
    #[test]
    fn the_layouts_are_the_documented_ones() {
        let drawn = |map: &[u8; 64]| -> String {
            (0..8)
                .rev()
                .map(|r| map[r * 8..r * 8 + 8].iter().map(|b| b.to_string()).collect::<String>() + "/")
                .collect()
        };
        assert_eq!(drawn(&king_layout(1).unwrap()), "00000000/".repeat(8));
        assert_eq!(drawn(&king_layout(4).unwrap()), "22223333/".repeat(7) + "00001111/");
        assert_eq!(drawn(&king_layout(7).unwrap()), "55556666/".repeat(6) + "33334444/" + "00011222/");
        for (n, map) in KING_LAYOUTS {
            let mut used = vec![false; n];
            for b in map {
                used[b as usize] = true;
            }
            assert!(used.iter().all(|&u| u), "layout {n} uses every bucket");
        }
        assert_eq!(king_layout(5), None);
    }

    #[test]
    fn black_sees_the_board_from_its_side() {
        let e8 = Square::from_index64(4);
        assert_eq!(oriented(Color::Black, e8), 4);
        assert_eq!(oriented(Color::White, e8), 60);
        let c1 = Square::from_index64(58);
        assert_eq!(oriented(Color::White, c1), 2);
        assert_eq!(oriented(Color::Black, c1), 58);
    }
}
