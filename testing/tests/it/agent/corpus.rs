//! Camunda's example agents (../shared/corpus/bpmn/agentic) under the mock with scripted turns:
//! the right tool activates with the right `toolCall`, its result reaches the model in Zeebe's
//! `toolCallResults` shape, and the `agent` variable reaches the process.

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::agent::{
    AgentStatus, AiAgentHandle, ExpectedAgentInstance, ExpectedMetrics, Turn,
};
use serde_json::{Value, json};

fn corpus_file(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/bpmn/agentic")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        println!("skipped: {} is not there", path.display());
        None
    }
}

/// Every job type of the deployed processes except the agent's, answered with `{}`.
fn complete_other_jobs(t: &ProcessTest, except: &[&str]) {
    let types: Vec<String> = t.with_engine(|e| {
        let mut types = Vec::new();
        for p in e.deployed_processes() {
            for job_type in p.static_job_types() {
                if !types.iter().any(|t: &String| t == job_type) {
                    types.push(job_type.to_string());
                }
            }
        }
        types
    });
    for job_type in types {
        if !except.contains(&job_type.as_str())
            && job_type != "io.camunda.agenticai:aiagent-job-worker:1"
        {
            t.mock_job(job_type).complete();
        }
    }
}

/// Runs one agent: the model calls `tool` with `arguments`, then answers "Done.".
fn one_tool_call(
    file: &str,
    process_id: &str,
    agent_id: &str,
    start: Value,
    tool: &str,
    arguments: Value,
    tool_result: Option<Value>,
) -> Option<(ProcessTest, AiAgentHandle, baton_testing::Run)> {
    let path = corpus_file(file)?;
    let t = ProcessTest::from_file(&path).unwrap_or_else(|e| panic!("{file} deploys: {e}"));
    if let Some(result) = tool_result {
        t.mock_job("io.camunda:http-json:1")
            .complete_with(json!({"toolCallResult": result}));
    }
    complete_other_jobs(&t, &["io.camunda:http-json:1"]);
    let agent = t.mock_ai_agent(
        agent_id,
        [Turn::call(tool, arguments), Turn::respond_text("Done.")],
    );
    let run = t.start(process_id, start);
    assert_eq!(run.errors(), Vec::<String>::new(), "{}", run.explain());
    assert_eq!(agent.requests().len(), 2, "{}", run.explain());
    agent.assert_all_turns_used();
    Some((t, agent, run))
}

fn assert_result(agent: &AiAgentHandle, tool: &str, content: Value) {
    assert_eq!(
        agent.requests()[1].tool_call_results,
        json!([{"id": "call_1_1", "name": tool, "content": content}])
    );
}

#[test]
fn connectors_chat_with_tools() {
    let Some((_t, agent, run)) = one_tool_call(
        "connectors--ai-agent-chat-with-tools.bpmn",
        "ai-agent-chat-with-tools",
        "AI_Agent",
        json!({"inputText": "Who is user 2?"}),
        "LoadUserByID",
        json!({"id": 2}),
        Some(json!({"id": 2, "name": "Ervin Howell"})),
    ) else {
        return;
    };
    assert_result(
        &agent,
        "LoadUserByID",
        json!({"id": 2, "name": "Ervin Howell"}),
    );
    assert_eq!(agent.requests()[0].tools.len(), 8);
    run.assert_waiting_at(["User_Feedback"]);
    assert_eq!(run.variable("agent").unwrap()["responseText"], "Done.");
}

#[test]
fn tutorials_chat_with_tools() {
    let Some((_t, agent, run)) = one_tool_call(
        "tutorials--ai-agent-chat-with-tools.bpmn",
        "ai-agent-chat-with-tools",
        "AI_Agent",
        json!({"inputText": "Find a pasta recipe"}),
        "Search_Recipe",
        json!({"searchQuery": "pasta"}),
        Some(json!(["Carbonara"])),
    ) else {
        return;
    };
    assert_result(&agent, "Search_Recipe", json!(["Carbonara"]));
    run.assert_waiting_at(["User_Feedback"]);
    assert_eq!(run.variable("agent").unwrap()["responseText"], "Done.");
}

#[test]
fn e2e_openai_agent() {
    let Some((_t, agent, run)) = one_tool_call(
        "connectors-e2e--ai-agent-e2e-openai.bpmn",
        "ai-agent-e2e-openai",
        "AI_Agent",
        json!({"userPrompt": "List the users", "inputText": "List the users"}),
        "ListUsers",
        json!({}),
        Some(json!([{"id": 1}])),
    ) else {
        return;
    };
    assert_result(&agent, "ListUsers", json!([{"id": 1}]));
    assert_eq!(run.variable("agent").unwrap()["responseText"], "Done.");
}

