//! Jobs: creation for tasks, listeners and ad-hoc sub-processes; the job commands (complete,
//! fail with retries and backoff, throw an error, update retries, activate with a timeout); and
//! the time-driven events (timeout, backoff over).

use std::sync::Arc;

use indexmap::IndexMap;

use crate::runtime::command::{AdHocJobResult, JobResult};
use crate::runtime::compile::definitions::ListenerDef;
use crate::runtime::compile::expr::Expr;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    ErrorType, Intent, JobKind, JobRecord, JobValue, Key, ListenerEventType, OtherIntent,
    RecordValue, Rejection, RejectionType, SharedVariableDocument, ValueType, VariableDocument,
    share_document,
};
use crate::runtime::state::jobs::{Job, JobState, JobTransition};
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{FollowUp, Step, StepFailure};

/// Zeebe's limit on error messages stored on jobs and incidents.
const MAX_ERROR_MESSAGE: usize = 500;

pub(crate) fn truncate_message(m: &str) -> String {
    if m.chars().count() <= MAX_ERROR_MESSAGE {
        m.to_owned()
    } else {
        let mut s: String = m.chars().take(MAX_ERROR_MESSAGE).collect();
        s.push_str("...");
        s
    }
}

impl Engine {
    /// The value of a record about `job`, with the command's variables.
    pub(crate) fn job_record(
        job: &Job,
        variables: Option<Arc<SharedVariableDocument>>,
    ) -> RecordValue {
        RecordValue::Job(JobRecord {
            job: job.value.clone(),
            variables,
        })
    }

    pub(crate) fn job_event(
        &mut self,
        intent: OtherIntent,
        key: Key,
        variables: Option<Arc<SharedVariableDocument>>,
    ) {
        let Some(job) = self.jobs.get(&key) else {
            return;
        };
        let value = Self::job_record(job, variables);
        self.event(ValueType::Job, intent, Some(key), value);
    }

