//! Job mocks: what answers a job, and what it answered.
//!
//! A mock answers every job of one type (`mock_job`), or every job of one element (the seam the
//! AI Agent mock plugs into: [`ProcessTest::answer_jobs_of_element`](crate::ProcessTest::answer_jobs_of_element)).
//! An answer is an [`Answer`]: complete (with variables, with the element's example data, or
//! with an ad-hoc sub-process result), fail, throw a BPMN error, leave the job waiting, or fail
//! the run with a message. Anything that implements [`AnswerJob`] can answer; closures
//! `FnMut(&TestJob) -> Answer` do. A mock may declare the side effect its worker has on the
//! outside world ([`DeclaredSideEffect`], keyed by an idempotency key); the ledger that keeps
//! them is in [`crate::side_effects`].

use std::cell::{OnceCell, RefCell};
use std::fmt;
use std::ops::{Range, RangeFrom, RangeInclusive, RangeTo, RangeToInclusive};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use baton_engine::runtime::{
    AdHocJobResult, JobKind, Key, SharedJson, SharedVariableDocument, VariableDocument,
    share_document,
};
use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::variables::{IntoVariables, variables_or_panic};

/// A job as a mock (or the AI Agent mock) sees it: copies, taken when the job was answered.
#[derive(Debug, Clone)]
pub struct TestJob {
    pub key: Key,
    pub job_type: String,
    /// What created the job: a task, a listener, an ad-hoc sub-process.
    pub kind: JobKind,
    /// The element the job belongs to.
    pub element_id: String,
    pub element_instance_key: Key,
    /// The BPMN process id of the job's process.
    pub process_id: String,
    pub process_definition_key: Key,
    pub process_instance_key: Key,
    /// Retries left (the task's `retries`, less failures so far).
    pub retries: i32,
    /// The variables visible from the job's element (what a worker receives): see
    /// [`TestJob::variables`].
    pub(crate) variables: JobVariables,
    /// The task headers (`zeebe:taskHeaders`).
    pub headers: IndexMap<String, String>,
    /// The engine clock when the job was answered, epoch milliseconds.
    pub now_ms: i64,
    /// The engine's log position when the job was handed out: what the engine writes after it
    /// is what became of this answer (the agent instances read it).
    pub(crate) log_position: u64,
}

/// The variables of a job: the engine's values (shared, not copied) as they were when the job
/// was answered, turned into a JSON object only when asked for.
#[derive(Clone, Default)]
pub(crate) struct JobVariables {
    /// Outermost scope first; a later entry with the same name hides an earlier one.
    pub entries: Vec<(Arc<str>, SharedJson)>,
    pub object: OnceCell<Map<String, Value>>,
}

impl fmt::Debug for JobVariables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.object().fmt(f)
    }
}

impl JobVariables {
    fn object(&self) -> &Map<String, Value> {
        self.object.get_or_init(|| {
            let mut m = Map::new();
            for (k, v) in &self.entries {
                m.insert(k.to_string(), v.to_json());
            }
            m
        })
    }
}

impl PartialEq for TestJob {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
            && self.job_type == other.job_type
            && self.kind == other.kind
            && self.element_id == other.element_id
            && self.element_instance_key == other.element_instance_key
            && self.process_id == other.process_id
            && self.process_definition_key == other.process_definition_key
            && self.process_instance_key == other.process_instance_key
            && self.retries == other.retries
            && self.headers == other.headers
            && self.now_ms == other.now_ms
            && self.variables() == other.variables()
    }
}

impl TestJob {
    /// Every variable visible from the job's element, as a JSON object (what a worker
    /// receives).
    pub fn variables(&self) -> &Map<String, Value> {
        self.variables.object()
    }

    /// A variable of the job, or `Value::Null`.
    pub fn variable(&self, name: &str) -> &Value {
        self.variables
            .entries
            .iter()
            .rev()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| &**v)
            .unwrap_or(&Value::Null)
    }

    /// The engine clock as an ISO-8601 instant (`2025-01-01T00:00:00Z`).
    pub fn now_iso(&self) -> String {
        crate::clock::format_instant(self.now_ms)
    }
}

