//! Client commands as data: every request a Zeebe client can make of the engine, as one
//! [`Command`] value that [`Engine::apply`] carries out.
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

use super::*;
use serde_json::Value as Json;

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
    /// [`Engine::register_decision`]).
    MockDecision {
        decision_id: String,
        output: Json,
    },
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

impl Engine {
    /// Carries out a command: the one way a client's request enters the engine (every method
    /// below builds its command and applies it). A rejection changes nothing. When the engine
    /// records (see [`Engine::record_commands`]), the command is kept here, and only here.
    pub fn apply(&mut self, command: Command) -> Result<Applied, Rejection> {
        self.recorded.note(&command);
        let done = |()| Applied::Done;
        match command {
            Command::Deploy { resources } => self.apply_deploy(&resources).map(Applied::Deployed),
            Command::CreateInstance(request) => {
                self.apply_create_instance(request).map(Applied::Key)
            }
            Command::CancelInstance {
                process_instance_key,
            } => self.apply_cancel_instance(process_instance_key).map(done),
            Command::SetVariables {
                scope_key,
                variables,
                local,
            } => self
                .apply_set_variables(scope_key, variables, local)
                .map(done),
            Command::PublishMessage(message) => {
                self.apply_publish_message(message).map(Applied::Key)
            }
            Command::CorrelateMessage {
                name,
                correlation_key,
                variables,
            } => self
                .apply_correlate_message(&name, &correlation_key, variables)
                .map(Applied::Correlated),
            Command::BroadcastSignal { name, variables } => self
                .apply_broadcast_signal(&name, variables)
                .map(Applied::Key),
            Command::EvaluateConditionalStartEvents {
                variables,
                process_definition_key,
            } => self
                .apply_evaluate_conditional_start_events(variables, process_definition_key)
                .map(Applied::Keys),
            Command::ActivateJobs {
                job_type,
                worker,
                timeout_ms,
                max_jobs,
            } => Ok(Applied::Keys(
                self.apply_activate_jobs(&job_type, &worker, timeout_ms, max_jobs),
            )),
            Command::CompleteJob {
                job_key,
                variables,
                result,
            } => self
                .apply_complete_job(job_key, share_document(variables), result)
                .map(done),
            Command::FailJob {
                job_key,
                retries,
                error_message,
                retry_backoff_ms,
                variables,
            } => self
                .apply_fail_job(
                    job_key,
                    retries,
                    &error_message,
                    retry_backoff_ms,
                    variables,
                )
                .map(done),
            Command::ThrowError {
                job_key,
                error_code,
                error_message,
                variables,
            } => self
                .apply_throw_error(job_key, &error_code, &error_message, variables)
                .map(done),
            Command::UpdateJobRetries { job_key, retries } => {
                self.apply_update_job_retries(job_key, retries).map(done)
            }
            Command::CompleteUserTask {
                user_task_key,
                variables,
            } => self
                .apply_complete_user_task(user_task_key, variables)
                .map(done),
            Command::AssignUserTask {
                user_task_key,
                assignee,
            } => self
                .apply_assign_user_task(user_task_key, assignee.as_deref())
                .map(done),
            Command::UpdateUserTask {
                user_task_key,
                changes,
            } => self
                .apply_update_user_task(user_task_key, changes)
                .map(done),
            Command::ResolveIncident { incident_key } => {
                self.apply_resolve_incident(incident_key).map(done)
            }
            Command::EvaluateDecision {
                decision_id,
                variables,
            } => self
                .apply_evaluate_decision(&decision_id, variables)
                .map(Applied::Evaluated),
            Command::AdvanceClock { millis } => self.apply_advance_clock(millis).map(done),
            Command::SetClock { epoch_millis } => self.apply_set_clock(epoch_millis).map(done),
            Command::MockDecision {
                decision_id,
                output,
            } => {
                self.apply_mock_decision(decision_id, output);
                Ok(Applied::Done)
            }
        }
    }

