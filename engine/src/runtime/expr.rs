//! Expressions as the engine holds them: a static value or FEEL parsed once at deploy.
//!
//! Zeebe reads an attribute that starts with `=` as FEEL and anything else as a static value.
//! Evaluation goes through [`Engine::eval`](super::Engine), which supplies the variables of a
//! scope chain and the engine clock.

use std::sync::Arc;

use serde_json::Value as Json;

use super::shared_json::SharedJson;
use crate::model;

/// A compiled expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// Text without a leading `=`: its value is the text itself.
    Static(Arc<str>),
    /// FEEL source (without the `=`), checked at deploy.
    Feel(Arc<FeelExpr>),
}

/// A FEEL expression: its source and where it came from.
#[derive(Debug)]
pub struct FeelExpr {
    pub source: String,
    pub parsed: baton_feel_bridge::Parsed,
    /// The value of an expression that reads no variable and calls no function (`="text"`,
    /// `=20`, `={type: "object", ...}`), evaluated once here: Zeebe evaluates it on every use,
    /// always to the same value. `None` for every other expression, and for constants whose
    /// evaluation fails or warns (those are evaluated on use, for their messages).
    constant: Option<SharedJson>,
    /// The variable and keys the expression only reads
    /// ([`baton_feel_bridge::variable_path`]), found once here.
    path: Option<(Arc<str>, Vec<Arc<str>>)>,
    /// The entries of a context literal whose values only read variable paths or call `now()`
    /// ([`baton_feel_bridge::context_of_paths`]), found once here.
    context: Option<Vec<(Arc<str>, ContextPart)>>,
    /// `path = literal` / `path != literal` ([`baton_feel_bridge::path_comparison`]), found
    /// once here.
    comparison: Option<baton_feel_bridge::PathComparison>,
}

/// A value of a context literal read without FEEL (see [`FeelExpr::context_of_paths`]).
#[derive(Debug)]
pub enum ContextPart {
    /// `name` or `name.key1.key2…`.
    Path(Arc<str>, Vec<Arc<str>>),
    /// `now()`.
    Now,
}

impl FeelExpr {
    /// A parsed expression; a constant one is evaluated now.
    pub fn new(source: String, parsed: baton_feel_bridge::Parsed) -> FeelExpr {
        let constant = baton_feel_bridge::is_constant(&parsed)
            .then(|| {
                let outcome =
                    baton_feel_bridge::evaluate(&parsed, &source, &|_| None, &|_| None, 0, 0);
                match outcome.result {
                    Ok(value) if outcome.warnings.is_empty() => Some(SharedJson::new(value)),
                    _ => None,
                }
            })
            .flatten();
        let path = baton_feel_bridge::variable_path(&parsed);
        let context = baton_feel_bridge::context_of_paths(&parsed);
        let comparison = baton_feel_bridge::path_comparison(&parsed);
        FeelExpr {
            source,
            parsed,
            constant,
            path,
            context,
            comparison,
        }
    }

    /// The variable and keys of an expression that only reads a variable or a path into it
    /// (`=agent`, `=agent.context`, `=fromAi(toolCall.query, "…")`).
    pub fn variable_path(&self) -> Option<(&str, &[Arc<str>])> {
        self.path
            .as_ref()
            .map(|(name, keys)| (&**name, keys.as_slice()))
    }

    /// The entries of a context literal such as the AI agent's output element
    /// `{id: toolCall._meta.id, name: toolCall._meta.name, content: toolCallResult, completedAt:
    /// now()}`: keys distinct, each value a variable path (not through a key of the context) or
    /// `now()` (no key named `now`).
    pub fn context_of_paths(&self) -> Option<&[(Arc<str>, ContextPart)]> {
        self.context.as_deref()
    }

    /// A comparison of a variable path with a literal, such as a gateway's
    /// `agent.responseJson.resolved = true`.
    pub fn path_comparison(&self) -> Option<&baton_feel_bridge::PathComparison> {
        self.comparison.as_ref()
    }

