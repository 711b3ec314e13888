//! The FEEL benches' typical Zeebe expressions, parsed and evaluated `N` times each, for
//! instruction counts under callgrind
//! (`valgrind --tool=callgrind target/release/examples/feel_typical [NAME|all] [N]`).
use std::hint::black_box;

use baton_benches::feel::{TYPICAL_EXPRESSIONS, typical_variables};
use baton_feel::{Env, Expression};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args.first().filter(|a| *a != "all").cloned();
    let n: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let vars = typical_variables();
    let env = Env::default();
    for (name, src) in TYPICAL_EXPRESSIONS {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        for _ in 0..n {
            black_box(Expression::parse(black_box(src)).expect("parses"));
        }
        let e = Expression::parse(src).expect("parses");
        for _ in 0..n {
            black_box(e.evaluate(black_box(&vars), &env));
        }
        println!("{name}: {}", e.evaluate(&vars, &env).value());
    }
}
