//! The mock on the real engine: the template and the corpus agents, with scripted turns.

use std::path::PathBuf;

use baton_engine::runtime::{CreateInstance, Engine, EngineConfig, Key, VariableDocument};
use baton_testing::agent::on_engine::{
    AGENT_JOB_TYPE, AgentJobOutcome, answer_agent_job, tool_order,
};
use baton_testing::agent::{AiAgentMock, ToolCall, Turn, call, contains, tool};
use serde_json::{Value, json};

type Worker = Box<dyn Fn(&VariableDocument) -> VariableDocument>;

/// Drives an engine: answers agent jobs with the mock and other jobs with workers, until nothing moves.
pub struct Driver {
    pub engine: Engine,
    pub workers: Vec<(String, Worker)>,
    pub outcomes: Vec<AgentJobOutcome>,
}

impl Driver {
    pub fn new(files: &[(&str, String)]) -> Driver {
        let mut engine = Engine::new(EngineConfig::default());
        for (name, xml) in files {
            engine
                .deploy_xml(name, xml)
                .unwrap_or_else(|r| panic!("{name} deploys: {}", r.message));
        }
        Driver {
            engine,
            workers: Vec::new(),
            outcomes: Vec::new(),
        }
    }

    pub fn worker(
        &mut self,
        job_type: &str,
        worker: impl Fn(&VariableDocument) -> VariableDocument + 'static,
    ) {
        self.workers.push((job_type.to_string(), Box::new(worker)));
    }

    pub fn start(&mut self, process_id: &str, variables: Value) -> Key {
        let variables: VariableDocument =
            variables.as_object().unwrap().clone().into_iter().collect();
        self.engine
            .create_instance(CreateInstance::new(process_id).variables(variables))
            .unwrap_or_else(|r| panic!("{}", r.message))
    }

    pub fn run(
        &mut self,
        mock: &mut AiAgentMock,
    ) -> Result<(), baton_testing::agent::AgentMockFailure> {
        for _ in 0..1000 {
            let mut moved = false;
            for key in self
                .engine
                .activate_jobs(AGENT_JOB_TYPE, "baton", 300_000, 100)
            {
                self.outcomes
                    .push(answer_agent_job(&mut self.engine, key, mock)?);
                moved = true;
            }
            for (job_type, worker) in &self.workers {
                for key in self.engine.activate_jobs(job_type, "baton", 300_000, 100) {
                    let variables = self.engine.job_variables(key).unwrap_or_default();
                    self.engine
                        .complete_job(key, worker(&variables))
                        .unwrap_or_else(|r| panic!("{}", r.message));
                    moved = true;
                }
            }
            if !moved {
                return Ok(());
            }
        }
        panic!("the process did not settle")
    }

    pub fn incidents(&self) -> Vec<String> {
        self.engine
            .incidents()
            .iter()
            .map(|i| {
                format!(
                    "{} at {}: {}",
                    i.error_type.as_str(),
                    i.element_id,
                    i.error_message
                )
            })
            .collect()
    }

    /// Element ids completed, in order (from the event log).
    pub fn completed(&self) -> Vec<String> {
        use baton_engine::runtime::{Intent, ProcessInstanceIntent, ValueType};
        self.engine
            .records()
            .iter()
            .filter(|r| {
                r.value_type == ValueType::ProcessInstance
                    && r.intent == Intent::ProcessInstance(ProcessInstanceIntent::ElementCompleted)
            })
            .filter_map(|r| self.engine.record_element_id(r))
            .collect()
    }
}

pub fn doc(value: Value) -> VariableDocument {
    value.as_object().unwrap().clone().into_iter().collect()
}

