//! The minimum Rust version that `Cargo.toml` declares (`rust-version`) is the true one: no
//! package of `Cargo.lock` (normal, build and dev dependencies, every platform) declares a
//! newer one, the mailbox crate declares the same, and the README names it.
//!
//! What this cannot see: the code's own use of the language and the standard library. That
//! needs 1.82 (`Option::is_none_or`), below what the lock needs (1.88, `pest` through
//! `vampirc-uci`, and `proptest`); clippy's `incompatible_msrv` lint (`cargo clippy`) flags a
//! standard-library item newer than `rust-version`. Nor is the crate built here with the
//! declared toolchain itself: the check reads what each package declares.

use std::path::Path;
use std::process::Command;

// --- a reader for cargo metadata's JSON -------------------------------------------------------

#[derive(Debug, PartialEq)]
enum Json {
    Null,
    /// A number or a boolean: nothing here reads them.
    Scalar,
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    fn array(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }
}

/// Reads one JSON text whole.
fn parse(text: &str) -> Result<Json, String> {
    let mut at = 0;
    let v = value(text.as_bytes(), &mut at)?;
    skip_space(text.as_bytes(), &mut at);
    if at == text.len() {
        Ok(v)
    } else {
        Err(format!("trailing text at byte {at}"))
    }
}

fn skip_space(b: &[u8], at: &mut usize) {
    while b.get(*at).is_some_and(u8::is_ascii_whitespace) {
        *at += 1;
    }
}

/// The items of an array or the fields of an object, after its opening bracket, up to `close`.
fn items<T>(
    b: &[u8],
    at: &mut usize,
    close: u8,
    mut item: impl FnMut(&[u8], &mut usize) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    skip_space(b, at);
    if b.get(*at) == Some(&close) {
        *at += 1;
        return Ok(out);
    }
    loop {
        out.push(item(b, at)?);
        skip_space(b, at);
        match b.get(*at) {
            Some(b',') => *at += 1,
            Some(c) if *c == close => {
                *at += 1;
                return Ok(out);
            }
            _ => return Err(format!("',' or '{}' expected at byte {at}", close as char)),
        }
    }
}

fn value(b: &[u8], at: &mut usize) -> Result<Json, String> {
    skip_space(b, at);
    let start = *at;
    match b.get(*at) {
        Some(b'{') => {
            *at += 1;
            let field = |b: &[u8], at: &mut usize| {
                skip_space(b, at);
                let key = string(b, at)?;
                skip_space(b, at);
                if b.get(*at) != Some(&b':') {
                    return Err(format!("':' expected at byte {at}"));
                }
                *at += 1;
                Ok((key, value(b, at)?))
            };
            items(b, at, b'}', field).map(Json::Object)
        }
        Some(b'[') => {
            *at += 1;
            items(b, at, b']', value).map(Json::Array)
        }
        Some(b'"') => string(b, at).map(Json::Str),
        Some(_) => {
            while b.get(*at).is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c)) {
                *at += 1;
            }
            match &b[start..*at] {
                b"null" => Ok(Json::Null),
                b"true" | b"false" => Ok(Json::Scalar),
                w if !w.is_empty() && (w[0] == b'-' || w[0].is_ascii_digit()) => Ok(Json::Scalar),
                _ => Err(format!("a value expected at byte {start}")),
            }
        }
        None => Err("a value expected at the end".into()),
    }
}

/// A string; `\u` escapes outside the basic plane (which no field read here holds) become U+FFFD.
fn string(b: &[u8], at: &mut usize) -> Result<String, String> {
    if b.get(*at) != Some(&b'"') {
        return Err(format!("a string expected at byte {at}"));
    }
    *at += 1;
    let mut out = Vec::new();
    loop {
        let c = *b.get(*at).ok_or("an unterminated string")?;
        *at += 1;
        match c {
            b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
            b'\\' => {
                let e = *b.get(*at).ok_or("an unterminated escape")?;
                *at += 1;
                let ch = match e {
                    b'"' | b'\\' | b'/' => e as char,
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let hex = b.get(*at..*at + 4).ok_or("a short \\u escape")?;
                        *at += 4;
                        let code = std::str::from_utf8(hex).ok().and_then(|h| u32::from_str_radix(h, 16).ok());
                        code.and_then(char::from_u32).unwrap_or('\u{fffd}')
                    }
                    _ => return Err(format!("a bad escape at byte {at}")),
                };
                out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
            }
            _ => out.push(c),
        }
    }
}

// --- the check -------------------------------------------------------------------------------

/// `1.85`, `1.85.0` as (major, minor, patch); a missing part is 0.
fn version(text: &str) -> Result<(u32, u32, u32), String> {
    let mut parts = text.split('.').map(|p| p.parse::<u32>().map_err(|e| format!("'{text}': {e}")));
    let mut next = |required: bool| match parts.next() {
        Some(p) => p,
        None if required => Err(format!("'{text}' is no Rust version")),
        None => Ok(0),
    };
    let v = (next(true)?, next(true)?, next(false)?);
    match parts.next() {
        None => Ok(v),
        Some(_) => Err(format!("'{text}' has more than three parts")),
    }
}

