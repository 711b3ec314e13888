//! Whole conversations through the connector state machine, against a stand-in AHSP.

use baton_testing::agent::{AiAgentMock, JobAnswer, TextCallStyle, ToolCall, Turn, Usage};
use serde_json::{Value, json};

use super::harness::{Ahsp, SUPPORT_TOOL_ORDER, support_data, support_tools};

fn support_agent() -> Ahsp {
    Ahsp::new(
        "support-agent",
        support_tools(),
        support_data("My order 1042 arrived broken."),
    )
}

fn seed_script() -> Vec<Turn> {
    vec![
        Turn::tool_calls([
            ToolCall::new("lookup-order", json!({"orderId": "1042"})),
            ToolCall::new("search-kb", json!({"query": "damaged item return"})),
        ]),
        Turn::call(
            "create-ticket",
            json!({"summary": "Order 1042 arrived damaged"}),
        ),
        Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
    ]
}

#[test]
fn the_seeds_worked_example() {
    let mut ahsp = support_agent();
    let mut mock = AiAgentMock::new("support-agent", seed_script())
        .unwrap()
        .with_tool_order(SUPPORT_TOOL_ORDER);
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();

    assert!(ahsp.completed);
    assert_eq!(mock.remaining_turns(), 0);
    assert_eq!(mock.requests().len(), 3);
    assert_eq!(
        mock.requests()[1].tool_call_results,
        json!([
            {"id": "call_1_1", "name": "lookup-order", "content": {"id": "1042", "status": "delivered", "damaged": true}},
            {"id": "call_1_2", "name": "search-kb", "content": ["Returns and damaged items"]},
        ])
    );
    mock.assert_called_tools([
        baton_testing::agent::call("lookup-order", json!({"orderId": "1042"})),
        baton_testing::agent::call(
            "search-kb",
            baton_testing::args! {"query": baton_testing::agent::contains("damaged")},
        ),
        baton_testing::agent::tool("create-ticket"),
    ]);
    let agent = &ahsp.vars["agent"];
    assert_eq!(
        agent["responseJson"],
        json!({"answer": "Ticket T-77 is open.", "resolved": true})
    );
    assert_eq!(agent["context"]["metrics"]["modelCalls"], 3);
    assert!(
        agent.get("responseText").is_none(),
        "the JSON format fills only responseJson"
    );
    // Every job's answer: model call, no-op while search-kb runs, model call, model call.
    insta::assert_json_snapshot!("seed_example_answers", ahsp.answers);
}

