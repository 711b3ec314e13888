//! The CPT JSON test-case format as data: a file, its test cases, and every instruction of the
//! 8.9 schema, of the 8.10 runner (`CONDITIONAL_BEHAVIOR`, `ASSERT_INCIDENT`) and of the 8.11
//! development line (the union: a file is never rejected for its `$schema`), plus baton's
//! extensions (the agent instructions `MOCK_AI_AGENT` and `ASSERT_AI_AGENT`, and instructions for
//! 8.10 engine features CPT has none for).
//!
//! [`TestFile::parse`] reads a file and names the JSON path of every problem
//! (`testCases[1].instructions[4].jobSelector.jobType: invalid type: ...`). A missing attribute
//! and a wrong enumeration value get the sentence CPT's reader writes (`Cannot build
//! AssertIncidentInstruction, some of required attributes are not set [incidentSelector]`,
//! `Cannot deserialize value of type ... from String "X": not one of the values accepted ...`),
//! behind the same path. CPT's reader ignores
//! unknown fields (real files that pass on CPT carry some, e.g. a `type` in `startInstructions`),
//! so baton ignores them too and reports each one inside an instruction as a warning (it is
//! usually a typo); unknown fields of the file and of a test case (`_integrationTestNotes`,
//! `metadata`) are ignored silently. An unknown instruction type is an error, as in CPT.
//! Selectors are checked when the instruction runs, as CPT's runner does, so the instructions
//! before a bad one still run.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::jackson::{Jackson, jackson_enum_error};
use crate::agent::recording::{CassetteMode, MatchMode};

/// JSON variables as the file writes them.
pub type Variables = Map<String, Value>;

/// A parsed test file.
#[derive(Debug, Clone, PartialEq)]
pub struct TestFile {
    /// The `$schema` URL, if any (only used to warn about instructions newer than it).
    pub schema: Option<String>,
    /// Web Modeler's `processId` (kept, not used: selectors name their process).
    pub process_id: Option<String>,
    pub test_cases: Vec<TestCase>,
    /// Things worth knowing that do not stop the file (instructions newer than `$schema`).
    pub warnings: Vec<String>,
}

/// One test case: instructions run in order in a fresh engine.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    pub name: String,
    pub description: Option<String>,
    pub instructions: Vec<Step>,
}

/// One instruction with the JSON it was read from (failure messages quote it).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub instruction: Instruction,
    pub json: Value,
}

/// Why a test file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// The JSON path of the problem (`testCases[0].instructions[2].state`), empty for the
    /// whole document.
    pub path: String,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for FormatError {}

pub(super) fn error(path: impl Into<String>, message: impl Into<String>) -> FormatError {
    FormatError {
        path: path.into(),
        message: message.into(),
    }
}

// ---- selectors ------------------------------------------------------------------------------

/// `{processDefinitionId}`: the latest version of a process (CREATE_PROCESS_INSTANCE) or any
/// instance of it, child instances included (the `processInstanceSelector` of assertions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessSelector {
    pub process_definition_id: Option<String>,
}

/// `{elementId}` or `{elementName}`; with both, the id wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementSelector {
    pub element_id: Option<String>,
    pub element_name: Option<String>,
}

/// `{jobType, elementId, processDefinitionId}`: all given fields must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSelector {
    pub job_type: Option<String>,
    pub element_id: Option<String>,
    pub process_definition_id: Option<String>,
}

/// `{elementId, taskName, processDefinitionId}`: all given fields must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserTaskSelector {
    pub element_id: Option<String>,
    pub task_name: Option<String>,
    pub process_definition_id: Option<String>,
}

/// `{elementId, processDefinitionId}`: all given fields must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IncidentSelector {
    pub element_id: Option<String>,
    pub process_definition_id: Option<String>,
}

/// `{decisionDefinitionId, decisionDefinitionName}` (ASSERT_DECISION).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionSelector {
    pub decision_definition_id: Option<String>,
    pub decision_definition_name: Option<String>,
}

/// `{decisionDefinitionId}` (EVALUATE_DECISION).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionDefinitionSelector {
    pub decision_definition_id: Option<String>,
}

/// `{messageName, correlationKey?}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSelector {
    pub message_name: String,
    pub correlation_key: Option<String>,
}

// ---- enumerations ---------------------------------------------------------------------------

/// An enumeration of the format: read by the names the file writes, a wrong value rejected with
/// CPT's message (see [`jackson_enum_error`]).
macro_rules! cpt_enum {
    ($(#[$m:meta])* $name:ident = $java:literal { $($(#[$vm:meta])* $variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $variant),* }

        impl $name {
            /// Every value as the file writes it, in CPT's declaration order (baton's extension
            /// values last).
            pub const NAMES: &'static [&'static str] = &[$($text),*];

            /// The value as the file writes it.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),* }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                match text.as_str() {
                    $($text => Ok(Self::$variant),)*
                    other => Err(serde::de::Error::custom(jackson_enum_error($java, other, Self::NAMES))),
                }
            }
        }
    };
}

cpt_enum!(
    /// `ASSERT_PROCESS_INSTANCE.state`; `IS_SUSPENDED` is baton's extension (8.10 suspends
    /// process instances, CPT 8.10 has no state for it).
    ProcessInstanceState = "io.camunda.process.test.api.testCases.instructions.assertProcessInstance.ProcessInstanceState" {
        Active => "IS_ACTIVE",
        Completed => "IS_COMPLETED",
        Created => "IS_CREATED",
        Terminated => "IS_TERMINATED",
        Suspended => "IS_SUSPENDED",
    }
);

cpt_enum!(
    /// `ASSERT_ELEMENT_INSTANCE.state`.
    ElementInstanceState = "io.camunda.process.test.api.testCases.instructions.assertElementInstance.ElementInstanceState" {
        Active => "IS_ACTIVE",
        Completed => "IS_COMPLETED",
        Terminated => "IS_TERMINATED",
    }
);

cpt_enum!(
    /// `ASSERT_ELEMENT_INSTANCES.state`.
    ElementInstancesState = "io.camunda.process.test.api.testCases.instructions.assertElementInstances.ElementInstancesState" {
        Active => "IS_ACTIVE",
        Completed => "IS_COMPLETED",
        Terminated => "IS_TERMINATED",
        NotActive => "IS_NOT_ACTIVE",
        NotActivated => "IS_NOT_ACTIVATED",
        ActiveExactly => "IS_ACTIVE_EXACTLY",
        CompletedInOrder => "IS_COMPLETED_IN_ORDER",
    }
);

cpt_enum!(
    /// `ASSERT_USER_TASK.state`.
    UserTaskState = "io.camunda.process.test.api.testCases.instructions.assertUserTask.UserTaskState" {
        Created => "IS_CREATED",
        Completed => "IS_COMPLETED",
        Canceled => "IS_CANCELED",
        Failed => "IS_FAILED",
    }
);

cpt_enum!(
    /// `ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION.state`.
    MessageSubscriptionState = "io.camunda.process.test.api.testCases.instructions.assertProcessInstanceMessageSubscription.MessageSubscriptionState" {
        Waiting => "IS_WAITING",
        NotWaiting => "IS_NOT_WAITING",
        Correlated => "IS_CORRELATED",
    }
);

cpt_enum!(
    /// `ASSERT_INCIDENT.state`.
    IncidentState = "io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentState" {
        Active => "IS_ACTIVE",
        Resolved => "IS_RESOLVED",
    }
);

cpt_enum!(
    /// `ASSERT_INCIDENT.errorType`: Zeebe's incident error types as CPT 8.10 lists them (the
    /// handler compares them by name with the incident's).
    IncidentErrorType = "io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentErrorType" {
        Unspecified => "UNSPECIFIED",
        Unknown => "UNKNOWN",
        IoMappingError => "IO_MAPPING_ERROR",
        JobNoRetries => "JOB_NO_RETRIES",
        ExecutionListenerNoRetries => "EXECUTION_LISTENER_NO_RETRIES",
        TaskListenerNoRetries => "TASK_LISTENER_NO_RETRIES",
        AdHocSubProcessNoRetries => "AD_HOC_SUB_PROCESS_NO_RETRIES",
        ConditionError => "CONDITION_ERROR",
        ExtractValueError => "EXTRACT_VALUE_ERROR",
        CalledElementError => "CALLED_ELEMENT_ERROR",
        UnhandledErrorEvent => "UNHANDLED_ERROR_EVENT",
        MessageSizeExceeded => "MESSAGE_SIZE_EXCEEDED",
        CalledDecisionError => "CALLED_DECISION_ERROR",
        DecisionEvaluationError => "DECISION_EVALUATION_ERROR",
        FormNotFound => "FORM_NOT_FOUND",
        ResourceNotFound => "RESOURCE_NOT_FOUND",
        SecretResolutionError => "SECRET_RESOLUTION_ERROR",
        UnknownEnumValue => "UNKNOWN_ENUM_VALUE",
    }
);

// ---- instructions ---------------------------------------------------------------------------

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
    /// [`super::faults::SideEffectJson`]).
    pub side_effect: Option<super::faults::SideEffectJson>,
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

/// ASSERT_USER_TASK.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertUserTask {
    pub user_task_selector: UserTaskSelector,
    pub state: Option<UserTaskState>,
    pub assignee: Option<String>,
    pub candidate_groups: Option<Vec<String>>,
    pub priority: Option<i32>,
    pub element_id: Option<String>,
    pub name: Option<String>,
    pub due_date: Option<String>,
    pub follow_up_date: Option<String>,
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

/// ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertMessageSubscription {
    pub process_instance_selector: ProcessSelector,
    pub message_selector: MessageSelector,
    pub state: MessageSubscriptionState,
}

