//! Timers on the engine clock.

use baton_engine::model::{ElementKind, EventDefinition, Expr, GatewayKind, TimerDefinition};
use baton_engine::runtime::*;

use crate::builder::Builder;

fn timer(b: &mut Builder, id: &str, kind: ElementKind, def: TimerDefinition) {
    b.add(id, kind)
        .event_definitions
        .push(EventDefinition::Timer(def));
}

fn dur(t: &str) -> TimerDefinition {
    TimerDefinition::Duration(Expr {
        text: t.into(),
        span: Default::default(),
    })
}

fn boundary(b: &mut Builder, id: &str, attached: &str, cancel: bool, def: TimerDefinition) {
    let a = b.idx(attached);
    b.add(
        id,
        ElementKind::BoundaryEvent {
            attached_to: a,
            cancel_activity: cancel,
        },
    )
    .event_definitions
    .push(EventDefinition::Timer(def));
    let bi = b.idx(id);
    b.element(attached).boundary_events.push(bi);
}

fn completed(e: &Engine) -> Vec<String> {
    e.records()
        .iter()
        .filter(|r| r.intent == Intent::ProcessInstance(PiIntent::ElementCompleted))
        .filter_map(|r| e.record_element_id(r))
        .collect()
}

#[test]
fn intermediate_timer_fires_when_the_clock_passes_its_due_date() {
    let mut b = Builder::new("wait");
    b.start("s");
    timer(
        &mut b,
        "t",
        ElementKind::IntermediateCatchEvent,
        dur("PT1H"),
    );
    b.end("e");
    b.chain(&["s", "t", "e"]);
    let mut e = Engine::default();
    e.deploy_definitions("w.bpmn", &b.build()).unwrap();
    let pi = e.create_instance(CreateInstance::new("wait")).unwrap();
    assert_eq!(e.timers().len(), 1);
    e.advance_clock(3_599_999).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Activated);
    e.advance_clock(1).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn interrupting_boundary_timer_cancels_the_task() {
    let mut b = Builder::new("bt");
    b.start("s").service("task", "work").end("done").end("late");
    boundary(&mut b, "timeout", "task", true, dur("PT10M"));
    b.chain(&["s", "task", "done"]).flow("timeout", "late");
    let mut e = Engine::default();
    e.deploy_definitions("b.bpmn", &b.build()).unwrap();
    let pi = e.create_instance(CreateInstance::new("bt")).unwrap();
    e.advance_clock(10 * 60_000).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
    assert!(completed(&e).contains(&"late".to_owned()));
    assert!(e.jobs().is_empty());
}

#[test]
fn non_interrupting_cycle_repeats_from_the_previous_due_date() {
    let mut b = Builder::new("nb");
    b.start("s")
        .service("task", "work")
        .end("done")
        .end("remind_end");
    boundary(
        &mut b,
        "remind",
        "task",
        false,
        TimerDefinition::Cycle(Expr {
            text: "R2/PT1M".into(),
            span: Default::default(),
        }),
    );
    b.chain(&["s", "task", "done"]).flow("remind", "remind_end");
    let mut e = Engine::default();
    e.deploy_definitions("n.bpmn", &b.build()).unwrap();
    let pi = e.create_instance(CreateInstance::new("nb")).unwrap();
    e.advance_clock(5 * 60_000).unwrap();
    let reminders = completed(&e)
        .iter()
        .filter(|id| *id == "remind_end")
        .count();
    assert_eq!(
        reminders, 2,
        "R2 fires twice even when the clock jumps past both"
    );
    assert_eq!(e.process_instance(pi).unwrap().state, State::Activated);
    let job = e.activatable_jobs(None)[0].key;
    e.complete_job(job, VariableDocument::new()).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
}

#[test]
fn event_based_gateway_takes_the_first_timer() {
    let mut b = Builder::new("ebg");
    b.start("s")
        .gateway("g", GatewayKind::EventBased { instantiate: false });
    timer(
        &mut b,
        "fast",
        ElementKind::IntermediateCatchEvent,
        dur("PT1M"),
    );
    timer(
        &mut b,
        "slow",
        ElementKind::IntermediateCatchEvent,
        dur("PT1H"),
    );
    b.end("e1").end("e2");
    b.chain(&["s", "g", "fast", "e1"])
        .chain(&["g", "slow", "e2"]);
    let mut e = Engine::default();
    e.deploy_definitions("g.bpmn", &b.build()).unwrap();
    let pi = e.create_instance(CreateInstance::new("ebg")).unwrap();
    e.advance_clock(2 * 3_600_000).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
    let done = completed(&e);
    assert!(done.contains(&"e1".to_owned()));
    assert!(!done.contains(&"e2".to_owned()));
    assert!(e.timers().is_empty(), "the other timer was canceled");
}
