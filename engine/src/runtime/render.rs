//! Rendering records: a stable one-line text (golden logs) and JSON shaped like Zeebe's
//! exporters write it.

use serde_json::{Map, Value as Json, json};

use crate::runtime::engine::Engine;
use crate::runtime::records::{DecisionValue, JobRecord, Record, RecordType, RecordValue};

fn key_text(k: Option<u64>) -> String {
    match k {
        Some(k) => k.to_string(),
        None => "-1".to_owned(),
    }
}

fn key_json(k: Option<u64>) -> Json {
    match k {
        Some(k) => json!(k),
        None => json!(-1),
    }
}

/// A decision evaluation's detail: its output and matched rules, or why it failed.
fn decision_evaluation_detail(r: &Record, d: &DecisionValue) -> String {
    match &d.failure_message {
        None => format!(
            " decision=\"{}\" output={} matchedRules={:?} key={}",
            d.decision_id,
            d.output,
            d.matched_rules,
            key_text(r.key)
        ),
        Some(message) => format!(
            " decision=\"{}\" failed=\"{}\" key={}",
            d.decision_id,
            message,
            key_text(r.key)
        ),
    }
}

impl Engine {
    /// One stable line per record, e.g.
    /// `EVENT PROCESS_INSTANCE ELEMENT_ACTIVATED SERVICE_TASK "Task_1" key=... scope=...`.
    pub fn render_record(&self, r: &Record) -> String {
        let mut line = format!("{} {} {}", r.record_type, r.value_type, r.intent);
        line.push_str(&self.record_detail(r));
        if let Some(rej) = &r.rejection {
            line.push_str(&format!(
                " rejection={} \"{}\"",
                rej.rejection_type, rej.message
            ));
        }
        line
    }

    /// What a record's line says after its intent, by value type.
    fn record_detail(&self, r: &Record) -> String {
        match &r.value {
            RecordValue::ProcessInstance(v) => format!(
                " {} \"{}\" key={} scope={}",
                v.element_type,
                self.record_element_id(r).unwrap_or_default(),
                key_text(r.key),
                key_text(v.flow_scope_key)
            ),
            RecordValue::Variable(v) => format!(
                " \"{}\"={} key={} scope={}",
                v.name,
                v.value,
                key_text(r.key),
                v.scope_key
            ),
            RecordValue::Job(j) => self.job_detail(r, j),
            RecordValue::Incident(i) => format!(
                " {} element=\"{}\" key={} message=\"{}\"",
                i.error_type,
                self.record_element_id(r).unwrap_or_default(),
                key_text(r.key),
                i.error_message
            ),
            RecordValue::ProcessInstanceCreation {
                process_instance_key,
                ..
            } => format!(" pi={process_instance_key}"),
            RecordValue::Process(p) => {
                let p = self.process(*p);
                format!(
                    " \"{}\" version={} key={}",
                    p.bpmn_process_id,
                    p.version,
                    key_text(r.key)
                )
            }
            RecordValue::UserTask(t) => format!(
                " element=\"{}\" key={} assignee={}",
                self.process(t.proc).element(t.element).id,
                key_text(r.key),
                t.assignee.as_deref().unwrap_or("-")
            ),
            RecordValue::Timer(t) => format!(
                " element=\"{}\" due={} repetitions={} key={}",
                self.process(t.proc).element(t.target_element).id,
                t.due_date,
                t.repetitions,
                key_text(r.key)
            ),
            RecordValue::Message(m) => format!(
                " name=\"{}\" correlationKey=\"{}\" key={}",
                m.name,
                m.correlation_key,
                key_text(r.key)
            ),
            RecordValue::Subscription(s) => format!(
                " name=\"{}\" correlationKey=\"{}\" element=\"{}\" key={}",
                s.message_name,
                s.correlation_key,
                self.process(s.proc).element(s.element).id,
                key_text(r.key)
            ),
            RecordValue::ConditionalSubscription(c) => format!(
                " element=\"{}\" key={}",
                self.process(c.proc).element(c.element).id,
                key_text(r.key)
            ),
            RecordValue::Form { form_id, version } => {
                format!(" \"{form_id}\" version={version} key={}", key_text(r.key))
            }
            RecordValue::Compensation(c) => format!(
                " element=\"{}\" handler=\"{}\" key={}",
                self.process(c.proc).element(c.activity).id,
                self.process(c.proc).element(c.handler).id,
                key_text(r.key)
            ),
            RecordValue::Signal(s) => {
                format!(" name=\"{}\" key={}", s.signal_name, key_text(r.key))
            }
            RecordValue::DecisionEvaluation(d) => decision_evaluation_detail(r, d),
            RecordValue::DecisionRequirements(idx) => {
                let drg = self.drg(*idx);
                format!(
                    " \"{}\" version={} resource=\"{}\" key={}",
                    drg.id,
                    drg.version,
                    drg.resource_name,
                    key_text(r.key)
                )
            }
            RecordValue::Decision(idx) => {
                let d = &self.deployed_decisions()[idx.0 as usize];
                format!(
                    " \"{}\" version={} key={}",
                    d.id,
                    d.version,
                    key_text(r.key)
                )
            }
            RecordValue::AdHocInstruction { elements, .. } => {
                format!(" elements={:?} key={}", elements, key_text(r.key))
            }
            RecordValue::Escalation {
                escalation_code, ..
            } => {
                format!(" code=\"{escalation_code}\" key={}", key_text(r.key))
            }
            RecordValue::RuntimeInstruction { element_id, .. } => {
                format!(" afterElement=\"{element_id}\" key={}", key_text(r.key))
            }
            RecordValue::Clock { time } => format!(" time={time}"),
            RecordValue::GlobalListener(l) => format!(
                " id=\"{}\" type=\"{}\" eventTypes={:?} retries={} afterNonGlobal={} priority={}",
                l.id, l.job_type, l.event_types, l.retries, l.after_non_global, l.priority
            ),
            RecordValue::ClusterVariable {
                name,
                value,
                tenant_id,
            } => match tenant_id {
                Some(t) => format!(" name=\"{name}\" value={value} scope=TENANT tenant=\"{t}\""),
                None => format!(" name=\"{name}\" value={value} scope=GLOBAL"),
            },
            _ => format!(" key={}", key_text(r.key)),
        }
    }

