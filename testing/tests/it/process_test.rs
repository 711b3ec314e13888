//! ProcessTest basics: deploy, start, wait, complete, isolation, the clock, queries.

use baton_testing::{Deployment, ProcessTest, RunState};
use serde_json::json;

use crate::support::{bpmn, panic_message};

#[test]
fn an_unmocked_job_waits_and_the_run_completes_it() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let run = test.start("order", json!({"amount": 42}));
    assert_eq!(run.state(), RunState::Active);
    assert_eq!(run.active_elements(), ["charge"]);
    run.assert_waiting_at(["charge"]);
    run.complete_job("charge", json!({"paid": true}));
    run.complete_job("shipping", ()); // by job type
    run.assert_completed()
        .assert_passed(["charge", "ship"])
        .assert_passed_in_order(["start", "charge", "ship", "done"])
        .assert_variables(json!({"amount": 42, "paid": true}));
    assert_eq!(
        run.completed_elements(),
        ["start", "charge", "ship", "done"]
    );
    assert_eq!(run.variable("paid"), Some(json!(true)));
}

#[test]
fn mocks_answer_until_the_process_waits() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let payment = test
        .mock_job("payment")
        .complete_with(json!({"paid": true}));
    let shipping = test
        .mock_job("shipping")
        .complete_with_fn(|job| json!({"tracking": format!("T-{}", job.variable("amount"))}));
    let run = test.start("order", json!({"amount": 7}));
    run.assert_completed()
        .assert_variables(json!({"paid": true, "tracking": "T-7"}));
    payment.assert_called(1);
    assert_eq!(shipping.invocations()[0].element_id, "ship");
    assert_eq!(shipping.invocations()[0].variables()["paid"], json!(true));
}

#[test]
fn tests_from_one_deployment_do_not_see_each_other() {
    let deployment = Deployment::from_file(bpmn("order.bpmn")).unwrap();
    let a = deployment.test();
    let b = deployment.test();
    a.mock_job("payment").complete();
    let run_a = a.start("order", ());
    let run_b = b.start("order", ());
    run_a.assert_waiting_at(["ship"]);
    run_b.assert_waiting_at(["charge"]);
    assert_eq!(a.runs().len(), 1);
    assert_eq!(b.runs().len(), 1);
}

#[test]
fn starting_an_unknown_process_lists_the_deployed_ones() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let message = panic_message(|| {
        test.start("invoice", ());
    });
    insta::assert_snapshot!(message);
}

#[test]
fn completing_a_job_that_does_not_wait_explains_the_run() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    test.mock_job("payment").complete();
    let run = test.start("order", json!({"amount": 1}));
    let message = panic_message(|| {
        run.complete_job("charge", ());
    });
    insta::assert_snapshot!(message);
}

#[test]
fn bad_bpmn_is_a_deploy_error_with_positions() {
    let err = ProcessTest::from_xml(
        "broken.bpmn",
        r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"><bpmn:process id="p" isExecutable="true"><bpmn:serviceTask id="t"/></bpmn:process></bpmn:definitions>"#,
    )
    .unwrap_err();
    insta::assert_snapshot!(err.to_string());
}

#[test]
fn a_folder_deploys_every_bpmn_file() {
    let dir = bpmn("");
    let test = ProcessTest::from_dir(&dir).unwrap();
    assert!(test.process_ids().contains(&"order".to_owned()));
}

#[test]
fn cancel_terminates_the_instance() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let run = test.start("order", ());
    run.cancel();
    run.assert_terminated()
        .assert_terminated_elements(["charge"]);
    assert_eq!(run.state(), RunState::Terminated);
}

#[test]
fn set_variables_updates_the_process_scope() {
    let test = ProcessTest::from_file(bpmn("order.bpmn")).unwrap();
    let run = test.start("order", json!({"a": 1}));
    run.set_variables(json!({"a": 2, "b": {"c": [1, 2]}}));
    run.assert_variables(json!({"a": 2}))
        .assert_variables_match(json!({"b": {"c": [1, 2]}}))
        .assert_variable_names(["a", "b"]);
}

#[test]
fn the_clock_moves_only_when_told() {
    let test = ProcessTest::from_file(bpmn("order.bpmn"))
        .unwrap()
        .start_time("2026-03-01T08:00:00Z");
    assert_eq!(test.now(), "2026-03-01T08:00:00Z");
    test.advance_time("PT1H30M");
    assert_eq!(test.now(), "2026-03-01T09:30:00Z");
    test.advance_time(std::time::Duration::from_secs(30));
    assert_eq!(test.now(), "2026-03-01T09:30:30Z");
}

#[test]
fn an_engine_config_start_time_sets_the_clock() {
    // 2026-03-01T08:00:00Z in epoch milliseconds.
    let test = ProcessTest::from_file(bpmn("order.bpmn"))
        .unwrap()
        .engine_config(|c| c.start_time_ms = 1_772_352_000_000);
    assert_eq!(test.now(), "2026-03-01T08:00:00Z");
}

