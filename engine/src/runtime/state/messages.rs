//! Message subscriptions (both sides), buffered messages, message start event subscriptions
//! and the locks of instances started by a message.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::records::{Key, ProcIdx, RecordValue, VariableDocument};

/// The process side of a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProcessSide {
    /// CREATING written, CREATED not yet.
    Opening,
    Opened,
    /// DELETING written.
    Closing,
    /// Removed (an interrupting subscription after its correlation).
    Gone,
}

/// A message subscription of an element instance (both sides).
#[derive(Debug, Clone)]
pub(crate) struct MessageSubscription {
    /// The `PROCESS_MESSAGE_SUBSCRIPTION` key.
    pub(crate) key: Key,
    /// The `MESSAGE_SUBSCRIPTION` key, once the message side exists.
    pub(crate) message_side: Option<Key>,
    pub(crate) proc: ProcIdx,
    pub(crate) process_instance_key: Key,
    /// The element instance that opened it: the catch event or receive task, the activity of a
    /// boundary event, the scope of an event sub-process, the event-based gateway.
    pub(crate) element_instance_key: Key,
    /// The catch event (or receive task).
    pub(crate) element: ElementIdx,
    pub(crate) name: Arc<str>,
    pub(crate) correlation_key: Arc<str>,
    pub(crate) interrupting: bool,
    pub(crate) process_side: ProcessSide,
    /// The message being correlated (message side).
    pub(crate) correlating: Option<Key>,
    pub(crate) last_correlated: Option<Key>,
}

/// A published message while it is buffered.
#[derive(Debug, Clone)]
pub(crate) struct StoredMessage {
    pub(crate) key: Key,
    pub(crate) name: Arc<str>,
    pub(crate) correlation_key: Arc<str>,
    pub(crate) time_to_live: i64,
    pub(crate) deadline: i64,
    pub(crate) message_id: Option<Arc<str>>,
    pub(crate) variables: Arc<VariableDocument>,
    /// BPMN process ids the message was correlated to (at most once each).
    pub(crate) correlated: Vec<Arc<str>>,
}

/// A message start event subscription of the latest version of a process.
#[derive(Debug, Clone)]
pub(crate) struct MessageStartSubscription {
    pub(crate) key: Key,
    pub(crate) proc: ProcIdx,
    pub(crate) element: ElementIdx,
    pub(crate) name: Arc<str>,
}

/// A message correlated to a process instance (kept for assertions).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CorrelatedMessageView {
    pub message_key: Key,
    pub message_name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub process_instance_key: Key,
    /// The catch event or start event that received it.
    pub element_id: Arc<str>,
    /// The element instance whose subscription received it (`None` for a start event).
    pub element_instance_key: Option<Key>,
}

/// The message state of an engine.
#[derive(Debug, Clone, Default)]
pub(crate) struct MessageState {
    pub(crate) subscriptions: BTreeMap<Key, MessageSubscription>,
    /// Message side, by (name, correlation key, element instance, subscription): Zeebe visits
    /// them in this order.
    pub(crate) by_name_and_key: BTreeSet<(Arc<str>, Arc<str>, Key, Key)>,
    pub(crate) messages: BTreeMap<Key, StoredMessage>,
    /// Buffered messages by (name, correlation key, message key): FIFO.
    pub(crate) buffered: BTreeSet<(Arc<str>, Arc<str>, Key)>,
    pub(crate) start_subscriptions: BTreeMap<Key, MessageStartSubscription>,
    /// (BPMN process id, correlation key) of instances started by a message that are active.
    pub(crate) start_locks: BTreeSet<(Arc<str>, Arc<str>)>,
    /// The lock each such process instance holds.
    pub(crate) lock_of_instance: BTreeMap<Key, (Arc<str>, Arc<str>)>,
    /// Messages correlated, per process instance.
    pub(crate) correlated: BTreeMap<Key, Vec<CorrelatedMessageView>>,
    /// The synchronous correlate call being processed.
    pub(crate) correlate_request: Option<CorrelateRequest>,
}

impl MessageState {
    pub(crate) fn is_message_subscription(&self, key: Key) -> bool {
        self.subscriptions.contains_key(&key)
    }
}

/// A synchronous correlate call in progress: its message, the record value to answer with and
/// the process instance it reached (once known).
#[derive(Debug, Clone)]
pub(crate) struct CorrelateRequest {
    pub(crate) message: Key,
    pub(crate) value: RecordValue,
    pub(crate) reached: Option<Key>,
}
