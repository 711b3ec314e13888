//! Runs the case tables in `tests/cases/*.txt`, one case per line:
//!
//! ```text
//! # a comment
//! let x = 5                        (a variable for the following lines of the file)
//! 1 + x --> 6                      (the right side is a FEEL expression, compared by value and type)
//! y --> null !! NO_VARIABLE_FOUND  (and these warnings, in order)
//! assert(1, false) --> failure     (the evaluation fails)
//! 1 + --> parse error
//! unary 5 :: < 10, > 20 --> true   (unary tests against an input)
//! ```
//!
//! Every failing line is reported with file:line.

use std::path::Path;

use baton_feel::{Env, Expression, UnaryTests, Value};
use indexmap::IndexMap;

use crate::conformance::same;

fn eval_expected(text: &str, vars: &IndexMap<String, Value>) -> Result<Value, String> {
    let e = Expression::parse(text).map_err(|e| e.to_string())?;
    e.evaluate(vars, &Env::default())
        .result
        .map_err(|f| f.to_string())
}

fn run_line(line: &str, vars: &mut IndexMap<String, Value>) -> Result<(), String> {
    if let Some(def) = line.strip_prefix("let ") {
        let (name, expr) = def.split_once('=').ok_or("let needs NAME = EXPR")?;
        let v = eval_expected(expr.trim(), vars)?;
        vars.insert(name.trim().to_string(), v);
        return Ok(());
    }
    let (lhs, rhs) = line.rsplit_once(" --> ").ok_or("a case needs ' --> '")?;
    let (expected, warnings) = match rhs.split_once(" !! ") {
        Some((e, w)) => (
            e.trim(),
            w.split(',')
                .map(|s| s.trim().to_string())
                .collect::<Vec<_>>(),
        ),
        None => (rhs.trim(), Vec::new()),
    };
    let env = Env::default();
    let evaluation = if let Some(u) = lhs.strip_prefix("unary ") {
        let (input, tests) = u.split_once(" :: ").ok_or("unary needs INPUT :: TESTS")?;
        let input = eval_expected(input, vars)?;
        match UnaryTests::parse(tests) {
            Ok(t) => t.evaluate(&input, &*vars, &env),
            Err(e) => {
                return if expected == "parse error" {
                    Ok(())
                } else {
                    Err(e.to_string())
                };
            }
        }
    } else {
        match Expression::parse(lhs) {
            Ok(e) => e.evaluate(&*vars, &env),
            Err(e) => {
                return if expected == "parse error" {
                    Ok(())
                } else {
                    Err(e.to_string())
                };
            }
        }
    };
    if expected == "parse error" {
        return Err("parsed, but a parse error was expected".into());
    }
    match (&evaluation.result, expected) {
        (Err(_), "failure") => {}
        (Ok(v), "failure") => return Err(format!("expected a failure, got {v}")),
        (Err(f), _) => return Err(format!("failed: {f}")),
        (Ok(actual), expected) => {
            let want = eval_expected(expected, vars)?;
            if !same(actual, &want) {
                return Err(format!("got {actual}, expected {want}"));
            }
        }
    }
    let got: Vec<&str> = evaluation
        .warnings
        .iter()
        .map(|w| w.kind.as_str())
        .collect();
    if !warnings.is_empty() && got != warnings {
        return Err(format!("warnings {got:?}, expected {warnings:?}"));
    }
    Ok(())
}

#[test]
fn case_tables() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/cases")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no case files in {}", dir.display());
    let mut failures = Vec::new();
    let mut count = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read case file");
        let mut vars = IndexMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            count += 1;
            if let Err(e) = run_line(line, &mut vars) {
                let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
                failures.push(format!("tests/cases/{name}:{}: {line}\n    {e}", i + 1));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
