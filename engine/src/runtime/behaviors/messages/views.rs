//! What the message state looks like from outside (assertions: waiting for a message,
//! correlated, buffered).

use std::sync::Arc;

use crate::runtime::engine::Engine;
use crate::runtime::records::{Key, VariableDocument};
use crate::runtime::state::messages::{CorrelatedMessageView, ProcessSide};

/// An open message subscription (assertions: "is waiting for message").
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MessageSubscriptionView {
    pub key: Key,
    pub process_instance_key: Key,
    pub element_instance_key: Key,
    pub bpmn_process_id: Arc<str>,
    /// The catch event (or receive task).
    pub element_id: Arc<str>,
    pub message_name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub interrupting: bool,
}

/// A buffered message.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BufferedMessageView {
    pub key: Key,
    pub name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub deadline: i64,
    pub message_id: Option<Arc<str>>,
    pub variables: Arc<VariableDocument>,
}

impl Engine {
    /// The open message subscriptions of a process instance (its elements and their scopes), by
    /// key.
    pub fn message_subscriptions(&self, process_instance_key: Key) -> Vec<MessageSubscriptionView> {
        self.messaging
            .subscriptions
            .values()
            .filter(|s| {
                s.process_instance_key == process_instance_key
                    && matches!(s.process_side, ProcessSide::Opening | ProcessSide::Opened)
            })
            .map(|s| {
                let p = self.process(s.proc);
                MessageSubscriptionView {
                    key: s.key,
                    process_instance_key: s.process_instance_key,
                    element_instance_key: s.element_instance_key,
                    bpmn_process_id: p.bpmn_process_id.clone(),
                    element_id: p.element(s.element).id.clone(),
                    message_name: s.name.clone(),
                    correlation_key: s.correlation_key.clone(),
                    interrupting: s.interrupting,
                }
            })
            .collect()
    }

    /// Every open message subscription, by key.
    pub fn all_message_subscriptions(&self) -> Vec<MessageSubscriptionView> {
        let mut pis: Vec<Key> = self
            .messaging
            .subscriptions
            .values()
            .map(|s| s.process_instance_key)
            .collect();
        pis.sort_unstable();
        pis.dedup();
        let mut out: Vec<MessageSubscriptionView> = pis
            .into_iter()
            .flat_map(|pi| self.message_subscriptions(pi))
            .collect();
        out.sort_by_key(|s| s.key);
        out
    }

    /// The messages correlated to a process instance, in correlation order (a message that
    /// started it comes first).
    pub fn correlated_messages(&self, process_instance_key: Key) -> Vec<CorrelatedMessageView> {
        self.messaging
            .correlated
            .get(&process_instance_key)
            .cloned()
            .unwrap_or_default()
    }

    /// Messages buffered now, oldest first.
    pub fn buffered_messages(&self) -> Vec<BufferedMessageView> {
        self.messaging
            .messages
            .values()
            .map(|m| BufferedMessageView {
                key: m.key,
                name: m.name.clone(),
                correlation_key: m.correlation_key.clone(),
                deadline: m.deadline,
                message_id: m.message_id.clone(),
                variables: m.variables.clone(),
            })
            .collect()
    }

    /// Message names the latest process versions start on: (BPMN process id, start event id,
    /// message name).
    pub fn message_start_subscriptions(&self) -> Vec<(Arc<str>, Arc<str>, Arc<str>)> {
        self.messaging
            .start_subscriptions
            .values()
            .map(|s| {
                let p = self.process(s.proc);
                (
                    p.bpmn_process_id.clone(),
                    p.element(s.element).id.clone(),
                    s.name.clone(),
                )
            })
            .collect()
    }
}
