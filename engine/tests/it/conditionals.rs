//! Conditional events: evaluated when their scope is activated and when a variable they read
//! changes.

use baton_engine::runtime::*;
use serde_json::json;

use crate::xml::*;

fn conditional(condition: &str, filter: &str) -> String {
    format!(
        r#"<bpmn:conditionalEventDefinition>{filter}<bpmn:condition xsi:type="bpmn:tFormalExpression">{condition}</bpmn:condition></bpmn:conditionalEventDefinition>"#
    )
}

fn boundary_process(interrupting: bool, condition: &str, filter: &str) -> String {
    definitions(&process(
        "p",
        &format!(
            r#"<bpmn:startEvent id="start" />{}{}
            <bpmn:boundaryEvent id="onCondition" attachedToRef="review" cancelActivity="{interrupting}">{}</bpmn:boundaryEvent>
            <bpmn:endEvent id="done" /><bpmn:endEvent id="changed" />{}{}"#,
            service("review", "review"),
            service("other", "other"),
            conditional(condition, filter),
            chain(&["start", "review", "done"]),
            flow("f_changed", "onCondition", "changed")
        ),
    ))
}

#[test]
fn a_boundary_condition_that_holds_on_activation_triggers_at_once() {
    let mut e = Engine::default();
    deploy(&mut e, &boundary_process(true, "=x &gt; 10", ""));
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"x": 11}))))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(completed(&e).contains(&"changed".to_owned()));
    assert!(e.jobs().is_empty());
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn an_interrupting_boundary_condition_triggers_when_a_variable_it_reads_changes() {
    let mut e = Engine::default();
    deploy(&mut e, &boundary_process(true, "=x &gt; 10", ""));
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"x": 5}))))
        .unwrap();
    // Another variable: not re-evaluated; x still too small: no trigger.
    e.set_variables(pi, doc(json!({"y": 100})), false).unwrap();
    e.set_variables(pi, doc(json!({"x": 7})), false).unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    e.set_variables(pi, doc(json!({"x": 11})), false).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(completed(&e).contains(&"changed".to_owned()));
}

#[test]
fn a_non_interrupting_boundary_condition_fires_each_time_and_output_mappings_do_not_trigger() {
    let mut e = Engine::default();
    deploy(&mut e, &boundary_process(false, "=x &gt; 10", ""));
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"x": 0}))))
        .unwrap();
    e.set_variables(pi, doc(json!({"x": 11})), false).unwrap();
    e.set_variables(pi, doc(json!({"x": 12})), false).unwrap();
    // Two variables in one command: evaluated once.
    e.set_variables(pi, doc(json!({"x": 13, "y": 1})), false)
        .unwrap();
    assert_eq!(completed(&e).iter().filter(|c| *c == "changed").count(), 3);
    // The job's variables are written after the subscription is closed.
    let job = e.activatable_jobs(Some("review"))[0].key;
    e.complete_job(job, doc(json!({"x": 20}))).unwrap();
    assert_eq!(completed(&e).iter().filter(|c| *c == "changed").count(), 3);
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn variable_event_filters_narrow_the_changes() {
    let mut e = Engine::default();
    let filter = r#"<bpmn:extensionElements><zeebe:conditionalFilter variableEvents="create" /></bpmn:extensionElements>"#;
    deploy(&mut e, &boundary_process(false, "=x &gt; 10", filter));
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"x": 0}))))
        .unwrap();
    e.set_variables(pi, doc(json!({"x": 11})), false).unwrap();
    assert!(!completed(&e).contains(&"changed".to_owned()), "an update");
    // A new local variable x on the task is a create.
    let task = e
        .element_instances(pi)
        .into_iter()
        .find(|i| i.element_id == "review")
        .unwrap()
        .key;
    e.set_variables(task, doc(json!({"x": 12})), true).unwrap();
    assert!(completed(&e).contains(&"changed".to_owned()));
}

#[test]
fn an_intermediate_conditional_catch_waits_until_the_condition_holds() {
    let mut e = Engine::default();
    let xml = definitions(&process(
        "wait",
        &format!(
            r#"<bpmn:startEvent id="start" /><bpmn:intermediateCatchEvent id="approved">{}</bpmn:intermediateCatchEvent><bpmn:endEvent id="end" />{}"#,
            conditional("=approved = true", ""),
            chain(&["start", "approved", "end"])
        ),
    ));
    deploy(&mut e, &xml);
    let pi = e.create_instance(CreateInstance::new("wait")).unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    e.set_variables(pi, doc(json!({"approved": false})), false)
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    e.set_variables(pi, doc(json!({"approved": true})), false)
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    // Already true when reached: passes at once.
    let pi = e
        .create_instance(CreateInstance::new("wait").variables(doc(json!({"approved": true}))))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn conditional_event_sub_processes_interrupting_and_not() {
    let esp = |interrupting: bool| {
        definitions(&process(
            "p",
            &format!(
                r#"<bpmn:startEvent id="start" />{}<bpmn:endEvent id="end" />{}
                <bpmn:subProcess id="esp" triggeredByEvent="true">
                  <bpmn:startEvent id="espStart" isInterrupting="{interrupting}">{}</bpmn:startEvent>
                  <bpmn:endEvent id="espEnd" />{}
                </bpmn:subProcess>"#,
                service("work", "work"),
                chain(&["start", "work", "end"]),
                conditional("=canceled", ""),
                chain(&["espStart", "espEnd"])
            ),
        ))
    };
    let mut e = Engine::default();
    deploy(&mut e, &esp(false));
    let pi = e
        .create_instance(CreateInstance::new("p").variables(doc(json!({"canceled": false}))))
        .unwrap();
    e.set_variables(pi, doc(json!({"canceled": true})), false)
        .unwrap();
    e.set_variables(pi, doc(json!({"canceled": false})), false)
        .unwrap();
    e.set_variables(pi, doc(json!({"canceled": true})), false)
        .unwrap();
    assert_eq!(completed(&e).iter().filter(|c| *c == "espEnd").count(), 2);
    assert_eq!(state_of(&e, pi), State::Activated);

    let mut e = Engine::default();
    deploy(&mut e, &esp(true));
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    e.set_variables(pi, doc(json!({"canceled": true})), false)
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(e.jobs().is_empty());
}

#[test]
fn root_conditional_start_events_start_instances_through_the_api() {
    let mut e = Engine::default();
    let xml = definitions(&process(
        "orders",
        &format!(
            r#"<bpmn:startEvent id="big">{}</bpmn:startEvent><bpmn:startEvent id="small">{}</bpmn:startEvent>{}{}{}"#,
            conditional("=amount &gt; 100", ""),
            conditional("=amount &lt; 10", ""),
            service("work", "work"),
            flow("f1", "big", "work"),
            flow("f2", "small", "work")
        ),
    ));
    let info = deploy(&mut e, &xml);
    // Variable changes in other instances do not start anything.
    let started = e
        .evaluate_conditional_start_events(doc(json!({"amount": 50})), None)
        .unwrap();
    assert!(started.is_empty());
    let started = e
        .evaluate_conditional_start_events(doc(json!({"amount": 500})), Some(info.processes[0].2))
        .unwrap();
    assert_eq!(started.len(), 1);
    assert_eq!(
        e.variable(started[0], "amount").as_deref(),
        Some(&json!(500))
    );
    let err = e
        .evaluate_conditional_start_events(VariableDocument::new(), Some(42))
        .unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::NotFound);
}
