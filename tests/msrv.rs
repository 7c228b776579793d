//! The minimum Rust version that `Cargo.toml` declares (`rust-version`) is the true one: no
//! package of `Cargo.lock` (normal, build and dev dependencies, every platform) declares a
//! newer one, the mailbox crate declares the same, and the README names it.
//!
//! What this cannot see: the code's own use of the language and the standard library. That
//! needs 1.82 (`Option::is_none_or`), below what the lock needs (1.88, `pest` through
//! `vampirc-uci`, and `proptest`); clippy's `incompatible_msrv` lint (`cargo clippy`) flags a
//! standard-library item newer than `rust-version`. Nor is the crate built here with the
//! declared toolchain itself: the check reads what each package declares.

#[path = "common/metadata.rs"]
mod metadata;

use metadata::{metadata, Json, JsonReader};
use std::path::Path;

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
    let json = JsonReader::parse(metadata).map_err(|e| format!("cargo metadata's output cannot be read: {e}"))?;
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
