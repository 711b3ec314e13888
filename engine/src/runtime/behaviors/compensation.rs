//! Compensation: an activity with a compensation boundary event that completes leaves a
//! subscription; a compensation throw or end event invokes the handlers of the completed
//! activities of its scope (those inside completed embedded sub-processes too, not those of
//! child processes), or only of its `activityRef`, all at once, and waits until every handler
//! completed. A multi-instance activity is compensated once, and only if all its instances
//! completed. Each subscription is compensated at most once.

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, CompensationValue, Key, OtherIntent, RecordValue, ValueType,
};
use crate::runtime::state::compensation::CompensationSubscription;
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{Activation, FollowUp, Step};

impl Engine {
    fn compensation_value(&self, s: &CompensationSubscription) -> RecordValue {
        let throw_element = s
            .thrown_by
            .and_then(|t| self.instances.get(&t))
            .and_then(|i| i.element());
        RecordValue::Compensation(Box::new(CompensationValue {
            proc: s.proc,
            process_instance_key: s.process_instance_key,
            activity: s.activity,
            activity_instance_key: s.activity_instance_key,
            handler: s.handler,
            throw_element,
        }))
    }

    /// An activity completes: if it has a compensation handler, it can be compensated from now
    /// on (a multi-instance body only if none of its instances was terminated).
    pub(crate) fn subscribe_compensation(&mut self, key: Key) {
        let Some(inst) = self.instances.get(&key) else {
            return;
        };
        if inst.loop_counter > 0 {
            return;
        }
        let Some(e) = inst.element() else { return };
        let p = self.process(inst.proc);
        let Some(handler) = p.element(e).compensation_handler else {
            return;
        };
        if inst.element_type == BpmnElementType::MultiInstanceBody
            && inst.mi().is_some_and(|m| m.terminated > 0)
        {
            return;
        }
        let (proc, pi) = (inst.proc, inst.process_instance_key);
        let mut scopes = Vec::new();
        let mut current = inst.flow_scope;
        while let Some(k) = current {
            scopes.push(k);
            current = self.instances.get(&k).and_then(|i| i.flow_scope);
        }
        let s = CompensationSubscription {
            key: self.new_key(),
            proc,
            process_instance_key: pi,
            activity: e,
            activity_instance_key: key,
            handler,
            scopes: Arc::from(scopes),
            thrown_by: None,
        };
        let value = self.compensation_value(&s);
        self.event(
            ValueType::CompensationSubscription,
            OtherIntent::Created,
            Some(s.key),
            value,
        );
        self.compensation.subscriptions.push(s);
    }

    /// A compensation throw or end event: invoke the handlers, wait for them.
    pub(crate) fn throw_compensation(&mut self, key: Key, activity: Option<ElementIdx>) -> Step {
        let inst = &self.instances[&key];
        let scope = inst.flow_scope.expect("events have a scope");
        let (proc, pi) = (inst.proc, inst.process_instance_key);
        let matching: Vec<usize> = self
            .compensation
            .subscriptions
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.thrown_by.is_none()
                    && s.process_instance_key == pi
                    && match activity {
                        // The referenced activity of this scope.
                        Some(a) => s.activity == a && s.scopes.first() == Some(&scope),
                        // Everything completed in this scope, nested sub-processes included.
                        None => s.scopes.contains(&scope),
                    }
            })
            .map(|(i, _)| i)
            .collect();
        self.transition(key, State::Activated)?;
        if matching.is_empty() {
            self.queue.push_back(FollowUp::Complete(key));
            return Ok(());
        }
        for i in matching {
            self.compensation.subscriptions[i].thrown_by = Some(key);
            let s = self.compensation.subscriptions[i].clone();
            let value = self.compensation_value(&s);
            self.event(
                ValueType::CompensationSubscription,
                OtherIntent::Triggered,
                Some(s.key),
                value,
            );
            // The handler runs in the throw event's scope.
            let handler_key = self.new_key();
            self.compensation.handlers.insert(handler_key, key);
            let p = self.process(proc);
            let element_type = p.activation_type(s.handler);
            self.queue.push_back(FollowUp::Activate(Activation {
                key: Some(handler_key),
                proc,
                process_instance_key: pi,
                flow_scope: Some(scope),
                element: Some(s.handler),
                element_type,
                via_flow: None,
                variables: None,
                parent: None,
                loop_counter: 0,
            }));
        }
        Ok(())
    }

    /// A compensation handler ended: when the last handler of a throw event is done, its
    /// subscriptions are completed and the throw event goes on.
    pub(crate) fn compensation_handler_done(&mut self, handler: Key) {
        let Some(throw) = self.compensation.handlers.remove(&handler) else {
            return;
        };
        if self.compensation.handlers.values().any(|t| *t == throw) {
            return;
        }
        let done: Vec<CompensationSubscription> = self
            .compensation
            .subscriptions
            .iter()
            .filter(|s| s.thrown_by == Some(throw))
            .cloned()
            .collect();
        self.compensation
            .subscriptions
            .retain(|s| s.thrown_by != Some(throw));
        for s in done {
            let value = self.compensation_value(&s);
            self.event(
                ValueType::CompensationSubscription,
                OtherIntent::Completed,
                Some(s.key),
                value,
            );
        }
        self.queue.push_back(FollowUp::Complete(throw));
    }

    /// A process instance ended: its compensation subscriptions are gone.
    pub(crate) fn drop_compensation_of(&mut self, pi: Key) {
        if self.compensation.is_empty() {
            return;
        }
        let gone: Vec<CompensationSubscription> = self
            .compensation
            .subscriptions
            .iter()
            .filter(|s| s.process_instance_key == pi)
            .cloned()
            .collect();
        self.compensation
            .subscriptions
            .retain(|s| s.process_instance_key != pi);
        for s in gone {
            let value = self.compensation_value(&s);
            self.event(
                ValueType::CompensationSubscription,
                OtherIntent::Deleted,
                Some(s.key),
                value,
            );
        }
    }

    /// The compensate definition of a throw or end event, if it has one.
    pub(crate) fn compensation_target(&self, key: Key) -> Option<Option<ElementIdx>> {
        let inst = self.instances.get(&key)?;
        let p = self.process(inst.proc);
        match &p.element(inst.element()?).event {
            EventDef::Compensation { activity, .. } => Some(*activity),
            _ => None,
        }
    }
}
