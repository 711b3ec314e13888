//! The CPT JSON test-case format as data: a file, its test cases, and every instruction of the
//! 8.9 schema and the 8.11 development line (the union: a file is never rejected for its
//! `$schema`), plus baton's two agent instructions `MOCK_AI_AGENT` and `ASSERT_AI_AGENT`.
//!
//! [`TestFile::parse`] reads a file and names the JSON path of every problem
//! (`testCases[1].instructions[4].jobSelector.jobType: invalid type: ...`). CPT's reader ignores
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

fn error(path: impl Into<String>, message: impl Into<String>) -> FormatError {
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

/// `ASSERT_PROCESS_INSTANCE.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ProcessInstanceState {
    #[serde(rename = "IS_ACTIVE")]
    Active,
    #[serde(rename = "IS_COMPLETED")]
    Completed,
    #[serde(rename = "IS_CREATED")]
    Created,
    #[serde(rename = "IS_TERMINATED")]
    Terminated,
}

/// `ASSERT_ELEMENT_INSTANCE.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ElementInstanceState {
    #[serde(rename = "IS_ACTIVE")]
    Active,
    #[serde(rename = "IS_COMPLETED")]
    Completed,
    #[serde(rename = "IS_TERMINATED")]
    Terminated,
}

/// `ASSERT_ELEMENT_INSTANCES.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ElementInstancesState {
    #[serde(rename = "IS_ACTIVE")]
    Active,
    #[serde(rename = "IS_COMPLETED")]
    Completed,
    #[serde(rename = "IS_TERMINATED")]
    Terminated,
    #[serde(rename = "IS_NOT_ACTIVE")]
    NotActive,
    #[serde(rename = "IS_NOT_ACTIVATED")]
    NotActivated,
    #[serde(rename = "IS_ACTIVE_EXACTLY")]
    ActiveExactly,
    #[serde(rename = "IS_COMPLETED_IN_ORDER")]
    CompletedInOrder,
}

/// `ASSERT_USER_TASK.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum UserTaskState {
    #[serde(rename = "IS_CREATED")]
    Created,
    #[serde(rename = "IS_COMPLETED")]
    Completed,
    #[serde(rename = "IS_CANCELED")]
    Canceled,
    #[serde(rename = "IS_FAILED")]
    Failed,
}

/// `ASSERT_PROCESS_INSTANCE_MESSAGE_SUBSCRIPTION.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum MessageSubscriptionState {
    #[serde(rename = "IS_WAITING")]
    Waiting,
    #[serde(rename = "IS_NOT_WAITING")]
    NotWaiting,
    #[serde(rename = "IS_CORRELATED")]
    Correlated,
}

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
    #[serde(default)]
    pub variables: Variables,
    #[serde(default)]
    pub use_example_data: bool,
}

/// MOCK_JOB_WORKER_THROW_BPMN_ERROR.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MockJobWorkerThrowBpmnError {
    pub job_type: String,
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

/// ASSERT_VARIABLES.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertVariables {
    pub process_instance_selector: ProcessSelector,
    pub element_selector: Option<ElementSelector>,
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
    conditions: Vec<Value>,
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

/// Where MOCK_AI_AGENT takes the model's turns from.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentTurns {
    /// Turns in the cassette format, written in the test file.
    Turns(Vec<Value>),
    /// A cassette file, relative to the test file.
    Cassette(String),
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
    MockAiAgent(MockAiAgent),
    AssertAiAgent(AssertAiAgent),
}

/// Where an instruction type comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// In the 8.9 schema.
    V89,
    /// Confirmed later (runner and next docs): CONDITIONAL_BEHAVIOR.
    Later,
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
    ("CONDITIONAL_BEHAVIOR", Origin::Later),
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
    ("MOCK_AI_AGENT", Origin::Baton),
    ("ASSERT_AI_AGENT", Origin::Baton),
];

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
            MockAiAgent(_) => "MOCK_AI_AGENT",
            AssertAiAgent(_) => "ASSERT_AI_AGENT",
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
            "ASSERT_VARIABLE" => I::AssertVariable(read(fields, path, warnings)?),
            "ASSERT_VARIABLES" => I::AssertVariables(read(fields, path, warnings)?),
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
            "INCREASE_TIME" => I::IncreaseTime(read(fields, path, warnings)?),
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
            "SET_TIME" => I::SetTime(read(fields, path, warnings)?),
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
                let raw: MockAiAgentJson = read(fields, path, warnings)?;
                let turns = match (raw.turns, raw.cassette) {
                    (Some(turns), None) => AgentTurns::Turns(turns),
                    (None, Some(cassette)) => AgentTurns::Cassette(cassette),
                    _ => {
                        return Err(error(
                            path,
                            "MOCK_AI_AGENT needs exactly one of `turns` (the model's turns) and `cassette` (a cassette file, relative to the test file)",
                        ));
                    }
                };
                I::MockAiAgent(MockAiAgent {
                    element_id: raw.element_id,
                    turns,
                })
            }
            "ASSERT_AI_AGENT" => I::AssertAiAgent(read(fields, path, warnings)?),
            other => {
                let closest = INSTRUCTION_TYPES
                    .iter()
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
                    format!("unknown instruction type \"{other}\"; {hint}"),
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

/// Deserializes the fields of an instruction, naming the path of a problem; unknown fields
/// are ignored and named in `warnings`.
fn read<T: DeserializeOwned>(
    fields: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<T, FormatError> {
    let mut ignored = Vec::new();
    let result = serde_path_to_error::deserialize(serde_ignored::Deserializer::new(
        fields,
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
        error(at, e.into_inner().to_string())
    })
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
                Some(Origin::Later) => version < (8, 10),
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
        Some(other) => {
            return Err(error(
                format!("{path}.name"),
                format!("must be a string, got {}", kind(other)),
            ));
        }
        None => return Err(error(path, "missing field `name`")),
    };
    let description = optional_string(object, "description", path)?;
    let list = match object.get("instructions") {
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(error(
                format!("{path}.instructions"),
                format!("must be an array, got {}", kind(other)),
            ));
        }
        None => return Err(error(path, "missing field `instructions`")),
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
            json!({"type": "MOCK_AI_AGENT", "elementId": "agent", "cassette": "a.json"}),
            json!({"type": "ASSERT_AI_AGENT", "elementId": "agent", "calledTools": ["a"], "modelCalls": 2}),
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
                json!({"type": "COMPLETE_JOB", "jobSelector": {"jobType": 7}}),
                "i.jobSelector.jobType: invalid type: integer `7`, expected a string",
            ),
            (
                json!({"type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": {"processDefinitionId": "p"}, "state": "IS_DONE"}),
                "i.state: unknown variant `IS_DONE`, expected one of `IS_ACTIVE`, `IS_COMPLETED`, `IS_CREATED`, `IS_TERMINATED`",
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
            "testCases[0].instructions[0]: missing field `time`"
        );
        let e = TestFile::parse("{\"testCases\": [}").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("not valid JSON at line 1 column 16"),
            "{e}"
        );
    }
}
