//! The text `baton test` prints: one line per case (`ok`, `FAILED`, `skipped`), a failure's
//! reason and the run explained under it, notes per suite, and the summary line. Deterministic
//! (no times, no colours), so it can be snapshot-tested.

use super::results::{CaseResult, Outcome, Report, SuiteInfo};

const INDENT: &str = "    ";

fn indented(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{INDENT}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A case as printed: its line, then (for a failure) the reason and the run explained, then
/// its warnings. Ends without a newline.
pub fn case_text(result: &CaseResult) -> String {
    let mut out = match &result.outcome {
        Outcome::Passed => format!("ok      {}", result.title()),
        Outcome::Skipped { reason } => {
            format!("skipped {}\n{}", result.title(), indented(reason))
        }
        Outcome::Failed(f) => {
            let mut s = format!("FAILED  {}\n", result.title());
            if let (Some(n), Some(t)) = (f.instruction, &f.instruction_type) {
                s.push_str(&format!("{INDENT}instruction {n} ({t}) failed:\n"));
            }
            s.push_str(&indented(&f.message));
            if !f.explanation.is_empty() {
                s.push_str("\n\n");
                s.push_str(&indented(&f.explanation));
                s.push('\n');
            }
            s
        }
    };
    for w in &result.warnings {
        out.push_str(&format!("\n{INDENT}warning: {w}"));
    }
    if !result.cassettes.is_empty() {
        out.push_str(&format!("\n{INDENT}cassettes:"));
        for line in &result.cassettes {
            let line = line.replace('\n', &format!("\n{INDENT}{INDENT}"));
            out.push_str(&format!("\n{INDENT}{INDENT}{line}"));
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// The notes of a suite, one `note:` line each (empty when there are none).
pub fn suite_text(info: &SuiteInfo) -> String {
    info.notes
        .iter()
        .map(|n| format!("note: {n}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The whole report as `baton test` prints it: notes and cases in run order, the coverage
/// (when asked for), and the summary line last.
pub fn report_text(report: &Report, coverage: bool) -> String {
    let mut out = String::new();
    for info in &report.suites {
        let notes = suite_text(info);
        if !notes.is_empty() {
            out.push_str(&notes);
            out.push('\n');
        }
    }
    for case in &report.cases {
        out.push_str(&case_text(case));
        out.push('\n');
    }
    if coverage && !report.coverage.processes.is_empty() {
        out.push('\n');
        out.push_str(&report.coverage_report().to_string());
    }
    out.push('\n');
    out.push_str(&report.summary());
    out.push('\n');
    out
}
