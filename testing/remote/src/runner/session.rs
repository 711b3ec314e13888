//! One case's view of the endpoint: searches (every page, oldest first), the case's mock job
//! workers (real workers: they activate jobs and answer them over REST; they are pumped after
//! every action and on every poll, so they answer while anything waits), and waiting for an
//! eventually consistent read.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use baton_rest::jobs::{ActivatedJob, JobActivationRequest, JobActivationResult};
use baton_rest::search::SearchQueryResult;
use baton_rest::{Key, Variables};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::agent::{RemoteAgent, answer_agent_job};
use crate::client::{CallError, Client};
use crate::poll::{Attempt, poll};

/// The worker name the runner's workers activate jobs with.
pub(super) const WORKER: &str = "baton-remote";
/// The deepest chain of called processes a case's reads follow.
const MAX_CALL_DEPTH: usize = 16;
/// How long an activated job stays locked to a worker (ms).
const LOCK_MS: i64 = 60_000;
/// The most jobs one activation takes.
const BATCH: i32 = 32;
/// The most rounds of answering while a case settles: a process whose mocked jobs create
/// jobs forever stops here with a message.
const MAX_PUMP_ROUNDS: usize = 10_000;

/// What a mock job worker answers.
#[derive(Debug, Clone)]
pub(super) enum Answer {
    Complete(Variables),
    ThrowError {
        code: String,
        message: Option<String>,
        variables: Variables,
    },
}

pub(super) struct Session<'a> {
    pub(super) client: &'a Client,
    pub(super) timeout: Duration,
    /// The mock job workers by job type (a second one for a type replaces the first).
    workers: RefCell<Vec<(String, Answer)>>,
    /// The AI agents the mock plays.
    agents: RefCell<Vec<RemoteAgent>>,
    /// The process instances the case created, in order.
    pub(super) created: RefCell<Vec<Key>>,
    /// Whether reads are scoped to the case's instances (the endpoint may hold others).
    scoped: bool,
    /// Whether the case moved the endpoint's clock (reset after the case).
    pub(super) clock_moved: Cell<bool>,
    /// Whether `POST /v2/jobs/search` is served (unknown until tried).
    pub(super) job_search: Cell<Option<bool>>,
    /// The case's BPMN files (name, XML), for job types when jobs cannot be searched.
    pub(super) bpmn: &'a [(String, Vec<u8>)],
}

impl<'a> Session<'a> {
    pub(super) fn new(
        client: &'a Client,
        timeout: Duration,
        bpmn: &'a [(String, Vec<u8>)],
        scoped: bool,
    ) -> Self {
        Session {
            scoped,
            client,
            timeout,
            workers: RefCell::default(),
            agents: RefCell::default(),
            created: RefCell::default(),
            clock_moved: Cell::new(false),
            job_search: Cell::new(None),
            bpmn,
        }
    }

    /// Every item of a search (`resource`: `element-instances`, `variables`, ...) matching
    /// `filter`.
    pub(super) fn search<T: DeserializeOwned>(
        &self,
        resource: &str,
        filter: Value,
    ) -> Result<Vec<T>, CallError> {
        let body = json!({"filter": filter, "page": {"limit": 10_000}});
        let page: SearchQueryResult<T> =
            self.client
                .call("POST", &format!("/v2/{resource}/search"), Some(&body))?;
        Ok(page.items)
    }

    /// Starts answering the jobs of `job_type` for the rest of the case.
    pub(super) fn add_worker(&self, job_type: &str, answer: Answer) -> Option<String> {
        let mut workers = self.workers.borrow_mut();
        let replaced = workers.iter().position(|(t, _)| t == job_type);
        if let Some(i) = replaced {
            workers.remove(i);
        }
        workers.push((job_type.to_owned(), answer));
        replaced.map(|_| {
            format!(
                "a second mock job worker for \"{job_type}\" replaces the first (in CPT both would compete for the jobs)"
            )
        })
    }

