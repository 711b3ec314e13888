//! Compensation subscriptions of completed activities and the handlers running.

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::records::{Key, ProcIdx};

/// A completed activity that can be compensated.
#[derive(Debug, Clone)]
pub(crate) struct CompensationSubscription {
    pub(crate) key: Key,
    pub(crate) proc: ProcIdx,
    pub(crate) process_instance_key: Key,
    pub(crate) activity: ElementIdx,
    pub(crate) activity_instance_key: Key,
    pub(crate) handler: ElementIdx,
    /// The flow scopes the activity was in, innermost first.
    pub(crate) scopes: Arc<[Key]>,
    /// The throw event compensating it, once triggered.
    pub(crate) thrown_by: Option<Key>,
}

/// Compensation subscriptions and the handlers running.
#[derive(Debug, Clone, Default)]
pub(crate) struct CompensationState {
    pub(crate) subscriptions: Vec<CompensationSubscription>,
    /// Handler instance → the throw event waiting for it.
    pub(crate) handlers: rustc_hash::FxHashMap<Key, Key>,
}

impl CompensationState {
    pub(crate) fn is_empty(&self) -> bool {
        self.subscriptions.is_empty()
    }
}
