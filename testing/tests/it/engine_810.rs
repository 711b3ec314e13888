//! Camunda 8.10 engine rules as a test uses them: cluster variables (and
//! `camunda.processInstance.key`), process instance suspension, global user task listeners,
//! from Rust and from CPT JSON
//! (`fixtures/cpt/v810-engine`, baton's extension instructions for what CPT 8.10 has no
//! instruction for).

use std::path::{Path, PathBuf};

use baton_testing::{DEFAULT_TENANT, GlobalTaskListener, ProcessTest, RunState};
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shipping() -> ProcessTest {
    ProcessTest::from_file(root().join("fixtures/cpt/v810-engine/shipping.bpmn")).unwrap()
}

/// Cluster variables set per test (camunda/camunda ClusterVariableEvaluationContextTest: the
/// tenant's value wins in `env`, the global one is the fallback); the start event's output maps
/// `camunda.processInstance.key` (ProcessInstanceExpressionContextTest case 2).
#[test]
fn cluster_variables_are_set_per_test() {
    let test = shipping();
    test.set_cluster_variables(json!({"CARRIER": {"jobType": "book-dhl", "retries": 5}}));
    test.set_tenant_cluster_variables(DEFAULT_TENANT, json!({"REGION": "eu"}));
    let dhl = test.mock_job("book-dhl").complete();
    let run = test.start("shipping", ());
    dhl.assert_called(1);
    assert_eq!(dhl.invocations()[0].variables()["region"], json!("eu"));
    assert_eq!(
        run.variable("trackingRef"),
        Some(json!(run.key().to_string()))
    );
    run.assert_waiting_at(["delivered"]);

    // Another test of the same process sees none of them: the job type is null there.
    let other = shipping();
    let run = other.start("shipping", ());
    run.assert_has_incidents();
}

fn order_hold() -> ProcessTest {
    ProcessTest::from_file(root().join("fixtures/cpt/v810-engine/order-hold.bpmn")).unwrap()
}

/// A suspended run makes no progress: its job is parked (the mock answers it after the
/// resume), a timer that comes due waits, and the run is not active meanwhile (Camunda's search
/// filters a SUSPENDED instance out of ACTIVE). Sources: camunda/camunda
/// ProcessInstanceSuspendResumeTest, the ADRs 0008 (suspended job state) and 0009 (suspended
/// timer buffering).
#[test]
fn a_suspended_run_waits_until_it_is_resumed() {
    let test = order_hold();
    let run = test.start("order-hold", json!({"orderId": "A-1"}));
    run.suspend();
    let reserve = test.mock_job("reserve").complete();
    assert_eq!(run.state(), RunState::Suspended);
    run.assert_suspended().assert_waiting_at(["reserve"]);
    reserve.assert_called(0);
    let not_active = crate::support::panic_message(|| {
        run.assert_active();
    });
    assert!(not_active.contains("it is suspended"), "{not_active}");
    run.resume();
    reserve.assert_called(1);
    run.assert_active().assert_waiting_at(["cooling-off"]);

    run.suspend().advance_time("PT2H");
    run.assert_waiting_at(["cooling-off"]);
    run.resume().assert_waiting_at(["paid"]);
}

/// Global user task listeners of a test: they run before the task's own listeners, or after
/// them (`after_non_global`), and a mock of their job type answers them (camunda-docs
/// "Global user task listeners", Execution order).
#[test]
fn global_task_listeners_run_around_the_tasks_own_listeners() {
    let test = ProcessTest::from_file(root().join("fixtures/cpt/v810-engine/review.bpmn")).unwrap();
    let mut audit = GlobalTaskListener::new("audit", "audit", ["completing"]);
    audit.after_non_global = true;
    test.create_global_task_listener(audit);
    test.create_global_task_listener(GlobalTaskListener::new("precheck", "precheck", ["all"]));
    let order = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    for job_type in ["audit", "precheck", "check-approval"] {
        let seen = order.clone();
        test.mock_job(job_type).complete_with_fn(move |job| {
            seen.borrow_mut().push(job.job_type.clone());
            json!({})
        });
    }
    let run = test.start("review", ());
    run.complete_user_task("approve", ());
    run.assert_completed();
    assert_eq!(
        *order.borrow(),
        ["precheck", "precheck", "check-approval", "audit"],
        "creating: precheck; completing: precheck, the task's own, audit"
    );
    let duplicate = crate::support::panic_message(|| {
        test.create_global_task_listener(GlobalTaskListener::new("audit", "x", ["all"]));
    });
    assert_eq!(
        duplicate,
        "cannot create global task listener \"audit\": Expected a global USER_TASK listener with id 'audit' to not exist, but a listener with the same id was found"
    );
}
