//! The AI agent mock: a conversation of 3 model calls and 4 tool calls.
//!
//! - `agent connector 3 calls 4 tools`: the connector state machine alone, against the AHSP's
//!   variables kept in a map (what the mock itself costs).
//! - `agent template 3 calls 4 tools`: the ai-agent-tool-loop template on the engine, after
//!   deploy: start, every agent job answered by the mock, every tool job by a worker, to the end.

use baton_benches::workloads::{ConnectorWorkload, TemplateWorkload};
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

criterion_group!(benches, connector_only, template_on_engine);
criterion_main!(benches);
