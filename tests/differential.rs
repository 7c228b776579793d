//! Differential test: the 0x88 generator against the independent 10x12 mailbox reference.
//!
//! Seeded random games start from the standard position, from published tricky positions and
//! from Chess960 start arrays. At every ply the two generators must produce the same set of
//! legal moves (castling compared king-takes-rook, `Move::to_uci(true)`), perft's counter must
//! count as many as the list holds and its two-ply count (`perft2`, which shares work between
//! sibling positions) must equal the mailbox's perft 2, the 0x88 tactical list and its quiet
//! list must split its full list by `Move::is_tactical`, `is_legal` must accept exactly the
//! legal moves (probed with stale moves from earlier plies and with every legal move's flags
//! altered, as a hash table or killer slot may offer), both must agree on check, `gives_check`
//! must foretell what making each move shows,
//! the position must pass `check_consistency`, and make/unmake must restore the key. Then
//! the same randomly chosen move is played on both boards.
//!
//! The default run plays well over 100,000 plies in a few seconds in release mode:
//! `cargo test --release --test differential -- --nocapture` prints the totals.
//! `OX88_DIFF_SEED=<n>` replays with another seed.

use ox88::{Move, Position};
use ox88_mailbox::{MailboxBoard, MailboxMove};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;
use std::time::Instant;

/// Published positions (chessprogramming.org "Perft Results" 2-6 and 4 mirrored, and Martin
/// Sedlak's talkchess perft positions) to start random games from.
const TRICKY_STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
    "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1",
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
    "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
    "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1",
    "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1",
    "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1",
    "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1",
    "4k3/1P6/8/8/8/8/K7/8 w - - 0 1",
    "8/P1k5/K7/8/8/8/8/8 w - - 0 1",
    "8/k1P5/8/1K6/8/8/8/8 w - - 0 1",
    "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1",
];

const DEFAULT_SEED: u64 = 0x0088_1012;

