//! The report as one JSON document (`baton test --json`): every case with its outcome, the
//! suites with their notes, the counts, the coverage per process and the rule coverage per
//! decision table.

use serde_json::{Value, json};

use super::results::Report;
use baton_testing::coverage::CoverageCount;

fn count(c: &CoverageCount) -> Value {
    json!({"covered": c.covered, "total": c.total, "percent": c.percent, "uncovered": c.uncovered})
}

/// The report as JSON.
pub fn report_json(report: &Report) -> Value {
    let coverage = report.coverage_report();
    json!({
        "passed": report.passed(),
        "failed": report.failed(),
        "skipped": report.skipped(),
        "filteredOut": report.filtered_out,
        "durationMs": (report.duration.as_secs_f64() * 1_000_000.0).round() / 1000.0,
        "suites": report.suites,
        "cases": report.cases,
        "coverage": coverage.processes.iter().map(|p| json!({
            "processId": p.process_id,
            "source": p.source,
            "elements": count(&p.elements),
            "flows": count(&p.flows),
            "tools": count(&p.tools),
        })).collect::<Vec<_>>(),
        "decisionCoverage": coverage.decisions.iter().map(|d| json!({
            "decisionId": d.decision_id,
            "source": d.source,
            "rules": count(&d.rules),
        })).collect::<Vec<_>>(),
    })
}
