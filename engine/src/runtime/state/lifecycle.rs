//! Element lifecycles, written once as transition tables per element family.
//!
//! Every state change of an element instance goes through [`check`]; a transition the table does
//! not allow is an engine error that names the element and both states (it means a bug in the
//! engine, never bad input, so it surfaces as an incident rather than a panic).

use crate::runtime::records::{BpmnElementType, ProcessInstanceIntent};

/// The state of an element instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    Activating,
    Activated,
    Completing,
    Completed,
    Terminating,
    Terminated,
}

impl State {
    /// The record intent that announces this state.
    pub fn intent(self) -> ProcessInstanceIntent {
        match self {
            State::Activating => ProcessInstanceIntent::ElementActivating,
            State::Activated => ProcessInstanceIntent::ElementActivated,
            State::Completing => ProcessInstanceIntent::ElementCompleting,
            State::Completed => ProcessInstanceIntent::ElementCompleted,
            State::Terminating => ProcessInstanceIntent::ElementTerminating,
            State::Terminated => ProcessInstanceIntent::ElementTerminated,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            State::Activating => "ACTIVATING",
            State::Activated => "ACTIVATED",
            State::Completing => "COMPLETING",
            State::Completed => "COMPLETED",
            State::Terminating => "TERMINATING",
            State::Terminated => "TERMINATED",
        }
    }

    /// Not yet completed or terminated.
    pub fn is_active(self) -> bool {
        !matches!(self, State::Completed | State::Terminated)
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Element families: elements of one family share a lifecycle table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Process, sub-processes, call activity, multi-instance body, ad-hoc inner instance: wait
    /// for children.
    Container,
    /// Tasks: may wait in ACTIVATED for a job, a user, a message.
    Activity,
    /// Gateways: pass through (the event-based gateway waits in ACTIVATED).
    Gateway,
    /// Events: catch events wait in ACTIVATED; throw, start and end events pass through.
    Event,
}

impl Family {
    pub fn of(element_type: BpmnElementType) -> Family {
        use BpmnElementType as T;
        match element_type {
            T::Process
            | T::SubProcess
            | T::EventSubProcess
            | T::AdHocSubProcess
            | T::AdHocSubProcessInnerInstance
            | T::MultiInstanceBody
            | T::CallActivity => Family::Container,
            T::ExclusiveGateway
            | T::InclusiveGateway
            | T::ParallelGateway
            | T::EventBasedGateway => Family::Gateway,
            T::StartEvent
            | T::IntermediateCatchEvent
            | T::IntermediateThrowEvent
            | T::BoundaryEvent
            | T::EndEvent => Family::Event,
            _ => Family::Activity,
        }
    }
}

/// The transition table of a family: may an instance in `from` (`None`: not yet created) go
/// to `to`?
pub fn can_transition(family: Family, from: Option<State>, to: State) -> bool {
    use State::*;
    // Every family shares the core of Zeebe's `ProcessInstanceLifecycle`; the rows differ where a
    // family never takes a path (a gateway is never terminated while completing: it completes in
    // the same step it starts completing).
    match (from, to) {
        (None, Activating) => true,
        (Some(Activating), Activated | Terminating) => true,
        (Some(Activated), Completing | Terminating) => true,
        (Some(Completing), Completed) => true,
        (Some(Completing), Terminating) => family != Family::Gateway,
        (Some(Terminating), Terminated) => true,
        _ => false,
    }
}

/// An impossible transition: names the element, both states and the family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransitionError {
    pub element_id: String,
    pub element_type: BpmnElementType,
    pub from: Option<State>,
    pub to: State,
}

impl std::fmt::Display for TransitionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.from {
            Some(from) => write!(
                f,
                "element '{}' ({}) cannot go from {} to {}",
                self.element_id, self.element_type, from, self.to
            ),
            None => write!(
                f,
                "element '{}' ({}) cannot go from (not created) to {}",
                self.element_id, self.element_type, self.to
            ),
        }
    }
}

/// Checks a transition against the family's table.
pub fn check(
    element_id: &str,
    element_type: BpmnElementType,
    from: Option<State>,
    to: State,
) -> Result<(), TransitionError> {
    if can_transition(Family::of(element_type), from, to) {
        Ok(())
    } else {
        Err(TransitionError {
            element_id: element_id.to_owned(),
            element_type,
            from,
            to,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_paths() {
        for family in [
            Family::Container,
            Family::Activity,
            Family::Gateway,
            Family::Event,
        ] {
            assert!(can_transition(family, None, State::Activating));
            assert!(can_transition(
                family,
                Some(State::Activating),
                State::Activated
            ));
            assert!(can_transition(
                family,
                Some(State::Activated),
                State::Completing
            ));
            assert!(can_transition(
                family,
                Some(State::Completing),
                State::Completed
            ));
            assert!(can_transition(
                family,
                Some(State::Activated),
                State::Terminating
            ));
            assert!(can_transition(
                family,
                Some(State::Terminating),
                State::Terminated
            ));
        }
    }

    #[test]
    fn impossible_transition_names_both_states() {
        let err = check(
            "Task_1",
            BpmnElementType::ServiceTask,
            Some(State::Completed),
            State::Terminating,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "element 'Task_1' (SERVICE_TASK) cannot go from COMPLETED to TERMINATING"
        );
        assert!(
            check(
                "g",
                BpmnElementType::ExclusiveGateway,
                Some(State::Completing),
                State::Terminating
            )
            .is_err()
        );
        assert!(
            check(
                "t",
                BpmnElementType::Task,
                Some(State::Activating),
                State::Completing
            )
            .is_err()
        );
        assert!(check("p", BpmnElementType::Process, None, State::Completed).is_err());
    }
}
