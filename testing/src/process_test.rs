//! [`ProcessTest`]: one engine, its deployments, the mocks, the runs and the coverage of one
//! test. Handles ([`Run`], [`JobMock`], the AI agent's handle) share it, so several can be alive
//! at once.
//!
//! Every action runs the engine until it waits, then [`settle`]s: every job that became
//! activatable and has a mock is answered (an element's answerer first, else the job type's
//! mock), the engine runs again, and so on until nothing is answered; then the
//! [`AtQuiescence`] hooks run (a hook that acts starts the loop again). That loop is the one
//! place where "at quiescence" logic lives. It stops with a run error after
//! `answer_limit` answers in one action.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use baton_engine::runtime::{
    Command, CreateInstance, Engine, EngineConfig, GlobalTaskListener, JobKind, JobView, Key,
    LATEST_CLOCK_MS, PublishMessage, Rejection, UnrecordedCommands, VariableDocument,
};
use indexmap::IndexMap;

/// Lookups by job type or element id: insertion order is kept (IndexMap), the hash only finds.
type FxIndexMap<K, V> = IndexMap<K, V, rustc_hash::FxBuildHasher>;

use crate::agent::ToolCache;
use crate::assertions::{AssertionFailure, Check, Subject};
use crate::clock::IntoDuration;
use crate::deployment::{self, DeployError};
use crate::history::History;
use crate::instance::Run;
use crate::mocks::{Answer, AnswerJob, CallCountMissed, JobMock, MockBuilder, MockState, TestJob};
use crate::settle::{Harness, JobFacts, JobFeed};
use crate::variables::{IntoVariables, to_object, variables_or_panic};

/// An error of a run: a mock that could not answer, an answer the engine rejected, the AI agent
/// mock failing the run, a runaway loop. Every assertion on the run prints them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// The root process instance the error belongs to (`None`: not tied to an instance).
    pub instance: Option<Key>,
    pub message: String,
}

/// A command that could not be carried out (no such job, the engine rejected it, ...), with the
/// state of the run to explain why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionError {
    pub message: String,
    /// The run explained (empty when there is no run).
    pub explanation: String,
}

impl std::fmt::Display for ActionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if !self.explanation.is_empty() {
            write!(f, "\n\n{}", self.explanation)?;
        }
        Ok(())
    }
}

impl std::error::Error for ActionError {}

/// Runs at quiescence: when the engine waits and no mock has a job left to answer. Return
/// `true` when the hook changed something (the engine then runs, mocks answer, and every hook
/// is asked again). CPT's conditional behaviours are such a hook.
pub trait AtQuiescence {
    /// Looks at the state and maybe acts.
    fn at_quiescence(&mut self, state: &mut Quiescent<'_>) -> bool;
}

impl<F: FnMut(&mut Quiescent<'_>) -> bool> AtQuiescence for F {
    fn at_quiescence(&mut self, state: &mut Quiescent<'_>) -> bool {
        self(state)
    }
}

/// What a hook sees at quiescence: the engine (to read and to command) and the checks.
pub struct Quiescent<'a> {
    inner: &'a mut Inner,
}

impl Quiescent<'_> {
    /// The engine, to read.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The engine, to send commands to.
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.inner.engine
    }

    /// Runs a check against a process instance now (see [`Check`]).
    pub fn check(&mut self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        self.inner.sync();
        self.inner.check(instance, check)
    }

    /// Records an error for the run of `instance`.
    pub fn add_error(&mut self, instance: Option<Key>, message: impl Into<String>) {
        self.inner.sync();
        self.inner.add_error(instance, message.into());
    }
}

/// Who answers a job.
#[derive(Clone)]
pub(crate) enum Answerer {
    Mock(Rc<RefCell<MockState>>),
    Element {
        label: Rc<str>,
        answerer: Rc<RefCell<dyn AnswerJob>>,
    },
    /// No mock, but a fault for the job's next activation: the fault is the worker (its
    /// latency or crash holds a job nobody would answer).
    Fault,
}

impl Answerer {
    fn label(&self) -> String {
        match self {
            Answerer::Mock(m) => m.borrow().label(),
            Answerer::Element { label, .. } => label.to_string(),
            Answerer::Fault => "the injected fault".to_string(),
        }
    }
}

pub(crate) struct Settings {
    pub answer_limit: usize,
    pub name: Option<String>,
    pub coverage_dir: Option<PathBuf>,
}

/// The shared state behind [`ProcessTest`] and its handles.
pub(crate) struct Inner {
    pub engine: Engine,
    pub history: History,
    /// By job type; a later mock of a type replaces the earlier one.
    pub job_mocks: FxIndexMap<String, Rc<RefCell<MockState>>>,
    /// Every job mock ever registered (for the expectations).
    pub all_mocks: Vec<Rc<RefCell<MockState>>>,
    /// By element id (the AI agent mock).
    pub element_answerers: FxIndexMap<String, Answerer>,
    pub hooks: Vec<Box<dyn AtQuiescence>>,
    pub(crate) feed: JobFeed,
    pub errors: Vec<RunError>,
    /// Root process instances started through the test, in order.
    pub roots: Vec<Key>,
    /// The AI agent tools resolved by the mocks of this test's deployment.
    pub tool_cache: ToolCache,
    pub settings: Settings,
    /// Faults, side effects, answers on their way, the ledger.
    pub(crate) workers: crate::workers::Workers,
    /// The run trace and the invariants checked over it.
    pub(crate) trace: crate::workers::RunTrace,
    /// Jump the clock when nothing but time can make the run go on (see
    /// [`ProcessTest::time_skipping`]).
    pub(crate) time_skipping: bool,
}

