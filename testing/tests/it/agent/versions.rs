//! What changed for a test in the 8.10 connectors: the content filter's error
//! (`MODEL_RESPONSE_CONTENT_FILTERED`), the v2 connectors' provider, and a template version
//! baton does not know (played as the nearest known one, with a note).

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::agent::{AgentStatus, ExpectedAgentInstance, ExpectedMetrics, Turn};
use serde_json::json;

fn template(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../templates/{name}/{name}.bpmn"))
}

/// camunda/connectors `aiagent/agent/BaseAgentRequestHandler.java` `throwIfContentFiltered`:
/// an answer the provider's content filtering blocked fails the job with
/// `MODEL_RESPONSE_CONTENT_FILTERED`, in both flavours; nothing of the turn is kept.
#[test]
fn a_content_filtered_answer_fails_the_job_with_model_response_content_filtered() {
    for name in ["ai-agent-tool-loop", "ai-agent-task-tool-loop"] {
        let t = ProcessTest::from_file(template(name)).unwrap();
        let agent = t.mock_ai_agent(
            "support-agent",
            [
                Turn::content_filtered(),
                Turn::content_filtered(),
                Turn::content_filtered(),
            ],
        );
        let run = t.start(name, json!({"customerMessage": "Hello?"}));
        // Three attempts, 30 s apart (the template's retries and retryBackoff): a move fires
        // what is due at its end once, so each backoff is its own move.
        t.advance_time(std::time::Duration::from_secs(30));
        t.advance_time(std::time::Duration::from_secs(30));
        let incident = run.incidents().into_iter().next().expect("an incident");
        assert_eq!(
            &*incident.error_message,
            "Model response was blocked by provider content filtering. | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model response was blocked by provider content filtering., code=MODEL_RESPONSE_CONTENT_FILTERED}}",
            "{name}"
        );
        agent.assert_agent_instance(
            ExpectedAgentInstance::new()
                .status(AgentStatus::Thinking)
                .metrics(ExpectedMetrics::new().model_calls(0).tool_calls(0))
                .history_roles([]),
        );
    }
}

/// The turn's JSON form: `{"contentFiltered": true}`.
#[test]
fn a_content_filtered_turn_reads_and_writes_as_json() {
    let turn = Turn::from_json(&json!({"contentFiltered": true}), "turns[0]").unwrap();
    assert_eq!(turn, Turn::content_filtered());
    assert_eq!(turn.to_json(), json!({"contentFiltered": true}));
    let wrong = Turn::from_json(&json!({"contentFiltered": "yes"}), "turns[0]").unwrap_err();
    insta::assert_snapshot!(wrong.to_string(), @r#"turns[0].contentFiltered must be true (the provider blocked the answer), got "yes""#);
}

/// The v2 connector (`AgentSubProcessV2Function`, `io.camunda.agenticai:aiagent:subprocess:2`)
/// plays the same conversation, with its `custom` provider (`CustomProviderConfiguration`).
#[test]
fn the_v2_sub_process_connector_plays_the_worked_example() {
    let t = ProcessTest::from_file(template("ai-agent-tool-loop-v2")).unwrap();
    t.mock_job("order-lookup")
        .complete_with_fn(|job| json!({"order": {"id": job.variable("orderId"), "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    let agent = t.mock_ai_agent(
        "support-agent",
        [
            Turn::call("lookup-order", json!({"orderId": "1042"})),
            Turn::respond_json(json!({"answer": "It is on its way.", "resolved": true})),
        ],
    );
    let run = t.start(
        "ai-agent-tool-loop-v2",
        json!({"customerMessage": "Where is 1042?"}),
    );
    run.assert_completed();
    run.assert_passed_in_order(["support-agent", "send-answer", "answered"]);
    agent.assert_called_tools(["lookup-order"]);
    assert!(agent.notes().is_empty(), "{:?}", agent.notes());
}

/// `CustomProviderConfiguration`: `providerType` and `model` are @NotBlank; a violation fails
/// the job at once (no retries), as the connector runtime's input validation does.
#[test]
fn a_blank_v2_provider_type_is_an_input_violation() {
    let xml = std::fs::read_to_string(template("ai-agent-tool-loop-v2"))
        .unwrap()
        .replace(
            r#"<zeebe:input source="llm-gateway" target="provider.providerType" />"#,
            "",
        );
    let t = ProcessTest::from_xml("v2.bpmn", &xml).unwrap();
    t.mock_ai_agent("support-agent", [Turn::respond_text("hi")]);
    let run = t.start("ai-agent-tool-loop-v2", json!({"customerMessage": "Hi"}));
    let incident = run.incidents().into_iter().next().expect("an incident");
    assert!(
        incident
            .error_message
            .contains(" - provider.providerType: must not be blank"),
        "{}",
        incident.error_message
    );
}

/// A template version baton does not know is played as the nearest known one, with a note.
#[test]
fn an_unknown_template_version_is_played_as_the_nearest_known_with_a_note() {
    let xml = std::fs::read_to_string(template("ai-agent-tool-loop"))
        .unwrap()
        .replace(
            r#"zeebe:modelerTemplateVersion="11""#,
            r#"zeebe:modelerTemplateVersion="12""#,
        );
    let t = ProcessTest::from_xml("v12.bpmn", &xml).unwrap();
    let agent = t.mock_ai_agent(
        "support-agent",
        [Turn::respond_json(
            json!({"answer": "Hi", "resolved": true}),
        )],
    );
    assert_eq!(
        agent.notes(),
        [
            r#""support-agent" applies the AI Agent Sub-process template (io.camunda.connectors.agenticai.aiagent.jobworker.v1) version 12, which baton does not know: played as version 11"#
        ]
    );
}

/// The tool results of the second model call, as the mock received them, by tool name.
fn result_times(agent: &baton_testing::agent::AiAgentHandle) -> Vec<(String, serde_json::Value)> {
    let requests = agent.requests();
    let messages = &requests[1].messages;
    let results = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "tool_call_result")
        .expect("a tool result message")["results"]
        .as_array()
        .unwrap()
        .clone();
    results
        .into_iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["completedAt"].clone(),
            )
        })
        .collect()
}

