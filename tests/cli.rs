//! The command line as users and tools meet it: OpenBench's `genfens` and `bench` forms, the
//! perft options, the built-in tactics suite, `help`, `tb-probe`'s messages. Positions are
//! checked with `shakmaty`, not with ox88.

mod common;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};
use std::process::{Command, Output, Stdio};

fn ox88(args: &[&str]) -> Output {
    ox88_in(args, None)
}

fn ox88_in(args: &[&str], dir: Option<&std::path::Path>) -> Output {
    let mut cmd = Command::new(common::binary());
    cmd.args(args).stdin(Stdio::null());
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.output().expect("run ox88")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn chess(text: &str) -> Chess {
    let fen: Fen = text.parse().unwrap_or_else(|e| panic!("'{text}' is not a FEN: {e}"));
    fen.into_position(CastlingMode::Standard).unwrap_or_else(|e| panic!("'{text}' is not legal: {e}"))
}

/// What OpenBench's worker keeps of a `genfens` run: the text after `info string genfens ` of
/// the lines that start so.
fn genfens(n: u64, seed: u64, book: &str) -> (Vec<String>, Output) {
    // The worker's exact form: one argument `genfens N seed S book B <extra>` (the extra
    // arguments empty, so a trailing space), then `quit`.
    let out = ox88(&[&format!("genfens {n} seed {seed} book {book} "), "quit"]);
    let fens = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .map(|f| f.trim_end().to_string())
        .collect();
    (fens, out)
}

#[test]
fn genfens_in_openbench_form() {
    let (fens, out) = genfens(12, 3, "None");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(fens.len(), 12, "{}", text(&out));
    // Nothing else on either stream.
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 12, "{}", text(&out));
    assert!(out.stderr.is_empty(), "{}", text(&out));
    for fen in &fens {
        // Six fields: OpenBench turns the last two into `hmvc`/`fmvn`.
        assert_eq!(fen.split_whitespace().count(), 6, "{fen}");
        let pos = chess(fen);
        assert!(!pos.is_game_over(), "{fen}: the game is over");
    }
    let distinct: std::collections::HashSet<&String> = fens.iter().collect();
    assert_eq!(distinct.len(), fens.len(), "the same opening twice: {fens:?}");
    // Same seed, same lines; another seed, other lines.
    assert_eq!(genfens(12, 3, "None").0, fens);
    assert_ne!(genfens(12, 4, "None").0, fens);
}

