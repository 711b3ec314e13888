//! Record, replay and drift: the run trace, cassettes of format 2, imports from real runs.

use std::path::Path;

use baton_testing::ProcessTest;
use baton_testing::agent::recording::{
    CassetteMode, CassetteOptions, CassetteScript, CassetteSession, ImportOptions, MatchMode,
    Normalizer, Redactor, Replayer, import_agent_context, request_json,
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
        recording.clone(),
        MatchMode::InOrder,
        Normalizer::standard(),
        Redactor::standard(),
    );
    for request in agent.requests().iter() {
        let played = replayer
            .answer(&request_json(request))
            .unwrap_or_else(|m| panic!("call {} does not match: {m:?}", request.model_call));
        assert!(played.checked);
    }
    assert!(replayer.unplayed().is_empty());

    // Written as a file, it replays through the mock with every call checked.
    let dir = TempDir::new("import");
    let path = dir.join("imported.json");
    recording.write(&path).unwrap();
    Session::open(
        ProcessTest::from_file(&bpmn).unwrap(),
        "AI_Agent",
        CassetteScript::new(&path),
    )
    .run(
        "ai-agent-chat-with-tools",
        json!({"inputText": SUPERFLUX_QUESTION}),
    )
    .unwrap();
}

/// A test of one agent whose mock plays a cassette script.
struct Session {
    test: ProcessTest,
    agent: baton_testing::agent::AiAgentHandle,
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

/// A script recording `turns` in order.
fn recording(path: &Path, turns: Vec<Turn>) -> CassetteScript {
    let mut turns = turns.into_iter();
    CassetteScript::new(path)
        .mode(CassetteMode::Record)
        .record_with(move |_| turns.next().expect("a turn left"))
}

impl Session {
    fn open(test: ProcessTest, agent: &str, script: CassetteScript) -> Session {
        let agent = test.mock_ai_agent(agent, script);
        Session { test, agent }
    }

