//! The CPT JSON runner at library level: the shared corpus (when present), the template's test
//! file, the feature fixtures, and the agent instructions.

use std::path::{Path, PathBuf};

use baton_testing::cpt::{self, Options, Outcome};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh temporary folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baton-cpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn corpus_passes() {
    let cases = root().join("../shared/corpus/cpt/cases");
    if !cases.is_dir() {
        println!(
            "skipped: {} is not here (the shared corpus sits beside the repository)",
            cases.display()
        );
        return;
    }
    let known: Vec<(String, String)> = include_str!("cpt_known_failures.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (entry, reason) = l.split_once('#').unwrap_or((l, ""));
            (entry.trim().to_owned(), reason.trim().to_owned())
        })
        .collect();
    let report = cpt::run(&[&cases], &Options::default()).unwrap();
    assert_eq!(report.cases.len(), 71, "the corpus has 71 test cases");
    let mut unexpected = Vec::new();
    let mut now_passing = Vec::new();
    let mut used = vec![false; known.len()];
    for case in &report.cases {
        let file = case
            .file
            .strip_prefix(&cases)
            .unwrap()
            .display()
            .to_string();
        let title = format!("{file} › {}", case.name);
        let entry = known.iter().position(|(e, _)| *e == file || *e == title);
        if let Some(i) = entry {
            used[i] = true;
        }
        match (&case.outcome, entry) {
            (Outcome::Passed, Some(_)) => now_passing.push(title),
            (Outcome::Passed, None) => {}
            (_, Some(_)) => {}
            (_, None) => unexpected.push(cpt::text::case_text(case)),
        }
    }
    let stale: Vec<&String> = known
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((e, _), _)| e)
        .collect();
    assert!(
        unexpected.is_empty(),
        "corpus cases failed (a baton bug: these pass on Camunda 8.9):\n\n{}",
        unexpected.join("\n\n")
    );
    assert!(
        now_passing.is_empty() && stale.is_empty(),
        "listed in cpt_known_failures.txt but passing (or not found): delete their lines:\n{}\n{}",
        now_passing.join("\n"),
        stale
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_template_test_file_passes_with_full_coverage() {
    let report = cpt::run(
        &[root().join("templates/ai-agent-tool-loop")],
        &Options::default(),
    )
    .unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "3 passed, 0 failed");
    let coverage = report.coverage_report();
    let p = coverage.process("ai-agent-tool-loop").unwrap();
    assert_eq!(
        (p.elements.percent, p.flows.percent, p.tools.to_string()),
        (100.0, 100.0, "3/3 (100.0%)".to_owned())
    );
}

/// `--commands-dir`: each case's run written as engine commands, which replay on a fresh
/// engine to the same end (the template's cases each complete their instance).
#[test]
fn each_case_is_written_as_a_command_log_that_replays() {
    use baton_engine::runtime::{Engine, State, read_commands};
    let dir = temp_dir("commands");
    let options = Options {
        commands_dir: Some(dir.clone()),
        ..Options::default()
    };
    let report = cpt::run(&[root().join("templates/ai-agent-tool-loop")], &options).unwrap();
    report.assert_success();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    assert_eq!(logs.len(), 3, "{logs:?}");
    for log in logs {
        let commands = read_commands(&std::fs::read_to_string(&log).unwrap()).unwrap();
        let mut engine = Engine::default();
        for command in commands {
            engine
                .apply(command)
                .unwrap_or_else(|r| panic!("{}: a command was rejected: {r}", log.display()));
        }
        let instances = engine.process_instances();
        assert!(
            !instances.is_empty() && instances.iter().all(|i| i.state == State::Completed),
            "{}: {instances:?}",
            log.display()
        );
    }
}

