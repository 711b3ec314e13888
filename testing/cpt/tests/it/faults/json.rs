//! The fault extensions of the JSON test files (`baton test`): every fault kind, every
//! invariant kind, side effects and snapshots from JSON; the failures they report; the
//! `ai-agent-faults` template's cases, also restored from a snapshot at every wait point.

use std::path::{Path, PathBuf};

use baton_cpt::{self as cpt, Options, Outcome};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_fault_and_invariant_kind_runs_from_json() {
    let report = cpt::run(&[root().join("fixtures/cpt/faults")], &Options::default()).unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "9 passed, 0 failed");
}

#[test]
fn broken_invariants_and_bad_instructions_fail_their_cases_with_what_and_where() {
    let report = cpt::run(
        &[root().join("fixtures/cpt/faults-failing")],
        &Options::default(),
    )
    .unwrap();
    let failures: Vec<String> = report
        .cases
        .iter()
        .map(|case| match &case.outcome {
            Outcome::Failed(f) => format!(
                "{}\n  instruction {}: {}",
                case.name,
                f.instruction
                    .map_or_else(|| "(the end)".to_string(), |i| i.to_string()),
                f.message.replace('\n', "\n  ")
            ),
            other => format!("{}\n  did not fail: {other:?}", case.name),
        })
        .collect();
    insta::assert_snapshot!(failures.join("\n"), @r#"
    a worker that is not idempotent is caught at the crash's second side effect
      instruction 8: the run failed: the invariant at most one side effect per idempotency key of "ticket-create" is broken: the key "1042" of ticket-create was acted on twice:
        1. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1)
           then fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
           then the clock moved to 2025-01-01T00:00:20.001Z (time skipping)
           then the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
        2. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 2)
      It broke at event 11 (mock of job type "ticket-create" answered the job at "create-ticket": complete) at 2025-01-01T00:00:20.001Z.
      The run up to there:
          1. activated ticket
          2. activated start
          3. completed start
          4. activated approve
          5. completed approve
          6. activated create-ticket
          7. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1)
          8. fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
          9. the clock moved to 2025-01-01T00:00:20.001Z (time skipping)
         10. the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
         11. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 2) <-
    an incident breaks NO_INCIDENT
      instruction 4: the run failed: the invariant no incident is broken: an incident at "create-ticket" (JOB_NO_RETRIES): disk full
      It broke at event 9 (the injected fault answered the job at "create-ticket": fail "disk full") at 2025-01-01T00:00:00Z.
      The run up to there:
          1. activated ticket
          2. activated start
          3. completed start
          4. activated approve
          5. completed approve
          6. activated create-ticket
          7. fault at create-ticket (activation 1): fails "disk full" with 0 retries left
          8. the job at create-ticket failed (0 retries left): disk full
          9. incident at create-ticket (JOB_NO_RETRIES): disk full <-
    a condition breaks when a variable changes
      instruction 3: the run failed: the invariant always orderId != "0" is broken: in the run of "ticket" it gives false; the variables are {"orderId":"0"}
      It broke after event 4 (the test's action) at 2025-01-01T00:00:00Z.
      The run up to there:
          1. activated ticket
          2. activated start
          3. completed start
          4. activated approve
    a run that stops at a task nobody answers is not one of the allowed ends
      instruction (the end): the run failed: the invariant ends completed is broken: the run of "ticket" ended active, waiting at "create-ticket"
      It broke when the test ended.
      The run up to there:
          1. activated ticket
          2. activated start
          3. completed start
          4. activated approve
          5. completed approve
          6. activated create-ticket
    side effects counted wrong
      instruction 4: expected exactly 2 side effect(s) of "ticket-create", but the outside world received 1:
        1. key "2251799813685261" at create-ticket (job 2251799813685261, activation 1, run 1) at 2025-01-01T00:00:00Z
    a fault for a job type the process does not have
      instruction 1: INJECT_JOB_FAULT: cannot inject a fault into the jobs of type "ticket-creat": no deployed process has the job type "ticket-creat" (did you mean "ticket-create"?)
    a model fault without an agent mock
      instruction 1: INJECT_MODEL_FAULT: "support-agent" has no MOCK_AI_AGENT before this instruction
    an invariant naming an unknown element
      instruction 1: ASSERT_INVARIANT: the invariant "create-tickets" never before "approve" completed names the element "create-tickets", which no deployed process has (did you mean "create-ticket"?)
    restoring a snapshot nobody saved
      instruction 1: RESTORE_SNAPSHOT: no snapshot "at-approval" was saved in this test case (saved: none)
    a side-effect key that fails
      instruction 3: the run failed: mock of job type "ticket-create": the idempotency key customer.id of the side effect of "ticket-create" fails for the job at "create-ticket": it gives null ([NO_VARIABLE_FOUND] No variable found with name 'customer') ([NO_CONTEXT_ENTRY_FOUND] No context entry found with key 'id'. The context is null)
    "#);
}

