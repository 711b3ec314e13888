//! Client commands as data: every request a Zeebe client can make of the engine, as one
//! [`Command`] value that [`Engine::apply`](crate::runtime::Engine::apply) carries out.
//!
//! The engine's methods (`create_instance`, `complete_job`, ...) stay the everyday API; a
//! `Command` is the same request held as a value, so that a run can be kept as the list of what
//! was asked of it (its input log, next to the records, its output log) and then replayed on a
//! fresh engine or on a saved copy of one (`Engine` is `Clone`), handed to another runtime, or
//! altered on purpose (a fault injected between two commands). Commands are applied in order;
//! the same commands on the same engine give the same records, byte for byte.
//!
//! A command is also JSON (serde), one object tagged by `command`:
//! `{"command": "completeJob", "jobKey": 2251799813685253, "variables": {"ok": true}}`.

use serde_json::Value as Json;

use crate::dmn::EvaluatedDecision;
use crate::runtime::records::{Key, SharedVariableDocument, VariableDocument};

/// A request to the engine, as a client sends it to Zeebe's gateway.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(
    tag = "command",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Command {
    /// Deploy BPMN, DMN and form resources.
    Deploy {
        resources: Vec<crate::deploy::Resource>,
    },
    CreateInstance(CreateInstance),
    CancelInstance {
        process_instance_key: Key,
    },
    /// Suspend a process instance (Zeebe 8.10, `POST /v2/process-instances/{key}/suspension`).
    SuspendInstance {
        process_instance_key: Key,
    },
    /// Resume a suspended process instance (`POST /v2/process-instances/{key}/resumption`).
    ResumeInstance {
        process_instance_key: Key,
    },
    SetVariables {
        scope_key: Key,
        #[serde(default)]
        variables: VariableDocument,
        #[serde(default)]
        local: bool,
    },
    PublishMessage(PublishMessage),
    CorrelateMessage {
        name: String,
        correlation_key: String,
        #[serde(default)]
        variables: VariableDocument,
    },
    BroadcastSignal {
        name: String,
        #[serde(default)]
        variables: VariableDocument,
    },
    EvaluateConditionalStartEvents {
        #[serde(default)]
        variables: VariableDocument,
        process_definition_key: Option<Key>,
    },
    ActivateJobs {
        job_type: String,
        worker: String,
        timeout_ms: i64,
        max_jobs: usize,
    },
    /// Hand one activatable job to a worker for `timeout_ms`, as Zeebe's job push does for a
    /// worker that streams jobs of its type: a `JOB_BATCH` `ACTIVATED` of that job alone.
    PushJob {
        job_key: Key,
        worker: String,
        timeout_ms: i64,
    },
    CompleteJob {
        job_key: Key,
        #[serde(default)]
        variables: VariableDocument,
        result: Option<JobResult>,
    },
    FailJob {
        job_key: Key,
        retries: i32,
        error_message: String,
        retry_backoff_ms: i64,
        #[serde(default)]
        variables: VariableDocument,
    },
    ThrowError {
        job_key: Key,
        error_code: String,
        error_message: String,
        #[serde(default)]
        variables: VariableDocument,
    },
    UpdateJobRetries {
        job_key: Key,
        retries: i32,
    },
    CompleteUserTask {
        user_task_key: Key,
        #[serde(default)]
        variables: VariableDocument,
    },
    AssignUserTask {
        user_task_key: Key,
        assignee: Option<String>,
    },
    UpdateUserTask {
        user_task_key: Key,
        #[serde(default)]
        changes: VariableDocument,
    },
    ResolveIncident {
        incident_key: Key,
    },
    EvaluateDecision {
        decision_id: String,
        #[serde(default)]
        variables: VariableDocument,
    },
    /// Move the virtual clock forward (timers that come due fire).
    AdvanceClock {
        millis: i64,
    },
    /// Set the virtual clock to an instant, epoch milliseconds.
    SetClock {
        epoch_millis: i64,
    },
    /// Give a decision a fixed output, as CPT's `mockDmnDecision` does (see
    /// [`Engine::register_decision`](crate::runtime::Engine::register_decision)).
    MockDecision {
        decision_id: String,
        output: Json,
    },
    /// Set cluster variables (Zeebe 8.10), read in FEEL as `camunda.vars.cluster.*` (no
    /// tenant) or `camunda.vars.tenant.*` (that tenant's), and both as `camunda.vars.env.*`.
    SetClusterVariables {
        tenant_id: Option<String>,
        variables: VariableDocument,
    },
    /// Create a global user task listener (`POST /v2/global-task-listeners`).
    CreateGlobalTaskListener(crate::runtime::records::GlobalTaskListener),
}

/// What an applied [`Command`] answered, as the matching engine method returns it.
#[derive(Debug, Clone, PartialEq)]
pub enum Applied {
    /// The command was carried out and answers nothing more.
    Done,
    Deployed(DeploymentInfo),
    /// The key the command created: a process instance, a message, a signal.
    Key(Key),
    /// Activated jobs, or the instances conditional start events created.
    Keys(Vec<Key>),
    Correlated(MessageCorrelation),
    Evaluated(DecisionOutcome),
}

/// What a deployment produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeploymentInfo {
    pub deployment_key: Key,
    /// (BPMN process id, version, process definition key) per process.
    pub processes: Vec<(String, i32, Key)>,
    /// (decision requirements id, version, key) per DRG (`.dmn` resource).
    pub decision_requirements: Vec<(String, i32, Key)>,
    /// (decision id, version, decision key) per decision.
    pub decisions: Vec<(String, i32, Key)>,
}

