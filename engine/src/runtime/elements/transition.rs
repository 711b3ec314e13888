//! State transitions of element instances: each one is checked against its family's lifecycle
//! table and written as a `PROCESS_INSTANCE` record; ending an instance removes it from its
//! flow scope (and a process instance's bookkeeping goes with it).

use std::sync::Arc;

use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType as T, BpmnEventType, ElementRef, ErrorType, Key, ProcessInstanceValue,
};
use crate::runtime::state::instances::ElementInstance;
use crate::runtime::state::lifecycle::{self, State};
use crate::runtime::step::{Step, StepFailure};

impl Engine {
    pub(crate) fn process_instance_value(&self, inst: &ElementInstance) -> ProcessInstanceValue {
        let p = self.process(inst.proc);
        let event_type = match inst.element_ref {
            ElementRef::Element(e) => p.element(e).event_type,
            _ => BpmnEventType::Unspecified,
        };
        let (parent_pi, parent_ei) = match inst.parent() {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        ProcessInstanceValue {
            proc: inst.proc,
            process_instance_key: inst.process_instance_key,
            element_ref: inst.element_ref,
            element_type: inst.element_type,
            event_type,
            flow_scope_key: inst.flow_scope,
            parent_process_instance_key: parent_pi,
            parent_element_instance_key: parent_ei,
        }
    }

    pub(crate) fn element_id_of(&self, inst: &ElementInstance) -> Arc<str> {
        let p = self.process(inst.proc);
        match inst.element_ref {
            ElementRef::Element(e) => p.element(e).id.clone(),
            _ => p.bpmn_process_id.clone(),
        }
    }

    /// Checks the lifecycle table for moving `key` to `to` and writes the record.
    fn write_transition(&mut self, key: Key, to: State) -> Step {
        let Some(inst) = self.instances.get(&key) else {
            return Err(StepFailure::new(
                ErrorType::Unknown,
                format!("Expected element instance with key '{key}' to exist, but it does not"),
            ));
        };
        // The element id is only looked up for the error (this runs for every transition).
        if !lifecycle::can_transition(
            lifecycle::Family::of(inst.element_type),
            Some(inst.state),
            to,
        ) && let Err(e) = lifecycle::check(
            &self.element_id_of(inst),
            inst.element_type,
            Some(inst.state),
            to,
        ) {
            return Err(StepFailure::new(ErrorType::Unknown, e.to_string()));
        }
        let value = self.process_instance_value(inst);
        self.process_instance_event(to.intent(), key, value);
        Ok(())
    }

    /// Moves an instance to a state it stays in (ACTIVATED, COMPLETING, TERMINATING), checking
    /// the lifecycle table and writing the record.
    pub(crate) fn transition(&mut self, key: Key, to: State) -> Step {
        debug_assert!(!matches!(to, State::Completed | State::Terminated));
        self.write_transition(key, to)?;
        let is_process = match self.instances.get_mut(&key) {
            Some(i) => {
                i.state = to;
                i.element_type == T::Process
            }
            None => false,
        };
        // Only process instances have a summary (no map lookup for every element).
        if is_process && let Some(s) = self.process_instances.get_mut(&key) {
            s.state = to;
        }
        Ok(())
    }

    /// Moves an instance to COMPLETED or TERMINATED: writes the record and removes the
    /// instance, which is returned.
    #[inline]
    pub(crate) fn end_instance(
        &mut self,
        key: Key,
        to: State,
    ) -> Result<ElementInstance, StepFailure> {
        debug_assert!(matches!(to, State::Completed | State::Terminated));
        self.write_transition(key, to)?;
        let inst = self.instances.remove(&key).expect("checked above");
        if let Some(scope) = inst.flow_scope
            && let Some(parent) = self.instances.get_mut(&scope)
            && let Some(pos) = parent.children.iter().position(|c| *c == key)
        {
            parent.children.remove(pos);
        }
        if inst.element_type == T::Process {
            if let Some(s) = self.process_instances.get_mut(&key) {
                s.state = to;
            }
            self.release_message_start_lock(key);
            self.drop_compensation_of(key);
            self.forget_suspension(key);
        }
        Ok(inst)
    }
}
