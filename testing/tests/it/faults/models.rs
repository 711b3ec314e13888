//! Model faults of the AI agent mock, on the `ai-agent-faults` template: errors as the connector
//! reports them (camunda/connectors LangChain4JChatModel.doChat wraps any provider exception as
//! ConnectorException FAILED_MODEL_CALL "Model call failed: ..."; BaseAgentRequestHandler fails a
//! content-filtered answer with MODEL_RESPONSE_CONTENT_FILTERED before reading it), a latency
//! during which the SLA timer fires, and a connector crash after the model answered: the job
//! times out, is activated again and the model is asked again, exactly once more.

use baton_engine::runtime::{RecordValue, ValueType};
use baton_testing::ProcessTest;
use baton_testing::agent::recording::{CassetteMode, CassetteScript};
use baton_testing::agent::{Turn, Usage};
use baton_testing::faults::ModelFault;
use baton_testing::trace::TraceEvent;
use serde_json::json;

pub fn template_file() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates/ai-agent-faults/ai-agent-faults.bpmn")
        .display()
        .to_string()
}

fn template() -> ProcessTest {
    let t = ProcessTest::from_file(template_file()).unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": false}}));
    t.mock_job("email-send").complete();
    t.mock_job("sla-alert").complete();
    t
}

fn answer() -> Turn {
    Turn::respond_json(json!({"answer": "Order 1042 was delivered yesterday.", "resolved": true}))
}

fn turns() -> Vec<Turn> {
    vec![
        Turn::call("lookup-order", json!({"orderId": "1042"})),
        answer(),
    ]
}

fn start(t: &ProcessTest) -> baton_testing::Run {
    t.start(
        "ai-agent-faults",
        json!({"customerMessage": "Where is order 1042?", "customerEmail": "kim@example.com"}),
    )
}

/// The messages of the agent job's failures, in order.
fn agent_failures(t: &ProcessTest) -> Vec<String> {
    t.with_engine(|e| {
        e.records()
            .iter()
            .filter(|r| r.value_type == ValueType::Job && r.intent.to_string() == "FAILED")
            .filter_map(|r| match &r.value {
                RecordValue::Job(j) => Some(format!(
                    "retries {}, backoff {} ms: {}",
                    j.retries,
                    j.retry_backoff,
                    j.error_message.as_deref().unwrap_or_default()
                )),
                _ => None,
            })
            .collect()
    })
}

#[test]
fn a_rate_limit_fails_the_job_as_the_connector_does_and_the_retry_asks_the_model_again() {
    let t = template();
    let agent = t.mock_ai_agent("support-agent", turns());
    agent.inject_fault(ModelFault::rate_limit().at_call(1));
    let run = start(&t);
    insta::assert_snapshot!(agent_failures(&t).join("\n"), @r#"retries 2, backoff 10000 ms: Model call failed: {"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}} | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model call failed: {"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}, code=FAILED_MODEL_CALL}}"#);
    // The header's retry backoff (PT10S) passes; the job comes back and the model is asked
    // again, with the same request.
    t.advance_time("PT10S");
    run.assert_completed();
    let requests = agent.requests();
    assert_eq!(
        requests.len(),
        3,
        "the failed call, then the two of the script"
    );
    assert!(requests[0].fault.is_some() && requests[0].turn.is_none());
    assert_eq!(requests[0].user_prompt, requests[1].user_prompt);
    assert_eq!(requests[0].messages.len(), requests[1].messages.len());
    drop(requests);
    agent.assert_all_turns_used();
}

#[test]
fn a_refusal_and_a_timeout_fail_with_their_connector_errors() {
    let t = template();
    let agent = t.mock_ai_agent("support-agent", turns());
    agent.inject_fault(ModelFault::refusal().at_call(1));
    agent.inject_fault(ModelFault::timeout_after("PT1M").at_call(2));
    start(&t);
    t.advance_time("PT10S");
    // The second call hangs a minute before the HTTP client gives up.
    assert_eq!(agent_failures(&t).len(), 1);
    t.advance_time("PT1M");
    insta::assert_snapshot!(agent_failures(&t).join("\n"), @"
    retries 2, backoff 10000 ms: Model response was blocked by provider content filtering. | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model response was blocked by provider content filtering., code=MODEL_RESPONSE_CONTENT_FILTERED}}
    retries 1, backoff 10000 ms: Model call failed: java.net.http.HttpTimeoutException: request timed out | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model call failed: java.net.http.HttpTimeoutException: request timed out, code=FAILED_MODEL_CALL}}
    ");
}