    /// Starts the process and ends the cassette: the run's errors, or the cassette's complaint
    /// about recorded calls the run did not make.
    fn run(&self, process: &str, variables: serde_json::Value) -> Result<(), String> {
        self.test.start(process, variables);
        let errors: Vec<String> = self.test.errors().into_iter().map(|e| e.message).collect();
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        self.agent.check_all_turns_used().map_err(|e| e.to_string())
    }
}

const BROKEN: &str = "My order 1042 arrived broken.";

/// Records the worked example against `xml` into `path`.
fn record_template(xml: &str, path: &Path) {
    let session = Session::open(
        template_from(xml),
        "support-agent",
        recording(path, template_turns()),
    );
    session
        .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .unwrap();
}

fn replay(test: ProcessTest, path: &Path, variables: serde_json::Value) -> Result<(), String> {
    Session::open(test, "support-agent", CassetteScript::new(path))
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

/// Every job type of the deployed processes but the agent's and the HTTP connector's,
/// answered with `{}`; the HTTP connector (the tools) with `{"toolCallResult": result}`.
fn corpus_test(path: &Path, result: &serde_json::Value) -> ProcessTest {
    let t = ProcessTest::from_file(path).unwrap();
    let types: Vec<String> = t.with_engine(|e| {
        let mut types: Vec<String> = Vec::new();
        for p in e.deployed_processes() {
            for job_type in p.static_job_types() {
                if !types.iter().any(|t| t == job_type) {
                    types.push(job_type.to_string());
                }
            }
        }
        types
    });
    for job_type in types {
        match job_type.as_str() {
            "io.camunda.agenticai:aiagent-job-worker:1" => {}
            "io.camunda:http-json:1" => {
                t.mock_job(job_type)
                    .complete_with(json!({"toolCallResult": result}));
            }
            _ => {
                t.mock_job(job_type).complete();
            }
        }
    }
    t
}

/// A real agent process of the corpus: recorded twice with the same turns (the same bytes),
/// replayed, and replayed with the tool returning something else (fails at call 2).
fn corpus_round_trip(
    file: &str,
    process_id: &str,
    agent: &str,
    start: serde_json::Value,
    call: Turn,
    result: serde_json::Value,
    changed: serde_json::Value,
) -> Option<String> {
    let bpmn = corpus_bpmn(file)?;
    let dir = TempDir::new(&format!("corpus-{process_id}"));
    let turns = vec![call, Turn::respond_text("Done.")];
    let record = |path: &Path| {
        Session::open(
            corpus_test(&bpmn, &result),
            agent,
            recording(path, turns.clone()),
        )
        .run(process_id, start.clone())
        .unwrap();
        std::fs::read_to_string(path).unwrap()
    };
    let path = dir.join("cassette.json");
    assert_eq!(record(&path), record(&dir.join("again.json")));
    let replay = |result: &serde_json::Value| {
        Session::open(
            corpus_test(&bpmn, result),
            agent,
            CassetteScript::new(&path),
        )
        .run(process_id, start.clone())
        .map_err(|m| m.replace(&path.display().to_string(), "cassette.json"))
    };
    replay(&result).unwrap();
    Some(replay(&changed).unwrap_err())
}

#[test]
fn real_agent_processes_round_trip() {
    let chat = corpus_round_trip(
        "connectors--ai-agent-chat-with-tools.bpmn",
        "ai-agent-chat-with-tools",
        "AI_Agent",
        json!({"inputText": "Who is user 2?"}),
        Turn::call("LoadUserByID", json!({"id": 2})),
        json!({"id": 2, "name": "Ervin Howell"}),
        json!({"id": 2, "name": "Clementine Bauch"}),
    );
    let openai = corpus_round_trip(
        "connectors-e2e--ai-agent-e2e-openai.bpmn",
        "ai-agent-e2e-openai",
        "AI_Agent",
        json!({"userPrompt": "List the users", "inputText": "List the users"}),
        Turn::call("ListUsers", json!({})),
        json!([{"id": 1}]),
        json!([{"id": 1}, {"id": 2}]),
    );
    let (Some(chat), Some(openai)) = (chat, openai) else {
        return;
    };
    insta::assert_snapshot!(format!("{chat}\n---\n{openai}"));
}

/// Cassettes that cannot replay: each a clear error naming the file and the path.
#[test]
fn bad_cassettes_are_refused_with_file_and_path() {
    let dir = TempDir::new("bad");
    let path = dir.join("damaged-order.json");
    record_template(&template_xml(), &path);
    let text = std::fs::read_to_string(&path).unwrap();
    let open = |name: &str, content: Option<String>, options: CassetteOptions| {
        let file = dir.join(name);
        if let Some(content) = content {
            std::fs::write(&file, content).unwrap();
        }
        let t = template();
        t.with_engine(|e| {
            CassetteSession::open(e, "support-agent", &file, options, None).map(|_| ())
        })
        .unwrap_err()
        .to_string()
        .replace(&dir.0.display().to_string(), "cassettes")
    };
    let replay = CassetteOptions::default;
    let mut newer: serde_json::Value = serde_json::from_str(&text).unwrap();
    newer["version"] = json!(3);
    let mut other_agent: serde_json::Value = serde_json::from_str(&text).unwrap();
    other_agent["agent"] = json!("billing-agent");
    let mut other_process: serde_json::Value = serde_json::from_str(&text).unwrap();
    other_process["process"]["id"] = json!("order-fulfilment");
    // Problems all over the document: each is named with its path.
    let mut invalid: serde_json::Value = serde_json::from_str(&text).unwrap();
    invalid["recordedAt"] = json!("2026-10-01");
    invalid["process"]["definitionHash"] = json!("md5:1234");
    invalid["calls"][0]["call"] = json!(5);
    invalid["calls"][0]["request"]["tools"][0]["inputSchema"] = json!("object");
    invalid["calls"][0]["request"]["limits"]["maxModelCalls"] = json!("ten");
    invalid["calls"][1]["turn"]["toolCalls"][0]
        .as_object_mut()
        .unwrap()
        .remove("name");
    invalid["calls"][1]["trajectory"][0] = json!({"toolStarted": "lookup-order"});
    let format_1 = json!({"version": 1, "agent": "support-agent", "turns": [{"tool_calls": []}]});
    let edited = text.replacen(
        "My order 1042 arrived broken.",
        "My order 7 arrived broken.",
        1,
    );
    let messages = [
        open(
            "truncated.json",
            Some(text[..text.len() / 2].to_string()),
            replay(),
        ),
        open(
            "corrupt.json",
            Some(text.replacen("\"calls\": [", "\"calls\": [,", 1)),
            replay(),
        ),
        open("newer.json", Some(newer.to_string()), replay()),
        open("other-agent.json", Some(other_agent.to_string()), replay()),
        open(
            "other-process.json",
            Some(other_process.to_string()),
            replay(),
        ),
        open("edited.json", Some(edited), replay()),
        open("invalid.json", Some(invalid.to_string()), replay()),
        open("format-1.json", Some(format_1.to_string()), replay()),
        open("missing.json", None, replay()),
        open(
            "record.json",
            None,
            CassetteOptions {
                mode: CassetteMode::Record,
                ..CassetteOptions::default()
            },
        ),
    ];
    insta::assert_snapshot!(messages.join("\n"));
}

/// Where the child of [`a_recording_run_killed_halfway_leaves_a_valid_cassette`] records.
const KILL_DIR_ENV: &str = "BATON_TEST_KILLED_RECORDING_DIR";

/// Run by the test below as a child process: records the worked example and, at model call 2,
/// says so (a marker file) and waits to be killed.
#[test]
#[ignore = "a child process of a_recording_run_killed_halfway_leaves_a_valid_cassette"]
fn a_recording_run_killed_halfway_child() {
    let Ok(dir) = std::env::var(KILL_DIR_ENV) else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let mut turns = template_turns().into_iter();
    let marker = dir.join("at-call-2");
    let test = template();
    test.mock_ai_agent(
        "support-agent",
        CassetteScript::new(dir.join("damaged-order.json"))
            .mode(CassetteMode::Record)
            .record_with(move |request| {
                if request.model_call == 2 {
                    std::fs::write(&marker, "").unwrap();
                    std::thread::sleep(std::time::Duration::from_secs(60));
                }
                turns.next().expect("a turn left")
            }),
    );
    test.start(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}));
}

