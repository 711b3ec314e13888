//! Tool faults in Rust: fail (retries, backoff, incident at 0), BPMN error, no answer (job
//! timeout, re-activation, same key), latency, crash after the side effect; side effects and the
//! ledger; the at-most-once invariant catching a worker that is not idempotent.
//!
//! Zeebe's rules these follow (camunda/camunda, zeebe/engine/.../processing/job/):
//! - JobFailProcessor: the retries sent are the retries left; retries > 0 with a backoff keep the
//!   job FAILED until `RECURRED_AFTER_BACKOFF` (DbJobState.findBackedOffJobs: `deadline <= now`);
//!   at 0 retries an incident JOB_NO_RETRIES with the failure's message (FailJobTest).
//! - JobTimeoutCheckScheduler / DbJobState.forEachTimedOutEntry: an activated job times out once
//!   the clock is past its deadline (`deadline < now`), `TIMED_OUT` keeps its key and retries and
//!   makes it activatable again (JobTimeOutTest.shouldTimeOutJob).
//! - BpmnJobActivationBehavior.publishWork: a worker's stream gets one job pushed, a JOB_BATCH
//!   ACTIVATED of that job, deadline now + the stream's timeout.

use baton_engine::runtime::{Intent, OtherIntent, RecordValue, ValueType};
use baton_testing::faults::{JobFault, Jobs};
use baton_testing::invariants::Invariant;
use baton_testing::side_effects::{DeclaredSideEffect, SideEffectExpectation};
use baton_testing::trace::TraceEvent;
use baton_testing::{ErrorType, IncidentExpectation, ProcessTest};
use serde_json::json;

use crate::support::bpmn;

fn ticket() -> ProcessTest {
    ProcessTest::from_file(bpmn("ticket.bpmn")).unwrap()
}

/// The JOB records of a job type's jobs, as intents in order.
fn job_intents(test: &ProcessTest, job_type: &str) -> Vec<String> {
    test.with_engine(|e| {
        e.records()
            .iter()
            .filter(|r| r.value_type == ValueType::Job || r.value_type == ValueType::JobBatch)
            .filter_map(|r| match &r.value {
                RecordValue::Job(j) if &*j.job_type == job_type => Some(r.intent.to_string()),
                RecordValue::JobBatch { job_type: t, .. } if &**t == job_type => {
                    Some(format!("BATCH_{}", r.intent))
                }
                _ => None,
            })
            .collect()
    })
}

#[test]
fn failures_use_up_the_retries_with_their_backoff_then_the_worker_completes() {
    let test = ticket();
    let tickets = test
        .mock_job("ticket-create")
        .fault(
            JobFault::fail("503 from the ticket system")
                .with_backoff("PT10S")
                .times(2),
        )
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("email-send").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    // The first failure leaves 2 retries and waits out its backoff.
    assert_eq!(job_intents(&test, "ticket-create"), ["CREATED", "FAILED"]);
    run.assert_active();
    test.advance_time("PT9.999S");
    assert_eq!(job_intents(&test, "ticket-create"), ["CREATED", "FAILED"]);
    test.advance_time("PT0.001S");
    assert_eq!(
        job_intents(&test, "ticket-create"),
        ["CREATED", "FAILED", "RECURRED_AFTER_BACKOFF", "FAILED"]
    );
    test.advance_time("PT10S");
    run.assert_completed();
    assert_eq!(
        job_intents(&test, "ticket-create"),
        [
            "CREATED",
            "FAILED",
            "RECURRED_AFTER_BACKOFF",
            "FAILED",
            "RECURRED_AFTER_BACKOFF",
            "COMPLETED"
        ]
    );
    // The faults answered the first two activations: the mock was asked once.
    tickets.assert_called(1);
    let retries: Vec<i32> = test
        .run_trace()
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::JobFailed { retries, .. } => Some(*retries),
            _ => None,
        })
        .collect();
    assert_eq!(retries, [2, 1]);
}