    /// Evaluates a job definition's type and retries in the element's scope.
    pub(crate) fn eval_job_def(
        &self,
        key: Key,
        job_type: &Expr,
        retries: &Expr,
    ) -> Result<(Arc<str>, i32), StepFailure> {
        // Static job types (the common case) are shared, not copied.
        let t = match job_type {
            Expr::Static(s) => s.clone(),
            _ => {
                let t = self.eval_string(job_type, key)?;
                // BpmnJobBehavior.evalTypeExp
                if t.is_empty() {
                    return Err(StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!(
                            "Expected result of the expression '{}' to be a not-empty string, but was an empty string.",
                            crate::runtime::step::expr_source(job_type)
                        ),
                    ));
                }
                Arc::from(t)
            }
        };
        let r = self.eval_int(retries, key)?;
        Ok((t, r as i32))
    }

    /// Creates a job for an element instance and remembers it on the instance.
    pub(crate) fn create_job(
        &mut self,
        key: Key,
        kind: JobKind,
        listener_event_type: ListenerEventType,
        job_type: Arc<str>,
        retries: i32,
        headers: Arc<IndexMap<String, String>>,
    ) -> Key {
        let job_key = self.new_key();
        let inst = &self.instances[&key];
        let job = Job {
            key: job_key,
            state: JobState::Activatable,
            value: Arc::new(JobValue {
                proc: inst.proc,
                process_instance_key: inst.process_instance_key,
                element: inst.element_ref,
                element_instance_key: key,
                job_type,
                kind,
                listener_event_type,
                retries,
                retry_backoff: 0,
                recurring_time: None,
                worker: None,
                deadline: None,
                error_message: None,
                error_code: None,
                custom_headers: headers,
            }),
        };
        let value = Self::job_record(&job, None);
        self.jobs.insert(job_key, job);
        if let Some(i) = self.instances.get_mut(&key) {
            i.job = Some(job_key);
        }
        self.event(ValueType::Job, OtherIntent::Created, Some(job_key), value);
        self.jobs.feed.push(job_key);
        job_key
    }

    /// Creates the job of an execution listener.
    pub(crate) fn create_listener_job(
        &mut self,
        key: Key,
        l: &ListenerDef,
        event: ListenerEventType,
    ) -> Step {
        let (job_type, retries) = self.eval_job_def(key, &l.job_type, &l.retries)?;
        self.create_job(
            key,
            JobKind::ExecutionListener,
            event,
            job_type,
            retries,
            Arc::new(IndexMap::new()),
        );
        Ok(())
    }

    /// Cancels the open job of an element instance (when it is terminated).
    pub(crate) fn cancel_job_of(&mut self, key: Key) {
        let job = self.instances.get_mut(&key).and_then(|i| i.job.take());
        if let Some(j) = job
            && self.jobs.contains_key(&j)
        {
            self.job_event(OtherIntent::Canceled, j, None);
            self.jobs.remove(&j);
        }
    }

    /// The job a worker answers, if it may be answered.
    fn check_job(&self, key: Key, action: &str) -> Result<&Job, Rejection> {
        let job = self.jobs.get(&key).ok_or_else(|| {
            Rejection::new(
                RejectionType::NotFound,
                format!("Expected to {action} job with key '{key}', but no such job was found"),
            )
        })?;
        // Zeebe's suspension gate answers before the job processor does.
        self.check_not_suspended(job.process_instance_key, || {
            format!("{action} job with key '{key}'")
        })?;
        if !job.state.is_answerable() {
            let state = job.state.rejection_name();
            return Err(Rejection::new(
                RejectionType::InvalidState,
                format!("Expected to {action} job with key '{key}', but it is in state '{state}'"),
            ));
        }
        Ok(job)
    }

    fn reject_job(&mut self, intent: OtherIntent, key: Key, rejection: Rejection) -> Rejection {
        let value = self.jobs.get(&key).map(|j| Self::job_record(j, None));
        match value {
            Some(v) => self.reject(
                ValueType::Job,
                Intent::Other(intent),
                Some(key),
                v,
                rejection,
            ),
            None => rejection,
        }
    }

    /// Carries out [`Command::CompleteJob`].
    pub(crate) fn apply_complete_job(
        &mut self,
        job_key: Key,
        variables: SharedVariableDocument,
        result: Option<JobResult>,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        let kind = match self.check_job(job_key, "complete") {
            Ok(j) => j.kind,
            Err(r) => return Err(self.reject_job(OtherIntent::Complete, job_key, r)),
        };
        if kind == JobKind::AdHocSubProcess
            && let Some(JobResult::AdHocSubProcess(r)) = &result
            && let Err(rej) = self.check_ad_hoc_result(job_key, r)
        {
            return Err(self.reject_job(OtherIntent::Complete, job_key, rej));
        }
        if kind == JobKind::TaskListener
            && let Err(rej) =
                self.check_task_listener_result(job_key, !variables.is_empty(), &result)
        {
            return Err(self.reject_job(OtherIntent::Complete, job_key, rej));
        }
        // Most jobs complete without variables: those share one empty document. The values are
        // shared by the record and the variables they become (no copies).
        let variables = if variables.is_empty() {
            self.empty.document.clone()
        } else {
            Arc::new(variables)
        };
        let job = self.jobs.remove(&job_key).expect("checked");
        let value = Self::job_record(&job, Some(variables.clone()));
        self.event(ValueType::Job, OtherIntent::Completed, Some(job_key), value);
        let ei = job.element_instance_key;
        if let Some(i) = self.instances.get_mut(&ei)
            && i.job == Some(job_key)
        {
            i.job = None;
        }
        match job.kind {
            JobKind::BpmnElement => {
                if let Some(i) = self.instances.get_mut(&ei) {
                    i.completion_vars = Some(variables);
                }
                self.queue.push_back(FollowUp::Complete(ei));
            }
            JobKind::ExecutionListener => {
                // BpmnStreamProcessor.mergeVariablesOfExecutionListener: a start listener's
                // variables are local to the element, an end listener's local to its flow scope
                // (the process's own: to the process).
                let target = self.instances.get(&ei).map(|i| match i.state {
                    State::Activating => ei,
                    _ => i.flow_scope.unwrap_or(ei),
                });
                if let Some(scope) = target {
                    self.merge_local_shared(scope, &variables);
                }
                if let Some(i) = self.instances.get_mut(&ei) {
                    i.listener_index += 1;
                }
                self.queue.push_back(FollowUp::ContinueListeners(ei));
            }
            JobKind::AdHocSubProcess => {
                let result = match result {
                    Some(JobResult::AdHocSubProcess(r)) => r,
                    _ => AdHocJobResult::default(),
                };
                self.complete_ad_hoc_job(ei, &variables, result);
            }
            JobKind::TaskListener => {
                self.complete_task_listener_job(ei, result);
            }
        }
        self.run(start)
    }

    /// Carries out the command of [`Engine::fail_job`].
    pub(crate) fn apply_fail_job(
        &mut self,
        job_key: Key,
        retries: i32,
        error_message: &str,
        retry_backoff_ms: i64,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        if let Err(r) = self.check_job(job_key, "fail") {
            return Err(self.reject_job(OtherIntent::Fail, job_key, r));
        }
        let message = truncate_message(error_message);
        let now = self.now;
        let job = self.jobs.get_mut(&job_key).expect("checked");
        let value = job.value_mut();
        value.retries = retries;
        value.error_message = Some(Arc::from(message.as_str()));
        value.retry_backoff = retry_backoff_ms;
        value.worker = None;
        value.deadline = None;
        let ei = value.element_instance_key;
        let kind = value.kind;
        if retries > 0 {
            if retry_backoff_ms > 0 {
                value.recurring_time = Some(now + retry_backoff_ms);
                job.transition(JobTransition::FailWithBackoff);
            } else {
                value.recurring_time = None;
                job.transition(JobTransition::FailAndRetry);
            }
        } else {
            job.transition(JobTransition::FailWithoutRetries);
        }
        let vars = (!variables.is_empty()).then(|| Arc::new(share_document(variables)));
        self.job_event(OtherIntent::Failed, job_key, vars.clone());
        if let Some(vars) = vars {
            self.merge_local_shared(ei, &vars);
        }
        if retries > 0 {
            if retry_backoff_ms <= 0 {
                self.jobs.feed.push(job_key);
            }
        } else {
            let error_type = match kind {
                JobKind::BpmnElement => ErrorType::JobNoRetries,
                JobKind::ExecutionListener => ErrorType::ExecutionListenerNoRetries,
                JobKind::TaskListener => ErrorType::TaskListenerNoRetries,
                JobKind::AdHocSubProcess => ErrorType::AdHocSubProcessNoRetries,
            };
            let text = if message.is_empty() {
                "No more retries left.".to_owned()
            } else {
                message
            };
            self.create_incident(ei, Some(job_key), StepFailure::new(error_type, text));
        }
        self.run(start)
    }

    /// Carries out the command of [`Engine::update_job_retries`].
    pub(crate) fn apply_update_job_retries(
        &mut self,
        job_key: Key,
        retries: i32,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        if !self.jobs.contains_key(&job_key) {
            let r = Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to update retries for job with key '{job_key}', but no such job was found"
                ),
            );
            return Err(r);
        }
        let pi = self
            .jobs
            .get(&job_key)
            .expect("checked")
            .process_instance_key;
        if let Err(r) = self.check_not_suspended(pi, || {
            format!("update retries for job with key '{job_key}'")
        }) {
            return Err(self.reject_job(OtherIntent::RetriesUpdated, job_key, r));
        }
        if retries < 1 {
            return Err(self.reject_job(
                OtherIntent::RetriesUpdated,
                job_key,
                Rejection::new(
                    RejectionType::InvalidArgument,
                    format!("Expected to update retries for job with key '{job_key}' with a positive amount of retries, but the amount given was '{retries}'"),
                ),
            ));
        }
        if let Some(j) = self.jobs.get_mut(&job_key) {
            j.value_mut().retries = retries;
        }
        self.job_event(OtherIntent::RetriesUpdated, job_key, None);
        self.run(start)
    }

    /// Carries out the command of [`Engine::activate_jobs`].
    pub(crate) fn apply_activate_jobs(
        &mut self,
        job_type: &str,
        worker: &str,
        timeout_ms: i64,
        max_jobs: usize,
    ) -> Vec<Key> {
        let keys: Vec<Key> = self
            .jobs
            .values()
            .filter(|j| j.state == JobState::Activatable && &*j.job_type == job_type)
            .take(max_jobs)
            .map(|j| j.key)
            .collect();
        if keys.is_empty() {
            return keys;
        }
        self.activate_batch(Arc::from(job_type), worker, timeout_ms, &keys);
        keys
    }

    /// Carries out [`Command::PushJob`](crate::runtime::Command::PushJob): Zeebe's job push
    /// (`BpmnJobActivationBehavior.publishWork`) activates the one job with the stream's worker
    /// and timeout and writes a `JOB_BATCH` `ACTIVATED` holding it alone.
    pub(crate) fn apply_push_job(
        &mut self,
        job_key: Key,
        worker: &str,
        timeout_ms: i64,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        if timeout_ms <= 0 {
            return Err(Rejection::new(
                RejectionType::InvalidArgument,
                format!(
                    "Expected to push job with key '{job_key}' with a positive timeout, but the timeout given was '{timeout_ms}'"
                ),
            ));
        }
        let job_type = match self.jobs.get(&job_key) {
            Some(j) if j.state == JobState::Activatable => j.job_type.clone(),
            Some(j) => {
                return Err(Rejection::new(
                    RejectionType::InvalidState,
                    format!(
                        "Expected to push job with key '{job_key}', but it is not activatable (it is {})",
                        match j.state {
                            JobState::Activated => "activated by a worker",
                            JobState::FailedBackoff => "failed, waiting out its retry backoff",
                            JobState::Failed => "failed with no retries left",
                            JobState::ErrorThrown => "stopped by a thrown error",
                            JobState::Suspended => "suspended with its process instance",
                            JobState::Activatable => "activatable",
                        }
                    ),
                ));
            }
            None => {
                return Err(Rejection::new(
                    RejectionType::NotFound,
                    format!("Expected to push job with key '{job_key}', but no such job was found"),
                ));
            }
        };
        self.activate_batch(job_type, worker, timeout_ms, &[job_key]);
        self.run(start)
    }

    /// Activates `keys` for `worker` until now + `timeout_ms` and writes the `JOB_BATCH`
    /// `ACTIVATED` that hands them out: the pull (activate jobs) and the push share it.
    fn activate_batch(&mut self, job_type: Arc<str>, worker: &str, timeout_ms: i64, keys: &[Key]) {
        let deadline = self.now.saturating_add(timeout_ms);
        let worker: Arc<str> = Arc::from(worker);
        for k in keys {
            if let Some(j) = self.jobs.get_mut(k) {
                j.transition(JobTransition::Activate);
                let value = j.value_mut();
                value.deadline = Some(deadline);
                value.worker = Some(worker.clone());
            }
        }
        let batch_key = self.new_key();
        self.event(
            ValueType::JobBatch,
            OtherIntent::Activated,
            Some(batch_key),
            RecordValue::JobBatch {
                job_type,
                worker,
                timeout: timeout_ms,
                job_keys: Arc::new(keys.to_vec()),
            },
        );
    }

    /// Jobs whose activation timed out or whose backoff is over, in key order. A deadline
    /// times out once the clock is past it (Zeebe's `DbJobState.forEachTimedOutEntry`:
    /// `deadline < executionTimestamp`); a backoff is over at its due time
    /// (`findBackedOffJobs`: `deadline <= timestamp`).
    pub(crate) fn fire_due_jobs(&mut self) {
        let now = self.now;
        let timed_out: Vec<Key> = self
            .jobs
            .values()
            .filter(|j| j.state == JobState::Activated && j.deadline.is_some_and(|d| d < now))
            .filter(|j| !self.is_suspended(j.process_instance_key))
            .map(|j| j.key)
            .collect();
        for k in timed_out {
            if let Some(j) = self.jobs.get_mut(&k) {
                j.transition(JobTransition::TimeOut);
            }
            self.job_event(OtherIntent::TimedOut, k, None);
            if let Some(j) = self.jobs.get_mut(&k) {
                let value = j.value_mut();
                value.deadline = None;
                value.worker = None;
            }
            self.jobs.feed.push(k);
        }
        let recurred: Vec<Key> = self
            .jobs
            .values()
            .filter(|j| {
                j.state == JobState::FailedBackoff && j.recurring_time.is_some_and(|d| d <= now)
            })
            .filter(|j| !self.is_suspended(j.process_instance_key))
            .map(|j| j.key)
            .collect();
        for k in recurred {
            if let Some(j) = self.jobs.get_mut(&k) {
                j.transition(JobTransition::Recur);
            }
            self.job_event(OtherIntent::RecurredAfterBackoff, k, None);
            if let Some(j) = self.jobs.get_mut(&k) {
                j.value_mut().recurring_time = None;
            }
            self.jobs.feed.push(k);
        }
    }
}
