//! Exploration of the ai-agent-tool-loop template (every choice of the model within the bounds):
//! trajectories per second, forking the engine at each choice and, for comparison, re-running
//! each branch's prefix instead; and what one fork costs (an engine clone at a model call).
//! First, once, the whole space of the guide (4 model calls) is searched to the end with its
//! counts pinned: too slow for a debug `cargo test`, which pins 3 model calls instead.

use std::time::Instant;

use baton_benches::workloads::{engine_at_second_model_call, template_space, template_test};
use baton_testing::ProcessTest;
use baton_testing::explore::{EndState, Invariant};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Up to 4 model calls, with the invariants of the template's exploration test: the figures the
/// guide and docs/benchmarks.md quote.
fn four_model_calls_pinned(test: &ProcessTest) {
    let invariants = [
        Invariant::never_before("create-ticket", "lookup-order"),
        Invariant::no_incident(),
        Invariant::ends_in([
            EndState::Completed,
            EndState::WaitingAt("queue-for-human".into()),
        ]),
        Invariant::reaches("alert-support"),
    ];
    let started = Instant::now();
    let report = test
        .explore(&template_space(4), invariants)
        .expect("explores");
    assert_eq!(
        report.counts(),
        "228116 trajectories (119616 cut at the model-call bound), 87805 distinct states, 43680 pruned"
    );
    assert!(report.cut_off.is_none());
    let ticket_first = report.counterexample(0).expect("a counterexample");
    assert_eq!((ticket_first.model_calls, ticket_first.tool_calls), (1, 1));
    assert!(report.checks[1..3].iter().all(|c| c.holds()));
    eprintln!(
        "explore template, 4 model calls: {} in {:.1} s",
        report.counts(),
        started.elapsed().as_secs_f64()
    );
}

fn explore(c: &mut Criterion) {
    let test = template_test();
    four_model_calls_pinned(&test);
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
