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
    pub element_type: BpmnElementType,
    pub state: RowState,
    pub start_ms: i64,
    pub end_ms: Option<i64>,
    pub parent_process_instance_key: Option<Key>,
    pub parent_element_instance_key: Option<Key>,
}

/// The read model: definitions and instances, by key.
#[derive(Debug, Default)]
pub(crate) struct ReadModel {
    pub processes: Vec<ProcessDefinition>,
    pub instances: BTreeMap<Key, InstanceRow>,
    /// The root of each process instance's call hierarchy.
    pub roots: BTreeMap<Key, Key>,
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
