//! Unit tests of the text layer. Each `cover_*` test pins one cover over a vampirc-uci 0.11.1
//! defect and fails if the cover is removed; the `vampirc_*` tests record the defect itself
//! (if a vampirc upgrade fixes one, its test fails and the cover can be reconsidered).

use super::*;
use crate::engine::{GoParams, StartPosition};
use crate::search::Report;
use crate::value::{Bound, Score};
use std::panic::catch_unwind;

fn go(line: &str) -> GoParams {
    match parse_command(line) {
        Ok(Command::Go(p)) => p,
        other => panic!("{line}: {other:?}"),
    }
}

fn position(line: &str) -> (StartPosition, Vec<String>) {
    match parse_command(line) {
        Ok(Command::Position { start, moves }) => (start, moves),
        other => panic!("{line}: {other:?}"),
    }
}

/// A session whose output is collected in memory.
fn session() -> (Session, Arc<Mutex<Vec<u8>>>) {
    #[derive(Clone)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buf = Arc::new(Mutex::new(Vec::new()));
    (Session::new(Output::new(Buf(Arc::clone(&buf)))), buf)
}

fn text(buf: &Mutex<Vec<u8>>) -> String {
    String::from_utf8_lossy(&buf.lock().unwrap()).into_owned()
}

#[test]
fn vampirc_defects_are_still_there() {
    use vampirc_uci::parse_one;
    assert!(catch_unwind(|| parse_one("go depth 256")).is_err());
    assert!(matches!(
        parse_one("go ponder wtime 1000 btime 1000 winc 10 binc 10"),
        UciMessage::Go { time_control: Some(vampirc_uci::UciTimeControl::TimeLeft { .. }), .. }
    ));
    assert!(
        matches!(parse_one("position startpos moves  e2e4 e7e5"), UciMessage::Position { moves, .. } if moves.is_empty())
    );
    assert!(
        matches!(parse_one("position startpos moves e2e4 0000 d2d4"), UciMessage::Position { moves, .. } if moves.len() == 1)
    );
    assert!(parse_one("position fen 4k3/8/8/8/8/8/8/4K3 w - -").is_unknown());
    assert!(parse_one("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1").is_unknown());
    assert_eq!(parse_one("isreadyx"), UciMessage::IsReady);
    assert_eq!(parse_one("quit now"), UciMessage::Quit);
    let info = UciMessage::Info(vec![vampirc_uci::UciInfoAttribute::CurrMoveNum(1)]).to_string();
    assert!(info.contains("currmovenum 1") && !info.contains("currmovenumber"), "{info}");
}

#[test]
fn cover_numbers_above_255_do_not_panic() {
    assert_eq!(go("go depth 256").depth, Some(256));
    assert_eq!(go("go mate 300").mate, Some(300));
    assert_eq!(go("go wtime 1000 btime 1000 movestogo 300").clock.movestogo, Some(300));
    assert_eq!(go("go nodes 1000000000000").nodes, Some(1_000_000_000_000));
    assert_eq!(go("go wtime 1000000000000 btime 1000").clock.btime, Some(1000));
    assert_eq!(go("go depth 99999999999999999999999").depth, Some(u32::MAX));
}

#[test]
fn cover_ponder_infinite_and_movetime_survive_clock_times() {
    let p = go("go ponder wtime 1000 btime 1000 winc 10 binc 10");
    assert!(p.ponder);
    assert_eq!((p.clock.wtime, p.clock.binc), (Some(1000), Some(10)));
    assert!(go("go infinite wtime 1000 btime 1000").infinite);
    assert_eq!(go("go wtime 1000 btime 1000 movetime 300").clock.movetime, Some(300));
    let p = go("go movestogo 5 binc 3 searchmoves e2e4 d2d4 depth 7 nodes 10 mate 2 winc 4");
    assert_eq!(p.searchmoves, vec!["e2e4", "d2d4"]);
    assert_eq!(
        (p.depth, p.nodes, p.mate, p.clock.winc, p.clock.movestogo),
        (Some(7), Some(10), Some(2), Some(4), Some(5))
    );
    assert_eq!(go("go wtime -500 btime 10").clock.wtime, Some(-500));
}

