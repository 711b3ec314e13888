use baton_engine::model::{GatewayKind, SubProcessKind};
use baton_engine::runtime::*;
use serde_json::json;

use crate::builder::Builder;

fn doc(v: serde_json::Value) -> VariableDocument {
    match v {
        serde_json::Value::Object(m) => m.into_iter().collect(),
        _ => panic!("not an object"),
    }
}

fn engine_with(b: &Builder) -> Engine {
    let mut e = Engine::default();
    e.deploy_definitions("test.bpmn", &b.build())
        .expect("deploys");
    e
}

fn state_of(e: &Engine, pi: Key) -> State {
    e.process_instance(pi).expect("instance").state
}

/// Completes every activatable job (oldest first) until none is left.
fn complete_all(e: &mut Engine) -> usize {
    let mut n = 0;
    loop {
        let jobs = e.activatable_jobs(None);
        let Some(j) = jobs.first() else { return n };
        e.complete_job(j.key, VariableDocument::new())
            .expect("completes");
        n += 1;
    }
}

fn chain() -> Builder {
    let mut b = Builder::new("chain");
    b.start("start")
        .service("a", "work")
        .service("b", "work")
        .end("end");
    b.chain(&["start", "a", "b", "end"]);
    b
}

#[test]
fn service_task_chain_runs_to_completion() {
    let mut e = engine_with(&chain());
    let pi = e.create_instance(CreateInstance::new("chain")).unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    let jobs = e.activatable_jobs(Some("work"));
    assert_eq!(jobs.len(), 1);
    assert_eq!(&*jobs[0].element_id, "a");
    assert_eq!(complete_all(&mut e), 2);
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn same_commands_give_the_same_log() {
    let run = || {
        let mut e = engine_with(&chain());
        e.create_instance(
            CreateInstance::new("chain").variables(doc(json!({"x": 1, "y": [1, 2]}))),
        )
        .unwrap();
        complete_all(&mut e);
        let json: Vec<String> = e
            .records()
            .iter()
            .map(|r| e.record_json(r).to_string())
            .collect();
        (e.render_log(), json)
    };
    assert_eq!(run(), run());
}

#[test]
fn keys_start_like_zeebe() {
    let mut e = engine_with(&chain());
    let pi = e.create_instance(CreateInstance::new("chain")).unwrap();
    // Deployment and process took the first keys.
    assert!(pi > 2251799813685249);
    assert_eq!(e.records()[0].key, Some(2251799813685250));
}

#[test]
fn job_variables_propagate_to_the_root_or_where_they_live() {
    let mut b = Builder::new("p");
    b.start("s")
        .sub_process("sub", SubProcessKind::Embedded)
        .start("s2")
        .service("t", "work")
        .end("e2")
        .close()
        .end("e");
    b.chain(&["s2", "t", "e2"]).chain(&["s", "sub", "e"]);
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("p")).unwrap();
    let sub = e
        .element_instances(pi)
        .into_iter()
        .find(|i| i.element_id == "sub")
        .unwrap();
    e.set_variables(sub.key, doc(json!({"local": 1})), true)
        .unwrap();
    let job = e.activatable_jobs(None)[0].key;
    e.complete_job(job, doc(json!({"local": 2, "fresh": "x"})))
        .unwrap();
    // `local` was updated where it lived (the sub-process, which dropped it), `fresh` went to the root.
    let root: Vec<(String, serde_json::Value)> = e
        .records()
        .iter()
        .filter_map(|r| match &r.value {
            RecordValue::Variable(v) => Some((
                format!(
                    "{} {} scope={}",
                    r.intent,
                    v.name,
                    if v.scope_key == pi { "root" } else { "sub" }
                ),
                (*v.value).clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        root,
        vec![
            ("CREATED local scope=sub".to_owned(), json!(1)),
            ("UPDATED local scope=sub".to_owned(), json!(2)),
            ("CREATED fresh scope=root".to_owned(), json!("x")),
        ]
    );
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn failing_a_job_uses_retries_then_raises_an_incident() {
    let mut e = engine_with(&chain());
    let pi = e.create_instance(CreateInstance::new("chain")).unwrap();
    let job = e.activatable_jobs(None)[0].key;
    e.fail_job(job, 1, "boom", 60_000, VariableDocument::new())
        .unwrap();
    assert!(e.activatable_jobs(None).is_empty(), "backoff hides the job");
    e.advance_clock(59_999).unwrap();
    assert!(e.activatable_jobs(None).is_empty());
    e.advance_clock(1).unwrap();
    assert_eq!(e.activatable_jobs(None).len(), 1, "recurred after backoff");
    e.fail_job(job, 0, "boom again", 0, VariableDocument::new())
        .unwrap();
    let incidents = e.incidents();
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0].error_type, ErrorType::JobNoRetries);
    assert_eq!(&*incidents[0].error_message, "boom again");
    // Resolving before the retries are raised is rejected, as in Zeebe.
    let err = e.resolve_incident(incidents[0].key).unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::InvalidState);
    e.update_job_retries(job, 1).unwrap();
    e.resolve_incident(incidents[0].key).unwrap();
    assert!(e.incidents().is_empty());
    complete_all(&mut e);
    assert_eq!(state_of(&e, pi), State::Completed);
    // Completing a completed job is NOT_FOUND.
    assert_eq!(
        e.complete_job(job, VariableDocument::new())
            .unwrap_err()
            .rejection_type,
        RejectionType::NotFound
    );
}

/// Zeebe times a job out once the clock is past its deadline, not at it
/// (`DbJobState.forEachTimedOutEntry`: `deadline < executionTimestamp`, run by
/// `JobTimeoutCheckScheduler`), keeps its key and retries (`JobTimeOutTest.shouldTimeOutJob`).
#[test]
fn job_timeout_makes_the_job_activatable_again() {
    let mut e = engine_with(&chain());
    e.create_instance(CreateInstance::new("chain")).unwrap();
    let keys = e.activate_jobs("work", "w1", 1_000, 10);
    assert_eq!(keys.len(), 1);
    assert!(e.activatable_jobs(None).is_empty());
    e.advance_clock(1_000).unwrap();
    assert!(
        e.activatable_jobs(None).is_empty(),
        "at the deadline the job is still the worker's"
    );
    assert_eq!(e.next_due_time(), Some(e.now() + 1));
    e.advance_clock(1).unwrap();
    let again = e.activatable_jobs(None);
    assert_eq!(again[0].key, keys[0], "same key after the timeout");
    assert!(
        e.records()
            .iter()
            .any(|r| r.intent == Intent::Other(OtherIntent::TimedOut))
    );
}

/// Zeebe's job push (`BpmnJobActivationBehavior.publishWork`) hands one job to a worker's stream:
/// a `JOB_BATCH` `ACTIVATED` of that job alone, deadline now + the stream's timeout.
#[test]
fn pushing_a_job_activates_that_job_alone() {
    let mut e = engine_with(&chain());
    e.create_instance(CreateInstance::new("chain")).unwrap();
    e.create_instance(CreateInstance::new("chain")).unwrap();
    let jobs = e.activatable_jobs(Some("work"));
    assert_eq!(jobs.len(), 2);
    let second = jobs[1].key;
    e.push_job(second, "w1", 5_000).unwrap();
    let left: Vec<_> = e.activatable_jobs(None).iter().map(|j| j.key).collect();
    assert_eq!(left, vec![jobs[0].key]);
    let view = e.job(second).unwrap();
    assert_eq!(view.deadline, Some(e.now() + 5_000));
    let batch = e
        .records()
        .iter()
        .rev()
        .find(|r| r.intent == Intent::Other(OtherIntent::Activated))
        .unwrap();
    match &batch.value {
        RecordValue::JobBatch {
            job_keys, timeout, ..
        } => {
            assert_eq!((job_keys.as_slice(), *timeout), (&[second][..], 5_000));
        }
        other => panic!("{other:?}"),
    }
    let again = e.push_job(second, "w2", 5_000).unwrap_err();
    assert_eq!(again.rejection_type, RejectionType::InvalidState);
    assert!(e.push_job(12345, "w2", 5_000).is_err());
    assert_eq!(
        e.push_job(jobs[0].key, "w2", 0).unwrap_err().rejection_type,
        RejectionType::InvalidArgument
    );
    // Completing a pushed job is what its worker does.
    e.complete_job(second, VariableDocument::new()).unwrap();
}

#[test]
fn activatable_jobs_since_is_incremental() {
    let mut e = engine_with(&chain());
    e.create_instance(CreateInstance::new("chain")).unwrap();
    let (first, cursor) = e.activatable_jobs_since(0);
    assert_eq!(first.len(), 1);
    let (none, cursor2) = e.activatable_jobs_since(cursor);
    assert!(none.is_empty());
    assert_eq!(cursor, cursor2);
    e.complete_job(first[0], VariableDocument::new()).unwrap();
    let (next, _) = e.activatable_jobs_since(cursor2);
    assert_eq!(next.len(), 1);
    assert_ne!(next[0], first[0]);
}

#[test]
fn parallel_gateway_forks_and_joins() {
    let mut b = Builder::new("par");
    b.start("s")
        .gateway("fork", GatewayKind::Parallel)
        .service("a", "a")
        .service("b", "b")
        .gateway("join", GatewayKind::Parallel)
        .end("e");
    b.chain(&["s", "fork", "a", "join", "e"])
        .chain(&["fork", "b", "join"]);
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("par")).unwrap();
    assert_eq!(e.activatable_jobs(None).len(), 2);
    let a = e.activatable_jobs(Some("a"))[0].key;
    e.complete_job(a, VariableDocument::new()).unwrap();
    assert_eq!(state_of(&e, pi), State::Activated);
    let b_job = e.activatable_jobs(Some("b"))[0].key;
    e.complete_job(b_job, VariableDocument::new()).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn exclusive_gateway_without_conditions_takes_the_only_flow_and_a_gateway_without_flows_ends_the_path()
 {
    let mut b = Builder::new("x");
    b.start("s")
        .gateway("g", GatewayKind::Exclusive)
        .gateway("dead", GatewayKind::Exclusive);
    b.chain(&["s", "g", "dead"]);
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("x")).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
}

