//! The instructions that act: create instances, move time, complete jobs and user tasks, send
//! messages and signals, mock workers, decisions and child processes, and baton's engine
//! extensions (suspend and resume, cluster variables, global task listeners).

use serde::Deserialize;
use serde_json::Value;

use super::reader::present;
use super::{
    DecisionDefinitionSelector, ElementSelector, FormatError, IncidentSelector, JobSelector,
    ProcessSelector, Step, UserTaskSelector, Variables, error,
};

/// `{elementId}` of `startInstructions`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartInstruction {
    pub element_id: String,
}

/// The one runtime instruction type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum RuntimeInstructionType {
    #[serde(rename = "TERMINATE_PROCESS_INSTANCE")]
    TerminateProcessInstance,
}

/// `{type: TERMINATE_PROCESS_INSTANCE, afterElementId}` of `runtimeInstructions`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeInstruction {
    #[serde(rename = "type")]
    pub kind: RuntimeInstructionType,
    pub after_element_id: String,
}

/// CREATE_PROCESS_INSTANCE.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateProcessInstance {
    pub process_definition_selector: ProcessSelector,
    #[serde(default)]
    pub variables: Variables,
    #[serde(default)]
    pub start_instructions: Vec<StartInstruction>,
    #[serde(default)]
    pub runtime_instructions: Vec<RuntimeInstruction>,
    /// Development line, unconfirmed: not run by baton.
    #[serde(default)]
    pub reserve_jobs: bool,
    /// Development line, unconfirmed: not run by baton.
    #[serde(default)]
    pub stub_call_activities: bool,
    /// Development line, unconfirmed: not run by baton.
    #[serde(default)]
    pub hold_timers: bool,
}

/// INCREASE_TIME.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IncreaseTime {
    pub duration: String,
}

/// SET_TIME.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetTime {
    pub time: String,
}

/// COMPLETE_JOB.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteJob {
    pub job_selector: JobSelector,
    #[serde(default)]
    pub variables: Variables,
    #[serde(default)]
    pub use_example_data: bool,
}

/// THROW_BPMN_ERROR_FROM_JOB.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThrowBpmnErrorFromJob {
    pub job_selector: JobSelector,
    pub error_code: String,
    pub error_message: Option<String>,
    #[serde(default)]
    pub variables: Variables,
}

/// `{elementId, variables?}` of `activateElements`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivateElement {
    pub element_id: String,
    #[serde(default)]
    pub variables: Variables,
}

/// COMPLETE_JOB_AD_HOC_SUB_PROCESS.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteJobAdHocSubProcess {
    pub job_selector: JobSelector,
    #[serde(default)]
    pub variables: Variables,
    #[serde(default)]
    pub activate_elements: Vec<ActivateElement>,
    #[serde(default)]
    pub cancel_remaining_instances: bool,
    #[serde(default)]
    pub completion_condition_fulfilled: bool,
}

/// The `corrections` of COMPLETE_JOB_USER_TASK_LISTENER.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Corrections {
    pub assignee: Option<String>,
    pub due_date: Option<String>,
    pub follow_up_date: Option<String>,
    pub candidate_users: Option<Vec<String>>,
    pub candidate_groups: Option<Vec<String>>,
    pub priority: Option<i32>,
}

/// COMPLETE_JOB_USER_TASK_LISTENER.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteJobUserTaskListener {
    pub job_selector: JobSelector,
    #[serde(default)]
    pub denied: bool,
    pub denied_reason: Option<String>,
    pub corrections: Option<Corrections>,
}

/// MOCK_JOB_WORKER_COMPLETE_JOB.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MockJobWorkerCompleteJob {
    pub job_type: String,
    /// baton's extension (camunda/camunda#60882): only the jobs of this element, so that tools
    /// sharing one job type are mocked one by one. Wins over a mock of the job type alone.
    pub element_id: Option<String>,
    #[serde(default)]
    pub variables: Variables,
    #[serde(default)]
    pub use_example_data: bool,
    /// baton's extension: the worker's side effect with its idempotency key (see
    /// [`crate::faults::SideEffectJson`]).
    pub side_effect: Option<crate::faults::SideEffectJson>,
}

/// MOCK_JOB_WORKER_THROW_BPMN_ERROR.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MockJobWorkerThrowBpmnError {
    pub job_type: String,
    /// baton's extension: only the jobs of this element (see [`MockJobWorkerCompleteJob`]).
    pub element_id: Option<String>,
    pub error_code: String,
    pub error_message: Option<String>,
    #[serde(default)]
    pub variables: Variables,
}

/// COMPLETE_USER_TASK.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteUserTask {
    pub user_task_selector: UserTaskSelector,
    #[serde(default)]
    pub variables: Variables,
    #[serde(default)]
    pub use_example_data: bool,
}

/// PUBLISH_MESSAGE.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishMessage {
    pub name: String,
    pub correlation_key: Option<String>,
    #[serde(default)]
    pub variables: Variables,
    /// Milliseconds.
    pub time_to_live: Option<i64>,
    pub message_id: Option<String>,
}

/// CORRELATE_MESSAGE.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CorrelateMessage {
    pub name: String,
    pub correlation_key: Option<String>,
    #[serde(default)]
    pub variables: Variables,
}

/// BROADCAST_SIGNAL.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BroadcastSignal {
    pub signal_name: String,
    #[serde(default)]
    pub variables: Variables,
}

/// EVALUATE_CONDITIONAL_START_EVENT.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateConditionalStartEvent {
    /// A map: CPT's reader defaults it to empty, as every map and list of the format.
    #[serde(default)]
    pub variables: Variables,
}

