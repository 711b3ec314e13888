//! Zeebe 8.9 rules at the engine's level: record sequences, incident messages and rejections
//! that a CPT JSON file cannot see. Each test names the Camunda doc page and the Zeebe engine
//! class and test it follows. The JSON side of the same rules is in `fixtures/cpt/fidelity`.

use baton_engine::runtime::*;
use serde_json::json;

use crate::xml::*;

fn execution_listeners(listeners: &[(&str, &str)]) -> String {
    let items: String = listeners
        .iter()
        .map(|(event, job_type)| {
            format!(r#"<zeebe:executionListener eventType="{event}" type="{job_type}" />"#)
        })
        .collect();
    format!("<zeebe:executionListeners>{items}</zeebe:executionListeners>")
}

fn task_listeners(listeners: &[(&str, &str)]) -> String {
    let items: String = listeners
        .iter()
        .map(|(event, job_type)| {
            format!(r#"<zeebe:taskListener eventType="{event}" type="{job_type}" />"#)
        })
        .collect();
    format!("<zeebe:taskListeners>{items}</zeebe:taskListeners>")
}

/// A process `p`: start, a service task `task` with these extension elements, end.
fn service_task_process(extensions: &str) -> String {
    definitions(&process(
        "p",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:serviceTask id="task"><bpmn:extensionElements>{extensions}</bpmn:extensionElements></bpmn:serviceTask>
            <bpmn:endEvent id="end" />{}"#,
            chain(&["start", "task", "end"])
        ),
    ))
}

/// A process `p`: start, a Camunda user task `review` with these extension elements, end.
fn user_task_process(extensions: &str) -> String {
    definitions(&process(
        "p",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:userTask id="review"><bpmn:extensionElements><zeebe:userTask />{extensions}</bpmn:extensionElements></bpmn:userTask>
            <bpmn:endEvent id="end" />{}"#,
            chain(&["start", "review", "end"])
        ),
    ))
}

/// The one activatable job of this type.
fn job_of_type(e: &Engine, job_type: &str) -> JobView {
    let jobs = e.activatable_jobs(Some(job_type));
    assert_eq!(
        jobs.len(),
        1,
        "expected one job of type {job_type:?}, the jobs are {:?}",
        e.activatable_jobs(None)
            .iter()
            .map(|j| j.job_type.to_string())
            .collect::<Vec<_>>()
    );
    jobs[0].clone()
}

fn complete(e: &mut Engine, job_type: &str) {
    let job = job_of_type(e, job_type);
    e.complete_job(job.key, VariableDocument::new()).unwrap();
}

fn complete_with_result(
    e: &mut Engine,
    job_type: &str,
    denied: bool,
    corrections: serde_json::Value,
) -> Result<(), Rejection> {
    let job = job_of_type(e, job_type);
    e.complete_job_with_result(
        job.key,
        VariableDocument::new(),
        Some(JobResult::UserTask {
            denied,
            denied_reason: None,
            corrections: doc(corrections),
        }),
    )
}

/// `(job type, intent)` of every execution listener job event, in order.
fn listener_job_events(e: &Engine) -> Vec<(String, String)> {
    e.records()
        .iter()
        .filter(|r| r.record_type == RecordType::Event)
        .filter_map(|r| match &r.value {
            RecordValue::Job(j) if j.kind == JobKind::ExecutionListener => {
                Some((j.job_type.to_string(), r.intent.as_str().to_string()))
            }
            _ => None,
        })
        .collect()
}

