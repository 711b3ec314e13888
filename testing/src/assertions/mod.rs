//! The assertion core: [`Check`]s evaluated against one process instance, returning
//! `Result<(), AssertionFailure>`. The panicking `assert_*` methods of [`Run`](crate::Run) and
//! the CPT JSON runner are both built on [`check`].
//!
//! Semantics follow Camunda Process Test, without polling (the engine has already run until it
//! waits): element counts are exact, "active exactly" means no other element is active,
//! "completed in order" is a subsequence of the completion order, root variables ignore local
//! ones, a local scope is the first instance of the element.

mod failure;

use std::sync::Arc;

use baton_engine::runtime::{Engine, ErrorType, Key, State, UserTaskState};
use serde_json::{Map, Value};

use crate::history::{ElementEventKind, History, InstanceLog};
use crate::variables::{Matching, mismatches, short};

pub use failure::AssertionFailure;

/// What a check looks at: one process instance of a test, its history and the run's errors.
pub(crate) struct Subject<'a> {
    pub engine: &'a Engine,
    pub history: &'a History,
    /// The process instance checked.
    pub instance: Key,
    /// The errors of the run the instance belongs to.
    pub errors: Vec<&'a str>,
}

/// The state of a process instance (CPT's `IS_ACTIVE`, `IS_COMPLETED`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstanceState {
    Active,
    Completed,
    Terminated,
    /// Exists, in any state.
    Created,
    /// Suspended (Camunda 8.10); a suspended instance is not active.
    Suspended,
}

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

/// What a list of elements must have done (CPT's `ASSERT_ELEMENT_INSTANCES` states, plus the
/// seed's "not passed").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementsState {
    /// Each has an active instance.
    Active,
    /// Each has a completed instance.
    Completed,
    /// Each has a terminated instance.
    Terminated,
    /// None has an active instance now.
    NotActive,
    /// None was ever entered.
    NotActivated,
    /// None has completed.
    NotCompleted,
    /// These are active and no other element is.
    ActiveExactly,
    /// Each completed, in this order (a subsequence of the completion order).
    CompletedInOrder,
}

/// What one element must have done, an exact number of times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementState {
    Active,
    Completed,
    Terminated,
}

impl ElementState {
    fn word(self) -> &'static str {
        match self {
            ElementState::Active => "active",
            ElementState::Completed => "completed",
            ElementState::Terminated => "terminated",
        }
    }
}

/// Where variables are looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariableScope {
    /// The process instance's own variables (local variables of elements are ignored).
    Root,
    /// The local variables of the first instance of an element.
    Local(ElementSelector),
    /// The local variables of one element instance (a scope found by other means), named in
    /// messages by `what` (`local variables of inner instance [...]`).
    Instance { key: Key, what: String },
}

/// An incident to look for; unset fields match anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IncidentExpectation {
    pub element_id: Option<String>,
    pub error_type: Option<ErrorType>,
    pub message_contains: Option<String>,
}

/// A user task, by element id and/or name (all given fields must match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserTaskSelector {
    pub element_id: Option<String>,
    pub name: Option<String>,
}

/// The fields of a user task to check; unset fields are not checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserTaskExpectation {
    pub state: Option<UserTaskState>,
    pub assignee: Option<String>,
    pub candidate_groups: Option<Vec<String>>,
    pub candidate_users: Option<Vec<String>>,
    pub priority: Option<i32>,
    pub due_date: Option<String>,
    pub follow_up_date: Option<String>,
}

/// What a decision evaluation must show; unset fields are not checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecisionExpectation {
    pub output: Option<Value>,
    /// 1-based indexes of rules that matched (all of them must have matched).
    pub matched_rules: Option<Vec<u32>>,
    /// Rules that must not have matched.
    pub not_matched_rules: Option<Vec<u32>>,
    /// No rule matched.
    pub no_matched_rules: bool,
}

/// The state of a message subscription of a process instance (CPT's `IS_WAITING`,
/// `IS_NOT_WAITING`, `IS_CORRELATED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionState {
    /// A subscription with the name (and key) is open.
    Waiting,
    /// No subscription with the name (and key) is open.
    NotWaiting,
    /// A message with the name (and key) was correlated to the instance.
    Correlated,
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

