//! baton-engine: BPMN and DMN parsing, Zeebe's deploy checks and a deterministic token engine.
//!
//! Resources are deployed as Zeebe deploys them (parsed, checked, compiled); process instances
//! then run on a virtual clock, driven only by commands (create an instance, complete a job,
//! publish a message, move the clock, ...). Every change is written to an event log of
//! Zeebe's records, which assertions, coverage and replays read.
//!
//! ```
//! use baton_engine::{CreateInstance, Engine, Resource};
//! use baton_engine::runtime::{Intent, ProcessInstanceIntent, RecordValue};
//!
//! const ORDER: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
//! <bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
//!     xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="order-definitions"
//!     targetNamespace="http://bpmn.io/schema/bpmn">
//!   <bpmn:process id="order" isExecutable="true">
//!     <bpmn:startEvent id="placed"/>
//!     <bpmn:sequenceFlow id="f1" sourceRef="placed" targetRef="charge"/>
//!     <bpmn:serviceTask id="charge">
//!       <bpmn:extensionElements>
//!         <zeebe:taskDefinition type="payment"/>
//!       </bpmn:extensionElements>
//!     </bpmn:serviceTask>
//!     <bpmn:sequenceFlow id="f2" sourceRef="charge" targetRef="done"/>
//!     <bpmn:endEvent id="done"/>
//!   </bpmn:process>
//! </bpmn:definitions>"#;
//!
//! let mut engine = Engine::default();
//! engine.deploy(&[Resource::from_text("order.bpmn", ORDER)]).unwrap();
//! let instance = engine.create_instance(CreateInstance::new("order")).unwrap();
//!
//! // The instance waits at the service task for a `payment` worker.
//! let jobs = engine.activate_jobs("payment", "worker-1", 30_000, 10);
//! assert_eq!(jobs.len(), 1);
//! let mut variables = baton_engine::runtime::VariableDocument::new();
//! variables.insert("paid".into(), serde_json::json!(true));
//! engine.complete_job(jobs[0], variables).unwrap();
//!
//! // The job's variable was created on the instance, and the log ends with the instance
//! // completed.
//! assert!(engine.records().iter().any(|r| matches!(
//!     &r.value,
//!     RecordValue::Variable(v) if &*v.name == "paid" && v.scope_key == instance
//! )));
//! let last = engine.records().last().unwrap();
//! assert_eq!(last.key, Some(instance));
//! assert_eq!(
//!     last.intent,
//!     Intent::ProcessInstance(ProcessInstanceIntent::ElementCompleted)
//! );
//! assert!(engine
//!     .render_record(last)
//!     .starts_with(r#"EVENT PROCESS_INSTANCE ELEMENT_COMPLETED PROCESS "order""#));
//! ```
//!
//! The modules, in the order data flows through them:
//! - [`source`]: resource text with line/column positions; [`diagnostics`]: what a check found,
//!   with file, position and element id.
//! - [`model`]: the BPMN model and its parser; [`dmn`]: DMN decisions, parsed and evaluated.
//! - [`deploy`]: Zeebe's deploy-time checks over resources.
//! - [`runtime`]: the token engine: commands in, records out.
#![forbid(unsafe_code)]

pub mod deploy;
pub mod diagnostics;
pub mod dmn;
pub mod model;
pub mod runtime;
pub mod source;
mod xml;

pub use deploy::Resource;
pub use runtime::{
    Applied, Command, CreateInstance, DeploymentInfo, Engine, EngineConfig, Key, PublishMessage,
    Record, RecordValue, Rejection,
};
