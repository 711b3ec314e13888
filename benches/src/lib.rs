//! Benchmarks of baton live in `benches/`; run them with `cargo bench -p baton-benches`.
//!
//! This library holds what several benchmarks share: the workloads of
//! `../shared/bench/gen_workloads.py`, generated once per run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `../shared` next to the repository (from a git worktree under `wt/`, one level further up).
pub fn shared_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    ["../shared", "../../shared"]
        .iter()
        .map(|p| root.join(p))
        .find(|dir| dir.join("bench/gen_workloads.py").is_file())
}

/// Generates the Zeebe-dialect workloads (`chain10.bpmn`, ..., `wide1000.bpmn`) into a fresh
/// temporary directory and returns it, or says why it cannot (no ../shared, no python3).
pub fn generate_workloads() -> Result<PathBuf, String> {
    let shared = shared_dir().ok_or("../shared is absent")?;
    let dir = std::env::temp_dir().join(format!("baton-bench-workloads-{}", std::process::id()));
    let output = Command::new("python3")
        .arg(shared.join("bench/gen_workloads.py"))
        .arg(&dir)
        .args(["--dialect", "zeebe"])
        .output()
        .map_err(|error| format!("python3 could not run: {error}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(dir)
}

/// The floor under BPMN parsing: quick-xml's reader (the one the engine's XML tree is built
/// from) reading every event of `text` and every attribute value; `trim` skips white space before
/// markup, as the parser does beside child elements. Returns a count so the work is not optimized away.
pub fn quick_xml_floor(text: &str, trim: bool) -> usize {
    use quick_xml::events::Event;
    let mut reader = quick_xml::reader::Reader::from_str(text);
    reader.config_mut().trim_text_start = trim;
    let mut count = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Eof) | Err(_) => return count,
            Ok(Event::Start(e) | Event::Empty(e)) => {
                count += e
                    .attributes()
                    .flatten()
                    .map(|a| a.value.len())
                    .sum::<usize>();
            }
            Ok(_) => count += 1,
        }
    }
}

pub mod feel;
pub mod workloads;
