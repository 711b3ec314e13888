//! `assert_called_tools` and the argument matchers.

use baton_testing::agent::{
    AiAgentMock, ToolCall, Turn, any_number, any_string, anything, call, contains, matches_regex,
    object_containing, predicate, tool,
};
use baton_testing::args;
use serde_json::json;

use super::harness::{Ahsp, support_data, support_tools};

fn played() -> AiAgentMock {
    let mut ahsp = Ahsp::new("support-agent", support_tools(), support_data("Hi"));
    let script = vec![
        Turn::tool_calls([
            ToolCall::new("lookup-order", json!({"orderId": "1042"})),
            ToolCall::new("search-kb", json!({"query": "broken item"})),
        ]),
        Turn::call(
            "create-ticket",
            json!({"summary": "Order 1042 arrived damaged", "priority": "high"}),
        ),
        Turn::respond_json(json!({"answer": "ok", "resolved": true})),
    ];
    let mut mock = AiAgentMock::new("support-agent", script).unwrap();
    ahsp.run(&mut mock, Ahsp::support_tool).unwrap();
    mock
}

#[test]
fn matching_sequences() {
    let mock = played();
    mock.assert_called_tools(["lookup-order", "search-kb", "create-ticket"]);
    mock.assert_called_tools([
        call("lookup-order", json!({"orderId": "1042"})),
        call("search-kb", args! {"query": any_string()}),
        call(
            "create-ticket",
            args! {"summary": matches_regex("^Order \\d+"), "priority": anything()},
        ),
    ]);
    mock.assert_called_tools([
        tool("lookup-order"),
        call(
            "search-kb",
            object_containing([("query", contains("item"))]),
        ),
        call(
            "create-ticket",
            object_containing([(
                "priority",
                predicate("a known priority", |v| {
                    ["low", "normal", "high"].contains(&v.as_str().unwrap_or(""))
                }),
            )]),
        ),
    ]);
}

fn mismatch(expected: Vec<baton_testing::agent::ExpectedCall>) -> String {
    played()
        .check_called_tools(expected)
        .unwrap_err()
        .to_string()
}

#[test]
fn argument_mismatch() {
    insta::assert_snapshot!(mismatch(vec![
        call("lookup-order", json!({"orderId": "1042"})),
        call("search-kb", args! {"query": contains("damaged")}),
        tool("create-ticket"),
    ]));
}

#[test]
fn wrong_tool() {
    insta::assert_snapshot!(mismatch(vec![
        tool("search-kb"),
        tool("lookup-order"),
        tool("create-ticket")
    ]));
}

#[test]
fn missing_calls() {
    insta::assert_snapshot!(mismatch(vec![
        tool("lookup-order"),
        tool("search-kb"),
        tool("create-ticket"),
        call("create-ticket", json!({}))
    ]));
}

#[test]
fn extra_calls() {
    insta::assert_snapshot!(mismatch(vec![tool("lookup-order")]));
}

#[test]
fn matcher_messages() {
    let cases = [
        (
            call("lookup-order", args! {"orderId": any_number()}),
            "any number",
        ),
        (call("lookup-order", json!({})), "extra field"),
        (
            call("lookup-order", args! {"orderId": "1042", "region": "EU"}),
            "missing field",
        ),
        (
            call("lookup-order", args! {"orderId": matches_regex("(")}),
            "bad regex",
        ),
        (
            call(
                "lookup-order",
                args! {"orderId": predicate("an even number", |v| v.as_i64().is_some_and(|n| n % 2 == 0))},
            ),
            "predicate",
        ),
    ];
    let lines: Vec<String> = cases
        .into_iter()
        .map(|(expected, label)| {
            let message = played()
                .check_called_tools([expected, tool("search-kb"), tool("create-ticket")])
                .unwrap_err()
                .to_string();
            format!("{label}: {}", message.lines().next().unwrap())
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}
