//! The test library's cost per test: a 10-step process test (deploy once; per test: a fresh
//! test, 10 job mocks, start, 3 assertions, coverage) and a 100-test suite (with the deployment
//! shared, and with every test deploying its own copy).

use baton_benches::workloads::{chain_deployment, chain_xml, one_process_test};
use baton_testing::ProcessTest;
use criterion::{Criterion, criterion_group, criterion_main};

fn process_test(c: &mut Criterion) {
    let xml = chain_xml(10);
    let deployment = chain_deployment();
    c.bench_function(
        "process test: 10 mocked jobs, 3 assertions, coverage",
        |b| {
            b.iter(|| one_process_test(deployment.test()));
        },
    );
    let mut group = c.benchmark_group("suite of 100 tests");
    group.sample_size(20);
    group.bench_function("deployment shared", |b| {
        b.iter(|| {
            for _ in 0..100 {
                one_process_test(deployment.test());
            }
        });
    });
    group.bench_function("each test deploys", |b| {
        b.iter(|| {
            for _ in 0..100 {
                one_process_test(ProcessTest::from_xml("steps.bpmn", &xml).expect("deploys"));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, process_test);
criterion_main!(benches);