#[test]
fn garbled_go_is_an_error() {
    for bad in ["go depth", "go depth x", "go depth -1", "go nodes -5", "go foo", "go wtime 10 10", "go searchmoves"] {
        assert!(parse_command(bad).is_err(), "{bad}");
    }
    assert_eq!(parse_command("go perft 5"), Ok(Command::Perft(5)));
    assert!(parse_command("go perft 5 depth 3").is_err());
    assert_eq!(go("go"), GoParams::default());
}

#[test]
fn cover_whitespace_in_position_commands() {
    let want = (StartPosition::Startpos, vec!["e2e4".to_string(), "e7e5".to_string()]);
    for line in [
        "position startpos moves  e2e4 e7e5",
        "position   startpos   moves   e2e4   e7e5",
        "position\tstartpos\tmoves\te2e4\te7e5\r\n",
        "  POSITION StartPos MOVES e2e4 e7e5  ",
    ] {
        assert_eq!(position(line), want, "{line:?}");
    }
    assert_eq!(position("position startpos"), (StartPosition::Startpos, vec![]));
    assert_eq!(position("position startpos moves"), (StartPosition::Startpos, vec![]));
    assert_eq!(
        position("position fen 4k3/8/8/8/8/8/8/4K3  w - - moves e1e2"),
        (StartPosition::Fen("4k3/8/8/8/8/8/8/4K3 w - -".into()), vec!["e1e2".into()])
    );
    for bad in ["position", "position fen", "position fen moves e2e4", "position startpos e2e4", "position foo"] {
        assert!(parse_command(bad).is_err(), "{bad}");
    }
}

#[test]
fn cover_bad_moves_reject_the_whole_command() {
    let (mut s, out) = session();
    s.handle_line("position startpos moves e2e4");
    let fen = s.engine().position().to_fen();
    for (line, token) in [
        ("position startpos moves e2e4 0000 d2d4", "0000"),
        ("position startpos moves e2e4 i7i9", "i7i9"),
        ("position fen 7k/4P3/8/8/8/8/8/K7 w - - moves e7e8k", "e7e8k"),
        ("position fen hello", "hello"),
    ] {
        s.handle_line(line);
        assert_eq!(s.engine().position().to_fen(), fen, "{line}");
        let text = text(&out);
        let last = text.lines().last().unwrap_or("");
        assert!(last.starts_with("info string") && last.contains(token), "{line}: {last}");
    }
    s.handle_line("position fen 7k/4P3/8/8/8/8/8/K7 w - - moves E7E8N");
    assert_eq!(s.engine().position().to_fen(), "4N2k/8/8/8/8/8/8/K7 b - - 0 1");
}

