//! Expressions evaluated against a scope: the variables of its scope chain (or an overlay of
//! values that win over them), the engine clock, and typed results with Zeebe's messages.

use std::sync::{Arc, OnceLock};

use serde_json::Value as Json;

use crate::runtime::behaviors::camunda_namespace::CAMUNDA_NAMESPACE;
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

    pub(crate) fn eval_string(&self, expr: &Expr, scope: Key) -> Result<String, StepFailure> {
        match self.eval_warn(expr, scope, None)? {
            (Json::String(s), _) => Ok(s),
            (other, warnings) => Err(type_mismatch(expr, "STRING", &other, &warnings)),
        }
    }

    pub(crate) fn eval_int(&self, expr: &Expr, scope: Key) -> Result<i64, StepFailure> {
        let v = match expr {
            // A single digit (retries = "3", the usual case) needs no parser.
            Expr::Static(s) if s.len() == 1 && s.as_bytes()[0].is_ascii_digit() => {
                return Ok(i64::from(s.as_bytes()[0] - b'0'));
            }
            Expr::Static(s) => match s.trim().parse::<i64>() {
                Ok(n) => return Ok(n),
                Err(_) => Json::String(s.to_string()),
            },
            Expr::Feel(_) => self.eval(expr, scope, None)?,
        };
        match &v {
            Json::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .ok_or(()),
            _ => Err(()),
        }
        .map_err(|_| {
            StepFailure::new(
                ErrorType::ExtractValueError,
                format!(
                    "Expected result of the expression '{}' to be 'NUMBER', but was '{}'.",
                    expr_source(expr),
                    json_type_name(&v)
                ),
            )
        })
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

    pub(crate) fn eval_list(&self, expr: &Expr, scope: Key) -> Result<Vec<Json>, StepFailure> {
        match self.eval_warn(expr, scope, None)? {
            (Json::Array(a), _) => Ok(a),
            (other, warnings) => Err(type_mismatch(expr, "ARRAY", &other, &warnings)),
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
