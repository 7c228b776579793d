//! Opening positions made by ox88 itself: a few random legal plies from the start (or from a
//! book line), kept when a short search finds them balanced.
//!
//! `genfens N seed S book <None|FILE>` prints N such positions as `info string genfens FEN`,
//! the form OpenBench's workers read; the self-play data generator opens its games the same
//! way. Everything depends on the seed alone: one thread, a fixed node count, a cleared
//! search before each try, so the same seed gives the same lines on every machine.

use crate::position::Position;
use crate::rng::SplitMix64;
use crate::search::{insufficient_material, Report, SearchLimits, Searcher, SharedControl};
use crate::value::Score;
use std::fmt;

/// Nodes of the search that judges an opening.
pub const OPENING_NODES: u64 = 2_000;
/// Random lines drawn for one opening before giving up on it.
pub const OPENING_TRIES: usize = 200;
/// Default bound on the judged score (centipawns, either side).
pub const MAX_OPENING_SCORE: i32 = 200;
/// Most positions one `genfens` makes (about 2 ms each): a bound, so that no number makes
/// the engine work for days.
pub const MAX_COUNT: u64 = 1_000_000;
/// Hash of the judging search: small, and the same whatever `Hash` says.
const HASH_MB: usize = 8;
/// A mate score as centipawns, beyond any bound.
const MATE_CP: i32 = 30_000;

/// How many random plies an opening gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plies {
    Exactly(usize),
    /// 8 or 9, drawn for each try: both sides to move equally often.
    EightOrNine,
}

/// Random legal plies from `start`, drawn again (up to [`OPENING_TRIES`] times) until the
/// position is not over and a search of [`OPENING_NODES`] scores it within `max_score`
/// centipawns for either side. `None` when no try was kept.
pub fn random_opening(
    start: &Position,
    plies: Plies,
    max_score: i32,
    rng: &mut SplitMix64,
    searcher: &mut Searcher,
) -> Option<Position> {
    for _ in 0..OPENING_TRIES {
        let plies = match plies {
            Plies::Exactly(p) => p,
            Plies::EightOrNine => 8 + rng.below(2),
        };
        let mut pos = start.clone();
        let mut ok = true;
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                ok = false;
                break;
            }
            pos.make(legal[rng.below(legal.len())]);
        }
        if !ok || pos.legal_moves().is_empty() {
            continue;
        }
        searcher.clear();
        if centipawns(judge(searcher, &pos)).abs() <= max_score {
            return Some(pos);
        }
    }
    None
}

/// The score of a short search, from the side to move's view.
fn judge(searcher: &mut Searcher, pos: &Position) -> Score {
    let limits = SearchLimits { nodes: Some(OPENING_NODES), multipv: 1, ..Default::default() };
    let control = SharedControl::default();
    let mut score = Score::Centipawns(0);
    searcher.search(pos, &[pos.key()], &limits, &control, &mut |r| {
        if let Report::Iteration { score: s, multipv: 1, .. } = r {
            score = s;
        }
    });
    score
}

fn centipawns(score: Score) -> i32 {
    match score {
        Score::Centipawns(cp) => cp,
        Score::Mate(n) if n > 0 => MATE_CP,
        Score::Mate(_) => -MATE_CP,
    }
}

/// What `genfens` cannot work with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenfensError {
    /// More positions asked for than [`MAX_COUNT`].
    TooMany(u64),
    /// The book could not be read.
    Book { path: String, reason: String },
    /// The book holds no position to start from.
    EmptyBook(String),
    /// No balanced opening was found from any start (a book of finished games).
    NoOpening,
}

impl fmt::Display for GenfensError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenfensError::TooMany(n) => write!(f, "genfens: {n} positions asked for; at most {MAX_COUNT}"),
            GenfensError::Book { path, reason } => write!(f, "genfens: cannot read book {path}: {reason}"),
            GenfensError::EmptyBook(path) => write!(f, "genfens: book {path} holds no legal position"),
            GenfensError::NoOpening => write!(f, "genfens: no balanced opening found"),
        }
    }
}

impl std::error::Error for GenfensError {}

/// The start positions of a book: one per line, as EPD (four FEN fields, then operations)
/// or as a whole FEN. Blank lines and `#` comments are passed over; so are lines that are
/// not a legal position, which are counted in the second value.
pub fn parse_book(text: &str) -> (Vec<Position>, usize) {
    let mut book = Vec::new();
    let mut bad = 0;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let fields: Vec<&str> = line.split(';').next().unwrap_or("").split_whitespace().collect();
        let counters = fields.len() >= 6 && fields[4..6].iter().all(|f| f.bytes().all(|b| b.is_ascii_digit()));
        let fen = match fields.get(..4) {
            Some(head) if counters => format!("{} {} {}", head.join(" "), fields[4], fields[5]),
            Some(head) => format!("{} 0 1", head.join(" ")),
            None => {
                bad += 1;
                continue;
            }
        };
        match Position::from_fen(&fen) {
            Ok(pos) if !pos.legal_moves().is_empty() => book.push(pos),
            _ => bad += 1,
        }
    }
    (book, bad)
}