    /// The value of a constant expression (see [`FeelExpr::new`]), shared.
    pub fn constant(&self) -> Option<&SharedJson> {
        self.constant.as_ref()
    }
}

impl Expr {
    /// Compiles the model's expression text; a FEEL parse error is returned as a message.
    pub fn compile(e: &model::Expr) -> Result<Expr, String> {
        Expr::compile_text(&e.text)
    }

    pub fn compile_text(text: &str) -> Result<Expr, String> {
        match text.strip_prefix('=') {
            Some(source) => {
                let parsed = baton_feel_bridge::parse(source)?;
                Ok(Expr::Feel(Arc::new(FeelExpr::new(
                    source.to_owned(),
                    parsed,
                ))))
            }
            None => Ok(Expr::Static(Arc::from(text))),
        }
    }

    /// A static string value.
    pub fn of_static(text: &str) -> Expr {
        Expr::Static(Arc::from(text))
    }

    /// The text as written (with `=` for FEEL).
    pub fn text(&self) -> String {
        match self {
            Expr::Static(s) => s.to_string(),
            Expr::Feel(f) => format!("={}", f.source),
        }
    }

    /// The variables a FEEL expression reads (the roots of paths; names bound by `for`, `some`,
    /// `every`, function parameters and context entries are not variables), in first-use order.
    pub fn referenced_variables(&self) -> Vec<String> {
        match self {
            Expr::Static(_) => Vec::new(),
            Expr::Feel(f) => baton_feel_bridge::referenced_variables(&f.parsed),
        }
    }

    /// The static text, if the expression is static.
    pub fn as_static(&self) -> Option<&str> {
        match self {
            Expr::Static(s) => Some(s),
            Expr::Feel(_) => None,
        }
    }
}

/// The seam to `baton-feel`: parsing, evaluation and value conversion live here and nowhere else.
pub mod baton_feel_bridge {
    use std::sync::Arc;

    use super::Json;
    use crate::runtime::shared_json::{JsonRef, SharedJson};

    /// A parsed FEEL expression.
    pub type Parsed = baton_feel::Expression;

    /// A value as FEEL sees it.
    pub type FeelValue = baton_feel::Value;

    /// A warning FEEL reported (formatted only when a message shows it).
    pub type FeelWarning = baton_feel::Warning;

    /// Converts a variable's JSON into a FEEL value with Zeebe's rules.
    pub fn to_feel(json: &Json) -> FeelValue {
        baton_feel::Value::from_json(json)
    }

    /// [`to_feel`] of a shared value, read in place.
    pub fn shared_to_feel(value: &SharedJson) -> FeelValue {
        ref_to_feel(value.view())
    }

    /// [`to_feel`] of a part of a value, read in place.
    pub fn ref_to_feel(value: JsonRef<'_>) -> FeelValue {
        if let Some(json) = value.plain() {
            return to_feel(json);
        }
        if let Some(items) = value.items() {
            return baton_feel::Value::list(items.map(ref_to_feel).collect());
        }
        match value.entries() {
            Some(entries) => {
                let mut context = baton_feel::Context::default();
                for (key, entry) in entries {
                    context.insert(key.into(), ref_to_feel(entry));
                }
                baton_feel::Value::context(context)
            }
            None => baton_feel::Value::Null,
        }
    }

    /// Parses FEEL source.
    pub fn parse(source: &str) -> Result<Parsed, String> {
        baton_feel::Expression::parse(source).map_err(|e| e.to_string())
    }

    /// The free variable names of an expression.
    pub fn referenced_variables(parsed: &Parsed) -> Vec<String> {
        let mut out = Vec::new();
        let mut bound = Vec::new();
        walk(parsed.ast(), &mut bound, &mut out);
        out
    }

