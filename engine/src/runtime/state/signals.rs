//! Signal subscriptions.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::records::{Key, ProcIdx};

/// A signal subscription.
#[derive(Debug, Clone)]
pub(crate) struct SignalSubscription {
    pub(crate) key: Key,
    pub(crate) name: Arc<str>,
    pub(crate) proc: ProcIdx,
    pub(crate) element: ElementIdx,
    /// The element instance that subscribed; `None` for a signal start event.
    pub(crate) owner: Option<Key>,
    /// Removed while its process instance is suspended (`SIGNAL_SUBSCRIPTION DELETED`), kept
    /// to be created again when it resumes: a signal broadcast meanwhile does not reach it.
    pub(crate) suspended: bool,
}

/// Signal subscriptions by key (Zeebe visits them by name, then key).
pub(crate) type SignalSubscriptions = BTreeMap<Key, SignalSubscription>;
