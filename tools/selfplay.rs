//! Reading self-play chunks (`tools/datagen.rs`) for the tools that fit ox88 to its own games
//! (`tune.rs`, `nnue_train.rs`, `fit_wdl.rs`), which include this file as a module.
//!
//! A chunk's `NAME.bin` is an array of 32-byte records (`ox88::packed::Record`), games whole
//! and in order, the last record of each game flagged. A path names a chunk or a directory
//! (its `*.bin`, by name). Games are numbered across the paths in the order given; game `n`
//! is held out whole when `n % 10 == fold`, so a fit is judged on games it never saw. A chunk
//! still being written may end in part of a game: that part is left out.
//!
//! A static evaluation is judged against the search's score and the game's result, which
//! speak for the position only when it is quiet; hence the filters (`Filter`): side to move
//! in check, a capture or promotion played (the position is in the middle of an exchange),
//! the first plies of a game (close to its random opening, no position a game would reach),
//! mate scores (not centipawns).
//!
//! Files are read in blocks, so memory holds the samples, not the data; each block's games
//! are shared out over reader threads and come back in game order, so what a tool reads does
//! not depend on the number of threads.

// Each tool uses part of the reader.
#![allow(dead_code)]

use clap::ArgAction;
use ox88::packed::{Record, RecordError, RECORD_BYTES};
use std::fmt;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Game `n` is held out when `n % HOLDOUT == fold`.
pub const HOLDOUT: usize = 10;

/// How many of a game's first positions the trainers drop unless told otherwise.
pub const SKIP_PLIES: usize = 8;

/// Records per read: 32 MB at a time.
const BLOCK_RECORDS: usize = 1 << 20;

/// Which positions a fit uses.
#[derive(clap::Args, Clone, Debug)]
pub struct Filter {
    /// Drop positions whose side to move is in check.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "true")]
    pub skip_check: bool,
    /// Drop positions whose move played was a capture or a promotion.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "true")]
    pub skip_tactical: bool,
    /// Drop each game's first N positions.
    #[arg(long, value_name = "N", default_value_t = SKIP_PLIES)]
    pub skip_plies: usize,
    /// Drop positions with a mate score.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "true")]
    pub skip_mates: bool,
}

/// Why a position was dropped.
#[derive(Clone, Copy, Debug)]
pub enum Skip {
    Opening,
    Check,
    Tactical,
    Mate,
}

impl Filter {
    /// Why the record at `index` in its game is dropped, if it is.
    #[inline]
    pub fn skip(&self, index: usize, r: &Record) -> Option<Skip> {
        if index < self.skip_plies {
            Some(Skip::Opening)
        } else if self.skip_check && r.in_check() {
            Some(Skip::Check)
        } else if self.skip_tactical && r.played_tactical() {
            Some(Skip::Tactical)
        } else if self.skip_mates && r.is_mate_score() {
            Some(Skip::Mate)
        } else {
            None
        }
    }
}

/// What the tools read: the paths, the held-out fold and the filters.
#[derive(clap::Args, Clone, Debug)]
pub struct Data {
    /// Chunks (`NAME.bin`) or directories of them (every `*.bin` inside, by name).
    #[arg(required = true, value_name = "DATA")]
    pub paths: Vec<PathBuf>,
    /// Hold out the games numbered FOLD modulo 10.
    #[arg(long, default_value_t = 0, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..HOLDOUT as u64))]
    pub fold: usize,
    /// Read only the first N games (all paths together): a fit made while a chunk grows can
    /// be made again from the same games.
    #[arg(long, value_name = "N")]
    pub max_games: Option<usize>,
    /// Leave out the first N games (numbers, and so the held-out fold, stay as they are): a
    /// network refined on a chunk's first games is refined again on the games it has not seen.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub skip_games: usize,
    #[command(flatten)]
    pub filter: Filter,
}

impl Data {
    /// The numbers of the games to read.
    pub fn games(&self) -> Range<usize> {
        self.skip_games..self.max_games.unwrap_or(usize::MAX)
    }
}

/// One whole game and its number across all the paths read.
pub struct Game<'a> {
    pub number: usize,
    pub records: &'a [Record],
}

/// The expected result of a score `v` (centipawns) on the scale `k` of the data's scores:
/// `1 / (1 + 10^(-k v / 400))`, the tuner's prediction and the trainer's target blend.
pub fn expected_result(k: f64, v: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * v / 400.0))
}

