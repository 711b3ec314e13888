//! `baton coverage report --input DIR [--html DIR] [--json FILE]`: merges the coverage files of
//! many test runs (`baton test --coverage-dir`, or `BATON_COVERAGE_DIR` for Rust tests) and
//! prints the text report.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::coverage::{CoverageReport, merge_dir};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Merges the coverage files of a folder and prints the report.
    Report(ReportArgs),
}

#[derive(Debug, clap::Args)]
struct ReportArgs {
    /// The folder of coverage files (*.json).
    #[arg(long, value_name = "DIR")]
    input: PathBuf,
    /// Also write the HTML report (the processes drawn, covered parts marked) into this folder.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Also write the merged coverage file here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

pub fn run(args: &Args) -> ExitCode {
    let Command::Report(args) = &args.command;
    if let Some(dir) = &args.html {
        // The HTML report (SVG from BPMN DI) is its own module; until it is in this build, say
        // so before doing anything.
        eprintln!(
            "baton coverage report: --html {}: the HTML report is not available in this build yet; use the text report or --json",
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    let merged = match merge_dir(&args.input) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("baton coverage report: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &args.json
        && let Err(e) = std::fs::write(path, merged.to_json())
    {
        eprintln!(
            "baton coverage report: cannot write {}: {e}",
            path.display()
        );
        return ExitCode::FAILURE;
    }
    print!("{}", CoverageReport::from_data(&merged.processes));
    println!(
        "({} test{} merged)",
        merged.tests.len(),
        if merged.tests.len() == 1 { "" } else { "s" }
    );
    ExitCode::SUCCESS
}