fn events(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn the_incident(e: &Engine) -> IncidentView {
    let incidents = e.incidents();
    assert_eq!(incidents.len(), 1, "{incidents:?}");
    incidents[0].clone()
}

// ---------------------------------------------------------------------------------------------
// Execution listeners after an incident. Camunda 8.9 docs, concepts/execution-listeners,
// "Incident recovery": a job failure retries only that listener; after an expression failure
// "all listeners of the same event type ... that were processed before the failure are
// re-executed once the issue is resolved". Zeebe IncidentResolveProcessor re-processes
// ACTIVATE_ELEMENT (or COMPLETE_ELEMENT) from its first step for an element in ELEMENT_ACTIVATING
// (ELEMENT_COMPLETING), and only re-publishes the job for a job incident.

/// ExecutionListenerTaskElementsTest.ExtraTests.shouldRecreateELJobAfterResolvingServiceTaskJobExpressionIncident.
#[test]
fn a_job_type_incident_recreates_the_start_listener_job() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &service_task_process(&format!(
            r#"<zeebe:taskDefinition type="=service_task_job_name_var + &quot;_type&quot;" />{}"#,
            execution_listeners(&[("start", "start_el")])
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    complete(&mut e, "start_el");
    let incident = the_incident(&e);
    assert_eq!(incident.error_type, ErrorType::ExtractValueError);
    assert_eq!(
        &*incident.error_message,
        "Expected result of the expression 'service_task_job_name_var + \"_type\"' to be 'STRING', but was 'NULL'. \
         The evaluation reported the following warnings:\n\
         [NO_VARIABLE_FOUND] No variable found with name 'service_task_job_name_var'\n\
         [INVALID_TYPE] Can't add '\"_type\"' to 'null'"
    );
    e.set_variables(pi, doc(json!({"service_task_job_name_var": "work"})), false)
        .unwrap();
    e.resolve_incident(incident.key).unwrap();
    assert_eq!(
        listener_job_events(&e),
        events(&[
            ("start_el", "CREATED"),
            ("start_el", "COMPLETED"),
            ("start_el", "CREATED"),
        ]),
        "the start listener runs again before the element goes on"
    );
    complete(&mut e, "start_el");
    complete(&mut e, "work_type");
    assert_eq!(state_of(&e, pi), State::Completed);
}

/// ExecutionListenerTaskElementsTest.shouldRecreateStartExecutionListenerJobsAndProceedAfterExtractValueErrorIncidentResolution.
#[test]
fn a_listener_expression_incident_recreates_the_listeners_before_it() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &service_task_process(&format!(
            r#"<zeebe:taskDefinition type="work" />{}"#,
            execution_listeners(&[
                ("start", "start_1"),
                ("start", "=start_el_2_name_var"),
                ("start", "start_3"),
                ("end", "end_el"),
            ])
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    complete(&mut e, "start_1");
    let incident = the_incident(&e);
    assert_eq!(incident.error_type, ErrorType::ExtractValueError);
    assert_eq!(
        &*incident.error_message,
        "Expected result of the expression 'start_el_2_name_var' to be 'STRING', but was 'NULL'. \
         The evaluation reported the following warnings:\n\
         [NO_VARIABLE_FOUND] No variable found with name 'start_el_2_name_var'"
    );
    e.set_variables(
        pi,
        doc(json!({"start_el_2_name_var": "start_eval_2"})),
        false,
    )
    .unwrap();
    e.resolve_incident(incident.key).unwrap();
    for job_type in ["start_1", "start_eval_2", "start_3", "work", "end_el"] {
        complete(&mut e, job_type);
    }
    assert_eq!(
        listener_job_events(&e),
        events(&[
            ("start_1", "CREATED"),
            ("start_1", "COMPLETED"),
            ("start_1", "CREATED"),
            ("start_1", "COMPLETED"),
            ("start_eval_2", "CREATED"),
            ("start_eval_2", "COMPLETED"),
            ("start_3", "CREATED"),
            ("start_3", "COMPLETED"),
            ("end_el", "CREATED"),
            ("end_el", "COMPLETED"),
        ])
    );
    assert_eq!(state_of(&e, pi), State::Completed);
}

/// ExecutionListenerTaskElementsTest.shouldRecreateEndExecutionListenerJobsAndProceedAfterIncidentResolution.
#[test]
fn an_end_listener_expression_incident_recreates_the_end_listeners_before_it() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &service_task_process(&format!(
            r#"<zeebe:taskDefinition type="work" />{}"#,
            execution_listeners(&[
                ("start", "start_el"),
                ("end", "end_1"),
                ("end", "end_2"),
                ("end", "=end_el_3_name_var"),
            ])
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    for job_type in ["start_el", "work", "end_1", "end_2"] {
        complete(&mut e, job_type);
    }
    let incident = the_incident(&e);
    assert_eq!(
        &*incident.error_message,
        "Expected result of the expression 'end_el_3_name_var' to be 'STRING', but was 'NULL'. \
         The evaluation reported the following warnings:\n\
         [NO_VARIABLE_FOUND] No variable found with name 'end_el_3_name_var'"
    );
    e.set_variables(pi, doc(json!({"end_el_3_name_var": "end_eval_3"})), false)
        .unwrap();
    e.resolve_incident(incident.key).unwrap();
    for job_type in ["end_1", "end_2", "end_eval_3"] {
        complete(&mut e, job_type);
    }
    assert_eq!(
        listener_job_events(&e),
        events(&[
            ("start_el", "CREATED"),
            ("start_el", "COMPLETED"),
            ("end_1", "CREATED"),
            ("end_1", "COMPLETED"),
            ("end_2", "CREATED"),
            ("end_2", "COMPLETED"),
            ("end_1", "CREATED"),
            ("end_1", "COMPLETED"),
            ("end_2", "CREATED"),
            ("end_2", "COMPLETED"),
            ("end_eval_3", "CREATED"),
            ("end_eval_3", "COMPLETED"),
        ])
    );
    assert_eq!(state_of(&e, pi), State::Completed);
}

/// ExecutionListenerTaskElementsTest.ExtraTests.shouldCreateIncidentWhenServiceTaskWithExecutionListenersFailed:
/// after a job incident "NO need to re-complete start EL job(s)".
#[test]
fn a_job_incident_does_not_run_the_start_listeners_again() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &service_task_process(&format!(
            r#"<zeebe:taskDefinition type="work" />{}"#,
            execution_listeners(&[("start", "start_el"), ("end", "end_el")])
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    complete(&mut e, "start_el");
    let work = job_of_type(&e, "work");
    e.fail_job(work.key, 0, "", 0, VariableDocument::new())
        .unwrap();
    let incident = the_incident(&e);
    assert_eq!(incident.error_type, ErrorType::JobNoRetries);
    assert_eq!(&*incident.error_message, "No more retries left.");
    assert_eq!(incident.job_key, Some(work.key));
    e.update_job_retries(work.key, 1).unwrap();
    e.resolve_incident(incident.key).unwrap();
    assert!(
        e.activatable_jobs(Some("start_el")).is_empty(),
        "no second start listener job"
    );
    complete(&mut e, "work");
    complete(&mut e, "end_el");
    assert_eq!(state_of(&e, pi), State::Completed);
}

/// ExecutionListenerTaskElementsTest.shouldCreateIncidentForStartElWhenNoRetriesLeftAndProceedWithRemainingListeners:
/// the failed listener job is the one completed after the incident, the next listener follows.
#[test]
fn a_listener_job_incident_retries_that_listener_only() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &service_task_process(&format!(
            r#"<zeebe:taskDefinition type="work" />{}"#,
            execution_listeners(&[("start", "start_1"), ("start", "start_2")])
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let first = job_of_type(&e, "start_1");
    e.fail_job(first.key, 0, "", 0, VariableDocument::new())
        .unwrap();
    let incident = the_incident(&e);
    assert_eq!(incident.error_type, ErrorType::ExecutionListenerNoRetries);
    assert_eq!(&*incident.error_message, "No more retries left.");
    e.update_job_retries(first.key, 1).unwrap();
    e.resolve_incident(incident.key).unwrap();
    assert_eq!(job_of_type(&e, "start_1").key, first.key, "the same job");
    complete(&mut e, "start_1");
    complete(&mut e, "start_2");
    complete(&mut e, "work");
    assert_eq!(
        listener_job_events(&e),
        events(&[
            ("start_1", "CREATED"),
            ("start_1", "FAILED"),
            ("start_1", "RETRIES_UPDATED"),
            ("start_1", "COMPLETED"),
            ("start_2", "CREATED"),
            ("start_2", "COMPLETED"),
        ])
    );
    assert_eq!(state_of(&e, pi), State::Completed);
}

/// ExecutionListenerProcessInstanceTest: a process's own listeners are jobs of the process
/// element (start before the start event, end after the last element).
#[test]
fn the_process_runs_its_own_start_and_end_listeners() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &definitions(&process(
            "p",
            &format!(
                r#"<bpmn:extensionElements>{}</bpmn:extensionElements>
                <bpmn:startEvent id="start" /><bpmn:endEvent id="end" />{}"#,
                execution_listeners(&[("start", "process_start"), ("end", "process_end")]),
                chain(&["start", "end"])
            ),
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let start = job_of_type(&e, "process_start");
    assert_eq!(start.kind, JobKind::ExecutionListener);
    assert_eq!(start.listener_event_type, ListenerEventType::Start);
    assert_eq!(&*start.element_id, "p");
    assert!(completed(&e).is_empty(), "the start event waits");
    complete(&mut e, "process_start");
    let end = job_of_type(&e, "process_end");
    assert_eq!(end.listener_event_type, ListenerEventType::End);
    assert_eq!(state_of(&e, pi), State::Completing);
    complete(&mut e, "process_end");
    assert_eq!(state_of(&e, pi), State::Completed);
}

/// BpmnStreamProcessor.mergeVariablesOfExecutionListener: an end listener's variables are
/// set locally in the element's flow scope (a start listener's in the element), not propagated
/// to a variable of the same name further out.
#[test]
fn end_listener_variables_are_local_to_the_flow_scope() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &definitions(&process(
            "p",
            &format!(
                r#"<bpmn:startEvent id="start" />
                <bpmn:subProcess id="sub">
                  <bpmn:startEvent id="sub-start" />
                  <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="work" />{}</bpmn:extensionElements></bpmn:serviceTask>
                  <bpmn:endEvent id="sub-end" />{}
                </bpmn:subProcess>
                <bpmn:endEvent id="end" />{}"#,
                execution_listeners(&[("end", "end_el")]),
                chain(&["sub-start", "task", "sub-end"]),
                chain(&["start", "sub", "end"])
            ),
        )),
    );
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"status": "old"}))))
        .unwrap();
    complete(&mut e, "work");
    let job = job_of_type(&e, "end_el");
    let sub = e
        .element_instance(job.element_instance_key)
        .and_then(|i| i.flow_scope_key)
        .expect("the task's flow scope");
    e.complete_job(job.key, doc(json!({"status": "new"})))
        .unwrap();
    assert_ne!(sub, pi);
    assert_eq!(state_of(&e, pi), State::Completed);
    let status: Vec<(bool, String, String)> = e
        .records()
        .iter()
        .filter_map(|r| match &r.value {
            RecordValue::Variable(v) if &*v.name == "status" => Some((
                v.scope_key == sub,
                r.intent.as_str().to_string(),
                v.value.to_string(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        status,
        [
            (false, "CREATED".to_string(), r#""old""#.to_string()),
            (true, "CREATED".to_string(), r#""new""#.to_string()),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// User task listeners. Camunda 8.9 docs, concepts/user-task-listeners: the trigger table
// (assigning "when activating a user task that specifies an assignee in the process"), "On
// correcting the assignee", "Denying the lifecycle transition", "Incident recovery". Zeebe
// UserTaskProcessor.onFinalizeActivationInternal, UserTaskCreateProcessor.onFinalizeCommand,
// JobCompleteProcessor (the rejections), TaskListenerTest.

/// `(intent, assignee)` of every user task event, in order.
fn user_task_events(e: &Engine) -> Vec<(String, Option<String>)> {
    e.records()
        .iter()
        .filter(|r| r.record_type == RecordType::Event)
        .filter_map(|r| match &r.value {
            RecordValue::UserTask(t) => Some((
                r.intent.as_str().to_string(),
                t.assignee.as_deref().map(str::to_owned),
            )),
            _ => None,
        })
        .collect()
}

fn task_events(pairs: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
    pairs
        .iter()
        .map(|(i, a)| (i.to_string(), a.map(str::to_owned)))
        .collect()
}

fn the_task(e: &Engine) -> UserTask {
    e.user_tasks().last().map(|t| (*t).clone()).expect("a task")
}

/// UserTaskProcessor.onFinalizeActivationInternal: CREATING carries the process's assignee
/// (camunda/camunda PR #30424, "Set assignee on the creating event"), CREATED is without it,
/// then ASSIGNING/ASSIGNED with it (TaskListenerTest.shouldTriggerAssignmentListenersAfterUserTaskCreationWithDefinedAssigneeProperty:
/// CREATING "peregrin", CREATED "", ASSIGNING "peregrin").
#[test]
fn a_task_created_with_an_assignee_is_created_then_assigned() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(r#"<zeebe:assignmentDefinition assignee="=owner" />"#),
    );
    e.create_instance(CreateInstance::new("p").variables(doc(json!({"owner": "ann"}))))
        .unwrap();
    assert_eq!(
        user_task_events(&e),
        task_events(&[
            ("CREATING", Some("ann")),
            ("CREATED", None),
            ("ASSIGNING", Some("ann")),
            ("ASSIGNED", Some("ann")),
        ])
    );
    assert_eq!(the_task(&e).value.assignee.as_deref(), Some("ann"));
}

/// TaskListenerTest.shouldTriggerAssignmentListenersAfterUserTaskCreationWithDefinedAssigneeProperty
/// and shouldNotIncludeEmptyOrClearedUserTaskPropertiesInAssigningListenerHeadersAfterTriggeringTaskUnassignment
/// (the assigning job after creation carries the user task key, the assignee and the priority,
/// and no action).
#[test]
fn a_task_created_with_an_assignee_runs_its_assigning_listeners() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&format!(
            r#"<zeebe:assignmentDefinition assignee="peregrin" />{}"#,
            task_listeners(&[
                ("assigning", "assign_1"),
                ("assigning", "assign_2"),
                ("assigning", "assign_3"),
            ])
        )),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let first = job_of_type(&e, "assign_1");
    assert_eq!(first.kind, JobKind::TaskListener);
    assert_eq!(first.listener_event_type, ListenerEventType::Assigning);
    let task = the_task(&e);
    let headers: Vec<(&str, &str)> = first
        .custom_headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let task_key = task.key.to_string();
    for expected in [
        ("io.camunda.zeebe:userTaskKey", task_key.as_str()),
        ("io.camunda.zeebe:assignee", "peregrin"),
        ("io.camunda.zeebe:priority", "50"),
    ] {
        assert!(headers.contains(&expected), "{expected:?} in {headers:?}");
    }
    assert!(
        !headers.iter().any(|(k, _)| *k == "io.camunda.zeebe:action"),
        "no action header: {headers:?}"
    );
    assert!(
        e.complete_user_task(task.key, VariableDocument::new())
            .is_err(),
        "the task is assigning"
    );
    for job_type in ["assign_1", "assign_2", "assign_3"] {
        complete(&mut e, job_type);
    }
    assert_eq!(
        user_task_events(&e),
        task_events(&[
            ("CREATING", Some("peregrin")),
            ("CREATED", None),
            ("ASSIGNING", Some("peregrin")),
            ("ASSIGNED", Some("peregrin")),
        ])
    );
}

/// UserTaskCreateProcessor.onFinalizeCommand: after the last creating listener the task is
/// CREATED, then ASSIGNING with the process's assignee; TaskListenerTest.shouldPersistCorrectedUserTaskDataWhenAssigningOnCreationTaskListenerCompleted
/// (the most recent correction takes precedence).
#[test]
fn creating_then_assigning_listeners_and_the_assigning_correction_wins() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&format!(
            r#"<zeebe:assignmentDefinition assignee="initial_assignee" />{}"#,
            task_listeners(&[
                ("creating", "on_create"),
                ("assigning", "assign_1"),
                ("assigning", "assign_2"),
            ])
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let task = the_task(&e);
    assert_eq!(
        e.element_instance(task.value.element_instance_key)
            .unwrap()
            .state,
        State::Activated,
        "the element is activated while its creating listeners run (UserTaskProcessor: transitionToActivated after createUserTask)"
    );
    complete(&mut e, "on_create");
    complete_with_result(
        &mut e,
        "assign_1",
        false,
        json!({"assignee": "new_assignee", "priority": 100}),
    )
    .unwrap();
    complete_with_result(
        &mut e,
        "assign_2",
        false,
        json!({"assignee": "twice_corrected_assignee"}),
    )
    .unwrap();
    let task = the_task(&e);
    assert_eq!(
        task.value.assignee.as_deref(),
        Some("twice_corrected_assignee")
    );
    assert_eq!(task.value.priority, 100);
    let intents: Vec<String> = user_task_events(&e).into_iter().map(|(i, _)| i).collect();
    assert_eq!(
        intents,
        [
            "CREATING",
            "CREATED",
            "ASSIGNING",
            "CORRECTED",
            "CORRECTED",
            "ASSIGNED"
        ]
    );
    e.complete_user_task(task.key, VariableDocument::new())
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

/// TaskListenerTest.shouldRevertCorrectedUserTaskDataWhenAssigningOnCreationTaskListenerDenies:
/// ASSIGNMENT_DENIED, the task stays created and unassigned, corrections reverted.
#[test]
fn a_denied_assignment_on_creation_leaves_the_task_unassigned() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&format!(
            r#"<zeebe:assignmentDefinition assignee="initial_assignee" />{}"#,
            task_listeners(&[("assigning", "assign_1"), ("assigning", "assign_2")])
        )),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    complete_with_result(
        &mut e,
        "assign_1",
        false,
        json!({"assignee": "new_assignee", "priority": 100}),
    )
    .unwrap();
    complete_with_result(&mut e, "assign_2", true, json!({})).unwrap();
    let task = the_task(&e);
    assert_eq!(task.state, UserTaskState::Created);
    assert_eq!(task.value.assignee, None);
    assert_eq!(task.value.priority, 50);
    assert_eq!(
        user_task_events(&e).last().unwrap(),
        &("ASSIGNMENT_DENIED".to_string(), None)
    );
}

/// JobCompleteProcessor.checkCreatingListenerJobForAssigneeCorrection; docs "On correcting the
/// assignee": only when the process defines no assignee.
#[test]
fn a_creating_listener_cannot_correct_an_assignee_the_process_defines() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&format!(
            r#"<zeebe:assignmentDefinition assignee="ann" />{}"#,
            task_listeners(&[("creating", "on_create")])
        )),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let job = job_of_type(&e, "on_create");
    let rejection =
        complete_with_result(&mut e, "on_create", false, json!({"assignee": "bob"})).unwrap_err();
    assert_eq!(rejection.rejection_type, RejectionType::InvalidArgument);
    assert_eq!(
        rejection.message,
        format!(
            "Expected to complete task listener job, but correcting the assignee on 'CREATING' event is not supported \
             when the user task has an assignee defined in the model (job key '{}', type 'on_create', processInstanceKey '{pi}'). \
             Use the 'CREATING' event to set an assignee only if it was not defined. \
             Use the 'ASSIGNING' event to correct an assignee that is already defined.\n",
            job.key
        )
    );
}

/// JobCompleteProcessor: the rejections of a task listener job completion (deny on an event that
/// cannot be denied, deny with corrections, an unknown correction, variables). Zeebe writes
/// its messages as text blocks, which end with a line break.
#[test]
fn task_listener_completions_zeebe_rejects() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&task_listeners(&[
            ("creating", "on_create"),
            ("completing", "on_complete"),
        ])),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let create = job_of_type(&e, "on_create");
    let rejection = complete_with_result(&mut e, "on_create", true, json!({})).unwrap_err();
    assert_eq!(rejection.rejection_type, RejectionType::InvalidArgument);
    assert_eq!(
        rejection.message,
        format!(
            "Denying result is not supported for 'CREATING' task listener jobs (job key '{}', type 'on_create', processInstanceKey '{pi}'). \
             Only the following listener event types support denying: [ASSIGNING, COMPLETING, UPDATING].\n",
            create.key
        )
    );
    let rejection = e
        .complete_job(create.key, doc(json!({"x": 1})))
        .unwrap_err();
    assert_eq!(rejection.rejection_type, RejectionType::InvalidArgument);
    assert_eq!(
        rejection.message,
        format!(
            "Task Listener job completion with variables payload provided is not yet supported (job key '{}', type 'on_create', processInstanceKey '{pi}'). \
             Support will be enabled with the resolution of issue #23702.\n",
            create.key
        )
    );
    complete(&mut e, "on_create");
    let task = the_task(&e);
    e.complete_user_task(task.key, VariableDocument::new())
        .unwrap();
    let job = job_of_type(&e, "on_complete");
    let rejection =
        complete_with_result(&mut e, "on_complete", true, json!({"priority": 10})).unwrap_err();
    assert_eq!(rejection.rejection_type, RejectionType::InvalidArgument);
    assert_eq!(
        rejection.message,
        format!(
            "Expected to complete task listener job with corrections, but the job result is denied (job key '{}', type 'on_complete', processInstanceKey '{pi}'). \
             The corrections would be reverted by the denial. Either complete the job with corrections without setting denied, \
             or complete the job with a denied result but no corrections.\n",
            job.key
        )
    );
    let rejection =
        complete_with_result(&mut e, "on_complete", false, json!({"name": "x"})).unwrap_err();
    assert_eq!(rejection.rejection_type, RejectionType::InvalidArgument);
    assert_eq!(
        rejection.message,
        format!(
            "Expected to complete task listener job with a corrections result, but property 'name' cannot be corrected \
             (job key '{}', type 'on_complete', processInstanceKey '{pi}'). \
             Only the following properties can be corrected: [assignee, candidateGroupsList, candidateUsersList, dueDate, followUpDate, priority].\n",
            job.key
        )
    );
    assert_eq!(the_task(&e).value.priority, 50, "nothing was applied");
}

/// TaskListenerTest.shouldRetryUserTaskAssignCommandAfterExtractValueErrorIncidentResolution:
/// a listener whose type cannot be evaluated is an incident; resolving it runs every listener of
/// the transition again (IncidentResolveProcessor: the user task command of the intermediate
/// state is processed again).
#[test]
fn a_task_listener_expression_incident_reruns_the_transitions_listeners() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&task_listeners(&[
            ("assigning", "assign_1"),
            ("assigning", "=assigning_listener_var_name"),
            ("assigning", "assign_3"),
        ])),
    );
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let task = the_task(&e);
    e.assign_user_task(task.key, Some("me")).unwrap();
    complete(&mut e, "assign_1");
    let incident = the_incident(&e);
    assert_eq!(incident.error_type, ErrorType::ExtractValueError);
    assert_eq!(
        &*incident.error_message,
        "Expected result of the expression 'assigning_listener_var_name' to be 'STRING', but was 'NULL'. \
         The evaluation reported the following warnings:\n\
         [NO_VARIABLE_FOUND] No variable found with name 'assigning_listener_var_name'"
    );
    e.set_variables(
        pi,
        doc(json!({"assigning_listener_var_name": "expression_assigning_listener_2"})),
        false,
    )
    .unwrap();
    e.resolve_incident(incident.key).unwrap();
    for job_type in ["assign_1", "expression_assigning_listener_2", "assign_3"] {
        complete(&mut e, job_type);
    }
    let task = the_task(&e);
    assert_eq!(task.value.assignee.as_deref(), Some("me"));
    assert_eq!(e.user_tasks().len(), 1, "the same user task");
}