pub fn repo_file(path: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

fn template_driver() -> Driver {
    let mut driver = Driver::new(&[(
        "ai-agent-tool-loop.bpmn",
        repo_file("templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"),
    )]);
    driver.worker("order-lookup", |job| {
        doc(json!({"order": {"id": job.get("orderId"), "status": "delivered", "damaged": true}}))
    });
    driver.worker("kb-search", |_| {
        doc(json!({"articles": ["Returns and damaged items"]}))
    });
    driver.worker("ticket-create", |_| doc(json!({"ticketId": "T-77"})));
    driver.worker("email-send", |_| doc(json!({})));
    driver
}

#[test]
fn the_seeds_worked_example_on_the_engine() {
    let mut driver = template_driver();
    let mut agent = AiAgentMock::new(
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
    )
    .unwrap()
    .with_tool_order(tool_order(
        &driver.engine,
        "ai-agent-tool-loop",
        "support-agent",
    ));
    let instance = driver.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    driver.run(&mut agent).unwrap();

    assert_eq!(driver.incidents(), Vec::<String>::new());
    let state = driver.engine.process_instance(instance).map(|p| p.state);
    assert_eq!(
        state,
        Some(baton_engine::runtime::State::Completed),
        "completed: {:?}",
        driver.completed()
    );
    let completed = driver.completed();
    let order: Vec<&str> = completed
        .iter()
        .map(String::as_str)
        .filter(|id| ["support-agent", "send-answer", "answered"].contains(id))
        .collect();
    assert_eq!(order, ["support-agent", "send-answer", "answered"]);
    agent.assert_called_tools([
        call("lookup-order", json!({"orderId": "1042"})),
        call(
            "search-kb",
            baton_testing::args! {"query": contains("damaged")},
        ),
        tool("create-ticket"),
    ]);
    assert_eq!(
        agent.requests()[1].tool_call_results,
        json!([
            {"id": "call_1_1", "name": "lookup-order", "content": {"id": "1042", "status": "delivered", "damaged": true}},
            {"id": "call_1_2", "name": "search-kb", "content": ["Returns and damaged items"]},
        ])
    );
    agent.assert_all_turns_used();
}

/// The values the connector builds share their parts with the job's variables and with each
/// other, on the engine as in the connector: every `agentContext` shares the tool definitions
/// and the earlier messages of the one before, `agent.context` is the last context itself, and
/// `toolCallResults` shares the earlier results; yet each reads as the plain JSON it stands for.
#[test]
fn the_agent_variables_share_their_parts_on_the_engine() {
    use baton_engine::runtime::{JsonRef, RecordValue, SharedJson};
    let mut driver = template_driver();
    let mut agent = AiAgentMock::new(
        "support-agent",
        [
            Turn::tool_calls([
                ToolCall::new("lookup-order", json!({"orderId": "1042"})),
                ToolCall::new("search-kb", json!({"query": "damaged item return"})),
            ]),
            Turn::respond_json(json!({"answer": "Ticket T-77 is open.", "resolved": true})),
        ],
    )
    .unwrap();
    driver.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "My order 1042 arrived broken."}),
    );
    driver.run(&mut agent).unwrap();
    let values = |name: &str| -> Vec<SharedJson> {
        driver
            .engine
            .records()
            .iter()
            .filter_map(|r| match &r.value {
                RecordValue::Variable(v) if &*v.name == name => Some(v.value.clone()),
                _ => None,
            })
            .collect()
    };
    let part = |value: &SharedJson, keys: &[&str]| -> SharedJson {
        value.view().at(keys).map(JsonRef::to_shared).unwrap()
    };
    let contexts: Vec<SharedJson> = values("agentContext")
        .into_iter()
        .filter(|c| c.is_composed())
        .collect();
    assert_eq!(contexts.len(), 2, "one context per model call");
    let (first, last) = (&contexts[0], &contexts[1]);
    assert!(part(first, &["toolDefinitions"]).ptr_eq(&part(last, &["toolDefinitions"])));
    let first_messages = part(first, &["conversation", "messages"]);
    let last_messages = part(last, &["conversation", "messages"]);
    let first_items: Vec<JsonRef<'_>> = first_messages.view().items().unwrap().collect();
    let last_items: Vec<JsonRef<'_>> = last_messages.view().items().unwrap().collect();
    assert_eq!(first_items.len() + 2, last_items.len());
    for (earlier, later) in first_items.iter().zip(&last_items) {
        assert!(earlier.to_shared().ptr_eq(&later.to_shared()));
    }
    // The process's `agent` (the sub-process's, shared by the `=agent` output mapping).
    let agents: Vec<SharedJson> = values("agent")
        .into_iter()
        .filter(SharedJson::is_composed)
        .collect();
    assert_eq!(agents.len(), 2, "the sub-process's and the process's");
    assert!(agents[0].ptr_eq(&agents[1]));
    let result = agents.last().unwrap().clone();
    assert!(part(&result, &["context"]).ptr_eq(last));
    assert_eq!(*part(&result, &["context"]), last.to_json());
    assert_eq!(result["responseJson"]["resolved"], json!(true));
    let results = values("toolCallResults");
    let appended = results.last().unwrap();
    assert_eq!(appended.view().items().map(|i| i.len()), Some(2));
    let before = &results[results.len() - 2];
    let first_result =
        |value: &SharedJson| value.view().items().unwrap().next().unwrap().to_shared();
    assert!(first_result(before).ptr_eq(&first_result(appended)));
}
