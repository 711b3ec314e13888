//! The mock's failures: the script and the process disagree, and the run fails with a message.

use baton_testing::agent::{
    AgentMockFailureKind, AgentScript, AiAgentMock, Cassette, ToolCall, Turn,
};
use serde_json::json;

use super::harness::{Ahsp, SUPPORT_TOOL_ORDER, support_data, support_tools};

fn failure(script: impl Into<AgentScript>) -> (AgentMockFailureKind, String) {
    let mut ahsp = Ahsp::new(
        "support-agent",
        support_tools(),
        support_data("My order 1042 arrived broken."),
    );
    let mut mock = AiAgentMock::new("support-agent", script)
        .unwrap()
        .with_tool_order(SUPPORT_TOOL_ORDER);
    let failure = ahsp
        .run(&mut mock, Ahsp::support_tool)
        .expect_err("the mock fails the run");
    (failure.kind, failure.message)
}

#[test]
fn unknown_tool() {
    let (kind, message) = failure([Turn::call("issue-refund", json!({"orderId": "1042"}))]);
    assert_eq!(kind, AgentMockFailureKind::UnknownTool);
    assert!(message.starts_with(r#"unknown tool "issue-refund". Tools of "support-agent": search-kb, lookup-order, create-ticket"#));
    insta::assert_snapshot!(message);
}

#[test]
fn undeclared_argument() {
    let (kind, message) = failure([Turn::call(
        "create-ticket",
        json!({"summary": "broken", "title": "Broken"}),
    )]);
    assert_eq!(kind, AgentMockFailureKind::WrongArguments);
    insta::assert_snapshot!(message);
}

#[test]
fn missing_required_parameter() {
    let (_, message) = failure([Turn::call("create-ticket", json!({"priority": "high"}))]);
    insta::assert_snapshot!(message);
}

#[test]
fn arguments_named_with_the_tool_call_prefix() {
    let (_, message) = failure([Turn::call(
        "lookup-order",
        json!({"toolCall.orderId": "1042"}),
    )]);
    insta::assert_snapshot!(message);
}

#[test]
fn wrong_type_and_enum_value() {
    let (_, message) = failure([Turn::call(
        "create-ticket",
        json!({"summary": 42, "priority": "urgent"}),
    )]);
    insta::assert_snapshot!(message);
}

#[test]
fn script_too_short() {
    let (kind, message) = failure([
        Turn::call("lookup-order", json!({"orderId": "1042"})),
        Turn::tool_calls([ToolCall::new("lookup-order", json!({"orderId": "1043"}))]),
    ]);
    assert_eq!(kind, AgentMockFailureKind::ScriptExhausted);
    assert_eq!(
        message,
        "the script has no turn 3 — it has 2, all played. The agent asked the model again with results from lookup-order. The process needed a model call that the script does not have: add a turn, or re-record the cassette."
    );
}

#[test]
fn cassette_too_short() {
    let cassette = Cassette::new("support-agent", vec![]);
    let (_, message) = failure(AgentScript::Cassette {
        cassette,
        source: "damaged-order.cassette.json".into(),
    });
    insta::assert_snapshot!(message, @r#"the cassette has no turn 1 — it has 0, all played. The agent asked the model with the user prompt "My order 1042 arrived broken.". The process needed a model call that the cassette does not have: add a turn, or re-record the cassette."#);
}

#[test]
fn a_cassette_for_another_agent_refuses_to_replay() {
    let cassette = Cassette::new("billing-agent", vec![Turn::respond_text("hi")]);
    let error = AiAgentMock::new(
        "support-agent",
        AgentScript::Cassette {
            cassette,
            source: "billing.cassette.json".into(),
        },
    )
    .unwrap_err();
    assert_eq!(error.kind, AgentMockFailureKind::WrongCassette);
    insta::assert_snapshot!(error.message, @r#"cassette billing.cassette.json was recorded for the agent "billing-agent" and cannot replay "support-agent": use the cassette of "support-agent", or record one"#);
}

#[test]
fn invalid_turns_fail_when_the_mock_is_made() {
    let script = vec![
        Turn::tool_calls([]),
        Turn::tool_calls([
            ToolCall::new("a", json!([1])).with_id("x"),
            ToolCall::new("b", json!({})).with_id("x"),
        ]),
    ];
    let error = AiAgentMock::new("support-agent", script).unwrap_err();
    assert_eq!(error.kind, AgentMockFailureKind::InvalidTurn);
    insta::assert_snapshot!(error.message);
}

#[test]
fn a_handler_returning_an_invalid_turn() {
    let (kind, message) = failure(AgentScript::handler(|_| Turn::tool_calls([])));
    assert_eq!(kind, AgentMockFailureKind::InvalidTurn);
    insta::assert_snapshot!(message);
}

#[test]
fn unused_turns() {
    let mut ahsp = Ahsp::new("support-agent", support_tools(), support_data("Hi"));
    let mut mock = AiAgentMock::new(
        "support-agent",
        [
            Turn::respond_json(json!({"answer": "hi", "resolved": true})),
            Turn::call("search-kb", json!({"query": "x"})),
            Turn::error("late"),
        ],
    )
    .unwrap();
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();
    insta::assert_snapshot!(mock.check_all_turns_used().unwrap_err());
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        mock.assert_all_turns_used()
    }))
    .unwrap_err();
    assert!(
        panic
            .downcast_ref::<String>()
            .unwrap()
            .starts_with("the script of \"support-agent\" has 2 unused turns")
    );
}

#[test]
fn a2a_gateway_tools_are_named() {
    let mut elements = support_tools();
    elements.as_array_mut().unwrap().push(json!({"elementId": "Helper", "properties": {"io.camunda.agenticai.gateway.type": "a2aClient"}}));
    let mut ahsp = Ahsp::new("support-agent", elements, support_data("Hi"));
    let mut mock = AiAgentMock::new("support-agent", [Turn::respond_text("hi")]).unwrap();
    let error = ahsp.run_job(&mut mock).unwrap_err();
    assert_eq!(error.kind, AgentMockFailureKind::Unsupported);
    insta::assert_snapshot!(error.message, @r#"the agent "support-agent" has A2A client tools (Helper (a2aClient)); the mock does not play their agent-card discovery yet"#);
}

#[test]
fn a_handler_sees_the_request_and_its_turns_become_a_cassette() {
    let mut ahsp = Ahsp::new(
        "support-agent",
        support_tools(),
        support_data("Where is 1042?"),
    );
    let mut mock = AiAgentMock::new(
        "support-agent",
        AgentScript::handler(|request| {
            if request.tool_call_results.as_array().unwrap().is_empty() {
                Turn::call("lookup-order", json!({"orderId": "1042"}))
            } else {
                let status = request.tool_call_results[0]["content"]["status"]
                    .as_str()
                    .unwrap()
                    .to_string();
                Turn::respond_json(json!({"answer": format!("It is {status}."), "resolved": true}))
            }
        }),
    )
    .unwrap();
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();
    assert_eq!(mock.remaining_turns(), 0);
    insta::assert_snapshot!(mock.cassette().to_pretty_string());
    // Replaying the recording gives the same conversation.
    let mut replay_ahsp = Ahsp::new(
        "support-agent",
        support_tools(),
        support_data("Where is 1042?"),
    );
    let mut replay = AiAgentMock::new("support-agent", mock.cassette()).unwrap();
    replay_ahsp.run(&mut replay, Ahsp::support_tool).unwrap();
    assert_eq!(replay_ahsp.answers, ahsp.answers);
}
