//! Tactics suite runner: `ox88 tactics [file] [--ms N]`.
//!
//! Reads EPD records (`FEN bm ...; am ...; dm N; id "..."`), searches each position for a
//! fixed time with a fresh hash, and counts it solved when the move played is one of the
//! `bm` moves, none of the `am` moves, and (with `dm N`) the score is a mate in at most N.
//! Moves in EPD are SAN; [`san`] writes our moves in SAN to compare.

use crate::mv::Move;
use crate::piece::Kind;
use crate::position::Position;
use crate::search::{Report, SearchLimits, Searcher, SharedControl};
use crate::time::TimeBudget;
use crate::value::Score;
use std::io::Write;
use std::time::Duration;

/// The suite shipped with ox88, built into the binary so that `ox88 tactics` works from any
/// folder after `cargo install` (see the header of the file for its sources).
pub const DEFAULT_SUITE: &str = include_str!("../data/tactics.epd");
/// The name the built-in suite goes by in messages.
pub const DEFAULT_NAME: &str = "data/tactics.epd";
/// Default time per position, in milliseconds.
pub const DEFAULT_MS: u64 = 1000;

/// One EPD record.
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub fen: String,
    pub id: String,
    pub best: Vec<String>,
    pub avoid: Vec<String>,
    pub mate: Option<i32>,
}

/// Parses one EPD line; `None` for blank lines and `#` comments.
pub fn parse_line(line: &str) -> Option<Result<Record, String>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let fields: Vec<&str> = line.splitn(5, ' ').collect();
    if fields.len() < 4 {
        return Some(Err(format!("short EPD line: {line}")));
    }
    let mut rec =
        Record { fen: format!("{} {} {} {} 0 1", fields[0], fields[1], fields[2], fields[3]), ..Default::default() };
    let ops = fields.get(4).copied().unwrap_or("");
    for op in ops.split(';') {
        let op = op.trim();
        let mut parts = op.splitn(2, ' ');
        let (name, arg) = (parts.next().unwrap_or(""), parts.next().unwrap_or("").trim());
        match name {
            "bm" => rec.best = arg.split_whitespace().map(normalize).collect(),
            "am" => rec.avoid = arg.split_whitespace().map(normalize).collect(),
            "dm" => rec.mate = arg.parse().ok(),
            "id" => rec.id = arg.trim_matches('"').to_string(),
            _ => {}
        }
    }
    Some(Ok(rec))
}

/// SAN without check marks and annotations, castling with capital O.
fn normalize(s: &str) -> String {
    s.replace("0-0", "O-O").chars().filter(|c| !matches!(c, '+' | '#' | '!' | '?')).collect()
}

/// Standard algebraic notation of a legal move `m` in `pos` (without check marks).
pub fn san(pos: &Position, m: Move) -> String {
    if m.is_castle() {
        return if m.to().file() > m.from().file() { "O-O".into() } else { "O-O-O".into() };
    }
    let piece = pos.piece_at(m.from());
    let kind = piece.kind();
    let mut s = String::new();
    if kind == Kind::Pawn {
        if m.is_capture() {
            s.push((b'a' + m.from().file()) as char);
            s.push('x');
        }
        s.push_str(&m.to().to_string());
        if let Some(k) = m.promotion_kind() {
            s.push('=');
            s.push(k.letter().to_ascii_uppercase());
        }
        return s;
    }
    s.push(kind.letter().to_ascii_uppercase());
    // Disambiguation: other pieces of the same kind that can reach the same square.
    let others: Vec<Move> = pos
        .legal_moves()
        .iter()
        .copied()
        .filter(|o| o.to() == m.to() && o.from() != m.from() && pos.piece_at(o.from()) == piece && !o.is_castle())
        .collect();
    if !others.is_empty() {
        let same_file = others.iter().any(|o| o.from().file() == m.from().file());
        let same_rank = others.iter().any(|o| o.from().rank() == m.from().rank());
        if !same_file {
            s.push((b'a' + m.from().file()) as char);
        } else if !same_rank {
            s.push((b'1' + m.from().rank()) as char);
        } else {
            s.push_str(&m.from().to_string());
        }
    }
    if m.is_capture() {
        s.push('x');
    }
    s.push_str(&m.to().to_string());
    s
}

/// Outcome of one record.
#[derive(Clone, Debug)]
pub struct Solved {
    pub id: String,
    pub played: String,
    pub score: Option<Score>,
    pub ok: bool,
}

