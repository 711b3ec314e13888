//! FEEL fuzzing on the stable toolchain: expressions built from the grammar and corpus
//! expressions mutated, each parsed (as an expression and as unary tests) and evaluated twice.
//! The property: no panic, no stack overflow, the same result and warnings both times, and (in
//! the long run) no input slower than a second.
//!
//! How it runs (tests/README.md): `cargo test` runs a short, fixed set of cases;
//! `BATON_FUZZ_CASES=1000000 cargo test --release -p baton-feel --test it fuzz -- --nocapture`
//! runs a long one. A failing case prints its seed; `BATON_FUZZ_SEED=<seed>` runs that case alone
//! and minimizes it. Minimized inputs go to `tests/fuzz-regressions.txt`, which every run
//! checks first.
//!
//! The driver is surface-neutral: a seed corpus, a generator and mutator over `Unstructured`
//! bytes (arbitrary), a property that returns what the input came to, and arbtest to run,
//! reproduce and minimize seeds. Another surface (BPMN, DMN, CPT JSON, cassettes) brings its own
//! corpus, generator and property.

use std::time::{Duration, Instant};

use arbitrary::{Result, Unstructured};
use baton_feel::{Env, Expression, Limits, UnaryTests, Value};

/// Tighter limits than the defaults, so that a case that runs into one stays quick.
fn env() -> Env {
    Env {
        limits: Limits {
            max_depth: 64,
            max_steps: 200_000,
            max_items: 20_000,
            max_string_len: 64 * 1024,
            max_warnings: 100,
        },
        ..Env::default()
    }
}

/// Variables the generated expressions read.
fn variables() -> indexmap::IndexMap<String, Value> {
    let json = serde_json::json!({
        "x": 127, "n": -3.5, "s": "abc", "l": [1, 2, 3], "c": {"a": 1, "b": [true, null]},
        "big": "1e999999999", "t": "2024-01-02T10:00:00Z"
    });
    json.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), Value::from_json(v)))
        .collect()
}

/// What one input came to: the parse error, or the result and warnings of the evaluation.
fn outcome(src: &str) -> String {
    let vars = variables();
    let env = env();
    let mut out = String::new();
    match Expression::parse(src) {
        Err(e) => out.push_str(&format!("parse error at {}: {}", e.offset, e.message)),
        Ok(e) => {
            let ev = e.evaluate(&vars, &env);
            out.push_str(&format!(
                "{:?} {:?}",
                ev.result.map(|v| v.to_string()),
                ev.warnings
            ));
        }
    }
    if let Ok(tests) = UnaryTests::parse(src) {
        let ev = tests.evaluate(&Value::int(2), &vars, &env);
        out.push_str(&format!(
            " | {:?} {:?}",
            ev.result.map(|v| v.to_string()),
            ev.warnings
        ));
    }
    out
}

/// The property: two evaluations agree; a slow input fails the long run.
fn check(src: &str, time_limit: Option<Duration>) {
    let start = Instant::now();
    let first = outcome(src);
    let elapsed = start.elapsed();
    let second = outcome(src);
    assert_eq!(first, second, "not deterministic: {src:?}");
    if let Some(limit) = time_limit {
        assert!(elapsed < limit, "{src:?} took {elapsed:?}");
    }
}

/// The seed corpus: the case tables, and the conformance corpus when ../shared is there.
fn corpus() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/cases") {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            if let Some((expression, _)) = line.split_once(" --> ") {
                out.push(expression.to_owned());
            }
        }
    }
    if let Some(dir) = crate::conformance::corpus_dir() {
        for case in crate::conformance::load(&dir.join("feel-scala-cases.jsonl")) {
            out.push(case.expression);
        }
    }
    out
}

const NAMES: &[&str] = &[
    "x", "n", "s", "l", "c", "big", "t", "item", "partial", "missing", "a b",
];

const TOKENS: &[&str] = &[
    " ",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ".",
    "..",
    "?",
    "-",
    "+",
    "*",
    "/",
    "**",
    "=",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    " and ",
    " or ",
    " not(",
    " in ",
    " between ",
    " instance of ",
    " if ",
    " then ",
    " else ",
    " for ",
    " some ",
    " every ",
    " return ",
    " satisfies ",
    " function(",
    "\"",
    "@\"",
    "`",
    "//",
    "/*",
    "*/",
    "\\",
    "1",
    "0.5",
    "1e9",
    "999999999",
    "null",
    "true",
    "x",
    "item",
    "partial",
];