/// Template v11 of the AI Agent Sub-process (camunda/connectors
/// `element-templates/agenticai-aiagent-job-worker.json`, version 11) adds `completedAt: now()`
/// to its `outputElement` (v10, `versioned/agenticai-aiagent-job-worker-10.json`, has
/// `{id, name, content}`): each result carries the time its tool completed, by the engine's
/// clock. Without it the connector stamps the results when the agent's job reads them
/// (`AgentInitializerImpl` -> `ToolCallResultCompletedAtResolver`: `completedAt` kept when
/// present, else the connector's clock).
#[test]
fn template_v11_stamps_each_tool_result_with_the_time_its_tool_completed() {
    let v11 = std::fs::read_to_string(template("ai-agent-tool-loop")).unwrap();
    let v10 = v11
        .replace(",&#10;  completedAt: now()&#10;}", "&#10;}")
        .replace(
            r#"zeebe:modelerTemplateVersion="11""#,
            r#"zeebe:modelerTemplateVersion="10""#,
        );
    assert_ne!(v10, v11);
    let mut seen = Vec::new();
    for (version, xml) in [("11", v11), ("10", v10)] {
        let t = ProcessTest::from_xml("agent.bpmn", &xml).unwrap();
        t.mock_job("order-lookup")
            .complete_with(json!({"order": {"id": "1042", "status": "delivered"}}));
        t.mock_job("email-send").complete();
        // The knowledge base's worker is not mocked: the test completes it later.
        let agent = t.mock_ai_agent(
            "support-agent",
            [
                Turn::tool_calls([
                    baton_testing::agent::ToolCall::new("lookup-order", json!({"orderId": "1042"})),
                    baton_testing::agent::ToolCall::new("search-kb", json!({"query": "returns"})),
                ]),
                Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
            ],
        );
        let run = t.start(
            "ai-agent-tool-loop",
            json!({"customerMessage": "Where is 1042?"}),
        );
        run.advance_time("PT5M");
        run.complete_job("search-kb", json!({"articles": ["Returns"]}));
        run.assert_completed();
        assert!(agent.notes().is_empty(), "v{version}: {:?}", agent.notes());
        seen.push((version, result_times(&agent)));
    }
    let at = |t: &str| json!(format!("2025-01-01T00:{t}:00Z"));
    assert_eq!(
        seen,
        [
            (
                "11",
                vec![
                    ("lookup-order".to_string(), at("00")),
                    ("search-kb".to_string(), at("05")),
                ]
            ),
            (
                "10",
                vec![
                    ("lookup-order".to_string(), at("05")),
                    ("search-kb".to_string(), at("05")),
                ]
            ),
        ]
    );
}

/// The worked example's tool workers.
fn with_tools(t: &ProcessTest) {
    t.mock_job("order-lookup").complete_with_fn(
        |job| json!({"order": {"id": job.variable("orderId"), "status": "delivered"}}),
    );
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
}

fn two_turns() -> [Turn; 2] {
    [
        Turn::call("lookup-order", json!({"orderId": "1042"})),
        Turn::respond_json(json!({"answer": "It is on its way.", "resolved": true})),
    ]
}

/// The keys of the `agent` variable a run left.
fn agent_keys(run: &baton_testing::Run) -> Vec<String> {
    let agent = run.variable("agent").expect("the agent variable");
    agent.as_object().unwrap().keys().cloned().collect()
}