    fn walk(e: &baton_feel::ast::Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
        use baton_feel::ast::{Args, ExprKind as K, Iteration};
        let iterations = |its: &[(std::sync::Arc<str>, Iteration)],
                          body: &baton_feel::ast::Expr,
                          bound: &mut Vec<String>,
                          out: &mut Vec<String>| {
            let depth = bound.len();
            for (name, it) in its {
                match it {
                    Iteration::List(x) => walk(x, bound, out),
                    Iteration::Range(a, b) => {
                        walk(a, bound, out);
                        walk(b, bound, out);
                    }
                }
                bound.push(name.to_string());
            }
            walk(body, bound, out);
            bound.truncate(depth);
        };
        let args = |a: &Args, bound: &mut Vec<String>, out: &mut Vec<String>| match a {
            Args::Positional(xs) => xs.iter().for_each(|x| walk(x, bound, out)),
            Args::Named(xs) => xs.iter().for_each(|(_, x)| walk(x, bound, out)),
        };
        match &e.kind {
            K::Name(n) => {
                if !bound.iter().any(|b| **b == **n) && !out.iter().any(|o| **o == **n) {
                    out.push(n.to_string());
                }
            }
            K::Const(_) | K::Input | K::AnyInput => {}
            K::Path(x, _) | K::Neg(x) | K::InstanceOf(x, _) => walk(x, bound, out),
            K::InputCompare(_, x)
            | K::InputInRange(x)
            | K::InputEqualTo(x)
            | K::UnaryTest(x)
            | K::NotTests(x) => walk(x, bound, out),
            K::Filter(a, b)
            | K::Arith(_, a, b)
            | K::Compare(_, a, b)
            | K::And(a, b)
            | K::Or(a, b)
            | K::In(a, b) => {
                walk(a, bound, out);
                // Inside a filter, `item` and the item's fields are not variables.
                if matches!(e.kind, K::Filter(..)) {
                    bound.push("item".to_owned());
                    walk(b, bound, out);
                    bound.pop();
                } else {
                    walk(b, bound, out);
                }
            }
            K::Range { start, end, .. } => {
                walk(start, bound, out);
                walk(end, bound, out);
            }
            K::Between(a, b, c) | K::If(a, b, c) => {
                walk(a, bound, out);
                walk(b, bound, out);
                walk(c, bound, out);
            }
            K::List(xs) | K::AnyOf(xs) => xs.iter().for_each(|x| walk(x, bound, out)),
            K::Context(entries) => {
                let depth = bound.len();
                for (k, x) in entries {
                    walk(x, bound, out);
                    bound.push(k.to_string());
                }
                bound.truncate(depth);
            }
            K::For(its, body) | K::Some(its, body) | K::Every(its, body) => {
                iterations(its, body, bound, out)
            }
            K::FunctionDef(params, body) => {
                let depth = bound.len();
                bound.extend(params.iter().map(|p| p.to_string()));
                walk(body, bound, out);
                bound.truncate(depth);
            }
            K::Call(_, a) => args(a, bound, out),
            K::MethodCall(x, _, a) => {
                walk(x, bound, out);
                args(a, bound, out);
            }
        }
    }

    /// Whether an expression reads nothing but its own literals: no variable, no function call,
    /// no input (`?`), no iteration or filter (they bind names). Its value never changes.
    pub fn is_constant(parsed: &Parsed) -> bool {
        fn constant(e: &baton_feel::ast::Expr) -> bool {
            use baton_feel::ast::ExprKind as K;
            match &e.kind {
                K::Const(_) => true,
                K::List(xs) => xs.iter().all(constant),
                K::Context(entries) => entries.iter().all(|(_, x)| constant(x)),
                K::Path(x, _) | K::Neg(x) | K::InstanceOf(x, _) => constant(x),
                K::Arith(_, a, b) | K::Compare(_, a, b) | K::And(a, b) | K::Or(a, b) => {
                    constant(a) && constant(b)
                }
                K::If(a, b, c) | K::Between(a, b, c) => constant(a) && constant(b) && constant(c),
                _ => false,
            }
        }
        constant(parsed.ast())
    }

    /// The result of an evaluation: a JSON value (Zeebe's conversion) or a failure message, plus
    /// the warnings FEEL reported.
    pub struct Outcome {
        pub result: Result<Json, String>,
        pub warnings: Vec<FeelWarning>,
    }

