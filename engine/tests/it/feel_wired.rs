//! Behaviour that needs FEEL: conditions, mappings, scripts, multi-instance, ad-hoc collections.

use baton_engine::model::{
    AdHoc, GatewayKind, LoopCharacteristics, MultiInstance, SubProcessKind, TaskKind, ZeebeAdHoc,
};
use baton_engine::runtime::*;
use serde_json::json;

use crate::builder::Builder;

fn doc(v: serde_json::Value) -> VariableDocument {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn expr(t: &str) -> baton_engine::model::Expr {
    baton_engine::model::Expr::new(t, Default::default())
}

fn engine_with(b: &Builder) -> Engine {
    let mut e = Engine::default();
    e.deploy_definitions("test.bpmn", &b.build())
        .expect("deploys");
    e
}

fn completed(e: &Engine) -> Vec<String> {
    e.records()
        .iter()
        .filter(|r| r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementCompleted))
        .filter_map(|r| e.record_element_id(r))
        .collect()
}

fn root_var(e: &Engine, pi: Key, name: &str) -> Option<serde_json::Value> {
    let mut last = None;
    for r in e.records() {
        if let RecordValue::Variable(v) = &r.value
            && v.scope_key == pi
            && &*v.name == name
        {
            last = Some((*v.value).clone());
        }
    }
    last
}

fn xor() -> Builder {
    let mut b = Builder::new("xor");
    b.start("s")
        .gateway("g", GatewayKind::Exclusive)
        .end("low")
        .end("high")
        .end("other");
    b.flow("s", "g");
    b.default_flow("g", "other");
    b.flow_with("g", "low", Some("=x < 10"))
        .flow_with("g", "high", Some("=x >= 10"));
    b
}

#[test]
fn exclusive_gateway_takes_the_first_true_condition_else_the_default() {
    let mut e = engine_with(&xor());
    e.create_instance(CreateInstance::new("xor").variables(doc(json!({"x": 3}))))
        .unwrap();
    assert!(completed(&e).contains(&"low".to_owned()));
    let mut e = engine_with(&xor());
    e.create_instance(CreateInstance::new("xor").variables(doc(json!({"x": 30}))))
        .unwrap();
    assert!(completed(&e).contains(&"high".to_owned()));
}

#[test]
fn path_comparisons_answer_as_feel_does() {
    // `path = literal` is answered in place for a value of the literal's type, by FEEL
    // otherwise; both give FEEL's answers.
    let cases = [
        (
            "=agent.resolved = true",
            json!({"agent": {"resolved": true}}),
            "yes",
        ),
        (
            "=agent.resolved = true",
            json!({"agent": {"resolved": false}}),
            "no",
        ),
        (
            "=true = agent.resolved",
            json!({"agent": {"resolved": true}}),
            "yes",
        ),
        (
            "=agent.resolved != true",
            json!({"agent": {"resolved": false}}),
            "yes",
        ),
        ("=status = \"open\"", json!({"status": "open"}), "yes"),
        ("=status = \"open\"", json!({"status": "closed"}), "no"),
        ("=count = 3", json!({"count": 3}), "yes"),
        ("=count = 3", json!({"count": 3.0}), "yes"),
        // Values of another type are not comparable: FEEL's null, an incident.
        ("=count = 3", json!({"count": "3"}), "incident"),
        ("=agent.resolved = true", json!({"agent": null}), "no"),
        ("=agent.resolved = true", json!({}), "no"),
        // A list projects: [true] is no boolean.
        (
            "=items.ok = true",
            json!({"items": [{"ok": true}]}),
            "incident",
        ),
    ];
    for (condition, variables, taken) in cases {
        let mut b = Builder::new("cmp");
        b.start("s")
            .gateway("g", GatewayKind::Exclusive)
            .end("yes")
            .end("no");
        b.flow("s", "g")
            .flow_with("g", "yes", Some(condition))
            .default_flow("g", "no");
        let mut e = engine_with(&b);
        e.create_instance(CreateInstance::new("cmp").variables(doc(variables.clone())))
            .unwrap();
        if taken == "incident" {
            assert_eq!(e.incidents().len(), 1, "{condition} with {variables}");
            continue;
        }
        assert!(
            completed(&e).contains(&taken.to_owned()),
            "{condition} with {variables}: expected {taken}, incidents {:?}",
            e.incidents()
        );
    }
}