#[test]
fn requests_record_what_the_model_saw() {
    let mut ahsp = support_agent();
    let mut mock = AiAgentMock::new("support-agent", seed_script()).unwrap();
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();
    let first = &mock.requests()[0];
    assert_eq!(first.model_call, 1);
    assert_eq!(
        first.user_prompt.as_deref(),
        Some("My order 1042 arrived broken.")
    );
    assert_eq!(
        first.system_prompt.as_deref(),
        Some("You are a customer support agent of an online shop.")
    );
    let names: Vec<&str> = first.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search-kb", "create-ticket", "lookup-order"]);
    assert_eq!(first.tool_call_results, json!([]));
    let roles: Vec<Vec<&str>> = mock
        .requests()
        .iter()
        .map(|r| {
            r.messages
                .iter()
                .map(|m| m["role"].as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        roles,
        [
            vec!["system", "user"],
            vec!["system", "user", "assistant", "tool_call_result"],
            vec![
                "system",
                "user",
                "assistant",
                "tool_call_result",
                "assistant",
                "tool_call_result"
            ],
        ]
    );
    assert_eq!(mock.requests()[2].user_prompt, None);
}

#[test]
fn usage_per_turn_sums_into_the_context() {
    let mut ahsp = support_agent();
    let script = vec![
        Turn::call("lookup-order", json!({"orderId": "7"})).with_usage(Usage::new(100, 20)),
        Turn::respond_json(json!({"answer": "?", "resolved": false})).with_usage(Usage {
            cache_read_token_count: 5,
            ..Usage::new(150, 30)
        }),
    ];
    let mut mock = AiAgentMock::new("support-agent", script).unwrap();
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();
    assert_eq!(
        ahsp.vars["agentContext"]["metrics"],
        json!({"modelCalls": 2, "tokenUsage": {"inputTokenCount": 250, "outputTokenCount": 50, "cacheReadTokenCount": 5}, "toolCalls": 1})
    );
}

#[test]
fn a_failed_model_call_fails_the_job_with_the_connectors_retries_and_backoff() {
    let mut ahsp = support_agent();
    let script = vec![
        Turn::error("upstream 503"),
        Turn::error("upstream 503"),
        Turn::respond_json(json!({"answer": "ok", "resolved": true})),
    ];
    let mut mock = AiAgentMock::new("support-agent", script).unwrap();
    let answer = ahsp.run_job(&mut mock).unwrap();
    let JobAnswer::Fail(failure) = answer else {
        panic!("expected a failure, got {answer:?}")
    };
    assert_eq!(failure.retries, 2);
    assert_eq!(failure.retry_backoff_ms, Some(30_000));
    assert_eq!(failure.code.as_deref(), Some("FAILED_MODEL_CALL"));
    insta::assert_snapshot!(failure.error_message, @"Model call failed: upstream 503 | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model call failed: upstream 503, code=FAILED_MODEL_CALL}}");
    // Zeebe re-delivers the same job; the connector redoes the turn.
    ahsp.run_job(&mut mock).unwrap();
    assert_eq!(ahsp.retries, 1);
    ahsp.run_job(&mut mock).unwrap();
    assert!(ahsp.completed);
    // Failed calls are requests the model saw, but the context counts what was persisted.
    assert_eq!(mock.requests().len(), 3);
    assert_eq!(ahsp.vars["agentContext"]["metrics"]["modelCalls"], 1);
}

#[test]
fn the_model_call_limit_fails_the_job() {
    let mut data = support_data("Loop.");
    data["limits"]["maxModelCalls"] = json!(2);
    let mut ahsp = Ahsp::new("support-agent", support_tools(), data);
    let mut mock = AiAgentMock::new(
        "support-agent",
        [Turn::call("search-kb", json!({"query": "x"}))],
    )
    .unwrap()
    .repeat_last_turn();
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();
    let last = ahsp.answers.last().unwrap();
    insta::assert_json_snapshot!(last, @r#"
    {
      "fail": {
        "retries": 2,
        "retryBackOff": 30000,
        "errorMessage": "Maximum number of model calls reached (modelCalls: 2, limit: 2) | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Maximum number of model calls reached (modelCalls: 2, limit: 2), code=MAXIMUM_NUMBER_OF_MODEL_CALLS_REACHED}}",
        "variables": {
          "error": {
            "type": "io.camunda.connector.api.error.ConnectorException",
            "message": "Maximum number of model calls reached (modelCalls: 2, limit: 2)",
            "code": "MAXIMUM_NUMBER_OF_MODEL_CALLS_REACHED"
          }
        }
      }
    }
    "#);
    assert_eq!(
        mock.requests().len(),
        2,
        "the limit is checked before the model is asked"
    );
}

#[test]
fn a_tool_the_connector_cannot_offer_fails_the_first_job() {
    let mut elements = support_tools();
    elements[1]["parameters"][0]["name"] = json!("summary");
    let mut ahsp = Ahsp::new("support-agent", elements, support_data("Hi"));
    let mut mock = AiAgentMock::new("support-agent", seed_script()).unwrap();
    let JobAnswer::Fail(failure) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a failure")
    };
    assert_eq!(failure.code.as_deref(), Some("AD_HOC_TOOL_SCHEMA_INVALID"));
    assert_eq!(
        failure.message,
        "Failed to generate ad-hoc tool schema for element 'create-ticket'. Parameter name 'summary' is not part of expected namespace 'toolCall.'."
    );
    assert_eq!(failure.retries, 2);
    assert!(mock.requests().is_empty(), "the model is never asked");
}

#[test]
fn arguments_that_are_not_json_fail_the_job() {
    let mut ahsp = support_agent();
    let script = vec![Turn::tool_calls([ToolCall::unparseable(
        "lookup-order",
        "{'orderId': '1042'}",
    )])];
    let mut mock = AiAgentMock::new("support-agent", script).unwrap();
    let JobAnswer::Fail(failure) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a failure")
    };
    insta::assert_snapshot!(failure.message, @"Failed to deserialize tool call results for tool 'lookup-order': key must be a string at line 1 column 2");
    assert_eq!(failure.code, None);
    assert_eq!(mock.tool_calls()[0].arguments, json!("{'orderId': '1042'}"));
}

#[test]
fn a_tool_call_written_as_text_is_the_final_answer() {
    let cases = [
        (TextCallStyle::Json, "json"),
        (TextCallStyle::Tagged, "json"),
        (TextCallStyle::Fenced, "json"),
        (TextCallStyle::Tagged, "text"),
    ];
    let mut outcomes = Vec::new();
    for (style, format) in cases {
        let mut data = support_data("Where is 1042?");
        data["response"]["format"] = json!({"type": format});
        let mut ahsp = Ahsp::new("support-agent", support_tools(), data);
        let turn = Turn::tool_call_as_text("lookup-order", json!({"orderId": "1042"}), style);
        let mut mock = AiAgentMock::new("support-agent", [turn]).unwrap();
        let answer = ahsp.run_job(&mut mock).unwrap();
        let outcome = match answer {
            JobAnswer::Complete(c) => {
                let mut agent = c.variables["agent"].to_json();
                agent.as_object_mut().unwrap().remove("context");
                json!({"style": format!("{style:?}"), "format": format, "agent": agent, "fulfilled": c.completion_condition_fulfilled})
            }
            JobAnswer::Fail(f) => {
                json!({"style": format!("{style:?}"), "format": format, "fail": f.message})
            }
            JobAnswer::ThrowError(t) => json!({"style": format!("{style:?}"), "throw": t.code}),
        };
        outcomes.push(outcome);
        assert!(mock.tool_calls().is_empty());
    }
    insta::assert_json_snapshot!(outcomes);
}

#[test]
fn text_alongside_tool_calls_must_be_json_with_the_json_format() {
    let mut ahsp = support_agent();
    let turn =
        Turn::call("lookup-order", json!({"orderId": "1042"})).with_text("Let me look that up.");
    let mut mock = AiAgentMock::new("support-agent", [turn]).unwrap();
    let JobAnswer::Fail(failure) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a failure")
    };
    assert_eq!(
        failure.code.as_deref(),
        Some("FAILED_TO_PARSE_RESPONSE_CONTENT")
    );
    assert!(
        failure
            .message
            .starts_with("Failed to parse response content as JSON: "),
        "{}",
        failure.message
    );
}

