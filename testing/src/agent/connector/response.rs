//! The second half of a job: the model's turn becomes the agent's response (Camunda's
//! `AgentResponse`): the assistant message, the context to persist (composed of the stored
//! conversation and tool definitions, shared), and either the tools to call or the final
//! `agent` variable. A flavour turns the response into its job answer.

use std::borrow::Cow;

use baton_engine::runtime::{Part, SharedJson};
use serde_json::{Map, Value, json};

use super::config::ResponseFormat;
use super::job::JobFailure;
use super::mcp::{mcp_tool, mcp_tool_call};
use super::messages::{composed, message, text_part};
use super::{PendingTurn, SentToolCall};
use crate::agent::turn::{Arguments, TextCallStyle, Turn};

/// What a job leads to, before a flavour answers the job with it (the connector's
/// `AgentResponse`, and what the flavours need besides).
pub(super) struct AgentResponse {
    /// The `agentContext` to persist.
    pub(super) context: SharedJson,
    /// The tools to call, each as the element to activate with its `toolCall`.
    pub(super) tool_calls: Vec<ToolCallElement>,
    /// `responseText`: the answer's first text that is not blank (on every turn).
    pub(super) text: Option<SharedJson>,
    /// `responseJson`, as the response format has it.
    pub(super) json: Option<SharedJson>,
    /// `responseMessage`: the assistant message, with `includeAssistantMessage`.
    pub(super) response_message: Option<SharedJson>,
    /// The Sub-process flavour's `includeAgentContext`.
    pub(super) include_agent_context: bool,
    /// Cancel the tool calls still running (an event interrupted them).
    pub(super) cancel_remaining: bool,
}

impl AgentResponse {
    /// The response as the connector's result value: `{context, toolCalls, responseMessage?,
    /// responseText?, responseJson?}` (`AgentResponse`, null fields left out).
    pub(super) fn value(&self) -> SharedJson {
        let mut entries: Vec<(&str, Part)> = Vec::with_capacity(5);
        entries.push(("context", self.context.clone().into()));
        entries.push((
            "toolCalls",
            SharedJson::array(self.tool_calls.iter().map(|c| c.tool_call.clone())).into(),
        ));
        for (key, value) in [
            ("responseMessage", &self.response_message),
            ("responseText", &self.text),
            ("responseJson", &self.json),
        ] {
            if let Some(value) = value {
                entries.push((key, value.clone().into()));
            }
        }
        SharedJson::object(entries)
    }
}

/// A tool to call: the element and its `toolCall`.
pub(super) struct ToolCallElement {
    pub(super) element_id: String,
    pub(super) tool_call: SharedJson,
}

