//! DMN: parse a 100-rule decision table and evaluate it (FIRST and COLLECT SUM), directly and
//! through the engine (standalone evaluation with its record; a process whose business rule task
//! calls it). Throughput is in evaluations per second.
//!
//! `cargo bench -p baton-benches --bench dmn`

use std::fmt::Write;
use std::hint::black_box;

use baton_engine::deploy::Resource;
use baton_engine::dmn;
use baton_engine::runtime::{CreateInstance, Engine, EngineConfig, VariableDocument};
use baton_engine::source::Source;
use baton_feel::Env;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

const RULES: usize = 100;

/// A table of `RULES` rules over three inputs (a number range, a string list, a comparison with
/// a variable-free bound), as modelers write them; one more decision sums over COLLECT.
fn table_dmn() -> String {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="bench" name="Bench" namespace="http://baton.dev/bench">
"#,
    );
    for (id, policy) in [
        ("first", r#"hitPolicy="FIRST""#),
        ("collect", r#"hitPolicy="COLLECT" aggregation="SUM""#),
    ] {
        writeln!(
            xml,
            r#"  <decision id="{id}" name="{id}">
    <decisionTable id="{id}_table" {policy}>
      <input id="{id}_age" label="Age"><inputExpression id="{id}_age_e" typeRef="number"><text>applicant.age</text></inputExpression></input>
      <input id="{id}_country" label="Country"><inputExpression id="{id}_country_e" typeRef="string"><text>applicant.country</text></inputExpression></input>
      <input id="{id}_score" label="Score"><inputExpression id="{id}_score_e" typeRef="number"><text>score</text></inputExpression></input>
      <output id="{id}_rate" name="rate" typeRef="number"/>"#
        )
        .unwrap();
        for i in 0..RULES {
            writeln!(
                xml,
                r#"      <rule id="{id}_r{i}"><inputEntry id="{id}_r{i}a"><text>[{lo}..{hi})</text></inputEntry><inputEntry id="{id}_r{i}b"><text>"C{c1}","C{c2}"</text></inputEntry><inputEntry id="{id}_r{i}c"><text>&gt;= {i}</text></inputEntry><outputEntry id="{id}_r{i}d"><text>{i}</text></outputEntry></rule>"#,
                lo = 18 + (i % 50),
                hi = 28 + (i % 50),
                c1 = i % 10,
                c2 = (i + 3) % 10,
            )
            .unwrap();
        }
        xml.push_str("    </decisionTable>\n  </decision>\n");
    }
    xml.push_str("</definitions>\n");
    xml
}

fn variables() -> serde_json::Value {
    json!({"applicant": {"age": 61, "country": "C4", "name": "Ada"}, "score": 95})
}

fn doc(v: serde_json::Value) -> VariableDocument {
    match v {
        serde_json::Value::Object(m) => m.into_iter().collect(),
        _ => unreachable!(),
    }
}

fn bench_dmn(c: &mut Criterion) {
    let xml = table_dmn();
    let source = Source::new("bench.dmn", xml.clone());
    let drg = dmn::parse(&source).drg.expect("the bench table parses");
    let vars = variables();
    let vars = vars.as_object().unwrap();
    let env = Env::default();
    // The inputs match several rules: FIRST takes one, COLLECT sums all of them.
    let first = dmn::evaluate(&drg, "first", vars, &env);
    let collect = dmn::evaluate(&drg, "collect", vars, &env);
    eprintln!(
        "first -> {} ({} matched), collect sum -> {} ({} matched)",
        first.output_json(),
        first.evaluated_decisions[0].matched_rules.len(),
        collect.output_json(),
        collect.evaluated_decisions[0].matched_rules.len()
    );

    let mut group = c.benchmark_group("dmn");
    group.throughput(Throughput::Elements(1));
    group.bench_function("parse/100-rules-x2", |b| {
        b.iter(|| black_box(dmn::parse(black_box(&source))))
    });
    group.bench_function("evaluate/100-rules-first", |b| {
        b.iter(|| black_box(dmn::evaluate(&drg, "first", black_box(vars), &env)))
    });
    group.bench_function("evaluate/100-rules-collect-sum", |b| {
        b.iter(|| black_box(dmn::evaluate(&drg, "collect", black_box(vars), &env)))
    });

    // Through the engine, without keeping the log (the bench would grow it without end).
    let config = EngineConfig {
        keep_records: false,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(config);
    let process = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="rate" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:businessRuleTask id="decide"><bpmn:extensionElements><zeebe:calledDecision decisionId="first" resultVariable="rate"/></bpmn:extensionElements></bpmn:businessRuleTask>
    <bpmn:endEvent id="end"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="decide"/>
    <bpmn:sequenceFlow id="f2" sourceRef="decide" targetRef="end"/>
  </bpmn:process>
</bpmn:definitions>"#;
    engine
        .deploy(&[
            Resource::new("bench.dmn", xml.into_bytes()),
            Resource::new("rate.bpmn", process.as_bytes().to_vec()),
        ])
        .expect("the bench deploys");
    let document = doc(variables());
    group.bench_function("engine/evaluate-decision", |b| {
        b.iter(|| {
            black_box(
                engine
                    .evaluate_decision("first", document.clone())
                    .expect("evaluates"),
            )
        })
    });
    group.bench_function("engine/business-rule-task-instance", |b| {
        b.iter(|| {
            let pi = engine
                .create_instance(CreateInstance::new("rate").variables(document.clone()))
                .expect("runs");
            engine.forget_ended_instances();
            black_box(pi)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_dmn);
criterion_main!(benches);