#[test]
fn text_format_fills_response_text_and_parse_json_fills_response_json() {
    let mut outcomes = Vec::new();
    for (format, turn) in [
        (
            json!({"type": "text"}),
            Turn::respond_json(json!({"resolved": true})),
        ),
        (
            json!({"type": "text", "parseJson": true}),
            Turn::respond_text("```json\n{\"resolved\": true}\n```"),
        ),
        (
            json!({"type": "text", "parseJson": true}),
            Turn::respond_text("not json"),
        ),
        (
            json!({"type": "json"}),
            Turn::respond("It ships tomorrow.", json!({"resolved": true})),
        ),
        (json!({"type": "json"}), Turn::respond_text("   ")),
    ] {
        let mut data = support_data("Hi");
        data["response"] = json!({"format": format, "includeAssistantMessage": true});
        let mut ahsp = Ahsp::new("support-agent", support_tools(), data);
        let mut mock = AiAgentMock::new("support-agent", [turn]).unwrap();
        ahsp.run_job(&mut mock).unwrap();
        outcomes.push(ahsp.vars["agent"].clone());
    }
    insta::assert_json_snapshot!(outcomes);
}

#[test]
fn an_unchecked_unknown_tool_is_sent_as_the_model_sent_it() {
    let mut ahsp = support_agent();
    let turn = Turn::tool_calls([ToolCall::new("issue-refund", json!({"amount": 10}))]).unchecked();
    let mut mock = AiAgentMock::new("support-agent", [turn]).unwrap();
    let JobAnswer::Complete(completion) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a completion")
    };
    // Zeebe rejects this completion (NOT_FOUND); the connector only counts the call.
    assert_eq!(completion.activate_elements[0].element_id, "issue-refund");
    assert_eq!(
        completion.variables["agentContext"]["metrics"]["toolCalls"],
        1
    );
}

