//! Conditional event subscriptions and the variable changes not yet looked at.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::records::{Key, ProcIdx};

/// A conditional event subscription.
#[derive(Debug, Clone)]
pub(crate) struct ConditionalSubscription {
    pub(crate) key: Key,
    pub(crate) proc: ProcIdx,
    /// The element instance that subscribed (the catch event, the activity of a boundary event,
    /// the scope of an event sub-process); `None` for a root start event.
    pub(crate) owner: Option<Key>,
    pub(crate) element: ElementIdx,
    pub(crate) interrupting: bool,
    /// The variables whose changes re-evaluate the condition.
    pub(crate) variables: Arc<[Arc<str>]>,
    pub(crate) on_create: bool,
    pub(crate) on_update: bool,
}

/// A variable change, kept until the processing step ends.
#[derive(Debug, Clone)]
pub(crate) struct VariableChange {
    pub scope: Key,
    pub name: Arc<str>,
    pub created: bool,
}

/// Conditional subscriptions and the variable changes not yet looked at.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConditionalState {
    /// Subscriptions of element instances.
    pub(crate) subscriptions: BTreeMap<Key, ConditionalSubscription>,
    /// Root conditional start events of the latest versions.
    pub(crate) starts: BTreeMap<Key, ConditionalSubscription>,
    pub(crate) changes: Vec<VariableChange>,
}

impl ConditionalState {
    pub(crate) fn is_subscription(&self, key: Key) -> bool {
        self.subscriptions.contains_key(&key)
    }

    /// Whether variable changes need to be remembered (some instance subscription is open).
    pub(crate) fn watching(&self) -> bool {
        !self.subscriptions.is_empty()
    }
}