/// ASSERT_PROCESS_INSTANCE.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertProcessInstance {
    pub process_instance_selector: ProcessSelector,
    pub state: Option<ProcessInstanceState>,
    pub has_active_incidents: Option<bool>,
}

/// ASSERT_ELEMENT_INSTANCES.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertElementInstances {
    pub process_instance_selector: ProcessSelector,
    #[serde(default)]
    pub element_selectors: Vec<ElementSelector>,
    pub state: ElementInstancesState,
}

/// ASSERT_ELEMENT_INSTANCE.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertElementInstance {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: ElementSelector,
    pub state: ElementInstanceState,
    /// Exactly this many (default 1).
    pub amount: Option<u32>,
}

/// baton's extension of ASSERT_VARIABLE(S) (camunda/camunda#50753): the variables of one inner
/// instance of an ad-hoc sub-process (one tool call of an AI agent), chosen by what it ran. The
/// first inner instance (in creation order) that matches every given field is selected.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InnerInstanceSelector {
    /// The ad-hoc sub-process.
    pub element_id: String,
    /// An element that ran in the inner instance (the tool).
    pub tool_element_id: Option<String>,
    /// A local variable of the inner instance (`toolCall`) ...
    pub variable_name: Option<String>,
    /// ... whose value contains this text (a string's text, else its JSON).
    pub value_contains: Option<String>,
}

/// ASSERT_VARIABLES.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertVariables {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: Option<ElementSelector>,
    /// baton's extension: the local variables of an ad-hoc inner instance.
    pub inner_instance_selector: Option<InnerInstanceSelector>,
    pub variable_names: Option<Vec<String>>,
    pub variables: Option<Variables>,
}

/// `satisfiesJudge` of ASSERT_VARIABLE: an LLM judge (not run offline).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeAssertion {
    pub expectation: String,
    pub threshold: Option<f64>,
    pub custom_prompt: Option<String>,
    pub attach_documents: Option<bool>,
}

/// `similarTo` of ASSERT_VARIABLE: embedding similarity (not run offline).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimilarTo {
    pub expected_value: String,
    pub threshold: Option<f64>,
}

/// ASSERT_VARIABLE.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertVariable {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: Option<ElementSelector>,
    /// baton's extension: a local variable of an ad-hoc inner instance.
    pub inner_instance_selector: Option<InnerInstanceSelector>,
    pub variable_name: String,
    pub satisfies_judge: Option<JudgeAssertion>,
    /// FEEL, evaluated with `{<variableName>: <value>}`; must be `true`.
    pub satisfies_expression: Option<String>,
    pub similar_to: Option<SimilarTo>,
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

/// ASSERT_INCIDENT (CPT 8.10): the oldest incident the selector matches, in any state; each
/// given property is a check of its own, in this order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertIncident {
    pub incident_selector: IncidentSelector,
    pub state: Option<IncidentState>,
    pub error_type: Option<IncidentErrorType>,
    /// Compared exactly.
    pub error_message: Option<String>,
    /// The incident's element id.
    pub element_id: Option<String>,
}

/// EVALUATE_DECISION.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateDecision {
    pub decision_definition_selector: DecisionDefinitionSelector,
    #[serde(default)]
    pub variables: Variables,
}

/// ASSERT_DECISION.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertDecision {
    pub decision_selector: DecisionSelector,
    /// Any JSON; `null` is an expected output too.
    #[serde(default, deserialize_with = "present")]
    pub output: Option<Value>,
    pub matched_rules: Option<Vec<u32>>,
    pub not_matched_rules: Option<Vec<u32>>,
    #[serde(default)]
    pub no_matched_rules: bool,
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
struct ConditionalBehaviorJson {
    name: Option<String>,
    #[serde(default)]
    conditions: Vec<Value>,
    #[serde(default)]
    actions: Vec<Value>,
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

/// Where MOCK_AI_AGENT takes the model's turns from.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentTurns {
    /// Turns in the cassette format, written in the test file.
    Turns(Vec<Value>),
    /// A cassette file, relative to the test file, and how it is played.
    Cassette(CassetteUse),
}

/// MOCK_AI_AGENT's `cassette` with `mode`, `match` and the matching rules.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CassetteUse {
    /// The file, relative to the test file.
    pub path: String,
    /// `replay` (the default), `record` or `auto`.
    pub mode: Option<CassetteMode>,
    /// `in-order` (the default), `by-request` or `turns-only`.
    pub matching: Option<MatchMode>,
    /// JSON pointers into the request left out of the comparison (`*` for every key or index).
    pub ignore: Vec<String>,
    /// Regex replacements in the request's strings before comparing.
    pub replace: Vec<Replacement>,
    /// Regexes whose matches are written and compared as `[REDACTED]`.
    pub redact: Vec<String>,
}

/// One of `replace`: `{"pattern": "user-\\d+", "with": "user-N"}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    pub pattern: String,
    pub with: String,
}

/// MOCK_AI_AGENT (baton): the AI Agent Sub-process `elementId` is played by the agent mock.
#[derive(Debug, Clone, PartialEq)]
pub struct MockAiAgent {
    pub element_id: String,
    pub turns: AgentTurns,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MockAiAgentJson {
    element_id: String,
    turns: Option<Vec<Value>>,
    cassette: Option<String>,
    mode: Option<String>,
    #[serde(rename = "match")]
    matching: Option<String>,
    ignore: Option<Vec<String>>,
    replace: Option<Vec<Replacement>>,
    redact: Option<Vec<String>>,
}

impl MockAiAgentJson {
    /// The cassette's settings; they need a cassette.
    fn turns(self, path: &str) -> Result<AgentTurns, FormatError> {
        let settings = [
            ("mode", self.mode.is_some()),
            ("match", self.matching.is_some()),
            ("ignore", self.ignore.is_some()),
            ("replace", self.replace.is_some()),
            ("redact", self.redact.is_some()),
        ];
        match (self.turns, self.cassette) {
            (Some(turns), None) => {
                if let Some((name, _)) = settings.iter().find(|(_, set)| *set) {
                    return Err(error(
                        format!("{path}.{name}"),
                        format!(
                            "`{name}` is a setting of a cassette: it needs `cassette`, not `turns`"
                        ),
                    ));
                }
                Ok(AgentTurns::Turns(turns))
            }
            (None, Some(cassette)) => {
                let mode = match &self.mode {
                    None => None,
                    Some(text) => Some(CassetteMode::parse(text).ok_or_else(|| {
                        error(
                            format!("{path}.mode"),
                            format!("unknown mode \"{text}\": expected \"replay\", \"record\" or \"auto\""),
                        )
                    })?),
                };
                let matching = match &self.matching {
                    None => None,
                    Some(text) => Some(MatchMode::parse(text).ok_or_else(|| {
                        error(
                            format!("{path}.match"),
                            format!("unknown match \"{text}\": expected \"in-order\", \"by-request\" or \"turns-only\""),
                        )
                    })?),
                };
                Ok(AgentTurns::Cassette(CassetteUse {
                    path: cassette,
                    mode,
                    matching,
                    ignore: self.ignore.unwrap_or_default(),
                    replace: self.replace.unwrap_or_default(),
                    redact: self.redact.unwrap_or_default(),
                }))
            }
            _ => Err(error(
                path,
                "MOCK_AI_AGENT needs exactly one of `turns` (the model's turns) and `cassette` (a cassette file, relative to the test file)",
            )),
        }
    }
}

/// ASSERT_AI_AGENT (baton): what the agent mock of `elementId` saw and did.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertAiAgent {
    pub element_id: String,
    /// The whole sequence of tool calls: a tool id, or `{name, arguments}`.
    pub called_tools: Option<Vec<Value>>,
    pub model_calls: Option<usize>,
    pub remaining_turns: Option<usize>,
    /// The status of the agent instance now (`TOOL_CALLING`, `IDLE`, ...).
    pub status: Option<crate::agent::AgentStatus>,
    /// The agent instance's metrics; each field is checked when present.
    pub metrics: Option<crate::agent::ExpectedMetrics>,
    /// The roles of the agent instance's committed history, in order.
    pub history_roles: Option<Vec<crate::agent::HistoryRole>>,
    /// Only the agent instances in the (first) instance of this process.
    pub process_instance_selector: Option<ProcessSelector>,
    /// The agent instance with this number (1 for the first created) among those selected,
    /// instead of the latest.
    pub agent_instance_number: Option<usize>,
}

