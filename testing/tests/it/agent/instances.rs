//! Agent instances (Camunda 8.10) as the mock's connector reports them: status at a wait point,
//! metrics, limits, and history items committed with their job or discarded.
//!
//! Sources: camunda/connectors `BaseAgentRequestHandler` (THINKING before the model call, input
//! items before it and the ASSISTANT item after it, metrics and TOOL_CALLING/IDLE once the job
//! completes), `AgentInitializerImpl.provisionAgentInstance` (created by the first job, whose
//! context is empty), `CamundaAgentInstanceClient` (maxModelCalls only when set);
//! camunda/camunda `AgentHistoryCommitTest` (completion commits), `AgentHistoryDiscardOnJobDestructionTest`
//! (cancel and a caught error discard), `AgentHistoryDiscardOnJobReactivationTest` (taken again:
//! discarded), `AgentInstanceCompleteProcessor` (COMPLETED when the process instance ends).

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::agent::{
    AgentStatus, CommitStatus, ExpectedAgentInstance, ExpectedMetrics, HistoryRole, ToolCall, Turn,
    Usage,
};
use baton_testing::faults::{JobFault, Jobs};
use serde_json::json;

use HistoryRole::{Assistant, ToolResult, User};

fn template() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn")
}

/// The template with the tools' workers mocked, except those named in `unmocked` (the process
/// waits at them).
fn support_test(unmocked: &[&str]) -> ProcessTest {
    let t = ProcessTest::from_file(template()).expect("the template deploys");
    let mocked = [
        (
            "order-lookup",
            json!({"order": {"id": "1042", "damaged": true}}),
        ),
        (
            "kb-search",
            json!({"articles": ["Returns and damaged items"]}),
        ),
        ("ticket-create", json!({"ticketId": "T-77"})),
        ("email-send", json!({})),
    ];
    for (job_type, result) in mocked {
        if !unmocked.contains(&job_type) {
            t.mock_job(job_type).complete_with(result);
        }
    }
    t
}

fn worked_example() -> Vec<Turn> {
    vec![
        Turn::tool_calls([
            ToolCall::new("lookup-order", json!({"orderId": "1042"})),
            ToolCall::new("search-kb", json!({"query": "damaged item return"})),
        ])
        .with_usage(Usage::new(120, 30)),
        Turn::call(
            "create-ticket",
            json!({"summary": "Order 1042 arrived damaged"}),
        )
        .with_usage(Usage::new(200, 20)),
        Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true}))
            .with_usage(Usage::new(260, 40)),
    ]
}

fn start(t: &ProcessTest) -> baton_testing::Run {
    t.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    )
}

#[test]
fn a_finished_run_commits_every_item_and_completes_the_instance() {
    let t = support_test(&[]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    start(&t).assert_completed();

    agent
        .assert_agent_status(AgentStatus::Completed)
        .assert_agent_metrics(
            ExpectedMetrics::new()
                .model_calls(3)
                .input_tokens(580)
                .output_tokens(90)
                .tool_calls(3),
        )
        .assert_history_roles([
            User, Assistant, ToolResult, ToolResult, Assistant, ToolResult, Assistant,
        ]);
    let instance = agent.agent_instance().expect("an agent instance");
    assert_eq!(agent.agent_instances().len(), 1);
    assert_eq!(instance.limits.max_model_calls, 10);
    assert_eq!(
        (instance.limits.max_tool_calls, instance.limits.max_tokens),
        (-1, -1)
    );
    assert!(
        instance
            .history
            .iter()
            .all(|i| i.commit_status == CommitStatus::Committed)
    );
    // A tool result names the call it answers; the assistant's item the calls it made.
    let first_result = &instance.history[2];
    assert_eq!(first_result.tool_calls[0].tool_call_id, "call_1_1");
    assert_eq!(first_result.tool_calls[0].tool_name, "lookup-order");
    assert_eq!(instance.history[1].tool_calls.len(), 2);
    assert_eq!(
        instance.history[0].text.as_deref(),
        Some("My order 1042 arrived broken.")
    );
}

#[test]
fn while_a_tool_runs_the_agent_is_tool_calling() {
    // The ticket's worker is not mocked: the process waits in the create-ticket tool.
    let t = support_test(&["ticket-create"]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    let run = start(&t);
    run.assert_active();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::ToolCalling)
            .metrics(ExpectedMetrics::new().model_calls(2).tool_calls(3))
            .history_roles([User, Assistant, ToolResult, ToolResult, Assistant]),
    );
}