/// UserTaskVariableUpdateTest: variables set on the user task's scope are an update transition
/// (UPDATING with changedAttributes [variables]); while the task is ASSIGNING the update is
/// rejected.
#[test]
fn variables_set_on_the_task_are_an_update_transition() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&format!(
            r#"<zeebe:assignmentDefinition assignee="initial_assignee" />{}"#,
            task_listeners(&[("assigning", "on_assign"), ("updating", "on_update")])
        )),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let task = the_task(&e);
    let scope = task.value.element_instance_key;
    let rejection = e
        .set_variables(scope, doc(json!({"employeeId": "E12345"})), true)
        .unwrap_err();
    assert_eq!(
        rejection.message,
        format!(
            "Expected to trigger update transition for user task with key '{}', but it is in state 'ASSIGNING'",
            task.key
        )
    );
    complete(&mut e, "on_assign");
    e.set_variables(scope, doc(json!({"approvalStatus": "APPROVED"})), true)
        .unwrap();
    let update = job_of_type(&e, "on_update");
    assert_eq!(update.listener_event_type, ListenerEventType::Updating);
    complete(&mut e, "on_update");
    let intents: Vec<String> = user_task_events(&e).into_iter().map(|(i, _)| i).collect();
    assert_eq!(intents[intents.len() - 2..], ["UPDATING", "UPDATED"]);
}

