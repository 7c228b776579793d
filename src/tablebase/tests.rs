//! The adapter without tables: the position it builds, the path it splits, the scores it shows.

use super::*;
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position as _};

/// The crate's position of every position of seeded random games is ox88's: same FEN
/// (pieces, side, clocks; castling rights are refused), same en-passant capture.
#[test]
fn the_crate_sees_the_position_ox88_has() {
    let mut checked = 0;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _game in 0..60 {
        // No castling rights, so that every position of the game can be built.
        let mut pos = Position::from_fen("r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w - - 0 1").unwrap();
        for _ply in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let chess = to_shakmaty(&pos).expect("a legal position without castling rights");
            let theirs = Fen::from_position(chess.clone(), EnPassantMode::Legal).to_string();
            let ours = pos.to_fen();
            let fields = |f: &str| {
                let t: Vec<String> = f.split_whitespace().map(str::to_string).collect();
                [t[0].clone(), t[1].clone(), t[4].clone(), t[5].clone()]
            };
            assert_eq!(fields(&theirs), fields(&ours), "{ours} / {theirs}");
            let ours_ep = moves.iter().any(|m| m.is_en_passant());
            assert_eq!(chess.ep_square(EnPassantMode::Legal).is_some(), ours_ep, "{ours}");
            assert_eq!(chess.legal_moves().len(), moves.len(), "{ours}");
            checked += 1;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = moves[(x % moves.len() as u64) as usize];
            pos.make(m);
        }
    }
    assert!(checked > 3000, "{checked}");
}

#[test]
fn castling_rights_are_refused_not_dropped() {
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
    assert!(matches!(to_shakmaty(&pos), Err(TbError::Castling)));
}

#[test]
fn the_path_splits_on_the_system_separator() {
    let sep = PATH_SEPARATOR;
    assert_eq!(split_path(&format!("/a{sep} /b {sep}{sep}/c")).collect::<Vec<_>>(), ["/a", "/b", "/c"]);
    assert_eq!(split_path("<empty>").count(), 0);
    assert_eq!(split_path("").count(), 0);
    assert_eq!(split_path("  ").count(), 0);
}

#[test]
fn a_missing_directory_loads_nothing_and_says_so() {
    let loaded = Tablebases::load("/no/such/ox88/dir");
    assert!(loaded.tables.is_none());
    assert!(matches!(&loaded.problems[..], [LoadProblem::Directory { .. }]), "{:?}", loaded.problems);
}

#[test]
fn shown_scores_order_as_the_ranks() {
    use crate::value::TB_WIN;
    // Sure wins, cursed wins nearer and farther, a draw, blessed losses, sure losses.
    let ranks = [SURE, SURE - 99, SURE - 101, SURE - 180, 0, -SURE + 180, -SURE + 101, -SURE + 99, -SURE + 1];
    let scores: Vec<i32> = ranks.iter().map(|&r| dtz_score(r)).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert_eq!(scores[0], TB_WIN);
    assert_eq!(scores[1], TB_WIN);
    assert!((1..50).contains(&scores[2]) && (1..50).contains(&scores[3]) && scores[2] > scores[3], "{scores:?}");
    assert_eq!(scores[4], 0);
    assert!((-49..0).contains(&scores[5]) && (-49..0).contains(&scores[6]), "{scores:?}");
    assert_eq!(scores[8], -TB_WIN);
}
