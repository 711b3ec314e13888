//! Snapshot tests of every assertion's failure message: what was expected, what happened, and
//! the run explained.

use baton_testing::{
    Check, DecisionExpectation, ElementSelector, ElementState, ElementsState, ErrorType,
    IncidentExpectation, InstanceState, Matching, ProcessTest, Run, SubscriptionState,
    UserTaskExpectation, UserTaskSelector, VariableScope,
};
use serde_json::json;

use crate::support::{bpmn, panic_message};

/// An order run waiting at "ship", with an incident-free history and a few variables.
fn waiting_at_ship() -> (ProcessTest, Run) {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    test.mock_job("payment")
        .complete_with(json!({"paid": true, "receipt": {"id": "R-1", "lines": [1, 2, 3]}}));
    let run = test.start(
        "order",
        json!({"amount": 42, "customer": {"name": "Ada", "note": "x".repeat(200)}}),
    );
    (test, run)
}

fn failure(run: &Run, check: Check) -> String {
    run.check(&check).unwrap_err().to_string()
}

#[test]
fn the_panic_message_is_the_failure_message() {
    let (_test, run) = waiting_at_ship();
    let message = panic_message(|| {
        run.assert_completed();
    });
    assert_eq!(
        message,
        failure(&run, Check::InstanceState(InstanceState::Completed))
    );
}

#[test]
fn instance_states() {
    let (test, run) = waiting_at_ship();
    insta::assert_snapshot!(
        "instance_completed",
        failure(&run, Check::InstanceState(InstanceState::Completed))
    );
    insta::assert_snapshot!(
        "instance_terminated",
        failure(&run, Check::InstanceState(InstanceState::Terminated))
    );
    test.mock_job("shipping").complete();
    insta::assert_snapshot!(
        "instance_active",
        failure(&run, Check::InstanceState(InstanceState::Active))
    );
}

#[test]
fn incidents_and_failures() {
    let (test, run) = waiting_at_ship();
    insta::assert_snapshot!(
        "run_has_incidents",
        failure(&run, Check::HasActiveIncidents(true))
    );
    insta::assert_snapshot!(
        "run_incident",
        failure(
            &run,
            Check::Incident(IncidentExpectation::at("ship").of_type(ErrorType::JobNoRetries))
        )
    );
    insta::assert_snapshot!(
        "run_failed",
        failure(
            &run,
            Check::Failed {
                message_contains: None
            }
        )
    );
    test.mock_job("shipping").fail("carrier down");
    insta::assert_snapshot!(
        "run_no_incidents",
        failure(&run, Check::HasActiveIncidents(false))
    );
    insta::assert_snapshot!(
        "run_incident_other_type",
        failure(
            &run,
            Check::Incident(IncidentExpectation::any().of_type(ErrorType::IoMappingError))
        )
    );
    insta::assert_snapshot!(
        "run_failed_with",
        failure(
            &run,
            Check::Failed {
                message_contains: Some("timeout".into())
            }
        )
    );
}

fn ids(list: &[&str]) -> Vec<ElementSelector> {
    list.iter().map(|s| ElementSelector::from(*s)).collect()
}

#[test]
fn element_states() {
    let (_test, run) = waiting_at_ship();
    let elements = |list: &[&str], state| {
        failure(
            &run,
            Check::Elements {
                elements: ids(list),
                state,
            },
        )
    };
    insta::assert_snapshot!(
        "elements_passed",
        elements(&["charge", "ship", "done"], ElementsState::Completed)
    );
    insta::assert_snapshot!(
        "elements_not_passed",
        elements(&["start", "ship"], ElementsState::NotCompleted)
    );
    insta::assert_snapshot!(
        "elements_waiting_at",
        elements(&["charge"], ElementsState::Active)
    );
    insta::assert_snapshot!(
        "elements_not_waiting_at",
        elements(&["ship"], ElementsState::NotActive)
    );
    insta::assert_snapshot!(
        "elements_not_entered",
        elements(&["charge", "done"], ElementsState::NotActivated)
    );
    insta::assert_snapshot!(
        "elements_waiting_exactly",
        elements(&["charge"], ElementsState::ActiveExactly)
    );
    insta::assert_snapshot!(
        "elements_terminated",
        elements(&["ship"], ElementsState::Terminated)
    );
    insta::assert_snapshot!(
        "elements_in_order",
        elements(&["charge", "start"], ElementsState::CompletedInOrder)
    );
    insta::assert_snapshot!(
        "elements_in_order_missing",
        elements(&["start", "done"], ElementsState::CompletedInOrder)
    );
    let by_name = failure(
        &run,
        Check::Elements {
            elements: vec![ElementSelector::Name("Shipped".into())],
            state: ElementsState::Completed,
        },
    );
    insta::assert_snapshot!("elements_by_name", by_name);
}

