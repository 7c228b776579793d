//! Perft suites: reading them, and checking every position on all threads.
//!
//! Suites are read from EPD lines (`FEN ;D1 20 ;D2 400 ...`) or from python-chess `.perft`
//! blocks (`id`, `epd`, `perft <depth> <count>` lines). A depth beyond [`MAX_PERFT_DEPTH`] is
//! refused where it is read, with its line.

use super::table::{PerftTable, PerftTableError};
use super::{count, root_salt, PerftControl, PerftOptions, Walk, MAX_PERFT_DEPTH};
use crate::position::Position;
use crate::FenError;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// One suite position with its published counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    pub name: Option<String>,
    pub fen: String,
    /// (depth, expected leaf count), in file order.
    pub expected: Vec<(u32, u64)>,
}

/// A suite line that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for SuiteParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}
impl std::error::Error for SuiteParseError {}

/// Reads EPD perft lines and python-chess `.perft` blocks; `#` starts a comment line.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, SuiteParseError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    let mut pending_name: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let err = |message: String| SuiteParseError { line: i + 1, message };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix("id ") {
            pending_name = Some(name.trim().to_string());
        } else if let Some(fen) = line.strip_prefix("epd ") {
            cases.push(PerftCase { name: pending_name.take(), fen: fen.trim().to_string(), expected: vec![] });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let case = cases.last_mut().ok_or_else(|| err("perft line before any epd line".into()))?;
            let mut parts = rest.split_whitespace();
            let depth =
                parts.next().and_then(|d| d.parse().ok()).ok_or_else(|| err(format!("bad depth in '{line}'")))?;
            let count =
                parts.next().and_then(|c| c.parse().ok()).ok_or_else(|| err(format!("bad count in '{line}'")))?;
            case.expected.push((checked_depth(depth).map_err(err)?, count));
        } else {
            let mut fields = line.split(';');
            let fen = fields.next().unwrap_or("").trim().to_string();
            let mut expected = Vec::new();
            for field in fields {
                let field = field.trim();
                if field.is_empty() {
                    continue;
                }
                let mut parts = field.split_whitespace();
                let depth = parts
                    .next()
                    .and_then(|d| d.strip_prefix('D').or_else(|| d.strip_prefix('d')))
                    .and_then(|d| d.parse().ok())
                    .ok_or_else(|| err(format!("bad depth field '{field}'")))?;
                let count =
                    parts.next().and_then(|c| c.parse().ok()).ok_or_else(|| err(format!("bad count in '{field}'")))?;
                expected.push((checked_depth(depth).map_err(err)?, count));
            }
            cases.push(PerftCase { name: None, fen, expected });
        }
    }
    Ok(cases)
}

fn checked_depth(depth: u32) -> Result<u32, String> {
    if depth > MAX_PERFT_DEPTH {
        return Err(format!("depth {depth} is beyond the perft bound of {MAX_PERFT_DEPTH}"));
    }
    Ok(depth)
}

/// One depth of one position that did not match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub fen: String,
    pub depth: u32,
    pub expected: u64,
    pub found: u64,
}

/// What a suite run found.
#[derive(Clone, Debug, Default)]
pub struct SuiteReport {
    /// Stopped before every check was run (the counts so far are still exact).
    pub interrupted: bool,
    pub positions: usize,
    pub checks: usize,
    pub nodes: u64,
    pub skipped: usize,
    pub mismatches: Vec<Mismatch>,
    pub fen_errors: Vec<(String, FenError)>,
    /// (FEN, depth) of checks beyond [`MAX_PERFT_DEPTH`] (only from cases not read by
    /// [`parse_suite`], which refuses them): not counted, and the run does not pass.
    pub too_deep: Vec<(String, u32)>,
}

impl SuiteReport {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty() && self.fen_errors.is_empty() && self.too_deep.is_empty() && !self.interrupted
    }
}

/// Runs every case at every listed depth whose expected count is at most `max_nodes`, on
/// one thread and without a hash table. `progress` is told the expected node count of each
/// check as it finishes.
pub fn run_suite(cases: &[PerftCase], max_nodes: u64, chess960: bool, progress: impl FnMut(u64)) -> SuiteReport {
    run_suite_in(cases, max_nodes, chess960, 1, None, &PerftControl::new(), progress)
}

/// [`run_suite`] with a hash table and threads: each thread takes the next position and
/// checks all its depths; the table is shared. The report lists mismatches in file order.
/// When `control` is stopped the report so far comes back with `interrupted` set.
pub fn run_suite_with(
    cases: &[PerftCase],
    max_nodes: u64,
    chess960: bool,
    options: &PerftOptions,
    control: &PerftControl,
    progress: impl FnMut(u64),
) -> Result<SuiteReport, PerftTableError> {
    let table = if options.hash_mb > 0 { Some(PerftTable::new(options.hash_mb)?) } else { None };
    Ok(run_suite_in(cases, max_nodes, chess960, options.threads, table.as_ref(), control, progress))
}

/// What one position's checks found.
enum CaseResult {
    BadFen(FenError),
    Checked { checks: Vec<(u32, u64, u64)>, skipped: usize, too_deep: Vec<u32> },
}

enum Event {
    /// A check of this many expected nodes is done.
    Checked(u64),
    Case(usize, CaseResult),
}

