//! Camunda user tasks as the engine keeps them, and their lifecycle as a table of transitions
//! (the record intents each writes).

use std::sync::Arc;

use crate::runtime::compile::definitions::ListenerDef;

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
    /// The task as it is (Zeebe's persisted user task): a transition in progress changes it only
    /// when it finishes.
    pub value: UserTaskValue,
    /// A transition waiting for its task listeners (creating, assigning, updating, completing,
    /// canceling).
    pub(crate) pending: Option<Box<PendingTransition>>,
    /// The assignee the process gave the task, held aside while the task is created and
    /// assigned to it (Zeebe's initial assignee): a creating listener may not correct it.
    pub(crate) initial_assignee: Option<Arc<str>>,
}

impl UserTask {
    /// Zeebe's lifecycle state of the task (`CREATING`, `CREATED`, `ASSIGNING`, ...), as its
    /// rejections name it.
    pub(crate) fn lifecycle_state(&self) -> &'static str {
        match (&self.pending, self.state) {
            (Some(p), _) => p.event.as_str(),
            (None, UserTaskState::Created) => "CREATED",
            (None, UserTaskState::Completed) => "COMPLETED",
            (None, UserTaskState::Canceled) => "CANCELED",
            (None, UserTaskState::Failed) => "FAILED",
        }
    }
}

/// A user task transition in progress: its listener event, how many of its listeners have
/// completed, and the task as the transition makes it (Zeebe's intermediate state: the new
/// assignee or fields, the action, the completion's variables, the listeners' corrections).
#[derive(Debug, Clone)]
pub(crate) struct PendingTransition {
    pub(crate) event: ListenerEventType,
    /// The listeners of the transition, global and the task's own, as they were when it began.
    pub(crate) listeners: Arc<[ListenerDef]>,
    pub(crate) next_listener: usize,
    pub(crate) record: UserTaskValue,
    /// An update started by variables set on the task's scope: they are merged when it
    /// finishes.
    pub(crate) variable_update: Option<VariableUpdate>,
}

/// Variables set on a user task's scope, waiting for the update transition they started.
#[derive(Debug, Clone)]
pub(crate) struct VariableUpdate {
    /// The key of the `VARIABLE_DOCUMENT` records.
    pub(crate) key: Key,
    pub(crate) variables: Arc<VariableDocument>,
    pub(crate) local: bool,
}

/// One kind of user task transition, as a row of the user task lifecycle: the record that
/// starts it (its task listeners run then), the record that finishes it, the record a denying
/// task listener writes (`None`: it cannot be denied), and the state the task is in once it is
/// finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TaskTransition {
    pub(crate) starting: OtherIntent,
    pub(crate) finished: OtherIntent,
    pub(crate) denied: Option<OtherIntent>,
    pub(crate) state_after: UserTaskState,
}

/// The user task lifecycle (Zeebe's `UserTaskIntent`s), one row per transition: every
/// transition starts and ends in CREATED except completing and canceling.
pub(crate) fn task_transition(event: ListenerEventType) -> TaskTransition {
    use ListenerEventType as L;
    use OtherIntent as I;
    let row = |starting, finished, denied, state_after| TaskTransition {
        starting,
        finished,
        denied,
        state_after,
    };
    match event {
        L::Creating => row(I::Creating, I::Created, None, UserTaskState::Created),
        L::Assigning => row(
            I::Assigning,
            I::Assigned,
            Some(I::AssignmentDenied),
            UserTaskState::Created,
        ),
        L::Updating => row(
            I::Updating,
            I::Updated,
            Some(I::UpdateDenied),
            UserTaskState::Created,
        ),
        L::Completing => row(
            I::Completing,
            I::Completed,
            Some(I::CompletionDenied),
            UserTaskState::Completed,
        ),
        _ => row(I::Canceling, I::Canceled, None, UserTaskState::Canceled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ListenerEventType as L;

    #[test]
    fn only_completing_and_canceling_leave_created() {
        for event in [L::Creating, L::Assigning, L::Updating] {
            assert_eq!(task_transition(event).state_after, UserTaskState::Created);
        }
        assert_eq!(
            task_transition(L::Completing).state_after,
            UserTaskState::Completed
        );
        assert_eq!(
            task_transition(L::Canceling).state_after,
            UserTaskState::Canceled
        );
    }

    #[test]
    fn creating_and_canceling_cannot_be_denied() {
        assert_eq!(task_transition(L::Creating).denied, None);
        assert_eq!(task_transition(L::Canceling).denied, None);
        assert_eq!(
            task_transition(L::Completing).denied,
            Some(OtherIntent::CompletionDenied)
        );
    }
}