    /// Deploys resources (BPMN and `.dmn` files): parses them, runs Zeebe's deploy-time checks,
    /// compiles every executable process and deploys every decision requirements graph, under
    /// one deployment key. All or nothing; a rejection lists every problem with file,
    /// line:column and element id.
    pub fn deploy(
        &mut self,
        resources: &[crate::deploy::Resource],
    ) -> Result<DeploymentInfo, Rejection> {
        let resources = resources.to_vec();
        self.apply(Command::Deploy { resources })
            .map(Applied::into_deployed)
    }

    /// Creates a process instance (latest version unless one is given), optionally starting
    /// before given elements and with terminate-after-element runtime instructions.
    pub fn create_instance(&mut self, request: CreateInstance) -> Result<Key, Rejection> {
        self.apply(Command::CreateInstance(request))
            .map(Applied::into_key)
    }

    /// Cancels a process instance: every element instance is terminated.
    pub fn cancel_instance(&mut self, process_instance_key: Key) -> Result<(), Rejection> {
        self.apply(Command::CancelInstance {
            process_instance_key,
        })
        .map(drop)
    }

    /// Sets variables on a scope (an element instance or the process instance): with `local`,
    /// in exactly that scope; otherwise Zeebe's propagating merge.
    pub fn set_variables(
        &mut self,
        scope_key: Key,
        variables: VariableDocument,
        local: bool,
    ) -> Result<(), Rejection> {
        self.apply(Command::SetVariables {
            scope_key,
            variables,
            local,
        })
        .map(drop)
    }

    /// Publishes a message: it correlates to the open subscriptions with its name and
    /// correlation key (at most once per BPMN process id, catch events first, then message start
    /// events) and stays buffered for its time to live.
    pub fn publish_message(&mut self, message: PublishMessage) -> Result<Key, Rejection> {
        self.apply(Command::PublishMessage(message))
            .map(Applied::into_key)
    }

    /// Correlates a message synchronously: no buffering; rejected `NOT_FOUND` when nothing waits
    /// for it. Answers the process instance it reached (a newly started one is preferred).
    pub fn correlate_message(
        &mut self,
        name: &str,
        correlation_key: &str,
        variables: VariableDocument,
    ) -> Result<MessageCorrelation, Rejection> {
        self.apply(Command::CorrelateMessage {
            name: name.to_owned(),
            correlation_key: correlation_key.to_owned(),
            variables,
        })
        .map(Applied::into_correlation)
    }

    /// Broadcasts a signal to the subscriptions open now; returns the signal's key.
    pub fn broadcast_signal(
        &mut self,
        name: &str,
        variables: VariableDocument,
    ) -> Result<Key, Rejection> {
        self.apply(Command::BroadcastSignal {
            name: name.to_owned(),
            variables,
        })
        .map(Applied::into_key)
    }

    /// Evaluates the root conditional start events (of one process definition, or of every
    /// latest version) against `variables`; each whose condition holds starts an instance with
    /// them. Returns the keys of the started instances.
    pub fn evaluate_conditional_start_events(
        &mut self,
        variables: VariableDocument,
        process_definition_key: Option<Key>,
    ) -> Result<Vec<Key>, Rejection> {
        self.apply(Command::EvaluateConditionalStartEvents {
            variables,
            process_definition_key,
        })
        .map(Applied::into_keys)
    }

    /// Hands activatable jobs of a type to a worker for `timeout_ms` (Zeebe's ActivateJobs).
    /// Returns the keys of the activated jobs, oldest first.
    pub fn activate_jobs(
        &mut self,
        job_type: &str,
        worker: &str,
        timeout_ms: i64,
        max_jobs: usize,
    ) -> Vec<Key> {
        // Activating jobs is never rejected.
        self.apply(Command::ActivateJobs {
            job_type: job_type.to_owned(),
            worker: worker.to_owned(),
            timeout_ms,
            max_jobs,
        })
        .map(Applied::into_keys)
        .unwrap_or_default()
    }

    /// Completes a job with variables.
    pub fn complete_job(
        &mut self,
        job_key: Key,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        self.complete_job_with_result(job_key, variables, None)
    }

