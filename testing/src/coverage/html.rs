//! The HTML coverage report: one self-contained page (inline CSS and SVG, no script, nothing
//! fetched) for a set of merged coverage files: a summary table per process, each process drawn
//! from its BPMN DI with covered elements, taken flows and AI agent tools marked, what was not
//! covered, each DMN decision table drawn with the rules that matched marked, and the tests that
//! contributed.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::data::{CoverageFile, DecisionCoverageData, ProcessCoverageData};
use super::decisions::{DecisionCoverage, rule_label};
use super::diagram::{Diagram, Plane};
use super::svg::{self, Marks, escape, palette};
use super::{CoverageCount, CoverageError, CoverageReport};

/// The page's file name inside the report folder.
pub const INDEX: &str = "index.html";

/// Writes the report of `merged` to `dir/index.html` (the folder is created if missing),
/// atomically; returns the path.
pub fn write_report(dir: &Path, merged: &CoverageFile) -> Result<PathBuf, CoverageError> {
    crate::files::write_atomically(dir, INDEX, &render(merged))
        .map_err(|(path, source)| CoverageError::Io { path, source })
}

const STYLE: &str = r#"
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #202124; background: #f6f7f9; }
main { max-width: 1400px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 6px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eef0f3; padding: 1px 4px; border-radius: 3px; }
.muted { color: #5f6368; }
section { background: #fff; border: 1px solid #dfe1e5; border-radius: 8px; padding: 18px 20px; margin: 18px 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid #eceef1; vertical-align: middle; }
th { font-weight: 600; color: #3c4043; background: #fafbfc; }
tr.total td { font-weight: 600; border-top: 2px solid #dfe1e5; }
td.count { white-space: nowrap; }
.bar { display: inline-block; width: 90px; height: 8px; background: #e8eaed; border-radius: 4px; overflow: hidden; vertical-align: middle; margin-right: 8px; }
.bar > span { display: block; height: 100%; }
.good { background: #2e7d32; } .fair { background: #f9a825; } .poor { background: #d93025; }
.legend { display: flex; flex-wrap: wrap; gap: 18px; margin: 10px 0 0; color: #3c4043; font-size: 13px; }
.legend svg { vertical-align: middle; margin-right: 4px; }
figure { margin: 12px 0; overflow: auto; border: 1px solid #eceef1; border-radius: 6px; background: #fff; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 13px; color: #5f6368; padding: 6px 10px; border-top: 1px solid #eceef1; }
.no-diagram { background: #fff8e1; border: 1px solid #f3e0a0; border-radius: 6px; padding: 8px 12px; }
ul.missed { margin: 4px 0 0; padding-left: 20px; columns: 2 320px; }
ul.missed li { margin: 2px 0; break-inside: avoid; }
.all-covered { color: #2e7d32; font-weight: 600; }
details summary { cursor: pointer; }
ul.tests { margin: 8px 0 0; padding-left: 20px; columns: 2 360px; }
footer { color: #80868c; font-size: 12px; text-align: center; }
table.dmn { width: auto; min-width: 50%; margin: 12px 0; border: 1px solid #dfe1e5; font-size: 13px; }
table.dmn th, table.dmn td { border: 1px solid #e3e5e8; padding: 5px 10px; }
table.dmn th.hit-policy { background: #eef0f3; text-align: center; }
table.dmn th.input { background: #f1f6fd; } table.dmn th.output { background: #f5f1fb; }
table.dmn td.entry { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
table.dmn tr.rule.covered td { background: #e6f4e7; } table.dmn tr.rule.covered td.index { border-left: 4px solid #2e7d32; }
table.dmn tr.rule.missed td { color: #80868c; } table.dmn tr.rule.missed td.index { border-left: 4px solid #d9dcdf; }
table.dmn td.index { white-space: nowrap; } table.dmn td.state { white-space: nowrap; font-size: 12px; }
"#;

/// The page for merged coverage data.
pub fn render(merged: &CoverageFile) -> String {
    let report = CoverageReport::from_file(merged);
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>BPMN coverage</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<main>\n");

    let tests = merged.tests.len();
    let _ = writeln!(
        out,
        "<header>\n<h1>BPMN coverage</h1>\n<p class=\"muted\">{} process{}, {tests} test{} merged. Elements {}, flows {}{}.</p>\n</header>",
        report.processes.len(),
        if report.processes.len() == 1 {
            ""
        } else {
            "es"
        },
        if tests == 1 { "" } else { "s" },
        report.elements,
        report.flows,
        if report.tools.total > 0 {
            format!(", AI agent tools {}", report.tools)
        } else {
            String::new()
        }
    );
    if !report.decisions.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"muted\">{} decision table{}: rules matched {}.</p>",
            report.decisions.len(),
            if report.decisions.len() == 1 { "" } else { "s" },
            report.rules
        );
    }
    summary(&mut out, &report, &merged.processes);
    if !merged.decisions.is_empty() {
        decision_summary(&mut out, &report, &merged.decisions);
    }
    for (i, (data, coverage)) in merged.processes.iter().zip(&report.processes).enumerate() {
        process(&mut out, i, data, coverage, &merged.processes);
    }
    for (i, (data, coverage)) in merged.decisions.iter().zip(&report.decisions).enumerate() {
        decision(&mut out, i, data, coverage, &merged.decisions);
    }
    tests_section(&mut out, &merged.tests);
    let _ = writeln!(
        out,
        "<footer>Written by baton {}.</footer>\n</main>\n</body>\n</html>",
        env!("CARGO_PKG_VERSION")
    );
    out
}

fn anchor(i: usize) -> String {
    format!("process-{}", i + 1)
}

/// The process id, with the model hash when two models of one process id were merged apart.
fn heading(data: &ProcessCoverageData, all: &[ProcessCoverageData]) -> String {
    let twins = all
        .iter()
        .filter(|p| p.process_id == data.process_id)
        .count();
    if twins > 1 {
        format!(
            "{} <span class=\"muted\">(model {})</span>",
            escape(&data.process_id),
            escape(&data.model_hash)
        )
    } else {
        escape(&data.process_id).to_string()
    }
}

fn count_cell(out: &mut String, count: &CoverageCount) {
    if count.total == 0 {
        out.push_str("<td class=\"count muted\">none</td>");
        return;
    }
    let grade = if count.percent >= 80.0 {
        "good"
    } else if count.percent >= 50.0 {
        "fair"
    } else {
        "poor"
    };
    let _ = write!(
        out,
        "<td class=\"count\"><span class=\"bar\"><span class=\"{grade}\" style=\"width:{}%\"></span></span>{}/{} ({:.1}%)</td>",
        count.percent, count.covered, count.total, count.percent
    );
}

fn summary(out: &mut String, report: &CoverageReport, all: &[ProcessCoverageData]) {
    out.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n<table>\n<thead><tr><th>Process</th><th>Source</th><th>Elements</th><th>Flows</th><th>AI agent tools</th></tr></thead>\n<tbody>\n");
    for (i, (p, data)) in report.processes.iter().zip(all).enumerate() {
        let _ = write!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"muted\">{}</td>",
            anchor(i),
            heading(data, all),
            escape(&p.source)
        );
        count_cell(out, &p.elements);
        count_cell(out, &p.flows);
        count_cell(out, &p.tools);
        out.push_str("</tr>\n");
    }
    if report.processes.len() > 1 {
        out.push_str("<tr class=\"total\"><td>Total</td><td></td>");
        count_cell(out, &report.elements);
        count_cell(out, &report.flows);
        count_cell(out, &report.tools);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    legend(out);
    out.push_str("</section>\n");
}

/// The key to the pictures' colours, drawn with the same colours.
fn legend(out: &mut String) {
    let item = |out: &mut String, swatch: String, text: &str| {
        let _ = write!(
            out,
            "<span><svg width=\"26\" height=\"16\" viewBox=\"0 0 26 16\" aria-hidden=\"true\">{swatch}</svg>{text}</span>"
        );
    };
    out.push_str("<div class=\"legend\">");
    item(
        out,
        format!(
            "<rect x=\"1\" y=\"1\" width=\"24\" height=\"14\" rx=\"4\" fill=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>",
            palette::COVERED_FILL,
            palette::COVERED_STROKE
        ),
        "covered",
    );
    item(
        out,
        format!(
            "<rect x=\"1\" y=\"1\" width=\"24\" height=\"14\" rx=\"4\" fill=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>",
            palette::MISSED_FILL,
            palette::MISSED_STROKE
        ),
        "not covered",
    );
    item(
        out,
        format!(
            "<path d=\"M1,8 H22\" stroke=\"{}\" stroke-width=\"2.5\"/><path d=\"M18,4 L25,8 L18,12 Z\" fill=\"{}\"/>",
            palette::COVERED_STROKE,
            palette::COVERED_STROKE
        ),
        "flow taken",
    );
    item(
        out,
        format!(
            "<path d=\"M1,8 H22\" stroke=\"{}\" stroke-width=\"1.5\"/><path d=\"M18,4 L25,8 L18,12 Z\" fill=\"{}\"/>",
            palette::MISSED_STROKE,
            palette::MISSED_STROKE
        ),
        "flow not taken",
    );
    item(
        out,
        format!(
            "<rect x=\"1\" y=\"3\" width=\"24\" height=\"10\" rx=\"5\" fill=\"{}\"/>",
            palette::TOOL
        ),
        "AI agent tool, called",
    );
    item(
        out,
        format!(
            "<rect x=\"1\" y=\"3\" width=\"24\" height=\"10\" rx=\"5\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"/>",
            palette::TOOL
        ),
        "AI agent tool, never called",
    );
    out.push_str("</div>\n");
}

/// The names the picture knows: element and flow id → name.
fn name_of<'a>(diagram: Option<&'a Diagram>, id: &str) -> Option<&'a str> {
    let planes = &diagram?.planes;
    planes
        .iter()
        .flat_map(|p| p.shapes.iter().map(|s| (&s.id, &s.name)))
        .chain(
            planes
                .iter()
                .flat_map(|p| p.edges.iter().map(|e| (&e.id, &e.name))),
        )
        .find(|(i, _)| *i == id)
        .and_then(|(_, n)| n.as_deref())
        .map(str::trim)
        .filter(|n| !n.is_empty())
}

fn process(
    out: &mut String,
    i: usize,
    data: &ProcessCoverageData,
    coverage: &super::ProcessCoverage,
    all: &[ProcessCoverageData],
) {
    let _ = writeln!(
        out,
        "<section class=\"process\" id=\"{}\" data-process-id=\"{}\">\n<h2>{}</h2>\n<p class=\"muted\">From <code>{}</code>. Elements {}, flows {}{}.</p>",
        anchor(i),
        escape(&data.process_id),
        heading(data, all),
        escape(&data.source),
        coverage.elements,
        coverage.flows,
        if coverage.tools.total > 0 {
            format!(", AI agent tools {}", coverage.tools)
        } else {
            String::new()
        }
    );
    let marks = Marks::of(data);
    match &data.diagram {
        Some(diagram) => {
            for (j, plane) in diagram.planes.iter().enumerate() {
                figure(
                    out,
                    diagram,
                    plane,
                    &marks,
                    &format!("p{}-{}", i + 1, j + 1),
                );
            }
        }
        None => {
            let _ = writeln!(
                out,
                "<p class=\"no-diagram\">No diagram: <code>{}</code> has no diagram information (BPMN DI) for this process, so its coverage is listed only.</p>",
                escape(&data.source)
            );
        }
    }
    let diagram = data.diagram.as_ref();
    let kind_of = |id: &str| {
        data.elements
            .iter()
            .find(|e| e.id == id)
            .map_or("", |e| e.kind.as_str())
    };
    let missed = !coverage.elements.uncovered.is_empty()
        || !coverage.flows.uncovered.is_empty()
        || !coverage.tools.uncovered.is_empty();
    if !missed {
        out.push_str("<p class=\"all-covered\">Every element, flow and tool was covered.</p>\n");
    }
    if !coverage.tools.uncovered.is_empty() {
        let _ = write!(
            out,
            "<h3>AI agent tools never called ({})</h3>\n<ul class=\"missed tools\">",
            coverage.tools.uncovered.len()
        );
        for id in &coverage.tools.uncovered {
            item(out, id, name_of(diagram, id), "");
        }
        out.push_str("</ul>\n");
    }
    if !coverage.elements.uncovered.is_empty() {
        let _ = write!(
            out,
            "<h3>Elements not reached ({})</h3>\n<ul class=\"missed elements\">",
            coverage.elements.uncovered.len()
        );
        for id in &coverage.elements.uncovered {
            item(out, id, name_of(diagram, id), kind_of(id));
        }
        out.push_str("</ul>\n");
    }
    if !coverage.flows.uncovered.is_empty() {
        let _ = write!(
            out,
            "<h3>Flows not taken ({})</h3>\n<ul class=\"missed flows\">",
            coverage.flows.uncovered.len()
        );
        for id in &coverage.flows.uncovered {
            let ends = data
                .flows
                .iter()
                .find(|f| &f.id == id)
                .map(|f| format!("{} → {}", f.source, f.target))
                .unwrap_or_default();
            item(out, id, name_of(diagram, id), &ends);
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}

fn item(out: &mut String, id: &str, name: Option<&str>, detail: &str) {
    let _ = write!(out, "<li><code>{}</code>", escape(id));
    if let Some(name) = name {
        let _ = write!(out, " {}", escape(name));
    }
    if !detail.is_empty() {
        let _ = write!(out, " <span class=\"muted\">{}</span>", escape(detail));
    }
    out.push_str("</li>");
}

fn figure(out: &mut String, diagram: &Diagram, plane: &Plane, marks: &Marks<'_>, prefix: &str) {
    out.push_str("<figure>\n");
    out.push_str(&svg::render(plane, marks, prefix));
    if let Some(sub) = &plane.sub_process {
        let _ = match name_of(Some(diagram), sub) {
            Some(name) => writeln!(
                out,
                "<figcaption>Inside the collapsed sub-process {} (<code>{}</code>)</figcaption>",
                escape(name),
                escape(sub)
            ),
            None => writeln!(
                out,
                "<figcaption>Inside the collapsed sub-process <code>{}</code></figcaption>",
                escape(sub)
            ),
        };
    }
    out.push_str("</figure>\n");
}

fn decision_anchor(i: usize) -> String {
    format!("decision-{}", i + 1)
}

/// The decision id, with the model hash when two tables of one decision id were merged apart.
fn decision_heading(data: &DecisionCoverageData, all: &[DecisionCoverageData]) -> String {
    let twins = all
        .iter()
        .filter(|d| d.decision_id == data.decision_id)
        .count();
    let name = if data.name.trim().is_empty() || data.name == data.decision_id {
        escape(&data.decision_id).to_string()
    } else {
        format!(
            "{} <span class=\"muted\">({})</span>",
            escape(&data.name),
            escape(&data.decision_id)
        )
    };
    if twins > 1 {
        format!(
            "{name} <span class=\"muted\">(model {})</span>",
            escape(&data.model_hash)
        )
    } else {
        name
    }
}

fn decision_summary(out: &mut String, report: &CoverageReport, all: &[DecisionCoverageData]) {
    out.push_str("<section id=\"decisions\">\n<h2>Decision tables</h2>\n<table>\n<thead><tr><th>Decision</th><th>Source</th><th>Rules matched</th></tr></thead>\n<tbody>\n");
    for (i, (d, data)) in report.decisions.iter().zip(all).enumerate() {
        let _ = write!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"muted\">{}</td>",
            decision_anchor(i),
            decision_heading(data, all),
            escape(&d.source)
        );
        count_cell(out, &d.rules);
        out.push_str("</tr>\n");
    }
    if report.decisions.len() > 1 {
        out.push_str("<tr class=\"total\"><td>Total</td><td></td>");
        count_cell(out, &report.rules);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// A decision table drawn as the DMN editor lays it out (inputs, then outputs, one row per
/// rule), each rule marked matched or never matched.
fn decision(
    out: &mut String,
    i: usize,
    data: &DecisionCoverageData,
    coverage: &DecisionCoverage,
    all: &[DecisionCoverageData],
) {
    let _ = writeln!(
        out,
        "<section class=\"decision\" id=\"{}\" data-decision-id=\"{}\">\n<h2>{}</h2>\n<p class=\"muted\">From <code>{}</code>. Rules matched {}{}.</p>",
        decision_anchor(i),
        escape(&data.decision_id),
        decision_heading(data, all),
        escape(&data.source),
        coverage.rules,
        if data.evaluated {
            ""
        } else {
            "; never evaluated"
        }
    );
    let _ = write!(
        out,
        "<table class=\"dmn\">\n<thead><tr><th class=\"hit-policy\" title=\"hit policy\">{}</th>",
        escape(&data.hit_policy)
    );
    for input in &data.inputs {
        let _ = write!(out, "<th class=\"input\">{}</th>", escape(input));
    }
    for output in &data.outputs {
        let _ = write!(out, "<th class=\"output\">{}</th>", escape(output));
    }
    out.push_str("<th></th></tr></thead>\n<tbody>\n");
    for (r, rule) in data.rules.iter().enumerate() {
        let matched = data.matched_rules.contains(&(r as u32 + 1));
        let _ = write!(
            out,
            "<tr class=\"rule {}\" data-rule-id=\"{}\" data-rule-index=\"{}\"><td class=\"index\" title=\"{}\">{}</td>",
            if matched { "covered" } else { "missed" },
            escape(&rule.id),
            r + 1,
            escape(&rule.id),
            r + 1
        );
        for entry in rule.inputs.iter().chain(&rule.outputs) {
            let _ = write!(out, "<td class=\"entry\">{}</td>", escape(entry));
        }
        let _ = writeln!(
            out,
            "<td class=\"state\">{}</td></tr>",
            if matched { "matched" } else { "never matched" }
        );
    }
    out.push_str("</tbody>\n</table>\n");
    if coverage.rules.uncovered.is_empty() {
        out.push_str("<p class=\"all-covered\">Every rule matched.</p>\n");
    } else {
        let _ = write!(
            out,
            "<h3>Rules never matched ({})</h3>\n<ul class=\"missed rules\">",
            coverage.rules.uncovered.len()
        );
        for (r, rule) in data.rules.iter().enumerate() {
            if !data.matched_rules.contains(&(r as u32 + 1)) {
                let _ = write!(
                    out,
                    "<li><code>{}</code></li>",
                    escape(&rule_label(r, rule))
                );
            }
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}

fn tests_section(out: &mut String, tests: &[String]) {
    let _ = write!(
        out,
        "<section id=\"tests\">\n<details{}>\n<summary><h2 style=\"display:inline\">Tests ({})</h2></summary>\n<ul class=\"tests\">",
        if tests.len() <= 20 { " open" } else { "" },
        tests.len()
    );
    for t in tests {
        let _ = write!(out, "<li><code>{}</code></li>", escape(t));
    }
    out.push_str("</ul>\n</details>\n</section>\n");
}
