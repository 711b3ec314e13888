//! The ai-agent-tool-loop template explored.

use baton_testing::explore::{AgentSpace, Invariant, Space};
use baton_testing::{Answer, ProcessTest};
use serde_json::json;

const TEMPLATE: &str =
    include_str!("../../../../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn");

fn template() -> ProcessTest {
    let test = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", TEMPLATE).unwrap();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns"]}));
    test.mock_job("email-send").complete();
    test.mock_job("support-alert").complete();
    test
}

#[test]
fn first_look() {
    let test = template();
    let space = Space::start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
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
    .max_model_calls(2);
    let report = test
        .explore(
            &space,
            [
                Invariant::never_before("create-ticket", "lookup-order"),
                Invariant::no_incident(),
                Invariant::reaches("queue-for-human"),
            ],
        )
        .unwrap();
    println!("{report}");
    println!(
        "{}",
        serde_json::to_string_pretty(&report.counterexample(0).unwrap().case).unwrap()
    );
}