/// [`run_suite_with`] on a table the caller owns, of any size.
pub fn run_suite_in(
    cases: &[PerftCase],
    max_nodes: u64,
    chess960: bool,
    threads: usize,
    table: Option<&PerftTable>,
    control: &PerftControl,
    mut progress: impl FnMut(u64),
) -> SuiteReport {
    let next = AtomicUsize::new(0);
    let checks = cases.iter().flat_map(|c| &c.expected).filter(|&&(_, n)| n <= max_nodes);
    let expected_leaves: u64 = checks.clone().map(|&(_, n)| n).sum();
    control.roots.store(checks.count(), Ordering::Relaxed);
    control.tasks.store(expected_leaves.min(usize::MAX as u64) as usize, Ordering::Relaxed);
    let mut results: Vec<Option<CaseResult>> = cases.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        let mut workers = Vec::new();
        for _ in 0..threads.clamp(1, cases.len().max(1)) {
            let sender = sender.clone();
            let next = &next;
            workers.push(scope.spawn(move || {
                while !control.is_stopped() {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let result = check_case(case, max_nodes, chess960, table, control, &sender);
                    if control.is_stopped() || sender.send(Event::Case(i, result)).is_err() {
                        break;
                    }
                }
            }));
        }
        drop(sender);
        for event in receiver {
            match event {
                Event::Checked(expected) => progress(expected),
                Event::Case(i, result) => results[i] = Some(result),
            }
        }
        crate::threads::join_all(workers);
    });
    let mut report = SuiteReport { interrupted: control.is_stopped(), ..SuiteReport::default() };
    for (case, result) in cases.iter().zip(results) {
        match result {
            None => {}
            Some(CaseResult::BadFen(e)) => report.fen_errors.push((case.fen.clone(), e)),
            Some(CaseResult::Checked { checks, skipped, too_deep }) => {
                report.positions += 1;
                report.skipped += skipped;
                report.too_deep.extend(too_deep.into_iter().map(|d| (case.fen.clone(), d)));
                for (depth, expected, found) in checks {
                    report.checks += 1;
                    report.nodes += found;
                    if found != expected {
                        report.mismatches.push(Mismatch { fen: case.fen.clone(), depth, expected, found });
                    }
                }
            }
        }
    }
    report
}

fn check_case(
    case: &PerftCase,
    max_nodes: u64,
    chess960: bool,
    table: Option<&PerftTable>,
    control: &PerftControl,
    events: &mpsc::Sender<Event>,
) -> CaseResult {
    let mut pos = match Position::from_fen_with(&case.fen, chess960) {
        Ok(p) => p,
        Err(e) => return CaseResult::BadFen(e),
    };
    let walk = Walk { table, salt: root_salt(&pos), stop: control };
    let mut checks = Vec::new();
    let mut skipped = 0;
    let mut too_deep = Vec::new();
    for &(depth, expected) in &case.expected {
        if expected > max_nodes {
            skipped += 1;
            continue;
        }
        if depth > MAX_PERFT_DEPTH {
            too_deep.push(depth);
            continue;
        }
        let found = count(&mut pos, depth, &walk);
        if control.is_stopped() {
            break;
        }
        control.check_done(found, expected);
        checks.push((depth, expected, found));
        let _ = events.send(Event::Checked(expected));
    }
    CaseResult::Checked { checks, skipped, too_deep }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_suite_formats() {
        let text = "# comment\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\r\n\
                    id kiwipete\nepd r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -\nperft 1 48\n";
        let cases = parse_suite(text).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].expected, vec![(1, 20), (2, 400)]);
        assert_eq!(cases[1].name.as_deref(), Some("kiwipete"));
        assert_eq!(cases[1].expected, vec![(1, 48)]);
        assert!(parse_suite("8/8/8/8/8/8/8/8 w - - ;Dx 5").is_err());
    }

    #[test]
    fn a_depth_beyond_the_bound_is_refused_with_its_line_and_the_bound_is_checked() {
        let one_line = crate::perft::tests::ONE_LINE;
        let beyond = MAX_PERFT_DEPTH + 1;
        for text in [format!("{one_line} ;D1 1 ;D{beyond} 1"), format!("# x\nepd {one_line}\nperft 3000 1\n")] {
            let e = parse_suite(&text).expect_err(&text);
            assert!(e.message.contains("beyond the perft bound of 64"), "{e}");
            assert_eq!(e.line, if text.starts_with('#') { 3 } else { 1 });
        }
        // At the bound every thread recurses that deep (one legal move a ply: 1 leaf).
        let cases = parse_suite(&format!("{one_line} ;D1 1 ;D{MAX_PERFT_DEPTH} 1")).unwrap();
        let report = run_suite_in(&cases, u64::MAX, false, 2, None, &PerftControl::new(), |_| {});
        assert!(report.passed() && report.checks == 2, "{report:?}");
        // A case built in code cannot slip past the bound either.
        let deep = [PerftCase { name: None, fen: one_line.into(), expected: vec![(beyond, 1)] }];
        let report = run_suite(&deep, u64::MAX, false, |_| {});
        assert_eq!((report.passed(), report.checks, report.too_deep.len()), (false, 0, 1));
    }
}
