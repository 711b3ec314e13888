//! Camunda 8.10's engine features run from CPT JSON (`fixtures/cpt/v810-engine`, baton's
//! extension instructions for what CPT 8.10 has no instruction for).

use std::path::{Path, PathBuf};

use baton_cpt::Outcome;
use baton_cpt::{self as cpt, Options};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_8_10_engine_fixture_passes_without_notes() {
    let report = cpt::run(
        &[root().join("fixtures/cpt/v810-engine")],
        &Options::default(),
    )
    .unwrap();
    report.assert_success();
    assert!(
        report.suites.iter().all(|s| s.notes.is_empty()),
        "{:?}",
        report.suites
    );
}

/// COMPLETE_JOB on a parked job fails saying why; IS_ACTIVE on a suspended instance fails.
#[test]
fn acting_on_a_suspended_instance_from_json_says_it_is_suspended() {
    let dir = crate::support::temp_dir("suspended-job");
    std::fs::copy(
        root().join("fixtures/cpt/v810-engine/order-hold.bpmn"),
        dir.join("order-hold.bpmn"),
    )
    .unwrap();
    let pi = r#""processInstanceSelector": { "processDefinitionId": "order-hold" }"#;
    let cases = [
        r#"{ "type": "COMPLETE_JOB", "jobSelector": { "jobType": "reserve" } }"#.to_owned(),
        format!(r#"{{ "type": "ASSERT_PROCESS_INSTANCE", {pi}, "state": "IS_ACTIVE" }}"#),
        format!(r#"{{ "type": "RESUME_PROCESS_INSTANCE", {pi} }}, {{ "type": "RESUME_PROCESS_INSTANCE", {pi} }}"#),
    ]
    .iter()
    .enumerate()
    .map(|(i, then)| {
        format!(
            r#"{{ "name": "{i}", "instructions": [
              {{ "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {{ "processDefinitionId": "order-hold" }} }},
              {{ "type": "SUSPEND_PROCESS_INSTANCE", {pi} }}, {then} ] }}"#
        )
    })
    .collect::<Vec<_>>()
    .join(",");
    std::fs::write(
        dir.join("order-hold.test.json"),
        format!(r#"{{ "testCases": [ {cases} ] }}"#),
    )
    .unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.summary(), "0 passed, 3 failed");
    let messages: Vec<String> = report
        .cases
        .iter()
        .map(|c| match &c.outcome {
            Outcome::Failed(f) => f.message.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    insta::assert_snapshot!(messages.join("\n---\n"));
}
