//! Syzygy endgame tablebases: loading the tables, probing them for an ox88 [`Position`], and
//! ranking the root moves by them.
//!
//! The probing code is the `shakmaty-syzygy` crate's (the format is intricate;
//! docs/tablebases.md says why that crate). This module is the adapter: it builds the crate's position
//! from ox88's board square by square (no FEN in between), turns every failure of the crate
//! (missing table, corrupt file, even a panic) into a [`TbError`] that callers treat as "no
//! result", and speaks ox88's types to the search above it.
//!
//! [`rank_root`] holds the one rule that makes tablebase play correct under the fifty-move
//! rule: at a root in the tables, only the moves that keep the best outcome reachable within
//! the fifty-move count remain for the search to choose among.

mod cli;
#[cfg(test)]
mod tests;

pub use cli::probe_lines;

use crate::mv::Move;
use crate::piece::{Color, Kind};
use crate::position::Position;
use crate::square::Square;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, FromSetup};
use shakmaty_syzygy::{SyzygyError, Tablebase};
use std::fmt;
use std::num::NonZeroU32;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What separates the directories of `SyzygyPath`: as in the system's `PATH`.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The result of a position for the side to move, under the fifty-move rule, as reached
/// directly after a capture or pawn move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Wdl {
    Loss = -2,
    /// Lost without the fifty-move rule, drawn with it.
    BlessedLoss = -1,
    Draw = 0,
    /// Won without the fifty-move rule, drawn with it.
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    /// -2 (loss) ..= 2 (win), as python-chess numbers it.
    pub fn signed(self) -> i32 {
        self as i32
    }

    /// The same result seen from the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    fn from_crate(w: shakmaty_syzygy::Wdl) -> Wdl {
        match w {
            shakmaty_syzygy::Wdl::Loss => Wdl::Loss,
            shakmaty_syzygy::Wdl::BlessedLoss => Wdl::BlessedLoss,
            shakmaty_syzygy::Wdl::Draw => Wdl::Draw,
            shakmaty_syzygy::Wdl::CursedWin => Wdl::CursedWin,
            shakmaty_syzygy::Wdl::Win => Wdl::Win,
        }
    }
}

/// Why a probe gave no result. The search treats every one as "not in the tables".
#[derive(Debug)]
pub enum TbError {
    /// Castling rights: the tables hold no such positions.
    Castling,
    /// More pieces than the largest table loaded.
    TooManyPieces,
    /// The table for this material is not loaded.
    MissingTable(String),
    /// A table could not be read or is corrupt.
    Probe(String),
    /// The position is not one the prober accepts (it cannot arise in a game).
    Position(String),
    /// The prober panicked (a corrupt table it did not foresee); caught here.
    Panicked,
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::Castling => write!(f, "castling rights: not in the tables"),
            TbError::TooManyPieces => write!(f, "more pieces than the tables hold"),
            TbError::MissingTable(m) => write!(f, "{m}"),
            TbError::Probe(m) => write!(f, "{m}"),
            TbError::Position(m) => write!(f, "not a position the tables can hold: {m}"),
            TbError::Panicked => write!(f, "the prober failed on a corrupt table"),
        }
    }
}

impl std::error::Error for TbError {}

impl From<SyzygyError> for TbError {
    fn from(e: SyzygyError) -> TbError {
        match e {
            SyzygyError::Castling => TbError::Castling,
            SyzygyError::TooManyPieces => TbError::TooManyPieces,
            e @ SyzygyError::MissingTable { .. } => TbError::MissingTable(e.to_string()),
            e => TbError::Probe(e.to_string()),
        }
    }
}

/// Something that went wrong while loading `SyzygyPath`; the rest still loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadProblem {
    /// The directory is missing or cannot be listed.
    Directory { path: PathBuf, error: String },
    /// A file named like a table was left out (its size shows it is corrupt, or it cannot be read).
    File { path: PathBuf, error: String },
}

impl fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadProblem::Directory { path, error } => {
                write!(f, "Syzygy directory {} cannot be read ({error}); playing on without it", path.display())
            }
            LoadProblem::File { path, error } => write!(f, "Syzygy file {} left out ({error})", path.display()),
        }
    }
}

