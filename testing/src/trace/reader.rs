//! Deriving the trace from the engine's records.

use baton_engine::runtime::records::{
    IncidentValue, JobRecord, ProcessInstanceValue, VariableValue,
};
use baton_engine::runtime::{
    BpmnElementType, ElementRef, Engine, Intent, Key, OtherIntent, ProcessInstanceIntent, Record,
    RecordType, RecordValue,
};
use rustc_hash::FxHashMap;
use serde_json::Value;

use super::TraceEvent;

/// Reads trace events from an engine's records, from where it last stopped.
///
/// Tool activations are the `toolCall` variables Zeebe sets on an agent's inner instances, tool
/// results the entries appended to an agent's output collection; elements and incidents are
/// their records. An agent is an ad-hoc sub-process with a job worker and an output
/// collection. A [`detailed`](TraceReader::detailed) reader also reads element activations and
/// the jobs that timed out or failed.
#[derive(Debug, Default, Clone)]
pub struct TraceReader {
    position: u64,
    detailed: bool,
    /// Agent instances (ad-hoc sub-process element instances) by key.
    agents: FxHashMap<Key, AgentScope>,
    /// `toolCall` variables by scope, until their scope shows itself as an agent's inner
    /// instance (Zeebe writes an activation's variables before the inner instance's records).
    tool_calls: FxHashMap<Key, Value>,
    /// Inner instances of agents (their element instances are tools).
    inner_instances: rustc_hash::FxHashSet<Key>,
}

#[derive(Debug, Clone)]
struct AgentScope {
    agent: String,
    output_collection: String,
    /// How many entries the output collection had when last written.
    results: usize,
}

impl TraceReader {
    /// A reader that starts at the engine's next record (what happened before is not read).
    pub fn from_now(engine: &Engine) -> TraceReader {
        TraceReader {
            position: engine.position(),
            ..TraceReader::default()
        }
    }

    /// Also reads element activations (not of an agent's tools: they are tool activations)
    /// and the jobs that timed out or failed: the trace invariants are checked over.
    pub fn detailed(mut self) -> TraceReader {
        self.detailed = true;
        self
    }

    /// The events written since the last call.
    pub fn read(&mut self, engine: &Engine) -> Vec<TraceEvent> {
        self.read_tagged(engine)
            .into_iter()
            .map(|(_, event)| event)
            .collect()
    }

    /// The events written since the last call, each with the process instance it happened in.
    pub fn read_tagged(&mut self, engine: &Engine) -> Vec<(Key, TraceEvent)> {
        let mut events = Vec::new();
        if engine.position() == self.position {
            return events;
        }
        for record in engine.records_since(self.position) {
            if record.record_type != RecordType::Event {
                continue;
            }
            match &record.value {
                RecordValue::ProcessInstance(v) => {
                    self.process_instance(engine, record, v, &mut events)
                }
                RecordValue::Variable(v) => self.variable(v, &mut events),
                RecordValue::Incident(incident) => {
                    incident_event(engine, record, incident, &mut events)
                }
                RecordValue::Job(job) if self.detailed => {
                    job_event(engine, record, job, &mut events)
                }
                _ => {}
            }
        }
        self.position = engine.position();
        events
    }

