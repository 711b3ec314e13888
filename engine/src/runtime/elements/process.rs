//! The process instance: activated at its none start event, at an event start event (message,
//! timer, signal, condition) or before the elements of its start instructions; it completes
//! when nothing inside it is active and then hands its variables to the call activity that
//! started it, if any. Terminate-after-element runtime instructions stop it.

use crate::model::ElementIdx;
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType as T, ElementRef, Key, OtherIntent, ProcessInstanceIntent, RecordValue,
    ValueType,
};
use crate::runtime::state::instances::ElementInstance;
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{FollowUp, Step};

/// Zeebe's `ProcessProcessor`.
pub(crate) struct Process;

impl ElementBehavior for Process {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.subscribe_to_events(key)?;
        engine.transition(key, State::Activated)?;
        if let Some(t) = engine.pending.event_starts.remove(&key) {
            engine.activate_child(key, t.element, t.variables);
            return Ok(());
        }
        match engine.pending.start_instructions.remove(&key) {
            Some(elements) => {
                for element in elements {
                    engine.activate_with_start_instruction(key, element)?;
                }
            }
            None => {
                let proc = engine.instances[&key].proc;
                if let Some(start) = engine.process(proc).scope.none_start {
                    engine.activate_child(key, start, None);
                }
            }
        }
        Ok(())
    }

    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        engine.unsubscribe_from_events(key);
        Ok(())
    }

    fn terminate(&self, engine: &mut Engine, key: Key) {
        engine.terminate_container(key);
    }
}

impl Engine {
    /// COMPLETED of a process instance: a child process instance completes its call activity.
    pub(crate) fn finalize_process_completion(&mut self, key: Key) -> Step {
        let inst = self.end_instance(key, State::Completed)?;
        if let Some((_, call_activity)) = inst.parent() {
            self.on_called_process_completed(call_activity, &inst);
        }
        Ok(())
    }

    /// A terminate-after-element runtime instruction for this element: interrupt the instance.
    pub(crate) fn runtime_instruction_fires(&mut self, inst: &ElementInstance) -> bool {
        if self.terminate_after.is_empty() {
            return false;
        }
        let element = inst.element().expect("flow nodes are elements");
        let pi = inst.process_instance_key;
        let element_id = self.process(inst.proc).element(element).id.clone();
        let fires = self
            .terminate_after
            .get(&pi)
            .is_some_and(|ids| ids.contains(&element_id));
        if !fires {
            return false;
        }
        let terminating = self
            .instances
            .get(&pi)
            .is_none_or(|i| i.state == State::Terminating);
        if terminating {
            return false;
        }
        self.event(
            ValueType::RuntimeInstruction,
            OtherIntent::Interrupted,
            Some(pi),
            RecordValue::RuntimeInstruction {
                proc: inst.proc,
                process_instance_key: pi,
                element_id: element_id.clone(),
            },
        );
        self.queue.push_back(FollowUp::Terminate(pi));
        true
    }

    /// Starts a process instance before `element`: its enclosing sub-processes are activated
    /// first (ACTIVATING, ACTIVATED, their event subscriptions), ad-hoc sub-processes with an
    /// inner instance, then the element itself.
    fn activate_with_start_instruction(&mut self, pi: Key, element: ElementIdx) -> Step {
        let p = self.process(self.instances[&pi].proc).clone();
        let mut chain = Vec::new();
        let mut cur = p.model_element(element).parent;
        while let Some(c) = cur {
            chain.push(c);
            cur = p.model_element(c).parent;
        }
        chain.reverse();
        let mut scope = pi;
        for container in chain {
            // Reuse a container instance created by an earlier start instruction.
            let existing = self.instances[&scope].children.iter().copied().find(|k| {
                self.instances.get(k).is_some_and(|i| {
                    i.element() == Some(container)
                        && i.element_type != T::AdHocSubProcessInnerInstance
                })
            });
            let key = match existing {
                Some(k) => k,
                None => {
                    let ty = p.element(container).element_type;
                    let key = self.create_instance_inline(scope, container, ty);
                    self.subscribe_to_events(key)?;
                    if ty == T::AdHocSubProcess
                        && let Some(i) = self.instances.get_mut(&key)
                    {
                        i.extras_mut().ad_hoc = Some(Box::default());
                    }
                    self.transition(key, State::Activated)?;
                    key
                }
            };
            scope = key;
            if p.element(container).element_type == T::AdHocSubProcess {
                let inner =
                    self.create_instance_inline(scope, container, T::AdHocSubProcessInnerInstance);
                self.transition(inner, State::Activated)?;
                scope = inner;
            }
        }
        self.activate_child(scope, element, None);
        Ok(())
    }

    /// Creates an element instance in ACTIVATING right away (start instructions).
    fn create_instance_inline(&mut self, scope: Key, element: ElementIdx, element_type: T) -> Key {
        let s = &self.instances[&scope];
        let (proc, pi) = (s.proc, s.process_instance_key);
        let key = self.new_key();
        let inst = ElementInstance::new(
            key,
            proc,
            pi,
            ElementRef::Element(element),
            element_type,
            Some(scope),
        );
        let value = self.process_instance_value(&inst);
        self.instances.insert(key, inst);
        if let Some(s) = self.instances.get_mut(&scope) {
            s.children.push(key);
        }
        self.process_instance_event(ProcessInstanceIntent::ElementActivating, key, value);
        key
    }
}