/// Every instruction baton reads. See `docs/cli.md` for what each one does here.
#[derive(Debug, Clone, PartialEq)]
pub enum Instruction {
    AssertDecision(AssertDecision),
    AssertElementInstance(AssertElementInstance),
    AssertElementInstances(AssertElementInstances),
    AssertProcessInstance(AssertProcessInstance),
    AssertProcessInstanceMessageSubscription(AssertMessageSubscription),
    AssertUserTask(AssertUserTask),
    AssertVariable(AssertVariable),
    AssertVariables(AssertVariables),
    BroadcastSignal(BroadcastSignal),
    CompleteJob(CompleteJob),
    CompleteJobAdHocSubProcess(CompleteJobAdHocSubProcess),
    CompleteJobUserTaskListener(CompleteJobUserTaskListener),
    CompleteUserTask(CompleteUserTask),
    ConditionalBehavior(ConditionalBehavior),
    CorrelateMessage(CorrelateMessage),
    CreateProcessInstance(CreateProcessInstance),
    EvaluateConditionalStartEvent(EvaluateConditionalStartEvent),
    EvaluateDecision(EvaluateDecision),
    IncreaseTime(IncreaseTime),
    MockChildProcess(MockChildProcess),
    MockDmnDecision(MockDmnDecision),
    MockJobWorkerCompleteJob(MockJobWorkerCompleteJob),
    MockJobWorkerThrowBpmnError(MockJobWorkerThrowBpmnError),
    PublishMessage(PublishMessage),
    ResolveIncident(ResolveIncident),
    SetTime(SetTime),
    ThrowBpmnErrorFromJob(ThrowBpmnErrorFromJob),
    UpdateVariables(UpdateVariables),
    ReleaseJob(ReleaseJob),
    TriggerTimer(TriggerTimer),
    RunCalledProcess(RunCalledProcess),
    StubCallActivityComplete(StubCallActivityComplete),
    StubCallActivityThrowError(StubCallActivityThrowError),
    AssertIncident(AssertIncident),
    MockAiAgent(MockAiAgent),
    AssertAiAgent(AssertAiAgent),
    SuspendProcessInstance(ProcessInstanceCommand),
    ResumeProcessInstance(ProcessInstanceCommand),
    SetClusterVariables(SetClusterVariables),
    CreateGlobalTaskListener(CreateGlobalTaskListener),
    InjectJobFault(super::faults::InjectJobFault),
    InjectModelFault(super::faults::InjectModelFault),
    SetJobTimeout(super::faults::SetJobTimeout),
    SetTimeSkipping(super::faults::SetTimeSkipping),
    AssertInvariant(super::faults::AssertInvariant),
    AssertSideEffects(super::faults::AssertSideEffects),
    SaveSnapshot(super::faults::SnapshotInstruction),
    RestoreSnapshot(super::faults::SnapshotInstruction),
}

/// Where an instruction type comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// In the 8.9 schema.
    V89,
    /// New in the 8.10 runner (next docs, handler classes): CONDITIONAL_BEHAVIOR, ASSERT_INCIDENT.
    V810,
    /// The 8.11 development line only, unconfirmed: read, not run.
    DevLine,
    /// baton's own extension.
    Baton,
}

/// Every instruction type with its origin, in the order of the schema's enumeration.
pub const INSTRUCTION_TYPES: &[(&str, Origin)] = &[
    ("ASSERT_DECISION", Origin::V89),
    ("ASSERT_ELEMENT_INSTANCE", Origin::V89),
    ("ASSERT_ELEMENT_INSTANCES", Origin::V89),
    ("ASSERT_PROCESS_INSTANCE", Origin::V89),
    ("ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", Origin::V89),
    ("ASSERT_USER_TASK", Origin::V89),
    ("ASSERT_VARIABLE", Origin::V89),
    ("ASSERT_VARIABLES", Origin::V89),
    ("BROADCAST_SIGNAL", Origin::V89),
    ("COMPLETE_JOB", Origin::V89),
    ("COMPLETE_JOB_AD_HOC_SUB_PROCESS", Origin::V89),
    ("COMPLETE_JOB_USER_TASK_LISTENER", Origin::V89),
    ("COMPLETE_USER_TASK", Origin::V89),
    ("CONDITIONAL_BEHAVIOR", Origin::V810),
    ("CORRELATE_MESSAGE", Origin::V89),
    ("CREATE_PROCESS_INSTANCE", Origin::V89),
    ("EVALUATE_CONDITIONAL_START_EVENT", Origin::V89),
    ("EVALUATE_DECISION", Origin::V89),
    ("INCREASE_TIME", Origin::V89),
    ("MOCK_CHILD_PROCESS", Origin::V89),
    ("MOCK_DMN_DECISION", Origin::V89),
    ("MOCK_JOB_WORKER_COMPLETE_JOB", Origin::V89),
    ("MOCK_JOB_WORKER_THROW_BPMN_ERROR", Origin::V89),
    ("PUBLISH_MESSAGE", Origin::V89),
    ("RESOLVE_INCIDENT", Origin::V89),
    ("SET_TIME", Origin::V89),
    ("THROW_BPMN_ERROR_FROM_JOB", Origin::V89),
    ("UPDATE_VARIABLES", Origin::V89),
    ("RELEASE_JOB", Origin::DevLine),
    ("TRIGGER_TIMER", Origin::DevLine),
    ("RUN_CALLED_PROCESS", Origin::DevLine),
    ("STUB_CALL_ACTIVITY_COMPLETE", Origin::DevLine),
    ("STUB_CALL_ACTIVITY_THROW_ERROR", Origin::DevLine),
    ("ASSERT_INCIDENT", Origin::V810),
    ("MOCK_AI_AGENT", Origin::Baton),
    ("ASSERT_AI_AGENT", Origin::Baton),
    ("SUSPEND_PROCESS_INSTANCE", Origin::Baton),
    ("RESUME_PROCESS_INSTANCE", Origin::Baton),
    ("SET_CLUSTER_VARIABLES", Origin::Baton),
    ("CREATE_GLOBAL_TASK_LISTENER", Origin::Baton),
    ("INJECT_JOB_FAULT", Origin::Baton),
    ("INJECT_MODEL_FAULT", Origin::Baton),
    ("SET_JOB_TIMEOUT", Origin::Baton),
    ("SET_TIME_SKIPPING", Origin::Baton),
    ("ASSERT_INVARIANT", Origin::Baton),
    ("ASSERT_SIDE_EFFECTS", Origin::Baton),
    ("SAVE_SNAPSHOT", Origin::Baton),
    ("RESTORE_SNAPSHOT", Origin::Baton),
];

/// The attributes CPT's reader requires, per instruction type, in its declaration order: the
/// ones neither optional nor defaulted nor a list or map (those default to empty). Missing, they
/// fail the file as CPT's reader fails it: `Cannot build <Class>, some of required attributes
/// are not set [a, b]`, `<Class>` being the instruction's model class.
const REQUIRED_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("ASSERT_DECISION", &["decisionSelector"]),
    (
        "ASSERT_ELEMENT_INSTANCE",
        &["processInstanceSelector", "elementSelector", "state"],
    ),
    (
        "ASSERT_ELEMENT_INSTANCES",
        &["processInstanceSelector", "state"],
    ),
    ("ASSERT_INCIDENT", &["incidentSelector"]),
    ("ASSERT_PROCESS_INSTANCE", &["processInstanceSelector"]),
    (
        "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION",
        &["processInstanceSelector", "messageSelector", "state"],
    ),
    ("ASSERT_USER_TASK", &["userTaskSelector"]),
    (
        "ASSERT_VARIABLE",
        &["processInstanceSelector", "variableName"],
    ),
    ("ASSERT_VARIABLES", &["processInstanceSelector"]),
    ("BROADCAST_SIGNAL", &["signalName"]),
    ("COMPLETE_JOB", &["jobSelector"]),
    ("COMPLETE_JOB_AD_HOC_SUB_PROCESS", &["jobSelector"]),
    ("COMPLETE_JOB_USER_TASK_LISTENER", &["jobSelector"]),
    ("COMPLETE_USER_TASK", &["userTaskSelector"]),
    ("CONDITIONAL_BEHAVIOR", &[]),
    ("CORRELATE_MESSAGE", &["name"]),
    ("CREATE_PROCESS_INSTANCE", &["processDefinitionSelector"]),
    ("EVALUATE_CONDITIONAL_START_EVENT", &[]),
    ("EVALUATE_DECISION", &["decisionDefinitionSelector"]),
    ("INCREASE_TIME", &["duration"]),
    ("MOCK_CHILD_PROCESS", &["processDefinitionId"]),
    ("MOCK_DMN_DECISION", &["decisionDefinitionId"]),
    ("MOCK_JOB_WORKER_COMPLETE_JOB", &["jobType"]),
    (
        "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
        &["jobType", "errorCode"],
    ),
    ("PUBLISH_MESSAGE", &["name"]),
    ("RESOLVE_INCIDENT", &["incidentSelector"]),
    ("SET_TIME", &["time"]),
    ("THROW_BPMN_ERROR_FROM_JOB", &["jobSelector", "errorCode"]),
    ("UPDATE_VARIABLES", &["processInstanceSelector"]),
    ("RELEASE_JOB", &["jobSelector"]),
    (
        "TRIGGER_TIMER",
        &["processInstanceSelector", "elementSelector"],
    ),
    ("RUN_CALLED_PROCESS", &["elementSelector"]),
    ("STUB_CALL_ACTIVITY_COMPLETE", &["elementSelector"]),
    (
        "STUB_CALL_ACTIVITY_THROW_ERROR",
        &["elementSelector", "errorCode"],
    ),
    ("SUSPEND_PROCESS_INSTANCE", &["processInstanceSelector"]),
    ("RESUME_PROCESS_INSTANCE", &["processInstanceSelector"]),
    ("SET_CLUSTER_VARIABLES", &["variables"]),
    (
        "CREATE_GLOBAL_TASK_LISTENER",
        &["id", "jobType", "eventTypes"],
    ),
    ("INJECT_JOB_FAULT", &["jobSelector", "fault"]),
    ("INJECT_MODEL_FAULT", &["elementId", "modelCall", "fault"]),
    ("SET_JOB_TIMEOUT", &["timeout"]),
    ("SET_TIME_SKIPPING", &["enabled"]),
    ("ASSERT_INVARIANT", &["invariant"]),
    ("ASSERT_SIDE_EFFECTS", &["jobType"]),
];

/// The nested objects of the format with required attributes, by the field that holds them:
/// (field, model class, required attributes).
const REQUIRED_NESTED: &[(&str, &str, &[&str])] = &[
    ("messageSelector", "MessageSelector", &["messageName"]),
    ("satisfiesJudge", "JudgeAssertion", &["expectation"]),
    (
        "similarTo",
        "SemanticSimilarityAssertion",
        &["expectedValue"],
    ),
    (
        "startInstructions",
        "CreateProcessInstanceStartInstruction",
        &["elementId"],
    ),
    (
        "runtimeInstructions",
        "CreateProcessInstanceTerminateRuntimeInstruction",
        &["afterElementId"],
    ),
];

