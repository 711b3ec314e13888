//! What a search checks on every run, at every step: invariants (never before, no incident, a
//! FEEL condition over the root instance's variables, allowed end states) and reachability goals
//! (some trajectory reaches an element).
//!
//! A run is watched through its records, read once per step (the harness's segment between two
//! choices): element activations and completions, incidents. The watch's state (which guards
//! completed, which invariants this run broke already) is part of the run's state, so it forks
//! with the run and is part of its fingerprint.

use std::fmt;

use baton_engine::runtime::{
    BpmnElementType, ElementRef, Engine, Intent, Key, OtherIntent, ProcessInstanceIntent, Record,
    RecordType, RecordValue,
};
use serde_json::Map;

pub use crate::invariants::{EndState, Invariant};

/// An invariant ready to check: its FEEL parsed.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub invariant: Invariant,
    condition: Option<baton_feel::Expression>,
}

impl Checked {
    /// Refuses FEEL that does not parse (with the expression and the position).
    pub fn new(invariant: Invariant) -> Result<Checked, super::ExploreError> {
        let condition = match &invariant {
            Invariant::Condition { expression } => {
                Some(baton_feel::Expression::parse(expression).map_err(|e| {
                    super::ExploreError::InvalidCondition {
                        expression: expression.clone(),
                        message: e.to_string(),
                    }
                })?)
            }
            _ => None,
        };
        Ok(Checked {
            invariant,
            condition,
        })
    }
}

/// A broken invariant in one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broken {
    /// Index into the checked invariants.
    pub invariant: usize,
    pub message: String,
}

/// What the watch of one run keeps: per invariant, whether its guard completed (never before)
/// and whether this run broke it already (each run reports an invariant once).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Watch {
    guards: Vec<bool>,
    broken: Vec<bool>,
    /// The side effects the run performed so far: job type and idempotency key (what the
    /// outside world remembers).
    ledger: Vec<(String, String)>,
}

impl Watch {
    pub fn new(count: usize) -> Watch {
        Watch {
            guards: vec![false; count],
            broken: vec![false; count],
            ledger: Vec::new(),
        }
    }