/// The tables found under `SyzygyPath`. Shared by every search thread; tables are opened
/// lazily by the first probe that needs them.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    files: usize,
    max_pieces: usize,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tablebases({} files, up to {} pieces)", self.files, self.max_pieces)
    }
}

/// The outcome of loading `SyzygyPath`: the tables (none if no file was found) and what
/// went wrong on the way.
#[derive(Debug)]
pub struct Loaded {
    pub tables: Option<Arc<Tablebases>>,
    pub problems: Vec<LoadProblem>,
}

impl Tablebases {
    /// Loads every table file of the directories in `path` (separated by [`PATH_SEPARATOR`];
    /// empty or `<empty>`: none). A directory that cannot be read, or a file whose size shows
    /// it is corrupt, is reported and skipped.
    pub fn load(path: &str) -> Loaded {
        // SAFETY: the files are mapped read-only, and the crate reads them only within their
        // length. A table file truncated or rewritten while the engine runs could give wrong
        // answers or a bus error: the same bargain as every engine that maps its tables.
        let mut tables = unsafe { Tablebase::with_mmap_filesystem() };
        let mut files = 0;
        let mut problems = Vec::new();
        for dir in split_path(path) {
            let dir = PathBuf::from(dir);
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    problems.push(LoadProblem::Directory { path: dir, error: e.to_string() });
                    continue;
                }
            };
            for entry in entries.flatten() {
                let file = entry.path();
                if !looks_like_table(&file) {
                    continue;
                }
                match tables.add_file(&file) {
                    Ok(()) => files += 1,
                    // Named like a table but not one (e.g. `KvK.rtbw`): not ours to report.
                    Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {}
                    Err(e) => problems.push(LoadProblem::File { path: file, error: e.to_string() }),
                }
            }
        }
        let max_pieces = tables.max_pieces();
        let tables = (files > 0).then(|| Arc::new(Tablebases { tables, files, max_pieces }));
        Loaded { tables, problems }
    }

    /// Table files loaded (WDL and DTZ counted apart).
    pub fn files(&self) -> usize {
        self.files
    }

    /// Pieces (kings included) of the largest table.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// The result of `pos` as if reached by a capture or pawn move (WDL tables only).
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, TbError> {
        let chess = to_shakmaty(pos)?;
        guarded(|| self.tables.probe_wdl_after_zeroing(&chess)).map(Wdl::from_crate)
    }

    /// Distance to zeroing in plies, signed for the side to move (positive: winning), as the
    /// DTZ tables give it (needs the WDL table too).
    pub fn probe_dtz(&self, pos: &Position) -> Result<i32, TbError> {
        let chess = to_shakmaty(pos)?;
        guarded(|| self.tables.probe_dtz(&chess)).map(|d| d.ignore_rounding().0)
    }
}

/// The directories of a `SyzygyPath` value.
pub fn split_path(path: &str) -> impl Iterator<Item = &str> {
    let path = if path.trim() == "<empty>" { "" } else { path };
    path.split(PATH_SEPARATOR).map(str::trim).filter(|d| !d.is_empty())
}

/// A Syzygy file name: `KQvK.rtbw`, `KRPvKR.rtbz`.
fn looks_like_table(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("rtbw" | "rtbz"))
}

/// Runs a probe, turning its error and any panic into a [`TbError`].
fn guarded<T>(probe: impl FnOnce() -> Result<T, SyzygyError>) -> Result<T, TbError> {
    match catch_unwind(AssertUnwindSafe(probe)) {
        Ok(result) => result.map_err(TbError::from),
        Err(_) => Err(TbError::Panicked),
    }
}

