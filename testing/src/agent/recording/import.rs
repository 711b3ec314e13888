//! A cassette from a real Camunda run: the `agentContext` the AI Agent connector stores (with
//! in-process conversation memory), exported from Operate or the REST API, read back as a
//! [`Recording`].
//!
//! The assistant messages become the turns, in order: their tool calls (with their ids and
//! arguments) or their text, and the token usage the provider reported. Each call's request
//! keeps what the context tells for sure — the tools (`toolDefinitions`), the system prompt,
//! the user prompt, the tool results and events of that call — and leaves out what it does not
//! (the messages as sent, the response format, the limits), which replay then does not compare.
//!
//! The file may hold the context itself, an object with an `agentContext` variable, the agent's
//! result variable (`{"context": …}`), or any of these as a JSON string (Operate shows variable
//! values as JSON text).

use serde_json::{Map, Value};

use super::format::{RecordedCall, RecordedProcess, RecordedRequest, Recording};
use super::normalize::Normalizer;
use super::redact::Redactor;
use super::replay::prepare;
use crate::agent::problems::{Problems, json_type};
use crate::agent::turn::{Arguments, ResponseTurn, ToolCall, ToolCallsTurn, Turn, Usage};

/// What the import cannot read, with the path of every problem.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {file}: not JSON at line {line}, column {column}: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file} is not an agentContext: {}", problems_text(problems))]
    NotAnAgentContext { file: String, problems: Problems },
    #[error("cannot import {file}: {}", problems_text(problems))]
    Invalid { file: String, problems: Problems },
}

fn problems_text(problems: &Problems) -> String {
    if problems.len() == 1 {
        return problems.to_string();
    }
    let lines: Vec<String> = problems
        .items()
        .iter()
        .map(|p| format!("\n  - {p}"))
        .collect();
    format!("{} problems{}", problems.len(), lines.concat())
}

/// What the import is told that the context does not say.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The agent element (the ad-hoc sub-process id) the cassette is for.
    pub agent: Option<String>,
    /// The BPMN process id the agent runs in.
    pub process_id: Option<String>,
}

/// Reads an exported agentContext from JSON text; `source` names the file in errors.
pub fn import_agent_context_text(
    text: &str,
    source: &str,
    options: &ImportOptions,
) -> Result<Recording, ImportError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rfind(" at line ")
            .map_or(message.clone(), |at| message[..at].to_string());
        ImportError::Syntax {
            file: source.to_string(),
            line: e.line(),
            column: e.column(),
            message,
        }
    })?;
    import_agent_context(&value, source, options)
}

/// Reads an exported agentContext (see the module documentation for what it may be wrapped in).
pub fn import_agent_context(
    value: &Value,
    source: &str,
    options: &ImportOptions,
) -> Result<Recording, ImportError> {
    let (context, path) =
        find_context(value, "").map_err(|problems| ImportError::NotAnAgentContext {
            file: source.to_string(),
            problems,
        })?;
    let mut problems = Problems::default();
    let calls = read_conversation(&context, &path, &mut problems);
    if !problems.is_empty() {
        return Err(ImportError::Invalid {
            file: source.to_string(),
            problems,
        });
    }
    let mut recording = Recording::new(
        options.agent.clone().unwrap_or_default(),
        options.process_id.clone().map(|id| RecordedProcess {
            id,
            definition_hash: None,
        }),
    );
    if options.agent.is_none() {
        recording.agent = None;
    }
    recording.calls = calls;
    Ok(recording)
}

