//! Syzygy tablebases over pipes: the three options, what the engine says and survives, `tbhits`,
//! and endgames played out by ox88 against itself with the tables set.
//!
//! The tables are the external data folder's `syzygy/` (every 3- and 4-piece table; the folder
//! is `OX88_DATA`, else `../shared`). Without them the tests that need them are skipped, and
//! `external_data_summary` names them (with `OX88_REQUIRE_DATA=1` they fail).

mod common;

use common::{bestmove_of, Ox88, LONG};
use ox88::tablebase::{Tablebases, Wdl};
use ox88::Position;
use std::path::{Path, PathBuf};

/// The folder of the tables, for the test `test` (see [`common::external`]).
fn tables(test: &str) -> Option<PathBuf> {
    common::external("syzygy", test).and_then(|probe| probe.parent().map(Path::to_path_buf))
}

/// A fresh directory under the system's temporary folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("ox88-syzygy-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temporary directory");
        TempDir(dir)
    }

    fn copy(&self, from: &Path, file: &str) {
        std::fs::copy(from.join(file), self.0.join(file)).expect("copy a table");
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn started() -> Ox88 {
    let mut e = Ox88::start();
    e.send("uci");
    e.expect(LONG, "uciok");
    e
}

/// Sets `SyzygyPath` and returns the `info string` lines it gave (up to `readyok`).
fn set_path(e: &mut Ox88, path: &str) -> Vec<String> {
    e.send(&format!("setoption name SyzygyPath value {path}"));
    e.send("isready");
    let lines = e.until(LONG, "readyok", |l| l == "readyok");
    lines.into_iter().filter(|l| l.starts_with("info string")).collect()
}

/// The `tbhits` of the last `info` line that has them.
fn tbhits(lines: &[String]) -> Option<u64> {
    lines.iter().rev().find_map(|l| {
        let t: Vec<&str> = l.split_whitespace().collect();
        let i = t.iter().position(|x| *x == "tbhits")?;
        t.get(i + 1)?.parse().ok()
    })
}

/// The centipawn score of the last exact `info` line, if it gives one.
fn last_cp(lines: &[String]) -> Option<i64> {
    lines.iter().rev().filter(|l| l.starts_with("info depth") && !l.contains("bound")).find_map(|l| {
        let t: Vec<&str> = l.split_whitespace().collect();
        let i = t.iter().position(|x| *x == "cp")?;
        t.get(i + 1)?.parse().ok()
    })
}

fn search(e: &mut Ox88, fen: &str, go: &str) -> Vec<String> {
    e.send(&format!("position fen {fen}"));
    e.send(go);
    let lines = e.search_lines(LONG);
    e.assert_healthy();
    lines
}

const KQK: &str = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1";
const KRK: &str = "8/8/8/3k4/8/8/8/R3K3 w - - 0 1";
const KQKR: &str = "8/8/5k2/7r/8/8/K7/4Q3 w - - 0 1";
/// Five pieces: beyond the tables at the root, inside them after a capture.
const KQPKR: &str = "8/8/8/4k3/8/2r5/3P4/KQ6 w - - 0 1";
/// A tablebase win is shown as a large score that is not a mate.
const TB_WIN_SHOWN: i64 = 30_000;

#[test]
fn a_missing_directory_is_reported_and_the_engine_plays_on() {
    let mut e = started();
    let said = set_path(&mut e, "/no/such/ox88/tables");
    assert!(said.iter().any(|l| l.contains("cannot be read")), "{said:?}");
    assert!(said.iter().any(|l| l.contains("no table found")), "{said:?}");
    let lines = search(&mut e, KQK, "go depth 6");
    assert!(bestmove_of(lines.last().unwrap()).len() >= 4, "{lines:?}");
    assert_eq!(tbhits(&lines), Some(0));
}

#[test]
fn tables_raise_tbhits_and_show_a_tablebase_win() {
    let Some(dir) = tables("tables_raise_tbhits_and_show_a_tablebase_win") else { return };
    let mut e = started();
    let said = set_path(&mut e, &dir.display().to_string());
    assert!(said.iter().any(|l| l.contains("70 files, up to 4 pieces")), "{said:?}");
    // Four pieces at the root: every root move is probed.
    let lines = search(&mut e, KRK, "go nodes 20000");
    assert!(tbhits(&lines).is_some_and(|n| n > 0), "{lines:?}");
    assert!(last_cp(&lines).is_some_and(|cp| cp > TB_WIN_SHOWN), "{lines:?}");
    // Five pieces: only the nodes below captures are in the tables.
    let lines = search(&mut e, KQPKR, "go depth 8");
    assert!(tbhits(&lines).is_some_and(|n| n > 20), "{lines:?}");
    // The same path again reads nothing.
    let said = set_path(&mut e, &dir.display().to_string());
    assert!(said.iter().any(|l| l.contains("already loaded")), "{said:?}");
}

#[test]
fn empty_switches_the_tables_off() {
    let Some(dir) = tables("empty_switches_the_tables_off") else { return };
    let mut e = started();
    set_path(&mut e, &dir.display().to_string());
    assert!(tbhits(&search(&mut e, KQPKR, "go depth 8")).is_some_and(|n| n > 0));
    let said = set_path(&mut e, "<empty>");
    assert!(said.iter().any(|l| l.contains("off")), "{said:?}");
    let lines = search(&mut e, KQPKR, "go depth 8");
    assert_eq!(tbhits(&lines), Some(0), "{lines:?}");
    assert!(last_cp(&lines).is_some_and(|cp| cp < TB_WIN_SHOWN), "{lines:?}");
}

#[test]
fn the_probe_limit_decides_which_positions_are_probed() {
    let Some(dir) = tables("the_probe_limit_decides_which_positions_are_probed") else { return };
    let mut e = started();
    set_path(&mut e, &dir.display().to_string());
    e.send("setoption name SyzygyProbeDepth value 4");
    e.send("setoption name SyzygyProbeLimit value 0");
    e.send("setoption name SyzygyProbeLimit value 8"); // out of range: refused, 0 stays
    let lines = search(&mut e, KQPKR, "go depth 8");
    assert!(lines.iter().any(|l| l.starts_with("info string") && l.contains("SyzygyProbeLimit")), "{lines:?}");
    assert_eq!(tbhits(&lines), Some(0), "{lines:?}");
    // The first iteration shows the tables' verdict when the root is probed, the
    // evaluation when it is not.
    let first_cp = |lines: &[String]| last_cp(&lines[..1]);
    e.send("setoption name SyzygyProbeLimit value 3");
    let three = search(&mut e, KQKR, "go depth 4");
    assert!(first_cp(&three).is_some_and(|cp| cp < TB_WIN_SHOWN), "{three:?}");
    e.send("setoption name SyzygyProbeLimit value 4");
    let four = search(&mut e, KQKR, "go depth 4");
    assert!(first_cp(&four).is_some_and(|cp| cp > TB_WIN_SHOWN), "{four:?}");
}

#[test]
fn several_directories_are_all_read() {
    let Some(dir) = tables("several_directories_are_all_read") else { return };
    let (a, b) = (TempDir::new("dir-a"), TempDir::new("dir-b"));
    for f in ["KQvK.rtbw", "KQvK.rtbz"] {
        a.copy(&dir, f);
    }
    for f in ["KRvK.rtbw", "KRvK.rtbz"] {
        b.copy(&dir, f);
    }
    let sep = if cfg!(windows) { ';' } else { ':' };
    let mut e = started();
    let said = set_path(&mut e, &format!("{}{sep}{}", a.0.display(), b.0.display()));
    assert!(said.iter().any(|l| l.contains("4 files, up to 3 pieces")), "{said:?}");
    for fen in [KQK, KRK] {
        let lines = search(&mut e, fen, "go nodes 5000");
        assert!(tbhits(&lines).is_some_and(|n| n > 0), "{fen}: {lines:?}");
        assert!(last_cp(&lines).is_some_and(|cp| cp > TB_WIN_SHOWN), "{fen}: {lines:?}");
    }
}

#[test]
fn corrupt_tables_do_not_crash_the_engine() {
    let Some(dir) = tables("corrupt_tables_do_not_crash_the_engine") else { return };
    let bad = TempDir::new("corrupt");
    // A file whose size no table can have: left out when loading.
    std::fs::write(bad.0.join("KRvK.rtbw"), vec![0x5a; 1000]).unwrap();
    // Garbage of a table's size: the header is wrong.
    std::fs::write(bad.0.join("KQvK.rtbw"), vec![0xa5; 16 + 64 * 40]).unwrap();
    std::fs::write(bad.0.join("KQvK.rtbz"), vec![0x3c; 16 + 64 * 40]).unwrap();
    // Real headers with garbage after them: the tables of the captures from KQPKR.
    for name in ["KQvKR", "KQPvK", "KRvKP", "KQvKP", "KQvK", "KPvK"] {
        for ext in ["rtbw", "rtbz"] {
            let file = format!("{name}.{ext}");
            let mut bytes = std::fs::read(dir.join(&file)).unwrap();
            let mut x: u32 = 12345;
            for b in bytes.iter_mut().skip(48) {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                *b = (x >> 16) as u8;
            }
            let sub = bad.0.join("headers");
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join(&file), bytes).unwrap();
        }
    }
    let mut e = started();
    let sep = if cfg!(windows) { ';' } else { ':' };
    let said = set_path(&mut e, &format!("{}{sep}{}", bad.0.display(), bad.0.join("headers").display()));
    assert!(said.iter().any(|l| l.contains("KRvK.rtbw") && l.contains("left out")), "{said:?}");
    for fen in [KQK, KQPKR, "8/8/8/4k3/8/8/3p4/KQ6 w - - 0 1"] {
        let lines = search(&mut e, fen, "go nodes 20000");
        let best = bestmove_of(lines.last().unwrap()).to_string();
        assert!(Position::from_fen(fen).unwrap().parse_uci_move(&best).is_ok(), "{fen}: {lines:?}");
    }
    e.ready();
    e.assert_healthy();
}

