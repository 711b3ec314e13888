//! An invariant in the form exploration files (and an exploration's JSON report) write it in:
//! `{"neverBefore": {"element": ..., "before": ...}}`, `"noIncident"`, `{"endsIn": [...]}`, ...
//! [`Invariant`] deserializes from it.

use serde::Deserialize;
use serde_json::Value;

use super::{EndState, Invariant};

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
enum RawInvariant {
    NeverBefore { element: String, before: String },
    AtMostOncePerKey { job_type: String },
    NoIncident,
    NoIncidentAt(String),
    Condition(String),
    EndsIn(Vec<RawEndState>),
    Reaches(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
enum RawEndState {
    Completed,
    Terminated,
    WaitingAt(String),
    Incident,
}

impl RawInvariant {
    fn into_invariant(self) -> Invariant {
        match self {
            RawInvariant::NeverBefore { element, before } => {
                Invariant::never_before(element, before)
            }
            RawInvariant::AtMostOncePerKey { job_type } => {
                Invariant::at_most_once_per_key(job_type)
            }
            RawInvariant::NoIncident => Invariant::no_incident(),
            RawInvariant::NoIncidentAt(e) => Invariant::no_incident_at(e),
            RawInvariant::Condition(c) => Invariant::condition(c),
            RawInvariant::EndsIn(states) => {
                Invariant::ends_in(states.into_iter().map(|s| match s {
                    RawEndState::Completed => EndState::Completed,
                    RawEndState::Terminated => EndState::Terminated,
                    RawEndState::WaitingAt(e) => EndState::WaitingAt(e),
                    RawEndState::Incident => EndState::Incident,
                }))
            }
            RawInvariant::Reaches(e) => Invariant::reaches(e),
        }
    }
}

/// An invariant in the form exploration files write it in (`{"neverBefore": {...}}`,
/// `"noIncident"`, ...).
pub(crate) fn invariant_to_json(invariant: &Invariant) -> Value {
    use serde_json::json;
    match invariant {
        Invariant::NeverBefore { element, before } => {
            json!({"neverBefore": {"element": element, "before": before}})
        }
        Invariant::AtMostOncePerKey { job_type } => {
            json!({"atMostOncePerKey": {"jobType": job_type}})
        }
        Invariant::NoIncident => json!("noIncident"),
        Invariant::NoIncidentAt { element } => json!({"noIncidentAt": element}),
        Invariant::Condition { expression } => json!({"condition": expression}),
        Invariant::EndsIn(states) => {
            let states: Vec<Value> = states
                .iter()
                .map(|s| match s {
                    EndState::Completed => json!("completed"),
                    EndState::Terminated => json!("terminated"),
                    EndState::WaitingAt(e) => json!({"waitingAt": e}),
                    EndState::Incident => json!("incident"),
                })
                .collect();
            json!({"endsIn": states})
        }
        Invariant::Reaches { element } => json!({"reaches": element}),
    }
}

/// Reads an invariant in the form exploration files write it in.
pub(crate) fn invariant_from_json(value: &Value) -> Result<Invariant, String> {
    serde_path_to_error::deserialize::<_, RawInvariant>(value)
        .map(RawInvariant::into_invariant)
        .map_err(|e| e.to_string())
}

impl<'de> Deserialize<'de> for Invariant {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Invariant, D::Error> {
        RawInvariant::deserialize(deserializer).map(RawInvariant::into_invariant)
    }
}