#[test]
fn the_template_cases_pass_and_restore_at_every_wait_point_to_the_same_records() {
    let dir = root().join("templates/ai-agent-faults");
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "6 passed, 0 failed");
    let names: Vec<&str> = report
        .cases
        .iter()
        .map(|c| c.name.split(':').next().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            "crash-after-ticket-create",
            "restart-after-crash",
            "model-timeout-before-sla",
            "slow-model-past-sla",
            "budget-exhausted",
            "tool-error-recovered"
        ]
    );
    let restored = cpt::run(
        &[&dir],
        &Options {
            check_restore: true,
            ..Options::default()
        },
    )
    .unwrap();
    restored.assert_success();
    // The fixtures too: every fault kind, restored after every instruction.
    let fixtures = cpt::run(
        &[root().join("fixtures/cpt/faults")],
        &Options {
            check_restore: true,
            ..Options::default()
        },
    )
    .unwrap();
    fixtures.assert_success();
}

#[test]
fn bad_fault_instructions_fail_the_file_with_the_path() {
    let cases = [
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a", "elementId": "b"}, "fault": "NO_ANSWER"}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {}, "fault": "NO_ANSWER"}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "EXPLODE"}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "NO_ANSWER", "times": 0}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "FAIL", "retries": -1}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "LATENCY"}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "LATENCY", "latency": "P400D"}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "NO_ANSWER", "latency": "PT1M"}"#,
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "THROW_BPMN_ERROR"}"#,
        r#"{"type": "INJECT_JOB_FAULT", "fault": "NO_ANSWER"}"#,
        r#"{"type": "INJECT_MODEL_FAULT", "elementId": "agent", "modelCall": 0, "fault": "REFUSAL"}"#,
        r#"{"type": "INJECT_MODEL_FAULT", "elementId": "agent", "modelCall": 1, "fault": "ERROR"}"#,
        r#"{"type": "INJECT_MODEL_FAULT", "elementId": "agent", "modelCall": 1, "fault": "REFUSAL", "latency": "PT1M"}"#,
        r#"{"type": "ASSERT_INVARIANT", "invariant": "NEVER_BEFORE", "elementId": "x"}"#,
        r#"{"type": "ASSERT_INVARIANT", "invariant": "CONDITION", "expression": "a <"}"#,
        r#"{"type": "ASSERT_INVARIANT", "invariant": "ENDS_IN", "endStates": ["DONE"]}"#,
        r#"{"type": "ASSERT_INVARIANT", "invariant": "ENDS_IN"}"#,
        r#"{"type": "ASSERT_SIDE_EFFECTS", "jobType": "x"}"#,
        r#"{"type": "SET_JOB_TIMEOUT", "timeout": "PT0S"}"#,
        r#"{"type": "SAVE_SNAPSHOT"}"#,
        r#"{"type": "RESTORE_SNAPSHOT", "name": "a", "file": "b"}"#,
        // Java's Duration.parse (Jackson's DurationDeserializer) reads ISO-8601 only.
        r#"{"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "a"}, "fault": "LATENCY", "latency": "15 minutes"}"#,
        r#"{"type": "SET_JOB_TIMEOUT", "timeout": "1h"}"#,
        // CPT's INCREASE_TIME and SET_TIME hold a java.time.Duration and Instant: Jackson
        // reads them with the file.
        r#"{"type": "INCREASE_TIME", "duration": "15 minutes"}"#,
        r#"{"type": "INCREASE_TIME", "duration": "P1Y"}"#,
        r#"{"type": "SET_TIME", "time": "tomorrow"}"#,
    ];
    let messages: Vec<String> = cases
        .iter()
        .map(|case| {
            let file = format!(r#"{{"testCases": [{{"name": "c", "instructions": [{case}]}}]}}"#);
            match cpt::TestFile::parse(&file) {
                Ok(_) => "accepted".to_string(),
                Err(e) => e.to_string(),
            }
        })
        .collect();
    insta::assert_snapshot!(messages.join("\n"), @r#"
    testCases[0].instructions[0].jobSelector: give jobType (every job of the type) or elementId (the jobs of one element), not both
    testCases[0].instructions[0].jobSelector: needs jobType or elementId
    testCases[0].instructions[0].fault: unknown variant `EXPLODE`, expected one of `FAIL`, `THROW_BPMN_ERROR`, `NO_ANSWER`, `LATENCY`, `CRASH_AFTER_SIDE_EFFECT`
    testCases[0].instructions[0]: a fault for 0 activations injects nothing: give 1 or more, or leave the count out for all
    testCases[0].instructions[0]: a failure cannot leave -1 retries (0 or more)
    testCases[0].instructions[0].latency: a LATENCY fault needs the latency (an ISO-8601 duration such as PT5M)
    testCases[0].instructions[0].latency: P400D is more than a fault may have (at most 366 days)
    testCases[0].instructions[0].latency: does not apply to a NO_ANSWER fault
    testCases[0].instructions[0].errorCode: a THROW_BPMN_ERROR fault needs the error code
    testCases[0].instructions[0]: Cannot build InjectJobFaultInstruction, some of required attributes are not set [jobSelector]
    testCases[0].instructions[0].modelCall: model calls count from 1
    testCases[0].instructions[0].errorMessage: an ERROR fault needs the provider's message
    testCases[0].instructions[0].latency: does not apply to a REFUSAL fault
    testCases[0].instructions[0].beforeElementId: NEVER_BEFORE needs the element that must complete first
    testCases[0].instructions[0].expression: is not valid FEEL: failed to parse expression 'a <': expected expression at 1:4, found end of input
    testCases[0].instructions[0].endStates[0]: must be COMPLETED, TERMINATED, INCIDENT or {"waitingAt": "<elementId>"}, got "DONE"
    testCases[0].instructions[0].endStates: ENDS_IN needs at least one end state
    testCases[0].instructions[0]: ASSERT_SIDE_EFFECTS needs count, atMostOncePerKey or noneBefore
    testCases[0].instructions[0].timeout: must be longer than 0
    testCases[0].instructions[0]: SAVE_SNAPSHOT needs a name (kept in the test case) or a file (relative to the test file)
    testCases[0].instructions[0]: RESTORE_SNAPSHOT takes a name or a file, not both
    testCases[0].instructions[0].latency: "15 minutes" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: expected to find duration beginning with `P` or `p`, but found `1` instead
    testCases[0].instructions[0].timeout: "1h" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: expected to find duration beginning with `P` or `p`, but found `1` instead
    testCases[0].instructions[0].duration: "15 minutes" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: expected to find duration beginning with `P` or `p`, but found `1` instead
    testCases[0].instructions[0].duration: "P1Y" uses years, months or weeks; a duration of the clock is days, hours, minutes and seconds (e.g. P30D)
    testCases[0].instructions[0].time: "tomorrow" is not an ISO-8601 instant such as 2025-01-01T09:00:00Z: failed to parse four digit integer as year: invalid digit, expected 0-9 but got t
    "#);
}

/// CRASH_AFTER_ANSWER on an agent that plays a cassette: the request the connector repeats
/// after the crash is answered by the recorded call that answered the crashed one.
#[test]
fn a_cassette_replays_under_a_connector_crash_from_json() {
    let dir = crate::support::temp_dir("json-cassette-crash");
    std::fs::copy(
        crate::faults::models::template_file(),
        dir.join("ai-agent-faults.bpmn"),
    )
    .unwrap();
    crate::faults::models::record_cassette(&dir.join("support-agent.cassette.json"), false);
    let test = r#"{ "testCases": [ { "name": "crash after the answer, replayed from a cassette", "instructions": [
  { "type": "SET_TIME_SKIPPING", "enabled": true },
  { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "order-lookup",
    "variables": { "order": { "id": "1042", "status": "delivered", "damaged": false } } },
  { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "email-send", "variables": {} },
  { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "sla-alert", "variables": {} },
  { "type": "MOCK_AI_AGENT", "elementId": "support-agent", "cassette": "support-agent.cassette.json" },
  { "type": "INJECT_MODEL_FAULT", "elementId": "support-agent", "modelCall": 1, "fault": "CRASH_AFTER_ANSWER" },
  { "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": { "processDefinitionId": "ai-agent-faults" },
    "variables": { "customerMessage": "Where is order 1042?", "customerEmail": "kim@example.com" } },
  { "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": { "processDefinitionId": "ai-agent-faults" }, "state": "IS_COMPLETED" },
  { "type": "ASSERT_AI_AGENT", "elementId": "support-agent", "calledTools": ["lookup-order"], "modelCalls": 3, "remainingTurns": 0 }
] } ] }"#;
    std::fs::write(dir.join("crash.test.json"), test).unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    report.assert_success();
    assert_eq!(report.summary(), "1 passed, 0 failed");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A snapshot file of another deployment, or of a newer format, fails the case at its