/// An expression built from the grammar, at most `depth` levels deep.
fn expression(u: &mut Unstructured, depth: u32) -> Result<String> {
    if depth == 0 || u.ratio(1, 4)? {
        return terminal(u);
    }
    let d = depth - 1;
    Ok(match u.int_in_range(0..=17)? {
        0 => format!("-{}", expression(u, d)?),
        1 => format!("not({})", expression(u, d)?),
        2 => {
            let op = u.choose(&[
                "+", "-", "*", "/", "**", "=", "!=", "<", "<=", ">", ">=", "and", "or",
            ])?;
            format!("{} {op} {}", expression(u, d)?, expression(u, d)?)
        }
        3 => format!(
            "{} between {} and {}",
            expression(u, d)?,
            expression(u, d)?,
            expression(u, d)?
        ),
        4 => format!("{} in {}", expression(u, d)?, unary_test(u, d)?),
        5 => {
            let t = u.choose(&[
                "number",
                "string",
                "boolean",
                "list",
                "context",
                "date and time",
                "Any",
                "Null",
            ])?;
            format!("{} instance of {t}", expression(u, d)?)
        }
        6 => format!(
            "if {} then {} else {}",
            expression(u, d)?,
            expression(u, d)?,
            expression(u, d)?
        ),
        7 => {
            let kw = u.choose(&["for", "some", "every"])?;
            let body = if *kw == "for" { "return" } else { "satisfies" };
            let iteration = if u.arbitrary()? {
                format!("{}..{}", expression(u, d)?, expression(u, d)?)
            } else {
                expression(u, d)?
            };
            format!("{kw} i in {iteration} {body} {}", expression(u, d)?)
        }
        8 => format!("[{}]", list(u, d)?),
        9 => {
            let mut entries = Vec::new();
            for _ in 0..u.int_in_range(0..=3)? {
                entries.push(format!("{}: {}", u.choose(NAMES)?, expression(u, d)?));
            }
            format!("{{{}}}", entries.join(", "))
        }
        10 => format!("{}[{}]", expression(u, d)?, expression(u, d)?),
        11 => format!(
            "{}.{}",
            expression(u, d)?,
            u.choose(&["a", "b", "year", "start", "x"])?
        ),
        12 => {
            let names = baton_feel::builtin_names();
            let name = u.choose(&names)?;
            format!("{name}({})", list(u, d)?)
        }
        13 => format!("(function(a, b) {})({})", expression(u, d)?, list(u, d)?),
        14 => {
            // a long chain of one operator or prefix
            let unit = u.choose(&[" or x", " and x", " + 1", ".a", "[1]", " ** x"])?;
            let n = u.int_in_range(0..=2000)?;
            format!("{}{}", expression(u, d)?, unit.repeat(n))
        }
        15 => {
            let prefix = u.choose(&["- ", "not(", "(", "[", "abs(", "if true then "])?;
            let n = u.int_in_range(0..=2000)?;
            format!("{}{}", prefix.repeat(n), expression(u, d)?)
        }
        16 => format!("{}({})", u.choose(NAMES)?, list(u, d)?),
        _ => format!("({})", expression(u, d)?),
    })
}

fn list(u: &mut Unstructured, depth: u32) -> Result<String> {
    let mut items = Vec::new();
    for _ in 0..u.int_in_range(0..=3)? {
        items.push(expression(u, depth)?);
    }
    Ok(items.join(", "))
}

fn unary_test(u: &mut Unstructured, depth: u32) -> Result<String> {
    Ok(match u.int_in_range(0..=4)? {
        0 => format!("< {}", expression(u, depth)?),
        1 => format!("[{}..{}]", expression(u, depth)?, expression(u, depth)?),
        2 => format!("({})", list(u, depth)?),
        3 => format!("not({})", list(u, depth)?),
        _ => expression(u, depth)?,
    })
}

fn terminal(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=8)? {
        0 => u.arbitrary::<i64>()?.to_string(),
        1 => format!(
            "{}.{}",
            u.int_in_range(0..=999)?,
            u.int_in_range(0..=999_999)?
        ),
        2 => format!(
            "{:?}",
            u.choose(&["", "a", "ab c", "\\u00e9", "P1D", "2024-01-02"])?
        ),
        3 => u.choose(&["true", "false", "null", "?"])?.to_string(),
        4 => u
            .choose(&[
                "@\"2024-01-02\"",
                "@\"10:00:00\"",
                "@\"P1Y2M\"",
                "@\"PT1H\"",
                "@\"2024-01-02T10:00:00@Europe/Berlin\"",
            ])?
            .to_string(),
        5 => u
            .choose(&["999999999", "2147483648", "0.000000001", "1000000"])?
            .to_string(),
        _ => u.choose(NAMES)?.to_string(),
    })
}

