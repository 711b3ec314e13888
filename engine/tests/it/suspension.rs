//! Process instance suspension and resumption (Zeebe 8.10).
//!
//! Sources: camunda/camunda `zeebe/engine/src/test/java/io/camunda/zeebe/engine/processing/
//! processinstance/` `SuspendProcessInstanceTest`, `ProcessInstanceSuspendResumeTest`,
//! `ProcessInstanceSuspensionGateTest`, `processing/variable/VariableDocumentUpdateWhileSuspendedTest`;
//! the processors `ProcessInstanceSuspendProcessor` / `ProcessInstanceResumeProcessor` (their
//! rejection messages); the ADRs `zeebe/docs/adr/0008-810-suspended-job-state.md` and
//! `0009-810-suspended-timer-buffering.md`; the docs page "Process instance suspension"
//! (camunda-docs `docs/components/concepts/process-instance-suspension.md`: messages, signals,
//! call activities).

use baton_engine::runtime::*;
use serde_json::json;

use crate::xml::*;

fn deploy_body(e: &mut Engine, body: &str) {
    deploy(e, &definitions(&process("p", body)));
}

fn task_process(e: &mut Engine) -> Key {
    deploy_body(
        e,
        &format!(
            r#"<bpmn:startEvent id="s" />{}<bpmn:endEvent id="e" />{}"#,
            service("task", "work"),
            chain(&["s", "task", "e"])
        ),
    );
    e.create_instance(CreateInstance::new("p")).unwrap()
}

fn only_job(e: &Engine) -> JobView {
    let jobs = e.jobs();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    jobs[0].clone()
}

fn suspended(e: &Engine, pi: Key) -> bool {
    e.process_instance(pi).unwrap().suspended
}

#[test]
fn suspend_and_resume_write_their_records_and_reject_what_does_not_apply() {
    let mut e = Engine::default();
    let pi = task_process(&mut e);
    let before = e.records().len() as u64;
    e.suspend_instance(pi).unwrap();
    assert!(suspended(&e, pi));
    // SuspendProcessInstanceTest.shouldRejectSuspendIfAlreadySuspended.
    let again = e.suspend_instance(pi).unwrap_err();
    assert_eq!(again.rejection_type, RejectionType::InvalidState);
    assert_eq!(
        again.message,
        format!(
            "Expected to suspend a process instance with key '{pi}', but it is already suspended"
        )
    );
    // shouldRejectSuspendWhenKeyIsNotAProcessInstance: an element instance's key.
    let task = only_job(&e).element_instance_key;
    let not_pi = e.suspend_instance(task).unwrap_err();
    assert_eq!(not_pi.rejection_type, RejectionType::NotFound);
    assert_eq!(
        not_pi.message,
        format!(
            "Expected to suspend a process instance with key '{task}', but no such process was found"
        )
    );
    e.resume_instance(pi).unwrap();
    assert!(!suspended(&e, pi));
    let not_suspended = e.resume_instance(pi).unwrap_err();
    assert_eq!(not_suspended.rejection_type, RejectionType::InvalidState);
    assert_eq!(
        not_suspended.message,
        format!(
            "Expected to resume a process instance with key '{pi}', but it is not currently suspended"
        )
    );
    let unknown = e.resume_instance(42).unwrap_err();
    assert_eq!(unknown.rejection_type, RejectionType::NotFound);
    insta::assert_snapshot!(log_since(&e, before));
}