/// How a job is answered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// Complete the job with these variables (the element's output mappings still apply).
    Complete(VariableDocument),
    /// Complete with the element's example data (`camundaModeler:exampleOutputJson`), as CPT's
    /// `thenCompleteWithExampleData`. Missing or invalid example data fails the run.
    CompleteWithExampleData,
    /// Complete the job of an ad-hoc sub-process with a job result (activate elements, fulfil
    /// the completion condition). An empty result is the connector's "no-op" completion.
    CompleteAdHoc {
        /// Shared values (the AI agent connector's share parts with the job's variables).
        variables: SharedVariableDocument,
        result: AdHocJobResult,
    },
    /// Fail the job.
    Fail(FailJob),
    /// Throw a BPMN error from the job.
    ThrowError {
        code: String,
        message: String,
        variables: VariableDocument,
    },
    /// Leave the job waiting (a test completes it by hand).
    Wait,
    /// Leave the job waiting and fail the run with this message: every assertion prints it.
    FailRun(String),
    /// Take the job (activate it with the worker's job timeout) and never answer: once the
    /// clock is past the deadline the engine times the job out, it can be activated again under
    /// the same key, and a worker takes it again (see [`crate::faults`]).
    NoAnswer,
    /// Take the job and give `answer` after `latency` of virtual time (the clock moves of the
    /// test deliver it, in due order with the engine's timers).
    Later {
        latency: Duration,
        answer: Box<Answer>,
    },
    /// Take the job, do the work (a declared side effect reaches the ledger) and crash before
    /// `answer` is sent: the answer is lost and the job times out.
    Crash(Box<Answer>),
}

/// A FailJob command.
#[derive(Debug, Clone, PartialEq)]
pub struct FailJob {
    /// Retries left after the failure; `None`: one fewer than the job has (what a worker does).
    pub retries: Option<i32>,
    pub message: String,
    /// Wait this long before the job can be taken again.
    pub backoff: Duration,
    /// Set as local variables of the task.
    pub variables: VariableDocument,
}

impl Answer {
    /// Complete with variables (`json!({..})`, `()` for none).
    #[track_caller]
    pub fn complete(variables: impl IntoVariables) -> Answer {
        Answer::Complete(variables_or_panic(variables))
    }

    /// Complete with the element's example data.
    pub fn example_data() -> Answer {
        Answer::CompleteWithExampleData
    }

    /// Complete an ad-hoc sub-process job with a job result.
    #[track_caller]
    pub fn complete_ad_hoc(variables: impl IntoVariables, result: AdHocJobResult) -> Answer {
        Answer::CompleteAdHoc {
            variables: share_document(variables_or_panic(variables)),
            result,
        }
    }

    /// Fail with one retry fewer than the job has, no backoff.
    pub fn fail(message: impl Into<String>) -> Answer {
        Answer::Fail(FailJob {
            retries: None,
            message: message.into(),
            backoff: Duration::ZERO,
            variables: VariableDocument::new(),
        })
    }

    /// Throw a BPMN error with this code and message.
    pub fn throw_error(code: impl Into<String>, message: impl Into<String>) -> Answer {
        Answer::ThrowError {
            code: code.into(),
            message: message.into(),
            variables: VariableDocument::new(),
        }
    }

    /// Leave the job waiting.
    pub fn wait() -> Answer {
        Answer::Wait
    }

    /// Fail the run with a message.
    pub fn fail_run(message: impl Into<String>) -> Answer {
        Answer::FailRun(message.into())
    }

    /// For [`Answer::fail`]: the retries left after the failure (0 raises an incident).
    /// Panics on other answers.
    #[track_caller]
    pub fn with_retries(mut self, retries: i32) -> Answer {
        match &mut self {
            Answer::Fail(f) => f.retries = Some(retries),
            other => panic!("with_retries applies to Answer::fail, not to {other:?}"),
        }
        self
    }