/// A record's game result and score from White's side.
#[derive(Clone, Copy, Debug)]
pub struct Label {
    /// 1, 0.5 or 0.
    pub result: f32,
    /// Centipawns; `None` for a mate score.
    pub score: Option<f32>,
}

impl Label {
    pub fn of(r: &Record) -> Result<Label, RecordError> {
        let result = r.result()?.white_score();
        let score = (!r.is_mate_score()).then(|| f32::from(r.score_white()));
        Ok(Label { result, score })
    }
}

/// What became of the records read.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub games: usize,
    pub held_games: usize,
    pub records: usize,
    /// Dropped by the filters, per `Skip`.
    pub skipped: [usize; 4],
    /// Bytes that are no record (a result byte out of range).
    pub unreadable: usize,
    /// Turned down by the tool.
    pub rejected: usize,
    pub kept: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.games += o.games;
        self.held_games += o.held_games;
        self.records += o.records;
        for (a, b) in self.skipped.iter_mut().zip(o.skipped) {
            *a += b;
        }
        self.unreadable += o.unreadable;
        self.rejected += o.rejected;
        self.kept += o.kept;
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [opening, check, tactical, mate] = self.skipped;
        write!(
            f,
            "{} games ({} held out), {} positions: {} kept; dropped {opening} opening, {check} in check, \
             {tactical} tactical, {mate} mate scores, {} by the tool",
            self.games, self.held_games, self.records, self.kept, self.rejected
        )?;
        if self.unreadable > 0 {
            write!(f, ", {} unreadable", self.unreadable)?;
        }
        Ok(())
    }
}

/// The samples a tool made, split into training and held-out games.
pub struct Samples<S> {
    pub train: Vec<S>,
    pub held: Vec<S>,
    pub counts: Counts,
}

/// Reads `data` into samples: `sample` turns each record that passes the filters, with its
/// label, into a sample or turns it down. Samples come in game order.
pub fn samples<S, F>(data: &Data, threads: usize, sample: F) -> Result<Samples<S>, String>
where
    S: Send,
    F: Fn(&Record, Label) -> Option<S> + Sync,
{
    let mut out = Samples { train: Vec::new(), held: Vec::new(), counts: Counts::default() };
    let per_game = |game: Game| {
        let held = game.number % HOLDOUT == data.fold;
        let mut c = Counts { games: 1, held_games: held as usize, records: game.records.len(), ..Counts::default() };
        let mut kept = Vec::new();
        for (i, r) in game.records.iter().enumerate() {
            if let Some(skip) = data.filter.skip(i, r) {
                c.skipped[skip as usize] += 1;
                continue;
            }
            let Ok(label) = Label::of(r) else {
                c.unreadable += 1;
                continue;
            };
            match sample(r, label) {
                Some(s) => kept.push(s),
                None => c.rejected += 1,
            }
        }
        c.kept = kept.len();
        (held, kept, c)
    };
    read_games(&data.paths, data.games(), threads, per_game, |block| {
        for (held, kept, c) in block {
            out.counts.add(&c);
            if held {
                out.held.extend(kept);
            } else {
                out.train.extend(kept);
            }
        }
    })?;
    Ok(out)
}

/// [`samples`] for a fitting tool: prints what was read and kept, and ends the process (exit
/// code 2) when the data cannot be read or leaves nothing to fit or to judge the fit by.
pub fn training_set<S, F>(data: &Data, threads: usize, sample: F) -> (Vec<S>, Vec<S>)
where
    S: Send,
    F: Fn(&Record, Label) -> Option<S> + Sync,
{
    match samples(data, threads, sample) {
        Ok(x) => {
            eprintln!("{}", x.counts);
            eprintln!("{} positions to fit, {} held out", x.train.len(), x.held.len());
            if x.train.is_empty() || x.held.is_empty() {
                std::process::exit(2);
            }
            (x.train, x.held)
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}

/// The chunks that `paths` name, in order: a directory gives its `*.bin`, sorted by name.
pub fn chunk_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "bin"))
                .collect();
            if inside.is_empty() {
                return Err(format!("{} holds no *.bin chunk", path.display()));
            }
            inside.sort();
            files.extend(inside);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// Reads the games of `paths` numbered in `games` (counting from 0 across the paths), block by
