//! What a check or an explanation looks at: one process instance of a test, in its engine and
//! history, with the run's errors.

use baton_engine::runtime::{Engine, Key, State};

use crate::history::{History, InstanceLog};

/// What a check looks at: one process instance of a test, its history and the run's errors.
pub(crate) struct Subject<'a> {
    pub engine: &'a Engine,
    pub history: &'a History,
    /// The process instance checked.
    pub instance: Key,
    /// The errors of the run the instance belongs to.
    pub errors: Vec<&'a str>,
}

impl<'a> Subject<'a> {
    pub(crate) fn log(&self) -> Option<&'a InstanceLog> {
        self.history.instance(self.instance)
    }

    /// The BPMN process id of the instance.
    pub fn process_id(&self) -> String {
        self.engine
            .process_instance(self.instance)
            .map(|p| p.bpmn_process_id.to_string())
            .unwrap_or_else(|| format!("instance {}", self.instance))
    }

    pub(crate) fn state(&self) -> Option<State> {
        self.engine.process_instance(self.instance).map(|p| p.state)
    }

    /// Whether the instance is suspended (Camunda 8.10).
    pub(crate) fn suspended(&self) -> bool {
        self.engine
            .process_instance(self.instance)
            .is_some_and(|p| p.suspended)
    }
}
