//! The instructions that act, as REST calls: instances created, jobs and user tasks completed,
//! messages and signals sent, variables set, incidents resolved, the clock moved, mock job
//! workers started. What the API cannot express is skipped with the reason.

use baton_cpt::model::{self, Instruction};
use baton_rest::Key;
use baton_rest::reads::{ElementInstanceResult, IncidentResult};
use serde_json::{Value, json};

use super::case::Done;
use super::jobs::find_job;
use super::session::{Answer, Session};
use crate::client::CallError;

fn rejected(what: &str, e: CallError) -> String {
    match &e {
        CallError::Status {
            problem: Some(p), ..
        } => format!(
            "{what}: the endpoint rejected it ({}): {}",
            p.title, p.detail
        ),
        _ => format!("{what}: {e}"),
    }
}

/// Why an instruction cannot run remotely, by type (`None`: it runs).
fn not_expressible(instruction: &Instruction) -> Option<String> {
    use Instruction as I;
    let reason = match instruction {
        I::MockDmnDecision(_) => "a decision cannot be replaced through the REST API",
        I::MockChildProcess(_) => "a called process cannot be replaced through the REST API",
        I::ConditionalBehavior(_) => {
            "conditional behaviours run inside baton's settle loop; the remote runner does not run them yet"
        }
        I::SuspendProcessInstance(_) | I::ResumeProcessInstance(_) => {
            "suspending process instances is not part of the REST API"
        }
        I::SetClusterVariables(_) | I::CreateGlobalTaskListener(_) => {
            "this engine setting is baton's own; a cluster is configured, not told"
        }
        I::InjectJobFault(_)
        | I::InjectModelFault(_)
        | I::SetJobTimeout(_)
        | I::SetTimeSkipping(_)
        | I::AssertInvariant(_)
        | I::AssertSideEffects(_)
        | I::SaveSnapshot(_)
        | I::RestoreSnapshot(_) => {
            "baton's fault, invariant and snapshot extensions run in-process only"
        }
        I::ReleaseJob(_)
        | I::TriggerTimer(_)
        | I::RunCalledProcess(_)
        | I::StubCallActivityComplete(_)
        | I::StubCallActivityThrowError(_) => {
            "from CPT's unreleased development line, which baton reads but does not run"
        }
        I::CreateProcessInstance(c)
            if c.reserve_jobs || c.stub_call_activities || c.hold_timers =>
        {
            "reserveJobs, stubCallActivities and holdTimers are from CPT's unreleased development line"
        }
        I::EvaluateConditionalStartEvent(_) => {
            "the remote runner does not evaluate conditional start events yet"
        }
        I::MockJobWorkerCompleteJob(m) if m.element_id.is_some() => {
            "a job worker activates jobs by type; the REST API cannot give it the jobs of one element"
        }
        I::MockJobWorkerThrowBpmnError(m) if m.element_id.is_some() => {
            "a job worker activates jobs by type; the REST API cannot give it the jobs of one element"
        }
        I::MockJobWorkerCompleteJob(m) if m.side_effect.is_some() => {
            "side effects are recorded by baton's in-process mocks only"
        }
        I::MockJobWorkerCompleteJob(m) if m.use_example_data => {
            "example data is read from the BPMN in-process only"
        }
        I::CompleteJob(c) if c.use_example_data => {
            "example data is read from the BPMN in-process only"
        }
        I::CompleteUserTask(c) if c.use_example_data => {
            "example data is read from the BPMN in-process only"
        }
        _ => return None,
    };
    Some(reason.to_owned())
}

fn process_id(sel: &model::ProcessSelector) -> Result<&str, String> {
    sel.process_definition_id
        .as_deref()
        .ok_or_else(|| "Missing required property: processDefinitionId".to_owned())
}

