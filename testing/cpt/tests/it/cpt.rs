//! The CPT JSON runner at library level: the shared corpus (when present), the template's test
//! file, the feature fixtures, and the agent instructions.

use std::path::{Path, PathBuf};

use crate::support::temp_dir;
use baton_cpt::{self as cpt, Options, Outcome};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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

/// The AI Agent Task variant of the template runs the same cases, turns and assertions (a
/// `$schema` of 8.10), and its tools count as tools in the coverage.
#[test]
fn the_ai_agent_task_template_test_file_passes_with_full_coverage() {
    let report = cpt::run(
        &[root().join("templates/ai-agent-task-tool-loop")],
        &Options::default(),
    )
    .unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "3 passed, 0 failed");
    let coverage = report.coverage_report();
    let p = coverage.process("ai-agent-task-tool-loop").unwrap();
    assert_eq!(
        (p.elements.percent, p.flows.percent, p.tools.to_string()),
        (100.0, 100.0, "3/3 (100.0%)".to_owned())
    );
}

/// The v2 connector's variant of the template (`io.camunda.agenticai:aiagent:subprocess:2`, the
/// `custom` provider) runs the same cases, turns and assertions.
#[test]
fn the_v2_template_test_file_passes_with_full_coverage() {
    let report = cpt::run(
        &[root().join("templates/ai-agent-tool-loop-v2")],
        &Options::default(),
    )
    .unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "3 passed, 0 failed");
    let coverage = report.coverage_report();
    let p = coverage.process("ai-agent-tool-loop-v2").unwrap();
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

/// The agent instance from JSON: its status, metrics and committed history roles.
#[test]
fn assert_ai_agent_checks_the_agent_instance() {
    let test = agent_case(
        "agent-instance",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [
            { "toolCalls": [ { "name": "lookup-order", "arguments": { "orderId": "7" } } ], "usage": { "inputTokenCount": 100, "outputTokenCount": 10 } },
            { "responseJson": { "answer": "Order 7 ships tomorrow.", "resolved": true }, "usage": { "inputTokenCount": 150, "outputTokenCount": 20 } } ] }"#,
    )
    .replace(
        "{AFTER}",
        r#", { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "status": "COMPLETED",
              "metrics": { "modelCalls": 2, "inputTokens": 250, "outputTokens": 30, "toolCalls": 1 },
              "historyRoles": [ "USER", "ASSISTANT", "TOOL_RESULT", "ASSISTANT" ] }"#,
    );
    let dir = agent_suite("agent-instance", &test);
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    report.assert_success();
    assert_eq!(report.summary(), "1 passed, 0 failed");
}

#[test]
fn a_wrong_agent_instance_fails_the_case_with_its_history() {
    let text = agent_failure(
        "wrong-instance",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [
            { "toolCalls": [ { "name": "lookup-order", "arguments": { "orderId": "7" } } ] },
            { "responseJson": { "answer": "Order 7 ships tomorrow.", "resolved": true } } ] }"#,
        r#", { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "status": "IDLE", "metrics": { "toolCalls": 2 }, "historyRoles": [ "USER", "ASSISTANT" ] }"#,
    );
    insta::assert_snapshot!(text);
}

#[test]
fn assert_ai_agent_on_an_element_that_is_no_agent_says_so() {
    let text = agent_failure(
        "instance-of-no-agent",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [ { "responseJson": { "answer": "Hi", "resolved": true } } ] }"#,
        r#", { "type": "ASSERT_AI_AGENT", "elementId": "send-answer", "status": "IDLE" }"#,
    );
    insta::assert_snapshot!(text);
}

/// Two instances of the process, two agent instances: `agentInstanceNumber` (1 for the first
/// created) or `processInstanceSelector` (CPT's rule: the first instance of the process) picks
/// one; without them the latest is read.
#[test]
fn assert_ai_agent_selects_one_of_several_agent_instances() {
    let test = agent_case(
        "two-instances",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [
            { "toolCalls": [ { "name": "lookup-order", "arguments": { "orderId": "7" } } ] },
            { "responseJson": { "answer": "Order 7 ships tomorrow.", "resolved": true } },
            { "responseJson": { "answer": "Hello.", "resolved": true } } ] }"#,
    )
    .replace(
        "{AFTER}",
        r#", { "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": { "processDefinitionId": "ai-agent-tool-loop" }, "variables": { "customerMessage": "Hi" } },
            { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "status": "COMPLETED", "metrics": { "modelCalls": 1, "toolCalls": 0 } },
            { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "agentInstanceNumber": 1, "metrics": { "modelCalls": 2, "toolCalls": 1 },
              "historyRoles": [ "USER", "ASSISTANT", "TOOL_RESULT", "ASSISTANT" ] },
            { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "processInstanceSelector": { "processDefinitionId": "ai-agent-tool-loop" },
              "metrics": { "toolCalls": 1 } }"#,
    );
    let dir = agent_suite("two-instances", &test);
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    report.assert_success();
    assert_eq!(report.summary(), "1 passed, 0 failed");
}

