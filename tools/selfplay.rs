//! Reading `tools/datagen.rs` files, for the tuners (`tune.rs`, `nnue_train.rs`), which
//! include this file as a module.
//!
//! A file holds `FEN | score | result` lines, each game closed by `# game I R N`. Every
//! tenth game (index divisible by 10) is held out whole, so a fit is judged on games it
//! never saw. Only quiet positions are worth fitting: side to move not in check, no capture
//! with a positive static exchange, no promotion possible, so that a static evaluation is a
//! fair stand-in for the quiescence score.

use ox88::see::see;
use ox88::Position;

pub fn is_quiet(pos: &Position) -> bool {
    !pos.in_check() && pos.legal_tactical_moves().iter().all(|&m| !m.is_promotion() && see(pos, m) <= 0)
}

/// Reads every file into (training, held-out) samples; `sample` turns a line's three fields
/// into a sample or rejects it. Games are shared out over `threads` reader threads.
pub fn read_files<S, F>(files: &[String], threads: usize, sample: F) -> Result<(Vec<S>, Vec<S>), String>
where
    S: Send,
    F: Fn(&str, &str, &str) -> Option<S> + Sync,
{
    let (mut train, mut held) = (Vec::new(), Vec::new());
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("cannot read {f}: {e}"))?;
        let (a, b) = read(&text, threads, &sample);
        train.extend(a);
        held.extend(b);
    }
    Ok((train, held))
}

fn read<S, F>(text: &str, threads: usize, sample: &F) -> (Vec<S>, Vec<S>)
where
    S: Send,
    F: Fn(&str, &str, &str) -> Option<S> + Sync,
{
    // Split into games first (a game's positions come before its `# game I` line).
    let mut games: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut current = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# game ") {
            let i = rest.split_whitespace().next().and_then(|x| x.parse().ok()).unwrap_or(0);
            games.push((i, std::mem::take(&mut current)));
        } else if !line.starts_with('#') {
            current.push(line);
        }
    }
    let chunk = games.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<(Vec<S>, Vec<S>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = games
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let (mut train, mut held) = (Vec::new(), Vec::new());
                    for (i, lines) in part {
                        for line in lines {
                            let f: Vec<&str> = line.split('|').collect();
                            if f.len() != 3 {
                                continue;
                            }
                            if let Some(s) = sample(f[0], f[1], f[2]) {
                                if i % 10 == 0 {
                                    held.push(s)
                                } else {
                                    train.push(s)
                                }
                            }
                        }
                    }
                    (train, held)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("reader thread")).collect()
    });
    let (mut train, mut held) = (Vec::new(), Vec::new());
    for (a, b) in parts {
        train.extend(a);
        held.extend(b);
    }
    (train, held)
}