#[test]
fn terminate_end_event_completes_the_scope() {
    let mut b = Builder::new("t");
    b.start("s")
        .gateway("fork", GatewayKind::Parallel)
        .service("wait", "w")
        .terminate_end("kill")
        .end("e");
    b.chain(&["s", "fork", "wait", "e"])
        .chain(&["fork", "kill"]);
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("t")).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(e.jobs().is_empty(), "the job was canceled");
    let terminated = e
        .records()
        .iter()
        .filter(|r| r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementTerminated))
        .map(|r| e.record_element_id(r).unwrap())
        .collect::<Vec<_>>();
    assert_eq!(terminated, ["wait"]);
}

#[test]
fn a_loop_without_wait_state_stops_at_the_step_limit() {
    let mut b = Builder::new("loop");
    b.start("s").task("a").task("b");
    b.chain(&["s", "a", "b", "a"]);
    let mut e = Engine::new(EngineConfig {
        step_limit: 1_000,
        ..Default::default()
    });
    e.deploy_definitions("loop.bpmn", &b.build()).unwrap();
    let err = e.create_instance(CreateInstance::new("loop")).unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::ProcessingError);
    insta::assert_snapshot!(err.message);
}

#[test]
fn error_thrown_by_a_job_is_caught_by_the_nearest_boundary_and_specific_code_wins() {
    let mut b = Builder::new("err");
    b.start("s")
        .service("t", "work")
        .end("ok")
        .end("caught_all")
        .end("caught_specific");
    b.boundary_error("all", "t", None)
        .boundary_error("specific", "t", Some("E1"));
    b.chain(&["s", "t", "ok"])
        .flow("all", "caught_all")
        .flow("specific", "caught_specific");
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("err")).unwrap();
    let job = e.activatable_jobs(None)[0].key;
    e.throw_error(job, "E1", "bad", doc(json!({"reason": "x"})))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    let completed: Vec<String> = e
        .records()
        .iter()
        .filter(|r| r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementCompleted))
        .filter_map(|r| e.record_element_id(r))
        .collect();
    assert!(
        completed.contains(&"caught_specific".to_owned()),
        "{completed:?}"
    );
    assert!(!completed.contains(&"caught_all".to_owned()));
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn uncaught_error_raises_an_incident_and_error_events_cross_call_activities() {
    // Uncaught.
    let mut e = engine_with(&chain());
    e.create_instance(CreateInstance::new("chain")).unwrap();
    let job = e.activatable_jobs(None)[0].key;
    e.throw_error(job, "NOPE", "msg", VariableDocument::new())
        .unwrap();
    let inc = e.incidents();
    assert_eq!(inc[0].error_type, ErrorType::UnhandledErrorEvent);
    insta::assert_snapshot!("uncaught_error_message", inc[0].error_message.to_string());

    // Thrown in a child process, caught on the call activity in the parent.
    let mut child = Builder::new("child");
    child.start("cs").error_end("fail", "CHILD_ERR");
    child.chain(&["cs", "fail"]);
    let mut parent = Builder::new("parent");
    parent
        .start("s")
        .call("call", "child")
        .end("e")
        .end("handled");
    parent.boundary_error("on_err", "call", Some("CHILD_ERR"));
    parent.chain(&["s", "call", "e"]).flow("on_err", "handled");
    let mut e = Engine::default();
    e.deploy_definitions("child.bpmn", &child.build()).unwrap();
    e.deploy_definitions("parent.bpmn", &parent.build())
        .unwrap();
    let pi = e.create_instance(CreateInstance::new("parent")).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    let child_pi = e
        .process_instances()
        .into_iter()
        .find(|p| &*p.bpmn_process_id == "child")
        .unwrap();
    assert_eq!(child_pi.state, State::Terminated);
}