/// CPT's reader's sentence for missing attributes (Immutables' builder message).
fn missing_attributes(class: &str, missing: &[&str]) -> String {
    format!(
        "Cannot build {class}, some of required attributes are not set [{}]",
        missing.join(", ")
    )
}

/// The model class of an instruction type: `ASSERT_INCIDENT` -> `AssertIncidentInstruction`.
fn instruction_class(type_name: &str) -> String {
    let mut class = String::with_capacity(type_name.len() + 11);
    for word in type_name.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            class.push(first);
            class.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    class.push_str("Instruction");
    class
}

impl Instruction {
    /// The `type` it was written with.
    pub fn type_name(&self) -> &'static str {
        use Instruction::*;
        match self {
            AssertDecision(_) => "ASSERT_DECISION",
            AssertElementInstance(_) => "ASSERT_ELEMENT_INSTANCE",
            AssertElementInstances(_) => "ASSERT_ELEMENT_INSTANCES",
            AssertProcessInstance(_) => "ASSERT_PROCESS_INSTANCE",
            AssertProcessInstanceMessageSubscription(_) => {
                "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION"
            }
            AssertUserTask(_) => "ASSERT_USER_TASK",
            AssertVariable(_) => "ASSERT_VARIABLE",
            AssertVariables(_) => "ASSERT_VARIABLES",
            BroadcastSignal(_) => "BROADCAST_SIGNAL",
            CompleteJob(_) => "COMPLETE_JOB",
            CompleteJobAdHocSubProcess(_) => "COMPLETE_JOB_AD_HOC_SUB_PROCESS",
            CompleteJobUserTaskListener(_) => "COMPLETE_JOB_USER_TASK_LISTENER",
            CompleteUserTask(_) => "COMPLETE_USER_TASK",
            ConditionalBehavior(_) => "CONDITIONAL_BEHAVIOR",
            CorrelateMessage(_) => "CORRELATE_MESSAGE",
            CreateProcessInstance(_) => "CREATE_PROCESS_INSTANCE",
            EvaluateConditionalStartEvent(_) => "EVALUATE_CONDITIONAL_START_EVENT",
            EvaluateDecision(_) => "EVALUATE_DECISION",
            IncreaseTime(_) => "INCREASE_TIME",
            MockChildProcess(_) => "MOCK_CHILD_PROCESS",
            MockDmnDecision(_) => "MOCK_DMN_DECISION",
            MockJobWorkerCompleteJob(_) => "MOCK_JOB_WORKER_COMPLETE_JOB",
            MockJobWorkerThrowBpmnError(_) => "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
            PublishMessage(_) => "PUBLISH_MESSAGE",
            ResolveIncident(_) => "RESOLVE_INCIDENT",
            SetTime(_) => "SET_TIME",
            ThrowBpmnErrorFromJob(_) => "THROW_BPMN_ERROR_FROM_JOB",
            UpdateVariables(_) => "UPDATE_VARIABLES",
            ReleaseJob(_) => "RELEASE_JOB",
            TriggerTimer(_) => "TRIGGER_TIMER",
            RunCalledProcess(_) => "RUN_CALLED_PROCESS",
            StubCallActivityComplete(_) => "STUB_CALL_ACTIVITY_COMPLETE",
            StubCallActivityThrowError(_) => "STUB_CALL_ACTIVITY_THROW_ERROR",
            AssertIncident(_) => "ASSERT_INCIDENT",
            MockAiAgent(_) => "MOCK_AI_AGENT",
            AssertAiAgent(_) => "ASSERT_AI_AGENT",
            SuspendProcessInstance(_) => "SUSPEND_PROCESS_INSTANCE",
            ResumeProcessInstance(_) => "RESUME_PROCESS_INSTANCE",
            SetClusterVariables(_) => "SET_CLUSTER_VARIABLES",
            CreateGlobalTaskListener(_) => "CREATE_GLOBAL_TASK_LISTENER",
            InjectJobFault(_) => "INJECT_JOB_FAULT",
            InjectModelFault(_) => "INJECT_MODEL_FAULT",
            SetJobTimeout(_) => "SET_JOB_TIMEOUT",
            SetTimeSkipping(_) => "SET_TIME_SKIPPING",
            AssertInvariant(_) => "ASSERT_INVARIANT",
            AssertSideEffects(_) => "ASSERT_SIDE_EFFECTS",
            SaveSnapshot(_) => "SAVE_SNAPSHOT",
            RestoreSnapshot(_) => "RESTORE_SNAPSHOT",
        }
    }

    /// Reads one instruction; `path` names it in errors. Unknown fields are ignored (as CPT
    /// does) and named in `warnings`.
    pub fn from_json(
        value: &Value,
        path: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Instruction, FormatError> {
        let Some(object) = value.as_object() else {
            return Err(error(
                path,
                format!("an instruction must be an object, got {}", kind(value)),
            ));
        };
        let type_name = match object.get("type") {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(error(
                    format!("{path}.type"),
                    format!("must be a string, got {}", kind(other)),
                ));
            }
            None => return Err(error(path, "missing field `type`")),
        };
        if let Some((_, required)) = REQUIRED_ATTRIBUTES.iter().find(|(t, _)| *t == type_name) {
            let missing: Vec<&str> = required
                .iter()
                .copied()
                .filter(|a| object.get(*a).is_none_or(Value::is_null))
                .collect();
            if !missing.is_empty() {
                return Err(error(
                    path,
                    missing_attributes(&instruction_class(type_name), &missing),
                ));
            }
        }
        let mut fields = object.clone();
        fields.shift_remove("type");
        let fields = Value::Object(fields);
        use Instruction as I;
        let instruction = match type_name {
            "ASSERT_DECISION" => I::AssertDecision(read(fields, path, warnings)?),
            "ASSERT_ELEMENT_INSTANCE" => {
                let a: AssertElementInstance = read(fields, path, warnings)?;
                if a.amount == Some(0) {
                    return Err(error(format!("{path}.amount"), "must be at least 1"));
                }
                I::AssertElementInstance(a)
            }
            "ASSERT_ELEMENT_INSTANCES" => I::AssertElementInstances(read(fields, path, warnings)?),
            "ASSERT_PROCESS_INSTANCE" => I::AssertProcessInstance(read(fields, path, warnings)?),
            "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION" => {
                I::AssertProcessInstanceMessageSubscription(read(fields, path, warnings)?)
            }
            "ASSERT_USER_TASK" => I::AssertUserTask(read(fields, path, warnings)?),
            "ASSERT_VARIABLE" => {
                let a: AssertVariable = read(fields, path, warnings)?;
                one_scope(
                    a.element_selector.is_some(),
                    &a.inner_instance_selector,
                    path,
                )?;
                I::AssertVariable(a)
            }
            "BROADCAST_SIGNAL" => I::BroadcastSignal(read(fields, path, warnings)?),
            "COMPLETE_JOB" => I::CompleteJob(read(fields, path, warnings)?),
            "COMPLETE_JOB_AD_HOC_SUB_PROCESS" => {
                I::CompleteJobAdHocSubProcess(read(fields, path, warnings)?)
            }
            "COMPLETE_JOB_USER_TASK_LISTENER" => {
                I::CompleteJobUserTaskListener(read(fields, path, warnings)?)
            }
            "COMPLETE_USER_TASK" => I::CompleteUserTask(read(fields, path, warnings)?),
            "CONDITIONAL_BEHAVIOR" => {
                let raw: ConditionalBehaviorJson = read(fields, path, warnings)?;
                let mut steps = |list: &[Value], field: &str| -> Result<Vec<Step>, FormatError> {
                    list.iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let at = format!("{path}.{field}[{i}]");
                            Ok(Step {
                                instruction: Instruction::from_json(v, &at, warnings)?,
                                json: v.clone(),
                            })
                        })
                        .collect()
                };
                let conditions = steps(&raw.conditions, "conditions")?;
                let actions = steps(&raw.actions, "actions")?;
                I::ConditionalBehavior(ConditionalBehavior {
                    name: raw.name,
                    conditions,
                    actions,
                })
            }
            "CORRELATE_MESSAGE" => I::CorrelateMessage(read(fields, path, warnings)?),
            "CREATE_PROCESS_INSTANCE" => I::CreateProcessInstance(read(fields, path, warnings)?),
            "EVALUATE_CONDITIONAL_START_EVENT" => {
                I::EvaluateConditionalStartEvent(read(fields, path, warnings)?)
            }
            "EVALUATE_DECISION" => I::EvaluateDecision(read(fields, path, warnings)?),
            "INCREASE_TIME" => {
                let t: IncreaseTime = read(fields, path, warnings)?;
                // CPT's field is a java.time.Duration: Jackson reads it with the file
                // (Duration.parse), so a duration that does not read fails the file.
                crate::clock::parse_duration(&t.duration)
                    .map_err(|e| error(format!("{path}.duration"), e.to_string()))?;
                I::IncreaseTime(t)
            }
            "MOCK_CHILD_PROCESS" => I::MockChildProcess(read(fields, path, warnings)?),
            "MOCK_DMN_DECISION" => I::MockDmnDecision(read(fields, path, warnings)?),
            "MOCK_JOB_WORKER_COMPLETE_JOB" => {
                I::MockJobWorkerCompleteJob(read(fields, path, warnings)?)
            }
            "MOCK_JOB_WORKER_THROW_BPMN_ERROR" => {
                I::MockJobWorkerThrowBpmnError(read(fields, path, warnings)?)
            }
            "PUBLISH_MESSAGE" => I::PublishMessage(read(fields, path, warnings)?),
            "RESOLVE_INCIDENT" => I::ResolveIncident(read(fields, path, warnings)?),
            "SET_TIME" => {
                let t: SetTime = read(fields, path, warnings)?;
                // A java.time.Instant in CPT, read with the file as INCREASE_TIME's duration.
                crate::clock::parse_instant(&t.time)
                    .map_err(|e| error(format!("{path}.time"), e.to_string()))?;
                I::SetTime(t)
            }
            "THROW_BPMN_ERROR_FROM_JOB" => I::ThrowBpmnErrorFromJob(read(fields, path, warnings)?),
            "UPDATE_VARIABLES" => I::UpdateVariables(read(fields, path, warnings)?),
            "RELEASE_JOB" => I::ReleaseJob(read(fields, path, warnings)?),
            "TRIGGER_TIMER" => I::TriggerTimer(read(fields, path, warnings)?),
            "RUN_CALLED_PROCESS" => I::RunCalledProcess(read(fields, path, warnings)?),
            "STUB_CALL_ACTIVITY_COMPLETE" => {
                I::StubCallActivityComplete(read(fields, path, warnings)?)
            }
            "STUB_CALL_ACTIVITY_THROW_ERROR" => {
                I::StubCallActivityThrowError(read(fields, path, warnings)?)
            }
            "MOCK_AI_AGENT" => {
                let mut raw: MockAiAgentJson = read(fields, path, warnings)?;
                let element_id = std::mem::take(&mut raw.element_id);
                I::MockAiAgent(MockAiAgent {
                    element_id,
                    turns: raw.turns(path)?,
                })
            }
            "ASSERT_AI_AGENT" => I::AssertAiAgent(read(fields, path, warnings)?),
            "ASSERT_INCIDENT" => I::AssertIncident(read(fields, path, warnings)?),
            "ASSERT_VARIABLES" => {
                let a: AssertVariables = read(fields, path, warnings)?;
                one_scope(
                    a.element_selector.is_some(),
                    &a.inner_instance_selector,
                    path,
                )?;
                I::AssertVariables(a)
            }
            "SUSPEND_PROCESS_INSTANCE" => I::SuspendProcessInstance(read(fields, path, warnings)?),
            "RESUME_PROCESS_INSTANCE" => I::ResumeProcessInstance(read(fields, path, warnings)?),
            "SET_CLUSTER_VARIABLES" => {
                let s: SetClusterVariables = read(fields, path, warnings)?;
                if s.tenant_id.as_deref().is_some_and(|t| t.trim().is_empty()) {
                    return Err(error(
                        format!("{path}.tenantId"),
                        "must not be blank (leave it out for cluster-wide variables)",
                    ));
                }
                I::SetClusterVariables(s)
            }
            "INJECT_JOB_FAULT" => {
                I::InjectJobFault(super::faults::inject_job_fault(fields, path, warnings)?)
            }
            "INJECT_MODEL_FAULT" => {
                I::InjectModelFault(super::faults::inject_model_fault(fields, path, warnings)?)
            }
            "SET_JOB_TIMEOUT" => {
                I::SetJobTimeout(super::faults::job_timeout(fields, path, warnings)?)
            }
            "SET_TIME_SKIPPING" => I::SetTimeSkipping(read(fields, path, warnings)?),
            "ASSERT_INVARIANT" => {
                I::AssertInvariant(super::faults::assert_invariant(fields, path, warnings)?)
            }
            "ASSERT_SIDE_EFFECTS" => {
                I::AssertSideEffects(super::faults::assert_side_effects(fields, path, warnings)?)
            }
            "SAVE_SNAPSHOT" => I::SaveSnapshot(super::faults::snapshot_instruction(
                fields,
                path,
                warnings,
                "SAVE_SNAPSHOT",
            )?),
            "RESTORE_SNAPSHOT" => I::RestoreSnapshot(super::faults::snapshot_instruction(
                fields,
                path,
                warnings,
                "RESTORE_SNAPSHOT",
            )?),
            "CREATE_GLOBAL_TASK_LISTENER" => I::CreateGlobalTaskListener(global_task_listener(
                read(fields, path, warnings)?,
                path,
            )?),
            other => {
                // Within 3 edits only of a type about as long (the edit distance is at least
                // the difference in length): a huge `type` is compared with nothing.
                let length = other.chars().take(64).count();
                let closest = INSTRUCTION_TYPES
                    .iter()
                    .filter(|(t, _)| length.abs_diff(t.len()) <= 3)
                    .map(|(t, _)| (strsim::levenshtein(other, t), *t))
                    .min()
                    .filter(|(distance, _)| *distance <= 3);
                let hint = match closest {
                    Some((_, t)) => format!("did you mean {t}?"),
                    None => {
                        let known: Vec<&str> = INSTRUCTION_TYPES.iter().map(|(t, _)| *t).collect();
                        format!("known types: {}", known.join(", "))
                    }
                };
                return Err(error(
                    format!("{path}.type"),
                    format!(
                        "unknown instruction type \"{}\"; {hint}",
                        crate::variables::truncate(other, 60)
                    ),
                ));
            }
        };
        Ok(instruction)
    }

    /// The instructions nested in this one (a conditional behaviour's conditions and actions).
    pub fn nested(&self) -> Vec<&Step> {
        match self {
            Instruction::ConditionalBehavior(b) => b.conditions.iter().chain(&b.actions).collect(),
            _ => Vec::new(),
        }
    }
}

