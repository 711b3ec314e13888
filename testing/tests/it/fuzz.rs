//! Fuzzing of what baton-testing reads, on the stable toolchain (the driver: `fuzz_driver.rs`;
//! CPT test files are fuzzed by baton-cpt's tests):
//! - `fuzz_cassettes`: mutated cassettes (format 1 and format 2, recorded from the AI agent
//!   template) are read, then replayed against the template, twice with the same outcome.
//!
//! Each fails on a panic or stack overflow, on two runs that disagree, and (in a long run) on an
//! input that takes more than a second. How to run it, reproduce a seed and keep a regression:
//! `tests/README.md`. Minimized inputs live in `tests/fuzz-regressions/<surface>/`, which every
//! run checks first.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use baton_testing::ProcessTest;
use baton_testing::agent::recording::{CassetteMode, CassetteScript, Recording};
use baton_testing::agent::{Cassette, ToolCall, Turn};
use serde_json::{Value, json};

use crate::fuzz_driver::{TempDir, fuzz, mutated_json, regressions, within};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

// ---- cassettes ----

const CASSETTE_TOKENS: &[&str] = &[
    "version",
    "agent",
    "turns",
    "calls",
    "request",
    "response",
    "toolCalls",
    "responseText",
    "responseJson",
    "error",
    "usage",
    "id",
    "name",
    "arguments",
    "rawArguments",
    "toolCallAsText",
    "lookup-order",
    "search-kb",
    "create-ticket",
    "support-agent",
    "messages",
    "tools",
    "toolCallResults",
    "hash",
    "trajectory",
    "",
];

const TEMPLATE: &str = "templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn";
const CUSTOMER: &str = "My order 1042 arrived broken.";

/// The AI agent template with its tool mocks.
fn template(xml: &str) -> ProcessTest {
    let t = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", xml).unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

fn template_turns() -> Vec<Turn> {
    vec![
        Turn::tool_calls([
            ToolCall::new("lookup-order", json!({"orderId": "1042"})),
            ToolCall::new("search-kb", json!({"query": "damaged item return"})),
        ]),
        Turn::call(
            "create-ticket",
            json!({"summary": "Order 1042 arrived damaged"}),
        ),
        Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
    ]
}

/// Seeds: the template's turns as a format 1 cassette, and recorded as format 2.
fn cassette_corpus(xml: &str, dir: &Path) -> Vec<Value> {
    let format_1 = Cassette::new("support-agent", template_turns()).to_json();
    let path = dir.join("recorded.json");
    let mut turns = template_turns().into_iter();
    let script = CassetteScript::new(&path)
        .mode(CassetteMode::Record)
        .record_with(move |_| turns.next().expect("a turn left"));
    let test = template(xml);
    test.mock_ai_agent("support-agent", script);
    test.start("ai-agent-tool-loop", json!({"customerMessage": CUSTOMER}));
    drop(test);
    let format_2 = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    vec![format_1, format_2]
}

/// What reading a cassette and replaying it against the template comes to.
fn cassette_outcome(xml: &str, path: &Path, text: &str) -> String {
    let mut out = Vec::new();
    let as_1 = Cassette::parse(text, "fuzz.json");
    out.push(format!(
        "format 1: {:?}",
        as_1.as_ref()
            .map(|c| c.turns.len())
            .map_err(|e| e.to_string())
    ));
    let as_2 = Recording::parse(text, "fuzz.json");
    out.push(format!(
        "format 2: {:?}",
        as_2.as_ref()
            .map(|r| r.calls.len())
            .map_err(|e| e.to_string())
    ));
    let test = template(xml);
    let mocked = match as_1 {
        Ok(cassette) => test.try_mock_ai_agent("support-agent", cassette),
        Err(_) => test.try_mock_ai_agent("support-agent", CassetteScript::new(path)),
    };
    match mocked {
        Err(e) => out.push(format!("not mocked: {e}")),
        Ok(_) => {
            if let Err(e) = test.try_start(
                baton_engine::runtime::CreateInstance::new("ai-agent-tool-loop").variables(
                    [("customerMessage".into(), json!(CUSTOMER))]
                        .into_iter()
                        .collect(),
                ),
            ) {
                out.push(format!("not started: {}", e.message));
            }
            for error in test.errors() {
                out.push(error.message);
            }
        }
    }
    out.join("\n")
}

fn check_cassette(xml: &str, dir: &Path, text: &str, limit: Option<Duration>) {
    let path = dir.join("fuzz.json");
    std::fs::write(&path, text).unwrap();
    let start = Instant::now();
    let first = cassette_outcome(xml, &path, text);
    within(limit, start, || text.to_owned());
    std::fs::write(&path, text).unwrap();
    let second = cassette_outcome(xml, &path, text);
    assert_eq!(first, second, "not deterministic: {text}");
}

#[test]
fn fuzz_cassettes_regressions_still_hold() {
    let xml = std::fs::read_to_string(root().join(TEMPLATE)).unwrap();
    let temp = TempDir::new("cassette-regressions");
    for (_, text) in regressions("cassettes") {
        check_cassette(&xml, &temp.0, &text, None);
    }
}

#[test]
fn fuzz_cassettes() {
    let xml = std::fs::read_to_string(root().join(TEMPLATE)).unwrap();
    let temp = TempDir::new("cassettes");
    let corpus = cassette_corpus(&xml, &temp.0);
    let input = |u: &mut Unstructured| {
        let seed = u.choose(&corpus)?;
        mutated_json(u, seed, CASSETTE_TOKENS)
    };
    fuzz("cassettes", 200, input, |u, limit| {
        let text = input(u)?;
        check_cassette(&xml, &temp.0, &text, limit);
        Ok(())
    });
}