    /// For [`Answer::fail`]: the retry backoff. Panics on other answers.
    #[track_caller]
    pub fn with_backoff(mut self, backoff: Duration) -> Answer {
        match &mut self {
            Answer::Fail(f) => f.backoff = backoff,
            other => panic!("with_backoff applies to Answer::fail, not to {other:?}"),
        }
        self
    }

    /// For [`Answer::fail`] and [`Answer::throw_error`]: variables sent with the failure or the
    /// error (error variables reach the catch event's output mappings). Panics on other answers.
    #[track_caller]
    pub fn with_variables(mut self, variables: impl IntoVariables) -> Answer {
        let doc = variables_or_panic(variables);
        match &mut self {
            Answer::Fail(f) => f.variables = doc,
            Answer::ThrowError { variables, .. } => *variables = doc,
            other => panic!(
                "with_variables applies to fail and throw_error answers, not to {other:?} (pass completion variables to Answer::complete)"
            ),
        }
        self
    }

    /// A few words for messages: `complete`, `fail "boom"`, `throw error "E1"`, ...
    pub fn describe(&self) -> String {
        match self {
            Answer::Complete(_) => "complete".into(),
            Answer::CompleteWithExampleData => "complete with example data".into(),
            Answer::CompleteAdHoc { .. } => "complete with an ad-hoc result".into(),
            Answer::Fail(f) => format!("fail \"{}\"", f.message),
            Answer::ThrowError { code, .. } => format!("throw error \"{code}\""),
            Answer::Wait => "wait".into(),
            Answer::FailRun(_) => "fail the run".into(),
            Answer::NoAnswer => "take the job and never answer".into(),
            Answer::Later { latency, answer } => format!(
                "{} after {}",
                answer.describe(),
                crate::faults::format_duration(*latency)
            ),
            Answer::Crash(answer) => format!("crash before it could {}", answer.describe()),
        }
    }

    /// This answer, given after `latency` (`"PT5M"` or a `Duration`) of virtual time. Panics
    /// on a duration that does not read ([`Answer::try_after`] returns it).
    #[track_caller]
    pub fn after(self, latency: impl crate::clock::IntoDuration) -> Answer {
        match self.try_after(latency) {
            Ok(answer) => answer,
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`after`](Self::after), with `Err` for a duration that does not read.
    pub fn try_after(
        self,
        latency: impl crate::clock::IntoDuration,
    ) -> Result<Answer, crate::clock::ClockError> {
        // Durations never read as negative: `parse_duration` refuses a minus sign.
        let latency = Duration::from_millis(latency.into_millis()?.max(0) as u64);
        Ok(Answer::Later {
            latency,
            answer: Box::new(self),
        })
    }

    /// The worker does the work of this answer, then crashes before sending it.
    pub fn crash(self) -> Answer {
        Answer::Crash(Box::new(self))
    }

    /// Whether it completes the job (what a side effect goes with).
    pub fn is_completion(&self) -> bool {
        matches!(
            self,
            Answer::Complete(_) | Answer::CompleteWithExampleData | Answer::CompleteAdHoc { .. }
        )
    }

    /// Whether the worker holds the job over time (it must activate it first).
    pub fn holds_the_job(&self) -> bool {
        matches!(
            self,
            Answer::NoAnswer | Answer::Later { .. } | Answer::Crash(_)
        )
    }
}

/// Something that answers jobs: a closure `FnMut(&TestJob) -> Answer`, or a stateful mock such
/// as the AI Agent mock. Called once per job, at quiescence, in the order the jobs appeared. It
/// must not call back into the [`ProcessTest`](crate::ProcessTest) that called it.
pub trait AnswerJob {
    /// The answer to this job.
    fn answer(&mut self, job: &TestJob) -> Answer;
}

impl<F: FnMut(&TestJob) -> Answer> AnswerJob for F {
    fn answer(&mut self, job: &TestJob) -> Answer {
        self(job)
    }
}

/// A job mock called another number of times than expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{report}")]
pub struct CallCountMissed {
    /// The mock as messages name it (its name, else its job type).
    pub mock: String,
    pub expected: Times,
    pub called: usize,
    /// The expectation and the calls made.
    pub report: String,
}

/// How many times a mock is expected to be called: an exact number (`2`) or a range
/// (`1..`, `..=3`, `2..5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Times {
    min: usize,
    /// Inclusive.
    max: Option<usize>,
}