/// The crate's position of `pos`, built from the board: pieces, side to move, castling
/// (none: such positions are refused first), en passant and the clocks.
pub fn to_shakmaty(pos: &Position) -> Result<Chess, TbError> {
    if pos.castling_rights() != 0 {
        return Err(TbError::Castling);
    }
    let mut board = Board::empty();
    for color in [Color::White, Color::Black] {
        for &sq in pos.pieces(color) {
            let piece = pos.piece_at(sq);
            board.set_piece_at(square(sq), shakmaty::Piece { color: color_of(color), role: role_of(piece.kind()) });
        }
    }
    let setup = shakmaty::Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn: color_of(pos.side_to_move()),
        castling_rights: Bitboard::EMPTY,
        ep_square: pos.en_passant().map(square),
        remaining_checks: None,
        halfmoves: u32::from(pos.halfmove_clock()),
        fullmoves: NonZeroU32::new(u32::from(pos.fullmove_number())).unwrap_or(NonZeroU32::MIN),
    };
    // An en-passant square no pawn can use does not change the position.
    match Chess::from_setup(setup, CastlingMode::Standard) {
        Ok(chess) => Ok(chess),
        Err(e) => e.ignore_invalid_ep_square().map_err(|e| TbError::Position(e.to_string())),
    }
}

fn square(sq: Square) -> shakmaty::Square {
    shakmaty::Square::from_coords(shakmaty::File::new(u32::from(sq.file())), shakmaty::Rank::new(u32::from(sq.rank())))
}

fn color_of(c: Color) -> shakmaty::Color {
    match c {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    }
}

fn role_of(k: Kind) -> shakmaty::Role {
    match k {
        Kind::Pawn => shakmaty::Role::Pawn,
        Kind::Knight => shakmaty::Role::Knight,
        Kind::Bishop => shakmaty::Role::Bishop,
        Kind::Rook => shakmaty::Role::Rook,
        Kind::Queen => shakmaty::Role::Queen,
        Kind::King => shakmaty::Role::King,
    }
}

/// Pieces on the board, kings included.
#[inline]
pub fn piece_count(pos: &Position) -> usize {
    pos.pieces(Color::White).len() + pos.pieces(Color::Black).len()
}

/// The tables as a search uses them, with the probe options.
#[derive(Clone, Debug)]
pub struct TbConfig {
    pub tables: Arc<Tablebases>,
    /// `SyzygyProbeDepth`: the least depth at which a node at the probe limit is probed.
    pub probe_depth: i32,
    /// `SyzygyProbeLimit`: the most pieces probed (0: no probing).
    pub probe_limit: usize,
}

impl TbConfig {
    /// The most pieces a probe is tried with, and the least depth for a node with exactly that
    /// many: a limit above the largest table probes every node the tables hold, at any depth.
    pub fn cardinality(&self) -> (usize, i32) {
        if self.probe_limit > self.tables.max_pieces {
            (self.tables.max_pieces, 0)
        } else {
            (self.probe_limit, self.probe_depth)
        }
    }
}

/// Rank of a win reachable within the fifty-move count (as good as a win gets).
const SURE: i32 = 1 << 18;

/// How the root moves were ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootMetric {
    /// By DTZ, under the fifty-move rule.
    Dtz,
    /// By WDL alone (DTZ tables missing): the fifty-move count is not tracked.
    Wdl,
}

/// A root move as the tables see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    /// Higher is better; only the moves of the best rank are searched.
    pub rank: i32,
    /// The score to show for it while the search finds no mate: see [`crate::value::TB_WIN`].
    pub score: i32,
    /// When DTZ ranked it: plies to the win's next capture, pawn move or mate (0 for a mate,
    /// 1 for a winning capture or pawn move), or 0 for a move that does not win. Among moves
    /// of one rank the fewest plies come first: the route that cannot be shuffled away.
    pub plies: Option<i32>,
}

/// The root moves of `pos` ranked by the tables: DTZ if every table needed is there, else
/// WDL. `history` holds the keys of the game before `pos` (oldest first), for repetitions.
/// Returns the ranked moves (best first) and how they were ranked, or an error if even the
/// WDL tables could not rank them.
pub fn rank_root(
    tb: &Tablebases,
    pos: &Position,
    moves: &[Move],
    history: &[u64],
) -> Result<(Vec<RankedMove>, RootMetric), TbError> {
    let ranked = match rank_by_dtz(tb, pos, moves, history) {
        Ok(r) => (r, RootMetric::Dtz),
        Err(_) => (rank_by_wdl(tb, pos, moves)?, RootMetric::Wdl),
    };
    let (mut moves, metric) = ranked;
    // Stable: among moves of one rank and distance the caller's order stays.
    moves.sort_by_key(|r| (std::cmp::Reverse(r.rank), r.plies));
    Ok((moves, metric))
}

