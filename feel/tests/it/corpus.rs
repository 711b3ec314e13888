//! The conformance corpus as a test: every case either passes or is listed in
//! `tests/known-failures/<file>.txt` with a reason, and a listed case that passes must be
//! removed from the list (it only shrinks). Skips with a message when ../shared is absent.

use crate::conformance;

fn check(file: &str) {
    let Some(dir) = conformance::corpus_dir() else {
        println!("skipping the {file} corpus: ../shared/corpus/feel is not there");
        return;
    };
    let path = dir.join(file);
    let cases = conformance::load(&path);
    let known = conformance::known_failures(&conformance::known_failures_file(&path));
    // a large stack: some cases nest deeply on purpose
    let outcomes = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || {
            cases
                .iter()
                .map(|c| (c.id.clone(), c.expression.clone(), conformance::run(c)))
                .collect::<Vec<_>>()
        })
        .expect("spawn")
        .join()
        .expect("corpus run panicked");
    let mut problems = Vec::new();
    let mut passed = 0;
    for (id, expression, o) in &outcomes {
        match (o.passed, known.contains_key(id)) {
            (true, true) => problems.push(format!(
                "{id} passes now: remove it from the known failures"
            )),
            (false, false) => problems.push(format!("{id} {expression:?}: {}", o.detail)),
            (true, false) => passed += 1,
            (false, true) => {}
        }
    }
    println!("{file}: passed {passed} of {}", outcomes.len());
    assert!(
        problems.is_empty(),
        "{} problem(s) in {file}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn feel_scala_corpus() {
    check("feel-scala-cases.jsonl");
}

#[test]
fn dmn_tck_corpus() {
    check("dmn-tck-cases.jsonl");
}

#[test]
fn feel_scala_warning_only_assertions() {
    check("feel-scala-suppressed-failures.jsonl");
}

/// Every prefix of every corpus expression parses or fails with a parse error, never a panic.
#[test]
fn corpus_expression_prefixes_never_panic() {
    let Some(dir) = conformance::corpus_dir() else {
        println!("skipping: ../shared/corpus/feel is not there");
        return;
    };
    for file in ["feel-scala-cases.jsonl"] {
        for case in conformance::load(&dir.join(file)) {
            let src = &case.expression;
            // table rows (`.../k`) repeat one expression with other whitespace
            let table_row = case
                .id
                .rsplit(':')
                .next()
                .is_some_and(|l| l.contains('/') && !l.ends_with("/0"));
            if src.len() > 200 || table_row {
                continue;
            }
            for (i, _) in src.char_indices() {
                let _ = baton_feel::Expression::parse(&src[..i]);
                let _ = baton_feel::UnaryTests::parse(&src[..i]);
            }
        }
    }
}