    /// Completes a job with variables and a result (ad-hoc sub-process, task listener).
    pub fn complete_job_with_result(
        &mut self,
        job_key: Key,
        variables: VariableDocument,
        result: Option<JobResult>,
    ) -> Result<(), Rejection> {
        self.apply(Command::CompleteJob {
            job_key,
            variables,
            result,
        })
        .map(drop)
    }

    /// Fails a job: with retries left it becomes activatable again (after the backoff); with none
    /// left an incident is raised.
    pub fn fail_job(
        &mut self,
        job_key: Key,
        retries: i32,
        error_message: &str,
        retry_backoff_ms: i64,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        self.apply(Command::FailJob {
            job_key,
            retries,
            error_message: error_message.to_owned(),
            retry_backoff_ms,
            variables,
        })
        .map(drop)
    }

    /// Throws a BPMN error from a job.
    pub fn throw_error(
        &mut self,
        job_key: Key,
        error_code: &str,
        error_message: &str,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        self.apply(Command::ThrowError {
            job_key,
            error_code: error_code.to_owned(),
            error_message: error_message.to_owned(),
            variables,
        })
        .map(drop)
    }

    /// Sets a job's retries (needed before resolving a no-retries incident).
    pub fn update_job_retries(&mut self, job_key: Key, retries: i32) -> Result<(), Rejection> {
        self.apply(Command::UpdateJobRetries { job_key, retries })
            .map(drop)
    }

    /// Completes a Camunda user task with variables (they propagate like job variables).
    pub fn complete_user_task(
        &mut self,
        user_task_key: Key,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        self.apply(Command::CompleteUserTask {
            user_task_key,
            variables,
        })
        .map(drop)
    }

    /// Assigns a Camunda user task (`None` unassigns); `assigning` listeners run first.
    pub fn assign_user_task(
        &mut self,
        user_task_key: Key,
        assignee: Option<&str>,
    ) -> Result<(), Rejection> {
        self.apply(Command::AssignUserTask {
            user_task_key,
            assignee: assignee.map(str::to_owned),
        })
        .map(drop)
    }

    /// Updates a Camunda user task's fields (`candidateGroups`, `candidateUsers`, `dueDate`,
    /// `followUpDate`, `priority`); `updating` listeners run first.
    pub fn update_user_task(
        &mut self,
        user_task_key: Key,
        changes: VariableDocument,
    ) -> Result<(), Rejection> {
        self.apply(Command::UpdateUserTask {
            user_task_key,
            changes,
        })
        .map(drop)
    }

    /// Resolves an incident and retries the step that failed. A job incident needs retries on
    /// the job first ([`Engine::update_job_retries`]).
    pub fn resolve_incident(&mut self, incident_key: Key) -> Result<(), Rejection> {
        self.apply(Command::ResolveIncident { incident_key })
            .map(drop)
    }

    /// Evaluates the latest version of a decision without a process instance (CPT's
    /// `EVALUATE_DECISION`, Zeebe's `EvaluateDecision` command) and records it. A decision that
    /// fails is still recorded (`DECISION_EVALUATION FAILED`) and returned with its failure
    /// message; only an unknown decision is rejected.
    pub fn evaluate_decision(
        &mut self,
        decision_id: &str,
        variables: VariableDocument,
    ) -> Result<DecisionOutcome, Rejection> {
        self.apply(Command::EvaluateDecision {
            decision_id: decision_id.to_owned(),
            variables,
        })
        .map(Applied::into_evaluation)
    }

    /// Registers a fixed output for a decision, as CPT's `mockDmnDecision` does: a new DMN
    /// resource is deployed whose decision `decision_id` is a literal expression with this value.
    /// It becomes the latest version, so business rule tasks (binding `latest`) and standalone
    /// evaluations get this output.
    pub fn register_decision(&mut self, decision_id: impl Into<String>, output: Json) {
        // Registering a decision is never rejected.
        let _ = self.apply(Command::MockDecision {
            decision_id: decision_id.into(),
            output,
        });
    }

