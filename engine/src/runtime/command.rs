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
    /// Carries out a command, as the matching method does (a rejection changes nothing).
    pub fn apply(&mut self, command: Command) -> Result<Applied, Rejection> {
        let done = |()| Applied::Done;
        match command {
            Command::Deploy { resources } => self.deploy(&resources).map(Applied::Deployed),
            Command::CreateInstance(request) => self.create_instance(request).map(Applied::Key),
            Command::CancelInstance {
                process_instance_key,
            } => self.cancel_instance(process_instance_key).map(done),
            Command::SetVariables {
                scope_key,
                variables,
                local,
            } => self.set_variables(scope_key, variables, local).map(done),
            Command::PublishMessage(message) => self.publish_message(message).map(Applied::Key),
            Command::CorrelateMessage {
                name,
                correlation_key,
                variables,
            } => self
                .correlate_message(&name, &correlation_key, variables)
                .map(Applied::Correlated),
            Command::BroadcastSignal { name, variables } => {
                self.broadcast_signal(&name, variables).map(Applied::Key)
            }
            Command::EvaluateConditionalStartEvents {
                variables,
                process_definition_key,
            } => self
                .evaluate_conditional_start_events(variables, process_definition_key)
                .map(Applied::Keys),
            Command::ActivateJobs {
                job_type,
                worker,
                timeout_ms,
                max_jobs,
            } => Ok(Applied::Keys(
                self.activate_jobs(&job_type, &worker, timeout_ms, max_jobs),
            )),
            Command::CompleteJob {
                job_key,
                variables,
                result,
            } => self
                .complete_job_with_result(job_key, variables, result)
                .map(done),
            Command::FailJob {
                job_key,
                retries,
                error_message,
                retry_backoff_ms,
                variables,
            } => self
                .fail_job(
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
                .throw_error(job_key, &error_code, &error_message, variables)
                .map(done),
            Command::UpdateJobRetries { job_key, retries } => {
                self.update_job_retries(job_key, retries).map(done)
            }
            Command::CompleteUserTask {
                user_task_key,
                variables,
            } => self.complete_user_task(user_task_key, variables).map(done),
            Command::AssignUserTask {
                user_task_key,
                assignee,
            } => self
                .assign_user_task(user_task_key, assignee.as_deref())
                .map(done),
            Command::UpdateUserTask {
                user_task_key,
                changes,
            } => self.update_user_task(user_task_key, changes).map(done),
            Command::ResolveIncident { incident_key } => {
                self.resolve_incident(incident_key).map(done)
            }
            Command::EvaluateDecision {
                decision_id,
                variables,
            } => self
                .evaluate_decision(&decision_id, variables)
                .map(Applied::Evaluated),
            Command::AdvanceClock { millis } => self.advance_clock(millis).map(done),
            Command::SetClock { epoch_millis } => self.set_clock(epoch_millis).map(done),
            Command::MockDecision {
                decision_id,
                output,
            } => {
                self.register_decision(decision_id, output);
                Ok(Applied::Done)
            }
        }
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

    /// Keeps the command `command` builds when recording (so it is built only then).
    #[inline]
    pub(crate) fn record(&mut self, command: impl FnOnce() -> Command) {
        if self.recorded.recording {
            self.recorded.record(command);
        } else {
            self.recorded.missed += 1;
        }
    }

    /// Counts a change no command can replay (see [`Engine::recorded_commands`]).
    pub(crate) fn record_unreplayable(&mut self) {
        self.recorded.missed += 1;
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
    /// Keeps `command` whether recording or not.
    pub(crate) fn keep(&mut self, command: Command) {
        Arc::make_mut(&mut self.commands).push(command);
    }

    /// Builds and keeps a command: out of line, so the copies a command makes of its
    /// arguments stay out of the command methods (recording is the rare case).
    #[cold]
    #[inline(never)]
    fn record(&mut self, command: impl FnOnce() -> Command) {
        self.keep(command());
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