#[test]
fn element_counts() {
    let (_test, run) = waiting_at_ship();
    let count = |id: &str, state, amount| {
        failure(
            &run,
            Check::ElementCount {
                element: id.into(),
                state,
                amount,
            },
        )
    };
    insta::assert_snapshot!(
        "count_completed_times",
        count("charge", ElementState::Completed, 2)
    );
    insta::assert_snapshot!("count_active_times", count("ship", ElementState::Active, 2));
    insta::assert_snapshot!(
        "count_terminated_times",
        count("ship", ElementState::Terminated, 1)
    );
}

#[test]
fn variables() {
    let (_test, run) = waiting_at_ship();
    let vars = |expected: serde_json::Value, matching| {
        failure(
            &run,
            Check::Variables {
                scope: VariableScope::Root,
                expected: expected.as_object().unwrap().clone(),
                matching,
            },
        )
    };
    insta::assert_snapshot!(
        "variables_exact",
        vars(
            json!({"amount": 41, "paid": true, "receipt": {"id": "R-1"}, "missing": 1}),
            Matching::Exact
        )
    );
    insta::assert_snapshot!(
        "variables_partial",
        vars(
            json!({"receipt": {"id": "R-2", "lines": [1, 2]}, "customer": {"name": "Bob"}}),
            Matching::Partial
        )
    );
    insta::assert_snapshot!(
        "variables_names",
        failure(
            &run,
            Check::VariableNames {
                scope: VariableScope::Root,
                names: vec!["amount".into(), "tracking".into()]
            }
        )
    );
    insta::assert_snapshot!(
        "variables_local_no_instance",
        failure(
            &run,
            Check::Variables {
                scope: VariableScope::Local("done".into()),
                expected: json!({"a": 1}).as_object().unwrap().clone(),
                matching: Matching::Exact,
            }
        )
    );
}

#[test]
fn user_tasks_and_decisions() {
    let (_test, run) = waiting_at_ship();
    insta::assert_snapshot!(
        "check_user_task",
        failure(
            &run,
            Check::UserTask {
                task: UserTaskSelector {
                    element_id: Some("review".into()),
                    name: None
                },
                expected: UserTaskExpectation {
                    assignee: Some("anna".into()),
                    ..Default::default()
                },
            }
        )
    );
    insta::assert_snapshot!(
        "check_decision",
        failure(
            &run,
            Check::Decision {
                decision_id: "discount".into(),
                expected: DecisionExpectation {
                    output: Some(json!(15)),
                    ..Default::default()
                },
            }
        )
    );
}

#[test]
fn run_errors_are_printed_by_every_assertion() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    test.mock_job("payment").complete_with_example_data();
    let run = test.start("order", ());
    insta::assert_snapshot!(failure(
        &run,
        Check::InstanceState(InstanceState::Completed)
    ));
}

#[test]
fn messages_decisions_and_local_variables() {
    let test = ProcessTest::new();
    test.deploy_file(bpmn("payment.bpmn")).unwrap();
    test.deploy_file(bpmn("approval.bpmn")).unwrap();
    test.mock_decision("discount", json!({"rate": 10}));
    let payment = test.start("payment", json!({"orderId": "o-1"}));
    let subscription = |state| {
        failure(
            &payment,
            Check::MessageSubscription {
                message_name: "payment-received".into(),
                correlation_key: Some("o-1".into()),
                state,
            },
        )
    };
    insta::assert_snapshot!(
        "message_not_waiting",
        subscription(SubscriptionState::NotWaiting)
    );
    insta::assert_snapshot!(
        "message_correlated",
        subscription(SubscriptionState::Correlated)
    );

    let approval = test.start("approval", json!({"amount": 5}));
    insta::assert_snapshot!(
        "decision_output",
        failure(
            &approval,
            Check::Decision {
                decision_id: "discount".into(),
                expected: DecisionExpectation {
                    output: Some(json!({"rate": 15})),
                    ..Default::default()
                },
            }
        )
    );
    approval.set_local_variables("review", json!({"note": "urgent"}));
    insta::assert_snapshot!(
        "local_variables",
        failure(
            &approval,
            Check::Variables {
                scope: VariableScope::Local("review".into()),
                expected: json!({"note": "later", "owner": "anna"})
                    .as_object()
                    .unwrap()
                    .clone(),
                matching: Matching::Exact,
            }
        )
    );
    approval.assert_local_variables("review", json!({"note": "urgent"}));
}
