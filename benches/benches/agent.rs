//! The AI agent mock: a conversation of 3 model calls and 4 tool calls.
//!
//! - `agent connector 3 calls 4 tools`: the connector state machine alone, against the AHSP's
//!   variables kept in a map (what the mock itself costs).
//! - `agent template 3 calls 4 tools`: the ai-agent-tool-loop template on the engine, after
//!   deploy: start, every agent job answered by the mock, every tool job by a worker, to the end.
//! - `agent template cassette <matching>`: the same run with every model call answered from a
//!   cassette of format 2 through a cassette session, opened (read from its file) per run:
//!   `turns-only` plays the turns, `in-order` and `by-request` check each request first.

use baton_benches::workloads::{CassetteWorkload, ConnectorWorkload, TemplateWorkload};
use baton_testing::agent::recording::MatchMode;
use criterion::{Criterion, criterion_group, criterion_main};

fn connector_only(c: &mut Criterion) {
    let workload = ConnectorWorkload::default();
    c.bench_function("agent connector 3 calls 4 tools", |b| {
        b.iter(|| workload.run());
    });
}

fn template_on_engine(c: &mut Criterion) {
    let mut workload = TemplateWorkload::default();
    c.bench_function("agent template 3 calls 4 tools", |b| {
        b.iter(|| workload.run());
    });
}

fn template_from_a_cassette(c: &mut Criterion) {
    for matching in [
        MatchMode::TurnsOnly,
        MatchMode::InOrder,
        MatchMode::ByRequest,
    ] {
        let mut workload = CassetteWorkload::new(matching);
        c.bench_function(
            &format!("agent template cassette {}", matching.as_str()),
            |b| b.iter(|| workload.run()),
        );
    }
}

criterion_group!(
    benches,
    connector_only,
    template_on_engine,
    template_from_a_cassette
);
criterion_main!(benches);