#[test]
fn a_non_boolean_condition_is_an_incident_and_resolving_retries_it() {
    let mut e = engine_with(&xor());
    let pi = e.create_instance(CreateInstance::new("xor")).unwrap();
    let inc = e.incidents();
    assert_eq!(inc.len(), 1);
    assert_eq!(inc[0].error_type, ErrorType::ExtractValueError);
    insta::assert_snapshot!(inc[0].error_message.to_string());
    e.set_variables(pi, doc(json!({"x": 1})), false).unwrap();
    e.resolve_incident(inc[0].key).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
}

#[test]
fn no_true_condition_and_no_default_is_a_condition_error() {
    let mut b = Builder::new("nodefault");
    b.start("s")
        .gateway("g", GatewayKind::Exclusive)
        .end("a")
        .end("b");
    b.flow("s", "g")
        .flow_with("g", "a", Some("=false"))
        .flow_with("g", "b", Some("=false"));
    let mut e = engine_with(&b);
    e.create_instance(CreateInstance::new("nodefault")).unwrap();
    let inc = e.incidents();
    assert_eq!(inc[0].error_type, ErrorType::ConditionError);
    assert_eq!(
        &*inc[0].error_message,
        "Expected at least one condition to evaluate to true, or to have a default flow"
    );
}

#[test]
fn inclusive_gateway_forks_on_every_true_condition_and_joins_them() {
    let mut b = Builder::new("incl");
    b.start("s")
        .gateway("fork", GatewayKind::Inclusive)
        .service("a", "a")
        .service("b", "b")
        .service("c", "c")
        .gateway("join", GatewayKind::Inclusive)
        .end("e");
    b.flow("s", "fork")
        .flow_with("fork", "a", Some("=true"))
        .flow_with("fork", "b", Some("=false"))
        .flow_with("fork", "c", Some("=true"))
        .chain(&["a", "join"])
        .chain(&["b", "join"])
        .chain(&["c", "join", "e"]);
    let mut e = engine_with(&b);
    let pi = e.create_instance(CreateInstance::new("incl")).unwrap();
    let jobs: Vec<String> = e
        .activatable_jobs(None)
        .iter()
        .map(|j| j.element_id.to_string())
        .collect();
    assert_eq!(jobs, ["a", "c"]);
    let a = e.activatable_jobs(Some("a"))[0].key;
    e.complete_job(a, VariableDocument::new()).unwrap();
    assert_eq!(
        e.process_instance(pi).unwrap().state,
        State::Activated,
        "c can still reach the join"
    );
    let c = e.activatable_jobs(Some("c"))[0].key;
    e.complete_job(c, VariableDocument::new()).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
}

#[test]
fn input_and_output_mappings() {
    let mut b = Builder::new("io");
    b.start("s").service("t", "work").end("e");
    b.chain(&["s", "t", "e"]);
    b.input("t", "=order.id", "orderId")
        .input("t", "=orderId + 1", "next")
        .input("t", "=\"x\"", "deep.a.b");
    b.output("t", "=result * 2", "doubled")
        .output("t", "=next", "order.next");
    let mut e = engine_with(&b);
    let pi = e
        .create_instance(
            CreateInstance::new("io").variables(doc(json!({"order": {"id": 41, "keep": true}}))),
        )
        .unwrap();
    let job = e.activatable_jobs(None)[0].key;
    let vars = e.job_variables(job).unwrap();
    assert_eq!(vars["orderId"], json!(41));
    assert_eq!(vars["next"], json!(42));
    assert_eq!(vars["deep"], json!({"a": {"b": "x"}}));
    e.complete_job(job, doc(json!({"result": 5}))).unwrap();
    assert_eq!(root_var(&e, pi, "doubled"), Some(json!(10)));
    assert_eq!(
        root_var(&e, pi, "order"),
        Some(json!({"id": 41, "keep": true, "next": 42}))
    );
    // With output mappings the job variables stay local.
    assert_eq!(root_var(&e, pi, "result"), None);
}