#[test]
fn cover_fens_without_counters_and_chess960_castling() {
    let (mut s, _) = session();
    s.handle_line("position fen 4k3/8/8/8/8/8/8/4K2R w K -");
    assert_eq!(s.engine().position().to_fen(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    s.handle_line("setoption name UCI_Chess960 value true");
    s.handle_line("position fen nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NRK3RN w GBgb - 0 1 moves c1g1");
    assert_eq!(s.engine().position().to_fen(), "nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NR3RKN b gb - 1 1");
    s.handle_line("position fen 4k3/8/8/8/8/8/8/4K2R w K - moves e1h1");
    assert_eq!(s.engine().history().len(), 1, "king takes rook with UCI_Chess960 on");
    s.handle_line("setoption name UCI_Chess960 value false");
    s.handle_line("position fen 4k3/8/8/8/8/8/8/4K2R w K - moves e1g1");
    assert_eq!(s.engine().position().to_fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    s.handle_line("position fen 4k3/8/8/8/8/8/8/4K2R w K - moves e1h1");
    assert_eq!(s.engine().history().len(), 1, "e1h1 is no castling with UCI_Chess960 off");
    s.handle_line("setoption name UCI_Chess960 value true");
    s.handle_line("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1");
    assert_eq!(s.engine().history().len(), 0);
    assert_eq!(s.engine().position().castling_rights(), crate::position::rights::ALL);
}

#[test]
fn cover_prefix_matching() {
    for bad in ["isreadyx", "ucinewgamex", "uci extra", "quit now", "isready stop", "stopp", "ponderhitx"] {
        assert!(parse_command(bad).is_err(), "{bad}");
    }
    assert_eq!(parse_command("ISREADY"), Ok(Command::IsReady));
    assert_eq!(parse_command(" quit \r\n"), Ok(Command::Quit));
    assert_eq!(parse_command("joho debug on"), Ok(Command::Debug(true)));
    assert_eq!(parse_command(""), Ok(Command::Empty));
    assert!(matches!(parse_command("foo"), Err(UciError::UnknownCommand(s)) if s == "foo"));
}

#[test]
fn cover_currmovenumber_and_bestmove_none() {
    let m = crate::position::Position::startpos().parse_uci_move("e2e4").unwrap();
    let r = Report::CurrentMove { depth: 9, mv: m, number: 3, nodes: 1, time: Duration::from_millis(1500) };
    assert_eq!(format_report(&r, false).unwrap(), "info depth 9 currmove e2e4 currmovenumber 3");
    let early = Report::CurrentMove { depth: 9, mv: m, number: 3, nodes: 1, time: Duration::from_millis(10) };
    assert_eq!(format_report(&early, false), None);
    assert_eq!(format_bestmove(None, None, false), "bestmove (none)");
    assert_eq!(format_bestmove(Some(m), Some(m), false), "bestmove e2e4 ponder e2e4");
}

#[test]
fn info_lines_carry_every_field() {
    let pos = crate::position::Position::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
    let castle = pos.parse_uci_move("e1g1").unwrap();
    let r = Report::Iteration {
        depth: 300,
        seldepth: 301,
        multipv: 1,
        score: Score::Mate(-200),
        bound: Bound::Lower,
        nodes: 5000,
        time: Duration::from_millis(250),
        hashfull: 17,
        tbhits: 3,
        pv: vec![castle],
    };
    assert_eq!(
        format_report(&r, false).unwrap(),
        "info depth 300 seldepth 301 multipv 1 score mate -200 lowerbound nodes 5000 nps 20000 hashfull 17 tbhits 3 time 250 pv e1g1"
    );
    assert!(format_report(&r, true).unwrap().ends_with("pv e1h1"));
}

#[test]
fn cover_setoption_splitting() {
    let set = |line: &str| match parse_command(line) {
        Ok(Command::SetOption { name, value }) => (name, value),
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(set("setoption name Move Overhead value 100"), ("Move Overhead".into(), Some("100".into())));
    assert_eq!(set("setoption  name  Clear   Hash"), ("Clear Hash".into(), None));
    assert_eq!(
        set("setoption name SyzygyPath value /tmp/my tb/3-4-5"),
        ("SyzygyPath".into(), Some("/tmp/my tb/3-4-5".into()))
    );
    assert_eq!(set("setoption name Value Mode value 3"), ("Value Mode".into(), Some("3".into())));
    assert_eq!(set("setoption name SyzygyPath value"), ("SyzygyPath".into(), Some(String::new())));
    assert!(parse_command("setoption Hash 3").is_err());
    assert!(parse_command("setoption name").is_err());
}

#[test]
fn options_are_declared_with_vampirc_and_set_case_insensitively() {
    let (mut s, out) = session();
    s.handle_line("uci");
    let text = text(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("id name ox88 {}", env!("CARGO_PKG_VERSION")));
    assert!(lines[1].starts_with("id author "));
    assert!(lines.contains(&"option name Hash type spin default 16 min 1 max 65536"), "{text}");
    assert!(lines.contains(&"option name Clear Hash type button"), "{text}");
    assert!(lines.contains(&"option name UCI_Chess960 type check default false"), "{text}");
    assert!(lines.contains(&"option name Ponder type check default false"), "{text}");
    assert_eq!(lines.last(), Some(&"uciok"));
    s.handle_line("setoption name hash value 8");
    s.handle_line("SETOPTION NAME move overhead VALUE 77");
    s.handle_line("setoption name multipv value 3");
    assert_eq!((s.engine().options().hash_mb, s.engine().options().move_overhead_ms), (8, 77));
    assert_eq!(s.engine().options().multipv, 3);
    let before = *s.engine().options();
    for bad in [
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name Threads value 0",
        "setoption name Ponder value maybe",
        "setoption name NoSuchThing value 1",
        "setoption name Hash",
    ] {
        s.handle_line(bad);
        assert_eq!(*s.engine().options(), before, "{bad}");
        let t = super::tests::text(&out);
        assert!(t.lines().last().unwrap_or("").starts_with("info string"), "{bad}");
    }
}

#[test]
fn perft_display_and_eval() {
    let (mut s, out) = session();
    s.handle_line("go perft 2");
    s.engine.wait();
    let t = text(&out);
    assert!(t.contains("e2e4: 20\n") && t.ends_with("\nNodes searched: 400\n\n"), "{t}");
    s.handle_line("position startpos moves f2f3 e7e5 g2g4 d8h4");
    s.handle_line("d");
    let t = text(&out);
    assert!(t.contains("Fen: rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"), "{t}");
    assert!(t.contains("Checkers: h4"), "{t}");
    s.handle_line("eval");
    assert!(text(&out).contains("Static evaluation: "));
}

#[test]
fn options_reject_out_of_range_values_and_keep_the_old_one() {
    let (mut s, buf) = session();
    for line in [
        "setoption name Hash value 0",
        "setoption name Threads value 0",
        "setoption name Threads value 257",
        "setoption name MultiPV value 65",
        "setoption name Move Overhead value -1",
    ] {
        assert_eq!(s.handle_line(line), Flow::Continue);
    }
    assert_eq!(*s.engine().options(), crate::engine::Options::default());
    let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
    assert_eq!(text.matches("info string").count(), 5, "{text}");
    assert!(text.contains("Threads must be between 1 and 256, not 257"), "{text}");
    s.handle_line("setoption name Hash value 32");
    assert_eq!(s.engine().options().hash_mb, 32);
}

#[test]
fn the_option_table_declares_every_option_setoption_knows() {
    let (mut s, buf) = session();
    for option in option_table() {
        let value = match option.kind {
            OptionKind::Spin { default, .. } | OptionKind::ClampedSpin { default, .. } => format!(" value {default}"),
            OptionKind::Check { default } => format!(" value {default}"),
            OptionKind::Button => String::new(),
            OptionKind::String { default } => format!(" value {default}"),
        };
        s.handle_line(&format!("setoption name {}{value}", option.name));
    }
    let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
    assert!(!text.contains("info string"), "{text}");
}

/// The evaluation `eval` prints and the node count of a fixed search, from the output
/// written since `from`.
fn eval_and_nodes(s: &mut Session, out: &Mutex<Vec<u8>>) -> (String, u64) {
    let from = text(out).len();
    s.handle_line("position startpos moves e2e4");
    s.handle_line("eval");
    s.handle_line("go depth 7");
    s.engine.wait();
    let t = text(out)[from..].to_string();
    let eval = t.lines().find(|l| l.starts_with("Static evaluation:")).unwrap_or_default().to_string();
    let nodes = t
        .lines()
        .filter(|l| l.starts_with("info depth 7 "))
        .filter_map(|l| l.split_whitespace().skip_while(|w| *w != "nodes").nth(1))
        .filter_map(|n| n.parse().ok())
        .next_back();
    assert!(t.contains("bestmove "), "{t}");
    (eval, nodes.unwrap_or_else(|| panic!("no depth 7 line:\n{t}")))
}

/// A kept network other than the embedded one that this build can load (the same width,
/// bucket counts and base), the first by name, and the line `EvalFile` answers on loading it.
fn other_loadable_network() -> (String, String) {
    use crate::nnue::{Network, BASE, BUCKETS, EMBEDDED, HIDDEN, KINGS};
    let mut names: Vec<String> = std::fs::read_dir("nets")
        .expect("nets/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".nnue"))
        .collect();
    names.sort();
    // Whatever this build's loader takes is of the embedded shape; the same bytes would not
    // change the evaluation, so the embedded network itself is passed over.
    let path = names
        .into_iter()
        .map(|n| format!("nets/{n}"))
        .find(|p| {
            let bytes = std::fs::read(p).unwrap_or_default();
            bytes != EMBEDDED && Network::from_bytes(&bytes).is_ok()
        })
        .expect("a kept network of the embedded one's shape");
    let kings = if KINGS > 1 { format!(", king buckets {KINGS}") } else { String::new() };
    let line = format!(
        "info string EvalFile: loaded {path} (hidden {HIDDEN}, buckets {BUCKETS}{kings}, base {})\n",
        BASE.name()
    );
    (path, line)
}

/// `EvalFile` changes the evaluation and the search, a bad file changes neither and says
/// why, and the default brings back exactly what the embedded network did.
#[test]
fn eval_file_loads_refuses_and_restores() {
    let (mut s, out) = session();
    let embedded = eval_and_nodes(&mut s, &out);

    let (other, loaded) = other_loadable_network();
    s.handle_line(&format!("setoption name EvalFile value {other}"));
    assert!(text(&out).contains(&loaded), "{}", text(&out));
    let loaded_net = eval_and_nodes(&mut s, &out);
    assert_ne!(loaded_net.0, embedded.0, "the evaluation is the embedded network's");
    assert_ne!(loaded_net.1, embedded.1, "the search is the embedded network's");

    let dir = std::env::temp_dir().join(format!("ox88-uci-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.nnue");
    std::fs::write(&cut, &crate::nnue::EMBEDDED[..1000]).unwrap();
    s.handle_line(&format!("setoption name EvalFile value {}", cut.display()));
    let refused = format!("info string EvalFile: {} refused: truncated: 1000 bytes of the", cut.display());
    assert!(text(&out).contains(&refused), "{}", text(&out));
    assert!(text(&out).ends_with(&format!("; keeping the network of {other}\n")), "{}", text(&out));
    assert_eq!(eval_and_nodes(&mut s, &out).0, loaded_net.0, "a refused file changed the network");

    s.handle_line("setoption name EvalFile value <embedded>");
    assert!(text(&out).ends_with("info string EvalFile: the embedded network\n"), "{}", text(&out));
    assert_eq!(eval_and_nodes(&mut s, &out), embedded);

    s.handle_line("setoption name EvalFile value nets/n5.nnue");
    let t = text(&out);
    assert!(
        t.ends_with("refused: hidden size 128; this build evaluates networks of 256; keeping the embedded network\n"),
        "{t}"
    );
    s.handle_line(&format!("setoption name EvalFile value {}", dir.display()));
    assert!(text(&out).ends_with("; keeping the embedded network\n"), "{}", text(&out));
    // The network did not change, so the hash table kept the last search: a new game clears it.
    s.handle_line("ucinewgame");
    assert_eq!(eval_and_nodes(&mut s, &out), embedded);
    let _ = std::fs::remove_dir_all(&dir);
}
