//! Messages: subscriptions opened on activation, publish and correlate, buffering, at most once
//! per process, message start events.

use baton_engine::runtime::*;
use serde_json::json;

use crate::xml::*;

fn catch_process(id: &str) -> String {
    definitions(&format!(
        "{}{}",
        message("Msg_paid", "paid", Some("=orderId")),
        process(
            id,
            &format!(
                r#"<bpmn:startEvent id="start" />
                <bpmn:intermediateCatchEvent id="waitPaid"><bpmn:messageEventDefinition messageRef="Msg_paid" /></bpmn:intermediateCatchEvent>
                <bpmn:endEvent id="end" />{}"#,
                chain(&["start", "waitPaid", "end"])
            )
        )
    ))
}

fn start(e: &mut Engine, id: &str, vars: serde_json::Value) -> Key {
    e.create_instance(CreateInstance::new(id).variables(doc(vars)))
        .expect("created")
}

#[test]
fn a_catch_event_waits_with_the_correlation_key_evaluated_on_activation() {
    let mut e = Engine::default();
    deploy(&mut e, &catch_process("order"));
    // A number becomes the text of its integer part.
    let pi = start(&mut e, "order", json!({"orderId": 12.7}));
    let subs = e.message_subscriptions(pi);
    assert_eq!(subs.len(), 1);
    assert_eq!(&*subs[0].message_name, "paid");
    assert_eq!(&*subs[0].correlation_key, "12");
    assert_eq!(&*subs[0].element_id, "waitPaid");
    // Evaluated once: changing the variable does not move the subscription.
    e.set_variables(pi, doc(json!({"orderId": 99})), false)
        .unwrap();
    e.publish_message(PublishMessage::new("paid", "99").time_to_live(0))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    let from = e.position();
    e.publish_message(
        PublishMessage::new("paid", "12")
            .time_to_live(0)
            .variables(doc(json!({"amount": 30}))),
    )
    .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert_eq!(
        e.variable(pi, "amount").as_deref(),
        None,
        "the instance is gone"
    );
    assert!(e.message_subscriptions(pi).is_empty());
    let correlated = e.correlated_messages(pi);
    assert_eq!(correlated.len(), 1);
    assert_eq!(&*correlated[0].element_id, "waitPaid");
    insta::assert_snapshot!(log_since(&e, from));
}

#[test]
fn message_variables_reach_the_process_scope() {
    let mut e = Engine::default();
    let xml = definitions(&format!(
        "{}{}",
        message("Msg_paid", "paid", Some("=orderId")),
        process(
            "order",
            &format!(
                r#"<bpmn:startEvent id="start" />
                <bpmn:intermediateCatchEvent id="waitPaid"><bpmn:messageEventDefinition messageRef="Msg_paid" /></bpmn:intermediateCatchEvent>
                {}{}"#,
                service("ship", "ship"),
                chain(&["start", "waitPaid", "ship"])
            )
        )
    ));
    deploy(&mut e, &xml);
    let pi = start(&mut e, "order", json!({"orderId": "A-1"}));
    e.publish_message(PublishMessage::new("paid", "A-1").variables(doc(json!({"amount": 30}))))
        .unwrap();
    assert_eq!(e.variable(pi, "amount").as_deref(), Some(&json!(30)));
}

