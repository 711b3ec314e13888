//! The AI Agent Task: the connector `io.camunda.agenticai:aiagent:1` on a service task, its tool
//! calls looped through a separate ad-hoc sub-process whose `activeElementsCollection` is
//! `=[toolCall._meta.name]` (Camunda's "AI Agent Task" pattern, template
//! `io.camunda.connectors.agenticai.aiagent.v1` v11). The agent testing guide's worked example
//! runs in that pattern (`templates/ai-agent-task-tool-loop`) with the same tools, script and
//! assertions as the Sub-process variant; the Task connector's own rules follow, each with the
//! camunda/connectors class it comes from.

use std::path::PathBuf;

use baton_testing::ProcessTest;
use baton_testing::agent::{ToolCall, Turn, call, contains, tool};
use baton_testing::args;
use serde_json::json;

fn template() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn")
}

fn template_xml() -> String {
    std::fs::read_to_string(template()).unwrap()
}

/// `beforeEach` of the guide: the template with the tools' workers mocked.
fn with_tools(t: ProcessTest) -> ProcessTest {
    t.mock_job("order-lookup")
        .complete_with_fn(|job| json!({"order": {"id": job.variable("orderId"), "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

fn support_test() -> ProcessTest {
    with_tools(ProcessTest::from_file(template()).expect("the template deploys"))
}

fn the_script() -> [Turn; 3] {
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
    ]
}

#[test]
fn the_worked_example_runs_as_an_ai_agent_task() {
    let t = support_test();
    let agent = t.mock_ai_agent("support-agent", the_script());

    let run = t.start(
        "ai-agent-task-tool-loop",
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
    // The agent ran three times, the tools once per call.
    run.assert_completed_times("support-agent", 3);
    run.assert_completed_times("lookup-order", 1);
    run.assert_completed_times("create-ticket", 1);
}

/// The job's result is the connector's `AgentResponse` (camunda/connectors
/// `aiagent/model/AgentResponse.java`, `@JsonInclude(NON_NULL)`), under the `resultVariable`
/// header: the context every time, `toolCalls` always a list (`ToolCallProcessVariable`:
/// `{_meta: {id, name}, ...arguments}`), the answer on the last turn.
#[test]
fn each_job_completes_with_the_agent_response_as_its_result_variable() {
    let t = support_test();
    t.mock_ai_agent("support-agent", the_script());
    let run = t.start(
        "ai-agent-task-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    run.assert_completed();
    let agent = run.variable("agent").expect("agent is set");
    assert_eq!(agent["toolCalls"], json!([]));
    assert_eq!(
        agent["responseJson"],
        json!({"answer": "Ticket T-77 is open.", "resolved": true})
    );
    assert_eq!(agent["context"]["state"], "READY");
    assert_eq!(agent["context"]["metrics"]["modelCalls"], 3);
    assert_eq!(agent["context"]["metrics"]["toolCalls"], 3);
    // The JSON response format gives no responseText (AgentResponseHandlerImpl).
    assert!(agent.get("responseText").is_none(), "{agent}");
    // The last multi-instance run left the results of the ticket call.
    assert_eq!(
        run.variable("toolCallResults").unwrap(),
        json!([{"id": "call_2_1", "name": "create-ticket", "content": {"ticketId": "T-77"}}])
    );
}

#[test]
fn tools_of_the_container_count_in_tool_coverage() {
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
        "ai-agent-task-tool-loop",
        json!({"customerMessage": "Where is 1042?"}),
    )
    .assert_completed();
    let coverage = t.coverage();
    assert_eq!(coverage.processes[0].tools.uncovered, ["create-ticket"]);
    assert_eq!((coverage.tools.total, coverage.tools.covered), (3, 2));
}

/// An ad-hoc sub-process marked as a tool container (`zeebe:property`
/// `io.camunda.agenticai.toolContainer` = `true`, written by Camunda 8.10's AI Agent templates)
/// holds tools whether or not an AI Agent Task names it statically: camunda-docs modeling
/// guidance "Declaring a sub-process as agentic" recognises a tool container by the property
/// "whether its tools are driven by an AI Agent task in the same process or a separate one".
/// Here the Task names its container with a FEEL expression, which only the run resolves.
#[test]
fn a_sub_process_marked_as_a_tool_container_counts_its_tools() {
    let dynamic = template_xml().replace(
        r#"source="support-tools" target="data.tools.containerElementId""#,
        r#"source="=&#34;support-tools&#34;" target="data.tools.containerElementId""#,
    );
    let marked = dynamic.replace(
        r#"<bpmn:adHocSubProcess id="support-tools" name="Support tools">
      <bpmn:extensionElements>"#,
        r#"<bpmn:adHocSubProcess id="support-tools" name="Support tools">
      <bpmn:extensionElements>
        <zeebe:properties>
          <zeebe:property name="io.camunda.agenticai.toolContainer" value="true" />
        </zeebe:properties>"#,
    );
    assert_ne!(marked, dynamic);
    let tools = |xml: &str| {
        let coverage = ProcessTest::from_xml("support.bpmn", xml)
            .expect("deploys")
            .coverage();
        (
            coverage.tools.total,
            coverage.processes[0].tools.uncovered.clone(),
        )
    };
    assert_eq!(tools(&dynamic), (0, Vec::<String>::new()));
    assert_eq!(
        tools(&marked),
        (
            3,
            vec![
                "search-kb".to_owned(),
                "lookup-order".to_owned(),
                "create-ticket".to_owned()
            ]
        )
    );
    // A value other than `true` marks nothing.
    assert_eq!(
        tools(&marked.replace(r#"value="true""#, r#"value="yes""#)).0,
        0
    );
}

fn run_error(t: ProcessTest, turns: Vec<Turn>) -> String {
    t.mock_ai_agent("support-agent", turns);
    let run = t.start(
        "ai-agent-task-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    run.error().expect("the run failed")
}

#[test]
fn the_script_fails_the_run_as_it_does_for_the_sub_process() {
    let unknown = run_error(
        support_test(),
        vec![Turn::call("issue-refund", json!({"orderId": "1042"}))],
    );
    assert!(
        unknown.contains(r#"unknown tool "issue-refund". Tools of "support-agent": search-kb, lookup-order, create-ticket"#),
        "{unknown}"
    );
    let missing = run_error(
        support_test(),
        vec![Turn::call("create-ticket", json!({"priority": "high"}))],
    );
    assert!(
        missing.contains(r#"the required parameter "summary" is missing"#),
        "{missing}"
    );
    let short = run_error(
        support_test(),
        vec![
            Turn::call("lookup-order", json!({"orderId": "1042"})),
            Turn::call("lookup-order", json!({"orderId": "1043"})),
        ],
    );
    assert!(
        short.contains("the script has no turn 3 — it has 2, all played. The agent asked the model again with results from lookup-order."),
        "{short}"
    );
}

/// The tools come from the process definition
/// (`CamundaClientProcessDefinitionAdHocToolElementsResolver`): flow nodes without incoming
/// flows, parameters from `fromAi()` in input AND output mappings (Zeebe's own list reads only
/// input mappings).
#[test]
fn tools_are_read_from_the_container_with_output_mapping_parameters() {
    let xml = template_xml().replace(
        r#"<zeebe:output source="=articles" target="toolCallResult" />"#,
        r#"<zeebe:output source="=fromAi(toolCall.limit, &#34;How many articles&#34;, &#34;number&#34;)" target="limit" /><zeebe:output source="=articles" target="toolCallResult" />"#,
    );
    let t = with_tools(ProcessTest::from_xml("task.bpmn", &xml).unwrap());
    let agent = t.mock_ai_agent(
        "support-agent",
        [Turn::respond_json(
            json!({"answer": "Hi", "resolved": true}),
        )],
    );
    t.start("ai-agent-task-tool-loop", json!({"customerMessage": "Hi"}))
        .assert_completed();
    let tools = agent.requests()[0].tools.clone();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search-kb", "lookup-order", "create-ticket"]);
    let search = &tools[0];
    assert_eq!(
        search.input_schema["properties"]["limit"],
        json!({"type": "number", "description": "How many articles"})
    );
}

/// `CamundaClientProcessDefinitionAdHocToolElementsResolver`: a container id that is no ad-hoc
/// sub-process fails the job with `AD_HOC_SUB_PROCESS_NOT_FOUND`.
#[test]
fn a_container_that_is_no_ad_hoc_sub_process_fails_the_job() {
    let xml = template_xml().replace(
        r#"<zeebe:input source="support-tools" target="data.tools.containerElementId" />"#,
        r#"<zeebe:input source="send-answer" target="data.tools.containerElementId" />"#,
    );
    let t = with_tools(ProcessTest::from_xml("task.bpmn", &xml).unwrap());
    t.mock_ai_agent(
        "support-agent",
        [Turn::respond_json(
            json!({"answer": "Hi", "resolved": true}),
        )],
    );
    let run = t.start("ai-agent-task-tool-loop", json!({"customerMessage": "Hi"}));
    // Three attempts, 30 s apart (the template's retries and retryBackoff): one move of the
    // clock per backoff, as in Zeebe a move fires what is due once.
    t.advance_time("PT30S");
    t.advance_time("PT30S");
    let incident = run.incidents().into_iter().next().expect("an incident");
    assert_eq!(
        &*incident.error_message,
        "Unable to resolve tool elements. Ad-hoc sub-process with ID 'send-answer' was not found. | Error variables: {error={type=io.camunda.connector.api.error.ConnectorException, message=Unable to resolve tool elements. Ad-hoc sub-process with ID 'send-answer' was not found., code=AD_HOC_SUB_PROCESS_NOT_FOUND}}"
    );
}

/// Without `data.tools.containerElementId` the agent has no tools (`AgentTaskExecutionContext`).
#[test]
fn without_a_container_the_agent_has_no_tools() {
    let xml = template_xml().replace(
        r#"<zeebe:input source="support-tools" target="data.tools.containerElementId" />"#,
        "",
    );
    let t = with_tools(ProcessTest::from_xml("task.bpmn", &xml).unwrap());
    let agent = t.mock_ai_agent(
        "support-agent",
        [Turn::respond_json(
            json!({"answer": "Hi", "resolved": true}),
        )],
    );
    t.start("ai-agent-task-tool-loop", json!({"customerMessage": "Hi"}))
        .assert_completed();
    assert!(agent.requests()[0].tools.is_empty());
}

/// A service task of another job type is no AI Agent Task; the mock says so.
#[test]
fn a_service_task_of_another_type_is_no_agent() {
    let t = support_test();
    let error = t
        .try_mock_ai_agent("send-answer", [Turn::respond_text("hi")])
        .unwrap_err();
    insta::assert_snapshot!(error, @r#""send-answer" is a service task of job type "email-send", not an AI Agent Task: apply the AI Agent Task template (zeebe:taskDefinition type="io.camunda.agenticai:aiagent:1")"#);
}

/// `ignoreError` in the `errorExpression` header of an AI Agent Task (its response is a
/// standard one: camunda/connectors `SpringConnectorJobHandler.handleIgnoreError`) completes the
/// job with the given variables, where an AI Agent Sub-process's job would fail.
#[test]
fn ignore_error_completes_an_ai_agent_task_with_its_variables() {
    let xml = template_xml().replace(
        r#"<zeebe:header key="retryBackoff" value="PT30S" />"#,
        r#"<zeebe:header key="retryBackoff" value="PT30S" /><zeebe:header key="errorExpression" value="=if error != null then ignoreError({agent: {toolCalls: [], responseJson: {answer: &#34;Sorry.&#34;, resolved: false}}}) else null" />"#,
    );
    let t = with_tools(ProcessTest::from_xml("task.bpmn", &xml).unwrap());
    t.mock_ai_agent(
        "support-agent",
        [Turn::error("the provider is unavailable")],
    );
    let run = t.start("ai-agent-task-tool-loop", json!({"customerMessage": "Hi"}));
    run.assert_waiting_at(["queue-for-human"]);
    assert_eq!(
        run.variable("agent").unwrap()["responseJson"],
        json!({"answer": "Sorry.", "resolved": false})
    );
}