#[test]
fn failing_every_activation_ends_in_an_incident_at_zero_retries() {
    let test = ticket();
    test.mock_job("ticket-create")
        .fault(JobFault::fail("503 from the ticket system"))
        .complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    run.assert_incident(
        IncidentExpectation::at("create-ticket")
            .of_type(ErrorType::JobNoRetries)
            .message_contains("503"),
    );
    assert_eq!(
        job_intents(&test, "ticket-create"),
        ["CREATED", "FAILED", "FAILED", "FAILED"]
    );
}

#[test]
fn a_bpmn_error_fault_goes_to_the_error_boundary() {
    let test = ticket();
    test.inject_fault(
        Jobs::at_element("create-ticket"),
        JobFault::throw_error("TICKET_REJECTED", "the ticket system refused").times(1),
    );
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    run.assert_waiting_at(["manual"])
        .assert_terminated_elements(["create-ticket"]);
    // Without a mock the fault is the worker; its activations used, the next job waits.
}

#[test]
fn a_worker_that_never_answers_loses_the_job_to_the_timeout_and_a_worker_takes_it_again() {
    let test = ticket().job_timeout("PT30S");
    let tickets = test
        .mock_job("ticket-create")
        .fault(JobFault::no_answer().times(1))
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("email-send").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    let job = run.jobs()[0].clone();
    assert_eq!(job.deadline, Some(test.with_engine(|e| e.now()) + 30_000));
    // At the deadline the job is still the worker's; past it, it times out.
    test.advance_time("PT30S");
    run.assert_waiting_at(["create-ticket"]);
    tickets.assert_called(0);
    test.advance_time("PT0.001S");
    run.assert_completed();
    tickets.assert_called(1);
    assert_eq!(
        tickets.invocations()[0].key,
        job.key,
        "same key after the timeout"
    );
    assert_eq!(
        job_intents(&test, "ticket-create"),
        ["CREATED", "BATCH_ACTIVATED", "TIMED_OUT", "COMPLETED"]
    );
}

#[test]
fn a_late_answer_arrives_after_the_timers_that_fall_due_before_it() {
    let test = ticket();
    test.mock_job("ticket-create")
        .fault(JobFault::latency("PT2M"))
        .complete_with(json!({"ticketId": "T-1"}));
    let alerts = test.mock_job("sla-alert").complete();
    test.mock_job("email-send").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    test.advance_time("PT1M59S");
    // The SLA timer (one minute) fired while the worker was busy.
    alerts.assert_called(1);
    run.assert_waiting_at(["create-ticket"]);
    test.advance_time("PT1S");
    run.assert_completed().assert_passed_in_order([
        "sla",
        "sla-alert",
        "create-ticket",
        "notify",
        "done",
    ]);
}

