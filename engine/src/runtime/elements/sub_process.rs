//! Embedded sub-processes (and transactions, run as embedded sub-processes) start at their
//! none start event; event sub-processes start at the start event that was triggered in their
//! scope. Both complete when nothing inside them is active.

use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::Key;
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::Step;

/// Zeebe's `SubProcessProcessor`.
pub(crate) struct SubProcess;

impl ElementBehavior for SubProcess {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.subscribe_to_events(key)?;
        engine.transition(key, State::Activated)?;
        let (proc, e) = {
            let i = &engine.instances[&key];
            (i.proc, i.element().expect("a sub-process is an element"))
        };
        if let Some(start) = engine.process(proc).element(e).scope.none_start {
            engine.activate_child(key, start, None);
        }
        Ok(())
    }

    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        complete_sub_process(engine, key)
    }

    fn terminate(&self, engine: &mut Engine, key: Key) {
        engine.terminate_container(key);
    }
}

/// Zeebe's `EventSubProcessProcessor`.
pub(crate) struct EventSubProcess;

impl ElementBehavior for EventSubProcess {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_event_subprocess(key)
    }

    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        complete_sub_process(engine, key)
    }

    fn terminate(&self, engine: &mut Engine, key: Key) {
        engine.terminate_container(key);
    }
}

/// A sub-process closes its subscriptions before its output mappings.
fn complete_sub_process(engine: &mut Engine, key: Key) -> Step {
    engine.unsubscribe_from_events(key);
    engine.apply_element_output_mappings(key, false)
}

impl Engine {
    /// An event sub-process was activated: start its triggered start event.
    pub(crate) fn activate_event_subprocess(&mut self, key: Key) -> Step {
        let scope = self.instances[&key]
            .flow_scope
            .expect("event sub-processes have a scope");
        let trigger = self.pending.event_sub_process_starts.remove(&scope);
        self.subscribe_to_events(key)?;
        self.transition(key, State::Activated)?;
        if let Some(t) = trigger {
            self.activate_child(key, t.element, t.variables);
        }
        Ok(())
    }
}
