//! Gemini `generateContent` (Vertex AI's REST form, and Gemini's own API): contents with roles
//! `user`/`model`, function calls and responses as parts, the schema in Gemini's own types, as
//! LangChain4j's Vertex AI Gemini module maps them. (The connector reaches Vertex over gRPC;
//! the REST JSON carries the same messages.)

use serde_json::{Map, Value, json};

use super::json_request;
use crate::conversation::{Conversation, Format, Message};
use crate::http::HttpRequest;
use crate::reply::{Reply, ReplyCall, StopReason, text_at, tokens};
use crate::schema::Schema;
use crate::select::{ProviderKind, Target};

pub fn body(target: &Target, conversation: &Conversation) -> Value {
    let p = &target.parameters;
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents(conversation)));
    if let Some(system) = &conversation.system {
        body.insert(
            "systemInstruction".into(),
            json!({"role": "system", "parts": [{"text": system}]}),
        );
    }
    if !conversation.tools.is_empty() {
        let declarations: Vec<Value> = conversation
            .tools
            .iter()
            .map(|tool| {
                let mut d = Map::new();
                d.insert("name".into(), tool.name.clone().into());
                if let Some(text) = &tool.description {
                    d.insert("description".into(), text.clone().into());
                }
                d.insert("parameters".into(), gemini_schema(&tool.parameters));
                Value::Object(d)
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    let mut generation = Map::new();
    if let Some(t) = p.temperature {
        generation.insert("temperature".into(), t.into());
    }
    if let Some(t) = p.top_p {
        generation.insert("topP".into(), t.into());
    }
    if let Some(k) = p.top_k {
        generation.insert("topK".into(), k.into());
    }
    if let Some(max) = p.max_tokens {
        generation.insert("maxOutputTokens".into(), max.into());
    }
    if let Format::Json { schema, .. } = &conversation.format {
        generation.insert("responseMimeType".into(), "application/json".into());
        if let Some(schema) = schema {
            generation.insert("responseSchema".into(), gemini_schema(schema));
        }
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Value::Object(body)
}

/// A schema in Gemini's `Schema` message: upper-case types, keys in the message's field
/// order (type, items, properties, required, nullable, description, enum).
fn gemini_schema(schema: &Schema) -> Value {
    let mut map = Map::new();
    let described = |map: &mut Map<String, Value>, d: &Option<String>| {
        if let Some(d) = d {
            map.insert("description".into(), d.clone().into());
        }
    };
    match schema {
        Schema::Object {
            description,
            properties,
            required,
            ..
        } => {
            map.insert("type".into(), "OBJECT".into());
            let props: Map<String, Value> = properties
                .iter()
                .map(|(n, s)| (n.clone(), gemini_schema(s)))
                .collect();
            map.insert("properties".into(), Value::Object(props));
            if !required.is_empty() {
                map.insert("required".into(), json!(required));
            }
            described(&mut map, description);
        }
        Schema::Array { description, items } => {
            map.insert("type".into(), "ARRAY".into());
            if let Some(items) = items {
                map.insert("items".into(), gemini_schema(items));
            }
            described(&mut map, description);
        }
        Schema::Enum {
            description,
            values,
        } => {
            map.insert("type".into(), "STRING".into());
            described(&mut map, description);
            map.insert("enum".into(), json!(values));
        }
        Schema::String(d) | Schema::Number(d) | Schema::Integer(d) | Schema::Boolean(d) => {
            let kind = match schema {
                Schema::String(_) => "STRING",
                Schema::Number(_) => "NUMBER",
                Schema::Integer(_) => "INTEGER",
                _ => "BOOLEAN",
            };
            map.insert("type".into(), kind.into());
            described(&mut map, d);
        }
        Schema::Null => {
            map.insert("nullable".into(), true.into());
        }
        Schema::AnyOf {
            description,
            any_of,
        } => {
            map.insert(
                "anyOf".into(),
                Value::Array(any_of.iter().map(gemini_schema).collect()),
            );
            described(&mut map, description);
        }
        Schema::Reference(_) => {}
    }
    Value::Object(map)
}

/// The conversation as contents; the tool results of a turn go in one `user` content, as
/// LangChain4j batches them.
fn contents(conversation: &Conversation) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    let flush = |out: &mut Vec<Value>, results: &mut Vec<Value>| {
        if !results.is_empty() {
            out.push(json!({"role": "user", "parts": std::mem::take(results)}));
        }
    };
    for message in &conversation.messages {
        let (role, parts): (&str, Vec<Value>) = match message {
            Message::ToolResult(result) => {
                results.push(json!({"functionResponse": {
                    "name": result.name,
                    "response": function_response(&result.text),
                }}));
                continue;
            }
            Message::User(texts) => ("user", texts.iter().map(|t| json!({"text": t})).collect()),
            Message::Assistant { text, calls } => {
                let mut parts = Vec::new();
                if let Some(text) = text.as_ref().filter(|t| !t.trim().is_empty()) {
                    parts.push(json!({"text": text}));
                }
                for call in calls {
                    let args: Value =
                        serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                    parts.push(json!({"functionCall": {"name": call.name, "args": args}}));
                }
                ("model", parts)
            }
        };
        flush(&mut out, &mut results);
        out.push(json!({"role": role, "parts": parts}));
    }
    flush(&mut out, &mut results);
    out
}

/// A tool result as a function response: its JSON when it is an object, else `{result: …}`
/// (the value when it is JSON, the text when not).
fn function_response(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(object @ Value::Object(_)) => object,
        Ok(value) => json!({"result": value}),
        Err(_) => json!({"result": text}),
    }
}

/// Vertex: `POST {base}/v1/projects/{project}/locations/{region}/publishers/google/models/{model}:generateContent`;
/// Gemini's API: `POST {base}/v1beta/models/{model}:generateContent`.
pub fn request(target: &Target, conversation: &Conversation) -> HttpRequest {
    let path = match target.provider {
        ProviderKind::VertexAi => format!(
            "/v1/projects/{}/locations/{}/publishers/google/models/{}:generateContent",
            target.project.as_deref().unwrap_or_default(),
            target.region.as_deref().unwrap_or_default(),
            target.model
        ),
        _ => format!("/v1beta/models/{}:generateContent", target.model),
    };
    json_request(target, &path, &body(target, conversation))
}

/// The answer: the first candidate's parts (text, function calls; Gemini gives calls no id),
/// `finishReason`, `usageMetadata`.
pub fn reply(body: &Value) -> Result<Reply, String> {
    let Some(candidate) = body
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        // A prompt the safety filters blocked has no candidates, only the reason.
        if body.pointer("/promptFeedback/blockReason").is_some() {
            return Ok(Reply {
                stop: Some(StopReason::ContentFiltered),
                ..Reply::default()
            });
        }
        return Err("the answer has no candidates".to_string());
    };
    let parts = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    let calls = parts
        .iter()
        .filter_map(|p| p.get("functionCall"))
        .map(|c| ReplyCall {
            id: text_at(c, &["id"]).unwrap_or_default(),
            name: text_at(c, &["name"]).unwrap_or_default(),
            arguments: c
                .get("args")
                .cloned()
                .unwrap_or_else(|| json!({}))
                .to_string(),
        })
        .collect::<Vec<_>>();
    let stop = candidate
        .get("finishReason")
        .and_then(Value::as_str)
        .map(|r| match r {
            "STOP" if !calls.is_empty() => StopReason::ToolUse,
            "STOP" => StopReason::Stop,
            "MAX_TOKENS" => StopReason::Length,
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" => {
                StopReason::ContentFiltered
            }
            other => StopReason::Other(other.to_string()),
        });
    let usage = body.get("usageMetadata").unwrap_or(&Value::Null);
    let mut normalised = baton_testing::agent::Usage::new(
        tokens(usage, &["promptTokenCount"]),
        tokens(usage, &["candidatesTokenCount"]) + tokens(usage, &["thoughtsTokenCount"]),
    );
    normalised.reasoning_token_count = tokens(usage, &["thoughtsTokenCount"]);
    let text = texts.join("\n");
    Ok(Reply {
        id: text_at(body, &["responseId"]),
        model: text_at(body, &["modelVersion"]),
        text: (!text.is_empty()).then_some(text),
        calls,
        usage: normalised,
        stop,
        refusal: None,
    })
}

/// `{error: {code, message, status}}`.
pub fn error(body: &Value) -> (Option<String>, Option<String>) {
    let error = body.get("error").unwrap_or(body);
    (text_at(error, &["message"]), text_at(error, &["status"]))
}