/// The model answered with `turn`; `calls` are its tool calls with ids. `Err` is the
/// connector's failure (a failed model call, arguments that are no object, a JSON response
/// that does not parse).
pub(super) fn respond(
    pending: PendingTurn,
    turn: &Turn,
    calls: &[SentToolCall<'_>],
) -> Result<AgentResponse, Box<JobFailure>> {
    let PendingTurn {
        config,
        tools_json,
        mut metrics,
        last_iteration_key,
        mut messages,
        conversation_id,
        interrupted,
        mcp_clients,
        failure,
        process_definition_key,
        process_instance_key,
        agent_instance_key,
        now,
        kind: _,
        input: _,
    } = pending;
    let fail = |code: Option<&str>, message: String| Box::new(failure.connector(code, message));
    // BaseAgentRequestHandler.throwIfContentFiltered, after every model round.
    if let Turn::ContentFiltered(_) = turn {
        return Err(fail(
            Some("MODEL_RESPONSE_CONTENT_FILTERED"),
            "Model response was blocked by provider content filtering.".to_string(),
        ));
    }
    let (text, parsed_json) = answer_text(turn).map_err(|m| fail(Some("FAILED_MODEL_CALL"), m))?;
    let assistant_calls = assistant_tool_calls(calls).map_err(|m| fail(None, m))?;
    let assistant = assistant_message(text.as_deref(), assistant_calls, calls.is_empty(), now);
    let response_message = config.include_assistant_message.then(|| assistant.clone());
    messages.push(assistant);

    metrics.model_calls += 1;
    metrics.tool_calls += calls.len() as u64;
    if let Some(usage) = turn.usage() {
        metrics.usage.add(&usage);
    }
    // Composed of shared parts: the stored messages and the tool definitions are the job's.
    let mut context: Vec<(&str, Part)> = vec![
        ("schemaVersion", Value::from(1).into()),
        ("state", Value::from("READY").into()),
        (
            "metadata",
            // `AgentMetadata`'s fields in order, a null key left out.
            SharedJson::object(
                [
                    Some(("processDefinitionKey", Value::from(process_definition_key))),
                    Some(("processInstanceKey", process_instance_key.into())),
                    agent_instance_key.map(|k| ("agentInstanceKey", k.into())),
                    Some(("lastIterationKey", (last_iteration_key + 1).into())),
                ]
                .into_iter()
                .flatten(),
            )
            .into(),
        ),
        (
            "metrics",
            composed([
                ("modelCalls", metrics.model_calls.into()),
                ("tokenUsage", metrics.usage.to_json()),
                ("toolCalls", metrics.tool_calls.into()),
            ])
            .into(),
        ),
        ("toolDefinitions", tools_json.into()),
        (
            "conversation",
            SharedJson::object([
                ("type", Part::from(Value::from("in-process"))),
                ("conversationId", Value::from(conversation_id).into()),
                ("messages", SharedJson::array(messages).into()),
            ])
            .into(),
        ),
    ];
    if !mcp_clients.is_empty() {
        context.push(("properties", json!({"mcpClients": mcp_clients}).into()));
    }
    let context = SharedJson::object(context);

    // The response handler runs on every turn: with the JSON format, any text must be JSON.
    let (text, json) = response_text_and_json(&config.format, text.as_deref(), parsed_json)
        .map_err(|m| fail(Some("FAILED_TO_PARSE_RESPONSE_CONTENT"), m))?;
    Ok(AgentResponse {
        context,
        tool_calls: calls
            .iter()
            .map(|call| tool_call_element(call, &mcp_clients))
            .collect(),
        text: text.map(SharedJson::new),
        json: json.map(SharedJson::new),
        response_message,
        include_agent_context: config.include_agent_context,
        cancel_remaining: interrupted,
    })
}

/// The text of the model's answer, and its JSON when the turn gave it as such; `Err` is the
/// message of a failed model call.
fn answer_text(turn: &Turn) -> Result<(Option<String>, Option<Value>), String> {
    Ok(match turn {
        Turn::Error(error) => {
            let message = if error.message.trim().is_empty() {
                "RuntimeException"
            } else {
                &error.message
            };
            return Err(format!("Model call failed: {message}"));
        }
        Turn::ToolCalls(turn) => (turn.text.clone(), None),
        Turn::Response(response) => match (&response.text, &response.json) {
            (Some(text), json) => (Some(text.clone()), json.clone()),
            (None, Some(json)) => (Some(json.to_string()), Some(json.clone())),
            (None, None) => (None, None),
        },
        Turn::ToolCallAsText(call) => (
            Some(tool_call_text(&call.name, &call.arguments, call.style)),
            None,
        ),
        Turn::ContentFiltered(_) => (None, None),
    })
}

/// The provider's tool calls as the assistant message stores them; arguments must be a JSON
/// object (`Err` says why one is not).
fn assistant_tool_calls(calls: &[SentToolCall<'_>]) -> Result<Vec<SharedJson>, String> {
    let mut assistant_calls = Vec::with_capacity(calls.len());
    for call in calls {
        let wrong = |why: String| {
            format!(
                "Failed to deserialize tool call results for tool '{}': {why}",
                call.name
            )
        };
        let arguments = match &call.arguments {
            Arguments::Json(Value::Object(arguments)) => Value::Object(arguments.clone()),
            Arguments::Json(other) => return Err(wrong(not_an_object(other))),
            Arguments::Raw(raw) => match serde_json::from_str::<Value>(raw) {
                Ok(Value::Object(arguments)) => Value::Object(arguments),
                Ok(other) => return Err(wrong(not_an_object(&other))),
                Err(error) => return Err(wrong(parser_message(&error))),
            },
        };
        assistant_calls.push(composed([
            ("id", call.id.as_str().into()),
            ("name", call.name.into()),
            ("arguments", arguments),
        ]));
    }
    Ok(assistant_calls)
}

/// The assistant message of the turn: its text, its tool calls, why it stopped.
fn assistant_message(
    text: Option<&str>,
    calls: Vec<SharedJson>,
    stopped: bool,
    now: Option<String>,
) -> SharedJson {
    let mut assistant: Vec<(&str, Part)> = Vec::with_capacity(5);
    assistant.push(("role", Value::from("assistant").into()));
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        assistant.push(("content", Value::Array(vec![text_part(text)]).into()));
    }
    if !calls.is_empty() {
        assistant.push(("toolCalls", SharedJson::array(calls).into()));
    }
    let stop_reason = if stopped { "STOP" } else { "TOOL_USE" };
    assistant.push(("stopReason", Value::from(stop_reason).into()));
    message(assistant, now.as_deref())
}

/// `responseText` and `responseJson` of the answer's first text that is not blank, as the
/// response format has them; `Err` is why a JSON response does not parse.
fn response_text_and_json(
    format: &ResponseFormat,
    text: Option<&str>,
    parsed_json: Option<Value>,
) -> Result<(Option<Value>, Option<Value>), String> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok((None, None));
    };
    match format {
        ResponseFormat::Text { parse_json } => {
            let json = if *parse_json {
                parsed_json.or_else(|| parse_response_json(text).ok())
            } else {
                None
            };
            Ok((Some(Value::from(text)), json))
        }
        ResponseFormat::Json { .. } => {
            let json = match parsed_json {
                Some(json) => json,
                None => parse_response_json(text)
                    .map_err(|m| format!("Failed to parse response content as JSON: {m}"))?,
            };
            Ok((None, Some(json)))
        }
    }
}