#[test]
fn after_the_answer_the_agent_is_idle_until_the_process_ends() {
    // The answer's email is not sent by a mock: the process waits after the agent.
    let t = support_test(&["email-send"]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    let run = start(&t);
    run.assert_active();
    agent.assert_agent_status(AgentStatus::Idle);
    run.cancel();
    // The engine completes the agent instance when its process instance ends (terminated too).
    agent.assert_agent_status(AgentStatus::Completed);
}

#[test]
fn a_failed_model_call_leaves_thinking_and_its_items_are_discarded() {
    let t = support_test(&[]);
    let mut turns = worked_example();
    turns.insert(1, Turn::error("429 Too Many Requests"));
    let agent = t.mock_ai_agent("support-agent", turns);
    let run = start(&t);
    // The job failed with the connector's retry backoff (PT30S): the agent waits.
    run.assert_active();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::Thinking)
            .metrics(ExpectedMetrics::new().model_calls(1).tool_calls(2))
            .history_roles([User, Assistant]),
    );
    let instance = agent.agent_instance().expect("an agent instance");
    let discarded: Vec<(HistoryRole, u32)> = instance
        .history
        .iter()
        .filter(|i| i.commit_status == CommitStatus::Discarded)
        .map(|i| (i.role, i.model_call))
        .collect();
    // The failed call wrote its tool results, no assistant item (the model did not answer).
    assert_eq!(discarded, [(ToolResult, 2), (ToolResult, 2)]);

    // After the backoff the job is retried: the same results go to the model again, and this
    // time they are committed.
    run.advance_time("PT30S");
    run.assert_completed();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::Completed)
            .metrics(ExpectedMetrics::new().model_calls(3).tool_calls(3))
            .history_roles([
                User, Assistant, ToolResult, ToolResult, Assistant, ToolResult, Assistant,
            ]),
    );
}

#[test]
fn an_agent_with_no_job_yet_has_no_instance() {
    let t = ProcessTest::from_file(template()).expect("the template deploys");
    let agent = t.mock_ai_agent("support-agent", worked_example());
    assert!(agent.agent_instance().is_none());
    let mismatch = agent
        .check_agent_instance(&ExpectedAgentInstance::new().status(AgentStatus::Idle))
        .unwrap_err();
    insta::assert_snapshot!(mismatch.to_string());
}

#[test]
fn a_mismatch_names_each_difference_and_shows_the_history() {
    let t = support_test(&[]);
    let mut turns = worked_example();
    turns.insert(1, Turn::error("429 Too Many Requests"));
    let agent = t.mock_ai_agent("support-agent", turns);
    start(&t);
    let mismatch = agent
        .check_agent_instance(
            &ExpectedAgentInstance::new()
                .status(AgentStatus::ToolCalling)
                .metrics(ExpectedMetrics::new().model_calls(2))
                .history_roles([User, Assistant, ToolResult, ToolResult]),
        )
        .unwrap_err();
    insta::assert_snapshot!(mismatch.to_string());
}