    /// The most keys [`variable_path`] follows.
    const MAX_PATH_KEYS: usize = 8;

    /// `name` or `name.key1.key2…` (up to 8 keys): the variable and keys an expression that only
    /// reads a variable, or a path into it, reads (`=agent`, `=agent.context`). Zeebe's
    /// `fromAi(path, "description", "type", {schema}, {options})` is its first argument (the
    /// function returns it unchanged) when the others are plain literals, which evaluate
    /// without warnings.
    pub fn variable_path(parsed: &Parsed) -> Option<(Arc<str>, Vec<Arc<str>>)> {
        use baton_feel::ast::{Args, ExprKind as K};
        let mut at = parsed.ast();
        if let K::Call(function, Args::Positional(args)) = &at.kind
            && &**function == "fromAi"
            && (1..=5).contains(&args.len())
            && args[1..].iter().all(plain_literal)
        {
            at = &args[0];
        }
        path_of(at)
    }

    /// `path = literal` or `path != literal` (either way round), the literal a boolean, a string
    /// or an integer.
    #[derive(Debug)]
    pub struct PathComparison {
        /// The variable the path starts at.
        pub name: Arc<str>,
        /// The keys into it (none for the variable itself).
        pub keys: Vec<Arc<str>>,
        /// The literal: a boolean, a string or a 64-bit integer.
        pub literal: Json,
        /// `!=` rather than `=`.
        pub negated: bool,
    }

    /// The comparison of an expression that compares a variable path with a literal (see
    /// [`PathComparison`]).
    pub fn path_comparison(parsed: &Parsed) -> Option<PathComparison> {
        use baton_feel::ast::{CmpOp, ExprKind as K};
        let K::Compare(op, a, b) = &parsed.ast().kind else {
            return None;
        };
        let negated = match op {
            CmpOp::Eq => false,
            CmpOp::Ne => true,
            _ => return None,
        };
        let (path, literal) = match (&a.kind, &b.kind) {
            (_, K::Const(literal)) => (path_of(a)?, literal),
            (K::Const(literal), _) => (path_of(b)?, literal),
            _ => return None,
        };
        let literal = literal.to_json();
        let comparable = match &literal {
            Json::Bool(_) | Json::String(_) => true,
            Json::Number(n) => n.is_i64(),
            _ => false,
        };
        comparable.then(|| PathComparison {
            name: path.0,
            keys: path.1,
            literal,
            negated,
        })
    }

    /// FEEL's answer to a [`PathComparison`] when the path's value is of the literal's type
    /// (a boolean, a string, a 64-bit integer): equality of two values of one type, with no
    /// warning. `None` (the caller evaluates in FEEL) for anything else: a missing value, null,
    /// another type, a path through a list.
    pub fn compare_path(value: Option<JsonRef<'_>>, comparison: &PathComparison) -> Option<bool> {
        let value = value?.at(&comparison.keys)?.plain()?;
        let equal = match (value, &comparison.literal) {
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => a.as_i64()? == b.as_i64()?,
            _ => return None,
        };
        Some(equal != comparison.negated)
    }

    /// The entries of a context literal whose values are variable paths or `now()` (see
    /// [`super::FeelExpr::context_of_paths`]).
    pub fn context_of_paths(parsed: &Parsed) -> Option<Vec<(Arc<str>, super::ContextPart)>> {
        use baton_feel::ast::{Args, ExprKind as K};
        let K::Context(entries) = &parsed.ast().kind else {
            return None;
        };
        if entries.is_empty() || entries.len() > MAX_CONTEXT_PARTS {
            return None;
        }
        let is_key = |name: &str| entries.iter().any(|(key, _)| &**key == name);
        let mut parts = Vec::with_capacity(entries.len());
        for (i, (key, value)) in entries.iter().enumerate() {
            if entries[..i].iter().any(|(earlier, _)| earlier == key) {
                return None;
            }
            let part = match &value.kind {
                // A context entry named `now` holding a function would be called instead.
                K::Call(function, Args::Positional(args))
                    if &**function == "now" && args.is_empty() && !is_key("now") =>
                {
                    super::ContextPart::Now
                }
                _ => {
                    let (root, keys) = path_of(value)?;
                    // An entry reads the context's earlier entries before the variables.
                    if is_key(&root) {
                        return None;
                    }
                    super::ContextPart::Path(root, keys)
                }
            };
            parts.push((key.clone(), part));
        }
        Some(parts)
    }