/// TaskListenerTest.shouldIncludeConfiguredUserTaskDataInCompleteTaskListenerJobHeaders
/// (BpmnJobBehavior.extractUserTaskHeaders): a task listener job carries the task's data,
/// the key, the priority and the action; empty values are left out.
#[test]
fn a_task_listener_job_carries_the_task_data_in_its_headers() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&format!(
            r#"<zeebe:assignmentDefinition assignee="admin" candidateUsers="user_A, user_B" candidateGroups="group_A, group_C, group_F" />
            <zeebe:taskSchedule dueDate="2095-09-18T10:31:10+02:00" />{}"#,
            task_listeners(&[("completing", "on_complete")])
        )),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let task = the_task(&e);
    e.complete_user_task(task.key, VariableDocument::new())
        .unwrap();
    let job = job_of_type(&e, "on_complete");
    let mut headers: Vec<(String, String)> = job
        .custom_headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    headers.sort();
    let mut expected: Vec<(String, String)> = [
        ("io.camunda.zeebe:action", "complete".to_string()),
        ("io.camunda.zeebe:assignee", "admin".to_string()),
        (
            "io.camunda.zeebe:candidateGroups",
            r#"["group_A","group_C","group_F"]"#.to_string(),
        ),
        (
            "io.camunda.zeebe:candidateUsers",
            r#"["user_A","user_B"]"#.to_string(),
        ),
        (
            "io.camunda.zeebe:dueDate",
            "2095-09-18T10:31:10+02:00".to_string(),
        ),
        ("io.camunda.zeebe:priority", "50".to_string()),
        ("io.camunda.zeebe:userTaskKey", task.key.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    expected.sort();
    assert_eq!(headers, expected);
}

/// TaskListenerCorrectionsTest.verifyChangedAttributesAreTrackedOnlyForActuallyCorrectedValues:
/// a correction to the value a task already has writes no CORRECTED record; the next listener's
/// job names what the transition changes by then (`changedAttributes`).
#[test]
fn only_corrections_that_change_a_value_are_recorded() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&task_listeners(&[
            ("assigning", "assign_1"),
            ("assigning", "assign_2"),
            ("assigning", "assign_3"),
        ])),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let task = the_task(&e);
    e.assign_user_task(task.key, Some("ann")).unwrap();
    assert_eq!(
        job_of_type(&e, "assign_1").custom_headers["io.camunda.zeebe:changedAttributes"],
        r#"["assignee"]"#
    );
    complete_with_result(&mut e, "assign_1", false, json!({"priority": 80})).unwrap();
    assert_eq!(
        job_of_type(&e, "assign_2").custom_headers["io.camunda.zeebe:changedAttributes"],
        r#"["assignee","priority"]"#
    );
    complete_with_result(&mut e, "assign_2", false, json!({"priority": 80})).unwrap();
    complete(&mut e, "assign_3");
    let intents: Vec<String> = user_task_events(&e).into_iter().map(|(i, _)| i).collect();
    assert_eq!(
        intents,
        ["CREATING", "CREATED", "ASSIGNING", "CORRECTED", "ASSIGNED"]
    );
    let task = the_task(&e);
    assert_eq!(task.value.priority, 80);
    assert_eq!(task.value.assignee.as_deref(), Some("ann"));
}

