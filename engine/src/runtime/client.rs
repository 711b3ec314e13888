//! The client API: one method per [`Command`], each building its command and carrying it out
//! through [`Engine::apply`] (where it is recorded). What a command does is in the behaviour
//! that handles it (`apply_*`).

use serde_json::Value as Json;

use crate::runtime::command::{
    Applied, Command, CreateInstance, DecisionOutcome, DeploymentInfo, JobResult,
    MessageCorrelation, PublishMessage,
};
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    GlobalTaskListener, Key, Rejection, SharedVariableDocument, VariableDocument, plain_document,
};

/// The variables of a job completion: a plain document, or one whose values are shared.
pub enum CompletionVariables {
    Plain(VariableDocument),
    Shared(SharedVariableDocument),
}

impl From<VariableDocument> for CompletionVariables {
    fn from(variables: VariableDocument) -> CompletionVariables {
        CompletionVariables::Plain(variables)
    }
}

impl From<SharedVariableDocument> for CompletionVariables {
    fn from(variables: SharedVariableDocument) -> CompletionVariables {
        CompletionVariables::Shared(variables)
    }
}

impl Engine {
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

    /// Suspends a process instance (Zeebe 8.10): it keeps its state and makes no progress
    /// until [`resume_instance`](Engine::resume_instance). What the engine would do for it
    /// meanwhile (the next element, a timer that comes due, a condition that holds) is held back
    /// and carried out on resume, in order; its jobs are parked (no worker gets them, and
    /// completing or failing one is rejected), its user tasks and incidents cannot be acted on,
    /// its message and signal subscriptions are closed: a signal broadcast meanwhile is lost, a
    /// message correlates after the resume only if it is still buffered (its time to live).
    /// Variables can be set, except on a user task; cancelling works and drops what was held
    /// back. A called child instance is not suspended with its parent.
    pub fn suspend_instance(&mut self, process_instance_key: Key) -> Result<(), Rejection> {
        self.apply(Command::SuspendInstance {
            process_instance_key,
        })
        .map(drop)
    }

    /// Resumes a suspended process instance: its subscriptions open again, what was held back
    /// runs (a cycle timer that missed several firings fires once), then its jobs are handed
    /// out again.
    pub fn resume_instance(&mut self, process_instance_key: Key) -> Result<(), Rejection> {
        self.apply(Command::ResumeInstance {
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

    /// Hands one activatable job to a worker for `timeout_ms` (Zeebe's job push to a job
    /// stream): the job is activated with a deadline, as [`Engine::activate_jobs`] does, but
    /// only this one. Rejected when the job does not exist or is not activatable.
    pub fn push_job(
        &mut self,
        job_key: Key,
        worker: &str,
        timeout_ms: i64,
    ) -> Result<(), Rejection> {
        self.apply(Command::PushJob {
            job_key,
            worker: worker.to_owned(),
            timeout_ms,
        })
        .map(|_| ())
    }

    /// Completes a job with variables.
    pub fn complete_job(
        &mut self,
        job_key: Key,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        self.complete_job_with_result(job_key, variables, None)
    }

    /// Completes a job with variables and a result (ad-hoc sub-process, task listener). The
    /// variables are a plain document, or one whose values share parts with other values (a
    /// worker that builds its answer out of the variables it read, as the AI agent connector
    /// does): they become the variables as they are, and the command is recorded with their
    /// plain JSON.
    pub fn complete_job_with_result(
        &mut self,
        job_key: Key,
        variables: impl Into<CompletionVariables>,
        result: Option<JobResult>,
    ) -> Result<(), Rejection> {
        match variables.into() {
            CompletionVariables::Plain(variables) => self
                .apply(Command::CompleteJob {
                    job_key,
                    variables,
                    result,
                })
                .map(drop),
            CompletionVariables::Shared(variables) => {
                self.recorded.note_with(|| Command::CompleteJob {
                    job_key,
                    variables: plain_document(&variables),
                    result: result.clone(),
                });
                self.apply_complete_job(job_key, variables, result)
            }
        }
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

    /// Creates a global user task listener: from now on a listener of every Camunda user task,
    /// for the events it names, before the task's own listeners (or after them, when
    /// `after_non_global`), higher priority first. Rejected as Zeebe rejects it: no id, an id
    /// taken, no job type, no or unknown event types (retries must be positive, priority 0 to
    /// 100).
    pub fn create_global_task_listener(
        &mut self,
        listener: GlobalTaskListener,
    ) -> Result<(), Rejection> {
        self.apply(Command::CreateGlobalTaskListener(listener))
            .map(drop)
    }

    /// Sets cluster variables (Zeebe 8.10): global ones (`tenant_id` `None`), read in FEEL as
    /// `camunda.vars.cluster.NAME`, or a tenant's, read as `camunda.vars.tenant.NAME` by the
    /// process instances of that tenant; `camunda.vars.env.NAME` reads the tenant's value, else
    /// the global one. baton's process instances belong to Zeebe's default tenant
    /// [`DEFAULT_TENANT`](crate::runtime::DEFAULT_TENANT). A variable set again is replaced.
    pub fn set_cluster_variables(
        &mut self,
        tenant_id: Option<&str>,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        self.apply(Command::SetClusterVariables {
            tenant_id: tenant_id.map(str::to_owned),
            variables,
        })
        .map(drop)
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
