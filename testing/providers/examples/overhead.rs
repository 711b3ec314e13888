//! What a model call costs beside the provider's own latency: reading the request, building
//! the HTTP request (signing it for Bedrock), parsing the answer into a turn; and a whole call
//! to a provider on 127.0.0.1 that answers at once.
//!
//! `cargo run --release -p baton-providers --example overhead`

use std::time::{Duration, Instant};

use baton_providers::{HttpResponse, MapEnvironment, ModelChoice, ModelClient, wire};
use serde_json::{Value, json};

fn main() {
    let request = sample_request();
    let env = MapEnvironment::new([
        ("OPENAI_API_KEY", "sk-bench-0123456789"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
        ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", "secret"),
        ("AWS_REGION", "us-east-1"),
    ]);
    let answer = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "create-ticket", "arguments": "{\"summary\":\"x\"}"}}
        ]}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 20, "total_tokens": 920}
    })
    .to_string();
    for choice in [
        "openai:gpt-4o",
        "bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0",
    ] {
        let client = ModelClient::new(Some(choice.parse::<ModelChoice>().unwrap()))
            .with_environment(env.clone())
            .with_clock(|| "20250101T000000Z".to_string());
        let target = client.target(None).unwrap();
        let response = HttpResponse {
            status: 200,
            headers: vec![],
            body: answer.clone(),
        };
        let n = 2000;
        let start = Instant::now();
        for _ in 0..n {
            let http = client.http_request(&target, &request).unwrap();
            std::hint::black_box(&http);
            if choice.starts_with("openai") {
                let reply = wire::parse(&target, &response).unwrap();
                std::hint::black_box(reply.to_turn());
            }
        }
        let per_call = start.elapsed() / n;
        println!("{choice}: request built and answer parsed in {per_call:?} per call");
    }
    round_trip(&request);
}

/// A whole call through ureq to a server on 127.0.0.1 that answers at once.
fn round_trip(request: &Value) {
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{BufRead, BufReader, Read, Write};
        for stream in server.incoming() {
            let mut stream = stream.unwrap();
            stream.set_nodelay(true).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            'requests: loop {
                let mut length = 0;
                let mut line = String::new();
                loop {
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        break 'requests;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let answer = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}"#;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                stream.write_all(response.as_bytes()).unwrap();
            }
        }
    });
    let env = MapEnvironment::new([
        ("OPENAI_API_KEY", "sk-bench-0123456789".to_string()),
        ("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1")),
    ]);
    let client = ModelClient::new(Some("openai:gpt-4o".parse().unwrap())).with_environment(env);
    let target = client.target(None).unwrap();
    client.ask_target(&target, request).unwrap();
    let n = 500;
    let start = Instant::now();
    for _ in 0..n {
        client.ask_target(&target, request).unwrap();
    }
    let per_call: Duration = start.elapsed() / n;
    println!("openai:gpt-4o on 127.0.0.1 (a server that answers at once): {per_call:?} per call");
}

/// The request of a third model call: a system prompt, three tools, two turns of tool calls
/// and results.
fn sample_request() -> Value {
    let tool = |name: &str| {
        json!({"name": name, "description": "A tool of the support agent.", "inputSchema": {
        "type": "object", "properties": {"query": {"type": "string", "description": "What to look for"},
        "priority": {"enum": ["low", "high"], "type": "string"}}, "required": ["query"]}})
    };
    json!({
        "tools": [tool("search-kb"), tool("lookup-order"), tool("create-ticket")],
        "responseFormat": {"type": "json", "schema": {"type": "object", "properties": {"answer": {"type": "string"}, "resolved": {"type": "boolean"}}, "required": ["answer", "resolved"]}, "schemaName": "SupportAnswer"},
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "You are a customer support agent of an online shop. Use the tools."}]},
            {"role": "user", "content": [{"type": "text", "text": "My order 1042 arrived broken."}]},
            {"role": "assistant", "toolCalls": [{"id": "a", "name": "lookup-order", "arguments": {"orderId": "1042"}}, {"id": "b", "name": "search-kb", "arguments": {"query": "damaged"}}]},
            {"role": "tool_call_result", "results": [
                {"id": "a", "name": "lookup-order", "content": [{"type": "object", "content": {"id": "1042", "status": "delivered", "damaged": true}}]},
                {"id": "b", "name": "search-kb", "content": [{"type": "object", "content": ["Returns and damaged items"]}]}]},
            {"role": "assistant", "toolCalls": [{"id": "c", "name": "create-ticket", "arguments": {"summary": "Order 1042 arrived damaged"}}]},
            {"role": "tool_call_result", "results": [{"id": "c", "name": "create-ticket", "content": [{"type": "object", "content": {"ticketId": "T-77"}}]}]}
        ]
    })
}