#[test]
fn a_correlation_key_of_the_wrong_type_is_an_extract_value_incident() {
    let mut e = Engine::default();
    deploy(&mut e, &catch_process("order"));
    let pi = start(&mut e, "order", json!({}));
    let incidents = e.incidents();
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0].error_type, ErrorType::ExtractValueError);
    insta::assert_snapshot!(incidents[0].error_message, @r"
    Failed to extract the correlation key for 'orderId': The value must be either a string or a number, but was 'NULL'. The evaluation reported the following warnings:
    [NO_VARIABLE_FOUND] No variable found with name 'orderId'
    ");
    assert!(e.message_subscriptions(pi).is_empty());
    e.set_variables(pi, doc(json!({"orderId": "A-7"})), false)
        .unwrap();
    e.resolve_incident(incidents[0].key).unwrap();
    assert_eq!(&*e.message_subscriptions(pi)[0].correlation_key, "A-7");
    e.publish_message(PublishMessage::new("paid", "A-7"))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn a_buffered_message_is_taken_by_a_later_subscription_until_its_ttl_is_over() {
    let mut e = Engine::default();
    deploy(&mut e, &catch_process("order"));
    e.publish_message(PublishMessage::new("paid", "A").time_to_live(60_000))
        .unwrap();
    assert_eq!(e.buffered_messages().len(), 1);
    let first = start(&mut e, "order", json!({"orderId": "A"}));
    assert_eq!(state_of(&e, first), State::Completed);
    // Still buffered, but already correlated to this process: a second instance waits.
    assert_eq!(e.buffered_messages().len(), 1);
    let second = start(&mut e, "order", json!({"orderId": "A"}));
    assert_eq!(state_of(&e, second), State::Activated);
    // TTL 0: only subscriptions open now.
    e.publish_message(PublishMessage::new("paid", "B").time_to_live(0))
        .unwrap();
    let third = start(&mut e, "order", json!({"orderId": "B"}));
    assert_eq!(state_of(&e, third), State::Activated);
    // An expired message is gone.
    e.publish_message(PublishMessage::new("paid", "C").time_to_live(1_000))
        .unwrap();
    e.advance_clock(1_000).unwrap();
    assert!(
        e.buffered_messages()
            .iter()
            .all(|m| &*m.correlation_key != "C")
    );
    let fourth = start(&mut e, "order", json!({"orderId": "C"}));
    assert_eq!(state_of(&e, fourth), State::Activated);
    assert!(
        e.records()
            .iter()
            .any(|r| r.value_type == ValueType::Message
                && r.intent == Intent::Other(OtherIntent::Expired))
    );
}

#[test]
fn a_message_correlates_once_per_process_and_buffered_messages_go_fifo() {
    let mut e = Engine::default();
    deploy(&mut e, &catch_process("order"));
    let a = start(&mut e, "order", json!({"orderId": "K"}));
    let b = start(&mut e, "order", json!({"orderId": "K"}));
    e.publish_message(PublishMessage::new("paid", "K")).unwrap();
    let done = [a, b]
        .iter()
        .filter(|pi| state_of(&e, **pi) == State::Completed)
        .count();
    assert_eq!(done, 1, "one message, one instance of the process");
    e.publish_message(PublishMessage::new("paid", "K")).unwrap();
    assert_eq!(state_of(&e, a), State::Completed);
    assert_eq!(state_of(&e, b), State::Completed);

    // Two buffered messages go to two successive catch events, oldest first.
    let xml = definitions(&format!(
        "{}{}",
        message("Msg_step", "step", Some("=key")),
        process(
            "twice",
            &format!(
                r#"<bpmn:startEvent id="start" />
                <bpmn:intermediateCatchEvent id="first"><bpmn:extensionElements><zeebe:ioMapping><zeebe:output source="=n" target="firstN" /></zeebe:ioMapping></bpmn:extensionElements><bpmn:messageEventDefinition messageRef="Msg_step" /></bpmn:intermediateCatchEvent>
                <bpmn:intermediateCatchEvent id="second"><bpmn:extensionElements><zeebe:ioMapping><zeebe:output source="=n" target="secondN" /></zeebe:ioMapping></bpmn:extensionElements><bpmn:messageEventDefinition messageRef="Msg_step" /></bpmn:intermediateCatchEvent>
                {}{}"#,
                service("hold", "hold"),
                chain(&["start", "first", "second", "hold"])
            )
        )
    ));
    deploy(&mut e, &xml);
    e.publish_message(PublishMessage::new("step", "x").variables(doc(json!({"n": 1}))))
        .unwrap();
    e.publish_message(PublishMessage::new("step", "x").variables(doc(json!({"n": 2}))))
        .unwrap();
    let pi = start(&mut e, "twice", json!({"key": "x"}));
    assert_eq!(e.variable(pi, "firstN").as_deref(), Some(&json!(1)));
    assert_eq!(e.variable(pi, "secondN").as_deref(), Some(&json!(2)));
}

#[test]
fn a_message_id_is_unique_while_the_first_is_buffered() {
    let mut e = Engine::default();
    e.publish_message(
        PublishMessage::new("paid", "A")
            .message_id("m-1")
            .time_to_live(1_000),
    )
    .unwrap();
    let err = e
        .publish_message(PublishMessage::new("paid", "A").message_id("m-1"))
        .unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::AlreadyExists);
    assert_eq!(
        err.message,
        "Expected to publish a new message with id 'm-1', but a message with that id was already published"
    );
    // Another correlation key, or after the first expired: accepted.
    e.publish_message(PublishMessage::new("paid", "B").message_id("m-1"))
        .unwrap();
    e.advance_clock(1_000).unwrap();
    e.publish_message(PublishMessage::new("paid", "A").message_id("m-1"))
        .unwrap();
}