/// The workspace's declared minimum (its members must agree) and every other package that
/// declares a newer one, as `name version needs X`.
fn newer_than_declared(metadata: &str) -> Result<(String, Vec<String>), String> {
    let json = parse(metadata).map_err(|e| format!("cargo metadata's output cannot be read: {e}"))?;
    let own: Vec<&str> =
        json.get("workspace_members").map_or(&[][..], Json::array).iter().filter_map(Json::str).collect();
    let packages = json.get("packages").map_or(&[][..], Json::array);
    let field = |p: &Json, k: &str| p.get(k).and_then(Json::str).unwrap_or("").to_string();
    let mut declared: Option<String> = None;
    for p in packages.iter().filter(|p| own.contains(&field(p, "id").as_str())) {
        let v = field(p, "rust_version");
        match &declared {
            _ if v.is_empty() => return Err(format!("{} declares no rust-version", field(p, "name"))),
            Some(d) if *d != v => {
                return Err(format!("{} declares rust-version {v}, the workspace {d}", field(p, "name")))
            }
            _ => declared = Some(v),
        }
    }
    let declared = declared.ok_or("cargo metadata lists no workspace member")?;
    let floor = version(&declared)?;
    let mut newer = Vec::new();
    for p in packages.iter().filter(|p| !own.contains(&field(p, "id").as_str())) {
        // A package that declares nothing promises nothing to check against.
        let Some(needs) = p.get("rust_version").and_then(Json::str) else { continue };
        if version(needs)? > floor {
            newer.push(format!("{} {} needs {needs}", field(p, "name"), field(p, "version")));
        }
    }
    if packages.len() <= own.len() {
        return Err("cargo metadata lists no dependency".into());
    }
    Ok((declared, newer))
}

/// `cargo metadata` of the locked graph: offline when every package is in the local cache,
/// else fetched (a build downloads only the host's packages, not the other platforms').
fn metadata() -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let run = |offline: bool| {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1", "--locked", "--manifest-path"]).arg(&manifest);
        if offline {
            cmd.arg("--offline");
        }
        cmd.output().unwrap_or_else(|e| panic!("cannot run {cargo}: {e}"))
    };
    let mut out = run(true);
    if !out.status.success() {
        let first = String::from_utf8_lossy(&out.stderr).into_owned();
        out = run(false);
        assert!(
            out.status.success(),
            "cargo metadata failed offline:\n{first}\nand online:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8(out.stdout).expect("cargo metadata writes UTF-8")
}

#[test]
fn no_locked_package_needs_a_newer_rust_than_declared() {
    let (declared, newer) = newer_than_declared(&metadata()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        newer.is_empty(),
        "Cargo.toml declares rust-version {declared}, but {} locked packages need more:\n{}",
        newer.len(),
        newer.join("\n")
    );
}

#[test]
fn the_readme_names_the_declared_version() {
    let (declared, _) = newer_than_declared(&metadata()).unwrap_or_else(|e| panic!("{e}"));
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README");
    let named: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("Stable Rust ≥ "))
        .map(|rest| rest.split(|c: char| !c.is_ascii_digit() && c != '.').next().unwrap_or("").trim_end_matches('.'))
        .collect();
    assert_eq!(named, [declared.as_str()], "README.md's 'Stable Rust ≥ X' lines against Cargo.toml's rust-version");
}

/// A tiny graph in cargo metadata's shape: the workspace and packages that declare a version
/// or none.
fn graph(own: &str, mailbox: &str, others: &[(&str, Option<&str>)]) -> String {
    let package = |name: &str, id: &str, rv: Option<&str>| {
        let rv = rv.map_or("null".to_string(), |v| format!("\"{v}\""));
        format!(
            r#"{{"name":"{name}","version":"0.1.0","id":"{id}","dependencies":[{{"name":"x","req":"^1"}}],"rust_version":{rv}}}"#
        )
    };
    let mut packages = vec![package("ox88", "path+ox88", Some(own)), package("mailbox", "path+mailbox", Some(mailbox))];
    packages.extend(others.iter().map(|(name, rv)| package(name, &format!("registry+{name}"), *rv)));
    format!(
        r#"{{"packages":[{}],"workspace_members":["path+ox88","path+mailbox"],"resolve":null,"version":1}}"#,
        packages.join(",")
    )
}

#[test]
fn the_check_rejects_what_it_must() {
    // Older (`1.9` is older than `1.60`, though it sorts after it as text), equal, none.
    let others = [("old", Some("1.56")), ("nine", Some("1.9")), ("same", Some("1.60.0")), ("none", None)];
    assert_eq!(newer_than_declared(&graph("1.60", "1.60", &others)), Ok(("1.60".into(), vec![])));
    // Newer (`1.100` sorts before `1.60` as text), newer by a patch release.
    let with_newer = [("old", Some("1.56")), ("hundred", Some("1.100")), ("patch", Some("1.60.1")), ("none", None)];
    assert_eq!(
        newer_than_declared(&graph("1.60", "1.60", &with_newer)),
        Ok(("1.60".into(), vec!["hundred 0.1.0 needs 1.100".into(), "patch 0.1.0 needs 1.60.1".into()]))
    );
    assert!(newer_than_declared(&graph("1.88", "1.79", &others)).is_err(), "the members disagree");
    assert!(newer_than_declared(&graph("1.88", "1.88", &[("bad", Some("one.two"))])).is_err());
    assert!(newer_than_declared(&graph("1.88", "1.88", &[])).is_err(), "no dependencies at all");
    assert!(newer_than_declared("{\"packages\": [").is_err());
}
