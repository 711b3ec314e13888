//! FEEL: parse and evaluate typical Zeebe expressions (conditions, mappings, a fromAi() call,
//! a context build, a filter), DMN unary tests, loops, and the number arithmetic the evaluator
//! is built on.
//!
//! `cargo bench -p baton-benches --bench feel`

use std::hint::black_box;

use baton_benches::feel::{TYPICAL_EXPRESSIONS, typical_variables};
use baton_feel::{Env, Expression, Number, UnaryTests, Value};
use criterion::{Criterion, criterion_group, criterion_main};

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("feel/parse");
    for (name, src) in TYPICAL_EXPRESSIONS {
        g.bench_function(*name, |b| {
            b.iter(|| Expression::parse(black_box(src)).expect("parses"))
        });
    }
    g.finish();
}

fn evaluate(c: &mut Criterion) {
    let vars = typical_variables();
    let env = Env::default();
    let mut g = c.benchmark_group("feel/evaluate");
    for (name, src) in TYPICAL_EXPRESSIONS {
        let e = Expression::parse(src).expect("parses");
        assert!(e.evaluate(&vars, &env).result.is_ok(), "{name}");
        g.bench_function(*name, |b| b.iter(|| e.evaluate(black_box(&vars), &env)));
    }
    // the same condition against native FEEL values (no JSON conversion on lookup)
    let mut native = indexmap::IndexMap::new();
    native.insert("amount".to_string(), Value::int(1500));
    let e = Expression::parse("amount > 1000").expect("parses");
    g.bench_function("condition-native-vars", |b| {
        b.iter(|| e.evaluate(black_box(&native), &env))
    });
    g.finish();
}

/// DMN input entries (decision tables parse hundreds of these per model) and larger loops.
fn unary_tests_and_loops(c: &mut Criterion) {
    let env = Env::default();
    let mut g = c.benchmark_group("feel/unary-tests");
    let amount = Value::int(1500);
    let tier = Value::string("silver");
    let tests = [
        ("compare", "< 1000", &amount),
        ("interval", "[1000..5000)", &amount),
        ("strings", "\"gold\", \"silver\"", &tier),
        ("not", "not(\"bronze\")", &tier),
        ("any", "-", &amount),
    ];
    for (name, src, input) in tests {
        g.bench_function(format!("parse/{name}"), |b| {
            b.iter(|| UnaryTests::parse(black_box(src)).expect("parses"))
        });
        let t = UnaryTests::parse(src).expect("parses");
        g.bench_function(format!("evaluate/{name}"), |b| {
            b.iter(|| t.evaluate(black_box(input), &(), &env))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("feel/loops");
    for (name, src) in [
        ("for-1000", "for x in 1..1000 return x * 2"),
        ("some-1000", "some x in 1..1000 satisfies x > 1000"),
        ("filter-1000", "(for x in 1..1000 return x)[item > 500]"),
        (
            "for-invariant-100000",
            "count(for x in 1..100000 return \"a\")",
        ),
    ] {
        let e = Expression::parse(src).expect("parses");
        g.bench_function(name, |b| b.iter(|| e.evaluate(black_box(&()), &env)));
    }
    g.finish();
}

fn numbers(c: &mut Criterion) {
    let a = Number::parse("12345.678").expect("number");
    let b = Number::parse("3.14159").expect("number");
    let i = Number::from(1234);
    let j = Number::from(5678);
    let mut g = c.benchmark_group("feel/number");
    g.bench_function("add-small-int", |bn| {
        bn.iter(|| black_box(&i).add(black_box(&j)))
    });
    g.bench_function("add-decimal", |bn| {
        bn.iter(|| black_box(&a).add(black_box(&b)))
    });
    g.bench_function("mul-decimal", |bn| {
        bn.iter(|| black_box(&a).mul(black_box(&b)))
    });
    g.bench_function("div-decimal-34-digits", |bn| {
        bn.iter(|| black_box(&a).div(black_box(&b)))
    });
    g.bench_function("compare-decimal", |bn| {
        bn.iter(|| black_box(&a).compare(black_box(&b)))
    });
    g.finish();
}

criterion_group!(benches, parse, evaluate, unary_tests_and_loops, numbers);
criterion_main!(benches);
