//! ox88 is GPL-3.0-or-later, and every package it is built or tested with must allow that: the
//! licence expression of each package of `cargo metadata` (normal, build and dev dependencies,
//! for every platform) must be satisfiable from [`ALLOWED`]. `A OR B` needs one allowed side,
//! `A AND B` both, `A/B` is the old spelling of `A OR B`, and `X WITH exception` is allowed when
//! `X` is (an exception only adds permissions). A package with no licence expression fails,
//! unless it is one of this workspace's own.

#[path = "common/metadata.rs"]
mod metadata;

use metadata::{metadata, Json, JsonReader};
use std::path::Path;

/// Licences a GPL-3.0-or-later program may include or link; besides these, every `LGPL-*`.
const ALLOWED: &[&str] = &[
    "MIT",
    "MIT-0",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "ISC",
    "Zlib",
    "BSL-1.0",
    "Unicode-DFS-2016",
    "Unicode-3.0",
    "Unlicense",
    "CC0-1.0",
    "0BSD",
    "MPL-2.0",
    "GPL-2.0-or-later",
    "GPL-2.0+",
    "GPL-3.0",
    "GPL-3.0-only",
    "GPL-3.0-or-later",
    "GPL-3.0+",
];

// --- licence expressions ---------------------------------------------------------------------

#[derive(Debug, PartialEq)]
enum Token {
    Open,
    Close,
    Or,
    And,
    With,
    Id(String),
}

fn tokens(expr: &str) -> Vec<Token> {
    let spaced = expr.replace('(', " ( ").replace(')', " ) ").replace('/', " / ");
    spaced
        .split_whitespace()
        .map(|w| match w {
            "(" => Token::Open,
            ")" => Token::Close,
            "/" => Token::Or,
            _ if w.eq_ignore_ascii_case("OR") => Token::Or,
            _ if w.eq_ignore_ascii_case("AND") => Token::And,
            _ if w.eq_ignore_ascii_case("WITH") => Token::With,
            _ => Token::Id(w.to_string()),
        })
        .collect()
}

/// Recursive descent over `or := and (OR and)*`, `and := with (AND with)*`,
/// `with := atom (WITH id)?`, `atom := id | ( or )`; each level gives whether it is allowed.
struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn next(&mut self) -> Option<&Token> {
        let t = self.tokens.get(self.at);
        self.at += 1;
        t
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn or(&mut self) -> Result<bool, String> {
        let mut ok = self.and()?;
        while self.peek() == Some(&Token::Or) {
            self.at += 1;
            ok |= self.and()?;
        }
        Ok(ok)
    }

    fn and(&mut self) -> Result<bool, String> {
        let mut ok = self.with()?;
        while self.peek() == Some(&Token::And) {
            self.at += 1;
            ok &= self.with()?;
        }
        Ok(ok)
    }

    fn with(&mut self) -> Result<bool, String> {
        let ok = self.atom()?;
        if self.peek() == Some(&Token::With) {
            self.at += 1;
            match self.next() {
                Some(Token::Id(_)) => {}
                other => return Err(format!("an exception name expected after WITH, found {other:?}")),
            }
        }
        Ok(ok)
    }

    fn atom(&mut self) -> Result<bool, String> {
        match self.next() {
            // SPDX identifiers match without regard to case.
            Some(Token::Id(id)) => Ok(ALLOWED.iter().any(|a| a.eq_ignore_ascii_case(id))
                || id.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("LGPL-"))),
            Some(Token::Open) => {
                let ok = self.or()?;
                match self.next() {
                    Some(Token::Close) => Ok(ok),
                    other => Err(format!("')' expected, found {other:?}")),
                }
            }
            other => Err(format!("a licence expected, found {other:?}")),
        }
    }
}

/// Whether `expr` can be satisfied with [`ALLOWED`] licences; `Err` if it cannot be read.
fn allowed(expr: &str) -> Result<bool, String> {
    let mut p = Parser { tokens: tokens(expr), at: 0 };
    let ok = p.or()?;
    match p.peek() {
        None => Ok(ok),
        Some(t) => Err(format!("unexpected {t:?}")),
    }
}

// --- the check -------------------------------------------------------------------------------

/// What is wrong with the licences of the packages of a `cargo metadata` output.
fn problems(metadata: &str) -> Vec<String> {
    let json = match JsonReader::parse(metadata) {
        Ok(j) => j,
        Err(e) => return vec![format!("cargo metadata's output cannot be read: {e}")],
    };
    let own: Vec<&str> =
        json.get("workspace_members").map_or(&[][..], Json::array).iter().filter_map(Json::str).collect();
    let packages = json.get("packages").map_or(&[][..], Json::array);
    if packages.is_empty() {
        return vec!["cargo metadata lists no packages".into()];
    }
    let mut found = Vec::new();
    for p in packages {
        let field = |k: &str| p.get(k).and_then(Json::str).unwrap_or("");
        let name = format!("{} {}", field("name"), field("version"));
        match p.get("license") {
            Some(Json::Str(expr)) => match allowed(expr) {
                Ok(true) => {}
                Ok(false) => found.push(format!("{name}: '{expr}' allows no licence compatible with GPL-3.0-or-later")),
                Err(e) => found.push(format!("{name}: '{expr}' cannot be read: {e}")),
            },
            _ if own.contains(&field("id")) => {}
            _ => found.push(format!(
                "{name}: no licence expression (license-file: {:?}); read it and decide",
                p.get("license_file").and_then(Json::str)
            )),
        }
    }
    found
}

