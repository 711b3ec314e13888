//! Fake providers on 127.0.0.1, one per wire format, written from the providers' public API
//! references: each checks every request (path, method, headers, auth scheme, body shape, the
//! SigV4 signature for Bedrock) and answers from a policy (the n-th call gets the policy's
//! n-th answer, as Camunda's own e2e stubs answer turns in order). A request that breaks a rule
//! gets a 400 naming the rule, and the rule is kept with the request.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use baton_providers::sigv4::{self, Signing};
use serde_json::{Value, json};

/// The wire format a fake speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    OpenAi,
    Azure,
    Anthropic,
    Bedrock,
    Vertex,
    Gemini,
    /// OpenAI's embeddings API: each input's letter counts as its vector.
    Embeddings,
}

/// What the fake model answers on one call.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Tool calls: name and arguments.
    Calls(Vec<(&'static str, Value)>),
    Text(String),
    /// The provider's content filter stops the answer.
    Filtered,
    /// An error status with a body and headers.
    Status(u16, Value, Vec<(&'static str, &'static str)>),
    /// The answer after a delay.
    Late(Duration, Box<Reply>),
}

/// What the fake expects of the caller's credentials.
#[derive(Debug, Clone)]
pub struct Credentials {
    /// The API key or token (for Bedrock: the access key id).
    pub key: String,
    /// Bedrock's secret access key.
    pub secret: String,
}

/// One request as the fake saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The rules this request broke.
    pub problems: Vec<String>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

pub type Policy = Box<dyn FnMut(usize, &Value) -> Reply + Send>;

/// A running fake; stops when dropped.
pub struct Fake {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl Fake {
    pub fn start(format: Format, credentials: Credentials, mut policy: Policy) -> Fake {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let url = format!("http://{}", server.server_addr().to_ip().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (s, log) = (server.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            let mut calls = 0;
            for mut request in s.incoming_requests() {
                let mut body = String::new();
                let _ = request.as_reader().read_to_string(&mut body);
                let mut seen = Seen {
                    method: request.method().to_string(),
                    url: request.url().to_string(),
                    headers: request
                        .headers()
                        .iter()
                        .map(|h| {
                            (
                                h.field.to_string().to_ascii_lowercase(),
                                h.value.to_string(),
                            )
                        })
                        .collect(),
                    body,
                    problems: Vec::new(),
                };
                seen.problems = check(format, &credentials, &seen);
                let (status, answer, headers) = if seen.problems.is_empty() {
                    calls += 1;
                    if format == Format::Embeddings {
                        let text = seen.json()["input"][0]
                            .as_str()
                            .unwrap_or("")
                            .to_lowercase();
                        let vector: Vec<f64> = ('a'..='z')
                            .map(|c| text.chars().filter(|t| *t == c).count() as f64)
                            .collect();
                        let answer = json!({"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": vector}], "model": "fake-embedding"});
                        log.lock().unwrap().push(seen);
                        let _ =
                            request.respond(tiny_http::Response::from_string(answer.to_string()));
                        continue;
                    }
                    let mut reply = policy(calls, &seen.json());
                    while let Reply::Late(delay, inner) = reply {
                        std::thread::sleep(delay);
                        reply = *inner;
                    }
                    render(format, calls, &reply)
                } else {
                    (
                        400,
                        json!({"message": seen.problems.join("; "), "error": {"message": seen.problems.join("; ")}}),
                        vec![],
                    )
                };
                log.lock().unwrap().push(seen);
                let mut response = tiny_http::Response::from_string(answer.to_string())
                    .with_status_code(status)
                    .with_header(
                        "content-type: application/json"
                            .parse::<tiny_http::Header>()
                            .unwrap(),
                    );
                for (name, value) in headers {
                    response = response.with_header(
                        tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap(),
                    );
                }
                let _ = request.respond(response);
            }
        });
        Fake {
            url,
            seen,
            server,
            thread: Some(thread),
        }
    }

    /// The requests so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A policy answering `replies` in order (the last one again after the end).
pub fn in_order(replies: Vec<Reply>) -> Policy {
    Box::new(move |call, _| replies[(call - 1).min(replies.len() - 1)].clone())
}

fn check(format: Format, credentials: &Credentials, seen: &Seen) -> Vec<String> {
    let mut problems = Vec::new();
    let mut expect = |ok: bool, rule: String| {
        if !ok {
            problems.push(rule);
        }
    };
    expect(
        seen.method == "POST",
        format!("method {} is not POST", seen.method),
    );
    expect(
        seen.header("content-type") == Some("application/json"),
        "content-type is not application/json".to_string(),
    );
    let Ok(body) = serde_json::from_str::<Value>(&seen.body) else {
        problems.push("the body is not JSON".to_string());
        return problems;
    };
    let (path, query) = seen.url.split_once('?').unwrap_or((&seen.url, ""));
    match format {
        Format::OpenAi | Format::Azure => {
            if format == Format::OpenAi {
                expect(path == "/v1/chat/completions", format!("path {path}"));
                expect(
                    seen.header("authorization") == Some(&format!("Bearer {}", credentials.key)),
                    "Authorization is not Bearer with the key".to_string(),
                );
                expect(body["model"].is_string(), "no model".to_string());
            } else {
                expect(
                    path.starts_with("/openai/deployments/") && path.ends_with("/chat/completions"),
                    format!("path {path}"),
                );
                expect(
                    query.starts_with("api-version="),
                    "no api-version".to_string(),
                );
                expect(
                    seen.header("api-key") == Some(&credentials.key),
                    "api-key is not the key".to_string(),
                );
            }
            check_openai_body(&body, &mut expect);
        }
        Format::Anthropic => {
            expect(path == "/v1/messages", format!("path {path}"));
            expect(
                seen.header("x-api-key") == Some(&credentials.key),
                "x-api-key is not the key".to_string(),
            );
            expect(
                seen.header("anthropic-version") == Some("2023-06-01"),
                "anthropic-version is not 2023-06-01".to_string(),
            );
            expect(
                body["max_tokens"].is_u64(),
                "max_tokens is required".to_string(),
            );
            check_anthropic_body(&body, &mut expect);
        }
        Format::Bedrock => {
            expect(
                path.starts_with("/model/") && path.ends_with("/converse"),
                format!("path {path}"),
            );
            check_sigv4(seen, credentials, &mut expect);
            check_bedrock_body(&body, &mut expect);
        }
        Format::Embeddings => {
            expect(path == "/v1/embeddings", format!("path {path}"));
            expect(
                seen.header("authorization") == Some(&format!("Bearer {}", credentials.key)),
                "Authorization is not Bearer with the key".to_string(),
            );
            expect(
                body["model"].is_string() && body["input"].is_array(),
                "an embeddings request has a model and an input list".to_string(),
            );
        }
        Format::Vertex | Format::Gemini => {
            if format == Format::Vertex {
                expect(
                    path.starts_with("/v1/projects/") && path.ends_with(":generateContent"),
                    format!("path {path}"),
                );
                expect(
                    seen.header("authorization") == Some(&format!("Bearer {}", credentials.key)),
                    "Authorization is not Bearer with the token".to_string(),
                );
            } else {
                expect(
                    path.starts_with("/v1beta/models/") && path.ends_with(":generateContent"),
                    format!("path {path}"),
                );
                expect(
                    seen.header("x-goog-api-key") == Some(&credentials.key),
                    "x-goog-api-key is not the key".to_string(),
                );
            }
            let contents = body["contents"].as_array().cloned().unwrap_or_default();
            let count = |c: &Value, key: &str| {
                c["parts"]
                    .as_array()
                    .map_or(0, |p| p.iter().filter(|p| p.get(key).is_some()).count())
            };
            for (i, content) in contents.iter().enumerate() {
                let role = content["role"].as_str().unwrap_or("");
                expect(role == "user" || role == "model", format!("role {role}"));
                expect(
                    content["parts"].is_array(),
                    "parts is not a list".to_string(),
                );
                // A turn of function calls is answered by one content with as many responses.
                let calls = count(content, "functionCall");
                if calls > 0 {
                    let answered = contents
                        .get(i + 1)
                        .map_or(0, |next| count(next, "functionResponse"));
                    expect(
                        contents.get(i + 1).is_none() || answered == calls,
                        format!("{calls} function calls answered by {answered} function responses"),
                    );
                }
            }
        }
    }
    problems
}

fn check_openai_body(body: &Value, expect: &mut impl FnMut(bool, String)) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    expect(!messages.is_empty(), "no messages".to_string());
    for m in &messages {
        match m["role"].as_str() {
            Some("system" | "user") => expect(!m["content"].is_null(), "no content".to_string()),
            Some("assistant") => {
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    expect(call["id"].is_string(), "a tool call has no id".to_string());
                    expect(
                        call["type"] == "function",
                        "a tool call is no function".to_string(),
                    );
                    expect(
                        call["function"]["arguments"].is_string(),
                        "tool call arguments are not a JSON string".to_string(),
                    );
                }
            }
            Some("tool") => expect(
                m["tool_call_id"].is_string() && m["content"].is_string(),
                "a tool message needs tool_call_id and content".to_string(),
            ),
            other => expect(false, format!("role {other:?}")),
        }
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        expect(
            tool["type"] == "function",
            "a tool is no function".to_string(),
        );
        expect(
            tool["function"]["parameters"]["type"] == "object",
            "tool parameters are no object schema".to_string(),
        );
    }
}

