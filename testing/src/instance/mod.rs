//! [`Run`]: the handle of one process instance: what it did, actions on it, and assertions.
//!
//! Actions run the engine until it waits and let the mocks answer before they return. An
//! action that cannot be carried out panics (or, with `try_`, returns an
//! [`ActionError`](crate::ActionError)) with the run explained. Assertions are
//! `#[track_caller]` and panic with an [`AssertionFailure`](crate::AssertionFailure)'s message.
//!
//! Here: [`Run`] itself and [`RunState`]. The methods of [`Run`], one file per kind:
//! - `queries` — what the run did and holds now: state, variables, elements, jobs, incidents,
//!   errors, the run explained.
//! - `actions` — answering jobs, completing user tasks, setting variables, resolving incidents,
//!   cancelling, suspending, moving the clock, correlating messages.
//! - `assertions` — [`Run::check`] and the `assert_*` methods built on it.

mod actions;
mod assertions;
mod queries;

use std::cell::RefCell;
use std::rc::Rc;

use baton_engine::runtime::Key;

use crate::process_test::Inner;

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
}