/// The v2 Sub-process's response options (`AgentSubProcessResponseConfiguration`:
/// `includeAssistantMessage`, `includeAgentContext`) shape its final `agent` variable
/// (`AgentSubProcessResponse`, `@JsonInclude(NON_EMPTY)`: what is not included is left out).
#[test]
fn the_v2_sub_process_response_options_shape_the_agent_variable() {
    let xml = std::fs::read_to_string(template("ai-agent-tool-loop-v2")).unwrap();
    let flipped = xml
        .replace(
            r#"<zeebe:input source="=false" target="data.response.includeAssistantMessage" />"#,
            r#"<zeebe:input source="=true" target="data.response.includeAssistantMessage" />"#,
        )
        .replace(
            r#"<zeebe:input source="=true" target="data.response.includeAgentContext" />"#,
            r#"<zeebe:input source="=false" target="data.response.includeAgentContext" />"#,
        );
    assert_ne!(flipped, xml);
    let mut shapes = Vec::new();
    for xml in [xml, flipped] {
        let t = ProcessTest::from_xml("v2.bpmn", &xml).unwrap();
        with_tools(&t);
        t.mock_ai_agent("support-agent", two_turns());
        let run = t.start(
            "ai-agent-tool-loop-v2",
            json!({"customerMessage": "Where is 1042?"}),
        );
        run.assert_completed();
        shapes.push(agent_keys(&run));
        if let Some(message) = run.variable("agent").unwrap().get("responseMessage") {
            assert_eq!(message["role"], "assistant", "{message}");
        }
    }
    assert_eq!(
        shapes,
        [
            vec!["context", "responseJson"],
            vec!["responseMessage", "responseJson"]
        ]
    );
}

/// The AI Agent Task (v2): `AgentTaskV2Function` (`io.camunda.agenticai:aiagent:task:2`,
/// template `io.camunda.connectors.agenticai.ai-agent-task.v2` v1) with the `custom` provider,
/// its tools in the ad-hoc sub-process `data.tools.containerElementId` names, plays the worked
/// example. Its response (`AgentResponse`) always has `context` and `toolCalls`;
/// `includeAssistantMessage` adds `responseMessage`; it has no `includeAgentContext`
/// (`AgentTaskResponseConfiguration`), so one set on it changes nothing.
#[test]
fn the_v2_task_connector_plays_the_worked_example_with_its_response_options() {
    let xml = std::fs::read_to_string(template("ai-agent-task-tool-loop"))
        .unwrap()
        .replace(
            r#"type="io.camunda.agenticai:aiagent:1""#,
            r#"type="io.camunda.agenticai:aiagent:task:2""#,
        )
        .replace(
            r#"zeebe:modelerTemplate="io.camunda.connectors.agenticai.aiagent.v1" zeebe:modelerTemplateVersion="11""#,
            r#"zeebe:modelerTemplate="io.camunda.connectors.agenticai.ai-agent-task.v2" zeebe:modelerTemplateVersion="1""#,
        )
        .replace(
            r#"<zeebe:header key="elementTemplateVersion" value="11" />"#,
            r#"<zeebe:header key="elementTemplateVersion" value="1" />"#,
        )
        .replace(
            r#"value="io.camunda.connectors.agenticai.aiagent.v1" />"#,
            r#"value="io.camunda.connectors.agenticai.ai-agent-task.v2" />"#,
        )
        .replace(
            r#"<zeebe:input source="anthropic" target="provider.type" />"#,
            r#"<zeebe:input source="custom" target="provider.type" /><zeebe:input source="llm-gateway" target="provider.providerType" /><zeebe:input source="claude-sonnet-4-5" target="provider.model" />"#,
        )
        .replace(
            r#"<zeebe:input source="=false" target="data.response.includeAssistantMessage" />"#,
            r#"<zeebe:input source="=true" target="data.response.includeAssistantMessage" /><zeebe:input source="=false" target="data.response.includeAgentContext" />"#,
        );
    assert!(
        xml.contains("aiagent:task:2")
            && xml.contains("ai-agent-task.v2\" zeebe:modelerTemplateVersion=\"1\"")
    );
    let t = ProcessTest::from_xml("task-v2.bpmn", &xml).unwrap();
    with_tools(&t);
    let agent = t.mock_ai_agent("support-agent", two_turns());
    let run = t.start(
        "ai-agent-task-tool-loop",
        json!({"customerMessage": "Where is 1042?"}),
    );
    run.assert_completed();
    run.assert_passed_in_order([
        "support-agent",
        "support-tools",
        "support-agent",
        "send-answer",
    ]);
    agent.assert_called_tools(["lookup-order"]);
    assert!(agent.notes().is_empty(), "{:?}", agent.notes());
    assert_eq!(
        agent_keys(&run),
        ["context", "toolCalls", "responseMessage", "responseJson"]
    );
    let instance = agent.agent_instance().expect("an agent instance");
    assert_eq!(instance.metrics.model_calls, 2);
}