#[test]
fn a_recording_run_killed_halfway_leaves_a_valid_cassette() {
    let dir = TempDir::new("killed");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "agent::recording::a_recording_run_killed_halfway_child",
            "--exact",
            "--ignored",
            "--quiet",
        ])
        .env(KILL_DIR_ENV, &dir.0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let marker = dir.join("at-call-2");
    let waited = std::iter::repeat_with(|| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        marker.exists() || child.try_wait().unwrap().is_some()
    })
    .take(1500)
    .any(|reached| reached);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(waited && marker.exists(), "the child reached model call 2");
    let cassette = baton_testing::agent::recording::Recording::read(dir.join("damaged-order.json"))
        .expect("the cassette left behind is valid");
    assert_eq!(
        cassette.calls.len(),
        1,
        "it holds the call made before the kill"
    );
    assert_eq!(cassette.calls[0].turn, template_turns()[0]);
    assert!(
        cassette.calls[0]
            .trajectory
            .iter()
            .any(|e| matches!(e, baton_testing::trace::TraceEvent::ToolResult { tool, .. } if tool == "search-kb")),
        "with its trajectory up to call 2"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary file is left: {leftovers:?}"
    );
}

/// Mode auto records when the file is missing and replays when it is there; mode record
/// replaces it.
#[test]
fn mode_auto_records_once_then_replays() {
    let dir = TempDir::new("auto");
    let path = dir.join("damaged-order.json");
    let auto = |turns: Vec<Turn>| {
        let mut turns = turns.into_iter();
        CassetteScript::new(&path)
            .mode(CassetteMode::Auto)
            .record_with(move |_| turns.next().expect("a turn left"))
    };
    let first = Session::open(template(), "support-agent", auto(template_turns()));
    assert!(first.agent.is_recording());
    first
        .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .unwrap();
    let recorded = std::fs::read_to_string(&path).unwrap();
    // The handler would answer otherwise: it is not asked, the file answers.
    let second = Session::open(
        template(),
        "support-agent",
        auto(vec![Turn::respond_text("not asked")]),
    );
    assert!(!second.agent.is_recording());
    second
        .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .unwrap();
    assert_eq!(second.agent.remaining_turns(), 0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), recorded);
}

