//! Counterexamples: a planted bug's cassette and CPT case replay it under the CPT runner and
//! fail the same way.

use baton_cpt::{Options, Outcome};
use baton_testing::ProcessTest;
use baton_testing::explore::{Invariant, Space};
use serde_json::json;

use crate::support::bpmn;

fn refund_desk() -> ProcessTest {
    let test = ProcessTest::from_file(bpmn("refund-agent.bpmn")).unwrap();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "7", "damaged": true}}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": ["Refunds"]}));
    test.mock_job("refund-issue")
        .complete_with(json!({"refundId": "R-1"}));
    test
}

#[test]
fn a_counterexample_replays_under_the_cpt_runner_and_fails_the_same_way() {
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
        .max_model_calls(3);
    let report = refund_desk()
        .explore(
            &space,
            [Invariant::never_before("issue-refund", "lookup-order")],
        )
        .unwrap();
    let found = report.counterexample(0).unwrap();
    let dir = crate::support::temp_dir("explore-refund");
    std::fs::copy(bpmn("refund-agent.bpmn"), dir.join("refund-agent.bpmn")).unwrap();
    let written = found.write_to(&dir, "refund-before-lookup").unwrap();
    assert_eq!(written.cassettes.len(), 1);
    // Format 2: the replay checks each request against what the model saw while exploring.
    let cassette = baton_testing::agent::recording::Recording::read(&written.cassettes[0]).unwrap();
    assert!(cassette.has_requests());
    assert_eq!(cassette.calls.len(), 3);
    let run = baton_cpt::run(&[&written.test_file], &Options::default()).unwrap();
    let [case] = run.cases.as_slice() else {
        panic!("one case: {:?}", run.cases)
    };
    let Outcome::Failed(failure) = &case.outcome else {
        panic!("the case must fail: {:?}", case.outcome)
    };
    assert_eq!(
        failure.instruction_type.as_deref(),
        Some("ASSERT_ELEMENT_INSTANCES")
    );
    let test_file = std::fs::read_to_string(&written.test_file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    insta::assert_snapshot!(failure.message);
    insta::assert_snapshot!(test_file);
}
