//! Invariants: what must hold at every step of a run, whatever the faults — an element never
//! before another one completed, at most one side effect per idempotency key, no incident, a
//! FEEL condition over the variables, and how the run may end.
//!
//! An [`Invariant`] is plain data; an [`InvariantChecker`] reads a run's trace as it grows
//! ([`RunEvent`]s: trace events with the root instance they belong to) and the state a
//! [`RunView`] shows, and names the first [`Violation`]. The process test checks after every
//! step (each command it sends and what the engine did about it); exploration checks every
//! trajectory it forks. Bad input (an unknown element, a condition that is not FEEL) is refused
//! by [`Invariant::validate`] before the run starts. `json` reads and writes an invariant in
//! the form exploration files write it in.

use std::fmt;

use baton_engine::runtime::Key;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value};

use crate::trace::{SideEffect, TraceEvent};

mod json;
pub(crate) use json::{invariant_from_json, invariant_to_json};

/// One event of a run's trace with the root process instance it belongs to (`0`: none, e.g. a
/// move of the clock).
#[derive(Debug, Clone, PartialEq)]
pub struct RunEvent {
    pub root: Key,
    pub event: TraceEvent,
}

/// A property of a run (or, for exploration, a goal some run must reach). Deserializes from the
/// form exploration files write it in (`{"neverBefore": {"element": ..., "before": ...}}`,
/// `"noIncident"`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invariant {
    /// `element` (an element, or a tool of an AI agent) is never activated, and no side effect
    /// happens at it, before `before` completed in the same run (root instance): an approval
    /// before a write tool.
    NeverBefore { element: String, before: String },
    /// No two side effects of `job_type` that were performed share an idempotency key (see
    /// [`crate::side_effects`]).
    AtMostOncePerKey { job_type: String },
    /// No incident is ever created.
    NoIncident,
    /// No incident is created at `element`.
    NoIncidentAt { element: String },
    /// A FEEL expression over the root instance's variables is `true` after every step.
    Condition { expression: String },
    /// A run that ends is in one of these states (rather than stuck silently).
    EndsIn(Vec<EndState>),
    /// `element` is activated: for a process test, by the end of the test; for exploration, a
    /// goal some trajectory must reach.
    Reaches { element: String },
}

/// Where a run may end (see [`Invariant::EndsIn`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndState {
    /// The root instance completed.
    Completed,
    /// The root instance was terminated (cancelled, or a terminate end event).
    Terminated,
    /// The root instance waits at this element (a user task, a message catch event, ...).
    WaitingAt(String),
    /// The root instance is active with an open incident.
    Incident,
}

impl fmt::Display for EndState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndState::Completed => f.write_str("completed"),
            EndState::Terminated => f.write_str("terminated"),
            EndState::WaitingAt(element) => write!(f, "waiting at \"{element}\""),
            EndState::Incident => f.write_str("with an open incident"),
        }
    }
}

impl Invariant {
    /// `element` never before `before` completed.
    pub fn never_before(element: impl Into<String>, before: impl Into<String>) -> Invariant {
        Invariant::NeverBefore {
            element: element.into(),
            before: before.into(),
        }
    }

    /// At most one performed side effect per idempotency key of `job_type`.
    pub fn at_most_once_per_key(job_type: impl Into<String>) -> Invariant {
        Invariant::AtMostOncePerKey {
            job_type: job_type.into(),
        }
    }

    /// No incident anywhere.
    pub fn no_incident() -> Invariant {
        Invariant::NoIncident
    }

    /// No incident at `element`.
    pub fn no_incident_at(element: impl Into<String>) -> Invariant {
        Invariant::NoIncidentAt {
            element: element.into(),
        }
    }

    /// A FEEL condition over the root instance's variables.
    pub fn condition(expression: impl Into<String>) -> Invariant {
        Invariant::Condition {
            expression: expression.into(),
        }
    }

    /// The run ends in one of these states.
    pub fn ends_in(states: impl IntoIterator<Item = EndState>) -> Invariant {
        Invariant::EndsIn(states.into_iter().collect())
    }

    /// `element` is reached (see [`Invariant::Reaches`]).
    pub fn reaches(element: impl Into<String>) -> Invariant {
        Invariant::Reaches {
            element: element.into(),
        }
    }

