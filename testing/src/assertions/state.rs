//! Checks of the instance's state and of its elements: active, completed, terminated, counted,
//! in order.

use baton_engine::runtime::State;

use super::{ElementSelector, Outcome, Subject, quoted, state_word};
use crate::history::ElementEventKind;

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

impl<'a> Subject<'a> {
    /// Element instances of this instance that have not ended, in key order (not the process).
    pub(crate) fn active_instances(&self) -> Vec<baton_engine::runtime::ElementInstanceView> {
        self.engine
            .element_instances(self.instance)
            .into_iter()
            .filter(|i| i.key != self.instance && i.state.is_active())
            .collect()
    }

    pub(super) fn count(&self, sel: &ElementSelector, state: ElementState) -> usize {
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

    pub(super) fn count_events(&self, sel: &ElementSelector, kind: ElementEventKind) -> usize {
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

    pub(super) fn check_state(&self, expected: InstanceState) -> Outcome {
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

    pub(super) fn check_elements(&self, sel: &[ElementSelector], state: ElementsState) -> Outcome {
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

    pub(super) fn check_count(
        &self,
        sel: &ElementSelector,
        state: ElementState,
        amount: usize,
    ) -> Outcome {
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
}