/// Runs an instruction that acts.
pub(super) fn run_action(
    session: &Session<'_>,
    instruction: &Instruction,
    warnings: &mut Vec<String>,
) -> Result<Done, String> {
    use Instruction as I;
    if let Some(reason) = not_expressible(instruction) {
        return Ok(Done::SkipCase(reason));
    }
    let client = session.client;
    let post = |path: &str, body: Value, what: &str| {
        client
            .call_text("POST", path, Some(&body))
            .map(|_| Done::Ok)
            .map_err(|e| rejected(what, e))
    };
    match instruction {
        I::CreateProcessInstance(c) => {
            let id = process_id(&c.process_definition_selector)?;
            let body = json!({
                "processDefinitionId": id,
                "variables": c.variables,
                "startInstructions": c.start_instructions.iter().map(|s| json!({"elementId": s.element_id})).collect::<Vec<_>>(),
                "runtimeInstructions": c.runtime_instructions.iter().map(|r| json!({"type": "TERMINATE_PROCESS_INSTANCE", "afterElementId": r.after_element_id})).collect::<Vec<_>>(),
            });
            let created: baton_rest::process_instances::CreateProcessInstanceResult = client
                .call("POST", "/v2/process-instances", Some(&body))
                .map_err(|e| rejected(&format!("creating an instance of \"{id}\""), e))?;
            session
                .created
                .borrow_mut()
                .push(created.process_instance_key);
            Ok(Done::Ok)
        }
        I::CompleteJob(c) => {
            let job = find_job(session, &c.job_selector, None, "complete")?;
            post(
                &format!("/v2/jobs/{}/completion", job.key),
                json!({"variables": c.variables}),
                &format!("completing the job at \"{}\"", job.element_id),
            )
        }
        I::ThrowBpmnErrorFromJob(t) => {
            let job = find_job(session, &t.job_selector, None, "throw a BPMN error from")?;
            post(
                &format!("/v2/jobs/{}/error", job.key),
                json!({"errorCode": t.error_code, "errorMessage": t.error_message, "variables": t.variables}),
                &format!(
                    "throwing BPMN error \"{}\" from the job at \"{}\"",
                    t.error_code, job.element_id
                ),
            )
        }
        I::CompleteJobAdHocSubProcess(c) => {
            let job = find_job(
                session,
                &c.job_selector,
                Some("AD_HOC_SUB_PROCESS"),
                "complete",
            )?;
            let activate: Vec<Value> = c
                .activate_elements
                .iter()
                .map(|a| json!({"elementId": a.element_id, "variables": a.variables}))
                .collect();
            post(
                &format!("/v2/jobs/{}/completion", job.key),
                json!({"variables": c.variables, "result": {
                    "type": "adHocSubProcess",
                    "activateElements": activate,
                    "isCompletionConditionFulfilled": c.completion_condition_fulfilled,
                    "isCancelRemainingInstances": c.cancel_remaining_instances,
                }}),
                &format!(
                    "completing the ad-hoc sub-process job at \"{}\"",
                    job.element_id
                ),
            )
        }
        I::CompleteJobUserTaskListener(c) => {
            let job = find_job(session, &c.job_selector, Some("TASK_LISTENER"), "complete")?;
            let corrections = c.corrections.as_ref().map(|k| {
                let mut m = serde_json::Map::new();
                let mut put = |name: &str, v: Value| {
                    if !v.is_null() {
                        m.insert(name.to_owned(), v);
                    }
                };
                put("assignee", json!(k.assignee));
                put("dueDate", json!(k.due_date));
                put("followUpDate", json!(k.follow_up_date));
                put("candidateUsers", json!(k.candidate_users));
                put("candidateGroups", json!(k.candidate_groups));
                put("priority", json!(k.priority));
                m
            });
            post(
                &format!("/v2/jobs/{}/completion", job.key),
                json!({"result": {"type": "userTask", "denied": c.denied, "deniedReason": c.denied_reason, "corrections": corrections}}),
                &format!("completing the task listener job at \"{}\"", job.element_id),
            )
        }
        I::CompleteUserTask(c) => complete_user_task(session, c),
        I::PublishMessage(p) => post(
            "/v2/messages/publication",
            json!({"name": p.name, "correlationKey": p.correlation_key.clone().unwrap_or_default(),
                   "timeToLive": p.time_to_live.unwrap_or(0), "messageId": p.message_id, "variables": p.variables}),
            &format!("publishing message \"{}\"", p.name),
        ),
        I::CorrelateMessage(c) => post(
            "/v2/messages/correlation",
            json!({"name": c.name, "correlationKey": c.correlation_key.clone().unwrap_or_default(), "variables": c.variables}),
            &format!("correlating message \"{}\"", c.name),
        ),
        I::BroadcastSignal(b) => post(
            "/v2/signals/broadcast",
            json!({"signalName": b.signal_name, "variables": b.variables}),
            &format!("broadcasting signal \"{}\"", b.signal_name),
        ),
        I::UpdateVariables(u) => update_variables(session, u),
        I::ResolveIncident(r) => resolve_incident(session, r),
        I::EvaluateDecision(e) => {
            let Some(id) = e
                .decision_definition_selector
                .decision_definition_id
                .as_deref()
            else {
                return Err("Missing required property: decisionDefinitionId".into());
            };
            match client.call_text(
                "POST",
                "/v2/decision-definitions/evaluation",
                Some(&json!({"decisionDefinitionId": id, "variables": e.variables})),
            ) {
                Ok(_) => Ok(Done::Ok),
                Err(e) if e.not_served() => Ok(Done::SkipCheck(format!(
                    "the endpoint does not evaluate decisions ({e})"
                ))),
                Err(e) => Err(rejected(&format!("evaluating decision \"{id}\""), e)),
            }
        }
        I::IncreaseTime(t) => {
            let ms =
                baton_testing::clock::parse_duration(&t.duration).map_err(|e| e.to_string())?;
            move_clock(session, ClockMove::By(ms.max(0)))
        }
        I::SetTime(t) => {
            let at = baton_testing::clock::parse_instant(&t.time).map_err(|e| e.to_string())?;
            move_clock(session, ClockMove::To(at))
        }
        I::MockJobWorkerCompleteJob(m) => {
            warnings.extend(session.add_worker(&m.job_type, Answer::Complete(m.variables.clone())));
            Ok(Done::Ok)
        }
        I::MockJobWorkerThrowBpmnError(m) => {
            warnings.extend(session.add_worker(
                &m.job_type,
                Answer::ThrowError {
                    code: m.error_code.clone(),
                    message: m.error_message.clone(),
                    variables: m.variables.clone(),
                },
            ));
            Ok(Done::Ok)
        }
        I::MockAiAgent(m) => super::agent::mock_ai_agent(session, m),
        other => Ok(Done::SkipCase(format!(
            "{} is not run by the remote runner",
            other.type_name()
        ))),
    }
}