fn seed() -> u64 {
    std::env::var("OX88_DIFF_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SEED)
}

/// How many special situations the games went through, to show the run covered them.
#[derive(Default, Debug)]
struct Coverage {
    plies: u64,
    games: u64,
    castling_available: u64,
    en_passant_available: u64,
    promotions_available: u64,
    in_check: u64,
    double_check: u64,
    mates_and_stalemates: u64,
    /// Legal moves that give check, and those among them whose checking piece is not the
    /// one that moved (discovered, or the rook of a castling move).
    checking_moves: u64,
    discovered_checks: u64,
    /// Moves offered to `is_legal` that it had to refuse.
    illegal_probes: u64,
}

/// The 0x88 moves of `pos` as UCI text, castling written king-takes-rook.
fn ox88_moves(pos: &Position) -> BTreeSet<String> {
    pos.legal_moves().iter().map(|m| m.to_uci(true)).collect()
}

fn mailbox_moves(board: &MailboxBoard) -> BTreeSet<String> {
    board.legal_moves().iter().map(MailboxMove::uci).collect()
}

/// Describes how two move sets differ, from the 0x88 generator's point of view.
fn describe_difference(reference: &BTreeSet<String>, found: &BTreeSet<String>) -> String {
    let missing: Vec<&String> = reference.difference(found).collect();
    let extra: Vec<&String> = found.difference(reference).collect();
    format!("missing from 0x88 (mailbox has them): {missing:?}\nextra in 0x88 (mailbox lacks them): {extra:?}")
}

/// Every check of one ply. `history` is the move sequence from the start, for the report.
/// `stale` holds moves that were legal a few plies earlier.
fn check_ply(
    pos: &mut Position,
    board: &MailboxBoard,
    chess960: bool,
    stale: &[Move],
    coverage: &mut Coverage,
) -> Result<(), String> {
    let fen = pos.to_fen();
    pos.check_consistency().map_err(|e| format!("check_consistency failed: {e}"))?;

    let ox = ox88_moves(pos);
    let mb = mailbox_moves(board);
    if ox != mb {
        return Err(format!("legal move sets differ\n{}", describe_difference(&mb, &ox)));
    }
    let legal = pos.legal_moves();
    if legal.len() != ox.len() {
        return Err(format!("0x88 generated duplicate moves: {:?}", legal));
    }
    if pos.count_legal_moves() != legal.len() as u64 {
        return Err(format!("count_legal_moves says {}, the legal list has {}", pos.count_legal_moves(), legal.len()));
    }
    let (two_plies, reference) = (pos.perft2(), board.perft(2));
    if two_plies != reference {
        return Err(format!("perft2 says {two_plies}, the mailbox's perft 2 is {reference}"));
    }

    let mut expected_tactical: Vec<Move> = legal.iter().copied().filter(|m| m.is_tactical()).collect();
    let mut tactical: Vec<Move> = pos.legal_tactical_moves().iter().copied().collect();
    expected_tactical.sort_by_key(|m| m.bits());
    tactical.sort_by_key(|m| m.bits());
    if tactical != expected_tactical {
        return Err(format!(
            "legal_tactical_moves {tactical:?} != legal moves filtered by is_tactical {expected_tactical:?}"
        ));
    }

    let mut expected_quiet: Vec<Move> = legal.iter().copied().filter(|m| !m.is_tactical()).collect();
    let mut quiet: Vec<Move> = pos.legal_quiet_moves().iter().copied().collect();
    expected_quiet.sort_by_key(|m| m.bits());
    quiet.sort_by_key(|m| m.bits());
    if quiet != expected_quiet {
        return Err(format!("legal_quiet_moves {quiet:?} != legal moves that are not tactical {expected_quiet:?}"));
    }
    check_is_legal(pos, &legal, stale, coverage)?;

    if pos.in_check() != board.in_check() {
        return Err(format!("in_check: 0x88 says {}, mailbox says {}", pos.in_check(), board.in_check()));
    }

    // Make/unmake of every move restores the key; the FEN round trip keeps key and moves.
    let key = pos.key();
    for &m in legal.iter() {
        let predicted = pos.gives_check(m);
        let undo = pos.make(m);
        let checks = pos.in_check();
        let discovered = pos.checkers().iter().any(|(sq, _)| sq != m.to());
        pos.unmake(m, &undo);
        if predicted != checks {
            return Err(format!("gives_check({}) says {predicted}, the move made says {checks}", m.to_uci(true)));
        }
        coverage.checking_moves += checks as u64;
        coverage.discovered_checks += (checks && discovered) as u64;
        if pos.key() != key {
            return Err(format!("make/unmake of {} changed the key", m.to_uci(true)));
        }
    }
    if pos.to_fen() != fen {
        return Err(format!("make/unmake changed the position to {}", pos.to_fen()));
    }
    let reread =
        Position::from_fen_with(&fen, chess960).map_err(|e| format!("to_fen output does not re-parse: {e}"))?;
    if reread.key() != key {
        return Err("to_fen output re-parses to another key".to_string());
    }
    let reread_board = MailboxBoard::from_fen(&fen).ok_or("the mailbox cannot read to_fen output")?;
    if mailbox_moves(&reread_board) != mb {
        return Err("the mailbox board read from to_fen has other moves than the played-on board".to_string());
    }

    coverage.plies += 1;
    coverage.castling_available += legal.iter().any(|m| m.is_castle()) as u64;
    coverage.en_passant_available += legal.iter().any(|m| m.is_en_passant()) as u64;
    coverage.promotions_available += legal.iter().any(|m| m.is_promotion()) as u64;
    coverage.in_check += pos.in_check() as u64;
    coverage.double_check += (pos.checkers().count() == 2) as u64;
    coverage.mates_and_stalemates += legal.is_empty() as u64;
    Ok(())
}

/// `is_legal` against membership in the legal list, for every legal move, every stale move,
/// every legal move with one flag bit flipped, and every legal move played backwards.
fn check_is_legal(pos: &Position, legal: &[Move], stale: &[Move], coverage: &mut Coverage) -> Result<(), String> {
    let altered = legal.iter().flat_map(|m| (16..24).map(move |bit| Move::from_bits(m.bits() ^ (1 << bit))));
    let reversed =
        legal.iter().map(|m| Move::from_bits(m.bits() & !0xFFFF | (m.bits() & 0xFF) << 8 | (m.bits() >> 8) & 0xFF));
    for m in legal.iter().copied().chain(stale.iter().copied()).chain(altered).chain(reversed) {
        let expected = legal.contains(&m);
        if pos.is_legal(m) != expected {
            return Err(format!("is_legal({m:?}) is {}, but the legal list says {expected}", !expected));
        }
        coverage.illegal_probes += !expected as u64;
    }
    Ok(())
}

/// A random move: a third of the time a capture or promotion (when there is one), so games
/// reach sparse endgames and promotions; a sixth of the time a double pawn push, to create
/// en passant chances; otherwise any legal move.
fn choose_move(legal: &[Move], rng: &mut StdRng) -> Move {
    let pick = |moves: Vec<Move>, rng: &mut StdRng| moves.get(rng.gen_range(0..moves.len().max(1))).copied();
    let preferred = match rng.gen_range(0..6) {
        0 | 1 => pick(legal.iter().copied().filter(|m| m.is_tactical()).collect(), rng),
        2 => pick(legal.iter().copied().filter(|m| m.is_double_push()).collect(), rng),
        _ => None,
    };
    preferred.unwrap_or_else(|| legal[rng.gen_range(0..legal.len())])
}

/// Plays one random game of at most `max_plies` from `fen` on both boards, checking every ply.
fn play_random_game(fen: &str, chess960: bool, max_plies: u32, rng: &mut StdRng, coverage: &mut Coverage) {
    let mut pos = Position::from_fen_with(fen, chess960).unwrap_or_else(|e| panic!("start FEN {fen}: {e}"));
    let mut board = MailboxBoard::from_fen(fen).unwrap_or_else(|| panic!("mailbox cannot read start FEN {fen}"));
    let mut history: Vec<String> = Vec::new();
    let mut stale: Vec<Move> = Vec::new();
    coverage.games += 1;
    for _ in 0..=max_plies {
        if let Err(message) = check_ply(&mut pos, &board, chess960, &stale, coverage) {
            panic!(
                "disagreement (seed {})\nFEN: {}\nstart: {fen}\nmoves: {}\n{message}",
                seed(),
                pos.to_fen(),
                history.join(" ")
            );
        }
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return;
        }
        // The last few plies' moves, both sides', as a hash entry or killer might hold.
        stale.extend(legal.iter().copied());
        let keep = stale.len().saturating_sub(150);
        stale.drain(..keep);
        let chosen = choose_move(&legal, rng);
        let text = chosen.to_uci(true);
        let mailbox_move = board.legal_moves().into_iter().find(|m| m.uci() == text);
        let Some(mailbox_move) = mailbox_move else {
            panic!("mailbox has no move {text} in {}", pos.to_fen());
        };
        pos.make(chosen);
        board = board.make(&mailbox_move);
        history.push(text);
    }
}