fn boundary_process(interrupting: bool) -> String {
    definitions(&format!(
        "{}{}",
        message("Msg_cancel", "cancel", Some("=orderId")),
        process(
            "order",
            &format!(
                r#"<bpmn:startEvent id="start" />{}
                <bpmn:boundaryEvent id="onCancel" attachedToRef="work" cancelActivity="{interrupting}"><bpmn:messageEventDefinition messageRef="Msg_cancel" /></bpmn:boundaryEvent>
                <bpmn:endEvent id="done" /><bpmn:endEvent id="canceled" />{}{}"#,
                service("work", "work"),
                chain(&["start", "work", "done"]),
                flow("f_cancel", "onCancel", "canceled")
            )
        )
    ))
}

#[test]
fn an_interrupting_message_boundary_event_terminates_the_task() {
    let mut e = Engine::default();
    deploy(&mut e, &boundary_process(true));
    let pi = start(&mut e, "order", json!({"orderId": "o1"}));
    assert_eq!(&*e.message_subscriptions(pi)[0].element_id, "onCancel");
    let from = e.position();
    e.publish_message(
        PublishMessage::new("cancel", "o1").variables(doc(json!({"reason": "late"}))),
    )
    .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(completed(&e).contains(&"canceled".to_owned()));
    assert!(e.jobs().is_empty());
    insta::assert_snapshot!(log_since(&e, from));
}

#[test]
fn a_non_interrupting_message_boundary_event_fires_for_every_message() {
    let mut e = Engine::default();
    deploy(&mut e, &boundary_process(false));
    let pi = start(&mut e, "order", json!({"orderId": "o1"}));
    e.publish_message(PublishMessage::new("cancel", "o1"))
        .unwrap();
    // The same message does not come twice, but a second one does.
    e.publish_message(PublishMessage::new("cancel", "o1"))
        .unwrap();
    let fired = completed(&e).iter().filter(|c| *c == "canceled").count();
    assert_eq!(fired, 2);
    assert_eq!(state_of(&e, pi), State::Activated);
    assert_eq!(e.message_subscriptions(pi).len(), 1, "still waiting");
    // Completing the task closes the subscription.
    let from = e.position();
    complete_all_jobs(&mut e);
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(e.message_subscriptions(pi).is_empty());
    insta::assert_snapshot!(log_since(&e, from));
}

