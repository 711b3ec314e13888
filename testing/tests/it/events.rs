//! Messages, signals and the virtual clock through the test API.

use baton_testing::{Check, ProcessTest, PublishMessage, SubscriptionState};
use serde_json::json;

use crate::support::{bpmn, panic_message};

fn test() -> ProcessTest {
    let t = ProcessTest::new();
    t.deploy_file(bpmn("payment.bpmn")).unwrap();
    t.deploy_file(bpmn("reminders.bpmn")).unwrap();
    t
}

#[test]
fn a_run_correlates_the_message_it_waits_for() {
    let test = test();
    test.mock_job("confirm").complete();
    let run = test.start("payment", json!({"orderId": "o-1"}));
    run.assert_waiting_for_message("payment-received")
        .assert_waiting_at(["await-payment"]);
    run.correlate_message("payment-received", json!({"amount": 10}));
    run.assert_completed()
        .assert_message_correlated("payment-received")
        .assert_not_waiting_for_message("payment-received")
        .assert_passed_in_order(["await-payment", "confirm", "confirmed"])
        .assert_variables(json!({"amount": 10}));
}

#[test]
fn a_published_message_is_buffered_until_a_subscription_opens() {
    let test = test();
    test.publish(PublishMessage::new("payment-received", "o-2").time_to_live(60_000));
    let run = test.start("payment", json!({"orderId": "o-2"}));
    run.assert_waiting_at(["confirm"]);
}

#[test]
fn the_boundary_timer_fires_when_the_clock_passes_it() {
    let test = test();
    let cancel = test.mock_job("cancel").complete();
    let run = test.start("payment", json!({"orderId": "o-3"}));
    test.advance_time("PT59M");
    run.assert_waiting_at(["await-payment"]);
    assert_eq!(cancel.calls(), 0);
    run.advance_time("PT1M");
    run.assert_completed()
        .assert_terminated_elements(["await-payment"])
        .assert_passed(["payment-timeout", "cancel-order", "cancelled"])
        .assert_not_passed(["confirm"]);
}

#[test]
fn correlating_nothing_waiting_lists_the_subscriptions() {
    let test = test();
    test.start("payment", json!({"orderId": "o-4"}));
    let message = panic_message(|| {
        test.correlate_message("payment-received", "o-5", ());
    });
    insta::assert_snapshot!(message);
}

#[test]
fn a_run_that_waits_for_no_such_message_explains_itself() {
    let test = test();
    let run = test.start("payment", json!({"orderId": "o-6"}));
    let message = panic_message(|| {
        run.correlate_message("refund", ());
    });
    insta::assert_snapshot!(message);
    insta::assert_snapshot!(
        "subscription_failure",
        run.check(&Check::MessageSubscription {
            message_name: "refund".into(),
            correlation_key: None,
            state: SubscriptionState::Waiting,
        })
        .unwrap_err()
        .to_string()
    );
}

#[test]
fn a_clock_move_is_one_step_and_later_timers_count_from_the_new_time() {
    // As Zeebe under Camunda Process Test's increaseTime: the pinned clock fires what is due at
    // the new time, the mock answers then, and the timer after it counts from that time.
    let test = test().start_time("2026-01-01T09:00:00Z");
    let remind = test.mock_job("remind").complete();
    let run = test.start("reminders", ());
    run.advance_time("PT1H");
    run.assert_waiting_at(["wait-5m"])
        .assert_passed_in_order(["wait-10m", "remind-1"]);
    run.advance_time("PT5M");
    run.assert_completed()
        .assert_passed_in_order(["wait-10m", "remind-1", "wait-5m", "remind-2"]);
    let times: Vec<String> = remind.invocations().iter().map(|j| j.now_iso()).collect();
    assert_eq!(times, ["2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z"]);
    assert_eq!(test.now(), "2026-01-01T10:05:00Z");
}

#[test]
fn a_signal_reaches_the_waiting_catch_event() {
    let test = test();
    let run = test.start("reminders", ());
    insta::assert_snapshot!(run.explain());
    test.broadcast_signal("stop", json!({"reason": "done"}));
    run.assert_completed()
        .assert_passed(["wait-stop", "stopped"])
        .assert_terminated_elements(["wait-10m"]);
}
