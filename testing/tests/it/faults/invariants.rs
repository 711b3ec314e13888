//! Invariants in a process test: checked after every step, reported at the first step that
//! breaks one with the run explained up to there; how the run ends and what it reaches when the
//! test ends. And time skipping: the clock jumps when only time can make the run go on.

use baton_testing::ProcessTest;
use baton_testing::faults::{JobFault, Jobs};
use baton_testing::invariants::{EndState, Invariant};
use baton_testing::trace::{ClockCause, TraceEvent};
use serde_json::json;

use crate::support::{bpmn, panic_message};

fn ticket() -> ProcessTest {
    ProcessTest::from_file(bpmn("ticket.bpmn")).unwrap()
}

/// A process that creates the ticket before the approval: the bug "never before" is for.
const HASTY: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://baton.test/hasty">
  <bpmn:process id="hasty" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="create-ticket"/>
    <bpmn:serviceTask id="create-ticket">
      <bpmn:extensionElements><zeebe:taskDefinition type="ticket-create"/></bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="create-ticket" targetRef="approve"/>
    <bpmn:userTask id="approve"><bpmn:extensionElements><zeebe:userTask/></bpmn:extensionElements>
      <bpmn:incoming>f2</bpmn:incoming><bpmn:outgoing>f3</bpmn:outgoing></bpmn:userTask>
    <bpmn:sequenceFlow id="f3" sourceRef="approve" targetRef="end"/>
    <bpmn:endEvent id="end"><bpmn:incoming>f3</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>"#;