/// The agentContext object in `value` and its path.
fn find_context(value: &Value, path: &str) -> Result<(Map<String, Value>, String), Problems> {
    let mut problems = Problems::default();
    let here = |field: &str| {
        if path.is_empty() {
            field.to_string()
        } else {
            format!("{path}.{field}")
        }
    };
    match value {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(inner) if !inner.is_string() => find_context(&inner, path),
            _ => {
                problems.push(path, "is a string that is not the JSON of an agentContext");
                Err(problems)
            }
        },
        Value::Object(object) if object.contains_key("conversation") => {
            Ok((object.clone(), path.to_string()))
        }
        Value::Object(object) => {
            for wrapper in ["agentContext", "context"] {
                if let Some(inner) = object.get(wrapper) {
                    return find_context(inner, &here(wrapper));
                }
            }
            problems.push(
                path,
                format!(
                    "has no conversation (an agentContext has state, toolDefinitions and conversation; got an object with {})",
                    if object.is_empty() {
                        "no keys".to_string()
                    } else {
                        object.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                ),
            );
            Err(problems)
        }
        other => {
            problems.push(
                path,
                format!(
                    "must be the agentContext object (or {{\"agentContext\": …}}), got {}",
                    json_type(other)
                ),
            );
            Err(problems)
        }
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// The calls of the conversation: one per assistant message, with the request that led to it.
fn read_conversation(
    context: &Map<String, Value>,
    path: &str,
    problems: &mut Problems,
) -> Vec<RecordedCall> {
    let tools = match context.get("toolDefinitions") {
        None => None,
        Some(Value::Array(tools)) => Some(Value::Array(tools.clone())),
        Some(other) => {
            problems.push(
                &join(path, "toolDefinitions"),
                format!(
                    "must be an array of tool definitions, got {}",
                    json_type(other)
                ),
            );
            None
        }
    };
    let conversation_path = join(path, "conversation");
    let Some(conversation) = context.get("conversation").and_then(Value::as_object) else {
        problems.push(
            &conversation_path,
            format!(
                "must be an object with type and messages, got {}",
                json_type(&context["conversation"])
            ),
        );
        return Vec::new();
    };
    match conversation.get("type").and_then(Value::as_str) {
        Some("in-process") | None => {}
        Some(other) => {
            problems.push(
                &join(&conversation_path, "type"),
                format!(
                    "is \"{other}\": the messages are stored outside the context (memory storage {other}); export a run that uses in-process memory (data.memory.storage.type = \"in-process\")"
                ),
            );
            return Vec::new();
        }
    }
    let messages_path = join(&conversation_path, "messages");
    let Some(messages) = conversation.get("messages").and_then(Value::as_array) else {
        problems.push(
            &messages_path,
            "must be the array of the conversation's messages",
        );
        return Vec::new();
    };
    let normalizer = Normalizer::standard();
    let redactor = Redactor::standard();
    let mut system_prompt: Option<String> = None;
    let mut input = CallInput::default();
    // Whether the last assistant message called tools (so what follows are their results).
    let mut pending_tools = false;
    let mut calls = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let message_path = format!("{messages_path}[{i}]");
        let Some(object) = message.as_object() else {
            problems.push(
                &message_path,
                format!("must be a message object, got {}", json_type(message)),
            );
            continue;
        };
        let role = object.get("role").and_then(Value::as_str);
        match role {
            Some("system") => system_prompt = Some(text_of(object.get("content"))),
            Some("user") => {
                let content = content_value(object.get("content"));
                if pending_tools || input.user_prompt.is_some() {
                    input.events.push(content);
                } else {
                    input.user_prompt = Some(text_of(object.get("content")));
                }
            }
            Some("tool_call_result") => {
                let Some(results) = object.get("results").and_then(Value::as_array) else {
                    problems.push(
                        &format!("{message_path}.results"),
                        "must be the array of tool results",
                    );
                    continue;
                };
                for (k, result) in results.iter().enumerate() {
                    match tool_result(result) {
                        Some(result) => input.tool_call_results.push(result),
                        None => problems.push(
                            &format!("{message_path}.results[{k}]"),
                            "must be a tool result with id, name and content",
                        ),
                    }
                }
            }
            Some("assistant") => {
                let Some(turn) = assistant_turn(object, &message_path, problems) else {
                    continue;
                };
                pending_tools = matches!(turn, Turn::ToolCalls(_));
                let mut request = Map::new();
                if let Some(tools) = &tools {
                    request.insert("tools".into(), tools.clone());
                }
                request.insert(
                    "systemPrompt".into(),
                    system_prompt.clone().map_or(Value::Null, Value::String),
                );
                let taken = std::mem::take(&mut input);
                request.insert(
                    "userPrompt".into(),
                    taken.user_prompt.map_or(Value::Null, Value::String),
                );
                request.insert(
                    "toolCallResults".into(),
                    Value::Array(taken.tool_call_results),
                );
                request.insert("events".into(), Value::Array(taken.events));
                let request: RecordedRequest =
                    prepare(&Value::Object(request), &normalizer, &redactor);
                calls.push(RecordedCall {
                    request: Some(request),
                    turn,
                    trajectory: Vec::new(),
                });
            }
            Some(other) => problems.push(
                &format!("{message_path}.role"),
                format!(
                    "is \"{other}\": a message is from system, user, assistant or tool_call_result"
                ),
            ),
            None => problems.push(&format!("{message_path}.role"), "is missing"),
        }
    }
    if calls.is_empty() && problems.is_empty() {
        problems.push(
            &messages_path,
            "has no assistant message: the model was never called, so there is no turn to replay",
        );
    }
    calls
}

#[derive(Default)]
struct CallInput {
    user_prompt: Option<String>,
    tool_call_results: Vec<Value>,
    events: Vec<Value>,
}

/// The text of a content list: its text blocks joined.
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::String(text)) => text.clone(),
        _ => String::new(),
    }
}

