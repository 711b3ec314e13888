//! Runaway processes stop at a limit of `EngineConfig` with a message naming what ran away, and
//! the clock refuses times it cannot show; overdue cycles do not catch up (see `timers.rs`).

use baton_engine::runtime::*;

use crate::xml::*;

fn start_events() -> Engine {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/bpmn/accept/start-events.bpmn"
    );
    let mut e = Engine::default();
    deploy(&mut e, &std::fs::read_to_string(path).unwrap());
    e
}

const DAY: i64 = 86_400_000;

#[test]
fn a_hundred_years_at_once_fire_each_start_timer_once() {
    let mut e = start_events();
    e.advance_clock(36_500 * DAY).unwrap();
    // The daily cycle, the weekday cron and the date: one instance each, then every later
    // command is as cheap as before the jump.
    assert_eq!(e.process_instances().len(), 3);
    let records = e.records().len();
    let job = e.activatable_jobs(None)[0].key;
    e.complete_job(job, VariableDocument::new()).unwrap();
    assert!(e.records().len() - records < 20);
    let due: Vec<i64> = e.timers().iter().map(|t| t.due - e.now()).collect();
    assert_eq!(
        due.len(),
        2,
        "the cycle and the cron go on; the date is done"
    );
    assert!(due.iter().all(|d| (0..=3 * DAY).contains(d)), "{due:?}");
}

#[test]
fn the_clock_refuses_times_it_cannot_show() {
    let mut e = start_events();
    let before = e.now();
    let past = e.advance_clock(9_999_999 * DAY).unwrap_err();
    assert_eq!(past.rejection_type, RejectionType::InvalidArgument);
    insta::assert_snapshot!(past.message, @"Expected pin time to be at most 253402207200000 (9999-12-30T22:00:00Z, the latest time the engine clock can show) but it was 865735603200000");
    let overflow = e.advance_clock(i64::MAX).unwrap_err();
    assert_eq!(overflow.rejection_type, RejectionType::InvalidArgument);
    let negative = e.set_clock(-1).unwrap_err();
    insta::assert_snapshot!(negative.message, @"Expected pin time to be not negative but it was -1");
    assert_eq!(e.now(), before);
    // The last instant it can show is fine: each start timer fires once.
    e.set_clock(253_402_207_200_000).unwrap();
    assert_eq!(e.process_instances().len(), 3);
}

#[test]
fn a_timer_due_after_the_end_of_the_clock_is_an_incident() {
    let xml = definitions(&process(
        "late",
        &format!(
            r#"<bpmn:startEvent id="start" /><bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:timeDuration>P7000000D</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>{}"#,
            chain(&["start", "wait"])
        ),
    ));
    let mut e = Engine::default();
    deploy(&mut e, &xml);
    e.create_instance(CreateInstance::new("late")).unwrap();
    let incident = e.incidents().pop().expect("an incident");
    assert_eq!(incident.error_type, ErrorType::ExtractValueError);
    insta::assert_snapshot!(incident.error_message, @"Invalid timer duration expression 'P7000000D': the due date would be after 9999-12-30T22:00:00Z, the latest time the engine clock can show");
}

#[test]
fn a_cycle_with_a_zero_interval_stops_at_the_timer_limit() {
    let xml = definitions(&process(
        "spin",
        &format!(
            r#"<bpmn:startEvent id="start" />{}<bpmn:boundaryEvent id="tick" cancelActivity="false" attachedToRef="work"><bpmn:timerEventDefinition><bpmn:timeCycle>R/PT0S</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:boundaryEvent><bpmn:endEvent id="ticked" />{}{}"#,
            service("work", "work"),
            chain(&["start", "work"]),
            flow("f_tick", "tick", "ticked")
        ),
    ));
    let mut e = Engine::new(EngineConfig {
        timer_limit: 100,
        ..EngineConfig::default()
    });
    deploy(&mut e, &xml);
    let err = e.create_instance(CreateInstance::new("spin")).unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::ProcessingError);
    insta::assert_snapshot!(err.message, @"Stopped after firing 100 timers in one command (the limit is EngineConfig::timer_limit); a timer keeps falling due at once (a cycle with a zero interval, or one the process sets again each time it fires). Timers fired most often: 'tick' of process 'spin' (100 times).");
}