/// A connector that crashes after the model answered loses its completion: the job times out
/// (the worker's 5 minutes), is taken again and the model asked again. The lost activation's
/// items are discarded when the job is taken again, the second one's committed; the lost call
/// reported no metrics.
#[test]
fn a_crashed_jobs_items_are_discarded_and_the_retry_is_committed() {
    let t = support_test(&[]);
    let mut turns = worked_example();
    // The crashed call's turn is played again after the crash.
    turns.insert(0, turns[0].clone());
    let agent = t.mock_ai_agent("support-agent", turns);
    t.inject_fault(
        Jobs::at_element("support-agent"),
        JobFault::crash_after_side_effect().times(1),
    );
    let run = start(&t);
    // The answer is lost; until the job times out, the items wait for its fate.
    run.assert_active();
    let instance = agent.agent_instance().expect("an agent instance");
    assert_eq!(instance.status, AgentStatus::Thinking);
    assert!(
        instance
            .history
            .iter()
            .all(|i| i.commit_status == CommitStatus::Pending),
        "{:?}",
        instance.history
    );
    assert_eq!(instance.history_roles(), []);

    t.advance_time("PT5M0.001S");
    run.assert_completed();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::Completed)
            .metrics(ExpectedMetrics::new().model_calls(3).tool_calls(3))
            .history_roles([
                User, Assistant, ToolResult, ToolResult, Assistant, ToolResult, Assistant,
            ]),
    );
    let instance = agent.agent_instance().unwrap();
    let crashed: Vec<(HistoryRole, CommitStatus)> = instance
        .history
        .iter()
        .filter(|i| i.model_call == 1)
        .map(|i| (i.role, i.commit_status))
        .collect();
    assert_eq!(
        crashed,
        [
            (User, CommitStatus::Discarded),
            (Assistant, CommitStatus::Discarded)
        ]
    );
    // Both activations were of the same job.
    assert_eq!(instance.history[0].job_key, instance.history[2].job_key);
}

/// A model that answers late: the worker holds the job meanwhile; the agent thinks, and the
/// items are committed when the answer arrives and completes the job.
#[test]
fn a_late_answer_keeps_the_agent_thinking_until_it_completes_the_job() {
    let t = support_test(&[]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    t.inject_fault(
        Jobs::at_element("support-agent"),
        JobFault::latency("PT20S").times(1),
    );
    let run = start(&t);
    run.assert_active();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::Thinking)
            .metrics(ExpectedMetrics::new().model_calls(0))
            .history_roles([]),
    );
    t.advance_time("PT20S");
    run.assert_completed();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::Completed)
            .metrics(ExpectedMetrics::new().model_calls(3))
            .history_roles([
                User, Assistant, ToolResult, ToolResult, Assistant, ToolResult, Assistant,
            ]),
    );
}

/// The AI Agent Task: every loop is a new job of a new service-task instance, the context fed
/// back through `agent.context`, so one agent instance spans them (the connector keeps its key
/// in the context's metadata and appends each element instance).
#[test]
fn an_ai_agent_task_keeps_one_instance_across_its_element_instances() {
    let t = ProcessTest::from_file(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn"),
    )
    .expect("the template deploys");
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("email-send").complete();
    // The ticket's worker is not mocked: the process waits in that tool.
    let agent = t.mock_ai_agent("support-agent", worked_example());
    let run = t.start(
        "ai-agent-task-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    run.assert_active();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::ToolCalling)
            .metrics(ExpectedMetrics::new().model_calls(2).tool_calls(3))
            .history_roles([User, Assistant, ToolResult, ToolResult, Assistant]),
    );
    let instances = agent.agent_instances();
    assert_eq!(instances.len(), 1);
    assert_eq!(instances[0].element_instance_keys.len(), 2);
}

/// The process is canceled while the model's answer is on its way: the completion is refused.
/// A turn with tool calls reports from the completion's listener, which on a failed completion
/// sends the model call and tokens without the tool calls (`createMetricsCompletionListener`);
/// the job's items are discarded (`AgentHistoryDiscardOnJobDestructionTest`).
#[test]
fn a_completion_refused_after_a_cancel_reports_the_call_without_its_tools() {
    let t = support_test(&[]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    t.inject_fault(
        Jobs::at_element("support-agent"),
        JobFault::latency("PT20S").times(1),
    );
    let run = start(&t);
    run.cancel();
    t.advance_time("PT20S");
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::Completed)
            .metrics(
                ExpectedMetrics::new()
                    .model_calls(1)
                    .input_tokens(120)
                    .tool_calls(0),
            )
            .history_roles([]),
    );
    let instance = agent.agent_instance().unwrap();
    assert!(
        instance
            .history
            .iter()
            .all(|i| i.commit_status == CommitStatus::Discarded)
    );
}

