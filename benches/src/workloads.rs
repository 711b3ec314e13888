//! The workloads of the `agent` and `testing` benches, shared with the `profile` example (which
//! runs one of them in a loop under callgrind).

use baton_engine::runtime::{
    CreateInstance, Engine, JobKind, JsonRef, Key, SharedJson, VariableDocument,
};
use baton_testing::agent::on_engine::answer_agent_job;
use baton_testing::agent::recording::{
    CassetteMode, CassetteOptions, CassetteSession, MatchMode, TurnSource,
};

use baton_testing::agent::{
    AgentJob, AiAgentMock, JobAnswer, SharedVariables, ToolCache, ToolCall, Turn, fetch_variables,
};
use baton_testing::{Deployment, ProcessTest};
use indexmap::IndexMap;
use serde_json::{Value, json};

/// The agent's script: 3 model calls, 4 tool calls.
pub fn agent_script() -> Vec<Turn> {
    vec![
        Turn::tool_calls([
            ToolCall::new("lookup-order", json!({"orderId": "1042"})),
            ToolCall::new("search-kb", json!({"query": "damaged item return"})),
        ]),
        Turn::tool_calls([
            ToolCall::new(
                "create-ticket",
                json!({"summary": "Order 1042 arrived damaged"}),
            ),
            ToolCall::new("search-kb", json!({"query": "refund policy"})),
        ]),
        Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
    ]
}

fn tool_result(name: &str) -> Value {
    match name {
        "lookup-order" => json!({"id": "1042", "status": "delivered", "damaged": true}),
        "search-kb" => json!(["Returns and damaged items"]),
        _ => json!({"ticketId": "T-77"}),
    }
}

/// The connector alone: the ad-hoc sub-process's variables kept in a map (shared with each
/// job, as the engine shares them).
pub struct ConnectorWorkload {
    initial: SharedVariables,
    headers: IndexMap<String, String>,
    script: Vec<Turn>,
    /// Shared by the runs' mocks, as a deployment's tests share it.
    tools: ToolCache,
}

impl Default for ConnectorWorkload {
    fn default() -> Self {
        let elements = json!([
            {"elementId": "search-kb", "documentation": "Searches the knowledge base.",
             "parameters": [{"name": "toolCall.query", "description": "What to search for", "type": "string"}]},
            {"elementId": "create-ticket", "documentation": "Opens a ticket.",
             "parameters": [{"name": "toolCall.summary", "description": "A summary", "type": "string"},
                            {"name": "toolCall.priority", "type": "string", "options": {"required": false}}]},
            {"elementId": "lookup-order", "documentation": "Looks up an order.",
             "parameters": [{"name": "toolCall.orderId", "description": "The order number", "type": "string"}]}
        ]);
        let mut initial = SharedVariables::new();
        initial.insert("adHocSubProcessElements".into(), SharedJson::new(elements));
        initial.insert("toolCallResults".into(), SharedJson::new(json!([])));
        initial.insert(
            "provider".into(),
            SharedJson::new(json!({"type": "anthropic"})),
        );
        initial.insert(
            "data".into(),
            SharedJson::new(json!({"systemPrompt": {"prompt": "You are a support agent."}, "userPrompt": {"prompt": "My order 1042 arrived broken."},
                   "response": {"format": {"type": "json"}, "includeAgentContext": true}})),
        );
        let headers = [("retryBackoff".to_string(), "PT30S".to_string())]
            .into_iter()
            .collect();
        ConnectorWorkload {
            initial,
            headers,
            script: agent_script(),
            tools: ToolCache::new(),
        }
    }
}

impl ConnectorWorkload {
    /// One conversation: every agent job answered by the mock, tool results fed back in order.
    pub fn run(&self) -> AiAgentMock {
        let mut vars = self.initial.clone();
        let mut mock = AiAgentMock::new("support-agent", self.script.clone())
            .expect("valid script")
            .with_tool_cache(self.tools.clone());
        let mut running: Vec<(String, Value)> = Vec::new();
        let mut job_key = 0;
        loop {
            job_key += 1;
            let job = AgentJob {
                flavour: baton_testing::agent::Flavour::SubProcess,
                job_key,
                element_id: "support-agent",
                element_instance_key: 1,
                process_instance_key: 2,
                process_definition_key: 3,
                retries: 3,
                variables: fetch_variables(&vars),
                headers: &self.headers,
                now: None,
            };
            let JobAnswer::Complete(completion) = mock.answer_job(job).expect("the script fits")
            else {
                panic!("failed")
            };
            for (name, value) in completion.variables {
                vars.insert(name, value);
            }
            for activation in completion.activate_elements {
                // Read in place, as the engine reads it.
                let id = activation.variables["toolCall"]
                    .view()
                    .at(&["_meta", "id"])
                    .map_or(Value::Null, JsonRef::to_json);
                running.push((activation.element_id, id));
            }
            if completion.completion_condition_fulfilled {
                break;
            }
            let (name, id) = running.remove(0);
            let entry = json!({"id": id, "name": name, "content": tool_result(&name)});
            vars["toolCallResults"]
                .make_mut()
                .as_array_mut()
                .expect("a list")
                .push(entry);
        }
        mock
    }
}

