//! What a case left on the endpoint, read back through the searches for `--compare`: the
//! process instances in creation order with their element instances and states (in order),
//! the path, the variables by scope, the incidents and the user tasks. Keys and times are left
//! out (each instance and scope is named by its place instead); the read side is read until two
//! reads in a row agree, so a lagging cluster is not mistaken for a different outcome.

use std::collections::BTreeMap;

use baton_rest::Key;
use baton_rest::process_instances::ProcessInstanceResult;
use baton_rest::reads::{
    ElementInstanceResult, IncidentResult, UserTaskSearchResult, VariableResult,
};
use serde::Serialize;
use serde_json::{Value, json};

use super::session::Session;
use crate::client::CallError;
use crate::poll::{Attempt, poll};

/// One case's observable outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    pub instances: Vec<ObservedInstance>,
    /// `elementId state [assignee]`, oldest first.
    pub user_tasks: Vec<String>,
    /// `elementId state errorType: errorMessage`, oldest first.
    pub incidents: Vec<String>,
    /// How many reads it took until two agreed (eventual consistency, not compared).
    #[serde(skip)]
    pub reads: usize,
}

/// A process instance, named by its place among the case's instances.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservedInstance {
    pub process: String,
    pub state: String,
    /// The place of the parent instance, for a called process.
    pub parent: Option<usize>,
    /// `elementId state`, in the order the element instances were created.
    pub elements: Vec<String>,
    /// The elements completed, in the order they were activated.
    pub path: Vec<String>,
    /// Variables by scope: `process`, or `elementId#n` (the n-th instance of the element).
    pub variables: BTreeMap<String, BTreeMap<String, Value>>,
}

/// Reads the case's outcome until two reads agree (or the assert timeout passes).
pub(super) fn observe(session: &Session<'_>) -> Result<Observation, String> {
    let mut last: Option<Observation> = None;
    let mut reads = 0;
    poll(session.timeout, || {
        reads += 1;
        match read_once(session) {
            Err(e) => Attempt::Retry(e.to_string()),
            Ok(now) => {
                if last.as_ref() == Some(&now) {
                    Attempt::Done(now)
                } else {
                    last = Some(now);
                    Attempt::Retry("the read side kept changing".to_owned())
                }
            }
        }
    })
    .or_else(|e| last.clone().ok_or(e))
    .map(|mut o| {
        o.reads = reads;
        o
    })
}

fn read_once(session: &Session<'_>) -> Result<Observation, CallError> {
    let mut all: Vec<ProcessInstanceResult> = session.search("process-instances", json!({}))?;
    all.sort_by_key(|p| p.process_instance_key);
    // The case's instances: those it created and the instances they called.
    let created = session.created.borrow().clone();
    let mut instances: Vec<ProcessInstanceResult> = Vec::new();
    for p in all {
        let mine = created.contains(&p.process_instance_key)
            || p.parent_process_instance_key
                .is_some_and(|parent| instances.iter().any(|i| i.process_instance_key == parent));
        if mine {
            instances.push(p);
        }
    }
    let ours = |key: Key| instances.iter().any(|p| p.process_instance_key == key);
    let place = |key: Key| instances.iter().position(|p| p.process_instance_key == key);
    let mut observed = Vec::with_capacity(instances.len());
    for p in &instances {
        let key = p.process_instance_key.to_string();
        let mut elements: Vec<ElementInstanceResult> =
            session.search("element-instances", json!({"processInstanceKey": key}))?;
        elements.retain(|e| e.element_type != "PROCESS");
        elements.sort_by_key(|e| e.element_instance_key);
        // In activation order: end dates tie within a millisecond, and times are not compared.
        let completed: Vec<&ElementInstanceResult> =
            elements.iter().filter(|e| e.state == "COMPLETED").collect();
        // Scope names: the n-th instance of an element.
        let mut scope_names: BTreeMap<Key, String> = BTreeMap::new();
        scope_names.insert(p.process_instance_key, "process".to_owned());
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &elements {
            let n = seen.entry(&e.element_id).or_default();
            *n += 1;
            scope_names.insert(e.element_instance_key, format!("{}#{n}", e.element_id));
        }
        let vars: Vec<VariableResult> =
            session.search("variables", json!({"processInstanceKey": key}))?;
        let mut variables: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
        for v in vars {
            let scope = scope_names
                .get(&v.scope_key)
                .cloned()
                .unwrap_or_else(|| "another scope".to_owned());
            let value = serde_json::from_str(&v.value).unwrap_or(Value::String(v.value));
            variables
                .entry(scope)
                .or_default()
                .insert(v.name, without_keys_and_times(value));
        }
        observed.push(ObservedInstance {
            process: p.process_definition_id.clone(),
            state: p.state.clone(),
            parent: p.parent_process_instance_key.and_then(place),
            elements: elements
                .iter()
                .map(|e| format!("{} {}", e.element_id, e.state))
                .collect(),
            path: completed.iter().map(|e| e.element_id.clone()).collect(),
            variables,
        });
    }
    let mut tasks: Vec<UserTaskSearchResult> = session.search("user-tasks", json!({}))?;
    tasks.retain(|t| ours(t.process_instance_key));
    tasks.sort_by_key(|t| t.user_task_key);
    let mut incidents: Vec<IncidentResult> = session.search("incidents", json!({}))?;
    incidents.retain(|i| ours(i.process_instance_key));
    incidents.sort_by_key(|i| i.incident_key);
    Ok(Observation {
        instances: observed,
        user_tasks: tasks
            .iter()
            .map(|t| match &t.assignee {
                Some(a) => format!("{} {} {a}", t.element_id, t.state),
                None => format!("{} {}", t.element_id, t.state),
            })
            .collect(),
        incidents: incidents
            .iter()
            .map(|i| {
                format!(
                    "{} {} {}: {}",
                    i.element_id, i.state, i.error_type, i.error_message
                )
            })
            .collect(),
        reads: 0,
    })
}

/// The smallest key Zeebe makes (`1 << 51`, partition 1): a larger number is taken for a key.
const SMALLEST_KEY: u64 = 1 << 51;

/// A variable's value with the keys (numbers, or strings of digits, from `1 << 51` up) and
/// the RFC 3339 times inside it replaced by `<key>` and `<time>`: they differ between any two
/// runs (an agent's context records both).
pub(super) fn without_keys_and_times(value: Value) -> Value {
    match value {
        Value::Number(n) if n.as_u64().is_some_and(|n| n >= SMALLEST_KEY) => {
            Value::String("<key>".into())
        }
        Value::String(s) => {
            let key = s.len() >= 16
                && s.bytes().all(|b| b.is_ascii_digit())
                && s.parse::<u64>().is_ok_and(|n| n >= SMALLEST_KEY);
            if key {
                Value::String("<key>".into())
            } else if s.len() >= 20 && s.parse::<jiff::Timestamp>().is_ok() {
                Value::String("<time>".into())
            } else {
                Value::String(s)
            }
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(without_keys_and_times).collect())
        }
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k, without_keys_and_times(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_times_inside_values_are_replaced() {
        let v = json!({"k": 2251799813685251u64, "s": "2251799813685251", "n": 42, "t": "2026-12-07T19:35:40.462Z",
                       "list": [{"completedAt": "2026-12-07T19:35:40.462+01:00", "id": "call_1"}], "d": "2026-12-07"});
        assert_eq!(
            without_keys_and_times(v),
            json!({"k": "<key>", "s": "<key>", "n": 42, "t": "<time>", "list": [{"completedAt": "<time>", "id": "call_1"}], "d": "2026-12-07"})
        );
    }
}
