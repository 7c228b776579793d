//! `ox88 tb-probe`: the tables' verdict on positions read one FEN a line, for comparing ox88's
//! probing with other probers.

use super::{Tablebases, TbError};
use crate::position::Position;
use std::io::{BufRead, Write};

/// Loads the tables of `path`, then answers each FEN line of `input` with one line on `out`:
/// `WDL DTZ` (WDL from -2 to 2 as if reached by a capture or pawn move, DTZ in plies, both for
/// the side to move), `WDL -` when the DTZ table is missing, or `error: ...`. Load problems go
/// to `err`. Returns the exit code: 0, or 1 when no table was found.
pub fn probe_lines(path: &str, input: impl BufRead, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, String> {
    let loaded = Tablebases::load(path);
    for problem in &loaded.problems {
        let _ = writeln!(err, "{problem}");
    }
    let Some(tables) = loaded.tables else {
        let _ = writeln!(err, "no Syzygy table found in '{path}'");
        return Ok(1);
    };
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
        writeln!(out, "{answer}").map_err(|e| format!("writing output: {e}"))?;
    }
    Ok(0)
}

fn answer(tables: &Tablebases, pos: &Position) -> String {
    match (tables.probe_wdl(pos), tables.probe_dtz(pos)) {
        (Ok(wdl), Ok(dtz)) => format!("{} {dtz}", wdl.signed()),
        (Ok(wdl), Err(TbError::MissingTable(_))) => format!("{} -", wdl.signed()),
        (Err(e), _) | (_, Err(e)) => format!("error: {e}"),
    }
}
