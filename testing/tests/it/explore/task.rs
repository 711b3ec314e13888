//! The AI Agent Task flavour explored: the agent is a service task and its tools sit in an
//! ad-hoc sub-process the process loops through (the ai-agent-task-tool-loop template).

use baton_testing::explore::{AgentSpace, EndState, Invariant, Space};
use baton_testing::{Answer, ProcessTest};
use serde_json::json;

use super::template::without_time;

const TEMPLATE: &str =
    include_str!("../../../../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn");

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

fn invariants() -> Vec<Invariant> {
    vec![
        Invariant::never_before("create-ticket", "lookup-order"),
        Invariant::no_incident(),
        Invariant::ends_in([
            EndState::Completed,
            EndState::WaitingAt("queue-for-human".into()),
        ]),
        Invariant::reaches("send-answer"),
    ]
}

#[test]
fn an_ai_agent_task_is_explored_like_a_sub_process() {
    let report = task_template().explore(&space(2), invariants()).unwrap();
    assert_eq!(report.run_errors, 0, "{report}");
    let ticket_first = report
        .counterexample(0)
        .expect("a ticket before the lookup");
    assert_eq!((ticket_first.model_calls, ticket_first.tool_calls), (1, 1));
    assert!(report.checks[3].holds(), "some run sends the answer");
    insta::assert_snapshot!(without_time(&report.to_string()));
}

/// The v2 AI Agent Task connector (aiagent:task:2) on the same process: the same choices.
#[test]
fn the_v2_ai_agent_task_is_explored_like_v1() {
    let v2 = TEMPLATE.replace(
        "io.camunda.agenticai:aiagent:1",
        "io.camunda.agenticai:aiagent:task:2",
    );
    assert_ne!(v2, TEMPLATE);
    let test = ProcessTest::from_xml("ai-agent-task-tool-loop.bpmn", &v2).unwrap();
    for (job_type, variables) in [
        (
            "order-lookup",
            json!({"order": {"id": "1042", "status": "delivered"}}),
        ),
        ("kb-search", json!({"articles": ["Returns"]})),
        ("email-send", json!({})),
        ("support-alert", json!({})),
    ] {
        test.mock_job(job_type).complete_with(variables);
    }
    let on_v2 = test.explore(&space(2), invariants()).unwrap();
    let on_v1 = task_template().explore(&space(2), invariants()).unwrap();
    assert_eq!(on_v2.counts(), on_v1.counts());
    assert_eq!(on_v2.run_errors, 0, "{on_v2}");
}
