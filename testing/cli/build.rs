//! The version line of `baton --version`: the crate's version and the commit it was built from,
//! `0.1.0 (1a2b3c4d5 2026-12-07)`, handed to the crate as `BATON_VERSION`.
//!
//! The commit comes from the first of: the variable `BATON_COMMIT` (a build from a source archive
//! that knows its commit); `.cargo_vcs_info.json`, which `cargo package` writes into a crate from a
//! git checkout (a build of the crate from crates.io); git, in a checkout. Without any of them (a
//! source archive without git) the line is the version alone.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=BATON_COMMIT");
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&dir);
    let commit = std::env::var("BATON_COMMIT")
        .ok()
        .filter(|commit| !commit.trim().is_empty())
        .or_else(|| packaged_commit(dir))
        .or_else(|| git_commit(dir));
    let line = match commit {
        Some(commit) => format!("{version} ({})", commit.trim()),
        None => version,
    };
    println!("cargo:rustc-env=BATON_VERSION={line}");
}

/// The commit `cargo package` recorded: `{"git": {"sha1": "..."}, ...}`, shortened as git does.
fn packaged_commit(dir: &Path) -> Option<String> {
    let info = dir.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(info).ok()?;
    let start = text.find("\"sha1\"")?;
    let sha1: String = text[start + 6..]
        .chars()
        .skip_while(|c| !c.is_ascii_hexdigit())
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha1.len() == 40).then(|| sha1[..9].to_string())
}

/// HEAD's short hash and commit date, where the sources are a git checkout and git is installed;
/// cargo runs this again when HEAD moves (a commit, a checkout).
fn git_commit(dir: &Path) -> Option<String> {
    let head = git(dir, &["rev-parse", "--git-path", "HEAD"])?;
    println!("cargo:rerun-if-changed={}", dir.join(head.trim()).display());
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        for path in [branch.trim(), "packed-refs"] {
            if let Some(file) = git(dir, &["rev-parse", "--git-path", path]) {
                println!("cargo:rerun-if-changed={}", dir.join(file.trim()).display());
            }
        }
    }
    git(dir, &["log", "-1", "--format=%h %cs", "--abbrev=9"]).filter(|line| !line.trim().is_empty())
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}