#[test]
fn assert_ai_agent_on_an_agent_instance_number_it_does_not_have_says_so() {
    let text = agent_failure(
        "no-third-instance",
        r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [ { "responseJson": { "answer": "Hi", "resolved": true } } ] }"#,
        r#", { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "agentInstanceNumber": 3, "status": "COMPLETED" }"#,
    );
    insta::assert_snapshot!(text);
}

/// An AI Agent Task nobody mocked is an agent: the assertion says it has no mock (not that it
/// is no agent).
#[test]
fn assert_ai_agent_on_an_unmocked_ai_agent_task_says_it_has_no_mock() {
    let dir = temp_dir("unmocked-task");
    std::fs::copy(
        root().join("templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn"),
        dir.join("ai-agent-task-tool-loop.bpmn"),
    )
    .unwrap();
    std::fs::write(
        dir.join("agent.test.json"),
        r#"{ "testCases": [ { "name": "unmocked", "instructions": [
            { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "status": "IDLE" } ] } ] }"#,
    )
    .unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.summary(), "0 passed, 1 failed");
    let text = cpt::text::case_text(&report.cases[0]);
    assert!(
        text.contains(r#"ASSERT_AI_AGENT: no MOCK_AI_AGENT for "support-agent" in this test case (mocked agents: none)"#),
        "{text}"
    );
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

fn failure_of(case: &cpt::CaseResult) -> &cpt::CaseFailure {
    match &case.outcome {
        Outcome::Failed(f) => f,
        other => panic!("{} did not fail: {other:?}", case.name),
    }
}

/// CPT's reader is a Jackson `ObjectMapper` with Jackson's defaults (camunda/camunda
/// `TestScenarioReader`: only `FAIL_ON_UNKNOWN_PROPERTIES` off), which reads a number where text is expected as its text
/// (`StdDeserializer._parseString`, `ALLOW_COERCION_OF_SCALARS`): a numeric correlation key
/// correlates with the number a process variable holds (Zeebe takes a number's text as the
/// key), and an object there fails the file with Jackson's sentence.
#[test]
fn a_number_where_text_is_expected_is_read_as_its_text() {
    let dir = temp_dir("jackson-coercion");
    for file in ["offer.bpmn", "discount.dmn"] {
        std::fs::copy(
            root().join("fixtures/cpt/coverage").join(file),
            dir.join(file),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("offer.test.json"),
        r#"{ "testCases": [
          { "name": "a numeric correlation key", "instructions": [
            { "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": { "processDefinitionId": "offer" },
              "variables": { "offerId": 1042, "points": 1200, "total": 50 } },
            { "type": "PUBLISH_MESSAGE", "name": "confirmed", "correlationKey": 1042 },
            { "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": { "processDefinitionId": "offer" }, "state": "IS_COMPLETED" } ] } ] }"#,
    )
    .unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    report.assert_success();
    std::fs::write(
        dir.join("offer.test.json"),
        r#"{ "testCases": [ { "name": "an object for a key", "instructions": [
            { "type": "PUBLISH_MESSAGE", "name": "confirmed", "correlationKey": { "id": 1042 } } ] } ] }"#,
    )
    .unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        failure_of(&report.cases[0]).message,
        "cannot read the test file: testCases[0].instructions[0].correlationKey: Cannot deserialize value of type `java.lang.String` from Object value (token `JsonToken.START_OBJECT`)"
    );
}

/// A suite of one test file beside the 8.10 fixture's process.
fn payment_suite(name: &str, test_file: &str) -> PathBuf {
    let dir = temp_dir(name);
    std::fs::copy(
        root().join("fixtures/cpt/v810/payment.bpmn"),
        dir.join("payment.bpmn"),
    )
    .unwrap();
    std::fs::write(dir.join("payment.test.json"), test_file).unwrap();
    dir
}

/// The 8.10 fixture: ASSERT_INCIDENT on an active and on a resolved incident, under the 8.10
/// `$schema` (no notes).
#[test]
fn the_8_10_fixture_passes_without_notes() {
    let report = cpt::run(&[root().join("fixtures/cpt/v810")], &Options::default()).unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "2 passed, 0 failed");
    assert!(
        report.suites.iter().all(|s| s.notes.is_empty()),
        "{:?}",
        report.suites
    );
}