    /// Whether this is a goal (some run) rather than an invariant (every run), for exploration.
    pub fn is_goal(&self) -> bool {
        matches!(self, Invariant::Reaches { .. })
    }

    /// The elements it names.
    pub fn elements(&self) -> Vec<&str> {
        match self {
            Invariant::NeverBefore { element, before } => vec![element, before],
            Invariant::EndsIn(states) => states
                .iter()
                .filter_map(|s| match s {
                    EndState::WaitingAt(e) => Some(e.as_str()),
                    _ => None,
                })
                .collect(),
            Invariant::Reaches { element } | Invariant::NoIncidentAt { element } => vec![element],
            Invariant::NoIncident
            | Invariant::Condition { .. }
            | Invariant::AtMostOncePerKey { .. } => Vec::new(),
        }
    }

    /// Checks the invariant against what the test can run: `elements` are the element ids of
    /// the deployed processes, `job_types` their static job types.
    pub fn validate(
        &self,
        elements: &[String],
        job_types: &[String],
    ) -> Result<(), InvariantError> {
        for id in self.elements() {
            if !elements.iter().any(|e| e == id) {
                return Err(InvariantError::UnknownElement {
                    invariant: self.to_string(),
                    element: id.to_string(),
                    closest: closest(id, elements),
                });
            }
        }
        match self {
            Invariant::AtMostOncePerKey { job_type }
                if !job_types.iter().any(|t| t == job_type) =>
            {
                Err(InvariantError::UnknownJobType {
                    invariant: self.to_string(),
                    job_type: job_type.clone(),
                    known: job_types.to_vec(),
                })
            }
            Invariant::Condition { expression } => baton_feel::Expression::parse(expression)
                .map(|_| ())
                .map_err(|e| InvariantError::InvalidCondition {
                    expression: expression.clone(),
                    message: e.to_string(),
                }),
            Invariant::EndsIn(states) if states.is_empty() => Err(InvariantError::NoEndState),
            _ => Ok(()),
        }
    }
}

/// `"create-ticket" never before "approve" completed`, `no incident`, `ends completed or
/// waiting at "queue"`.
impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invariant::NeverBefore { element, before } => {
                write!(f, "\"{element}\" never before \"{before}\" completed")
            }
            Invariant::AtMostOncePerKey { job_type } => write!(
                f,
                "at most one side effect per idempotency key of \"{job_type}\""
            ),
            Invariant::NoIncident => f.write_str("no incident"),
            Invariant::NoIncidentAt { element } => write!(f, "no incident at \"{element}\""),
            Invariant::Condition { expression } => write!(f, "always {expression}"),
            Invariant::EndsIn(states) => {
                let states: Vec<String> = states.iter().map(ToString::to_string).collect();
                write!(f, "ends {}", states.join(" or "))
            }
            Invariant::Reaches { element } => write!(f, "reaches \"{element}\""),
        }
    }
}

/// An invariant that cannot be checked on this test's processes.
/// An invariant a test declared that the run broke: the message names the invariant, what
/// broke it and the run up to there (the same text as the run error it became).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BrokenInvariant {
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvariantError {
    #[error(
        "the invariant {invariant} names the element \"{element}\", which no deployed process has{}",
        closest.as_ref().map(|c| format!(" (did you mean \"{c}\"?)")).unwrap_or_default()
    )]
    UnknownElement {
        invariant: String,
        element: String,
        closest: Option<String>,
    },
    #[error(
        "the invariant {invariant} names the job type \"{job_type}\", which no deployed process has (job types: {})",
        if known.is_empty() { "none".to_string() } else { known.join(", ") }
    )]
    UnknownJobType {
        invariant: String,
        job_type: String,
        known: Vec<String>,
    },
    #[error("the invariant condition {expression} is not valid FEEL: {message}")]
    InvalidCondition { expression: String, message: String },
    #[error("an invariant on how the run ends needs at least one end state")]
    NoEndState,
}

fn closest(id: &str, candidates: &[String]) -> Option<String> {
    candidates
        .iter()
        .map(|c| (strsim::levenshtein(id, c), c))
        .filter(|(distance, _)| *distance <= 3)
        .min()
        .map(|(_, c)| c.clone())
}

