//! The public API: parse errors, warnings, JSON conversion, limits, clock, sharing.

use baton_feel::{Env, Expression, Limits, UnaryTests, Value, VarsFn, WarningKind};
use serde_json::json;

#[test]
fn parse_errors_name_the_expression_and_position() {
    let e = Expression::parse("a + (b * ").unwrap_err();
    insta::assert_snapshot!(e.to_string(), @r#"failed to parse expression 'a + (b * ': expected expression at 1:10, found end of input"#);
    assert_eq!(e.offset, 9);
}

#[test]
fn warnings_come_in_evaluation_order() {
    let ev = Expression::parse("1 + x")
        .unwrap()
        .evaluate(&(), &Env::default());
    assert_eq!(ev.result.unwrap(), Value::Null);
    let kinds: Vec<_> = ev.warnings.iter().map(|w| w.to_string()).collect();
    insta::assert_debug_snapshot!(kinds, @r#"
    [
        "[NO_VARIABLE_FOUND] No variable found with name 'x'",
        "[INVALID_TYPE] Can't add 'null' to '1'",
    ]
    "#);
}

#[test]
fn json_conversion_follows_zeebe() {
    let vars = json!({"n": 1, "f": 0.1, "big": 12345678901234567890u64, "ctx": {"b": 1, "a": 2}});
    let e = Expression::parse("{n: n * 2, f: f + 0.2, big: big, ctx: ctx, d: @\"2024-01-02T10:00:00@Europe/Berlin\", t: 1/3, dur: @\"P1DT2H\", ym: @\"P18M\", fn: function(x) x, r: date(\"2024-01-02\")}").unwrap();
    let v = e
        .evaluate(vars.as_object().unwrap(), &Env::default())
        .result
        .unwrap();
    insta::assert_snapshot!(v.to_json().to_string(), @r#"{"n":2,"f":0.3,"big":-6101065172474983726,"ctx":{"b":1,"a":2},"d":"2024-01-02T10:00:00+01:00","t":0.3333333333333333,"dur":"P1DT2H","ym":"P1Y6M","fn":null,"r":"2024-01-02"}"#);
}

#[test]
fn now_reads_the_callers_clock() {
    let now: jiff::ZonedDateTime = "2025-03-01T12:00:00+01:00[Europe/Berlin]".parse().unwrap();
    let env = Env::at(now);
    let v = Expression::parse("string(today()) + \" \" + string(now())")
        .unwrap()
        .evaluate(&(), &env)
        .value();
    assert_eq!(
        v,
        Value::string("2025-03-01 2025-03-01T12:00:00@Europe/Berlin")
    );
}

#[test]
fn limits_stop_runaway_work() {
    let env = Env {
        limits: Limits {
            max_items: 1000,
            ..Limits::default()
        },
        ..Env::default()
    };
    let ev = Expression::parse("for i in 1..100000 return i")
        .unwrap()
        .evaluate(&(), &env);
    let f = ev.result.unwrap_err();
    assert!(f.message.contains("more than the limit of 1000"), "{f}");
    let deep = Expression::parse("{f: function(n) f(n)}").unwrap();
    let _ = deep.evaluate(&(), &Env::default());
    let rec = VarsFn(|name: &str| {
        (name == "f").then(|| {
            Expression::parse("function(n) f(n + 1)")
                .unwrap()
                .evaluate(&(), &Env::default())
                .value()
        })
    });
    let ev = Expression::parse("f(1)")
        .unwrap()
        .evaluate(&rec, &Env::default());
    assert!(ev.result.unwrap_err().message.contains("nested deeper"));
}

#[test]
fn unary_tests_test_the_input() {
    let t = UnaryTests::parse("< 10, [20..30]").unwrap();
    let env = Env::default();
    assert_eq!(
        t.evaluate(&Value::int(25), &(), &env).value(),
        Value::Boolean(true)
    );
    assert_eq!(
        t.evaluate(&Value::int(15), &(), &env).value(),
        Value::Boolean(false)
    );
    let n = UnaryTests::parse("\"x\"")
        .unwrap()
        .evaluate(&Value::Boolean(true), &(), &env);
    assert_eq!(n.value(), Value::Null);
    assert!(
        n.warnings
            .iter()
            .any(|w| w.kind == WarningKind::NotComparable)
    );
}

#[test]
fn expressions_are_shareable() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Expression>();
    assert_send_sync::<UnaryTests>();
    assert_send_sync::<Value>();
}

#[test]
fn from_ai_parameters_are_extracted() {
    let e = Expression::parse(
        "{url: fromAi(toolCall.url, \"The URL\", \"string\"), n: fromAi(value: toolCall.n, options: {required: false}), s: string(fromAi(toolCall.s))}",
    )
    .unwrap();
    let ps = baton_feel::from_ai::extract(&e).unwrap();
    let names: Vec<_> = ps.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["toolCall.url", "toolCall.n", "toolCall.s"]);
    assert_eq!(ps[0].description.as_deref(), Some("The URL"));
    assert_eq!(ps[1].options, Some(json!({"required": false})));
    let bad = Expression::parse("fromAi(\"x\")").unwrap();
    insta::assert_snapshot!(baton_feel::from_ai::extract(&bad).unwrap_err(), @"Expected fromAi() parameter 'value' to be a reference (e.g. 'toolCall.customParameter'), but received string 'x'.");
}

/// The messages of Zeebe's `FromAiTaggedParameterExtractor` (camunda/camunda
/// `zeebe/feel-tagged-parameters/.../FromAiTaggedParameterExtractor.java`): a string, number or
/// boolean argument prints as its value, anything else as feel-scala's syntax tree; the cases of
/// its `TaggedParameterExtractorTest` first.
#[test]
fn from_ai_errors_print_what_zeebe_prints() {
    let reference = "Expected fromAi() parameter 'value' to be a reference (e.g. 'toolCall.customParameter'), but received";
    let cases = [
        ("fromAi(\"toolCall.myVariable\")", format!("{reference} string 'toolCall.myVariable'.")),
        ("fromAi(10)", format!("{reference} 10.")),
        ("fromAi([])", format!("{reference} ConstList(List()).")),
        (
            "fromAi(fromAi(toolCall.myVariable))",
            format!("{reference} FunctionInvocation(fromAi,PositionalFunctionParameters(List(Ref(List(toolCall, myVariable))))).")
        ),
        ("fromAi(value: toolCall.myVariable, description: 10)", "Expected fromAi() parameter 'description' to be a string, but received '10'.".into()),
        (
            "fromAi(value: toolCall.myVariable, type: \"str\" + \"ing\")",
            "Expected fromAi() parameter 'type' to be a string, but received 'Addition(ConstString(str),ConstString(ing))'.".into(),
        ),
        ("fromAi(value: toolCall.myVariable, schema: \"dummy\")", "Expected fromAi() parameter 'schema' to be a context (map), but received 'dummy'.".into()),
        ("fromAi(value: toolCall.myVariable, options: \"dummy\")", "Expected fromAi() parameter 'options' to be a context (map), but received 'dummy'.".into()),
        // The rest of the extractor's cases, by its code.
        ("fromAi(true)", format!("{reference} true.")),
        ("fromAi(-1)", format!("{reference} ArithmeticNegation(ConstNumber(1)).")),
        ("fromAi(null)", format!("{reference} ConstNull.")),
        (
            "fromAi(if x then toolCall.x else toolCall.y)",
            format!("{reference} If(Ref(List(x)),Ref(List(toolCall, x)),Ref(List(toolCall, y)))."),
        ),
        ("fromAi(toolCall[\"x\"])", format!("{reference} Filter(Ref(List(toolCall)),ConstString(x)).")),
        ("fromAi(toolCall.x, null)", "Expected fromAi() parameter 'description' to be a string, but received 'ConstNull'.".into()),
        ("fromAi(toolCall.x, \"d\", false)", "Expected fromAi() parameter 'type' to be a string, but received 'false'.".into()),
        // A missing value is a null the extractor's switch does not handle: no message at all.
        ("fromAi()", "null".into()),
        ("fromAi(description: \"d\")", "null".into()),
        // Constants of a schema or options context: numbers, booleans, strings, lists, contexts.
        (
            "fromAi(toolCall.x, \"d\", \"string\", {enum: [a]})",
            "Unsupported expression value in fromAi() function invocation: Ref".into(),
        ),
        (
            "fromAi(toolCall.x, \"d\", \"string\", {default: null})",
            "Unsupported expression value in fromAi() function invocation: ConstNull$".into(),
        ),
        (
            "fromAi(toolCall.x, \"d\", \"number\", {minimum: -1})",
            "Unsupported expression value in fromAi() function invocation: ArithmeticNegation".into(),
        ),
    ];
    let mut wrong = Vec::new();
    for (source, expected) in &cases {
        let e = Expression::parse(source).unwrap();
        match baton_feel::from_ai::extract(&e) {
            Err(message) if message == *expected => {}
            other => wrong.push(format!(
                "{source}\n  got      {other:?}\n  expected {expected}"
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let schema = Expression::parse(
        "fromAi(toolCall.x, \"d\", \"number\", {minimum: 1.50, enum: [1, \"a\", true, {b: []}]})",
    )
    .unwrap();
    assert_eq!(
        baton_feel::from_ai::extract(&schema).unwrap()[0].schema,
        Some(json!({"minimum": 1.5, "enum": [1, "a", true, {"b": []}]}))
    );
}

#[test]
fn cached_vars_look_up_each_variable_once() {
    use std::cell::Cell;
    let calls = Cell::new(0);
    let vars = baton_feel::CachedVars::new(VarsFn(|name: &str| {
        calls.set(calls.get() + 1);
        (name == "order").then(|| Value::from_json(&json!({"total": 250, "country": "DE"})))
    }));
    let e = Expression::parse("order.total > 100 and order.country = \"DE\" and missing = null")
        .unwrap();
    assert_eq!(
        e.evaluate(&vars, &Env::default()).value(),
        Value::Boolean(true)
    );
    assert_eq!(calls.get(), 2);
}

/// Every prefix of every case-table expression parses or fails with an error, and what parses
/// evaluates without a panic (bad input is an error value, never a panic).
#[test]
fn prefixes_of_expressions_never_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut sources: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            if let Some((lhs, _)) = line.rsplit_once(" --> ") {
                sources.push(lhs.trim_start_matches("unary ").to_string());
            }
        }
    }
    sources.extend(
        [
            "substring(\"abc\", 2, 9223372036854775807)",
            "sublist([1, 2], 1, 9223372036854775807)",
            "decimal(1, 999999999)",
            "2 ** 999999999",
            "-duration(\"P999999999Y\") * 999999999",
            "\"\\u",
            "@\"",
            "{a: {b: {c: [",
            "`",
        ]
        .map(String::from),
    );
    let env = Env::default();
    for src in &sources {
        for (i, _) in src.char_indices().chain([(src.len(), ' ')]) {
            let prefix = &src[..i];
            if let Ok(e) = Expression::parse(prefix) {
                let _ = e.evaluate(&(), &env);
            }
            if let Ok(t) = UnaryTests::parse(prefix) {
                let _ = t.evaluate(&Value::int(1), &(), &env);
            }
        }
    }
}

#[test]
fn native_functions_come_from_the_variables_only() {
    use baton_feel::NativeFunction;
    use indexmap::IndexMap;
    let tag = NativeFunction::new(
        "tag",
        &[&["code"], &["code", "message"]],
        |args| match &args[0] {
            Value::String(code) => Ok(Value::string(format!(
                "{code}:{}",
                args.get(1).map(|m| m.to_string()).unwrap_or_default()
            ))),
            other => Err(format!("Parameter 'code' must be a String, got {other}")),
        },
    );
    let mut vars: IndexMap<String, Value> = IndexMap::new();
    vars.insert("tag".into(), tag.into_value());
    let eval = |source: &str, vars: &dyn baton_feel::Variables| {
        let ev = Expression::parse(source)
            .unwrap()
            .evaluate(vars, &Env::default());
        let warnings: Vec<String> = ev.warnings.iter().map(|w| w.to_string()).collect();
        (ev.result.unwrap().to_string(), warnings)
    };
    insta::assert_debug_snapshot!([
        eval(r#"tag("A")"#, &vars),
        eval(r#"tag("A", "m")"#, &vars),
        eval(r#"tag(message: "m", code: "B")"#, &vars),
        eval(r#"tag(1)"#, &vars),
        eval(r#"tag("A", "m", 3)"#, &vars),
        eval(r#"tag("A")"#, &()),
    ], @r#"
    [
        (
            "\"A:\"",
            [],
        ),
        (
            "\"A:\"m\"\"",
            [],
        ),
        (
            "\"B:\"m\"\"",
            [],
        ),
        (
            "null",
            [
                "[FUNCTION_INVOCATION_FAILURE] Failed to invoke function 'tag': Parameter 'code' must be a String, got 1",
            ],
        ),
        (
            "null",
            [
                "[NO_FUNCTION_FOUND] No function found with name 'tag' and 3 parameters",
            ],
        ),
        (
            "null",
            [
                "[NO_FUNCTION_FOUND] No function found with name 'tag' and 1 parameters",
            ],
        ),
    ]
    "#);
}

#[test]
fn uuids_are_version_7_from_the_callers_clock_and_seed() {
    let now: jiff::ZonedDateTime = "2025-03-01T12:00:00+00:00[UTC]".parse().unwrap();
    let uuids = |seed| {
        let env = Env {
            seed,
            ..Env::at(now.clone())
        };
        let v = Expression::parse("[uuid(), uuid()]")
            .unwrap()
            .evaluate(&(), &env)
            .value()
            .to_json();
        serde_json::from_value::<Vec<String>>(v).unwrap()
    };
    let first = uuids(0);
    let millis = format!("{:012x}", now.timestamp().as_millisecond());
    for id in &first {
        assert_eq!(id.len(), 36, "{id}");
        assert_eq!(
            id.replace('-', "")[..12],
            millis,
            "{id} starts with the clock"
        );
        assert_eq!(&id[14..15], "7", "{id} is version 7");
        assert!("89ab".contains(&id[19..20]), "{id} has the IETF variant");
    }
    assert_ne!(first[0], first[1], "each call draws new bits");
    assert_eq!(uuids(0), first, "the same seed repeats");
    assert_ne!(uuids(1), first, "another seed differs");
}

#[test]
fn invalid_patterns_fail_with_feel_scalas_messages() {
    let warnings: Vec<String> = ["matches(\"abc\", \"[a-z\")", "split(\"a,b\", \"(\")"]
        .iter()
        .flat_map(|source| {
            let ev = Expression::parse(source)
                .unwrap()
                .evaluate(&(), &Env::default());
            assert_eq!(ev.result.unwrap(), Value::Null, "{source}");
            ev.warnings
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    insta::assert_debug_snapshot!(warnings, @r#"
    [
        "[FUNCTION_INVOCATION_FAILURE] Failed to invoke function 'matches': Invalid pattern '[a-z'",
        "[FUNCTION_INVOCATION_FAILURE] Failed to invoke function 'split': Invalid pattern for delimiter '('",
    ]
    "#);
}
