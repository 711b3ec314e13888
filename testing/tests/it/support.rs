//! Shared helpers: the test BPMN files, the shared corpus, temporary folders and capturing a
//! panic's message.

use std::path::{Path, PathBuf};

/// A BPMN file of `tests/it/bpmn`.
pub fn bpmn(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/bpmn")
        .join(name)
}

/// `../shared/corpus` next to the repository (from a git worktree under `wt/`, one level
/// further up), if present.
pub fn shared_corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|p| root.join(p))
        .find(|dir| dir.is_dir())
}

/// Runs `f`, which must panic, and returns the panic message.
#[track_caller]
pub fn panic_message(f: impl FnOnce()) -> String {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    match result {
        Ok(()) => panic!("expected a panic"),
        Err(e) => match e.downcast::<String>() {
            Ok(s) => *s,
            Err(e) => e
                .downcast::<&str>()
                .map(|s| s.to_string())
                .unwrap_or_default(),
        },
    }
}

/// A fresh temporary folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baton-cpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
