//! Actions on a run: each runs the engine until it waits and lets the mocks answer before it
//! returns; the `try_` forms return an [`ActionError`], the others panic with it.

use baton_engine::runtime::{JobState, JobView, Key, Rejection};

use super::Run;
use crate::clock::IntoDuration;
use crate::mocks::Answer;
use crate::process_test::{ActionError, settle};
use crate::variables::{IntoVariables, variables_or_panic};

impl Run {
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
}