/// TaskListenerDenialsTest (deniedReason): the denial record carries the listener's reason and
/// the task as it was before the transition.
#[test]
fn a_denial_record_carries_the_reason() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&task_listeners(&[("completing", "on_complete")])),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let task = the_task(&e);
    e.complete_user_task(task.key, VariableDocument::new())
        .unwrap();
    let job = job_of_type(&e, "on_complete");
    e.complete_job_with_result(
        job.key,
        VariableDocument::new(),
        Some(JobResult::UserTask {
            denied: true,
            denied_reason: Some("missing signature".into()),
            corrections: VariableDocument::new(),
        }),
    )
    .unwrap();
    let denial = e
        .records()
        .iter()
        .rev()
        .find_map(|r| match &r.value {
            RecordValue::UserTask(t) if r.intent.as_str() == "COMPLETION_DENIED" => Some(t.clone()),
            _ => None,
        })
        .expect("a COMPLETION_DENIED record");
    assert_eq!(denial.denied_reason.as_deref(), Some("missing signature"));
    assert_eq!(denial.action, None, "the task as it was");
    assert_eq!(the_task(&e).state, UserTaskState::Created);
}

/// UserTaskVariableUpdateTest (VariableDocumentUpdateProcessor, UserTaskProcessor.writeRejectionForCommand):
/// a denied update by variables leaves them unset and writes VARIABLE_DOCUMENT UPDATE_DENIED.
#[test]
fn a_denied_variable_update_sets_no_variable() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(&task_listeners(&[("updating", "on_update")])),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let scope = the_task(&e).value.element_instance_key;
    e.set_variables(scope, doc(json!({"status": "approved"})), true)
        .unwrap();
    let job = job_of_type(&e, "on_update");
    assert_eq!(
        job.custom_headers["io.camunda.zeebe:changedAttributes"],
        r#"["variables"]"#
    );
    assert_eq!(
        e.variable(scope, "status"),
        None,
        "not before the listeners ran"
    );
    complete_with_result(&mut e, "on_update", true, json!({})).unwrap();
    assert_eq!(e.variable(scope, "status"), None);
    let intents: Vec<(String, String)> = e
        .records()
        .iter()
        .filter(|r| r.record_type == RecordType::Event)
        .filter_map(|r| match &r.value {
            RecordValue::UserTask(_) | RecordValue::VariableDocument { .. } => Some((
                r.value_type.as_str().to_string(),
                r.intent.as_str().to_string(),
            )),
            _ => None,
        })
        .skip(2)
        .collect();
    assert_eq!(
        intents,
        events(&[
            ("VARIABLE_DOCUMENT", "UPDATING"),
            ("USER_TASK", "UPDATING"),
            ("USER_TASK", "UPDATE_DENIED"),
            ("VARIABLE_DOCUMENT", "UPDATE_DENIED"),
        ])
    );
}