#[test]
fn a_receive_task_waits_for_its_message() {
    let mut e = Engine::default();
    let xml = definitions(&format!(
        "{}{}",
        message("Msg_reply", "reply", Some("=ticket")),
        process(
            "support",
            &format!(
                r#"<bpmn:startEvent id="start" /><bpmn:receiveTask id="awaitReply" messageRef="Msg_reply" /><bpmn:endEvent id="end" />{}"#,
                chain(&["start", "awaitReply", "end"])
            )
        )
    ));
    deploy(&mut e, &xml);
    let pi = start(&mut e, "support", json!({"ticket": 5}));
    assert_eq!(&*e.message_subscriptions(pi)[0].element_id, "awaitReply");
    e.publish_message(PublishMessage::new("reply", "5").variables(doc(json!({"answer": "ok"}))))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn event_sub_processes_start_on_messages() {
    let esp = |interrupting: bool| {
        definitions(&format!(
            "{}{}",
            message("Msg_update", "update", Some("=id")),
            process(
                "p",
                &format!(
                    r#"<bpmn:startEvent id="start" />{}<bpmn:endEvent id="end" />{}
                    <bpmn:subProcess id="esp" triggeredByEvent="true">
                      <bpmn:startEvent id="espStart" isInterrupting="{interrupting}"><bpmn:messageEventDefinition messageRef="Msg_update" /></bpmn:startEvent>
                      <bpmn:endEvent id="espEnd" />{}
                    </bpmn:subProcess>"#,
                    service("work", "work"),
                    chain(&["start", "work", "end"]),
                    chain(&["espStart", "espEnd"])
                )
            )
        ))
    };
    let mut e = Engine::default();
    deploy(&mut e, &esp(false));
    let pi = start(&mut e, "p", json!({"id": "x"}));
    e.publish_message(PublishMessage::new("update", "x").variables(doc(json!({"v": 1}))))
        .unwrap();
    e.publish_message(PublishMessage::new("update", "x").variables(doc(json!({"v": 2}))))
        .unwrap();
    assert_eq!(completed(&e).iter().filter(|c| *c == "espEnd").count(), 2);
    assert_eq!(e.variable(pi, "v").as_deref(), Some(&json!(2)));
    assert_eq!(state_of(&e, pi), State::Activated);

    let mut e = Engine::default();
    deploy(&mut e, &esp(true));
    let pi = start(&mut e, "p", json!({"id": "x"}));
    e.publish_message(PublishMessage::new("update", "x"))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(e.jobs().is_empty(), "the task was terminated");
    assert!(!completed(&e).contains(&"end".to_owned()));
}

#[test]
fn an_event_based_gateway_takes_the_message_branch_and_closes_the_timer() {
    let mut e = Engine::default();
    let xml = definitions(&format!(
        "{}{}",
        message("Msg_answer", "answer", Some("=id")),
        process(
            "p",
            &format!(
                r#"<bpmn:startEvent id="start" /><bpmn:eventBasedGateway id="g" />
                <bpmn:intermediateCatchEvent id="answered"><bpmn:messageEventDefinition messageRef="Msg_answer" /></bpmn:intermediateCatchEvent>
                <bpmn:intermediateCatchEvent id="timeout"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
                <bpmn:endEvent id="ok" /><bpmn:endEvent id="late" />{}{}"#,
                chain(&["start", "g", "answered", "ok"]),
                chain(&["g", "timeout", "late"])
            )
        )
    ));
    deploy(&mut e, &xml);
    let pi = start(&mut e, "p", json!({"id": 1}));
    assert_eq!(e.timers().len(), 1);
    assert_eq!(e.message_subscriptions(pi).len(), 1);
    let from = e.position();
    e.publish_message(PublishMessage::new("answer", "1").variables(doc(json!({"a": true}))))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(e.timers().is_empty());
    assert_eq!(e.variable(pi, "a"), None);
    assert!(completed(&e).contains(&"ok".to_owned()));
    insta::assert_snapshot!(log_since(&e, from));
}

fn start_process(version_marker: &str) -> String {
    definitions(&format!(
        "{}{}",
        message("Msg_order", "order-placed", None),
        process(
            "fulfil",
            &format!(
                r#"<bpmn:startEvent id="placed{version_marker}"><bpmn:messageEventDefinition messageRef="Msg_order" /></bpmn:startEvent>{}{}"#,
                service("pack", "pack"),
                chain(&[&format!("placed{version_marker}"), "pack"])
            )
        )
    ))
}

#[test]
fn a_message_start_event_starts_one_instance_per_correlation_key_at_a_time() {
    let mut e = Engine::default();
    deploy(&mut e, &start_process(""));
    assert_eq!(e.message_start_subscriptions().len(), 1);
    e.publish_message(PublishMessage::new("order-placed", "c1").variables(doc(json!({"n": 1}))))
        .unwrap();
    assert_eq!(e.process_instances().len(), 1);
    let first = e.process_instances()[0].key;
    assert_eq!(e.variable(first, "n").as_deref(), Some(&json!(1)));
    assert_eq!(&*e.correlated_messages(first)[0].element_id, "placed");
    // Same key while the first is active: buffered, no second instance.
    e.publish_message(PublishMessage::new("order-placed", "c1").variables(doc(json!({"n": 2}))))
        .unwrap();
    assert_eq!(e.process_instances().len(), 1);
    // An empty key always starts; another key starts.
    e.publish_message(PublishMessage::new("order-placed", ""))
        .unwrap();
    e.publish_message(PublishMessage::new("order-placed", ""))
        .unwrap();
    e.publish_message(PublishMessage::new("order-placed", "c2"))
        .unwrap();
    assert_eq!(e.process_instances().len(), 4);
    // The first ends: the buffered message starts the next instance with its variables.
    let job = e
        .jobs()
        .into_iter()
        .find(|j| j.process_instance_key == first)
        .unwrap();
    e.complete_job(job.key, VariableDocument::new()).unwrap();
    assert_eq!(state_of(&e, first), State::Completed);
    let all = e.process_instances();
    assert_eq!(all.len(), 5);
    let next = all.last().unwrap().key;
    assert_eq!(e.variable(next, "n").as_deref(), Some(&json!(2)));
}

#[test]
fn only_the_latest_version_starts_on_a_message() {
    let mut e = Engine::default();
    deploy(&mut e, &start_process(""));
    let from = e.position();
    deploy(&mut e, &start_process("V2"));
    insta::assert_snapshot!(log_since(&e, from));
    assert_eq!(e.message_start_subscriptions().len(), 1);
    e.publish_message(PublishMessage::new("order-placed", "k"))
        .unwrap();
    let pi = e.process_instances()[0].clone();
    assert_eq!(pi.version, 2);
}

#[test]
fn correlate_answers_the_instance_and_is_rejected_when_nothing_waits() {
    let mut e = Engine::default();
    deploy(&mut e, &catch_process("order"));
    let err = e
        .correlate_message("paid", "A", VariableDocument::new())
        .unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::NotFound);
    assert_eq!(
        err.message,
        "Expected to find subscription for message with name 'paid' and correlation key 'A', but none was found."
    );
    assert!(
        e.buffered_messages().is_empty(),
        "correlate does not buffer"
    );
    let pi = start(&mut e, "order", json!({"orderId": "A"}));
    let answer = e
        .correlate_message("paid", "A", doc(json!({"x": 1})))
        .unwrap();
    assert_eq!(answer.process_instance_key, pi);
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(e.buffered_messages().is_empty());

    // A message start event: the new instance is the answer.
    deploy(&mut e, &start_process(""));
    let answer = e
        .correlate_message("order-placed", "k", VariableDocument::new())
        .unwrap();
    let started = e.process_instance(answer.process_instance_key).unwrap();
    assert_eq!(&*started.bpmn_process_id, "fulfil");
    // Blocked by the active instance with that key.
    let err = e
        .correlate_message("order-placed", "k", VariableDocument::new())
        .unwrap_err();
    insta::assert_snapshot!(err.message, @"Expected to find subscription for message with name 'order-placed' and correlation key 'k', but no active subscription was found. A process instance with this correlation key is already active for a message start event with this message name in process IDs [fulfil]. Only one active process instance per correlation key is allowed for message start events.");
}

