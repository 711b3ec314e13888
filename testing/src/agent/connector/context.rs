//! The agent context (`agentContext`) the connector persists, read in place: its state, tools,
//! gateway clients, metrics and conversation.

use std::sync::Arc;

use baton_engine::runtime::{JsonRef, SharedJson};
use serde_json::Value;

use super::messages::{role, with_plain};
use crate::agent::tools::ToolDefinition;
use crate::agent::turn::Usage;

/// The states of an agent's context (`agentContext.state`), as the AI Agent connector has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentState {
    /// A new agent (no context yet): the tools are resolved from the ad-hoc sub-process.
    Initializing,
    /// The gateway tools (MCP clients) were asked for their tools; the agent waits for them.
    ToolDiscovery,
    /// The tools are known: each job is a turn of the conversation.
    Ready,
}

impl AgentState {
    /// The state as the context stores it.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentState::Initializing => "INITIALIZING",
            AgentState::ToolDiscovery => "TOOL_DISCOVERY",
            AgentState::Ready => "READY",
        }
    }

    fn parse(text: &str) -> Option<AgentState> {
        [
            AgentState::Initializing,
            AgentState::ToolDiscovery,
            AgentState::Ready,
        ]
        .into_iter()
        .find(|state| state.as_str() == text)
    }
}

/// What the context counts over the whole conversation.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Metrics {
    pub(super) model_calls: u64,
    pub(super) tool_calls: u64,
    pub(super) usage: Usage,
}

/// A job's stored context, read in place; an empty or missing one is a new agent's.
#[derive(Clone, Copy)]
pub(super) struct StoredContext<'a>(Option<JsonRef<'a>>);

impl<'a> StoredContext<'a> {
    pub(super) fn read(value: Option<&'a SharedJson>) -> StoredContext<'a> {
        StoredContext(
            value
                .map(SharedJson::view)
                .filter(|c| c.is_object() && !c.is_empty()),
        )
    }

    fn get(self, keys: &[&str]) -> Option<JsonRef<'a>> {
        self.0?.at(keys)
    }

    /// The agent's state; `Err` names a state the mock does not know.
    pub(super) fn state(self) -> Result<AgentState, &'a str> {
        match self.get(&["state"]).and_then(JsonRef::as_str) {
            None => Ok(AgentState::Initializing),
            Some(text) => AgentState::parse(text).ok_or(text),
        }
    }

    /// `toolDefinitions` as stored.
    pub(super) fn tool_definitions(self) -> Option<JsonRef<'a>> {
        self.get(&["toolDefinitions"])
    }

    /// The stored tools read back.
    pub(super) fn tools(self) -> Vec<ToolDefinition> {
        self.tool_definitions()
            .map(read_tool_definitions)
            .unwrap_or_default()
    }

    /// The MCP clients whose tools are offered (`properties.mcpClients`).
    pub(super) fn mcp_clients(self) -> Vec<String> {
        self.get(&["properties", "mcpClients"])
            .and_then(JsonRef::items)
            .map(|ids| {
                ids.filter_map(JsonRef::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(super) fn metrics(self) -> Metrics {
        let Some(metrics) = self.get(&["metrics"]) else {
            return Metrics::default();
        };
        let count = |object: Option<JsonRef<'_>>, key: &str| {
            object
                .and_then(|o| o.get(key))
                .and_then(JsonRef::as_u64)
                .unwrap_or(0)
        };
        let usage = metrics.get("tokenUsage");
        Metrics {
            model_calls: count(Some(metrics), "modelCalls"),
            tool_calls: count(Some(metrics), "toolCalls"),
            usage: Usage {
                input_token_count: count(usage, "inputTokenCount"),
                output_token_count: count(usage, "outputTokenCount"),
                cache_read_token_count: count(usage, "cacheReadTokenCount"),
                cache_creation_token_count: count(usage, "cacheCreationTokenCount"),
                reasoning_token_count: count(usage, "reasoningTokenCount"),
            },
        }
    }

    /// Whether the context holds a conversation (tool results need one).
    pub(super) fn has_conversation(self) -> bool {
        self.get(&["conversation"]).is_some()
    }

    /// The stored messages, in order.
    pub(super) fn messages(self) -> Vec<JsonRef<'a>> {
        self.get(&["conversation", "messages"])
            .and_then(JsonRef::items)
            .map(Iterator::collect)
            .unwrap_or_default()
    }

    /// The conversation's id, else a stable stand-in for the connector's random UUID.
    pub(super) fn conversation_id(self, element_instance_key: u64) -> String {
        self.get(&["conversation", "conversationId"])
            .and_then(JsonRef::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| {
                format!(
                    "00000000-0000-4000-8000-{:012x}",
                    element_instance_key & 0xffff_ffff_ffff
                )
            })
    }

    /// The number of the last model round (`metadata.lastIterationKey`), else the number of
    /// stored assistant messages (a context of 8.9).
    pub(super) fn last_iteration_key(self, messages: &[JsonRef<'_>]) -> u64 {
        self.get(&["metadata", "lastIterationKey"])
            .and_then(JsonRef::as_u64)
            .unwrap_or_else(|| messages.iter().filter(|m| role(**m) == "assistant").count() as u64)
    }
}

/// The tools of an agent and their definitions as a context stores them (shared by the
/// contexts that follow).
#[derive(Debug, Clone)]
pub(super) struct AgentTools {
    pub(super) tools: Arc<[ToolDefinition]>,
    pub(super) definitions: SharedJson,
}

impl AgentTools {
    pub(super) fn new(tools: Vec<ToolDefinition>) -> AgentTools {
        let tools: Arc<[ToolDefinition]> = tools.into();
        let definitions = tool_definitions(&tools);
        AgentTools { tools, definitions }
    }
}

/// Stored tool definitions read back (a definition without a name is skipped).
pub(super) fn read_tool_definitions(definitions: JsonRef<'_>) -> Vec<ToolDefinition> {
    definitions
        .items()
        .map(|defs| {
            defs.filter_map(|d| with_plain(d, ToolDefinition::from_json))
                .collect()
        })
        .unwrap_or_default()
}

/// `toolDefinitions` as a context stores them.
pub(super) fn tool_definitions(tools: &[ToolDefinition]) -> SharedJson {
    SharedJson::new(Value::Array(
        tools.iter().map(ToolDefinition::to_json).collect(),
    ))
}