/// RESTORE_SNAPSHOT, naming the file and what differs.
#[test]
fn a_snapshot_file_of_another_deployment_or_a_newer_format_is_refused_from_json() {
    let dir = crate::support::temp_dir("json-snapshot-bad");
    std::fs::copy(
        root().join("fixtures/cpt/faults-failing/ticket.bpmn"),
        dir.join("ticket.bpmn"),
    )
    .unwrap();
    let case = |name: &str, instruction: &str| {
        format!(
            r#"{{ "name": "{name}", "instructions": [
  {{ "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {{ "processDefinitionId": "ticket" }}, "variables": {{ "orderId": "1042" }} }},
  {instruction}
] }}"#
        )
    };
    let save = case(
        "save",
        r#"{ "type": "SAVE_SNAPSHOT", "file": "at-approval.json" }"#,
    );
    std::fs::write(
        dir.join("save.test.json"),
        format!(r#"{{ "testCases": [ {save} ] }}"#),
    )
    .unwrap();
    cpt::run(&[dir.join("save.test.json")], &Options::default())
        .unwrap()
        .assert_success();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("at-approval.json")).unwrap())
            .unwrap();
    let mut newer = saved.clone();
    newer["format"] = serde_json::json!(2);
    let mut other = saved;
    other["resources"][0]["sha256"] = serde_json::json!("sha256:0000");
    for (file, snapshot) in [("newer.json", newer), ("other.json", other)] {
        std::fs::write(dir.join(file), snapshot.to_string()).unwrap();
    }
    let restores = [
        case(
            "a newer format",
            r#"{ "type": "RESTORE_SNAPSHOT", "file": "newer.json" }"#,
        ),
        case(
            "another deployment",
            r#"{ "type": "RESTORE_SNAPSHOT", "file": "other.json" }"#,
        ),
    ];
    std::fs::write(
        dir.join("restore.test.json"),
        format!(r#"{{ "testCases": [ {} ] }}"#, restores.join(",")),
    )
    .unwrap();
    let report = cpt::run(&[dir.join("restore.test.json")], &Options::default()).unwrap();
    let failures: Vec<String> = report
        .cases
        .iter()
        .map(|case| match &case.outcome {
            Outcome::Failed(f) => format!(
                "{}: instruction {:?}: {}",
                case.name,
                f.instruction,
                f.message.replace(&dir.display().to_string(), "DIR")
            ),
            other => format!("{}: did not fail: {other:?}", case.name),
        })
        .collect();
    insta::assert_snapshot!(failures.join("\n"), @"
    a newer format: instruction Some(2): RESTORE_SNAPSHOT: DIR/newer.json: format: the snapshot is of format 2, newer than this baton reads (format 1): update baton
    another deployment: instruction Some(2): RESTORE_SNAPSHOT: DIR/other.json: the snapshot was taken with another deployment: DIR/ticket.bpmn differs (sha256:0000 in the snapshot, sha256:7c49d648496696e0de7684d69b24896072669e317ec83b13bcaa8c72237b6dad deployed): the file changed since the snapshot was taken
    ");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fault that never played tested nothing: the case passes (CPT says nothing of an unused
/// mock either) with a warning that names the fault and why, in JSON and in Rust.
#[test]
fn a_fault_that_never_played_is_named_in_a_warning() {
    let dir = crate::support::temp_dir("json-unplayed-fault");
    std::fs::copy(
        crate::faults::models::template_file(),
        dir.join("ai-agent-faults.bpmn"),
    )
    .unwrap();
    let test = r#"{ "testCases": [ { "name": "faults the run never reaches", "instructions": [
  { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "order-lookup",
    "variables": { "order": { "id": "1042", "status": "delivered", "damaged": false } } },
  { "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "email-send", "variables": {} },
  { "type": "INJECT_JOB_FAULT", "jobSelector": { "elementId": "create-ticket" }, "fault": "NO_ANSWER" },
  { "type": "INJECT_JOB_FAULT", "jobSelector": { "jobType": "order-lookup" }, "fault": "FAIL", "times": 1 },
  { "type": "MOCK_AI_AGENT", "elementId": "support-agent", "turns": [
    { "toolCalls": [ { "name": "lookup-order", "arguments": { "orderId": "1042" } } ] },
    { "responseJson": { "answer": "Order 1042 was delivered yesterday.", "resolved": true } } ] },
  { "type": "INJECT_MODEL_FAULT", "elementId": "support-agent", "modelCall": 5, "fault": "RATE_LIMIT" },
  { "type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": { "processDefinitionId": "ai-agent-faults" },
    "variables": { "customerMessage": "Where is order 1042?", "customerEmail": "kim@example.com" } },
  { "type": "INCREASE_TIME", "duration": "PT1M" },
  { "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": { "processDefinitionId": "ai-agent-faults" }, "state": "IS_COMPLETED" }
] } ] }"#;
    std::fs::write(dir.join("unplayed.test.json"), test).unwrap();
    let report = cpt::run(&[&dir], &Options::default()).unwrap();
    report.assert_success();
    insta::assert_snapshot!(report.cases[0].warnings.join("\n"), @r#"
    INJECT_JOB_FAULT: the fault for the jobs of "create-ticket" that takes the job and never answers was never played: no such job was activated
    INJECT_MODEL_FAULT: the fault at model call 5 of "support-agent" (it made 2 model calls) was never played
    "#);
    let _ = std::fs::remove_dir_all(&dir);

    // In Rust, the test and the agent's handle list them.
    let t = baton_testing::ProcessTest::from_file(crate::faults::models::template_file()).unwrap();
    t.inject_fault(
        baton_testing::faults::Jobs::at_element("create-ticket"),
        baton_testing::faults::JobFault::no_answer(),
    );
    let agent = t.mock_ai_agent(
        "support-agent",
        [baton_testing::agent::Turn::respond_text("Hello.")],
    );
    agent.inject_fault(baton_testing::faults::ModelFault::refusal().at_call(2));
    assert_eq!(
        [t.unplayed_faults(), agent.unplayed_faults()].concat(),
        [
            r#"the fault for the jobs of "create-ticket" that takes the job and never answers"#,
            r#"the fault at model call 2 of "support-agent" (it made 0 model calls)"#,
        ]
    );
}