impl Times {
    /// Whether `n` calls meet the expectation.
    pub fn contains(&self, n: usize) -> bool {
        n >= self.min && self.max.is_none_or(|m| n <= m)
    }
}

impl fmt::Display for Times {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max {
            Some(m) if m == self.min => write!(f, "exactly {m}"),
            Some(m) if self.min == 0 => write!(f, "at most {m}"),
            Some(m) => write!(f, "between {} and {m}", self.min),
            None => write!(f, "at least {}", self.min),
        }
    }
}

impl From<usize> for Times {
    fn from(n: usize) -> Self {
        Times {
            min: n,
            max: Some(n),
        }
    }
}

impl From<RangeFrom<usize>> for Times {
    fn from(r: RangeFrom<usize>) -> Self {
        Times {
            min: r.start,
            max: None,
        }
    }
}

impl From<Range<usize>> for Times {
    fn from(r: Range<usize>) -> Self {
        Times {
            min: r.start,
            max: Some(r.end.saturating_sub(1)),
        }
    }
}

impl From<RangeInclusive<usize>> for Times {
    fn from(r: RangeInclusive<usize>) -> Self {
        Times {
            min: *r.start(),
            max: Some(*r.end()),
        }
    }
}

impl From<RangeTo<usize>> for Times {
    fn from(r: RangeTo<usize>) -> Self {
        Times {
            min: 0,
            max: Some(r.end.saturating_sub(1)),
        }
    }
}

impl From<RangeToInclusive<usize>> for Times {
    fn from(r: RangeToInclusive<usize>) -> Self {
        Times {
            min: 0,
            max: Some(r.end),
        }
    }
}

/// Where a job mock's answers come from.
pub(crate) enum Behavior {
    Fixed(Answer),
    /// In order; past the end the last one repeats, or (strict) the run fails.
    Sequence {
        answers: Vec<Answer>,
        strict: bool,
    },
    Compute(Box<dyn AnswerJob>),
}

/// A job mock's state, shared by the registry and its [`JobMock`] handle.
pub(crate) struct MockState {
    pub job_type: String,
    pub name: Option<String>,
    pub behavior: Behavior,
    pub invocations: Vec<TestJob>,
    pub expected: Option<Times>,
    /// Unset by [`JobMock::restore`].
    pub active: bool,
}

impl MockState {
    /// How messages name the mock.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("mock \"{n}\" (job type \"{}\")", self.job_type),
            None => format!("mock of job type \"{}\"", self.job_type),
        }
    }

    pub(crate) fn answer_job(&mut self, job: TestJob) -> Answer {
        let n = self.invocations.len();
        if n == 0 {
            // Most mocks answer once or twice: room for one job, not the four a first push
            // makes room for (four jobs outgrow the allocator's small-size caches).
            self.invocations.reserve_exact(1);
        }
        self.invocations.push(job);
        let job = &self.invocations[n];
        match &mut self.behavior {
            Behavior::Fixed(a) => a.clone(),
            Behavior::Sequence { answers, strict } => match answers.get(n) {
                Some(a) => a.clone(),
                None if *strict || answers.is_empty() => Answer::FailRun(format!(
                    "all {} answer(s) are used; job #{} at \"{}\" got none. Add an answer, or use `answers` so that the last one repeats.",
                    answers.len(),
                    n + 1,
                    job.element_id
                )),
                None => answers[answers.len() - 1].clone(),
            },
            Behavior::Compute(f) => f.answer(job),
        }
    }

    /// Checks the expected number of calls.
    pub fn verify(&self) -> Result<(), CallCountMissed> {
        match self.expected {
            Some(t) if !t.contains(self.invocations.len()) => Err(CallCountMissed {
                mock: self.label(),
                expected: t,
                called: self.invocations.len(),
                report: format!(
                    "{} was expected to be called {t} time(s), but was called {} time(s){}",
                    self.label(),
                    self.invocations.len(),
                    calls_text(&self.invocations)
                ),
            }),
            _ => Ok(()),
        }
    }
}