/// IncidentResolveProcessor.NO_RETRIES_LEFT_MSG: a job incident is resolved only once the job
/// has retries again.
#[test]
fn a_job_incident_without_retries_cannot_be_resolved() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &service_task_process(r#"<zeebe:taskDefinition type="work" />"#),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let work = job_of_type(&e, "work");
    e.fail_job(work.key, 0, "", 0, VariableDocument::new())
        .unwrap();
    let incident = the_incident(&e);
    let rejection = e.resolve_incident(incident.key).unwrap_err();
    assert_eq!(rejection.rejection_type, RejectionType::InvalidState);
    assert_eq!(
        rejection.message,
        format!(
            "Expected to resolve incident with key '{}', but job with key '{}' has no retries left. \
             Please update the job retries and retry resolving the incident",
            incident.key, work.key
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Typed expression results. Zeebe ExpressionProcessor (and ExpressionProcessorTest), the timer
// transformers in CatchEventTransformer, BpmnUserTaskBehavior, BpmnJobBehavior. Camunda 8.9
// docs, modeler/bpmn/timer-events: a timer expression may return a date-time, a duration or a
// cycle, and a timer's now() reads the engine clock.

/// The message of the one incident the process `p` of `xml` raises when it starts, or why there
/// is none.
fn incident_message_of(xml: &str, variables: serde_json::Value) -> Result<String, String> {
    let mut e = Engine::default();
    deploy(&mut e, xml);
    e.create_instance(CreateInstance::new("p").variables(doc(variables)))
        .unwrap();
    match e.incidents().as_slice() {
        [incident] if incident.error_type == ErrorType::ExtractValueError => {
            Ok(incident.error_message.to_string())
        }
        other => Err(format!("no EXTRACT_VALUE_ERROR incident but {other:?}")),
    }
}

fn timer_catch(kind: &str, expression: &str) -> String {
    definitions(&process(
        "p",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:{kind}>{expression}</bpmn:{kind}></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
            <bpmn:endEvent id="end" />{}"#,
            chain(&["start", "wait", "end"])
        ),
    ))
}

#[test]
fn a_timer_date_from_now_is_due_at_the_engine_clock_plus_the_duration() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &timer_catch("timeDate", "=now() + duration(&quot;PT2H&quot;)"),
    );
    let start = e.now();
    e.create_instance(CreateInstance::new("p")).unwrap();
    assert!(e.incidents().is_empty(), "{:?}", e.incidents());
    assert_eq!(e.timers().len(), 1);
    assert_eq!(e.timers()[0].due, start + 2 * 3_600_000);
}