/// `elementSelector` and `innerInstanceSelector` name the scope two ways: at most one of them.
fn one_scope(
    element: bool,
    inner: &Option<InnerInstanceSelector>,
    path: &str,
) -> Result<(), FormatError> {
    let Some(inner) = inner else {
        return Ok(());
    };
    if element {
        return Err(error(
            path,
            "give elementSelector or innerInstanceSelector, not both",
        ));
    }
    if inner.tool_element_id.is_none()
        && inner.variable_name.is_none()
        && inner.value_contains.is_none()
    {
        return Err(error(
            format!("{path}.innerInstanceSelector"),
            "needs toolElementId, or variableName (with valueContains), to choose an inner instance",
        ));
    }
    if inner.value_contains.is_some() && inner.variable_name.is_none() {
        return Err(error(
            format!("{path}.innerInstanceSelector"),
            "valueContains needs variableName (the variable whose value is searched)",
        ));
    }
    Ok(())
}

/// A global task listener checked as Camunda checks its configuration, except that a problem
/// is an error here (Camunda drops the listener with a warning).
fn global_task_listener(
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

/// Deserializes the fields of an instruction, naming the path of a problem; unknown fields
/// are ignored and named in `warnings`.
pub(super) fn read<T: DeserializeOwned>(
    fields: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<T, FormatError> {
    let mut ignored = Vec::new();
    let result = serde_path_to_error::deserialize(serde_ignored::Deserializer::new(
        Jackson(fields),
        &mut |p: serde_ignored::Path<'_>| {
            let (parent, field) = match &p {
                serde_ignored::Path::Map { parent, key } => (json_path(parent), key.clone()),
                other => (json_path(other), String::new()),
            };
            let at = if parent.is_empty() {
                path.to_owned()
            } else if parent.starts_with('[') {
                format!("{path}{parent}")
            } else {
                format!("{path}.{parent}")
            };
            ignored.push(format!(
                "{at}: unknown field `{field}` is ignored (as CPT ignores it)"
            ));
        },
    ));
    warnings.extend(ignored);
    result.map_err(|e| {
        let inner = e.path().to_string();
        let at = if inner == "." || inner.is_empty() {
            path.to_owned()
        } else {
            format!("{path}.{inner}")
        };
        let message = e.into_inner().to_string();
        let message = nested_missing(&inner, &message).unwrap_or(message);
        error(at, message)
    })
}

/// serde's "missing field `x`" inside a nested object of the format, as CPT's reader says it.
fn nested_missing(inner_path: &str, message: &str) -> Option<String> {
    let field = message.strip_prefix("missing field `")?.strip_suffix('`')?;
    let holder = inner_path.rsplit('.').next()?;
    let holder = holder.split('[').next()?;
    let (_, class, required) = REQUIRED_NESTED.iter().find(|(f, _, _)| *f == holder)?;
    required
        .contains(&field)
        .then(|| missing_attributes(class, &[field]))
}

/// A serde_ignored path as a JSON path (`startInstructions[0]`).
fn json_path(p: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path as P;
    match p {
        P::Root => String::new(),
        P::Seq { parent, index } => format!("{}[{index}]", json_path(parent)),
        P::Map { parent, key } => {
            let parent = json_path(parent);
            if parent.is_empty() {
                key.clone()
            } else {
                format!("{parent}.{key}")
            }
        }
        P::Some { parent } | P::NewtypeStruct { parent } | P::NewtypeVariant { parent } => {
            json_path(parent)
        }
    }
}

/// `Some(value)` for a field that is present, `null` included.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The schema version a `$schema` URL names (`8.9` of `.../cpt-test-cases/8.9/schema.json`).
fn schema_version(url: &str) -> Option<(u32, u32)> {
    let mut parts = url.trim_end_matches('/').rsplit('/');
    let _file = parts.next()?;
    let version = parts.next()?;
    let (major, minor) = version.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl TestFile {
    /// Whether a JSON document is a test file: an object with a `testCases` array.
    pub fn is_test_file(value: &Value) -> bool {
        value.get("testCases").is_some_and(|cases| cases.is_array())
    }

    /// Reads a test file from JSON text.
    pub fn parse(text: &str) -> Result<TestFile, FormatError> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            error(
                "",
                format!(
                    "not valid JSON at line {} column {}: {}",
                    e.line(),
                    e.column(),
                    strip_position(&e.to_string())
                ),
            )
        })?;
        TestFile::from_json(&value)
    }

    /// Reads a test file from parsed JSON.
    pub fn from_json(value: &Value) -> Result<TestFile, FormatError> {
        let Some(root) = value.as_object() else {
            return Err(error(
                "",
                format!(
                    "a test file must be an object with a `testCases` array, got {}",
                    kind(value)
                ),
            ));
        };
        let schema = optional_string(root, "$schema", "")?;
        let process_id = optional_string(root, "processId", "")?;
        let cases = match root.get("testCases") {
            Some(Value::Array(cases)) => cases,
            Some(other) => {
                return Err(error(
                    "testCases",
                    format!("must be an array, got {}", kind(other)),
                ));
            }
            None => return Err(error("", "missing field `testCases`")),
        };
        let mut warnings = Vec::new();
        let mut test_cases = Vec::with_capacity(cases.len());
        for (i, case) in cases.iter().enumerate() {
            test_cases.push(read_case(case, &format!("testCases[{i}]"), &mut warnings)?);
        }
        let mut file = TestFile {
            schema,
            process_id,
            test_cases,
            warnings,
        };
        let newer = file.newer_than_schema();
        file.warnings.extend(newer);
        Ok(file)
    }

    /// Instructions newer than the file's `$schema` (a warning, never an error).
    fn newer_than_schema(&self) -> Vec<String> {
        let Some(version) = self.schema.as_deref().and_then(schema_version) else {
            return Vec::new();
        };
        let mut seen: Vec<&'static str> = Vec::new();
        let mut visit = |step: &Step| {
            let name = step.instruction.type_name();
            let origin = INSTRUCTION_TYPES
                .iter()
                .find(|(t, _)| *t == name)
                .map(|(_, o)| *o);
            let newer = match origin {
                Some(Origin::V810) => version < (8, 10),
                Some(Origin::DevLine) => version < (8, 11),
                _ => false,
            };
            if newer && !seen.contains(&name) {
                seen.push(name);
            }
        };
        for case in &self.test_cases {
            for step in &case.instructions {
                visit(step);
                for nested in step.instruction.nested() {
                    visit(nested);
                }
            }
        }
        seen.iter()
            .map(|name| {
                format!(
                    "{name} is newer than the file's $schema ({}); baton reads it anyway",
                    self.schema.as_deref().unwrap_or_default()
                )
            })
            .collect()
    }
}

