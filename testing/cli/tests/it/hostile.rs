//! Hostile inputs end cleanly: a `baton test` run gives each failing case its own message and
//! reaches the summary line. The work is bounded by limits and counts, never by a timer.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `baton` in `dir`; returns the exit code and what it printed.
fn baton_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let mut text = String::from_utf8(output.stdout).unwrap();
    text.push_str(&String::from_utf8(output.stderr).unwrap());
    (output.status.code().unwrap_or(-1), text)
}

/// A test file of the start-events fixture with these cases (name, instructions).
fn start_events_suite(dir: &Path, file: &str, cases: &[(&str, serde_json::Value)]) {
    std::fs::copy(
        root().join("fixtures/bpmn/accept/start-events.bpmn"),
        dir.join("start-events.bpmn"),
    )
    .unwrap();
    let cases: Vec<serde_json::Value> = cases
        .iter()
        .map(|(name, instructions)| json!({"name": name, "instructions": instructions}))
        .collect();
    let text = serde_json::to_string_pretty(&json!({"testCases": cases})).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
}

#[test]
fn baton_test_fails_each_hostile_case_alone_and_reaches_the_summary() {
    let dir = crate::support::temp_dir("hostile");
    let mock = json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "handle"});
    let start = json!({"type": "CREATE_PROCESS_INSTANCE",
                       "processDefinitionSelector": {"processDefinitionId": "start-events"},
                       "variables": {"x": 1}});
    let deep = format!("{}x", "- ".repeat(100_000));
    start_events_suite(
        &dir,
        "hostile.test.json",
        &[
            (
                "a century",
                json!([mock, {"type": "INCREASE_TIME", "duration": "P36500D"}]),
            ),
            (
                "past the end of the clock",
                json!([mock, {"type": "INCREASE_TIME", "duration": "P7000000D"}]),
            ),
            (
                "a deep expression",
                json!([start, {"type": "ASSERT_VARIABLE",
                               "processInstanceSelector": {"processDefinitionId": "start-events"},
                               "variableName": "x", "satisfiesExpression": deep}]),
            ),
            ("still runs", json!([mock, start])),
        ],
    );
    // A test file that cannot be read is one failed entry; the other files run.
    let huge = "MOCK_JOB_WORKER_COMPLETE_JOBS".repeat(32_000);
    std::fs::write(
        dir.join("huge-type.test.json"),
        json!({"testCases": [{"name": "huge", "instructions": [{"type": huge}]}]}).to_string(),
    )
    .unwrap();
    // Bare file names, relative to the folder the command runs in.
    let (code, output) = baton_in(
        &dir,
        &[
            "test",
            "hostile.test.json",
            "huge-type.test.json",
            "--no-coverage",
        ],
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{output}");
    let output = output.replace(&deep, "<100,000 minus signs>x");
    assert!(output.ends_with("2 passed, 3 failed\n"), "{output}");
    insta::assert_snapshot!(output);
}
