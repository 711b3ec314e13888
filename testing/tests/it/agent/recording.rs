//! Record, replay and drift: the run trace, cassettes of format 2, imports from real runs.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use baton_testing::ProcessTest;
use baton_testing::agent::recording::{
    CassetteMode, CassetteOptions, CassetteSession, ImportOptions, MatchMode, Normalizer, Redactor,
    Replayer, TurnSource, import_agent_context, request_json,
};
use baton_testing::agent::{ToolCall, Turn, Usage};
use baton_testing::trace::{TraceReader, render};
use serde_json::json;

fn repo_file(path: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}

fn template() -> ProcessTest {
    let t = ProcessTest::from_file(repo_file(
        "templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn",
    ))
    .unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

fn template_turns() -> Vec<Turn> {
    vec![
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
fn the_trace_of_a_run_reads_from_the_records() {
    let t = template();
    let mut reader = t.with_engine(TraceReader::from_now);
    t.mock_ai_agent("support-agent", template_turns());
    let run = t.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    run.assert_completed();
    let events = t.with_engine(|e| reader.read(e));
    insta::assert_snapshot!(render(&events, ""), @r#"
    completed request-received
    tool lookup-order activated with {"orderId":"1042"}
    tool search-kb activated with {"query":"damaged item return"}
    completed lookup-order
    tool lookup-order returned {"id":"1042","status":"delivered","damaged":true}
    completed search-kb
    tool search-kb returned ["Returns and damaged items"]
    tool create-ticket activated with {"summary":"Order 1042 arrived damaged"}
    completed create-ticket
    tool create-ticket returned {"ticketId":"T-77"}
    completed support-agent
    completed resolved-decision
    completed send-answer
    completed answered
    completed ai-agent-tool-loop
    "#);
}

/// The connector guide of ../shared/docs, when it is there.
fn connector_guide() -> Option<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/docs/ai-agent-connector.md");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            println!("skipped: {} is not there", path.display());
            None
        }
    }
}

fn corpus_bpmn(name: &str) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/bpmn/agentic")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        println!("skipped: {} is not there", path.display());
        None
    }
}

/// The `n`th ```json block after the line starting with `heading`.
fn json_block(guide: &str, heading: &str, n: usize) -> String {
    let start = guide.find(heading).expect("the heading is in the guide");
    let mut rest = &guide[start..];
    let mut block = String::new();
    for _ in 0..=n {
        let open = rest.find("```json\n").expect("a json block follows") + "```json\n".len();
        let close = rest[open..].find("```").expect("the block ends") + open;
        block = rest[open..close].to_string();
        rest = &rest[close + 3..];
    }
    block
}

/// The guide's worked example "agentContext after a two-turn conversation", whole: job 1's
/// context with the eight tool definitions it abbreviates and the configured system prompt,
/// and the two messages job 2 adds.
fn two_turn_agent_context(guide: &str, system_prompt: &str) -> serde_json::Value {
    let example = "### Worked example: `agentContext` after a two-turn conversation";
    let golden = "Worked example 2, continued (golden value)";
    let job1 = json_block(guide, example, 0)
        .replace("[ … ]", &json_block(guide, golden, 0))
        .replace(
            "\"<system prompt>\"",
            &serde_json::Value::String(system_prompt.to_string()).to_string(),
        );
    let mut context: serde_json::Value = serde_json::from_str(&job1).expect("job 1 is JSON");
    let job2: serde_json::Value =
        serde_json::from_str(&json_block(guide, example, 1)).expect("job 2 is JSON");
    let added = job2["conversation"]["messages"].as_array().unwrap()[1..].to_vec();
    context["conversation"]["messages"]
        .as_array_mut()
        .unwrap()
        .extend(added);
    context
}

const SUPERFLUX_QUESTION: &str = "What is the superflux product of 3 and 5?";

