//! Record, replay and drift: the run trace, cassettes of format 2, imports from real runs.

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

/// A session driven through a handler (until the mock takes sessions itself): the handler
/// reads the engine through a weak handle of the test.
fn with_session(
    t: &std::rc::Rc<ProcessTest>,
    session: std::rc::Rc<std::cell::RefCell<CassetteSession>>,
) -> baton_testing::agent::AiAgentHandle {
    let weak = std::rc::Rc::downgrade(t);
    let agent = session.borrow().agent().to_string();
    t.mock_ai_agent(
        &agent,
        baton_testing::agent::AgentScript::handler(move |request| {
            let t = weak.upgrade().expect("the test is alive");
            t.with_engine(|e| session.borrow_mut().answer(e, request))
                .unwrap_or_else(|failure| panic!("{failure}"))
        }),
    )
}

fn scripted(turns: Vec<Turn>) -> TurnSource {
    let mut turns = turns.into_iter();
    Box::new(move |_, _| turns.next().ok_or_else(|| "no turn left".to_string()))
}

#[test]
fn a_recording_replays_and_records_again_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("baton-record-{}", std::process::id()));
    let path = dir.join("damaged-order.json");
    let record = |path: &std::path::Path| {
        let t = std::rc::Rc::new(template());
        let session = t.with_engine(|e| {
            CassetteSession::open(
                e,
                "support-agent",
                path,
                CassetteOptions {
                    mode: CassetteMode::Record,
                    ..CassetteOptions::default()
                },
                Some(scripted(template_turns())),
                None,
            )
        });
        let session = std::rc::Rc::new(std::cell::RefCell::new(session.unwrap()));
        with_session(&t, session.clone());
        t.start(
            "ai-agent-tool-loop",
            json!({"customerMessage": "My order 1042 arrived broken."}),
        )
        .assert_completed();
        t.with_engine(|e| session.borrow_mut().finish(e)).unwrap();
        std::fs::read_to_string(path).unwrap()
    };
    let first = record(&path);
    let second = record(&dir.join("again.json"));
    assert_eq!(first, second, "the same handler records the same bytes");
    insta::assert_snapshot!(first);

    // Replay.
    let t = std::rc::Rc::new(template());
    let session = t.with_engine(|e| {
        CassetteSession::open(
            e,
            "support-agent",
            &path,
            CassetteOptions::default(),
            None,
            None,
        )
    });
    let session = std::rc::Rc::new(std::cell::RefCell::new(session.unwrap()));
    with_session(&t, session.clone());
    t.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    )
    .assert_completed();
    t.with_engine(|e| session.borrow_mut().finish(e)).unwrap();

    // A tool that returns something else fails at the call that sees it.
    let t = std::rc::Rc::new(template());
    t.mock_job("order-lookup")
        .complete_with(json!({"order": {"id": "1042", "status": "shipped", "damaged": true}}));
    let session = t.with_engine(|e| {
        CassetteSession::open(
            e,
            "support-agent",
            &path,
            CassetteOptions::default(),
            None,
            None,
        )
    });
    let session = std::rc::Rc::new(std::cell::RefCell::new(session.unwrap()));
    with_session(&t, session.clone());
    let message = crate::support::panic_message(|| {
        t.start(
            "ai-agent-tool-loop",
            json!({"customerMessage": "My order 1042 arrived broken."}),
        );
    });
    insta::assert_snapshot!(message.replace(&path.display().to_string(), "damaged-order.json"));
    std::fs::remove_dir_all(&dir).unwrap();
}
