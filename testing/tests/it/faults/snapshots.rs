//! Restart from persisted state: a snapshot saved at a wait point (as a value and as a file),
//! restored into a new test with fresh mocks and the same side-effect ledger; the records of the
//! restored run are those of the uninterrupted one. Seed 002's two-run recovery: the first run
//! crashes after its side effect, the second starts from the persisted state, and the assertion
//! is on the combined result.

use baton_testing::ProcessTest;
use baton_testing::faults::JobFault;
use baton_testing::invariants::Invariant;
use baton_testing::side_effects::DeclaredSideEffect;
use baton_testing::snapshot::{Snapshot, SnapshotError};
use serde_json::{Value, json};

use crate::support::bpmn;

/// The ticket process deployed as `ticket.bpmn` (snapshots name their resources).
fn deployed() -> ProcessTest {
    let xml = std::fs::read_to_string(bpmn("ticket.bpmn")).unwrap();
    ProcessTest::from_xml("ticket.bpmn", &xml).unwrap()
}

fn ticket() -> ProcessTest {
    deployed().record_commands()
}

fn keyed() -> DeclaredSideEffect {
    DeclaredSideEffect::keyed_by("summary").unwrap()
}

fn records(test: &ProcessTest) -> Vec<Value> {
    test.with_engine(|e| e.records().iter().map(|r| e.record_json(r)).collect())
}

/// The second run's workers: the ticket system honours keys or not.
fn second_run(test: &ProcessTest, effect: DeclaredSideEffect) {
    test.mock_job("ticket-create")
        .side_effect(effect)
        .complete_with(json!({"ticketId": "T-1"}));
    test.mock_job("email-send").complete();
    test.mock_job("sla-alert").complete();
}

#[test]
fn a_restart_from_the_approval_does_not_create_a_second_ticket() {
    let dir = crate::support::temp_dir("snapshot-approval");
    let file = dir.join("at-approval.json");
    // Run 1: the approval is given, the ticket is created, then the worker crashes.
    let first = ticket().job_timeout("PT30S");
    first
        .mock_job("ticket-create")
        .side_effect(keyed().deduplicated())
        .fault(JobFault::crash_after_side_effect())
        .complete_with(json!({"ticketId": "T-1"}));
    let run = first.start("ticket", json!({"orderId": "1042"}));
    first.snapshot().unwrap().write(&file).unwrap();
    run.complete_user_task("approve", ());
    assert_eq!(first.ledger().entries().len(), 1);
    // Run 2: the engine comes back from the state persisted at the approval; the ticket
    // system remembers the key.
    let second = ProcessTest::from_snapshot(&Snapshot::read(&file).unwrap())
        .unwrap()
        .with_ledger(first.ledger());
    second_run(&second, keyed().deduplicated());
    second.invariant(Invariant::at_most_once_per_key("ticket-create"));
    let run = second.runs().remove(0);
    run.assert_waiting_at(["approve"])
        .complete_user_task("approve", ());
    run.assert_completed();
    second
        .side_effects("ticket-create")
        .assert_count(1)
        .assert_at_most_once_per_key();
    second.check_invariants().unwrap();
    assert_eq!(second.ledger().entries()[0].run, 1);
}

#[test]
fn a_worker_that_is_not_idempotent_is_caught_across_the_restart() {
    let first = ticket();
    first
        .mock_job("ticket-create")
        .side_effect(keyed())
        .fault(JobFault::crash_after_side_effect())
        .complete();
    let run = first.start("ticket", json!({"orderId": "1042"}));
    let snapshot = first.snapshot().unwrap();
    run.complete_user_task("approve", ());
    let second = ProcessTest::from_snapshot(&snapshot)
        .unwrap()
        .with_ledger(first.ledger());
    second_run(&second, keyed());
    second.invariant(Invariant::at_most_once_per_key("ticket-create"));
    second.runs()[0].complete_user_task("approve", ());
    insta::assert_snapshot!(second.check_invariants().unwrap_err(), @r#"
    the invariant at most one side effect per idempotency key of "ticket-create" is broken: the key "1042" of ticket-create was acted on twice:
      1. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1) (in run 1, before the restart)
      2. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1)
    It broke at event 7 (mock of job type "ticket-create" answered the job at "create-ticket": complete) at 2025-01-01T00:00:00Z.
    The run up to there:
        1. activated ticket
        2. activated start
        3. completed start
        4. activated approve
        5. completed approve
        6. activated create-ticket
        7. side effect of ticket-create at create-ticket, key "1042" (job 2251799813685261, activation 1) <-
    "#);
}

#[test]
fn a_snapshot_while_the_worker_holds_the_job_restores_the_lock_until_the_timeout() {
    let first = ticket().job_timeout("PT30S");
    first
        .mock_job("ticket-create")
        .fault(JobFault::crash_after_side_effect())
        .complete();
    let run = first.start("ticket", json!({"orderId": "1042"}));
    run.complete_user_task("approve", ());
    // The job is the crashed worker's until its deadline: so it is in the restored engine.
    let second = ProcessTest::from_snapshot(&first.snapshot().unwrap()).unwrap();
    second_run(&second, keyed());
    let run = second.runs().remove(0);
    run.assert_waiting_at(["create-ticket"]);
    second.advance_time("PT30.001S");
    run.assert_completed();
}

