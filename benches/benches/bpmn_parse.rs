//! Parsing and deploy-checking BPMN: the largest real modeler file of ../shared/corpus (budget:
//! a deploy under 3 ms), the generated workloads, and hostile inputs (each must be refused in
//! well under a second). A deployment is measured end to end: through the engine (checks +
//! compiling the executable processes) and through baton-testing's `Deployment::from_file`
//! (what a user's test pays).

use std::hint::black_box;

use baton_benches::{generate_workloads, quick_xml_floor, shared_dir};
use baton_engine::deploy::{Resource, check};
use baton_engine::model;
use baton_engine::runtime::{Engine, EngineConfig};
use baton_engine::source::Source;
use baton_testing::Deployment;
use criterion::{Criterion, criterion_group, criterion_main};

/// The largest Camunda Modeler file of the corpus (231 KB, a bank's complaint handling).
const LARGEST_CORPUS_FILE: &str =
    "corpus/cpt/cases/tut-bank-complaint-dispute/Bank_customer_complaint_dispute_handling.bpmn";

fn corpus(c: &mut Criterion) {
    let Some(path) = shared_dir().map(|shared| shared.join(LARGEST_CORPUS_FILE)) else {
        eprintln!("bpmn_parse: corpus benchmarks skipped: ../shared is absent");
        return;
    };
    let content = std::fs::read(&path).expect("the corpus file reads");
    let resources = [Resource::new(path.display().to_string(), content.clone())];
    c.bench_function("Engine::deploy largest corpus file", |b| {
        b.iter(|| {
            let mut engine = Engine::new(EngineConfig::default());
            engine.deploy(black_box(&resources)).unwrap();
            engine
        })
    });
    c.bench_function("Deployment::from_file largest corpus file", |b| {
        b.iter(|| Deployment::from_file(black_box(&path)).unwrap())
    });
    let source = Source::new("corpus.bpmn", String::from_utf8(content).unwrap());
    c.bench_function("parse largest corpus file", |b| {
        b.iter(|| model::parse(black_box(&source), model::DiagramReading::Read))
    });
}

fn workloads(c: &mut Criterion) {
    let dir = match generate_workloads() {
        Ok(dir) => dir,
        Err(reason) => {
            eprintln!("bpmn_parse: workload benchmarks skipped: {reason}");
            return;
        }
    };
    for name in ["wide1000", "chain100", "parallel50"] {
        let content = std::fs::read(dir.join(format!("{name}.bpmn"))).unwrap();
        let resources = [Resource::new(format!("{name}.bpmn"), content.clone())];
        assert!(check(&resources).is_ok(), "{name} must deploy");
        c.bench_function(&format!("parse+check {name}"), |b| {
            b.iter(|| check(black_box(&resources)).unwrap())
        });
        if name == "wide1000" {
            c.bench_function("Engine::deploy wide1000", |b| {
                b.iter(|| {
                    let mut engine = Engine::new(EngineConfig::default());
                    engine.deploy(black_box(&resources)).unwrap();
                    engine
                })
            });
            let path = dir.join("wide1000.bpmn");
            c.bench_function("Deployment::from_file wide1000", |b| {
                b.iter(|| Deployment::from_file(black_box(&path)).unwrap())
            });
            // The floor: quick-xml's plain reader (the parser's) alone, every event and attribute.
            let text = String::from_utf8(content.clone()).unwrap();
            c.bench_function("quick-xml events wide1000 (floor)", |b| {
                b.iter(|| quick_xml_floor(black_box(&text), false))
            });
        }
        let source = Source::new(name, String::from_utf8(content).unwrap());
        c.bench_function(&format!("parse {name}"), |b| {
            b.iter(|| model::parse(black_box(&source), model::DiagramReading::Read))
        });
    }
    std::fs::remove_dir_all(&dir).ok();
}

fn hostile(c: &mut Criterion) {
    let definitions =
        r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">"#;
    let mut laughs = String::from("<!DOCTYPE lolz [<!ENTITY lol \"lol\">");
    for level in 1..10 {
        let previous = if level == 1 {
            "lol".to_owned()
        } else {
            format!("lol{}", level - 1)
        };
        laughs.push_str(&format!(
            "<!ENTITY lol{level} \"{}\">",
            format!("&{previous};").repeat(10)
        ));
    }
    laughs.push_str("]>");
    laughs.push_str(definitions);
    let mut huge = definitions.as_bytes().to_vec();
    huge.resize(50 * 1024 * 1024, b' ');
    let deep = format!(
        "{definitions}{}",
        "<bpmn:extensionElements>".repeat(100_000)
    );
    let flood = format!(
        "{definitions}{}</bpmn:definitions>",
        "<a/>".repeat(1_000_000)
    );
    let mut state: u32 = 0x2545_f491;
    let garbage: Vec<u8> = (0..4 * 1024 * 1024)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as u8
        })
        .collect();
    let cases = [
        ("billion laughs", laughs.into_bytes()),
        ("50 MB file", huge),
        ("100000 nested elements", deep.into_bytes()),
        ("1000000 empty elements", flood.into_bytes()),
        ("4 MB binary garbage", garbage),
    ];
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    for (name, content) in cases {
        let resources = [Resource::new("hostile.bpmn", content)];
        assert!(check(&resources).is_err(), "{name} must be refused");
        group.bench_function(name, |b| {
            b.iter(|| check(black_box(&resources)).unwrap_err())
        });
    }
    group.finish();
}

criterion_group!(benches, corpus, workloads, hostile);
criterion_main!(benches);
