//! Expressions evaluated against a scope: the variables of its scope chain (or an overlay of
//! values that win over them), the engine clock, and typed results with Zeebe's messages.

use std::sync::{Arc, OnceLock};

use serde_json::Value as Json;

use crate::runtime::behaviors::date_times;
use crate::runtime::compile::expr::CAMUNDA_NAMESPACE;
use crate::runtime::compile::expr::{Expr, baton_feel_bridge};
use crate::runtime::engine::Engine;
use crate::runtime::records::{ErrorType, Key, SharedVariableDocument, VariableDocument};
use crate::runtime::shared_json::{JsonRef, SharedJson};
use crate::runtime::state::instances::Var;
use crate::runtime::step::{StepFailure, expr_source, json_type_name, type_mismatch};

impl Engine {
    /// A variable's value as an expression in `scope` sees it: from `overlay` (earlier mapping
    /// results, a completion's variables) first, else along the scope chain. Read in place.
    pub(crate) fn overlaid_var<'a>(
        &'a self,
        scope: Key,
        overlay: Option<&'a dyn Overlay>,
        name: &str,
    ) -> Option<JsonRef<'a>> {
        match overlay.and_then(|o| o.value(name)) {
            Some(v) => Some(v),
            None => self.lookup_var(scope, name).map(SharedJson::view),
        }
    }

    /// Evaluates an expression in a scope; `overlay` holds values that win over the scope's
    /// (earlier mapping results, a completion's variables).
    pub(crate) fn eval(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<Json, StepFailure> {
        self.eval_warn(expr, scope, overlay).map(|(v, _)| v)
    }

    /// Like [`Engine::eval`], the value shared: a context literal of variable paths and `now()`
    /// (the AI agent's output element) is built without FEEL.
    pub(crate) fn eval_shared(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<SharedJson, StepFailure> {
        if let Expr::Feel(f) = expr
            && let Some(parts) = f.context_of_paths()
        {
            let json = |name: &str| self.overlaid_var(scope, overlay, name);
            let now = || self.feel.now_json.at(self.now);
            if let Some(value) = baton_feel_bridge::context_value(parts, &json, &now) {
                return Ok(SharedJson::new(value));
            }
        }
        self.eval(expr, scope, overlay).map(SharedJson::new)
    }

    /// Like [`Engine::eval`], with the warnings FEEL reported (Zeebe appends them to type
    /// mismatch messages).
    pub(crate) fn eval_warn(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<(Json, Vec<baton_feel_bridge::FeelWarning>), StepFailure> {
        match expr {
            Expr::Static(s) => Ok((Json::String(s.to_string()), Vec::new())),
            Expr::Feel(f) => {
                if let Some(constant) = f.constant() {
                    return Ok((constant.to_json(), Vec::new()));
                }
                let names = ScopeNames {
                    engine: self,
                    scope,
                    overlay,
                    namespace: OnceLock::new(),
                };
                let json = |name: &str| names.json(name);
                // `=agent`, `=agent.context`: the JSON itself, when FEEL would give it back as is
                // (no conversion of a large variable to FEEL and back).
                if let Some((name, keys)) = f.variable_path()
                    && let Some(value) =
                        json(name).and_then(|v| baton_feel_bridge::json_at(v, keys))
                {
                    return Ok((value.to_json(), Vec::new()));
                }
                let feel = |name: &str| names.feel(name);
                let outcome = baton_feel_bridge::evaluate(
                    &f.parsed,
                    &f.source,
                    &feel,
                    &json,
                    self.now,
                    self.next_feel_seed(),
                );
                let warnings = outcome.warnings;
                outcome
                    .result
                    .map(|v| (v, warnings))
                    .map_err(|m| StepFailure::new(ErrorType::ExtractValueError, m))
            }
        }
    }

    /// The seed of the next FEEL evaluation's `uuid()` and `random number()`. Only evaluations
    /// take one: an expression answered without FEEL (a constant, `=name`, a context of paths) draws
    /// nothing.
    pub(crate) fn next_feel_seed(&self) -> u64 {
        self.feel.evaluations.next()
    }

    /// An expression's result with its type, for Zeebe's typed evaluations
    /// (`ExpressionProcessor`): FEEL's value (a date-time or a duration is no string), or the
    /// JSON of a variable it reads as is.
    pub(crate) fn eval_typed(&self, expr: &Expr, scope: Key) -> Result<Evaluated, StepFailure> {
        let source = expr_source(expr);
        let f = match expr {
            Expr::Static(s) => {
                return Ok(Evaluated::json(Json::String(s.to_string()), source));
            }
            Expr::Feel(f) => f,
        };
        if let Some(value) = f.constant_value() {
            return Ok(Evaluated::feel(value.clone(), Vec::new(), source));
        }
        let names = ScopeNames {
            engine: self,
            scope,
            overlay: None,
            namespace: OnceLock::new(),
        };
        let json = |name: &str| names.json(name);
        if let Some((name, keys)) = f.variable_path()
            && let Some(value) = json(name).and_then(|v| baton_feel_bridge::json_at(v, keys))
        {
            return Ok(Evaluated::json(value.to_json(), source));
        }
        let feel = |name: &str| names.feel(name);
        let outcome = baton_feel_bridge::evaluate_value(
            &f.parsed,
            &feel,
            &json,
            self.now,
            self.next_feel_seed(),
        );
        match outcome.result {
            Ok(value) => Ok(Evaluated::feel(value, outcome.warnings, source)),
            Err(message) => {
                Err(Evaluated::feel(Default::default(), outcome.warnings, source).failure(message))
            }
        }
    }

    /// `evaluateStringExpression`: a STRING.
    pub(crate) fn eval_string(&self, expr: &Expr, scope: Key) -> Result<String, StepFailure> {
        let evaluated = self.eval_typed(expr, scope)?.expect(&["STRING"])?;
        Ok(evaluated.as_str().unwrap_or_default().to_owned())
    }

    /// `evaluateLongExpression`: a NUMBER, its whole part.
    pub(crate) fn eval_int(&self, expr: &Expr, scope: Key) -> Result<i64, StepFailure> {
        match expr {
            // A single digit (retries = "3", the usual case) needs no parser.
            Expr::Static(s) if s.len() == 1 && s.as_bytes()[0].is_ascii_digit() => {
                return Ok(i64::from(s.as_bytes()[0] - b'0'));
            }
            Expr::Static(s) => {
                if let Ok(n) = s.trim().parse::<i64>() {
                    return Ok(n);
                }
            }
            Expr::Feel(_) => {}
        }
        let evaluated = self.eval_typed(expr, scope)?.expect(&["NUMBER"])?;
        Ok(evaluated.whole_number().map_or(0, |(n, _)| n))
    }

    /// `evaluateIntegerExpression`: a NUMBER without a fraction.
    pub(crate) fn eval_integer(&self, expr: &Expr, scope: Key) -> Result<i64, StepFailure> {
        if let Expr::Static(s) = expr
            && let Ok(n) = s.trim().parse::<i64>()
        {
            return Ok(n);
        }
        let evaluated = self.eval_typed(expr, scope)?.expect(&["NUMBER"])?;
        match evaluated.whole_number() {
            Some((n, true)) => Ok(n),
            _ => Err(evaluated.failure(format!(
                "Expected result of the expression '{}' to be an integer, but was a decimal.",
                evaluated.source
            ))),
        }
    }

    /// `evaluateArrayOfStringsExpression`: an ARRAY of STRINGs.
    pub(crate) fn eval_strings(&self, expr: &Expr, scope: Key) -> Result<Vec<String>, StepFailure> {
        let evaluated = self.eval_typed(expr, scope)?.expect(&["ARRAY"])?;
        match evaluated.string_items() {
            Some(Some(items)) => Ok(items),
            _ => Err(evaluated.failure(format!(
                "Expected result of the expression '{}' to be 'ARRAY' containing 'STRING' items, \
                 but was 'ARRAY' containing at least one non-'STRING' item.",
                evaluated.source
            ))),
        }
    }

    /// `evaluateIntervalExpression`: a DURATION, a PERIOD, or a STRING in ISO 8601.
    pub(crate) fn eval_interval(&self, expr: &Expr, scope: Key) -> Result<jiff::Span, StepFailure> {
        let evaluated = self
            .eval_typed(expr, scope)?
            .expect(&["DURATION", "PERIOD", "STRING"])?;
        if let Some(span) = evaluated.span() {
            return Ok(span);
        }
        let text = evaluated.as_str().unwrap_or_default();
        text.parse::<jiff::Span>().map_err(|_| {
            evaluated.failure(format!(
                "Invalid duration format '{text}' for expression '{}'.",
                evaluated.source
            ))
        })
    }

    /// `evaluateDateTimeExpression`: a DATE_TIME, or a STRING `ZonedDateTime.parse` reads;
    /// `nullable`: NULL and the empty string are no date (`None`).
    pub(crate) fn eval_date_time(
        &self,
        expr: &Expr,
        scope: Key,
        nullable: bool,
    ) -> Result<Option<date_times::JavaZoned>, StepFailure> {
        let types: &[&str] = if nullable {
            &["NULL", "DATE_TIME", "STRING"]
        } else {
            &["DATE_TIME", "STRING"]
        };
        let evaluated = self.eval_typed(expr, scope)?.expect(types)?;
        if let Some(zoned) = evaluated.zoned() {
            // A FEEL zone is a region when it has a name (now() is in the engine's zone, UTC).
            let region = zoned.time_zone().iana_name().is_some();
            return Ok(Some(date_times::JavaZoned { zoned, region }));
        }
        match evaluated.as_str() {
            None => Ok(None),
            Some("") if nullable => Ok(None),
            Some(text) => match date_times::parse_zoned(text) {
                Some(zoned) => Ok(Some(zoned)),
                None => Err(evaluated.failure(format!(
                    "Invalid date-time format '{text}' for expression '{}'.",
                    evaluated.source
                ))),
            },
        }
    }

    pub(crate) fn eval_bool(&self, expr: &Expr, scope: Key) -> Result<bool, StepFailure> {
        self.eval_bool_with(expr, scope, None)
    }

    pub(crate) fn eval_bool_with(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<bool, StepFailure> {
        // `agent.responseJson.resolved = true`: answered in place when FEEL's answer is
        // certain (a value of the literal's type), as FEEL would (no warning, no seed).
        if let Expr::Feel(f) = expr
            && let Some(comparison) = f.path_comparison()
        {
            let value = self.overlaid_var(scope, overlay, &comparison.name);
            if let Some(answer) = baton_feel_bridge::compare_path(value, comparison) {
                return Ok(answer);
            }
        }
        match self.eval_warn(expr, scope, overlay)? {
            (Json::Bool(b), _) => Ok(b),
            (other, warnings) => Err(type_mismatch(expr, "BOOLEAN", &other, &warnings)),
        }
    }

    /// `evaluateArrayExpression`: an ARRAY, its items as JSON.
    pub(crate) fn eval_list(&self, expr: &Expr, scope: Key) -> Result<Vec<Json>, StepFailure> {
        match self
            .eval_typed(expr, scope)?
            .expect(&["ARRAY"])?
            .into_json()
        {
            Json::Array(items) => Ok(items),
            _ => Ok(Vec::new()),
        }
    }
}

/// What the names of an expression evaluated in a scope stand for: the overlay's values
/// first, then the scope chain's variables, then the `camunda` namespace (built on its first
/// read: few expressions read it).
struct ScopeNames<'a> {
    engine: &'a Engine,
    scope: Key,
    overlay: Option<&'a dyn Overlay>,
    namespace: OnceLock<Var>,
}

impl ScopeNames<'_> {
    fn json(&self, name: &str) -> Option<JsonRef<'_>> {
        if let Some(v) = self.overlay.and_then(|o| o.value(name)) {
            return Some(v);
        }
        match self.engine.lookup_var(self.scope, name) {
            Some(v) => Some(v.view()),
            None => self.namespace(name).map(|v| v.value.view()),
        }
    }

    /// Only the names the expression reads are looked up; scope variables hand out their
    /// cached FEEL form, overlay values are converted in place (no copies).
    fn feel(&self, name: &str) -> Option<baton_feel_bridge::FeelValue> {
        if let Some(v) = self.overlay.and_then(|o| o.value(name)) {
            return Some(baton_feel_bridge::ref_to_feel(v));
        }
        self.engine
            .lookup_var_entry(self.scope, name)
            .or_else(|| self.namespace(name))
            .map(Var::feel_value)
    }

    fn namespace(&self, name: &str) -> Option<&Var> {
        (name == CAMUNDA_NAMESPACE).then(|| {
            self.namespace.get_or_init(|| {
                Var::new(
                    Arc::from(CAMUNDA_NAMESPACE),
                    0,
                    self.engine.camunda_namespace(self.scope),
                )
            })
        })
    }
}

