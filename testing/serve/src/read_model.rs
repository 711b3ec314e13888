//! What reads and searches see: every process and element instance with its start and end
//! time, kept from the engine's records as they are written (the engine's state holds only live
//! instances, and no times). Updated after every request, so a read sees every acknowledged
//! command at once.

use std::collections::BTreeMap;
use std::sync::Arc;

use baton_engine::Engine;
use baton_engine::runtime::{
    BpmnElementType, ElementRef, Intent, Key, ProcessInstanceIntent, RecordValue,
};

/// A deployed process version.
#[derive(Debug, Clone)]
pub(crate) struct ProcessDefinition {
    pub key: Key,
    pub id: Arc<str>,
    pub name: Option<String>,
    pub version: i32,
    pub version_tag: Option<String>,
    pub resource_name: Arc<str>,
}

/// How an element instance (or a process instance) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowState {
    Active,
    Completed,
    Terminated,
}

impl RowState {
    pub fn as_str(self) -> &'static str {
        match self {
            RowState::Active => "ACTIVE",
            RowState::Completed => "COMPLETED",
            RowState::Terminated => "TERMINATED",
        }
    }
}

/// An element instance, or a process instance (`element_type` `PROCESS`).
#[derive(Debug, Clone)]
pub(crate) struct InstanceRow {
    /// Index into [`ReadModel::processes`].
    pub proc: usize,
    pub process_instance_key: Key,
    /// The element id (the process id for the process instance).
    pub element_id: String,
    /// The element's name (its id when it has none, as Operate shows it).
    pub element_name: String,
    pub element_type: BpmnElementType,
    pub state: RowState,
    pub start_ms: i64,
    pub end_ms: Option<i64>,
    pub parent_process_instance_key: Option<Key>,
    pub parent_element_instance_key: Option<Key>,
}

/// A variable as last written.
#[derive(Debug, Clone)]
pub(crate) struct VariableRow {
    pub key: Key,
    pub process_instance_key: Key,
    pub value: serde_json::Value,
}

/// The name of the element a record is about (its id when it has none).
fn element_name(
    engine: &Engine,
    value: &baton_engine::runtime::records::ProcessInstanceValue,
) -> String {
    let Some(process) = engine.deployed_processes().nth(value.proc.0 as usize) else {
        return String::new();
    };
    match value.element_ref {
        ElementRef::Element(e) => {
            let element = process.model().element(e);
            element.name.as_deref().unwrap_or(&element.id).to_string()
        }
        _ => process
            .model()
            .name
            .clone()
            .unwrap_or_else(|| process.bpmn_process_id().to_string()),
    }
}

/// The read model: definitions and instances, by key.
#[derive(Debug, Default)]
pub(crate) struct ReadModel {
    pub processes: Vec<ProcessDefinition>,
    pub instances: BTreeMap<Key, InstanceRow>,
    /// The root of each process instance's call hierarchy.
    pub roots: BTreeMap<Key, Key>,
    /// Every variable as last written, by (scope, name): ended instances' variables too.
    pub variables: BTreeMap<(Key, Arc<str>), VariableRow>,
    /// When each incident and each user task was created, and when a user task ended.
    pub created: BTreeMap<Key, i64>,
    pub ended: BTreeMap<Key, i64>,
    position: u64,
}

impl ReadModel {
    /// Reads the records written since the last call.
    pub fn sync(&mut self, engine: &Engine) {
        let deployed = engine.deployed_processes().count();
        if deployed != self.processes.len() {
            self.processes = engine
                .deployed_processes()
                .map(|p| ProcessDefinition {
                    key: p.key(),
                    id: p.bpmn_process_id().clone(),
                    name: p.model().name.clone(),
                    version: p.version(),
                    version_tag: p.version_tag().map(str::to_owned),
                    resource_name: p.resource_name().clone(),
                })
                .collect();
        }
        for record in engine.records_since(self.position) {
            self.position = record.position;
            match &record.value {
                RecordValue::Variable(v) => {
                    self.variables.insert(
                        (v.scope_key, v.name.clone()),
                        VariableRow {
                            key: record.key.unwrap_or_default(),
                            process_instance_key: v.process_instance_key,
                            value: v.value.to_json(),
                        },
                    );
                }
                RecordValue::Incident(_) | RecordValue::UserTask(_) => {
                    if let Some(key) = record.key {
                        self.created.entry(key).or_insert(record.timestamp);
                        if matches!(
                            record.intent.as_str(),
                            "COMPLETED" | "CANCELED" | "RESOLVED"
                        ) {
                            self.ended.insert(key, record.timestamp);
                        }
                    }
                }
                _ => {}
            }
            let (RecordValue::ProcessInstance(value), Intent::ProcessInstance(intent)) =
                (&record.value, record.intent)
            else {
                continue;
            };
            if matches!(value.element_ref, ElementRef::Flow(_)) {
                continue;
            }
            let Some(key) = record.key else { continue };
            match intent {
                ProcessInstanceIntent::ElementActivating => {
                    if value.element_type == BpmnElementType::Process {
                        let root = value
                            .parent_process_instance_key
                            .and_then(|p| self.roots.get(&p).copied())
                            .unwrap_or(key);
                        self.roots.insert(key, root);
                    }
                    self.instances.insert(
                        key,
                        InstanceRow {
                            process_instance_key: value.process_instance_key,
                            element_id: engine.record_element_id(record).unwrap_or_default(),
                            element_name: element_name(engine, value),
                            proc: value.proc.0 as usize,
                            element_type: value.element_type,
                            state: RowState::Active,
                            start_ms: record.timestamp,
                            end_ms: None,
                            parent_process_instance_key: value.parent_process_instance_key,
                            parent_element_instance_key: value.parent_element_instance_key,
                        },
                    );
                }
                ProcessInstanceIntent::ElementCompleted
                | ProcessInstanceIntent::ElementTerminated => {
                    if let Some(row) = self.instances.get_mut(&key) {
                        row.state = if intent == ProcessInstanceIntent::ElementCompleted {
                            RowState::Completed
                        } else {
                            RowState::Terminated
                        };
                        row.end_ms = Some(record.timestamp);
                    }
                }
                _ => {}
            }
        }
    }

    pub fn process(&self, proc: usize) -> Option<&ProcessDefinition> {
        self.processes.get(proc)
    }

    pub fn process_by_key(&self, key: Key) -> Option<&ProcessDefinition> {
        self.processes.iter().find(|p| p.key == key)
    }

    /// A process instance (not an element instance).
    pub fn process_instance(&self, key: Key) -> Option<&InstanceRow> {
        self.instances
            .get(&key)
            .filter(|r| r.element_type == BpmnElementType::Process)
    }

    /// The position of the last record read.
    pub fn position(&self) -> u64 {
        self.position
    }
}

/// Epoch milliseconds as the API writes times: RFC 3339 in UTC with milliseconds.
pub(crate) fn iso(ms: i64) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(t) => t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        Err(_) => "1970-01-01T00:00:00.000Z".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_rfc_3339_with_milliseconds() {
        assert_eq!(super::iso(1_735_689_600_123), "2025-01-01T00:00:00.123Z");
        assert_eq!(super::iso(0), "1970-01-01T00:00:00.000Z");
    }
}
