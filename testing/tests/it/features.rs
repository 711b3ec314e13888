//! User tasks, decisions, call activities and child mocks, example data, start instructions,
//! incidents on expressions, hooks at quiescence.

use baton_testing::{
    Answer, CreateInstance, ErrorType, IncidentExpectation, ProcessTest, UserTaskExpectation,
};
use serde_json::json;

use crate::support::{bpmn, panic_message};

#[test]
fn a_user_task_has_its_fields_and_completes_by_id_or_name() {
    let test = ProcessTest::from_file(bpmn("approval.bpmn")).unwrap();
    test.mock_decision("discount", json!(15));
    let run = test.start("approval", ());
    run.assert_waiting_at(["review"])
        .assert_decision("discount", json!(15))
        .assert_variables(json!({"discount": 15}))
        .assert_user_task(
            "review",
            UserTaskExpectation::created()
                .assignee("anna")
                .candidate_groups(["managers", "finance"])
                .priority(60),
        );
    insta::assert_snapshot!(run.explain());
    run.complete_user_task("Review order", json!({"approved": true}));
    run.assert_completed()
        .assert_passed(["approved"])
        .assert_not_passed(["rejected"])
        .assert_user_task("review", UserTaskExpectation::completed());
}

#[test]
fn a_user_task_completes_with_its_example_data() {
    let test = ProcessTest::from_file(bpmn("approval.bpmn")).unwrap();
    test.mock_decision("discount", json!(0));
    let run = test.start("approval", ());
    run.complete_user_task_with_example_data("review");
    run.assert_completed().assert_passed(["approved"]);
}

#[test]
fn a_user_task_with_other_fields_fails_with_the_differences() {
    let test = ProcessTest::from_file(bpmn("approval.bpmn")).unwrap();
    test.mock_decision("discount", json!(0));
    let run = test.start("approval", ());
    let message = panic_message(|| {
        run.assert_user_task(
            "review",
            UserTaskExpectation::completed()
                .assignee("bob")
                .priority(50),
        );
    });
    insta::assert_snapshot!(message);
}

#[test]
fn a_decision_without_output_is_an_incident() {
    let test = ProcessTest::from_file(bpmn("approval.bpmn")).unwrap();
    let run = test.start("approval", ());
    run.assert_incident(IncidentExpectation::at("price").of_type(ErrorType::CalledDecisionError));
}

#[test]
fn a_call_activity_runs_the_real_child() {
    let test = ProcessTest::from_file(bpmn("parent.bpmn")).unwrap();
    let run = test.start("parent", json!({"applicant": "Ada"}));
    run.assert_waiting_at(["call-check"]);
    insta::assert_snapshot!(run.explain());
    // The child's job is found from the parent's run.
    run.complete_job("score", json!({"score": 700}));
    run.complete_job_with_example_data("notify");
    run.assert_completed()
        .assert_variables(json!({"score": 700, "notifyStatus": 200}));
}

#[test]
fn a_mocked_child_process_returns_its_variables() {
    let test = ProcessTest::from_file(bpmn("parent.bpmn")).unwrap();
    test.mock_child_process("credit-check", json!({"score": 650}));
    test.mock_job("notify").complete_with_example_data();
    let run = test.start("parent", ());
    run.assert_completed()
        .assert_variables(json!({"score": 650, "notifyStatus": 200}));
    assert_eq!(test.process_ids(), ["parent", "credit-check"]);
}

#[test]
fn a_child_mock_can_compute_from_the_inputs() {
    let test = ProcessTest::from_file(bpmn("parent.bpmn")).unwrap();
    test.mock_child_process_with(
        "credit-check",
        |vars| json!({"score": if vars["applicant"] == "Ada" { 800 } else { 300 }}),
    );
    test.mock_job("notify").complete();
    test.start("parent", json!({"applicant": "Ada"}))
        .assert_variables(json!({"score": 800}));
}

#[test]
fn start_instructions_and_terminate_after() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let mut request = CreateInstance::new("order");
    request.start_instructions = vec!["ship".into()];
    request.terminate_after = vec!["ship".into()];
    let run = test.try_start(request).unwrap();
    run.assert_waiting_exactly_at(["ship"])
        .assert_not_entered(["charge"]);
    run.complete_job("ship", ());
    run.assert_terminated().assert_not_entered(["done"]);
}

#[test]
fn an_output_mapping_of_a_missing_value_gives_null() {
    let test = ProcessTest::from_file(bpmn("parent.bpmn")).unwrap();
    test.mock_child_process("credit-check", ());
    test.mock_job("notify").answers([
        Answer::complete(json!({"other": 1})),
        Answer::example_data(),
    ]);
    let run = test.start("parent", ());
    run.assert_completed()
        .assert_variables(json!({"notifyStatus": null}));
}

#[test]
fn a_hook_at_quiescence_can_act_on_the_engine() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    // Completes any waiting "ship" job: a conditional behaviour in miniature.
    test.at_quiescence(|state: &mut baton_testing::Quiescent<'_>| {
        let job = state
            .engine()
            .activatable_jobs(Some("shipping"))
            .first()
            .map(|j| j.key);
        match job {
            Some(key) => state
                .engine_mut()
                .complete_job(key, Default::default())
                .is_ok(),
            None => false,
        }
    });
    let run = test.start("order", ());
    run.complete_job("charge", ());
    run.assert_completed();
}