/// A content list back to the value it was lifted from: one text block is its text, one
/// object block its content, an empty list an empty string (what a tool that sets nothing
/// returns); 8.9 contexts store the value as it is.
fn content_value(content: Option<&Value>) -> Value {
    let Some(Value::Array(blocks)) = content else {
        return content.cloned().unwrap_or(Value::Null);
    };
    let lifted = |block: &Value| match block.get("type").and_then(Value::as_str) {
        Some("text") => block.get("text").cloned(),
        Some("object") => block.get("content").cloned(),
        _ => None,
    };
    match blocks.as_slice() {
        [] => Value::String(String::new()),
        [one] => lifted(one).unwrap_or_else(|| one.clone()),
        many => Value::Array(
            many.iter()
                .map(|b| lifted(b).unwrap_or_else(|| b.clone()))
                .collect(),
        ),
    }
}

fn tool_result(result: &Value) -> Option<Value> {
    let object = result.as_object()?;
    let name = object.get("name")?.clone();
    let mut out = Map::new();
    if let Some(id) = object.get("id") {
        out.insert("id".into(), id.clone());
    }
    out.insert("name".into(), name);
    out.insert("content".into(), content_value(object.get("content")));
    if object.get("interrupted") == Some(&Value::Bool(true)) {
        out.insert("interrupted".into(), Value::Bool(true));
    }
    Some(Value::Object(out))
}