impl Inner {
    pub fn sync(&mut self) {
        self.history.sync(&self.engine);
    }

    /// The root of the call hierarchy of a process instance.
    pub fn root_of(&self, instance: Key) -> Key {
        self.history
            .instance(instance)
            .map(|l| l.root)
            .unwrap_or(instance)
    }

    pub fn add_error(&mut self, instance: Option<Key>, message: String) {
        let instance = instance.map(|i| self.root_of(i));
        self.errors.push(RunError { instance, message });
    }

    pub fn errors_of(&self, root: Key) -> Vec<&str> {
        self.errors
            .iter()
            .filter(|e| e.instance.is_none_or(|i| i == root))
            .map(|e| e.message.as_str())
            .collect()
    }

    pub fn subject(&self, instance: Key) -> Subject<'_> {
        let root = self.root_of(instance);
        Subject {
            engine: &self.engine,
            history: &self.history,
            instance,
            errors: self.errors_of(root),
        }
    }

    pub fn check(&self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        crate::assertions::check(&self.subject(instance), check)
    }

    pub fn explain(&self, instance: Key) -> String {
        crate::explain::explain(&self.subject(instance))
    }

    pub fn test_job(&self, job: &JobView) -> TestJob {
        test_job(&self.engine, job)
    }
}

/// A job as a mock sees it: copies of its fields and of the variables visible from its
/// element, taken now.
pub(crate) fn test_job(engine: &Engine, job: &JobView) -> TestJob {
    // Counted first so the snapshot is one exact allocation, not a growing vector.
    let mut count = 0;
    engine.for_each_visible_variable(job.element_instance_key, |_, _| count += 1);
    let mut variables = crate::mocks::JobVariables {
        entries: Vec::with_capacity(count),
        ..Default::default()
    };
    engine.for_each_visible_variable(job.element_instance_key, |name, value| {
        variables.entries.push((name.clone(), value.clone()));
    });
    let process_definition_key = engine
        .process_instance(job.process_instance_key)
        .map(|p| p.process_definition_key)
        .unwrap_or_default();
    TestJob {
        key: job.key,
        job_type: String::from(&*job.job_type),
        kind: job.kind,
        element_id: String::from(&*job.element_id),
        element_instance_key: job.element_instance_key,
        process_id: String::from(&*job.bpmn_process_id),
        process_definition_key,
        process_instance_key: job.process_instance_key,
        retries: job.retries,
        variables,
        // Most tasks have no headers: an empty map allocates nothing.
        headers: if job.custom_headers.is_empty() {
            IndexMap::new()
        } else {
            (*job.custom_headers).clone()
        },
        now_ms: engine.now(),
        log_position: engine.position(),
    }
}

/// The process test as a settle harness: the test is borrowed only between the answerers' calls,
/// so an answerer may read a handle.
struct SharedTest<'a>(&'a RefCell<Inner>);