/// An invariant that did not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub invariant: Invariant,
    /// The run it broke in.
    pub root: Option<Key>,
    /// Why, in a sentence (more lines for the events involved).
    pub reason: String,
    /// The index of the trace event that broke it (`None`: a condition over the state).
    pub event: Option<usize>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the invariant {} is broken: {}",
            self.invariant, self.reason
        )
    }
}

/// What a state invariant reads of a run.
pub trait RunView {
    /// The root process instances, oldest first.
    fn roots(&self) -> Vec<Key>;
    /// The variables of a root instance (also after it ended).
    fn root_variables(&self, root: Key) -> Map<String, Value>;
    /// The engine clock, epoch milliseconds (FEEL's `now()`).
    fn now_ms(&self) -> i64;
    /// How a root instance stands: its end, or the elements it waits at and whether an
    /// incident is open.
    fn root_end(&self, root: Key) -> RootEnd;
    /// How messages name a root instance (`run 2 of "support"`).
    fn describe_root(&self, root: Key) -> String;
}

/// How a root instance stands (see [`RunView::root_end`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootEnd {
    Completed,
    Terminated,
    Active {
        waiting_at: Vec<String>,
        incident: bool,
    },
}

/// A side effect seen before the run being checked (an earlier run of the same ledger, before a
/// restart): counted by [`Invariant::AtMostOncePerKey`].
#[derive(Debug, Clone, PartialEq)]
pub struct EarlierSideEffect {
    pub effect: SideEffect,
    /// How messages place it: `in run 1, before the restart`.
    pub when: String,
}

/// Where the first side effect of a key was seen.
#[derive(Debug, Clone)]
enum FirstSeen {
    Trace(usize),
    Earlier(EarlierSideEffect),
}

/// Checks invariants over a run as it goes (see the module documentation).
#[derive(Debug, Clone)]
pub struct InvariantChecker {
    invariants: Vec<Invariant>,
    conditions: Vec<(usize, baton_feel::Expression)>,
    /// Per root: the elements completed so far.
    completed: FxHashMap<Key, FxHashSet<String>>,
    /// Per (job type, key): the first performed side effect.
    keys: FxHashMap<(String, String), FirstSeen>,
    /// (root, element) activated so far.
    reached: FxHashSet<(Key, String)>,
    /// How many trace events were read.
    read: usize,
}

impl InvariantChecker {
    /// A checker of these invariants; `Err` for one that is not valid on its own (a condition
    /// that is not FEEL, no end state). Elements are checked by [`Invariant::validate`].
    pub fn new(invariants: Vec<Invariant>) -> Result<InvariantChecker, InvariantError> {
        let mut conditions = Vec::new();
        for (i, invariant) in invariants.iter().enumerate() {
            match invariant {
                Invariant::Condition { expression } => {
                    let parsed = baton_feel::Expression::parse(expression).map_err(|e| {
                        InvariantError::InvalidCondition {
                            expression: expression.clone(),
                            message: e.to_string(),
                        }
                    })?;
                    conditions.push((i, parsed));
                }
                Invariant::EndsIn(states) if states.is_empty() => {
                    return Err(InvariantError::NoEndState);
                }
                _ => {}
            }
        }
        Ok(InvariantChecker {
            invariants,
            conditions,
            completed: FxHashMap::default(),
            keys: FxHashMap::default(),
            reached: FxHashSet::default(),
            read: 0,
        })
    }

    pub fn invariants(&self) -> &[Invariant] {
        &self.invariants
    }

    /// Whether there is nothing to check.
    pub fn is_empty(&self) -> bool {
        self.invariants.is_empty()
    }

    /// Side effects an earlier run left in the ledger: a second one with the same key breaks
    /// [`Invariant::AtMostOncePerKey`] as if it were in this run.
    pub fn seed(&mut self, earlier: impl IntoIterator<Item = EarlierSideEffect>) {
        for e in earlier {
            if e.effect.performed {
                self.keys
                    .entry((e.effect.job_type.clone(), e.effect.key.clone()))
                    .or_insert(FirstSeen::Earlier(e));
            }
        }
    }

    /// Reads the trace events not read yet (the whole trace so far is `trace`) and returns the
    /// first invariant they break.
    pub fn observe(&mut self, trace: &[RunEvent]) -> Option<Violation> {
        while self.read < trace.len() {
            let index = self.read;
            self.read += 1;
            if let Some(v) = self.observe_one(trace, index) {
                return Some(v);
            }
        }
        None
    }

