//! Signals: broadcast to the subscriptions open at that instant, never buffered.

use baton_engine::runtime::*;
use serde_json::json;

use crate::xml::*;

fn signal(id: &str, name: &str) -> String {
    format!(r#"<bpmn:signal id="{id}" name="{name}" />"#)
}

fn waiting_process() -> String {
    definitions(&format!(
        "{}{}",
        signal("Sig_go", "go"),
        process(
            "waiter",
            &format!(
                r#"<bpmn:startEvent id="start" />
                <bpmn:intermediateCatchEvent id="waitGo"><bpmn:signalEventDefinition signalRef="Sig_go" /></bpmn:intermediateCatchEvent>
                {}<bpmn:endEvent id="end" />{}"#,
                service("work", "work"),
                chain(&["start", "waitGo", "work", "end"])
            )
        )
    ))
}

#[test]
fn a_broadcast_reaches_every_waiting_instance_and_is_not_buffered() {
    let mut e = Engine::default();
    deploy(&mut e, &waiting_process());
    // Nobody waits yet: the signal is lost.
    e.broadcast_signal("go", VariableDocument::new()).unwrap();
    let a = e.create_instance(CreateInstance::new("waiter")).unwrap();
    let b = e.create_instance(CreateInstance::new("waiter")).unwrap();
    assert_eq!(e.signal_subscriptions().len(), 2);
    let from = e.position();
    e.broadcast_signal("go", doc(json!({"x": 1}))).unwrap();
    insta::assert_snapshot!(log_since(&e, from));
    assert!(e.signal_subscriptions().is_empty());
    for pi in [a, b] {
        assert_eq!(e.variable(pi, "x").as_deref(), Some(&json!(1)));
        assert_eq!(e.element_instances(pi).len(), 2, "process and the task");
    }
}

#[test]
fn signal_start_events_boundary_events_and_event_sub_processes() {
    let xml = definitions(&format!(
        "{}{}{}",
        signal("Sig_alarm", "alarm"),
        process(
            "starter",
            &format!(
                r#"<bpmn:startEvent id="onAlarm"><bpmn:signalEventDefinition signalRef="Sig_alarm" /></bpmn:startEvent>{}{}"#,
                service("respond", "respond"),
                chain(&["onAlarm", "respond"])
            )
        ),
        process(
            "worker",
            &format!(
                r#"<bpmn:startEvent id="start" />{}
                <bpmn:boundaryEvent id="alarmed" attachedToRef="work" cancelActivity="false"><bpmn:signalEventDefinition signalRef="Sig_alarm" /></bpmn:boundaryEvent>
                <bpmn:endEvent id="done" /><bpmn:endEvent id="noted" />{}{}
                <bpmn:subProcess id="esp" triggeredByEvent="true">
                  <bpmn:startEvent id="espStart" isInterrupting="false"><bpmn:signalEventDefinition signalRef="Sig_alarm" /></bpmn:startEvent>
                  <bpmn:endEvent id="espEnd" />{}
                </bpmn:subProcess>"#,
                service("work", "work"),
                chain(&["start", "work", "done"]),
                flow("f_alarm", "alarmed", "noted"),
                chain(&["espStart", "espEnd"])
            )
        )
    ));
    let mut e = Engine::default();
    deploy(&mut e, &xml);
    let pi = e.create_instance(CreateInstance::new("worker")).unwrap();
    e.broadcast_signal("alarm", doc(json!({"level": 3})))
        .unwrap();
    let done = completed(&e);
    assert!(done.contains(&"noted".to_owned()));
    assert!(done.contains(&"espEnd".to_owned()));
    let started: Vec<_> = e
        .process_instances()
        .into_iter()
        .filter(|p| &*p.bpmn_process_id == "starter")
        .collect();
    assert_eq!(started.len(), 1);
    assert_eq!(
        e.variable(started[0].key, "level").as_deref(),
        Some(&json!(3))
    );
    assert_eq!(state_of(&e, pi), State::Activated, "non-interrupting");
}

#[test]
fn signal_throw_and_end_events_broadcast_their_local_variables() {
    let xml = definitions(&format!(
        "{}{}{}",
        signal("Sig_go", "go"),
        process(
            "thrower",
            &format!(
                r#"<bpmn:startEvent id="tStart" />
                <bpmn:intermediateThrowEvent id="shout"><bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="=42" target="answer" /></zeebe:ioMapping></bpmn:extensionElements><bpmn:signalEventDefinition signalRef="Sig_go" /></bpmn:intermediateThrowEvent>
                <bpmn:endEvent id="tEnd"><bpmn:signalEventDefinition signalRef="Sig_go" /></bpmn:endEvent>{}"#,
                chain(&["tStart", "shout", "tEnd"])
            )
        ),
        process(
            "listener",
            &format!(
                r#"<bpmn:startEvent id="start" />
                <bpmn:intermediateCatchEvent id="hear"><bpmn:signalEventDefinition signalRef="Sig_go" /></bpmn:intermediateCatchEvent>
                <bpmn:intermediateCatchEvent id="hearAgain"><bpmn:signalEventDefinition signalRef="Sig_go" /></bpmn:intermediateCatchEvent>
                {}{}"#,
                service("work", "work"),
                chain(&["start", "hear", "hearAgain", "work"])
            )
        )
    ));
    let mut e = Engine::default();
    deploy(&mut e, &xml);
    let listener = e.create_instance(CreateInstance::new("listener")).unwrap();
    let thrower = e.create_instance(CreateInstance::new("thrower")).unwrap();
    assert_eq!(state_of(&e, thrower), State::Completed);
    // The throw event's signal reached the first catch, the end event's the second.
    assert_eq!(e.variable(listener, "answer").as_deref(), Some(&json!(42)));
    assert_eq!(e.activatable_jobs(None).len(), 1);
}
