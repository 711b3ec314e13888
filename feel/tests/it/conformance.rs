//! Runs the FEEL conformance corpus (`shared/corpus/feel/*.jsonl`, schema in its README):
//! decodes a case, evaluates it, compares with feel-scala's expected result. Shared by the
//! `conformance` example and the corpus test.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use baton_feel::{Env, Expression, UnaryTests, Value};
use indexmap::IndexMap;
use serde_json::Value as Json;

/// One corpus line.
pub struct Case {
    pub id: String,
    pub category: String,
    pub kind: String,
    pub expression: String,
    pub input: Option<Json>,
    pub context: Json,
    pub functions: Option<Json>,
    pub expected: Option<Json>,
    pub expect_error: bool,
    pub error_message: Option<String>,
    pub suppressed: Vec<(String, String)>,
    /// DMN TCK: the decision must report an error (null, a failure or a parse error).
    pub tck_error_result: bool,
    /// DMN TCK case (numbers are compared at the expected value's precision).
    pub tck: bool,
    /// DMN TCK: Camunda's own result for dmn-scala (`SUCCESS`, `IGNORED`, or empty).
    pub camunda_tck_result: String,
}

/// The outcome of one case.
pub struct Outcome {
    pub passed: bool,
    /// Why it failed (empty when passed).
    pub detail: String,
    pub elapsed: Duration,
}

