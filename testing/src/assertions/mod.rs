//! The assertion core: [`Check`]s evaluated against one process instance, returning
//! `Result<(), AssertionFailure>`. The panicking `assert_*` methods of [`Run`](crate::Run) and
//! the CPT JSON runner are both built on `check`.
//!
//! Semantics follow Camunda Process Test, without polling (the engine has already run until it
//! waits): element counts are exact, "active exactly" means no other element is active,
//! "completed in order" is a subsequence of the completion order, root variables ignore local
//! ones, a local scope is the first instance of the element.
//!
//! Here: [`Check`], `check` and the element selector (the `Subject` a check looks at is in
//! `crate::subject`, which the explanation of a failure reads too). One file per check family,
//! each with its expectation types:
//! - `state` — the instance's state, elements active, completed, terminated, counted, in order.
//! - `variables` — variable names, values (exact or partial) and FEEL conditions, by scope.
//! - `incidents` — active incidents and whether the run failed.
//! - `messages` — message subscriptions waiting and messages correlated.
//! - `user_tasks` — user tasks and their fields.
//! - `decisions` — decision evaluations, from an instance or anywhere in the engine.
//! - `failure` — [`AssertionFailure`], the failure of a check, and its message.

mod decisions;
mod failure;
mod incidents;
mod messages;
mod state;
mod user_tasks;
mod variables;

use std::sync::Arc;

use baton_engine::runtime::State;
use serde_json::{Map, Value};

pub(crate) use crate::subject::Subject;
use crate::variables::Matching;

pub use decisions::{DecisionExpectation, check_decision};
pub use failure::AssertionFailure;
pub use incidents::IncidentExpectation;
pub use messages::SubscriptionState;
pub use state::{ElementState, ElementsState, InstanceState};
pub use user_tasks::{UserTaskExpectation, UserTaskSelector};
pub use variables::VariableScope;

/// An element, by id (the default) or by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElementSelector {
    Id(String),
    Name(String),
}

impl From<&str> for ElementSelector {
    fn from(id: &str) -> Self {
        ElementSelector::Id(id.to_owned())
    }
}

impl From<String> for ElementSelector {
    fn from(id: String) -> Self {
        ElementSelector::Id(id)
    }
}

impl From<&String> for ElementSelector {
    fn from(id: &String) -> Self {
        ElementSelector::Id(id.clone())
    }
}

impl ElementSelector {
    fn describe(&self) -> String {
        match self {
            ElementSelector::Id(id) => format!("\"{id}\""),
            ElementSelector::Name(n) => format!("the element named \"{n}\""),
        }
    }
}

/// One check. See the module documentation for the semantics.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Check {
    /// The process instance is in this state.
    InstanceState(InstanceState),
    /// There is (`true`) or is not (`false`) an active incident in the instance or the
    /// instances it called.
    HasActiveIncidents(bool),
    /// An active incident like this exists.
    Incident(IncidentExpectation),
    /// The run failed: a run error (mock, agent mock, rejected answer) or an active incident,
    /// with a message containing this text if given.
    Failed { message_contains: Option<String> },
    /// The elements are in this state.
    Elements {
        elements: Vec<ElementSelector>,
        state: ElementsState,
    },
    /// The element has exactly `amount` instances in this state.
    ElementCount {
        element: ElementSelector,
        state: ElementState,
        amount: usize,
    },
    /// These variables exist.
    VariableNames {
        scope: VariableScope,
        names: Vec<String>,
    },
    /// These variables have these values (others are not checked).
    Variables {
        scope: VariableScope,
        expected: Map<String, Value>,
        matching: Matching,
    },
    /// The instance waits for, does not wait for, or received a message with this name (and
    /// correlation key, if given).
    MessageSubscription {
        message_name: String,
        correlation_key: Option<String>,
        state: SubscriptionState,
    },
    /// A user task exists (in the instance or one it called) and has these fields.
    UserTask {
        task: UserTaskSelector,
        expected: UserTaskExpectation,
    },
    /// A decision was evaluated (by the instance, one it called, or standalone) with this result.
    Decision {
        decision_id: String,
        expected: DecisionExpectation,
    },
    /// The variable exists and the FEEL expression, evaluated with the context
    /// `{<name>: <value>}` at the engine's clock, is `true` (CPT's `satisfiesExpression`).
    VariableSatisfies {
        scope: VariableScope,
        name: String,
        expression: String,
    },
}

/// Runs one check.
pub(crate) fn check(s: &Subject<'_>, check: &Check) -> Result<(), AssertionFailure> {
    let outcome = match check {
        Check::InstanceState(state) => s.check_state(*state),
        Check::HasActiveIncidents(yes) => s.check_has_incidents(*yes),
        Check::Incident(e) => s.check_incident(e),
        Check::Failed { message_contains } => s.check_failed(message_contains.as_deref()),
        Check::Elements { elements, state } => s.check_elements(elements, *state),
        Check::ElementCount {
            element,
            state,
            amount,
        } => s.check_count(element, *state, *amount),
        Check::VariableNames { scope, names } => s.check_variable_names(scope, names),
        Check::Variables {
            scope,
            expected,
            matching,
        } => s.check_variables(scope, expected, *matching),
        Check::MessageSubscription {
            message_name,
            correlation_key,
            state,
        } => s.check_subscription(message_name, correlation_key.as_deref(), *state),
        Check::UserTask { task, expected } => s.check_user_task(task, expected),
        Check::Decision {
            decision_id,
            expected,
        } => s.check_decision(decision_id, expected),
        Check::VariableSatisfies {
            scope,
            name,
            expression,
        } => s.check_variable_satisfies(scope, name, expression),
    };
    outcome.map_err(|(expected, actual)| AssertionFailure {
        expected,
        actual,
        explanation: crate::explain::explain(s),
    })
}

type Outcome = Result<(), (String, String)>;

/// See [`Subject::who`].
struct Who<'s, 'a>(&'s Subject<'a>);

impl std::fmt::Display for Who<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process \"{}\"", self.0.process_id())
    }
}

fn quoted(ids: &[impl AsRef<str>]) -> String {
    ids.iter()
        .map(|i| format!("\"{}\"", i.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
fn state_word(state: Option<State>) -> &'static str {
    match state {
        None => "not created",
        Some(State::Completed) => "completed",
        Some(State::Terminated) => "terminated",
        Some(State::Terminating) => "terminating",
        Some(_) => "active",
    }
}

impl<'a> Subject<'a> {
    /// `process "<id>"`, written only when a message is (a passing check formats nothing).
    fn who(&self) -> Who<'_, '_> {
        Who(self)
    }

    /// The ids an element selector stands for in this instance's process.
    fn ids(&self, sel: &ElementSelector) -> Vec<Arc<str>> {
        match sel {
            ElementSelector::Id(id) => vec![Arc::from(id.as_str())],
            ElementSelector::Name(name) => {
                let Some(log) = self.log() else {
                    return Vec::new();
                };
                let p = crate::history::process_at(self.engine, log.proc);
                p.model()
                    .elements
                    .iter()
                    .filter(|e| e.name.as_deref() == Some(name.as_str()))
                    .map(|e| Arc::from(e.id.as_str()))
                    .collect()
            }
        }
    }

    fn matches(&self, sel: &ElementSelector, id: &str) -> bool {
        match sel {
            ElementSelector::Id(want) => want == id,
            ElementSelector::Name(_) => self.ids(sel).iter().any(|i| &**i == id),
        }
    }
}