/// Zeebe's incident for an uncaught error (`CatchEventAnalyzer`) is built from optional parts:
/// ` with message '…'` only for a job's non-empty error message, and the codes of the catch
/// events that were considered (scope by scope, inside out, each scope in descending order).
#[test]
fn an_uncaught_error_names_only_the_parts_that_are_there() {
    enum Throw {
        Job(&'static str),
        EndEvent,
    }
    fn with_catches() -> Builder {
        let mut b = Builder::new("nested");
        b.start("s").sub_process("sub", SubProcessKind::Embedded);
        b.start("ss").service("t", "work").end("se");
        b.sub_process("handler", SubProcessKind::Event)
            .error_start("on_z", Some("Z"))
            .end("he")
            .close();
        b.chain(&["ss", "t", "se"]).flow("on_z", "he");
        b.close();
        b.end("e").end("after_a").end("after_b").end("after_y");
        b.boundary_error("on_b", "t", Some("B"))
            .boundary_error("on_a", "t", Some("A"))
            .boundary_error("on_y", "sub", Some("Y"));
        b.chain(&["s", "sub", "e"])
            .flow("on_a", "after_a")
            .flow("on_b", "after_b")
            .flow("on_y", "after_y");
        b
    }
    fn end_in_sub_process() -> Builder {
        let mut b = Builder::new("nested");
        b.start("s").sub_process("sub", SubProcessKind::Embedded);
        b.start("ss").error_end("fail", "X");
        b.chain(&["ss", "fail"]);
        b.close();
        b.end("e");
        b.chain(&["s", "sub", "e"]);
        b
    }
    fn end_with_a_boundary_catch() -> Builder {
        let mut b = end_in_sub_process();
        b.end("after")
            .boundary_error("on_q", "sub", Some("Q"))
            .flow("on_q", "after");
        b
    }
    let cases: [(&str, &str, Builder, Throw); 5] = [
        ("job, no message", "chain", chain(), Throw::Job("")),
        (
            "job, a message",
            "chain",
            chain(),
            Throw::Job("card declined"),
        ),
        (
            "job, catch events for other codes",
            "nested",
            with_catches(),
            Throw::Job(""),
        ),
        (
            "error end event",
            "nested",
            end_in_sub_process(),
            Throw::EndEvent,
        ),
        (
            "error end event, a catch for another code",
            "nested",
            end_with_a_boundary_catch(),
            Throw::EndEvent,
        ),
    ];
    let mut out = String::new();
    for (name, process, builder, throw) in cases {
        let mut e = engine_with(&builder);
        e.create_instance(CreateInstance::new(process)).unwrap();
        if let Throw::Job(message) = throw {
            let job = e.activatable_jobs(None)[0].key;
            e.throw_error(job, "X", message, VariableDocument::new())
                .unwrap();
        }
        let inc = e.incidents();
        assert_eq!(inc.len(), 1, "{name}");
        assert_eq!(inc[0].error_type, ErrorType::UnhandledErrorEvent);
        out += &format!("{name}:\n  {}\n", inc[0].error_message);
    }
    insta::assert_snapshot!(out);
}

/// Throwing an error for a job that already threw one names the job's state, as the other job
/// commands do (the rejection said 'FAILED' whatever the state was).
#[test]
fn throwing_again_names_the_jobs_state() {
    let mut e = engine_with(&chain());
    e.create_instance(CreateInstance::new("chain")).unwrap();
    let job = e.activatable_jobs(None)[0].key;
    e.throw_error(job, "X", "", VariableDocument::new())
        .unwrap();
    let again = e
        .throw_error(job, "X", "", VariableDocument::new())
        .unwrap_err();
    assert_eq!(again.rejection_type, RejectionType::InvalidState);
    insta::assert_snapshot!(again.message.replace(&job.to_string(), "<job>"), @"Expected to throw an error for job with key '<job>', but it is in state 'ERROR_THROWN'");
}

#[test]
fn error_event_sub_process_interrupts_its_scope() {
    let mut b = Builder::new("esp");
    b.start("s").service("t", "work").end("e");
    b.sub_process("handler", SubProcessKind::Event)
        .error_start("es", None)
        .end("ee")
        .close();
    b.chain(&["s", "t", "e"]).flow("es", "ee");
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("esp")).unwrap();
    let job = e.activatable_jobs(None)[0].key;
    e.throw_error(job, "ANY", "", VariableDocument::new())
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(e.render_log());
}

