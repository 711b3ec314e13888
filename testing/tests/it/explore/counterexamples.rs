//! Counterexamples: a planted bug found and shrunk to the shortest trajectory that shows it; its
//! cassette and CPT case replay it under the CPT runner and fail the same way.

use baton_testing::ProcessTest;
use baton_testing::explore::{AgentSpace, Invariant, Space};
use serde_json::json;

use super::template::without_time;
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
fn a_planted_bug_is_found_and_shrunk_to_its_shortest_trajectory() {
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
        .max_tools_per_turn(2)
        .max_model_calls(3);
    let report = refund_desk()
        .explore(
            &space,
            [Invariant::never_before("issue-refund", "lookup-order")],
        )
        .unwrap();
    let found = report.counterexample(0).expect("the bug is found");
    // No single call reaches the refund (with no result yet the guard refuses); two do.
    assert_eq!((found.model_calls, found.tool_calls), (2, 2));
    insta::assert_snapshot!(without_time(&report.to_string()));
}

/// With states pruned as seen before, the report still does not depend on the threads.
#[test]
fn pruning_does_not_depend_on_the_number_of_threads() {
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
        .max_tools_per_turn(2)
        .max_model_calls(3);
    let invariants = || [Invariant::never_before("issue-refund", "lookup-order")];
    let counts = |threads| {
        let report = refund_desk()
            .explore(&space.clone().threads(threads), invariants())
            .unwrap();
        assert!(report.pruned > 0);
        (
            report.counts(),
            report.checks[0].count,
            report.counterexample(0).unwrap().choices.clone(),
        )
    };
    assert_eq!(counts(1), counts(2));
    assert_eq!(counts(2), counts(3));
}

/// The time limit cuts a search off and the report says so.
#[test]
fn a_time_limit_cuts_the_search_off() {
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
        .max_tools_per_turn(2)
        .max_model_calls(6)
        .time_limit(std::time::Duration::from_millis(50));
    let report = refund_desk().explore(&space, []).unwrap();
    let why = report.cut_off.expect("cut off");
    assert!(why.starts_with("the time limit was reached"), "{why}");
}

/// A worker's declared side effect goes into each run's ledger: the model opening the same
/// ticket twice breaks "at most once per key".
#[test]
fn a_repeated_side_effect_breaks_at_most_once_per_key() {
    use baton_testing::faults::Jobs;
    use baton_testing::side_effects::DeclaredSideEffect;
    let test = super::template::template();
    test.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-1"}));
    test.declare_side_effect(
        Jobs::of_type("ticket-create"),
        DeclaredSideEffect::keyed_by("summary").unwrap(),
    );
    let space = Space::start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    )
    .max_model_calls(3);
    let report = test
        .explore(&space, [Invariant::at_most_once_per_key("ticket-create")])
        .unwrap();
    let found = report.counterexample(0).expect("found");
    assert_eq!((found.model_calls, found.tool_calls), (2, 2));
    assert_eq!(
        found.message,
        "a second side effect of \"ticket-create\" with the key \"summary\""
    );
    // The CPT replay completes tool jobs itself, which no ledger records: no case is written.
    let why = found.case.as_ref().unwrap_err();
    assert!(
        why.reason.contains("mock worker's completions only"),
        "{why}"
    );
    // Deduplicated by the outside world, the second request does nothing.
    let test = super::template::template();
    test.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-1"}));
    test.declare_side_effect(
        Jobs::of_type("ticket-create"),
        DeclaredSideEffect::keyed_by("summary")
            .unwrap()
            .deduplicated(),
    );
    let report = test
        .explore(&space, [Invariant::at_most_once_per_key("ticket-create")])
        .unwrap();
    assert!(report.checks[0].holds());
}

/// Faults injected into the test are refused: exploration plays tool outcomes instead.
#[test]
fn injected_faults_are_refused() {
    use baton_testing::faults::{JobFault, Jobs};
    let test = refund_desk();
    test.inject_fault(Jobs::of_type("kb-search"), JobFault::fail("down"));
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}));
    let error = test.explore(&space, []).unwrap_err();
    insta::assert_snapshot!(error.to_string(), @"cannot explore: the test injects 1 fault(s), which exploration does not play: give the tools' outcomes in the space instead (Space::outcomes: a failure, a BPMN error)");
}

