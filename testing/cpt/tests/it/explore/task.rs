//! The AI Agent Task flavour explored: a counterexample replays under the CPT runner.

use baton_cpt::{Options, Outcome};
use baton_testing::explore::{AgentSpace, Invariant, Space};
use baton_testing::{Answer, ProcessTest};
use serde_json::json;

const TEMPLATE: &str =
    include_str!("../../../../../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn");

fn task_template() -> ProcessTest {
    let test = ProcessTest::from_xml("ai-agent-task-tool-loop.bpmn", TEMPLATE).unwrap();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns"]}));
    test.mock_job("email-send").complete();
    test.mock_job("support-alert").complete();
    test
}

fn space(calls: u32) -> Space {
    Space::start(
        "ai-agent-task-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken.", "customerEmail": "kim@example.com"}),
    )
    .agent(
        AgentSpace::new("support-agent")
            .max_tools_per_turn(2)
            .values("create-ticket", "priority", [json!("high")]),
    )
    .outcomes(
        "ticket-create",
        [
            Answer::complete(json!({"ticketId": "T-1"})),
            Answer::throw_error("TICKET_FAILED", "the ticket system is down"),
        ],
    )
    .max_model_calls(calls)
}

#[test]
fn an_ai_agent_task_counterexample_replays_under_the_cpt_runner() {
    let report = task_template()
        .explore(
            &space(2),
            [Invariant::never_before("create-ticket", "lookup-order")],
        )
        .unwrap();
    let found = report.counterexample(0).unwrap();
    let dir = crate::support::temp_dir("explore-task");
    std::fs::write(dir.join("ai-agent-task-tool-loop.bpmn"), TEMPLATE).unwrap();
    let written = found.write_to(&dir, "ticket-before-lookup").unwrap();
    let run = baton_cpt::run(&[&written.test_file], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
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
}