fn complete_user_task(session: &Session<'_>, c: &model::CompleteUserTask) -> Result<Done, String> {
    let sel = &c.user_task_selector;
    let task = super::checks::find_user_task(session, sel, true)?;
    session
        .client
        .call_text(
            "POST",
            &format!("/v2/user-tasks/{}/completion", task.user_task_key),
            Some(&json!({"variables": c.variables})),
        )
        .map(|_| Done::Ok)
        .map_err(|e| {
            rejected(
                &format!("completing the user task \"{}\"", task.element_id),
                e,
            )
        })
}

fn update_variables(session: &Session<'_>, u: &model::UpdateVariables) -> Result<Done, String> {
    let instance = session.instance(process_id(&u.process_instance_selector)?)?;
    let (scope, local) = match &u.element_selector {
        None => (instance, false),
        Some(sel) => {
            let element = element_instance(session, instance, sel)?;
            (element, u.create_local_variables)
        }
    };
    session
        .client
        .call_text(
            "PUT",
            &format!("/v2/element-instances/{scope}/variables"),
            Some(&json!({"variables": u.variables, "local": local})),
        )
        .map(|_| Done::Ok)
        .map_err(|e| rejected("updating the variables", e))
}

/// The oldest active instance of an element in a process instance.
fn element_instance(
    session: &Session<'_>,
    instance: Key,
    sel: &model::ElementSelector,
) -> Result<Key, String> {
    session.wait(|s| {
        let mut items: Vec<ElementInstanceResult> = s.search(
            "element-instances",
            json!({"processInstanceKey": instance.to_string(), "state": "ACTIVE"}),
        )?;
        items.sort_by_key(|i| i.element_instance_key);
        Ok(items
            .iter()
            .find(|i| super::checks::element_matches(sel, i))
            .map(|i| i.element_instance_key)
            .ok_or_else(|| {
                format!(
                    "expected an active instance of {}\n    but there is none",
                    super::checks::describe_element(sel)
                )
            }))
    })
}