#[test]
fn call_activity_copies_variables_both_ways() {
    let mut child = Builder::new("child");
    child.start("cs").service("ct", "child-work").end("ce");
    child.chain(&["cs", "ct", "ce"]);
    let mut parent = Builder::new("parent");
    parent.start("s").call("call", "child").end("e");
    parent.chain(&["s", "call", "e"]);
    let mut e = Engine::default();
    e.deploy_definitions("child.bpmn", &child.build()).unwrap();
    e.deploy_definitions("parent.bpmn", &parent.build())
        .unwrap();
    let pi = e
        .create_instance(CreateInstance::new("parent").variables(doc(json!({"order": 7}))))
        .unwrap();
    let job = e.activatable_jobs(None)[0].clone();
    assert_eq!(e.job_variables(job.key).unwrap()["order"], json!(7));
    e.complete_job(job.key, doc(json!({"result": "done"})))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    let root_vars: Vec<String> = e
        .records()
        .iter()
        .filter_map(|r| match &r.value {
            RecordValue::Variable(v) if v.scope_key == pi => {
                Some(format!("{} {}={}", r.intent, v.name, v.value))
            }
            _ => None,
        })
        .collect();
    assert_eq!(root_vars, ["CREATED order=7", "CREATED result=\"done\""]);
}

