//! Embeds the commit a binary was built from, so that `ox88 --version` and the self-play
//! data's descriptions tell builds apart. Outside a git checkout it is "unknown".

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

fn main() {
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