/// The ai-agent-tool-loop template deployed on an engine.
pub struct TemplateWorkload {
    engine: Engine,
    script: Vec<Turn>,
    start: VariableDocument,
    /// Shared by the runs' mocks, as a deployment's tests share it.
    tools: ToolCache,
}

impl Default for TemplateWorkload {
    fn default() -> Self {
        let xml = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"
        ))
        .expect("the template");
        let mut engine = Engine::default();
        engine
            .deploy_xml("ai-agent-tool-loop.bpmn", &xml)
            .expect("deploys");
        let start = [(
            "customerMessage".to_string(),
            json!("My order 1042 arrived broken."),
        )]
        .into_iter()
        .collect();
        TemplateWorkload {
            engine,
            script: agent_script(),
            start,
            tools: ToolCache::new(),
        }
    }
}

impl TemplateWorkload {
    /// One instance to its end: every agent job answered by the mock, every tool job by a worker.
    pub fn run(&mut self) {
        let engine = &mut self.engine;
        let mut mock = AiAgentMock::new("support-agent", self.script.clone())
            .expect("valid script")
            .with_tool_cache(self.tools.clone());
        let instance = engine
            .create_instance(
                CreateInstance::new("ai-agent-tool-loop").variables(self.start.clone()),
            )
            .expect("starts");
        work_jobs(engine, |engine, key| {
            let Some(job) = engine.job(key) else { return };
            if job.kind == JobKind::AdHocSubProcess {
                answer_agent_job(engine, key, &mut mock).expect("the script fits");
                return;
            }
            let vars = tool_variables(&job.job_type);
            let _ = engine.complete_job(key, vars);
        });
        assert!(
            mock.remaining_turns() == 0,
            "instance {instance} used the script"
        );
        engine.clear_records();
        engine.clear_job_feed();
        engine.forget_ended_instances();
    }
}

/// What the template's tool workers answer.
fn tool_variables(job_type: &str) -> VariableDocument {
    match job_type {
        "order-lookup" => [("order".to_string(), tool_result("lookup-order"))]
            .into_iter()
            .collect(),
        "kb-search" => [("articles".to_string(), tool_result("search-kb"))]
            .into_iter()
            .collect(),
        "ticket-create" => [("ticketId".to_string(), json!("T-77"))]
            .into_iter()
            .collect(),
        _ => VariableDocument::new(),
    }
}

/// Hands every job that becomes activatable to `work`, in creation order, until none is left.
pub fn work_jobs(engine: &mut Engine, mut work: impl FnMut(&mut Engine, Key)) {
    let mut cursor = 0;
    loop {
        let (jobs, next) = engine.activatable_jobs_since(cursor);
        cursor = next;
        if jobs.is_empty() {
            return;
        }
        for key in jobs {
            work(engine, key);
        }
    }
}