#[test]
fn the_guides_two_turn_agent_context_imports_and_matches_its_process() {
    let (Some(guide), Some(bpmn)) = (
        connector_guide(),
        corpus_bpmn("connectors--ai-agent-chat-with-tools.bpmn"),
    ) else {
        return;
    };
    // The guide abbreviates the configured system prompt: it is what the agent sends.
    let probe = ProcessTest::from_file(&bpmn).unwrap();
    let agent = probe.mock_ai_agent("AI_Agent", [Turn::respond_text("x")]);
    probe.start(
        "ai-agent-chat-with-tools",
        json!({"inputText": SUPERFLUX_QUESTION}),
    );
    let system_prompt = agent.requests()[0].system_prompt.clone().unwrap();
    let context = two_turn_agent_context(&guide, &system_prompt);

    let recording = import_agent_context(
        &json!({"agentContext": context}),
        "agentContext.json",
        &ImportOptions {
            agent: Some("AI_Agent".into()),
            process_id: Some("ai-agent-chat-with-tools".into()),
        },
    )
    .unwrap();
    assert_eq!(
        recording.turns(),
        [
            Turn::tool_calls([
                ToolCall::new("SuperfluxProduct", json!({"a": 3, "b": 5})).with_id("toolu_01")
            ])
            .with_text("I'll calculate that with the superflux tool.")
            .unchecked()
            .with_usage(Usage::new(1450, 75)),
            Turn::respond_text("The superflux product of 3 and 5 is 24.")
                .with_usage(Usage::new(1560, 20)),
        ]
    );
    let second = recording.calls[1].request.as_ref().unwrap();
    assert_eq!(
        second.get("toolCallResults"),
        Some(&json!([{"name": "SuperfluxProduct", "content": 24}]))
    );

    // Each request the process makes with these turns is the imported one.
    let t = ProcessTest::from_file(&bpmn).unwrap();
    let agent = t.mock_ai_agent("AI_Agent", recording.turns());
    t.start(
        "ai-agent-chat-with-tools",
        json!({"inputText": SUPERFLUX_QUESTION}),
    );
    let mut replayer = Replayer::new(
        recording,
        MatchMode::InOrder,
        Normalizer::standard(),
        Redactor::standard(),
    );
    for request in agent.requests().iter() {
        let played = replayer
            .answer(&request_json(request, None))
            .unwrap_or_else(|m| panic!("call {} does not match: {m:?}", request.model_call));
        assert!(played.checked);
    }
    assert!(replayer.unplayed().is_empty());
}

/// A test of one agent with a cassette session, driven through a handler until the mock
/// takes sessions itself: the handler reads the engine through a weak handle of the test.
struct Session {
    test: Rc<ProcessTest>,
    session: Rc<RefCell<CassetteSession>>,
}

const TEMPLATE_PROCESS: &str = "ai-agent-tool-loop";

fn template_xml() -> String {
    std::fs::read_to_string(repo_file(
        "templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn",
    ))
    .unwrap()
}

/// The template's process deployed from `xml` with the worked example's tool mocks.
fn template_from(xml: &str) -> ProcessTest {
    let t = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", xml).unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": true}}));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

fn scripted(turns: Vec<Turn>) -> TurnSource {
    let mut turns = turns.into_iter();
    Box::new(move |_, _| turns.next().ok_or_else(|| "no turn left".to_string()))
}

impl Session {
    fn open(
        test: ProcessTest,
        agent: &str,
        path: &Path,
        options: CassetteOptions,
        turns: Option<Vec<Turn>>,
    ) -> Session {
        let test = Rc::new(test);
        let session = test
            .with_engine(|e| {
                CassetteSession::open(e, agent, path, options, turns.map(scripted), None)
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let session = Rc::new(RefCell::new(session));
        let weak = Rc::downgrade(&test);
        let answering = session.clone();
        test.mock_ai_agent(
            agent,
            baton_testing::agent::AgentScript::handler(move |request| {
                let t = weak.upgrade().expect("the test is alive");
                t.with_engine(|e| answering.borrow_mut().answer(e, request))
                    .unwrap_or_else(|failure| panic!("{failure}"))
            }),
        );
        Session { test, session }
    }

    /// Starts the process and ends the session: the failure's message, if any.
    fn run(&self, process: &str, variables: serde_json::Value) -> Result<(), String> {
        let started = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.test.start(process, variables);
        }));
        if let Err(panic) = started {
            return Err(panic
                .downcast::<String>()
                .map(|s| *s)
                .unwrap_or_else(|_| "a panic".to_string()));
        }
        self.test
            .with_engine(|e| self.session.borrow_mut().finish(e))
            .map_err(|f| f.to_string())
    }
}

