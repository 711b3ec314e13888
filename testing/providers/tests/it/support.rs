//! The template every test records: `templates/ai-agent-tool-loop` (an AI Agent Sub-process
//! with three tools, Anthropic by its provider inputs), its tool mocks and the worked example's
//! turns.

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::agent::recording::request_json;
use baton_testing::agent::{ToolCall, Turn};
use serde_json::{Value, json};

pub const PROCESS: &str = "ai-agent-tool-loop";
pub const AGENT: &str = "support-agent";
pub const MESSAGE: &str = "My order 1042 arrived broken.";

/// A file of the repository.
pub fn repo_file(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// The template deployed, with the worked example's tool mocks.
pub fn template() -> ProcessTest {
    let xml = std::fs::read_to_string(repo_file(
        "templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn",
    ))
    .unwrap();
    let t = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", &xml).unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

/// The worked example: two tools in parallel, a ticket, a resolved answer.
pub fn turns() -> Vec<Turn> {
    vec![
        Turn::tool_calls([
            ToolCall::new("lookup-order", json!({"orderId": "1042"})).with_id("call_a"),
            ToolCall::new("search-kb", json!({"query": "damaged item return"})).with_id("call_b"),
        ]),
        Turn::tool_calls([ToolCall::new(
            "create-ticket",
            json!({"summary": "Order 1042 arrived damaged"}),
        )
        .with_id("call_c")]),
        Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
    ]
}

/// Each model call of the worked example as a provider client sees it: the element's
/// provider inputs and the request's JSON.
pub fn template_calls() -> Vec<(Option<Value>, Value)> {
    let t = template();
    let agent = t.mock_ai_agent(AGENT, turns());
    t.start(PROCESS, json!({"customerMessage": MESSAGE}));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    agent
        .requests()
        .iter()
        .map(|r| {
            (
                r.provider.as_ref().map(|p| p.view().to_json()),
                request_json(r),
            )
        })
        .collect()
}

/// A fresh path in the temporary folder for a test's file.
pub fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baton-providers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}