#[test]
fn mappings_read_paths_as_feel_does() {
    // Paths answered without FEEL (missing variable or key, a null step, static text, an absent
    // source, a context of paths) and those left to it (a list projects, a float) agree with
    // FEEL's answers.
    let mut b = Builder::new("paths");
    b.start("s").service("t", "work").end("e");
    b.chain(&["s", "t", "e"]);
    b.input("t", "=missing", "a")
        .input("t", "=order.missing", "b")
        .input("t", "=nothing.x.y", "c")
        .input("t", "=items.id", "d")
        .input("t", "=order.price", "f")
        .input("t", "=order", "g")
        .input("t", "static text", "h.text")
        .input("t", "={id: order.id, items: items}", "i")
        .input("t", "=h.text", "j")
        .input("t", "=order.id.x", "k");
    let mut e = engine_with(&b);
    e.create_instance(CreateInstance::new("paths").variables(doc(json!({
        "order": {"id": 41, "price": 1.5},
        "items": [{"id": 1}, {"id": 2}],
        "nothing": null,
    }))))
    .unwrap();
    let job = e.activatable_jobs(None)[0].key;
    let vars = e.job_variables(job).unwrap();
    assert_eq!(vars["a"], json!(null));
    assert_eq!(vars["b"], json!(null));
    assert_eq!(vars["c"], json!(null));
    assert_eq!(vars["d"], json!([1, 2]));
    assert_eq!(vars["f"], json!(1.5));
    assert_eq!(vars["g"], json!({"id": 41, "price": 1.5}));
    assert_eq!(vars["h"], json!({"text": "static text"}));
    assert_eq!(
        vars["i"],
        json!({"id": 41, "items": [{"id": 1}, {"id": 2}]})
    );
    assert_eq!(vars["j"], json!("static text"));
    assert_eq!(vars["k"], json!(null));
}

#[test]
fn uuid_and_random_number_differ_between_evaluations_and_repeat_between_runs() {
    let mut b = Builder::new("ids");
    b.start("s").service("t", "work").end("e");
    b.chain(&["s", "t", "e"]);
    b.input("t", "=uuid()", "a")
        .input("t", "=uuid()", "b")
        .input("t", "=random number()", "r");
    let run = || {
        let mut e = engine_with(&b);
        let mut seen = Vec::new();
        for _ in 0..2 {
            e.create_instance(CreateInstance::new("ids")).unwrap();
        }
        for job in e.activatable_jobs(None) {
            let vars = e.job_variables(job.key).unwrap();
            seen.extend(["a", "b", "r"].map(|name| vars[name].to_string()));
        }
        seen
    };
    let first = run();
    assert_eq!(first.len(), 6);
    let mut distinct = first.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 6, "every evaluation draws anew: {first:?}");
    assert_eq!(run(), first, "a run repeats its values");
}

#[test]
fn script_task_writes_its_result_variable() {
    let mut b = Builder::new("script");
    b.start("s");
    b.add(
        "calc",
        baton_engine::model::ElementKind::Task(TaskKind::Script {
            script_format: None,
            script: None,
        }),
    )
    .zeebe
    .script = Some(Box::new(baton_engine::model::ZeebeScript {
        expression: Some(expr("=a + b")),
        result_variable: Some("sum".into()),
        span: Default::default(),
    }));
    b.end("e");
    b.chain(&["s", "calc", "e"]);
    let mut e = engine_with(&b);
    let pi = e
        .create_instance(CreateInstance::new("script").variables(doc(json!({"a": 1, "b": 2}))))
        .unwrap();
    assert_eq!(root_var(&e, pi, "sum"), Some(json!(3)));
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
}

fn mi(sequential: bool, condition: Option<&str>) -> Builder {
    let mut b = Builder::new("mi");
    b.start("s").service("t", "work").end("e");
    b.chain(&["s", "t", "e"]);
    b.element("t").loop_characteristics = Some(LoopCharacteristics::MultiInstance(Box::new(
        MultiInstance {
            is_sequential: sequential,
            input_collection: Some(expr("=items")),
            input_element: Some("item".into()),
            output_collection: Some("results".into()),
            output_element: Some(expr("=out")),
            completion_condition: condition.map(expr),
            loop_cardinality: None,
            span: Default::default(),
        },
    )));
    b
}