impl Harness for SharedTest<'_> {
    type Answerer = (Answerer, TestJob);

    fn answer_limit(&self) -> usize {
        self.0.borrow().settings.answer_limit
    }

    fn next_job(&mut self) -> Option<(JobFacts, JobView, Self::Answerer)> {
        let mut inner = self.0.borrow_mut();
        let inner = &mut *inner;
        let (view, answerer) = inner.feed.next(&inner.engine, |view| {
            inner_answerer(&inner.element_answerers, &inner.job_mocks, view).or_else(|| {
                inner
                    .workers
                    .has_fault_for(&view.job_type, &view.element_id)
                    .then_some(Answerer::Fault)
            })
        })?;
        let job = inner.test_job(&view);
        let facts = JobFacts {
            key: job.key,
            process_instance_key: job.process_instance_key,
            process_definition_key: job.process_definition_key,
            retries: job.retries,
            element_id: view.element_id.clone(),
        };
        Some((facts, view, (answerer, job)))
    }

    fn answer(
        &mut self,
        _facts: &JobFacts,
        _job: &JobView,
        (answerer, job): &Self::Answerer,
    ) -> Option<Answer> {
        let begun = crate::workers::begin_activation(&mut self.0.borrow_mut(), job);
        let (activation, fault) = match begun {
            Ok(begun) => begun,
            Err(message) => return Some(Answer::FailRun(message)),
        };
        self.0.borrow_mut().workers.current = Some(activation);
        // Called without the test borrowed, so a handle may be read inside.
        let ask = || match answerer {
            Answerer::Mock(m) => m.borrow_mut().answer_job(job.clone()),
            Answerer::Element { answerer, .. } => answerer.borrow_mut().answer(job),
            Answerer::Fault => Answer::Wait,
        };
        Some(match fault {
            Some(fault) => crate::workers::faulted_answer(&fault, ask),
            None => ask(),
        })
    }

    fn apply(&mut self, facts: &JobFacts, answer: Answer, (answerer, job): &Self::Answerer) {
        let mut inner = self.0.borrow_mut();
        let label = answerer.label();
        let step = crate::workers::answered(&label, &facts.element_id, &answer);
        let activation =
            inner
                .workers
                .current
                .take()
                .unwrap_or_else(|| crate::workers::Activation {
                    attempt: 1,
                    job_type: job.job_type.clone(),
                    job_timeout: inner.workers.job_timeout,
                    effect: None,
                });
        crate::workers::deliver(
            &mut inner,
            facts,
            answer,
            &label,
            activation,
            crate::workers::Arrival::AtOnce,
        );
        inner.check_invariants(|| step);
    }

    fn run_error(&mut self, instance: Option<Key>, message: String) {
        let mut inner = self.0.borrow_mut();
        inner.sync();
        inner.add_error(instance, message);
    }

    fn at_quiescence(&mut self) -> bool {
        let cell = self.0;
        let mut hooks = std::mem::take(&mut cell.borrow_mut().hooks);
        if hooks.is_empty() {
            return false;
        }
        let mut fired = false;
        {
            let mut inner = cell.borrow_mut();
            inner.sync();
            let mut state = Quiescent { inner: &mut inner };
            for hook in hooks.iter_mut() {
                if hook.at_quiescence(&mut state) {
                    fired = true;
                    break;
                }
            }
        }
        let mut inner = cell.borrow_mut();
        hooks.append(&mut inner.hooks);
        inner.hooks = hooks;
        if fired {
            inner.check_invariants(|| "a behaviour at quiescence acted".to_string());
        }
        fired
    }
}

fn inner_answerer(
    element_answerers: &FxIndexMap<String, Answerer>,
    job_mocks: &FxIndexMap<String, Rc<RefCell<MockState>>>,
    job: &JobView,
) -> Option<Answerer> {
    if matches!(job.kind, JobKind::BpmnElement | JobKind::AdHocSubProcess)
        && let Some(a) = element_answerers.get(&*job.element_id)
    {
        return Some(a.clone());
    }
    let m = job_mocks.get(&*job.job_type)?;
    m.borrow().active.then(|| Answerer::Mock(m.clone()))
}

/// After an action of the test: checks the invariants, runs mocks and hooks until nothing is
/// left to do, and with time skipping on jumps the clock while only time can make the run go
/// on. See the module documentation.
pub(crate) fn settle(cell: &RefCell<Inner>) {
    settle_step(cell, || "the test's action".to_string());
    crate::workers::skip_time(cell);
}

/// Runs mocks and hooks after one step (named by `step` if an invariant breaks at it).
pub(crate) fn settle_step(cell: &RefCell<Inner>, step: impl FnOnce() -> String) {
    cell.borrow_mut().check_invariants(step);
    crate::settle::settle(&mut SharedTest(cell));
    cell.borrow_mut().sync();
}

/// Moves the clock to `target` as Camunda Process Test's `increaseTime` pins Zeebe's clock:
/// everything due at or before it fires at the new time (see [`move_engine_clock`]). Answers on
/// their way (a mocked worker's latency) split the move at their due times: the engine's clock
/// moves to each, then the answer arrives. Every clock move of a test goes through here.
pub(crate) fn move_clock(cell: &RefCell<Inner>, target: i64, cause: crate::trace::ClockCause) {
    if !(0..=LATEST_CLOCK_MS).contains(&target) {
        let when = match jiff::Timestamp::from_millisecond(target) {
            Ok(t) => t.to_string(),
            Err(_) => format!("{target} ms after 1970"),
        };
        let message = format!(
            "moving the clock: {when} is outside the times the engine clock can show (1970-01-01T00:00:00Z to {})",
            crate::clock::format_instant(LATEST_CLOCK_MS)
        );
        cell.borrow_mut().add_error(None, message);
        return;
    }
    loop {
        let stop = match cell.borrow().workers.next_due() {
            Some(due) if due <= target => due,
            _ => target,
        };
        move_engine_clock(cell, stop, cause);
        loop {
            let now = cell.borrow().engine.now();
            let Some(pending) = cell.borrow_mut().workers.pop_due(now) else {
                break;
            };
            crate::workers::deliver_late(cell, pending);
        }
        let now = cell.borrow().engine.now();
        let more = cell
            .borrow()
            .workers
            .next_due()
            .is_some_and(|d| d <= target);
        if (now >= target || stop >= target) && !more {
            return;
        }
        if now < stop {
            // The engine could not reach `stop` (an error was recorded).
            return;
        }
    }
}

