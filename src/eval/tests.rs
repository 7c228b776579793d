//! Evaluation unit tests: symmetry, the caches, the trace, threats, end games.

use super::king::king_danger;
use super::*;
use crate::nnue::{self, NETWORK};
use crate::psqt::{s, Tapered};

/// The same position with colours swapped and the board mirrored top to bottom.
fn flip_fen(fen: &str) -> String {
    let parts: Vec<&str> = fen.split_whitespace().collect();
    let board: Vec<String> = parts[0]
        .split('/')
        .rev()
        .map(|row| {
            row.chars()
                .map(|ch| if ch.is_ascii_uppercase() { ch.to_ascii_lowercase() } else { ch.to_ascii_uppercase() })
                .collect()
        })
        .collect();
    let side = if parts[1] == "w" { "b" } else { "w" };
    let castling: String = if parts[2] == "-" {
        "-".into()
    } else {
        let mut c: Vec<char> = parts[2]
            .chars()
            .map(|ch| if ch.is_ascii_uppercase() { ch.to_ascii_lowercase() } else { ch.to_ascii_uppercase() })
            .collect();
        c.sort_by_key(|ch| (ch.is_ascii_lowercase(), *ch));
        c.into_iter().collect()
    };
    let ep = if parts[3] == "-" {
        "-".to_string()
    } else {
        let b = parts[3].as_bytes();
        format!("{}{}", b[0] as char, if b[1] == b'3' { '6' } else { '3' })
    };
    format!("{} {} {} {} 0 1", board.join("/"), side, castling, ep)
}

const FENS: [&str; 8] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 1",
    "8/8/4k3/8/8/3K4/3R4/8 w - - 0 1",
    "6k1/5ppp/8/3P4/8/8/5PPP/6K1 b - - 0 1",
    "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - b3 0 1",
    "8/8/8/3b4/8/5B2/2k5/K7 w - - 0 1",
];

#[test]
fn colour_flip_is_symmetric() {
    for fen in FENS {
        let a = Position::from_fen(fen).unwrap();
        let b = Position::from_fen(&flip_fen(fen)).unwrap();
        assert_eq!(evaluate(&a), evaluate(&b), "{fen} vs {}", flip_fen(fen));
    }
}

#[test]
fn symmetric_positions_are_equal_for_both_sides() {
    // In a symmetric position the only difference between the two sides is the tempo.
    for fen in [FENS[0], "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 0 1"] {
        let w = Position::from_fen(fen).unwrap();
        let b = Position::from_fen(&fen.replace(" w ", " b ")).unwrap();
        assert_eq!(evaluate_hand(&w), TEMPO);
        assert_eq!(evaluate_hand(&b), TEMPO);
    }
}

#[test]
fn pawn_cache_agrees() {
    let mut table = PawnTable::new(1024);
    for fen in FENS {
        let p = Position::from_fen(fen).unwrap();
        assert_eq!(evaluate_cached(&p, &mut table), evaluate_hand(&p));
        assert_eq!(evaluate_cached(&p, &mut table), evaluate_hand(&p));
    }
}

#[test]
fn eval_cache_agrees() {
    let mut pawns = PawnTable::new(1024);
    let mut cache = EvalCache::new(16);
    for _ in 0..2 {
        for fen in FENS {
            let p = Position::from_fen(fen).unwrap();
            assert_eq!(cache.evaluate(&p, &mut pawns, &NETWORK, &nnue::refresh(&NETWORK, &p)), evaluate(&p), "{fen}");
        }
    }
}

/// Sums the trace with the engine's weights, as the tuner does.
struct Sum {
    total: Tapered,
    finish: (i32, i32, i32, Color),
}
fn weight(term: Term) -> Tapered {
    let w = &WEIGHTS;
    match term {
        Term::Material(k) => s(crate::value::PIECE_VALUES[k.index()].mg, crate::value::PIECE_VALUES[k.index()].eg),
        Term::Psq(k, sq) => crate::psqt::PST[k.index()][sq],
        Term::Doubled => w.doubled,
        Term::Isolated => w.isolated,
        Term::Backward => w.backward,
        Term::Connected(r) => w.connected[r],
        Term::Passed(r) => w.passed[r],
        Term::PassedKing(r) => w.passed_king[r],
        Term::PassedBlocked => w.passed_blocked,
        Term::Mobility(k) => w.mobility[k.index()],
        Term::BishopPair => w.bishop_pair,
        Term::RookOpen => w.rook_open,
        Term::RookSemiOpen => w.rook_semi_open,
        Term::PawnThreat(k) => w.pawn_threat[k.index()],
        Term::MinorThreat(k) => w.minor_threat[k.index()],
        Term::RookThreat => w.rook_threat,
        Term::Hanging => w.hanging,
        Term::PushThreat => w.push_threat,
        Term::ShieldMissing => w.shield_missing,
        Term::ShieldAdvanced => w.shield_advanced,
        Term::KingOpenFile => w.king_open_file,
    }
}
impl Trace for Sum {
    const ON: bool = true;
    fn term(&mut self, term: Term, c: Color, n: i32) {
        self.total += weight(term) * (n * sign(c));
    }
    fn king_attack(&mut self, c: Color, hits: [i32; 6], counts: bool) {
        let units: i32 = (0..6).map(|k| WEIGHTS.attack_units[k] * hits[k]).sum();
        if counts {
            self.total += king_danger(units) * sign(c);
        }
    }
    fn finish(&mut self, phase: i32, scale: i32, mop_up: i32, stm: Color) {
        self.finish = (phase, scale, mop_up, stm);
    }
}

