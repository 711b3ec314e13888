//! Small BPMN XML documents for behaviour tests: a definitions wrapper, and helpers that drive
//! an engine.
#![allow(dead_code)]

use baton_engine::runtime::*;

/// Wraps root elements (messages, signals, processes) in a `bpmn:definitions` element with the
/// usual namespaces.
pub fn definitions(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_1" targetNamespace="http://bpmn.io/schema/bpmn">
{body}
</bpmn:definitions>"#
    )
}

/// A `bpmn:message` with a FEEL correlation key (or none, for start events).
pub fn message(id: &str, name: &str, correlation_key: Option<&str>) -> String {
    match correlation_key {
        Some(k) => format!(
            r#"<bpmn:message id="{id}" name="{name}"><bpmn:extensionElements><zeebe:subscription correlationKey="{k}" /></bpmn:extensionElements></bpmn:message>"#
        ),
        None => format!(r#"<bpmn:message id="{id}" name="{name}" />"#),
    }
}

/// An executable process.
pub fn process(id: &str, content: &str) -> String {
    format!(r#"<bpmn:process id="{id}" isExecutable="true">{content}</bpmn:process>"#)
}

/// A sequence flow.
pub fn flow(id: &str, from: &str, to: &str) -> String {
    format!(r#"<bpmn:sequenceFlow id="{id}" sourceRef="{from}" targetRef="{to}" />"#)
}

/// Flows along a chain of element ids (`f_<from>_<to>`).
pub fn chain(ids: &[&str]) -> String {
    ids.windows(2)
        .map(|w| flow(&format!("f_{}_{}", w[0], w[1]), w[0], w[1]))
        .collect()
}

pub fn service(id: &str, job_type: &str) -> String {
    format!(
        r#"<bpmn:serviceTask id="{id}"><bpmn:extensionElements><zeebe:taskDefinition type="{job_type}" /></bpmn:extensionElements></bpmn:serviceTask>"#
    )
}

pub fn deploy(e: &mut Engine, xml: &str) -> DeploymentInfo {
    match e.deploy_xml("test.bpmn", xml) {
        Ok(info) => info,
        Err(r) => panic!("deploy failed: {r}\n{xml}"),
    }
}

pub fn doc(v: serde_json::Value) -> VariableDocument {
    match v {
        serde_json::Value::Object(m) => m.into_iter().collect(),
        _ => panic!("not an object"),
    }
}

pub fn state_of(e: &Engine, pi: Key) -> State {
    e.process_instance(pi).expect("instance").state
}

/// The ids of the elements that completed, in order.
pub fn completed(e: &Engine) -> Vec<String> {
    e.records()
        .iter()
        .filter(|r| r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementCompleted))
        .filter_map(|r| e.record_element_id(r))
        .collect()
}

/// The ids of the elements that were activated, in order.
pub fn activated(e: &Engine) -> Vec<String> {
    e.records()
        .iter()
        .filter(|r| r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementActivated))
        .filter_map(|r| e.record_element_id(r))
        .collect()
}

/// The log from position `from` on, without the records that only repeat keys (for snapshots
/// of one step).
pub fn log_since(e: &Engine, from: u64) -> String {
    e.records_since(from)
        .iter()
        .map(|r| format!("{:>4} {}\n", r.position, e.render_record(r)))
        .collect()
}

/// Completes every activatable job (oldest first) until none is left.
pub fn complete_all_jobs(e: &mut Engine) -> usize {
    let mut n = 0;
    loop {
        let jobs = e.activatable_jobs(None);
        let Some(j) = jobs.first() else { return n };
        e.complete_job(j.key, VariableDocument::new())
            .expect("completes");
        n += 1;
    }
}
