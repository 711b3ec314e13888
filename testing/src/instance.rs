//! [`Run`]: the handle of one process instance: what it did, actions on it, and assertions.
//!
//! Actions run the engine until it waits and let the mocks answer before they return. An
//! action that cannot be carried out panics (or, with `try_`, returns an [`ActionError`]) with
//! the run explained. Assertions are `#[track_caller]` and panic with an
//! [`AssertionFailure`]'s message.

use std::cell::RefCell;
use std::rc::Rc;

use baton_engine::runtime::{IncidentView, JobState, JobView, Key, Rejection, State};
use serde_json::{Map, Value};

use crate::assertions::{
    AssertionFailure, Check, DecisionExpectation, ElementSelector, ElementState, ElementsState,
    IncidentExpectation, InstanceState, SubscriptionState, UserTaskExpectation, UserTaskSelector,
    VariableScope,
};
use crate::clock::IntoDuration;
use crate::history::ElementEventKind;
use crate::mocks::Answer;
use crate::process_test::{ActionError, Inner, settle};
use crate::variables::{IntoVariables, Matching, variables_or_panic};

/// The state of a process instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    Active,
    Completed,
    Terminated,
    /// Suspended (Camunda 8.10): no progress until resumed.
    Suspended,
}

/// The handle of one process instance. Cheap to clone; shares the test.
#[derive(Clone)]
pub struct Run {
    inner: Rc<RefCell<Inner>>,
    key: Key,
    process_id: String,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("process_id", &self.process_id)
            .field("key", &self.key)
            .finish()
    }
}

fn elements(ids: impl IntoIterator<Item = impl Into<ElementSelector>>) -> Vec<ElementSelector> {
    ids.into_iter().map(Into::into).collect()
}

#[track_caller]
fn object(v: impl IntoVariables) -> Map<String, Value> {
    // Moved, not copied: the document is ours.
    variables_or_panic(v).into_iter().collect()
}

impl Run {
    pub(crate) fn new(inner: Rc<RefCell<Inner>>, key: Key, process_id: String) -> Run {
        Run {
            inner,
            key,
            process_id,
        }
    }

    /// The process instance key.
    pub fn key(&self) -> Key {
        self.key
    }

    /// The BPMN process id.
    pub fn process_id(&self) -> &str {
        &self.process_id
    }

    fn read<T>(&self, f: impl FnOnce(&Inner) -> T) -> T {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        f(&inner)
    }

    /// Active, completed or terminated.
    pub fn state(&self) -> RunState {
        self.read(|i| match i.engine.process_instance(self.key) {
            Some(p) if p.suspended => RunState::Suspended,
            Some(p) if p.state == State::Completed => RunState::Completed,
            Some(p) if p.state == State::Terminated => RunState::Terminated,
            _ => RunState::Active,
        })
    }