fn resolve_incident(session: &Session<'_>, r: &model::ResolveIncident) -> Result<Done, String> {
    let sel = &r.incident_selector;
    let mut filter = serde_json::Map::new();
    filter.insert("state".into(), json!("ACTIVE"));
    if let Some(e) = &sel.element_id {
        filter.insert("elementId".into(), json!(e));
    }
    if let Some(p) = &sel.process_definition_id {
        filter.insert("processDefinitionId".into(), json!(p));
    }
    let incident = session.wait(|s| {
        let mut items: Vec<IncidentResult> =
            s.search("incidents", Value::Object(filter.clone()))?;
        let ours = s.case_instances()?;
        items.retain(|i| super::session::is_ours(&ours, i.process_instance_key));
        items.sort_by_key(|i| i.incident_key);
        Ok(items.into_iter().next().ok_or_else(|| {
            format!(
                "expected an active incident at {}\n    but there is none",
                sel.element_id.as_deref().unwrap_or("any element")
            )
        }))
    })?;
    // A job's incident needs retries before it resolves (as CPT does it).
    if let Some(job) = incident.job_key {
        session
            .client
            .call_text(
                "PATCH",
                &format!("/v2/jobs/{job}"),
                Some(&json!({"changeset": {"retries": 1}})),
            )
            .map_err(|e| rejected("giving the job a retry", e))?;
    }
    session
        .client
        .call_text(
            "POST",
            &format!("/v2/incidents/{}/resolution", incident.incident_key),
            None::<&()>,
        )
        .map(|_| Done::Ok)
        .map_err(|e| {
            rejected(
                &format!("resolving the incident at \"{}\"", incident.element_id),
                e,
            )
        })
}

enum ClockMove {
    By(i64),
    To(i64),
}

/// Moves the endpoint's clock: CPT's management route (`/actuator/clock/add`), else the public
/// clock (`PUT /v2/clock`, which pins it, with the current time read from the management
/// route). An endpoint with neither skips the case.
fn move_clock(session: &Session<'_>, how: ClockMove) -> Result<Done, String> {
    let client = session.client;
    session.clock_moved.set(true);
    let now = client.call::<Value>("GET", "/actuator/clock", None::<&()>);
    let offset = match (&how, &now) {
        (ClockMove::By(ms), _) => Some(*ms),
        (ClockMove::To(at), Ok(clock)) => clock["epochMilli"].as_i64().map(|now| at - now),
        (ClockMove::To(_), Err(_)) => None,
    };
    if let Some(offset) = offset {
        match client.call_text(
            "POST",
            "/actuator/clock/add",
            Some(&json!({"offsetMilli": offset})),
        ) {
            Ok(_) => return Ok(Done::Ok),
            Err(e) if !e.not_served() => return Err(rejected("moving the clock", e)),
            Err(_) => {}
        }
    }
    let target = match (&how, &now) {
        (ClockMove::To(at), _) => Some(*at),
        (ClockMove::By(ms), Ok(clock)) => clock["epochMilli"].as_i64().map(|now| now + ms),
        (ClockMove::By(_), Err(_)) => None,
    };
    let Some(target) = target else {
        return Ok(Done::SkipCase(
            "the endpoint's clock cannot be moved: it serves neither /actuator/clock nor a time to pin PUT /v2/clock to (enable Zeebe's controlled clock)".into(),
        ));
    };
    match client.call_text("PUT", "/v2/clock", Some(&json!({"timestamp": target}))) {
        Ok(_) => Ok(Done::Ok),
        Err(e) if e.not_served() || matches!(e.status(), Some(403)) => Ok(Done::SkipCase(format!(
            "the endpoint's clock cannot be moved ({e}); enable Zeebe's controlled clock"
        ))),
        Err(e) => Err(rejected("pinning the clock", e)),
    }
}
