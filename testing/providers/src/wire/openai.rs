//! OpenAI chat completions (`openai`, `openaiCompatible`, and Azure OpenAI on a deployment
//! path), as LangChain4j's OpenAI module writes the request and reads the answer.

use serde_json::{Map, Value, json};

use super::{json_request, object};
use crate::conversation::{Conversation, Format, Message};
use crate::http::HttpRequest;
use crate::reply::{Reply, ReplyCall, StopReason, text_at, tokens};
use crate::select::{ProviderKind, Target};

/// The request body: `model`, `messages`, the sampling parameters, `response_format`, `tools`,
/// then an OpenAI-compatible endpoint's custom parameters. Azure's body names no model (the
/// deployment is in the path) and limits with `max_tokens`.
pub fn body(target: &Target, conversation: &Conversation) -> Value {
    let azure = target.provider == ProviderKind::AzureOpenAi;
    let p = &target.parameters;
    let mut body = Map::new();
    if !azure {
        body.insert("model".into(), target.model.clone().into());
    }
    body.insert("messages".into(), Value::Array(messages(conversation)));
    if let Some(t) = p.temperature {
        body.insert("temperature".into(), t.into());
    }
    if let Some(t) = p.top_p {
        body.insert("top_p".into(), t.into());
    }
    if let Some(max) = p.max_tokens {
        let key = if azure {
            "max_tokens"
        } else {
            "max_completion_tokens"
        };
        body.insert(key.into(), max.into());
    }
    match &conversation.format {
        Format::Text => {}
        Format::Json { schema: None, .. } => {
            body.insert("response_format".into(), json!({"type": "json_object"}));
        }
        Format::Json {
            name,
            schema: Some(schema),
        } => {
            body.insert(
                "response_format".into(),
                json!({
                    "type": "json_schema",
                    "json_schema": {"name": name, "strict": false, "schema": schema.to_json()}
                }),
            );
        }
    }
    if !conversation.tools.is_empty() {
        let tools = conversation
            .tools
            .iter()
            .map(|tool| {
                let mut function = Map::new();
                function.insert("name".into(), tool.name.clone().into());
                if let Some(d) = &tool.description {
                    function.insert("description".into(), d.clone().into());
                }
                function.insert("parameters".into(), tool.parameters.to_json());
                json!({"type": "function", "function": function})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    for (key, value) in &p.custom {
        body.insert(key.clone(), value.clone());
    }
    Value::Object(body)
}

fn messages(conversation: &Conversation) -> Vec<Value> {
    let mut out = Vec::with_capacity(conversation.messages.len() + 1);
    if let Some(system) = &conversation.system {
        out.push(json!({"role": "system", "content": system}));
    }
    for message in &conversation.messages {
        out.push(match message {
            Message::User(parts) => match parts.as_slice() {
                [single] => json!({"role": "user", "content": single}),
                parts => json!({
                    "role": "user",
                    "content": parts.iter().map(|t| json!({"type": "text", "text": t})).collect::<Vec<_>>()
                }),
            },
            Message::Assistant { text, calls } => {
                let mut m = object([("role", "assistant".into())]);
                if let Some(text) = text {
                    m.insert("content".into(), text.clone().into());
                }
                if !calls.is_empty() {
                    let calls = calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments}
                            })
                        })
                        .collect();
                    m.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(m)
            }
            Message::ToolResult(result) => {
                json!({"role": "tool", "tool_call_id": result.id, "content": result.text})
            }
        });
    }
    out
}

/// `POST {base}/chat/completions` (Azure: `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`).
pub fn request(target: &Target, conversation: &Conversation) -> HttpRequest {
    let path = if target.provider == ProviderKind::AzureOpenAi {
        format!("/openai/deployments/{}/chat/completions", target.model)
    } else {
        "/chat/completions".to_string()
    };
    json_request(target, &path, &body(target, conversation))
}

/// The answer: the first choice's text, tool calls and refusal; usage with cached prompt
/// tokens moved out of the input count (the connector's normalisation).
pub fn reply(body: &Value) -> Result<Reply, String> {
    let choices = body
        .get("choices")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
        .ok_or("Chat completion failed: no choices returned in response")?;
    if choices.len() > 1 {
        return Err(format!(
            "Chat completion failed: expected exactly one choice, but got {} choices",
            choices.len()
        ));
    }
    let message = choices[0]
        .get("message")
        .ok_or("the choice has no message")?;
    let mut calls = Vec::new();
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if call.get("type").and_then(Value::as_str) != Some("function") {
            continue;
        }
        calls.push(ReplyCall {
            id: text_at(call, &["id"]).unwrap_or_default(),
            name: text_at(call, &["function", "name"]).unwrap_or_default(),
            arguments: text_at(call, &["function", "arguments"]).unwrap_or_default(),
        });
    }
    let stop = choices[0]
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(|r| match r {
            "stop" => StopReason::Stop,
            "length" => StopReason::Length,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "content_filter" => StopReason::ContentFiltered,
            other => StopReason::Other(other.to_string()),
        });
    let usage = body.get("usage").unwrap_or(&Value::Null);
    let cached = tokens(usage, &["prompt_tokens_details", "cached_tokens"]);
    let mut normalised = baton_testing::agent::Usage::new(
        tokens(usage, &["prompt_tokens"]).saturating_sub(cached),
        tokens(usage, &["completion_tokens"]),
    );
    normalised.cache_read_token_count = cached;
    normalised.reasoning_token_count =
        tokens(usage, &["completion_tokens_details", "reasoning_tokens"]);
    Ok(Reply {
        id: text_at(body, &["id"]),
        model: text_at(body, &["model"]),
        text: text_at(message, &["content"]).filter(|t| !t.is_empty()),
        calls,
        usage: normalised,
        stop,
        refusal: text_at(message, &["refusal"]).filter(|r| !r.trim().is_empty()),
    })
}

/// The error of an error answer: `{error: {message, type, code}}`.
pub fn error(body: &Value) -> (Option<String>, Option<String>) {
    let error = body.get("error").unwrap_or(body);
    let code = text_at(error, &["code"]).or_else(|| text_at(error, &["type"]));
    (text_at(error, &["message"]), code)
}
