//! The exact HTTP request of the template's second model call (after two parallel tool calls
//! and their results) per provider: method, URL, headers (secrets redacted), body.

use baton_providers::{HttpRequest, MapEnvironment, ModelChoice, ModelClient};
use serde_json::Value;

use crate::support::template_calls;

/// The time Bedrock requests are signed at in these tests.
pub const SIGNED_AT: &str = "20250101T120000Z";

/// The environment of every provider: test keys and base URLs.
pub fn test_env(base: &str) -> MapEnvironment {
    MapEnvironment::new([
        ("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789"),
        ("ANTHROPIC_BASE_URL", base),
        ("OPENAI_API_KEY", "sk-test-key-0123456789abcdef"),
        ("OPENAI_BASE_URL", &format!("{base}/v1")),
        ("AZURE_OPENAI_API_KEY", "azure-test-key-0123"),
        ("AZURE_OPENAI_ENDPOINT", base),
        ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
        (
            "AWS_SECRET_ACCESS_KEY",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        ),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", base),
        ("GOOGLE_CLOUD_PROJECT", "shop-support"),
        ("GOOGLE_CLOUD_LOCATION", "europe-west4"),
        ("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.test-token-0123"),
        ("GOOGLE_VERTEX_BASE_URL", base),
        ("GEMINI_API_KEY", "gemini-test-key-0123"),
        ("GOOGLE_GEMINI_BASE_URL", base),
    ])
}

/// The model each provider is asked for (none: the element's own, Anthropic).
pub const PROVIDERS: [(&str, Option<&str>); 7] = [
    ("anthropic", None),
    ("openai", Some("openai:gpt-4o")),
    ("openai-compatible", Some("openai-compatible:llama3.1:8b")),
    ("azure-openai", Some("azure-openai:support-gpt4o")),
    (
        "bedrock",
        Some("bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0"),
    ),
    ("vertex-ai", Some("vertex-ai:gemini-2.0-flash")),
    ("gemini", Some("gemini:gemini-2.5-flash")),
];

pub fn client(choice: Option<&str>, base: &str) -> ModelClient {
    ModelClient::new(choice.map(|c| c.parse::<ModelChoice>().unwrap()))
        .with_environment(test_env(base))
        .with_clock(|| SIGNED_AT.to_string())
}

/// A request as the snapshot shows it: secrets redacted, the body pretty.
pub fn shown(request: &HttpRequest) -> String {
    let request = request.redacted();
    let headers: Vec<String> = request
        .headers
        .iter()
        .map(|(n, v)| format!("{n}: {v}"))
        .collect();
    let body: Value = serde_json::from_str(&request.body).unwrap();
    format!(
        "{} {}\n{}\n\n{}",
        request.method,
        request.url,
        headers.join("\n"),
        serde_json::to_string_pretty(&body).unwrap()
    )
}

#[test]
fn the_second_call_of_the_template_per_provider() {
    let calls = template_calls();
    let (inputs, request) = &calls[1];
    for (name, choice) in PROVIDERS {
        let client = client(choice, "https://provider.test");
        let target = client.target(inputs.as_ref()).unwrap();
        let http = client.http_request(&target, request).unwrap();
        insta::assert_snapshot!(format!("second_call_{name}"), shown(&http));
        let text = format!("{http:?}");
        assert!(
            !shown(&http).contains("test-key"),
            "{name}: a key in {text}"
        );
    }
}

#[test]
fn a_request_the_connector_cannot_send_is_refused_before_the_call() {
    let calls = template_calls();
    let (inputs, request) = &calls[0];
    let client = client(None, "https://provider.test");
    let target = client.target(inputs.as_ref()).unwrap();
    let mut broken = request.clone();
    broken["tools"][0]["inputSchema"]["properties"]["query"]["type"] = "date".into();
    let mut document = request.clone();
    document["messages"][1]["content"][0] = serde_json::json!({"type": "document", "document": {}});
    let messages = [broken, document]
        .iter()
        .map(|r| client.http_request(&target, r).unwrap_err().to_string())
        .collect::<Vec<_>>();
    insta::assert_snapshot!(messages.join("\n"), @r"
    cannot build the request to anthropic:claude-sonnet-4-5: tools[0].inputSchema: Failed to parse input schema for tool 'search-kb': Unknown JSON schema element type 'date'
    cannot build the request to anthropic:claude-sonnet-4-5: messages[1].content[0]: documents are not sent to providers yet (record this call with --agent-command)
    ");
}