#[test]
fn a_suspended_instances_jobs_are_parked_and_answers_are_rejected() {
    let mut e = Engine::default();
    let pi = task_process(&mut e);
    let job = only_job(&e).key;
    e.suspend_instance(pi).unwrap();
    assert_eq!(only_job(&e).state, JobState::Suspended);
    // ADR 0008: a parked job is not handed out.
    assert!(e.activate_jobs("work", "w", 60_000, 10).is_empty());
    // shouldRejectJobCompleteWhileSuspended, shouldRejectJobFailWhileSuspended.
    for rejection in [
        e.complete_job(job, VariableDocument::new()).unwrap_err(),
        e.fail_job(job, 2, "boom", 0, VariableDocument::new())
            .unwrap_err(),
        e.throw_error(job, "E", "", VariableDocument::new())
            .unwrap_err(),
        e.update_job_retries(job, 5).unwrap_err(),
    ] {
        assert_eq!(rejection.rejection_type, RejectionType::InvalidState);
        assert!(
            rejection.message.contains(&pi.to_string()) && rejection.message.contains("suspended"),
            "{}",
            rejection.message
        );
    }
    e.resume_instance(pi).unwrap();
    assert_eq!(only_job(&e).state, JobState::Activatable);
    assert_eq!(e.activate_jobs("work", "w", 60_000, 10), [job]);
    e.complete_job(job, VariableDocument::new()).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn a_job_activated_before_the_suspension_cannot_be_answered_until_the_resume() {
    let mut e = Engine::default();
    let pi = task_process(&mut e);
    let job = e.activate_jobs("work", "w", 60_000, 1)[0];
    e.suspend_instance(pi).unwrap();
    // ADR 0008: an activated job stays activated; its time-out waits for the resume.
    assert_eq!(only_job(&e).state, JobState::Activated);
    e.advance_clock(120_000).unwrap();
    assert_eq!(only_job(&e).state, JobState::Activated);
    assert!(e.complete_job(job, VariableDocument::new()).is_err());
    e.resume_instance(pi).unwrap();
    assert_eq!(
        only_job(&e).state,
        JobState::Activatable,
        "the time-out that passed meanwhile takes effect"
    );
}

#[test]
fn a_timer_that_comes_due_while_suspended_fires_on_resume() {
    // ProcessInstanceSuspendResumeTest.shouldNotFireTimerWhileSuspendedAndFireOnResume; ADR 0009
    // (TIMER SUSPENDED when it comes due, TIMER RESUMED before it fires).
    let mut e = Engine::default();
    deploy_body(
        &mut e,
        &format!(
            r#"<bpmn:startEvent id="s" /><bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent><bpmn:endEvent id="e" />{}"#,
            chain(&["s", "wait", "e"])
        ),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    e.suspend_instance(pi).unwrap();
    e.advance_clock(120_000).unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    assert_eq!(e.timers().len(), 1, "the timer is held, not consumed");
    let before = e.records().len() as u64;
    e.resume_instance(pi).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(log_since(&e, before));
}

#[test]
fn an_overdue_cycle_fires_once_on_resume_and_goes_on_one_interval_after_the_resume() {
    // ADR 0009, Consequences: an R/PT1H timer due at 1h, the instance suspended, the clock moved
    // to 4.5h; on resume the held trigger fires once, and refreshTimer re-anchors the next one
    // at now + interval (5.5h): the slots 2h, 3h and 4h are not replayed.
    const HOUR: i64 = 3_600_000;
    let mut e = Engine::default();
    deploy_body(
        &mut e,
        &format!(
            r#"<bpmn:startEvent id="s" />{}<bpmn:boundaryEvent id="remind" attachedToRef="task" cancelActivity="false"><bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:boundaryEvent><bpmn:endEvent id="e" /><bpmn:endEvent id="reminded" />{}{}"#,
            service("task", "work"),
            chain(&["s", "task", "e"]),
            chain(&["remind", "reminded"])
        ),
    );
    let start = e.now();
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let reminders = |e: &Engine| completed(e).iter().filter(|id| *id == "reminded").count();
    let due = |e: &Engine| e.timers().iter().map(|t| t.due - start).collect::<Vec<_>>();
    assert_eq!(due(&e), [HOUR]);
    e.suspend_instance(pi).unwrap();
    e.advance_clock(4 * HOUR + HOUR / 2).unwrap();
    assert_eq!(reminders(&e), 0, "nothing fires while suspended");
    e.resume_instance(pi).unwrap();
    assert_eq!(reminders(&e), 1, "the missed cycles fire once");
    assert_eq!(
        due(&e),
        [5 * HOUR + HOUR / 2],
        "one interval after the resume"
    );
    e.advance_clock(HOUR - 1).unwrap();
    assert_eq!(reminders(&e), 1, "no second fire for the same gap");
    e.advance_clock(1).unwrap();
    assert_eq!(reminders(&e), 2);
    assert_eq!(due(&e), [6 * HOUR + HOUR / 2]);
    assert_eq!(state_of(&e, pi), State::Activated, "the task still waits");
}

#[test]
fn cancelling_a_suspended_instance_ends_it_and_drops_what_was_held() {
    // ProcessInstanceSuspensionGateTest.shouldCancelProcessInstanceWhileSuspended,
    // ProcessInstanceSuspendResumeTest.shouldTerminateAndDiscardBufferWhenCancellingSuspendedInstance.
    let mut e = Engine::default();
    deploy_body(
        &mut e,
        &format!(
            r#"<bpmn:startEvent id="s" /><bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent><bpmn:endEvent id="e" />{}"#,
            chain(&["s", "wait", "e"])
        ),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    e.suspend_instance(pi).unwrap();
    e.advance_clock(120_000).unwrap();
    e.cancel_instance(pi).unwrap();
    assert_eq!(state_of(&e, pi), State::Terminated);
    assert!(!suspended(&e, pi));
    assert!(e.timers().is_empty());
    assert_eq!(
        e.resume_instance(pi).unwrap_err().rejection_type,
        RejectionType::NotFound
    );
    assert!(!completed(&e).contains(&"wait".to_owned()));
}

fn message_process(e: &mut Engine) -> Key {
    deploy(
        e,
        &definitions(&format!(
            "{}{}",
            message("m", "order-placed", Some("=orderId")),
            process(
                "p",
                &format!(
                    r#"<bpmn:startEvent id="s" /><bpmn:intermediateCatchEvent id="msg"><bpmn:messageEventDefinition messageRef="m" /></bpmn:intermediateCatchEvent><bpmn:endEvent id="e" />{}"#,
                    chain(&["s", "msg", "e"])
                )
            )
        )),
    );
    e.create_instance(CreateInstance::new("p").variables(doc(json!({"orderId": "order-1"}))))
        .unwrap()
}

#[test]
fn a_message_without_time_to_live_is_lost_and_one_buffered_correlates_on_resume() {
    // ProcessInstanceSuspendResumeTest.shouldRejectMessageCorrelationWhileSuspended; the docs:
    // "Messages without a TTL that arrive while the instance is suspended are discarded for
    // that instance. Messages with a TTL may still correlate after resume".
    let mut e = Engine::default();
    let pi = message_process(&mut e);
    e.suspend_instance(pi).unwrap();
    e.publish_message(PublishMessage::new("order-placed", "order-1").time_to_live(0))
        .unwrap();
    let correlate = e
        .correlate_message("order-placed", "order-1", VariableDocument::new())
        .unwrap_err();
    assert_eq!(correlate.rejection_type, RejectionType::NotFound);
    e.resume_instance(pi).unwrap();
    assert_eq!(state_of(&e, pi), State::Activated, "the message was lost");

    e.suspend_instance(pi).unwrap();
    e.publish_message(
        PublishMessage::new("order-placed", "order-1")
            .time_to_live(60_000)
            .variables(doc(json!({"paid": true}))),
    )
    .unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    let before = e.records().len() as u64;
    e.resume_instance(pi).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(log_since(&e, before));
}

#[test]
fn a_signal_broadcast_while_suspended_is_lost() {
    // The docs: "Signals received during suspension are discarded and will never be replayed."
    let mut e = Engine::default();
    deploy(
        &mut e,
        &definitions(&format!(
            r#"<bpmn:signal id="go" name="go" />{}"#,
            process(
                "q",
                &format!(
                    r#"<bpmn:startEvent id="s" /><bpmn:intermediateCatchEvent id="sig"><bpmn:signalEventDefinition signalRef="go" /></bpmn:intermediateCatchEvent><bpmn:endEvent id="e" />{}"#,
                    chain(&["s", "sig", "e"])
                )
            )
        )),
    );
    let pi = e.create_instance(CreateInstance::new("q")).unwrap();
    e.suspend_instance(pi).unwrap();
    assert!(e.signal_subscriptions().is_empty());
    e.broadcast_signal("go", VariableDocument::new()).unwrap();
    e.resume_instance(pi).unwrap();
    assert_eq!(state_of(&e, pi), State::Activated, "the signal was lost");
    assert_eq!(e.signal_subscriptions().len(), 1, "subscribed again");
    e.broadcast_signal("go", VariableDocument::new()).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn variables_can_be_set_and_a_condition_they_meet_triggers_on_resume() {
    // VariableDocumentUpdateWhileSuspendedTest.shouldUpdateVariablesWhileSuspended and
    // shouldBufferConditionalTriggerFromVariableUpdateUntilResume.
    let mut e = Engine::default();
    deploy_body(
        &mut e,
        &format!(
            r#"<bpmn:startEvent id="s" /><bpmn:intermediateCatchEvent id="cond"><bpmn:conditionalEventDefinition><bpmn:condition>=x &gt; 10</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:intermediateCatchEvent><bpmn:endEvent id="e" />{}"#,
            chain(&["s", "cond", "e"])
        ),
    );
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"x": 1}))))
        .unwrap();
    e.suspend_instance(pi).unwrap();
    e.set_variables(pi, doc(json!({"x": 42})), false).unwrap();
    assert_eq!(*e.variable(pi, "x").unwrap(), json!(42));
    assert_eq!(state_of(&e, pi), State::Activated);
    assert!(
        suspended(&e, pi),
        "a variable update does not end the suspension"
    );
    e.resume_instance(pi).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(completed(&e).contains(&"cond".to_owned()));
}