fn times(n: usize) -> String {
    if n == 1 {
        "1 time".into()
    } else {
        format!("{n} times")
    }
}

fn describe_all(sel: &[ElementSelector]) -> String {
    sel.iter()
        .map(|s| s.describe())
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
    pub(crate) fn log(&self) -> Option<&'a InstanceLog> {
        self.history.instance(self.instance)
    }

    /// The BPMN process id of the instance.
    pub fn process_id(&self) -> String {
        self.engine
            .process_instance(self.instance)
            .map(|p| p.bpmn_process_id.to_string())
            .unwrap_or_else(|| format!("instance {}", self.instance))
    }

    pub(crate) fn state(&self) -> Option<State> {
        self.engine.process_instance(self.instance).map(|p| p.state)
    }

    /// Whether the instance is suspended (Camunda 8.10).
    pub(crate) fn suspended(&self) -> bool {
        self.engine
            .process_instance(self.instance)
            .is_some_and(|p| p.suspended)
    }

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

    /// Element instances of this instance that have not ended, in key order (not the process).
    pub(crate) fn active_instances(&self) -> Vec<baton_engine::runtime::ElementInstanceView> {
        self.engine
            .element_instances(self.instance)
            .into_iter()
            .filter(|i| i.key != self.instance && i.state.is_active())
            .collect()
    }

    fn count(&self, sel: &ElementSelector, state: ElementState) -> usize {
        match state {
            ElementState::Active => self
                .active_instances()
                .iter()
                .filter(|i| self.matches(sel, &i.element_id))
                .count(),
            ElementState::Completed => self.count_events(sel, ElementEventKind::Completed),
            ElementState::Terminated => self.count_events(sel, ElementEventKind::Terminated),
        }
    }

    fn count_events(&self, sel: &ElementSelector, kind: ElementEventKind) -> usize {
        self.log().map_or(0, |l| {
            l.events
                .iter()
                .filter(|e| e.kind == kind && self.matches(sel, &e.element_id))
                .count()
        })
    }

    /// Completed element ids in completion order.
    pub(crate) fn completed_path(&self) -> Vec<&'a str> {
        self.log().map_or(Vec::new(), |l| {
            l.events
                .iter()
                .filter(|e| e.kind == ElementEventKind::Completed)
                .map(|e| &*e.element_id)
                .collect()
        })
    }

    fn active_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for i in self.active_instances() {
            if !ids.contains(&i.element_id) {
                ids.push(i.element_id);
            }
        }
        ids
    }

    fn active_text(&self) -> String {
        let ids = self.active_ids();
        if ids.is_empty() {
            "no element is active".into()
        } else {
            format!("active: {}", quoted(&ids))
        }
    }

    fn incidents(&self) -> Vec<baton_engine::runtime::IncidentView> {
        let family = self.history.descendants(self.instance);
        self.engine
            .incidents()
            .into_iter()
            .filter(|i| {
                family.contains(&i.process_instance_key) || i.process_instance_key == self.instance
            })
            .collect()
    }

    fn check_state(&self, expected: InstanceState) -> Outcome {
        let state = self.state();
        let suspended = self.suspended();
        let ok = match expected {
            InstanceState::Created => state.is_some(),
            InstanceState::Completed => state == Some(State::Completed),
            InstanceState::Terminated => state == Some(State::Terminated),
            // As Camunda's search: an instance filtered as ACTIVE is not SUSPENDED.
            InstanceState::Active => state.is_some_and(|s| s.is_active()) && !suspended,
            InstanceState::Suspended => suspended,
        };
        if ok {
            return Ok(());
        }
        let want = match expected {
            InstanceState::Active => "to be active",
            InstanceState::Completed => "to be completed",
            InstanceState::Terminated => "to be terminated",
            InstanceState::Created => "to be created",
            InstanceState::Suspended => "to be suspended",
        };
        let word = if suspended {
            "suspended"
        } else {
            state_word(state)
        };
        let mut actual = format!("it is {word}");
        if state.is_some_and(|s| s.is_active()) {
            let ids = self.active_ids();
            if !ids.is_empty() {
                actual.push_str(&format!(", waiting at {}", quoted(&ids)));
            }
            let n = self.incidents().len();
            if n > 0 {
                actual.push_str(&format!(
                    ", with {n} active incident{}",
                    if n == 1 { "" } else { "s" }
                ));
            }
            if !self.errors.is_empty() {
                actual.push_str(", and the run has errors");
            }
        }
        Err((format!("{} {want}", self.who()), actual))
    }

    fn check_has_incidents(&self, yes: bool) -> Outcome {
        let incidents = self.incidents();
        match (yes, incidents.is_empty()) {
            (true, true) => Err((
                format!("{} to have an active incident", self.who()),
                "it has none".into(),
            )),
            (false, false) => Err((
                format!("{} to have no active incident", self.who()),
                format!(
                    "it has {}: {}",
                    incidents.len(),
                    incidents
                        .iter()
                        .map(|i| format!("{} at \"{}\"", i.error_type, i.element_id))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            _ => Ok(()),
        }
    }

    fn check_incident(&self, e: &IncidentExpectation) -> Outcome {
        let incidents = self.incidents();
        let found = incidents.iter().any(|i| {
            e.element_id.as_ref().is_none_or(|id| *id == i.element_id)
                && e.error_type.is_none_or(|t| t == i.error_type)
                && e.message_contains
                    .as_ref()
                    .is_none_or(|m| i.error_message.contains(m.as_str()))
        });
        if found {
            return Ok(());
        }
        let mut want = "an active incident".to_owned();
        if let Some(t) = e.error_type {
            want.push_str(&format!(" of type {t}"));
        }
        if let Some(id) = &e.element_id {
            want.push_str(&format!(" at \"{id}\""));
        }
        if let Some(m) = &e.message_contains {
            want.push_str(&format!(" with a message containing \"{m}\""));
        }
        let actual = if incidents.is_empty() {
            "there is no active incident".to_owned()
        } else {
            format!(
                "the active incidents are: {}",
                incidents
                    .iter()
                    .map(|i| format!(
                        "{} at \"{}\": {}",
                        i.error_type, i.element_id, i.error_message
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        Err((format!("{} to have {want}", self.who()), actual))
    }

    fn check_failed(&self, message: Option<&str>) -> Outcome {
        let incidents = self.incidents();
        let mut texts: Vec<String> = self.errors.iter().map(|e| e.to_string()).collect();
        texts.extend(incidents.iter().map(|i| {
            format!(
                "{} at \"{}\": {}",
                i.error_type, i.element_id, i.error_message
            )
        }));
        let want = match message {
            Some(m) => format!("the run of {} to have failed with \"{m}\"", self.who()),
            None => format!("the run of {} to have failed", self.who()),
        };
        if texts.is_empty() {
            return Err((
                want,
                format!(
                    "it has no error and no incident (it is {})",
                    state_word(self.state())
                ),
            ));
        }
        match message {
            Some(m) if !texts.iter().any(|t| t.contains(m)) => {
                Err((want, format!("its failures are: {}", texts.join("; "))))
            }
            _ => Ok(()),
        }
    }

    fn check_elements(&self, sel: &[ElementSelector], state: ElementsState) -> Outcome {
        let who = self.who();
        match state {
            ElementsState::Active | ElementsState::Completed | ElementsState::Terminated => {
                let single = match state {
                    ElementsState::Active => ElementState::Active,
                    ElementsState::Completed => ElementState::Completed,
                    _ => ElementState::Terminated,
                };
                let missing: Vec<&ElementSelector> =
                    sel.iter().filter(|e| self.count(e, single) == 0).collect();
                if missing.is_empty() {
                    return Ok(());
                }
                let names: Vec<String> = missing.iter().map(|m| m.describe()).collect();
                let verb = match single {
                    ElementState::Active => "is not active",
                    ElementState::Completed => "was not completed",
                    ElementState::Terminated => "was not terminated",
                };
                let verb = if names.len() > 1 {
                    verb.replace("is ", "are ").replace("was ", "were ")
                } else {
                    verb.to_owned()
                };
                let mut actual = format!("{} {verb}", names.join(", "));
                if single == ElementState::Active {
                    actual.push_str(&format!(" ({})", self.active_text()));
                }
                let want = match single {
                    ElementState::Active => format!("{who} to be waiting at {}", describe_all(sel)),
                    _ => format!("{who} to have {} {}", single.word(), describe_all(sel)),
                };
                Err((want, actual))
            }
            ElementsState::NotActive => {
                let active: Vec<String> = sel
                    .iter()
                    .filter(|e| self.count(e, ElementState::Active) > 0)
                    .map(|e| e.describe())
                    .collect();
                if active.is_empty() {
                    return Ok(());
                }
                Err((
                    format!("{who} to have none of {} active", describe_all(sel)),
                    format!(
                        "{} {} active",
                        active.join(", "),
                        if active.len() == 1 { "is" } else { "are" }
                    ),
                ))
            }
            ElementsState::NotActivated | ElementsState::NotCompleted => {
                let kind = if state == ElementsState::NotActivated {
                    ElementEventKind::Activated
                } else {
                    ElementEventKind::Completed
                };
                let hit: Vec<String> = sel
                    .iter()
                    .filter_map(|e| {
                        let n = self.count_events(e, kind);
                        (n > 0).then(|| format!("{} ({})", e.describe(), times(n)))
                    })
                    .collect();
                if hit.is_empty() {
                    return Ok(());
                }
                let (want, verb) = if kind == ElementEventKind::Activated {
                    ("never to enter", "entered")
                } else {
                    ("not to pass", "completed")
                };
                Err((
                    format!("{who} {want} {}", describe_all(sel)),
                    format!("it {verb} {}", hit.join(", ")),
                ))
            }
            ElementsState::ActiveExactly => {
                let active = self.active_ids();
                let missing: Vec<String> = sel
                    .iter()
                    .filter(|e| !active.iter().any(|a| self.matches(e, a)))
                    .map(|e| e.describe())
                    .collect();
                let extra: Vec<&String> = active
                    .iter()
                    .filter(|a| !sel.iter().any(|e| self.matches(e, a)))
                    .collect();
                if missing.is_empty() && extra.is_empty() {
                    return Ok(());
                }
                let mut parts = Vec::new();
                if !missing.is_empty() {
                    parts.push(format!("not active: {}", missing.join(", ")));
                }
                if !extra.is_empty() {
                    parts.push(format!("also active: {}", quoted(&extra)));
                }
                Err((
                    format!(
                        "{who} to have exactly these elements active: {}",
                        describe_all(sel)
                    ),
                    parts.join("; "),
                ))
            }
            ElementsState::CompletedInOrder => {
                let path = self.completed_path();
                let mut pos = 0usize;
                for (n, e) in sel.iter().enumerate() {
                    match path[pos..].iter().position(|id| self.matches(e, id)) {
                        Some(p) => pos += p + 1,
                        None => {
                            let relevant: Vec<&str> = path
                                .iter()
                                .copied()
                                .filter(|id| sel.iter().any(|s| self.matches(s, id)))
                                .collect();
                            let actual = if self.count_events(e, ElementEventKind::Completed) == 0 {
                                format!("{} was not completed", e.describe())
                            } else if n > 0 {
                                format!(
                                    "{} was not completed after {}; these elements completed in this order: {}",
                                    e.describe(),
                                    sel[n - 1].describe(),
                                    quoted(&relevant)
                                )
                            } else {
                                format!(
                                    "these elements completed in this order: {}",
                                    quoted(&relevant)
                                )
                            };
                            return Err((
                                format!(
                                    "{who} to have completed in this order: {}",
                                    describe_all(sel)
                                ),
                                actual,
                            ));
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn check_count(&self, sel: &ElementSelector, state: ElementState, amount: usize) -> Outcome {
        let n = self.count(sel, state);
        if n == amount {
            return Ok(());
        }
        let what = match state {
            ElementState::Active => "instances active",
            ElementState::Completed => "completed",
            ElementState::Terminated => "terminated",
        };
        let (want, actual) = match state {
            ElementState::Active => (
                format!(
                    "{} to have {amount} active instance{} of {}",
                    self.who(),
                    if amount == 1 { "" } else { "s" },
                    sel.describe()
                ),
                format!("it has {n}"),
            ),
            _ => (
                format!(
                    "{} to have {} {what} exactly {}",
                    self.who(),
                    sel.describe(),
                    times(amount)
                ),
                format!("it was {what} {}", times(n)),
            ),
        };
        Err((want, actual))
    }

    /// The scope key and a description of a variable scope, or why there is none.
    fn scope(&self, scope: &VariableScope) -> (Result<Key, String>, String) {
        match scope {
            VariableScope::Root => (Ok(self.instance), "variables".into()),
            VariableScope::Local(sel) => {
                let ids = self.ids(sel);
                let first = self.log().and_then(|l| {
                    l.events.iter().find(|e| {
                        e.kind == ElementEventKind::Activated && ids.contains(&e.element_id)
                    })
                });
                let what = format!("local variables of {}", sel.describe());
                match first {
                    Some(e) => (Ok(e.key), what),
                    None => (Err(format!("{} has no instance", sel.describe())), what),
                }
            }
            VariableScope::Instance { key, what } => (Ok(*key), what.clone()),
        }
    }

    fn check_variable_names(&self, scope: &VariableScope, names: &[String]) -> Outcome {
        let (key, what) = self.scope(scope);
        let key = key.map_err(|m| {
            (
                format!("{} to have {what} {}", self.who(), quoted(names)),
                m,
            )
        })?;
        let vars = self.history.scope_variables(key);
        let missing: Vec<&String> = names
            .iter()
            .filter(|n| vars.is_none_or(|v| !v.contains_key(n.as_str())))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err((
            format!("{} to have {what} {}", self.who(), quoted(names)),
            format!(
                "{} {} not exist",
                quoted(&missing),
                if missing.len() == 1 { "does" } else { "do" }
            ),
        ))
    }

    fn check_variables(
        &self,
        scope: &VariableScope,
        expected: &Map<String, Value>,
        matching: Matching,
    ) -> Outcome {
        let want_text = || {
            expected
                .iter()
                .map(|(k, v)| format!("{k} = {}", short(v, 60)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let verb = match matching {
            Matching::Exact => "to be",
            Matching::Partial => "to match",
        };
        let (key, what) = self.scope(scope);
        let key = key.map_err(|m| (format!("{} {what} {verb} {}", self.who(), want_text()), m))?;
        let vars = self.history.scope_variables(key);
        let mut problems = Vec::new();
        for (name, want) in expected {
            match vars.and_then(|v| v.get(name.as_str())) {
                None => problems.push(format!("{name} does not exist")),
                Some(actual) => {
                    for m in mismatches(want, actual, matching) {
                        let path = if m.path.is_empty() {
                            name.clone()
                        } else {
                            format!("{name}.{}", m.path)
                        };
                        let line = match (&m.expected, &m.actual) {
                            (Some(e), Some(a)) => {
                                format!("{path} is {}, not {}", short(a, 80), short(e, 80))
                            }
                            (Some(e), None) => {
                                format!("{path} is missing (expected {})", short(e, 80))
                            }
                            (None, Some(a)) => {
                                format!("{path} is {}, which was not expected", short(a, 80))
                            }
                            (None, None) => path,
                        };
                        problems.push(line);
                    }
                }
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        Err((
            format!("{} {what} {verb} {}", self.who(), want_text()),
            problems.join("\n         "),
        ))
    }

    fn check_subscription(
        &self,
        name: &str,
        key: Option<&str>,
        state: SubscriptionState,
    ) -> Outcome {
        let message = match key {
            Some(k) => format!("message \"{name}\" with correlation key \"{k}\""),
            None => format!("message \"{name}\""),
        };
        let open = self.engine.message_subscriptions(self.instance);
        let waiting = open
            .iter()
            .any(|s| &*s.message_name == name && key.is_none_or(|k| &*s.correlation_key == k));
        let open_text = || {
            if open.is_empty() {
                "it waits for no message".to_owned()
            } else {
                format!(
                    "it waits for {}",
                    open.iter()
                        .map(|s| format!(
                            "\"{}\" (key \"{}\") at \"{}\"",
                            s.message_name, s.correlation_key, s.element_id
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        };
        match state {
            SubscriptionState::Waiting if !waiting => {
                Err((format!("{} to wait for {message}", self.who()), open_text()))
            }
            SubscriptionState::NotWaiting if waiting => Err((
                format!("{} not to wait for {message}", self.who()),
                open_text(),
            )),
            SubscriptionState::Correlated => {
                let got = self.engine.correlated_messages(self.instance);
                if got.iter().any(|m| {
                    &*m.message_name == name && key.is_none_or(|k| &*m.correlation_key == k)
                }) {
                    return Ok(());
                }
                let actual = if got.is_empty() {
                    "no message was correlated to it".to_owned()
                } else {
                    format!(
                        "the messages correlated to it are {}",
                        got.iter()
                            .map(|m| format!(
                                "\"{}\" (key \"{}\") at \"{}\"",
                                m.message_name, m.correlation_key, m.element_id
                            ))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                Err((format!("{} to have received {message}", self.who()), actual))
            }
            _ => Ok(()),
        }
    }

    fn check_user_task(&self, sel: &UserTaskSelector, e: &UserTaskExpectation) -> Outcome {
        let family = self.history.descendants(self.instance);
        let tasks: Vec<_> = self
            .engine
            .user_tasks()
            .into_iter()
            .filter(|t| {
                let pi = t.value.process_instance_key;
                pi == self.instance || family.contains(&pi)
            })
            .collect();
        let name_of = |t: &baton_engine::runtime::UserTask| -> (String, Option<String>) {
            let p = self
                .engine
                .deployed_processes()
                .nth(t.value.proc.0 as usize)
                .expect("deployed");
            let el = p.model_element(t.value.element);
            (el.id.to_string(), el.name.as_deref().map(str::to_owned))
        };
        let label = match (&sel.element_id, &sel.name) {
            (Some(id), Some(n)) => format!("user task \"{id}\" named \"{n}\""),
            (Some(id), None) => format!("user task \"{id}\""),
            (None, Some(n)) => format!("user task named \"{n}\""),
            (None, None) => "a user task".to_owned(),
        };
        // CPT checks each property on its own: some matching task must have it (a task
        // created again in a loop is found next to the completed one).
        let matching: Vec<&&baton_engine::runtime::UserTask> = tasks
            .iter()
            .filter(|t| {
                let (id, name) = name_of(t);
                sel.element_id.as_ref().is_none_or(|s| *s == id)
                    && sel.name.as_ref().is_none_or(|s| Some(s) == name.as_ref())
            })
            .collect();
        let mut want = Vec::new();
        if let Some(s) = e.state {
            want.push(format!("state {}", user_task_state(s)));
        }
        if let Some(a) = &e.assignee {
            want.push(format!("assignee \"{a}\""));
        }
        if let Some(g) = &e.candidate_groups {
            want.push(format!("candidate groups {}", quoted(g)));
        }
        if let Some(g) = &e.candidate_users {
            want.push(format!("candidate users {}", quoted(g)));
        }
        if let Some(p) = e.priority {
            want.push(format!("priority {p}"));
        }
        if let Some(d) = &e.due_date {
            want.push(format!("due date {d}"));
        }
        if let Some(d) = &e.follow_up_date {
            want.push(format!("follow-up date {d}"));
        }
        let want_text = if want.is_empty() {
            format!("{} to have {label}", self.who())
        } else {
            format!("{} to have {label} with {}", self.who(), want.join(", "))
        };
        if matching.is_empty() {
            let existing: Vec<String> = tasks.iter().map(|t| name_of(t).0).collect();
            return Err((
                want_text,
                if existing.is_empty() {
                    "there is no user task".to_owned()
                } else {
                    format!(
                        "there is no such user task; user tasks: {}",
                        quoted(&existing)
                    )
                },
            ));
        }
        let mut diffs = Vec::new();
        // A property no matching task has: described for the one task, or for each of them.
        let mut property =
            |has: &dyn Fn(&baton_engine::runtime::UserTask) -> bool,
             describe: &dyn Fn(&baton_engine::runtime::UserTask) -> String| {
                if matching.iter().any(|t| has(t)) {
                    return;
                }
                if let [t] = matching.as_slice() {
                    diffs.push(describe(t));
                } else {
                    let each: Vec<String> = matching
                        .iter()
                        .enumerate()
                        .map(|(i, t)| format!("task {}: {}", i + 1, describe(t)))
                        .collect();
                    diffs.push(format!(
                        "none of the {} matching user tasks has it ({})",
                        matching.len(),
                        each.join("; ")
                    ));
                }
            };
        if let Some(s) = e.state {
            property(&|t| t.state == s, &|t| {
                format!("its state is {}", user_task_state(t.state))
            });
        }
        if let Some(a) = &e.assignee {
            property(
                &|t| t.value.assignee.as_deref() == Some(a.as_str()),
                &|t| match &t.value.assignee {
                    Some(x) => format!("its assignee is \"{x}\""),
                    None => "it has no assignee".to_owned(),
                },
            );
        }
        if let Some(g) = &e.candidate_groups {
            property(&|t| *g == *t.value.candidate_groups, &|t| {
                format!(
                    "its candidate groups are [{}]",
                    quoted(&t.value.candidate_groups)
                )
            });
        }
        if let Some(g) = &e.candidate_users {
            property(&|t| *g == *t.value.candidate_users, &|t| {
                format!(
                    "its candidate users are [{}]",
                    quoted(&t.value.candidate_users)
                )
            });
        }
        if let Some(p) = e.priority {
            property(&|t| p == t.value.priority, &|t| {
                format!("its priority is {}", t.value.priority)
            });
        }
        if let Some(d) = &e.due_date {
            property(
                &|t| same_instant(Some(d), t.value.due_date.as_deref()),
                &|t| {
                    format!(
                        "its due date is {}",
                        t.value.due_date.as_deref().unwrap_or("not set")
                    )
                },
            );
        }
        if let Some(d) = &e.follow_up_date {
            property(
                &|t| same_instant(Some(d), t.value.follow_up_date.as_deref()),
                &|t| {
                    format!(
                        "its follow-up date is {}",
                        t.value.follow_up_date.as_deref().unwrap_or("not set")
                    )
                },
            );
        }
        if diffs.is_empty() {
            Ok(())
        } else {
            Err((want_text, diffs.join(", ")))
        }
    }

    fn check_decision(&self, decision_id: &str, e: &DecisionExpectation) -> Outcome {
        let family = self.history.descendants(self.instance);
        let evaluation = self.engine.records().iter().find_map(|r| match &r.value {
            baton_engine::runtime::RecordValue::DecisionEvaluation(d)
                if &*d.decision_id == decision_id
                    && d.process_instance_key
                        .is_none_or(|k| k == self.instance || family.contains(&k)) =>
            {
                Some(&**d)
            }
            _ => None,
        });
        compare_decision(decision_id, evaluation, e)
    }

    fn check_variable_satisfies(
        &self,
        scope: &VariableScope,
        name: &str,
        expression: &str,
    ) -> Outcome {
        let (key, what) = self.scope(scope);
        let what = what.replace("variables", "variable");
        let want = format!(
            "{} {what} \"{name}\" to satisfy the expression {expression}",
            self.who()
        );
        let key = key.map_err(|m| (want.clone(), m))?;
        let Some(value) = self.history.scope_variables(key).and_then(|v| v.get(name)) else {
            return Err((want, format!("\"{name}\" does not exist")));
        };
        let parsed = baton_feel::Expression::parse(expression).map_err(|e| {
            (
                want.clone(),
                format!("the expression is not valid FEEL: {e}"),
            )
        })?;
        let mut context = Map::new();
        context.insert(name.to_owned(), (**value).clone());
        let now = jiff::Timestamp::from_millisecond(self.engine.now())
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let evaluation = parsed.evaluate(&context, &baton_feel::Env::at(now));
        match evaluation.result {
            Ok(baton_feel::Value::Boolean(true)) => Ok(()),
            Ok(other) => {
                let mut actual = format!(
                    "it is {} and the expression gives {other}",
                    short(value, 80)
                );
                for w in &evaluation.warnings {
                    actual.push_str(&format!("\n         ({w})"));
                }
                Err((want, actual))
            }
            Err(failure) => Err((
                want,
                format!(
                    "it is {} and the expression fails: {failure}",
                    short(value, 80)
                ),
            )),
        }
    }
}

/// Checks the first evaluation of a decision anywhere in the engine (standalone or by a
/// business rule task), as CPT's `ASSERT_DECISION` does; the explanation lists the decisions
/// evaluated.
pub fn check_decision(
    engine: &Engine,
    decision_id: &str,
    expected: &DecisionExpectation,
) -> Result<(), AssertionFailure> {
    let evaluations: Vec<&baton_engine::runtime::records::DecisionValue> = engine
        .records()
        .iter()
        .filter_map(|r| match &r.value {
            baton_engine::runtime::RecordValue::DecisionEvaluation(d) => Some(&**d),
            _ => None,
        })
        .collect();
    let first = evaluations
        .iter()
        .copied()
        .find(|d| &*d.decision_id == decision_id);
    compare_decision(decision_id, first, expected).map_err(|(expected, actual)| {
        let mut explanation = String::from("decisions evaluated:");
        if evaluations.is_empty() {
            explanation.push_str(" none");
        }
        for d in &evaluations {
            explanation.push_str(&format!(
                "\n  {} → {}",
                d.decision_id,
                match &d.failure_message {
                    Some(f) => format!("failed: {f}"),
                    None => format!(
                        "{} (matched rules {:?})",
                        short(&d.output, 80),
                        d.matched_rules
                    ),
                }
            ));
        }
        AssertionFailure {
            expected,
            actual,
            explanation,
        }
    })
}

/// Compares a decision evaluation (if there is one) with what is expected.
fn compare_decision(
    decision_id: &str,
    evaluation: Option<&baton_engine::runtime::records::DecisionValue>,
    e: &DecisionExpectation,
) -> Outcome {
    {
        let mut want = Vec::new();
        if let Some(o) = &e.output {
            want.push(format!("output {}", short(o, 80)));
        }
        if let Some(m) = &e.matched_rules {
            want.push(format!("matched rules {m:?}"));
        }
        if let Some(m) = &e.not_matched_rules {
            want.push(format!("rules {m:?} not matched"));
        }
        if e.no_matched_rules {
            want.push("no matched rule".to_owned());
        }
        let want_text = if want.is_empty() {
            format!("decision \"{decision_id}\" to be evaluated")
        } else {
            format!(
                "decision \"{decision_id}\" to be evaluated with {}",
                want.join(", ")
            )
        };
        let Some(d) = evaluation else {
            return Err((want_text, "it was not evaluated".into()));
        };
        let mut diffs = Vec::new();
        if let Some(failure) = &d.failure_message {
            diffs.push(format!("its evaluation failed: {failure}"));
        }
        if let Some(o) = &e.output
            && !crate::variables::json_equal(o, &d.output)
        {
            diffs.push(format!("its output is {}", short(&d.output, 80)));
        }
        if let Some(m) = &e.matched_rules
            && !m.iter().all(|r| d.matched_rules.contains(r))
        {
            diffs.push(format!("the matched rules are {:?}", d.matched_rules));
        }
        if let Some(m) = &e.not_matched_rules
            && m.iter().any(|r| d.matched_rules.contains(r))
        {
            diffs.push(format!("the matched rules are {:?}", d.matched_rules));
        }
        if e.no_matched_rules && !d.matched_rules.is_empty() {
            diffs.push(format!("the matched rules are {:?}", d.matched_rules));
        }
        if diffs.is_empty() {
            Ok(())
        } else {
            Err((want_text, diffs.join(", ")))
        }
    }
}

fn user_task_state(s: UserTaskState) -> &'static str {
    match s {
        UserTaskState::Created => "CREATED",
        UserTaskState::Completed => "COMPLETED",
        UserTaskState::Canceled => "CANCELED",
        UserTaskState::Failed => "FAILED",
    }
}

/// Dates compared as instants when both parse, else as text.
fn same_instant(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => match (
            crate::clock::parse_instant(a),
            crate::clock::parse_instant(b),
        ) {
            (Ok(x), Ok(y)) => x == y,
            _ => a == b,
        },
        (None, None) => true,
        _ => false,
    }
}
