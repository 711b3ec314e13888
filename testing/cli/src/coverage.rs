//! `baton coverage report --input DIR [--html DIR] [--json FILE] [--cpt-json FILE]`: merges the
//! coverage files of many test runs (`baton test --coverage-dir`, or `BATON_COVERAGE_DIR` for
//! Rust tests), prints the text report and writes the HTML report (`DIR/index.html`, see
//! `coverage::html`) and CPT's coverage report JSON (each file one run, see
//! `coverage::cpt_json`). On a terminal, a status line counts the files read when reading takes
//! long.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use baton_testing::coverage::{CoverageReport, cpt_json, html, merge, read_dir_with};

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
    /// Also write the HTML report (the processes drawn, covered parts marked) into this folder,
    /// as index.html.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Also write the merged coverage file here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also write the coverage as Camunda Process Test's coverage report JSON here (each
    /// coverage file one run), for Camunda's coverage viewer.
    #[arg(long, value_name = "FILE")]
    cpt_json: Option<PathBuf>,
}

/// On a terminal, after this long, a status line counts the files read.
const PROGRESS_AFTER: Duration = Duration::from_millis(300);

pub fn run(args: &Args) -> ExitCode {
    let Command::Report(args) = &args.command;
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut shown = false;
    let files = read_dir_with(&args.input, |read, total| {
        // Every 100th file and the last: a line per file would cost more than reading it.
        if terminal && start.elapsed() >= PROGRESS_AFTER && (read % 100 == 0 || read == total) {
            eprint!("\r\x1b[2Kreading coverage files: {read}/{total}");
            let _ = std::io::stderr().flush();
            shown = true;
        }
    });
    if shown {
        eprint!("\r\x1b[2K");
        let _ = std::io::stderr().flush();
    }
    let files = match files {
        Ok(f) => f,
        Err(e) => {
            eprintln!("baton coverage report: {e}");
            return ExitCode::FAILURE;
        }
    };
    let merged = merge(&files);
    if let Some(path) = &args.cpt_json
        && let Err(e) = cpt_json::write(path, &files)
    {
        eprintln!("baton coverage report: cannot write the CPT coverage report: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(path) = &args.json
        && let Err(e) = std::fs::write(path, merged.to_json())
    {
        eprintln!(
            "baton coverage report: cannot write {}: {e}",
            path.display()
        );
        return ExitCode::FAILURE;
    }
    let html = match &args.html {
        Some(dir) => match html::write_report(dir, &merged) {
            Ok(path) => Some(path),
            Err(e) => {
                eprintln!("baton coverage report: cannot write the HTML report: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    out!("{}", CoverageReport::from_file(&merged));
    outln!(
        "({} test{} merged)",
        merged.tests.len(),
        if merged.tests.len() == 1 { "" } else { "s" }
    );
    if let Some(path) = html {
        outln!("HTML report: {}", path.display());
    }
    ExitCode::SUCCESS
}