#[test]
fn a_deployment_can_live_in_a_static() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Deployment>();
    static ORDERS: std::sync::LazyLock<Deployment> =
        std::sync::LazyLock::new(|| Deployment::from_file(bpmn("order.bpmn")).unwrap());
    ORDERS
        .test()
        .start("order", ())
        .assert_waiting_at(["charge"]);
    assert_eq!(ORDERS.process_ids(), ["order"]);
}

/// The README's Rust example, line for line but for the template's path (tests run in
/// `testing/`, and changing the working folder would race the other tests).
#[test]
fn the_readme_example_runs() -> Result<(), baton_testing::DeployError> {
    use baton_testing::agent::Turn;
    let template = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"
    );
    // README start
    let test = ProcessTest::from_file(template)?;
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"status": "delivered"}}));
    test.mock_job("email-send").complete();
    let agent = test.mock_ai_agent(
        "support-agent",
        [
            Turn::call("lookup-order", json!({"orderId": "1042"})),
            Turn::respond_json(json!({"resolved": true})),
        ],
    );
    let run = test.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "Where is order 1042?"}),
    );
    run.assert_completed().assert_passed_in_order([
        "lookup-order",
        "support-agent",
        "send-answer",
        "answered",
    ]);
    // README end
    agent.assert_called_tools(["lookup-order"]);
    // The README shows the same code (on long lines, with the path from the workspace root).
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    let source = include_str!("process_test.rs");
    let start = source.find("// README start\n").unwrap() + "// README start\n".len();
    let end = source.find("    // README end").unwrap();
    let example = squeeze(&source[start..end]).replace(
        "from_file(template)",
        "from_file(\"templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn\")",
    );
    let readme = squeeze(include_str!("../../../README.md")).replace(",]", "]");
    assert!(
        readme.contains(&example.replace(",]", "]").replace(",)", ")")),
        "the README's Rust example differs from this test"
    );
    Ok(())
}

/// Every command a test sends (its actions, the job mocks' answers, the AI agent's turns, the
/// clock) is recorded when asked, and the recording replays on a fresh engine to the same log.
#[test]
fn a_recorded_run_replays_to_the_same_log() {
    use baton_engine::runtime::{Engine, read_commands};
    use baton_testing::agent::Turn;
    let template = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"
    );
    let replayed = |commands: &[baton_engine::runtime::Command]| {
        // Through JSON, as a saved recording is read back.
        let text = serde_json::to_string(commands).unwrap();
        let mut engine = Engine::default();
        for command in read_commands(&text).unwrap() {
            let _ = engine.apply(command);
        }
        engine.render_log()
    };

    let test = ProcessTest::from_file(template).unwrap().record_commands();
    test.mock_job("order-lookup")
        .complete_with(json!({"order": {"status": "delivered"}}));
    test.mock_job("email-send").complete();
    test.mock_ai_agent(
        "support-agent",
        [
            Turn::call("lookup-order", json!({"orderId": "1042"})),
            Turn::respond_json(json!({"resolved": true})),
        ],
    );
    test.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "Where is order 1042?"}),
    )
    .assert_completed();
    let commands = test.commands().unwrap();
    assert!(commands.len() > 5, "{commands:?}");
    assert_eq!(replayed(&commands), test.with_engine(Engine::render_log));

    // A test on a shared deployment: the deployment's records are not copied into the test, so
    // its log is the end of the replayed one.
    let deployment = Deployment::from_file(bpmn("payment.bpmn")).unwrap();
    let test = deployment.test().record_commands();
    test.mock_job("cancel").complete();
    test.start("payment", json!({"orderId": "1"}));
    test.advance_time("PT1H");
    let log = test.with_engine(Engine::render_log);
    let replayed_log = replayed(&test.commands().unwrap());
    assert!(
        !log.is_empty() && replayed_log.ends_with(&log),
        "replayed:\n{replayed_log}\ntest:\n{log}"
    );

    // Recording asked for after an action cannot replay the run, and says so.
    let late = deployment.test();
    late.start("payment", json!({"orderId": "2"}));
    let late = late.record_commands();
    assert!(late.commands().is_err());
}

/// DMN files deploy into a process test and a business rule task evaluates them (the guide
/// said they could not be deployed).
#[test]
fn a_dmn_file_deploys_and_a_business_rule_task_evaluates_it() {
    let coverage =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/cpt/coverage");
    let test = ProcessTest::from_file(coverage.join("offer.bpmn")).unwrap();
    test.deploy_file(coverage.join("discount.dmn")).unwrap();
    let run = test.start(
        "offer",
        json!({"offerId": "o-1", "points": 1200, "total": 50}),
    );
    run.assert_waiting_at(["wait"])
        .assert_variables(json!({"discount": 0.2}));
}
