//! Fuzzing the text parsers: FEN (standard and Chess960 mode), UCI move text, square names and
//! perft suite files get random and mutated input. None may panic; every FEN that is accepted
//! (read strictly, or repaired) must give a consistent position whose `to_fen()` reads back to
//! the same key, whose legal moves agree with the independent mailbox generator, whose moves
//! read back from the text ox88 writes in either castling notation, and survive make/unmake.
//!
//! About 120,000 cases in all (each test sets its count with `ProptestConfig::with_cases`);
//! a few seconds in release: `cargo test --release --test fuzz_parsers`.

use ox88::perft::parse_suite;
use ox88::{Position, Square};
use ox88_mailbox::{MailboxBoard, MailboxMove};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use std::collections::BTreeSet;

/// Valid FENs to mutate: standard, tricky, en passant, promotion, Chess960 (Shredder and X-FEN).
const BASE_FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "4r3/3k4/8/8/8/8/6PP/qR1K1R2 w KQ - 0 1",
    "1r2k1r1/8/8/8/8/8/8/RR2K2R w Bg - 0 1",
];

/// Characters a FEN is made of, so mutations often stay close to valid.
const FEN_ALPHABET: &[char] = &[
    'p', 'n', 'b', 'r', 'q', 'k', 'P', 'N', 'B', 'R', 'Q', 'K', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '/',
    ' ', '-', 'w', 'a', 'c', 'd', 'e', 'f', 'g', 'h', 'A', 'C', 'D', 'E', 'F', 'G', 'H', 'x', '\t', 'é', '♔',
];

fn config(cases: u32) -> ProptestConfig {
    // No regression files: failures print their input, and the crate tree stays clean.
    ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(cases) }
}

/// Every property of a position a FEN parser accepted. `Err` describes the first failure.
/// Shredder-FEN letters switch a position to Chess960 even in standard mode, and `to_fen` then
/// writes X-FEN, so the re-read uses the position's own mode.
fn check_accepted(pos: &Position) -> Result<(), String> {
    pos.check_consistency().map_err(|e| format!("inconsistent: {e}"))?;
    let fen = pos.to_fen();
    let reread = Position::from_fen_with(&fen, pos.is_chess960())
        .map_err(|e| format!("to_fen '{fen}' does not re-parse: {e}"))?;
    if reread.key() != pos.key() || reread.to_fen() != fen {
        return Err(format!("to_fen '{fen}' re-parses to another position '{}'", reread.to_fen()));
    }
    let legal = pos.legal_moves();
    let ox: BTreeSet<String> = legal.iter().map(|m| m.to_uci(true)).collect();
    let board = MailboxBoard::from_fen(&fen).ok_or_else(|| format!("the mailbox refuses '{fen}'"))?;
    let mb: BTreeSet<String> = board.legal_moves().iter().map(MailboxMove::uci).collect();
    if ox != mb {
        let missing: Vec<_> = mb.difference(&ox).collect();
        let extra: Vec<_> = ox.difference(&mb).collect();
        return Err(format!("'{fen}': 0x88 lacks {missing:?}, has extra {extra:?}"));
    }
    let mut scratch = pos.clone();
    for &m in legal.iter() {
        // Whatever the mode, the text ox88 prints for a move reads back as that move.
        for chess960 in [false, true] {
            let text = m.to_uci(chess960);
            if pos.parse_uci_move(&text) != Ok(m) {
                return Err(format!("'{fen}': parse_uci_move('{text}') does not give the move back"));
            }
        }
        let text = m.to_uci(pos.is_chess960());
        let undo = scratch.make(m);
        scratch.check_consistency().map_err(|e| format!("'{fen}' after {text}: {e}"))?;
        scratch.unmake(m, &undo);
        if scratch.key() != pos.key() {
            return Err(format!("'{fen}': make/unmake of {text} changed the key"));
        }
    }
    Ok(())
}