/// A content-filtered answer (`MODEL_RESPONSE_CONTENT_FILTERED`, thrown by
/// `BaseAgentRequestHandler.throwIfContentFiltered` before the ASSISTANT item is written): the
/// call's input items are discarded with the failed job, no assistant item, no metrics.
#[test]
fn a_refused_answer_writes_no_assistant_item_and_its_inputs_are_discarded() {
    let t = support_test(&[]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    agent.inject_fault(baton_testing::faults::ModelFault::refusal().at_call(2));
    let run = start(&t);
    run.assert_active();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .status(AgentStatus::Thinking)
            .metrics(ExpectedMetrics::new().model_calls(1))
            .history_roles([User, Assistant]),
    );
    let second: Vec<(HistoryRole, CommitStatus)> = agent
        .agent_instance()
        .unwrap()
        .history
        .iter()
        .filter(|i| i.model_call == 2)
        .map(|i| (i.role, i.commit_status))
        .collect();
    assert_eq!(
        second,
        [
            (ToolResult, CommitStatus::Discarded),
            (ToolResult, CommitStatus::Discarded)
        ]
    );
}

/// The connector crashes after the model answered (a model fault): the answer's items, the
/// assistant's too, stay pending until the job is taken again, then are discarded; the model is
/// asked the same again and that call is committed.
#[test]
fn a_crash_after_the_answer_discards_the_lost_call_once_the_job_is_taken_again() {
    let t = support_test(&[]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    agent.inject_fault(baton_testing::faults::ModelFault::crash_after_answer().at_call(1));
    let run = start(&t);
    run.assert_active();
    let pending: Vec<(HistoryRole, CommitStatus)> = agent
        .agent_instance()
        .unwrap()
        .history
        .iter()
        .map(|i| (i.role, i.commit_status))
        .collect();
    assert_eq!(
        pending,
        [
            (User, CommitStatus::Pending),
            (Assistant, CommitStatus::Pending)
        ]
    );
    t.advance_time("PT5M0.001S");
    run.assert_completed();
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .metrics(ExpectedMetrics::new().model_calls(3).tool_calls(3))
            .history_roles([
                User, Assistant, ToolResult, ToolResult, Assistant, ToolResult, Assistant,
            ]),
    );
    let first: Vec<CommitStatus> = agent
        .agent_instance()
        .unwrap()
        .history
        .iter()
        .filter(|i| i.model_call == 1)
        .map(|i| i.commit_status)
        .collect();
    assert_eq!(first, [CommitStatus::Discarded, CommitStatus::Discarded]);
}