#[test]
fn a_provider_error_fails_the_job_with_its_message_and_the_last_retry_is_an_incident() {
    let t = template();
    let agent = t.mock_ai_agent("support-agent", turns());
    for call in 1..=3 {
        agent.inject_fault(ModelFault::error("502 Bad Gateway").at_call(call));
    }
    let run = start(&t);
    t.advance_time("PT10S");
    t.advance_time("PT10S");
    // The element's three retries used up: JOB_NO_RETRIES with the connector's message.
    insta::assert_snapshot!(agent_failures(&t).join("\n"), @"
    retries 2, backoff 10000 ms: Model call failed: 502 Bad Gateway | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model call failed: 502 Bad Gateway, code=FAILED_MODEL_CALL}}
    retries 1, backoff 10000 ms: Model call failed: 502 Bad Gateway | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model call failed: 502 Bad Gateway, code=FAILED_MODEL_CALL}}
    retries 0, backoff 10000 ms: Model call failed: 502 Bad Gateway | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Model call failed: 502 Bad Gateway, code=FAILED_MODEL_CALL}}
    ");
    run.assert_has_incidents();
    assert_eq!(agent.requests().len(), 3);
}

#[test]
fn a_slow_model_lets_the_sla_timer_fire_and_the_process_still_completes() {
    // The connector's job timeout must outlast the model: with the default five minutes the job
    // would time out and be answered again meanwhile (see the next test).
    let t = template().job_timeout("PT30M");
    let agent = t.mock_ai_agent("support-agent", turns());
    agent.inject_fault(ModelFault::latency("PT20M").at_call(1));
    let alerts = t.job_mock("sla-alert").unwrap();
    let run = start(&t).clone();
    t.advance_time("PT15M");
    alerts.assert_called(1);
    run.assert_active();
    t.advance_time("PT5M");
    run.assert_completed().assert_passed_in_order([
        "sla-warning",
        "alert-sla",
        "lookup-order",
        "support-agent",
    ]);
    assert!(t.errors().is_empty(), "{:?}", t.errors());
}

/// The template with an SLA event sub-process: a timer start event after ten minutes, an
/// escalation job (`sla-escalate`), interrupting or not.
fn with_sla_event_sub_process(interrupting: bool) -> ProcessTest {
    let xml = std::fs::read_to_string(template_file()).unwrap();
    let event_sub_process = format!(
        r#"<bpmn:subProcess id="sla-escalation" triggeredByEvent="true">
      <bpmn:startEvent id="sla-passed" isInterrupting="{interrupting}">
        <bpmn:outgoing>esc-1</bpmn:outgoing>
        <bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT10M</bpmn:timeDuration></bpmn:timerEventDefinition>
      </bpmn:startEvent>
      <bpmn:sequenceFlow id="esc-1" sourceRef="sla-passed" targetRef="escalate" />
      <bpmn:serviceTask id="escalate">
        <bpmn:extensionElements><zeebe:taskDefinition type="sla-escalate" /></bpmn:extensionElements>
        <bpmn:incoming>esc-1</bpmn:incoming>
        <bpmn:outgoing>esc-2</bpmn:outgoing>
      </bpmn:serviceTask>
      <bpmn:sequenceFlow id="esc-2" sourceRef="escalate" targetRef="escalated" />
      <bpmn:endEvent id="escalated"><bpmn:incoming>esc-2</bpmn:incoming></bpmn:endEvent>
    </bpmn:subProcess>
  </bpmn:process>"#
    );
    let xml = xml.replacen("</bpmn:process>", &event_sub_process, 1);
    let t = ProcessTest::from_xml("ai-agent-faults.bpmn", &xml).unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": false}}));
    t.mock_job("email-send").complete();
    t.mock_job("sla-alert").complete();
    t
}