#[test]
fn trace_adds_up_to_the_evaluation() {
    let mut checked = 0;
    for fen in FENS.iter().copied().chain([
        "8/8/4k3/8/8/3K4/3R4/8 b - - 0 1",
        "6k1/8/8/8/8/8/1N6/6K1 w - - 0 1",
        "4k3/5r2/8/4N3/8/2b5/8/3K4 b - - 0 1",
        "r2qk2r/ppp2ppp/2n2n2/3pp1B1/1b2P3/2NP1N2/PPP2PPP/R2QKB1R w KQkq - 0 1",
    ]) {
        let p = Position::from_fen(fen).unwrap();
        let mut sum = Sum { total: Tapered::default(), finish: (0, 0, 0, Color::White) };
        let Some(v) = evaluate_traced(&p, &mut sum) else {
            assert_eq!(evaluate(&p), 0, "{fen}");
            continue;
        };
        let (phase, scale, mop_up, stm) = sum.finish;
        let (mg, eg) = (sum.total.mg * scale / 16, sum.total.eg * scale / 16 + mop_up);
        let white = (mg * phase + eg * (24 - phase)) / 24;
        let rebuilt = if stm == Color::White { white } else { -white } + WEIGHTS.tempo;
        assert_eq!(rebuilt, v, "{fen}");
        assert_eq!(v, evaluate_hand(&p), "{fen}");
        checked += 1;
    }
    assert!(checked >= 8);
}

/// Records the threat terms, White minus Black.
#[derive(Default)]
struct Threats(Vec<(Term, i32)>);
impl Trace for Threats {
    const ON: bool = true;
    fn term(&mut self, term: Term, c: Color, n: i32) {
        if matches!(
            term,
            Term::PawnThreat(_) | Term::MinorThreat(_) | Term::RookThreat | Term::Hanging | Term::PushThreat
        ) {
            self.0.push((term, n * sign(c)));
        }
    }
}

#[test]
fn threats_are_seen() {
    let cases: [(&str, &[(Term, i32)]); 5] = [
        // A pawn attacks an undefended knight.
        ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", &[(Term::PawnThreat(Kind::Knight), 1), (Term::Hanging, 1)]),
        // Rook and queen face each other, both defended by their kings.
        ("3qk3/8/8/8/8/8/8/3RK3 w - - 0 1", &[(Term::RookThreat, 1)]),
        // d3-d4 would fork knight and rook; d4 is not attacked.
        ("4k3/8/8/2n1r3/8/3P4/8/4K3 w - - 0 1", &[(Term::PushThreat, 2)]),
        // d2-d3 attacks the knight (d2-d4 attacks nothing).
        ("4k3/8/8/8/2n5/8/3P4/4K3 w - - 0 1", &[(Term::PushThreat, 1)]),
        // A knight attacks a rook its king defends; a bishop attacks the undefended knight.
        (
            "4k3/5r2/8/4N3/8/2b5/8/3K4 b - - 0 1",
            &[(Term::MinorThreat(Kind::Rook), 1), (Term::MinorThreat(Kind::Knight), -1), (Term::Hanging, -1)],
        ),
    ];
    for (fen, want) in cases {
        let p = Position::from_fen(fen).unwrap();
        let mut got = Threats::default();
        evaluate_traced(&p, &mut got).unwrap();
        let mut got = got.0;
        let mut want = want.to_vec();
        let key = |x: &(Term, i32)| format!("{x:?}");
        got.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(got, want, "{fen}");
        let flipped = Position::from_fen(&flip_fen(fen)).unwrap();
        assert_eq!(evaluate(&p), evaluate(&flipped), "{fen}");
    }
}

#[test]
fn endgame_knowledge() {
    for fen in
        ["8/8/4k3/8/8/3K4/3N4/8 w - - 0 1", "8/8/4k3/8/8/3K4/3B4/8 b - - 0 1", "8/8/4k3/8/8/3K4/3NN3/8 w - - 0 1"]
    {
        let p = Position::from_fen(fen).unwrap();
        assert!(evaluate(&p).abs() <= TEMPO, "{fen}: {}", evaluate(&p));
    }
    // KRK: the bare king on the edge is worse for it than in the centre.
    let edge = evaluate(&Position::from_fen("4k3/8/4K3/8/8/8/8/7R w - - 0 1").unwrap());
    let centre = evaluate(&Position::from_fen("8/8/8/4k3/8/8/8/K6R w - - 0 1").unwrap());
    assert!(edge > centre && centre > 400, "{edge} {centre}");
}

/// The light base (`nnue::Base::Light`) drops only what needs a piece's reach: it is the
/// full evaluation where kings and pawns are alone, it sees both colours alike, and it
/// differs where pieces move freely.
#[test]
fn the_light_base_drops_only_the_reach_terms() {
    use crate::nnue::Base;
    for fen in [
        "6k1/5ppp/8/3P4/8/8/5PPP/6K1 b - - 0 1",
        "8/2p5/3p4/KP6/5p1k/8/4P1P1/8 w - - 0 1",
        "8/5k2/8/2P5/8/8/8/4K3 w - - 0 1",
    ] {
        let p = Position::from_fen(fen).unwrap();
        assert_eq!(evaluate_base(&p, Base::Light), evaluate_hand(&p), "{fen}");
        assert_eq!(evaluate_base(&p, Base::Full), evaluate_hand(&p), "{fen}");
    }
    for fen in FENS {
        let a = Position::from_fen(fen).unwrap();
        let b = Position::from_fen(&flip_fen(fen)).unwrap();
        assert_eq!(evaluate_base(&a, Base::Light), evaluate_base(&b, Base::Light), "{fen}");
        assert_eq!(evaluate_base(&a, Base::None), 0);
    }
    let open = Position::from_fen(FENS[1]).unwrap();
    assert_ne!(evaluate_base(&open, Base::Light), evaluate_hand(&open));
}