    /// The process instance's own variables now (or when it ended).
    pub fn variables(&self) -> Map<String, Value> {
        self.read(|i| {
            i.history
                .scope_variables(self.key)
                .map(|v| {
                    v.iter()
                        .map(|(k, v)| (k.to_string(), (**v).clone()))
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// One variable of the process instance.
    pub fn variable(&self, name: &str) -> Option<Value> {
        self.read(|i| {
            i.history
                .scope_variables(self.key)
                .and_then(|v| v.get(name))
                .map(|v| (**v).clone())
        })
    }

    fn element_ids(&self, kind: ElementEventKind) -> Vec<String> {
        self.read(|i| {
            i.history
                .instance(self.key)
                .map(|l| {
                    l.events
                        .iter()
                        .filter(|e| e.kind == kind)
                        .map(|e| e.element_id.to_string())
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// Every element left by completing, in order, with repeats (what `assert_passed` uses).
    pub fn completed_elements(&self) -> Vec<String> {
        self.element_ids(ElementEventKind::Completed)
    }

    /// Every element entered, in order, with repeats.
    pub fn entered_elements(&self) -> Vec<String> {
        self.element_ids(ElementEventKind::Activated)
    }

    /// The elements holding a token now, in order of activation (no repeats).
    pub fn active_elements(&self) -> Vec<String> {
        self.read(|i| {
            let mut ids: Vec<String> = Vec::new();
            for e in i.subject(self.key).active_instances() {
                if !ids.contains(&e.element_id) {
                    ids.push(e.element_id);
                }
            }
            ids
        })
    }

    /// Jobs open in this run and the processes it called (not yet completed), oldest first.
    pub fn jobs(&self) -> Vec<JobView> {
        self.read(|i| {
            let family = i.history.descendants(self.key);
            i.engine
                .jobs()
                .into_iter()
                .filter(|j| {
                    j.process_instance_key == self.key || family.contains(&j.process_instance_key)
                })
                .collect()
        })
    }

    /// Active incidents of this run and the processes it called.
    pub fn incidents(&self) -> Vec<IncidentView> {
        self.read(|i| {
            let family = i.history.descendants(self.key);
            i.engine
                .incidents()
                .into_iter()
                .filter(|x| {
                    x.process_instance_key == self.key || family.contains(&x.process_instance_key)
                })
                .collect()
        })
    }

    /// The run's errors (mocks, the AI agent mock, rejected answers), oldest first.
    pub fn errors(&self) -> Vec<String> {
        self.read(|i| {
            let root = i.root_of(self.key);
            i.errors_of(root).into_iter().map(str::to_owned).collect()
        })
    }

    /// The first error of the run, if any (the seed's `run.error`).
    pub fn error(&self) -> Option<String> {
        self.errors().into_iter().next()
    }

    /// The run explained: state, waiting points, incidents, variables, path, errors.
    pub fn explain(&self) -> String {
        self.read(|i| i.explain(self.key))
    }

    // ---- actions -------------------------------------------------------------------------

    fn fail(&self, message: String) -> ActionError {
        ActionError {
            message,
            explanation: self.explain(),
        }
    }

    fn rejected(&self, what: &str, r: Rejection) -> ActionError {
        self.fail(format!("{what}: the engine rejected it: {}", r.message))
    }

    /// A job waiting in this run at an element with this id, else of this job type.
    fn find_job(&self, job_ref: &str) -> Result<JobView, ActionError> {
        let open: Vec<JobView> = self
            .jobs()
            .into_iter()
            .filter(|j| matches!(j.state, JobState::Activatable | JobState::Activated))
            .collect();
        if let Some(j) = open
            .iter()
            .find(|j| *j.element_id == *job_ref)
            .or_else(|| open.iter().find(|j| *j.job_type == *job_ref))
        {
            return Ok(j.clone());
        }
        let listing = if open.is_empty() {
            "no job is open".to_owned()
        } else {
            format!(
                "open jobs: {}",
                open.iter()
                    .map(|j| format!("\"{}\" (type \"{}\")", j.element_id, j.job_type))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let mocked = self.inner.borrow().job_mocks.contains_key(job_ref);
        let hint = if mocked {
            format!(" Jobs of type \"{job_ref}\" are mocked, so they are answered on their own.")
        } else {
            String::new()
        };
        Err(self.fail(format!(
            "no job is waiting at \"{job_ref}\" in process \"{}\" (by element id or job type); {listing}.{hint}",
            self.process_id
        )))
    }

    fn act(
        &self,
        f: impl FnOnce(&mut baton_engine::runtime::Engine) -> Result<(), Rejection>,
    ) -> Result<(), Rejection> {
        let result = f(&mut self.inner.borrow_mut().engine);
        settle(&self.inner);
        result
    }

    /// Answers a waiting job (by element id, else job type) as a mock would.
    pub fn try_answer_job(&self, job_ref: &str, answer: Answer) -> Result<&Self, ActionError> {
        let view = self.find_job(job_ref)?;
        let job = self.inner.borrow().test_job(&view);
        let what = format!("{} the job at \"{}\"", answer.describe(), view.element_id);
        let result = match answer {
            Answer::Complete(vars) => self.act(|e| e.complete_job(job.key, vars)),
            Answer::CompleteWithExampleData => {
                let data = {
                    let inner = self.inner.borrow();
                    crate::example_data::example_data(
                        &inner.engine,
                        job.process_definition_key,
                        &job.element_id,
                    )
                };
                match data {
                    Ok(vars) => self.act(|e| e.complete_job(job.key, vars)),
                    Err(m) => return Err(self.fail(m.to_string())),
                }
            }
            Answer::CompleteAdHoc { variables, result } => self.act(|e| {
                e.complete_job_with_result(
                    job.key,
                    variables,
                    Some(baton_engine::runtime::JobResult::AdHocSubProcess(result)),
                )
            }),
            Answer::Fail(f) => {
                let retries = f.retries.unwrap_or(job.retries - 1).max(0);
                let backoff = i64::try_from(f.backoff.as_millis()).unwrap_or(i64::MAX);
                self.act(|e| e.fail_job(job.key, retries, &f.message, backoff, f.variables))
            }
            Answer::ThrowError {
                code,
                message,
                variables,
            } => self.act(|e| e.throw_error(job.key, &code, &message, variables)),
            Answer::Wait => Ok(()),
            Answer::FailRun(m) => {
                let mut inner = self.inner.borrow_mut();
                inner.add_error(Some(self.key), m);
                Ok(())
            }
            held @ (Answer::NoAnswer | Answer::Later { .. } | Answer::Crash(_)) => {
                // The test plays a worker that holds the job over virtual time.
                {
                    let mut inner = self.inner.borrow_mut();
                    let facts = crate::settle::JobFacts::of(&inner.engine, &view);
                    let activation = crate::workers::begin_activation(&mut inner, &job)
                        .map(|(activation, _)| activation);
                    match activation {
                        Ok(activation) => crate::workers::deliver(
                            &mut inner,
                            &facts,
                            held,
                            "the test",
                            activation,
                            crate::workers::Arrival::AtOnce,
                        ),
                        Err(m) => inner.add_error(Some(self.key), m),
                    }
                }
                settle(&self.inner);
                Ok(())
            }
        };
        result.map_err(|r| self.rejected(&what, r))?;
        Ok(self)
    }

    /// Answers a waiting job; panics with the run explained when there is none.
    #[track_caller]
    pub fn answer_job(&self, job_ref: &str, answer: Answer) -> &Self {
        match self.try_answer_job(job_ref, answer) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// Completes the job waiting at an element (or of a job type) with variables.
    #[track_caller]
    pub fn complete_job(&self, job_ref: &str, variables: impl IntoVariables) -> &Self {
        let answer = Answer::Complete(variables_or_panic(variables));
        self.answer_job(job_ref, answer)
    }

    /// Completes the job waiting at an element (or of a job type) with its element's example
    /// data (`camundaModeler:exampleOutputJson`).
    #[track_caller]
    pub fn complete_job_with_example_data(&self, job_ref: &str) -> &Self {
        self.answer_job(job_ref, Answer::CompleteWithExampleData)
    }

    /// Fails the job waiting at an element (or of a job type) with one retry fewer.
    #[track_caller]
    pub fn fail_job(&self, job_ref: &str, message: &str) -> &Self {
        self.answer_job(job_ref, Answer::fail(message))
    }

    /// Throws a BPMN error from the job waiting at an element (or of a job type).
    #[track_caller]
    pub fn throw_error(&self, job_ref: &str, code: &str, message: &str) -> &Self {
        self.answer_job(job_ref, Answer::throw_error(code, message))
    }

    /// Completes the user task waiting at an element (by id, else by name) with variables.
    pub fn try_complete_user_task(
        &self,
        task_ref: &str,
        variables: impl IntoVariables,
    ) -> Result<&Self, ActionError> {
        let vars = variables
            .into_variables()
            .map_err(|m| self.fail(m.to_string()))?;
        let found = self.read(|i| {
            let family = i.history.descendants(self.key);
            let tasks: Vec<(Key, String, Option<String>)> = i
                .engine
                .user_tasks()
                .into_iter()
                .filter(|t| {
                    t.state == baton_engine::runtime::UserTaskState::Created
                        && (t.value.process_instance_key == self.key
                            || family.contains(&t.value.process_instance_key))
                })
                .map(|t| {
                    let p = crate::history::process_at(&i.engine, t.value.proc);
                    let el = p.model_element(t.value.element);
                    (
                        t.key,
                        el.id.to_string(),
                        el.name.as_deref().map(str::to_owned),
                    )
                })
                .collect();
            tasks
        });
        let key = found
            .iter()
            .find(|t| t.1 == task_ref)
            .or_else(|| found.iter().find(|t| t.2.as_deref() == Some(task_ref)))
            .map(|t| t.0);
        let Some(key) = key else {
            let open: Vec<String> = found.iter().map(|t| format!("\"{}\"", t.1)).collect();
            return Err(self.fail(format!(
                "no user task is waiting at \"{task_ref}\" in process \"{}\"; {}",
                self.process_id,
                if open.is_empty() {
                    "no user task is open.".to_owned()
                } else {
                    format!("open user tasks: {}.", open.join(", "))
                }
            )));
        };
        self.act(|e| e.complete_user_task(key, vars))
            .map_err(|r| self.rejected(&format!("completing user task \"{task_ref}\""), r))?;
        Ok(self)
    }

    /// Completes the user task waiting at an element with its example data
    /// (`camundaModeler:exampleOutputJson`), as CPT's `completeUserTaskWithExampleData`.
    #[track_caller]
    pub fn complete_user_task_with_example_data(&self, task_ref: &str) -> &Self {
        let data = self.read(|i| {
            let pdk = i
                .engine
                .process_instance(self.key)
                .map(|p| p.process_definition_key)
                .unwrap_or_default();
            crate::example_data::example_data(&i.engine, pdk, task_ref)
        });
        match data {
            Ok(vars) => self.complete_user_task(task_ref, vars),
            Err(m) => panic!("{}", self.fail(m.to_string())),
        }
    }

    /// Completes the user task waiting at an element with variables; panics when there is none.
    #[track_caller]
    pub fn complete_user_task(&self, task_ref: &str, variables: impl IntoVariables) -> &Self {
        match self.try_complete_user_task(task_ref, variables) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// Sets variables on the process instance (Zeebe's propagating merge).
    #[track_caller]
    pub fn set_variables(&self, variables: impl IntoVariables) -> &Self {
        let vars = variables_or_panic(variables);
        if let Err(r) = self.act(|e| e.set_variables(self.key, vars, false)) {
            panic!("{}", self.rejected("setting variables", r));
        }
        self
    }

    /// Sets local variables on the first active instance of an element.
    #[track_caller]
    pub fn set_local_variables(&self, element_id: &str, variables: impl IntoVariables) -> &Self {
        let vars = variables_or_panic(variables);
        let scope = self.read(|i| {
            i.engine
                .element_instances(self.key)
                .into_iter()
                .find(|e| e.element_id == element_id && e.state.is_active())
                .map(|e| e.key)
        });
        let Some(scope) = scope else {
            panic!(
                "{}",
                self.fail(format!(
                    "cannot set local variables: \"{element_id}\" is not active in process \"{}\"",
                    self.process_id
                ))
            );
        };
        if let Err(r) = self.act(|e| e.set_variables(scope, vars, true)) {
            panic!("{}", self.rejected("setting local variables", r));
        }
        self
    }

    /// Resolves the active incident at an element (a job incident gets 1 retry first, as CPT
    /// does), so the step is retried.
    pub fn try_resolve_incident(&self, element_id: &str) -> Result<&Self, ActionError> {
        let incident = self
            .incidents()
            .into_iter()
            .find(|i| i.element_id == element_id);
        let Some(incident) = incident else {
            let open: Vec<String> = self
                .incidents()
                .iter()
                .map(|i| format!("\"{}\"", i.element_id))
                .collect();
            return Err(self.fail(format!(
                "no active incident at \"{element_id}\" in process \"{}\"; {}",
                self.process_id,
                if open.is_empty() {
                    "there is none.".to_owned()
                } else {
                    format!("incidents at {}.", open.join(", "))
                }
            )));
        };
        self.act(|e| {
            if let Some(job) = incident.job_key
                && e.job(job).is_some_and(|j| j.retries < 1)
            {
                e.update_job_retries(job, 1)?;
            }
            e.resolve_incident(incident.key)
        })
        .map_err(|r| self.rejected(&format!("resolving the incident at \"{element_id}\""), r))?;
        Ok(self)
    }

    /// Resolves the active incident at an element; panics when there is none.
    #[track_caller]
    pub fn resolve_incident(&self, element_id: &str) -> &Self {
        match self.try_resolve_incident(element_id) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// Cancels the process instance.
    #[track_caller]
    pub fn cancel(&self) -> &Self {
        if let Err(r) = self.act(|e| e.cancel_instance(self.key)) {
            panic!("{}", self.rejected("cancelling", r));
        }
        self
    }

    /// Suspends the process instance (Camunda 8.10): it makes no progress until
    /// [`resume`](Self::resume); its jobs are parked (mocks do not answer them), its user tasks
    /// and incidents cannot be acted on, timers that come due wait, signals broadcast meanwhile
    /// are lost, messages correlate after the resume only while still buffered. See
    /// [`Engine::suspend_instance`](baton_engine::runtime::Engine::suspend_instance).
    #[track_caller]
    pub fn suspend(&self) -> &Self {
        if let Err(r) = self.act(|e| e.suspend_instance(self.key)) {
            panic!("{}", self.rejected("suspending", r));
        }
        self
    }

    /// Resumes the suspended process instance: what was held back runs, and the mocks answer
    /// its jobs again.
    #[track_caller]
    pub fn resume(&self) -> &Self {
        if let Err(r) = self.act(|e| e.resume_instance(self.key)) {
            panic!("{}", self.rejected("resuming", r));
        }
        self
    }

    /// Moves the test's virtual clock forward (`"PT5M"` or a `Duration`).
    #[track_caller]
    pub fn advance_time(&self, duration: impl IntoDuration) -> &Self {
        let ms = match duration.into_millis() {
            Ok(ms) => ms,
            Err(m) => panic!("{m}"),
        };
        let target = self.inner.borrow().engine.now().saturating_add(ms);
        crate::process_test::move_clock(&self.inner, target, crate::trace::ClockCause::Test);
        crate::workers::skip_time(&self.inner);
        self
    }

    /// Correlates a message to the subscription of this run that waits for it (by message
    /// name, or by the catch element's id), with the subscription's correlation key.
    pub fn try_correlate_message(
        &self,
        name_or_element: &str,
        variables: impl IntoVariables,
    ) -> Result<&Self, ActionError> {
        let vars = variables
            .into_variables()
            .map_err(|m| self.fail(m.to_string()))?;
        let subs = self.read(|i| {
            let family = i.history.descendants(self.key);
            let mut subs = Vec::new();
            for pi in std::iter::once(self.key).chain(family) {
                for s in i.engine.message_subscriptions(pi) {
                    if !subs
                        .iter()
                        .any(|x: &baton_engine::runtime::MessageSubscriptionView| x.key == s.key)
                    {
                        subs.push(s);
                    }
                }
            }
            subs
        });
        let found = subs
            .iter()
            .find(|s| &*s.message_name == name_or_element)
            .or_else(|| subs.iter().find(|s| &*s.element_id == name_or_element));
        let Some(sub) = found else {
            let open: Vec<String> = subs
                .iter()
                .map(|s| format!("\"{}\" at \"{}\"", s.message_name, s.element_id))
                .collect();
            return Err(self.fail(format!(
                "no message subscription for \"{name_or_element}\" in process \"{}\" (by message name or element id); {}",
                self.process_id,
                if open.is_empty() {
                    "it waits for no message.".to_owned()
                } else {
                    format!("it waits for {}.", open.join(", "))
                }
            )));
        };
        let (name, key) = (
            sub.message_name.to_string(),
            sub.correlation_key.to_string(),
        );
        let result = {
            let r = self
                .inner
                .borrow_mut()
                .engine
                .correlate_message(&name, &key, vars);
            settle(&self.inner);
            r
        };
        result.map_err(|r| self.rejected(&format!("correlating message \"{name}\""), r))?;
        Ok(self)
    }

    /// Correlates a message to this run (by message name or catch element id); panics when the
    /// run does not wait for it.
    #[track_caller]
    pub fn correlate_message(&self, name_or_element: &str, variables: impl IntoVariables) -> &Self {
        match self.try_correlate_message(name_or_element, variables) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    // ---- assertions ----------------------------------------------------------------------

    /// Runs a check (see [`Check`]).
    pub fn check(&self, check: &Check) -> Result<(), AssertionFailure> {
        self.read(|i| i.check(self.key, check))
    }

    #[track_caller]
    fn assert(&self, check: Check) -> &Self {
        if let Err(f) = self.check(&check) {
            panic!("{f}");
        }
        self
    }

    /// The process instance completed (the seed's `toHaveCompleted`).
    #[track_caller]
    pub fn assert_completed(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Completed))
    }

    /// The process instance is still active (and not suspended).
    #[track_caller]
    pub fn assert_active(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Active))
    }

    /// The process instance is suspended (Camunda 8.10; see [`suspend`](Self::suspend)).
    #[track_caller]
    pub fn assert_suspended(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Suspended))
    }

    /// The process instance was terminated (cancelled, or ended by a runtime instruction).
    #[track_caller]
    pub fn assert_terminated(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Terminated))
    }

    /// The run failed: it has an error (from a mock or the AI agent mock) or an active incident
    /// (the seed's `toHaveFailed()`).
    #[track_caller]
    pub fn assert_failed(&self) -> &Self {
        self.assert(Check::Failed {
            message_contains: None,
        })
    }

    /// The run failed with an error or incident message containing this text.
    #[track_caller]
    pub fn assert_failed_with(&self, message: &str) -> &Self {
        self.assert(Check::Failed {
            message_contains: Some(message.to_owned()),
        })
    }

    /// There is an active incident (here or in a called process).
    #[track_caller]
    pub fn assert_has_incidents(&self) -> &Self {
        self.assert(Check::HasActiveIncidents(true))
    }

    /// There is no active incident.
    #[track_caller]
    pub fn assert_no_incidents(&self) -> &Self {
        self.assert(Check::HasActiveIncidents(false))
    }

    /// An active incident like this exists:
    /// `IncidentExpectation::at("pay").of_type(ErrorType::JobNoRetries).message_contains("declined")`.
    #[track_caller]
    pub fn assert_incident(&self, incident: IncidentExpectation) -> &Self {
        self.assert(Check::Incident(incident))
    }

    /// Each element completed at least once, in any order (the seed's `toHavePassed`).
    #[track_caller]
    pub fn assert_passed(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::Completed,
        })
    }

    /// No element of the list completed (the seed's `toHaveNotPassed`).
    #[track_caller]
    pub fn assert_not_passed(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::NotCompleted,
        })
    }

    /// The elements completed in this order; others in between are ignored (the seed's
    /// `toHavePassedInOrder`, CPT's `hasCompletedElementsInOrder`).
    #[track_caller]
    pub fn assert_passed_in_order(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::CompletedInOrder,
        })
    }

    /// No element of the list was ever entered (CPT's `hasNotActivatedElements`).
    #[track_caller]
    pub fn assert_not_entered(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::NotActivated,
        })
    }