fn assistant_turn(
    message: &Map<String, Value>,
    path: &str,
    problems: &mut Problems,
) -> Option<Turn> {
    let usage = message
        .get("metadata")
        .and_then(|m| m.get("framework"))
        .and_then(|f| f.get("tokenUsage"))
        .map(|u| {
            let count = |field: &str| u.get(field).and_then(Value::as_u64).unwrap_or(0);
            Usage::new(count("inputTokenCount"), count("outputTokenCount"))
        });
    let text = message
        .get("content")
        .map(|c| text_of(Some(c)))
        .filter(|t| !t.is_empty());
    let calls = match message.get("toolCalls") {
        None => Vec::new(),
        Some(Value::Array(calls)) => {
            let mut parsed = Vec::with_capacity(calls.len());
            for (k, call) in calls.iter().enumerate() {
                let call_path = format!("{path}.toolCalls[{k}]");
                let name = call.get("name").and_then(Value::as_str);
                let Some(name) = name.filter(|n| !n.trim().is_empty()) else {
                    problems.push(&format!("{call_path}.name"), "must be the tool's name");
                    continue;
                };
                let arguments = match call.get("arguments") {
                    None => Arguments::Json(Value::Object(Map::new())),
                    Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                        Ok(value) if value.is_object() => Arguments::Json(value),
                        _ => Arguments::Raw(text.clone()),
                    },
                    Some(value) => Arguments::Json(value.clone()),
                };
                parsed.push(ToolCall {
                    id: call
                        .get("id")
                        .and_then(Value::as_str)
                        .filter(|id| !id.trim().is_empty())
                        .map(str::to_string),
                    name: name.to_string(),
                    arguments,
                });
            }
            parsed
        }
        Some(other) => {
            problems.push(
                &format!("{path}.toolCalls"),
                format!("must be an array of tool calls, got {}", json_type(other)),
            );
            return None;
        }
    };
    let turn = if calls.is_empty() {
        Turn::Response(ResponseTurn {
            text: Some(text.unwrap_or_default()),
            json: None,
            usage,
            latency: None,
        })
    } else {
        Turn::ToolCalls(ToolCallsTurn {
            calls,
            text,
            // The connector sent whatever the model answered: replay it as it was.
            unchecked: true,
            usage,
            latency: None,
        })
    };
    match turn.validate(path) {
        Ok(()) => Some(turn),
        Err(found) => {
            for problem in found.items() {
                problems.push(&problem.path, problem.problem.clone());
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_is_not_an_agent_context_is_refused_with_its_path() {
        let refuse = |value: Value| {
            import_agent_context(&value, "export.json", &ImportOptions::default())
                .unwrap_err()
                .to_string()
        };
        insta::assert_snapshot!(
            [
                refuse(json!([1])),
                refuse(json!({"agentContext": {"state": "READY"}})),
                refuse(json!({"agentContext": "not json"})),
                refuse(json!({"conversation": {"type": "camunda-document", "documents": []}})),
                refuse(json!({"conversation": {"type": "in-process", "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                    {"role": "robot"},
                    {"role": "assistant", "toolCalls": [{"id": "a"}]}
                ]}})),
                refuse(json!({"conversation": {"messages": [{"role": "user", "content": []}]}})),
            ]
            .join("\n"),
            @r#"
        export.json is not an agentContext: must be the agentContext object (or {"agentContext": …}), got an array
        export.json is not an agentContext: agentContext has no conversation (an agentContext has state, toolDefinitions and conversation; got an object with state)
        export.json is not an agentContext: agentContext is a string that is not the JSON of an agentContext
        cannot import export.json: conversation.type is "camunda-document": the messages are stored outside the context (memory storage camunda-document); export a run that uses in-process memory (data.memory.storage.type = "in-process")
        cannot import export.json: 2 problems
          - conversation.messages[1].role is "robot": a message is from system, user, assistant or tool_call_result
          - conversation.messages[2].toolCalls[0].name must be the tool's name
        cannot import export.json: conversation.messages has no assistant message: the model was never called, so there is no turn to replay
        "#
        );
    }

    #[test]
    fn turns_and_requests_come_from_the_conversation() {
        let context = json!({
            "state": "READY",
            "toolDefinitions": [{"name": "lookup-order", "description": "d", "inputSchema": {"type": "object", "properties": {}, "required": []}}],
            "conversation": {"type": "in-process", "conversationId": "6f1c2a7e-0d4b-4c57-9a55-2b8f1e0c9d11", "messages": [
                {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
                {"role": "user", "content": [{"type": "text", "text": "Where is 1042?"}], "metadata": {"timestamp": "2026-08-07T10:00:00.120+02:00"}},
                {"role": "assistant", "toolCalls": [{"id": "toolu_01", "name": "lookup-order", "arguments": {"orderId": "1042"}}],
                 "metadata": {"framework": {"tokenUsage": {"inputTokenCount": 10, "outputTokenCount": 2, "totalTokenCount": 12}}}},
                {"role": "tool_call_result", "results": [{"id": "toolu_01", "name": "lookup-order", "content": [{"type": "object", "content": {"status": "shipped"}}]}]},
                {"role": "assistant", "content": [{"type": "text", "text": "It shipped."}]}
            ]}
        });
        let recording = import_agent_context(
            &json!({"agentContext": context.to_string()}),
            "export.json",
            &ImportOptions {
                agent: Some("support-agent".into()),
                process_id: None,
            },
        )
        .unwrap();
        insta::assert_snapshot!(recording.to_pretty_string());
    }
}
