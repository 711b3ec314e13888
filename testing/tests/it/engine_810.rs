//! Camunda 8.10 engine rules as a test uses them: cluster variables (and
//! `camunda.processInstance.key`), from Rust and from CPT JSON (`fixtures/cpt/v810-engine`,
//! baton's extension instructions for what CPT 8.10 has no instruction for).

use std::path::{Path, PathBuf};

use baton_testing::cpt::{self, Options};
use baton_testing::{DEFAULT_TENANT, ProcessTest};
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shipping() -> ProcessTest {
    ProcessTest::from_file(root().join("fixtures/cpt/v810-engine/shipping.bpmn")).unwrap()
}

/// Cluster variables set per test (camunda/camunda ClusterVariableEvaluationContextTest: the
/// tenant's value wins in `env`, the global one is the fallback); the start event's output maps
/// `camunda.processInstance.key` (ProcessInstanceExpressionContextTest case 2).
#[test]
fn cluster_variables_are_set_per_test() {
    let test = shipping();
    test.set_cluster_variables(json!({"CARRIER": {"jobType": "book-dhl", "retries": 5}}));
    test.set_tenant_cluster_variables(DEFAULT_TENANT, json!({"REGION": "eu"}));
    let dhl = test.mock_job("book-dhl").complete();
    let run = test.start("shipping", ());
    dhl.assert_called(1);
    assert_eq!(dhl.invocations()[0].variables()["region"], json!("eu"));
    assert_eq!(
        run.variable("trackingRef"),
        Some(json!(run.key().to_string()))
    );
    run.assert_waiting_at(["delivered"]);

    // Another test of the same process sees none of them: the job type is null there.
    let other = shipping();
    let run = other.start("shipping", ());
    run.assert_has_incidents();
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
