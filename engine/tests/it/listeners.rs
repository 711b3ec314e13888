//! Execution listeners and task listeners: jobs that block the lifecycle.

use baton_engine::runtime::*;
use serde_json::json;

use crate::xml::*;

fn exec_listener_process() -> String {
    definitions(&process(
        "p",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:serviceTask id="work"><bpmn:extensionElements>
              <zeebe:taskDefinition type="work" />
              <zeebe:executionListeners>
                <zeebe:executionListener eventType="start" type="before" />
                <zeebe:executionListener eventType="end" type="after" retries="1" />
              </zeebe:executionListeners>
            </bpmn:extensionElements></bpmn:serviceTask>
            <bpmn:endEvent id="end" />{}"#,
            chain(&["start", "work", "end"])
        ),
    ))
}

fn only_job(e: &Engine) -> JobView {
    let jobs = e.activatable_jobs(None);
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    jobs[0].clone()
}

#[test]
fn execution_listeners_block_the_element_and_their_variables_are_local_then_propagated() {
    let mut e = Engine::default();
    deploy(&mut e, &exec_listener_process());
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let start = only_job(&e);
    assert_eq!(start.kind, JobKind::ExecutionListener);
    assert_eq!(start.listener_event_type, ListenerEventType::Start);
    let task = start.element_instance_key;
    assert_eq!(
        e.element_instance(task).unwrap().state,
        State::Activating,
        "the start listener blocks the activation"
    );
    e.complete_job(start.key, doc(json!({"fromStart": 1})))
        .unwrap();
    assert_eq!(e.variables(task)[0].name.as_ref(), "fromStart");
    let work = only_job(&e);
    assert_eq!(&*work.job_type, "work");
    e.complete_job(work.key, VariableDocument::new()).unwrap();
    let end = only_job(&e);
    assert_eq!(end.listener_event_type, ListenerEventType::End);
    assert_eq!(e.element_instance(task).unwrap().state, State::Completing);
    // A listener job cannot throw a BPMN error.
    let err = e
        .throw_error(end.key, "E", "no", VariableDocument::new())
        .unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::InvalidArgument);
    e.complete_job(end.key, doc(json!({"fromEnd": 2}))).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn an_execution_listener_without_retries_is_an_incident_of_its_own_type() {
    let mut e = Engine::default();
    deploy(&mut e, &exec_listener_process());
    e.create_instance(CreateInstance::new("p")).unwrap();
    complete_all_jobs_but(&mut e, "after");
    let end = only_job(&e);
    e.fail_job(end.key, 0, "audit down", 0, VariableDocument::new())
        .unwrap();
    let incident = e.incidents().pop().unwrap();
    assert_eq!(incident.error_type, ErrorType::ExecutionListenerNoRetries);
    assert_eq!(&*incident.error_message, "audit down");
    e.update_job_retries(end.key, 1).unwrap();
    e.resolve_incident(incident.key).unwrap();
    e.complete_job(end.key, VariableDocument::new()).unwrap();
    assert!(e.incidents().is_empty());
}

fn complete_all_jobs_but(e: &mut Engine, job_type: &str) {
    loop {
        let next = e
            .activatable_jobs(None)
            .into_iter()
            .find(|j| &*j.job_type != job_type);
        let Some(j) = next else { return };
        e.complete_job(j.key, VariableDocument::new()).unwrap();
    }
}