#[test]
fn message_throw_events_are_jobs() {
    let mut e = Engine::default();
    let xml = definitions(&format!(
        "{}{}",
        message("Msg_sent", "sent", None),
        process(
            "p",
            &format!(
                r#"<bpmn:startEvent id="start" />
                <bpmn:intermediateThrowEvent id="notify"><bpmn:extensionElements><zeebe:taskDefinition type="notify" /></bpmn:extensionElements><bpmn:messageEventDefinition messageRef="Msg_sent" /></bpmn:intermediateThrowEvent>
                <bpmn:endEvent id="end"><bpmn:extensionElements><zeebe:taskDefinition type="close" /></bpmn:extensionElements><bpmn:messageEventDefinition messageRef="Msg_sent" /></bpmn:endEvent>{}"#,
                chain(&["start", "notify", "end"])
            )
        )
    ));
    deploy(&mut e, &xml);
    let pi = start(&mut e, "p", json!({}));
    assert_eq!(&*e.activatable_jobs(None)[0].job_type, "notify");
    e.complete_job(e.activatable_jobs(None)[0].key, VariableDocument::new())
        .unwrap();
    assert_eq!(&*e.activatable_jobs(None)[0].job_type, "close");
    complete_all_jobs(&mut e);
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn canceling_an_instance_closes_its_subscriptions() {
    let mut e = Engine::default();
    deploy(&mut e, &catch_process("order"));
    let pi = start(&mut e, "order", json!({"orderId": "z"}));
    let from = e.position();
    e.cancel_instance(pi).unwrap();
    assert!(e.all_message_subscriptions().is_empty());
    insta::assert_snapshot!(log_since(&e, from));
}