const BROKEN: &str = "My order 1042 arrived broken.";

/// Records the worked example against `xml` into `path`.
fn record_template(xml: &str, path: &Path) {
    let session = Session::open(
        template_from(xml),
        "support-agent",
        path,
        CassetteOptions {
            mode: CassetteMode::Record,
            ..CassetteOptions::default()
        },
        Some(template_turns()),
    );
    session
        .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .unwrap();
}

fn replay(test: ProcessTest, path: &Path, variables: serde_json::Value) -> Result<(), String> {
    Session::open(
        test,
        "support-agent",
        path,
        CassetteOptions::default(),
        None,
    )
    .run(TEMPLATE_PROCESS, variables)
    .map_err(|message| message.replace(&path.display().to_string(), "damaged-order.json"))
}

struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("baton-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn join(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_recording_replays_and_records_again_byte_for_byte() {
    let dir = TempDir::new("record");
    let path = dir.join("damaged-order.json");
    let xml = template_xml();
    record_template(&xml, &path);
    let first = std::fs::read_to_string(&path).unwrap();
    record_template(&xml, &dir.join("again.json"));
    let second = std::fs::read_to_string(dir.join("again.json")).unwrap();
    assert_eq!(first, second, "the same handler records the same bytes");
    insta::assert_snapshot!(first);

    replay(
        template_from(&xml),
        &path,
        json!({"customerMessage": BROKEN}),
    )
    .unwrap();
}