/// Where the child of [`baton_record_records_a_replaying_test`] records.
const RECORD_DIR_ENV: &str = "BATON_TEST_RECORD_ENV_DIR";

#[test]
#[ignore = "a child process of baton_record_records_a_replaying_test"]
fn baton_record_records_a_replaying_test_child() {
    let Ok(dir) = std::env::var(RECORD_DIR_ENV) else {
        return;
    };
    let mut turns = template_turns().into_iter();
    let session = Session::open(
        template(),
        "support-agent",
        CassetteScript::new(Path::new(&dir).join("damaged-order.json"))
            .record_with(move |_| turns.next().expect("a turn left")),
    );
    session
        .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .unwrap();
}

/// `BATON_RECORD=1` makes a test that replays record its cassette.
#[test]
fn baton_record_records_a_replaying_test() {
    let dir = TempDir::new("record-env");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "agent::recording::baton_record_records_a_replaying_test_child",
            "--exact",
            "--ignored",
            "--quiet",
        ])
        .env(RECORD_DIR_ENV, &dir.0)
        .env(baton_testing::agent::recording::RECORD_ENV, "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let cassette =
        baton_testing::agent::recording::Recording::read(dir.join("damaged-order.json")).unwrap();
    assert_eq!(cassette.calls.len(), 3);
    // Without the variable, the same test replays what it recorded.
    replay(
        template(),
        &dir.join("damaged-order.json"),
        json!({"customerMessage": BROKEN}),
    )
    .unwrap();
}

/// Two runs recorded one after the other replay in the other order by request (their keys
/// and conversation ids differ, normalisation makes them equal); in order, the first call
/// already differs.
#[test]
fn by_request_matches_calls_in_any_order() {
    let dir = TempDir::new("by-request");
    let path = dir.join("two-runs.json");
    let mut turns = template_turns()
        .into_iter()
        .chain(template_turns())
        .collect::<Vec<_>>()
        .into_iter();
    let t = template();
    let agent = t.mock_ai_agent(
        "support-agent",
        CassetteScript::new(&path)
            .mode(CassetteMode::Record)
            .record_with(move |_| turns.next().expect("a turn left")),
    );
    t.start(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .assert_completed();
    t.start(
        TEMPLATE_PROCESS,
        json!({"customerMessage": "Order 1042 is broken."}),
    )
    .assert_completed();
    agent.assert_all_turns_used();

    let reversed = |matching: MatchMode| {
        let t = template();
        let agent = t.mock_ai_agent(
            "support-agent",
            CassetteScript::new(&path).matching(matching),
        );
        t.start(
            TEMPLATE_PROCESS,
            json!({"customerMessage": "Order 1042 is broken."}),
        );
        t.start(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}));
        let errors: Vec<String> = t.errors().into_iter().map(|e| e.message).collect();
        (errors, agent.check_all_turns_used())
    };
    let (errors, unused) = reversed(MatchMode::ByRequest);
    assert!(errors.is_empty(), "{errors:?}");
    unused.unwrap();
    let (errors, _) = reversed(MatchMode::InOrder);
    assert!(
        errors[0].contains("first difference at request.userPrompt"),
        "{errors:?}"
    );
    // Turns only: nothing is compared.
    let (errors, unused) = reversed(MatchMode::TurnsOnly);
    assert!(errors.is_empty(), "{errors:?}");
    unused.unwrap();
}

/// Drift mode replays on through a changed tool result and reports how the run left the
/// cassette.
#[test]
fn drift_mode_replays_on_and_reports() {
    let dir = TempDir::new("drift-mode");
    let path = dir.join("damaged-order.json");
    record_template(&template_xml(), &path);
    let t = template();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "shipped", "damaged": true}}));
    let agent = t.mock_ai_agent("support-agent", CassetteScript::new(&path).drift());
    t.start(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .assert_completed()
        .assert_passed(["send-answer"]);
    agent.assert_all_turns_used();
    let drifts: Vec<String> = agent
        .drifts()
        .iter()
        .map(|d| {
            d.to_string()
                .replace(&path.display().to_string(), "damaged-order.json")
        })
        .collect();
    insta::assert_snapshot!(format!(
        "{}\n---\n{}",
        drifts.join("\n---\n"),
        agent.drift_report().join("\n")
    ));
}