/// The corpus folder: `../shared/corpus/feel` from the workspace root (or under
/// `$BATON_SHARED_DIR` when set, e.g. from a git worktree), if present.
pub fn corpus_dir() -> Option<PathBuf> {
    let shared = match std::env::var_os("BATON_SHARED_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    let dir = shared.join("corpus/feel");
    dir.is_dir().then_some(dir)
}

pub fn load(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let j: Json = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
            let s = |k: &str| j.get(k).and_then(Json::as_str).unwrap_or("").to_string();
            Case {
                id: s("id"),
                category: s("category"),
                kind: s("kind"),
                expression: s("expression"),
                input: j.get("input").cloned(),
                context: j
                    .get("context")
                    .cloned()
                    .unwrap_or(Json::Object(Default::default())),
                functions: j.get("functions").cloned(),
                tck_error_result: j
                    .get("tck_error_result")
                    .and_then(Json::as_bool)
                    .unwrap_or(false),
                tck: j.get("tck_error_result").is_some(),
                camunda_tck_result: s("camunda_tck_result"),
                expected: j.get("expected").cloned(),
                expect_error: j
                    .get("expect_error")
                    .and_then(Json::as_bool)
                    .unwrap_or(false),
                error_message: j
                    .get("error_message")
                    .and_then(Json::as_str)
                    .map(str::to_string),
                suppressed: j
                    .get("suppressed_failures")
                    .and_then(Json::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|w| {
                                (
                                    w["type"].as_str().unwrap_or("").to_string(),
                                    w["message"].as_str().unwrap_or("").to_string(),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

const TAGS: &[&str] = &[
    "null",
    "number",
    "date",
    "time",
    "date-time",
    "day-time-duration",
    "year-month-duration",
    "range",
    "context",
    "error",
];

/// Decodes the corpus value encoding into a FEEL value.
pub fn decode(j: &Json) -> Value {
    match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) => Value::from_json(&Json::Number(n.clone())),
        Json::String(s) => Value::string(s.as_str()),
        Json::Array(items) => Value::list(items.iter().map(decode).collect()),
        Json::Object(m) => {
            if let Some(Json::String(t)) = m.get("type")
                && TAGS.contains(&t.as_str())
            {
                let text = m.get("value").and_then(Json::as_str).unwrap_or("");
                let parsed = match t.as_str() {
                    "null" | "error" => Some(Value::Null),
                    "number" => baton_feel::Number::parse(text).map(Value::Number),
                    "date" => baton_feel::temporal::parse_date(text).map(Value::Date),
                    "time" => baton_feel::temporal::parse_time(text).map(Value::time),
                    "date-time" => {
                        baton_feel::temporal::parse_date_time(text).map(Value::date_time)
                    }
                    "day-time-duration" => baton_feel::temporal::parse_day_time_duration(text)
                        .map(Value::DayTimeDuration),
                    "year-month-duration" => baton_feel::temporal::parse_year_month_duration(text)
                        .map(Value::YearMonthDuration),
                    "context" => return decode_object(m.get("value").and_then(Json::as_object)),
                    "range" => {
                        let bound = |k: &str| baton_feel::Bound {
                            value: decode(&m[k]["value"]),
                            closed: m[k]["closed"].as_bool().unwrap_or(false),
                        };
                        Some(Value::Range(std::sync::Arc::new(baton_feel::Range {
                            start: bound("start"),
                            end: bound("end"),
                        })))
                    }
                    _ => None,
                };
                return parsed.unwrap_or_else(|| panic!("undecodable tagged value {j}"));
            }
            decode_object(Some(m))
        }
    }
}

fn decode_object(m: Option<&serde_json::Map<String, Json>>) -> Value {
    let mut ctx = baton_feel::Context::default();
    if let Some(m) = m {
        for (k, v) in m {
            ctx.insert(k.as_str().into(), decode(v));
        }
    }
    Value::context(ctx)
}

/// Equality as feel-scala's test matchers see it (Scala `==` on results).
pub fn same(actual: &Value, expected: &Value) -> bool {
    use baton_feel::temporal::Time;
    match (actual, expected) {
        (Value::Time(x), Value::Time(y)) => match (x.as_ref(), y.as_ref()) {
            (
                Time::Zoned {
                    time: a,
                    offset: oa,
                    ..
                },
                Time::Zoned {
                    time: b,
                    offset: ob,
                    zone: None,
                },
            ) => a == b && oa == ob,
            _ => actual.feel_eq(expected) == Some(true),
        },
        (Value::List(a), Value::List(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| same(x, y))
        }
        (Value::Context(a), Value::Context(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same(x, y)))
        }
        (Value::Number(a), Value::Number(b)) => a == b,
        (a, b) => {
            std::mem::discriminant(a) == std::mem::discriminant(b) && a.feel_eq(b) == Some(true)
        }
    }
}

/// The DMN TCK gives inexact results (`exp(4)` = `54.59815003`) with fewer digits: a number
/// with at least 8 decimals is compared at its own precision.
pub fn same_tck(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Number(a), Value::Number(b)) if b.scale() >= 8 && a.scale() > b.scale() => {
            a.round(b.scale(), baton_feel::number::Rounding::HalfUp) == *b
        }
        (Value::List(a), Value::List(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| same_tck(x, y))
        }
        _ => same(actual, expected),
    }
}

pub fn run(case: &Case) -> Outcome {
    let env = Env::default();
    let mut vars: IndexMap<String, Value> = IndexMap::new();
    if let Json::Object(m) = &case.context {
        for (k, v) in m {
            vars.insert(k.clone(), decode(v));
        }
    }
    if let Some(Json::Object(fs)) = &case.functions {
        for (name, src) in fs {
            let f = Expression::parse(src.as_str().unwrap_or(""))
                .map(|e| e.evaluate(&(), &env).value())
                .unwrap_or(Value::Null);
            vars.insert(name.clone(), f);
        }
    }
    let start = Instant::now();
    let evaluation = if case.kind == "unary-tests" {
        let input = case.input.as_ref().map(decode).unwrap_or(Value::Null);
        UnaryTests::parse(&case.expression).map(|t| t.evaluate(&input, &vars, &env))
    } else {
        Expression::parse(&case.expression).map(|e| e.evaluate(&vars, &env))
    };
    let elapsed = start.elapsed();
    let fail = |detail: String| Outcome {
        passed: false,
        detail,
        elapsed,
    };
    let evaluation = match evaluation {
        Ok(ev) => ev,
        Err(parse_error) => {
            if case.expect_error || case.tck_error_result {
                return Outcome {
                    passed: true,
                    detail: String::new(),
                    elapsed,
                };
            }
            return fail(format!("parse error: {parse_error}"));
        }
    };
    if case.expect_error {
        return match &evaluation.result {
            Err(f) => match &case.error_message {
                Some(m) if !m.starts_with("failed to parse") && !f.message.contains(m.as_str()) => {
                    fail(format!(
                        "failure message {:?} does not contain {m:?}",
                        f.message
                    ))
                }
                _ => Outcome {
                    passed: true,
                    detail: String::new(),
                    elapsed,
                },
            },
            Ok(v) => fail(format!("expected a failure, got {v}")),
        };
    }
    let actual = match &evaluation.result {
        Ok(v) => v.clone(),
        Err(_) if case.tck_error_result => {
            return Outcome {
                passed: true,
                detail: String::new(),
                elapsed,
            };
        }
        Err(f) => return fail(format!("failed: {f}")),
    };
    if let Some(expected) = &case.expected {
        let expected = decode(expected);
        let equal = if case.tck {
            same_tck(&actual, &expected)
        } else {
            same(&actual, &expected)
        };
        if !equal {
            return fail(format!("got {actual}, expected {expected}"));
        }
    }
    // the asserted warnings must be reported, in this order
    let mut it = evaluation.warnings.iter();
    for (kind, message) in &case.suppressed {
        if !it.any(|w| w.kind.as_str() == kind && &w.message == message) {
            let got: Vec<String> = evaluation.warnings.iter().map(|w| w.to_string()).collect();
            return fail(format!("missing warning [{kind}] {message}; got {got:?}"));
        }
    }
    Outcome {
        passed: true,
        detail: String::new(),
        elapsed,
    }
}

/// Known failures: `id<TAB>reason` per line, `#` comments.
pub fn known_failures(file: &Path) -> IndexMap<String, String> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return IndexMap::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (id, reason) = l.split_once('\t').unwrap_or((l, ""));
            (id.to_string(), reason.to_string())
        })
        .collect()
}