    /// Plays an AI agent element from now on (a second mock of the element replaces the first).
    pub(super) fn add_agent(&self, agent: RemoteAgent) {
        let mut agents = self.agents.borrow_mut();
        agents.retain(|a| a.element_id != agent.element_id);
        agents.push(agent);
    }

    /// Runs `f` with the agent mock of an element (`None`: no such mock).
    pub(super) fn with_agent<T>(
        &self,
        element_id: &str,
        f: impl FnOnce(Option<&RemoteAgent>) -> T,
    ) -> T {
        let agents = self.agents.borrow();
        f(agents.iter().find(|a| a.element_id == element_id))
    }

    /// The workers take and answer every job waiting for them, until none is left.
    pub(super) fn pump(&self) -> Result<(), String> {
        if self.workers.borrow().is_empty() && self.agents.borrow().is_empty() {
            return Ok(());
        }
        for _ in 0..MAX_PUMP_ROUNDS {
            let workers = self.workers.borrow().clone();
            let mut answered = 0;
            for (job_type, answer) in &workers {
                for job in self.activate(job_type).map_err(|e| e.to_string())? {
                    answer_job(self.client, &job, answer)?;
                    answered += 1;
                }
            }
            answered += self.pump_agents()?;
            if answered == 0 {
                return Ok(());
            }
        }
        Err(format!(
            "the mock job workers answered jobs for {MAX_PUMP_ROUNDS} rounds and jobs kept coming: the process loops"
        ))
    }

