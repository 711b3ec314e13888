//! Assertions on a run: [`Run::check`] and the `#[track_caller]` `assert_*` methods, which
//! panic with the [`AssertionFailure`]'s message at the caller's line.

use serde_json::{Map, Value};

use super::Run;
use crate::assertions::{
    AssertionFailure, Check, DecisionExpectation, ElementSelector, ElementState, ElementsState,
    IncidentExpectation, InstanceState, SubscriptionState, UserTaskExpectation, UserTaskSelector,
    VariableScope,
};
use crate::variables::{IntoVariables, Matching, variables_or_panic};

fn elements(ids: impl IntoIterator<Item = impl Into<ElementSelector>>) -> Vec<ElementSelector> {
    ids.into_iter().map(Into::into).collect()
}

#[track_caller]
fn object(v: impl IntoVariables) -> Map<String, Value> {
    // Moved, not copied: the document is ours.
    variables_or_panic(v).into_iter().collect()
}
impl Run {
    /// Runs a check (see [`Check`]).
    pub fn check(&self, check: &Check) -> Result<(), AssertionFailure> {
        self.read(|i| i.check_for_test(self.key, check))
    }

    #[track_caller]
    fn assert(&self, check: Check) -> &Self {
        if let Err(f) = self.check(&check) {
            panic!("{f}");
        }
        self
    }

