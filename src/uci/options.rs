//! The UCI options: one table, read both by the `uci` listing and by `setoption`.
//!
//! Each row holds an option's name, its kind with default and range, and what setting it
//! does. Defaults are the engine facade's own ([`Options::default`]); a value outside the
//! range is refused here with an `info string`, and the old value stays.

use super::{Session, UciError};
use crate::engine::{EvalFileLoad, Options, TablebaseLoad, TablebaseOptions};
use crate::strength::{self, Limit};
use std::sync::atomic::Ordering;
use vampirc_uci::UciOptionConfig;

/// The kind of an option, with its default and range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    /// A spin whose values outside the range are brought into it (with a note) rather than
    /// refused: GUIs send ratings from scales of their own.
    ClampedSpin {
        default: i64,
        min: i64,
        max: i64,
    },
    Button,
    /// Text; `<empty>` (or nothing) means the empty string.
    String {
        default: &'static str,
    },
}

/// A value, already checked against the option's kind and range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    Spin(i64),
    Check(bool),
    Press,
    Text(String),
}

/// One row of the table.
pub struct UciOption {
    pub name: &'static str,
    pub kind: OptionKind,
    /// Carries the setting out.
    apply: fn(&mut Session, Setting) -> Result<(), UciError>,
}

/// The hash table may take up to 64 GiB.
const MAX_HASH_MB: i64 = 65_536;
/// Lazy SMP: the main thread and up to 255 helpers.
const MAX_THREADS: i64 = 256;
const MAX_MULTIPV: i64 = 64;
const MAX_MOVE_OVERHEAD_MS: i64 = 10_000;
const MAX_PROBE_DEPTH: i64 = 100;
/// Syzygy tables exist up to seven pieces.
const MAX_PROBE_LIMIT: i64 = 7;

/// Every option ox88 has, in `uci` order.
pub fn table() -> [UciOption; 15] {
    let d = Options::default();
    let tb = TablebaseOptions::default();
    [
        UciOption {
            name: "Hash",
            kind: OptionKind::Spin { default: d.hash_mb as i64, min: 1, max: MAX_HASH_MB },
            apply: |s, v| Ok(s.engine.set_hash(spin(v) as usize)?),
        },
        UciOption {
            name: "Clear Hash",
            kind: OptionKind::Button,
            apply: |s, _| {
                s.engine.clear_hash();
                Ok(())
            },
        },
        UciOption {
            name: "Threads",
            kind: OptionKind::Spin { default: d.threads as i64, min: 1, max: MAX_THREADS },
            apply: |s, v| {
                s.engine.set_threads(spin(v) as usize);
                Ok(())
            },
        },
        UciOption {
            name: "MultiPV",
            kind: OptionKind::Spin { default: d.multipv as i64, min: 1, max: MAX_MULTIPV },
            apply: |s, v| {
                s.engine.set_multipv(spin(v) as usize);
                Ok(())
            },
        },
        UciOption {
            name: "Ponder",
            kind: OptionKind::Check { default: d.ponder },
            apply: |s, v| {
                s.engine.set_ponder(check(v));
                Ok(())
            },
        },
        UciOption {
            name: "Move Overhead",
            kind: OptionKind::Spin { default: d.move_overhead_ms, min: 0, max: MAX_MOVE_OVERHEAD_MS },
            apply: |s, v| {
                s.engine.set_move_overhead(spin(v));
                Ok(())
            },
        },
        UciOption {
            name: "UCI_Chess960",
            kind: OptionKind::Check { default: false },
            apply: |s, v| {
                s.chess960.store(check(v), Ordering::SeqCst);
                Ok(())
            },
        },
        UciOption {
            name: "UCI_ShowWDL",
            kind: OptionKind::Check { default: false },
            apply: |s, v| {
                s.show_wdl.store(check(v), Ordering::SeqCst);
                Ok(())
            },
        },
        UciOption {
            name: "UCI_LimitStrength",
            kind: OptionKind::Check { default: false },
            apply: |s, v| {
                s.engine.set_limit(Limit { on: check(v), ..s.engine.limit() });
                Ok(())
            },
        },
        UciOption {
            name: "UCI_Elo",
            kind: OptionKind::ClampedSpin {
                default: strength::DEFAULT_ELO,
                min: strength::MIN_ELO,
                max: strength::MAX_ELO,
            },
            apply: |s, v| {
                s.engine.set_limit(Limit { elo: spin(v), ..s.engine.limit() });
                Ok(())
            },
        },
        UciOption {
            name: "Debug Log File",
            kind: OptionKind::String { default: "" },
            apply: |s, v| {
                let path = Some(text(v)).filter(|t| !t.is_empty());
                s.out.set_log(path.as_deref()).map_err(|e| UciError::BadOptionValue {
                    option: "Debug Log File",
                    value: format!("{} ({e})", path.unwrap_or_default()),
                })
            },
        },
        UciOption {
            name: "SyzygyPath",
            kind: OptionKind::String { default: "<empty>" },
            apply: |s, v| {
                let path = text(v);
                let load = s.engine.set_syzygy_path(&path);
                for line in tablebase_messages(&path, &load) {
                    s.info_string(&line);
                }
                Ok(())
            },
        },
        UciOption {
            name: "SyzygyProbeDepth",
            kind: OptionKind::Spin { default: tb.probe_depth as i64, min: 1, max: MAX_PROBE_DEPTH },
            apply: |s, v| {
                s.engine.set_syzygy_probe_depth(spin(v) as i32);
                Ok(())
            },
        },
        UciOption {
            name: "SyzygyProbeLimit",
            kind: OptionKind::Spin { default: tb.probe_limit as i64, min: 0, max: MAX_PROBE_LIMIT },
            apply: |s, v| {
                s.engine.set_syzygy_probe_limit(spin(v) as usize);
                Ok(())
            },
        },
        UciOption {
            name: "EvalFile",
            kind: OptionKind::String { default: "<embedded>" },
            apply: |s, v| {
                let path = text(v);
                if let Some(line) = eval_file_message(&s.engine.set_eval_file(&path)) {
                    s.info_string(&line);
                }
                Ok(())
            },
        },
    ]
}

