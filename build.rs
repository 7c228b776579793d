//! Embeds the commit a binary was built from, so that `ox88 --version` and the self-play
//! data's descriptions tell builds apart. Outside a git checkout it is "unknown".
//!
//! `OX88_EVALFILE` (what `make EVALFILE=...` sets) names a network file to embed instead of
//! the default one in `nets/`: a relative path is taken from the package's root. Its shape
//! is checked when `src/nnue.rs` is compiled, where a bad file stops the build.

use std::process::Command;

/// What `git ARGS` prints, trimmed; `None` outside a checkout or without git.
fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Makes `src/nnue.rs` embed the file of `OX88_EVALFILE`, if it is set and not empty.
fn evalfile() {
    println!("cargo:rustc-check-cfg=cfg(ox88_evalfile)");
    println!("cargo:rerun-if-env-changed=OX88_EVALFILE");
    let Some(path) = std::env::var_os("OX88_EVALFILE").filter(|p| !p.is_empty()) else { return };
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from).unwrap_or_default();
    let path = root.join(path);
    if let Err(e) = std::fs::metadata(&path) {
        eprintln!("OX88_EVALFILE: cannot read the network file {}: {e}", path.display());
        std::process::exit(1);
    }
    println!("cargo:rerun-if-changed={}", path.display());
    println!("cargo:rustc-env=OX88_EVALFILE_PATH={}", path.display());
    println!("cargo:rustc-cfg=ox88_evalfile");
}

fn main() {
    evalfile();
    let commit = git(&["rev-parse", "--short=7", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=OX88_COMMIT={commit}");
    // HEAD names a branch; the branch's ref changes with each commit. Git says where they
    // are: in a worktree `.git` is a file, HEAD is the worktree's own and the refs are shared.
    let mut watched = Vec::new();
    watched.extend(git(&["rev-parse", "--git-path", "HEAD"]));
    if let Some(common) = git(&["rev-parse", "--git-common-dir"]) {
        watched.push(format!("{common}/refs/heads"));
        watched.push(format!("{common}/packed-refs"));
    }
    for path in watched {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