/// Feeds `text` to every parser; for accepted FENs runs [`check_accepted`].
fn feed_all_parsers(text: &str) -> Result<(), TestCaseError> {
    for chess960 in [false, true] {
        if let Ok(pos) = Position::from_fen_with(text, chess960) {
            check_accepted(&pos).map_err(TestCaseError::fail)?;
        }
        // A repaired position must be as sound as one read strictly.
        if let Ok((pos, _)) = Position::from_fen_repaired(text, chess960) {
            check_accepted(&pos).map_err(TestCaseError::fail)?;
        }
    }
    if let Ok(sq) = text.parse::<Square>() {
        prop_assert_eq!(sq.to_string(), text);
    }
    let _ = parse_suite(text);
    let _ = MailboxBoard::from_fen(text);
    let _ = Position::startpos().parse_uci_move(text);
    Ok(())
}

/// One edit of a FEN (as characters, so multi-byte characters are never split).
#[derive(Clone, Debug)]
enum Mutation {
    Replace(usize, char),
    Insert(usize, char),
    Delete(usize),
    SwapFields(usize, usize),
    HugeNumberField(usize, String),
    DropField(usize),
    AppendField(String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let fen_char = prop_oneof![3 => proptest::sample::select(FEN_ALPHABET), 1 => any::<char>()];
    let huge = prop_oneof![
        Just("99999999999999999999999999".to_string()),
        Just("-1".to_string()),
        Just("65536".to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
    ];
    prop_oneof![
        (any::<usize>(), fen_char.clone()).prop_map(|(i, c)| Mutation::Replace(i, c)),
        (any::<usize>(), fen_char).prop_map(|(i, c)| Mutation::Insert(i, c)),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapFields(a, b)),
        (any::<usize>(), huge.clone()).prop_map(|(i, s)| Mutation::HugeNumberField(i, s)),
        any::<usize>().prop_map(Mutation::DropField),
        prop_oneof![huge, "[a-hA-H1-8/-]{0,6}", "\\PC{0,4}"].prop_map(Mutation::AppendField),
    ]
}

fn apply(fen: &str, mutation: &Mutation) -> String {
    let mut chars: Vec<char> = fen.chars().collect();
    let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
    let n = chars.len().max(1);
    match mutation {
        Mutation::Replace(i, c) => {
            if !chars.is_empty() {
                chars[i % n] = *c;
            }
        }
        Mutation::Insert(i, c) => chars.insert(i % (chars.len() + 1), *c),
        Mutation::Delete(i) => {
            if !chars.is_empty() {
                chars.remove(i % n);
            }
        }
        Mutation::SwapFields(a, b) => {
            let len = fields.len();
            fields.swap(a % len, b % len);
            return fields.join(" ");
        }
        Mutation::HugeNumberField(i, s) => {
            let len = fields.len();
            fields[i % len] = s.clone();
            return fields.join(" ");
        }
        Mutation::DropField(i) => {
            let len = fields.len();
            fields.remove(i % len);
            return fields.join(" ");
        }
        Mutation::AppendField(s) => return format!("{fen} {s}"),
    }
    chars.into_iter().collect()
}

/// A FEN built field by field: a sparse random board with one king per side, random side to
/// move, castling letters, en passant square and counters. Sometimes kings and rooks are put on
/// their castling squares, and sometimes a double push that allows en passant is set up, so the
/// accepted positions include those rules. Often valid, often subtly not.
fn structured_fen() -> impl Strategy<Value = String> {
    let cells = proptest::collection::vec(0u8..64, 64);
    let kings = (0usize..64, 0usize..64);
    let white_to_move = any::<bool>();
    let castling = prop_oneof![
        2 => Just("-".to_string()),
        2 => "[KQkq]{1,4}",
        1 => "[A-Ha-h]{1,4}",
        1 => "[KQkqA-Ha-h]{1,4}",
    ];
    let castle_setup = any::<bool>();
    let en_passant_setup = prop_oneof![2 => Just(None), 1 => (0usize..8, any::<bool>()).prop_map(Some)];
    let en_passant_text = prop_oneof![3 => Just("-".to_string()), 1 => "[a-h][1-8]"];
    let counters = prop_oneof![Just(String::new()), (0u32..200, 0u32..300).prop_map(|(h, f)| format!(" {h} {f}"))];
    (cells, kings, white_to_move, castling, castle_setup, en_passant_setup, en_passant_text, counters).prop_map(
        |(cells, (wk, bk), white_to_move, castling, castle_setup, ep_setup, ep_text, counters)| {
            const LETTERS: [char; 10] = ['P', 'N', 'B', 'R', 'Q', 'p', 'n', 'b', 'r', 'q'];
            // Index 0 is a8, 63 is h1; `at(file, rank)` with rank 0 = rank 1.
            let at = |file: usize, rank: usize| (7 - rank) * 8 + file;
            let mut board: Vec<Option<char>> = cells
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let letter = LETTERS.get(c as usize).copied()?;
                    let back_rank = !(8..56).contains(&i);
                    (!(letter.eq_ignore_ascii_case(&'p') && back_rank)).then_some(letter)
                })
                .collect();
            let (mut wk, mut bk) = (wk, bk);
            let mut castling = castling;
            if castle_setup {
                (wk, bk) = (at(4, 0), at(4, 7));
                for (file, rank, rook) in [(0, 0, 'R'), (7, 0, 'R'), (0, 7, 'r'), (7, 7, 'r')] {
                    board[at(file, rank)] = Some(rook);
                }
                castling = castling.chars().filter(|c| "KQkq".contains(*c)).collect();
                if castling.is_empty() {
                    castling = "KQkq".to_string();
                }
            }
            let mut ep = ep_text;
            if let Some((file, capture_from_left)) = ep_setup {
                // The side not to move has just pushed a pawn two squares on `file`.
                let (pushed_rank, skipped_rank, origin_rank, pusher, capturer) =
                    if white_to_move { (4, 5, 6, 'p', 'P') } else { (3, 2, 1, 'P', 'p') };
                board[at(file, pushed_rank)] = Some(pusher);
                board[at(file, skipped_rank)] = None;
                board[at(file, origin_rank)] = None;
                let neighbour = if capture_from_left { file.checked_sub(1) } else { Some(file + 1).filter(|&f| f < 8) };
                if let Some(f) = neighbour {
                    board[at(f, pushed_rank)] = Some(capturer);
                }
                ep = format!("{}{}", (b'a' + file as u8) as char, skipped_rank + 1);
            }
            board[wk] = Some('K');
            if bk != wk {
                board[bk] = Some('k');
            }
            let placement: Vec<String> = board.chunks(8).map(run_length).collect();
            let side = if white_to_move { "w" } else { "b" };
            format!("{} {side} {castling} {ep}{counters}", placement.join("/"))
        },
    )
}

