//! Exploration files: read with the path of every problem, run against the BPMN beside them.

use baton_cpt::ExploreFile;
use std::path::Path;

use crate::support::bpmn;

fn in_folder(name: &str, text: &str) -> std::path::PathBuf {
    let dir = crate::support::temp_dir(name);
    std::fs::copy(bpmn("refund-agent.bpmn"), dir.join("refund-agent.bpmn")).unwrap();
    let path = dir.join("refund.explore.json");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_file_runs_with_its_outcomes_side_effects_and_invariants() {
    let path = in_folder(
        "explore-file",
        r#"{
          "setup": [
            { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "order-lookup", "variables": { "order": {} } },
            { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "kb-search", "variables": { "articles": [] } }
          ],
          "start": { "processDefinitionId": "refund-agent", "variables": { "customerMessage": "Refund 7" } },
          "agents": [ { "elementId": "refund-desk", "tools": ["refund", "search-kb"] } ],
          "outcomes": { "refund-issue": [ { "complete": { "refundId": "R-1" } }, { "fail": { "errorMessage": "bank down", "retries": 0 } } ] },
          "sideEffects": { "refund-issue": { "key": "\"one refund\"" } },
          "bounds": { "modelCalls": 4 },
          "invariants": [ { "atMostOncePerKey": { "jobType": "refund-issue" } }, "noIncident" ]
        }"#,
    );
    let file = ExploreFile::read(&path).unwrap();
    let report = file.run(&file.space).unwrap();
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
    let verdicts: Vec<(String, bool, String)> = report
        .checks
        .iter()
        .map(|c| {
            (
                c.invariant.to_string(),
                c.holds(),
                c.counterexample
                    .as_ref()
                    .map(|cx| format!("{}: {}", cx.message, cx.steps.join("; ")))
                    .unwrap_or_default(),
            )
        })
        .collect();
    insta::assert_debug_snapshot!(verdicts);
}

#[test]
fn a_wrong_file_names_the_place_of_the_problem() {
    let cases = [
        ("not json", "{"),
        ("no start", r#"{"agents": []}"#),
        (
            "unknown key",
            r#"{"start": {"processDefinitionId": "p"}, "agent": []}"#,
        ),
        (
            "wrong outcome",
            r#"{"start": {"processDefinitionId": "p"}, "outcomes": {"t": [{"succeed": {}}]}}"#,
        ),
        (
            "setup it cannot run",
            r#"{"start": {"processDefinitionId": "p"}, "setup": [{"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {"processDefinitionId": "p"}}]}"#,
        ),
        (
            "bad time",
            r#"{"start": {"processDefinitionId": "p"}, "bounds": {"time": "soon"}}"#,
        ),
        (
            "bad invariant",
            r#"{"start": {"processDefinitionId": "p"}, "invariants": [{"neverBefore": {"element": "a"}}]}"#,
        ),
        (
            "bad side-effect key",
            r#"{"start": {"processDefinitionId": "p"}, "sideEffects": {"t": {"key": "a +"}}}"#,
        ),
        (
            "an end state without its element",
            r#"{"start": {"processDefinitionId": "p"}, "invariants": [{"endsIn": ["completed", "waitingAt"]}]}"#,
        ),
        (
            "an invariant without its value",
            r#"{"start": {"processDefinitionId": "p"}, "invariants": ["reaches"]}"#,
        ),
        (
            "an invariant with a value it does not take",
            r#"{"start": {"processDefinitionId": "p"}, "invariants": [{"noIncident": true}]}"#,
        ),
        (
            "an agent shaped twice",
            r#"{"start": {"processDefinitionId": "p"}, "agents": [{"elementId": "a", "maxToolsPerTurn": 2}, {"elementId": "a"}]}"#,
        ),
        (
            "bad response turn",
            r#"{"start": {"processDefinitionId": "p"}, "agents": [{"elementId": "a", "responses": [{"toolCalls": "x"}]}]}"#,
        ),
    ];
    let mut out = String::new();
    for (name, text) in cases {
        let error = ExploreFile::parse(text, Path::new("x.explore.json")).unwrap_err();
        out.push_str(&format!("{name}:\n  {error}\n"));
    }
    insta::assert_snapshot!(out);
}

/// What only the deployment shows is refused before the search as well, with the place in the
/// file: a side effect, outcomes or an invariant naming a job type no process has.
#[test]
fn a_file_naming_a_job_type_no_process_has_is_refused() {
    let file = |extra: &str| {
        format!(
            r#"{{
              "start": {{ "processDefinitionId": "refund-agent", "variables": {{ "customerMessage": "Refund 7" }} }},
              {extra}
            }}"#
        )
    };
    let cases = [
        (
            "side effect",
            file(r#""sideEffects": { "refund-isue": { "key": "\"one\"" } }"#),
        ),
        (
            "outcomes",
            file(r#""outcomes": { "refund-isue": [ { "complete": {} } ] }"#),
        ),
        (
            "invariant",
            file(r#""invariants": [ { "atMostOncePerKey": { "jobType": "refund-isue" } } ]"#),
        ),
        (
            "invariant without a side effect",
            file(r#""invariants": [ { "atMostOncePerKey": { "jobType": "refund-issue" } } ]"#),
        ),
    ];
    let mut out = String::new();
    for (name, text) in cases {
        let path = in_folder("explore-file-job-type", &text);
        let file = ExploreFile::read(&path).unwrap();
        let error = file.run(&file.space).unwrap_err();
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
        let error = error
            .to_string()
            .replace(&path.display().to_string(), "[file]");
        out.push_str(&format!("{name}:\n  {error}\n"));
    }
    insta::assert_snapshot!(out);
}

/// A file too large, one that never ends, or one that is not text is refused, not read forever.
#[cfg(unix)]
#[test]
fn a_file_too_large_or_endless_is_refused_before_it_is_read_whole() {
    let dir = crate::support::temp_dir("explore-file-large");
    let huge = dir.join("huge.explore.json");
    // Sparse: 50 MB on paper, nothing on the disk.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(50 * 1024 * 1024)
        .unwrap();
    let binary = dir.join("binary.explore.json");
    std::fs::write(&binary, [0xff, 0xfe, b'{']).unwrap();
    let paths = [huge, binary, "/dev/zero".into()];
    let mut out = String::new();
    for path in &paths {
        let error = ExploreFile::read(path).unwrap_err().to_string();
        out.push_str(&error.replace(&dir.display().to_string(), "[dir]"));
        out.push('\n');
    }
    let _ = std::fs::remove_dir_all(&dir);
    insta::assert_snapshot!(out, @"
    [dir]/huge.explore.json: the file has more than the 16777216 bytes a test file may have
    [dir]/binary.explore.json: not UTF-8 text: invalid utf-8 sequence of 1 bytes from index 0
    /dev/zero: the file has more than the 16777216 bytes a test file may have
    ");
}