/// The type checks' messages, verbatim (ExpressionProcessor.typeCheck and the typed
/// evaluations; ExpressionProcessorTest; BpmnUserTaskBehavior; BpmnJobBehavior.evalTypeExp).
#[test]
fn typed_results_zeebe_refuses_and_its_messages() {
    let cases = [
        (
            timer_catch("timeDuration", "=5"),
            "Expected result of the expression '5' to be one of '[DURATION, PERIOD, STRING]', but was 'NUMBER'.",
        ),
        (
            timer_catch("timeDuration", "=&quot;soon&quot;"),
            "Invalid duration format 'soon' for expression '\"soon\"'.",
        ),
        (
            timer_catch("timeDate", "=today()"),
            "Expected result of the expression 'today()' to be one of '[DATE_TIME, STRING]', but was 'null'.",
        ),
        (
            timer_catch("timeDate", "=&quot;tomorrow&quot;"),
            "Invalid date-time format 'tomorrow' for expression '\"tomorrow\"'.",
        ),
        (
            user_task_process(r#"<zeebe:taskSchedule dueDate="=[1,2,3]" />"#),
            "Expected result of the expression '[1,2,3]' to be one of '[NULL, DATE_TIME, STRING]', but was 'ARRAY'.",
        ),
        (
            user_task_process(
                r#"<zeebe:assignmentDefinition candidateGroups="=&quot;not a list&quot;" />"#,
            ),
            "Expected result of the expression '\"not a list\"' to be 'ARRAY', but was 'STRING'.",
        ),
        (
            user_task_process(r#"<zeebe:assignmentDefinition candidateUsers="=[1,2,3]" />"#),
            "Expected result of the expression '[1,2,3]' to be 'ARRAY' containing 'STRING' items, but was 'ARRAY' containing at least one non-'STRING' item.",
        ),
        (
            user_task_process(r#"<zeebe:assignmentDefinition assignee="=[1,2,3]" />"#),
            "Expected result of the expression '[1,2,3]' to be 'STRING', but was 'ARRAY'.",
        ),
        (
            user_task_process(r#"<zeebe:assignmentDefinition assignee="=owner" />"#),
            "Expected result of the expression 'owner' to be 'STRING', but was 'NULL'. \
             The evaluation reported the following warnings:\n\
             [NO_VARIABLE_FOUND] No variable found with name 'owner'",
        ),
        (
            user_task_process(r#"<zeebe:priorityDefinition priority="=50.5" />"#),
            "Expected result of the expression '50.5' to be an integer, but was a decimal.",
        ),
        (
            user_task_process(r#"<zeebe:priorityDefinition priority="=150" />"#),
            "Expected priority to be in the range [0,100] but was '150'.",
        ),
        (
            service_task_process(r#"<zeebe:taskDefinition type="=&quot;&quot;" />"#),
            "Expected result of the expression '\"\"' to be a not-empty string, but was an empty string.",
        ),
        // A FEEL date is no string: BpmnJobBehavior.evalTypeExp (evaluateStringExpression).
        (
            service_task_process(r#"<zeebe:taskDefinition type="=today()" />"#),
            "Expected result of the expression 'today()' to be 'STRING', but was 'null'.",
        ),
        // BpmnJobBehavior.evalRetriesExp (evaluateLongExpression).
        (
            service_task_process(
                r#"<zeebe:taskDefinition type="work" retries="=&quot;three&quot;" />"#,
            ),
            "Expected result of the expression '\"three\"' to be 'NUMBER', but was 'STRING'.",
        ),
        // evaluateDateTimeExpression: ZonedDateTime.parse needs an offset.
        (
            timer_catch("timeDate", "=&quot;2025-01-01T10:00:00&quot;"),
            "Invalid date-time format '2025-01-01T10:00:00' for expression '\"2025-01-01T10:00:00\"'.",
        ),
        // evaluateMessageCorrelationKeyExpression: a date-time is neither a string nor a number.
        (
            definitions(&format!(
                "{}{}",
                message("paid-message", "paid", Some("=now()")),
                process(
                    "p",
                    &format!(
                        r#"<bpmn:startEvent id="start" />
                        <bpmn:intermediateCatchEvent id="wait"><bpmn:messageEventDefinition messageRef="paid-message" /></bpmn:intermediateCatchEvent>
                        <bpmn:endEvent id="end" />{}"#,
                        chain(&["start", "wait", "end"])
                    ),
                )
            )),
            "Failed to extract the correlation key for 'now()': The value must be either a string or a number, but was 'DATE_TIME'.",
        ),
        // evaluateArrayExpression: the multi-instance input collection.
        (
            definitions(&process(
                "p",
                &format!(
                    r#"<bpmn:startEvent id="start" />
                    <bpmn:task id="each"><bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="=now()" inputElement="item" /></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics></bpmn:task>
                    <bpmn:endEvent id="end" />{}"#,
                    chain(&["start", "each", "end"])
                ),
            )),
            "Expected result of the expression 'now()' to be 'ARRAY', but was 'DATE_TIME'.",
        ),
    ];
    let mut wrong = Vec::new();
    for (xml, expected) in cases {
        match incident_message_of(&xml, json!({})) {
            Ok(got) if got == expected => {}
            Ok(got) => wrong.push(format!("expected: {expected}\n     got: {got}")),
            Err(why) => wrong.push(format!("expected: {expected}\n     got: {why}")),
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n\n"));
}

/// CatchEventTransformer: a time cycle is evaluated as a STRING only (the cycle() function
/// builds one); a duration value is refused.
#[test]
fn a_time_cycle_is_a_string() {
    let xml = definitions(&process(
        "p",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:userTask id="task"><bpmn:extensionElements><zeebe:userTask /></bpmn:extensionElements></bpmn:userTask>
            <bpmn:boundaryEvent id="remind" attachedToRef="task" cancelActivity="false"><bpmn:timerEventDefinition><bpmn:timeCycle>=duration(&quot;PT1H&quot;)</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:boundaryEvent>
            <bpmn:endEvent id="end" /><bpmn:endEvent id="reminded" />{}{}"#,
            chain(&["start", "task", "end"]),
            chain(&["remind", "reminded"])
        ),
    ));
    assert_eq!(
        incident_message_of(&xml, json!({})).as_deref(),
        Ok(
            "Expected result of the expression 'duration(\"PT1H\")' to be 'STRING', but was 'DURATION'."
        )
    );
}

/// BpmnUserTaskBehavior.evaluateDateExpression stores a date-time value as an ISO date-time
/// (ZonedDateTime.toString): the task's due date is an instant, not FEEL's `@zone` text.
#[test]
fn due_dates_from_date_time_values_are_iso_date_times() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(
            r#"<zeebe:taskSchedule dueDate="=now() + duration(&quot;P1D&quot;)" followUpDate="=date and time(&quot;2025-03-01T09:30:00+01:00&quot;)" />"#,
        ),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    assert!(e.incidents().is_empty(), "{:?}", e.incidents());
    let task = the_task(&e);
    let due = task.value.due_date.as_deref().unwrap();
    let follow_up = task.value.follow_up_date.as_deref().unwrap();
    assert!(
        !due.contains('@') && !follow_up.contains('@'),
        "{due} {follow_up}"
    );
    assert_eq!(
        due.parse::<jiff::Timestamp>().unwrap().as_millisecond(),
        e.now() + 86_400_000
    );
    assert_eq!(follow_up, "2025-03-01T09:30+01:00");
}

/// BpmnUserTaskBehavior.evaluateDateExpression: an ISO string is read with
/// ZonedDateTime.parse and kept as ZonedDateTime.toString prints it (zero seconds left out).
#[test]
fn due_dates_from_strings_are_kept_as_java_prints_them() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &user_task_process(
            r#"<zeebe:taskSchedule dueDate="2025-01-02T00:00:00Z" followUpDate="2095-09-18T10:31:10+02:00" />"#,
        ),
    );
    e.create_instance(CreateInstance::new("p")).unwrap();
    let task = the_task(&e);
    assert_eq!(task.value.due_date.as_deref(), Some("2025-01-02T00:00Z"));
    assert_eq!(
        task.value.follow_up_date.as_deref(),
        Some("2095-09-18T10:31:10+02:00")
    );
}

// ---------------------------------------------------------------------------------------------
// An event sub-process inside a job-worker ad-hoc sub-process. Zeebe AdHocSubProcessProcessor:
// beforeExecutionPathCompleted appends the outputElement, evaluated in the completed child's
// scope, for every child (event sub-processes included); JobWorkerBehavior.afterExecutionPathCompleted
// cancels the open job and creates a new one. camunda/camunda PR #36867 ("the output collection is
// updated when the event sub-process completes", "a job is recreated when the event sub-process
// completes").

#[test]
fn a_completed_event_sub_process_is_appended_to_the_output_collection() {
    let mut e = Engine::default();
    deploy(
        &mut e,
        &definitions(&format!(
            "{}{}",
            message("update-message", "update", Some("=caseId")),
            process(
                "p",
                &format!(
                    r#"<bpmn:startEvent id="start" />
                <bpmn:adHocSubProcess id="agent">
                  <bpmn:extensionElements>
                    <zeebe:taskDefinition type="agent-job" />
                    <zeebe:adHoc outputCollection="toolCallResults" outputElement="={{id: toolCall._meta.id, name: toolCall._meta.name, content: toolCallResult}}" />
                  </bpmn:extensionElements>
                  <bpmn:serviceTask id="tool"><bpmn:extensionElements><zeebe:taskDefinition type="tool" /></bpmn:extensionElements></bpmn:serviceTask>
                  <bpmn:subProcess id="updates" triggeredByEvent="true">
                    <bpmn:startEvent id="update-received" isInterrupting="false"><bpmn:messageEventDefinition messageRef="update-message" /></bpmn:startEvent>
                    <bpmn:scriptTask id="note"><bpmn:extensionElements><zeebe:script expression="=&quot;new: &quot; + text" resultVariable="toolCallResult" /></bpmn:extensionElements></bpmn:scriptTask>
                    <bpmn:endEvent id="noted" />{}
                  </bpmn:subProcess>
                </bpmn:adHocSubProcess>
                <bpmn:endEvent id="end" />{}"#,
                    chain(&["update-received", "note", "noted"]),
                    chain(&["start", "agent", "end"])
                ),
            )
        )),
    );
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"caseId": "c-1"}))))
        .unwrap();
    let first_job = job_of_type(&e, "agent-job");
    let agent = first_job.element_instance_key;
    e.publish_message(
        PublishMessage::new("update", "c-1").variables(doc(json!({"text": "please call back"}))),
    )
    .unwrap();
    assert_eq!(
        e.variable(agent, "toolCallResults").map(|v| v.to_json()),
        Some(json!([{"id": null, "name": null, "content": "new: please call back"}]))
    );
    let second_job = job_of_type(&e, "agent-job");
    assert_ne!(
        second_job.key, first_job.key,
        "the open job was canceled and a new one created"
    );
    assert_eq!(state_of(&e, pi), State::Activated);
}