fn calls_text(calls: &[TestJob]) -> String {
    if calls.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = calls
        .iter()
        .enumerate()
        .map(|(i, j)| {
            format!(
                "\n  {}. at \"{}\" with {}",
                i + 1,
                j.element_id,
                crate::variables::short(&Value::Object(j.variables().clone()), 100)
            )
        })
        .collect();
    format!(":{}", lines.concat())
}

/// The handle of a job mock: what it was called with, and its expectation.
#[derive(Clone)]
pub struct JobMock {
    pub(crate) state: Rc<RefCell<MockState>>,
}

impl fmt::Debug for JobMock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.state.borrow();
        f.debug_struct("JobMock")
            .field("job_type", &s.job_type)
            .field("calls", &s.invocations.len())
            .finish()
    }
}

impl JobMock {
    /// The job type this mock answers.
    pub fn job_type(&self) -> String {
        self.state.borrow().job_type.clone()
    }

    /// Every job it answered, oldest first.
    pub fn invocations(&self) -> Vec<TestJob> {
        self.state.borrow().invocations.clone()
    }

    /// How many jobs it answered.
    pub fn calls(&self) -> usize {
        self.state.borrow().invocations.len()
    }

    /// The last job it answered.
    pub fn last_invocation(&self) -> Option<TestJob> {
        self.state.borrow().invocations.last().cloned()
    }

    /// Stops answering: later jobs of this type wait for the test.
    pub fn restore(&self) {
        self.state.borrow_mut().active = false;
    }

    /// Panics unless the mock was called the given number of times (`2`, `1..`, `..=3`),
    /// listing the calls.
    #[track_caller]
    pub fn assert_called(&self, times: impl Into<Times>) {
        let s = self.state.borrow();
        let t = times.into();
        if !t.contains(s.invocations.len()) {
            panic!(
                "{} was expected to be called {t} time(s), but was called {} time(s){}",
                s.label(),
                s.invocations.len(),
                calls_text(&s.invocations)
            );
        }
    }

    /// Checks the expectation set with [`MockBuilder::expect`].
    pub fn verify(&self) -> Result<(), CallCountMissed> {
        self.state.borrow().verify()
    }
}

/// Builds a job mock: optional `named` and `expect`, then one answer form, which registers it.
/// See [`ProcessTest::mock_job`](crate::ProcessTest::mock_job).
#[must_use = "a mock is registered only by one of its answer methods (complete_with, fail, ...)"]
pub struct MockBuilder<'t> {
    pub(crate) test: &'t crate::ProcessTest,
    pub(crate) job_type: String,
    pub(crate) name: Option<String>,
    pub(crate) expected: Option<Times>,
    pub(crate) faults: Vec<crate::faults::JobFault>,
    pub(crate) side_effect: Option<DeclaredSideEffect>,
}

