//! The agent testing guide's worked example, translated to Rust, against the template; and each
//! failure the guide lists, shown through a run.

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::agent::{Cassette, ToolCall, Turn, call, contains, tool};
use baton_testing::args;
use serde_json::json;

fn template() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn")
}

/// `beforeEach`: the template with the tools' workers mocked.
fn support_test() -> ProcessTest {
    let t = ProcessTest::from_file(template()).expect("the template deploys");
    t.mock_job("order-lookup")
        .complete_with_fn(|job| json!({"order": {"id": job.variable("orderId"), "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

#[test]
fn opens_a_ticket_for_a_damaged_order_and_answers_the_customer() {
    let t = support_test();
    let agent = t.mock_ai_agent(
        "support-agent",
        [
            Turn::tool_calls([
                ToolCall::new("lookup-order", json!({"orderId": "1042"})),
                ToolCall::new("search-kb", json!({"query": "damaged item return"})),
            ]),
            Turn::call(
                "create-ticket",
                json!({"summary": "Order 1042 arrived damaged"}),
            ),
            Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
        ],
    );

    let run = t.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );

    run.assert_completed();
    run.assert_passed_in_order(["support-agent", "send-answer", "answered"]);
    agent.assert_called_tools([
        call("lookup-order", json!({"orderId": "1042"})),
        call("search-kb", args! {"query": contains("damaged")}),
        tool("create-ticket"),
    ]);
    // What the model saw on its second call:
    assert_eq!(
        agent.requests()[1].tool_call_results,
        json!([
            {"id": "call_1_1", "name": "lookup-order", "content": {"id": "1042", "status": "delivered", "damaged": true}},
            {"id": "call_1_2", "name": "search-kb", "content": ["Returns and damaged items"]},
        ])
    );
}

#[test]
fn tool_coverage() {
    let t = support_test();
    t.mock_ai_agent(
        "support-agent",
        [
            Turn::tool_calls([
                ToolCall::new("lookup-order", json!({"orderId": "1042"})),
                ToolCall::new("search-kb", json!({"query": "damaged"})),
            ]),
            Turn::respond_json(json!({"answer": "It is on its way.", "resolved": true})),
        ],
    );
    t.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "Where is 1042?"}),
    )
    .assert_completed();
    let coverage = t.coverage();
    assert_eq!(coverage.processes[0].tools.uncovered, ["create-ticket"]);
    assert_eq!((coverage.tools.total, coverage.tools.covered), (3, 2));
    insta::assert_snapshot!(coverage.to_string());
}

fn run_error(turns: Vec<Turn>) -> String {
    let t = support_test();
    t.mock_ai_agent("support-agent", turns);
    let run = t.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    run.error().expect("the run failed")
}

#[test]
fn unknown_tool_fails_the_run() {
    let error = run_error(vec![Turn::call("issue-refund", json!({"orderId": "1042"}))]);
    assert!(
        error.contains(r#"unknown tool "issue-refund". Tools of "support-agent": search-kb, lookup-order, create-ticket"#),
        "{error}"
    );
}

/// A run error no assertion looked at fails the test when the `ProcessTest` is dropped; reading
/// the errors, asserting that the run failed, or allowing run errors lets it pass.
#[test]
fn an_unasserted_run_error_fails_the_test_on_drop() {
    let unknown_tool = |test: ProcessTest| {
        test.mock_ai_agent(
            "support-agent",
            vec![Turn::call("issue-refund", json!({"orderId": "1042"}))],
        );
        let run = test.start(
            "ai-agent-tool-loop",
            json!({"customerMessage": "My order 1042 arrived broken."}),
        );
        (test, run)
    };
    let message = crate::support::panic_message(|| {
        let (test, _run) = unknown_tool(support_test());
        drop(test);
    });
    insta::assert_snapshot!(message);
    let (test, run) = unknown_tool(support_test());
    assert_eq!(run.errors().len(), 1);
    drop(test);
    let (test, run) = unknown_tool(support_test());
    run.assert_failed_with("unknown tool");
    drop(test);
    let (test, _run) = unknown_tool(support_test());
    assert_eq!(test.errors().len(), 1);
    drop(test);
    let (test, _run) = unknown_tool(support_test().allow_run_errors());
    drop(test);
}

#[test]
fn wrong_arguments_fail_the_run() {
    let undeclared = run_error(vec![Turn::call(
        "create-ticket",
        json!({"summary": "x", "title": "X"}),
    )]);
    assert!(
        undeclared.contains(r#""title" is not a parameter"#),
        "{undeclared}"
    );
    let missing = run_error(vec![Turn::call(
        "create-ticket",
        json!({"priority": "high"}),
    )]);
    assert!(
        missing.contains(r#"the required parameter "summary" is missing"#),
        "{missing}"
    );
}

#[test]
fn a_script_too_short_fails_the_run() {
    let error = run_error(vec![
        Turn::call("lookup-order", json!({"orderId": "1042"})),
        Turn::call("lookup-order", json!({"orderId": "1043"})),
    ]);
    assert!(
        error.contains("the script has no turn 3 — it has 2, all played. The agent asked the model again with results from lookup-order."),
        "{error}"
    );
}

#[test]
fn a_tool_the_connector_cannot_offer_fails_the_agent_job_into_an_incident() {
    let xml = std::fs::read_to_string(template())
        .unwrap()
        .replace("fromAi(toolCall.summary,", "fromAi(summary,");
    let t = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", &xml)
        .expect("Zeebe deploys it: it does not check the namespace");
    t.mock_ai_agent("support-agent", [Turn::respond_text("never asked")]);
    let run = t.start("ai-agent-tool-loop", json!({"customerMessage": "Hi"}));
    // The connector fails the job (3 retries, 30 s apart); the last failure is an incident.
    // Step through each 30 s backoff (advance_time jumps at once; see the report).
    run.advance_time("PT30S").advance_time("PT30S");
    let incidents = run.incidents();
    assert_eq!(incidents.len(), 1, "{}", run.explain());
    assert!(
        incidents[0]
            .error_message
            .contains("Parameter name 'summary' is not part of expected namespace 'toolCall.'"),
        "{}",
        incidents[0].error_message
    );
}

#[test]
fn the_model_call_limit_fails_the_agent_job_into_an_incident() {
    let xml = std::fs::read_to_string(template()).unwrap().replace(
        r#"source="=10" target="data.limits.maxModelCalls""#,
        r#"source="=2" target="data.limits.maxModelCalls""#,
    );
    let t = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", &xml).unwrap();
    t.mock_job("kb-search")
        .complete_with(json!({"articles": []}));
    t.mock_ai_agent(
        "support-agent",
        [Turn::call("search-kb", json!({"query": "x"}))],
    )
    .repeat_last_turn();
    let run = t.start("ai-agent-tool-loop", json!({"customerMessage": "Loop"}));
    // Step through each 30 s backoff (advance_time jumps at once; see the report).
    run.advance_time("PT30S").advance_time("PT30S");
    let incidents = run.incidents();
    assert_eq!(incidents.len(), 1, "{}", run.explain());
    assert!(
        incidents[0]
            .error_message
            .starts_with("Maximum number of model calls reached (modelCalls: 2, limit: 2)"),
        "{}",
        incidents[0].error_message
    );
}

#[test]
fn a_cassette_for_another_agent_refuses_to_replay() {
    let t = support_test();
    let cassette = Cassette::new("billing-agent", vec![Turn::respond_text("hi")]);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        t.mock_ai_agent("support-agent", cassette);
    }))
    .unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains(
            r#"was recorded for the agent "billing-agent" and cannot replay "support-agent""#
        ),
        "{message}"
    );
}

