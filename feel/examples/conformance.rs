//! `cargo run --release -p baton-feel --example conformance -- FILE.jsonl [--failures] [--write-known] [--slowest] [--repeat N] [--only TEXT]`
//!
//! Runs a FEEL conformance corpus file (schema: `shared/corpus/feel/README.md`), prints a table
//! per category, the speed (cases/second over parse + evaluate), and last `passed P of T`.
//! `--failures` lists every failing case; `--write-known` rewrites the known-failures file of
//! the corpus file with the current failures and their reasons.

#[path = "../tests/it/conformance.rs"]
mod conformance;

use std::path::PathBuf;
use std::time::Duration;

use indexmap::IndexMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first().filter(|a| !a.starts_with("--")) else {
        eprintln!("usage: conformance FILE.jsonl [--failures] [--write-known]");
        std::process::exit(2);
    };
    let show_failures = args.iter().any(|a| a == "--failures");
    let show_slowest = args.iter().any(|a| a == "--slowest");
    let write_known = args.iter().any(|a| a == "--write-known");
    let path = PathBuf::from(file);
    let mut cases = conformance::load(&path);
    // `--only TEXT`: just the cases whose expression contains TEXT (for profiling one case)
    if let Some(text) = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
    {
        cases.retain(|c| c.expression.contains(text.as_str()));
    }

    // run on a thread with a generous stack: some cases nest deeply on purpose. The corpus runs
    // `--repeat N` times (default 5); the speed is the fastest pass (the machine is shared).
    let repeat: usize = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            let mut best: Option<Vec<conformance::Outcome>> = None;
            for _ in 0..repeat.max(1) {
                let outcomes: Vec<conformance::Outcome> =
                    cases.iter().map(conformance::run).collect();
                let total: Duration = outcomes.iter().map(|o| o.elapsed).sum();
                if best
                    .as_ref()
                    .is_none_or(|b| total < b.iter().map(|o| o.elapsed).sum())
                {
                    best = Some(outcomes);
                }
            }
            (cases, best.unwrap_or_default())
        })
        .expect("spawn");
    let (cases, outcomes) = handle.join().expect("conformance run panicked");

    let mut by_category: IndexMap<&str, (usize, usize)> = IndexMap::new();
    let mut total_time = Duration::ZERO;
    for (c, o) in cases.iter().zip(&outcomes) {
        let e = by_category.entry(c.category.as_str()).or_default();
        e.1 += 1;
        if o.passed {
            e.0 += 1;
        }
        total_time += o.elapsed;
    }
    by_category.sort_keys();
    println!(
        "{:<48} {:>7} {:>7} {:>7}",
        "category", "passed", "total", "%"
    );
    for (cat, (p, t)) in &by_category {
        println!(
            "{:<48} {:>7} {:>7} {:>6.1}%",
            cat,
            p,
            t,
            100.0 * *p as f64 / *t as f64
        );
    }
    let passed = outcomes.iter().filter(|o| o.passed).count();
    let total = outcomes.len();
    if show_failures {
        println!();
        for (c, o) in cases.iter().zip(&outcomes) {
            if !o.passed {
                println!("FAIL {} {:?}: {}", c.id, c.expression, o.detail);
            }
        }
    }
    if show_slowest {
        let mut order: Vec<usize> = (0..cases.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(outcomes[i].elapsed));
        println!();
        for &i in order.iter().take(15) {
            let expr: String = cases[i].expression.chars().take(70).collect();
            println!(
                "{:>10.1} µs  {} {:?}",
                outcomes[i].elapsed.as_secs_f64() * 1e6,
                cases[i].id,
                expr
            );
        }
    }
    if write_known {
        let known_file = conformance::known_failures_file(&path);
        let mut text = String::from(
            "# Cases of this corpus file that baton-feel does not pass: id<TAB>reason. This list only shrinks.\n",
        );
        for (c, o) in cases.iter().zip(&outcomes) {
            if !o.passed {
                let reason = conformance::failure_reason(c, &o.detail);
                text.push_str(&format!("{}\t{}\n", c.id, reason));
            }
        }
        std::fs::create_dir_all(known_file.parent().expect("parent")).expect("create dir");
        std::fs::write(&known_file, text).expect("write known failures");
        println!("wrote {}", known_file.display());
    }
    let secs = total_time.as_secs_f64();
    let mut times: Vec<Duration> = outcomes.iter().map(|o| o.elapsed).collect();
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let slowest = times.last().copied().unwrap_or_default();
    let rest = secs - slowest.as_secs_f64();
    println!();
    println!(
        "speed: {total} cases in {:.2} ms = {:.0} cases/second (parse + evaluate, fastest of {repeat} passes)",
        secs * 1e3,
        total as f64 / secs
    );
    println!(
        "       median case {:.2} µs; without the slowest case ({:.2} ms): {:.0} cases/second",
        median.as_secs_f64() * 1e6,
        slowest.as_secs_f64() * 1e3,
        (total - 1) as f64 / rest
    );
    println!("passed {passed} of {total}");
}