#[test]
fn a_slow_model_lets_an_sla_event_sub_process_fire_and_the_process_still_behaves() {
    // Non-interrupting: the escalation runs beside the agent, which answers after 20 minutes.
    let t = with_sla_event_sub_process(false).job_timeout("PT30M");
    let agent = t.mock_ai_agent("support-agent", turns());
    agent.inject_fault(ModelFault::latency("PT20M").at_call(1));
    let escalations = t.mock_job("sla-escalate").complete();
    let run = start(&t).clone();
    t.advance_time("PT10M");
    escalations.assert_called(1);
    run.assert_active();
    t.advance_time("PT10M");
    run.assert_completed()
        .assert_passed_in_order(["sla-passed", "escalate", "escalated"])
        .assert_passed_in_order(["sla-warning", "lookup-order", "support-agent"]);
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    // Interrupting: the escalation ends the agent; the slow answer arrives for a job that is
    // gone, and the engine rejects it (as Zeebe rejects completing a job of a terminated
    // element); the run ends by the event sub-process.
    let t = with_sla_event_sub_process(true).job_timeout("PT30M");
    let agent = t.mock_ai_agent("support-agent", turns());
    agent.inject_fault(ModelFault::latency("PT20M").at_call(1));
    t.mock_job("sla-escalate").complete();
    let run = start(&t).clone();
    t.advance_time("PT20M");
    run.assert_completed()
        .assert_passed_in_order(["sla-passed", "escalate", "escalated"])
        .assert_not_passed(["lookup-order", "sla-warning"]);
    assert_eq!(agent.requests().len(), 1);
    let late: Vec<String> = t
        .run_trace()
        .iter()
        .filter(|e| matches!(e.event, TraceEvent::LateAnswerRejected { .. }))
        .map(|e| e.event.to_string())
        .collect();
    insta::assert_snapshot!(late.join("\n"), @"the late answer at support-agent was rejected: Expected to complete job with key '2251799813685265', but no such job was found");
    assert!(t.errors().is_empty(), "{:?}", t.errors());
}

#[test]
fn a_model_slower_than_the_job_timeout_is_asked_twice() {
    let t = template();
    let agent = t.mock_ai_agent("support-agent", turns());
    agent.inject_fault(ModelFault::latency("PT20M").at_call(1));
    let run = start(&t);
    // Just past 5 minutes the job has timed out and is activated again: the model is asked
    // again (the second turn) and the agent completes before the SLA; the slow answer comes
    // too late, at 20 minutes. (A move of the clock fires what is due at its end, as Zeebe's:
    // one move of 20 minutes would fire the SLA timer with the timeout.)
    t.advance_time("PT5M1S");
    t.advance_time("PT14M59S");
    run.assert_completed()
        .assert_not_passed(["sla-warning", "lookup-order"]);
    assert_eq!(agent.requests().len(), 2);
    let late: Vec<String> = t
        .run_trace()
        .iter()
        .filter(|e| matches!(e.event, TraceEvent::LateAnswerRejected { .. }))
        .map(|e| e.event.to_string())
        .collect();
    insta::assert_snapshot!(late.join("\n"), @"the late answer at support-agent was rejected: Expected to complete job with key '2251799813685264', but no such job was found");
}