/// Coverage over every explored run names what no choice of the model reaches: a tool the space
/// leaves out, and the branch behind the refund's guard when one model call is all there is.
#[test]
fn coverage_names_the_tools_and_branches_no_choice_reaches() {
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
        .agent(AgentSpace::new("refund-desk").tools(["search-kb", "refund"]))
        .max_model_calls(1);
    let report = refund_desk().explore(&space, []).unwrap();
    let [reach] = report.coverage.processes.as_slice() else {
        panic!("one process: {:?}", report.coverage)
    };
    assert_eq!(reach.dead_tools, ["lookup-order"]);
    assert_eq!(reach.dead_elements, ["lookup-order", "issue-refund"]);
    assert_eq!(reach.dead_flows, ["flow-issue"]);
    let text = report.to_string();
    assert!(
        text.contains("tools no choice reaches: lookup-order"),
        "{text}"
    );
    let json = report.to_json();
    assert_eq!(json["coverage"][0]["deadTools"], json!(["lookup-order"]));
    // The coverage file (what `baton coverage report` and the HTML report read) agrees.
    let [process] = report.coverage_file.processes.as_slice() else {
        panic!("one process in the coverage file")
    };
    assert!(process.tools.contains(&"lookup-order".to_string()));
    assert!(
        !process
            .covered_elements
            .contains(&"lookup-order".to_string())
    );
    assert!(process.covered_elements.contains(&"search-kb".to_string()));
    assert!(!process.taken_flows.contains(&"flow-issue".to_string()));
}

/// When a turn runs two tools, which finishes first is a choice: it decides the order of the
/// results the agent reads next. One model call (the next one is cut) with a response and three
/// tool turns, in document order: four runs, and the two-tool turn forks once more (the states
/// at a choice: the model call and the finish order).
#[test]
fn the_order_in_which_two_tools_finish_is_a_choice() {
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
        .agent(
            AgentSpace::new("refund-desk")
                .tools(["lookup-order", "search-kb"])
                .max_tools_per_turn(2)
                .in_document_order()
                .only_given_responses()
                .response(baton_testing::agent::Turn::respond_text("done")),
        )
        .max_model_calls(1);
    let report = refund_desk().explore(&space, []).unwrap();
    assert_eq!(
        report.counts(),
        "5 trajectories (4 cut at the model-call bound), 2 distinct states, 0 pruned"
    );
}

/// A random walk finds the planted bug on a longer trajectory than it needs; the counterexample
/// it reports is shrunk to the shortest one, whatever the seed.
#[test]
fn a_sampled_counterexample_is_shrunk_to_the_shortest_trajectory() {
    for seed in 1..=4 {
        let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
            .max_tools_per_turn(2)
            .max_model_calls(5)
            .sample(seed, 40);
        let report = refund_desk()
            .explore(
                &space,
                [Invariant::never_before("issue-refund", "lookup-order")],
            )
            .unwrap();
        let found = report.counterexample(0).expect("the bug is found");
        assert_eq!((found.model_calls, found.tool_calls), (2, 2), "seed {seed}");
    }
}

/// `Report::assert_holds` panics with the report when an invariant breaks, and passes (giving
/// the report back) when every invariant holds and every goal is reached.
#[test]
fn assert_holds_panics_with_the_report_unless_every_invariant_holds() {
    let space = Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
        .max_model_calls(3);
    let report = refund_desk()
        .explore(
            &space,
            [
                Invariant::never_before("issue-refund", "lookup-order"),
                Invariant::no_incident(),
            ],
        )
        .unwrap();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        report.assert_holds();
    }))
    .unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    insta::assert_snapshot!(without_time(&message));
    let report = refund_desk()
        .explore(&space, [Invariant::no_incident()])
        .unwrap();
    report.assert_holds();
}