/// Searches one record for `ms` milliseconds.
pub fn solve(searcher: &mut Searcher, rec: &Record, ms: u64) -> Result<Solved, String> {
    let pos = Position::from_fen(&rec.fen).map_err(|e| format!("{}: {e}", rec.id))?;
    searcher.clear();
    let control = SharedControl::default();
    control.start_clock();
    let budget = Duration::from_millis(ms);
    let limits = SearchLimits {
        multipv: 1,
        time: TimeBudget { soft: Some(budget), hard: Some(budget) },
        mate: rec.mate.map(|n| n.max(1) as u32),
        ..Default::default()
    };
    // With a mate target, keep searching (up to the time) until the mate is found.
    let mut score = None;
    let outcome = searcher.search(&pos, &[], &limits, &control, &mut |r| {
        if let Report::Iteration { score: s, multipv: 1, bound: crate::value::Bound::Exact, .. } = r {
            score = Some(s);
        }
    });
    let played = outcome.best.map_or("(none)".to_string(), |m| san(&pos, m));
    let mut ok = outcome.best.is_some();
    if !rec.best.is_empty() {
        ok &= rec.best.contains(&played);
    }
    if !rec.avoid.is_empty() {
        ok &= !rec.avoid.contains(&played);
    }
    if let Some(n) = rec.mate {
        ok &= matches!(score, Some(Score::Mate(k)) if k > 0 && k <= n);
    }
    Ok(Solved { id: rec.id.clone(), played, score, ok })
}

/// Runs a whole EPD file, printing one line per record and a summary; returns
/// (solved, total).
pub fn run_file(path: &str, ms: u64, out: &mut dyn Write) -> Result<(usize, usize), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    run_text(path, &text, ms, out)
}

/// Runs the EPD records of `text` (named `path` in messages), as [`run_file`].
pub fn run_text(path: &str, text: &str, ms: u64, out: &mut dyn Write) -> Result<(usize, usize), String> {
    let mut searcher = Searcher::new(16);
    let (mut solved, mut total) = (0, 0);
    for (n, line) in text.lines().enumerate() {
        let rec = match parse_line(line) {
            None => continue,
            Some(Err(e)) => return Err(format!("{path}:{}: {e}", n + 1)),
            Some(Ok(r)) => r,
        };
        let r = solve(&mut searcher, &rec, ms)?;
        total += 1;
        if r.ok {
            solved += 1;
        }
        let expected = if rec.best.is_empty() { String::new() } else { format!("bm {}", rec.best.join(" ")) };
        let mate = rec.mate.map_or(String::new(), |m| format!(" dm {m}"));
        writeln!(
            out,
            "{:4} {:10} played {:8} {:14} score {:?}{}",
            if r.ok { "ok" } else { "FAIL" },
            r.id,
            r.played,
            expected,
            r.score,
            mate
        )
        .map_err(|e| e.to_string())?;
    }
    writeln!(out, "Solved: {solved}/{total}").map_err(|e| e.to_string())?;
    Ok((solved, total))
}

/// `ox88 tactics [file] [--ms N]` on `out`; without a file, the built-in suite.
pub fn run(file: Option<&str>, ms: u64, out: &mut dyn Write) -> Result<i32, String> {
    match file {
        Some(path) => run_file(path, ms, out)?,
        None => run_text(DEFAULT_NAME, DEFAULT_SUITE, ms, out)?,
    };
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn san_and_epd() {
        let pos = Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
        let m = |u: &str| pos.parse_uci_move(u).unwrap();
        assert_eq!(san(&pos, m("e2a6")), "Bxa6");
        assert_eq!(san(&pos, m("e1g1")), "O-O");
        assert_eq!(san(&pos, m("d5e6")), "dxe6");
        assert_eq!(san(&pos, m("c3b1")), "Nb1");
        let two = Position::from_fen("4k3/8/8/8/8/8/8/N1N1K3 w - - 0 1").unwrap();
        assert_eq!(san(&two, two.parse_uci_move("a1b3").unwrap()), "Nab3");
        let rec = parse_line(r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#)
            .unwrap()
            .unwrap();
        assert_eq!(rec.best, vec!["Qg6"]);
        assert_eq!(rec.id, "WAC.001");
        assert!(parse_line("# comment").is_none());
    }

    #[test]
    fn the_built_in_suite_is_whole() {
        let records: Vec<Record> = DEFAULT_SUITE.lines().filter_map(parse_line).map(|r| r.unwrap()).collect();
        // The header's count: WAC.001-WAC.100 and the composed mates.
        assert_eq!(records.iter().filter(|r| r.id.starts_with("WAC.")).count(), 100);
        for r in &records {
            assert!(Position::from_fen(&r.fen).is_ok(), "{}", r.id);
            assert!(!r.best.is_empty() || r.mate.is_some(), "{}", r.id);
        }
    }

    #[test]
    fn solves_a_short_mate() {
        let rec = parse_line(r#"6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; dm 1; id "m1";"#).unwrap().unwrap();
        let mut s = Searcher::new(1);
        assert!(solve(&mut s, &rec, 200).unwrap().ok);
    }
}