    /// The agents answer their jobs; a job of an agent type at an element no mock plays goes
    /// back at once.
    fn pump_agents(&self) -> Result<usize, String> {
        let mut types: Vec<String> = Vec::new();
        for a in self.agents.borrow().iter() {
            if !types.contains(&a.job_type) {
                types.push(a.job_type.clone());
            }
        }
        let mut answered = 0;
        for job_type in types {
            for job in self.activate(&job_type).map_err(|e| e.to_string())? {
                let mut agents = self.agents.borrow_mut();
                match agents.iter_mut().find(|a| a.element_id == job.element_id) {
                    Some(agent) => {
                        answer_agent_job(self.client, &job, agent)?;
                        answered += 1;
                    }
                    None => {
                        self.client
                            .call_text(
                                "POST",
                                &format!("/v2/jobs/{}/failure", job.job_key),
                                Some(&json!({"retries": job.retries, "retryBackOff": 0})),
                            )
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        Ok(answered)
    }

    /// Activates the jobs of a type waiting now (no long poll).
    pub(super) fn activate(&self, job_type: &str) -> Result<Vec<ActivatedJob>, CallError> {
        let request = JobActivationRequest {
            job_type: job_type.to_owned(),
            worker: Some(WORKER.to_owned()),
            timeout: LOCK_MS,
            max_jobs_to_activate: BATCH,
            fetch_variable: None,
            request_timeout: Some(-1),
            tenant_ids: None,
            tenant_filter: None,
            with_lease: None,
        };
        let result: JobActivationResult =
            self.client
                .call("POST", "/v2/jobs/activation", Some(&request))?;
        Ok(result.jobs)
    }

    /// Polls `attempt` (the workers answer before each try) until it holds or the timeout
    /// passes; an error of the endpoint is retried too, and reported when it is the last.
    pub(super) fn wait<T>(
        &self,
        mut attempt: impl FnMut(&Self) -> Result<Result<T, String>, CallError>,
    ) -> Result<T, String> {
        poll(self.timeout, || {
            if let Err(e) = self.pump() {
                return Attempt::Stop(e);
            }
            match attempt(self) {
                Ok(Ok(t)) => Attempt::Done(t),
                Ok(Err(saw)) => Attempt::Retry(saw),
                Err(e) if e.not_served() => Attempt::Stop(e.to_string()),
                Err(e @ CallError::Status { status: 400, .. }) => Attempt::Stop(e.to_string()),
                Err(e) => Attempt::Retry(e.to_string()),
            }
        })
    }

    /// The case's process instances: those it created and those they called (a cluster holds
    /// other runs' instances too; CPT scopes its reads to the keys the test created).
    /// `None` when the endpoint is the run's alone (it was purged before the case): all of it
    /// is the case's.
    pub(super) fn case_instances(&self) -> Result<Option<Vec<Key>>, CallError> {
        if !self.scoped {
            return Ok(None);
        }
        let mut keys: Vec<Key> = self.created.borrow().clone();
        let mut level = keys.clone();
        // One search per level of call activities.
        for _ in 0..MAX_CALL_DEPTH {
            if level.is_empty() {
                break;
            }
            let parents: Vec<String> = level.iter().map(Key::to_string).collect();
            let children: Vec<baton_rest::process_instances::ProcessInstanceResult> = self.search(
                "process-instances",
                json!({"parentProcessInstanceKey": {"$in": parents}}),
            )?;
            level = children
                .into_iter()
                .map(|c| c.process_instance_key)
                .filter(|k| !keys.contains(k))
                .collect();
            keys.extend(&level);
        }
        Ok(Some(keys))
    }

    /// The oldest process instance of a BPMN process id among the case's (child instances
    /// included).
    pub(super) fn instance(&self, process_id: &str) -> Result<Key, String> {
        self.wait(|s| {
            let mut found: Vec<baton_rest::process_instances::ProcessInstanceResult> = s.search(
                "process-instances",
                json!({"processDefinitionId": process_id}),
            )?;
            let ours = s.case_instances()?;
            found.retain(|p| is_ours(&ours, p.process_instance_key));
            found.sort_by_key(|p| p.process_instance_key);
            Ok(found
                .first()
                .map(|p| p.process_instance_key)
                .ok_or_else(|| {
                    format!(
                        "expected an instance of process \"{process_id}\"\n    but none was created"
                    )
                }))
        })
    }

    /// The case's runs explained: baton's explanation where the endpoint serves it, else each
    /// created instance's elements and their states.
    pub(super) fn explain(&self) -> String {
        let created = self.created.borrow().clone();
        let mut parts = Vec::new();
        for key in created.iter().take(10) {
            let path = format!("/baton/process-instances/{key}/explanation");
            match self.client.call_text("GET", &path, None::<&()>) {
                Ok(text) => parts.push(text.trim_end().to_owned()),
                Err(_) => parts.push(self.element_states(*key)),
            }
        }
        parts.join("\n\n")
    }

    fn element_states(&self, key: Key) -> String {
        match self.search::<baton_rest::reads::ElementInstanceResult>(
            "element-instances",
            json!({"processInstanceKey": key.to_string()}),
        ) {
            Ok(mut items) => {
                items.sort_by_key(|i| i.element_instance_key);
                let lines: Vec<String> = items
                    .iter()
                    .map(|i| format!("  {} {}", i.element_id, i.state))
                    .collect();
                format!("process instance {key}:\n{}", lines.join("\n"))
            }
            Err(e) => format!("process instance {key}: {e}"),
        }
    }
}

/// Answers one job as the worker's mock says.
pub(super) fn answer_job(
    client: &Client,
    job: &ActivatedJob,
    answer: &Answer,
) -> Result<(), String> {
    let key = job.job_key;
    let result = match answer {
        Answer::Complete(variables) => client.call_text(
            "POST",
            &format!("/v2/jobs/{key}/completion"),
            Some(&json!({"variables": variables})),
        ),
        Answer::ThrowError {
            code,
            message,
            variables,
        } => client.call_text(
            "POST",
            &format!("/v2/jobs/{key}/error"),
            Some(&json!({"errorCode": code, "errorMessage": message, "variables": variables})),
        ),
    };
    result.map(|_| ()).map_err(|e| {
        format!(
            "the mock job worker for \"{}\" could not answer the job at \"{}\": {e}",
            job.job_type, job.element_id
        )
    })
}

/// Whether a process instance is the case's (`ours` from [`Session::case_instances`]).
pub(super) fn is_ours(ours: &Option<Vec<Key>>, key: Key) -> bool {
    ours.as_ref().is_none_or(|keys| keys.contains(&key))
}