/// The element a tool call activates, with its `toolCall`: an MCP tool's client with
/// `tools/call`, else the tool itself with `{_meta: {id, name}, ...arguments}` (an argument
/// named `_meta` replaces it in place, as a map insert does).
fn tool_call_element(call: &SentToolCall<'_>, mcp_clients: &[String]) -> ToolCallElement {
    if let Some((client, tool)) = mcp_tool(call.name, mcp_clients) {
        let arguments = match &call.arguments {
            Arguments::Json(arguments) => arguments.clone(),
            Arguments::Raw(raw) => serde_json::from_str(raw).unwrap_or(Value::Null),
        };
        return ToolCallElement {
            element_id: client.to_string(),
            tool_call: mcp_tool_call(&call.id, client, tool, arguments),
        };
    }
    let parsed;
    let arguments = match &call.arguments {
        Arguments::Json(Value::Object(arguments)) => Some(arguments),
        Arguments::Raw(raw) => {
            parsed = serde_json::from_str::<Value>(raw).ok();
            parsed.as_ref().and_then(Value::as_object)
        }
        Arguments::Json(_) => None,
    };
    let mut entries: Vec<(Cow<'static, str>, Part)> =
        Vec::with_capacity(1 + arguments.map_or(0, Map::len));
    let meta = composed([("id", call.id.as_str().into()), ("name", call.name.into())]);
    entries.push(("_meta".into(), meta.into()));
    for (key, value) in arguments.into_iter().flatten() {
        if key == "_meta" {
            entries[0].1 = value.clone().into();
        } else {
            entries.push((key.clone().into(), value.clone().into()));
        }
    }
    ToolCallElement {
        element_id: call.name.to_string(),
        tool_call: SharedJson::object(entries),
    }
}

/// The text a model writes when it puts a tool call into its reply.
fn tool_call_text(name: &str, arguments: &Value, style: TextCallStyle) -> String {
    let call = json!({"name": name, "arguments": arguments}).to_string();
    match style {
        TextCallStyle::Json => call,
        TextCallStyle::Tagged => format!("<tool_call>\n{call}\n</tool_call>"),
        TextCallStyle::Fenced => format!("```json\n{call}\n```"),
    }
}

/// Parses a response text as JSON, after removing a Markdown code fence around it.
pub(super) fn parse_response_json(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix("```")
        .and_then(|rest| rest.strip_suffix("```"))
        .map(|body| {
            body.split_once('\n').map_or(body, |(first, after)| {
                if first.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
                    after
                } else {
                    body
                }
            })
        })
        .unwrap_or(trimmed);
    serde_json::from_str(inner).map_err(|e| parser_message(&e))
}

fn parser_message(error: &serde_json::Error) -> String {
    error.to_string()
}

fn not_an_object(value: &Value) -> String {
    let kind = match value {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "an object",
    };
    format!("expected a JSON object, got {kind}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_json_answers_parse() {
        assert_eq!(
            parse_response_json("```json\n{\"a\": 1}\n```"),
            Ok(json!({"a": 1}))
        );
        assert_eq!(parse_response_json("  {\"a\": 1} "), Ok(json!({"a": 1})));
        assert!(parse_response_json("<tool_call>\n{}\n</tool_call>").is_err());
    }
}