    /// A job record's detail: its variables and error message only where it has them.
    fn job_detail(&self, r: &Record, j: &JobRecord) -> String {
        format!(
            " type=\"{}\" kind={} element=\"{}\" retries={} key={}{}{}",
            j.job_type,
            j.kind,
            self.record_element_id(r).unwrap_or_default(),
            j.retries,
            key_text(r.key),
            j.variables
                .as_ref()
                .filter(|v| !v.is_empty())
                .map(|v| format!(
                    " variables={}",
                    Json::Object(
                        v.iter()
                            .map(|(k, v)| (k.to_string(), v.to_json()))
                            .collect()
                    )
                ))
                .unwrap_or_default(),
            j.error_message
                .as_ref()
                .filter(|m| !m.is_empty())
                .map(|m| format!(" error=\"{m}\""))
                .unwrap_or_default(),
        )
    }

    /// The whole log, one line per record, each prefixed with its position.
    pub fn render_log(&self) -> String {
        let mut out = String::new();
        for r in &self.log.records {
            out.push_str(&format!("{:>4} {}\n", r.position, self.render_record(r)));
        }
        out
    }

    /// A record as JSON, with the fields Zeebe's exporters write.
    pub fn record_json(&self, r: &Record) -> Json {
        let mut value = Map::new();
        match &r.value {
            RecordValue::ProcessInstance(v) => {
                let p = self.process(v.proc);
                value.insert("bpmnProcessId".into(), json!(&*p.bpmn_process_id));
                value.insert("version".into(), json!(p.version));
                value.insert("processDefinitionKey".into(), json!(p.key));
                value.insert("processInstanceKey".into(), json!(v.process_instance_key));
                value.insert("elementId".into(), json!(self.record_element_id(r)));
                value.insert("flowScopeKey".into(), key_json(v.flow_scope_key));
                value.insert("bpmnElementType".into(), json!(v.element_type));
                value.insert("bpmnEventType".into(), json!(v.event_type));
                value.insert(
                    "parentProcessInstanceKey".into(),
                    key_json(v.parent_process_instance_key),
                );
                value.insert(
                    "parentElementInstanceKey".into(),
                    key_json(v.parent_element_instance_key),
                );
            }
            RecordValue::Variable(v) => {
                let p = self.process(v.proc);
                value.insert("name".into(), json!(&*v.name));
                value.insert("value".into(), json!(v.value.to_string()));
                value.insert("scopeKey".into(), json!(v.scope_key));
                value.insert("processInstanceKey".into(), json!(v.process_instance_key));
                value.insert("processDefinitionKey".into(), json!(p.key));
                value.insert("bpmnProcessId".into(), json!(&*p.bpmn_process_id));
            }
            RecordValue::Job(j) => {
                let p = self.process(j.proc);
                value.insert("type".into(), json!(&*j.job_type));
                value.insert("jobKind".into(), json!(j.kind));
                value.insert("jobListenerEventType".into(), json!(j.listener_event_type));
                value.insert("retries".into(), json!(j.retries));
                value.insert("retryBackoff".into(), json!(j.retry_backoff));
                value.insert("deadline".into(), json!(j.deadline.unwrap_or(-1)));
                value.insert("worker".into(), json!(j.worker.as_deref().unwrap_or("")));
                value.insert(
                    "errorMessage".into(),
                    json!(j.error_message.as_deref().unwrap_or("")),
                );
                value.insert(
                    "errorCode".into(),
                    json!(j.error_code.as_deref().unwrap_or("")),
                );
                value.insert("customHeaders".into(), json!(&*j.custom_headers));
                value.insert(
                    "variables".into(),
                    json!(j.variables.as_deref().cloned().unwrap_or_default()),
                );
                value.insert("elementId".into(), json!(self.record_element_id(r)));
                value.insert("elementInstanceKey".into(), json!(j.element_instance_key));
                value.insert("processInstanceKey".into(), json!(j.process_instance_key));
                value.insert("bpmnProcessId".into(), json!(&*p.bpmn_process_id));
                value.insert("processDefinitionKey".into(), json!(p.key));
            }
            RecordValue::Incident(i) => {
                let p = self.process(i.proc);
                value.insert("errorType".into(), json!(i.error_type));
                value.insert("errorMessage".into(), json!(&*i.error_message));
                value.insert("elementId".into(), json!(self.record_element_id(r)));
                value.insert("elementInstanceKey".into(), json!(i.element_instance_key));
                value.insert("jobKey".into(), key_json(i.job_key));
                value.insert("variableScopeKey".into(), json!(i.variable_scope_key));
                value.insert("processInstanceKey".into(), json!(i.process_instance_key));
                value.insert("bpmnProcessId".into(), json!(&*p.bpmn_process_id));
            }
            RecordValue::DecisionEvaluation(d) => {
                value = self.decision_record_json(r.key, d);
            }
            RecordValue::ClusterVariable {
                name,
                value: v,
                tenant_id,
            } => {
                value.insert("name".into(), json!(&**name));
                value.insert("value".into(), json!(v.to_string()));
                let scope = if tenant_id.is_some() {
                    "TENANT"
                } else {
                    "GLOBAL"
                };
                value.insert("scope".into(), json!(scope));
                value.insert("tenantId".into(), json!(tenant_id.as_deref()));
            }
            _ => {
                value.insert("text".into(), json!(self.render_record(r)));
            }
        }
        let mut out = Map::new();
        out.insert("position".into(), json!(r.position));
        out.insert("key".into(), key_json(r.key));
        out.insert("timestamp".into(), json!(r.timestamp));
        out.insert("recordType".into(), json!(r.record_type));
        out.insert("valueType".into(), json!(r.value_type));
        out.insert("intent".into(), json!(r.intent.as_str()));
        if r.record_type == RecordType::CommandRejection
            && let Some(rej) = &r.rejection
        {
            out.insert("rejectionType".into(), json!(rej.rejection_type));
            out.insert("rejectionReason".into(), json!(rej.message));
        }
        out.insert("value".into(), Json::Object(value));
        Json::Object(out)
    }
}