fn check_anthropic_body(body: &Value, expect: &mut impl FnMut(bool, String)) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    expect(
        messages.first().is_some_and(|m| m["role"] == "user"),
        "the first message is not the user's".to_string(),
    );
    for pair in messages.windows(2) {
        expect(
            pair[0]["role"] != pair[1]["role"],
            "user and assistant messages do not alternate".to_string(),
        );
    }
    for m in &messages {
        let role = m["role"].as_str().unwrap_or("");
        expect(
            role == "user" || role == "assistant",
            format!("role {role}"),
        );
        for block in m["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("text") => expect(block["text"].is_string(), "text without text".into()),
                Some("tool_use") => expect(
                    role == "assistant" && block["input"].is_object() && block["id"].is_string(),
                    "tool_use needs an id and an input object, from the assistant".into(),
                ),
                Some("tool_result") => expect(
                    role == "user" && block["tool_use_id"].is_string(),
                    "tool_result needs tool_use_id, from the user".into(),
                ),
                other => expect(false, format!("block type {other:?}")),
            }
        }
    }
    if !body["system"].is_null() {
        expect(
            body["system"].is_array(),
            "system is not a block list".to_string(),
        );
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        expect(
            tool["input_schema"]["type"] == "object",
            "input_schema is no object schema".to_string(),
        );
    }
}