#[test]
fn agent_process_saved_with_the_8_8_template() {
    let Some((_t, agent, run)) = one_tool_call(
        "connectors-e2e--ai-agent-process-8.8.0.bpmn",
        "AI_Agent_Process_880",
        "AI_Agent",
        json!({"userPrompt": "What is the superflux product of 3 and 5?"}),
        "SuperfluxProduct",
        json!({"a": 3, "b": 5}),
        None,
    ) else {
        return;
    };
    // The script task computes 3 * (a + b) from fromAi(toolCall.a) and fromAi(toolCall.b).
    assert_result(&agent, "SuperfluxProduct", json!(24));
    assert_eq!(run.variable("agent").unwrap()["responseText"], "Done.");
}

#[test]
fn fraud_detection_agent_escalates_out_of_the_agent() {
    let Some(path) = corpus_file("connectors--fraud-detection-process.bpmn") else {
        return;
    };
    let t = ProcessTest::from_file(&path).unwrap();
    complete_other_jobs(&t, &[]);
    let agent = t.mock_ai_agent(
        "Fraud_Detection_Agent",
        [
            Turn::call(
                "FraudDetected",
                json!({"agentAnalysis": "The income is invented."}),
            ),
            Turn::respond_text("never asked"),
        ],
    );
    let run = t.start(
        "fraud-detection-process",
        json!({"taxSubmission": {"income": 1}}),
    );
    // The tool ends in an escalation that the agent's interrupting boundary event catches: the
    // agent is terminated after one model call and the process goes on.
    assert_eq!(run.errors(), Vec::<String>::new(), "{}", run.explain());
    assert_eq!(agent.requests().len(), 1);
    assert_eq!(agent.remaining_turns(), 1);
    run.assert_completed()
        .assert_passed(["FraudDetected", "Event_01me1b4"]);
    assert_eq!(run.variable("fraudDetected"), Some(json!(true)));
}

#[test]
fn chat_with_mcp_discovers_and_calls_mcp_tools() {
    let Some(path) = corpus_file("connectors--ai-agent-chat-with-mcp.bpmn") else {
        return;
    };
    let t = ProcessTest::from_file(&path).unwrap();
    for job_type in [
        "io.camunda.agenticai:mcpclient:1",
        "io.camunda.agenticai:mcpremoteclient:1",
    ] {
        t.mock_job(job_type).complete_with_fn(|job| {
            let tool_call = job.variable("toolCall");
            let client = tool_call["_meta"]["name"].as_str().unwrap_or_default().to_string();
            match tool_call["method"].as_str() {
                Some("tools/list") => json!({"toolCallResult": {"toolDefinitions": [
                    {"name": "now", "description": format!("The time, from {client}"), "inputSchema": {"type": "object", "properties": {}}}
                ]}}),
                _ => json!({"toolCallResult": {"name": tool_call["params"]["name"], "content": [{"type": "text", "text": "12:00"}], "isError": false}}),
            }
        });
    }
    complete_other_jobs(
        &t,
        &[
            "io.camunda.agenticai:mcpclient:1",
            "io.camunda.agenticai:mcpremoteclient:1",
        ],
    );
    let agent = t.mock_ai_agent(
        "AI_Agent",
        [
            Turn::call("MCP_Time___now", json!({})),
            Turn::respond_text("It is noon."),
        ],
    );
    let run = t.start(
        "ai-agent-chat-with-mcp",
        json!({"inputText": "What time is it?"}),
    );
    assert_eq!(run.errors(), Vec::<String>::new(), "{}", run.explain());
    let tools: Vec<String> = agent.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert!(tools.contains(&"MCP_Time___now".to_string()), "{tools:?}");
    assert_eq!(
        agent.requests()[1].tool_call_results,
        json!([{"id": "call_1_1", "name": "MCP_Time___now", "content": "12:00"}])
    );
    assert_eq!(
        run.variable("agent").unwrap()["responseText"],
        "It is noon."
    );
}

/// While the MCP clients list their tools the agent instance is in `TOOL_DISCOVERY`
/// (camunda/connectors `BaseAgentRequestHandler.createToolDiscoveryCompletionListener`: set once
/// the discovery job completed); the first model call then moves it on.
#[test]
fn an_agent_discovering_mcp_tools_is_in_tool_discovery() {
    let Some(path) = corpus_file("connectors--ai-agent-chat-with-mcp.bpmn") else {
        return;
    };
    let t = ProcessTest::from_file(&path).unwrap();
    // The MCP clients' workers are not mocked: the discovery waits for them.
    complete_other_jobs(
        &t,
        &[
            "io.camunda.agenticai:mcpclient:1",
            "io.camunda.agenticai:mcpremoteclient:1",
        ],
    );
    let agent = t.mock_ai_agent("AI_Agent", [Turn::respond_text("It is noon.")]);
    let run = t.start(
        "ai-agent-chat-with-mcp",
        json!({"inputText": "What time is it?"}),
    );
    run.assert_active();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::ToolDiscovery)
            .metrics(ExpectedMetrics::new().model_calls(0))
            .history_roles([]),
    );
}
