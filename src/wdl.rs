//! Win/draw/loss expectations from a score: what `UCI_ShowWDL` shows.
//!
//! A model of ox88's own games: for a score `v` (centipawns, side to move's view) with
//! material `m` on the board (pawn 1, knight and bishop 3, rook 5, queen 9, both sides,
//! clamped to `[M_MIN, M_MAX]`),
//!
//! ```text
//! win  = 1 / (1 + exp((a(m) - v) / b(m)))
//! loss = 1 / (1 + exp((a(m) + v) / b(m)))
//! draw = 1 - win - loss
//! ```
//!
//! `a` is where a win becomes as likely as not, `b` how fast the odds turn with the score;
//! both are polynomials in `x = (m - M_MID) / M_HALF`. A positive `a` keeps `win + loss`
//! at most 1. The same score means more in the middle game than in an ending, where a
//! small edge is often not enough to win.

use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::value::Score;

// Fitted by `tools/fit_wdl.rs` on the 10,000 games of chunk `wdl-n18-s119` (the engine with
// network `n18`, 6,000 nodes per move): 9,000 games for the fit, 1,000 held out
// (docs/search-and-eval.md says how much better it predicts than the fit before it).
const A: [f64; 4] = [87.533, -39.653, 63.322, -60.831];
const B: [f64; 4] = [85.414, 40.133, 2.850, -35.061];
/// The material range the model distinguishes, and its middle and half-width: the model's
/// variable is `x = (m - M_MID) / M_HALF`.
pub const M_MIN: i32 = 8;
pub const M_MAX: i32 = 78;
pub const M_MID: f64 = 43.0;
pub const M_HALF: f64 = 35.0;

/// Expected result in per mille, summing to exactly 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wdl {
    pub win: u32,
    pub draw: u32,
    pub loss: u32,
}

/// Material on the board as the model counts it (both sides; kings not counted).
pub fn material(pos: &Position) -> i32 {
    const WORTH: [(Kind, i32); 5] =
        [(Kind::Pawn, 1), (Kind::Knight, 3), (Kind::Bishop, 3), (Kind::Rook, 5), (Kind::Queen, 9)];
    WORTH
        .iter()
        .map(|&(kind, worth)| {
            let n = pos.count_of(Piece::new(Color::White, kind)) + pos.count_of(Piece::new(Color::Black, kind));
            n as i32 * worth
        })
        .sum()
}

fn polynomial(c: &[f64; 4], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

/// Win and loss probabilities of a score in centipawns with `material` on the board.
pub fn win_loss(cp: i32, material: i32) -> (f64, f64) {
    let x = (f64::from(material.clamp(M_MIN, M_MAX)) - M_MID) / M_HALF;
    let a = polynomial(&A, x).max(0.0);
    let b = polynomial(&B, x).max(1.0);
    let v = f64::from(cp);
    let sigmoid = |t: f64| 1.0 / (1.0 + t.exp());
    (sigmoid((a - v) / b), sigmoid((a + v) / b))
}

/// The expected result of a score (side to move's view) with `material` on the board; a
/// mate is a certain win or loss.
pub fn wdl(score: Score, material: i32) -> Wdl {
    match score {
        Score::Mate(n) if n > 0 => Wdl { win: 1000, draw: 0, loss: 0 },
        Score::Mate(_) => Wdl { win: 0, draw: 0, loss: 1000 },
        Score::Centipawns(cp) => {
            let (w, l) = win_loss(cp, material);
            // Rounded each on its own, so each moves monotonically with the score; the loss
            // gives way when the two round up past 1000 together.
            let win = (w * 1000.0).round().clamp(0.0, 1000.0) as u32;
            let loss = ((l * 1000.0).round().clamp(0.0, 1000.0) as u32).min(1000 - win);
            Wdl { win, draw: 1000 - win - loss, loss }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEVELS: [i32; 8] = [0, 8, 20, 35, 50, 64, 78, 120];

    #[test]
    fn the_triple_sums_to_1000_and_moves_with_the_score() {
        for m in LEVELS {
            let mut last = wdl(Score::Centipawns(-3000), m);
            assert_eq!(last.win + last.draw + last.loss, 1000);
            for cp in -3000..=3000 {
                let now = wdl(Score::Centipawns(cp), m);
                assert_eq!(now.win + now.draw + now.loss, 1000, "{cp} cp, material {m}: {now:?}");
                assert!(now.win >= last.win, "win fell from {last:?} to {now:?} at {cp} cp, material {m}");
                assert!(now.loss <= last.loss, "loss rose from {last:?} to {now:?} at {cp} cp, material {m}");
                last = now;
            }
            // The ends are (nearly) certain and the middle is symmetric.
            assert!(wdl(Score::Centipawns(3000), m).win >= 990, "material {m}");
            assert!(wdl(Score::Centipawns(-3000), m).loss >= 990, "material {m}");
            let even = wdl(Score::Centipawns(0), m);
            assert_eq!(even.win, even.loss, "material {m}");
        }
    }

    #[test]
    fn the_fitted_curves_need_no_clamping_over_the_material_range() {
        for m in M_MIN..=M_MAX {
            let x = (f64::from(m) - M_MID) / M_HALF;
            assert!(polynomial(&A, x) > 0.0 && polynomial(&B, x) > 1.0, "material {m}");
        }
    }

    #[test]
    fn mates_are_certain() {
        assert_eq!(wdl(Score::Mate(3), 40), Wdl { win: 1000, draw: 0, loss: 0 });
        assert_eq!(wdl(Score::Mate(-1), 40), Wdl { win: 0, draw: 0, loss: 1000 });
        assert_eq!(wdl(Score::Mate(0), 40), Wdl { win: 0, draw: 0, loss: 1000 });
    }

    #[test]
    fn an_edge_counts_for_less_in_an_ending() {
        // One pawn up: the model's own games say a rook ending converts less often than a
        // middle game.
        assert!(wdl(Score::Centipawns(100), 70).win > wdl(Score::Centipawns(100), 20).win);
        assert!(wdl(Score::Centipawns(100), 20).draw > wdl(Score::Centipawns(100), 70).draw);
    }

    #[test]
    fn material_counts_both_sides() {
        let start = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        assert_eq!(material(&start), 78);
        let ending = Position::from_fen("8/5k2/8/3p4/8/2N5/4K3/7r w - - 0 1").unwrap();
        assert_eq!(material(&ending), 1 + 3 + 5);
    }
}
