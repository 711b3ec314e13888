//! Compensation: handlers of completed activities run when a compensation event is thrown.

use baton_engine::runtime::*;

use crate::xml::*;

/// An activity with a compensation boundary event and its handler.
fn compensable(id: &str, job_type: &str, handler_type: &str, extra: &str) -> String {
    format!(
        r#"<bpmn:serviceTask id="{id}"><bpmn:extensionElements><zeebe:taskDefinition type="{job_type}" /></bpmn:extensionElements>{extra}</bpmn:serviceTask>
        <bpmn:boundaryEvent id="{id}Comp" attachedToRef="{id}"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
        <bpmn:serviceTask id="undo_{id}" isForCompensation="true"><bpmn:extensionElements><zeebe:taskDefinition type="{handler_type}" /></bpmn:extensionElements></bpmn:serviceTask>
        <bpmn:association id="a_{id}" associationDirection="One" sourceRef="{id}Comp" targetRef="undo_{id}" />"#
    )
}

fn complete_type(e: &mut Engine, job_type: &str) {
    let job = e
        .activatable_jobs(Some(job_type))
        .first()
        .unwrap_or_else(|| panic!("no job of type {job_type}"))
        .key;
    e.complete_job(job, VariableDocument::new()).unwrap();
}

#[test]
fn a_compensation_end_event_runs_the_handlers_of_completed_activities_and_waits() {
    let xml = definitions(&process(
        "trip",
        &format!(
            r#"<bpmn:startEvent id="start" />{}{}{}
            <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition /></bpmn:intermediateThrowEvent>
            <bpmn:endEvent id="end" />{}"#,
            compensable("hotel", "book-hotel", "cancel-hotel", ""),
            compensable("flight", "book-flight", "cancel-flight", ""),
            service("charge", "charge"),
            chain(&["start", "hotel", "flight", "charge", "undo", "end"])
        ),
    ));
    let mut e = Engine::default();
    deploy(&mut e, &xml);
    let pi = e.create_instance(CreateInstance::new("trip")).unwrap();
    complete_type(&mut e, "book-hotel");
    complete_type(&mut e, "book-flight");
    let from = e.position();
    complete_type(&mut e, "charge");
    // Both handlers at once; the throw event waits for them.
    let handlers: Vec<String> = e
        .activatable_jobs(None)
        .iter()
        .map(|j| j.job_type.to_string())
        .collect();
    assert_eq!(handlers, ["cancel-hotel", "cancel-flight"]);
    complete_type(&mut e, "cancel-flight");
    assert_eq!(state_of(&e, pi), State::Activated);
    complete_type(&mut e, "cancel-hotel");
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(log_since(&e, from));
}

#[test]
fn activity_ref_compensates_one_activity_and_only_completed_ones_are_compensated() {
    let xml = definitions(&format!(
        r#"<bpmn:error id="Err" errorCode="FAIL" />{}"#,
        process(
            "trip",
            &format!(
                r#"<bpmn:startEvent id="start" />{}{}{}
                <bpmn:boundaryEvent id="failed" attachedToRef="charge"><bpmn:errorEventDefinition errorRef="Err" /></bpmn:boundaryEvent>
                <bpmn:intermediateThrowEvent id="undoHotel"><bpmn:compensateEventDefinition activityRef="hotel" /></bpmn:intermediateThrowEvent>
                <bpmn:endEvent id="undoRest"><bpmn:compensateEventDefinition /></bpmn:endEvent>
                <bpmn:endEvent id="end" />{}{}"#,
                compensable("hotel", "book-hotel", "cancel-hotel", ""),
                compensable("flight", "book-flight", "cancel-flight", ""),
                service("charge", "charge"),
                chain(&["start", "hotel", "flight", "charge", "end"]),
                chain(&["failed", "undoHotel", "undoRest"])
            )
        )
    ));
    let mut e = Engine::default();
    deploy(&mut e, &xml);
    let pi = e.create_instance(CreateInstance::new("trip")).unwrap();
    complete_type(&mut e, "book-hotel");
    complete_type(&mut e, "book-flight");
    let charge = e.activatable_jobs(Some("charge"))[0].key;
    e.throw_error(charge, "FAIL", "declined", VariableDocument::new())
        .unwrap();
    // First only the hotel (activityRef), then the rest.
    let types: Vec<String> = e
        .activatable_jobs(None)
        .iter()
        .map(|j| j.job_type.to_string())
        .collect();
    assert_eq!(types, ["cancel-hotel"]);
    complete_type(&mut e, "cancel-hotel");
    let types: Vec<String> = e
        .activatable_jobs(None)
        .iter()
        .map(|j| j.job_type.to_string())
        .collect();
    assert_eq!(
        types,
        ["cancel-flight"],
        "the hotel is not compensated twice"
    );
    complete_type(&mut e, "cancel-flight");
    assert_eq!(state_of(&e, pi), State::Completed);

    // Nothing completed yet: the throw passes at once.
    let pi = e.create_instance(CreateInstance::new("trip")).unwrap();
    complete_type(&mut e, "book-hotel");
    assert_eq!(state_of(&e, pi), State::Activated);
}

#[test]
fn handlers_inside_completed_sub_processes_run_and_a_multi_instance_activity_runs_its_handler_once()
{
    let mi = r#"<bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="=[1,2,3]" inputElement="n" /></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>"#;
    let xml = definitions(&process(
        "nested",
        &format!(
            r#"<bpmn:startEvent id="start" />
            <bpmn:subProcess id="sub"><bpmn:startEvent id="subStart" />{}<bpmn:endEvent id="subEnd" />{}</bpmn:subProcess>
            {}
            <bpmn:endEvent id="undoAll"><bpmn:compensateEventDefinition /></bpmn:endEvent>{}"#,
            compensable("inner", "inner", "undo-inner", ""),
            chain(&["subStart", "inner", "subEnd"]),
            compensable("each", "each", "undo-each", mi),
            chain(&["start", "sub", "each", "undoAll"])
        ),
    ));
    let mut e = Engine::default();
    deploy(&mut e, &xml);
    let pi = e.create_instance(CreateInstance::new("nested")).unwrap();
    complete_type(&mut e, "inner");
    for _ in 0..3 {
        complete_type(&mut e, "each");
    }
    let mut types: Vec<String> = e
        .activatable_jobs(None)
        .iter()
        .map(|j| j.job_type.to_string())
        .collect();
    types.sort();
    assert_eq!(types, ["undo-each", "undo-inner"]);
    complete_type(&mut e, "undo-each");
    complete_type(&mut e, "undo-inner");
    assert_eq!(state_of(&e, pi), State::Completed);
}