fn optional_string(
    object: &Map<String, Value>,
    field: &str,
    path: &str,
) -> Result<Option<String>, FormatError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(error(
            if path.is_empty() {
                field.to_owned()
            } else {
                format!("{path}.{field}")
            },
            format!("must be a string, got {}", kind(other)),
        )),
    }
}

fn read_case(
    value: &Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<TestCase, FormatError> {
    let Some(object) = value.as_object() else {
        return Err(error(
            path,
            format!("a test case must be an object, got {}", kind(value)),
        ));
    };
    let name = match object.get("name") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => {
            return Err(error(path, missing_attributes("TestCase", &["name"])));
        }
        Some(other) => {
            return Err(error(
                format!("{path}.name"),
                format!("must be a string, got {}", kind(other)),
            ));
        }
    };
    let description = optional_string(object, "description", path)?;
    let empty = Vec::new();
    let list = match object.get("instructions") {
        Some(Value::Array(list)) => list,
        // A list: CPT's reader defaults it to empty.
        None | Some(Value::Null) => &empty,
        Some(other) => {
            return Err(error(
                format!("{path}.instructions"),
                format!("must be an array, got {}", kind(other)),
            ));
        }
    };
    let mut instructions = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        instructions.push(Step {
            instruction: Instruction::from_json(v, &format!("{path}.instructions[{i}]"), warnings)?,
            json: v.clone(),
        });
    }
    Ok(TestCase {
        name,
        description,
        instructions,
    })
}