/// How a played-out ending finished.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// Mated: the side that won.
    Mate(ox88::Color),
    /// A draw by the rules (stalemate, fifty moves, threefold, material), with the reason.
    Draw(&'static str),
    /// Still going at the ply cap.
    Cap,
}

/// Plays `fen` out, ox88 (one process, the game's moves sent each time) choosing every move
/// by the command `go`, up to `cap` plies.
fn play_out(e: &mut Ox88, fen: &str, go: &str, cap: usize) -> (End, Vec<String>) {
    let mut pos = Position::from_fen(fen).unwrap();
    let mut moves: Vec<String> = Vec::new();
    let mut seen = vec![pos.key()];
    e.send("ucinewgame");
    loop {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            let end = if pos.in_check() { End::Mate(pos.side_to_move().flip()) } else { End::Draw("stalemate") };
            return (end, moves);
        }
        if pos.halfmove_clock() >= 100 {
            return (End::Draw("fifty moves"), moves);
        }
        if seen.iter().filter(|&&k| k == pos.key()).count() >= 3 {
            return (End::Draw("threefold repetition"), moves);
        }
        if ox88::search::insufficient_material(&pos) {
            return (End::Draw("insufficient material"), moves);
        }
        if moves.len() >= cap {
            return (End::Cap, moves);
        }
        e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        e.send(go);
        let line = e.bestmove(LONG);
        let text = bestmove_of(&line).to_string();
        let m = pos.parse_uci_move(&text).unwrap_or_else(|err| e.fail(&format!("{text}: {err}")));
        pos.make(m);
        seen.push(pos.key());
        moves.push(text);
    }
}

