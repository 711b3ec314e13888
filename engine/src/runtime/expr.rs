//! Expressions as the engine holds them: a static value or FEEL parsed once at deploy.
//!
//! Zeebe reads an attribute that starts with `=` as FEEL and anything else as a static value.
//! Evaluation goes through [`Engine::eval`](super::Engine), which supplies the variables of a
//! scope chain and the engine clock.

use std::sync::Arc;

use serde_json::Value as Json;

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
                Ok(Expr::Feel(Arc::new(FeelExpr {
                    source: source.to_owned(),
                    parsed,
                })))
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
    use super::Json;

    /// A parsed FEEL expression.
    pub type Parsed = baton_feel::Expression;

    /// Parses FEEL source.
    pub fn parse(source: &str) -> Result<Parsed, String> {
        baton_feel::Expression::parse(source).map_err(|e| e.to_string())
    }

    /// The result of an evaluation: a JSON value (Zeebe's conversion) or a failure message, plus
    /// the warnings FEEL reported.
    pub struct Outcome {
        pub result: Result<Json, String>,
        pub warnings: Vec<String>,
    }

    /// Evaluates against a variable lookup at the given instant (epoch milliseconds, UTC).
    pub fn evaluate(
        parsed: &Parsed,
        _source: &str,
        lookup: &dyn Fn(&str) -> Option<Json>,
        now_ms: i64,
    ) -> Outcome {
        let now = jiff::Timestamp::from_millisecond(now_ms)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let env = baton_feel::Env::at(now);
        let vars =
            baton_feel::VarsFn(|name: &str| lookup(name).map(|j| baton_feel::Value::from_json(&j)));
        let evaluation = parsed.evaluate(&vars, &env);
        Outcome {
            result: evaluation
                .result
                .map(|v| v.to_json())
                .map_err(|f| f.message),
            warnings: evaluation.warnings.iter().map(|w| w.to_string()).collect(),
        }
    }
}
