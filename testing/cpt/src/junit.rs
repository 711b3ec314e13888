//! JUnit XML, as CI systems read it: one `<testsuite>` per test file, one `<testcase>` per test
//! case with `<failure>` (the reason and the run explained) or `<skipped>` (the reason).

use std::time::Duration;

use quick_xml::escape::escape;

use super::results::{CaseResult, Outcome, Report};

/// XML 1.0 has no place for most control characters: they are dropped.
fn clean(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
        .collect()
}

fn attr(text: &str) -> String {
    escape(clean(text).as_str()).into_owned()
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// The report as a JUnit XML document.
pub fn junit_xml(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"baton\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">\n",
        report.cases.len(),
        report.failed(),
        report.skipped(),
        seconds(report.duration)
    ));
    let mut files: Vec<(&std::path::Path, Vec<&CaseResult>)> = Vec::new();
    for case in &report.cases {
        match files.iter_mut().find(|(f, _)| *f == case.file.as_path()) {
            Some((_, cases)) => cases.push(case),
            None => files.push((case.file.as_path(), vec![case])),
        }
    }
    for (file, cases) in files {
        let file = file.display().to_string();
        let failures = cases.iter().filter(|c| c.failed()).count();
        let skipped = cases.iter().filter(|c| c.skipped()).count();
        let time: Duration = cases.iter().map(|c| c.duration).sum();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" time=\"{}\">\n",
            attr(&file),
            cases.len(),
            seconds(time)
        ));
        for case in cases {
            let name = if case.name.is_empty() {
                "(test file)"
            } else {
                &case.name
            };
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
                attr(name),
                attr(&file),
                seconds(case.duration)
            );
            match &case.outcome {
                Outcome::Passed => out.push_str(&format!("{open}/>\n")),
                Outcome::Skipped { reason } => out.push_str(&format!(
                    "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                    attr(reason)
                )),
                Outcome::Failed(f) => {
                    let first = f.message.lines().next().unwrap_or_default();
                    let kind = f.instruction_type.as_deref().unwrap_or("test file");
                    let mut body = f.message.clone();
                    if !f.explanation.is_empty() {
                        body.push_str("\n\n");
                        body.push_str(&f.explanation);
                    }
                    out.push_str(&format!(
                        "{open}>\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                        attr(first),
                        attr(kind),
                        attr(&body)
                    ));
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
