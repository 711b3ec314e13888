//! Message start events: subscriptions of the latest version of a process, the instances a
//! message starts, and the lock a correlation key holds while its instance runs.

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    Key, OtherIntent, ProcIdx, RecordValue, SubscriptionValue, ValueType, VariableDocument,
};
use crate::runtime::state::instances::EventTrigger;
use crate::runtime::state::messages::{CorrelatedMessageView, MessageStartSubscription};

impl Engine {
    /// Starts instances of the processes whose message start event waits for this message
    /// (skipping process ids already reached and those with an active instance for the key).
    /// Returns the first instance started.
    pub(crate) fn correlate_to_start_events(
        &mut self,
        message: Key,
        name: &Arc<str>,
        ck: &Arc<str>,
        variables: &Arc<VariableDocument>,
        correlated: &mut Vec<Arc<str>>,
    ) -> Option<Key> {
        let subs: Vec<Key> = self
            .messaging
            .start_subscriptions
            .values()
            .filter(|s| s.name == *name)
            .map(|s| s.key)
            .collect();
        let mut first = None;
        for k in subs {
            let proc = self.messaging.start_subscriptions[&k].proc;
            let id = self.process(proc).bpmn_process_id.clone();
            if correlated.contains(&id) {
                continue;
            }
            if !ck.is_empty()
                && self
                    .messaging
                    .start_locks
                    .contains(&(id.clone(), ck.clone()))
            {
                continue;
            }
            correlated.push(id);
            let pi = self.trigger_message_start(k, message, ck, variables.clone());
            first.get_or_insert(pi);
        }
        first
    }

    /// Writes `MESSAGE_START_EVENT_SUBSCRIPTION CORRELATED` and starts a process instance at the
    /// message start event.
    pub(crate) fn trigger_message_start(
        &mut self,
        subscription: Key,
        message: Key,
        ck: &Arc<str>,
        variables: Arc<VariableDocument>,
    ) -> Key {
        let s = self.messaging.start_subscriptions[&subscription].clone();
        let pi = self.new_key();
        self.event(
            ValueType::MessageStartEventSubscription,
            OtherIntent::Correlated,
            Some(subscription),
            RecordValue::Subscription(Box::new(SubscriptionValue {
                proc: s.proc,
                process_instance_key: Some(pi),
                element_instance_key: None,
                element: s.element,
                message_name: s.name.clone(),
                correlation_key: ck.clone(),
                message_key: Some(message),
                interrupting: true,
                variables: Some(variables.clone()),
            })),
        );
        let p = self.process(s.proc).clone();
        if !ck.is_empty() {
            let lock = (p.bpmn_process_id.clone(), ck.clone());
            self.messaging.start_locks.insert(lock.clone());
            self.messaging.lock_of_instance.insert(pi, lock);
        }
        self.messaging
            .correlated
            .entry(pi)
            .or_default()
            .push(CorrelatedMessageView {
                message_key: message,
                message_name: s.name.clone(),
                correlation_key: ck.clone(),
                process_instance_key: pi,
                element_id: p.element(s.element).id.clone(),
                element_instance_key: None,
            });
        let vars = (!variables.is_empty()).then_some(variables);
        self.start_instance_at_event(s.proc, pi, s.element, vars);
        pi
    }

    /// Queues the activation of a new process instance that starts at an event start event
    /// (message, timer, signal).
    pub(crate) fn start_instance_at_event(
        &mut self,
        proc: ProcIdx,
        pi: Key,
        element: ElementIdx,
        variables: Option<Arc<VariableDocument>>,
    ) {
        self.pending
            .event_starts
            .insert(pi, EventTrigger { element, variables });
        self.queue_process_activation(
            proc,
            pi,
            Arc::new(VariableDocument::new()),
            Arc::new(Vec::new()),
        );
    }

    /// A process instance ended: if a message started it with a correlation key, the next
    /// buffered message with that key may start the next instance.
    pub(crate) fn release_message_start_lock(&mut self, pi: Key) {
        let Some((id, ck)) = self.messaging.lock_of_instance.remove(&pi) else {
            return;
        };
        self.messaging.start_locks.remove(&(id.clone(), ck.clone()));
        let Some(&proc) = self.deployed.latest.get(&*id) else {
            return;
        };
        let now = self.now;
        let mut best: Option<(Key, Key)> = None;
        for s in self.messaging.start_subscriptions.values() {
            if s.proc != proc {
                continue;
            }
            let found = self
                .messaging
                .buffered
                .range((s.name.clone(), ck.clone(), 0)..=(s.name.clone(), ck.clone(), Key::MAX))
                .map(|(_, _, m)| *m)
                .find(|m| {
                    let msg = &self.messaging.messages[m];
                    msg.deadline > now && !msg.correlated.contains(&id)
                });
            if let Some(m) = found
                && best.is_none_or(|(b, _)| m < b)
            {
                best = Some((m, s.key));
            }
        }
        if let Some((m, sub)) = best {
            let msg = self.messaging.messages.get_mut(&m).expect("buffered");
            msg.correlated.push(id);
            let variables = msg.variables.clone();
            self.trigger_message_start(sub, m, &ck, variables);
        }
    }

    /// Opens the message start subscriptions of a newly deployed latest version, closing those
    /// of the version it replaces.
    pub(crate) fn open_message_start_subscriptions(
        &mut self,
        previous: Option<ProcIdx>,
        proc: ProcIdx,
    ) {
        if let Some(prev) = previous {
            let old: Vec<Key> = self
                .messaging
                .start_subscriptions
                .values()
                .filter(|s| s.proc == prev)
                .map(|s| s.key)
                .collect();
            for k in old {
                let s = self
                    .messaging
                    .start_subscriptions
                    .remove(&k)
                    .expect("exists");
                let value = start_subscription_value(&s);
                self.event(
                    ValueType::MessageStartEventSubscription,
                    OtherIntent::Deleted,
                    Some(k),
                    value,
                );
            }
        }
        for (element, name) in self.named_start_events(proc, EventDef::message_name) {
            let key = self.new_key();
            let s = MessageStartSubscription {
                key,
                proc,
                element,
                name,
            };
            let value = start_subscription_value(&s);
            self.event(
                ValueType::MessageStartEventSubscription,
                OtherIntent::Created,
                Some(key),
                value,
            );
            self.messaging.start_subscriptions.insert(key, s);
        }
    }
}

/// The record value of a message start event subscription (created, deleted).
pub(crate) fn start_subscription_value(s: &MessageStartSubscription) -> RecordValue {
    RecordValue::Subscription(Box::new(SubscriptionValue {
        proc: s.proc,
        process_instance_key: None,
        element_instance_key: None,
        element: s.element,
        message_name: s.name.clone(),
        correlation_key: Arc::from(""),
        message_key: None,
        interrupting: true,
        variables: None,
    }))
}