    /// Each element holds a token now (the seed's `toBeWaitingAt`, CPT's `hasActiveElements`).
    #[track_caller]
    pub fn assert_waiting_at(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::Active,
        })
    }

    /// These elements, and no other, hold tokens now (CPT's `hasActiveElementsExactly`).
    #[track_caller]
    pub fn assert_waiting_exactly_at(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::ActiveExactly,
        })
    }

    /// None of the elements holds a token now (CPT's `hasNoActiveElements`).
    #[track_caller]
    pub fn assert_not_waiting_at(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::NotActive,
        })
    }

    /// Each element was terminated at least once (CPT's `hasTerminatedElements`).
    #[track_caller]
    pub fn assert_terminated_elements(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::Terminated,
        })
    }

    /// The element completed exactly `times` times (CPT's `hasCompletedElement(id, times)`).
    #[track_caller]
    pub fn assert_completed_times(&self, id: impl Into<ElementSelector>, times: usize) -> &Self {
        self.assert(Check::ElementCount {
            element: id.into(),
            state: ElementState::Completed,
            amount: times,
        })
    }

    /// The element has exactly `times` active instances (CPT's `hasActiveElement(id, times)`).
    #[track_caller]
    pub fn assert_active_times(&self, id: impl Into<ElementSelector>, times: usize) -> &Self {
        self.assert(Check::ElementCount {
            element: id.into(),
            state: ElementState::Active,
            amount: times,
        })
    }

    /// The element was terminated exactly `times` times.
    #[track_caller]
    pub fn assert_terminated_times(&self, id: impl Into<ElementSelector>, times: usize) -> &Self {
        self.assert(Check::ElementCount {
            element: id.into(),
            state: ElementState::Terminated,
            amount: times,
        })
    }

    /// Each listed process variable equals the value (numbers by value; unlisted variables are
    /// not checked) — the seed's `toHaveVariables`.
    #[track_caller]
    pub fn assert_variables(&self, expected: impl IntoVariables) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Root,
            expected: object(expected),
            matching: Matching::Exact,
        })
    }

    /// Each listed process variable matches partially: objects need only the listed keys,
    /// recursively.
    #[track_caller]
    pub fn assert_variables_match(&self, expected: impl IntoVariables) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Root,
            expected: object(expected),
            matching: Matching::Partial,
        })
    }

    /// These process variables exist.
    #[track_caller]
    pub fn assert_variable_names<S: Into<String>>(
        &self,
        names: impl IntoIterator<Item = S>,
    ) -> &Self {
        self.assert(Check::VariableNames {
            scope: VariableScope::Root,
            names: names.into_iter().map(Into::into).collect(),
        })
    }

    /// The local variables of the element's first instance equal these values.
    #[track_caller]
    pub fn assert_local_variables(
        &self,
        element: impl Into<ElementSelector>,
        expected: impl IntoVariables,
    ) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Local(element.into()),
            expected: object(expected),
            matching: Matching::Exact,
        })
    }

    /// The local variables of the element's first instance match these values partially.
    #[track_caller]
    pub fn assert_local_variables_match(
        &self,
        element: impl Into<ElementSelector>,
        expected: impl IntoVariables,
    ) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Local(element.into()),
            expected: object(expected),
            matching: Matching::Partial,
        })
    }

    /// The run waits for a message with this name (CPT's `isWaitingForMessage`).
    #[track_caller]
    pub fn assert_waiting_for_message(&self, name: &str) -> &Self {
        self.assert(Check::MessageSubscription {
            message_name: name.to_owned(),
            correlation_key: None,
            state: SubscriptionState::Waiting,
        })
    }

    /// The run does not wait for a message with this name.
    #[track_caller]
    pub fn assert_not_waiting_for_message(&self, name: &str) -> &Self {
        self.assert(Check::MessageSubscription {
            message_name: name.to_owned(),
            correlation_key: None,
            state: SubscriptionState::NotWaiting,
        })
    }

    /// A message with this name was correlated to the run (CPT's `hasCorrelatedMessage`).
    #[track_caller]
    pub fn assert_message_correlated(&self, name: &str) -> &Self {
        self.assert(Check::MessageSubscription {
            message_name: name.to_owned(),
            correlation_key: None,
            state: SubscriptionState::Correlated,
        })
    }

    /// A user task at this element (id) has these fields.
    #[track_caller]
    pub fn assert_user_task(&self, element_id: &str, expected: UserTaskExpectation) -> &Self {
        self.assert(Check::UserTask {
            task: UserTaskSelector {
                element_id: Some(element_id.to_owned()),
                name: None,
            },
            expected,
        })
    }

    /// The decision was evaluated with this output.
    #[track_caller]
    pub fn assert_decision(&self, decision_id: &str, output: Value) -> &Self {
        self.assert(Check::Decision {
            decision_id: decision_id.to_owned(),
            expected: DecisionExpectation {
                output: Some(output),
                ..Default::default()
            },
        })
    }
}