/// An expression's result as Zeebe's typed evaluations see it (its `EvaluationResult`): the
/// value, the warnings FEEL reported and the expression as messages quote it.
pub(crate) struct Evaluated {
    value: EvaluatedValue,
    warnings: Vec<baton_feel_bridge::FeelWarning>,
    pub(crate) source: String,
}

enum EvaluatedValue {
    Feel(baton_feel_bridge::FeelValue),
    Json(Json),
}

impl Evaluated {
    pub(crate) fn feel(
        value: baton_feel_bridge::FeelValue,
        warnings: Vec<baton_feel_bridge::FeelWarning>,
        source: String,
    ) -> Evaluated {
        Evaluated {
            value: EvaluatedValue::Feel(value),
            warnings,
            source,
        }
    }

    pub(crate) fn json(value: Json, source: String) -> Evaluated {
        Evaluated {
            value: EvaluatedValue::Json(value),
            warnings: Vec::new(),
            source,
        }
    }

    /// Zeebe's name of the result's type (`NULL`, `STRING`, `DATE_TIME`, ...; `null` for the
    /// FEEL types it has no name for).
    pub(crate) fn type_name(&self) -> &'static str {
        match &self.value {
            EvaluatedValue::Feel(v) => baton_feel_bridge::zeebe_type(v),
            EvaluatedValue::Json(j) => json_type_name(j),
        }
    }

    /// A failure with FEEL's warnings appended (`ExpressionProcessor.createFailureMessage`).
    pub(crate) fn failure(&self, message: String) -> StepFailure {
        StepFailure::new(
            ErrorType::ExtractValueError,
            with_warnings(message, &self.warnings),
        )
    }

    /// Zeebe's `typeCheck`: the result is of one of `types`, else "to be 'T'" (one type) or
    /// "to be one of '[A, B]'".
    pub(crate) fn expect(self, types: &[&str]) -> Result<Evaluated, StepFailure> {
        let got = self.type_name();
        if types.contains(&got) {
            return Ok(self);
        }
        let expected = match types {
            [one] => format!("'{one}'"),
            many => format!("one of '[{}]'", many.join(", ")),
        };
        Err(self.failure(format!(
            "Expected result of the expression '{}' to be {expected}, but was '{got}'.",
            self.source
        )))
    }

    /// The result as JSON, as Zeebe converts it.
    pub(crate) fn into_json(self) -> Json {
        match self.value {
            EvaluatedValue::Feel(v) => v.to_json(),
            EvaluatedValue::Json(j) => j,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.value {
            EvaluatedValue::Feel(v) => baton_feel_bridge::as_str(v),
            EvaluatedValue::Json(Json::String(s)) => Some(s),
            EvaluatedValue::Json(_) => None,
        }
    }

    /// A number's whole part (Java's `longValue`) and whether it has no fraction.
    pub(crate) fn whole_number(&self) -> Option<(i64, bool)> {
        match &self.value {
            EvaluatedValue::Feel(v) => baton_feel_bridge::as_whole_number(v),
            EvaluatedValue::Json(Json::Number(n)) => match n.as_i64() {
                Some(i) => Some((i, true)),
                None => n.as_f64().map(|f| (f.trunc() as i64, f.fract() == 0.0)),
            },
            EvaluatedValue::Json(_) => None,
        }
    }

    fn string_items(&self) -> Option<Option<Vec<String>>> {
        match &self.value {
            EvaluatedValue::Feel(v) => baton_feel_bridge::string_items(v),
            EvaluatedValue::Json(Json::Array(items)) => Some(
                items
                    .iter()
                    .map(|i| i.as_str().map(str::to_owned))
                    .collect(),
            ),
            EvaluatedValue::Json(_) => None,
        }
    }

    fn zoned(&self) -> Option<jiff::ZonedDateTime> {
        match &self.value {
            EvaluatedValue::Feel(v) => baton_feel_bridge::as_zoned(v),
            EvaluatedValue::Json(_) => None,
        }
    }

    fn span(&self) -> Option<jiff::Span> {
        match &self.value {
            EvaluatedValue::Feel(v) => baton_feel_bridge::as_span(v),
            EvaluatedValue::Json(_) => None,
        }
    }
}

/// `message`, then FEEL's warnings as Zeebe appends them to an incident's message.
pub(crate) fn with_warnings(
    mut message: String,
    warnings: &[baton_feel_bridge::FeelWarning],
) -> String {
    if !warnings.is_empty() {
        message.push_str(" The evaluation reported the following warnings:");
        for w in warnings {
            message.push('\n');
            message.push_str(&w.to_string());
        }
    }
    message
}

/// Values that win over a scope's variables in an evaluation (earlier mapping results, a
/// completion's variables).
pub(crate) trait Overlay {
    fn value(&self, name: &str) -> Option<JsonRef<'_>>;
}

impl Overlay for VariableDocument {
    fn value(&self, name: &str) -> Option<JsonRef<'_>> {
        self.get(name).map(JsonRef::Plain)
    }
}

impl Overlay for SharedVariableDocument {
    fn value(&self, name: &str) -> Option<JsonRef<'_>> {
        self.get(name).map(SharedJson::view)
    }
}
