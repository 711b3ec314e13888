//! Signals: broadcast (through [`Engine::broadcast_signal`], or by a signal throw or end event)
//! to every subscription that exists at that instant: signal start events of the latest process
//! versions, intermediate catch events, boundary events, event sub-process starts and events
//! after an event-based gateway. Nothing is buffered.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value as Json;

use super::Engine;
use super::executable::EventDef;
use super::records::{
    Key, OtherIntent, ProcIdx, RecordValue, Rejection, SignalValue, ValueType, VariableDocument,
};
use super::step::FollowUp;
use crate::model::ElementIdx;

/// A signal subscription.
#[derive(Debug, Clone)]
pub(crate) struct SignalSubscription {
    key: Key,
    name: Arc<str>,
    proc: ProcIdx,
    element: ElementIdx,
    /// The element instance that subscribed; `None` for a signal start event.
    owner: Option<Key>,
}

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

/// Signal subscriptions by key (Zeebe visits them by name, then key).
pub(crate) type SignalSubscriptions = BTreeMap<Key, SignalSubscription>;

impl Engine {
    fn signal_subscription_value(&self, s: &SignalSubscription) -> RecordValue {
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
        let key = self.new_key();
        let s = SignalSubscription {
            key,
            name,
            proc,
            element: event,
            owner: Some(owner),
        };
        let value = self.signal_subscription_value(&s);
        self.event(
            ValueType::SignalSubscription,
            OtherIntent::Created,
            Some(key),
            value,
        );
        self.signal_subscriptions.insert(key, s);
        if let Some(i) = self.instances.get_mut(&owner) {
            i.subscriptions.push(key);
        }
    }

    /// Closes a signal subscription (its element instance is left, or its process version is
    /// replaced).
    pub(crate) fn close_signal_subscription(&mut self, key: Key) {
        if let Some(s) = self.signal_subscriptions.remove(&key) {
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
                    .map(|v| (v.name.to_string(), (*v.value).clone()))
                    .collect()
            })
            .unwrap_or_default();
        self.queue.push_back(FollowUp::BroadcastSignal(Box::new((
            Arc::from(name),
            Arc::new(variables),
        ))));
    }

    /// Broadcasts a signal to the subscriptions open now; returns the signal's key.
    pub fn broadcast_signal(
        &mut self,
        name: &str,
        variables: VariableDocument,
    ) -> Result<Key, Rejection> {
        self.record(|| super::Command::BroadcastSignal {
            name: name.to_owned(),
            variables: variables.clone(),
        });
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
            .filter(|s| s.name == name)
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
        let p = self.process(proc).clone();
        for &e in &p.event_start_events {
            let EventDef::Signal { name } = &p.element(e).event else {
                continue;
            };
            // Start event signal names are evaluated at deployment, without variables.
            let name = match name {
                Some(x) => match self.eval(x, 0, None) {
                    Ok(Json::String(s)) => s,
                    _ => x.text(),
                },
                None => String::new(),
            };
            let key = self.new_key();
            let s = SignalSubscription {
                key,
                name: Arc::from(name.as_str()),
                proc,
                element: e,
                owner: None,
            };
            let value = self.signal_subscription_value(&s);
            self.event(
                ValueType::SignalSubscription,
                OtherIntent::Created,
                Some(key),
                value,
            );
            self.signal_subscriptions.insert(key, s);
        }
    }

    /// The open signal subscriptions (start events and catch events), by key.
    pub fn signal_subscriptions(&self) -> Vec<SignalSubscriptionView> {
        self.signal_subscriptions
            .values()
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