/// The known-failures file of a corpus file (`feel/tests/known-failures/<stem>.txt`).
pub fn known_failures_file(corpus_file: &Path) -> PathBuf {
    let stem = corpus_file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("corpus");
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/known-failures")
        .join(format!("{stem}.txt"))
}

/// Why a case fails, in words (for the known-failures file).
pub fn failure_reason(case: &Case, detail: &str) -> String {
    let e = case.expression.as_str();
    let c = case.category.as_str();
    let why = if c.contains("0103-feel-is-function") {
        "is() is DMN 1.5 and not a feel-scala built-in".to_string()
    } else if c.contains("1155-list-replace") {
        "list replace() is DMN 1.5 and not a feel-scala built-in".to_string()
    } else if c.contains("1156-range-function") {
        "range() is DMN 1.5 and not a feel-scala built-in".to_string()
    } else if c.contains("0082-feel-coercion") || c.contains("0021-singleton-list") {
        "needs DMN result-type coercion (a decision-level rule, not FEEL)".to_string()
    } else if e.contains("999999999-") || e.contains("99999-12") {
        "a year beyond ±9999 (outside jiff's range)".to_string()
    } else if detail.starts_with("parse error") && (e.contains("..") || e.contains("function<")) {
        format!("feel-scala's grammar has no ranges as operands / typed function types: {detail}")
    } else if c.contains("0070-feel-instance-of") && e.contains("instance of t") {
        "instance of a DMN item definition (custom type) is not FEEL".to_string()
    } else {
        format!("differs: {detail}")
    };
    let camunda = match case.camunda_tck_result.as_str() {
        "" if case.tck => " (not in Camunda's TCK report)".to_string(),
        "" => String::new(),
        r => format!(" (Camunda's dmn-scala: {r})"),
    };
    format!("{why}{camunda}").replace(['\n', '\t'], " ")
}