/// A chain of `n` service tasks with job types `step-1` .. `step-n`.
pub fn chain_xml(n: usize) -> String {
    let mut body = String::from(r#"<bpmn:startEvent id="start" />"#);
    for i in 1..=n {
        body.push_str(&format!(
            r#"<bpmn:serviceTask id="task-{i}"><bpmn:extensionElements><zeebe:taskDefinition type="step-{i}" /></bpmn:extensionElements></bpmn:serviceTask>"#
        ));
    }
    body.push_str(r#"<bpmn:endEvent id="end" />"#);
    let ids: Vec<String> = std::iter::once("start".to_owned())
        .chain((1..=n).map(|i| format!("task-{i}")))
        .chain(std::iter::once("end".to_owned()))
        .collect();
    for (i, w) in ids.windows(2).enumerate() {
        body.push_str(&format!(
            r#"<bpmn:sequenceFlow id="flow-{i}" sourceRef="{}" targetRef="{}" />"#,
            w[0], w[1]
        ));
    }
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t"><bpmn:process id="steps" isExecutable="true">{body}</bpmn:process></bpmn:definitions>"#
    )
}

/// The chain of 10 deployed once.
pub fn chain_deployment() -> Deployment {
    Deployment::from_xml("steps.bpmn", &chain_xml(10)).expect("deploys")
}

/// One process test as a user writes it: 10 job mocks, start, 3 assertions, coverage.
pub fn one_process_test(test: ProcessTest) {
    for i in 1..=10 {
        test.mock_job(format!("step-{i}"))
            .complete_with(json!({ format!("done{i}"): true }));
    }
    let run = test.start("steps", json!({"orderId": "o-1", "amount": 42}));
    run.assert_completed()
        .assert_passed_in_order(["task-1", "task-5", "task-10", "end"])
        .assert_variables(json!({"orderId": "o-1", "done10": true}));
    let coverage = test.coverage();
    assert_eq!(coverage.elements.covered, 12);
}

/// The ai-agent-tool-loop template replayed from a cassette (format 2, recorded once with the
/// agent's script) through a cassette session: with request matching, or by turns only.
pub struct CassetteWorkload {
    engine: Engine,
    cassette: std::path::PathBuf,
    matching: MatchMode,
    start: VariableDocument,
    tools: ToolCache,
}

impl CassetteWorkload {
    /// Records the cassette into the temporary folder, then replays it with `matching`.
    pub fn new(matching: MatchMode) -> CassetteWorkload {
        let template = TemplateWorkload::default();
        let cassette = std::env::temp_dir().join(format!(
            "baton-bench-{}-{}.json",
            matching.as_str(),
            std::process::id()
        ));
        let mut workload = CassetteWorkload {
            engine: template.engine,
            cassette,
            matching,
            start: template.start,
            tools: template.tools,
        };
        let mut turns = agent_script().into_iter();
        let record = CassetteOptions {
            mode: CassetteMode::Record,
            ..CassetteOptions::default()
        };
        workload.run_with(
            record,
            Some(Box::new(move |_, _| {
                turns.next().ok_or("no turn left".to_string())
            })),
        );
        workload
    }

    /// One instance to its end, every model call answered from the cassette.
    pub fn run(&mut self) {
        let options = CassetteOptions {
            matching: self.matching,
            ..CassetteOptions::default()
        };
        self.run_with(options, None);
    }

    fn run_with(&mut self, options: CassetteOptions, turns: Option<TurnSource>) {
        let engine = &mut self.engine;
        let session =
            CassetteSession::open(engine, "support-agent", &self.cassette, options, turns)
                .expect("the cassette opens");
        let session = std::rc::Rc::new(std::cell::RefCell::new(session));
        let mut mock = AiAgentMock::with_session("support-agent", session.clone())
            .with_tool_cache(self.tools.clone());
        let instance = engine
            .create_instance(
                CreateInstance::new("ai-agent-tool-loop").variables(self.start.clone()),
            )
            .expect("starts");
        work_jobs(engine, |engine, key| {
            let Some(job) = engine.job(key) else { return };
            if job.kind == JobKind::AdHocSubProcess {
                session.borrow_mut().sync(engine).expect("syncs");
                answer_agent_job(engine, key, &mut mock).expect("the cassette fits");
                return;
            }
            let _ = engine.complete_job(key, tool_variables(&job.job_type));
        });
        session
            .borrow_mut()
            .finish(engine)
            .unwrap_or_else(|failure| panic!("instance {instance}: {failure}"));
        engine.clear_records();
        engine.clear_job_feed();
        engine.forget_ended_instances();
    }
}

impl Drop for CassetteWorkload {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.cassette);
    }
}

/// The ai-agent-tool-loop template in a process test with its tools mocked, for exploration.
pub fn template_test() -> ProcessTest {
    let xml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"
    ))
    .expect("the template");
    let test = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", &xml).expect("deploys");
    test.mock_job("order-lookup")
        .complete_with(json!({"order": tool_result("lookup-order")}));
    test.mock_job("kb-search")
        .complete_with(json!({"articles": tool_result("search-kb")}));
    test.mock_job("email-send").complete();
    test.mock_job("support-alert").complete();
    test
}

/// The template's space of the exploration issue with up to `calls` model calls: up to 2 tools
/// per turn in every order, both answers of the response schema, success and a BPMN error for
/// the ticket tool (its optional priority left out or "high").
pub fn template_space(calls: u32) -> baton_testing::explore::Space {
    use baton_testing::Answer;
    use baton_testing::explore::{AgentSpace, Space};
    Space::start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    )
    .agent(
        AgentSpace::new("support-agent")
            .max_tools_per_turn(2)
            .values("create-ticket", "priority", [json!("high")]),
    )
    .outcomes(
        "ticket-create",
        [
            Answer::complete(json!({"ticketId": "T-1"})),
            Answer::throw_error("TICKET_FAILED", "the ticket system is down"),
        ],
    )
    .max_model_calls(calls)
}

/// The template's engine waiting for its second model call: the first asked for one order
/// look-up, which was answered.
pub fn engine_at_second_model_call() -> Engine {
    let TemplateWorkload {
        mut engine, start, ..
    } = TemplateWorkload::default();
    let mut mock = AiAgentMock::new(
        "support-agent",
        vec![Turn::tool_calls([ToolCall::new(
            "lookup-order",
            json!({"orderId": "1042"}),
        )])],
    )
    .expect("valid script");
    engine
        .create_instance(CreateInstance::new("ai-agent-tool-loop").variables(start))
        .expect("starts");
    let mut agent_jobs = 0;
    let mut cursor = 0;
    'work: loop {
        let (jobs, next) = engine.activatable_jobs_since(cursor);
        cursor = next;
        if jobs.is_empty() {
            break;
        }
        for key in jobs {
            let Some(job) = engine.job(key) else { continue };
            if job.kind == JobKind::AdHocSubProcess {
                agent_jobs += 1;
                if agent_jobs == 2 {
                    break 'work;
                }
                answer_agent_job(&mut engine, key, &mut mock).expect("the script fits");
            } else {
                let vars = tool_variables(&job.job_type);
                let _ = engine.complete_job(key, vars);
            }
        }
    }
    engine
}