#[test]
fn never_before_is_reported_at_the_step_that_breaks_it() {
    let test = ProcessTest::from_xml("hasty.bpmn", HASTY).unwrap();
    test.mock_job("ticket-create").complete();
    test.invariant(Invariant::never_before("create-ticket", "approve"));
    let run = test.start("hasty", json!({"orderId": "1042"}));
    insta::assert_snapshot!(test.check_invariants().unwrap_err(), @r#"
    the invariant "create-ticket" never before "approve" completed is broken: "create-ticket" was activated before "approve" completed
    It broke at event 4 (the test's action) at 2025-01-01T00:00:00Z.
    The run up to there:
        1. activated hasty
        2. activated start
        3. completed start
        4. activated create-ticket <-
    "#);
    // Every assertion that fails prints it.
    let message = panic_message(|| {
        run.assert_completed();
    });
    assert!(message.contains("never before"), "{message}");
}

#[test]
fn the_guarded_process_keeps_never_before() {
    let test = ticket();
    test.mock_job("ticket-create").complete();
    test.mock_job("email-send").complete();
    test.invariant(Invariant::never_before("create-ticket", "approve"))
        .invariant(Invariant::no_incident())
        .invariant(Invariant::ends_in([EndState::Completed]))
        .invariant(Invariant::reaches("notify"));
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    run.assert_completed();
    test.check_invariants().unwrap();
}

#[test]
fn no_incident_and_a_condition_break_at_their_step() {
    let test = ticket();
    test.mock_job("ticket-create")
        .fault(JobFault::fail("503").with_retries(0))
        .complete();
    test.invariant(Invariant::no_incident_at("create-ticket"));
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    insta::assert_snapshot!(test.check_invariants().unwrap_err(), @r#"
    the invariant no incident at "create-ticket" is broken: an incident at "create-ticket" (JOB_NO_RETRIES): 503
    It broke at event 9 (mock of job type "ticket-create" answered the job at "create-ticket": fail "503") at 2025-01-01T00:00:00Z.
    The run up to there:
        1. activated ticket
        2. activated start
        3. completed start
        4. activated approve
        5. completed approve
        6. activated create-ticket
        7. fault at create-ticket (activation 1): fails "503" with 0 retries left
        8. the job at create-ticket failed (0 retries left): 503
        9. incident at create-ticket (JOB_NO_RETRIES): 503 <-
    "#);

    let test = ticket();
    test.invariant(Invariant::condition("attempts = null or attempts <= 2"));
    let run = test.start("ticket", json!({"orderId": "1042", "attempts": 1}));
    run.set_variables(json!({"attempts": 3}));
    insta::assert_snapshot!(test.check_invariants().unwrap_err(), @r#"
    the invariant always attempts = null or attempts <= 2 is broken: in the run of "ticket" it gives false; the variables are {"orderId":"1042","attempts":3}
    It broke after event 4 (the test's action) at 2025-01-01T00:00:00Z.
    The run up to there:
        1. activated ticket
        2. activated start
        3. completed start
        4. activated approve
    "#);

    // A null from values that do not compare is no unset variable: no hint to allow null.
    let test = ticket();
    test.invariant(Invariant::condition("orderId > 5"));
    test.start("ticket", json!({"orderId": "1042"}));
    let broken = test.check_invariants().unwrap_err().to_string();
    insta::assert_snapshot!(broken.lines().next().unwrap(), @r#"the invariant always orderId > 5 is broken: in the run of "ticket" it gives null ([NOT_COMPARABLE] Can't compare '"1042"' with '5'); the variables are {"orderId":"1042"}"#);
}

#[test]
fn how_the_run_ends_and_what_it_reaches_are_checked_when_the_test_ends() {
    let test = ticket();
    test.mock_job("ticket-create").complete();
    test.invariant(Invariant::ends_in([
        EndState::Completed,
        EndState::WaitingAt("manual".into()),
    ]))
    .invariant(Invariant::reaches("notify"));
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    // notify has no mock: the run waits there, which is none of the allowed ends.
    insta::assert_snapshot!(test.check_invariants().unwrap_err(), @r#"
    the invariant ends completed or waiting at "manual" is broken: the run of "ticket" ended active, waiting at "notify"
    It broke when the test ended.
    The run up to there:
        1. activated ticket
        2. activated start
        3. completed start
        4. activated approve
        5. completed approve
        6. activated create-ticket
        7. completed create-ticket
        8. activated notify
    "#);

    let test = ticket();
    test.invariant(Invariant::reaches("notify"));
    test.start("ticket", json!({"orderId": "1042"}));
    insta::assert_snapshot!(test.check_invariants().unwrap_err(), @r#"
    the invariant reaches "notify" is broken: the run of "ticket" never activated "notify"
    It broke when the test ended.
    The run up to there:
        1. activated ticket
        2. activated start
        3. completed start
        4. activated approve
    "#);
}

#[test]
fn a_test_dropped_with_a_broken_invariant_it_did_not_read_panics() {
    let message = panic_message(|| {
        let test = ProcessTest::from_xml("hasty.bpmn", HASTY).unwrap();
        test.mock_job("ticket-create").complete();
        test.invariant(Invariant::never_before("create-ticket", "approve"));
        test.start("hasty", ());
    });
    assert!(
        message.starts_with("the invariant \"create-ticket\" never before"),
        "{message}"
    );
}

#[test]
fn invariants_naming_what_no_process_has_are_refused() {
    let test = ticket();
    let errors: Vec<String> = [
        Invariant::never_before("create-tickt", "approve"),
        Invariant::at_most_once_per_key("tickets"),
        Invariant::condition("attempts <"),
        Invariant::ends_in([EndState::WaitingAt("manul".into())]),
    ]
    .into_iter()
    .map(|i| {
        test.try_invariant(i)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    })
    .collect();
    insta::assert_snapshot!(errors.join("\n"), @r#"
    the invariant "create-tickt" never before "approve" completed names the element "create-tickt", which no deployed process has (did you mean "create-ticket"?)
    the invariant at most one side effect per idempotency key of "tickets" names the job type "tickets", which no deployed process has (job types: ticket-create, sla-alert, email-send)
    the invariant condition attempts < is not valid FEEL: failed to parse expression 'attempts <': expected expression at 1:11, found end of input
    the invariant ends waiting at "manul" names the element "manul", which no deployed process has (did you mean "manual"?)
    "#);
}

#[test]
fn time_skipping_jumps_over_the_waits_of_faults_but_stops_for_the_test() {
    let test = ticket().time_skipping(true).job_timeout("PT30S");
    let tickets = test
        .mock_job("ticket-create")
        .fault(JobFault::no_answer().times(1))
        .fault(JobFault::fail("503").with_backoff("PT20S").times(1))
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("sla-alert").complete();
    test.mock_job("email-send").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    // The approval waits for the test: no skipping.
    run.assert_waiting_at(["approve"]);
    assert_eq!(test.now(), "2025-01-01T00:00:00Z");
    run.complete_user_task("approve", ());
    // No answer (timeout at 30.001 s), a failure with a 20 s backoff, then the answer: all
    // without one INCREASE_TIME; the SLA timer at one minute is not reached.
    run.assert_completed();
    tickets.assert_called(1);
    assert_eq!(test.now(), "2025-01-01T00:00:50.001Z");
    let jumps: Vec<String> = test
        .run_trace()
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::ClockMoved { cause, .. } => {
                assert_eq!(*cause, ClockCause::TimeSkipping);
                Some(e.event.to_string())
            }
            _ => None,
        })
        .collect();
    insta::assert_snapshot!(jumps.join("\n"), @"
    the clock moved to 2025-01-01T00:00:30.001Z (time skipping)
    the clock moved to 2025-01-01T00:00:50.001Z (time skipping)
    ");
}

#[test]
fn time_skipping_jumps_to_the_timers_and_answers_due_in_their_order() {
    let test = ticket().time_skipping(true).job_timeout("PT5M");
    test.mock_job("ticket-create")
        .fault(JobFault::latency("PT2M"))
        .complete_with(json!({"ticketId": "T-1"}));
    let alerts = test.mock_job("sla-alert").complete();
    test.mock_job("email-send").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    // The SLA timer (one minute) falls due first, then the slow answer (two minutes).
    run.assert_completed()
        .assert_passed_in_order(["sla", "sla-alert", "create-ticket", "notify"]);
    alerts.assert_called(1);
    let jumps: Vec<String> = test
        .run_trace()
        .iter()
        .filter(|e| matches!(e.event, TraceEvent::ClockMoved { .. }))
        .map(|e| e.event.to_string())
        .collect();
    insta::assert_snapshot!(jumps.join("\n"), @"
    the clock moved to 2025-01-01T00:01:00Z (time skipping)
    the clock moved to 2025-01-01T00:02:00Z (time skipping)
    ");
}

#[test]
fn time_skipping_is_off_by_default() {
    let test = ticket();
    test.inject_fault(
        Jobs::of_type("ticket-create"),
        JobFault::no_answer().times(1),
    );
    test.mock_job("ticket-create").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    run.assert_waiting_at(["create-ticket"]);
    assert_eq!(test.now(), "2025-01-01T00:00:00Z");
}

/// A task whose job waits out a timeout, watched by subscriptions that hold no token: a message
/// boundary event on the task, a non-interrupting message event sub-process, and (another
/// process) a signal start event. Beside it, a run whose token waits at an event-based gateway
/// where a message races a timer.
const WATCHED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://baton.test/watched">
  <bpmn:message id="m-cancel" name="cancel"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>
  <bpmn:message id="m-update" name="update"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>
  <bpmn:message id="m-reply" name="reply"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>
  <bpmn:signal id="s-go" name="go"/>
  <bpmn:process id="watched" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <bpmn:serviceTask id="work">
      <bpmn:extensionElements><zeebe:taskDefinition type="work"/></bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:boundaryEvent id="cancelled" attachedToRef="work"><bpmn:outgoing>f3</bpmn:outgoing><bpmn:messageEventDefinition messageRef="m-cancel"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="done"/>
    <bpmn:endEvent id="done"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="cancelled" targetRef="stopped"/>
    <bpmn:endEvent id="stopped"><bpmn:incoming>f3</bpmn:incoming></bpmn:endEvent>
    <bpmn:subProcess id="on-update" triggeredByEvent="true">
      <bpmn:startEvent id="updated" isInterrupting="false"><bpmn:outgoing>f4</bpmn:outgoing><bpmn:messageEventDefinition messageRef="m-update"/></bpmn:startEvent>
      <bpmn:sequenceFlow id="f4" sourceRef="updated" targetRef="noted"/>
      <bpmn:endEvent id="noted"><bpmn:incoming>f4</bpmn:incoming></bpmn:endEvent>
    </bpmn:subProcess>
  </bpmn:process>
  <bpmn:process id="signalled" isExecutable="true">
    <bpmn:startEvent id="go"><bpmn:outgoing>g1</bpmn:outgoing><bpmn:signalEventDefinition signalRef="s-go"/></bpmn:startEvent>
    <bpmn:sequenceFlow id="g1" sourceRef="go" targetRef="gone"/>
    <bpmn:endEvent id="gone"><bpmn:incoming>g1</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
  <bpmn:process id="racing" isExecutable="true">
    <bpmn:startEvent id="r-start"><bpmn:outgoing>r1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="r1" sourceRef="r-start" targetRef="wait"/>
    <bpmn:eventBasedGateway id="wait"><bpmn:incoming>r1</bpmn:incoming><bpmn:outgoing>r2</bpmn:outgoing><bpmn:outgoing>r3</bpmn:outgoing></bpmn:eventBasedGateway>
    <bpmn:sequenceFlow id="r2" sourceRef="wait" targetRef="replied"/>
    <bpmn:sequenceFlow id="r3" sourceRef="wait" targetRef="late"/>
    <bpmn:intermediateCatchEvent id="replied"><bpmn:incoming>r2</bpmn:incoming><bpmn:outgoing>r4</bpmn:outgoing><bpmn:messageEventDefinition messageRef="m-reply"/></bpmn:intermediateCatchEvent>
    <bpmn:intermediateCatchEvent id="late"><bpmn:incoming>r3</bpmn:incoming><bpmn:outgoing>r5</bpmn:outgoing><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="r4" sourceRef="replied" targetRef="r-end"/>
    <bpmn:sequenceFlow id="r5" sourceRef="late" targetRef="r-end"/>
    <bpmn:endEvent id="r-end"><bpmn:incoming>r4</bpmn:incoming><bpmn:incoming>r5</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>"#;

/// Temporal's time skipping jumps whenever the workflow is blocked on time; baton's stops where a
/// token waits for the test. A subscription that holds no token (a boundary event, an event
/// sub-process, a signal start event) is not such a wait: before, any open subscription stopped
/// time skipping, so a process with a message event sub-process never skipped.
#[test]
fn time_skipping_passes_subscriptions_that_hold_no_token_and_stops_where_a_token_waits() {
    let test = ProcessTest::from_xml("watched.bpmn", WATCHED)
        .unwrap()
        .time_skipping(true)
        .job_timeout("PT30S");
    test.mock_job("work")
        .fault(JobFault::no_answer().times(1))
        .complete();
    let run = test.start("watched", json!({"orderId": "1042"}));
    // The job's timeout (30.001 s) is skipped over: the message boundary event, the event
    // sub-process and the signal start event only might interrupt.
    run.assert_completed()
        .assert_passed_in_order(["work", "done"]);
    assert_eq!(test.now(), "2025-01-01T00:00:30.001Z");
    // The token at the gateway waits for the test: the message may come before the timer.
    let racing = test.start("racing", json!({"orderId": "7"}));
    racing.assert_waiting_at(["wait"]);
    assert_eq!(test.now(), "2025-01-01T00:00:30.001Z");
    test.advance_time("PT1H");
    racing
        .assert_completed()
        .assert_passed_in_order(["late", "r-end"]);
}