/// The `ignore` pointers of the JSON example in docs/testing-agents.md's "In JSON tests".
fn documented_ignore_pointers() -> Vec<String> {
    let guide = std::fs::read_to_string(repo_file("docs/testing-agents.md")).unwrap();
    let example = guide
        .split("```json")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .filter_map(|block| serde_json::from_str::<serde_json::Value>(block).ok())
        .find(|block| block["type"] == "MOCK_AI_AGENT" && block.get("ignore").is_some())
        .expect("the guide shows a MOCK_AI_AGENT with ignore");
    serde_json::from_value(example["ignore"].clone()).unwrap()
}

/// The guide's own `ignore` example: the pointer into a tool result leaves the value out
/// wherever the request carries it, in `toolCallResults` and where the conversation repeats
/// the result (`messages`), so a value that changes from run to run neither fails a replay nor
/// drifts.
#[test]
fn the_documented_ignore_pointer_reaches_the_conversation_too() {
    let pointers = documented_ignore_pointers();
    assert_eq!(pointers, ["/toolCallResults/*/content/updatedAt"]);
    let dir = TempDir::new("ignore-everywhere");
    let path = dir.join("damaged-order.json");
    let looked_up = |updated_at: &str| {
        let t = template();
        t.mock_job("order-lookup").complete_with(
            json!({"order": {"id": "1042", "status": "delivered", "updatedAt": updated_at}}),
        );
        t
    };
    let ignoring = |script: CassetteScript| pointers.iter().fold(script, |s, p| s.ignore(p));
    let start = json!({"customerMessage": BROKEN});
    Session::open(
        looked_up("3 minutes ago"),
        "support-agent",
        ignoring(recording(&path, template_turns())),
    )
    .run(TEMPLATE_PROCESS, start.clone())
    .unwrap();
    // Call 3's conversation repeats call 2's results: the value is left out there too.
    Session::open(
        looked_up("just now"),
        "support-agent",
        ignoring(CassetteScript::new(&path)),
    )
    .run(TEMPLATE_PROCESS, start.clone())
    .unwrap();
    let t = looked_up("a second ago");
    let agent = t.mock_ai_agent(
        "support-agent",
        ignoring(CassetteScript::new(&path).drift()),
    );
    t.start(TEMPLATE_PROCESS, start).assert_completed();
    assert!(agent.drifts().is_empty(), "{:?}", agent.drifts());
    assert_eq!(agent.drift_report(), Vec::<String>::new());
}

/// A live model (the recording handler in drift mode) that makes the recorded calls under fresh
/// call ids answered as recorded: call ids are no difference.
#[test]
fn drift_ignores_call_ids() {
    let dir = TempDir::new("drift-call-ids");
    let path = dir.join("damaged-order.json");
    record_template(&template_xml(), &path);
    let mut fresh = template_turns().into_iter().map(|turn| match turn {
        Turn::ToolCalls(mut calls) => {
            for (n, call) in calls.calls.iter_mut().enumerate() {
                call.id = Some(format!("toolu_live{n}"));
            }
            Turn::ToolCalls(calls)
        }
        other => other,
    });
    let t = template();
    let agent = t.mock_ai_agent(
        "support-agent",
        CassetteScript::new(&path)
            .drift()
            .record_with(move |_| fresh.next().expect("a turn left")),
    );
    t.start(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .assert_completed();
    assert!(agent.drifts().is_empty(), "{:?}", agent.drifts());
    assert_eq!(agent.drift_report(), Vec::<String>::new());
}

/// A cassette of format 1 given as a cassette script plays its turns, unchecked, as before.
#[test]
fn a_format_1_cassette_script_plays_its_turns() {
    let dir = TempDir::new("format-1");
    let path = dir.join("order.json");
    baton_testing::agent::Cassette::new("support-agent", template_turns())
        .write(&path)
        .unwrap();
    let t = template();
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "7", "status": "shipped"}}));
    let agent = t.mock_ai_agent("support-agent", CassetteScript::new(&path));
    t.start(TEMPLATE_PROCESS, json!({"customerMessage": "Anything"}))
        .assert_completed();
    assert_eq!(agent.remaining_turns(), 0);
    agent.assert_all_turns_used();
    assert!(agent.drift_report().is_empty());
}