/// Each drift cause, recorded against the template and replayed against a changed process or
/// run: the message names the cause.
#[test]
fn each_drift_cause_is_named() {
    let dir = TempDir::new("drift");
    let path = dir.join("damaged-order.json");
    let xml = template_xml();
    record_template(&xml, &path);
    let replayed = |xml: &str, variables: serde_json::Value| {
        replay(template_from(xml), &path, variables).unwrap_err()
    };
    let broken = || json!({"customerMessage": BROKEN});

    let tool_result = {
        let t = template_from(&xml);
        t.mock_job("order-lookup")
            .complete_with(json!({"order": {"id": "1042", "status": "shipped", "damaged": true}}));
        replay(t, &path, broken()).unwrap_err()
    };
    let user_prompt = replayed(&xml, json!({"customerMessage": "Where is order 7?"}));
    let system_prompt = replayed(
        &xml.replace(
            "Answer with a short, friendly message",
            "Answer with a long message",
        ),
        broken(),
    );
    let tool_added = replayed(
        &xml.replace(
            "    </bpmn:adHocSubProcess>",
            r#"      <bpmn:serviceTask id="issue-refund" name="Issue refund">
        <bpmn:documentation>Refunds an order.</bpmn:documentation>
        <bpmn:extensionElements>
          <zeebe:taskDefinition type="refund" />
        </bpmn:extensionElements>
      </bpmn:serviceTask>
    </bpmn:adHocSubProcess>"#,
        ),
        broken(),
    );
    let tool_removed = {
        let start = xml.find(r#"<bpmn:serviceTask id="search-kb""#).unwrap();
        let end =
            start + xml[start..].find("</bpmn:serviceTask>").unwrap() + "</bpmn:serviceTask>".len();
        replayed(&format!("{}{}", &xml[..start], &xml[end..]), broken())
    };
    let tool_renamed = replayed(
        &xml.replace(r#"id="create-ticket""#, r#"id="open-ticket""#)
            .replace(
                r#"bpmnElement="create-ticket""#,
                r#"bpmnElement="open-ticket""#,
            ),
        broken(),
    );
    let parameter_added = replayed(
        &xml.replace(
            r#"target="orderId" />"#,
            r#"target="orderId" />
            <zeebe:input source="=fromAi(toolCall.email, &#34;The customer's e-mail&#34;, &#34;string&#34;)" target="email" />"#,
        ),
        broken(),
    );
    let parameter_retyped = replayed(
        &xml.replace(
            "=fromAi(toolCall.orderId, &#34;The order number, for example 1042&#34;, &#34;string&#34;)",
            "=fromAi(toolCall.orderId, &#34;The order number, for example 1042&#34;, &#34;number&#34;)",
        ),
        broken(),
    );
    let missing_call = {
        let t = template_from(&xml);
        t.mock_job("order-lookup").fail("order service down");
        replay(t, &path, broken()).unwrap_err()
    };
    let extra_call = {
        let mut cut = baton_testing::agent::recording::Recording::read(&path).unwrap();
        cut.calls.truncate(2);
        let cut_path = dir.join("cut.json");
        cut.write(&cut_path).unwrap();
        replay(template_from(&xml), &cut_path, broken())
            .unwrap_err()
            .replace(&cut_path.display().to_string(), "cut.json")
    };
    insta::assert_snapshot!(
        [
            tool_result,
            user_prompt,
            system_prompt,
            tool_added,
            tool_removed,
            tool_renamed,
            parameter_added,
            parameter_retyped,
            missing_call,
            extra_call,
        ]
        .join("\n---\n")
    );
}

/// A tool whose chain goes another way: the path after the call that activated it, then the
/// result it gave.
#[test]
fn the_path_a_tool_took_is_named() {
    let dir = TempDir::new("path");
    let path = dir.join("damaged-order.json");
    let chained = template_xml().replacen(
        r#"            <zeebe:output source="=order" target="toolCallResult" />
          </zeebe:ioMapping>
        </bpmn:extensionElements>
      </bpmn:serviceTask>"#,
        r#"            <zeebe:output source="=order" target="toolCallResult" />
          </zeebe:ioMapping>
        </bpmn:extensionElements>
        <bpmn:outgoing>flow-to-check</bpmn:outgoing>
      </bpmn:serviceTask>
      <bpmn:sequenceFlow id="flow-to-check" sourceRef="lookup-order" targetRef="is-damaged" />
      <bpmn:exclusiveGateway id="is-damaged" default="flow-intact">
        <bpmn:incoming>flow-to-check</bpmn:incoming>
        <bpmn:outgoing>flow-damaged</bpmn:outgoing>
        <bpmn:outgoing>flow-intact</bpmn:outgoing>
      </bpmn:exclusiveGateway>
      <bpmn:sequenceFlow id="flow-damaged" sourceRef="is-damaged" targetRef="flag-damage">
        <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">=toolCallResult.damaged = true</bpmn:conditionExpression>
      </bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="flow-intact" sourceRef="is-damaged" targetRef="note-intact" />
      <bpmn:scriptTask id="flag-damage">
        <bpmn:extensionElements>
          <zeebe:script expression="={status: toolCallResult.status, damage: &#34;flagged&#34;}" resultVariable="toolCallResult" />
        </bpmn:extensionElements>
        <bpmn:incoming>flow-damaged</bpmn:incoming>
      </bpmn:scriptTask>
      <bpmn:scriptTask id="note-intact">
        <bpmn:extensionElements>
          <zeebe:script expression="={status: toolCallResult.status, damage: &#34;none&#34;}" resultVariable="toolCallResult" />
        </bpmn:extensionElements>
        <bpmn:incoming>flow-intact</bpmn:incoming>
      </bpmn:scriptTask>"#,
        1,
    );
    record_template(&chained, &path);
    let t = template_from(&chained);
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "delivered", "damaged": false}}));
    insta::assert_snapshot!(replay(t, &path, json!({"customerMessage": BROKEN})).unwrap_err());
}
