//! Expressions as the engine holds them: a static value or FEEL parsed once at deploy.
//!
//! Zeebe reads an attribute that starts with `=` as FEEL and anything else as a static value.
//! Evaluation goes through [`Engine::eval`](crate::runtime::engine::Engine), which supplies the variables of a
//! scope chain and the engine clock.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::model;
use crate::runtime::shared_json::SharedJson;

/// The name of the `camunda` namespace of FEEL expressions (cluster variables,
/// `camunda.processInstance.key`): compiling an expression needs it to tell whether the
/// expression reads it, evaluating one to supply it.
pub(crate) const CAMUNDA_NAMESPACE: &str = "camunda";

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
    /// The same constant as FEEL gives it (a date-time, a duration): typed evaluations check
    /// its FEEL type, not its JSON.
    constant_value: Option<baton_feel_bridge::FeelValue>,
    /// What FEEL says the expression is ([`baton_feel::Shape`]), found once here: the engine
    /// answers paths, contexts of paths and path comparisons from its own JSON.
    shape: Shape,
}

/// The shapes of [`baton_feel::Shape`] the engine answers without FEEL, in the engine's terms.
#[derive(Debug)]
enum Shape {
    Path(Arc<str>, Vec<Arc<str>>),
    ContextOfPaths(Vec<(Arc<str>, ContextPart)>),
    PathComparison(baton_feel_bridge::PathComparison),
    Other,
}

impl Shape {
    /// Whether the shape reads the variable `name`.
    fn reads(&self, name: &str) -> bool {
        match self {
            Shape::Path(root, _) => &**root == name,
            Shape::ContextOfPaths(parts) => parts
                .iter()
                .any(|(_, part)| matches!(part, ContextPart::Path(root, _) if &**root == name)),
            Shape::PathComparison(comparison) => &*comparison.name == name,
            Shape::Other => false,
        }
    }
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
        let (mut constant, mut constant_value) = (None, None);
        let shape = match parsed.shape() {
            baton_feel::Shape::Constant => {
                let outcome =
                    baton_feel_bridge::evaluate_value(&parsed, &|_| None, &|_| None, 0, 0);
                if let Ok(value) = outcome.result
                    && outcome.warnings.is_empty()
                {
                    constant = Some(SharedJson::new(value.to_json()));
                    constant_value = Some(value);
                }
                Shape::Other
            }
            baton_feel::Shape::Path(path) => Shape::Path(path.root, path.keys),
            baton_feel::Shape::ContextOfPaths(parts) => Shape::ContextOfPaths(
                parts
                    .into_iter()
                    .map(|(key, part)| {
                        let part = match part {
                            baton_feel::ContextPart::Path(path) => {
                                ContextPart::Path(path.root, path.keys)
                            }
                            baton_feel::ContextPart::Now => ContextPart::Now,
                        };
                        (key, part)
                    })
                    .collect(),
            ),
            baton_feel::Shape::PathComparison(comparison) => {
                Shape::PathComparison(baton_feel_bridge::PathComparison {
                    name: comparison.path.root,
                    keys: comparison.path.keys,
                    literal: comparison.literal.to_json(),
                    negated: comparison.negated,
                })
            }
            _ => Shape::Other,
        };
        // The shapes are answered from variables alone; the `camunda` namespace is no variable
        // (see `Engine::camunda_namespace`), so an expression reading it goes through FEEL.
        let shape = if shape.reads(CAMUNDA_NAMESPACE) {
            Shape::Other
        } else {
            shape
        };
        FeelExpr {
            source,
            parsed,
            constant,
            constant_value,
            shape,
        }
    }

    /// The variable and keys of an expression that only reads a variable or a path into it
    /// (`=agent`, `=agent.context`, `=fromAi(toolCall.query, "…")`).
    pub fn variable_path(&self) -> Option<(&str, &[Arc<str>])> {
        match &self.shape {
            Shape::Path(name, keys) => Some((name, keys)),
            _ => None,
        }
    }

    /// The entries of a context literal such as the AI agent's output element
    /// `{id: toolCall._meta.id, name: toolCall._meta.name, content: toolCallResult, completedAt:
    /// now()}`: keys distinct, each value a variable path (not through a key of the context) or
    /// `now()` (no key named `now`).
    pub fn context_of_paths(&self) -> Option<&[(Arc<str>, ContextPart)]> {
        match &self.shape {
            Shape::ContextOfPaths(parts) => Some(parts),
            _ => None,
        }
    }

    /// A comparison of a variable path with a literal, such as a gateway's
    /// `agent.responseJson.resolved = true`.
    pub fn path_comparison(&self) -> Option<&baton_feel_bridge::PathComparison> {
        match &self.shape {
            Shape::PathComparison(comparison) => Some(comparison),
            _ => None,
        }
    }

    /// The value of a constant expression (see [`FeelExpr::new`]), shared.
    pub fn constant(&self) -> Option<&SharedJson> {
        self.constant.as_ref()
    }

    /// The value of a constant expression as FEEL gives it.
    pub fn constant_value(&self) -> Option<&baton_feel_bridge::FeelValue> {
        self.constant_value.as_ref()
    }
}

impl Expr {
    /// Compiles the model's expression text (see [`Expr::compile_text`]).
    pub fn compile(e: &model::Expr) -> Result<Expr, baton_feel::ParseError> {
        Expr::compile_text(&e.text)
    }

