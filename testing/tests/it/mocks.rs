//! Job mocks: answers, sequences, errors, failures, expectations, the element seam.

use baton_testing::{Answer, ErrorType, IncidentExpectation, ProcessTest, TestJob};
use serde_json::json;

use crate::support::{bpmn, panic_message};

fn order() -> ProcessTest {
    ProcessTest::from_file(bpmn("order.bpmn")).unwrap()
}

#[test]
fn failing_with_retries_ends_in_an_incident() {
    let test = order();
    let payment = test.mock_job("payment").fail("card declined");
    let run = test.start("order", ());
    payment.assert_called(3);
    run.assert_active()
        .assert_has_incidents()
        .assert_incident(
            IncidentExpectation::at("charge")
                .of_type(ErrorType::JobNoRetries)
                .message_contains("declined"),
        )
        .assert_failed_with("card declined");
}

#[test]
fn a_sequence_answers_in_order_and_repeats_the_last() {
    let test = order();
    let payment = test.mock_job("payment").answers([
        Answer::fail("timeout"),
        Answer::complete(json!({"paid": true})),
    ]);
    test.mock_job("shipping").complete();
    let run = test.start("order", ());
    run.assert_completed()
        .assert_variables(json!({"paid": true}));
    assert_eq!(payment.calls(), 2);
    assert_eq!(payment.invocations()[0].retries, 3);
    assert_eq!(payment.invocations()[1].retries, 2);
}

#[test]
fn a_strict_sequence_fails_the_run_when_it_runs_out() {
    let test = order();
    test.mock_job("payment")
        .answers_strict([Answer::fail("timeout").with_retries(1)]);
    let run = test.start("order", ());
    run.assert_failed_with("all 1 answer(s) are used");
    insta::assert_snapshot!(run.error().unwrap());
}

#[test]
fn fail_with_zero_retries_raises_an_incident_at_once_and_resolving_retries() {
    let test = order();
    let payment = test
        .mock_job("payment")
        .answers([Answer::fail("down").with_retries(0), Answer::complete(())]);
    let run = test.start("order", ());
    run.assert_has_incidents();
    assert_eq!(payment.calls(), 1);
    run.resolve_incident("charge");
    run.assert_no_incidents().assert_waiting_at(["ship"]);
    assert_eq!(payment.calls(), 2);
}

#[test]
fn a_backoff_delays_the_retry_until_the_clock_passes_it() {
    let test = order();
    let payment = test.mock_job("payment").answers([
        Answer::fail("busy").with_backoff(std::time::Duration::from_secs(60)),
        Answer::complete(()),
    ]);
    let run = test.start("order", ());
    assert_eq!(payment.calls(), 1);
    run.assert_waiting_at(["charge"]);
    test.advance_time("PT59S");
    assert_eq!(payment.calls(), 1);
    test.advance_time("PT1S");
    assert_eq!(payment.calls(), 2);
    run.assert_waiting_at(["ship"]);
}

#[test]
fn an_uncaught_bpmn_error_is_an_incident() {
    let test = order();
    test.mock_job("payment").throw_error("DECLINED", "no funds");
    let run = test.start("order", ());
    run.assert_incident(IncidentExpectation::any().of_type(ErrorType::UnhandledErrorEvent));
}

#[test]
fn a_mock_registered_later_answers_jobs_already_waiting() {
    let test = order();
    let run = test.start("order", ());
    run.assert_waiting_at(["charge"]);
    test.mock_job("payment").complete();
    run.assert_waiting_at(["ship"]);
}

#[test]
fn restore_makes_jobs_wait_again() {
    let test = order();
    let payment = test.mock_job("payment").complete();
    test.start("order", ()).assert_waiting_at(["ship"]);
    payment.restore();
    test.start("order", ()).assert_waiting_at(["charge"]);
    assert_eq!(payment.calls(), 1);
}

#[test]
fn a_later_mock_of_a_type_replaces_the_earlier_one() {
    let test = order();
    let first = test
        .mock_job("payment")
        .complete_with(json!({"by": "first"}));
    let second = test
        .mock_job("payment")
        .complete_with(json!({"by": "second"}));
    let run = test.start("order", ());
    run.assert_variables(json!({"by": "second"}));
    assert_eq!((first.calls(), second.calls()), (0, 1));
}

#[test]
fn a_closure_answer_sees_the_job() {
    let test = order();
    test.mock_job("payment").answer_with(|job: &TestJob| {
        if job.variable("amount").as_i64() > Some(100) {
            Answer::throw_error("TOO_MUCH", "over the limit")
        } else {
            Answer::complete(json!({"paid": job.variable("amount")}))
        }
    });
    test.start("order", json!({"amount": 5}))
        .assert_variables(json!({"paid": 5}));
    test.start("order", json!({"amount": 500}))
        .assert_has_incidents();
}

#[test]
fn expectations_are_checked_by_verify() {
    let test = order();
    test.mock_job("payment")
        .named("card payment")
        .expect(2)
        .complete();
    test.start("order", json!({"amount": 3}));
    let problems = test.verify().unwrap_err();
    insta::assert_snapshot!(problems);
    test.start("order", ());
    test.verify().unwrap();
}

#[test]
fn unmet_expectations_panic_when_the_test_is_dropped() {
    let message = panic_message(|| {
        let test = order();
        test.mock_job("payment").expect(1..).complete();
    });
    assert_eq!(
        message,
        "mock of job type \"payment\" was expected to be called at least 1 time(s), but was called 0 time(s)"
    );
}

#[test]
fn the_element_seam_answers_before_type_mocks_and_can_fail_the_run() {
    let test = order();
    test.mock_job("payment")
        .complete_with(json!({"by": "type"}));
    test.answer_jobs_of_element("charge", "AI agent mock \"charge\"", |_job: &TestJob| {
        Answer::fail_run("unknown tool \"refund\"")
    });
    let run = test.start("order", ());
    run.assert_waiting_at(["charge"]);
    assert_eq!(
        run.errors(),
        ["AI agent mock \"charge\": unknown tool \"refund\""]
    );
    test.stop_answering_jobs_of_element("charge");
}

#[test]
fn a_runaway_loop_of_answers_stops_with_a_message() {
    let test = order().answer_limit(5);
    test.mock_job("payment")
        .answer(Answer::fail("again").with_retries(3));
    let run = test.start("order", ());
    insta::assert_snapshot!(run.error().unwrap());
}

#[test]
fn manual_answers_use_the_same_forms() {
    let test = order();
    let run = test.start("order", ());
    run.fail_job("charge", "flaky");
    assert_eq!(run.jobs()[0].retries, 2);
    run.answer_job("payment", Answer::complete(json!({"x": 1})));
    run.throw_error("ship", "NOPE", "no carrier");
    run.assert_incident(IncidentExpectation::at("ship").message_contains("NOPE"));
}
