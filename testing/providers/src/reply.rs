//! A provider's answer in neutral terms (what LangChain4j makes of each wire format), and the
//! turn the agent mock plays for it.

use baton_testing::agent::turn::{Arguments, ResponseTurn, ToolCallsTurn};
use baton_testing::agent::{ToolCall, Turn, Usage};
use serde_json::Value;

/// Why the model stopped, as the connector names it (`stopReason`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    Stop,
    Length,
    ToolUse,
    ContentFiltered,
    /// Anything else the provider said.
    Other(String),
}

/// One tool call of the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyCall {
    pub id: String,
    pub name: String,
    /// The arguments as the provider sent them (JSON text; Anthropic's and Bedrock's objects
    /// and Gemini's `args` written as JSON).
    pub arguments: String,
}

/// The answer of one model call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    /// The provider's id of the answer.
    pub id: Option<String>,
    /// The model that answered, as the provider names it.
    pub model: Option<String>,
    /// The text blocks, joined by a line break (as LangChain4j joins them).
    pub text: Option<String>,
    pub calls: Vec<ReplyCall>,
    /// Token usage, normalised as the connector stores it.
    pub usage: Usage,
    pub stop: Option<StopReason>,
    /// OpenAI's `refusal`: LangChain4j fails the call with it.
    pub refusal: Option<String>,
}

impl Reply {
    /// The turn the agent mock plays: content filtering, a refusal (a failed call), tool calls
    /// (unchecked: an unknown tool or arguments that are not an object get the connector's
    /// behaviour, as a real model's would), or the final answer.
    pub fn to_turn(&self) -> Turn {
        if let Some(refusal) = &self.refusal {
            return Turn::error(refusal.clone());
        }
        if self.stop == Some(StopReason::ContentFiltered) {
            return Turn::content_filtered().with_usage(self.usage);
        }
        let text = self.text.clone().filter(|t| !t.trim().is_empty());
        if self.calls.is_empty() {
            return Turn::Response(ResponseTurn {
                text,
                json: None,
                usage: Some(self.usage),
                latency: None,
            });
        }
        let calls = self
            .calls
            .iter()
            .map(|call| {
                let arguments = match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(value @ Value::Object(_)) => Arguments::Json(value),
                    _ => Arguments::Raw(call.arguments.clone()),
                };
                ToolCall {
                    id: Some(call.id.clone()).filter(|id| !id.trim().is_empty()),
                    name: call.name.clone(),
                    arguments,
                }
            })
            .collect();
        Turn::ToolCalls(ToolCallsTurn {
            calls,
            text,
            unchecked: true,
            usage: Some(self.usage),
            latency: None,
        })
    }
}

/// A whole number of tokens at a JSON path (0 when absent).
pub(crate) fn tokens(value: &Value, path: &[&str]) -> u64 {
    path.iter()
        .try_fold(value, |v, k| v.get(k))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// A string at a JSON path.
pub(crate) fn text_at(value: &Value, path: &[&str]) -> Option<String> {
    path.iter()
        .try_fold(value, |v, k| v.get(k))
        .and_then(Value::as_str)
        .map(str::to_string)
}
