//! Cassettes: validated reading (every problem with its path), atomic writing, the agent check.

use baton_testing::agent::{Cassette, CassetteError, Turn, Usage};
use serde_json::json;

fn problems(value: serde_json::Value) -> String {
    Cassette::from_json(&value, "damaged-order.cassette.json")
        .unwrap_err()
        .to_string()
}

#[test]
fn the_seeds_cassette_reads() {
    let text = r#"{
      "version": 1,
      "agent": "support-agent",
      "turns": [
        { "toolCalls": [{ "id": "toolu_01", "name": "lookup-order", "arguments": { "orderId": "1042" } }] },
        { "responseText": "It ships tomorrow.", "responseJson": { "answer": "It ships tomorrow.", "resolved": true } }
      ]
    }"#;
    let cassette = Cassette::parse(text, "seed").unwrap();
    assert_eq!(cassette.agent.as_deref(), Some("support-agent"));
    assert_eq!(cassette.turns.len(), 2);
    assert_eq!(
        cassette.turns[1],
        Turn::respond(
            "It ships tomorrow.",
            json!({"answer": "It ships tomorrow.", "resolved": true})
        )
    );
}

#[test]
fn an_unknown_field_is_named_by_its_path() {
    let message = problems(json!({"version": 1, "turns": [{"tool_calls": []}]}));
    assert_eq!(
        message,
        r#"invalid cassette damaged-order.cassette.json: turns[0] has unknown field "tool_calls" (did you mean "toolCalls"?)"#
    );
}

#[test]
fn every_problem_is_reported() {
    insta::assert_snapshot!(problems(json!({
        "version": 2,
        "agent": "",
        "extra": true,
        "turns": [
            {"toolCalls": []},
            {"toolCalls": [{"name": "", "arguments": [1]}, {"id": "a", "name": "x", "arguments": {}, "rawArguments": "{"}, {"name": "y", "rawArguments": 3}]},
            {"toolCalls": [{"id": "a", "name": "x"}, {"id": "a", "name": "y", "argument": {}}]},
            {"responseText": 3},
            {"responseText": "a", "toolCalls": []},
            {},
            "text",
            {"error": ""},
            {"toolCallAsText": {"name": "x", "style": "yaml"}},
            {"responseJson": null, "usage": {"inputTokenCount": -1, "outputTokens": 2}}
        ]
    })));
}

#[test]
fn the_top_level_is_checked() {
    insta::assert_snapshot!(
        [
            problems(json!([])),
            problems(json!({})),
            problems(json!({"version": 1, "turns": {}})),
        ]
        .join("\n")
    );
    let syntax = Cassette::parse("{\"version\": 1,\n  \"turns\": [,]}", "x.json").unwrap_err();
    insta::assert_snapshot!(syntax.to_string(), @"invalid cassette x.json: not JSON at line 2, column 13: expected value");
}

#[test]
fn every_turn_round_trips() {
    let cassette = Cassette::new(
        "support-agent",
        vec![
            Turn::call("lookup-order", json!({"orderId": "1042"}))
                .with_usage(Usage::new(10, 2))
                .with_text("{}")
                .unchecked(),
            Turn::tool_calls([baton_testing::agent::ToolCall::unparseable(
                "search-kb",
                "{'q': 1}",
            )
            .with_id("toolu_9")]),
            Turn::tool_call_as_text(
                "search-kb",
                json!({"query": "x"}),
                baton_testing::agent::TextCallStyle::Fenced,
            ),
            Turn::error("upstream 503"),
            Turn::respond_json(json!(null)),
            Turn::respond_text(""),
        ],
    );
    let text = cassette.to_pretty_string();
    insta::assert_snapshot!(text);
    assert_eq!(Cassette::parse(&text, "round trip").unwrap(), cassette);
    let via_serde: Cassette = serde_json::from_str(&text).unwrap();
    assert_eq!(via_serde, cassette);
}

#[test]
fn files_are_validated_and_written_atomically() {
    let dir = std::env::temp_dir().join(format!("baton-cassettes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("damaged-order.cassette.json");
    let cassette = Cassette::new("support-agent", vec![Turn::respond_text("hi")]);
    cassette.write(&path).unwrap();
    assert_eq!(Cassette::read(&path).unwrap(), cassette);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no temporary file is left: {leftovers:?}"
    );

    // An invalid cassette is refused and the old file stays.
    let invalid = Cassette::new("support-agent", vec![Turn::tool_calls([])]);
    let error = invalid.write(&path).unwrap_err();
    assert!(matches!(error, CassetteError::Invalid { .. }), "{error}");
    assert_eq!(Cassette::read(&path).unwrap(), cassette);

    let missing = Cassette::read(dir.join("missing.json")).unwrap_err();
    assert!(
        missing.to_string().starts_with("cannot access cassette "),
        "{missing}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_agent_check() {
    let cassette = Cassette::new("support-agent", vec![]);
    assert!(cassette.check_agent("support-agent", "c").is_ok());
    assert!(cassette.check_agent("other", "c").is_err());
    assert!(
        Cassette {
            agent: None,
            turns: vec![]
        }
        .check_agent("other", "c")
        .is_ok()
    );
}
