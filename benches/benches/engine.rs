//! Engine throughput: one chain of 10 service tasks, start to end, jobs completed in order; and an
//! exclusive gateway whose condition reads fields of an object variable (the engine↔FEEL seam).

use baton_benches::workloads::{chain_xml, work_jobs};
use baton_engine::runtime::{CreateInstance, Engine, VariableDocument};
use criterion::{Criterion, criterion_group, criterion_main};

fn chain10(c: &mut Criterion) {
    let mut deployed = Engine::default();
    deployed
        .deploy_xml("chain10.bpmn", &chain_xml(10))
        .expect("deploys");
    c.bench_function("chain10 instance", |b| {
        let mut engine = deployed.clone();
        b.iter(|| {
            engine
                .create_instance(CreateInstance::new("steps"))
                .expect("creates");
            work_jobs(&mut engine, |engine, job| {
                engine
                    .complete_job(job, VariableDocument::new())
                    .expect("completes");
            });
            engine.clear_records();
            engine.clear_job_feed();
            engine.forget_ended_instances();
        });
    });
}

const CONDITION_XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?><bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t"><bpmn:process id="route" isExecutable="true"><bpmn:startEvent id="s" /><bpmn:exclusiveGateway id="x" default="f_b" /><bpmn:endEvent id="a" /><bpmn:endEvent id="b" /><bpmn:sequenceFlow id="f0" sourceRef="s" targetRef="x" /><bpmn:sequenceFlow id="f_a" sourceRef="x" targetRef="a"><bpmn:conditionExpression>=order.total &gt;= 100 and order.country = "DE"</bpmn:conditionExpression></bpmn:sequenceFlow><bpmn:sequenceFlow id="f_b" sourceRef="x" targetRef="b" /></bpmn:process></bpmn:definitions>"#;

fn object_condition(c: &mut Criterion) {
    let mut deployed = Engine::default();
    deployed
        .deploy_xml("route.bpmn", CONDITION_XML)
        .expect("deploys");
    let order = serde_json::json!({
        "id": "A-1001", "total": 250.5, "country": "DE", "created": "2024-03-01T10:00:00Z",
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "items": [
            {"sku": "X-1", "price": 5, "quantity": 2},
            {"sku": "X-2", "price": 20.5, "quantity": 1},
            {"sku": "X-3", "price": 12, "quantity": 4}
        ]
    });
    let mut variables = VariableDocument::new();
    variables.insert("order".into(), order);
    let mut probe = deployed.clone();
    probe
        .create_instance(CreateInstance::new("route").variables(variables.clone()))
        .expect("creates");
    assert!(
        probe
            .records()
            .iter()
            .any(|r| probe.record_element_id(r).as_deref() == Some("a")),
        "the condition holds and the instance ends at 'a'"
    );
    c.bench_function("object condition instance", |b| {
        let mut engine = deployed.clone();
        b.iter(|| {
            engine
                .create_instance(CreateInstance::new("route").variables(variables.clone()))
                .expect("creates");
            engine.clear_records();
            engine.forget_ended_instances();
        });
    });
}

criterion_group!(benches, chain10, object_condition);
criterion_main!(benches);