/// A secret in what the model sees is written as `[REDACTED]`, with the test's own patterns
/// too, and the replay matches it so.
#[test]
fn secrets_are_redacted_when_writing_and_matching() {
    let dir = TempDir::new("redact");
    let path = dir.join("secret.json");
    let message = "My order 1042 arrived broken. My key is sk-ant-api03-abcdefghijklmnopqrstuvwx, card 4111111111111111. Write to jane.doe@example.com.";
    let emails = |text: &str| {
        regex::Regex::new(r"[\w.+-]+@[\w-]+\.[\w.]+")
            .unwrap()
            .replace_all(text, "<email>")
            .into_owned()
    };
    let mut turns = template_turns().into_iter();
    Session::open(
        template(),
        "support-agent",
        CassetteScript::new(&path)
            .mode(CassetteMode::Record)
            .redact(r"\b\d{16}\b")
            .redact_with(emails)
            .record_with(move |_| turns.next().expect("a turn left")),
    )
    .run(TEMPLATE_PROCESS, json!({"customerMessage": message}))
    .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-ant-api03"), "the key is not written");
    assert!(
        !text.contains("4111111111111111"),
        "the card is not written"
    );
    assert!(
        !text.contains("jane.doe"),
        "the e-mail address is not written"
    );
    assert!(
        text.contains("My key is [REDACTED], card [REDACTED]. Write to <email>"),
        "{text}"
    );
    Session::open(
        template(),
        "support-agent",
        CassetteScript::new(&path)
            .redact(r"\b\d{16}\b")
            .redact_with(emails),
    )
    .run(TEMPLATE_PROCESS, json!({"customerMessage": message}))
    .unwrap();
}