/// serde_json's message without its trailing "at line L column C".
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_one(instruction: Value) -> Result<Instruction, FormatError> {
        let mut warnings = Vec::new();
        let i = Instruction::from_json(&instruction, "i", &mut warnings)?;
        assert_eq!(warnings, Vec::<String>::new());
        Ok(i)
    }

    #[test]
    fn every_instruction_type_is_read() {
        let samples = [
            json!({"type": "ASSERT_DECISION", "decisionSelector": {"decisionDefinitionId": "d"}, "output": null}),
            json!({"type": "ASSERT_ELEMENT_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelector": {"elementId": "a"}, "state": "IS_COMPLETED", "amount": 2}),
            json!({"type": "ASSERT_ELEMENT_INSTANCES", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelectors": [{"elementName": "A"}], "state": "IS_ACTIVE_EXACTLY"}),
            json!({"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}, "hasActiveIncidents": false}),
            json!({"type": "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", "processInstanceSelector": {"processDefinitionId": "p"}, "messageSelector": {"messageName": "m"}, "state": "IS_CORRELATED"}),
            json!({"type": "ASSERT_USER_TASK", "userTaskSelector": {"taskName": "T"}, "state": "IS_CANCELED", "candidateGroups": ["g"], "priority": 50}),
            json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "v", "satisfiesExpression": "v > 1", "similarTo": {"expectedValue": "x", "threshold": 0.8}}),
            json!({"type": "ASSERT_VARIABLES", "processInstanceSelector": {"processDefinitionId": "p"}, "variableNames": ["a"], "variables": {"a": 1}}),
            json!({"type": "BROADCAST_SIGNAL", "signalName": "s"}),
            json!({"type": "COMPLETE_JOB", "jobSelector": {"jobType": "t"}, "useExampleData": true}),
            json!({"type": "COMPLETE_JOB_AD_HOC_SUB_PROCESS", "jobSelector": {"elementId": "a"}, "activateElements": [{"elementId": "x", "variables": {"toolCall": {}}}], "completionConditionFulfilled": true}),
            json!({"type": "COMPLETE_JOB_USER_TASK_LISTENER", "jobSelector": {"jobType": "l"}, "corrections": {"assignee": "kim", "candidateGroups": []}}),
            json!({"type": "COMPLETE_USER_TASK", "userTaskSelector": {"elementId": "t"}, "variables": {"ok": true}}),
            json!({"type": "CONDITIONAL_BEHAVIOR", "conditions": [{"type": "ASSERT_USER_TASK", "userTaskSelector": {"taskName": "T"}, "state": "IS_CREATED"}], "actions": [{"type": "COMPLETE_USER_TASK", "userTaskSelector": {"taskName": "T"}}]}),
            json!({"type": "CORRELATE_MESSAGE", "name": "m", "correlationKey": "k"}),
            json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {"processDefinitionId": "p"}, "startInstructions": [{"elementId": "a"}], "runtimeInstructions": [{"type": "TERMINATE_PROCESS_INSTANCE", "afterElementId": "a"}]}),
            json!({"type": "EVALUATE_CONDITIONAL_START_EVENT", "variables": {"x": 1}}),
            json!({"type": "EVALUATE_DECISION", "decisionDefinitionSelector": {"decisionDefinitionId": "d"}}),
            json!({"type": "INCREASE_TIME", "duration": "PT1H"}),
            json!({"type": "MOCK_CHILD_PROCESS", "processDefinitionId": "c", "variables": {"a": 1}}),
            json!({"type": "MOCK_DMN_DECISION", "decisionDefinitionId": "d", "decisionOutput": [1, 2]}),
            json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "t"}),
            json!({"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR", "jobType": "t", "errorCode": "E"}),
            json!({"type": "PUBLISH_MESSAGE", "name": "m", "timeToLive": 0, "messageId": "1"}),
            json!({"type": "RESOLVE_INCIDENT", "incidentSelector": {"elementId": "a"}}),
            json!({"type": "SET_TIME", "time": "2026-01-19T13:00:00Z"}),
            json!({"type": "THROW_BPMN_ERROR_FROM_JOB", "jobSelector": {"jobType": "t"}, "errorCode": "E"}),
            json!({"type": "UPDATE_VARIABLES", "processInstanceSelector": {"processDefinitionId": "p"}, "variables": {}, "createLocalVariables": true}),
            json!({"type": "RELEASE_JOB", "jobSelector": {"jobType": "t"}}),
            json!({"type": "TRIGGER_TIMER", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelector": {"elementId": "t"}}),
            json!({"type": "RUN_CALLED_PROCESS", "elementSelector": {"elementId": "c"}}),
            json!({"type": "STUB_CALL_ACTIVITY_COMPLETE", "elementSelector": {"elementId": "c"}}),
            json!({"type": "STUB_CALL_ACTIVITY_THROW_ERROR", "elementSelector": {"elementId": "c"}, "errorCode": "E"}),
            json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "payment-task", "processDefinitionId": "order"}, "state": "IS_ACTIVE", "errorType": "JOB_NO_RETRIES", "errorMessage": "Payment worker failed", "elementId": "payment-task"}),
            json!({"type": "MOCK_AI_AGENT", "elementId": "agent", "cassette": "a.json"}),
            json!({"type": "ASSERT_AI_AGENT", "elementId": "agent", "calledTools": ["a"], "modelCalls": 2, "status": "TOOL_CALLING", "metrics": {"modelCalls": 2, "toolCalls": 1}, "historyRoles": ["USER", "ASSISTANT", "TOOL_RESULT"]}),
            json!({"type": "SUSPEND_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}}),
            json!({"type": "RESUME_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}}),
            json!({"type": "SET_CLUSTER_VARIABLES", "variables": {"KEY": 1}, "tenantId": "acme"}),
            json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "audit", "jobType": "audit-listener", "eventTypes": ["Creating", "completing"], "retries": 2, "afterNonGlobal": true, "priority": 10}),
            json!({"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "t"}, "fault": "FAIL", "times": 2, "retryBackoff": "PT10S", "errorMessage": "503"}),
            json!({"type": "INJECT_MODEL_FAULT", "elementId": "agent", "modelCall": 2, "fault": "TIMEOUT", "latency": "PT1M"}),
            json!({"type": "SET_JOB_TIMEOUT", "timeout": "PT30S"}),
            json!({"type": "SET_TIME_SKIPPING", "enabled": true}),
            json!({"type": "ASSERT_INVARIANT", "invariant": "NEVER_BEFORE", "elementId": "a", "beforeElementId": "b"}),
            json!({"type": "ASSERT_SIDE_EFFECTS", "jobType": "t", "count": 1}),
            json!({"type": "SAVE_SNAPSHOT", "name": "s"}),
            json!({"type": "RESTORE_SNAPSHOT", "name": "s"}),
        ];
        assert_eq!(samples.len(), INSTRUCTION_TYPES.len());
        for (sample, (name, _)) in samples.iter().zip(INSTRUCTION_TYPES) {
            let instruction = parse_one(sample.clone()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(instruction.type_name(), *name);
        }
        let Instruction::AssertDecision(d) = parse_one(samples[0].clone()).unwrap() else {
            unreachable!()
        };
        assert_eq!(
            d.output,
            Some(Value::Null),
            "an explicit null output is kept"
        );
    }

    #[test]
    fn errors_name_the_path() {
        let cases = [
            (
                json!({"type": "COMPLETE_JOB", "jobSelector": {"jobType": {"name": "charge"}}}),
                "i.jobSelector.jobType: Cannot deserialize value of type `java.lang.String` from Object value (token `JsonToken.START_OBJECT`)",
            ),
            (
                json!({"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}, "state": "IS_DONE"}),
                "i.state: Cannot deserialize value of type `io.camunda.process.test.api.testCases.instructions.assertProcessInstance.ProcessInstanceState` from String \"IS_DONE\": not one of the values accepted for Enum class: [IS_TERMINATED, IS_CREATED, IS_SUSPENDED, IS_ACTIVE, IS_COMPLETED]",
            ),
            (
                json!({"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": [{"type": "NOPE"}]}),
                "i.actions[0].type: unknown instruction type \"NOPE\"",
            ),
            (
                json!({"type": "MOCK_AI_AGENT", "elementId": "a"}),
                "i: MOCK_AI_AGENT needs exactly one of `turns`",
            ),
            (json!({"jobType": "x"}), "i: missing field `type`"),
            (
                json!({"type": "ASSERT_AI_AGENT", "elementId": "a", "status": "RUNNING"}),
                "i.status: unknown variant `RUNNING`, expected one of `INITIALIZING`, `TOOL_DISCOVERY`, `THINKING`, `TOOL_CALLING`, `IDLE`, `COMPLETED`",
            ),
            (
                json!({"type": "ASSERT_AI_AGENT", "elementId": "a", "historyRoles": ["USER", "SYSTEM"]}),
                "i.historyRoles[1]: unknown variant `SYSTEM`, expected one of `USER`, `ASSISTANT`, `TOOL_RESULT`",
            ),
            (
                json!({"type": "ASSERT_AI_AGENT", "elementId": "a", "metrics": {"modelCalls": "2"}}),
                "i.metrics.modelCalls: invalid type: string \"2\", expected u64",
            ),
        ];
        for (json, expected) in cases {
            let message = parse_one(json).unwrap_err().to_string();
            assert!(message.starts_with(expected), "{message}");
        }
    }

    #[test]
    fn unknown_fields_are_ignored_with_a_warning_as_cpt_ignores_them() {
        let mut warnings = Vec::new();
        let i = Instruction::from_json(
            &json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {"processDefinitionId": "p"},
                    "startInstructions": [{"type": "START_BEFORE_ELEMENT", "elementId": "a"}], "variable": {}}),
            "i",
            &mut warnings,
        )
        .unwrap();
        assert_eq!(i.type_name(), "CREATE_PROCESS_INSTANCE");
        assert_eq!(
            warnings,
            [
                "i.startInstructions[0]: unknown field `type` is ignored (as CPT ignores it)",
                "i: unknown field `variable` is ignored (as CPT ignores it)"
            ]
        );
    }

    #[test]
    fn files_ignore_unknown_root_and_case_fields_and_warn_about_newer_instructions() {
        let file = TestFile::parse(
            r#"{"$schema": "https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json",
                "_integrationTestNotes": "x",
                "testCases": [{"name": "a", "metadata": {}, "instructions": [
                  {"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": []}]}]}"#,
        )
        .unwrap();
        assert_eq!(file.test_cases[0].name, "a");
        assert_eq!(
            file.warnings,
            [
                "CONDITIONAL_BEHAVIOR is newer than the file's $schema (https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json); baton reads it anyway"
            ]
        );
        let e = TestFile::parse(
            r#"{"testCases": [{"name": "a", "instructions": [{"type": "SET_TIME"}]}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "testCases[0].instructions[0]: Cannot build SetTimeInstruction, some of required attributes are not set [time]"
        );
        let e = TestFile::parse("{\"testCases\": [}").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("not valid JSON at line 1 column 16"),
            "{e}"
        );
    }

    /// CPT 8.10's model (camunda/camunda testing/camunda-process-test-json-test-cases,
    /// `AssertIncidentInstruction`, Immutables + Jackson builder): `incidentSelector` is the one
    /// required attribute, the reader names it as Immutables' builder does, and the enumerations
    /// reject a wrong value with Jackson's message (`SchemaValidationTest`
    /// shouldRejectAssertIncidentWithoutSelector / ...WithInvalidEnum reject the same files).
    #[test]
    fn assert_incident_is_read_with_cpts_messages() {
        let Instruction::AssertIncident(a) = parse_one(json!({"type": "ASSERT_INCIDENT",
            "incidentSelector": {"processDefinitionId": "order"}, "state": "IS_RESOLVED"}))
        .unwrap() else {
            unreachable!()
        };
        assert_eq!(a.state, Some(IncidentState::Resolved));
        assert_eq!(a.error_type, None);
        // A number where text is expected is read as its text, as CPT's reader (Jackson)
        // coerces it.
        let Instruction::AssertIncident(a) = parse_one(json!({"type": "ASSERT_INCIDENT",
            "incidentSelector": {"elementId": 42}, "errorMessage": 7}))
        .unwrap() else {
            unreachable!()
        };
        assert_eq!(a.incident_selector.element_id.as_deref(), Some("42"));
        assert_eq!(a.error_message.as_deref(), Some("7"));
        let cases = [
            (
                json!({"type": "ASSERT_INCIDENT", "state": "IS_ACTIVE"}),
                "i: Cannot build AssertIncidentInstruction, some of required attributes are not set [incidentSelector]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": null}),
                "i: Cannot build AssertIncidentInstruction, some of required attributes are not set [incidentSelector]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "a"}, "state": "INVALID"}),
                "i.state: Cannot deserialize value of type `io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentState` from String \"INVALID\": not one of the values accepted for Enum class: [IS_ACTIVE, IS_RESOLVED]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "a"}, "errorType": "INVALID"}),
                "i.errorType: Cannot deserialize value of type `io.camunda.process.test.api.testCases.instructions.assertIncident.IncidentErrorType` from String \"INVALID\": not one of the values accepted for Enum class: [CALLED_ELEMENT_ERROR, SECRET_RESOLUTION_ERROR, RESOURCE_NOT_FOUND, CALLED_DECISION_ERROR, DECISION_EVALUATION_ERROR, JOB_NO_RETRIES, EXECUTION_LISTENER_NO_RETRIES, AD_HOC_SUB_PROCESS_NO_RETRIES, UNSPECIFIED, TASK_LISTENER_NO_RETRIES, FORM_NOT_FOUND, EXTRACT_VALUE_ERROR, IO_MAPPING_ERROR, CONDITION_ERROR, UNHANDLED_ERROR_EVENT, UNKNOWN_ENUM_VALUE, UNKNOWN, MESSAGE_SIZE_EXCEEDED]",
            ),
            (
                json!({"type": "ASSERT_INCIDENT", "incidentSelector": {"elementId": "a"}, "errorMessage": [7]}),
                "i.errorMessage: Cannot deserialize value of type `java.lang.String` from Array value (token `JsonToken.START_ARRAY`)",
            ),
            (
                json!({"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR"}),
                "i: Cannot build MockJobWorkerThrowBpmnErrorInstruction, some of required attributes are not set [jobType, errorCode]",
            ),
            (
                json!({"type": "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", "processInstanceSelector": {"processDefinitionId": "p"}, "messageSelector": {}, "state": "IS_WAITING"}),
                "i.messageSelector: Cannot build MessageSelector, some of required attributes are not set [messageName]",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "v", "similarTo": {"threshold": 0.5}}),
                "i.similarTo: Cannot build SemanticSimilarityAssertion, some of required attributes are not set [expectedValue]",
            ),
            (
                json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {"processDefinitionId": "p"}, "startInstructions": [{}]}),
                "i.startInstructions[0]: Cannot build CreateProcessInstanceStartInstruction, some of required attributes are not set [elementId]",
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(parse_one(json).unwrap_err().to_string(), expected);
        }
    }

    /// The table of required attributes agrees with what the instructions read: taking away one
    /// attribute of each sample fails with CPT's sentence exactly when the table lists it, and
    /// lists and maps default to empty as CPT's reader defaults them.
    #[test]
    fn required_attributes_match_the_instructions() {
        let samples = [
            json!({"type": "ASSERT_DECISION", "decisionSelector": {"decisionDefinitionId": "d"}}),
            json!({"type": "ASSERT_ELEMENT_INSTANCE", "processInstanceSelector": {}, "elementSelector": {}, "state": "IS_ACTIVE", "amount": 1}),
            json!({"type": "ASSERT_ELEMENT_INSTANCES", "processInstanceSelector": {}, "elementSelectors": [], "state": "IS_ACTIVE"}),
            json!({"type": "ASSERT_INCIDENT", "incidentSelector": {}, "state": "IS_ACTIVE", "errorType": "UNKNOWN", "errorMessage": "m", "elementId": "e"}),
            json!({"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {}, "state": "IS_ACTIVE", "hasActiveIncidents": true}),
            json!({"type": "ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION", "processInstanceSelector": {}, "messageSelector": {"messageName": "m"}, "state": "IS_WAITING"}),
            json!({"type": "ASSERT_USER_TASK", "userTaskSelector": {}, "assignee": "a"}),
            json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {}, "variableName": "v", "satisfiesExpression": "true"}),
            json!({"type": "ASSERT_VARIABLES", "processInstanceSelector": {}, "variableNames": [], "variables": {}}),
            json!({"type": "BROADCAST_SIGNAL", "signalName": "s", "variables": {}}),
            json!({"type": "COMPLETE_JOB", "jobSelector": {}, "variables": {}, "useExampleData": false}),
            json!({"type": "COMPLETE_JOB_AD_HOC_SUB_PROCESS", "jobSelector": {}, "activateElements": []}),
            json!({"type": "COMPLETE_JOB_USER_TASK_LISTENER", "jobSelector": {}, "denied": false}),
            json!({"type": "COMPLETE_USER_TASK", "userTaskSelector": {}, "variables": {}}),
            json!({"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": []}),
            json!({"type": "CORRELATE_MESSAGE", "name": "m", "correlationKey": "k"}),
            json!({"type": "CREATE_PROCESS_INSTANCE", "processDefinitionSelector": {}, "variables": {}, "startInstructions": []}),
            json!({"type": "EVALUATE_CONDITIONAL_START_EVENT", "variables": {}}),
            json!({"type": "EVALUATE_DECISION", "decisionDefinitionSelector": {}, "variables": {}}),
            json!({"type": "INCREASE_TIME", "duration": "PT1H"}),
            json!({"type": "MOCK_CHILD_PROCESS", "processDefinitionId": "c", "variables": {}}),
            json!({"type": "MOCK_DMN_DECISION", "decisionDefinitionId": "d", "variables": {}}),
            json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "t", "variables": {}}),
            json!({"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR", "jobType": "t", "errorCode": "E", "errorMessage": "m"}),
            json!({"type": "PUBLISH_MESSAGE", "name": "m", "timeToLive": 1}),
            json!({"type": "RESOLVE_INCIDENT", "incidentSelector": {}}),
            json!({"type": "SET_TIME", "time": "2026-01-19T13:00:00Z"}),
            json!({"type": "THROW_BPMN_ERROR_FROM_JOB", "jobSelector": {}, "errorCode": "E", "variables": {}}),
            json!({"type": "UPDATE_VARIABLES", "processInstanceSelector": {}, "variables": {}}),
            json!({"type": "RELEASE_JOB", "jobSelector": {}}),
            json!({"type": "TRIGGER_TIMER", "processInstanceSelector": {}, "elementSelector": {}}),
            json!({"type": "RUN_CALLED_PROCESS", "elementSelector": {}}),
            json!({"type": "STUB_CALL_ACTIVITY_COMPLETE", "elementSelector": {}, "variables": {}}),
            json!({"type": "STUB_CALL_ACTIVITY_THROW_ERROR", "elementSelector": {}, "errorCode": "E"}),
            json!({"type": "SUSPEND_PROCESS_INSTANCE", "processInstanceSelector": {}}),
            json!({"type": "RESUME_PROCESS_INSTANCE", "processInstanceSelector": {}}),
            json!({"type": "SET_CLUSTER_VARIABLES", "variables": {}, "tenantId": "t"}),
            json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "l", "jobType": "t", "eventTypes": ["all"], "retries": 1}),
            json!({"type": "INJECT_JOB_FAULT", "jobSelector": {"jobType": "t"}, "fault": "NO_ANSWER"}),
            json!({"type": "INJECT_MODEL_FAULT", "elementId": "agent", "modelCall": 1, "fault": "REFUSAL"}),
            json!({"type": "SET_JOB_TIMEOUT", "timeout": "PT30S"}),
            json!({"type": "SET_TIME_SKIPPING", "enabled": false}),
            json!({"type": "ASSERT_INVARIANT", "invariant": "NO_INCIDENT"}),
            json!({"type": "ASSERT_SIDE_EFFECTS", "jobType": "t", "atMostOncePerKey": true}),
        ];
        assert_eq!(samples.len(), REQUIRED_ATTRIBUTES.len());
        for sample in samples {
            let type_name = sample["type"].as_str().unwrap();
            parse_one(sample.clone()).unwrap_or_else(|e| panic!("{type_name}: {e}"));
            let (_, required) = REQUIRED_ATTRIBUTES
                .iter()
                .find(|(t, _)| *t == type_name)
                .unwrap();
            for field in sample.as_object().unwrap().keys().filter(|k| *k != "type") {
                let mut without = sample.clone();
                without.as_object_mut().unwrap().remove(field);
                let result = parse_one(without);
                let expected = format!(
                    "i: Cannot build {}, some of required attributes are not set [{field}]",
                    instruction_class(type_name)
                );
                match (required.contains(&field.as_str()), result) {
                    (true, Err(e)) => assert_eq!(e.to_string(), expected),
                    (true, Ok(_)) => panic!("{type_name} reads without {field}"),
                    (false, Err(e)) if e.to_string().contains("needs") => {}
                    (false, Err(e)) => panic!("{type_name} without {field}: {e}"),
                    (false, Ok(_)) => {}
                }
            }
        }
    }

    /// `$schema` 8.10 (the docs' `https://camunda.com/json-schema/cpt-test-cases/8.10/schema.json`)
    /// takes ASSERT_INCIDENT and CONDITIONAL_BEHAVIOR without notes; 8.9 notes them.
    #[test]
    fn the_8_10_schema_takes_the_8_10_instructions_without_notes() {
        let file = |version: &str| {
            TestFile::parse(&format!(
                r#"{{"$schema": "https://camunda.com/json-schema/cpt-test-cases/{version}/schema.json",
                "testCases": [{{"name": "a", "instructions": [
                  {{"type": "ASSERT_INCIDENT", "incidentSelector": {{"elementId": "x"}}}},
                  {{"type": "CONDITIONAL_BEHAVIOR", "conditions": [], "actions": []}}]}}]}}"#
            ))
            .unwrap()
        };
        assert_eq!(file("8.10").warnings, Vec::<String>::new());
        assert_eq!(
            file("8.9").warnings,
            [
                "ASSERT_INCIDENT is newer than the file's $schema (https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json); baton reads it anyway",
                "CONDITIONAL_BEHAVIOR is newer than the file's $schema (https://camunda.com/json-schema/cpt-test-cases/8.9/schema.json); baton reads it anyway"
            ]
        );
        // A test case without `instructions` has none (a list: CPT defaults it); without a name
        // it is refused as CPT refuses it.
        let empty = TestFile::parse(r#"{"testCases": [{"name": "a"}]}"#).unwrap();
        assert!(empty.test_cases[0].instructions.is_empty());
        let e = TestFile::parse(r#"{"testCases": [{"instructions": []}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "testCases[0]: Cannot build TestCase, some of required attributes are not set [name]"
        );
    }

    #[test]
    fn the_extensions_are_checked_when_read() {
        let Instruction::CreateGlobalTaskListener(l) =
            parse_one(json!({"type": "CREATE_GLOBAL_TASK_LISTENER",
            "id": "audit", "jobType": "audit", "eventTypes": ["CREATING", "all", "creating"]}))
            .unwrap()
        else {
            unreachable!()
        };
        assert_eq!(
            l.event_types,
            ["all"],
            "`all` with others is `all`, as Camunda reads it"
        );
        let cases = [
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": ["start"]}),
                "i.eventTypes[0]: \"start\" is not a user task event; expected one of creating, assigning, updating, completing, canceling, all",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": []}),
                "i.eventTypes: needs at least one of creating, assigning, updating, completing, canceling, all",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": ["all"], "retries": 0}),
                "i.retries: must be a positive number, got 0",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": "a", "jobType": "t", "eventTypes": ["all"], "priority": 101}),
                "i.priority: must be an integer between 0 and 100, got 101",
            ),
            (
                json!({"type": "CREATE_GLOBAL_TASK_LISTENER", "id": " ", "jobType": "t", "eventTypes": ["all"]}),
                "i.id: must not be blank",
            ),
            (
                json!({"type": "SET_CLUSTER_VARIABLES", "variables": {}, "tenantId": ""}),
                "i.tenantId: must not be blank (leave it out for cluster-wide variables)",
            ),
            (
                json!({"type": "ASSERT_VARIABLES", "processInstanceSelector": {"processDefinitionId": "p"}, "elementSelector": {"elementId": "a"}, "innerInstanceSelector": {"elementId": "agent", "toolElementId": "t"}}),
                "i: give elementSelector or innerInstanceSelector, not both",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "toolCall", "innerInstanceSelector": {"elementId": "agent"}}),
                "i.innerInstanceSelector: needs toolElementId, or variableName (with valueContains), to choose an inner instance",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "toolCall", "innerInstanceSelector": {"elementId": "agent", "valueContains": "x"}}),
                "i.innerInstanceSelector: valueContains needs variableName (the variable whose value is searched)",
            ),
            (
                json!({"type": "ASSERT_VARIABLE", "processInstanceSelector": {"processDefinitionId": "p"}, "variableName": "toolCall", "innerInstanceSelector": {"toolElementId": "t"}}),
                "i.innerInstanceSelector: missing field `elementId`",
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(parse_one(json).unwrap_err().to_string(), expected);
        }
    }
}
