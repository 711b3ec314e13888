//! The template recorded through a fake provider of each wire format, end to end: the agent
//! mock asks the provider client, the client sends HTTP to the fake on 127.0.0.1, the fake
//! checks the request and answers, the answer becomes the turn the mock plays; the cassette is
//! written (no key in it) and replays offline.

use baton_testing::agent::recording::{CassetteMode, CassetteScript};
use serde_json::json;

use crate::fake::{Credentials, Fake, Format, Reply, in_order};
use crate::requests::{PROVIDERS, client};
use crate::support::{AGENT, MESSAGE, PROCESS, temp_path, template};

/// The format each provider speaks and the credentials its fake expects.
fn fake_for(provider: &str) -> (Format, Credentials) {
    let key = |k: &str| Credentials {
        key: k.to_string(),
        secret: String::new(),
    };
    match provider {
        "anthropic" => (Format::Anthropic, key("sk-ant-test-key-0123456789")),
        "openai" | "openai-compatible" => (Format::OpenAi, key("sk-test-key-0123456789abcdef")),
        "azure-openai" => (Format::Azure, key("azure-test-key-0123")),
        "bedrock" => (
            Format::Bedrock,
            Credentials {
                key: "AKIDEXAMPLE".to_string(),
                secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".to_string(),
            },
        ),
        "vertex-ai" => (Format::Vertex, key("ya29.test-token-0123")),
        "gemini" => (Format::Gemini, key("gemini-test-key-0123")),
        other => panic!("no fake for {other}"),
    }
}

/// The worked example as a model would answer it.
fn worked_example() -> Vec<Reply> {
    vec![
        Reply::Calls(vec![
            ("lookup-order", json!({"orderId": "1042"})),
            ("search-kb", json!({"query": "damaged item return"})),
        ]),
        Reply::Calls(vec![(
            "create-ticket",
            json!({"summary": "Order 1042 arrived damaged", "priority": "high"}),
        )]),
        Reply::Text(r#"{"answer": "Ticket T-77 is open.", "resolved": true}"#.to_string()),
    ]
}

#[test]
fn the_template_records_through_every_provider_and_replays_offline() {
    for (provider, choice) in PROVIDERS {
        let (format, credentials) = fake_for(provider);
        let fake = Fake::start(format, credentials, in_order(worked_example()));
        let client = client(choice, &fake.url);
        let spent = client.spent_counter();
        let cassette = temp_path(&format!("{provider}.cassette.json"));

        let t = template();
        let agent = t.mock_ai_agent(
            AGENT,
            CassetteScript::new(&cassette)
                .mode(CassetteMode::Record)
                .record_with_source(client.into_turn_source()),
        );
        let run = t.start(
            PROCESS,
            json!({"customerMessage": MESSAGE, "customerEmail": "kim@example.com"}),
        );
        assert!(t.errors().is_empty(), "{provider}: {:?}", t.errors());
        run.assert_completed()
            .assert_passed_in_order(["support-agent", "send-answer", "answered"]);
        agent.assert_called_tools(["lookup-order", "search-kb", "create-ticket"]);

        let seen = fake.seen();
        assert_eq!(seen.len(), 3, "{provider}: three model calls");
        for (i, request) in seen.iter().enumerate() {
            assert!(
                request.problems.is_empty(),
                "{provider}, call {}: {:?}",
                i + 1,
                request.problems
            );
        }
        // The usage every answer reported, summed (the fakes report 110 + 120 + 130 in, 60 out;
        // OpenAI's 40 cached prompt tokens per call are moved out of the input count).
        let spent = spent.get();
        assert_eq!(spent.output_token_count, 60, "{provider}");
        assert_eq!(
            spent.input_token_count + spent.cache_read_token_count,
            360 + if format == Format::Anthropic { 15 } else { 0 },
            "{provider}"
        );

        let text = std::fs::read_to_string(&cassette).unwrap();
        for secret in ["test-key", "test-token", "EXAMPLEKEY"] {
            assert!(
                !text.contains(secret),
                "{provider}: {secret} in the cassette"
            );
        }
        let replayed = template();
        let agent = replayed.mock_ai_agent(AGENT, CassetteScript::new(&cassette));
        replayed
            .start(
                PROCESS,
                json!({"customerMessage": MESSAGE, "customerEmail": "kim@example.com"}),
            )
            .assert_completed();
        assert!(
            replayed.errors().is_empty(),
            "{provider}: {:?}",
            replayed.errors()
        );
        agent.check_all_turns_used().unwrap();
        assert_eq!(fake.seen().len(), 3, "{provider}: the replay asked nobody");
    }
}

/// A failed call stops the recording with the provider's words; the cassette keeps the calls
/// before it, and holds no key.
#[test]
fn a_failed_call_stops_the_recording() {
    let (format, credentials) = fake_for("openai");
    let mut replies = worked_example();
    replies[1] = Reply::Status(
        429,
        json!({"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}),
        vec![("retry-after", "7")],
    );
    let fake = Fake::start(format, credentials, in_order(replies));
    let cassette = temp_path("stopped.cassette.json");
    let t = template();
    t.mock_ai_agent(
        AGENT,
        CassetteScript::new(&cassette)
            .mode(CassetteMode::Record)
            .record_with_source(client(Some("openai:gpt-4o"), &fake.url).into_turn_source()),
    );
    t.start(PROCESS, json!({"customerMessage": MESSAGE}));
    let errors: Vec<String> = t.errors().into_iter().map(|e| e.message).collect();
    insta::assert_snapshot!(errors.join("\n"), @r#"AI agent mock "support-agent": model call 2 of "support-agent" failed: openai:gpt-4o: rate limited (HTTP 429, rate_limit_exceeded), retry after 7 s: Rate limit reached"#);
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    assert_eq!(recorded["calls"].as_array().map(Vec::len), Some(1));
}