/// A player with the tables: every position of `fen` played out ends as the tables say
/// (`test` is the name of the test, for [`tables`]).
fn plays_as_the_tables_say(test: &str, fen: &str) {
    let Some(dir) = tables(test) else { return };
    let start = Position::from_fen(fen).unwrap();
    // The result is the one the ending is known to have, named by the test (`win_`, `loss_`,
    // `draw_`), not one the prober under test computed; the prober must agree with it.
    let expected = match test.split('_').next() {
        Some("win") => Wdl::Win,
        Some("loss") => Wdl::Loss,
        Some("draw") => Wdl::Draw,
        _ => panic!("{test}: the name must say win_, loss_ or draw_"),
    };
    let tb = Tablebases::load(&dir.display().to_string()).tables.expect("tables");
    let probed = tb.probe_wdl(&start).expect("the test position is in the tables");
    assert_eq!(probed, expected, "{test}: the tables' result for {fen}");
    let mut e = started();
    set_path(&mut e, &dir.display().to_string());
    let (end, moves) = play_out(&mut e, fen, "go nodes 20000", 200);
    let line = format!("{fen} moves {}", moves.join(" "));
    match expected {
        Wdl::Win | Wdl::Loss => {
            let winner = if expected == Wdl::Win { start.side_to_move() } else { start.side_to_move().flip() };
            assert_eq!(end, End::Mate(winner), "a win not converted: {line}");
            println!("{fen}: mated in {} plies", moves.len());
        }
        _ => {
            assert!(matches!(end, End::Draw(_) | End::Cap), "a draw lost: {end:?} after {line}");
            println!("{fen}: {end:?} after {} plies", moves.len());
        }
    }
    e.assert_healthy();
}

