//! The state a [`ProcessTest`](crate::ProcessTest) and its handles share, and a job as a mock
//! sees it.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use baton_engine::runtime::{Engine, JobView, Key};
use indexmap::IndexMap;

use super::{Answerer, AtQuiescence, FxIndexMap, RunError};
use crate::agent::ToolCache;
use crate::assertions::{AssertionFailure, Check, Subject};
use crate::history::History;
use crate::mocks::{MockState, TestJob};
use crate::settle::JobFeed;

pub(crate) struct Settings {
    pub answer_limit: usize,
    pub name: Option<String>,
    pub coverage_dir: Option<PathBuf>,
    /// The test expects run errors: dropping it does not fail on the ones nobody read.
    pub allow_run_errors: bool,
}

/// The shared state behind [`ProcessTest`](crate::ProcessTest) and its handles.
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
    /// Which of `errors` the test has looked at (read them, or asserted that the run failed):
    /// the others fail the test when it is dropped.
    pub errors_seen: RefCell<Vec<bool>>,
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
    /// [`ProcessTest::time_skipping`](crate::ProcessTest::time_skipping)).
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

    /// Marks the errors of one run (`Some(root)`) or of all runs as looked at.
    pub fn mark_errors_seen(&self, root: Option<Key>) {
        let mut seen = self.errors_seen.borrow_mut();
        seen.resize(self.errors.len(), false);
        for (error, seen) in self.errors.iter().zip(seen.iter_mut()) {
            if root.is_none() || error.instance.is_none_or(|i| Some(i) == root) {
                *seen = true;
            }
        }
    }

    /// The run errors nobody looked at, except broken invariants (they have their own report).
    pub fn unseen_errors(&self) -> Vec<&RunError> {
        let seen = self.errors_seen.borrow();
        self.errors
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                !seen.get(*i).copied().unwrap_or(false) && !e.message.starts_with("the invariant ")
            })
            .map(|(_, e)| e)
            .collect()
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

    /// A check the test asked for: a failed one prints the run's errors and a check that the
    /// run failed read them, so either way the errors were looked at.
    pub fn check_for_test(&self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        let result = self.check(instance, check);
        if result.is_err() || matches!(check, Check::Failed { .. }) {
            self.mark_errors_seen(Some(self.root_of(instance)));
        }
        result
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