    /// Compiles an attribute's text: FEEL after a leading `=`, else a static value.
    pub fn compile_text(text: &str) -> Result<Expr, baton_feel::ParseError> {
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
            Expr::Feel(f) => f.parsed.referenced_variables(),
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

    /// [`to_feel`] of a shared value, read in place (a composed value's plain form is not
    /// built).
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
    pub fn parse(source: &str) -> Result<Parsed, baton_feel::ParseError> {
        baton_feel::Expression::parse(source)
    }

    /// The result of an evaluation: a JSON value (Zeebe's conversion) or a failure message, plus
    /// the warnings FEEL reported.
    pub struct Outcome {
        pub result: Result<Json, String>,
        pub warnings: Vec<FeelWarning>,
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

    /// The value FEEL gives a context of paths and `now()` (see
    /// [`super::FeelExpr::context_of_paths`]), built
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

    /// The value at `keys` inside a JSON variable when every step is an object holding the key,
    /// and when it survives FEEL's conversion unchanged (see [`round_trips`]): then evaluating the
    /// path in FEEL and converting the result back gives this very JSON, so the caller may skip
    /// both conversions. `None` sends the caller to FEEL (missing keys warn, lists project).
    /// Read in place: a composed value is walked, not built.
    pub fn json_at<'j>(json: JsonRef<'j>, keys: &[Arc<str>]) -> Option<JsonRef<'j>> {
        let value = keys.iter().try_fold(json, |v, key| v.get(key))?;
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
        let outcome = evaluate_value(parsed, feel, json, now_ms, seed);
        Outcome {
            result: outcome.result.map(|v| v.to_json()),
            warnings: outcome.warnings,
        }
    }

    /// The type Zeebe names a result by (`FeelEvaluationResult.getType`): a zoned or local
    /// date-time is `DATE_TIME`, a days-time duration `DURATION`, a years-months one `PERIOD`;
    /// dates, times, ranges and functions have no type (`null`).
    pub fn zeebe_type(value: &FeelValue) -> &'static str {
        use baton_feel::Value as V;
        match value {
            V::Null => "NULL",
            V::Boolean(_) => "BOOLEAN",
            V::Number(_) => "NUMBER",
            V::String(_) => "STRING",
            V::List(_) => "ARRAY",
            V::Context(_) => "OBJECT",
            V::DateTime(_) => "DATE_TIME",
            V::DayTimeDuration(_) => "DURATION",
            V::YearMonthDuration(_) => "PERIOD",
            V::Date(_) | V::Time(_) | V::Range(_) | V::Function(_) => "null",
        }
    }

    /// The text of a string result.
    pub fn as_str(value: &FeelValue) -> Option<&str> {
        match value {
            baton_feel::Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// A number result: its whole part (Java's `longValue`) and whether it has no fraction.
    pub fn as_whole_number(value: &FeelValue) -> Option<(i64, bool)> {
        match value {
            baton_feel::Value::Number(n) => Some((n.to_i64_wrapping(), n.is_integer())),
            _ => None,
        }
    }

    /// A list result's items when all are strings: `Some(None)` for a list with another item.
    pub fn string_items(value: &FeelValue) -> Option<Option<Vec<String>>> {
        match value {
            baton_feel::Value::List(items) => {
                Some(items.iter().map(|i| as_str(i).map(str::to_owned)).collect())
            }
            _ => None,
        }
    }

    /// A date-time result as an instant in a zone: a local date-time is taken in the engine's
    /// zone, UTC (Zeebe's `atZone(ZoneId.systemDefault())`).
    pub fn as_zoned(value: &FeelValue) -> Option<jiff::ZonedDateTime> {
        match value {
            baton_feel::Value::DateTime(dt) => match &**dt {
                baton_feel::temporal::DateTime::Zoned(z) => Some(z.clone()),
                baton_feel::temporal::DateTime::Local(dt) => {
                    dt.to_zoned_datetime(jiff::tz::TimeZone::UTC).ok()
                }
            },
            _ => None,
        }
    }

    /// A duration result: a days-time duration as a span of time, a years-months one as months.
    pub fn as_span(value: &FeelValue) -> Option<jiff::Span> {
        match value {
            baton_feel::Value::DayTimeDuration(d) => jiff::Span::try_from(*d).ok(),
            baton_feel::Value::YearMonthDuration(m) => jiff::Span::new().try_months(m.0).ok(),
            _ => None,
        }
    }

    /// The result of an evaluation as FEEL gives it (a date-time is no string), or a failure
    /// message, plus the warnings FEEL reported.
    pub struct ValueOutcome {
        pub result: Result<FeelValue, String>,
        pub warnings: Vec<FeelWarning>,
    }

    /// [`evaluate`], the result left as FEEL's value.
    pub fn evaluate_value<'l>(
        parsed: &Parsed,
        feel: &'l dyn Fn(&str) -> Option<FeelValue>,
        json: &'l dyn Fn(&str) -> Option<JsonRef<'l>>,
        now_ms: i64,
        seed: u64,
    ) -> ValueOutcome {
        let now = zoned_now(now_ms);
        let env = baton_feel::Env {
            seed,
            ..baton_feel::Env::at(now)
        };
        let vars = LookupVars { feel, json };
        let evaluation = parsed.evaluate(&vars, &env);
        ValueOutcome {
            result: evaluation.result.map_err(|f| f.message),
            warnings: evaluation.warnings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let tool_call = SharedJson::new(serde_json::json!({
                "_meta": {"id": "call_1", "name": "search"}, "query": "x"
            }));
            let result = SharedJson::new(result);
            let json = |name: &str| match name {
                "toolCall" => Some(tool_call.view()),
                "result" => Some(result.view()),
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
        let tool_call = SharedJson::new(serde_json::json!({"_meta": {"id": "c"}}));
        let float = SharedJson::new(serde_json::json!(1.0));
        let json = |name: &str| match name {
            "toolCall" => Some(tool_call.view()),
            "result" => Some(float.view()),
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
        let constant = |text: &str| feel(text).constant().map(|v| (**v).clone());
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