/// A CPT 8.10 file (`$schema` 8.10) on the AI Agent Sub-process template v11
/// (`agenticai-aiagent-job-worker.json` version 11): the worked example, and ASSERT_INCIDENT on
/// the incident a content filter leaves (`BaseAgentRequestHandler.throwIfContentFiltered`, the
/// job of an ad-hoc sub-process out of retries: `AD_HOC_SUB_PROCESS_NO_RETRIES`).
#[test]
fn the_8_10_agent_fixture_with_template_v11_and_assert_incident_passes() {
    let report = cpt::run(
        &[root().join("fixtures/cpt/v810-agent")],
        &Options::default(),
    )
    .unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "2 passed, 0 failed");
    assert!(
        report.suites.iter().all(|s| s.notes.is_empty()),
        "{:?}",
        report.suites
    );
}

/// ASSERT_INCIDENT fails with CPT's messages (camunda/camunda testing/camunda-process-test-java
/// `IncidentAssertj`: "No incident [%s] found", "Expected incident [%s] to be resolved, but was
/// %s", "... to have error type %s, but was %s", "... to have error message '%s', but was '%s'",
/// "... to have element ID '%s', but was '%s'"; the selector described as `IncidentSelectors`
/// does, `elementId: x`), checking the properties in `AssertIncidentInstructionHandler`'s order
/// on the oldest matching incident. It is no condition a behaviour may use
/// (`ConditionalBehaviorInstructionHandler`'s ALLOWED_CONDITION_TYPES).
#[test]
fn assert_incident_fails_with_cpts_messages() {
    let start = r#"{ "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": { "processDefinitionId": "payment" } },
        { "type": "THROW_BPMN_ERROR_FROM_JOB", "jobSelector": { "jobType": "charge" }, "errorCode": "CARD_DECLINED", "errorMessage": "declined" }"#;
    let cases = [
        (
            "no such incident",
            r#"{ "type": "ASSERT_INCIDENT", "incidentSelector": { "elementId": "approval" } }"#,
        ),
        (
            "not resolved",
            r#"{ "type": "ASSERT_INCIDENT", "incidentSelector": { "elementId": "payment-task" }, "state": "IS_RESOLVED", "errorType": "JOB_NO_RETRIES" }"#,
        ),
        (
            "wrong type",
            r#"{ "type": "ASSERT_INCIDENT", "incidentSelector": { "elementId": "payment-task" }, "state": "IS_ACTIVE", "errorType": "JOB_NO_RETRIES" }"#,
        ),
        (
            "wrong message",
            r#"{ "type": "ASSERT_INCIDENT", "incidentSelector": { "processDefinitionId": "payment" }, "errorMessage": "Payment worker failed" }"#,
        ),
        (
            "wrong element",
            r#"{ "type": "ASSERT_INCIDENT", "incidentSelector": { "processDefinitionId": "payment" }, "elementId": "approval" }"#,
        ),
        (
            "empty selector",
            r#"{ "type": "ASSERT_INCIDENT", "incidentSelector": {} }"#,
        ),
        (
            "as a condition",
            r#"{ "type": "CONDITIONAL_BEHAVIOR", "conditions": [ { "type": "ASSERT_INCIDENT", "incidentSelector": { "elementId": "payment-task" } } ], "actions": [ { "type": "RESOLVE_INCIDENT", "incidentSelector": { "elementId": "payment-task" } } ] }"#,
        ),
    ];
    let cases_json: Vec<String> = cases
        .iter()
        .map(|(name, assert)| {
            format!(r#"{{ "name": "{name}", "instructions": [ {start}, {assert} ] }}"#)
        })
        .collect();
    let file = format!(r#"{{ "testCases": [ {} ] }}"#, cases_json.join(",\n"));
    let dir = payment_suite("assert-incident", &file);
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.summary(), "0 passed, 7 failed");
    let text: Vec<String> = report
        .cases
        .iter()
        .map(|c| {
            let failure = failure_of(c);
            format!(
                "{} › {}\n{}",
                c.name,
                failure.instruction_type.as_deref().unwrap_or(""),
                failure.message
            )
        })
        .collect();
    insta::assert_snapshot!(text.join("\n\n"));
}

/// A missing attribute fails the file with CPT's reader's sentence, behind the JSON path.
#[test]
fn an_8_10_instruction_without_its_selector_fails_the_file() {
    let dir = payment_suite(
        "assert-incident-file",
        r#"{ "testCases": [ { "name": "x", "instructions": [ { "type": "ASSERT_INCIDENT", "state": "IS_ACTIVE" } ] } ] }"#,
    );
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        failure_of(&report.cases[0]).message,
        "cannot read the test file: testCases[0].instructions[0]: Cannot build AssertIncidentInstruction, some of required attributes are not set [incidentSelector]"
    );
}

