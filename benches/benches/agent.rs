//! The AI agent mock: a conversation of 3 model calls and 4 tool calls.
//!
//! - `agent connector 3 calls 4 tools`: the connector state machine alone, against the AHSP's
//!   variables kept in a map (what the mock itself costs).
//! - `agent template 3 calls 4 tools`: the ai-agent-tool-loop template on the engine, after
//!   deploy: start, every agent job answered by the mock, every tool job by a worker, to the end.

use baton_engine::runtime::{CreateInstance, Engine, JobKind, VariableDocument};
use baton_testing::agent::on_engine::answer_agent_job;
use baton_testing::agent::{AgentJob, AiAgentMock, JobAnswer, ToolCall, Turn, Variables};
use criterion::{Criterion, criterion_group, criterion_main};
use indexmap::IndexMap;
use serde_json::{Value, json};

fn script() -> Vec<Turn> {
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

fn ahsp_variables() -> Variables {
    let elements = json!([
        {"elementId": "search-kb", "documentation": "Searches the knowledge base.",
         "parameters": [{"name": "toolCall.query", "description": "What to search for", "type": "string"}]},
        {"elementId": "create-ticket", "documentation": "Opens a ticket.",
         "parameters": [{"name": "toolCall.summary", "description": "A summary", "type": "string"},
                        {"name": "toolCall.priority", "type": "string", "options": {"required": false}}]},
        {"elementId": "lookup-order", "documentation": "Looks up an order.",
         "parameters": [{"name": "toolCall.orderId", "description": "The order number", "type": "string"}]}
    ]);
    let mut vars = Variables::new();
    vars.insert("adHocSubProcessElements".into(), elements);
    vars.insert("toolCallResults".into(), json!([]));
    vars.insert("provider".into(), json!({"type": "anthropic"}));
    vars.insert(
        "data".into(),
        json!({"systemPrompt": {"prompt": "You are a support agent."}, "userPrompt": {"prompt": "My order 1042 arrived broken."},
               "response": {"format": {"type": "json"}, "includeAgentContext": true}}),
    );
    vars
}

fn connector_only(c: &mut Criterion) {
    let initial = ahsp_variables();
    let headers: IndexMap<String, String> = [("retryBackoff".to_string(), "PT30S".to_string())]
        .into_iter()
        .collect();
    let script = script();
    c.bench_function("agent connector 3 calls 4 tools", |b| {
        b.iter(|| {
            let mut vars = initial.clone();
            let mut mock = AiAgentMock::new("support-agent", script.clone()).expect("valid script");
            let mut running: Vec<(String, Value)> = Vec::new();
            let mut job_key = 0;
            loop {
                job_key += 1;
                let job = AgentJob {
                    job_key,
                    element_id: "support-agent",
                    element_instance_key: 1,
                    process_instance_key: 2,
                    process_definition_key: 3,
                    retries: 3,
                    variables: vars.clone(),
                    headers: &headers,
                    now: None,
                };
                let JobAnswer::Complete(completion) =
                    mock.answer_job(job).expect("the script fits")
                else {
                    panic!("failed")
                };
                for (name, value) in completion.variables {
                    vars.insert(name, value);
                }
                for activation in completion.activate_elements {
                    running.push((
                        activation.element_id,
                        activation.variables["toolCall"]["_meta"]["id"].clone(),
                    ));
                }
                if completion.completion_condition_fulfilled {
                    break;
                }
                let (name, id) = running.remove(0);
                let entry = json!({"id": id, "name": name, "content": tool_result(&name)});
                vars["toolCallResults"]
                    .as_array_mut()
                    .expect("a list")
                    .push(entry);
            }
            mock
        });
    });
}

fn template_on_engine(c: &mut Criterion) {
    let xml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn"
    ))
    .expect("the template");
    let mut deployed = Engine::default();
    deployed
        .deploy_xml("ai-agent-tool-loop.bpmn", &xml)
        .expect("deploys");
    let script = script();
    let start: VariableDocument = [(
        "customerMessage".to_string(),
        json!("My order 1042 arrived broken."),
    )]
    .into_iter()
    .collect();
    c.bench_function("agent template 3 calls 4 tools", |b| {
        let mut engine = deployed.clone();
        b.iter(|| {
            let mut mock = AiAgentMock::new("support-agent", script.clone()).expect("valid script");
            let instance = engine
                .create_instance(CreateInstance::new("ai-agent-tool-loop").variables(start.clone()))
                .expect("starts");
            let mut cursor = 0;
            loop {
                let (jobs, next) = engine.activatable_jobs_since(cursor);
                cursor = next;
                if jobs.is_empty() {
                    break;
                }
                for key in jobs {
                    let Some(job) = engine.job(key) else { continue };
                    if job.kind == JobKind::AdHocSubProcess {
                        answer_agent_job(&mut engine, key, &mut mock).expect("the script fits");
                        continue;
                    }
                    let vars: VariableDocument = match &*job.job_type {
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
                    };
                    let _ = engine.complete_job(key, vars);
                }
            }
            assert!(
                mock.remaining_turns() == 0,
                "instance {instance} used the script"
            );
            engine.clear_records();
            engine.clear_job_feed();
            engine.forget_ended_instances();
        });
    });
}

criterion_group!(benches, connector_only, template_on_engine);
criterion_main!(benches);
