//! A space that does not fit the deployment is refused before anything runs, with what to do.

use baton_testing::explore::{AgentSpace, Invariant, Space};
use baton_testing::{Answer, ProcessTest};
use serde_json::json;

use crate::support::bpmn;

fn start() -> Space {
    Space::start("refund-agent", json!({"customerMessage": "Refund order 7"}))
}

#[test]
fn every_problem_is_named_before_the_search() {
    let test = ProcessTest::from_file(bpmn("refund-agent.bpmn")).unwrap();
    let order = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let closure = ProcessTest::from_file(bpmn("refund-agent.bpmn")).unwrap();
    closure
        .mock_job("kb-search")
        .complete_with_fn(|_| json!({"articles": []}));
    let cases: Vec<(&str, &ProcessTest, Space, Vec<Invariant>)> = vec![
        (
            "unknown process",
            &test,
            Space::start("refunds", ()),
            vec![],
        ),
        (
            "not an agent",
            &test,
            start().agent(AgentSpace::new("lookup-order")),
            vec![],
        ),
        (
            "unknown tool",
            &test,
            start().agent(AgentSpace::new("refund-desk").tools(["refund", "cancel-order"])),
            vec![],
        ),
        (
            "unknown parameter",
            &test,
            start().agent(AgentSpace::new("refund-desk").values(
                "lookup-order",
                "id",
                [json!("7")],
            )),
            vec![],
        ),
        (
            "value against the schema",
            &test,
            start().agent(AgentSpace::new("refund-desk").values(
                "lookup-order",
                "orderId",
                [json!(7)],
            )),
            vec![],
        ),
        ("no model calls", &test, start().max_model_calls(0), vec![]),
        (
            "no time",
            &test,
            start().time_limit(std::time::Duration::ZERO),
            vec![],
        ),
        (
            "an agent with nothing to answer",
            &test,
            start().agent(
                AgentSpace::new("refund-desk")
                    .tools(Vec::<String>::new())
                    .only_given_responses(),
            ),
            vec![],
        ),
        (
            "absurd model calls",
            &test,
            start().max_model_calls(5_000),
            vec![],
        ),
        (
            "no tools per turn",
            &test,
            start().max_tools_per_turn(0),
            vec![],
        ),
        (
            "no trajectories",
            &test,
            start().max_trajectories(0),
            vec![],
        ),
        (
            "absurd trajectories",
            &test,
            start().max_trajectories(u64::MAX),
            vec![],
        ),
        ("no sampled runs", &test, start().sample(1, 0), vec![]),
        (
            "no outcomes",
            &test,
            start().outcomes("kb-search", []),
            vec![],
        ),
        ("shard out of range", &test, start().shard(3, 2), vec![]),
        ("shard 0/0", &test, start().shard(0, 0), vec![]),
        (
            "outcomes for a job type no process has",
            &test,
            start().outcomes("refund-isue", [Answer::complete(json!({}))]),
            vec![],
        ),
        (
            "at most once per key of a job type no process has",
            &test,
            start(),
            vec![Invariant::at_most_once_per_key("refunds")],
        ),
        (
            "at most once per key with no side effect declared",
            &test,
            start(),
            vec![Invariant::at_most_once_per_key("refund-issue")],
        ),
        (
            "unknown element in an invariant",
            &test,
            start(),
            vec![Invariant::never_before("issue-refund", "approve")],
        ),
        (
            "condition that is not FEEL",
            &test,
            start(),
            vec![Invariant::condition("agent.context.metrics.modelCalls <")],
        ),
        ("a mock a fork cannot copy", &closure, start(), vec![]),
        (
            "nothing to choose",
            &order,
            Space::start("order", json!({"amount": 1})),
            vec![],
        ),
        (
            "a given response calling an unknown tool",
            &test,
            start().agent(
                AgentSpace::new("refund-desk")
                    .response(baton_testing::agent::Turn::call("cancel", json!({}))),
            ),
            vec![],
        ),
        (
            "a given response with arguments against the schema",
            &test,
            start().agent(AgentSpace::new("refund-desk").response(
                baton_testing::agent::Turn::call("lookup-order", json!({"orderId": 7})),
            )),
            vec![],
        ),
    ];
    let mut messages = String::new();
    for (name, test, space, invariants) in cases {
        let error = test.explore(&space, invariants).unwrap_err();
        messages.push_str(&format!("{name}:\n  {error}\n"));
    }
    insta::assert_snapshot!(messages);
}

#[test]
fn a_space_too_large_for_the_bounds_is_cut_off_and_says_where() {
    let test = ProcessTest::from_file(bpmn("refund-agent.bpmn")).unwrap();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {}}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": []}));
    test.mock_job("refund-issue")
        .answer(Answer::complete(json!({"refundId": "R-1"})));
    let report = test
        .explore(&start().max_model_calls(4).max_trajectories(100), [])
        .unwrap();
    assert!(report.cut_off.is_some());
    assert!(report.trajectories <= 100, "{}", report.trajectories);
    insta::assert_snapshot!(report.counts());
}

/// A side effect declared at the tool's element, not by job type, is what "at most once per key"
/// of the element's job type checks.
#[test]
fn a_side_effect_declared_at_an_element_counts_for_its_job_type() {
    use baton_testing::faults::Jobs;
    use baton_testing::side_effects::DeclaredSideEffect;
    let test = ProcessTest::from_file(bpmn("refund-agent.bpmn")).unwrap();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "7", "damaged": true}}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": []}));
    test.mock_job("refund-issue")
        .complete_with(json!({"refundId": "R-1"}));
    test.declare_side_effect(
        Jobs::at_element("issue-refund"),
        DeclaredSideEffect::keyed_by("\"one refund\"").unwrap(),
    );
    let report = test
        .explore(
            &start().max_model_calls(1),
            [Invariant::at_most_once_per_key("refund-issue")],
        )
        .unwrap();
    assert!(report.checks[0].holds());
}

/// A bound of one trajectory is a bound like any other: the report says it was reached.
#[test]
fn a_bound_of_one_trajectory_cuts_the_search_after_it() {
    let test = ProcessTest::from_file(bpmn("refund-agent.bpmn")).unwrap();
    test.mock_job("kb-search")
        .complete_with(json!({"articles": []}));
    let report = test.explore(&start().max_trajectories(1), []).unwrap();
    insta::assert_snapshot!(report.counts(), @"1 trajectory (0 cut at the model-call bound), 1 distinct state, 0 pruned; cut off: the bound of 1 trajectory was reached");
}