/// Zeebe accepts an answer for a job that timed out as long as the job is there
/// (`JobCompleteProcessor`: activatable or activated): the slow worker's answer completes it,
/// and only the answer of the worker that took it again finds no job.
#[test]
fn a_late_answer_to_a_job_that_timed_out_still_completes_it() {
    let test = ticket().job_timeout("PT1M");
    test.mock_job("ticket-create")
        .fault(JobFault::latency("PT3M"))
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("sla-alert").complete();
    test.mock_job("email-send").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    // The job times out after a minute and the worker takes it again (and again at 2m30s).
    test.advance_time("PT90S");
    run.assert_waiting_at(["create-ticket"]);
    // The first activation's answer, two minutes after its job timed out, completes it.
    test.advance_time("PT90S");
    run.assert_completed();
    assert_eq!(
        job_intents(&test, "ticket-create"),
        [
            "CREATED",
            "BATCH_ACTIVATED",
            "TIMED_OUT",
            "BATCH_ACTIVATED",
            "TIMED_OUT",
            "BATCH_ACTIVATED",
            "COMPLETED"
        ]
    );
    // The answers of the second and third activations find no job.
    test.advance_time("PT3M");
    let late: Vec<String> = test
        .run_trace()
        .iter()
        .filter(|e| matches!(e.event, TraceEvent::LateAnswerRejected { .. }))
        .map(|e| e.event.to_string())
        .collect();
    insta::assert_snapshot!(late.join("\n"), @r"
    the late answer at create-ticket was rejected: Expected to complete job with key '2251799813685261', but no such job was found
    the late answer at create-ticket was rejected: Expected to complete job with key '2251799813685261', but no such job was found
    ");
    assert!(test.errors().is_empty(), "{:?}", test.errors());
}

#[test]
fn a_latency_longer_than_the_job_timeout_lets_a_second_activation_complete_first() {
    let test = ticket().job_timeout("PT1M");
    test.mock_job("ticket-create")
        .fault(JobFault::latency("PT3M").times(1))
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("sla-alert").complete();
    test.mock_job("email-send").complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    test.advance_time("PT5M");
    run.assert_completed();
    let late: Vec<String> = test
        .run_trace()
        .iter()
        .filter(|e| matches!(e.event, TraceEvent::LateAnswerRejected { .. }))
        .map(|e| e.event.to_string())
        .collect();
    insta::assert_snapshot!(late.join("\n"), @"the late answer at create-ticket was rejected: Expected to complete job with key '2251799813685261', but no such job was found");
    assert!(test.errors().is_empty(), "{:?}", test.errors());
}

#[test]
fn a_crash_after_the_side_effect_repeats_it_and_the_at_most_once_invariant_names_both() {
    let test = ticket().job_timeout("PT30S");
    test.mock_job("ticket-create")
        .side_effect_keyed_by("summary")
        .fault(JobFault::crash_after_side_effect().times(1))
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("email-send").complete();
    test.invariant(Invariant::at_most_once_per_key("ticket-create"));
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    // Just past the job timeout (30 s), before the SLA timer (1 min): the clock moves in
    // one step, as Zeebe's, so a move past both would fire the SLA before the worker answers.
    test.advance_time("PT31S");
    run.assert_completed();
    assert_eq!(test.ledger().entries().len(), 2);
    let broken = test.check_invariants().unwrap_err();
    insta::assert_snapshot!(broken, @r#"
    the invariant at most one side effect per idempotency key of "ticket-create" is broken: the key "1042" of ticket-create was acted on twice:
      1. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1)
         then fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
         then the clock moved to 2025-01-01T00:00:31Z
         then the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
      2. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 2)
    It broke at event 11 (mock of job type "ticket-create" answered the job at "create-ticket": complete) at 2025-01-01T00:00:31Z.
    The run up to there:
        1. activated ticket
        2. activated start
        3. completed start
        4. activated approve
        5. completed approve
        6. activated create-ticket
        7. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1)
        8. fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
        9. the clock moved to 2025-01-01T00:00:31Z
       10. the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
       11. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 2) <-
    "#);
    // The test's own expectation, after the fact, says the same.
    let message = crate::support::panic_message(|| {
        test.side_effects("ticket-create")
            .assert_at_most_once_per_key();
    });
    insta::assert_snapshot!(message, @r#"
    expected at most one side effect of "ticket-create" per idempotency key, but the key "1042" was acted on 2 times:
      1. key "1042" at create-ticket (job 2251799813685261, activation 1, run 1) at 2025-01-01T00:00:00Z
      2. key "1042" at create-ticket (job 2251799813685261, activation 2, run 1) at 2025-01-01T00:00:31Z
    "#);
}

#[test]
fn an_outside_world_that_deduplicates_keys_keeps_one_side_effect_across_the_crash() {
    let test = ticket().job_timeout("PT30S");
    test.mock_job("ticket-create")
        .side_effect(
            DeclaredSideEffect::keyed_by("summary")
                .unwrap()
                .deduplicated(),
        )
        .fault(JobFault::crash_after_side_effect().times(1))
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("email-send").complete();
    test.invariant(Invariant::at_most_once_per_key("ticket-create"));
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    // Just past the job timeout (30 s), before the SLA timer (1 min): the clock moves in
    // one step, as Zeebe's, so a move past both would fire the SLA before the worker answers.
    test.advance_time("PT31S");
    run.assert_completed();
    test.side_effects("ticket-create")
        .assert_count(1)
        .assert_at_most_once_per_key()
        .assert_none_before("approve");
    test.check_invariants().unwrap();
    let effects: Vec<String> = test
        .run_trace()
        .iter()
        .filter(|e| {
            matches!(
                e.event,
                TraceEvent::SideEffect(_)
                    | TraceEvent::Fault { .. }
                    | TraceEvent::JobTimedOut { .. }
            )
        })
        .map(|e| e.event.to_string())
        .collect();
    insta::assert_snapshot!(effects.join("\n"), @r#"
    side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1)
    fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
    the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
    side effect of ticket-create at create-ticket, key "1042" seen before: nothing done (job 2251799813685261, activation 2)
    "#);
}