/// The full `INJECT_JOB_FAULT` and `INJECT_MODEL_FAULT` examples of docs/cli.md read as the
/// instructions they show, with no field ignored.
#[test]
fn the_fault_examples_of_the_cli_guide_read_as_written() {
    let guide = std::fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let examples: Vec<serde_json::Value> = guide
        .split("```json")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .filter_map(|block| serde_json::from_str(block).ok())
        .filter(|v: &serde_json::Value| {
            v["type"].as_str().is_some_and(|t| t.starts_with("INJECT_"))
        })
        .collect();
    assert_eq!(examples.len(), 2, "one example of each fault instruction");
    let mut shown = Vec::new();
    for (i, example) in examples.iter().enumerate() {
        let mut warnings = Vec::new();
        let instruction =
            cpt::Instruction::from_json(example, &format!("example {i}"), &mut warnings).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        shown.push(format!("{instruction:?}"));
    }
    insta::assert_snapshot!(shown.join("\n"), @r#"
    InjectJobFault(InjectJobFault { jobs: OfType("order-lookup"), fault: JobFault { kind: Fail { message: "503 Service Unavailable", retries: Some(2), backoff: 30s, variables: {} }, times: Some(2), job_timeout: Some(60s), problem: None } })
    InjectModelFault(InjectModelFault { element_id: "support-agent", fault: ModelFault { call: 1, kind: Error(Timeout { message: "the provider did not answer", after: 600s }), problem: None } })
    "#);
}