    fn observe_one(&mut self, trace: &[RunEvent], index: usize) -> Option<Violation> {
        let RunEvent { root, event } = &trace[index];
        let root = *root;
        // What X is at this event: activated (an element or a tool) or acting (a side effect).
        let acting_at = match event {
            TraceEvent::ElementActivated { element } => Some((element.as_str(), "was activated")),
            TraceEvent::ToolActivated { tool, .. } => Some((tool.as_str(), "was called")),
            TraceEvent::SideEffect(effect) if effect.performed => {
                Some((effect.element.as_str(), "acted on the outside world"))
            }
            _ => None,
        };
        for invariant in &self.invariants {
            match invariant {
                Invariant::NeverBefore { element, before } => {
                    if let Some((at, what)) = acting_at
                        && at == element
                        && !self
                            .completed
                            .get(&root)
                            .is_some_and(|done| done.contains(before))
                    {
                        return Some(Violation {
                            invariant: invariant.clone(),
                            root: Some(root),
                            reason: if matches!(event, TraceEvent::ElementActivated { .. }) {
                                format!("\"{element}\" {what} before \"{before}\" completed")
                            } else {
                                format!(
                                    "\"{element}\" {what} ({event}) before \"{before}\" completed"
                                )
                            },
                            event: Some(index),
                        });
                    }
                }
                Invariant::NoIncident | Invariant::NoIncidentAt { .. } => {
                    let only = match invariant {
                        Invariant::NoIncidentAt { element } => Some(element),
                        _ => None,
                    };
                    if let TraceEvent::IncidentCreated {
                        element: at,
                        error_type,
                        message,
                    } = event
                        && only.is_none_or(|e| e == at)
                    {
                        return Some(Violation {
                            invariant: invariant.clone(),
                            root: Some(root),
                            reason: format!("an incident at \"{at}\" ({error_type}): {message}"),
                            event: Some(index),
                        });
                    }
                }
                Invariant::AtMostOncePerKey { job_type } => {
                    if let TraceEvent::SideEffect(effect) = event
                        && effect.performed
                        && effect.job_type == *job_type
                        && let Some(first) = self
                            .keys
                            .get(&(effect.job_type.clone(), effect.key.clone()))
                    {
                        return Some(Violation {
                            invariant: invariant.clone(),
                            root: Some(root),
                            reason: twice(trace, first, index, effect),
                            event: Some(index),
                        });
                    }
                }
                Invariant::Condition { .. } | Invariant::EndsIn(_) | Invariant::Reaches { .. } => {}
            }
        }
        match event {
            TraceEvent::ElementActivated { element } => {
                self.reached.insert((root, element.clone()));
            }
            TraceEvent::ToolActivated { tool, .. } => {
                self.reached.insert((root, tool.clone()));
            }
            TraceEvent::ElementCompleted { element } => {
                self.completed
                    .entry(root)
                    .or_default()
                    .insert(element.clone());
            }
            TraceEvent::SideEffect(effect) if effect.performed => {
                self.keys
                    .entry((effect.job_type.clone(), effect.key.clone()))
                    .or_insert(FirstSeen::Trace(index));
            }
            _ => {}
        }
        None
    }

    /// Checks the conditions against the state now.
    pub fn check_state(&self, state: &dyn RunView) -> Option<Violation> {
        if self.conditions.is_empty() {
            return None;
        }
        let now = jiff::Timestamp::from_millisecond(state.now_ms())
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let env = baton_feel::Env::at(now);
        for root in state.roots() {
            let variables = state.root_variables(root);
            for (i, expression) in &self.conditions {
                let evaluation = expression.evaluate(&variables, &env);
                let why = match evaluation.result {
                    Ok(baton_feel::Value::Boolean(true)) => continue,
                    Ok(baton_feel::Value::Null) => {
                        // The hint fits a variable not set yet (the condition is checked from
                        // the first step on), not a comparison of values of other types.
                        let unset = evaluation.warnings.is_empty()
                            || evaluation.warnings.iter().any(|w| {
                                matches!(
                                    w.kind,
                                    baton_feel::WarningKind::NoVariableFound
                                        | baton_feel::WarningKind::NoContextEntryFound
                                )
                            });
                        format!(
                            "it gives null{}{}",
                            warnings(&evaluation.warnings),
                            if unset {
                                " (a variable it reads is not set: write the condition so that it holds then, e.g. `x = null or ...`)"
                            } else {
                                ""
                            }
                        )
                    }
                    Ok(other) => format!("it gives {other}{}", warnings(&evaluation.warnings)),
                    Err(failure) => format!("it fails: {failure}"),
                };
                return Some(Violation {
                    invariant: self.invariants[*i].clone(),
                    root: Some(root),
                    reason: format!(
                        "in {} {why}; the variables are {}",
                        state.describe_root(root),
                        crate::variables::short(&Value::Object(variables), 200)
                    ),
                    event: None,
                });
            }
        }
        None
    }

