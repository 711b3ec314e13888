//! Readers of the parts of a turn: tool calls (structured or as text), latency, and the small
//! field readers they share. Each reports every problem with its path, as `Turn`'s reader does.

use super::*;

pub(super) fn read_latency(value: &Value, path: &str, problems: &mut Problems) -> Option<Duration> {
    match value {
        Value::String(text) => match crate::clock::parse_duration(text) {
            Ok(ms) if ms >= 0 => {
                let latency = Duration::from_millis(ms as u64);
                if latency > crate::faults::LONGEST_FAULT_DURATION {
                    problems.push(
                        path,
                        format!(
                            "{text} is longer than a model may take (at most 366 days, as a fault's latency)"
                        ),
                    );
                    None
                } else {
                    Some(latency)
                }
            }
            Ok(_) => {
                problems.push(path, "must not be negative");
                None
            }
            Err(e) => {
                problems.push(path, e.to_string());
                None
            }
        },
        other => {
            problems.push(
                path,
                format!(
                    "must be an ISO-8601 duration such as \"PT30S\", got {}",
                    json_type(other)
                ),
            );
            None
        }
    }
}

impl ToolCallsTurn {
    /// Reads a `{ "toolCalls": [...] }` turn, its usage and latency already read.
    pub(super) fn from_json_into(
        object: &Map<String, Value>,
        path: &str,
        usage: Option<Usage>,
        latency: Option<Duration>,
        problems: &mut Problems,
    ) -> ToolCallsTurn {
        problems.unknown_fields(
            path,
            object,
            &["toolCalls", "text", "unchecked", "usage", "latency"],
        );
        let text = string_field(object, "text", path, problems);
        let unchecked = match object.get("unchecked") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                problems.push(
                    &format!("{path}.unchecked"),
                    format!("must be true or false, got {other}"),
                );
                false
            }
        };
        let calls_path = format!("{path}.toolCalls");
        let calls = match &object["toolCalls"] {
            Value::Array(calls) if !calls.is_empty() => {
                read_tool_calls(calls, &calls_path, problems)
            }
            Value::Array(_) => {
                problems.push(&calls_path, "must not be empty: end the agent with a { \"responseText\" } or { \"responseJson\" } turn instead".to_string());
                Vec::new()
            }
            other => {
                problems.push(
                    &calls_path,
                    format!("must be an array of tool calls, got {}", json_type(other)),
                );
                Vec::new()
            }
        };
        ToolCallsTurn {
            calls,
            text,
            unchecked,
            usage,
            latency,
        }
    }
}

/// Reads a turn's tool calls, each id once.
fn read_tool_calls(calls: &[Value], calls_path: &str, problems: &mut Problems) -> Vec<ToolCall> {
    let mut seen_ids: Vec<(&str, usize)> = Vec::new();
    let mut parsed = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let call_path = format!("{calls_path}[{i}]");
        if let Some(call) = parse_tool_call(call, &call_path, problems) {
            parsed.push(call);
        }
        if let Some(id) = call.get("id").and_then(Value::as_str) {
            if let Some((_, first)) = seen_ids.iter().find(|(seen, _)| *seen == id) {
                problems.push(
                    &format!("{call_path}.id"),
                    format!(
                        "\"{id}\" repeats {calls_path}[{first}].id: ids of one turn must differ"
                    ),
                );
            } else {
                seen_ids.push((id, i));
            }
        }
    }
    parsed
}

impl ToolCallAsTextTurn {
    /// Reads a `{ "toolCallAsText": {name, arguments, style} }` turn.
    pub(super) fn from_json_into(
        object: &Map<String, Value>,
        path: &str,
        usage: Option<Usage>,
        latency: Option<Duration>,
        problems: &mut Problems,
    ) -> Option<ToolCallAsTextTurn> {
        problems.unknown_fields(path, object, &["toolCallAsText", "usage", "latency"]);
        let inner_path = format!("{path}.toolCallAsText");
        let Some(inner) = object["toolCallAsText"].as_object() else {
            problems.push(
                &inner_path,
                format!(
                    "must be an object with name, arguments and style, got {}",
                    json_type(&object["toolCallAsText"])
                ),
            );
            return None;
        };
        problems.unknown_fields(&inner_path, inner, &["name", "arguments", "style"]);
        let name = required_name(inner, &inner_path, problems);
        let arguments = inner
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new()));
        let style = match inner.get("style") {
            None => TextCallStyle::Json,
            Some(Value::String(s)) if s == "json" => TextCallStyle::Json,
            Some(Value::String(s)) if s == "tagged" => TextCallStyle::Tagged,
            Some(Value::String(s)) if s == "fenced" => TextCallStyle::Fenced,
            Some(other) => {
                problems.push(
                    &format!("{inner_path}.style"),
                    format!("must be \"json\", \"tagged\" or \"fenced\", got {other}"),
                );
                TextCallStyle::Json
            }
        };
        Some(ToolCallAsTextTurn {
            name: name.unwrap_or_default(),
            arguments,
            style,
            usage,
            latency,
        })
    }
}

fn parse_tool_call(value: &Value, path: &str, problems: &mut Problems) -> Option<ToolCall> {
    let Some(object) = value.as_object() else {
        problems.push(
            path,
            format!(
                "must be an object with name and arguments, got {}",
                json_type(value)
            ),
        );
        return None;
    };
    problems.unknown_fields(path, object, &["id", "name", "arguments", "rawArguments"]);
    let name = required_name(object, path, problems);
    let id = match object.get("id") {
        None => None,
        Some(Value::String(id)) if !id.trim().is_empty() => Some(id.clone()),
        Some(other) => {
            problems.push(
                &format!("{path}.id"),
                format!("must be a non-empty string, got {other}"),
            );
            None
        }
    };
    let arguments = match (object.get("arguments"), object.get("rawArguments")) {
        (Some(_), Some(_)) => {
            problems.push(
                path,
                "has both arguments and rawArguments: give one".to_string(),
            );
            return None;
        }
        (Some(arguments), None) => {
            if !arguments.is_object() {
                problems.push(
                    &format!("{path}.arguments"),
                    format!("must be an object (write arguments that are not JSON as rawArguments), got {}", json_type(arguments)),
                );
            }
            Arguments::Json(arguments.clone())
        }
        (None, Some(Value::String(raw))) => Arguments::Raw(raw.clone()),
        (None, Some(other)) => {
            problems.push(
                &format!("{path}.rawArguments"),
                format!(
                    "must be the text the model sent (a string), got {}",
                    json_type(other)
                ),
            );
            return None;
        }
        (None, None) => Arguments::Json(Value::Object(Map::new())),
    };
    Some(ToolCall {
        id,
        name: name?,
        arguments,
    })
}

fn required_name(
    object: &Map<String, Value>,
    path: &str,
    problems: &mut Problems,
) -> Option<String> {
    match object.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => Some(name.clone()),
        Some(other) => {
            problems.push(
                &format!("{path}.name"),
                format!("must be a tool's element id (a non-empty string), got {other}"),
            );
            None
        }
        None => {
            problems.push(
                &format!("{path}.name"),
                "is missing: name the tool (its element id)".to_string(),
            );
            None
        }
    }
}

pub(super) fn string_field(
    object: &Map<String, Value>,
    field: &str,
    path: &str,
    problems: &mut Problems,
) -> Option<String> {
    match object.get(field) {
        None => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => {
            problems.push(
                &format!("{path}.{field}"),
                format!("must be a string, got {}", json_type(other)),
            );
            None
        }
    }
}
