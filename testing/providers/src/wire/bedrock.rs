//! Bedrock Converse, as LangChain4j's Bedrock module builds it through the AWS SDK: blocks
//! keyed by field name (no `type`), tool results of a turn in one user message, structured
//! output with the schema as a JSON string, the request signed with SigV4 (or a Bedrock API
//! key as a bearer token).

use serde_json::{Map, Value, json};

use super::json_request;
use crate::conversation::{Conversation, Format, Message};
use crate::http::HttpRequest;
use crate::reply::{Reply, ReplyCall, StopReason, text_at, tokens};
use crate::select::{Auth, Target};
use crate::sigv4::{self, Signing};

/// The service name Bedrock runtime signs with.
pub const SERVICE: &str = "bedrock";

pub fn body(target: &Target, conversation: &Conversation) -> Value {
    let p = &target.parameters;
    let mut body = Map::new();
    body.insert("messages".into(), Value::Array(messages(conversation)));
    if let Some(system) = &conversation.system {
        body.insert("system".into(), json!([{"text": system}]));
    }
    let mut inference = Map::new();
    if let Some(max) = p.max_tokens {
        inference.insert("maxTokens".into(), max.into());
    }
    if let Some(t) = p.temperature {
        inference.insert("temperature".into(), t.into());
    }
    if let Some(t) = p.top_p {
        inference.insert("topP".into(), t.into());
    }
    body.insert("inferenceConfig".into(), Value::Object(inference));
    if !conversation.tools.is_empty() {
        let tools: Vec<Value> = conversation
            .tools
            .iter()
            .map(|tool| {
                let mut spec = Map::new();
                spec.insert("name".into(), tool.name.clone().into());
                if let Some(d) = &tool.description {
                    spec.insert("description".into(), d.clone().into());
                }
                spec.insert(
                    "inputSchema".into(),
                    json!({"json": tool.parameters.to_json()}),
                );
                json!({"toolSpec": spec})
            })
            .collect();
        body.insert("toolConfig".into(), json!({"tools": tools}));
    }
    if let Format::Json {
        name,
        schema: Some(schema),
    } = &conversation.format
    {
        body.insert(
            "outputConfig".into(),
            json!({"textFormat": {
                "type": "json_schema",
                "structure": {"jsonSchema": {"name": name, "schema": schema.to_json().to_string()}}
            }}),
        );
    }
    Value::Object(body)
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
            Message::ToolResult(result) => results.push(json!({"toolResult": {
                "toolUseId": result.id,
                "content": [{"text": result.text}],
            }})),
            Message::User(parts) => {
                flush(&mut out, &mut results);
                let content: Vec<Value> = parts.iter().map(|t| json!({"text": t})).collect();
                out.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant { text, calls } => {
                flush(&mut out, &mut results);
                let mut content = Vec::new();
                if let Some(text) = text.as_ref().filter(|t| !t.trim().is_empty()) {
                    content.push(json!({"text": text}));
                }
                for call in calls {
                    let input: Value =
                        serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                    content.push(json!({"toolUse": {
                        "toolUseId": call.id, "name": call.name, "input": input
                    }}));
                }
                out.push(json!({"role": "assistant", "content": content}));
            }
        }
    }
    flush(&mut out, &mut results);
    out
}

/// `POST {endpoint}/model/{modelId}/converse` (the model id encoded into one path segment),
/// signed at `amz_date`.
pub fn request(target: &Target, conversation: &Conversation, amz_date: &str) -> HttpRequest {
    let path = format!(
        "/model/{}/converse",
        sigv4::uri_encode(&target.model, false)
    );
    let mut request = json_request(target, &path, &body(target, conversation));
    if let Auth::SigV4 {
        access_key,
        secret_key,
        session_token,
    } = &target.auth
    {
        sign(
            &mut request,
            target,
            access_key,
            secret_key,
            session_token.as_deref(),
            amz_date,
        );
    }
    request
}

fn sign(
    request: &mut HttpRequest,
    target: &Target,
    access_key: &str,
    secret_key: &str,
    session_token: Option<&str>,
    amz_date: &str,
) {
    let host = request
        .url
        .split_once("://")
        .map_or("", |(_, rest)| rest.split('/').next().unwrap_or(""))
        .to_string();
    let payload_hash = sigv4::sha256_hex(request.body.as_bytes());
    let mut signed = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("host".to_string(), host),
        ("x-amz-content-sha256".to_string(), payload_hash),
        ("x-amz-date".to_string(), amz_date.to_string()),
    ];
    if let Some(token) = session_token {
        signed.push(("x-amz-security-token".to_string(), token.to_string()));
    }
    let (path, query) = request
        .path()
        .split_once('?')
        .unwrap_or((request.path(), ""));
    let authorization = sigv4::authorization(
        &Signing {
            method: request.method,
            path,
            query,
            headers: &signed,
            payload: request.body.as_bytes(),
            amz_date,
            region: target.region.as_deref().unwrap_or("us-east-1"),
            service: SERVICE,
            double_encode_path: true,
        },
        access_key,
        secret_key,
    );
    // `content-type` is there already; the rest follow it, then the signature.
    request
        .headers
        .extend(signed.into_iter().filter(|(n, _)| n != "content-type"));
    request
        .headers
        .push(("authorization".to_string(), authorization));
}

/// The answer: `output.message.content` blocks (`text`, `toolUse`), `stopReason`, usage with
/// the cache counts.
pub fn reply(body: &Value) -> Result<Reply, String> {
    let content = body
        .pointer("/output/message/content")
        .and_then(Value::as_array)
        .ok_or("the answer has no output.message.content")?;
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let calls = content
        .iter()
        .filter_map(|b| b.get("toolUse"))
        .map(|u| ReplyCall {
            id: text_at(u, &["toolUseId"]).unwrap_or_default(),
            name: text_at(u, &["name"]).unwrap_or_default(),
            arguments: u.get("input").unwrap_or(&Value::Null).to_string(),
        })
        .collect();
    let stop = body
        .get("stopReason")
        .and_then(Value::as_str)
        .map(|r| match r {
            "end_turn" | "stop_sequence" => StopReason::Stop,
            "max_tokens" | "model_context_window_exceeded" => StopReason::Length,
            "tool_use" => StopReason::ToolUse,
            "content_filtered" | "guardrail_intervened" => StopReason::ContentFiltered,
            other => StopReason::Other(other.to_string()),
        });
    let usage = body.get("usage").unwrap_or(&Value::Null);
    let mut normalised = baton_testing::agent::Usage::new(
        tokens(usage, &["inputTokens"]),
        tokens(usage, &["outputTokens"]),
    );
    normalised.cache_read_token_count = tokens(usage, &["cacheReadInputTokens"]);
    normalised.cache_creation_token_count = tokens(usage, &["cacheWriteInputTokens"]);
    let text = texts.join("\n");
    Ok(Reply {
        id: None,
        model: None,
        text: (!text.is_empty()).then_some(text),
        calls,
        usage: normalised,
        stop,
        refusal: None,
    })
}

/// The error type from the `x-amzn-ErrorType` header (`ThrottlingException:http://…`), the
/// message from the body.
pub fn error(
    body: &Value,
    response: &crate::http::HttpResponse,
) -> (Option<String>, Option<String>) {
    let code = response
        .header("x-amzn-errortype")
        .map(|t| t.split(':').next().unwrap_or(t).to_string())
        .or_else(|| text_at(body, &["__type"]));
    let message = text_at(body, &["message"]).or_else(|| text_at(body, &["Message"]));
    (message, code)
}