impl MockBuilder<'_> {
    /// A fault for the jobs of this type (see [`crate::faults`]): for the activations it
    /// counts, it answers instead of the mock (fail, BPMN error, no answer) or around it
    /// (latency, crash after the side effect). Faults apply in the order given.
    pub fn fault(mut self, fault: crate::faults::JobFault) -> Self {
        self.faults.push(fault);
        self
    }

    /// The worker acts on the outside world: each completion (and each crash after the work)
    /// reaches the test's ledger with this side effect's idempotency key (see
    /// [`crate::side_effects`]).
    pub fn side_effect(mut self, effect: DeclaredSideEffect) -> Self {
        self.side_effect = Some(effect);
        self
    }

    /// A side effect keyed by a FEEL expression over the job's variables. Panics when the
    /// expression is not FEEL.
    #[track_caller]
    pub fn side_effect_keyed_by(self, expression: &str) -> Self {
        match DeclaredSideEffect::keyed_by(expression) {
            Ok(effect) => self.side_effect(effect),
            Err(e) => panic!("{e}"),
        }
    }

    /// A name that messages use.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// How many times the mock must be called; checked by
    /// [`ProcessTest::verify`](crate::ProcessTest::verify) and when the test is dropped.
    pub fn expect(mut self, times: impl Into<Times>) -> Self {
        self.expected = Some(times.into());
        self
    }

    #[track_caller]
    fn register(self, behavior: Behavior) -> JobMock {
        let jobs = crate::faults::Jobs::of_type(&self.job_type);
        for fault in self.faults {
            self.test.inject_fault(jobs.clone(), fault);
        }
        if let Some(effect) = self.side_effect {
            self.test.declare_side_effect(jobs, effect);
        }
        let state = Rc::new(RefCell::new(MockState {
            job_type: self.job_type,
            name: self.name,
            behavior,
            invocations: Vec::new(),
            expected: self.expected,
            active: true,
        }));
        self.test.register_job_mock(state.clone());
        JobMock { state }
    }

    /// Complete every job with no variables.
    pub fn complete(self) -> JobMock {
        self.register(Behavior::Fixed(Answer::Complete(VariableDocument::new())))
    }

    /// Complete every job with these variables.
    #[track_caller]
    pub fn complete_with(self, variables: impl IntoVariables) -> JobMock {
        let doc = variables_or_panic(variables);
        self.register(Behavior::Fixed(Answer::Complete(doc)))
    }

    /// Complete every job with variables computed from the job. A value that is not an object
    /// fails the run.
    pub fn complete_with_fn(self, mut f: impl FnMut(&TestJob) -> Value + 'static) -> JobMock {
        self.register(Behavior::Compute(Box::new(move |job: &TestJob| {
            match f(job).into_variables() {
                Ok(doc) => Answer::Complete(doc),
                Err(m) => Answer::FailRun(format!(
                    "the closure of the mock of job type \"{}\" returned no variables for the job at \"{}\": {m}",
                    job.job_type, job.element_id
                )),
            }
        })))
    }

    /// Complete every job with its element's example data (`camundaModeler:exampleOutputJson`).
    pub fn complete_with_example_data(self) -> JobMock {
        self.register(Behavior::Fixed(Answer::CompleteWithExampleData))
    }

    /// Throw a BPMN error from every job.
    pub fn throw_error(self, code: impl Into<String>, message: impl Into<String>) -> JobMock {
        self.register(Behavior::Fixed(Answer::throw_error(code, message)))
    }

    /// Fail every job with one retry fewer (so the default 3 retries end in an incident after
    /// three jobs).
    pub fn fail(self, message: impl Into<String>) -> JobMock {
        self.register(Behavior::Fixed(Answer::fail(message)))
    }

    /// Answer every job the same way.
    pub fn answer(self, answer: Answer) -> JobMock {
        self.register(Behavior::Fixed(answer))
    }

    /// Answer each job with what the closure (or [`AnswerJob`]) decides.
    pub fn answer_with(self, answerer: impl AnswerJob + 'static) -> JobMock {
        self.register(Behavior::Compute(Box::new(answerer)))
    }

    /// Answer jobs in this order; the last answer repeats.
    pub fn answers(self, answers: impl IntoIterator<Item = Answer>) -> JobMock {
        self.register(Behavior::Sequence {
            answers: answers.into_iter().collect(),
            strict: false,
        })
    }

    /// Answer jobs in this order; a job after the last answer fails the run.
    pub fn answers_strict(self, answers: impl IntoIterator<Item = Answer>) -> JobMock {
        self.register(Behavior::Sequence {
            answers: answers.into_iter().collect(),
            strict: true,
        })
    }
}

/// How a side effect's idempotency key is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyKey {
    /// The job key (stable across retries and timeouts of one job, new when the task is
    /// entered again).
    JobKey,
    /// A FEEL expression over the job's variables; a string result is the key, anything else
    /// its JSON.
    Expression(String),
}

