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
    TimerDefinition::Duration(Expr::new(t, Default::default()))
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
        .filter(|r| r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementCompleted))
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

fn reminder_process(cycle: &str) -> Engine {
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
        TimerDefinition::Cycle(Expr::new(cycle, Default::default())),
    );
    b.chain(&["s", "task", "done"]).flow("remind", "remind_end");
    let mut e = Engine::default();
    e.deploy_definitions("n.bpmn", &b.build()).unwrap();
    e
}

fn count(e: &Engine, id: &str) -> usize {
    completed(e).iter().filter(|c| *c == id).count()
}

// Zeebe's `TimerTriggerProcessor.refreshTimer` reschedules a repeating interval with
// `RepeatingInterval.nextOccurrenceAfter(lastDueDate, now, repetitions)`: one interval after the
// due date it fired for, unless that has passed as well, then one interval after now. The
// cases below are those of Zeebe's `OverdueRepeatingTimerTest`.

#[test]
fn a_cycle_fires_one_interval_after_its_previous_due_date_when_not_overdue() {
    // shouldKeepCadenceUnchangedWhenGapIsShorterThanOneInterval
    let mut e = reminder_process("R/PT1S");
    let pi = e.create_instance(CreateInstance::new("nb")).unwrap();
    let first_due = e.timers()[0].due;
    e.advance_clock(1_500).unwrap();
    assert_eq!(count(&e, "remind_end"), 1);
    assert_eq!(e.timers()[0].due, first_due + 1_000);
    assert_eq!(e.process_instance(pi).unwrap().state, State::Activated);
}

#[test]
fn an_overdue_cycle_fires_once_for_the_whole_gap_and_uses_one_repetition() {
    // shouldConsumeExactlyOneRepetitionWhenFiniteRepetitionsTimerIsOverdueForSeveralIntervals
    let mut e = reminder_process("R3/PT2S");
    let pi = e.create_instance(CreateInstance::new("nb")).unwrap();
    assert_eq!(e.timers()[0].repetitions, 3);
    e.advance_clock(10_000).unwrap();
    assert_eq!(count(&e, "remind_end"), 1, "once for the whole gap");
    let next = e.timers()[0];
    assert_eq!(next.repetitions, 2);
    assert_eq!(next.due, e.now() + 2_000, "one interval after now");
    // The two repetitions left fire at their own times, then the cycle is done.
    e.advance_clock(2_000).unwrap();
    e.advance_clock(2_000).unwrap();
    assert_eq!(count(&e, "remind_end"), 3);
    assert!(e.timers().is_empty());
    let job = e.activatable_jobs(None)[0].key;
    e.complete_job(job, VariableDocument::new()).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
}

#[test]
fn a_cycle_whose_next_due_date_is_exactly_now_goes_on_one_interval_after_now() {
    // shouldFireExactlyOnceAndPushRescheduleWhenNaturalNextDueDateExactlyEqualsNow
    let mut e = reminder_process("R/PT1S");
    e.create_instance(CreateInstance::new("nb")).unwrap();
    let first_due = e.timers()[0].due;
    e.advance_clock(2_000).unwrap();
    assert_eq!(count(&e, "remind_end"), 1);
    assert_eq!(e.timers()[0].due, first_due + 2_000);
}

