//! ASSERT_INCIDENT as CPT 8.10's `AssertIncidentInstructionHandler` runs it: the selector picks
//! the oldest incident of the test it matches, whatever its state (CPT's incident search has no
//! state filter); then each property the instruction gives is checked on that incident, in the
//! handler's order (state, error type, error message, element id), and the first that does not
//! hold fails with CPT's message. Incidents are read from the engine's log, so resolved ones
//! are found too.

use baton_engine::runtime::{Engine, Intent, Key, OtherIntent, RecordType, RecordValue};

use super::exec::{Ctx, InstructionFailure, fail};
use super::model::{AssertIncident, IncidentSelector, IncidentState};

/// An incident of the test, as the log tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Incident {
    key: Key,
    element_id: String,
    process_definition_id: String,
    error_type: &'static str,
    error_message: String,
    resolved: bool,
}

impl Incident {
    fn state(&self) -> &'static str {
        if self.resolved { "resolved" } else { "active" }
    }
}

/// Every incident created so far, oldest first (by key, as CPT sorts by creation time).
fn incidents(engine: &Engine) -> Vec<Incident> {
    let mut out: Vec<Incident> = Vec::new();
    for r in engine.records() {
        let (RecordValue::Incident(value), RecordType::Event, Some(key)) =
            (&r.value, r.record_type, r.key)
        else {
            continue;
        };
        match r.intent {
            Intent::Other(OtherIntent::Created) => out.push(Incident {
                key,
                element_id: engine.record_element_id(r).unwrap_or_default(),
                process_definition_id: engine
                    .deployed_processes()
                    .nth(value.proc.0 as usize)
                    .map(|p| p.bpmn_process_id().to_string())
                    .unwrap_or_default(),
                error_type: value.error_type.as_str(),
                error_message: value.error_message.to_string(),
                resolved: false,
            }),
            Intent::Other(OtherIntent::Resolved) => {
                if let Some(i) = out.iter_mut().find(|i| i.key == key) {
                    i.resolved = true;
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|i| i.key);
    out
}

/// The selector as CPT describes it: `elementId: x`, `processDefinitionId: p`, or both
/// joined with `, `.
fn describe(sel: &IncidentSelector) -> String {
    let mut parts = Vec::new();
    if let Some(id) = &sel.element_id {
        parts.push(format!("elementId: {id}"));
    }
    if let Some(id) = &sel.process_definition_id {
        parts.push(format!("processDefinitionId: {id}"));
    }
    parts.join(", ")
}

fn matches(sel: &IncidentSelector, i: &Incident) -> bool {
    sel.element_id
        .as_deref()
        .is_none_or(|id| i.element_id == id)
        && sel
            .process_definition_id
            .as_deref()
            .is_none_or(|id| i.process_definition_id == id)
}

/// The incidents of the test, one line each, for a failure message.
fn listing(all: &[Incident]) -> String {
    if all.is_empty() {
        return "the test has no incident".to_owned();
    }
    let lines: Vec<String> = all
        .iter()
        .map(|i| {
            format!(
                "elementId: {}, processDefinitionId: {} — {} {}: {}",
                i.element_id,
                i.process_definition_id,
                i.state(),
                i.error_type,
                i.error_message
            )
        })
        .collect();
    format!("incidents of the test:\n      {}", lines.join("\n      "))
}

pub(crate) fn assert_incident(
    ctx: &mut impl Ctx,
    a: &AssertIncident,
) -> Result<(), InstructionFailure> {
    let sel = &a.incident_selector;
    if sel.element_id.is_none() && sel.process_definition_id.is_none() {
        return Err(fail(
            ctx,
            "Missing required property: at least one of elementId or processDefinitionId must be set",
        ));
    }
    let all = ctx.read(incidents);
    let described = describe(sel);
    let Some(incident) = all.iter().find(|i| matches(sel, i)) else {
        let message = format!("No incident [{described}] found\n    {}", listing(&all));
        return Err(fail(ctx, message));
    };
    let mut problem = None;
    if let Some(state) = a.state {
        let holds = match state {
            IncidentState::Active => !incident.resolved,
            IncidentState::Resolved => incident.resolved,
        };
        if !holds {
            let want = match state {
                IncidentState::Active => "active",
                IncidentState::Resolved => "resolved",
            };
            problem = Some(format!(
                "Expected incident [{described}] to be {want}, but was {}",
                incident.state()
            ));
        }
    }
    if problem.is_none()
        && let Some(t) = a.error_type
        && t.as_str() != incident.error_type
    {
        problem = Some(format!(
            "Expected incident [{described}] to have error type {}, but was {}",
            t.as_str(),
            incident.error_type
        ));
    }
    if problem.is_none()
        && let Some(m) = &a.error_message
        && *m != incident.error_message
    {
        problem = Some(format!(
            "Expected incident [{described}] to have error message '{m}', but was '{}'",
            incident.error_message
        ));
    }
    if problem.is_none()
        && let Some(id) = &a.element_id
        && *id != incident.element_id
    {
        problem = Some(format!(
            "Expected incident [{described}] to have element ID '{id}', but was '{}'",
            incident.element_id
        ));
    }
    match problem {
        None => Ok(()),
        Some(p) => Err(fail(ctx, p)),
    }
}