/// Reads the book at `path` (see [`parse_book`]).
pub fn read_book(path: &str) -> Result<(Vec<Position>, usize), GenfensError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| GenfensError::Book { path: path.to_string(), reason: e.to_string() })?;
    let (book, bad) = parse_book(&text);
    if book.is_empty() {
        return Err(GenfensError::EmptyBook(path.to_string()));
    }
    Ok((book, bad))
}

/// Makes `count` openings from `seed`, handing each FEN to `emit` as it is made. From the
/// start position: 8 or 9 random plies; from a book: a line drawn at random, then 2 plies.
/// An opening with no balanced try is drawn again from the next stream, so exactly `count`
/// come out unless no start gives any.
pub fn generate(count: u64, seed: u64, book: &[Position], emit: &mut dyn FnMut(&str)) -> Result<(), GenfensError> {
    if count > MAX_COUNT {
        return Err(GenfensError::TooMany(count));
    }
    let mut searcher = Searcher::new(HASH_MB);
    let (mut made, mut stream, mut failures) = (0, 0u64, 0);
    while made < count {
        let mut rng = SplitMix64::for_index(seed, stream);
        stream = stream.wrapping_add(1);
        let (start, plies) = if book.is_empty() {
            (Position::startpos(), Plies::EightOrNine)
        } else {
            (book[rng.below(book.len())].clone(), Plies::Exactly(2))
        };
        match random_opening(&start, plies, MAX_OPENING_SCORE, &mut rng, &mut searcher) {
            Some(pos) if !insufficient_material(&pos) => {
                emit(&pos.to_fen());
                made += 1;
                failures = 0;
            }
            _ => {
                failures += 1;
                // Many starts in a row with nothing playable: the book is of lost or drawn
                // games, and more draws would not change that.
                if failures >= 64 {
                    return Err(GenfensError::NoOpening);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(count: u64, seed: u64, book: &[Position]) -> Vec<String> {
        let mut out = Vec::new();
        generate(count, seed, book, &mut |fen| out.push(fen.to_string())).expect("openings");
        out
    }

    #[test]
    fn same_seed_same_lines_other_seed_other_lines() {
        let a = lines(6, 3, &[]);
        assert_eq!(a.len(), 6);
        assert_eq!(a, lines(6, 3, &[]));
        assert_ne!(a, lines(6, 4, &[]));
        // The first lines of a longer run are the lines of a shorter one.
        assert_eq!(lines(3, 3, &[]), a[..3]);
    }

    #[test]
    fn every_line_is_a_legal_balanced_position_in_play() {
        for fen in lines(8, 11, &[]) {
            let pos = Position::from_fen(&fen).expect("a FEN ox88 reads back");
            assert!(!pos.legal_moves().is_empty(), "{fen}: the game is over");
            assert!(pos.check_consistency().is_ok(), "{fen}");
            // 8 or 9 plies from the start: full move 5, either side to move.
            assert_eq!(pos.fullmove_number(), 5, "{fen}");
            let mut searcher = Searcher::new(HASH_MB);
            assert!(centipawns(judge(&mut searcher, &pos)).abs() <= MAX_OPENING_SCORE, "{fen}");
        }
    }

    #[test]
    fn book_lines_are_the_starts() {
        let text = "# a comment\n\
                    rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1;\n\
                    not a position\n\
                    rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n";
        let (book, bad) = parse_book(text);
        assert_eq!((book.len(), bad), (2, 1));
        // Every position two plies after either book line.
        let mut reachable = std::collections::HashSet::new();
        for start in &book {
            for &a in start.legal_moves().iter() {
                let mut one = start.clone();
                one.make(a);
                for &b in one.legal_moves().iter() {
                    let mut two = one.clone();
                    two.make(b);
                    reachable.insert(two.to_fen());
                }
            }
        }
        for fen in lines(5, 1, &book) {
            assert!(reachable.contains(&fen), "{fen} is not two plies after a book line");
        }
    }

    #[test]
    fn counts_are_bounded() {
        assert_eq!(generate(MAX_COUNT + 1, 0, &[], &mut |_| {}), Err(GenfensError::TooMany(MAX_COUNT + 1)));
        assert!(lines(0, 0, &[]).is_empty());
    }

    #[test]
    fn a_finished_game_is_no_start() {
        // White is mated (fool's mate): nothing to play from.
        let (book, bad) = parse_book("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n");
        assert_eq!((book.len(), bad), (0, 1));
    }
}
