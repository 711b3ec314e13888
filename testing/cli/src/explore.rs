//! `baton explore FILE`: explores what the model might do (see `baton_testing::explore`): the
//! exploration file's space searched, its invariants checked on every run, each violation
//! shrunk to its simplest trajectory. Prints the report; `--counterexamples DIR` writes each
//! counterexample as a CPT test file with its cassettes. `--shard K/N` explores one part of the
//! space and `--json` keeps it as a report file; `baton explore merge` merges the parts.
//! Exits 0 only when every invariant held and every goal was reached.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use baton_cpt::ExploreFile;
use baton_testing::explore::Report;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    merge: Option<Merge>,
    /// The exploration file (`*.explore.json`); the .bpmn/.dmn/.form files beside it are
    /// deployed.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// Explore part K of N of the space (1-based): the parts of a space split the same way on
    /// every machine; merge their `--json` reports with `baton explore merge`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Threads (default: one per core); the report is the same for any number.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Model calls per run (overrides the file's bound).
    #[arg(long, value_name = "N")]
    max_model_calls: Option<u32>,
    /// Stop after this many trajectories (overrides the file's bound).
    #[arg(long, value_name = "N")]
    max_trajectories: Option<u64>,
    /// Stop after this much wall time, e.g. PT30S (overrides the file's bound).
    #[arg(long, value_name = "DURATION")]
    time_limit: Option<String>,
    /// Write each counterexample (and each goal's witness) as `<name>.test.json` with its
    /// cassettes into this folder; copy them beside the BPMN to keep them as regression tests.
    #[arg(long, value_name = "DIR")]
    counterexamples: Option<PathBuf>,
    /// Write the coverage of every explored run as a coverage file into this folder (merge it
    /// with test runs' files: `baton coverage report --input DIR`).
    #[arg(long, value_name = "DIR")]
    coverage_dir: Option<PathBuf>,
    /// Write the coverage of every explored run as an HTML report into this folder.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Write the report as JSON to this file (`-` for standard output instead of the text).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum Merge {
    /// Merges the `--json` reports of the shards of one exploration into the whole report.
    Merge {
        /// The shards' report files.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
        /// Write the merged report as JSON to this file (`-`: standard output).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
}

pub(super) fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("\"{text}\" is not K/N (e.g. 2/4)"))?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\": K is not a number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\": N is not a number"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!(
            "shard {k}/{n} is out of range: give K/N with 1 <= K <= N"
        ));
    }
    Ok((k, n))
}

/// After this long, a terminal shows how far the search is.
const PROGRESS_AFTER: Duration = Duration::from_millis(500);

pub fn run(args: &Args) -> ExitCode {
    if let Some(Merge::Merge { reports, json }) = &args.merge {
        return merge(reports, json.as_ref());
    }
    let Some(path) = &args.file else {
        eprintln!("baton explore: give an exploration file (or `baton explore merge REPORT...`)");
        return ExitCode::from(2);
    };
    let file = match ExploreFile::read(path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("baton explore: {e}");
            return ExitCode::from(2);
        }
    };
    for warning in &file.warnings {
        eprintln!("baton explore: warning: {warning}");
    }
    let mut space = file.space.clone();
    if let Some((k, n)) = args.shard {
        space = space.shard(k, n);
    }
    if let Some(n) = args.threads {
        space = space.threads(n);
    }
    if let Some(n) = args.max_model_calls {
        space = space.max_model_calls(n);
    }
    if let Some(n) = args.max_trajectories {
        space = space.max_trajectories(n);
    }
    if let Some(limit) = &args.time_limit {
        match baton_testing::clock::parse_duration(limit) {
            Ok(ms) => {
                space = space.time_limit(Duration::from_millis(u64::try_from(ms).unwrap_or(0)));
            }
            Err(e) => {
                eprintln!("baton explore: --time-limit: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let counter = Arc::new(AtomicU64::new(0));
    space = space.count_trajectories_into(counter.clone());
    let done = Arc::new(AtomicBool::new(false));
    let bar = shows_progress(std::io::stderr().is_terminal(), std::env::var_os("CI"))
        .then(|| progress_bar(counter, done.clone()));
    let report = file.run(&space);
    done.store(true, Ordering::Relaxed);
    if let Some(bar) = bar {
        let _ = bar.join();
    }
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            eprintln!("baton explore: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &args.coverage_dir
        && let Err(e) = baton_testing::coverage::write_file(dir, &report.coverage_file)
    {
        eprintln!("baton explore: cannot write the coverage file: {e}");
        return ExitCode::from(2);
    }
    if let Some(dir) = &args.html {
        match baton_testing::coverage::html::write_report(dir, &report.coverage_file) {
            Ok(path) => eprintln!("wrote {}", path.display()),
            Err(e) => {
                eprintln!("baton explore: cannot write the HTML report: {e}");
                return ExitCode::from(2);
            }
        }
    }
    finish(
        &report,
        args.json.as_ref(),
        args.counterexamples.as_ref(),
        &file,
    )
}

/// Whether to show the progress bar: on a terminal, unless `CI` is set to anything but
/// `false` or `0` (a CI runner that gives its jobs a terminal still writes a log).
fn shows_progress(stderr_is_terminal: bool, ci: Option<std::ffi::OsString>) -> bool {
    stderr_is_terminal && ci.is_none_or(|v| v.is_empty() || v == "false" || v == "0")
}

/// A progress bar on stderr (a terminal only) once the search takes longer than a moment.
fn progress_bar(counter: Arc<AtomicU64>, done: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let start = std::time::Instant::now();
        let mut bar: Option<indicatif::ProgressBar> = None;
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if bar.is_none() && start.elapsed() >= PROGRESS_AFTER {
                let b = indicatif::ProgressBar::new_spinner();
                b.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{spinner} exploring: {pos} trajectories ({per_sec}, {elapsed})",
                    )
                    .expect("a valid template"),
                );
                bar = Some(b);
            }
            if let Some(b) = &bar {
                b.set_position(counter.load(Ordering::Relaxed));
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
    })
}

fn finish(
    report: &Report,
    json: Option<&PathBuf>,
    counterexamples: Option<&PathBuf>,
    file: &ExploreFile,
) -> ExitCode {
    if let Some(dir) = counterexamples {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("baton explore: cannot create {}: {e}", dir.display());
            return ExitCode::from(2);
        }
        let stem = file
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.trim_end_matches(".json").trim_end_matches(".explore"))
            .unwrap_or("explored")
            .to_string();
        for (i, check) in report.checks.iter().enumerate() {
            let Some(cx) = &check.counterexample else {
                continue;
            };
            let name = format!("{stem}-{}", i + 1);
            match cx.write_to(dir, &name) {
                Ok(written) => eprintln!("wrote {}", written.test_file.display()),
                Err(e) => eprintln!("baton explore: {}: not written: {e}", check.invariant),
            }
        }
    }
    match json {
        Some(path) if path.as_os_str() == "-" => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&report.to_json()).expect("JSON")
            );
        }
        Some(path) => {
            let text = serde_json::to_string_pretty(&report.to_json()).expect("JSON") + "\n";
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("baton explore: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
            outln!("{report}");
        }
        None => outln!("{report}"),
    }
    if report.check().is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The most bytes a shard's report file may have (its states' fingerprints make it large).