    /// Checks how the runs ended ([`Invariant::EndsIn`]) and what they reached
    /// ([`Invariant::Reaches`]): call when the test is over.
    pub fn check_end(&self, state: &dyn RunView) -> Option<Violation> {
        for invariant in &self.invariants {
            if let Invariant::Reaches { element } = invariant {
                for root in state.roots() {
                    if !self.reached.contains(&(root, element.clone())) {
                        return Some(Violation {
                            invariant: invariant.clone(),
                            root: Some(root),
                            reason: format!(
                                "{} never activated \"{element}\"",
                                state.describe_root(root)
                            ),
                            event: None,
                        });
                    }
                }
            }
            let Invariant::EndsIn(allowed) = invariant else {
                continue;
            };
            for root in state.roots() {
                let end = state.root_end(root);
                let fits = allowed.iter().any(|a| match (a, &end) {
                    (EndState::Completed, RootEnd::Completed) => true,
                    (EndState::Terminated, RootEnd::Terminated) => true,
                    (EndState::Incident, RootEnd::Active { incident, .. }) => *incident,
                    (EndState::WaitingAt(e), RootEnd::Active { waiting_at, .. }) => {
                        waiting_at.contains(e)
                    }
                    _ => false,
                });
                if fits {
                    continue;
                }
                let actual = match &end {
                    RootEnd::Completed => "completed".to_string(),
                    RootEnd::Terminated => "terminated".to_string(),
                    RootEnd::Active {
                        waiting_at,
                        incident,
                    } => {
                        let at = if waiting_at.is_empty() {
                            "active, waiting at nothing".to_string()
                        } else {
                            let quoted: Vec<String> =
                                waiting_at.iter().map(|e| format!("\"{e}\"")).collect();
                            format!("active, waiting at {}", quoted.join(", "))
                        };
                        if *incident {
                            format!("{at}, with an open incident")
                        } else {
                            at
                        }
                    }
                };
                return Some(Violation {
                    invariant: invariant.clone(),
                    root: Some(root),
                    reason: format!("{} ended {actual}", state.describe_root(root)),
                    event: None,
                });
            }
        }
        None
    }
}

fn warnings(list: &[baton_feel::Warning]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        let texts: Vec<String> = list.iter().map(ToString::to_string).collect();
        format!(" ({})", texts.join("; "))
    }
}