#[test]
fn an_element_that_is_not_an_agent_is_named() {
    let t = support_test();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        t.mock_ai_agent("send-answer", [Turn::respond_text("hi")]);
    }))
    .unwrap_err();
    assert_eq!(
        panic.downcast_ref::<String>().unwrap(),
        r#""send-answer" is a service task of job type "email-send", not an AI Agent Task: apply the AI Agent Task template (zeebe:taskDefinition type="io.camunda.agenticai:aiagent:1")"#
    );
}

/// One tool of the agent on its own: its `fromAi()` mapping, its job (mocked) and the output
/// element run as in a full run, without a script for the model.
#[test]
fn one_tool_runs_on_its_own() {
    let test = support_test();
    let lookup = test.run_tool(
        "support-agent",
        "lookup-order",
        json!({"orderId": "1042"}),
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    lookup.assert_result(json!({"id": "1042", "status": "delivered", "damaged": true}));
    // The run ends (terminated, as CPT's terminateAfter ends it) when the agent completes.
    lookup
        .run()
        .assert_terminated()
        .assert_passed(["lookup-order"])
        .assert_not_passed(["search-kb", "create-ticket", "send-answer"]);
    // A tool whose job nobody answers has no result yet; the test answers it.
    let test = ProcessTest::from_file(template()).unwrap();
    let ticket = test.run_tool(
        "support-agent",
        "create-ticket",
        json!({"summary": "Order 1042 arrived damaged"}),
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    assert_eq!(ticket.result(), None);
    ticket
        .run()
        .assert_waiting_at(["create-ticket"])
        .complete_job("create-ticket", json!({"ticketId": "T-9"}));
    ticket.assert_result(json!({"ticketId": "T-9"}));
    // Arguments that do not fit the tool's fromAi() parameters fail the run, as in a full run.
    let test = support_test();
    let wrong = test.run_tool(
        "support-agent",
        "lookup-order",
        json!({"order": 1042}),
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    let errors = wrong.run().errors();
    insta::assert_snapshot!(errors.join("\n"), @r#"
    AI agent mock "support-agent": wrong arguments for tool "lookup-order" in turn 1 of the script of "support-agent" (call_1_1):
      - "order" is not a parameter (no fromAi() declares it)
      - the required parameter "orderId" is missing (fromAi() without {required: false})
    Parameters of "lookup-order": orderId (string, required)
    "#);
    let failure = crate::support::panic_message(|| {
        wrong.assert_result(json!({}));
    });
    assert!(failure.starts_with("expected the tool \"lookup-order\" of \"support-agent\" to return {}\n    but it has no result yet"), "{failure}");
}
