//! Camunda user tasks as the engine keeps them, and the record intents of their transitions.

use std::sync::Arc;

use crate::runtime::records::{
    Key, ListenerEventType, OtherIntent, UserTaskValue, VariableDocument,
};

/// The state of a Camunda user task, as CPT asserts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum UserTaskState {
    Created,
    Completed,
    Canceled,
    Failed,
}

/// A Camunda user task.
#[derive(Debug, Clone)]
pub struct UserTask {
    pub key: Key,
    pub state: UserTaskState,
    pub value: UserTaskValue,
    /// A transition waiting for its task listeners (creating, assigning, updating, completing,
    /// canceling).
    pub(crate) pending: Option<Box<PendingTransition>>,
}

/// A user task transition in progress: its listener event, the next listener to run, and what
/// the transition carries (the completion's variables, the new assignee, the changes).
#[derive(Debug, Clone)]
pub(crate) struct PendingTransition {
    pub(crate) event: ListenerEventType,
    pub(crate) next_listener: usize,
    pub(crate) variables: Arc<VariableDocument>,
    /// The task as it was before the transition (restored when it is denied).
    pub(crate) before: UserTaskValue,
}

pub(crate) fn intents(event: ListenerEventType) -> (OtherIntent, OtherIntent, Option<OtherIntent>) {
    use ListenerEventType as L;
    match event {
        L::Creating => (OtherIntent::Creating, OtherIntent::Created, None),
        L::Assigning => (
            OtherIntent::Assigning,
            OtherIntent::Assigned,
            Some(OtherIntent::AssignmentDenied),
        ),
        L::Updating => (
            OtherIntent::Updating,
            OtherIntent::Updated,
            Some(OtherIntent::UpdateDenied),
        ),
        L::Completing => (
            OtherIntent::Completing,
            OtherIntent::Completed,
            Some(OtherIntent::CompletionDenied),
        ),
        _ => (OtherIntent::Canceling, OtherIntent::Canceled, None),
    }
}