#[test]
fn business_rule_task_uses_a_registered_decision_and_a_missing_one_is_an_incident() {
    let mut b = Builder::new("dmn");
    b.start("s")
        .business_rule("rule", "discount", "result")
        .end("e");
    b.chain(&["s", "rule", "e"]);
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("dmn")).unwrap();
    let inc = e.incidents();
    assert_eq!(inc[0].error_type, ErrorType::CalledDecisionError);
    e.register_decision("discount", json!({"discount": 15}));
    e.resolve_incident(inc[0].key).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert!(e.records().iter().any(|r| matches!(&r.value, RecordValue::Variable(v) if &*v.name == "result" && *v.value == json!({"discount": 15}))));
}

#[test]
fn user_task_is_created_and_completed() {
    let mut b = Builder::new("ut");
    b.start("s").user_task("review").end("e");
    b.chain(&["s", "review", "e"]);
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("ut")).unwrap();
    let task = e.user_tasks()[0].clone();
    assert_eq!(task.state, UserTaskState::Created);
    assert_eq!(task.value.priority, 50);
    e.complete_user_task(task.key, doc(json!({"approved": true})))
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    assert_eq!(e.user_tasks()[0].state, UserTaskState::Completed);
}

#[test]
fn cancel_terminates_everything() {
    let mut e = engine_with(&chain());
    let pi = e.create_instance(CreateInstance::new("chain")).unwrap();
    e.cancel_instance(pi).unwrap();
    assert_eq!(state_of(&e, pi), State::Terminated);
    assert!(e.jobs().is_empty());
}

#[test]
fn start_instructions_and_terminate_after_element() {
    let mut e = engine_with(&chain());
    let pi = e
        .create_instance(CreateInstance {
            start_instructions: vec!["b".into()],
            terminate_after: vec!["b".into()],
            ..CreateInstance::new("chain")
        })
        .unwrap();
    let jobs = e.activatable_jobs(None);
    assert_eq!(&*jobs[0].element_id, "b");
    e.complete_job(jobs[0].key, VariableDocument::new())
        .unwrap();
    assert_eq!(state_of(&e, pi), State::Terminated);
}