    /// Moves the clock forward by `millis` and fires what fell due.
    pub fn advance_clock(&mut self, millis: i64) -> Result<(), Rejection> {
        self.apply(Command::AdvanceClock { millis }).map(drop)
    }

    /// Sets the clock to an absolute time (epoch milliseconds) and fires what fell due.
    pub fn set_clock(&mut self, epoch_millis: i64) -> Result<(), Rejection> {
        self.apply(Command::SetClock { epoch_millis }).map(drop)
    }

    /// Starts (`true`) or stops keeping every command this engine carries out (see
    /// [`Engine::recorded_commands`]). Deployments are kept either way. What was kept stays; a
    /// copy of the engine records (or not) on its own from where it was copied.
    pub fn record_commands(&mut self, on: bool) {
        self.recorded.recording = on;
    }

    /// Every command this engine carried out since it was created, in order (rejected ones too:
    /// a replay rejects them again), when it recorded them all: applied to a fresh engine with
    /// the same configuration they give the same records. An error says how many commands were
    /// carried out while not recording, or that a model built in code was deployed
    /// ([`Engine::deploy_definitions`] has no resource to replay).
    pub fn recorded_commands(&self) -> Result<&[Command], UnrecordedCommands> {
        match self.recorded.missed {
            0 => Ok(&self.recorded.commands),
            missed => Err(UnrecordedCommands { missed }),
        }
    }

    /// Counts a change no command can replay (see [`Engine::recorded_commands`]).
    pub(crate) fn record_unreplayable(&mut self) {
        self.recorded.missed += 1;
    }
}

impl Applied {
    // Each command has one kind of answer (see `Engine::apply`): the methods above read it
    // back for the command they applied.

    fn into_deployed(self) -> DeploymentInfo {
        match self {
            Applied::Deployed(info) => info,
            other => unreachable!("a deployment answered {other:?}"),
        }
    }

    fn into_key(self) -> Key {
        match self {
            Applied::Key(key) => key,
            other => unreachable!("a command that creates a key answered {other:?}"),
        }
    }

    fn into_keys(self) -> Vec<Key> {
        match self {
            Applied::Keys(keys) => keys,
            other => unreachable!("a command that answers keys answered {other:?}"),
        }
    }

    fn into_correlation(self) -> MessageCorrelation {
        match self {
            Applied::Correlated(correlation) => correlation,
            other => unreachable!("a correlation answered {other:?}"),
        }
    }

    fn into_evaluation(self) -> DecisionOutcome {
        match self {
            Applied::Evaluated(outcome) => outcome,
            other => unreachable!("a decision evaluation answered {other:?}"),
        }
    }
}

/// The commands an engine carried out (see [`Engine::record_commands`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct RecordedCommands {
    recording: bool,
    /// Shared between copies of the engine until one of them records more: copying a
    /// deployment's engine into a test copies no command.
    commands: Arc<Vec<Command>>,
    /// Commands carried out while not recording, and deployments of models built in code.
    missed: u64,
}

impl RecordedCommands {
    /// Keeps `command` when recording; counts it as missed otherwise. Deployments are kept
    /// either way: they are few and their text is shared, so a test on a copy of a deployed
    /// engine can record from its first command.
    #[inline]
    pub(crate) fn note(&mut self, command: &Command) {
        if self.recording || matches!(command, Command::Deploy { .. }) {
            self.keep(command.clone());
        } else {
            self.missed += 1;
        }
    }

    /// [`RecordedCommands::note`] for a command that is built only when recording.
    #[inline]
    pub(crate) fn note_with(&mut self, command: impl FnOnce() -> Command) {
        if self.recording {
            self.keep(command());
        } else {
            self.missed += 1;
        }
    }

    /// Keeps a command: out of line, so the copies a command makes of its arguments stay out
    /// of [`Engine::apply`] (recording is the rare case).
    #[cold]
    #[inline(never)]
    fn keep(&mut self, command: Command) {
        Arc::make_mut(&mut self.commands).push(command);
    }
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