/// The actions of one run of the ticket process, each ending at a wait point (nothing of a
/// worker in flight: a restart would lose it, which is the point of a crash).
type Action = Box<dyn Fn(&ProcessTest)>;

fn actions() -> Vec<Action> {
    vec![
        Box::new(|t: &ProcessTest| {
            t.start("ticket", json!({"orderId": "1042"}));
        }),
        Box::new(|t: &ProcessTest| {
            t.runs()[0].complete_user_task("approve", ());
        }),
        Box::new(|t: &ProcessTest| t.advance_time("PT2M")),
        Box::new(|t: &ProcessTest| {
            t.runs()[0].complete_job("create-ticket", json!({"ticketId": "T-1"}));
        }),
        Box::new(|t: &ProcessTest| {
            t.runs()[0].complete_job("notify", ());
        }),
    ]
}

fn workers(t: &ProcessTest) {
    t.mock_job("sla-alert").complete();
}

/// The first line where two record logs differ.
fn first_difference(a: &str, b: &str) -> Option<String> {
    a.lines()
        .zip(b.lines())
        .find(|(x, y)| x != y)
        .map(|(x, y)| format!("{x}\n  vs\n{y}"))
        .or_else(|| {
            (a.lines().count() != b.lines().count())
                .then(|| format!("{} records vs {}", a.lines().count(), b.lines().count()))
        })
}

#[test]
fn a_snapshot_at_every_wait_point_restores_to_the_same_records() {
    let whole = ticket();
    workers(&whole);
    for action in actions() {
        action(&whole);
    }
    whole.runs()[0].assert_completed();
    let expected = records(&whole);
    let log = |t: &ProcessTest| t.with_engine(|e| e.render_log());
    for wait_point in 1..actions().len() {
        let first = ticket();
        workers(&first);
        for action in &actions()[..wait_point] {
            action(&first);
        }
        let snapshot = first.snapshot().unwrap();
        // Through the file format too.
        let snapshot = Snapshot::from_json(&snapshot.to_json(), "snapshot").unwrap();
        let second = ProcessTest::from_snapshot(&snapshot).unwrap();
        assert_eq!(
            records(&second),
            records(&first),
            "restored at wait point {wait_point}"
        );
        workers(&second);
        for action in &actions()[wait_point..] {
            action(&second);
        }
        if let Some(difference) = first_difference(&log(&second), &log(&whole)) {
            panic!("the run restored at wait point {wait_point} differs: {difference}");
        }
        assert_eq!(records(&second), expected, "wait point {wait_point}");
    }
}