#[test]
fn genfens_from_a_book() {
    let dir = std::env::temp_dir().join(format!("ox88-cli-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let book = dir.join("book.epd");
    // An EPD line as OpenBench writes them, and a FEN with its counters.
    let lines = [
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    ];
    std::fs::write(&book, lines.join("\n")).expect("book");
    let starts: Vec<Chess> = lines.iter().map(|l| chess(&l.replace(" hmvc 0; fmvn 2;", " 0 2"))).collect();
    let (fens, out) = genfens(6, 1, book.to_str().expect("path"));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(fens.len(), 6, "{}", text(&out));
    for fen in &fens {
        let pos = chess(fen);
        // Two plies after a book line: some pair of legal moves leads from it here.
        let from_book = starts.iter().any(|start| {
            start.legal_moves().iter().any(|a| {
                let next = start.clone().play(a).expect("legal");
                next.legal_moves().iter().any(|b| next.clone().play(b).expect("legal").board() == pos.board())
            })
        });
        assert!(from_book, "{fen} is not two plies after a book line");
    }
}

#[test]
fn genfens_refuses_bad_input_with_an_info_string() {
    for (args, says) in [
        ("genfens 99999999999999999999 seed 1 book None", "not a valid number"),
        ("genfens 5000000 seed 1 book None", "at most"),
        ("genfens -3 seed 1 book None", "not a valid number"),
        ("genfens 2 seed x book None", "not a valid number"),
        ("genfens 2 seed", "missing"),
        ("genfens", "missing"),
        ("genfens 2 seed 1 book /no/such/book.epd", "cannot read book"),
    ] {
        let out = ox88(&[args, "quit"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args}: {}", text(&out));
        assert!(stdout.starts_with("info string ") && stdout.contains(says), "{args}: {stdout}");
        assert!(!stdout.contains("info string genfens "), "{args}: {stdout}");
    }
}

/// OpenBench's reading of `bench` output (its client's `parse_stream_output`): lines from the
/// last up, every character that is not a letter, digit or space made a space; the first line
/// (from the end) with `N nodes`, `nodes N` or `nodes searched N` gives the bench, the first
/// with `N nps`, `nps N` or `nodes second N` the speed, case ignored. Written from its
/// description, on whole words, which is what those patterns meet in ox88's output.
fn openbench_parse(output: &str) -> (Option<u64>, Option<u64>) {
    let number = |t: &str| t.parse::<u64>().ok();
    let (mut bench, mut nps) = (None, None);
    for line in output.trim().lines().rev() {
        let clean: String = line
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == ' ' { c.to_ascii_lowercase() } else { ' ' })
            .collect();
        let w: Vec<&str> = clean.split_whitespace().collect();
        for i in 0..w.len() {
            let next = w.get(i + 1).copied().unwrap_or("");
            let third = w.get(i + 2).copied().unwrap_or("");
            let b = match (w[i], next) {
                (n, "nodes") if number(n).is_some() => number(n),
                ("nodes", n) if number(n).is_some() => number(n),
                ("nodes", "searched") => number(third),
                _ => None,
            };
            let s = match (w[i], next) {
                (n, "nps") if number(n).is_some() => number(n),
                ("nps", n) => number(n),
                ("nodes", "second") => number(third),
                _ => None,
            };
            bench = bench.or(b);
            nps = nps.or(s);
            if b.is_some() || s.is_some() {
                break;
            }
        }
    }
    (bench, nps)
}

#[test]
fn bench_output_reads_as_openbench_reads_it() {
    let out = ox88(&["bench", "3"]);
    assert!(out.status.success(), "{}", text(&out));
    let all = text(&out);
    let total: u64 = all
        .lines()
        .find_map(|l| l.strip_prefix("Nodes searched: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no node total: {all}"));
    // The per-position lines carry `nodes N` too: the total must be what comes last.
    let (bench, nps) = openbench_parse(&all);
    assert_eq!(bench, Some(total), "{all}");
    assert!(nps.is_some_and(|n| n > 0), "{all}");
}

#[test]
fn uci_lines_as_arguments_finish_what_ends_by_itself() {
    let out = ox88(&["bench 2"]);
    assert!(text(&out).contains("Nodes searched: "), "{}", text(&out));
    let out = ox88(&["position startpos moves e2e4", "go depth 3", "quit"]);
    let all = text(&out);
    let best = all.lines().find_map(|l| l.strip_prefix("bestmove ")).unwrap_or_else(|| panic!("no bestmove: {all}"));
    // A legal reply to 1.e4: the search ran to its depth before `quit` ended the program.
    let pos = chess("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let m = best.split_whitespace().next().unwrap_or("");
    assert!(UciMove::from_ascii(m.as_bytes()).ok().and_then(|u| u.to_move(&pos).ok()).is_some(), "{all}");
    assert!(all.contains("info depth 3 "), "{all}");
}

#[test]
fn perft_moves_are_played_from_the_fen_given() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    for (fen, moves, depth) in [(None, "e2e4 e7e5", 3), (Some(kiwipete), "e1g1 h3g2", 2)] {
        let mut pos = chess(fen.unwrap_or("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
        for m in moves.split(' ') {
            let m = UciMove::from_ascii(m.as_bytes()).expect("uci").to_move(&pos).expect("legal");
            pos.play_unchecked(&m);
        }
        let expected = shakmaty::perft(&pos, depth);
        let mut args = vec!["perft".to_string(), depth.to_string(), "--moves".into(), moves.into()];
        if let Some(f) = fen {
            args.extend(["--fen".to_string(), f.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ox88(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(&format!("Nodes searched: {expected}\n")), "{args:?}: {}", text(&out));
    }
    // Moves as separate words, the depth last, as the usage line shows it.
    let mut pos = chess("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    for m in ["e2e4", "e7e5"] {
        pos.play_unchecked(&UciMove::from_ascii(m.as_bytes()).expect("uci").to_move(&pos).expect("legal"));
    }
    let out = ox88(&["perft", "--moves", "e2e4", "e7e5", "4"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&format!("Nodes searched: {}\n", shakmaty::perft(&pos, 4))), "{}", text(&out));
    // No depth at all: a clear error.
    let out = ox88(&["perft", "--moves", "e2e4"]);
    assert!(!out.status.success() && text(&out).contains("no depth"), "{}", text(&out));
}

#[test]
fn tactics_run_from_any_folder() {
    let dir = std::env::temp_dir();
    let out = ox88_in(&["tactics", "--ms", "1"], Some(&dir));
    assert!(out.status.success(), "{}", text(&out));
    let all = text(&out);
    let summary = all.lines().last().unwrap_or("");
    // The built-in suite: 100 positions of Win at Chess and the composed mates.
    let total: usize = summary.rsplit('/').next().and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    assert!(summary.starts_with("Solved: ") && total > 100, "{all}");
}

#[test]
fn help_shows_the_defaults() {
    let bench = text(&ox88(&["bench", "--help"]));
    assert!(bench.contains("[default: 12]"), "{bench}");
    let tactics = text(&ox88(&["tactics", "--help"]));
    assert!(tactics.contains("[default: 1000]"), "{tactics}");
}

#[test]
fn uci_help_lists_the_commands() {
    // As the first argument `help` is clap's; as a UCI line it is the loop's.
    let out = ox88(&["isready", "help", "quit"]);
    let all = text(&out);
    assert!(!all.contains("unknown command"), "{all}");
    for word in ["position", "go", "setoption", "perft", "bench", "genfens", "eval"] {
        assert!(all.contains(word), "{word} is not in: {all}");
    }
}

#[test]
fn tb_probe_speaks_as_a_command_line_tool() {
    let out = ox88(&["tb-probe", "--path", "/no/such/tables"]);
    let all = text(&out);
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(all.lines().any(|l| l.starts_with("error: ")), "{all}");
    assert!(!all.contains("playing on") && !all.contains("info string"), "{all}");
}