#[test]
fn sequential_multi_instance_collects_output_in_order() {
    let mut e = engine_with(&mi(true, None));
    let pi = e
        .create_instance(CreateInstance::new("mi").variables(doc(json!({"items": [1, 2, 3]}))))
        .unwrap();
    for expected in 1..=3 {
        let jobs = e.activatable_jobs(None);
        assert_eq!(jobs.len(), 1, "one at a time");
        let vars = e.job_variables(jobs[0].key).unwrap();
        assert_eq!(vars["item"], json!(expected));
        assert_eq!(vars["loopCounter"], json!(expected));
        e.complete_job(jobs[0].key, doc(json!({"out": expected * 11})))
            .unwrap();
    }
    assert_eq!(root_var(&e, pi, "results"), Some(json!([11, 22, 33])));
    assert_eq!(
        root_var(&e, pi, "out"),
        None,
        "the output element stays local"
    );
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
}

#[test]
fn parallel_multi_instance_with_completion_condition_terminates_the_rest() {
    let mut e = engine_with(&mi(false, Some("=numberOfCompletedInstances >= 2")));
    let pi = e
        .create_instance(
            CreateInstance::new("mi").variables(doc(json!({"items": ["a", "b", "c"]}))),
        )
        .unwrap();
    let jobs = e.activatable_jobs(None);
    assert_eq!(jobs.len(), 3);
    e.complete_job(jobs[0].key, doc(json!({"out": 1}))).unwrap();
    e.complete_job(jobs[1].key, doc(json!({"out": 2}))).unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
    assert_eq!(root_var(&e, pi, "results"), Some(json!([1, 2, null])));
}

#[test]
fn empty_collection_completes_the_body_at_once() {
    let mut e = engine_with(&mi(false, None));
    let pi = e
        .create_instance(CreateInstance::new("mi").variables(doc(json!({"items": []}))))
        .unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
    assert_eq!(root_var(&e, pi, "results"), Some(json!([])));
}

#[test]
fn bpmn_ad_hoc_sub_process_activates_the_collection_and_collects_output() {
    let mut b = Builder::new("ahsp");
    b.start("s")
        .sub_process(
            "tools",
            SubProcessKind::AdHoc(AdHoc {
                completion_condition: None,
                cancel_remaining_instances: None,
                ordering: None,
            }),
        )
        .service("A", "a")
        .service("B", "b")
        .close()
        .end("e");
    b.chain(&["s", "tools", "e"]);
    b.element("tools").zeebe.ad_hoc = Some(Box::new(ZeebeAdHoc {
        active_elements_collection: Some(expr("=toActivate")),
        output_collection: Some("results".into()),
        output_element: Some(expr("=result")),
        span: Default::default(),
    }));
    let mut e = engine_with(&b);
    let pi = e
        .create_instance(
            CreateInstance::new("ahsp").variables(doc(json!({"toActivate": ["B", "A"]}))),
        )
        .unwrap();
    let ids: Vec<String> = e
        .element_instances(pi)
        .into_iter()
        .map(|i| i.element_id)
        .collect();
    assert_eq!(
        ids,
        [
            "ahsp",
            "tools",
            "tools#innerInstance",
            "tools#innerInstance",
            "B",
            "A"
        ]
    );
    let b_job = e.activatable_jobs(Some("b"))[0].key;
    e.complete_job(b_job, doc(json!({"result": "from B"})))
        .unwrap();
    let a_job = e.activatable_jobs(Some("a"))[0].key;
    e.complete_job(a_job, doc(json!({"result": "from A"})))
        .unwrap();
    assert_eq!(e.process_instance(pi).unwrap().state, State::Completed);
    assert_eq!(
        root_var(&e, pi, "results"),
        Some(json!(["from B", "from A"]))
    );
}

/// An ad-hoc sub-process (BPMN mode) with three tools `A`, `B`, `C` activating
/// `=activeElements`.
fn ad_hoc_activating(collection: &str) -> Builder {
    let mut b = Builder::new("process");
    b.start("s")
        .sub_process(
            "ad-hoc",
            SubProcessKind::AdHoc(AdHoc {
                completion_condition: None,
                cancel_remaining_instances: None,
                ordering: None,
            }),
        )
        .service("A", "a")
        .service("B", "b")
        .service("C", "c")
        .close()
        .end("e");
    b.chain(&["s", "ad-hoc", "e"]);
    b.element("ad-hoc").zeebe.ad_hoc = Some(Box::new(ZeebeAdHoc {
        active_elements_collection: Some(expr(collection)),
        output_collection: None,
        output_element: None,
        span: Default::default(),
    }));
    b
}