/// How to create a process instance.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CreateInstance {
    pub bpmn_process_id: String,
    /// A specific version (default: the latest).
    pub version: Option<i32>,
    pub variables: VariableDocument,
    /// Start before these elements instead of at the none start event.
    pub start_instructions: Vec<String>,
    /// Terminate the instance as soon as one of these elements completes.
    pub terminate_after: Vec<String>,
}

impl CreateInstance {
    pub fn new(bpmn_process_id: impl Into<String>) -> Self {
        CreateInstance {
            bpmn_process_id: bpmn_process_id.into(),
            ..Default::default()
        }
    }

    pub fn variables(mut self, variables: VariableDocument) -> Self {
        self.variables = variables;
        self
    }
}

/// The default time to live of a published message: the Camunda client's default (one hour).
pub const DEFAULT_MESSAGE_TTL_MS: i64 = 3_600_000;

/// A message to publish.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishMessage {
    pub name: String,
    pub correlation_key: String,
    /// How long the message stays buffered, in milliseconds (0: only the subscriptions open now).
    pub time_to_live_ms: i64,
    /// Unique per name and correlation key while a message with the id is buffered.
    pub message_id: Option<String>,
    #[serde(default)]
    pub variables: VariableDocument,
}

impl PublishMessage {
    /// A message with the client's default time to live (one hour) and no variables.
    pub fn new(name: impl Into<String>, correlation_key: impl Into<String>) -> PublishMessage {
        PublishMessage {
            name: name.into(),
            correlation_key: correlation_key.into(),
            time_to_live_ms: DEFAULT_MESSAGE_TTL_MS,
            message_id: None,
            variables: VariableDocument::new(),
        }
    }

    pub fn time_to_live(mut self, millis: i64) -> Self {
        self.time_to_live_ms = millis;
        self
    }

    pub fn message_id(mut self, id: impl Into<String>) -> Self {
        self.message_id = Some(id.into());
        self
    }

    pub fn variables(mut self, variables: VariableDocument) -> Self {
        self.variables = variables;
        self
    }
}

/// What the synchronous correlate command answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageCorrelation {
    pub message_key: Key,
    /// The process instance the message went to (a newly started one is preferred).
    pub process_instance_key: Key,
}

/// What a worker sends when it completes the job of an ad-hoc sub-process (as JSON, the shape of
/// Zeebe's REST API: `activateElements: [{elementId, variables}]`, `isCompletionConditionFulfilled`,
/// `isCancelRemainingInstances`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AdHocJobResult {
    /// Elements to activate, each with the variables of its inner instance (shared: they
    /// become the inner instance's variables as they are).
    #[serde(with = "activate_elements")]
    pub activate_elements: Vec<(String, SharedVariableDocument)>,
    #[serde(rename = "isCompletionConditionFulfilled")]
    pub completion_condition_fulfilled: bool,
    #[serde(rename = "isCancelRemainingInstances")]
    pub cancel_remaining_instances: bool,
}

/// `activateElements` as Zeebe's REST API writes it: `[{"elementId": …, "variables": {…}}]`.
mod activate_elements {
    use crate::runtime::records::SharedVariableDocument as VariableDocument;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Element {
        element_id: String,
        #[serde(default)]
        variables: VariableDocument,
    }

    pub fn serialize<S: Serializer>(
        elements: &[(String, VariableDocument)],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(elements.iter().map(|(element_id, variables)| Element {
            element_id: element_id.clone(),
            variables: variables.clone(),
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<(String, VariableDocument)>, D::Error> {
        let elements = Vec::<Element>::deserialize(deserializer)?;
        Ok(elements
            .into_iter()
            .map(|e| (e.element_id, e.variables))
            .collect())
    }
}

/// The result part of a job completion.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum JobResult {
    AdHocSubProcess(AdHocJobResult),
    /// A task listener's answer: deny the transition, or correct task fields.
    UserTask {
        #[serde(default)]
        denied: bool,
        #[serde(default)]
        denied_reason: Option<String>,
        #[serde(default)]
        corrections: VariableDocument,
    },
}

/// The result of a standalone evaluation ([`Engine::evaluate_decision`](crate::runtime::Engine::evaluate_decision)).
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionOutcome {
    /// The key of the `DECISION_EVALUATION` record.
    pub key: Key,
    pub decision_id: String,
    pub decision_version: i32,
    /// The decision's output (`null` when it failed).
    pub output: Json,
    /// 1-based indexes of the rules that matched in the called decision.
    pub matched_rules: Vec<u32>,
    /// Zeebe's `evaluationFailureMessage` when the evaluation failed.
    pub failure_message: Option<String>,
    /// Every decision evaluated, required decisions first.
    pub evaluated_decisions: Vec<EvaluatedDecision>,
}

/// The recorded commands would not replay the run: some were carried out while the engine
/// was not recording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{missed} command(s) were carried out while the engine was not recording (or deployed a model built in code), so the recorded commands would not replay the run; record from the start"
)]
pub struct UnrecordedCommands {
    /// How many changes are missing from the recording.
    pub missed: u64,
}

/// A command log that cannot be read: where (the path into the JSON) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct CommandLogError {
    /// The path of the bad value, e.g. `[3].variables`; `.` for the whole log.
    pub path: String,
    pub message: String,
}

/// Reads a command log: a JSON array of [`Command`]s, as `serde_json` writes a `Vec<Command>`.
pub fn read_commands(json: &str) -> Result<Vec<Command>, CommandLogError> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| CommandLogError {
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}
