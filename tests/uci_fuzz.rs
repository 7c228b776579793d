//! Fuzzes the UCI front layer in-process: at least 100,000 random and mutated command lines
//! go through `parse_command` and, when safe to run without a search thread, through
//! `Session`. No line may panic, and a line that is rejected (a parse error, or an error while
//! executing it) must leave the position, the game history and the options unchanged.
//!
//! No line starts a search, a garbled `go` included (the session still searches one, with
//! what it understood): searches here would outlive their line, with up to 256 threads each
//! (`Threads` is fuzzed too), race the lines after them and make a run depend on the
//! machine rather than on its seed. tests/uci.rs and tests/search_fuzz.rs drive searches.
//!
//! `OX88_FUZZ_LINES` and `OX88_FUZZ_SEED` override the line count and the seed.

use ox88::uci::{parse_command, Command, Output, Session, UciError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const SEEDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "stop",
    "ponderhit",
    "debug on",
    "register later",
    "setoption name Hash value 8",
    "setoption name Clear Hash",
    "setoption name Move Overhead value 100",
    "setoption name MultiPV value 3",
    "setoption name UCI_Chess960 value true",
    "setoption name UCI_Chess960 value false",
    "setoption name Ponder value true",
    "setoption name Threads value 1",
    "position startpos",
    "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1",
    "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves d2d4 d7d5",
    "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 moves e1c1 e8g8",
    "position fen 7k/P7/8/8/8/8/8/K7 w - - moves a7a8q",
    "position fen 4k3/8/8/8/8/8/8/4K2R w K - moves e1h1",
    "position fen nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NRK3RN w GBgb - 0 1 moves c1g1",
    "position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1 moves e2e4 f4e3",
    "go wtime 1000 btime 1000 winc 10 binc 10 movestogo 30",
    "go ponder wtime 1000 btime 1000",
    "go infinite searchmoves e2e4 d2d4",
    "go depth 5 nodes 1000 mate 3 movetime 100",
    "go perft 3",
    "perft 2",
    "bench 3",
    "d",
    "eval",
    "quit",
];

const WORDS: &[&str] = &[
    "uci",
    "isready",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "stop",
    "quit",
    "setoption",
    "name",
    "value",
    "Hash",
    "Clear",
    "Threads",
    "MultiPV",
    "Ponder",
    "Move",
    "Overhead",
    "UCI_Chess960",
    "true",
    "false",
    "ucinewgame",
    "ponderhit",
    "debug",
    "on",
    "off",
    "register",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
    "d",
    "eval",
    "bench",
    "e2e4",
    "e7e5",
    "e1g1",
    "e1h1",
    "e7e8q",
    "E7E8Q",
    "e7e8k",
    "a7a8Q",
    "0000",
    "i7i9",
    "g1f3",
    "w",
    "b",
    "-",
    "KQkq",
    "HAha",
    "AHah",
    "0",
    "1",
    "-1",
    "255",
    "256",
    "300",
    "65536",
    "65537",
    "99999999999999999999999",
    "-500",
    "1e5",
    "0x10",
    "+3",
    "8/8/8/8/8/8/8/8",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    "4k3/8/8/8/8/8/8/4K2R",
    "k7/8/8/8/8/8/8/K7",
    "KKKKKKKK/8/8/8/8/8/8/kkkkkkkk",
    "ppppppppp/8/8/8/8/8/8/8",
    "\u{e9}",
    "\u{2003}",
    "\u{0}",
    "\t",
    "\r",
    "joho",
];

fn random_line(rng: &mut StdRng) -> String {
    match rng.gen_range(0..10) {
        // Tokens from the vocabulary, any order.
        0..=3 => {
            let n = rng.gen_range(0..14);
            let sep = [" ", "  ", "\t", " \r"];
            let mut s = String::new();
            for _ in 0..n {
                if !s.is_empty() {
                    s.push_str(sep[rng.gen_range(0..sep.len())]);
                }
                s.push_str(WORDS[rng.gen_range(0..WORDS.len())]);
            }
            s
        }
        // Random characters, mostly printable ASCII.
        4 => {
            let n = rng.gen_range(0..60);
            (0..n)
                .map(|_| match rng.gen_range(0..20) {
                    0 => char::from_u32(rng.gen_range(0..0x3000)).unwrap_or('?'),
                    1 => ' ',
                    _ => rng.gen_range(b' '..=b'~') as char,
                })
                .collect()
        }
        // A mutated seed.
        _ => {
            let seed = SEEDS[rng.gen_range(0..SEEDS.len())];
            mutate(rng, seed)
        }
    }
}

