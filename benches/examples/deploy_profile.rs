//! Repeats one deploy step on one file, for `valgrind --tool=callgrind` or `perf stat`: instruction
//! counts do not depend on the machine's load, criterion's wall times do.
//!
//! `cargo run --release -p baton-benches --example deploy_profile -- <step> <file> [repeats]`
//! where `<step>` is `parse` (BPMN or DMN by the file's extension), `check` (parse + deploy
//! checks), `engine` (`Engine::deploy`: checks + compile), `testing` (`Deployment::from_file`) or
//! `diagram` (`UnreadDiagram::read`: the BPMN DI a deploy checked, read as the coverage picture
//! reads it).

use std::hint::black_box;

use baton_benches::quick_xml_floor;
use baton_engine::deploy::{Resource, check};
use baton_engine::runtime::{Engine, EngineConfig};
use baton_engine::source::Source;
use baton_engine::{dmn, model};
use baton_testing::Deployment;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [step, path, rest @ ..] = args.as_slice() else {
        eprintln!("usage: deploy_profile <parse|check|engine|testing|diagram> <file> [repeats]");
        std::process::exit(2);
    };
    let repeats: usize = rest.first().map_or(10, |r| r.parse().expect("repeats"));
    let content = std::fs::read(path).expect("the file reads");
    let resources = [Resource::new(path.clone(), content.clone())];
    let text = String::from_utf8(content).expect("UTF-8");
    let source = Source::new(path.clone(), text);
    // What deploying leaves to read later (the `diagram` step reads it).
    let unread = (step == "diagram")
        .then(|| {
            model::parse(&source, model::DiagramReading::Defer)
                .definitions?
                .unread_diagram
        })
        .flatten();
    for _ in 0..repeats {
        match step.as_str() {
            "parse" if path.ends_with(".dmn") => {
                black_box(dmn::parse(black_box(&source)));
            }
            "parse" => {
                black_box(model::parse(
                    black_box(&source),
                    model::DiagramReading::Read,
                ));
            }
            "diagram" => {
                black_box(unread.as_ref().expect("the file has BPMN DI").read());
            }
            "check" => {
                check(black_box(&resources)).expect("the file deploys");
            }
            "engine" => {
                let mut engine = Engine::new(EngineConfig::default());
                engine
                    .deploy(black_box(&resources))
                    .expect("the file deploys");
                black_box(engine);
            }
            "testing" => {
                black_box(Deployment::from_file(path).expect("the file deploys"));
            }
            "floor" => {
                black_box(quick_xml_floor(black_box(source.text()), false));
            }
            "floor-trim" => {
                black_box(quick_xml_floor(black_box(source.text()), true));
            }
            "floor-noattr" => {
                black_box(floor_noattr(black_box(source.text())));
            }
            other => panic!("unknown step {other}"),
        }
    }
}

fn floor_noattr(text: &str) -> usize {
    use quick_xml::events::Event;
    let mut reader = quick_xml::reader::Reader::from_str(text);
    let mut count = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Eof) | Err(_) => return count,
            Ok(_) => count += 1,
        }
    }
}
