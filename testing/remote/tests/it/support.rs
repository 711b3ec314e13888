//! A `baton serve` on a free port of 127.0.0.1, and running files against it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use baton_cpt::Report;
use baton_remote::{Auth, Client, RemoteOptions, run_remote};
use baton_serve::{ServeConfig, Server, ServerHandle};

pub fn serve() -> ServerHandle {
    Server::start(ServeConfig::default().port(0)).expect("baton serve starts")
}

pub fn client(server: &ServerHandle) -> Client {
    Client::new(&server.url(), None, Auth::None, Duration::from_secs(30))
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared CPT corpus, when this checkout has it beside it.
pub fn corpus() -> Option<PathBuf> {
    // Beside the checkout, or beside the folder of worktrees.
    let dir = root().join("../shared/corpus/cpt/cases");
    let outer = root().join("../../shared/corpus/cpt/cases");
    if dir.is_dir() {
        Some(dir)
    } else if outer.is_dir() {
        Some(outer)
    } else {
        eprintln!(
            "skipped: the shared CPT corpus ({}) is absent",
            dir.display()
        );
        None
    }
}

pub fn run(server: &ServerHandle, paths: &[PathBuf]) -> Report {
    let options = RemoteOptions {
        assert_timeout: Duration::from_secs(2),
        ..RemoteOptions::default()
    };
    run_remote(&client(server), paths, &options, &mut |_| {}).expect("the run starts")
}

/// Each case that did not pass, with why.
pub fn not_passed(report: &Report) -> Vec<String> {
    report
        .cases
        .iter()
        .filter(|c| !c.passed())
        .map(baton_cpt::text::case_text)
        .collect()
}