#[test]
fn a_snapshot_keeps_the_engines_settings() {
    // A test with its own limits: the same commands under the default limits could stop
    // elsewhere. Its start time is a command of the snapshot.
    let first = deployed()
        .engine_config(|c| {
            c.step_limit = 500;
            c.timer_limit = 7;
        })
        .record_commands()
        .start_time("2026-01-01T00:00:00Z");
    first.start("ticket", json!({"orderId": "1042"}));
    let json = first.snapshot().unwrap().to_json();
    assert_eq!(
        json["engine"],
        json!({"stepLimit": 500, "timerLimit": 7, "instanceLimit": 10_000, "recordLimit": 1_000_000})
    );
    let second =
        ProcessTest::from_snapshot(&Snapshot::from_json(&json, "s.json").unwrap()).unwrap();
    assert_eq!(records(&second), records(&first));
    assert_eq!(second.now(), "2026-01-01T00:00:00Z");
    assert_eq!(
        second.with_engine(|e| (e.config().step_limit, e.config().timer_limit)),
        (500, 7)
    );
    second_run(&second, keyed());
    second.runs()[0]
        .complete_user_task("approve", ())
        .assert_completed();
    // A file without settings has the defaults; a bad setting is named.
    let mut without = json.clone();
    without.as_object_mut().unwrap().remove("engine");
    let errors: Vec<String> = [
        Some(
            match ProcessTest::from_snapshot(&Snapshot::from_json(&without, "s.json").unwrap()) {
                Ok(t) => format!(
                    "restored with the step limit {}",
                    t.with_engine(|e| e.config().step_limit)
                ),
                Err(e) => e.to_string(),
            },
        ),
        {
            let mut bad = json.clone();
            bad["engine"]["timerLimit"] = json!(0);
            Snapshot::from_json(&bad, "s.json")
                .err()
                .map(|e| e.to_string())
        },
        {
            let mut bad = json;
            bad["engine"]["speed"] = json!(2);
            Snapshot::from_json(&bad, "s.json")
                .err()
                .map(|e| e.to_string())
        },
    ]
    .into_iter()
    .map(|e| e.unwrap_or_else(|| "accepted".into()))
    .collect();
    insta::assert_snapshot!(errors.join("\n"), @"
    restored with the step limit 100000
    s.json: engine.timerLimit: must be a positive whole number
    s.json: engine.speed: is not a setting (stepLimit, timerLimit, instanceLimit, recordLimit)
    ");
}

#[test]
fn bad_snapshots_are_refused_with_what_and_where() {
    let dir = crate::support::temp_dir("snapshot-bad");
    let test = ticket();
    test.start("ticket", json!({"orderId": "1042"}));
    let good = test.snapshot().unwrap().to_json();
    let mut newer = good.clone();
    newer["format"] = json!(2);
    let mut bad_command = good.clone();
    bad_command["commands"][1] = json!({"command": "finishJob"});
    let mut other = good.clone();
    other["resources"][0]["sha256"] = json!("sha256:0000");
    // Edited by hand: a root the commands never created; a BPMN changed inside the commands
    // while its resources keep the hash of the file the test deploys (the deployment check
    // alone passes it, and the restored engine would run another process than the test's).
    let mut stray_root = good.clone();
    stray_root["roots"] = json!([123]);
    let changed = std::fs::read_to_string(bpmn("ticket.bpmn"))
        .unwrap()
        .replace("PT1M", "PT2M");
    let mut edited = good.clone();
    edited["commands"][0]["resources"][0]["text"] = json!(changed);
    let errors: Vec<String> = [
        Snapshot::from_json(&newer, "s.json")
            .err()
            .map(|e| e.to_string()),
        Snapshot::from_json(&bad_command, "s.json")
            .err()
            .map(|e| e.to_string()),
        Snapshot::from_json(&json!([1]), "s.json")
            .err()
            .map(|e| e.to_string()),
        Snapshot::read(&dir.join("missing.json"))
            .err()
            .map(|e| e.to_string().replace(&dir.display().to_string(), "DIR")),
        // A test of the same deployment restores; one whose file changed does not.
        deployed()
            .restart_from(&Snapshot::from_json(&other, "s.json").unwrap())
            .err()
            .map(|e| e.to_string()),
        // A test that ran restarts from it (a crash loses what it did since).
        {
            let t = deployed();
            t.start("ticket", ());
            t.start("ticket", ());
            t.restart_from(&Snapshot::from_json(&good, "s.json").unwrap())
                .err()
                .map(|e| e.to_string())
                .or_else(|| Some(format!("restarted with {} run(s)", t.runs().len())))
        },
        {
            let unrecorded = deployed();
            unrecorded.start("ticket", ());
            unrecorded.snapshot().err().map(|e| e.to_string())
        },
        ProcessTest::from_snapshot(&Snapshot::from_json(&stray_root, "s.json").unwrap())
            .err()
            .map(|e| e.to_string()),
        deployed()
            .restart_from(&Snapshot::from_json(&edited, "s.json").unwrap())
            .err()
            .map(|e| e.to_string()),
    ]
    .into_iter()
    .map(|e| e.unwrap_or_else(|| "accepted".into()))
    .collect();
    insta::assert_snapshot!(errors.join("\n"), @"
    s.json: format: the snapshot is of format 2, newer than this baton reads (format 1): update baton
    s.json: commands[1].command: unknown variant `finishJob`, expected one of `deploy`, `createInstance`, `cancelInstance`, `suspendInstance`, `resumeInstance`, `setVariables`, `publishMessage`, `correlateMessage`, `broadcastSignal`, `evaluateConditionalStartEvents`, `activateJobs`, `pushJob`, `completeJob`, `failJob`, `throwError`, `updateJobRetries`, `completeUserTask`, `assignUserTask`, `updateUserTask`, `resolveIncident`, `evaluateDecision`, `advanceClock`, `setClock`, `mockDecision`, `setClusterVariables`, `createGlobalTaskListener`
    s.json: a snapshot must be a JSON object
    DIR/missing.json: No such file or directory (os error 2)
    the snapshot was taken with another deployment: ticket.bpmn differs (sha256:0000 in the snapshot, sha256:7c49d648496696e0de7684d69b24896072669e317ec83b13bcaa8c72237b6dad deployed): the file changed since the snapshot was taken
    restarted with 1 run(s)
    a snapshot is the engine's commands since the start, but 1 were carried out while it did not record them: call ProcessTest::record_commands() before the first action
    the snapshot does not hold together (was it edited by hand?): roots[0] is 123, but its commands created no process instance of that key
    the snapshot does not hold together (was it edited by hand?): its commands deploy ticket.bpmn (sha256:5e3c79c8c19fb28c33e9131100d05e47682b1d856fb3dbc389a3f8e8c0b9eff8), its resources say ticket.bpmn (sha256:7c49d648496696e0de7684d69b24896072669e317ec83b13bcaa8c72237b6dad)
    ");
    assert!(matches!(
        Snapshot::from_json(&newer, "s.json"),
        Err(SnapshotError::NewerFormat { format: 2, .. })
    ));
}