#[test]
fn waiting_jobs_complete_as_no_ops() {
    let mut ahsp = support_agent();
    let mut mock = AiAgentMock::new("support-agent", seed_script()).unwrap();
    ahsp.run_job(&mut mock).unwrap();
    ahsp.complete_tool(json!({"status": "delivered"}));
    let JobAnswer::Complete(completion) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a completion")
    };
    assert!(completion.is_no_op());
    assert_eq!(mock.requests().len(), 1);
}

#[test]
fn events_wait_for_tools_or_interrupt_them() {
    let mut outcomes = Vec::new();
    for behavior in ["WAIT_FOR_TOOL_CALL_RESULTS", "INTERRUPT_TOOL_CALLS"] {
        let mut data = support_data("Hi");
        data["events"]["behavior"] = json!(behavior);
        let mut ahsp = Ahsp::new("support-agent", support_tools(), data);
        let script = vec![
            Turn::tool_calls([
                ToolCall::new("lookup-order", json!({"orderId": "1"})),
                ToolCall::new("search-kb", json!({"query": "q"})),
            ]),
            Turn::respond_json(json!({"answer": "done", "resolved": true})),
        ];
        let mut mock = AiAgentMock::new("support-agent", script).unwrap();
        ahsp.run_job(&mut mock).unwrap();
        ahsp.complete_tool(json!("found"));
        ahsp.complete_event(Value::Null);
        let answer = ahsp.run_job(&mut mock).unwrap();
        let summary = match &answer {
            JobAnswer::Complete(c) if c.is_no_op() => json!("no-op"),
            JobAnswer::Complete(c) => {
                json!({"cancelRemaining": c.cancel_remaining_instances, "fulfilled": c.completion_condition_fulfilled})
            }
            JobAnswer::Fail(f) => json!(f.message),
            JobAnswer::ThrowError(t) => json!({"throw": t.code}),
        };
        let request = mock.requests().last().unwrap();
        outcomes.push(json!({
            "behavior": behavior,
            "answer": summary,
            "modelCalls": mock.requests().len(),
            "toolCallResults": request.tool_call_results,
            "events": request.events,
            "lastMessage": request.messages.last(),
        }));
    }
    insta::assert_json_snapshot!(outcomes);
}

#[test]
fn feeding_the_context_back_asks_with_the_user_prompt_again() {
    let mut ahsp = support_agent();
    let mut mock = AiAgentMock::new(
        "support-agent",
        [
            Turn::respond_json(json!({"answer": "a", "resolved": false})),
            Turn::respond_json(json!({"answer": "b", "resolved": true})),
        ],
    )
    .unwrap();
    ahsp.run_job(&mut mock).unwrap();
    let context = ahsp.vars["agent"]["context"].clone();
    // A feedback loop re-enters the AHSP with `agentContext = agent.context`.
    let mut again = support_agent();
    again.vars.insert("agentContext".into(), context);
    again.vars["data"]["userPrompt"]["prompt"] = json!("Please try again.");
    again.run_job(&mut mock).unwrap();
    let request = &mock.requests()[1];
    assert_eq!(request.user_prompt.as_deref(), Some("Please try again."));
    assert_eq!(request.messages.len(), 4);
    assert_eq!(again.vars["agent"]["context"]["metrics"]["modelCalls"], 2);
    assert_eq!(
        again.vars["agent"]["context"]["metadata"]["lastIterationKey"],
        2
    );
}

#[test]
fn input_the_connector_rejects_is_an_incident_at_once() {
    let mut data = support_data("   ");
    data["events"] = json!({});
    let mut ahsp = Ahsp::new("support-agent", support_tools(), data);
    let mut mock = AiAgentMock::new("support-agent", seed_script()).unwrap();
    let JobAnswer::Fail(failure) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a failure")
    };
    assert_eq!(failure.retries, 0);
    insta::assert_snapshot!(failure.message, @r"
    jakarta.validation.ValidationException: Found constraints violated while validating input: 
     - data.userPrompt.prompt: must not be blank
     - data.events.behavior: must not be null
    ");
}

