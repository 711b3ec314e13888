//! Runs one bench workload in a loop, for callgrind or `perf stat`:
//! `cargo build --release -p baton-benches --example profile`, then
//! `valgrind --tool=callgrind target/release/examples/profile <workload> [N]` with workload
//! `agent-template`, `agent-connector`, `process-test`, `agent-cassette-<matching>` with
//! matching `turns-only`, `in-order` or `by-request`, `explore-<calls>` (the template's space with
//! up to that many model calls, one thread; prints the trajectories per iteration) or
//! `engine-clone` (N iterations after setup, default 100).

use baton_benches::workloads::{
    CassetteWorkload, ConnectorWorkload, TemplateWorkload, chain_deployment,
    engine_at_second_model_call, one_process_test, template_space, template_test,
};
use baton_testing::agent::recording::MatchMode;

fn main() {
    let mut args = std::env::args().skip(1);
    let workload = args.next().unwrap_or_default();
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(100);
    match workload.as_str() {
        "agent-template" => {
            let mut w = TemplateWorkload::default();
            for _ in 0..n {
                w.run();
            }
        }
        "agent-connector" => {
            let w = ConnectorWorkload::default();
            for _ in 0..n {
                std::hint::black_box(w.run());
            }
        }
        "process-test" => {
            let deployment = chain_deployment();
            for _ in 0..n {
                one_process_test(deployment.test());
            }
        }
        other if other.starts_with("agent-cassette-") => {
            let matching = MatchMode::parse(&other["agent-cassette-".len()..])
                .unwrap_or_else(|| panic!("unknown matching in {other:?}"));
            let mut w = CassetteWorkload::new(matching);
            for _ in 0..n {
                w.run();
            }
        }
        other if other.starts_with("explore-") => {
            let calls: u32 = other["explore-".len()..]
                .parse()
                .unwrap_or_else(|_| panic!("explore-<model calls>, not {other:?}"));
            let test = template_test();
            let space = template_space(calls).threads(1);
            let mut trajectories = 0;
            for _ in 0..n {
                trajectories = test.explore(&space, []).expect("explores").trajectories;
            }
            println!("{trajectories} trajectories per iteration");
        }
        "engine-clone" => {
            let engine = engine_at_second_model_call();
            for _ in 0..n {
                std::hint::black_box(engine.clone());
            }
        }
        other => {
            eprintln!(
                "unknown workload {other:?}: agent-template, agent-connector, process-test, agent-cassette-<turns-only|in-order|by-request>, explore-<calls> or engine-clone"
            );
            std::process::exit(2);
        }
    }
}