#[test]
fn a_turn_carries_its_latency() {
    let t = template().job_timeout("PT10M");
    let agent = t.mock_ai_agent(
        "support-agent",
        vec![
            Turn::call("lookup-order", json!({"orderId": "1042"})).with_latency("PT2M"),
            answer().with_usage(Usage::new(10, 5)).with_latency("PT30S"),
        ],
    );
    let run = start(&t);
    t.advance_time("PT2M");
    run.assert_active();
    t.advance_time("PT30S");
    run.assert_completed();
    assert_eq!(agent.requests().len(), 2);
    // The JSON form carries it as an ISO-8601 duration.
    let json = Turn::call("x", json!({})).with_latency("PT2M").to_json();
    assert_eq!(
        json,
        json!({"toolCalls": [{"name": "x"}], "latency": "PT2M"})
    );
    assert_eq!(
        Turn::from_json(&json, "turn")
            .unwrap()
            .latency()
            .unwrap()
            .as_secs(),
        120
    );
}

#[test]
fn a_connector_crash_after_the_answer_costs_exactly_one_extra_model_call() {
    let t = template().time_skipping(true);
    let agent = t.mock_ai_agent("support-agent", turns());
    agent.inject_fault(ModelFault::crash_after_answer().at_call(1));
    let lookups = t.job_mock("order-lookup").unwrap();
    let run = start(&t);
    // Time skipping jumps to the job timeout (5 minutes): the job is activated again.
    run.assert_completed();
    let requests = agent.requests();
    assert_eq!(
        requests.len(),
        3,
        "the crashed call, asked again, then the answer"
    );
    assert_eq!(
        (&requests[0].user_prompt, requests[0].messages.len()),
        (&requests[1].user_prompt, requests[1].messages.len()),
        "the same request again (only the user message's timestamp is later)"
    );
    assert_eq!(
        requests[0].turn, requests[1].turn,
        "answered with the same turn"
    );
    drop(requests);
    // The lost completion activated nothing: the tool ran once, and the agent called it once.
    lookups.assert_called(1);
    agent.assert_called_tools(["lookup-order"]);
    assert_eq!(
        agent.cassette().turns.len(),
        2,
        "the played turns, each once"
    );
    agent.assert_all_turns_used();
    let story: Vec<String> = t
        .run_trace()
        .iter()
        .filter(|e| {
            matches!(
                e.event,
                TraceEvent::ModelCall(_)
                    | TraceEvent::Fault { .. }
                    | TraceEvent::JobTimedOut { .. }
                    | TraceEvent::ClockMoved { .. }
                    | TraceEvent::ToolActivated { .. }
            )
        })
        .map(|e| e.event.to_string())
        .collect();
    insta::assert_snapshot!(story.join("\n"), @r#"
    fault at support-agent (activation 1): model call 1: the connector crashes after the model answered, before the job is completed
    model call 1 of support-agent: tool calls lookup-order
    fault at support-agent (activation 1): the worker crashed before it could complete with an ad-hoc result (the answer is lost)
    the clock moved to 2025-01-01T00:05:00.001Z (time skipping)
    the job at support-agent timed out: its worker did not answer in time, the job can be activated again
    model call 2 of support-agent: tool calls lookup-order
    tool lookup-order activated with {"orderId":"1042"}
    model call 3 of support-agent: a response
    "#);
}

/// Records the support agent's cassette at `path` from [`turns`] (with a connector crash after
/// model call 1 when `crash`); how often the model was asked.
pub fn record_cassette(path: &std::path::Path, crash: bool) -> u32 {
    let t = template().time_skipping(true);
    let mut turns = turns().into_iter();
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let counted = asked.clone();
    let agent = t.mock_ai_agent(
        "support-agent",
        CassetteScript::new(path)
            .mode(CassetteMode::Record)
            .record_with(move |_| {
                counted.set(counted.get() + 1);
                turns.next().expect("a turn left")
            }),
    );
    if crash {
        agent.inject_fault(ModelFault::crash_after_answer().at_call(1));
    }
    start(&t).assert_completed();
    agent.check_all_turns_used().unwrap();
    asked.get()
}

/// A cassette answers the repeated request after a connector crash with the entry that answered
/// the crashed call: the connector asks the model the same again (the job is activated again
/// with the variables it had), so the replay is not at the cassette's next call. Recorded with
/// the crash, the model is asked once for both (the cassette holds the calls the model
/// answered); recorded without it, the same cassette replays under the crash.
#[test]
fn a_cassette_answers_the_request_repeated_after_a_crash_with_the_same_entry() {
    let dir = crate::support::temp_dir("cassette-crash");
    let replay = |path: &std::path::Path| {
        let t = template().time_skipping(true);
        let agent = t.mock_ai_agent("support-agent", CassetteScript::new(path));
        agent.inject_fault(ModelFault::crash_after_answer().at_call(1));
        let lookups = t.job_mock("order-lookup").unwrap();
        start(&t).assert_completed();
        agent.check_all_turns_used().unwrap();
        lookups.assert_called(1);
        let requests = agent.requests();
        assert_eq!(requests.len(), 3, "exactly one extra model call");
        assert_eq!(requests[0].turn, requests[1].turn, "the same entry answers");
    };
    let plain = dir.join("plain.json");
    assert_eq!(record_cassette(&plain, false), 2);
    replay(&plain);
    let crashed = dir.join("crashed.json");
    assert_eq!(
        record_cassette(&crashed, true),
        2,
        "the model is asked once per call it answered"
    );
    let calls = |path: &std::path::Path| {
        let cassette: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        cassette["calls"].as_array().map(Vec::len)
    };
    assert_eq!(calls(&crashed), Some(2));
    replay(&crashed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_recorded_call_of_a_cassette_carries_its_latency() {
    let dir = crate::support::temp_dir("cassette-latency");
    let path = dir.join("support-agent.json");
    record_cassette(&path, false);
    let mut cassette: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    cassette["calls"][0]["turn"]["latency"] = json!("PT2M");
    std::fs::write(&path, cassette.to_string()).unwrap();
    let t = template().job_timeout("PT10M");
    let agent = t.mock_ai_agent("support-agent", CassetteScript::new(&path));
    let run = start(&t);
    t.advance_time("PT1M59S");
    run.assert_active().assert_not_passed(["lookup-order"]);
    t.advance_time("PT1S");
    run.assert_completed();
    agent.check_all_turns_used().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_fault_at_call_zero_is_refused() {
    let t = template();
    let agent = t.mock_ai_agent("support-agent", turns());
    let error = agent
        .try_inject_fault(ModelFault::rate_limit().at_call(0))
        .err()
        .unwrap();
    assert_eq!(error.to_string(), "model calls count from 1");
    // A duration that does not read is reported where the fault is injected, not by a panic
    // of the builder.
    let errors: Vec<String> = [
        ModelFault::latency("twenty minutes"),
        ModelFault::timeout_after("P1W"),
        ModelFault::latency("P400D").at_call(2),
    ]
    .into_iter()
    .map(|fault| agent.try_inject_fault(fault).err().unwrap().to_string())
    .collect();
    insta::assert_snapshot!(errors.join("\n"), @r#"
    the latency of a fault: "twenty minutes" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: expected to find duration beginning with `P` or `p`, but found `t` instead
    the timeout of a fault: "P1W" uses years, months or weeks; a duration of the clock is days, hours, minutes and seconds (e.g. P30D)
    a latency of P400D is more than a fault may have (at most 366 days)
    "#);
    // A turn's latency: `try_with_latency` returns what `with_latency` panics with, and a
    // latency over a fault's longest is refused with the script.
    let error = Turn::respond_text("x")
        .try_with_latency("soon")
        .unwrap_err()
        .to_string();
    let script = t
        .try_mock_ai_agent(
            "support-agent",
            [Turn::respond_text("x").with_latency(std::time::Duration::from_secs(400 * 86_400))],
        )
        .err()
        .unwrap()
        .to_string();
    insta::assert_snapshot!(format!("{error}\n{script}"), @r#"
    "soon" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: expected to find duration beginning with `P` or `p`, but found `s` instead
    invalid turn in the script:
      - turns[0].latency P400D is longer than a model may take (at most 366 days, as a fault's latency)
    "#);
    let error = Turn::from_json(&json!({"responseText": "x", "latency": "soon"}), "turns[0]")
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!(error, @r#"turns[0].latency "soon" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: expected to find duration beginning with `P` or `p`, but found `s` instead"#);
}

/// docs/faults.md's worked example, as written there: the ticket worker crashes after writing
/// the ticket, its retry writes a second one, and the at-most-once invariant names both; the
/// fix (the ticket system deduplicates the key) keeps one.
#[test]
fn the_worked_example_of_the_crash_after_the_ticket_was_created() {
    use baton_testing::faults::JobFault;
    use baton_testing::invariants::Invariant;
    use baton_testing::side_effects::DeclaredSideEffect;
    let example = |fixed: bool| {
        let test = ProcessTest::from_file(template_file())
            .unwrap()
            .time_skipping(true)
            .job_timeout("PT1M");
        test.mock_job("order-lookup")
            .complete_with(json!({"order": {"id": "1042", "damaged": true}}));
        let tickets = test.mock_job("ticket-create");
        let tickets = if fixed {
            tickets.side_effect(
                DeclaredSideEffect::keyed_by("summary")
                    .unwrap()
                    .deduplicated(),
            )
        } else {
            tickets.side_effect_keyed_by("summary")
        };
        tickets
            .fault(JobFault::crash_after_side_effect().times(1))
            .complete_with(json!({"ticketId": "T-77"}));
        test.mock_job("email-send").complete();
        test.mock_ai_agent(
            "support-agent",
            [
                Turn::call("lookup-order", json!({"orderId": "1042"})),
                Turn::call(
                    "open-ticket",
                    json!({"summary": "Order 1042 arrived damaged"}),
                ),
                Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
            ],
        );
        test.invariant(Invariant::at_most_once_per_key("ticket-create"))
            .invariant(Invariant::never_before("create-ticket", "approve-ticket"));
        let run = test.start(
            "ai-agent-faults",
            json!({"customerMessage": "My order 1042 arrived broken."}),
        );
        run.complete_user_task("approve-ticket", ());
        test
    };
    let broken = example(false).check_invariants().unwrap_err().to_string();
    insta::assert_snapshot!(broken, @r#"
    the invariant at most one side effect per idempotency key of "ticket-create" is broken: the key "Order 1042 arrived damaged" of ticket-create was acted on twice:
      1. side effect of ticket-create at create-ticket, key "Order 1042 arrived damaged" (job 2251799813685286, activation 1)
         then fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
         then the clock moved to 2025-01-01T00:01:00.001Z (time skipping)
         then the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
      2. side effect of ticket-create at create-ticket, key "Order 1042 arrived damaged" (job 2251799813685286, activation 2)
    It broke at event 20 (mock of job type "ticket-create" answered the job at "create-ticket": complete) at 2025-01-01T00:01:00.001Z.
    The run up to there:
        1. activated ai-agent-faults
        2. activated request-received
        3. completed request-received
        4. activated support-agent
        5. model call 1 of support-agent: tool calls lookup-order
        6. tool lookup-order activated with {"orderId":"1042"}
        7. completed lookup-order
        8. tool lookup-order returned {"id":"1042","damaged":true}
        9. model call 2 of support-agent: tool calls open-ticket
       10. tool open-ticket activated with {"summary":"Order 1042 arrived damaged"}
       11. activated ticket-requested
       12. completed ticket-requested
       13. activated approve-ticket
       14. completed approve-ticket
       15. activated create-ticket
       16. side effect of ticket-create at create-ticket, key "Order 1042 arrived damaged" (job 2251799813685286, activation 1)
       17. fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
       18. the clock moved to 2025-01-01T00:01:00.001Z (time skipping)
       19. the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
       20. side effect of ticket-create at create-ticket, key "Order 1042 arrived damaged" (job 2251799813685286, activation 2) <-
    "#);
    let fixed = example(true);
    fixed.check_invariants().unwrap();
    fixed.runs()[0].assert_completed();
    fixed.side_effects("ticket-create").assert_count(1);
}