/// block: `per_game` runs on `threads` threads, and `sink` receives each block's results in
/// game order.
pub fn read_games<G, F, K>(
    paths: &[PathBuf],
    games: Range<usize>,
    threads: usize,
    per_game: F,
    sink: K,
) -> Result<(), String>
where
    G: Send,
    F: Fn(Game) -> G + Sync,
    K: FnMut(Vec<G>),
{
    read_games_in_blocks(paths, games, threads, BLOCK_RECORDS, per_game, sink)
}

/// `read_games` reading `block` records at a time.
fn read_games_in_blocks<G, F, K>(
    paths: &[PathBuf],
    games: Range<usize>,
    threads: usize,
    block: usize,
    per_game: F,
    mut sink: K,
) -> Result<(), String>
where
    G: Send,
    F: Fn(Game) -> G + Sync,
    K: FnMut(Vec<G>),
{
    let mut number = 0;
    for path in chunk_files(paths)? {
        if number >= games.end {
            break;
        }
        number = read_file(&path, number, &games, threads, block.max(1), &per_game, &mut sink)?;
    }
    Ok(())
}

/// Reads one chunk whose first game is numbered `number`, handing on the games numbered in
/// `wanted`; returns the number after the last game read.
fn read_file<G, F, K>(
    path: &Path,
    mut number: usize,
    wanted: &Range<usize>,
    threads: usize,
    block: usize,
    per_game: &F,
    sink: &mut K,
) -> Result<usize, String>
where
    G: Send,
    F: Fn(Game) -> G + Sync,
    K: FnMut(Vec<G>),
{
    let fault = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut file = std::fs::File::open(path).map_err(fault)?;
    // A chunk being written grows: read what it held when opened, in whole records.
    let mut left = file.metadata().map_err(fault)?.len() as usize / RECORD_BYTES;
    let mut bytes = vec![0u8; block.min(left) * RECORD_BYTES];
    let mut records: Vec<Record> = Vec::new();
    let max_games = wanted.end;
    while left > 0 && number < max_games {
        let n = block.min(left);
        let read = &mut bytes[..n * RECORD_BYTES];
        file.read_exact(read).map_err(fault)?;
        left -= n;
        records.extend(read.chunks_exact(RECORD_BYTES).map(|b| Record::from_bytes(b.try_into().expect("32 bytes"))));
        let whole = records.iter().rposition(Record::is_last_of_game).map_or(0, |i| i + 1);
        let mut games = Vec::new();
        let mut start = 0;
        for (i, r) in records[..whole].iter().enumerate() {
            if r.is_last_of_game() && number + games.len() < max_games {
                games.push(&records[start..=i]);
                start = i + 1;
            }
        }
        let skip = wanted.start.saturating_sub(number).min(games.len());
        if skip < games.len() {
            sink(map_games(&games[skip..], number + skip, threads, per_game));
        }
        number += games.len();
        records.drain(..whole);
    }
    if !records.is_empty() && number < max_games {
        eprintln!("{}: {} positions of an unfinished game left out", path.display(), records.len());
    }
    Ok(number)
}

