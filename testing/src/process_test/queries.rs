//! What a test reads: its runs, the deployed processes, the engine, checks and run errors.

use baton_engine::runtime::{Engine, Key};

use super::{ProcessTest, RunError};
use crate::assertions::{AssertionFailure, Check};
use crate::instance::Run;

impl ProcessTest {
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

    /// Reads the engine.
    pub fn with_engine<T>(&self, read: impl FnOnce(&Engine) -> T) -> T {
        read(&self.inner.borrow().engine)
    }

    /// Runs a check against a process instance (the core every assertion uses).
    pub fn check(&self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        inner.check_for_test(instance, check)
    }

    /// The state of a process instance explained: what assertion failures print.
    pub fn explain(&self, instance: Key) -> String {
        let mut inner = self.inner.borrow_mut();
        inner.sync();
        inner.explain(instance)
    }

    /// Every run error so far (reading them counts as looking at them: see
    /// [`allow_run_errors`](Self::allow_run_errors)).
    pub fn errors(&self) -> Vec<RunError> {
        let inner = self.inner.borrow();
        inner.mark_errors_seen(None);
        inner.errors.clone()
    }
}