    /// The process instance completed (the seed's `toHaveCompleted`).
    #[track_caller]
    pub fn assert_completed(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Completed))
    }

    /// The process instance is still active (and not suspended).
    #[track_caller]
    pub fn assert_active(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Active))
    }

    /// The process instance is suspended (Camunda 8.10; see [`suspend`](Self::suspend)).
    #[track_caller]
    pub fn assert_suspended(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Suspended))
    }

    /// The process instance was terminated (cancelled, or ended by a runtime instruction).
    #[track_caller]
    pub fn assert_terminated(&self) -> &Self {
        self.assert(Check::InstanceState(InstanceState::Terminated))
    }

    /// The run failed: it has an error (from a mock or the AI agent mock) or an active incident
    /// (the seed's `toHaveFailed()`).
    #[track_caller]
    pub fn assert_failed(&self) -> &Self {
        self.assert(Check::Failed {
            message_contains: None,
        })
    }

    /// The run failed with an error or incident message containing this text.
    #[track_caller]
    pub fn assert_failed_with(&self, message: &str) -> &Self {
        self.assert(Check::Failed {
            message_contains: Some(message.to_owned()),
        })
    }

    /// There is an active incident (here or in a called process).
    #[track_caller]
    pub fn assert_has_incidents(&self) -> &Self {
        self.assert(Check::HasActiveIncidents(true))
    }

    /// There is no active incident.
    #[track_caller]
    pub fn assert_no_incidents(&self) -> &Self {
        self.assert(Check::HasActiveIncidents(false))
    }

    /// An active incident like this exists:
    /// `IncidentExpectation::at("pay").of_type(ErrorType::JobNoRetries).message_contains("declined")`.
    #[track_caller]
    pub fn assert_incident(&self, incident: IncidentExpectation) -> &Self {
        self.assert(Check::Incident(incident))
    }

    /// Each element completed at least once, in any order (the seed's `toHavePassed`).
    #[track_caller]
    pub fn assert_passed(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::Completed,
        })
    }

    /// No element of the list completed (the seed's `toHaveNotPassed`).
    #[track_caller]
    pub fn assert_not_passed(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::NotCompleted,
        })
    }

    /// The elements completed in this order; others in between are ignored (the seed's
    /// `toHavePassedInOrder`, CPT's `hasCompletedElementsInOrder`).
    #[track_caller]
    pub fn assert_passed_in_order(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::CompletedInOrder,
        })
    }

    /// No element of the list was ever entered (CPT's `hasNotActivatedElements`).
    #[track_caller]
    pub fn assert_not_entered(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::NotActivated,
        })
    }

    /// Each element holds a token now (the seed's `toBeWaitingAt`, CPT's `hasActiveElements`).
    #[track_caller]
    pub fn assert_waiting_at(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::Active,
        })
    }

    /// These elements, and no other, hold tokens now (CPT's `hasActiveElementsExactly`).
    #[track_caller]
    pub fn assert_waiting_exactly_at(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::ActiveExactly,
        })
    }

    /// None of the elements holds a token now (CPT's `hasNoActiveElements`).
    #[track_caller]
    pub fn assert_not_waiting_at(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::NotActive,
        })
    }

    /// Each element was terminated at least once (CPT's `hasTerminatedElements`).
    #[track_caller]
    pub fn assert_terminated_elements(
        &self,
        ids: impl IntoIterator<Item = impl Into<ElementSelector>>,
    ) -> &Self {
        self.assert(Check::Elements {
            elements: elements(ids),
            state: ElementsState::Terminated,
        })
    }

    /// The element completed exactly `times` times (CPT's `hasCompletedElement(id, times)`).
    #[track_caller]
    pub fn assert_completed_times(&self, id: impl Into<ElementSelector>, times: usize) -> &Self {
        self.assert(Check::ElementCount {
            element: id.into(),
            state: ElementState::Completed,
            amount: times,
        })
    }

    /// The element has exactly `times` active instances (CPT's `hasActiveElement(id, times)`).
    #[track_caller]
    pub fn assert_active_times(&self, id: impl Into<ElementSelector>, times: usize) -> &Self {
        self.assert(Check::ElementCount {
            element: id.into(),
            state: ElementState::Active,
            amount: times,
        })
    }

    /// The element was terminated exactly `times` times.
    #[track_caller]
    pub fn assert_terminated_times(&self, id: impl Into<ElementSelector>, times: usize) -> &Self {
        self.assert(Check::ElementCount {
            element: id.into(),
            state: ElementState::Terminated,
            amount: times,
        })
    }

    /// Each listed process variable equals the value (numbers by value; unlisted variables are
    /// not checked) — the seed's `toHaveVariables`.
    #[track_caller]
    pub fn assert_variables(&self, expected: impl IntoVariables) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Root,
            expected: object(expected),
            matching: Matching::Exact,
        })
    }

    /// Each listed process variable matches partially: objects need only the listed keys,
    /// recursively.
    #[track_caller]
    pub fn assert_variables_match(&self, expected: impl IntoVariables) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Root,
            expected: object(expected),
            matching: Matching::Partial,
        })
    }

    /// These process variables exist.
    #[track_caller]
    pub fn assert_variable_names<S: Into<String>>(
        &self,
        names: impl IntoIterator<Item = S>,
    ) -> &Self {
        self.assert(Check::VariableNames {
            scope: VariableScope::Root,
            names: names.into_iter().map(Into::into).collect(),
        })
    }

    /// The local variables of the element's first instance equal these values.
    #[track_caller]
    pub fn assert_local_variables(
        &self,
        element: impl Into<ElementSelector>,
        expected: impl IntoVariables,
    ) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Local(element.into()),
            expected: object(expected),
            matching: Matching::Exact,
        })
    }

    /// The local variables of the element's first instance match these values partially.
    #[track_caller]
    pub fn assert_local_variables_match(
        &self,
        element: impl Into<ElementSelector>,
        expected: impl IntoVariables,
    ) -> &Self {
        self.assert(Check::Variables {
            scope: VariableScope::Local(element.into()),
            expected: object(expected),
            matching: Matching::Partial,
        })
    }

    /// The run waits for a message with this name (CPT's `isWaitingForMessage`).
    #[track_caller]
    pub fn assert_waiting_for_message(&self, name: &str) -> &Self {
        self.assert(Check::MessageSubscription {
            message_name: name.to_owned(),
            correlation_key: None,
            state: SubscriptionState::Waiting,
        })
    }

    /// The run does not wait for a message with this name.
    #[track_caller]
    pub fn assert_not_waiting_for_message(&self, name: &str) -> &Self {
        self.assert(Check::MessageSubscription {
            message_name: name.to_owned(),
            correlation_key: None,
            state: SubscriptionState::NotWaiting,
        })
    }

    /// A message with this name was correlated to the run (CPT's `hasCorrelatedMessage`).
    #[track_caller]
    pub fn assert_message_correlated(&self, name: &str) -> &Self {
        self.assert(Check::MessageSubscription {
            message_name: name.to_owned(),
            correlation_key: None,
            state: SubscriptionState::Correlated,
        })
    }

    /// A user task at this element (id) has these fields.
    #[track_caller]
    pub fn assert_user_task(&self, element_id: &str, expected: UserTaskExpectation) -> &Self {
        self.assert(Check::UserTask {
            task: UserTaskSelector {
                element_id: Some(element_id.to_owned()),
                name: None,
            },
            expected,
        })
    }

    /// The decision was evaluated with this output.
    #[track_caller]
    pub fn assert_decision(&self, decision_id: &str, output: Value) -> &Self {
        self.assert(Check::Decision {
            decision_id: decision_id.to_owned(),
            expected: DecisionExpectation {
                output: Some(output),
                ..Default::default()
            },
        })
    }
}