impl IncidentExpectation {
    /// An incident at this element.
    pub fn at(element_id: &str) -> Self {
        IncidentExpectation {
            element_id: Some(element_id.to_owned()),
            ..Default::default()
        }
    }

    /// Any incident.
    pub fn any() -> Self {
        IncidentExpectation::default()
    }

    /// Of this error type.
    pub fn of_type(mut self, error_type: baton_engine::runtime::ErrorType) -> Self {
        self.error_type = Some(error_type);
        self
    }

    /// With a message containing this text.
    pub fn message_contains(mut self, text: &str) -> Self {
        self.message_contains = Some(text.to_owned());
        self
    }
}

impl UserTaskExpectation {
    /// The task is created (open).
    pub fn created() -> Self {
        UserTaskExpectation {
            state: Some(baton_engine::runtime::UserTaskState::Created),
            ..Default::default()
        }
    }

    /// The task is completed.
    pub fn completed() -> Self {
        UserTaskExpectation {
            state: Some(baton_engine::runtime::UserTaskState::Completed),
            ..Default::default()
        }
    }

    /// The task is cancelled.
    pub fn canceled() -> Self {
        UserTaskExpectation {
            state: Some(baton_engine::runtime::UserTaskState::Canceled),
            ..Default::default()
        }
    }

    /// With this assignee.
    pub fn assignee(mut self, assignee: &str) -> Self {
        self.assignee = Some(assignee.to_owned());
        self
    }

    /// With these candidate groups, in this order.
    pub fn candidate_groups<S: Into<String>>(
        mut self,
        groups: impl IntoIterator<Item = S>,
    ) -> Self {
        self.candidate_groups = Some(groups.into_iter().map(Into::into).collect());
        self
    }

    /// With these candidate users, in this order.
    pub fn candidate_users<S: Into<String>>(mut self, users: impl IntoIterator<Item = S>) -> Self {
        self.candidate_users = Some(users.into_iter().map(Into::into).collect());
        self
    }

    /// With this priority.
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// With this due date (ISO-8601, compared as an instant).
    pub fn due_date(mut self, date: &str) -> Self {
        self.due_date = Some(date.to_owned());
        self
    }

    /// With this follow-up date (ISO-8601, compared as an instant).
    pub fn follow_up_date(mut self, date: &str) -> Self {
        self.follow_up_date = Some(date.to_owned());
        self
    }
}