    /// An element's record: an agent's scope opening, a tool activated, an element activated,
    /// completed or terminated.
    fn process_instance(
        &mut self,
        engine: &Engine,
        record: &Record,
        v: &ProcessInstanceValue,
        events: &mut Vec<(Key, TraceEvent)>,
    ) {
        let Some(intent) = record.process_instance_intent() else {
            return;
        };
        let key = record.key.unwrap_or_default();
        let instance = v.process_instance_key;
        let process = crate::history::process_at(engine, v.proc);
        let element_id = || match v.element_ref {
            ElementRef::Process => Some(process.bpmn_process_id().to_string()),
            ElementRef::Element(e) => Some(process.element_id(e).to_string()),
            ElementRef::Flow(_) => None,
        };
        if v.element_type == BpmnElementType::AdHocSubProcessInnerInstance {
            if let Some(scope) = v.flow_scope_key.and_then(|k| self.agents.get(&k)) {
                if self.detailed {
                    self.inner_instances.insert(key);
                }
                if let Some(mut arguments) = self.tool_calls.remove(&key) {
                    let tool = arguments
                        .pointer("/_meta/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    if let Some(object) = arguments.as_object_mut() {
                        object.shift_remove("_meta");
                    }
                    events.push((
                        instance,
                        TraceEvent::ToolActivated {
                            agent: scope.agent.clone(),
                            tool,
                            arguments,
                        },
                    ));
                }
            }
            return;
        }
        match intent {
            ProcessInstanceIntent::ElementActivating => {
                if let ElementRef::Element(e) = v.element_ref
                    && let Some(ad_hoc) = process.ad_hoc_sub_process(e)
                    && ad_hoc.job_worker
                    && let Some(collection) = ad_hoc.output_collection
                {
                    self.agents.insert(
                        key,
                        AgentScope {
                            agent: process.element_id(e).to_string(),
                            output_collection: collection.to_string(),
                            results: 0,
                        },
                    );
                }
            }
            ProcessInstanceIntent::ElementActivated
                if self.detailed
                    && !v
                        .flow_scope_key
                        .is_some_and(|k| self.inner_instances.contains(&k)) =>
            {
                if let Some(element) = element_id() {
                    events.push((instance, TraceEvent::ElementActivated { element }));
                }
            }
            ProcessInstanceIntent::ElementCompleted => {
                if let Some(element) = element_id() {
                    events.push((instance, TraceEvent::ElementCompleted { element }));
                }
            }
            ProcessInstanceIntent::ElementTerminated => {
                if let Some(element) = element_id() {
                    events.push((instance, TraceEvent::ElementTerminated { element }));
                }
            }
            _ => {}
        }
    }

    /// A variable: a tool call waiting for its inner instance, or an agent's results growing.
    fn variable(&mut self, v: &VariableValue, events: &mut Vec<(Key, TraceEvent)>) {
        if &*v.name == "toolCall" {
            self.tool_calls.insert(v.scope_key, v.value.to_json());
        } else if let Some(scope) = self.agents.get_mut(&v.scope_key)
            && *v.name == *scope.output_collection
        {
            let value = v.value.to_json();
            let entries = value.as_array().map_or(&[][..], Vec::as_slice);
            for entry in entries.iter().skip(scope.results) {
                if let Some(tool) = entry.get("name").and_then(Value::as_str) {
                    events.push((
                        v.process_instance_key,
                        TraceEvent::ToolResult {
                            agent: scope.agent.clone(),
                            tool: tool.to_string(),
                            content: entry.get("content").cloned().unwrap_or(Value::Null),
                        },
                    ));
                }
            }
            scope.results = entries.len();
        }
    }
}

/// An incident created or resolved.
fn incident_event(
    engine: &Engine,
    record: &Record,
    incident: &IncidentValue,
    events: &mut Vec<(Key, TraceEvent)>,
) {
    let process = crate::history::process_at(engine, incident.proc);
    let element = match incident.element {
        ElementRef::Process => process.bpmn_process_id().to_string(),
        ElementRef::Element(e) => process.element_id(e).to_string(),
        ElementRef::Flow(_) => return,
    };
    let instance = incident.process_instance_key;
    match record.intent {
        Intent::Other(OtherIntent::Created) => {
            events.push((
                instance,
                TraceEvent::IncidentCreated {
                    element,
                    error_type: incident.error_type.to_string(),
                    message: incident.error_message.to_string(),
                },
            ));
        }
        Intent::Other(OtherIntent::Resolved) => {
            events.push((instance, TraceEvent::IncidentResolved { element }));
        }
        _ => {}
    }
}

/// A job that timed out or failed (a detailed reader's).
fn job_event(
    engine: &Engine,
    record: &Record,
    job: &JobRecord,
    events: &mut Vec<(Key, TraceEvent)>,
) {
    let element = || {
        let process = crate::history::process_at(engine, job.proc);
        match job.element {
            ElementRef::Element(e) => process.element_id(e).to_string(),
            _ => process.bpmn_process_id().to_string(),
        }
    };
    let instance = job.process_instance_key;
    match record.intent {
        Intent::Other(OtherIntent::TimedOut) => events.push((
            instance,
            TraceEvent::JobTimedOut {
                element: element(),
                job_type: job.job_type.to_string(),
            },
        )),
        Intent::Other(OtherIntent::Failed) => events.push((
            instance,
            TraceEvent::JobFailed {
                element: element(),
                job_type: job.job_type.to_string(),
                retries: job.retries,
                message: job.error_message.as_deref().unwrap_or_default().to_string(),
            },
        )),
        _ => {}
    }
}
