//! One model call in neutral terms, as the connector hands it to LangChain4j: the system
//! message, the conversation (user text, assistant text and tool calls with their arguments as
//! JSON text, tool results as text), the tool specifications and the response format. Read from
//! the request a model adapter gets (`{tools, messages, responseFormat, …}`); each wire format
//! writes it its own way.

use serde_json::{Map, Value};

use crate::schema::Schema;

/// What a tool result with no content reaches the model as (the connector's words).
pub const NO_RESULT: &str = "Tool execution succeeded, but returned no result.";

/// One model call's input.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub format: Format,
}

/// A message after the system message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The user's parts (text; an object's JSON as text).
    User(Vec<String>),
    Assistant {
        text: Option<String>,
        calls: Vec<Call>,
    },
    /// One tool's result (the connector's one `tool_call_result` message becomes one of these
    /// per result, in order).
    ToolResult(ToolResult),
}

/// A tool call the assistant made earlier.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    /// The arguments as JSON text (compact).
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub id: String,
    pub name: String,
    pub text: String,
}

/// A tool as the model is offered it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: Option<String>,
    /// The input schema, an object schema.
    pub parameters: Schema,
}

/// The response format of the final answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Format {
    /// Nothing is asked of the provider (the connector never sends "text" explicitly).
    Text,
    /// JSON, with a schema (named `Response` unless the element names it) or without.
    Json {
        name: String,
        schema: Option<Schema>,
    },
}

/// Why a request cannot be sent as the connector would send it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct RequestError {
    pub path: String,
    pub message: String,
}

fn error(path: impl Into<String>, message: impl Into<String>) -> RequestError {
    RequestError {
        path: path.into(),
        message: message.into(),
    }
}

impl Conversation {
    /// The conversation of a request as the agent mock builds it (the JSON a model adapter
    /// reads: `tools`, `messages`, `responseFormat`).
    pub fn from_request(request: &Value) -> Result<Conversation, RequestError> {
        let mut system = None;
        let mut messages = Vec::new();
        let empty = Vec::new();
        let list = request
            .get("messages")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        for (i, message) in list.iter().enumerate() {
            let path = format!("messages[{i}]");
            match message.get("role").and_then(Value::as_str) {
                Some("system") => system = Some(single_text(message, &path, "system")?),
                Some("user") => messages.push(Message::User(user_parts(message, &path)?)),
                Some("assistant") => messages.push(assistant(message, &path)?),
                Some("tool_call_result") => {
                    let results = message
                        .get("results")
                        .and_then(Value::as_array)
                        .ok_or_else(|| error(format!("{path}.results"), "must be a list"))?;
                    for (j, result) in results.iter().enumerate() {
                        messages.push(Message::ToolResult(tool_result(
                            result,
                            &format!("{path}.results[{j}]"),
                        )?));
                    }
                }
                other => {
                    return Err(error(
                        format!("{path}.role"),
                        format!("unknown role {other:?}"),
                    ));
                }
            }
        }
        let tools = request
            .get("tools")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .iter()
            .enumerate()
            .map(|(i, tool)| tool_spec(tool, &format!("tools[{i}]")))
            .collect::<Result<_, _>>()?;
        let format = format(request.get("responseFormat"))?;
        Ok(Conversation {
            system,
            messages,
            tools,
            format,
        })
    }
}

fn content<'v>(message: &'v Value, path: &str) -> Result<&'v [Value], RequestError> {
    match message.get("content") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(error(format!("{path}.content"), "must be a list")),
    }
}

fn single_text(message: &Value, path: &str, role: &str) -> Result<String, RequestError> {
    match content(message, path)? {
        [block] if block.get("type").and_then(Value::as_str) == Some("text") => Ok(block
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()),
        blocks => Err(error(
            format!("{path}.content"),
            format!(
                "a {role} message is sent with a single text block, got {} blocks",
                blocks.len()
            ),
        )),
    }
}