/// A recording is up to date whenever the run waits: the last call's trajectory is in the file
/// without the test asking the agent anything.
#[test]
fn a_recording_holds_the_last_calls_trajectory() {
    let dir = TempDir::new("last-trajectory");
    let path = dir.join("damaged-order.json");
    let t = template();
    let mut turns = template_turns().into_iter();
    t.mock_ai_agent(
        "support-agent",
        CassetteScript::new(&path)
            .mode(CassetteMode::Record)
            .record_with(move |_| turns.next().expect("a turn left")),
    );
    t.start(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
        .assert_completed();
    let cassette = baton_testing::agent::recording::Recording::read(&path).unwrap();
    let last = &cassette.calls.last().unwrap().trajectory;
    assert_eq!(
        last.last(),
        Some(&baton_testing::trace::TraceEvent::ElementCompleted {
            element: TEMPLATE_PROCESS.to_string()
        }),
        "{last:?}"
    );
}

/// The AI Agent Task (the connector on a service task, its tools in a separate ad-hoc
/// sub-process) records and replays like the Sub-process, and a changed tool result fails at
/// the call that carries it.
#[test]
fn an_ai_agent_task_records_and_replays() {
    let dir = TempDir::new("agent-task");
    let path = dir.join("task.json");
    let bpmn = repo_file("templates/ai-agent-task-tool-loop/ai-agent-task-tool-loop.bpmn");
    let test = |status: &str| {
        let t = ProcessTest::from_file(&bpmn).unwrap();
        t.mock_job("order-lookup")
            .complete_with(json!({"order": {"id": "1042", "status": status, "damaged": true}}));
        t.mock_job("kb-search")
            .complete_with(json!({"articles": ["Returns and damaged items"]}));
        t.mock_job("ticket-create")
            .complete_with(json!({"ticketId": "T-77"}));
        t.mock_job("email-send").complete();
        t
    };
    let process = "ai-agent-task-tool-loop";
    let broken = || json!({"customerMessage": BROKEN});
    Session::open(
        test("delivered"),
        "support-agent",
        recording(&path, template_turns()),
    )
    .run(process, broken())
    .unwrap();
    let cassette = baton_testing::agent::recording::Recording::read(&path).unwrap();
    assert_eq!(cassette.calls.len(), 3);
    Session::open(
        test("delivered"),
        "support-agent",
        CassetteScript::new(&path),
    )
    .run(process, broken())
    .unwrap();
    let changed = Session::open(test("shipped"), "support-agent", CassetteScript::new(&path))
        .run(process, broken())
        .unwrap_err();
    assert!(
        changed.contains("model call 2 of \"support-agent\" does not match")
            && changed.contains("first difference at request.toolCallResults[0].content.status")
            && changed
                .contains("the tool lookup-order (job type order-lookup) returned something else"),
        "{changed}"
    );
}

/// The template with `order` as what the order lookup returns.
fn template_with_order(order: serde_json::Value) -> ProcessTest {
    let t = ProcessTest::from_file(repo_file(
        "templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn",
    ))
    .unwrap();
    t.mock_job("order-lookup")
        .complete_with(json!({ "order": order }));
    t.mock_job("kb-search")
        .complete_with(json!({"articles": ["Returns and damaged items"]}));
    t.mock_job("ticket-create")
        .complete_with(json!({"ticketId": "T-77"}));
    t.mock_job("email-send").complete();
    t
}

/// Replaces `user-<digits>` in every string.
fn mask_users(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => {
            let masked = regex::Regex::new(r"user-\d+")
                .unwrap()
                .replace_all(text, "user-N")
                .into_owned();
            *text = masked;
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(mask_users),
        serde_json::Value::Object(object) => object.values_mut().for_each(mask_users),
        _ => {}
    }
}

/// What changes from run to run in a tool's result (a UUID, a timestamp, dates, a provider id,
/// a Zeebe key) does not fail the replay. Another changed value fails it, unless the test's own
/// rule says it does not matter: a closure, a JSON pointer to ignore, or a regex replacement.
#[test]
fn volatile_values_pass_and_a_tests_own_rules_keep_other_changes_from_failing() {
    let dir = TempDir::new("own-rules");
    let path = dir.join("order.json");
    let order = |n: u64| {
        json!({
            "id": "1042",
            "status": "delivered",
            "damaged": true,
            "trackingId": format!("5f0c8a4e-1b2d-4c3e-9f0{n}-0123456789ab"),
            "checkedAt": format!("2026-10-0{n}T08:1{n}:00Z"),
            "deliveredOn": format!("October {n}, 2026"),
            "shippedOn": format!("2026-09-2{n}"),
            "carrierRef": format!("chatcmpl-{n}x7Yq"),
            "instanceKey": 2251799813685249_u64 + n,
            "customer": format!("user-{n}{n}{n}"),
        })
    };
    Session::open(
        template_with_order(order(1)),
        "support-agent",
        recording(&path, template_turns()),
    )
    .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
    .unwrap();
    let replay_with = |script: CassetteScript| {
        Session::open(template_with_order(order(2)), "support-agent", script)
            .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
    };
    let changed = replay_with(CassetteScript::new(&path)).unwrap_err();
    assert!(
        changed.contains("model call 2 of \"support-agent\" does not match")
            && changed.contains("first difference at request.toolCallResults[0].content.customer")
            && changed.contains("recorded: \"user-111\"")
            && changed.contains("actual:   \"user-222\""),
        "only the customer fails the replay: {changed}"
    );
    replay_with(CassetteScript::new(&path).normalize(mask_users)).unwrap();
    replay_with(CassetteScript::new(&path).replace(r"user-\d+", "user-N")).unwrap();
    replay_with(
        CassetteScript::new(&path)
            .ignore("/toolCallResults/*/content/customer")
            .ignore("/messages/*/results/*/content/*/content/customer"),
    )
    .unwrap();
}

/// The template's agent as a parallel multi-instance ad-hoc sub-process: one agent per
/// customer message of the start variable `customerMessages`.
fn multi_instance_template() -> ProcessTest {
    let xml = template_xml().replacen(
        r#"      <bpmn:outgoing>flow-to-decision</bpmn:outgoing>
      <bpmn:serviceTask id="search-kb""#,
        r#"      <bpmn:outgoing>flow-to-decision</bpmn:outgoing>
      <bpmn:multiInstanceLoopCharacteristics>
        <bpmn:extensionElements>
          <zeebe:loopCharacteristics inputCollection="=customerMessages" inputElement="customerMessage" />
        </bpmn:extensionElements>
      </bpmn:multiInstanceLoopCharacteristics>
      <bpmn:serviceTask id="search-kb""#,
        1,
    );
    assert!(xml.contains("customerMessages"));
    template_from(&xml)
}

/// The turns of each conversation of the multi-instance agent: the worked example for the
/// broken order, a direct answer for the other message.
fn turn_for(request: &baton_testing::agent::AgentRequest) -> Turn {
    let answered = request
        .messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    let conversation = serde_json::Value::Array(request.messages.to_vec()).to_string();
    if conversation.contains(BROKEN) {
        template_turns().swap_remove(answered)
    } else {
        Turn::respond_json(json!({"answer": "Order 7 ships tomorrow.", "resolved": true}))
    }
}

/// A parallel multi-instance agent: its instances' calls interleave, so a run with the
/// messages in another order asks the same calls in another order. By request replays it;
/// in order fails at the first call.
#[test]
fn by_request_replays_a_parallel_multi_instance_agent() {
    let dir = TempDir::new("multi-instance");
    let path = dir.join("agents.json");
    let run = |messages: [&str; 2], script: CassetteScript| {
        let t = multi_instance_template();
        let agent = t.mock_ai_agent("support-agent", script);
        let instance = t.start(TEMPLATE_PROCESS, json!({"customerMessages": messages}));
        let errors: Vec<String> = t.errors().into_iter().map(|e| e.message).collect();
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        instance.assert_completed();
        agent
            .check_all_turns_used()
            .map_err(|e| e.to_string())
            .map(|()| agent.requests().len())
    };
    let messages = [BROKEN, "Where is order 7?"];
    let reversed = [messages[1], messages[0]];
    let calls = run(
        messages,
        CassetteScript::new(&path)
            .mode(CassetteMode::Record)
            .record_with(turn_for),
    )
    .unwrap();
    assert_eq!(
        calls, 4,
        "three calls for the broken order, one for order 7"
    );
    let by_request = || CassetteScript::new(&path).matching(MatchMode::ByRequest);
    assert_eq!(run(messages, by_request()), Ok(4));
    assert_eq!(run(reversed, by_request()), Ok(4));
    assert_eq!(run(messages, CassetteScript::new(&path)), Ok(4));
    let in_order = run(reversed, CassetteScript::new(&path)).unwrap_err();
    assert!(
        in_order.contains("model call 1 of \"support-agent\" does not match")
            && in_order.contains("first difference at request.userPrompt"),
        "{in_order}"
    );
}

/// A recording adapter that fails (the model is down): the run fails at that call with the
/// adapter's error, and the cassette holds the calls before it.
#[test]
fn a_failing_recording_handler_fails_the_run_and_keeps_the_calls_before() {
    let dir = TempDir::new("failing-handler");
    let path = dir.join("damaged-order.json");
    let mut turns = template_turns().into_iter();
    let failed = Session::open(
        template(),
        "support-agent",
        CassetteScript::new(&path)
            .mode(CassetteMode::Record)
            .try_record_with(move |request| match request.model_call {
                2 => Err("the model answered 503 Service Unavailable"),
                _ => Ok(turns.next().expect("a turn left")),
            }),
    )
    .run(TEMPLATE_PROCESS, json!({"customerMessage": BROKEN}))
    .unwrap_err();
    insta::assert_snapshot!(failed, @r#"AI agent mock "support-agent": the recording handler failed on model call 2 of "support-agent": the model answered 503 Service Unavailable"#);
    let recording = baton_testing::agent::recording::Recording::read(&path).unwrap();
    assert_eq!(recording.calls.len(), 1, "the call before the failure");
}