/// An agent that ran in several process instances has an agent instance in each (the connector
/// creates one per element instance whose context is empty: `AgentInitializerImpl`): an
/// assertion reads the latest unless it selects the process instance or the instance's number.
#[test]
fn an_assertion_selects_one_of_several_agent_instances() {
    // The second run waits in the order lookup (its worker is not mocked for it).
    let t = ProcessTest::from_file(template()).expect("the template deploys");
    t.mock_job("email-send").complete();
    let agent = t.mock_ai_agent(
        "support-agent",
        [
            Turn::respond_json(json!({"answer": "Hello.", "resolved": true})),
            Turn::call("lookup-order", json!({"orderId": "1042"})),
        ],
    );
    let first = t.start("ai-agent-tool-loop", json!({"customerMessage": "Hi"}));
    first.assert_completed();
    let second = start(&t);
    second.assert_active();
    assert_eq!(agent.agent_instances().len(), 2);
    agent.assert_agent_status(AgentStatus::ToolCalling);
    let completed = ExpectedAgentInstance::new()
        .status(AgentStatus::Completed)
        .metrics(ExpectedMetrics::new().model_calls(1).tool_calls(0))
        .history_roles([User, Assistant]);
    agent.assert_agent_instance(completed.clone().process_instance(first.key()));
    agent.assert_agent_instance(completed.clone().number(1));
    agent.assert_agent_instance(
        ExpectedAgentInstance::new()
            .process_instance(second.key())
            .number(1)
            .status(AgentStatus::ToolCalling),
    );

    let wrong = agent
        .check_agent_instance(&completed.clone().number(2))
        .unwrap_err()
        .to_string();
    assert!(
        wrong.starts_with("agent instance 2 of 2 of \"support-agent\""),
        "{wrong}"
    );
    let none_there = agent
        .check_agent_instance(&completed.clone().process_instance(999))
        .unwrap_err()
        .to_string()
        .replace(&first.key().to_string(), "<first>")
        .replace(&second.key().to_string(), "<second>");
    insta::assert_snapshot!(none_there, @r#"
    expected the agent "support-agent" to have an agent instance in process instance 999
        but it has none there (its agent instances are in process instances <first>, <second>)
    "#);
    let beyond = agent
        .check_agent_instance(&completed.number(3))
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!(beyond, @r#"
    expected the agent "support-agent" to have an agent instance number 3
        but it has 2 (numbered from 1, in the order they were created)
    "#);
}

/// The connector writes the key of the agent instance it created into the context's metadata
/// (camunda/connectors `AgentInitializerImpl.provisionAgentInstance`:
/// `AgentMetadata.agentInstanceKey`), and every later job reports to the instance that key
/// names (`AgentConversation.agentInstanceKey`). baton's key is the creating element instance's.
#[test]
fn the_context_carries_the_agent_instance_key() {
    let t = support_test(&[]);
    let agent = t.mock_ai_agent("support-agent", worked_example());
    let run = start(&t);
    run.assert_completed();
    let instance = agent.agent_instance().expect("an agent instance");
    assert_eq!(instance.key, instance.element_instance_keys[0]);
    let metadata = &run.variable("agent").expect("the agent variable")["context"]["metadata"];
    assert_eq!(
        metadata["agentInstanceKey"],
        json!(instance.key),
        "{metadata}"
    );
    let keys: Vec<&String> = metadata.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "processDefinitionKey",
            "processInstanceKey",
            "agentInstanceKey",
            "lastIterationKey"
        ]
    );
}

/// A context without `metadata.agentInstanceKey` (stored before 8.10, or given by the test)
/// creates no agent instance and reports to none: the connector provisions an instance only
/// when there is no context (`AgentInitializerImpl`), and `AgentInstanceClient` skips its
/// reports without a key.
#[test]
fn a_context_without_an_agent_instance_key_reports_to_no_instance() {
    let t = ProcessTest::from_file(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn"),
    )
    .expect("the template deploys");
    t.mock_job("email-send").complete();
    let agent = t.mock_ai_agent(
        "support-agent",
        [Turn::respond_json(
            json!({"answer": "Hello again.", "resolved": true}),
        )],
    );
    let before_8_10 = json!({"schemaVersion": 1, "state": "READY",
        "metadata": {"processDefinitionKey": 1, "processInstanceKey": 2},
        "metrics": {"modelCalls": 1, "tokenUsage": {"inputTokenCount": 0, "outputTokenCount": 0}, "toolCalls": 0},
        "toolDefinitions": [],
        "conversation": {"type": "in-process", "conversationId": "c", "messages": []}});
    let run = t.start(
        "ai-agent-task-tool-loop",
        json!({"customerMessage": "Hi", "agent": {"context": before_8_10}}),
    );
    run.assert_completed();
    assert_eq!(agent.requests().len(), 1);
    assert!(
        agent.agent_instances().is_empty(),
        "{:?}",
        agent.agent_instances()
    );
}
