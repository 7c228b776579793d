//! `ox88 tb-probe`: the tables' verdict on positions read one FEN a line, for comparing ox88's
//! probing with other probers.

use super::{LoadProblem, Tablebases, TbError};
use crate::position::Position;
use std::io::{BufRead, Write};

/// Loads the tables of `path`, then answers each FEN line of `input` with one line on `out`:
/// `WDL DTZ` (WDL from -2 to 2 as if reached by a capture or pawn move, DTZ in plies, both for
/// the side to move), `WDL -` when the DTZ table is missing, or `error: ...`, so that line n
/// of the output answers line n of the input. Load problems go to `err` as warnings. Returns
/// the exit code: 0, or 1 when no table was found or a line could not be answered.
pub fn probe_lines(path: &str, input: impl BufRead, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, String> {
    let loaded = Tablebases::load(path);
    for problem in &loaded.problems {
        // The engine's wording ("playing on without it") is for a GUI's log; here the
        // reader is at a terminal.
        let _ = match problem {
            LoadProblem::Directory { path, error } => {
                writeln!(err, "warning: cannot read Syzygy directory {}: {error}", path.display())
            }
            LoadProblem::File { path, error } => {
                writeln!(err, "warning: Syzygy file {} left out: {error}", path.display())
            }
        };
    }
    let Some(tables) = loaded.tables else {
        return Err(format!("no Syzygy table found in '{path}'"));
    };
    let mut failed = false;
    for line in input.lines() {
        let line = line.map_err(|e| format!("reading input: {e}"))?;
        let fen = line.trim();
        if fen.is_empty() {
            continue;
        }
        let answer = match Position::from_fen(fen) {
            Err(e) => format!("error: bad FEN: {e}"),
            Ok(pos) => answer(&tables, &pos),
        };
        failed |= answer.starts_with("error");
        writeln!(out, "{answer}").map_err(|e| format!("writing output: {e}"))?;
    }
    Ok(i32::from(failed))
}

fn answer(tables: &Tablebases, pos: &Position) -> String {
    match (tables.probe_wdl(pos), tables.probe_dtz(pos)) {
        (Ok(wdl), Ok(dtz)) => format!("{} {dtz}", wdl.signed()),
        (Ok(wdl), Err(TbError::MissingTable(_))) => format!("{} -", wdl.signed()),
        (Err(e), _) | (_, Err(e)) => format!("error: {e}"),
    }
}