fn mutate(rng: &mut StdRng, seed: &str) -> String {
    let mut chars: Vec<char> = seed.chars().collect();
    for _ in 0..rng.gen_range(1..4) {
        let len = chars.len();
        match rng.gen_range(0..8) {
            0 if len > 0 => {
                chars.remove(rng.gen_range(0..len));
            }
            1 => chars.insert(rng.gen_range(0..=len), rng.gen_range(b' '..=b'~') as char),
            2 if len > 0 => chars.truncate(rng.gen_range(0..len)),
            3 if len > 0 => {
                let i = rng.gen_range(0..len);
                chars[i] = if chars[i].is_ascii_lowercase() { chars[i].to_ascii_uppercase() } else { 'x' };
            }
            4 => {
                let w = WORDS[rng.gen_range(0..WORDS.len())];
                let at = rng.gen_range(0..=len);
                let mut ins: Vec<char> = format!(" {w} ").chars().collect();
                ins.reverse();
                for c in ins {
                    chars.insert(at, c);
                }
            }
            5 => {
                // Swap two tokens.
                let s: String = chars.iter().collect();
                let mut toks: Vec<&str> = s.split(' ').collect();
                if toks.len() > 1 {
                    let (a, b) = (rng.gen_range(0..toks.len()), rng.gen_range(0..toks.len()));
                    toks.swap(a, b);
                }
                chars = toks.join(" ").chars().collect();
            }
            6 => {
                let s: String = chars.iter().collect();
                chars = s.replace(' ', ["  ", "\t", " \t ", "\r "][rng.gen_range(0..4)]).chars().collect();
            }
            _ => {
                // Replace a digit run by a huge or negative number.
                let s: String = chars.iter().collect();
                let n = ["256", "-1", "99999999999999999999", "0", "65536"][rng.gen_range(0..5)];
                chars = s.replacen(|c: char| c.is_ascii_digit(), n, 1).chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

/// Commands that run without a search thread, a long computation, or a big allocation.
fn safe_to_run(cmd: &Command) -> bool {
    match cmd {
        Command::Go(_) | Command::Perft(_) | Command::Bench(_) | Command::Quit => false,
        Command::SetOption { name, value } if name.eq_ignore_ascii_case("hash") => {
            value.as_deref().and_then(|v| v.trim().parse::<i64>().ok()).is_none_or(|v| v <= 64)
        }
        _ => true,
    }
}

#[test]
fn random_and_mutated_lines_never_panic_and_bad_lines_change_nothing() {
    let lines: usize = std::env::var("OX88_FUZZ_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let seed: u64 = std::env::var("OX88_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x0088_0088);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut session = Session::new(Output::new(std::io::sink()));
    let (mut parsed, mut rejected, mut executed, mut failed, mut garbled_go) = (0usize, 0usize, 0usize, 0usize, 0usize);
    for i in 0..lines {
        // Now and then start from a position with a history, so errors have something to keep.
        if i % 97 == 0 {
            session.handle_line(SEEDS[16]);
        }
        let line = random_line(&mut rng);
        let before =
            (session.engine().position().to_fen(), session.engine().history().to_vec(), *session.engine().options());
        let after =
            |s: &Session| (s.engine().position().to_fen(), s.engine().history().to_vec(), *s.engine().options());
        match parse_command(&line) {
            // Reported and searched by the session: not run here (see the module notes).
            Err(UciError::GarbledGo { .. }) => garbled_go += 1,
            Err(_) => {
                rejected += 1;
                session.handle_line(&line);
                assert_eq!(after(&session), before, "seed {seed} line {i}: rejected line changed state: {line:?}");
            }
            Ok(cmd) => {
                parsed += 1;
                if safe_to_run(&cmd) {
                    executed += 1;
                    if session.execute(cmd).is_err() {
                        failed += 1;
                        assert_eq!(
                            after(&session),
                            before,
                            "seed {seed} line {i}: failed command changed state: {line:?}"
                        );
                    }
                }
            }
        }
    }
    eprintln!(
        "{lines} lines: {parsed} parsed ({executed} executed, {failed} failed), {rejected} rejected, \
         {garbled_go} garbled go"
    );
    // Every search this session could have started has ended: none was started.
    assert!(!session.engine().is_searching(), "a fuzzed line started a search");
    assert!(lines < 100_000 || (rejected > 10_000 && executed > 10_000 && failed > 1_000), "fuzz mix too narrow");
}