/// A content block as text: text as it is, an object as its JSON.
fn block_text(block: &Value, path: &str) -> Result<String, RequestError> {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => Ok(block
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()),
        Some("object") => Ok(match block.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "null".to_string(),
        }),
        Some("document") => Err(error(
            path,
            "documents are not sent to providers yet (record this call with --agent-command)",
        )),
        other => Err(error(path, format!("unknown content type {other:?}"))),
    }
}

fn user_parts(message: &Value, path: &str) -> Result<Vec<String>, RequestError> {
    let blocks = content(message, path)?;
    if blocks.is_empty() {
        return Err(error(
            format!("{path}.content"),
            "UserMessage content cannot be empty",
        ));
    }
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| block_text(b, &format!("{path}.content[{i}]")))
        .collect()
}

fn assistant(message: &Value, path: &str) -> Result<Message, RequestError> {
    let text = match content(message, path)? {
        [] => None,
        [_] => Some(single_text(message, path, "assistant")?),
        blocks => {
            return Err(error(
                format!("{path}.content"),
                format!(
                    "an assistant message is sent with a single text block, got {} blocks",
                    blocks.len()
                ),
            ));
        }
    };
    let mut calls = Vec::new();
    if let Some(list) = message.get("toolCalls").and_then(Value::as_array) {
        for (i, call) in list.iter().enumerate() {
            let text = |key: &str| {
                call.get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let arguments = match call.get("arguments") {
                None | Some(Value::Null) => "{}".to_string(),
                Some(v @ Value::Object(_)) => v.to_string(),
                Some(other) => {
                    return Err(error(
                        format!("{path}.toolCalls[{i}].arguments"),
                        format!("must be an object, got {other}"),
                    ));
                }
            };
            calls.push(Call {
                id: text("id"),
                name: text("name"),
                arguments,
            });
        }
    }
    Ok(Message::Assistant { text, calls })
}

fn tool_result(result: &Value, path: &str) -> Result<ToolResult, RequestError> {
    let text_of = |key: &str| {
        result
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let blocks = content(result, path)?;
    let parts = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| match b.get("type").and_then(Value::as_str) {
            // A document in a tool result reaches the model as its JSON reference.
            Some("document") => Ok(b.get("document").unwrap_or(&Value::Null).to_string()),
            _ => block_text(b, &format!("{path}.content[{i}]")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let text = parts.join("\n");
    Ok(ToolResult {
        id: text_of("id"),
        name: text_of("name"),
        text: if text.trim().is_empty() {
            NO_RESULT.to_string()
        } else {
            text
        },
    })
}

fn tool_spec(tool: &Value, path: &str) -> Result<ToolSpec, RequestError> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| error(format!("{path}.name"), "a tool needs a name"))?
        .to_string();
    let schema = tool
        .get("inputSchema")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let parameters = Schema::read(&schema).map_err(|m| {
        error(
            format!("{path}.inputSchema"),
            format!("Failed to parse input schema for tool '{name}': {m}"),
        )
    })?;
    if !matches!(parameters, Schema::Object { .. }) {
        return Err(error(
            format!("{path}.inputSchema"),
            format!(
                "Failed to parse input schema for tool '{name}': Input schema must be of type object"
            ),
        ));
    }
    Ok(ToolSpec {
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        name,
        parameters,
    })
}

fn format(value: Option<&Value>) -> Result<Format, RequestError> {
    let Some(value) = value else {
        return Ok(Format::Text);
    };
    if value.get("type").and_then(Value::as_str) != Some("json") {
        return Ok(Format::Text);
    }
    let name = value
        .get("schemaName")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .unwrap_or("Response")
        .to_string();
    let schema = match value.get("schema") {
        None | Some(Value::Null) => None,
        Some(schema) => Some(Schema::read(schema).map_err(|m| error("responseFormat.schema", m))?),
    };
    Ok(Format::Json { name, schema })
}
