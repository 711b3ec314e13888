//! Signals: broadcast (through [`Engine::broadcast_signal`], or by a signal throw or end event)
//! to every subscription that exists at that instant: signal start events of the latest process
//! versions, intermediate catch events, boundary events, event sub-process starts and events
//! after an event-based gateway. Nothing is buffered.

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    Key, OtherIntent, ProcIdx, RecordValue, Rejection, SignalValue, ValueType, VariableDocument,
};
use crate::runtime::state::signals::SignalSubscription;
use crate::runtime::step::FollowUp;

/// An open signal subscription (for assertions).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SignalSubscriptionView {
    pub key: Key,
    pub signal_name: Arc<str>,
    pub bpmn_process_id: Arc<str>,
    /// The catch event or start event.
    pub element_id: Arc<str>,
    /// The element instance that subscribed (`None` for a start event).
    pub element_instance_key: Option<Key>,
    pub process_instance_key: Option<Key>,
}

impl Engine {
    pub(crate) fn signal_subscription_value(&self, s: &SignalSubscription) -> RecordValue {
        RecordValue::Signal(Box::new(SignalValue {
            signal_name: s.name.clone(),
            proc: Some(s.proc),
            element: Some(s.element),
            catch_event_instance_key: s.owner,
            variables: None,
        }))
    }

    /// Opens a signal subscription of the element instance `owner` for `event`.
    pub(crate) fn open_signal_subscription(
        &mut self,
        owner: Key,
        event: ElementIdx,
        name: Arc<str>,
    ) {
        let proc = self.instances[&owner].proc;
        let key = self.add_signal_subscription(name, proc, event, Some(owner));
        if let Some(i) = self.instances.get_mut(&owner) {
            i.subscriptions.push(key);
        }
    }

    /// Writes `SIGNAL_SUBSCRIPTION CREATED` and keeps the subscription; returns its key.
    fn add_signal_subscription(
        &mut self,
        name: Arc<str>,
        proc: ProcIdx,
        element: ElementIdx,
        owner: Option<Key>,
    ) -> Key {
        let key = self.new_key();
        let s = SignalSubscription {
            key,
            name,
            proc,
            element,
            owner,
            suspended: false,
        };
        let value = self.signal_subscription_value(&s);
        self.event(
            ValueType::SignalSubscription,
            OtherIntent::Created,
            Some(key),
            value,
        );
        self.signal_subscriptions.insert(key, s);
        key
    }

    /// Closes a signal subscription (its element instance is left, or its process version is
    /// replaced).
    pub(crate) fn close_signal_subscription(&mut self, key: Key) {
        // A suspended subscription's DELETED was written when its instance was suspended.
        if let Some(s) = self.signal_subscriptions.remove(&key)
            && !s.suspended
        {
            let value = self.signal_subscription_value(&s);
            self.event(
                ValueType::SignalSubscription,
                OtherIntent::Deleted,
                Some(key),
                value,
            );
        }
    }

    /// A signal throw or end event: the signal (with the event's local variables) is broadcast
    /// by a follow-up command.
    pub(crate) fn throw_signal(&mut self, thrower: Key, name: &str) {
        let variables: VariableDocument = self
            .instances
            .get(&thrower)
            .map(|i| {
                i.vars
                    .iter()
                    .map(|v| (v.name.to_string(), v.value.to_json()))
                    .collect()
            })
            .unwrap_or_default();
        self.queue.push_back(FollowUp::BroadcastSignal(Box::new((
            Arc::from(name),
            Arc::new(variables),
        ))));
    }

    /// Carries out the command of [`Engine::broadcast_signal`].
    pub(crate) fn apply_broadcast_signal(
        &mut self,
        name: &str,
        variables: VariableDocument,
    ) -> Result<Key, Rejection> {
        let start = self.begin();
        let key = self.broadcast(Arc::from(name), Arc::new(variables));
        self.run(start)?;
        Ok(key)
    }

    /// `SIGNAL BROADCASTED`, then every subscription with the name is triggered, in key order:
    /// a start event starts a new instance, a catch event of an instance that can still take
    /// the event is triggered.
    pub(crate) fn broadcast(&mut self, name: Arc<str>, variables: Arc<VariableDocument>) -> Key {
        let key = self.new_key();
        self.event(
            ValueType::Signal,
            OtherIntent::Broadcasted,
            Some(key),
            RecordValue::Signal(Box::new(SignalValue {
                signal_name: name.clone(),
                proc: None,
                element: None,
                catch_event_instance_key: None,
                variables: Some(variables.clone()),
            })),
        );
        let matching: Vec<SignalSubscription> = self
            .signal_subscriptions
            .values()
            .filter(|s| s.name == name && !s.suspended)
            .cloned()
            .collect();
        let vars = (!variables.is_empty()).then_some(variables);
        for s in matching {
            match s.owner {
                None => {
                    let pi = self.new_key();
                    self.start_instance_at_event(s.proc, pi, s.element, vars.clone());
                }
                Some(owner) => {
                    if self.signal_subscriptions.contains_key(&s.key) && self.can_trigger(owner) {
                        self.trigger_event(owner, s.element, vars.clone());
                    }
                }
            }
        }
        key
    }

    /// Opens the signal start subscriptions of a newly deployed latest version, closing those
    /// of the version it replaces.
    pub(crate) fn open_signal_start_subscriptions(
        &mut self,
        previous: Option<ProcIdx>,
        proc: ProcIdx,
    ) {
        if let Some(prev) = previous {
            let old: Vec<Key> = self
                .signal_subscriptions
                .values()
                .filter(|s| s.proc == prev && s.owner.is_none())
                .map(|s| s.key)
                .collect();
            for k in old {
                self.close_signal_subscription(k);
            }
        }
        for (element, name) in self.named_start_events(proc, EventDef::signal_name) {
            self.add_signal_subscription(name, proc, element, None);
        }
    }

    /// The open signal subscriptions (start events and catch events), by key.
    pub fn signal_subscriptions(&self) -> Vec<SignalSubscriptionView> {
        self.signal_subscriptions
            .values()
            .filter(|s| !s.suspended)
            .map(|s| {
                let p = self.process(s.proc);
                SignalSubscriptionView {
                    key: s.key,
                    signal_name: s.name.clone(),
                    bpmn_process_id: p.bpmn_process_id.clone(),
                    element_id: p.element(s.element).id.clone(),
                    element_instance_key: s.owner,
                    process_instance_key: s
                        .owner
                        .and_then(|o| self.instances.get(&o))
                        .map(|i| i.process_instance_key),
                }
            })
            .collect()
    }
}