/// A command log that cannot be written is a warning on the case, naming the path and why.
#[test]
fn a_command_log_that_cannot_be_written_is_a_warning() {
    let dir = temp_dir("commands-blocked");
    let blocked = dir.join("not-a-folder");
    std::fs::write(&blocked, "").unwrap();
    let options = Options {
        commands_dir: Some(blocked.clone()),
        filter: Some("damaged order".to_owned()),
        ..Options::default()
    };
    let report = cpt::run(&[root().join("templates/ai-agent-tool-loop")], &options).unwrap();
    report.assert_success();
    let warnings = &report.cases[0].warnings;
    let expected = format!("the command log was not written: {}: ", blocked.display());
    assert!(
        warnings.len() == 1 && warnings[0].starts_with(&expected),
        "{warnings:?}"
    );
}

#[test]
fn feature_fixtures_pass_and_a_judge_is_skipped() {
    let report = cpt::run(&[root().join("fixtures/cpt/features")], &Options::default()).unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "4 passed, 0 failed, 1 skipped");
    let skipped = report.cases.iter().find(|c| c.skipped()).unwrap();
    assert!(
        matches!(&skipped.outcome, Outcome::Skipped { reason } if reason.contains("satisfiesJudge")),
        "{:?}",
        skipped.outcome
    );
}

/// The agent job's `errorExpression` header from a JSON test: a failed model call mapped to a
/// BPMN error with variables (caught by the boundary, read by its output mapping), and an
/// expression that leaves a successful turn alone.
#[test]
fn the_agents_error_expression_runs_from_json() {
    let report = cpt::run(
        &[root().join("fixtures/cpt/agent-error-expression")],
        &Options::default(),
    )
    .unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "2 passed, 0 failed");
}

#[test]
fn the_filter_selects_cases_by_name() {
    let options = Options {
        filter: Some("incident".to_owned()),
        ..Options::default()
    };
    let report = cpt::run(&[root().join("fixtures/cpt/features")], &options).unwrap();
    assert_eq!(report.summary(), "1 passed, 0 failed");
    assert_eq!(report.filtered_out, 4);
}

/// The template's process with a test file written for one test.
fn agent_suite(name: &str, test_file: &str) -> PathBuf {
    let dir = temp_dir(name);
    std::fs::copy(
        root().join("templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"),
        dir.join("ai-agent-tool-loop.bpmn"),
    )
    .unwrap();
    std::fs::write(dir.join("agent.test.json"), test_file).unwrap();
    dir
}

const MOCKS: &str = r#"
    { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "order-lookup", "variables": { "order": { "id": "7", "status": "unknown" } } },
    { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "email-send", "variables": {} },"#;

fn agent_case(name: &str, instructions: &str) -> String {
    format!(
        r#"{{ "testCases": [ {{ "name": "{name}", "instructions": [ {MOCKS}
        {instructions},
        {{ "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }}, "variables": {{ "customerMessage": "Where is order 7?" }} }}
        {{AFTER}} ] }} ] }}"#
    )
}

#[test]
fn an_agent_replays_a_cassette_relative_to_the_test_file() {
    let test = agent_case(
        "cassette",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "cassette": "cassettes/order-7.json" }"#,
    )
    .replace(
        "{AFTER}",
        r#", { "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": { "processDefinitionId": "ai-agent-tool-loop" }, "state": "IS_COMPLETED" },
            { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "calledTools": [ { "name": "lookup-order", "arguments": { "orderId": "7" } } ], "modelCalls": 2, "remainingTurns": 0 }"#,
    );
    let dir = agent_suite("cassette", &test);
    std::fs::create_dir_all(dir.join("cassettes")).unwrap();
    std::fs::write(
        dir.join("cassettes/order-7.json"),
        r#"{ "version": 1, "agent": "support-agent", "turns": [
            { "toolCalls": [ { "id": "toolu_01", "name": "lookup-order", "arguments": { "orderId": "7" } } ] },
            { "responseJson": { "answer": "Order 7 ships tomorrow.", "resolved": true } } ] }"#,
    )
    .unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    report.assert_success();
    assert_eq!(report.summary(), "1 passed, 0 failed");
}