#[test]
fn an_overdue_cycle_start_event_starts_one_instance_for_the_whole_gap() {
    // shouldFireCyclingStartEventExactlyOnceWhenOverdueForSeveralIntervals
    let mut e = Engine::default();
    crate::xml::deploy(
        &mut e,
        &timer_start_process("tick", "every", "<bpmn:timeCycle>R/PT2S</bpmn:timeCycle>"),
    );
    e.advance_clock(10_000).unwrap();
    assert_eq!(e.process_instances().len(), 1);
    assert_eq!(e.timers()[0].due, e.now() + 2_000);
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

fn timer_start_process(id: &str, start_id: &str, definition: &str) -> String {
    use crate::xml::*;
    definitions(&process(
        id,
        &format!(
            r#"<bpmn:startEvent id="{start_id}"><bpmn:timerEventDefinition>{definition}</bpmn:timerEventDefinition></bpmn:startEvent>{}{}"#,
            crate::xml::service("work", "work"),
            chain(&[start_id, "work"])
        ),
    ))
}

#[test]
fn a_timer_start_event_cycle_starts_an_instance_per_firing() {
    let mut e = Engine::default();
    crate::xml::deploy(
        &mut e,
        &timer_start_process("tick", "every", "<bpmn:timeCycle>R3/PT1H</bpmn:timeCycle>"),
    );
    assert_eq!(e.timers().len(), 1);
    assert_eq!(e.timers()[0].process_instance_key, None);
    e.advance_clock(3_600_000).unwrap();
    assert_eq!(e.process_instances().len(), 1);
    // The clock jumps past both remaining firings: the cycle fires once, then goes on an hour
    // after now with its last repetition.
    e.advance_clock(10 * 3_600_000).unwrap();
    assert_eq!(e.process_instances().len(), 2);
    assert_eq!(e.timers()[0].repetitions, 1);
    e.advance_clock(3_600_000).unwrap();
    assert_eq!(e.process_instances().len(), 3);
    assert!(e.timers().is_empty());
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn a_new_version_replaces_the_timer_start_events_of_the_previous_one() {
    let mut e = Engine::default();
    crate::xml::deploy(
        &mut e,
        &timer_start_process(
            "tick",
            "at",
            "<bpmn:timeDate>2025-01-02T00:00:00Z</bpmn:timeDate>",
        ),
    );
    let old = e.timers()[0].key;
    crate::xml::deploy(
        &mut e,
        &timer_start_process(
            "tick",
            "daily",
            "<bpmn:timeCycle>0 0 6 * * *</bpmn:timeCycle>",
        ),
    );
    let timers = e.timers();
    assert_eq!(timers.len(), 1);
    assert_ne!(timers[0].key, old);
    // Cron: the next 06:00 after the deployment (the clock starts at 2025-01-01T00:00Z).
    assert_eq!(timers[0].due, 1_735_689_600_000 + 6 * 3_600_000);
    assert_eq!(timers[0].repetitions, -1);
    // The clock jumps past 06:00 on the 1st and on the 2nd: a cron cycle fires once, then at
    // its next match after now (Zeebe's `CronTimer.getDueDate(now)`).
    e.advance_clock(30 * 3_600_000).unwrap();
    let started = e.process_instances();
    assert_eq!(started.len(), 1);
    assert!(started.iter().all(|p| p.version == 2));
    assert_eq!(e.timers()[0].due, 1_735_689_600_000 + 54 * 3_600_000);
    e.advance_clock(24 * 3_600_000).unwrap();
    assert_eq!(e.process_instances().len(), 2);
}

#[test]
fn zero_and_negative_durations_and_past_dates_fire_at_once() {
    for definition in [
        "<bpmn:timeDuration>PT0S</bpmn:timeDuration>",
        "<bpmn:timeDuration>-PT5M</bpmn:timeDuration>",
        "<bpmn:timeDate>2020-01-01T00:00:00Z</bpmn:timeDate>",
        "<bpmn:timeDate>=date and time(\"2024-12-31T23:00:00@Europe/Berlin\")</bpmn:timeDate>",
    ] {
        use crate::xml::*;
        let xml = definitions(&process(
            "now",
            &format!(
                r#"<bpmn:startEvent id="start" /><bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition>{definition}</bpmn:timerEventDefinition></bpmn:intermediateCatchEvent><bpmn:endEvent id="end" />{}"#,
                chain(&["start", "wait", "end"])
            ),
        ));
        let mut e = Engine::default();
        deploy(&mut e, &xml);
        let pi = e.create_instance(CreateInstance::new("now")).unwrap();
        assert_eq!(
            e.process_instance(pi).unwrap().state,
            State::Completed,
            "{definition}"
        );
    }
}

#[test]
fn a_cron_cycle_on_a_non_interrupting_boundary_event_repeats() {
    let mut b = Builder::new("cron");
    b.start("s")
        .service("task", "work")
        .end("done")
        .end("nudged");
    boundary(
        &mut b,
        "nudge",
        "task",
        false,
        TimerDefinition::Cycle(Expr::new("0 */15 * * * *", Default::default())),
    );
    b.chain(&["s", "task", "done"]).flow("nudge", "nudged");
    let mut e = Engine::default();
    e.deploy_definitions("c.bpmn", &b.build()).unwrap();
    e.create_instance(CreateInstance::new("cron")).unwrap();
    for _ in 0..4 {
        e.advance_clock(15 * 60_000).unwrap();
    }
    assert_eq!(count(&e, "nudged"), 4, ":15, :30, :45 and :00");
    // A jump over three matches fires once, then at the next match after now.
    e.advance_clock(50 * 60_000).unwrap();
    assert_eq!(count(&e, "nudged"), 5);
    assert_eq!(e.timers()[0].due, e.now() + 10 * 60_000);
    let bad = "0 0 25 * * *";
    let mut b = Builder::new("badcron");
    b.start("s").service("task", "work");
    boundary(
        &mut b,
        "nudge",
        "task",
        false,
        TimerDefinition::Cycle(Expr::new(bad, Default::default())),
    );
    b.chain(&["s", "task"]);
    e.deploy_definitions("b.bpmn", &b.build()).unwrap();
    e.create_instance(CreateInstance::new("badcron")).unwrap();
    let incident = e.incidents().pop().unwrap();
    assert_eq!(incident.error_type, ErrorType::ExtractValueError);
    insta::assert_snapshot!(incident.error_message, @"Invalid timer cycle expression (failed to parse '0 0 25 * * *': Invalid hour field: 25 is not within 0-23)");
}