/// One FEN rank from eight cells (a8-first order within the rank).
fn run_length(rank: &[Option<char>]) -> String {
    let mut out = String::new();
    let mut empty = 0;
    for cell in rank {
        match cell {
            None => empty += 1,
            Some(c) => {
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push(*c);
            }
        }
    }
    if empty > 0 {
        out.push_str(&empty.to_string());
    }
    out
}

/// Lines that look a little like perft suites (EPD and python-chess `.perft` blocks).
fn suite_text() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()),
        Just(" ;D1 20".to_string()),
        Just(";D".to_string()),
        Just(";d99999999999999".to_string()),
        Just(";D2 184467440737095516160".to_string()),
        Just("id ".to_string()),
        Just("epd ".to_string()),
        Just("perft ".to_string()),
        Just("perft 3".to_string()),
        Just("# comment".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just(";".to_string()),
        any::<u64>().prop_map(|n| format!(" {n}")),
        "\\PC{0,8}",
    ];
    proptest::collection::vec(fragment, 0..12).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(config(25_000))]
    #[test]
    fn random_strings_do_not_panic(text in "\\PC{0,90}") {
        feed_all_parsers(&text)?;
    }
}

proptest! {
    #![proptest_config(config(15_000))]
    #[test]
    fn random_bytes_do_not_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        feed_all_parsers(&String::from_utf8_lossy(&bytes))?;
    }
}