/// Runs one agent test case and returns its printed result (temporary paths replaced).
fn agent_failure(name: &str, mock: &str, after: &str) -> String {
    let test = agent_case(name, mock).replace("{AFTER}", after);
    let dir = agent_suite(name, &test);
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.summary(), "0 passed, 1 failed");
    cpt::text::case_text(&report.cases[0]).replace(&dir.display().to_string(), "[dir]")
}

#[test]
fn a_failing_agent_mock_fails_the_case_with_its_message() {
    let text = agent_failure(
        "unknown-tool",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [ { "toolCalls": [ { "name": "issue-refund", "arguments": {} } ] } ] }"#,
        "",
    );
    insta::assert_snapshot!(text);
}

#[test]
fn assert_ai_agent_compares_the_whole_sequence_and_the_counts() {
    let text = agent_failure(
        "wrong-calls",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [
            { "toolCalls": [ { "name": "lookup-order", "arguments": { "orderId": "7" } } ] },
            { "responseJson": { "answer": "I could not find it.", "resolved": false } },
            { "responseText": "never used" } ] }"#,
        r#", { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "calledTools": [ "search-kb", { "name": "lookup-order", "arguments": { "orderId": "8" } } ], "modelCalls": 3, "remainingTurns": 0 }"#,
    );
    insta::assert_snapshot!(text);
}

#[test]
fn mock_ai_agent_refuses_an_element_that_is_no_agent() {
    let text = agent_failure(
        "not-an-agent",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "send-answer", "turns": [ { "responseText": "hi" } ] }"#,
        "",
    );
    insta::assert_snapshot!(text);
}

#[test]
fn discovery_skips_other_json_and_reports_broken_test_files() {
    let dir = temp_dir("discovery");
    std::fs::write(dir.join("cassette.json"), r#"{"version": 1, "turns": []}"#).unwrap();
    std::fs::write(dir.join("package.json"), "{ not json").unwrap();
    let none = cpt::discover(std::slice::from_ref(&dir), &[]).unwrap_err();
    assert!(none.to_string().starts_with("no test file"), "{none}");
    std::fs::write(dir.join("empty.test.json"), r#"{"name": "no cases"}"#).unwrap();
    let suites = cpt::discover(std::slice::from_ref(&dir), &[]).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(suites.len(), 1);
    assert_eq!(suites[0].files.len(), 1);
    let error = suites[0].files[0].content.as_ref().unwrap_err().to_string();
    assert_eq!(error, "missing field `testCases`");
}

#[test]
fn a_hostile_satisfies_expression_fails_its_case_and_the_run_goes_on() {
    let dir = temp_dir("hostile-feel");
    std::fs::write(
        dir.join("p.bpmn"),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>"#,
    )
    .unwrap();
    let deep = format!("{}v", "- ".repeat(100_000));
    let case = |name: &str, expression: &str| {
        format!(
            r#"{{ "name": "{name}", "instructions": [
            {{ "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {{ "processDefinitionId": "p" }}, "variables": {{ "v": 1 }} }},
            {{ "type": "ASSERT_VARIABLE", "processInstanceSelector": {{ "processDefinitionId": "p" }}, "variableName": "v", "satisfiesExpression": "{expression}" }} ] }}"#
        )
    };
    let huge = r#"count(for x in 1..1000 return for y in 1..100000 return x + y) > 0"#;
    let test = format!(
        r#"{{ "testCases": [ {}, {}, {} ] }}"#,
        case("deep", &deep),
        case("huge", huge),
        case("plain", "v = 1")
    );
    std::fs::write(dir.join("p.test.json"), test).unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.summary(), "1 passed, 2 failed");
    let texts: Vec<String> = report.cases[..2]
        .iter()
        .map(|c| {
            cpt::text::case_text(c)
                .replace(&deep, "<expression>")
                .replace(&dir.display().to_string(), "[dir]")
        })
        .collect();
    insta::assert_snapshot!(texts.join("\n"));
}
