//! Shared helpers: baton-testing's test BPMN files, the shared corpus and temporary folders.

use std::path::{Path, PathBuf};

/// A BPMN file of baton-testing's `tests/it/bpmn`.
pub fn bpmn(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/it/bpmn")
        .join(name)
}

/// `../shared/corpus` next to the repository (from a git worktree under `wt/`, one level
/// further up), if present.
pub fn shared_corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|p| root.join(p))
        .find(|dir| dir.is_dir())
}

/// A fresh temporary folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baton-cpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
