//! `cargo run --release -p baton-feel --example conformance -- FILE.jsonl [--failures] [--write-known]`
//!
//! Runs a FEEL conformance corpus file (schema: `shared/corpus/feel/README.md`), prints a table
//! per category, the speed (cases/second over parse + evaluate), and last `passed P of T`.
//! `--failures` lists every failing case; `--write-known` rewrites the known-failures file of
//! the corpus file with the current failures (keeping existing reasons).

#[path = "../tests/it/conformance.rs"]
mod conformance;

use std::path::PathBuf;
use std::time::Duration;

use indexmap::IndexMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: conformance FILE.jsonl [--failures] [--write-known]");
        std::process::exit(2);
    };
    let show_failures = args.iter().any(|a| a == "--failures");
    let write_known = args.iter().any(|a| a == "--write-known");
    let path = PathBuf::from(file);
    let cases = conformance::load(&path);

    // run on a thread with a generous stack: some cases nest deeply on purpose
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            let outcomes: Vec<conformance::Outcome> = cases.iter().map(conformance::run).collect();
            (cases, outcomes)
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
    if write_known {
        let known_file = conformance::known_failures_file(&path);
        let known = conformance::known_failures(&known_file);
        let mut text = String::from(
            "# Cases of this corpus file that baton-feel does not pass: id<TAB>reason. This list only shrinks.\n",
        );
        for (c, o) in cases.iter().zip(&outcomes) {
            if !o.passed {
                let reason = known
                    .get(&c.id)
                    .cloned()
                    .unwrap_or_else(|| o.detail.replace(['\n', '\t'], " "));
                text.push_str(&format!("{}\t{}\n", c.id, reason));
            }
        }
        std::fs::create_dir_all(known_file.parent().expect("parent")).expect("create dir");
        std::fs::write(&known_file, text).expect("write known failures");
        println!("wrote {}", known_file.display());
    }
    let secs = total_time.as_secs_f64();
    println!();
    println!(
        "speed: {total} cases in {:.3} s = {:.0} cases/second (parse + evaluate)",
        secs,
        total as f64 / secs
    );
    println!("passed {passed} of {total}");
}
