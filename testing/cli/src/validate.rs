//! `baton validate FILE...`: each file is deployed on its own, as Zeebe would deploy it.
//!
//! Prints `OK <file> (1 process)`, `OK <file> (<n> processes)` for a file that deploys, or its diagnostics as
//! `<file>:<line>:<col>: error[<rule-id>] <element-id>: <message>`. Exits 0 only when every file
//! deploys. A directory stands for every `.bpmn` file below it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use baton_engine::deploy::{self, Resource};
use baton_engine::model::MAX_RESOURCE_BYTES;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// BPMN files, or directories searched for `.bpmn` files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub fn run(args: &Args) -> ExitCode {
    let mut files = Vec::new();
    for path in &args.files {
        if path.is_dir() {
            let before = files.len();
            bpmn_files(path, &mut files);
            if files.len() == before {
                outln!("{}: error: no .bpmn file in this directory", path.display());
                return ExitCode::FAILURE;
            }
        } else {
            files.push(path.clone());
        }
    }
    let mut all_deploy = true;
    for file in &files {
        all_deploy &= validate(file);
    }
    if all_deploy {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints the outcome for one file; `true` when it deploys.
fn validate(path: &Path) -> bool {
    let name = path.display().to_string();
    let content = match read_bounded(path) {
        Ok(Content::Bytes(content)) => content,
        Ok(Content::TooLarge(size)) => {
            outln!("{}", deploy::too_large(&name, size));
            return false;
        }
        Err(error) => {
            outln!("{name}: error: cannot read the file: {error}");
            return false;
        }
    };
    match deploy::check(&[Resource::new(name.clone(), content)]) {
        Ok(deployed) => {
            let processes: usize = deployed
                .iter()
                .map(|resource| resource.executable_processes().count())
                .sum();
            let noun = if processes == 1 {
                "process"
            } else {
                "processes"
            };
            outln!("OK {name} ({processes} {noun})");
            true
        }
        Err(diagnostics) => {
            outln!("{diagnostics}");
            false
        }
    }
}

enum Content {
    Bytes(Vec<u8>),
    TooLarge(u64),
}

/// Reads at most one byte more than a resource may have, so a huge file costs no memory.
fn read_bounded(path: &Path) -> std::io::Result<Content> {
    let file = std::fs::File::open(path)?;
    let limit = MAX_RESOURCE_BYTES as u64;
    let mut content = Vec::new();
    file.take(limit + 1).read_to_end(&mut content)?;
    if content.len() as u64 > limit {
        let size = std::fs::metadata(path).map_or(limit + 1, |m| m.len());
        return Ok(Content::TooLarge(size));
    }
    Ok(Content::Bytes(content))
}

fn bpmn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            bpmn_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "bpmn") {
            out.push(path);
        }
    }
}