/// A worker's side effect, declared on its mock.
#[derive(Debug, Clone)]
pub struct DeclaredSideEffect {
    pub key: IdempotencyKey,
    /// The outside world does nothing for a key it has seen.
    pub deduplicated: bool,
    parsed: Option<baton_feel::Expression>,
}

impl PartialEq for DeclaredSideEffect {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.deduplicated == other.deduplicated
    }
}

/// A side effect that cannot be declared, or a key that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SideEffectError {
    #[error("the idempotency key {expression} is not valid FEEL: {message}")]
    InvalidExpression { expression: String, message: String },
    #[error(
        "the idempotency key {expression} of the side effect of \"{job_type}\" fails for the job at \"{element}\": {message}"
    )]
    KeyFailed {
        expression: String,
        job_type: String,
        element: String,
        message: String,
    },
}

impl DeclaredSideEffect {
    /// Keyed by a FEEL expression over the job's variables (`order.id`,
    /// `toolCall.summary + "/" + customerEmail`). `Err` when it is not FEEL.
    pub fn keyed_by(expression: &str) -> Result<DeclaredSideEffect, SideEffectError> {
        let text = expression.strip_prefix('=').unwrap_or(expression);
        let parsed = baton_feel::Expression::parse(text).map_err(|e| {
            SideEffectError::InvalidExpression {
                expression: expression.to_string(),
                message: e.to_string(),
            }
        })?;
        Ok(DeclaredSideEffect {
            key: IdempotencyKey::Expression(text.to_string()),
            deduplicated: false,
            parsed: Some(parsed),
        })
    }

    /// Keyed by the job key.
    pub fn keyed_by_job_key() -> DeclaredSideEffect {
        DeclaredSideEffect {
            key: IdempotencyKey::JobKey,
            deduplicated: false,
            parsed: None,
        }
    }

    /// The outside world honours the key: a second request with a key it has seen does
    /// nothing (an idempotent receiver, e.g. an API with idempotency keys).
    pub fn deduplicated(mut self) -> DeclaredSideEffect {
        self.deduplicated = true;
        self
    }

    /// The key of this job's side effect.
    pub(crate) fn key_of(&self, job: &TestJob) -> Result<String, SideEffectError> {
        let Some(parsed) = &self.parsed else {
            return Ok(job.key.to_string());
        };
        let now = jiff::Timestamp::from_millisecond(job.now_ms)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let failed = |message: String| SideEffectError::KeyFailed {
            expression: parsed.source().to_string(),
            job_type: job.job_type.clone(),
            element: job.element_id.clone(),
            message,
        };
        let evaluation = parsed.evaluate(job.variables(), &baton_feel::Env::at(now));
        match evaluation.result {
            Ok(baton_feel::Value::Null) => {
                let mut why = "it gives null".to_string();
                for w in &evaluation.warnings {
                    why.push_str(&format!(" ({w})"));
                }
                Err(failed(why))
            }
            Ok(baton_feel::Value::String(s)) => Ok(s.to_string()),
            Ok(other) => Ok(other.to_json().to_string()),
            Err(failure) => Err(failed(failure.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_like_wiremock() {
        assert!(Times::from(2).contains(2) && !Times::from(2).contains(3));
        assert!(Times::from(1..).contains(5) && !Times::from(1..).contains(0));
        assert!(Times::from(..=3).contains(3) && !Times::from(..=3).contains(4));
        assert!(Times::from(2..4).contains(3) && !Times::from(2..4).contains(4));
        assert_eq!(Times::from(2).to_string(), "exactly 2");
        assert_eq!(Times::from(1..).to_string(), "at least 1");
        assert_eq!(Times::from(..=3).to_string(), "at most 3");
        assert_eq!(Times::from(2..=5).to_string(), "between 2 and 5");
    }

    #[test]
    #[should_panic(expected = "with_retries applies to Answer::fail")]
    fn retries_on_a_completion_is_a_mistake() {
        let _ = Answer::complete(()).with_retries(1);
    }
}
