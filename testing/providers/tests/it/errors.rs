//! What a failed call says: HTTP statuses in the provider's words, rate limits with their
//! retry time, timeouts, unreachable endpoints, answers that are no answers; secrets redacted;
//! infrastructure errors told apart. And the answers that are turns: content filtering.

use std::time::Duration;

use baton_testing::agent::{Turn, Usage};
use serde_json::json;

use crate::fake::{Credentials, Fake, Format, Reply, in_order};
use crate::requests::client;
use crate::support::template_calls;

fn credentials(key: &str) -> Credentials {
    Credentials {
        key: key.to_string(),
        secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".to_string(),
    }
}

const OPENAI_KEY: &str = "sk-test-key-0123456789abcdef";

/// The outcome of the template's first call against a fake answering `reply`.
fn first_call(
    format: Format,
    choice: Option<&str>,
    key: &str,
    reply: Reply,
    timeout: Option<Duration>,
) -> String {
    let fake = Fake::start(format, credentials(key), in_order(vec![reply]));
    let calls = template_calls();
    let (inputs, request) = &calls[0];
    let mut client = client(choice, &fake.url);
    if let Some(timeout) = timeout {
        client = client.with_timeout(timeout);
    }
    let target = client.target(inputs.as_ref()).unwrap();
    match client.ask_target(&target, request) {
        Ok(answer) => format!("turn {}", answer.turn.to_json()),
        Err(e) => format!(
            "{}{e}",
            if e.is_infrastructure() {
                "[infrastructure] "
            } else {
                ""
            }
        )
        .replace(&fake.url, "http://127.0.0.1:PORT"),
    }
}

#[test]
fn failed_calls_say_what_happened() {
    let openai = |reply| {
        first_call(
            Format::OpenAi,
            Some("openai:gpt-4o"),
            OPENAI_KEY,
            reply,
            None,
        )
    };
    let lines = [
        openai(Reply::Status(
            429,
            json!({"error": {"message": "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000.", "type": "tokens", "code": "rate_limit_exceeded"}}),
            vec![("retry-after", "20")],
        )),
        openai(Reply::Status(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys."), "type": "invalid_request_error", "code": "invalid_api_key"}}),
            vec![],
        )),
        openai(Reply::Status(500, json!("upstream connect error"), vec![])),
        first_call(
            Format::Anthropic,
            None,
            "sk-ant-test-key-0123456789",
            Reply::Status(
                529,
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                vec![],
            ),
            None,
        ),
        first_call(
            Format::Bedrock,
            Some("bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0"),
            "AKIDEXAMPLE",
            Reply::Status(
                400,
                json!({"message": "The provided model identifier is invalid."}),
                vec![(
                    "x-amzn-ErrorType",
                    "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                )],
            ),
            None,
        ),
        first_call(
            Format::Vertex,
            Some("vertex-ai:gemini-2.0-flash"),
            "ya29.test-token-0123",
            Reply::Status(
                429,
                json!({"error": {"code": 429, "message": "Resource exhausted. Please try again later.", "status": "RESOURCE_EXHAUSTED"}}),
                vec![],
            ),
            None,
        ),
        first_call(
            Format::Anthropic,
            None,
            "sk-ant-test-key-0123456789",
            Reply::Late(Duration::from_secs(3), Box::new(Reply::Text("late".into()))),
            Some(Duration::from_millis(300)),
        ),
    ];
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn an_endpoint_nobody_listens_on_is_a_network_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let calls = template_calls();
    let (inputs, request) = &calls[0];
    let client = client(Some("openai:gpt-4o"), &format!("http://127.0.0.1:{port}"));
    let target = client.target(inputs.as_ref()).unwrap();
    let error = client.ask_target(&target, request).unwrap_err();
    assert!(error.is_infrastructure());
    let message = error.to_string().replace(&port.to_string(), "PORT");
    assert!(
        message.starts_with("openai:gpt-4o: cannot reach http://127.0.0.1:PORT/v1: "),
        "{message}"
    );
}

#[test]
fn content_filtering_is_the_turn_the_connector_fails_on() {
    for (format, choice, key) in [
        (Format::OpenAi, Some("openai:gpt-4o"), OPENAI_KEY),
        (
            Format::Bedrock,
            Some("bedrock:amazon.nova-pro-v1:0"),
            "AKIDEXAMPLE",
        ),
        (
            Format::Gemini,
            Some("gemini:gemini-2.5-flash"),
            "gemini-test-key-0123",
        ),
    ] {
        let fake = Fake::start(format, credentials(key), in_order(vec![Reply::Filtered]));
        let calls = template_calls();
        let client = client(choice, &fake.url);
        let target = client.target(calls[0].0.as_ref()).unwrap();
        let answer = client.ask_target(&target, &calls[0].1).unwrap();
        let Turn::ContentFiltered(turn) = &answer.turn else {
            panic!("{format:?}: {:?}", answer.turn);
        };
        assert!(
            turn.usage
                .is_some_and(|u: Usage| u.output_token_count == 20),
            "{format:?}"
        );
    }
}

/// The fakes check what they are sent: a wrong key, a wrong signing secret.
#[test]
fn the_fakes_refuse_wrong_credentials() {
    let wrong = |format, choice, key: &str, secret: &str| {
        let fake = Fake::start(
            format,
            Credentials {
                key: key.to_string(),
                secret: secret.to_string(),
            },
            in_order(vec![Reply::Text("hi".into())]),
        );
        let calls = template_calls();
        let client = client(choice, &fake.url);
        let target = client.target(calls[0].0.as_ref()).unwrap();
        let error = client.ask_target(&target, &calls[0].1).unwrap_err();
        assert!(!error.is_infrastructure());
        error.to_string()
    };
    let lines = [
        wrong(Format::Anthropic, None, "another-key", ""),
        wrong(
            Format::Bedrock,
            Some("bedrock:amazon.nova-pro-v1:0"),
            "AKIDEXAMPLE",
            "another-secret",
        ),
    ];
    insta::assert_snapshot!(lines.join("\n"), @r"
    anthropic:claude-sonnet-4-5: the provider refused the request (HTTP 400): x-api-key is not the key
    bedrock:amazon.nova-pro-v1:0: the provider refused the request (HTTP 400): the SigV4 signature does not match
    ");
}