    /// Reads one step's records; `broken` gets every invariant the step broke and every goal
    /// it reached (once per run).
    pub fn read(
        &mut self,
        checks: &[Checked],
        engine: &Engine,
        records: &[Record],
        broken: &mut Vec<Broken>,
    ) {
        for record in records {
            if record.record_type != RecordType::Event {
                continue;
            }
            match &record.value {
                RecordValue::ProcessInstance(v) => {
                    let Some(intent) = record.process_instance_intent() else {
                        continue;
                    };
                    if v.element_type == BpmnElementType::AdHocSubProcessInnerInstance {
                        continue;
                    }
                    let ElementRef::Element(e) = v.element_ref else {
                        continue;
                    };
                    let process = crate::history::process_at(engine, v.proc);
                    let element = &**process.element_id(e);
                    match intent {
                        ProcessInstanceIntent::ElementActivating => {
                            for (i, check) in checks.iter().enumerate() {
                                match &check.invariant {
                                    Invariant::NeverBefore { element: x, before }
                                        if x == element && !self.guards[i] =>
                                    {
                                        self.break_one(i, broken, || {
                                            format!(
                                                "\"{x}\" was activated before \"{before}\" completed"
                                            )
                                        });
                                    }
                                    Invariant::Reaches { element: x } if x == element => {
                                        self.break_one(i, broken, || format!("reached \"{x}\""));
                                    }
                                    _ => {}
                                }
                            }
                        }
                        ProcessInstanceIntent::ElementCompleted => {
                            for (i, check) in checks.iter().enumerate() {
                                if let Invariant::NeverBefore { before, .. } = &check.invariant
                                    && before == element
                                {
                                    self.guards[i] = true;
                                }
                            }
                        }
                        _ => {}
                    }
                }
                RecordValue::Incident(incident)
                    if record.intent == Intent::Other(OtherIntent::Created) =>
                {
                    let process = crate::history::process_at(engine, incident.proc);
                    let element = match incident.element {
                        ElementRef::Element(e) => process.element_id(e).to_string(),
                        _ => process.bpmn_process_id().to_string(),
                    };
                    for (i, check) in checks.iter().enumerate() {
                        let at_element = match &check.invariant {
                            Invariant::NoIncident => true,
                            Invariant::NoIncidentAt { element: x } => *x == element,
                            _ => false,
                        };
                        if at_element {
                            self.break_one(i, broken, || {
                                format!(
                                    "an incident at \"{element}\": {} {}",
                                    incident.error_type, incident.error_message
                                )
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A worker performed a side effect (completed a job it declares one for) with this key;
    /// an outside world that `deduplicates` does nothing for a key it has seen.
    pub fn side_effect(
        &mut self,
        checks: &[Checked],
        job_type: &str,
        key: String,
        deduplicates: bool,
        broken: &mut Vec<Broken>,
    ) {
        let seen = self.ledger.iter().any(|(t, k)| t == job_type && *k == key);
        if seen && deduplicates {
            return;
        }
        if seen {
            for (i, check) in checks.iter().enumerate() {
                if let Invariant::AtMostOncePerKey { job_type: t } = &check.invariant
                    && t == job_type
                {
                    self.break_one(i, broken, || {
                        format!("a second side effect of \"{job_type}\" with the key {key:?}")
                    });
                }
            }
        }
        self.ledger.push((job_type.to_string(), key));
    }

    /// Checks the conditions against the root instance's variables after a step.
    pub fn after_step(
        &mut self,
        checks: &[Checked],
        engine: &Engine,
        root: Key,
        broken: &mut Vec<Broken>,
    ) {
        if !checks.iter().any(|c| c.condition.is_some()) {
            return;
        }
        let alive = engine
            .process_instance(root)
            .is_some_and(|p| p.state.is_active());
        if !alive {
            return;
        }
        let mut variables = Map::new();
        for v in engine.variables(root) {
            variables.insert(v.name.to_string(), v.value.to_json());
        }
        let now = jiff::Timestamp::from_millisecond(engine.now())
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let env = baton_feel::Env::at(now);
        for (i, check) in checks.iter().enumerate() {
            let Some(condition) = &check.condition else {
                continue;
            };
            let result = condition.evaluate(&variables, &env).result;
            if !matches!(result, Ok(baton_feel::Value::Boolean(true))) {
                self.break_one(i, broken, || match result {
                    Ok(other) => format!("{} gives {other}", condition.source()),
                    Err(failure) => format!("{} fails: {failure}", condition.source()),
                });
            }
        }
    }

    /// Checks the end states when the run ended.
    pub fn at_end(
        &mut self,
        checks: &[Checked],
        engine: &Engine,
        root: Key,
        broken: &mut Vec<Broken>,
    ) {
        let Some(end) = end_state_of(engine, root) else {
            return;
        };
        for (i, check) in checks.iter().enumerate() {
            let Invariant::EndsIn(allowed) = &check.invariant else {
                continue;
            };
            let fits = allowed.iter().any(|a| match (a, &end) {
                (EndState::WaitingAt(x), Ended::Waiting(at)) => at.iter().any(|e| e == x),
                (EndState::Incident, Ended::Waiting(_)) => engine
                    .incidents()
                    .iter()
                    .any(|i| i.process_instance_key == root),
                (EndState::Completed, Ended::Completed)
                | (EndState::Terminated, Ended::Terminated) => true,
                _ => false,
            });
            if !fits {
                let allowed: Vec<String> = allowed.iter().map(ToString::to_string).collect();
                self.break_one(i, broken, || {
                    format!("the run ended {end}; allowed: {}", allowed.join(", "))
                });
            }
        }
    }

    fn break_one(&mut self, i: usize, broken: &mut Vec<Broken>, message: impl FnOnce() -> String) {
        if self.broken[i] {
            return;
        }
        self.broken[i] = true;
        broken.push(Broken {
            invariant: i,
            message: message(),
        });
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ended {
    Completed,
    Terminated,
    /// Waiting at these elements (the leaves of the live element tree, in key order).
    Waiting(Vec<String>),
}

impl fmt::Display for Ended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ended::Completed => f.write_str("completed"),
            Ended::Terminated => f.write_str("terminated"),
            Ended::Waiting(at) => {
                let at: Vec<String> = at.iter().map(|e| format!("\"{e}\"")).collect();
                write!(f, "waiting at {}", at.join(", "))
            }
        }
    }
}

/// The state the root instance is in, once nothing answers it any more.
pub(crate) fn end_state_of(engine: &Engine, root: Key) -> Option<Ended> {
    let instance = engine.process_instance(root)?;
    if !instance.state.is_active() {
        return Some(
            if instance.state == baton_engine::runtime::State::Completed {
                Ended::Completed
            } else {
                Ended::Terminated
            },
        );
    }
    let elements = engine.element_instances(root);
    let waiting: Vec<String> = elements
        .iter()
        .filter(|e| e.flow_scope_key.is_some())
        .filter(|e| !elements.iter().any(|c| c.flow_scope_key == Some(e.key)))
        .map(|e| e.element_id.clone())
        .collect();
    Some(Ended::Waiting(waiting))
}
