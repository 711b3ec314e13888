//! Zeebe 8.9 rules written down as CPT JSON files under `fixtures/cpt/fidelity`, one folder per
//! rule (each folder is one deployment). Every case says in its `description` which Camunda doc
//! page and which Zeebe engine class and test it follows; every case must pass.

use std::path::{Path, PathBuf};

use baton_testing::cpt::{self, Options};

fn folder(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/cpt/fidelity")
        .join(name)
}

/// Runs the folder and fails with every failing case explained; `cases` is the number of test
/// cases the folder holds (a case that silently disappears is a failure too).
fn passes(name: &str, cases: usize) {
    let report = cpt::run(&[folder(name)], &Options::default()).unwrap();
    assert_eq!(report.cases.len(), cases, "test cases in {name}");
    report.assert_success();
}

/// Execution listeners after an incident: an expression failure re-runs the listeners of the
/// event type, a job failure does not (execution-listeners doc, "Incident recovery").
#[test]
fn execution_listeners_run_again_after_an_incident() {
    passes("execution-listener-incidents", 11);
}

/// User task listeners: the trigger table of the user-task-listeners doc.
#[test]
fn user_task_listeners_follow_the_trigger_table() {
    passes("user-task-listeners", 6);
}

/// Expressions evaluated to a typed value: the result types Zeebe's ExpressionProcessor takes
/// for timers, dates, numbers, lists and strings, and the incidents for the others.
#[test]
fn typed_expressions_take_the_result_types_zeebe_takes() {
    passes("typed-expressions", 29);
}

/// A timer start event's date expression is evaluated when the process is deployed (alone in
/// its folder: a deployment that fails would fail every case beside it).
#[test]
fn a_timer_start_event_takes_a_date_time_value() {
    passes("timer-start-expression", 1);
}

/// An event sub-process inside an ad-hoc sub-process: its result joins the output collection,
/// which the AI agent reads as an event, in both event behaviours of the connector.
#[test]
fn event_sub_processes_inside_an_ad_hoc_sub_process_are_reported() {
    passes("agent-event-sub-process", 3);
}