/// Moves the engine's clock to `target` in one step, as Zeebe's pinned clock: its due-date
/// checkers fire everything due at or before the new time (timers in due-date order, job
/// timeouts and backoffs, message expiries), a cycle that fell behind fires once and goes on one
/// interval after it; then the mocks answer, at the new time (a timer their answers start counts
/// from it).
fn move_engine_clock(cell: &RefCell<Inner>, target: i64, cause: crate::trace::ClockCause) {
    {
        let mut inner = cell.borrow_mut();
        if inner.trace.on && target > inner.engine.now() {
            inner.trace_push(
                0,
                crate::trace::TraceEvent::ClockMoved { to: target, cause },
            );
        }
    }
    let result = cell.borrow_mut().engine.set_clock(target);
    if let Err(r) = result {
        let mut inner = cell.borrow_mut();
        inner.sync();
        inner.add_error(None, format!("moving the clock: {}", r.message));
        return;
    }
    settle_step(cell, || {
        format!(
            "the clock moved to {}",
            crate::clock::format_instant(target)
        )
    });
}

/// A process test: deployments, an engine with a virtual clock, job mocks, runs, coverage.
///
/// Create one per test (`ProcessTest::from_file`, or [`Deployment::test`](crate::Deployment::test)
/// to deploy once and share). Nothing runs in the background: each action runs the engine
/// until it waits, the mocks answer, and the action returns.
///
/// On drop it checks the mocks' expectations (panicking unless the thread already panics) and,
/// when a coverage folder is set (`coverage_dir` or the `BATON_COVERAGE_DIR` environment
/// variable), writes the test's coverage file there.
pub struct ProcessTest {
    pub(crate) inner: Rc<RefCell<Inner>>,
}

impl Default for ProcessTest {
    fn default() -> Self {
        ProcessTest::new()
    }
}

