//! What the mock records of a model call: what the model saw and answered ([`AgentRequest`]),
//! and each tool call it made ([`ToolCallRecord`]). The mock writes them, the matchers check
//! them, the cassettes record them.

use std::sync::Arc;

use baton_engine::runtime::SharedJson;
use serde_json::Value;

use super::connector::{Limits, ResponseFormat, SentMessages};
use super::tools::ToolDefinition;
use super::turn::Turn;
use crate::faults::ModelFaultKind;

/// What the model saw on one call, and what it answered.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRequest {
    /// The agent element.
    pub element_id: String,
    /// 1-based, counting every model call of this mock (failed ones too).
    pub model_call: u32,
    pub job_key: u64,
    pub process_instance_key: u64,
    pub system_prompt: Option<String>,
    /// The user prompt, when this call carries it.
    pub user_prompt: Option<String>,
    /// The tools offered, with their input schemas.
    pub tools: Arc<[ToolDefinition]>,
    /// This call's tool results in tool-call order: `[{id, name, content}]` (reads as
    /// `&Value`).
    pub tool_call_results: SharedJson,
    /// The contents of this call's events (event sub-process results).
    pub events: Vec<Value>,
    /// The conversation as sent (after the context window); reads as a slice of messages.
    pub messages: SentMessages,
    pub response_format: ResponseFormat,
    /// The agent's limits.
    pub limits: Limits,
    /// The job's `provider` variable (the element's provider inputs, `{{secrets.…}}` left as
    /// they are): which model a provider client calls. Never recorded.
    pub provider: Option<SharedJson>,
    /// The turn the model answered with; `None` when the script had no turn left, or a fault
    /// failed the call.
    pub turn: Option<Turn>,
    /// The fault injected at this call (see [`crate::faults::ModelFault`]).
    pub fault: Option<ModelFaultKind>,
}

/// One tool call the model made.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    pub model_call: u32,
    pub id: String,
    /// The tool (element id).
    pub name: String,
    /// The arguments; the raw text as a JSON string for arguments that are not JSON.
    pub arguments: Value,
}
