//! Gateway tools: MCP clients, played as the connector plays them. A new agent with MCP clients
//! asks each for its tools (`tools/list`) and waits in
//! [`AgentState::ToolDiscovery`](super::AgentState::ToolDiscovery); the listed tools are offered
//! as `MCP_<client>___<tool>`; a call of one activates its client with `tools/call`, and a single
//! text block of the result reaches the model as text.

use baton_engine::runtime::{JsonRef, SharedJson};
use serde_json::{Value, json};

use super::context::{AgentTools, StoredContext};
use super::job::{AgentInput, AgentJob, JobAnswer, Kind};
use super::messages::{result_items, with_plain};
use super::response::{AgentResponse, ToolCallElement};
use super::{ReadyTools, Transition};
use crate::agent::tools::ToolDefinition;
use crate::agent::turn::Usage;

const DISCOVERY_PREFIX: &str = "MCP_toolsList_";

/// The first job of an agent with MCP clients: each client is activated with a `tools/list`
/// call, and the context waits in state `TOOL_DISCOVERY` for their results.
pub(super) fn start_tool_discovery(
    job: &AgentJob<'_>,
    kind: Kind,
    tools: &[ToolDefinition],
    clients: &[String],
    agent_instance_key: Option<u64>,
) -> JobAnswer {
    let mut context = json!({
        "schemaVersion": 1,
        "state": "TOOL_DISCOVERY",
        "metadata": {
            "processDefinitionKey": job.process_definition_key,
            "processInstanceKey": job.process_instance_key,
        },
        "metrics": {"modelCalls": 0, "tokenUsage": Usage::default().to_json(), "toolCalls": 0},
        "toolDefinitions": tools.iter().map(ToolDefinition::to_json).collect::<Vec<_>>(),
        "properties": {"mcpClients": clients},
    });
    if let Some(key) = agent_instance_key {
        context["metadata"]["agentInstanceKey"] = key.into();
    }
    let tool_calls = clients
        .iter()
        .map(|client| ToolCallElement {
            element_id: client.clone(),
            tool_call: SharedJson::new(json!({
                "_meta": {"id": format!("{DISCOVERY_PREFIX}{client}"), "name": client},
                "method": "tools/list",
            })),
        })
        .collect();
    JobAnswer::Complete(kind.complete(AgentResponse {
        context: SharedJson::new(context),
        tool_calls,
        text: None,
        json: None,
        response_message: None,
        include_agent_context: false,
        cancel_remaining: false,
    }))
}

/// [`AgentState::ToolDiscovery`](super::AgentState::ToolDiscovery): every client's listed tools
/// join the stored ones, and the agent is ready; while a client has not answered, the job waits.
pub(super) fn tool_discovery(context: StoredContext<'_>, input: &AgentInput<'_>) -> Transition {
    let mut tools = context.tools();
    let results = result_items(input.tool_call_results.as_ref()).unwrap_or_default();
    let mut discovery_results = Vec::new();
    for client in context.mcp_clients() {
        let id = format!("{DISCOVERY_PREFIX}{client}");
        let Some(result) = results
            .iter()
            .find(|r| r.get("id").and_then(JsonRef::as_str) == Some(id.as_str()))
        else {
            return Transition::Answer(input.kind.waiting());
        };
        let listed = result
            .at(&["content", "toolDefinitions"])
            .and_then(|l| with_plain(l, |l| l.as_array().cloned()))
            .unwrap_or_default();
        tools.extend(listed.iter().filter_map(|d| listed_tool(&client, d)));
        discovery_results.push(id);
    }
    Transition::Ready(ReadyTools {
        resolved: Some(AgentTools::new(tools)),
        discovery_results,
    })
}

/// A tool a client listed, as the model is offered it.
fn listed_tool(client: &str, definition: &Value) -> Option<ToolDefinition> {
    let name = definition.get("name").and_then(Value::as_str)?;
    Some(ToolDefinition {
        name: format!("MCP_{client}___{name}"),
        description: definition
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        input_schema: definition
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
    })
}