/// `per_game` of each game, on up to `threads` threads, in game order.
fn map_games<G, F>(games: &[&[Record]], first: usize, threads: usize, per_game: &F) -> Vec<G>
where
    G: Send,
    F: Fn(Game) -> G + Sync,
{
    let per_thread = games.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = games
            .chunks(per_thread)
            .enumerate()
            .map(|(t, part)| {
                scope.spawn(move || {
                    let first = first + t * per_thread;
                    part.iter()
                        .enumerate()
                        .map(|(i, &records)| per_game(Game { number: first + i, records }))
                        .collect::<Vec<G>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("reader thread")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record that is only what the reader looks at: flags, result, score.
    fn record(last: bool, in_check: bool, score: i16) -> Record {
        let mut b = [0u8; RECORD_BYTES];
        b[24..26].copy_from_slice(&score.to_le_bytes());
        b[26] = 2;
        b[27] = (in_check as u8) << 1 | (last as u8) << 2;
        Record::from_bytes(b)
    }

    /// Games of the given lengths, then `tail` records of a game not finished.
    fn chunk(lengths: &[usize], tail: usize) -> Vec<u8> {
        let mut bytes = Vec::new();
        for &n in lengths {
            for i in 0..n {
                bytes.extend_from_slice(record(i + 1 == n, i % 3 == 1, i as i16).as_bytes());
            }
        }
        for i in 0..tail {
            bytes.extend_from_slice(record(false, false, i as i16).as_bytes());
        }
        bytes
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ox88-selfplay-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    /// Games are numbered across files in order whatever the block size and thread count;
    /// a game cut off at a file's end is left out, and so are bytes short of a record.
    #[test]
    fn games_are_whole_and_numbered_across_files() {
        let dir = scratch("games");
        std::fs::write(dir.join("b.bin"), chunk(&[4, 1], 0)).expect("write");
        let mut a = chunk(&[3, 5, 2], 2);
        a.extend_from_slice(&[0; 7]);
        std::fs::write(dir.join("a.bin"), a).expect("write");
        std::fs::write(dir.join("a.info"), "not a chunk").expect("write");
        for (threads, block) in [(1, 1), (3, 2), (2, 4), (4, BLOCK_RECORDS)] {
            let mut seen = Vec::new();
            let per_game = |g: Game| (g.number, g.records.len(), g.records.iter().map(|r| r.score_white()).collect());
            read_games_in_blocks(
                std::slice::from_ref(&dir),
                0..usize::MAX,
                threads,
                block,
                per_game,
                |b: Vec<(usize, usize, Vec<i16>)>| seen.extend(b),
            )
            .expect("the chunks read");
            let lengths: Vec<(usize, usize)> = seen.iter().map(|g| (g.0, g.1)).collect();
            assert_eq!(lengths, [(0, 3), (1, 5), (2, 2), (3, 4), (4, 1)], "threads {threads}, block {block}");
            assert!(seen.iter().all(|g| g.2 == (0..g.1 as i16).collect::<Vec<_>>()));
        }
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    /// Only the range's games are read, whole and with their numbers: its start leaves out
    /// the games before it and its end stops the reading, each inside a file or between
    /// files, whatever the block size.
    #[test]
    fn reading_keeps_only_the_games_in_the_range() {
        let dir = scratch("range");
        std::fs::write(dir.join("a.bin"), chunk(&[3, 5, 2], 0)).expect("write");
        std::fs::write(dir.join("b.bin"), chunk(&[4, 1], 0)).expect("write");
        for block in [1, 3, BLOCK_RECORDS] {
            let cases = [
                (0..0, 0..0),
                (0..2, 0..2),
                (0..3, 0..3),
                (0..4, 0..4),
                (0..9, 0..5),
                (2..9, 2..5),
                (3..4, 3..4),
                (1..3, 1..3),
                (5..9, 5..5),
                (7..12, 5..5),
            ];
            for (range, want) in cases {
                let mut seen = Vec::new();
                read_games_in_blocks(
                    std::slice::from_ref(&dir),
                    range.clone(),
                    2,
                    block,
                    |g: Game| (g.number, g.records.len()),
                    |b: Vec<(usize, usize)>| seen.extend(b),
                )
                .expect("the chunks read");
                let lengths = [3, 5, 2, 4, 1];
                let expected: Vec<(usize, usize)> = want.clone().map(|n| (n, lengths[n])).collect();
                assert_eq!(seen, expected, "range {range:?}, block {block}");
            }
        }
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    /// The fold's games go to the held-out samples whole; the filters drop what they name.
    #[test]
    fn samples_hold_out_a_fold_and_filter() {
        let dir = scratch("samples");
        let path = dir.join("c.bin");
        std::fs::write(&path, chunk(&[6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6], 0)).expect("write");
        let filter = Filter { skip_check: true, skip_tactical: true, skip_plies: 2, skip_mates: true };
        let data = Data { paths: vec![path], fold: 1, max_games: None, skip_games: 0, filter };
        let read = samples(&data, 2, |r, label| Some((r.score_white(), label.result))).expect("the chunk reads");
        // Per game of six: plies 0 and 1 dropped, ply 4 in check; 2, 3 and 5 kept.
        let kept: Vec<i16> = read.train.iter().map(|s| s.0).collect();
        assert_eq!(kept, [2, 3, 5].repeat(10));
        assert_eq!(read.held.iter().map(|s| s.0).collect::<Vec<_>>(), [2, 3, 5, 2, 3, 5]);
        assert!(read.train.iter().all(|s| s.1 == 1.0));
        let c = read.counts;
        assert_eq!((c.games, c.held_games, c.records, c.kept), (12, 2, 72, 36));
        assert_eq!(c.skipped, [24, 12, 0, 0]);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
