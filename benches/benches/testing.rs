//! The test library's cost per test: a 10-step process test (deploy once; per test: a fresh
//! test, 10 job mocks, start, 3 assertions, coverage) and a 100-test suite (with the deployment
//! shared, and with every test deploying its own copy).

use baton_testing::{Deployment, ProcessTest};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

/// A chain of 10 service tasks with job types `step-1` .. `step-10`.
fn chain_xml(n: usize) -> String {
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

/// One process test as a user writes it.
fn one_test(test: ProcessTest) {
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

fn process_test(c: &mut Criterion) {
    let xml = chain_xml(10);
    let deployment = Deployment::from_xml("steps.bpmn", &xml).expect("deploys");
    c.bench_function(
        "process test: 10 mocked jobs, 3 assertions, coverage",
        |b| {
            b.iter(|| one_test(deployment.test()));
        },
    );
    let mut group = c.benchmark_group("suite of 100 tests");
    group.sample_size(20);
    group.bench_function("deployment shared", |b| {
        b.iter(|| {
            for _ in 0..100 {
                one_test(deployment.test());
            }
        });
    });
    group.bench_function("each test deploys", |b| {
        b.iter(|| {
            for _ in 0..100 {
                one_test(ProcessTest::from_xml("steps.bpmn", &xml).expect("deploys"));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, process_test);
criterion_main!(benches);