impl std::fmt::Debug for ProcessTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.borrow();
        f.debug_struct("ProcessTest")
            .field("runs", &inner.roots.len())
            .field("mocks", &inner.job_mocks.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl ProcessTest {
    /// A test with nothing deployed.
    pub fn new() -> ProcessTest {
        ProcessTest::from_engine(Engine::new(EngineConfig::default()), ToolCache::new())
    }

    pub(crate) fn from_engine(engine: Engine, tool_cache: ToolCache) -> ProcessTest {
        let feed = JobFeed::from_now(&engine);
        ProcessTest {
            inner: Rc::new(RefCell::new(Inner {
                engine,
                history: History::default(),
                job_mocks: FxIndexMap::default(),
                all_mocks: Vec::new(),
                element_answerers: FxIndexMap::default(),
                hooks: Vec::new(),
                feed,
                errors: Vec::new(),
                roots: Vec::new(),
                tool_cache,
                settings: Settings {
                    answer_limit: 10_000,
                    name: None,
                    coverage_dir: None,
                },
                workers: crate::workers::Workers::default(),
                trace: crate::workers::RunTrace::default(),
                time_skipping: false,
            })),
        }
    }

    /// A test with one BPMN file deployed.
    pub fn from_file(path: impl AsRef<Path>) -> Result<ProcessTest, DeployError> {
        let t = ProcessTest::new();
        t.deploy_file(path)?;
        Ok(t)
    }

    /// A test with BPMN text deployed; `name` is how messages and coverage name it.
    pub fn from_xml(name: &str, xml: &str) -> Result<ProcessTest, DeployError> {
        let t = ProcessTest::new();
        t.deploy_xml(name, xml)?;
        Ok(t)
    }

    /// A test with every `.bpmn` file of a folder (recursively) deployed as one deployment.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<ProcessTest, DeployError> {
        let t = ProcessTest::new();
        t.deploy_dir(dir)?;
        Ok(t)
    }

    /// Deploys a BPMN file.
    pub fn deploy_file(&self, path: impl AsRef<Path>) -> Result<&Self, DeployError> {
        deployment::deploy_files(
            &mut self.inner.borrow_mut().engine,
            &[path.as_ref().to_path_buf()],
        )?;
        Ok(self)
    }

    /// Deploys BPMN text.
    pub fn deploy_xml(&self, name: &str, xml: &str) -> Result<&Self, DeployError> {
        deployment::deploy_resources(
            &mut self.inner.borrow_mut().engine,
            &[baton_engine::deploy::Resource::from_text(name, xml)],
        )?;
        Ok(self)
    }

    /// Deploys every `.bpmn` file of a folder (recursively) as one deployment.
    pub fn deploy_dir(&self, dir: impl AsRef<Path>) -> Result<&Self, DeployError> {
        deployment::deploy_dir(&mut self.inner.borrow_mut().engine, dir.as_ref())?;
        Ok(self)
    }

    /// Names the test (coverage files are named after it; default: the test thread's name).
    pub fn named(self, name: impl Into<String>) -> Self {
        self.inner.borrow_mut().settings.name = Some(name.into());
        self
    }

    /// Keeps every command sent to the engine from now on (the test's own actions, the job
    /// mocks' answers, the AI agent's turns), so the run can be saved and replayed: see
    /// [`ProcessTest::commands`]. Call it before the first action; deployments are kept
    /// either way.
    pub fn record_commands(self) -> Self {
        self.inner.borrow_mut().engine.record_commands(true);
        self
    }

    /// The run so far as engine commands, deployments first: applied in order to a fresh
    /// engine (`Engine::apply`) they give the same records. Serialised with serde they are the
    /// JSON command log `baton_engine::runtime::read_commands` reads. An error when an action
    /// ran before [`ProcessTest::record_commands`].
    pub fn commands(&self) -> Result<Vec<Command>, UnrecordedCommands> {
        self.inner
            .borrow()
            .engine
            .recorded_commands()
            .map(<[Command]>::to_vec)
    }

    /// Writes this test's coverage file into `dir` when the test is dropped (overrides
    /// `BATON_COVERAGE_DIR`).
    pub fn coverage_dir(self, dir: impl Into<PathBuf>) -> Self {
        self.inner.borrow_mut().settings.coverage_dir = Some(dir.into());
        self
    }

    /// The most jobs the mocks may answer in one action before the run fails as a runaway
    /// (default 10 000).
    pub fn answer_limit(self, limit: usize) -> Self {
        self.inner.borrow_mut().settings.answer_limit = limit;
        self
    }

    /// Changes the engine's limits (`EngineConfig`: steps, timers, process instances and
    /// records per action), e.g. `.engine_config(|c| c.timer_limit = 100_000)` for a test that
    /// moves the clock over a year of a one-minute cycle. A changed `start_time_ms` sets the
    /// clock, as [`start_time`](Self::start_time) does (the engine reads it only when created).
    pub fn engine_config(self, change: impl FnOnce(&mut EngineConfig)) -> Self {
        let start = {
            let mut inner = self.inner.borrow_mut();
            let config = inner.engine.config_mut();
            let before = config.start_time_ms;
            change(config);
            (config.start_time_ms != before).then_some(config.start_time_ms)
        };
        if let Some(ms) = start {
            self.clock_to(ms);
        }
        self
    }

    /// Sets the virtual clock (ISO-8601 instant) before anything runs.
    #[track_caller]
    pub fn start_time(self, instant: &str) -> Self {
        self.set_time(instant);
        self
    }

    /// Mocks every job of a type (also the jobs already waiting). Finish with an answer:
    /// `complete_with(json!({..}))`, `complete_with_fn(|job| ..)`, `throw_error(code, msg)`,
    /// `fail(msg)`, `answers([..])`, ... A later mock of the same type replaces this one.
    pub fn mock_job(&self, job_type: impl Into<String>) -> MockBuilder<'_> {
        MockBuilder {
            test: self,
            job_type: job_type.into(),
            name: None,
            expected: None,
            faults: Vec::new(),
            side_effect: None,
        }
    }

    pub(crate) fn register_job_mock(&self, state: Rc<RefCell<MockState>>) {
        {
            let mut inner = self.inner.borrow_mut();
            let inner = &mut *inner;
            if inner.all_mocks.is_empty() {
                // A test mocks several job types: grow once, not at the 1st, 4th and 8th.
                inner.job_mocks.reserve(8);
                inner.all_mocks.reserve(8);
            }
            let job_type = state.borrow().job_type.clone();
            let waiting = inner.engine.activatable_jobs(Some(&job_type));
            if let Some(old) = inner.job_mocks.insert(job_type, state.clone()) {
                old.borrow_mut().active = false;
            }
            inner.all_mocks.push(state);
            if waiting.is_empty() {
                // Nothing for the new mock to answer now; jobs that appear later reach it
                // through the job feed at the next action.
                return;
            }
            inner.feed.extend(waiting.into_iter().map(|j| j.key));
        }
        settle(&self.inner);
    }

    /// Answers every job of an element (a task's job, or an ad-hoc sub-process's job) with
    /// `answerer`, before any job-type mock. This is the seam the AI Agent mock plugs into;
    /// `label` names it in run errors (e.g. `AI agent mock "support-agent"`). Jobs already
    /// waiting at the element are answered now.
    pub fn answer_jobs_of_element(
        &self,
        element_id: impl Into<String>,
        label: impl Into<String>,
        answerer: impl AnswerJob + 'static,
    ) {
        let element_id = element_id.into();
        {
            let mut inner = self.inner.borrow_mut();
            let answerer: Rc<RefCell<dyn AnswerJob>> = Rc::new(RefCell::new(answerer));
            inner.element_answerers.insert(
                element_id.clone(),
                Answerer::Element {
                    label: Rc::from(label.into()),
                    answerer,
                },
            );
            let waiting: Vec<Key> = inner
                .engine
                .activatable_jobs(None)
                .into_iter()
                .filter(|j| *j.element_id == *element_id)
                .map(|j| j.key)
                .collect();
            inner.feed.extend(waiting);
        }
        settle(&self.inner);
    }

    /// Stops answering the jobs of an element (see [`answer_jobs_of_element`](Self::answer_jobs_of_element)).
    pub fn stop_answering_jobs_of_element(&self, element_id: &str) {
        self.inner
            .borrow_mut()
            .element_answerers
            .shift_remove(element_id);
    }

    /// Adds a hook that runs at quiescence (see [`AtQuiescence`]).
    pub fn at_quiescence(&self, hook: impl AtQuiescence + 'static) {
        self.inner.borrow_mut().hooks.push(Box::new(hook));
        settle(&self.inner);
    }

    /// Every business rule task calling `decision_id` gets this output (CPT's
    /// `mockDmnDecision`).
    pub fn mock_decision(&self, decision_id: impl Into<String>, output: serde_json::Value) {
        self.inner
            .borrow_mut()
            .engine
            .register_decision(decision_id, output);
    }

    /// Deploys a stand-in for the process `process_id` that completes at once with these
    /// variables (CPT's `mockChildProcess`): a call activity calling it gets them back under
    /// its propagation rules. It replaces a real process of that id.
    #[track_caller]
    pub fn mock_child_process(&self, process_id: &str, variables: impl IntoVariables) {
        let doc = variables_or_panic(variables);
        let job_type = self.deploy_child_stand_in(process_id);
        // Fixed answers, not a closure: an exploration copies them into every fork.
        let _ = self
            .mock_job(job_type)
            .named(format!("child process \"{process_id}\""))
            .complete_with(serde_json::Value::Object(to_object(&doc)));
    }

    /// Like [`mock_child_process`](Self::mock_child_process), with the variables computed from
    /// the child's input variables.
    #[track_caller]
    pub fn mock_child_process_with(
        &self,
        process_id: &str,
        f: impl FnMut(&serde_json::Map<String, serde_json::Value>) -> serde_json::Value + 'static,
    ) {
        let job_type = self.deploy_child_stand_in(process_id);
        let mut f = f;
        let _ = self
            .mock_job(job_type)
            .named(format!("child process \"{process_id}\""))
            .complete_with_fn(move |job| f(job.variables()));
    }

    /// Deploys the stand-in of `process_id`; returns the job type of its task.
    #[track_caller]
    fn deploy_child_stand_in(&self, process_id: &str) -> String {
        let job_type = format!("{}{process_id}", crate::CHILD_MOCK_JOB_TYPE_PREFIX);
        let xml = child_process_xml(process_id, &job_type);
        if let Err(e) = self.deploy_xml(
            &format!("{}{process_id}.bpmn", crate::GENERATED_RESOURCE_PREFIX),
            &xml,
        ) {
            panic!("cannot mock child process \"{process_id}\": {e}");
        }
        job_type
    }

    /// Starts an instance of the latest version of a process with variables (`json!({..})` or
    /// `()`), runs it until it waits, and returns its handle. Panics if the process is not
    /// deployed.
    #[track_caller]
    pub fn start(&self, process_id: &str, variables: impl IntoVariables) -> Run {
        let request = CreateInstance::new(process_id).variables(variables_or_panic(variables));
        match self.try_start(request) {
            Ok(run) => run,
            Err(e) => panic!("{e}"),
        }
    }

    /// Starts an instance as the request says (version, start before elements, terminate
    /// after elements).
    pub fn try_start(&self, request: CreateInstance) -> Result<Run, ActionError> {
        let process_id = request.bpmn_process_id.clone();
        let result = self.inner.borrow_mut().engine.create_instance(request);
        match result {
            Ok(key) => {
                self.inner.borrow_mut().roots.push(key);
                settle(&self.inner);
                Ok(self.run(key))
            }
            Err(r) => {
                settle(&self.inner);
                let deployed = self.process_ids();
                Err(ActionError {
                    message: format!(
                        "cannot start process \"{process_id}\": {}\nDeployed processes: {}",
                        r.message,
                        if deployed.is_empty() {
                            "none".to_owned()
                        } else {
                            deployed.join(", ")
                        }
                    ),
                    explanation: String::new(),
                })
            }
        }
    }

    /// The handle of an existing process instance (e.g. one started by a message, or a child).
    pub fn run(&self, instance: Key) -> Run {
        let process_id = self
            .inner
            .borrow()
            .engine
            .process_instance(instance)
            .map(|p| p.bpmn_process_id.to_string())
            .unwrap_or_default();
        Run::new(self.inner.clone(), instance, process_id)
    }

    /// The runs started by this test, in order.
    pub fn runs(&self) -> Vec<Run> {
        let roots = self.inner.borrow().roots.clone();
        roots.into_iter().map(|k| self.run(k)).collect()
    }

    /// The BPMN process ids deployed (latest versions), in deployment order.
    pub fn process_ids(&self) -> Vec<String> {
        let inner = self.inner.borrow();
        let mut ids: Vec<String> = Vec::new();
        for p in inner.engine.deployed_processes() {
            if !ids.iter().any(|i| **i == **p.bpmn_process_id())
                && !p
                    .resource_name()
                    .starts_with(crate::GENERATED_RESOURCE_PREFIX)
            {
                ids.push(p.bpmn_process_id().to_string());
            }
        }
        ids
    }

    /// Moves the virtual clock forward (`"PT5M"`, or a `std::time::Duration`); what falls due
    /// fires, and the mocks answer.
    #[track_caller]
    pub fn advance_time(&self, duration: impl IntoDuration) {
        let ms = match duration.into_millis() {
            Ok(ms) => ms,
            Err(m) => panic!("{m}"),
        };
        let target = self.inner.borrow().engine.now().saturating_add(ms);
        self.clock_to(target);
    }

    /// Sets the virtual clock to an ISO-8601 instant.
    #[track_caller]
    pub fn set_time(&self, instant: &str) {
        match crate::clock::parse_instant(instant) {
            Ok(ms) => self.clock_to(ms),
            Err(m) => panic!("{m}"),
        }
    }

    fn clock_to(&self, target: i64) {
        move_clock(&self.inner, target, crate::trace::ClockCause::Test);
        crate::workers::skip_time(&self.inner);
    }

    /// Publishes a message (buffered for the client's default time to live, one hour): it
    /// correlates to waiting subscriptions and message start events now, or to those that open
    /// while it is buffered. Returns the message key.
    #[track_caller]
    pub fn publish_message(
        &self,
        name: &str,
        correlation_key: &str,
        variables: impl IntoVariables,
    ) -> Key {
        let message =
            PublishMessage::new(name, correlation_key).variables(variables_or_panic(variables));
        self.publish(message)
    }

    /// Publishes a message with every option (time to live, message id).
    #[track_caller]
    pub fn publish(&self, message: PublishMessage) -> Key {
        let name = message.name.clone();
        match self.act(|e| e.publish_message(message)) {
            Ok(key) => key,
            Err(r) => panic!("cannot publish message \"{name}\": {}", r.message),
        }
    }

    /// Correlates a message now (not buffered) and returns the run it reached (a process
    /// instance it started, or the one whose subscription took it). Panics when nothing waits
    /// for it, listing the open subscriptions.
    #[track_caller]
    pub fn correlate_message(
        &self,
        name: &str,
        correlation_key: &str,
        variables: impl IntoVariables,
    ) -> Run {
        let vars = variables_or_panic(variables);
        match self.try_correlate_message(name, correlation_key, vars) {
            Ok(run) => run,
            Err(e) => panic!("{e}"),
        }
    }

    /// Correlates a message now; see [`correlate_message`](Self::correlate_message).
    pub fn try_correlate_message(
        &self,
        name: &str,
        correlation_key: &str,
        variables: VariableDocument,
    ) -> Result<Run, ActionError> {
        match self.act(|e| e.correlate_message(name, correlation_key, variables)) {
            Ok(c) => {
                let root = self.inner.borrow().root_of(c.process_instance_key);
                {
                    let mut inner = self.inner.borrow_mut();
                    if root == c.process_instance_key && !inner.roots.contains(&root) {
                        inner.roots.push(root);
                    }
                }
                Ok(self.run(c.process_instance_key))
            }
            Err(r) => {
                let open = self.with_engine(|e| {
                    e.all_message_subscriptions()
                        .iter()
                        .map(|s| {
                            format!(
                                "\"{}\" (key \"{}\") at \"{}\" in process \"{}\"",
                                s.message_name, s.correlation_key, s.element_id, s.bpmn_process_id
                            )
                        })
                        .collect::<Vec<_>>()
                });
                Err(ActionError {
                    message: format!(
                        "message \"{name}\" with correlation key \"{correlation_key}\" was not correlated: {}\nOpen message subscriptions: {}",
                        r.message,
                        if open.is_empty() {
                            "none".to_owned()
                        } else {
                            open.join(", ")
                        }
                    ),
                    explanation: String::new(),
                })
            }
        }
    }

    /// Broadcasts a signal to every signal event waiting now (and signal start events).
    #[track_caller]
    pub fn broadcast_signal(&self, name: &str, variables: impl IntoVariables) {
        let vars = variables_or_panic(variables);
        if let Err(r) = self.act(|e| e.broadcast_signal(name, vars)) {
            panic!("cannot broadcast signal \"{name}\": {}", r.message);
        }
    }

    /// Sets cluster variables (Camunda 8.10) for this test's engine: FEEL reads them as
    /// `camunda.vars.cluster.NAME` and `camunda.vars.env.NAME` (after the process variables:
    /// a variable named `camunda` hides them). Set again, a variable is replaced.
    #[track_caller]
    pub fn set_cluster_variables(&self, variables: impl IntoVariables) {
        self.set_cluster_variables_of(None, variables);
    }

    /// Sets cluster variables of a tenant: `camunda.vars.tenant.NAME`, and
    /// `camunda.vars.env.NAME` over a global variable of the same name. baton's process
    /// instances belong to Zeebe's default tenant, `"<default>"`
    /// ([`DEFAULT_TENANT`](crate::DEFAULT_TENANT)): only its variables are read.
    #[track_caller]
    pub fn set_tenant_cluster_variables(&self, tenant_id: &str, variables: impl IntoVariables) {
        self.set_cluster_variables_of(Some(tenant_id), variables);
    }

    #[track_caller]
    fn set_cluster_variables_of(&self, tenant_id: Option<&str>, variables: impl IntoVariables) {
        let vars = variables_or_panic(variables);
        if let Err(r) = self.act(|e| e.set_cluster_variables(tenant_id, vars)) {
            panic!("cannot set cluster variables: {}", r.message);
        }
    }

    /// Creates a global user task listener for this test's engine (Camunda 8.9+): a task
    /// listener of every Camunda user task, for the events it names, run before the task's own
    /// listeners (after them when `after_non_global`), higher `priority` first. Its jobs are
    /// task listener jobs of its job type: a mock of that type answers them.
    #[track_caller]
    pub fn create_global_task_listener(&self, listener: GlobalTaskListener) {
        let id = listener.id.clone();
        if let Err(r) = self.act(|e| e.create_global_task_listener(listener)) {
            panic!("cannot create global task listener \"{id}\": {}", r.message);
        }
    }

    /// The virtual clock as an ISO-8601 instant.
    pub fn now(&self) -> String {
        crate::clock::format_instant(self.inner.borrow().engine.now())
    }

    /// Runs an engine command, then lets the engine and the mocks settle. The way to send any
    /// command this API has no method for (the CPT runner uses it).
    pub fn act<T>(
        &self,
        command: impl FnOnce(&mut Engine) -> Result<T, Rejection>,
    ) -> Result<T, Rejection> {
        let result = command(&mut self.inner.borrow_mut().engine);
        settle(&self.inner);
        result
    }

    /// Reads the engine.
    pub fn with_engine<T>(&self, read: impl FnOnce(&Engine) -> T) -> T {
        read(&self.inner.borrow().engine)
    }

    /// Runs a check against a process instance (the core every assertion uses).
    pub fn check(&self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        inner.check(instance, check)
    }

    /// The state of a process instance explained: what assertion failures print.
    pub fn explain(&self, instance: Key) -> String {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        inner.explain(instance)
    }

    /// Every run error so far.
    pub fn errors(&self) -> Vec<RunError> {
        self.inner.borrow().errors.clone()
    }

    /// Checks every mock's expected call count; lists every mock that missed it.
    pub fn verify(&self) -> Result<(), UnmetExpectations> {
        let inner = self.inner.borrow();
        let missed: Vec<CallCountMissed> = inner
            .all_mocks
            .iter()
            .filter_map(|m| m.borrow().verify().err())
            .collect();
        if missed.is_empty() {
            Ok(())
        } else {
            Err(UnmetExpectations { missed })
        }
    }

    /// The handle of a mock registered for a job type, if any.
    pub fn job_mock(&self, job_type: &str) -> Option<JobMock> {
        self.inner
            .borrow()
            .job_mocks
            .get(job_type)
            .map(|state| JobMock {
                state: state.clone(),
            })
    }

    pub(crate) fn test_name(&self) -> String {
        let inner = self.inner.borrow();
        if let Some(n) = &inner.settings.name {
            return n.clone();
        }
        match std::thread::current().name() {
            Some(n) if n != "main" => n.to_owned(),
            _ => "test".to_owned(),
        }
    }

    pub(crate) fn configured_coverage_dir(&self) -> Option<PathBuf> {
        let inner = self.inner.borrow();
        inner.settings.coverage_dir.clone().or_else(|| {
            std::env::var_os(crate::COVERAGE_DIR_ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }
}

impl Drop for ProcessTest {
    fn drop(&mut self) {
        if let Some(dir) = self.configured_coverage_dir()
            && let Err(e) = self.write_coverage_to(&dir)
        {
            eprintln!("baton: could not write coverage to {}: {e}", dir.display());
        }
        if std::thread::panicking() {
            return;
        }
        if let Err(problems) = self.verify() {
            panic!("{problems}");
        }
        if let Err(broken) = self.broken_invariant()
            && !self.inner.borrow().trace.reported
        {
            panic!("{broken}");
        }
    }
}

/// The job mocks called another number of times than expected, one per line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .missed.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct UnmetExpectations {
    pub missed: Vec<CallCountMissed>,
}

/// A stand-in process: start → a service task answered by the child mock → end.
fn child_process_xml(process_id: &str, job_type: &str) -> String {
    let id = xml_escape(process_id);
    let ty = xml_escape(job_type);
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="baton-mock-{id}" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="{id}" isExecutable="true">
    <bpmn:startEvent id="child-start"><bpmn:outgoing>child-flow-1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="child-flow-1" sourceRef="child-start" targetRef="child-mock"/>
    <bpmn:serviceTask id="child-mock">
      <bpmn:extensionElements><zeebe:taskDefinition type="{ty}"/></bpmn:extensionElements>
      <bpmn:incoming>child-flow-1</bpmn:incoming><bpmn:outgoing>child-flow-2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="child-flow-2" sourceRef="child-mock" targetRef="child-end"/>
    <bpmn:endEvent id="child-end"><bpmn:incoming>child-flow-2</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>
"#
    )
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