/// The message of a key seen twice: both side effects and what happened between them (the
/// faults, timeouts, failures and clock moves that explain the second one).
fn twice(trace: &[RunEvent], first: &FirstSeen, second: usize, effect: &SideEffect) -> String {
    let mut lines = Vec::new();
    let from = match first {
        FirstSeen::Trace(i) => {
            lines.push(format!("  1. {}", trace[*i].event));
            i + 1
        }
        FirstSeen::Earlier(e) => {
            lines.push(format!("  1. {} ({})", e.effect, e.when));
            0
        }
    };
    let between: Vec<String> = trace[from..second]
        .iter()
        .filter(|e| {
            matches!(
                e.event,
                TraceEvent::Fault { .. }
                    | TraceEvent::JobTimedOut { .. }
                    | TraceEvent::JobFailed { .. }
                    | TraceEvent::ClockMoved { .. }
                    | TraceEvent::LateAnswerRejected { .. }
                    | TraceEvent::IncidentCreated { .. }
                    | TraceEvent::IncidentResolved { .. }
            )
        })
        .map(|e| format!("     then {}", e.event))
        .collect();
    lines.extend(between);
    lines.push(format!("  2. {}", trace[second].event));
    format!(
        "the key {} of {} was acted on twice:\n{}",
        Value::String(effect.key.clone()),
        effect.job_type,
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effect(key: &str, attempt: u32) -> TraceEvent {
        TraceEvent::SideEffect(SideEffect {
            job_type: "ticket-create".into(),
            element: "create-ticket".into(),
            key: key.into(),
            job_key: 7,
            attempt,
            performed: true,
        })
    }

    fn at(root: Key, event: TraceEvent) -> RunEvent {
        RunEvent { root, event }
    }

    #[test]
    fn a_key_acted_on_twice_names_both_side_effects_and_what_came_between() {
        let mut checker =
            InvariantChecker::new(vec![Invariant::at_most_once_per_key("ticket-create")]).unwrap();
        let trace = vec![
            at(1, effect("1042", 1)),
            at(
                1,
                TraceEvent::Fault {
                    element: "create-ticket".into(),
                    job_type: "ticket-create".into(),
                    attempt: 1,
                    fault: "crashes after its side effect".into(),
                },
            ),
            at(
                0,
                TraceEvent::ClockMoved {
                    to: 1_735_689_900_001,
                    cause: crate::trace::ClockCause::TimeSkipping,
                },
            ),
            at(
                1,
                TraceEvent::JobTimedOut {
                    element: "create-ticket".into(),
                    job_type: "ticket-create".into(),
                },
            ),
            at(1, effect("1042", 2)),
        ];
        assert_eq!(checker.observe(&trace[..1]), None);
        let violation = checker.observe(&trace).unwrap();
        assert_eq!(violation.event, Some(4));
        insta::assert_snapshot!(violation.to_string(), @r#"
        the invariant at most one side effect per idempotency key of "ticket-create" is broken: the key "1042" of ticket-create was acted on twice:
          1. side effect of ticket-create at create-ticket, key "1042" (job 7, activation 1)
             then fault at create-ticket (activation 1): crashes after its side effect
             then the clock moved to 2025-01-01T00:05:00.001Z (time skipping)
             then the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
          2. side effect of ticket-create at create-ticket, key "1042" (job 7, activation 2)
        "#);
    }

    #[test]
    fn never_before_holds_per_run() {
        let mut checker =
            InvariantChecker::new(vec![Invariant::never_before("create-ticket", "approve")])
                .unwrap();
        let trace = vec![
            at(
                1,
                TraceEvent::ElementCompleted {
                    element: "approve".into(),
                },
            ),
            at(1, effect("a", 1)),
            at(2, effect("b", 1)),
        ];
        let violation = checker.observe(&trace).unwrap();
        assert_eq!((violation.root, violation.event), (Some(2), Some(2)));
        insta::assert_snapshot!(violation.to_string(), @r#"the invariant "create-ticket" never before "approve" completed is broken: "create-ticket" acted on the outside world (side effect of ticket-create at create-ticket, key "b" (job 7, activation 1)) before "approve" completed"#);
    }

    #[test]
    fn bad_invariants_are_refused_with_what_is_known() {
        let elements = vec!["approve".to_string(), "create-ticket".to_string()];
        let types = vec!["ticket-create".to_string()];
        let errors: Vec<String> = [
            Invariant::never_before("create-tiket", "approve"),
            Invariant::at_most_once_per_key("tickets"),
            Invariant::condition("count <"),
            Invariant::ends_in([]),
            Invariant::ends_in([EndState::WaitingAt("aprove".into())]),
        ]
        .iter()
        .map(|i| i.validate(&elements, &types).unwrap_err().to_string())
        .collect();
        insta::assert_snapshot!(errors.join("\n"), @r#"
        the invariant "create-tiket" never before "approve" completed names the element "create-tiket", which no deployed process has (did you mean "create-ticket"?)
        the invariant at most one side effect per idempotency key of "tickets" names the job type "tickets", which no deployed process has (job types: ticket-create)
        the invariant condition count < is not valid FEEL: failed to parse expression 'count <': expected expression at 1:8, found end of input
        an invariant on how the run ends needs at least one end state
        the invariant ends waiting at "aprove" names the element "aprove", which no deployed process has (did you mean "approve"?)
        "#);
    }
}