#[test]
fn the_job_key_as_the_idempotency_key_stays_across_the_re_activation() {
    // A timed-out job is activated again with its key (JobTimeOutTest.shouldTimeOutJob): the
    // retry of a worker keyed by the job key sends the same key, so the at-most-once invariant
    // sees both requests as one key's (a ticket system that deduplicates would keep one).
    let test = ticket().job_timeout("PT30S");
    test.mock_job("ticket-create")
        .side_effect(DeclaredSideEffect::keyed_by_job_key())
        .fault(JobFault::crash_after_side_effect().times(1))
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("email-send").complete();
    test.invariant(Invariant::at_most_once_per_key("ticket-create"));
    test.start("ticket", json!({"orderId": "1042"}))
        .complete_user_task("approve", ());
    test.advance_time("PT31S");
    let broken = test.check_invariants().unwrap_err().to_string();
    let head: Vec<&str> = broken.lines().take(6).collect();
    insta::assert_snapshot!(head.join("\n"), @r#"
    the invariant at most one side effect per idempotency key of "ticket-create" is broken: the key "2251799813685261" of ticket-create was acted on twice:
      1. side effect of ticket-create at create-ticket, key "2251799813685261" (job 2251799813685261, activation 1)
         then fault at create-ticket (activation 1): the worker crashed before it could complete (the answer is lost)
         then the clock moved to 2025-01-01T00:00:31Z
         then the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
      2. side effect of ticket-create at create-ticket, key "2251799813685261" (job 2251799813685261, activation 2)
    "#);
}

#[test]
fn bad_faults_are_refused_before_the_run() {
    let test = ticket();
    let errors: Vec<String> = [
        test.try_inject_fault(Jobs::of_type("ticket-creat"), JobFault::no_answer())
            .err()
            .map(|e| e.to_string()),
        test.try_inject_fault(Jobs::at_element("nowhere"), JobFault::no_answer())
            .err()
            .map(|e| e.to_string()),
        test.try_inject_fault(
            Jobs::of_type("ticket-create"),
            JobFault::no_answer().times(0),
        )
        .err()
        .map(|e| e.to_string()),
        test.try_declare_side_effect(
            Jobs::of_type("tickets"),
            DeclaredSideEffect::keyed_by_job_key(),
        )
        .err()
        .map(|e| e.to_string()),
        DeclaredSideEffect::keyed_by("summary +")
            .err()
            .map(|e| e.to_string()),
        test.try_inject_fault(Jobs::of_type("ticket-create"), JobFault::latency("P400D"))
            .err()
            .map(|e| e.to_string()),
        test.try_inject_fault(
            Jobs::of_type("ticket-create"),
            JobFault::fail("x").with_retries(-1),
        )
        .err()
        .map(|e| e.to_string()),
        // The builders keep what they cannot take: `try_inject_fault` returns it, no panic.
        test.try_inject_fault(Jobs::of_type("ticket-create"), JobFault::latency("soon"))
            .err()
            .map(|e| e.to_string()),
        test.try_inject_fault(
            Jobs::of_type("ticket-create"),
            JobFault::fail("x").with_backoff("P1Y"),
        )
        .err()
        .map(|e| e.to_string()),
        test.try_inject_fault(
            Jobs::of_type("ticket-create"),
            JobFault::no_answer().job_timeout("PT99999999999999999999H"),
        )
        .err()
        .map(|e| e.to_string()),
        test.try_inject_fault(
            Jobs::of_type("ticket-create"),
            JobFault::latency(std::time::Duration::MAX),
        )
        .err()
        .map(|e| e.to_string()),
        test.try_inject_fault(
            Jobs::of_type("ticket-create"),
            JobFault::no_answer().with_retries(1).with_backoff("PT1S"),
        )
        .err()
        .map(|e| e.to_string()),
        test.try_inject_fault(
            Jobs::of_type("ticket-create"),
            JobFault::throw_error("E", "x").with_variables(json!([1, 2])),
        )
        .err()
        .map(|e| e.to_string()),
    ]
    .into_iter()
    .map(|e| e.unwrap_or_else(|| "accepted".into()))
    .collect();
    insta::assert_snapshot!(errors.join("\n"), @r#"
    cannot inject a fault into the jobs of type "ticket-creat": no deployed process has the job type "ticket-creat" (did you mean "ticket-create"?)
    cannot inject a fault into the jobs of "nowhere": no deployed process has the element "nowhere"
    a fault for 0 activations injects nothing: give 1 or more, or leave the count out for all
    cannot declare a side effect of the jobs of type "tickets": no deployed process has the job type "tickets"
    the idempotency key summary + is not valid FEEL: failed to parse expression 'summary +': expected expression at 1:10, found end of input
    a latency of P400D is more than a fault may have (at most 366 days)
    a failure cannot leave -1 retries (0 or more)
    the latency of a fault: "soon" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: expected to find duration beginning with `P` or `p`, but found `s` instead
    the retry backoff of a fault: "P1Y" uses years, months or weeks; a duration of the clock is days, hours, minutes and seconds (e.g. P30D)
    the job timeout of a fault: "PT99999999999999999999H" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: number too big to parse into 64-bit integer
    the latency of a fault: a duration of 18446744073709551615 s is longer than the engine clock can count
    with_retries applies to JobFault::fail, not to a fault that takes the job and never answers
    the variables of a fault: variables must be a JSON object, got [1,2]
    "#);
}

/// A side-effect assertion on a job type or element no deployed process has says so, instead
/// of "received 0" or "one happened before it".
#[test]
fn side_effect_assertions_name_what_no_process_has() {
    let test = ticket();
    test.mock_job("ticket-create")
        .side_effect(DeclaredSideEffect::keyed_by_job_key())
        .complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    let errors: Vec<String> = [
        test.side_effects("ticket-creat")
            .check(&SideEffectExpectation::of("ticket-creat").count(1)),
        test.side_effects("ticket-create")
            .check(&SideEffectExpectation::of("ticket-create").none_before("aprove")),
        test.side_effects("ticket-create").check(
            &SideEffectExpectation::of("ticket-create")
                .count(1)
                .none_before("approve"),
        ),
    ]
    .into_iter()
    .map(|r| {
        r.err()
            .map_or_else(|| "holds".to_string(), |e| e.to_string())
    })
    .collect();
    insta::assert_snapshot!(errors.join("\n"), @r#"
    cannot check the side effects of "ticket-creat": no deployed process has the job type "ticket-creat" (did you mean "ticket-create"?)
    cannot check the side effects of "ticket-create": no deployed process has the element "aprove" (did you mean "approve"?)
    holds
    "#);
}

#[test]
fn a_key_expression_that_fails_fails_the_run_naming_the_job() {
    let test = ticket();
    test.mock_job("ticket-create")
        .side_effect_keyed_by("customer.id")
        .complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    insta::assert_snapshot!(run.errors().join("\n"), @r#"mock of job type "ticket-create": the idempotency key customer.id of the side effect of "ticket-create" fails for the job at "create-ticket": it gives null ([NO_VARIABLE_FOUND] No variable found with name 'customer') ([NO_CONTEXT_ENTRY_FOUND] No context entry found with key 'id'. The context is null)"#);
}

#[test]
fn the_job_batch_of_a_held_job_names_the_job_alone() {
    let test = ticket();
    test.mock_job("ticket-create")
        .fault(JobFault::no_answer())
        .complete();
    let run = test.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    let job = run.jobs()[0].key;
    let batch = test.with_engine(|e| {
        e.records()
            .iter()
            .rev()
            .find(|r| r.intent == Intent::Other(OtherIntent::Activated))
            .map(|r| match &r.value {
                RecordValue::JobBatch {
                    job_keys,
                    timeout,
                    worker,
                    ..
                } => (job_keys.to_vec(), *timeout, worker.to_string()),
                _ => unreachable!(),
            })
    });
    assert_eq!(batch, Some((vec![job], 300_000, "baton".to_string())));
}