#[test]
fn tool_results_without_a_conversation_fail() {
    let mut ahsp = support_agent();
    ahsp.vars["toolCallResults"] = json!([{"id": "x", "name": "search-kb", "content": 1}]);
    let mut mock = AiAgentMock::new("support-agent", seed_script()).unwrap();
    let JobAnswer::Fail(failure) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a failure")
    };
    assert_eq!(
        failure.code.as_deref(),
        Some("TOOL_CALL_RESULTS_ON_EMPTY_CONTEXT")
    );
}

#[test]
fn an_unreadable_backoff_header_fails_for_good() {
    let mut ahsp = support_agent();
    ahsp.headers
        .insert("retryBackoff".into(), "30 seconds".into());
    let mut mock = AiAgentMock::new("support-agent", [Turn::error("boom")]).unwrap();
    let JobAnswer::Fail(failure) = ahsp.run_job(&mut mock).unwrap() else {
        panic!("expected a failure")
    };
    assert_eq!(failure.retries, 0);
    assert_eq!(
        failure.message,
        "Failed to parse retry backoff header. Expected ISO-8601 duration, e.g. PT5M, got: 30 seconds"
    );
}

#[test]
fn the_clock_stamps_messages_and_results() {
    let mut ahsp = support_agent();
    ahsp.now = Some("2026-08-07T10:00:00+02:00".to_string());
    let mut mock = AiAgentMock::new("support-agent", seed_script()).unwrap();
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();
    let messages = &ahsp.vars["agentContext"]["conversation"]["messages"];
    assert_eq!(
        messages[1]["metadata"]["timestamp"],
        "2026-08-07T10:00:00+02:00"
    );
    assert_eq!(
        messages[3]["results"][0]["completedAt"],
        "2026-08-07T10:00:00+02:00"
    );
}

#[test]
fn mcp_clients_list_their_tools_before_the_first_model_call() {
    let mut elements = support_tools();
    elements.as_array_mut().unwrap().push(json!({"elementId": "Files", "elementName": "Files", "properties": {"io.camunda.agenticai.gateway.type": "mcpClient"}}));
    let mut ahsp = Ahsp::new("support-agent", elements, support_data("Read /a"));
    let mut mock = AiAgentMock::new(
        "support-agent",
        [
            Turn::call("MCP_Files___readFile", json!({"path": "/a"})),
            Turn::respond_json(json!({"answer": "It says hello.", "resolved": true})),
        ],
    )
    .unwrap();
    // Job 1: discovery, no model call.
    ahsp.run_job(&mut mock).unwrap();
    assert!(mock.requests().is_empty());
    assert_eq!(
        ahsp.running[0].1["toolCall"],
        json!({"_meta": {"id": "MCP_toolsList_Files", "name": "Files"}, "method": "tools/list"})
    );
    assert_eq!(ahsp.vars["agentContext"]["state"], "TOOL_DISCOVERY");
    ahsp.complete_tool(json!({"toolDefinitions": [{"name": "readFile", "description": "Reads a file",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]}));
    // Job 2: the tools are known; the model is asked with the user prompt and calls the MCP tool.
    ahsp.run_job(&mut mock).unwrap();
    let names: Vec<&str> = mock.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "search-kb",
            "create-ticket",
            "lookup-order",
            "MCP_Files___readFile"
        ]
    );
    assert_eq!(mock.requests()[0].user_prompt.as_deref(), Some("Read /a"));
    assert_eq!(
        ahsp.running[0],
        (
            "Files".to_string(),
            [
                ("toolCall".to_string(), json!({"_meta": {"id": "call_1_1", "name": "Files"}, "method": "tools/call", "params": {"name": "readFile", "arguments": {"path": "/a"}}})),
                ("toolCallResult".to_string(), json!("")),
            ]
            .into_iter()
            .collect()
        )
    );
    ahsp.complete_tool(json!({"name": "readFile", "content": [{"type": "text", "text": "hello"}], "isError": false}));
    ahsp.run_job(&mut mock).unwrap();
    assert!(ahsp.completed);
    assert_eq!(
        mock.requests()[1].tool_call_results,
        json!([{"id": "call_1_1", "name": "MCP_Files___readFile", "content": "hello"}])
    );
    assert_eq!(
        ahsp.vars["agentContext"]["properties"],
        json!({"mcpClients": ["Files"]})
    );
    let results = &ahsp.vars["agentContext"]["conversation"]["messages"][3]["results"][0];
    assert_eq!(results["elementId"], "Files");
}