/// What `EvalFile` tells the GUI; the default sent again (as GUIs do at start) says nothing.
fn eval_file_message(load: &EvalFileLoad) -> Option<String> {
    match load {
        EvalFileLoad::Embedded { changed: false } => None,
        EvalFileLoad::Embedded { changed: true } => Some("EvalFile: the embedded network".to_string()),
        EvalFileLoad::Loaded { path, hidden, buckets, kings, base } => {
            let kings = if *kings > 1 { format!(", king buckets {kings}") } else { String::new() };
            Some(format!("EvalFile: loaded {path} (hidden {hidden}, buckets {buckets}{kings}, base {})", base.name()))
        }
        EvalFileLoad::Refused { path, error, kept } => Some(match kept {
            None => format!("EvalFile: {path} refused: {error}; keeping the embedded network"),
            Some(kept) => format!("EvalFile: {path} refused: {error}; keeping the network of {kept}"),
        }),
    }
}

/// What `SyzygyPath` tells the GUI: what was loaded, and every directory or file left out.
/// The default sent again (as GUIs do at start) says nothing.
fn tablebase_messages(path: &str, load: &TablebaseLoad) -> Vec<String> {
    match load {
        TablebaseLoad::Unchanged { files: 0, .. } => Vec::new(),
        TablebaseLoad::Unchanged { files, max_pieces } => {
            vec![format!("Syzygy tablebases: {files} files, up to {max_pieces} pieces (already loaded)")]
        }
        TablebaseLoad::Loaded { files, max_pieces, problems } => {
            let mut lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
            lines.push(match files {
                0 if path.is_empty() || path == "<empty>" => "Syzygy tablebases: off".to_string(),
                0 => format!("Syzygy tablebases: no table found in '{path}'; playing without tablebases"),
                n => format!("Syzygy tablebases: {n} files, up to {max_pieces} pieces"),
            });
            lines
        }
    }
}

fn spin(v: Setting) -> i64 {
    match v {
        Setting::Spin(n) => n,
        _ => 0,
    }
}

fn text(v: Setting) -> String {
    match v {
        Setting::Text(t) => t,
        _ => String::new(),
    }
}

