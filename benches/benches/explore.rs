//! Exploration of the ai-agent-tool-loop template (every choice of the model within the bounds):
//! trajectories per second, forking the engine at each choice and, for comparison, re-running
//! each branch's prefix instead; and what one fork costs (an engine clone at a model call).

use baton_benches::workloads::{engine_at_second_model_call, template_space, template_test};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn explore(c: &mut Criterion) {
    let test = template_test();
    let mut group = c.benchmark_group("explore template, 2 model calls");
    let space = template_space(2);
    let trajectories = test.explore(&space, []).expect("explores").trajectories;
    group.throughput(Throughput::Elements(trajectories));
    group.sample_size(20);
    group.bench_function("forking, 1 thread", |b| {
        b.iter(|| {
            test.explore(&space.clone().threads(1), [])
                .expect("explores")
        });
    });
    group.bench_function("forking, 2 threads", |b| {
        b.iter(|| {
            test.explore(&space.clone().threads(2), [])
                .expect("explores")
        });
    });
    group.bench_function("replaying prefixes, 1 thread", |b| {
        b.iter(|| {
            test.explore(&space.clone().threads(1).replaying_prefixes(), [])
                .expect("explores")
        });
    });
    group.finish();
    let engine = engine_at_second_model_call();
    c.bench_function("engine clone at the second model call", |b| {
        b.iter(|| engine.clone());
    });
}

criterion_group!(benches, explore);
criterion_main!(benches);