    const MAX_CONTEXT_PARTS: usize = 16;

    /// `name` or `name.key1.key2…` (up to 8 keys).
    fn path_of(mut at: &baton_feel::ast::Expr) -> Option<(Arc<str>, Vec<Arc<str>>)> {
        use baton_feel::ast::ExprKind as K;
        let mut keys = Vec::new();
        loop {
            match &at.kind {
                K::Path(x, key) if keys.len() < MAX_PATH_KEYS => {
                    keys.push(key.clone());
                    at = x;
                }
                K::Name(root) => {
                    keys.reverse();
                    return Some((root.clone(), keys));
                }
                _ => return None,
            }
        }
    }

    /// The value FEEL gives a context of paths and `now()` (see [`context_of_paths`]), built
    /// without FEEL: each path's JSON copied as it is, `now()` as FEEL converts it. `None` (the
    /// caller evaluates in FEEL) when a path is missing or its value would not survive FEEL's
    /// conversion unchanged ([`json_at`]).
    pub fn context_value<'l>(
        parts: &[(Arc<str>, super::ContextPart)],
        json: &dyn Fn(&str) -> Option<JsonRef<'l>>,
        now: &dyn Fn() -> Json,
    ) -> Option<Json> {
        let mut object = serde_json::Map::with_capacity(parts.len());
        for (key, part) in parts {
            let value = match part {
                super::ContextPart::Path(name, keys) => json_at(json(name)?, keys)?.to_json(),
                super::ContextPart::Now => now(),
            };
            object.insert(key.to_string(), value);
        }
        Some(Json::Object(object))
    }

    /// FEEL's `now()` at the given instant (epoch milliseconds, UTC), as JSON.
    pub fn now_json(now_ms: i64) -> Json {
        baton_feel::Value::date_time(baton_feel::temporal::DateTime::Zoned(zoned_now(now_ms)))
            .to_json()
    }

    /// The engine clock as FEEL's `now()` sees it (UTC).
    fn zoned_now(now_ms: i64) -> jiff::ZonedDateTime {
        jiff::Timestamp::from_millisecond(now_ms)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
    }

    /// A literal whose evaluation cannot fail or warn: a constant, or a list or context (with
    /// distinct keys) of such literals.
    fn plain_literal(e: &baton_feel::ast::Expr) -> bool {
        use baton_feel::ast::ExprKind as K;
        match &e.kind {
            K::Const(_) => true,
            K::List(items) => items.iter().all(plain_literal),
            K::Context(entries) => entries.iter().enumerate().all(|(i, (key, value))| {
                plain_literal(value) && entries[..i].iter().all(|(earlier, _)| earlier != key)
            }),
            _ => false,
        }
    }

    /// The value at `keys` inside a JSON variable when every step is an object holding the key,
    /// and when it survives FEEL's conversion unchanged (see [`round_trips`]): then evaluating the
    /// path in FEEL and converting the result back gives this very JSON, so the caller may skip
    /// both conversions. `None` sends the caller to FEEL (missing keys warn, lists project).
    pub fn json_at<'j>(json: JsonRef<'j>, keys: &[Arc<str>]) -> Option<JsonRef<'j>> {
        let value = json.at(keys)?;
        round_trips(value).then_some(value)
    }

    /// Whether JSON → FEEL → JSON gives the same JSON: everything but numbers that are not
    /// 64-bit integers (a float like `1.0` comes back as `1`, a large unsigned wraps). Read in
    /// place.
    pub fn round_trips(value: JsonRef<'_>) -> bool {
        fn plain(json: &Json) -> bool {
            match json {
                Json::Number(n) => n.is_i64(),
                Json::Array(items) => items.iter().all(plain),
                Json::Object(map) => map.values().all(plain),
                Json::Null | Json::Bool(_) | Json::String(_) => true,
            }
        }
        if let Some(json) = value.plain() {
            return plain(json);
        }
        match value.items() {
            Some(mut items) => items.all(round_trips),
            None => value
                .entries()
                .is_none_or(|mut entries| entries.all(|(_, v)| round_trips(v))),
        }
    }

    /// Variables for one evaluation: whole variables as FEEL values (cached by the caller), and
    /// paths into JSON variables converted at their end only.
    struct LookupVars<'l> {
        feel: &'l dyn Fn(&str) -> Option<FeelValue>,
        json: &'l dyn Fn(&str) -> Option<JsonRef<'l>>,
    }

    impl baton_feel::Variables for LookupVars<'_> {
        fn get(&self, name: &str) -> Option<FeelValue> {
            (self.feel)(name)
        }

        fn get_entry(&self, name: &str, keys: &[&str]) -> Option<FeelValue> {
            let value = (self.json)(name)?.at(keys)?;
            Some(ref_to_feel(value))
        }
    }

    /// Evaluates against a variable lookup at the given instant (epoch milliseconds, UTC), with
    /// `seed` for `uuid()` and `random number()`. The lookups are asked only for the names the
    /// expression reads, when it reads them: `feel` for whole variables, `json` for paths into
    /// them (only the end of the path is converted).
    pub fn evaluate<'l>(
        parsed: &Parsed,
        _source: &str,
        feel: &'l dyn Fn(&str) -> Option<FeelValue>,
        json: &'l dyn Fn(&str) -> Option<JsonRef<'l>>,
        now_ms: i64,
        seed: u64,
    ) -> Outcome {
        let now = zoned_now(now_ms);
        let env = baton_feel::Env {
            seed,
            ..baton_feel::Env::at(now)
        };
        let vars = LookupVars { feel, json };
        let evaluation = parsed.evaluate(&vars, &env);
        Outcome {
            result: evaluation
                .result
                .map(|v| v.to_json())
                .map_err(|f| f.message),
            warnings: evaluation.warnings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::shared_json::JsonRef;

    fn vars(text: &str) -> Vec<String> {
        Expr::compile_text(text).unwrap().referenced_variables()
    }

    fn feel(text: &str) -> Arc<FeelExpr> {
        match Expr::compile_text(text).unwrap() {
            Expr::Feel(f) => f,
            Expr::Static(_) => panic!("not FEEL: {text}"),
        }
    }

    #[test]
    fn from_ai_reads_as_its_value_when_the_other_arguments_are_plain_literals() {
        let path = |text: &str| {
            let keys = |keys: &[Arc<str>]| keys.iter().map(|k| k.to_string()).collect::<Vec<_>>();
            feel(text)
                .variable_path()
                .map(|(name, path)| format!("{name}/{}", keys(path).join("/")))
        };
        assert_eq!(path("=toolCall.query").as_deref(), Some("toolCall/query"));
        assert_eq!(
            path(r#"=fromAi(toolCall.query, "What to search", "string")"#).as_deref(),
            Some("toolCall/query")
        );
        assert_eq!(
            path(r#"=fromAi(toolCall.p, "d", "string", {enum: ["a", "b"]}, {required: false})"#)
                .as_deref(),
            Some("toolCall/p")
        );
        // Arguments that read variables, repeat context keys, or overflow the overloads are
        // evaluated by FEEL (warnings, no matching overload).
        assert_eq!(path(r#"=fromAi(toolCall.q, description)"#), None);
        assert_eq!(path(r#"=fromAi(toolCall.q, "d", "t", {a: 1, a: 2})"#), None);
        assert_eq!(
            path(r#"=fromAi(toolCall.q, "a", "b", "c", "d", "e")"#),
            None
        );
        assert_eq!(path(r#"=fromAi(value: toolCall.q)"#), None);
    }

    #[test]
    fn a_context_of_paths_and_now_is_built_as_feel_evaluates_it() {
        use baton_feel_bridge::{context_value, evaluate};
        let text = "={id: toolCall._meta.id, name: toolCall._meta.name, content: result, \
                    completedAt: now()}";
        let f = feel(text);
        let parts = f.context_of_paths().expect("a context of paths");
        let results = [
            serde_json::json!({"articles": [{"title": "Returns", "score": 3}], "n": null}),
            serde_json::json!("plain text"),
            serde_json::json!(null),
            serde_json::json!([1, "two", {"three": true}]),
        ];
        for result in results {
            let tool_call = serde_json::json!({
                "_meta": {"id": "call_1", "name": "search"}, "query": "x"
            });
            let json = |name: &str| match name {
                "toolCall" => Some(JsonRef::Plain(&tool_call)),
                "result" => Some(JsonRef::Plain(&result)),
                _ => None,
            };
            let feel = |name: &str| json(name).map(baton_feel_bridge::ref_to_feel);
            let now = 1_764_504_000_123;
            let built =
                context_value(parts, &json, &|| baton_feel_bridge::now_json(now)).expect("built");
            let evaluated = evaluate(&f.parsed, &f.source, &feel, &json, now, 0);
            assert!(evaluated.warnings.is_empty());
            let evaluated = evaluated.result.unwrap();
            assert_eq!(built, evaluated);
            // Same keys in the same order (equality compares objects as maps).
            assert_eq!(built.to_string(), evaluated.to_string());
        }
        // A missing key or a number FEEL would change is left to FEEL (warnings, conversion).
        let tool_call = serde_json::json!({"_meta": {"id": "c"}});
        let float = serde_json::json!(1.0);
        let json = |name: &str| match name {
            "toolCall" => Some(JsonRef::Plain(&tool_call)),
            "result" => Some(JsonRef::Plain(&float)),
            _ => None,
        };
        assert!(context_value(parts, &json, &|| Json::Null).is_none());
        // Paths through the context's own keys, repeated keys, other calls: not this shape.
        assert!(feel("={a: x, b: a.y}").context_of_paths().is_none());
        assert!(feel("={a: x, a: y}").context_of_paths().is_none());
        assert!(feel("={a: today()}").context_of_paths().is_none());
        assert!(feel("={now: x, t: now()}").context_of_paths().is_none());
        assert!(feel("={}").context_of_paths().is_none());
        assert!(feel("={a: x.y, b: now()}").context_of_paths().is_some());
    }

    #[test]
    fn constant_expressions_are_evaluated_once_when_compiled() {
        let constant = |text: &str| feel(text).constant().map(SharedJson::to_json);
        assert_eq!(constant("=20"), Some(serde_json::json!(20)));
        assert_eq!(constant(r#"="a" + "b""#), Some(serde_json::json!("ab")));
        assert_eq!(
            constant(r#"={type: "object", required: ["answer"], n: -1}"#),
            Some(serde_json::json!({"type": "object", "required": ["answer"], "n": -1}))
        );
        // Variables, functions (the clock) and warnings are left to the evaluation on use.
        assert_eq!(constant("=x + 1"), None);
        assert_eq!(constant("=now()"), None);
        assert_eq!(constant(r#"=1 + "a""#), None);
        assert_eq!(constant("={a: 1, b: a}"), None);
    }

    #[test]
    fn referenced_variables_are_the_free_names() {
        assert_eq!(vars("=x > 1 and y < 5"), ["x", "y"]);
        assert_eq!(vars("=x.y.z = true"), ["x"]);
        assert_eq!(
            vars("=for i in items return i * factor"),
            ["items", "factor"]
        );
        assert_eq!(
            vars("=some o in orders satisfies o.total > limit"),
            ["orders", "limit"]
        );
        assert_eq!(vars("=orders[item.total > limit]"), ["orders", "limit"]);
        assert_eq!(vars("={a: base, b: a + 1}.b"), ["base"]);
        assert_eq!(vars("=count(list) > max(1, n)"), ["list", "n"]);
        assert!(vars("static").is_empty());
    }
}
