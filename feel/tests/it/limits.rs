//! Hostile expressions: each one ends in a parse error or an evaluation failure with a message
//! (the limits are listed on `Limits`), never in a stack overflow, an exhausted memory or a hang.

use baton_feel::{Env, Expression, UnaryTests, Value};

/// What evaluating `src` ends in, with the (long) source shown as `<expression>`.
fn outcome(src: &str) -> String {
    let shown = |message: String| message.replace(src, "<expression>");
    match Expression::parse(src) {
        Err(e) => shown(format!("parse error: {e}")),
        Ok(e) => match e.evaluate(&(), &Env::default()).result {
            Ok(v) => format!("value: {}", short(&v)),
            Err(f) => shown(format!("failure: {f}")),
        },
    }
}

fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}… ({} bytes)", &text[..i], text.len()),
        None => text,
    }
}

fn repeat(prefix: &str, n: usize, middle: &str, suffix: &str) -> String {
    format!("{}{middle}{}", prefix.repeat(n), suffix.repeat(n))
}

#[test]
fn long_chains_of_prefix_operators_and_nesting_are_parse_errors() {
    let n = 100_000;
    let cases = [
        ("unary minus", repeat("- ", n, "x", "")),
        ("unary minus on a number", repeat("-", n, "5", "")),
        ("not", repeat("not(", n, "true", ")")),
        ("parentheses", repeat("(", n, "1", ")")),
        ("lists", repeat("[", n, "1", "]")),
        ("contexts", repeat("{a: ", n, "1", "}")),
        ("if", repeat("if true then ", n, "1", " else 2")),
        ("for", repeat("for x in [1] return ", n, "x", "")),
        ("some", repeat("some x in [1] satisfies ", n, "true", "")),
        ("filters", repeat("", n, "[1]", "[1]")),
        ("paths", repeat("", n, "x", ".a")),
        ("calls", repeat("abs(", n, "1", ")")),
        ("methods", repeat("", n, "{f: function() 1}", ".f()")),
        ("or", repeat("", n, "a", " or a")),
        ("and", repeat("", n, "a", " and a")),
        ("sums", repeat("", n, "1", " + 1")),
        ("powers", repeat("", n, "2", " ** 2")),
        ("between", repeat("", n, "a", " between 1 and 2 or a")),
        (
            "instance of",
            repeat("", n, "a", " instance of number or a"),
        ),
        ("in", repeat("x in (", n, "1", ")")),
    ];
    let mut out = String::new();
    for (name, src) in &cases {
        out.push_str(&format!("{name}: {}\n", outcome(src)));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn chains_below_the_height_limit_still_parse_and_fail_evaluation_cleanly() {
    // 500 `or`s parse; evaluating walks the chain deeper than the evaluation's limit
    insta::assert_snapshot!(outcome(&repeat("", 500, "false", " or false")), @"failure: failed to evaluate expression '<expression>': the evaluation is nested deeper than 200 levels");
}

#[test]
fn evaluations_that_would_build_huge_values_stop_at_a_limit() {
    let cases = [
        "for x in 1..1000 return for y in 1..100000 return x + y",
        r#"string join(for x in 1..1000000 return "aaaaaaaaaaaaaaaa")"#,
        r#"for x in 1..1000 return string join(for y in 1..10000 return "aaaaaaaaaaaaaaaa")"#,
        "for x in 1..100000000 return x",
        "count(for x in 1..1000 return for y in 1..1000000 return 1)",
        "some x in 1..1000000, y in 1..1000000 satisfies false",
        "for i in 1..100000 return partial",
        r#"context put({}, for i in 1..100000 return "a", 1)"#,
        "count(flatten(for x in 1..1000 return for y in 1..10000 return y))",
    ];
    let mut out = String::new();
    for src in cases {
        out.push_str(&format!("{src}\n  {}\n", outcome(src)));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn a_unary_test_that_builds_a_huge_list_stops_at_a_limit() {
    let tests = UnaryTests::parse("for x in 1..100000000 return x").unwrap();
    let f = tests
        .evaluate(&Value::int(3), &(), &Env::default())
        .result
        .unwrap_err();
    insta::assert_snapshot!(f.message, @"failed to evaluate expression 'for x in 1..100000000 return x': the result would have 100000000 items, more than the limit of 2000000");
}

#[test]
fn decimals_never_grow_without_bound() {
    let towers = |n: usize| format!("x{}", " ** x".repeat(n));
    let x = Value::int(127);
    let vars = baton_feel::VarsFn(|name: &str| (name == "x").then(|| x.clone()));
    let mut out = String::new();
    for n in [1, 2, 3, 4, 49] {
        let src = towers(n);
        let e = Expression::parse(&src).unwrap();
        let shown = match e.evaluate(&vars, &Env::default()).result {
            Ok(v) => format!("value: {}", short(&v)),
            Err(f) => format!("failure: {}", f.message.replace(&src, "<expression>")),
        };
        out.push_str(&format!("x ** x … ({n} times): {shown}\n"));
    }
    // 2 ** 999999999 has 301,029,996 digits before the point, 0.5 ** 999999999 as many zeros
    // after it: kept as 34 digits and an exponent, never written out
    for src in [
        "2 ** 999999999 + 1",
        "2 ** 999999999 - 0.5 ** 999999999",
        "0.5 ** 999999999 + 0",
        "2 ** 999999999 * 2 ** 999999999 > 0",
        "0.5 ** 999999999 / 3",
        "2 ** 999999999 > 1",
        "decimal(0.5 ** 999999999, 2)",
        "decimal(2 ** 999999999, 2) > 0",
        "floor(2 ** 999999999) > 0",
        "floor(0.5 ** 999999999)",
        "ceiling(0.5 ** 999999999)",
        "modulo(2 ** 999999999, 7)",
        "string length(string(2 ** 999999999))",
        "substring(\"abc\", 2 ** 999999999)",
        "for x in 1..2 ** 999999999 return x",
        "(2 ** 999999999) ** 3",
        "2 ** 2147483648",
        "2 ** 3000000000",
        "0 ** -1",
        "1.5 ** 999999999",
        "0.5 ** 999999999",
        r#"number("1e999999999")"#,
    ] {
        out.push_str(&format!("{src}: {}\n", outcome(src)));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn functions_that_compare_items_with_each_other_count_the_comparisons() {
    // quadratic in the number of distinct items: stopped by the step limit (lowered here, so
    // that the test stays quick)
    let env = Env {
        limits: baton_feel::Limits {
            max_steps: 100_000,
            ..baton_feel::Limits::default()
        },
        ..Env::default()
    };
    let mut out = String::new();
    for src in [
        "count(distinct values(for x in 1..10000 return x))",
        "count(union(for x in 1..10000 return x, [0]))",
        "count(duplicate values(for x in 1..10000 return x))",
        "mode(for x in 1..10000 return x)",
    ] {
        let f = Expression::parse(src)
            .unwrap()
            .evaluate(&(), &env)
            .result
            .unwrap_err();
        out.push_str(&format!("{}\n", f.message));
    }
    insta::assert_snapshot!(out);
    // a few hundred distinct items are far below it
    let v = Expression::parse("count(distinct values(for x in 1..500 return x))")
        .unwrap()
        .evaluate(&(), &env)
        .value();
    assert_eq!(v, Value::int(500));
}

#[test]
fn an_evaluation_keeps_the_first_thousand_warnings_and_counts_the_rest() {
    // a warning per item (a missing variable, then `+ null`): two million messages were kept
    let src = "for x in 1..1000 return for y in 1..1000 return x + missing";
    let ev = Expression::parse(src)
        .unwrap()
        .evaluate(&(), &Env::default());
    assert!(ev.result.is_ok());
    assert_eq!(ev.warnings.len(), 1001);
    let shown: Vec<String> = [0, 1, 999, 1000]
        .iter()
        .map(|&i| ev.warnings[i].to_string())
        .collect();
    insta::assert_snapshot!(shown.join("\n"));
}

#[test]
fn a_warning_shows_at_most_the_first_thousand_bytes_of_a_value() {
    // a warning per item, each about a 100,000-item list: every message wrote the whole list
    // (600 KB), kept or not; this took 9 minutes
    let src = "count({l: for j in 1..100000 return j, r: for i in 1..100000 return l < i}.r)";
    let ev = Expression::parse(src)
        .unwrap()
        .evaluate(&(), &Env::default());
    assert_eq!(ev.result.unwrap(), Value::int(100_000));
    assert_eq!(ev.warnings.len(), 1001);
    let shown: Vec<String> = [0, 1000]
        .iter()
        .map(|&i| ev.warnings[i].to_string())
        .collect();
    insta::assert_snapshot!(shown.join("\n"));
}

/// The two expressions deeper fuzzing found running on: each search or compilation was bounded,
/// a million of them were not. One evaluation has one budget of steps, and regex work counts
/// in it (see `Limits::max_steps`).
#[test]
fn regex_work_counts_in_the_evaluations_one_budget() {
    let many_searches = format!(
        r#"for x in 1..1000 return (for y in 1..1000 return matches("{}!", "(a+)\\1+b"))"#,
        "a".repeat(5000)
    );
    insta::assert_snapshot!(outcome(&many_searches), @r"failure: failed to evaluate expression '<expression>': the evaluation took more than 10000000 steps (a search with the pattern '(a+)\1+b' counts up to 2000000 of them)");
    // A pattern too big to compile is refused before it is compiled, each time at the cost of
    // reading it: a null with the limit named, as for any invalid pattern.
    let src = r#"for x in 1..1000 return decimal(1 / 3, 999999999) + matches("a", "a{1000000}{1000000}")"#;
    let ev = Expression::parse(src)
        .unwrap()
        .evaluate(&(), &Env::default());
    assert_eq!(
        ev.result.unwrap().to_string(),
        format!("[{}]", vec!["null"; 1000].join(", "))
    );
    let shown: Vec<String> = ev.warnings[..2].iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(shown.join("\n"), @r"
    [FUNCTION_INVOCATION_FAILURE] Failed to invoke function 'decimal': scale '999999999' is out of range
    [FUNCTION_INVOCATION_FAILURE] Failed to invoke function 'matches': the pattern 'a{1000000}{1000000}' is 1000009 characters and classes long with its repetitions written out, more than the limit of 100000
    ");
    // Searches with a back-reference are charged their first, small backtracking limit.
    insta::assert_snapshot!(outcome(r#"count(for x in 1..1000 return matches("abc" + string(x), "^([a-z])\1*[0-9]+$"))"#), @"value: 1000");
    // A long input with a linear pattern is charged its length times the pattern.
    insta::assert_snapshot!(outcome(&format!(r#"for x in 1..1000 return matches("{}", "[a-c]+(b|c)*$")"#, "a".repeat(5000))), @"failure: failed to evaluate expression '<expression>': the evaluation took more than 10000000 steps (a search with the pattern '[a-c]+(b|c)*$' counts up to 60012 of them)");
}