/// A process `review` with the user task `approve` (candidate group `sales`, and the assignee
/// `assignee` if any) and these task listeners.
fn user_task_process(assignee: Option<&str>, listeners: &str) -> String {
    let assignee = assignee
        .map(|a| format!(r#" assignee="{a}""#))
        .unwrap_or_default();
    definitions(&process(
        "review",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:userTask id="approve"><bpmn:extensionElements>
              <zeebe:userTask />
              <zeebe:assignmentDefinition{assignee} candidateGroups="sales" />
              <zeebe:taskListeners>{listeners}</zeebe:taskListeners>
            </bpmn:extensionElements></bpmn:userTask>
            <bpmn:endEvent id="end" />{}"#,
            chain(&["start", "approve", "end"])
        ),
    ))
}

fn listener(event: &str, job_type: &str) -> String {
    format!(r#"<zeebe:taskListener eventType="{event}" type="{job_type}" />"#)
}

fn the_task(e: &Engine) -> UserTask {
    e.user_tasks()
        .last()
        .map(|t| (*t).clone())
        .expect("a user task")
}

/// A creating listener may set the assignee only when the process defines none (Camunda 8.9
/// docs, concepts/user-task-listeners, "On correcting the assignee").
#[test]
fn creating_and_completing_listeners_block_their_transitions() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(
            None,
            &format!(
                "{}{}",
                listener("creating", "on-create"),
                listener("completing", "on-complete")
            ),
        ),
    );
    let pi = e.create_instance(CreateInstance::new("review")).unwrap();
    let created = only_job(&e);
    assert_eq!(created.kind, JobKind::TaskListener);
    assert_eq!(created.listener_event_type, ListenerEventType::Creating);
    let task = the_task(&e);
    assert!(
        e.complete_user_task(task.key, VariableDocument::new())
            .is_err(),
        "not created yet"
    );
    // Corrections change the task's fields.
    e.complete_job_with_result(
        created.key,
        VariableDocument::new(),
        Some(JobResult::UserTask {
            denied: false,
            denied_reason: None,
            corrections: doc(json!({"assignee": "bob", "priority": 80})),
        }),
    )
    .unwrap();
    let task = the_task(&e);
    assert_eq!(task.value.assignee.as_deref(), Some("bob"));
    assert_eq!(task.value.priority, 80);
    e.complete_user_task(task.key, doc(json!({"ok": true})))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Activated, "waits for on-complete");
    // The first completing listener denies: the task stays open.
    let completing = only_job(&e);
    e.complete_job_with_result(
        completing.key,
        VariableDocument::new(),
        Some(JobResult::UserTask {
            denied: true,
            denied_reason: Some("missing signature".into()),
            corrections: VariableDocument::new(),
        }),
    )
    .unwrap();
    assert_eq!(the_task(&e).state, UserTaskState::Created);
    e.complete_user_task(task.key, doc(json!({"ok": true})))
        .unwrap();
    let completing = only_job(&e);
    e.complete_job(completing.key, VariableDocument::new())
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert_eq!(e.variable(pi, "ok"), None, "the instance is gone");
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn a_creating_listener_cannot_deny_and_listeners_without_retries_are_incidents() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(Some("ann"), &listener("creating", "on-create")),
    );
    e.create_instance(CreateInstance::new("review")).unwrap();
    let created = only_job(&e);
    let err = e
        .complete_job_with_result(
            created.key,
            VariableDocument::new(),
            Some(JobResult::UserTask {
                denied: true,
                denied_reason: None,
                corrections: VariableDocument::new(),
            }),
        )
        .unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::InvalidArgument);
    e.fail_job(created.key, 0, "", 0, VariableDocument::new())
        .unwrap();
    let incident = e.incidents().pop().unwrap();
    assert_eq!(incident.error_type, ErrorType::TaskListenerNoRetries);
    assert_eq!(&*incident.error_message, "No more retries left.");
}

/// The process's assignee is assigned after creation, through the assigning listeners
/// (TaskListenerTest.shouldTriggerAssignmentListenersAfterUserTaskCreationWithDefinedAssigneeProperty);
/// a denied assignment keeps the assignee as it was.
#[test]
fn assigning_listeners_and_canceling_listeners_on_termination() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(
            Some("ann"),
            &format!(
                "{}{}",
                listener("assigning", "on-assign"),
                listener("canceling", "on-cancel")
            ),
        ),
    );
    let pi = e.create_instance(CreateInstance::new("review")).unwrap();
    let task = the_task(&e);
    assert_eq!(task.value.assignee, None, "assigned once its listeners ran");
    e.complete_job(only_job(&e).key, VariableDocument::new())
        .unwrap();
    assert_eq!(the_task(&e).value.assignee.as_deref(), Some("ann"));
    e.assign_user_task(task.key, Some("cy")).unwrap();
    let assigning = only_job(&e);
    assert_eq!(assigning.listener_event_type, ListenerEventType::Assigning);
    // Denied: the assignee is what it was.
    e.complete_job_with_result(
        assigning.key,
        VariableDocument::new(),
        Some(JobResult::UserTask {
            denied: true,
            denied_reason: None,
            corrections: VariableDocument::new(),
        }),
    )
    .unwrap();
    assert_eq!(the_task(&e).value.assignee.as_deref(), Some("ann"));
    e.assign_user_task(task.key, Some("cy")).unwrap();
    e.complete_job(only_job(&e).key, VariableDocument::new())
        .unwrap();
    assert_eq!(the_task(&e).value.assignee.as_deref(), Some("cy"));
    // Canceling the instance waits for the canceling listener.
    e.cancel_instance(pi).unwrap();
    assert_eq!(the_task(&e).state, UserTaskState::Created);
    let canceling = only_job(&e);
    assert_eq!(canceling.listener_event_type, ListenerEventType::Canceling);
    assert_eq!(state_of(&e, pi), State::Terminating);
    e.complete_job(canceling.key, VariableDocument::new())
        .unwrap();
    assert_eq!(the_task(&e).state, UserTaskState::Canceled);
    assert_eq!(state_of(&e, pi), State::Terminated);
}