/// A corpus expression with a few byte-level and token-level mutations.
fn mutated(u: &mut Unstructured, corpus: &[String]) -> Result<String> {
    let mut s = u.choose(corpus)?.clone().into_bytes();
    for _ in 0..u.int_in_range(1..=4)? {
        let at = u.int_in_range(0..=s.len())?;
        match u.int_in_range(0..=5)? {
            0 if !s.is_empty() => {
                let end = u.int_in_range(at..=s.len())?;
                s.drain(at..end);
            }
            1 => {
                let token = u.choose(TOKENS)?;
                s.splice(at..at, token.bytes());
            }
            2 if at < s.len() => {
                // a slice repeated: long chains and deep nesting
                let end = u.int_in_range(at..=s.len().min(at + 16))?;
                let piece = s[at..end].to_vec();
                let n = u.int_in_range(1..=500)?;
                for _ in 0..n {
                    s.splice(at..at, piece.iter().copied());
                }
            }
            3 => {
                let other = u.choose(corpus)?.clone().into_bytes();
                let from = u.int_in_range(0..=other.len())?;
                let to = u.int_in_range(from..=other.len())?;
                s.splice(at..at, other[from..to].iter().copied());
            }
            4 if at < s.len() => s[at] = u.arbitrary()?,
            _ => {
                let expr = expression(u, 3)?;
                s.splice(at..at, expr.bytes());
            }
        }
    }
    Ok(String::from_utf8_lossy(&s).into_owned())
}

/// One generated input.
fn input(u: &mut Unstructured, corpus: &[String]) -> Result<String> {
    if u.arbitrary()? {
        expression(u, 6)
    } else {
        mutated(u, corpus)
    }
}

/// The seeds of a run: the size of the random bytes in the low half (growing with the case
/// number, as arbtest grows them), a fixed sequence in the high half. The same cases every run.
/// Case `first` is the first of the run (`BATON_FUZZ_FIRST`, to continue a long run).
fn seeds(first: u64, count: u64) -> impl Iterator<Item = u64> {
    (first..first + count).map(|i| {
        let size = 16 + (i % 64) * 64;
        let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z ^= z >> 29;
        let random = (z as u32) | 1;
        size | (u64::from(random) << 32)
    })
}

#[test]
fn fuzz_regressions_still_hold() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions.txt");
    let text = std::fs::read_to_string(&path).expect("tests/fuzz-regressions.txt");
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let src: String = serde_json::from_str(line).expect("a JSON string per line");
        check(&src, None);
    }
}

#[test]
fn fuzz_feel() {
    let corpus = corpus();
    let cases: u64 = std::env::var("BATON_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let long = std::env::var_os("BATON_FUZZ_CASES").is_some();
    let first: u64 = std::env::var("BATON_FUZZ_FIRST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let time_limit = long.then_some(Duration::from_secs(1));
    let property = |u: &mut Unstructured| {
        let src = input(u, &corpus)?;
        check(&src, time_limit);
        Ok(())
    };
    if let Ok(seed) = std::env::var("BATON_FUZZ_SEED") {
        let seed = u64::from_str_radix(seed.trim_start_matches("0x"), 16).expect("a hex seed");
        // show the input, then shrink it: arbtest tries smaller seeds that still fail
        arbtest::arbtest(|u| {
            if let Ok(src) = input(u, &corpus) {
                eprintln!("input: {}", serde_json::to_string(&src).unwrap());
            }
            Ok(())
        })
        .seed(seed)
        .run();
        // minimize() wants a failing seed: one that passes (the cause is fixed) says so
        let fails = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            arbtest::arbtest(property).seed(seed).run();
        }))
        .is_err();
        if !fails {
            eprintln!("seed {seed:#x} passes");
            return;
        }
        arbtest::arbtest(property)
            .seed(seed)
            .budget_ms(60_000)
            .minimize()
            .run();
        return;
    }
    let start = Instant::now();
    // the slowest case so far (both evaluations) and its seed, for the long run's report
    let mut slowest = (Duration::ZERO, 0);
    for (i, seed) in seeds(first, cases).enumerate() {
        let case = Instant::now();
        arbtest::arbtest(property).seed(seed).run();
        slowest = slowest.max((case.elapsed(), seed));
        if long && i % 10_000 == 0 {
            eprintln!(
                "{i} cases, {:?}, slowest {:?} (seed {:#x})",
                start.elapsed(),
                slowest.0,
                slowest.1
            );
        }
    }
    if long {
        eprintln!(
            "{cases} cases from case {first}, {:?}, slowest {:?} (seed {:#x})",
            start.elapsed(),
            slowest.0,
            slowest.1
        );
    }
}