/// The back rank of Chess960 start position `index` (0..960), Scharnagl's numbering: light
/// bishop, dark bishop, queen, the knight pair, then rook, king, rook on the three squares left.
fn chess960_back_rank(index: usize) -> [char; 8] {
    const KNIGHT_PAIRS: [(usize, usize); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let mut rank = [' '; 8];
    let mut n = index;
    rank[(n % 4) * 2 + 1] = 'B';
    n /= 4;
    rank[(n % 4) * 2] = 'B';
    n /= 4;
    let empty_files = |rank: &[char; 8]| (0..8).filter(|&f| rank[f] == ' ').collect::<Vec<usize>>();
    let queen_file = empty_files(&rank)[n % 6];
    rank[queen_file] = 'Q';
    n /= 6;
    let (first, second) = KNIGHT_PAIRS[n];
    let empty = empty_files(&rank);
    rank[empty[first]] = 'N';
    rank[empty[second]] = 'N';
    for (file, piece) in empty_files(&rank).into_iter().zip(['R', 'K', 'R']) {
        rank[file] = piece;
    }
    rank
}

/// The start FEN of Chess960 position `index`, with Shredder-FEN castling letters.
fn chess960_start_fen(index: usize) -> String {
    let white: String = chess960_back_rank(index).iter().collect();
    let black = white.to_ascii_lowercase();
    let mut rook_files: Vec<char> =
        white.chars().enumerate().filter(|&(_, p)| p == 'R').map(|(f, _)| (b'A' + f as u8) as char).collect();
    rook_files.reverse();
    let castling: String =
        rook_files.iter().copied().chain(rook_files.iter().map(|c| c.to_ascii_lowercase())).collect();
    format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {castling} - 0 1")
}

#[test]
fn chess960_start_arrays_follow_the_numbering() {
    assert_eq!(chess960_back_rank(518).iter().collect::<String>(), "RNBQKBNR");
    assert_eq!(chess960_back_rank(0).iter().collect::<String>(), "BBQNNRKR");
    assert_eq!(chess960_back_rank(959).iter().collect::<String>(), "RKRNNQBB");
    let mut seen = BTreeSet::new();
    for index in 0..960 {
        let rank = chess960_back_rank(index);
        let files = |piece: char| (0..8).filter(|&f| rank[f] == piece).collect::<Vec<usize>>();
        let (bishops, rooks, king) = (files('B'), files('R'), files('K'));
        assert_eq!(bishops.len(), 2, "{index}");
        assert_ne!(bishops[0] % 2, bishops[1] % 2, "{index}: bishops on one colour");
        assert!(rooks[0] < king[0] && king[0] < rooks[1], "{index}: king not between the rooks");
        assert_eq!((files('Q').len(), files('N').len()), (1, 2), "{index}");
        seen.insert(rank);
    }
    assert_eq!(seen.len(), 960);
    assert_eq!(chess960_start_fen(518), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
}

#[test]
fn random_games_from_published_positions_agree() {
    const PLIES: u64 = 100_000;
    let mut rng = StdRng::seed_from_u64(seed());
    let mut coverage = Coverage::default();
    let started = Instant::now();
    let mut game = 0;
    while coverage.plies < PLIES {
        let fen = TRICKY_STARTS[game % TRICKY_STARTS.len()];
        play_random_game(fen, false, 120, &mut rng, &mut coverage);
        game += 1;
    }
    println!("published starts: {coverage:?} in {:.2?}", started.elapsed());
    // The games must have gone through the situations generators get wrong.
    assert!(coverage.castling_available >= 100 && coverage.en_passant_available >= 100, "{coverage:?}");
    assert!(coverage.promotions_available >= 100 && coverage.in_check >= 1_000, "{coverage:?}");
    assert!(coverage.double_check >= 1 && coverage.mates_and_stalemates >= 5, "{coverage:?}");
    assert!(coverage.checking_moves >= 1000 && coverage.discovered_checks >= 20, "{coverage:?}");
    assert!(coverage.illegal_probes >= 1_000_000, "{coverage:?}");
}

#[test]
fn random_games_from_every_chess960_start_agree() {
    let mut rng = StdRng::seed_from_u64(seed() ^ 960);
    let mut coverage = Coverage::default();
    let started = Instant::now();
    for index in 0..960 {
        play_random_game(&chess960_start_fen(index), true, 60, &mut rng, &mut coverage);
    }
    println!("chess960 starts: {coverage:?} in {:.2?}", started.elapsed());
    assert!(coverage.plies >= 50_000, "{coverage:?}");
    assert!(coverage.castling_available >= 1_000 && coverage.en_passant_available >= 100, "{coverage:?}");
}

/// A Chess960 game from a start given in X-FEN (`KQkq`) must match the Shredder-FEN start.
#[test]
fn x_fen_and_shredder_fen_starts_agree() {
    for index in [0, 100, 518, 959] {
        let shredder = chess960_start_fen(index);
        let x_fen = shredder.replace(shredder.split(' ').nth(2).unwrap_or("-"), "KQkq");
        let a = Position::from_fen_with(&shredder, true).unwrap();
        let b = Position::from_fen_with(&x_fen, true).unwrap();
        assert_eq!(ox88_moves(&a), ox88_moves(&b), "{x_fen}");
        assert_eq!(mailbox_moves(&MailboxBoard::from_fen(&x_fen).unwrap()), ox88_moves(&a), "{x_fen}");
    }
}

/// The mailbox reference itself, against published perft counts.
#[test]
fn mailbox_perft_matches_published_counts() {
    // chessprogramming.org "Perft Results" positions 1-6, and one Chess960 position from
    // chessprogramming.org "Chess960 Perft Results".
    let cases: &[(&str, u32, u64)] = &[
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4, 197_281),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97_862),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9_467),
        ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 3, 9_467),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62_379),
        ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89_890),
        ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 3, 12_189),
        // Martin Sedlak's talkchess positions (as listed on chessprogramming.net "Perfect Perft").
        ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 5, 206_379),
        ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", 5, 120_330),
        ("8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23_527),
    ];
    for &(fen, depth, expected) in cases {
        let board = MailboxBoard::from_fen(fen).unwrap_or_else(|| panic!("mailbox cannot read {fen}"));
        let found = board.perft(depth);
        assert_eq!(found, expected, "mailbox perft({depth}) of {fen}: expected {expected}, found {found}");
    }
}

/// The mailbox reference against every small count of the project's perft files (published or
/// Stockfish counts), so the reference is checked on castling, en passant, promotion and
/// Chess960 corner cases independently of the 0x88 generator.
#[test]
fn mailbox_matches_the_perft_data_files() {
    const CAP: u64 = 200_000;
    let mut checks = 0;
    for file in ["standard.epd", "edge-cases.epd", "chess960.epd"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("perft-data").join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let cases = ox88::perft::parse_suite(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for case in cases {
            let board = MailboxBoard::from_fen(&case.fen).unwrap_or_else(|| panic!("mailbox cannot read {}", case.fen));
            for &(depth, expected) in case.expected.iter().filter(|&&(_, n)| n <= CAP) {
                let found = board.perft(depth);
                assert_eq!(
                    found, expected,
                    "mailbox perft of {} depth {depth}: expected {expected}, found {found}",
                    case.fen
                );
                checks += 1;
            }
        }
    }
    assert!(checks >= 200, "only {checks} checks");
}
