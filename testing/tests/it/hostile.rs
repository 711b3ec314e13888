//! Hostile inputs end cleanly: each stops at a limit, or does bounded work, and says so. The
//! work is bounded by limits and counts, never by a timer. (`baton test` on hostile cases:
//! baton-cli's tests.)

use std::path::{Path, PathBuf};

use baton_testing::{Answer, Deployment, ProcessTest};
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn start_events() -> ProcessTest {
    ProcessTest::from_file(root().join("fixtures/bpmn/accept/start-events.bpmn")).unwrap()
}

#[test]
fn a_century_at_once_fires_each_start_timer_once() {
    let test = start_events();
    let handle = test.mock_job("handle").complete();
    test.advance_time("P36500D");
    // The daily cycle, the weekday cron and the new-year date: one instance each, as Zeebe's
    // due-date checker fires each overdue timer once and re-anchors a cycle after the new time.
    assert_eq!(handle.calls(), 3);
    assert_eq!(test.errors(), []);
    test.advance_time("P1D");
    // A day later the daily cycle fires again, and so does the weekday cron (a weekday).
    assert_eq!(handle.calls(), 5);
}

#[test]
fn a_clock_move_past_the_end_of_the_clock_is_a_run_error() {
    let test = start_events();
    test.mock_job("handle").complete();
    test.advance_time("P7000000D");
    let errors: Vec<String> = test.errors().into_iter().map(|e| e.message).collect();
    insta::assert_snapshot!(errors.join("\n"), @"moving the clock: 606535689600000 ms after 1970 is outside the times the engine clock can show (1970-01-01T00:00:00Z to 9999-12-30T22:00:00Z)");
}

#[test]
fn a_mock_that_always_fails_with_retries_left_stops_after_a_hundred_failures() {
    let test = start_events();
    // A large nested document per failure made each answer slow: the stop comes after 100.
    let document =
        json!({"rows": (0..200).map(|i| json!({"i": i, "tags": ["a", "b"]})).collect::<Vec<_>>()});
    let handle = test.mock_job("handle").answer(
        Answer::fail("the service is down")
            .with_retries(1)
            .with_variables(document),
    );
    let run = test.start("start-events", ());
    assert_eq!(handle.calls(), 101);
    insta::assert_snapshot!(run.errors().join("\n"), @r#"stopped after failing the job of type "handle" at "handle" 100 times in a row ("the service is down"): each failure left it retries and no backoff, so the job came straight back and the process makes no progress. Let the failures use up the retries (the job then raises an incident), give them a backoff, or change the mock's answers."#);
}

#[test]
fn the_absence_request_boundary_cycle_fires_once_when_the_clock_moves_to_its_end() {
    let Some(shared) = crate::support::shared_corpus() else {
        println!("skipped: the shared corpus is not here");
        return;
    };
    let dir = shared.join("cpt/cases/tut-absence-request");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "json"))
        .collect();
    let mut deployment = Deployment::new();
    deployment.add_files(&files).unwrap();
    let test = deployment.test();
    let run = test.start(
        "absence-request-process-10w7pa5-16gc7a1",
        json!({"employeeName": "Alice", "department": "sales", "policy": "flexibleTimeOff",
               "absenceStartDate": "2025-06-01", "absenceEndDate": "2025-06-05"}),
    );
    run.complete_user_task("RequestAbsenceTask", ());
    run.assert_waiting_at(["ApproveAbsenceTask"]);
    test.set_time("9999-12-30T22:00:00Z");
    assert_eq!(test.errors(), []);
    // The R/P2D reminder fired once; its next time would be past the end of the clock.
    let reminders = run
        .entered_elements()
        .into_iter()
        .filter(|id| id == "Event_0z73nuo")
        .count();
    assert_eq!(reminders, 1, "{}", run.explain());
}
