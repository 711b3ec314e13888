//! [`ProcessTest`]: one engine, its deployments, the mocks, the runs and the coverage of one
//! test. Handles ([`Run`](crate::Run), [`JobMock`](crate::JobMock), the AI agent's handle)
//! share it, so several can be alive at once.
//!
//! Every action runs the engine until it waits, then [`settle`]s: every job that became
//! activatable and has a mock is answered (an element's answerer first, else the job type's
//! mock), the engine runs again, and so on until nothing is answered; then the
//! [`AtQuiescence`] hooks run (a hook that acts starts the loop again). That loop is the one
//! place where "at quiescence" logic lives. It stops with a run error after
//! `answer_limit` answers in one action.
//!
//! The submodules add to [`ProcessTest`] by concern: `harness` (the settle loop and the
//! hooks at quiescence), `inner` (the shared state), `time` (the virtual clock), `mocking`
//! (job, element, decision and child process mocks), `actions` (starting instances, messages,
//! signals, engine commands) and `queries` (runs, the engine, checks).

mod actions;
mod harness;
mod inner;
mod mocking;
mod queries;
mod time;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use baton_engine::runtime::{Command, Engine, EngineConfig, Key, UnrecordedCommands};
use indexmap::IndexMap;

/// Lookups by job type or element id: insertion order is kept (IndexMap), the hash only finds.
type FxIndexMap<K, V> = IndexMap<K, V, rustc_hash::FxBuildHasher>;

use crate::agent::ToolCache;
use crate::deployment::{self, DeployError};
use crate::history::History;
use crate::mocks::CallCountMissed;
use crate::settle::JobFeed;

pub(crate) use harness::{Answerer, settle, settle_step};
pub use harness::{AtQuiescence, Quiescent};
pub(crate) use inner::{Inner, Settings, test_job};
pub(crate) use time::move_clock;

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

/// A process test: deployments, an engine with a virtual clock, job mocks, runs, coverage.
///
/// Create one per test (`ProcessTest::from_file`, or [`Deployment::test`](crate::Deployment::test)
/// to deploy once and share). Nothing runs in the background: each action runs the engine
/// until it waits, the mocks answer, and the action returns.
///
/// On drop it checks the mocks' expectations, broken invariants and run errors no assertion
/// looked at (panicking unless the thread already panics; see
/// [`allow_run_errors`](Self::allow_run_errors)) and, when a coverage folder is set (`coverage_dir` or the `BATON_COVERAGE_DIR` environment
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
                errors_seen: RefCell::default(),
                roots: Vec::new(),
                tool_cache,
                settings: Settings {
                    answer_limit: 10_000,
                    name: None,
                    coverage_dir: None,
                    allow_run_errors: false,
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

    /// The test expects run errors (a mock that cannot answer, an AI agent script the run
    /// disagrees with): dropping it does not fail on errors it did not read. Without this, a
    /// run error nobody looked at (with [`errors`](Self::errors), [`Run::errors`](crate::Run::errors)
    /// or [`Run::assert_failed`](crate::Run::assert_failed)) fails the test when it is dropped.
    pub fn allow_run_errors(self) -> Self {
        self.inner.borrow_mut().settings.allow_run_errors = true;
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
        if let Some(unseen) = self.unseen_run_errors() {
            panic!("{unseen}");
        }
    }
}

impl ProcessTest {
    /// The message for run errors no assertion looked at, unless the test allows them.
    fn unseen_run_errors(&self) -> Option<String> {
        let inner = self.inner.borrow();
        let unseen = inner.unseen_errors();
        if unseen.is_empty() || inner.settings.allow_run_errors {
            return None;
        }
        let n = unseen.len();
        let lines: Vec<String> = unseen
            .iter()
            .map(|e| format!("  {}", e.message.replace('\n', "\n  ")))
            .collect();
        Some(format!(
            "the run had {n} error{} no assertion looked at:\n{}\nAssert on {} (run.errors(), run.assert_failed(), test.errors()), or call .allow_run_errors() on the ProcessTest if the test expects {}.",
            if n == 1 { "" } else { "s" },
            lines.join("\n"),
            if n == 1 { "it" } else { "them" },
            if n == 1 { "it" } else { "them" },
        ))
    }
}

/// The job mocks called another number of times than expected, one per line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .missed.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct UnmetExpectations {
    pub missed: Vec<CallCountMissed>,
}