macro_rules! endings {
    ($($name:ident: $fen:expr,)*) => {
        $(
            #[test]
            fn $name() {
                plays_as_the_tables_say(stringify!($name), $fen);
            }
        )*
    };
}

endings! {
    win_kqk: KQK,
    win_krk: KRK,
    win_kpk: "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",
    win_kbnk: "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
    win_kbnk_wrong_corner: "7k/8/8/8/8/8/8/KBN5 w - - 0 1",
    win_kqkr: KQKR,
    win_krkp: "2K5/5R2/7p/8/6k1/8/8/8 w - - 0 1",
    win_kpkp: "8/8/K7/5p2/8/k5P1/8/8 w - - 0 1",
    loss_kpk_black_promotes: "8/8/8/8/8/2k5/1p6/1K6 w - - 0 1",
    draw_krkr: "8/8/3rk3/8/8/3RK3/8/8 w - - 0 1",
    draw_kbkp: "8/8/8/4k3/8/8/3pB3/3K4 w - - 0 1",
    draw_kpk: "8/8/8/8/4k3/8/4P3/4K3 w - - 0 1",
    draw_krkb: "8/8/3K4/7b/3k4/8/2R5/8 w - - 0 1",
    draw_kqkq: "1Q6/6k1/8/8/8/8/2q4K/8 w - - 0 1",
    draw_krkp: "8/4R3/8/8/6K1/2p5/8/k7 w - - 0 1",
}

/// Plies to a win's next capture, pawn move or mate after `m`, by the tables; `None` when `m`
/// does not win. A move after which every reply is mated at once takes 2, counted here: the
/// tables store some distances rounded up by one, and gave such a mate 3 while a queen
/// given up at once (a capture, 2) looked shorter.
fn plies_after(tb: &Tablebases, pos: &Position, m: ox88::Move) -> Option<i32> {
    let mut child = pos.clone();
    child.make(m);
    if child.legal_moves().is_empty() {
        return child.in_check().then_some(0);
    }
    if child.halfmove_clock() == 0 {
        return (tb.probe_wdl(&child).ok()? == Wdl::Loss).then_some(1);
    }
    if every_reply_is_mated(&child) {
        return Some(2);
    }
    let dtz = tb.probe_dtz(&child).ok()?;
    (dtz < 0).then_some(1 - dtz)
}

/// Whether each legal move of `pos` (it has one at least) allows a mate in one.
fn every_reply_is_mated(pos: &Position) -> bool {
    pos.legal_moves().iter().all(|&reply| {
        let mut after = pos.clone();
        after.make(reply);
        after.legal_moves().iter().any(|&mate| {
            let mut end = after.clone();
            end.make(mate);
            end.in_check() && end.legal_moves().is_empty()
        })
    })
}

/// A sure win is played by the tables' shortest route when the search sees no mate: with no
/// iteration finished (one node) or with iterations too shallow for the mate (depth 2), every
/// move of the winner has the fewest plies to the next capture, pawn move or mate, and the
/// game ends in a mate, never in a shuffle that a repetition or the fifty-move rule draws.
#[test]
fn a_sure_win_takes_the_shortest_route() {
    let Some(dir) = tables("a_sure_win_takes_the_shortest_route") else { return };
    let tb = Tablebases::load(&dir.display().to_string()).tables.expect("tables");
    let mut e = started();
    set_path(&mut e, &dir.display().to_string());
    // Two queens with many quiet wins, a bishop and knight from the wrong corner, a rook, a pawn.
    for fen in
        ["k7/8/8/8/8/2K5/6q1/7q b - - 33 93", "7k/8/8/8/8/8/8/KBN5 w - - 0 1", KRK, "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1"]
    {
        for go in ["go nodes 1", "go depth 2"] {
            let (end, moves) = play_out(&mut e, fen, go, 200);
            let line = format!("{fen} moves {}", moves.join(" "));
            let mut pos = Position::from_fen(fen).unwrap();
            let winner = pos.side_to_move();
            assert_eq!(end, End::Mate(winner), "{go}: a win not converted: {line}");
            for text in &moves {
                let m = pos.parse_uci_move(text).unwrap();
                if pos.side_to_move() == winner {
                    let fewest = pos.legal_moves().iter().filter_map(|&x| plies_after(&tb, &pos, x)).min();
                    assert_eq!(plies_after(&tb, &pos, m), fewest, "{go}: {text} in {} ({line})", pos.to_fen());
                }
                pos.make(m);
            }
        }
    }
    e.assert_healthy();
}