#[test]
fn every_dependency_has_a_licence_compatible_with_gpl3() {
    let text = metadata();
    let found = problems(&text);
    assert!(found.is_empty(), "{} packages:\n{}", found.len(), found.join("\n"));
    // The check saw the whole graph: the direct dependencies and dev-dependencies are there.
    let json = JsonReader::parse(&text).expect("parsed above");
    let names: Vec<&str> =
        json.get("packages").map_or(&[][..], Json::array).iter().filter_map(|p| p.get("name")?.str()).collect();
    for dep in ["shakmaty", "shakmaty-syzygy", "clap", "criterion", "proptest", "rand"] {
        assert!(names.contains(&dep), "{dep} missing from cargo metadata's packages");
    }
}

#[test]
fn ox88_is_gpl3_or_later_with_the_licence_text() {
    let text = metadata();
    let json = JsonReader::parse(&text).expect("cargo metadata's output");
    for name in ["ox88", "ox88-mailbox"] {
        let p = json
            .get("packages")
            .map_or(&[][..], Json::array)
            .iter()
            .find(|p| {
                p.get("name").and_then(Json::str) == Some(name)
                    && p.get("source").is_some_and(|s| matches!(s, Json::Null))
            })
            .unwrap_or_else(|| panic!("{name} is not in cargo metadata"));
        assert_eq!(p.get("license").and_then(Json::str), Some("GPL-3.0-or-later"), "{name}");
    }
    let copying = Path::new(env!("CARGO_MANIFEST_DIR")).join("COPYING");
    let licence = std::fs::read_to_string(&copying).unwrap_or_else(|e| panic!("{}: {e}", copying.display()));
    let mut lines = licence.lines().map(str::trim).filter(|l| !l.is_empty());
    assert_eq!(lines.next(), Some("GNU GENERAL PUBLIC LICENSE"), "COPYING");
    assert_eq!(lines.next(), Some("Version 3, 29 June 2007"), "COPYING");
    assert!(licence.contains("TERMS AND CONDITIONS") && licence.len() > 30_000, "COPYING is not the whole GPL v3");
}

/// The evaluator and the package check can fail.
#[test]
fn the_licence_check_rejects_what_it_must() {
    for expr in [
        "MIT",
        "MIT OR Apache-2.0",
        "MIT/Apache-2.0",
        "Apache-2.0 / MIT",
        "(MIT OR Apache-2.0) AND Unicode-3.0",
        "Apache-2.0 WITH LLVM-exception OR Apache-2.0 OR MIT",
        "Apache-2.0 WITH LLVM-exception",
        "GPL-2.0-only OR MIT",
        "GPL-3.0+",
        "MIT OR Apache-2.0 OR LGPL-2.1-or-later",
        "LGPL-3.0-only AND Zlib",
        "mit or apache-2.0",
    ] {
        assert_eq!(allowed(expr), Ok(true), "{expr}");
    }
    for expr in [
        "GPL-2.0-only",
        "GPL-2.0",
        "AGPL-3.0-only",
        "SSPL-1.0",
        "LicenseRef-Proprietary",
        "MIT AND GPL-2.0-only",
        "(MIT OR Apache-2.0) AND CC-BY-NC-4.0",
        "GPL-2.0-only WITH Classpath-exception-2.0",
        "GPL-2.0-only / AGPL-3.0-or-later",
    ] {
        assert_eq!(allowed(expr), Ok(false), "{expr}");
    }
    for expr in ["", "MIT OR", "(MIT", "MIT)", "MIT Apache-2.0", "AND MIT", "MIT WITH", "()"] {
        assert!(allowed(expr).is_err(), "{expr:?} should not be readable");
    }

    let meta = |packages: &str| {
        format!(r#"{{"packages":[{packages}],"workspace_members":["path+file:///x#own@1.0.0"],"version":1}}"#)
    };
    let own_without = r#"{"name":"own","version":"1.0.0","id":"path+file:///x#own@1.0.0","license":null,"license_file":"COPYING","source":null}"#;
    let ok = r#"{"name":"a","version":"1.0.0","id":"registry+x#a@1.0.0","license":"MIT OR Apache-2.0","license_file":null,"source":"registry+x"}"#;
    let gpl2 = r#"{"name":"b","version":"2.0.0","id":"registry+x#b@2.0.0","license":"GPL-2.0-only","license_file":null,"source":"registry+x"}"#;
    let file_only = r#"{"name":"c","version":"0.1.0","id":"registry+x#c@0.1.0","license":null,"license_file":"LICENSE","source":"registry+x"}"#;
    let escaped = r#"{"name":"d\u00e9\"x","version":"1.0.0","id":"registry+x#d@1.0.0","license":"(MIT \/ Zlib)","license_file":null,"source":"registry+x"}"#;
    assert_eq!(problems(&meta(&[own_without, ok, escaped].join(","))), Vec::<String>::new());
    let found = problems(&meta(&[own_without, ok, gpl2, file_only].join(",")));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("b 2.0.0: 'GPL-2.0-only'"), "{found:?}");
    assert!(found[1].starts_with("c 0.1.0: no licence expression"), "{found:?}");
    assert_eq!(problems(&meta("")).len(), 1, "no packages is a failure");
    assert_eq!(problems(r#"{"packages":[{"name":"a""#).len(), 1, "unreadable output is a failure");
}
