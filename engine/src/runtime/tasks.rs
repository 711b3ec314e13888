//! Tasks evaluated by the engine itself: script tasks (`zeebe:script`); business rule tasks
//! (`zeebe:calledDecision`) are in `decisions`. Job-based tasks are in `jobs`, user tasks in
//! `user_tasks`.

use std::sync::Arc;

use super::Engine;
use super::lifecycle::State;
use super::records::{Key, VariableDocument};
use super::step::{FollowUp, Step};

impl Engine {
    pub(crate) fn activate_script_task(&mut self, key: Key) -> Step {
        let p = self.process(self.instances[&key].proc).clone();
        let e = self.instances[&key].element().expect("task");
        let el = p.element(e);
        let Some((expr, result_variable)) = &el.script else {
            return self.activate_job_task(key);
        };
        let value = self.eval(expr, key, None)?;
        let mut doc = VariableDocument::new();
        doc.insert(result_variable.to_string(), value);
        if let Some(i) = self.instances.get_mut(&key) {
            i.completion_vars = Some(Arc::new(super::records::share_document(doc)));
        }
        self.transition(key, State::Activated)?;
        self.queue.push_back(FollowUp::Complete(key));
        Ok(())
    }
}