fn check_bedrock_body(body: &Value, expect: &mut impl FnMut(bool, String)) {
    for m in body["messages"].as_array().into_iter().flatten() {
        for block in m["content"].as_array().into_iter().flatten() {
            expect(
                block.get("type").is_none(),
                "Converse blocks are keyed by field, without type".to_string(),
            );
        }
    }
    for tool in body["toolConfig"]["tools"].as_array().into_iter().flatten() {
        expect(
            tool["toolSpec"]["inputSchema"]["json"]["type"] == "object",
            "toolSpec.inputSchema.json is no object schema".to_string(),
        );
    }
    if let Some(schema) = body.pointer("/outputConfig/textFormat/structure/jsonSchema/schema") {
        expect(
            schema.is_string(),
            "the output schema is not a JSON string".to_string(),
        );
    }
}

/// Recomputes the signature from what arrived: the signed headers as received, the body, the
/// credential scope of the header; the key derived from the secret the fake knows.
fn check_sigv4(seen: &Seen, credentials: &Credentials, expect: &mut impl FnMut(bool, String)) {
    let Some(authorization) = seen.header("authorization") else {
        expect(false, "no Authorization header".to_string());
        return;
    };
    let Some(rest) = authorization.strip_prefix("AWS4-HMAC-SHA256 Credential=") else {
        expect(false, "Authorization is not AWS4-HMAC-SHA256".to_string());
        return;
    };
    let parts: Vec<&str> = rest.split(", ").collect();
    let scope: Vec<&str> = parts[0].split('/').collect();
    let signed: Vec<&str> = parts
        .iter()
        .find_map(|p| p.strip_prefix("SignedHeaders="))
        .unwrap_or("")
        .split(';')
        .collect();
    expect(
        scope.len() == 5,
        "the credential scope is not key/date/region/service/aws4_request".into(),
    );
    if scope.len() != 5 {
        return;
    }
    expect(
        scope[0] == credentials.key,
        "another access key".to_string(),
    );
    expect(
        scope[3] == "bedrock",
        "the service is not bedrock".to_string(),
    );
    let amz_date = seen.header("x-amz-date").unwrap_or("");
    expect(
        amz_date.starts_with(scope[1]),
        "x-amz-date is not the scope's date".into(),
    );
    expect(
        seen.header("x-amz-content-sha256") == Some(&sigv4::sha256_hex(seen.body.as_bytes())),
        "x-amz-content-sha256 is not the body's hash".to_string(),
    );
    for required in ["host", "x-amz-date"] {
        expect(
            signed.contains(&required),
            format!("{required} is not signed"),
        );
    }
    let headers: Vec<(String, String)> = signed
        .iter()
        .map(|n| (n.to_string(), seen.header(n).unwrap_or("").to_string()))
        .collect();
    let (path, query) = seen.url.split_once('?').unwrap_or((&seen.url, ""));
    let expected = sigv4::authorization(
        &Signing {
            method: &seen.method,
            path,
            query,
            headers: &headers,
            payload: seen.body.as_bytes(),
            amz_date,
            region: scope[2],
            service: scope[3],
            double_encode_path: true,
        },
        &credentials.key,
        &credentials.secret,
    );
    expect(
        authorization == expected,
        "the SigV4 signature does not match".to_string(),
    );
}

