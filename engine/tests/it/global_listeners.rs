//! Global user task listeners: task listeners of every Camunda user task.
//!
//! Sources: camunda/camunda `zeebe/engine/src/main/java/io/camunda/zeebe/engine/processing/
//! globallistener/GlobalListenerValidator.java` (the checks of a new listener and their
//! messages) and `GlobalListenerCreateProcessor`; camunda-docs
//! `docs/components/concepts/global-user-task-listeners.md` ("Execution order": global
//! listeners, then the model's, then those `afterNonGlobal`; "Higher priority listeners are
//! executed before lower priority ones", default 50; retries default 3; "they behave like
//! model-level user task listeners": blocking, corrections, denials).

use baton_engine::runtime::*;
use serde_json::json;

use crate::xml::*;

fn review_process(own_listeners: &str) -> String {
    definitions(&process(
        "review",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:userTask id="approve"><bpmn:extensionElements>
              <zeebe:userTask />
              <zeebe:taskListeners>{own_listeners}</zeebe:taskListeners>
            </bpmn:extensionElements></bpmn:userTask>
            <bpmn:endEvent id="end" />{}"#,
            chain(&["start", "approve", "end"])
        ),
    ))
}

fn own(event: &str, job_type: &str) -> String {
    format!(r#"<zeebe:taskListener eventType="{event}" type="{job_type}" />"#)
}

fn global(id: &str, events: &[&str], priority: i32, after: bool) -> GlobalTaskListener {
    let mut l = GlobalTaskListener::new(id, format!("{id}-job"), events.iter().copied());
    l.priority = priority;
    l.after_non_global = after;
    l
}

/// Completes the task listener jobs one by one; returns their job types in the order they ran.
fn run_listeners(e: &mut Engine) -> Vec<String> {
    let mut ran = Vec::new();
    while let Some(job) = e
        .activatable_jobs(None)
        .into_iter()
        .find(|j| j.kind == JobKind::TaskListener)
    {
        ran.push(job.job_type.to_string());
        e.complete_job(job.key, VariableDocument::new()).unwrap();
    }
    ran
}

#[test]
fn global_listeners_run_around_the_tasks_own_listeners_higher_priority_first() {
    let mut e = Engine::default();
    for l in [
        global("audit", &["all"], 50, false),
        global("validate", &["creating"], 70, false),
        global("notify", &["creating", "completing"], 30, true),
        global("late-audit", &["creating"], 90, true),
        global("same-priority", &["creating"], 50, false),
        global("on-complete", &["completing"], 100, false),
    ] {
        e.create_global_task_listener(l).unwrap();
    }
    deploy(
        &mut e,
        &review_process(&format!(
            "{}{}",
            own("creating", "own-1"),
            own("creating", "own-2")
        )),
    );
    e.create_instance(CreateInstance::new("review")).unwrap();
    assert_eq!(
        run_listeners(&mut e),
        [
            "validate-job",
            "audit-job",
            "same-priority-job",
            "own-1",
            "own-2",
            "late-audit-job",
            "notify-job"
        ]
    );
    let task = e.user_tasks()[0].key;
    e.complete_user_task(task, VariableDocument::new()).unwrap();
    assert_eq!(
        run_listeners(&mut e),
        ["on-complete-job", "audit-job", "notify-job"]
    );
}

#[test]
fn a_global_listener_corrects_and_denies_as_a_tasks_own_listener_does() {
    let mut e = Engine::default();
    e.create_global_task_listener(global("assign", &["creating"], 50, false))
        .unwrap();
    e.create_global_task_listener(global("guard", &["completing"], 50, false))
        .unwrap();
    deploy(&mut e, &review_process(""));
    let pi = e.create_instance(CreateInstance::new("review")).unwrap();
    let job = e.activatable_jobs(Some("assign-job"))[0].clone();
    assert_eq!(job.kind, JobKind::TaskListener);
    assert_eq!(job.retries, 3, "the default retries");
    e.complete_job_with_result(
        job.key,
        VariableDocument::new(),
        Some(JobResult::UserTask {
            denied: false,
            denied_reason: None,
            corrections: doc(json!({"assignee": "anna"})),
        }),
    )
    .unwrap();
    let task = e.user_tasks()[0].clone();
    assert_eq!(task.value.assignee.as_deref(), Some("anna"));
    e.complete_user_task(task.key, VariableDocument::new())
        .unwrap();
    let guard = e.activatable_jobs(Some("guard-job"))[0].key;
    e.complete_job_with_result(
        guard,
        VariableDocument::new(),
        Some(JobResult::UserTask {
            denied: true,
            denied_reason: Some("not yet".into()),
            corrections: VariableDocument::new(),
        }),
    )
    .unwrap();
    assert_eq!(e.user_tasks()[0].state, UserTaskState::Created);
    assert_eq!(state_of(&e, pi), State::Activated);
}

#[test]
fn a_listener_created_during_a_transition_joins_from_the_next_one() {
    let mut e = Engine::default();
    deploy(&mut e, &review_process(&own("creating", "own")));
    e.create_instance(CreateInstance::new("review")).unwrap();
    e.create_global_task_listener(global("late", &["all"], 50, true))
        .unwrap();
    assert_eq!(run_listeners(&mut e), ["own"]);
    let task = e.user_tasks()[0].key;
    e.complete_user_task(task, VariableDocument::new()).unwrap();
    assert_eq!(run_listeners(&mut e), ["late-job"]);
}

#[test]
fn a_new_global_listener_is_checked_as_zeebe_checks_it() {
    let mut e = Engine::default();
    e.create_global_task_listener(global("audit", &["all"], 50, false))
        .unwrap();
    let cases: Vec<(GlobalTaskListener, RejectionType, &str)> = vec![
        (
            global(" ", &["all"], 50, false),
            RejectionType::InvalidArgument,
            "Missing id for the provided global USER_TASK listener",
        ),
        (
            global("audit", &["all"], 50, false),
            RejectionType::AlreadyExists,
            "Expected a global USER_TASK listener with id 'audit' to not exist, but a listener with the same id was found",
        ),
        (
            GlobalTaskListener::new("x", "", ["all"]),
            RejectionType::InvalidArgument,
            "Missing type for the provided global USER_TASK listener with id 'x'",
        ),
        (
            GlobalTaskListener::new("x", "t", Vec::<String>::new()),
            RejectionType::InvalidArgument,
            "Missing event types for the provided global USER_TASK listener with id 'x'",
        ),
        (
            GlobalTaskListener::new("x", "t", ["create", "creating", "Completing"]),
            RejectionType::InvalidArgument,
            "Invalid event types for the provided global USER_TASK listener with id 'x': 'Completing', 'create'",
        ),
    ];
    for (listener, rejection_type, message) in cases {
        let r = e.create_global_task_listener(listener).unwrap_err();
        assert_eq!(
            (r.rejection_type, r.message.as_str()),
            (rejection_type, message)
        );
    }
    insta::assert_snapshot!(log_since(&e, 0), @r#"   1 EVENT GLOBAL_LISTENER CREATED id="audit" type="audit-job" eventTypes=["all"] retries=3 afterNonGlobal=false priority=50"#);
}