#[test]
fn a_process_calling_itself_stops_at_the_instance_limit() {
    let xml = definitions(&process(
        "again",
        &format!(
            r#"<bpmn:startEvent id="start" /><bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="=&quot;again&quot;" propagateAllChildVariables="false" /></bpmn:extensionElements></bpmn:callActivity>{}"#,
            chain(&["start", "call"])
        ),
    ));
    let mut e = Engine::default();
    e.config_mut().instance_limit = 50;
    deploy(&mut e, &xml);
    let err = e.create_instance(CreateInstance::new("again")).unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::ProcessingError);
    insta::assert_snapshot!(err.message, @"Stopped after creating 51 process instances in one command (more than EngineConfig::instance_limit, 50); a start event or call activity keeps starting instances. Processes started most often: 'again' (51 times).");
}

#[test]
fn a_job_completed_with_too_many_variables_stops_at_the_record_limit() {
    let xml = definitions(&process(
        "big",
        &format!(
            r#"<bpmn:startEvent id="start" />{}{}"#,
            service("work", "work"),
            chain(&["start", "work"])
        ),
    ));
    let mut e = Engine::default();
    e.config_mut().record_limit = 1_000;
    deploy(&mut e, &xml);
    e.create_instance(CreateInstance::new("big")).unwrap();
    let job = e.activatable_jobs(None)[0].key;
    let variables: serde_json::Map<String, serde_json::Value> =
        (0..2_000).map(|i| (format!("v{i}"), i.into())).collect();
    let err = e
        .complete_job(job, doc(serde_json::Value::Object(variables)))
        .unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::ProcessingError);
    insta::assert_snapshot!(err.message, @"Stopped after writing 2003 records in one command (more than EngineConfig::record_limit, 1000). Records written most often: VARIABLE CREATED (2000 times), JOB COMPLETED (once), PROCESS_INSTANCE ELEMENT_COMPLETED (once), PROCESS_INSTANCE ELEMENT_COMPLETING (once).");
}

/// The FEEL runaway deeper fuzzing found (a million bounded regex searches), reached from a
/// BPMN script task and from a DMN literal expression: each stops at the evaluation's one
/// budget with FEEL's failure, an incident naming the limit.
#[test]
fn a_runaway_feel_evaluation_stops_at_its_budget_in_bpmn_and_dmn() {
    const RUNAWAY: &str =
        r#"for x in 1..1000 return (for y in 1..1000 return matches(s, "(a+)\1+b"))"#;
    let s = format!("{}!", "a".repeat(5000));
    let attribute = RUNAWAY.replace('"', "&quot;");
    let script = definitions(&process(
        "scripted",
        &format!(
            r#"<bpmn:startEvent id="start"/><bpmn:scriptTask id="run"><bpmn:extensionElements><zeebe:script expression="={attribute}" resultVariable="r"/></bpmn:extensionElements></bpmn:scriptTask><bpmn:endEvent id="end"/>{}"#,
            chain(&["start", "run", "end"])
        ),
    ));
    let rule = definitions(&process(
        "decided",
        &format!(
            r#"<bpmn:startEvent id="start"/><bpmn:businessRuleTask id="decide"><bpmn:extensionElements><zeebe:calledDecision decisionId="runaway" resultVariable="r"/></bpmn:extensionElements></bpmn:businessRuleTask><bpmn:endEvent id="end"/>{}"#,
            chain(&["start", "decide", "end"])
        ),
    ));
    let dmn = format!(
        r#"<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="limits" name="Limits" namespace="http://baton.test/limits"><decision id="runaway" name="Runaway"><variable id="v" name="r"/><literalExpression id="e"><text>{RUNAWAY}</text></literalExpression></decision></definitions>"#
    );
    let mut e = Engine::default();
    e.deploy(&[
        baton_engine::Resource::from_text("scripted.bpmn", &script),
        baton_engine::Resource::from_text("decided.bpmn", &rule),
        baton_engine::Resource::from_text("limits.dmn", &dmn),
    ])
    .unwrap();
    let mut out = String::new();
    for process in ["scripted", "decided"] {
        e.create_instance(CreateInstance::new(process).variables(doc(serde_json::json!({"s": s}))))
            .unwrap();
        let incident = e.incidents().pop().expect("an incident");
        out += &format!(
            "{process}: {:?} {}\n",
            incident.error_type,
            incident.error_message.replace(&s, "<s>")
        );
    }
    insta::assert_snapshot!(out, @r#"
    scripted: ExtractValueError failed to evaluate expression 'for x in 1..1000 return (for y in 1..1000 return matches(s, "(a+)\1+b"))': the evaluation took more than 10000000 steps (a search with the pattern '(a+)\1+b' counts up to 2000000 of them)
    decided: DecisionEvaluationError Expected to evaluate decision 'runaway', but failed to evaluate expression 'for x in 1..1000 return (for y in 1..1000 return matches(s, "(a+)\1+b"))': the evaluation took more than 10000000 steps (a search with the pattern '(a+)\1+b' counts up to 2000000 of them)
    "#);
}
