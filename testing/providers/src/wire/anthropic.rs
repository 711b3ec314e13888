//! Anthropic Messages, as LangChain4j's Anthropic module writes the request and reads the
//! answer: the system prompt as a top-level text block list, tool results of a turn batched
//! into one user message, structured output as `output_config.format` without a schema name.

use serde_json::{Value, json};

use super::{json_request, object};
use crate::conversation::{Conversation, Format, Message, RequestError};
use crate::http::HttpRequest;
use crate::reply::{Reply, ReplyCall, StopReason, text_at, tokens};
use crate::select::Target;

/// The API version header LangChain4j sends.
pub const VERSION: &str = "2023-06-01";

/// LangChain4j's `max_tokens` when the element sets none (the API requires one).
pub const DEFAULT_MAX_TOKENS: u64 = 1024;

pub fn body(target: &Target, conversation: &Conversation) -> Result<Value, RequestError> {
    let p = &target.parameters;
    let mut body = object([
        ("model", target.model.clone().into()),
        ("messages", Value::Array(messages(conversation))),
    ]);
    if let Some(system) = &conversation.system {
        body.insert("system".into(), json!([{"type": "text", "text": system}]));
    }
    body.insert(
        "max_tokens".into(),
        p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).into(),
    );
    body.insert("stream".into(), false.into());
    if let Some(t) = p.temperature {
        body.insert("temperature".into(), t.into());
    }
    if let Some(t) = p.top_p {
        body.insert("top_p".into(), t.into());
    }
    if let Some(k) = p.top_k {
        body.insert("top_k".into(), k.into());
    }
    if !conversation.tools.is_empty() {
        let tools = conversation
            .tools
            .iter()
            .map(|tool| {
                let mut t = object([("name", tool.name.clone().into())]);
                if let Some(d) = &tool.description {
                    t.insert("description".into(), d.clone().into());
                }
                t.insert(
                    "input_schema".into(),
                    json!({
                        "type": "object",
                        "properties": tool.parameters.properties_json(),
                        "required": tool.parameters.required(),
                    }),
                );
                Value::Object(t)
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    match &conversation.format {
        Format::Text => {}
        Format::Json { schema: None, .. } => {
            return Err(RequestError {
                path: "responseFormat".to_string(),
                message: "Anthropic takes a JSON response format only with a schema (LangChain4j refuses a schemaless one)".to_string(),
            });
        }
        Format::Json {
            schema: Some(schema),
            ..
        } => {
            body.insert(
                "output_config".into(),
                json!({"format": {"type": "json_schema", "schema": schema.to_anthropic_json()}}),
            );
        }
    }
    Ok(Value::Object(body))
}

fn messages(conversation: &Conversation) -> Vec<Value> {
    let mut out = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    let flush = |out: &mut Vec<Value>, results: &mut Vec<Value>| {
        if !results.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(results)}));
        }
    };
    for message in &conversation.messages {
        match message {
            Message::ToolResult(result) => results.push(json!({
                "type": "tool_result",
                "tool_use_id": result.id,
                "content": result.text,
            })),
            Message::User(parts) => {
                flush(&mut out, &mut results);
                let content: Vec<Value> = parts
                    .iter()
                    .map(|t| json!({"type": "text", "text": t}))
                    .collect();
                out.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant { text, calls } => {
                flush(&mut out, &mut results);
                let mut content = Vec::new();
                if let Some(text) = text.as_ref().filter(|t| !t.trim().is_empty()) {
                    content.push(json!({"type": "text", "text": text}));
                }
                for call in calls {
                    let input: Value =
                        serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                    content.push(json!({
                        "type": "tool_use", "id": call.id, "name": call.name, "input": input
                    }));
                }
                out.push(json!({"role": "assistant", "content": content}));
            }
        }
    }
    flush(&mut out, &mut results);
    out
}

/// `POST {base}/messages` with `x-api-key` and `anthropic-version`.
pub fn request(target: &Target, conversation: &Conversation) -> Result<HttpRequest, RequestError> {
    let mut request = json_request(target, "/messages", &body(target, conversation)?);
    request
        .headers
        .push(("anthropic-version".to_string(), VERSION.to_string()));
    Ok(request)
}

/// The answer: text blocks joined by a line break, `tool_use` blocks as calls with their
/// `input` as JSON text, usage with the cache counts.
pub fn reply(body: &Value) -> Result<Reply, String> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or("the answer has no content list")?;
    let texts: Vec<&str> = content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let calls = content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|b| ReplyCall {
            id: text_at(b, &["id"]).unwrap_or_default(),
            name: text_at(b, &["name"]).unwrap_or_default(),
            arguments: b.get("input").unwrap_or(&Value::Null).to_string(),
        })
        .collect();
    let stop = body
        .get("stop_reason")
        .and_then(Value::as_str)
        .map(|r| match r {
            "end_turn" | "stop_sequence" => StopReason::Stop,
            "max_tokens" => StopReason::Length,
            "tool_use" => StopReason::ToolUse,
            other => StopReason::Other(other.to_string()),
        });
    let usage = body.get("usage").unwrap_or(&Value::Null);
    let mut normalised = baton_testing::agent::Usage::new(
        tokens(usage, &["input_tokens"]),
        tokens(usage, &["output_tokens"]),
    );
    normalised.cache_read_token_count = tokens(usage, &["cache_read_input_tokens"]);
    normalised.cache_creation_token_count = tokens(usage, &["cache_creation_input_tokens"]);
    let text = texts.join("\n");
    Ok(Reply {
        id: text_at(body, &["id"]),
        model: text_at(body, &["model"]),
        text: (!text.is_empty()).then_some(text),
        calls,
        usage: normalised,
        stop,
        refusal: None,
    })
}

/// `{type: "error", error: {type, message}}`.
pub fn error(body: &Value) -> (Option<String>, Option<String>) {
    let error = body.get("error").unwrap_or(body);
    (text_at(error, &["message"]), text_at(error, &["type"]))
}