/// The wire format's answer to the `call`-th request.
fn render(
    format: Format,
    call: usize,
    reply: &Reply,
) -> (u16, Value, Vec<(&'static str, &'static str)>) {
    if let Reply::Status(status, body, headers) = reply {
        return (*status, body.clone(), headers.clone());
    }
    let (text, calls, filtered) = match reply {
        Reply::Text(text) => (Some(text.clone()), vec![], false),
        Reply::Calls(calls) => (None, calls.clone(), false),
        _ => (None, vec![], true),
    };
    let usage = (100 + call as u64 * 10, 20u64);
    let body = match format {
        Format::OpenAi | Format::Azure => {
            let tool_calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    json!({
                        "id": format!("call_{call}_{i}"), "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}
                    })
                })
                .collect();
            let mut message = json!({"role": "assistant", "content": text});
            if !tool_calls.is_empty() {
                message["tool_calls"] = Value::Array(tool_calls);
            }
            let finish = if filtered {
                "content_filter"
            } else if calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            };
            json!({
                "id": format!("chatcmpl-fake-{call}"), "object": "chat.completion",
                "created": 1700000000, "model": "fake-model",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1,
                          "total_tokens": usage.0 + usage.1,
                          "prompt_tokens_details": {"cached_tokens": 40}}
            })
        }
        Format::Anthropic => {
            let mut content: Vec<Value> = text
                .iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect();
            content.extend(calls.iter().enumerate().map(|(i, (name, args))| json!({
                "type": "tool_use", "id": format!("toolu_{call}_{i}"), "name": name, "input": args
            })));
            let stop = if filtered {
                "refusal"
            } else if calls.is_empty() {
                "end_turn"
            } else {
                "tool_use"
            };
            json!({
                "id": format!("msg-fake-{call}"), "type": "message", "role": "assistant",
                "model": "fake-model", "content": content, "stop_reason": stop,
                "usage": {"input_tokens": usage.0, "output_tokens": usage.1,
                          "cache_read_input_tokens": 5}
            })
        }
        Format::Bedrock => {
            let mut content: Vec<Value> = text.iter().map(|t| json!({"text": t})).collect();
            content.extend(calls.iter().enumerate().map(|(i, (name, args))| json!({
                "toolUse": {"toolUseId": format!("tooluse_{call}_{i}"), "name": name, "input": args}
            })));
            let stop = if filtered {
                "content_filtered"
            } else if calls.is_empty() {
                "end_turn"
            } else {
                "tool_use"
            };
            json!({
                "output": {"message": {"role": "assistant", "content": content}},
                "stopReason": stop,
                "usage": {"inputTokens": usage.0, "outputTokens": usage.1, "totalTokens": usage.0 + usage.1},
                "metrics": {"latencyMs": 1}
            })
        }
        Format::Embeddings => json!({}),
        Format::Vertex | Format::Gemini => {
            let mut parts: Vec<Value> = text.iter().map(|t| json!({"text": t})).collect();
            parts.extend(
                calls
                    .iter()
                    .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}})),
            );
            json!({
                "candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": if filtered { "SAFETY" } else { "STOP" }}],
                "usageMetadata": {"promptTokenCount": usage.0, "candidatesTokenCount": usage.1,
                                  "totalTokenCount": usage.0 + usage.1}
            })
        }
    };
    (200, body, vec![])
}
