//! Zeebe's extraction of `fromAi(...)` tool parameters from an expression, at deployment
//! (`FromAiTaggedParameterExtractor`): which tool inputs the AI agent must provide.

use crate::Expression;
use crate::ast::{Args, Expr, ExprKind};
use crate::value::Value;

/// One `fromAi(...)` call: the parameter the model must provide.
#[derive(Clone, Debug, PartialEq)]
pub struct TaggedParameter {
    /// The referenced path, e.g. `toolCall.url`.
    pub name: String,
    /// The description, if given.
    pub description: Option<String>,
    /// The JSON schema type, if given (`"string"`, `"number"`, ...).
    pub type_: Option<String>,
    /// Extra JSON schema, if given.
    pub schema: Option<serde_json::Value>,
    /// Options (e.g. `{required: false}`), if given.
    pub options: Option<serde_json::Value>,
}

const PARAMS: [&str; 5] = ["value", "description", "type", "schema", "options"];

/// All `fromAi` calls of an expression, depth-first, left to right (without descending into a
/// recorded call's arguments). Errors carry Zeebe's messages.
pub fn extract(expr: &Expression) -> Result<Vec<TaggedParameter>, String> {
    let mut out = Vec::new();
    walk(expr.ast(), &mut out)?;
    Ok(out)
}

fn walk(e: &Expr, out: &mut Vec<TaggedParameter>) -> Result<(), String> {
    match &e.kind {
        ExprKind::Call(name, args) if name.as_ref() == "fromAi" => {
            out.push(parameter(args)?);
            Ok(())
        }
        _ => e.children().try_for_each(|x| walk(x, out)),
    }
}

fn parameter(args: &Args) -> Result<TaggedParameter, String> {
    let mut slots: [Option<&Expr>; 5] = [None; 5];
    match args {
        Args::Positional(xs) => {
            for (i, x) in xs.iter().enumerate().take(5) {
                slots[i] = Some(x);
            }
        }
        Args::Named(xs) => {
            for (n, x) in xs {
                if let Some(i) = PARAMS.iter().position(|p| *p == n.as_ref()) {
                    slots[i] = Some(x);
                }
            }
        }
    }
    let value = slots[0].ok_or_else(|| {
        "Expected fromAi() parameter 'value' to be a reference (e.g. 'toolCall.customParameter'), but received null."
            .to_string()
    })?;
    let name = reference(value).ok_or_else(|| {
        format!(
            "Expected fromAi() parameter 'value' to be a reference (e.g. 'toolCall.customParameter'), but received {}.",
            received(value)
        )
    })?;
    let text = |i: usize| -> Result<Option<String>, String> {
        match slots[i] {
            None => Ok(None),
            Some(Expr {
                kind: ExprKind::Const(Value::String(s)),
                ..
            }) => Ok(Some(s.to_string())),
            Some(x) => Err(format!(
                "Expected fromAi() parameter '{}' to be a string, but received '{}'.",
                PARAMS[i],
                scala_text(x)
            )),
        }
    };
    let map = |i: usize| -> Result<Option<serde_json::Value>, String> {
        match slots[i] {
            None => Ok(None),
            Some(
                x @ Expr {
                    kind: ExprKind::Context(_),
                    ..
                },
            ) => constant_json(x).map(Some),
            Some(x) => Err(format!(
                "Expected fromAi() parameter '{}' to be a context (map), but received '{}'.",
                PARAMS[i],
                scala_text(x)
            )),
        }
    };
    Ok(TaggedParameter {
        name,
        description: text(1)?,
        type_: text(2)?,
        schema: map(3)?,
        options: map(4)?,
    })
}

fn reference(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.to_string()),
        ExprKind::Path(x, k) => Some(format!("{}.{k}", reference(x)?)),
        _ => None,
    }
}

fn received(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Const(Value::String(s)) => format!("string '{s}'"),
        ExprKind::Const(Value::Number(n)) => n.to_string(),
        _ => scala_text(e),
    }
}

/// A rendering of the node in the style of feel-scala's AST `toString`.
fn scala_text(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Const(Value::Null) => "ConstNull".into(),
        ExprKind::Const(Value::Boolean(b)) => format!("ConstBool({b})"),
        ExprKind::Const(Value::Number(n)) => format!("ConstNumber({n})"),
        ExprKind::Const(Value::String(s)) => format!("ConstString({s})"),
        ExprKind::Const(v) => format!("Const({v})"),
        ExprKind::List(xs) => format!(
            "ConstList(List({}))",
            xs.iter().map(scala_text).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Context(es) => format!(
            "ConstContext(List({}))",
            es.iter()
                .map(|(k, x)| format!("({k},{})", scala_text(x)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Name(n) => format!("Ref(List({n}))"),
        ExprKind::Path(x, k) => format!("PathExpression({},{k})", scala_text(x)),
        ExprKind::Call(n, args) => {
            let inner = match args {
                Args::Positional(xs) => format!(
                    "PositionalFunctionParameters(List({}))",
                    xs.iter().map(scala_text).collect::<Vec<_>>().join(", ")
                ),
                Args::Named(xs) => format!(
                    "NamedFunctionParameters(Map({}))",
                    xs.iter()
                        .map(|(k, x)| format!("{k} -> {}", scala_text(x)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            format!("FunctionInvocation({n},{inner})")
        }
        _ => format!("{:?}", e.kind).chars().take(200).collect(),
    }
}

fn node_class(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Name(_) => "Ref",
        ExprKind::Path(..) => "PathExpression",
        ExprKind::Call(..) => "FunctionInvocation",
        ExprKind::Arith(..) => "Addition",
        ExprKind::Filter(..) => "Filter",
        ExprKind::If(..) => "If",
        ExprKind::Const(_) => "ConstExpression",
        _ => "Exp",
    }
}

fn constant_json(e: &Expr) -> Result<serde_json::Value, String> {
    Ok(match &e.kind {
        ExprKind::Const(
            v @ (Value::Number(_) | Value::Boolean(_) | Value::String(_) | Value::Null),
        ) => v.to_json(),
        ExprKind::List(xs) => {
            serde_json::Value::Array(xs.iter().map(constant_json).collect::<Result<_, _>>()?)
        }
        ExprKind::Context(es) => {
            let mut m = serde_json::Map::new();
            for (k, x) in es {
                m.insert(k.to_string(), constant_json(x)?);
            }
            serde_json::Value::Object(m)
        }
        _ => {
            return Err(format!(
                "Unsupported expression value in fromAi() function invocation: {}",
                node_class(e)
            ));
        }
    })
}