proptest! {
    #![proptest_config(config(40_000))]
    #[test]
    fn mutated_fens_do_not_panic(
        base in 0..BASE_FENS.len(),
        mutations in proptest::collection::vec(mutation(), 1..5),
    ) {
        let fen = mutations.iter().fold(BASE_FENS[base].to_string(), |fen, m| apply(&fen, m));
        feed_all_parsers(&fen)?;
    }
}

proptest! {
    #![proptest_config(config(20_000))]
    #[test]
    fn structured_fens_parse_or_fail_cleanly(fen in structured_fen()) {
        feed_all_parsers(&fen)?;
    }
}

proptest! {
    #![proptest_config(config(10_000))]
    #[test]
    fn uci_move_text_does_not_panic(base in 0..BASE_FENS.len(), text in prop_oneof![
        "[a-h][1-8][a-h][1-8][qrbnkQRBNKx]?",
        "\\PC{0,8}",
        "[a-i0-9]{3,6}",
    ]) {
        let fen = BASE_FENS[base];
        let pos = Position::from_fen(fen)
            .or_else(|_| Position::from_fen_with(fen, true))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        if let Ok(m) = pos.parse_uci_move(&text) {
            prop_assert!(pos.legal_moves().contains(m), "{} is not a legal move", text);
            // Castling reads in both notations; anything else only as ox88 writes it.
            let lower = text.to_ascii_lowercase();
            prop_assert!(m.to_uci(false) == lower || m.to_uci(true) == lower, "{} read as {:?}", text, m);
        }
    }
}

proptest! {
    #![proptest_config(config(10_000))]
    #[test]
    fn suite_text_does_not_panic(text in suite_text()) {
        if let Ok(cases) = parse_suite(&text) {
            for case in cases {
                prop_assert_eq!(case.fen.trim(), case.fen.as_str());
                prop_assert!(!case.fen.contains('\n'));
            }
        }
    }
}

/// Square names: exactly the 64 names parse, and each prints back the same.
#[test]
fn every_square_name_round_trips() {
    let mut parsed = 0;
    for file in 'a'..='j' {
        for rank in '0'..='9' {
            let name = format!("{file}{rank}");
            let valid = ('a'..='h').contains(&file) && ('1'..='8').contains(&rank);
            match name.parse::<Square>() {
                Ok(sq) => {
                    assert!(valid, "{name} parsed");
                    assert_eq!(sq.to_string(), name);
                    parsed += 1;
                }
                Err(_) => assert!(!valid, "{name} refused"),
            }
        }
    }
    assert_eq!(parsed, 64);
}

/// The structured generator must reach the position checks, not only the error paths: a fair
/// share of its FENs are accepted, including some with en passant and castling rights.
#[test]
fn structured_fens_are_often_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = structured_fen();
    let (mut accepted, mut with_en_passant, mut with_castling) = (0, 0, 0);
    const SAMPLES: usize = 4_000;
    for _ in 0..SAMPLES {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let Ok(pos) = Position::from_fen(&tree.current()) else {
            continue;
        };
        accepted += 1;
        with_en_passant += pos.en_passant().is_some() as usize;
        with_castling += (pos.castling_rights() != 0) as usize;
    }
    println!("structured FENs: {accepted} of {SAMPLES} accepted, {with_en_passant} with en passant, {with_castling} with castling");
    assert!(accepted >= SAMPLES / 10, "only {accepted} of {SAMPLES} accepted");
    assert!(with_en_passant >= 5 && with_castling >= 20, "{with_en_passant} e.p., {with_castling} castling");
}
