//! Ad-hoc timing of parse and evaluate (`cargo run --release -p baton-feel --example probe -- EXPR`).
use std::hint::black_box;
use std::time::Instant;

use baton_feel::{Env, Expression, Value};

fn main() {
    let env = Env::default();
    let src = std::env::args().nth(1).unwrap_or("amount > 1000".into());
    let mut vars = indexmap::IndexMap::new();
    vars.insert("amount".to_string(), Value::int(1500));
    // `PROBE_N=1` runs each loop once (for callgrind)
    let n: u32 = std::env::var("PROBE_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    if let Err(e) = Expression::parse(&src) {
        let t = Instant::now();
        let _ = black_box(Expression::parse(black_box(&src)));
        let message = e.to_string().replace(&src, "<expression>");
        println!(
            "parse error in {:.0} ns: {message}",
            t.elapsed().as_secs_f64() * 1e9
        );
        return;
    }
    let mut best_parse = f64::MAX;
    let mut best_eval = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..n {
            black_box(Expression::parse(black_box(&src)).unwrap());
        }
        best_parse = best_parse.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        let e = Expression::parse(&src).unwrap();
        let t = Instant::now();
        for _ in 0..n {
            black_box(e.evaluate(black_box(&vars), &env));
        }
        best_eval = best_eval.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
    }
    let evaluation = Expression::parse(&src).unwrap().evaluate(&vars, &env);
    let outcome = match &evaluation.result {
        Ok(v) => v.to_string().chars().take(200).collect::<String>(),
        Err(f) => f.message.replace(&src, "<expression>"),
    };
    let shown: String = src.chars().take(80).collect();
    println!("{shown:?}: parse {best_parse:.0} ns, evaluate {best_eval:.0} ns -> {outcome}");
}