fn rank_by_dtz(tb: &Tablebases, pos: &Position, moves: &[Move], history: &[u64]) -> Result<Vec<RankedMove>, TbError> {
    // The keys before the root, without the root should the caller have included it.
    let history = pos.keys_before(history);
    let clock = i32::from(pos.halfmove_clock());
    let repeated = repeated_since_zeroing(pos, history);
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        let mut child = pos.clone();
        child.make(m);
        // Plies to the next capture or pawn move when `m` is played, signed for the mover; a
        // mate is the best win there is.
        let mate = child.in_check() && child.legal_moves().is_empty();
        let dtz = if mate {
            1
        } else if child.halfmove_clock() == 0 {
            match tb.probe_wdl(&child)?.flip() {
                Wdl::Win => 1,
                Wdl::CursedWin => 101,
                Wdl::Draw => 0,
                Wdl::BlessedLoss => -101,
                Wdl::Loss => -1,
            }
        } else if child.halfmove_clock() >= 100 || occurs_twice(child.key(), history, pos.key()) {
            0
        } else {
            let d = -tb.probe_dtz(&child)?;
            d + d.signum()
        };
        let rank = if dtz > 0 {
            if dtz + clock <= 99 && !repeated {
                SURE
            } else {
                SURE - (dtz + clock)
            }
        } else if dtz < 0 {
            // Best defence: the loss that takes longest to reach a capture or pawn move, the
            // more so when the fifty-move count may save it.
            -SURE + (-dtz + clock)
        } else {
            0
        };
        let plies = if mate { 0 } else { dtz.max(0) };
        out.push(RankedMove { mv: m, rank, score: dtz_score(rank), plies: Some(plies) });
    }
    Ok(out)
}

fn rank_by_wdl(tb: &Tablebases, pos: &Position, moves: &[Move]) -> Result<Vec<RankedMove>, TbError> {
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        let mut child = pos.clone();
        child.make(m);
        let wdl =
            if child.in_check() && child.legal_moves().is_empty() { Wdl::Win } else { tb.probe_wdl(&child)?.flip() };
        let score = match wdl {
            Wdl::Win => crate::value::TB_WIN,
            Wdl::Loss => -crate::value::TB_WIN,
            w => w.signed(),
        };
        out.push(RankedMove { mv: m, rank: wdl.signed(), score, plies: None });
    }
    Ok(out)
}

/// What a rank is shown as: a tablebase win, a cursed win a little above a draw (the nearer
/// the real win, the more), a draw, and the same for losses.
fn dtz_score(rank: i32) -> i32 {
    use crate::value::TB_WIN;
    // Ranks of a win within the fifty-move count (the count itself being at most 99).
    let bound = SURE - 100;
    if rank >= bound {
        TB_WIN
    } else if rank > 0 {
        (rank - (SURE - 200)).clamp(2, 98) / 2
    } else if rank == 0 {
        0
    } else if rank <= -bound {
        -TB_WIN
    } else {
        -(((-SURE + 200) - rank).clamp(2, 98) / 2)
    }
}

/// Did a position occur twice since the last capture or pawn move (the game's keys before the
/// root, the root included)? Then a tablebase win must be played by the shortest route.
fn repeated_since_zeroing(pos: &Position, history: &[u64]) -> bool {
    let recent = usize::from(pos.halfmove_clock()).min(history.len());
    let mut keys: Vec<u64> = history[history.len() - recent..].to_vec();
    keys.push(pos.key());
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

/// Would the position `key` be the third occurrence (twice before in the game)?
fn occurs_twice(key: u64, history: &[u64], root: u64) -> bool {
    history.iter().chain(std::iter::once(&root)).filter(|&&k| k == key).count() >= 2
}