/// The template with its two read-only tools on one job type, as HTTP connector tools share
/// `io.camunda:http-json:1` (camunda/camunda#60882).
fn shared_type_suite(name: &str, cases: &str) -> PathBuf {
    let dir = temp_dir(name);
    let bpmn = std::fs::read_to_string(
        root().join("templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"),
    )
    .unwrap()
    .replace("type=\"kb-search\"", "type=\"io.camunda:http-json:1\"")
    .replace("type=\"order-lookup\"", "type=\"io.camunda:http-json:1\"");
    std::fs::write(dir.join("shared-type.bpmn"), bpmn).unwrap();
    std::fs::write(
        dir.join("shared-type.test.json"),
        format!(r#"{{ "testCases": [ {cases} ] }}"#),
    )
    .unwrap();
    dir
}

const TWO_TOOLS: &str = r#"{ "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [
      { "toolCalls": [ { "name": "lookup-order", "arguments": { "orderId": "7" } },
                       { "name": "search-kb", "arguments": { "query": "late delivery" } } ] },
      { "responseJson": { "answer": "Order 7 ships tomorrow.", "resolved": true } } ] },
    { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "email-send", "variables": {} },
    { "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": { "processDefinitionId": "ai-agent-tool-loop" }, "variables": { "customerMessage": "Where is order 7?" } }"#;

/// baton's extensions for two open CPT requests: a mock job worker per element for tools that
/// share a job type (camunda/camunda#60882: each tool mocked on its own, the element's mock
/// winning over the job type's), and variable assertions on the ad-hoc inner instance a tool
/// ran in (camunda/camunda#50753: `InnerInstanceSelector.byElementId("AI_Agent")
/// .scopedByVariableValue("toolCall", "ListUsers")`), here `innerInstanceSelector`.
#[test]
fn tools_sharing_a_job_type_are_mocked_per_element_and_their_inner_instances_asserted() {
    let case = format!(
        r#"{{ "name": "per element", "instructions": [
        {{ "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "io.camunda:http-json:1", "variables": {{ "order": "from the job type's mock", "articles": "from the job type's mock" }} }},
        {{ "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "io.camunda:http-json:1", "elementId": "lookup-order", "variables": {{ "order": {{ "id": "7", "status": "shipped" }} }} }},
        {TWO_TOOLS},
        {{ "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }}, "state": "IS_COMPLETED" }},
        {{ "type": "ASSERT_VARIABLES", "processInstanceSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }},
           "innerInstanceSelector": {{ "elementId": "support-agent", "toolElementId": "lookup-order" }},
           "variableNames": [ "toolCall" ], "variables": {{ "toolCallResult": {{ "id": "7", "status": "shipped" }} }} }},
        {{ "type": "ASSERT_VARIABLES", "processInstanceSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }},
           "innerInstanceSelector": {{ "elementId": "support-agent", "variableName": "toolCall", "valueContains": "search-kb" }},
           "variables": {{ "toolCallResult": "from the job type's mock" }} }},
        {{ "type": "ASSERT_VARIABLE", "processInstanceSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }},
           "innerInstanceSelector": {{ "elementId": "support-agent", "variableName": "toolCall", "valueContains": "lookup-order" }},
           "variableName": "toolCall", "satisfiesExpression": "toolCall.orderId = \"7\"" }}
    ] }},
    {{ "name": "a tool's job completed by its element", "instructions": [
        {TWO_TOOLS},
        {{ "type": "COMPLETE_JOB", "jobSelector": {{ "jobType": "io.camunda:http-json:1", "elementId": "search-kb" }}, "variables": {{ "articles": [ "Delays" ] }} }},
        {{ "type": "ASSERT_ELEMENT_INSTANCES", "processInstanceSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }}, "elementSelectors": [ {{ "elementId": "search-kb" }} ], "state": "IS_COMPLETED" }},
        {{ "type": "ASSERT_ELEMENT_INSTANCES", "processInstanceSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }}, "elementSelectors": [ {{ "elementId": "lookup-order" }} ], "state": "IS_ACTIVE" }}
    ] }}"#
    );
    let dir = shared_type_suite("per-element", &case);
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    report.assert_success();
    assert_eq!(report.summary(), "2 passed, 0 failed");
}

#[test]
fn an_inner_instance_that_does_not_match_lists_the_inner_instances() {
    let case = format!(
        r#"{{ "name": "no such tool call", "instructions": [
        {{ "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "io.camunda:http-json:1", "variables": {{ "order": {{}}, "articles": [] }} }},
        {TWO_TOOLS},
        {{ "type": "ASSERT_VARIABLES", "processInstanceSelector": {{ "processDefinitionId": "ai-agent-tool-loop" }},
           "innerInstanceSelector": {{ "elementId": "support-agent", "variableName": "toolCall", "valueContains": "create-ticket" }},
           "variableNames": [ "toolCallResult" ] }}
    ] }}"#
    );
    let dir = shared_type_suite("inner-listing", &case);
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    insta::assert_snapshot!(failure_of(&report.cases[0]).message);
}