fn ad_hoc_process() -> Builder {
    let mut b = Builder::new("agent");
    b.start("s")
        .sub_process(
            "AI_Agent",
            SubProcessKind::AdHoc(baton_engine::model::AdHoc {
                completion_condition: None,
                cancel_remaining_instances: None,
                ordering: None,
            }),
        )
        .service("ToolA", "tool-a")
        .service("ToolB", "tool-b")
        .close()
        .end("e");
    b.chain(&["s", "AI_Agent", "e"]);
    b.element("AI_Agent").zeebe.task_definition = Some(baton_engine::model::TaskDefinition {
        job_type: Some(baton_engine::model::Expr::new(
            "io.camunda.agenticai:aiagent-job-worker:1",
            Default::default(),
        )),
        retries: None,
        span: Default::default(),
    });
    b.element("ToolA").name = Some("Tool A".into());
    b.element("ToolA").documentation = vec!["Does A".into()];
    b
}

#[test]
fn ad_hoc_job_worker_mode_runs_the_agent_loop() {
    let mut e = engine_with(&ad_hoc_process());
    let pi = e.create_instance(CreateInstance::new("agent")).unwrap();
    let agent_job = e.activatable_jobs(None)[0].clone();
    assert_eq!(agent_job.kind, JobKind::AdHocSubProcess);
    let vars = e.job_variables(agent_job.key).unwrap();
    insta::assert_json_snapshot!("ad_hoc_elements", vars["adHocSubProcessElements"]);
    // Unknown elements are rejected and change nothing.
    let err = e
        .complete_job_with_result(
            agent_job.key,
            VariableDocument::new(),
            Some(JobResult::AdHocSubProcess(AdHocJobResult {
                activate_elements: vec![("Nope".into(), SharedVariableDocument::new())],
                ..Default::default()
            })),
        )
        .unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::NotFound);
    e.complete_job_with_result(
        agent_job.key,
        doc(json!({"agentContext": {"turn": 1}})),
        Some(JobResult::AdHocSubProcess(AdHocJobResult {
            activate_elements: vec![(
                "ToolA".into(),
                share_document(doc(json!({"toolCall": {"id": 1}}))),
            )],
            ..Default::default()
        })),
    )
    .unwrap();
    let live: Vec<String> = e
        .element_instances(pi)
        .into_iter()
        .map(|i| i.element_id)
        .collect();
    assert_eq!(
        live,
        ["agent", "AI_Agent", "AI_Agent#innerInstance", "ToolA"]
    );
    let tool = e.activatable_jobs(Some("tool-a"))[0].key;
    assert_eq!(e.job_variables(tool).unwrap()["toolCall"], json!({"id": 1}));
    e.complete_job(tool, VariableDocument::new()).unwrap();
    // A new agent job after the inner completion.
    let agent_job2 = e.activatable_jobs(None)[0].clone();
    assert_eq!(agent_job2.kind, JobKind::AdHocSubProcess);
    assert_ne!(agent_job2.key, agent_job.key);
    e.complete_job_with_result(
        agent_job2.key,
        doc(json!({"agent": {"answer": 42}})),
        Some(JobResult::AdHocSubProcess(AdHocJobResult {
            completion_condition_fulfilled: true,
            ..Default::default()
        })),
    )
    .unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    insta::assert_snapshot!(e.render_log());
}

const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="xml_proc" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:serviceTask id="task" name="Work">
      <bpmn:extensionElements>
        <zeebe:taskDefinition type="work" retries="5" />
        <zeebe:taskHeaders><zeebe:header key="h" value="v" /></zeebe:taskHeaders>
      </bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:endEvent id="end"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>"#;

#[test]
fn deploys_xml_and_runs_it() {
    let mut e = Engine::default();
    let info = e.deploy_xml("p.bpmn", XML).unwrap();
    assert_eq!(info.processes[0].0, "xml_proc");
    let pi = e.create_instance(CreateInstance::new("xml_proc")).unwrap();
    let job = e.activatable_jobs(None)[0].clone();
    assert_eq!(job.retries, 5);
    assert_eq!(job.custom_headers.get("h").map(String::as_str), Some("v"));
    e.complete_job(job.key, VariableDocument::new()).unwrap();
    assert_eq!(state_of(&e, pi), State::Completed);
    // A second deployment of the same id is version 2 and becomes the latest.
    let info = e.deploy_xml("p.bpmn", XML).unwrap();
    assert_eq!(info.processes[0].1, 2);
    // Bad XML is rejected with a position.
    let err = e.deploy_xml("bad.bpmn", "<bpmn:definitions").unwrap_err();
    assert_eq!(err.rejection_type, RejectionType::InvalidArgument);
    assert!(err.message.contains("bad.bpmn:"), "{}", err.message);
}