const MAX_REPORT_BYTES: u64 = 1 << 30;

/// A shard's report file, parsed as it is read: what is not JSON (`/dev/zero`) fails at its
/// first byte, and no file is read past the bound.
fn read_report(path: &std::path::Path) -> Result<Report, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    if file.metadata().is_ok_and(|m| m.len() > MAX_REPORT_BYTES) {
        return Err(format!(
            "the file has more than the {MAX_REPORT_BYTES} bytes a report may have"
        ));
    }
    let reader = std::io::BufReader::new(file.take(MAX_REPORT_BYTES));
    let value: serde_json::Value =
        serde_json::from_reader(reader).map_err(|e| format!("not JSON: {e}"))?;
    Report::from_json(&value).map_err(|e| e.to_string())
}

fn merge(paths: &[PathBuf], json: Option<&PathBuf>) -> ExitCode {
    let mut reports = Vec::new();
    for path in paths {
        let read = read_report(path);
        match read {
            Ok(report) => reports.push(report),
            Err(e) => {
                eprintln!("baton explore merge: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    let merged = match Report::merge(reports) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("baton explore merge: {e}");
            return ExitCode::from(2);
        }
    };
    match json {
        Some(path) if path.as_os_str() == "-" => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&merged.to_json()).expect("JSON")
            );
        }
        Some(path) => {
            let text = serde_json::to_string_pretty(&merged.to_json()).expect("JSON") + "\n";
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("baton explore merge: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
            outln!("{merged}");
        }
        None => outln!("{merged}"),
    }
    if merged.check().is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_shows_on_a_terminal_outside_ci_only() {
        let ci = |v: &str| Some(std::ffi::OsString::from(v));
        assert!(shows_progress(true, None));
        assert!(shows_progress(true, ci("false")));
        assert!(shows_progress(true, ci("0")));
        assert!(shows_progress(true, ci("")));
        assert!(!shows_progress(true, ci("true")));
        assert!(!shows_progress(true, ci("1")));
        assert!(!shows_progress(false, None));
        assert!(!shows_progress(false, ci("false")));
    }

    #[test]
    fn a_shard_out_of_range_is_refused() {
        let messages: Vec<String> = ["0/0", "3/2", "1/0", "0/3", "2", "a/2", "1/b", "1/2/3"]
            .into_iter()
            .map(|s| format!("{s}: {}", parse_shard(s).unwrap_err()))
            .collect();
        insta::assert_snapshot!(messages.join("\n"), @r#"
        0/0: shard 0/0 is out of range: give K/N with 1 <= K <= N
        3/2: shard 3/2 is out of range: give K/N with 1 <= K <= N
        1/0: shard 1/0 is out of range: give K/N with 1 <= K <= N
        0/3: shard 0/3 is out of range: give K/N with 1 <= K <= N
        2: "2" is not K/N (e.g. 2/4)
        a/2: "a/2": K is not a number
        1/b: "1/b": N is not a number
        1/2/3: "1/2/3": N is not a number
        "#);
        assert_eq!(parse_shard("2/4"), Ok((2, 4)));
        assert_eq!(parse_shard(" 1 / 1 "), Ok((1, 1)));
    }
}
