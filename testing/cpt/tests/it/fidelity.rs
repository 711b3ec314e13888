//! Zeebe 8.9 rules written down as CPT JSON files under `fixtures/cpt/fidelity`, one folder per
//! rule (each folder is one deployment). Every case says in its `description` which Camunda doc
//! page and which Zeebe engine class and test it follows; every case must pass.

use std::path::{Path, PathBuf};

use baton_cpt::{self as cpt, Options};
use baton_testing::ProcessTest;
use baton_testing::agent::Turn;
use serde_json::json;

fn folder(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/cpt/fidelity")
        .join(name)
}

/// Runs the folder and fails with every failing case explained; `cases` is the number of test
/// cases the folder holds (a case that silently disappears is a failure too).
fn passes(name: &str, cases: usize) {
    let report = cpt::run(&[folder(name)], &Options::default()).unwrap();
    assert_eq!(report.cases.len(), cases, "test cases in {name}");
    report.assert_success();
}

/// Execution listeners after an incident: an expression failure re-runs the listeners of the
/// event type, a job failure does not (execution-listeners doc, "Incident recovery").
#[test]
fn execution_listeners_run_again_after_an_incident() {
    passes("execution-listener-incidents", 11);
}

/// User task listeners: the trigger table of the user-task-listeners doc.
#[test]
fn user_task_listeners_follow_the_trigger_table() {
    passes("user-task-listeners", 6);
}

/// Expressions evaluated to a typed value: the result types Zeebe's ExpressionProcessor takes
/// for timers, dates, numbers, lists and strings, and the incidents for the others.
#[test]
fn typed_expressions_take_the_result_types_zeebe_takes() {
    passes("typed-expressions", 29);
}

/// A timer start event's date expression is evaluated when the process is deployed (alone in
/// its folder: a deployment that fails would fail every case beside it).
#[test]
fn a_timer_start_event_takes_a_date_time_value() {
    passes("timer-start-expression", 1);
}

/// An event sub-process inside an ad-hoc sub-process: its result joins the output collection,
/// which the AI agent reads as an event, in both event behaviours of the connector.
#[test]
fn event_sub_processes_inside_an_ad_hoc_sub_process_are_reported() {
    passes("agent-event-sub-process", 3);
}

// ---------------------------------------------------------------------------------------------
// What the AI agent mock hears of an event sub-process inside its ad-hoc sub-process. Zeebe
// AdHocSubProcessProcessor appends `{id: null, name: null, content}` to `toolCallResults` when
// the event sub-process completes and creates a new job (camunda/camunda PR #36867); the
// connector (AgentMessagesHandlerImpl) sends each id-less entry as a user message after the tool
// results, waiting for running tools (WAIT_FOR_TOOL_CALL_RESULTS) or answering them as canceled
// (INTERRUPT_TOOL_CALLS: ToolCallResult.forCancelledToolCall, "Tool execution was canceled.",
// interrupted: true) and asking the model at once.

const UPDATE: &str = "The customer wrote again: please ship to my office";

fn agent_test(file: &str) -> ProcessTest {
    let t = ProcessTest::from_file(folder("agent-event-sub-process").join(file)).unwrap();
    t.mock_job("email-send").complete();
    t
}

fn turns() -> Vec<Turn> {
    vec![
        Turn::call("lookup-order", json!({"orderId": "7"})),
        Turn::respond_json(json!({"answer": "Noted.", "resolved": true})),
    ]
}

fn customer_writes_again(t: &ProcessTest) {
    t.publish_message(
        "customer-update",
        "kim@example.com",
        json!({"update": "please ship to my office"}),
    );
}

#[test]
fn waiting_for_tools_the_model_hears_the_event_after_the_tool_results() {
    let t = agent_test("agent-waits-for-tools.bpmn");
    let agent = t.mock_ai_agent("support-agent", turns());
    let run = t.start(
        "agent-waits-for-tools",
        json!({"customerMessage": "Where is order 7?", "customerEmail": "kim@example.com"}),
    );
    customer_writes_again(&t);
    assert_eq!(
        agent.requests().len(),
        1,
        "the event waits for the running tool"
    );
    run.complete_job(
        "order-lookup",
        json!({"order": {"id": "7", "status": "shipped"}}),
    );
    run.assert_completed();
    let requests = agent.requests();
    assert_eq!(requests.len(), 2);
    let second = &requests[1];
    assert_eq!(second.events, vec![json!(UPDATE)]);
    assert_eq!(
        second.tool_call_results.to_json(),
        json!([{"id": "call_1_1", "name": "lookup-order", "content": {"id": "7", "status": "shipped"}}])
    );
    // The event is the last message, after the tool results: a user message with the event's
    // text and, like every user message, the connector's timestamp.
    let last = second.messages.last().expect("messages");
    assert_eq!(last["role"], json!("user"));
    assert_eq!(last["content"], json!([{"type": "text", "text": UPDATE}]));
    assert!(
        last["metadata"]["timestamp"].is_string(),
        "the event message carries its timestamp: {last}"
    );
    let before = &second.messages[second.messages.len() - 2];
    assert_eq!(before["role"], json!("tool_call_result"), "{before}");
}

#[test]
fn interrupting_tools_the_model_hears_the_event_at_once_and_the_tool_is_canceled() {
    let t = agent_test("agent-interrupts-tools.bpmn");
    let agent = t.mock_ai_agent("support-agent", turns());
    let run = t.start(
        "agent-interrupts-tools",
        json!({"customerMessage": "Where is order 7?", "customerEmail": "kim@example.com"}),
    );
    customer_writes_again(&t);
    run.assert_completed();
    let requests = agent.requests();
    assert_eq!(requests.len(), 2, "the model is asked at once");
    let second = &requests[1];
    assert_eq!(second.events, vec![json!(UPDATE)]);
    let results = second.tool_call_results.to_json();
    assert_eq!(results[0]["id"], json!("call_1_1"));
    assert_eq!(results[0]["content"], json!("Tool execution was canceled."));
    assert_eq!(results[0]["interrupted"], json!(true));
    run.assert_terminated_times("lookup-order", 1);
}