fn check(v: Setting) -> bool {
    matches!(v, Setting::Check(true))
}

impl UciOption {
    /// How `uci` declares it.
    pub fn declaration(&self) -> UciOptionConfig {
        let name = self.name.to_string();
        match self.kind {
            OptionKind::Spin { default, min, max } | OptionKind::ClampedSpin { default, min, max } => {
                UciOptionConfig::Spin { name, default: Some(default), min: Some(min), max: Some(max) }
            }
            OptionKind::Check { default } => UciOptionConfig::Check { name, default: Some(default) },
            OptionKind::Button => UciOptionConfig::Button { name },
            OptionKind::String { default } => UciOptionConfig::String { name, default: Some(default.to_string()) },
        }
    }

    /// Reads a `setoption` value for this option.
    pub fn read(&self, value: Option<&str>) -> Result<Setting, UciError> {
        let text = value.unwrap_or("").trim();
        let bad = || UciError::BadOptionValue { option: self.name, value: text.to_string() };
        match self.kind {
            OptionKind::Spin { min, max, .. } => {
                let v = super::parse::parse_int(self.name, text).map_err(|_| bad())?;
                if !(min..=max).contains(&v) {
                    return Err(UciError::OutOfRange { option: self.name, value: v, min, max });
                }
                Ok(Setting::Spin(v))
            }
            OptionKind::ClampedSpin { min, max, .. } => {
                let v = super::parse::parse_int(self.name, text).map_err(|_| bad())?;
                Ok(Setting::Spin(v.clamp(min, max)))
            }
            OptionKind::Check { .. } if text.eq_ignore_ascii_case("true") => Ok(Setting::Check(true)),
            OptionKind::Check { .. } if text.eq_ignore_ascii_case("false") => Ok(Setting::Check(false)),
            OptionKind::Check { .. } => Err(bad()),
            OptionKind::Button => Ok(Setting::Press),
            OptionKind::String { .. } if text == "<empty>" => Ok(Setting::Text(String::new())),
            OptionKind::String { .. } => Ok(Setting::Text(text.to_string())),
        }
    }
}

/// What `uci` declares: the table, then (with the `tune` feature) every tunable number of
/// the search as a spin.
pub(super) fn declarations() -> Vec<UciOptionConfig> {
    let mut all: Vec<UciOptionConfig> = table().iter().map(UciOption::declaration).collect();
    if cfg!(feature = "tune") {
        all.extend(crate::search::params::TABLE.iter().map(|p| tunable(p).declaration()));
    }
    all
}

/// A tunable number as an option row: declared, and read (its range checked) like any spin;
/// [`set`] hands the value to the engine by name.
fn tunable(p: &crate::search::params::Param) -> UciOption {
    UciOption {
        name: p.name,
        kind: OptionKind::Spin { default: p.default as i64, min: p.min as i64, max: p.max as i64 },
        apply: |_, _| Ok(()),
    }
}

/// `setoption`: the option named `name` (case and runs of spaces do not matter) takes `value`.
pub(super) fn set(session: &mut Session, name: &str, value: Option<&str>) -> Result<(), UciError> {
    let wanted = normalise(name);
    #[cfg(feature = "tune")]
    if let Some(p) = crate::search::params::TABLE.iter().find(|p| p.name == wanted) {
        let value = spin(tunable(p).read(value)?);
        return session.engine.set_param(p.name, value).map_err(|_| UciError::OutOfRange {
            option: p.name,
            value,
            min: p.min as i64,
            max: p.max as i64,
        });
    }
    let option = table()
        .into_iter()
        .find(|o| normalise(o.name) == wanted)
        .ok_or_else(|| UciError::UnknownOption(name.to_string()))?;
    let setting = option.read(value)?;
    if let (OptionKind::ClampedSpin { min, max, .. }, Setting::Spin(v)) = (option.kind, &setting) {
        let sent = value.unwrap_or("").trim();
        if sent.parse::<i64>() != Ok(*v) {
            session.info_string(&format!("{} must be between {min} and {max}, not {sent}: set to {v}", option.name));
        }
    }
    (option.apply)(session, setting)
}

fn normalise(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase()
}