#[test]
fn a_suspended_instances_user_tasks_and_incidents_cannot_be_acted_on() {
    // VariableDocumentUpdateWhileSuspendedTest.shouldRejectVariableUpdateScopedAtUserTaskWhileSuspended;
    // IncidentResolveProcessor.onSuspended (a client's RESOLVE is rejected).
    let mut e = Engine::default();
    deploy_body(
        &mut e,
        &format!(
            r#"<bpmn:startEvent id="s" /><bpmn:userTask id="review"><bpmn:extensionElements><zeebe:userTask /></bpmn:extensionElements></bpmn:userTask><bpmn:exclusiveGateway id="g" /><bpmn:endEvent id="e" />{}<bpmn:sequenceFlow id="f_g_e" sourceRef="g" targetRef="e"><bpmn:conditionExpression>=approved</bpmn:conditionExpression></bpmn:sequenceFlow>"#,
            chain(&["s", "review", "g"])
        ),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let task = e.user_tasks()[0].key;
    let task_element = e.user_tasks()[0].value.element_instance_key;
    e.suspend_instance(pi).unwrap();
    for rejection in [
        e.complete_user_task(task, VariableDocument::new())
            .unwrap_err(),
        e.assign_user_task(task, Some("anna")).unwrap_err(),
        e.update_user_task(task, doc(json!({"priority": 80})))
            .unwrap_err(),
        e.set_variables(task_element, doc(json!({"x": 1})), true)
            .unwrap_err(),
    ] {
        assert_eq!(rejection.rejection_type, RejectionType::InvalidState);
        assert!(
            rejection.message.contains(&pi.to_string()),
            "{}",
            rejection.message
        );
    }
    e.resume_instance(pi).unwrap();
    e.complete_user_task(task, VariableDocument::new()).unwrap();
    let incident = e.incidents()[0].key;
    e.suspend_instance(pi).unwrap();
    let resolve = e.resolve_incident(incident).unwrap_err();
    assert_eq!(
        resolve.message,
        format!(
            "Expected to resolve incident with key '{incident}', but its process instance with key '{pi}' is suspended"
        )
    );
    e.set_variables(pi, doc(json!({"approved": true})), false)
        .unwrap();
    e.resume_instance(pi).unwrap();
    e.resolve_incident(incident).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

fn call_processes(e: &mut Engine) -> Key {
    deploy(
        e,
        &definitions(&format!(
            "{}{}",
            process(
                "parent",
                &format!(
                    r#"<bpmn:startEvent id="s" /><bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="child" /></bpmn:extensionElements></bpmn:callActivity>{}<bpmn:endEvent id="e" />{}"#,
                    service("after", "after"),
                    chain(&["s", "call", "after", "e"])
                )
            ),
            process(
                "child",
                &format!(
                    r#"<bpmn:startEvent id="cs" />{}<bpmn:endEvent id="ce" />{}"#,
                    service("inner", "inner"),
                    chain(&["cs", "inner", "ce"])
                )
            )
        )),
    );
    e.create_instance(CreateInstance::new("parent")).unwrap()
}

#[test]
fn a_called_child_goes_on_and_its_completion_waits_for_the_parent() {
    // The docs: "Suspending a root process instance does not automatically suspend its
    // call-activity children"; the call activity's completion is an internal command, held.
    let mut e = Engine::default();
    let parent = call_processes(&mut e);
    let inner = only_job(&e);
    let child = inner.process_instance_key;
    e.suspend_instance(parent).unwrap();
    assert_eq!(
        only_job(&e).state,
        JobState::Activatable,
        "the child's job is not parked"
    );
    e.complete_job(inner.key, VariableDocument::new()).unwrap();
    assert_eq!(state_of(&e, child), State::Completed);
    assert!(!completed(&e).contains(&"call".to_owned()));
    assert!(e.jobs().is_empty());
    e.resume_instance(parent).unwrap();
    assert!(completed(&e).contains(&"call".to_owned()));
    assert_eq!(&*only_job(&e).job_type, "after");
}

#[test]
fn a_called_child_can_be_suspended_on_its_own() {
    // ProcessInstanceSuspensionGateTest.shouldClearSuspensionStateForCallActivityChildInstanceOnCascadedTermination:
    // "suspension is not restricted to top-level root instances".
    let mut e = Engine::default();
    let parent = call_processes(&mut e);
    let child = only_job(&e).process_instance_key;
    e.suspend_instance(child).unwrap();
    assert!(suspended(&e, child) && !suspended(&e, parent));
    assert_eq!(only_job(&e).state, JobState::Suspended);
    e.cancel_instance(parent).unwrap();
    assert_eq!(state_of(&e, child), State::Terminated);
    assert!(
        !suspended(&e, child),
        "terminating it clears the suspension"
    );
}