/// What `activeElementsCollection` must be, and Zeebe's incidents when it is not: camunda/camunda
/// `zeebe/engine/src/test/java/io/camunda/zeebe/engine/processing/incident/AdHocSubProcessIncidentTest.java`
/// (null, a list with a number, unknown ids) and `ExpressionProcessorTest` (the type names, the
/// text after `=` quoted as written); a missing variable adds FEEL's warning.
#[test]
fn active_elements_collection_is_a_list_of_tool_ids_else_an_incident() {
    let failed = "Failed to activate ad-hoc elements. Expected result of the expression";
    let cases: [(&str, serde_json::Value, String); 6] = [
        ("=activeElements", json!({"activeElements": null}), format!("{failed} 'activeElements' to be 'ARRAY', but was 'NULL'.")),
        (
            "=activeElements",
            json!({}),
            format!("{failed} 'activeElements' to be 'ARRAY', but was 'NULL'. The evaluation reported the following warnings:\n[NO_VARIABLE_FOUND] No variable found with name 'activeElements'"),
        ),
        (
            "=activeElements",
            json!({"activeElements": [1]}),
            format!("{failed} 'activeElements' to be 'ARRAY' containing 'STRING' items, but was 'ARRAY' containing at least one non-'STRING' item."),
        ),
        ("= \"A\"", json!({}), format!("{failed} ' \"A\"' to be 'ARRAY', but was 'STRING'.")),
        ("= [null]", json!({}), format!("{failed} ' [null]' to be 'ARRAY' containing 'STRING' items, but was 'ARRAY' containing at least one non-'STRING' item.")),
        (
            "=activeElements",
            json!({"activeElements": ["A", "D", "E"]}),
            "Expected to activate activities for ad-hoc sub-process with key '{ahsp}', but the given elements [D, E] do not exist.".into(),
        ),
    ];
    for (collection, variables, expected) in cases {
        let mut e = engine_with(&ad_hoc_activating(collection));
        let pi = e
            .create_instance(CreateInstance::new("process").variables(doc(variables)))
            .unwrap();
        let incidents = e.incidents();
        assert_eq!(incidents.len(), 1, "{collection}");
        let ahsp = incidents[0].element_instance_key;
        assert_eq!(incidents[0].element_id, "ad-hoc");
        assert_eq!(incidents[0].error_type, ErrorType::ExtractValueError);
        assert_eq!(
            &*incidents[0].error_message,
            expected.replace("{ahsp}", &ahsp.to_string()),
            "{collection}"
        );
        assert_eq!(e.process_instance(pi).unwrap().state, State::Activated);
    }
    // shouldResolveIncidentWithActiveElements: the collection is read again on resolution.
    let mut e = engine_with(&ad_hoc_activating("=activeElements"));
    let pi = e
        .create_instance(
            CreateInstance::new("process").variables(doc(json!({"activeElements": null}))),
        )
        .unwrap();
    let incident = e.incidents()[0].clone();
    e.set_variables(
        incident.element_instance_key,
        doc(json!({"activeElements": ["A", "B"]})),
        false,
    )
    .unwrap();
    e.resolve_incident(incident.key).unwrap();
    let ids: Vec<String> = e
        .element_instances(pi)
        .into_iter()
        .map(|i| i.element_id)
        .collect();
    assert_eq!(
        ids,
        [
            "process",
            "ad-hoc",
            "ad-hoc#innerInstance",
            "ad-hoc#innerInstance",
            "A",
            "B"
        ]
    );
    // An empty list: nothing is activated, the ad-hoc sub-process waits.
    let mut e = engine_with(&ad_hoc_activating("=activeElements"));
    let pi = e
        .create_instance(
            CreateInstance::new("process").variables(doc(json!({"activeElements": []}))),
        )
        .unwrap();
    assert!(e.incidents().is_empty());
    assert_eq!(e.process_instance(pi).unwrap().state, State::Activated);
}

#[test]
fn ad_hoc_elements_of_the_chat_with_tools_example_match_the_connector_fixture() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/bpmn/agentic/connectors--ai-agent-chat-with-tools.bpmn");
    let Ok(xml) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} not found", path.display());
        return;
    };
    let mut e = Engine::default();
    e.deploy_xml("chat.bpmn", &xml).unwrap();
    let p = e.deployed_processes().next().unwrap();
    let ahsp = p.find("AI_Agent").unwrap();
    let json = p.ad_hoc_sub_process(ahsp).unwrap().elements;
    insta::assert_json_snapshot!(**json);
}