/// UPDATE_VARIABLES.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateVariables {
    pub process_instance_selector: ProcessSelector,
    #[serde(default)]
    pub variables: Variables,
    pub element_selector: Option<ElementSelector>,
    #[serde(default)]
    pub create_local_variables: bool,
}

/// RESOLVE_INCIDENT.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveIncident {
    pub incident_selector: IncidentSelector,
}

/// EVALUATE_DECISION.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateDecision {
    pub decision_definition_selector: DecisionDefinitionSelector,
    #[serde(default)]
    pub variables: Variables,
}

/// MOCK_DMN_DECISION.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MockDmnDecision {
    pub decision_definition_id: String,
    /// 8.9: the output as an object.
    pub variables: Option<Variables>,
    /// Development line: any JSON (wins over `variables`).
    #[serde(default, deserialize_with = "present")]
    pub decision_output: Option<Value>,
}

/// MOCK_CHILD_PROCESS.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MockChildProcess {
    pub process_definition_id: String,
    pub version_tag: Option<String>,
    #[serde(default)]
    pub variables: Variables,
}

/// CONDITIONAL_BEHAVIOR: actions fired at quiescence while the conditions hold.
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionalBehavior {
    pub name: Option<String>,
    pub conditions: Vec<Step>,
    pub actions: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ConditionalBehaviorJson {
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) conditions: Vec<Value>,
    #[serde(default)]
    pub(super) actions: Vec<Value>,
}

/// RELEASE_JOB (development line; not run by baton).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseJob {
    pub job_selector: JobSelector,
}

/// TRIGGER_TIMER (development line; not run by baton).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerTimer {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: ElementSelector,
}

/// RUN_CALLED_PROCESS (development line; not run by baton).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCalledProcess {
    pub element_selector: ElementSelector,
}

/// STUB_CALL_ACTIVITY_COMPLETE (development line; not run by baton).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StubCallActivityComplete {
    pub element_selector: ElementSelector,
    #[serde(default)]
    pub variables: Variables,
}

/// STUB_CALL_ACTIVITY_THROW_ERROR (development line; not run by baton).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StubCallActivityThrowError {
    pub element_selector: ElementSelector,
    pub error_code: String,
    pub error_message: Option<String>,
    #[serde(default)]
    pub variables: Variables,
}

/// SUSPEND_PROCESS_INSTANCE and RESUME_PROCESS_INSTANCE (baton's extension: Zeebe 8.10 suspends
/// and resumes process instances, CPT 8.10 has no instruction for it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessInstanceCommand {
    pub process_instance_selector: ProcessSelector,
}

/// SET_CLUSTER_VARIABLES (baton's extension): cluster variables for the test's engine, read in
/// FEEL as `camunda.vars.cluster.*` (no `tenantId`) or `camunda.vars.tenant.*` (for that tenant).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetClusterVariables {
    pub variables: Variables,
    pub tenant_id: Option<String>,
}

/// The user task events a global task listener can listen to.
pub const GLOBAL_LISTENER_EVENT_TYPES: &[&str] = &[
    "creating",
    "assigning",
    "updating",
    "completing",
    "canceling",
    "all",
];

/// CREATE_GLOBAL_TASK_LISTENER (baton's extension): a global user task listener as Camunda's
/// configuration `camunda.cluster.global-listeners.user-task` declares one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateGlobalTaskListener {
    pub id: String,
    /// The listener jobs' type (the configuration's `type`).
    pub job_type: String,
    /// Lower case, as read (`creating`, ..., or `all`).
    pub event_types: Vec<String>,
    /// Default 3.
    pub retries: Option<i64>,
    #[serde(default)]
    pub after_non_global: bool,
    /// 0 to 100, default 50; higher runs first.
    pub priority: Option<i64>,
}

/// A global task listener checked as Camunda checks its configuration, except that a problem
/// is an error here (Camunda drops the listener with a warning).
pub(super) fn global_task_listener(
    mut l: CreateGlobalTaskListener,
    path: &str,
) -> Result<CreateGlobalTaskListener, FormatError> {
    for (field, value) in [("id", &l.id), ("jobType", &l.job_type)] {
        if value.trim().is_empty() {
            return Err(error(format!("{path}.{field}"), "must not be blank"));
        }
    }
    if l.event_types.is_empty() {
        return Err(error(
            format!("{path}.eventTypes"),
            format!(
                "needs at least one of {}",
                GLOBAL_LISTENER_EVENT_TYPES.join(", ")
            ),
        ));
    }
    let mut types = Vec::with_capacity(l.event_types.len());
    for (i, t) in l.event_types.iter().enumerate() {
        let lower = t.to_ascii_lowercase();
        if !GLOBAL_LISTENER_EVENT_TYPES.contains(&lower.as_str()) {
            return Err(error(
                format!("{path}.eventTypes[{i}]"),
                format!(
                    "\"{t}\" is not a user task event; expected one of {}",
                    GLOBAL_LISTENER_EVENT_TYPES.join(", ")
                ),
            ));
        }
        if !types.contains(&lower) {
            types.push(lower);
        }
    }
    // `all` with others is `all` alone, as Camunda reads the configuration.
    if types.iter().any(|t| t == "all") {
        types = vec!["all".to_owned()];
    }
    l.event_types = types;
    if let Some(r) = l.retries
        && r <= 0
    {
        return Err(error(
            format!("{path}.retries"),
            format!("must be a positive number, got {r}"),
        ));
    }
    if let Some(p) = l.priority
        && !(0..=100).contains(&p)
    {
        return Err(error(
            format!("{path}.priority"),
            format!("must be an integer between 0 and 100, got {p}"),
        ));
    }
    Ok(l)
}
