//! Zeebe's extraction of `fromAi(...)` tool parameters from an expression, at deployment
//! (`FromAiTaggedParameterExtractor`): which tool inputs the AI agent must provide.

mod exp_text;

use crate::Expression;
use crate::ast::{Args, Expr, ExprKind};
use crate::value::Value;
use exp_text::ExpText;

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
    let text = ExpText::new(expr.source());
    let mut out = Vec::new();
    walk(expr.ast(), &text, &mut out)?;
    Ok(out)
}

fn walk(e: &Expr, text: &ExpText, out: &mut Vec<TaggedParameter>) -> Result<(), String> {
    match &e.kind {
        ExprKind::Call(name, args) if name.as_ref() == "fromAi" => {
            out.push(parameter(args, text)?);
            Ok(())
        }
        _ => e.children().try_for_each(|x| walk(x, text, out)),
    }
}

fn parameter(args: &Args, text: &ExpText) -> Result<TaggedParameter, String> {
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
    // Zeebe switches over the missing value without a null case: the exception it wraps has no
    // message, and the deployment error ends in `null`.
    let value = slots[0].ok_or_else(|| "null".to_string())?;
    let name = reference(value).ok_or_else(|| {
        let received = match &value.kind {
            ExprKind::Const(Value::String(s)) => format!("string '{s}'"),
            _ => text.mismatch(value),
        };
        format!(
            "Expected fromAi() parameter 'value' to be a reference (e.g. 'toolCall.customParameter'), but received {received}."
        )
    })?;
    let string = |i: usize| -> Result<Option<String>, String> {
        match slots[i] {
            None => Ok(None),
            Some(Expr {
                kind: ExprKind::Const(Value::String(s)),
                ..
            }) => Ok(Some(s.to_string())),
            Some(x) => Err(format!(
                "Expected fromAi() parameter '{}' to be a string, but received '{}'.",
                PARAMS[i],
                text.mismatch(x)
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
            ) => constant_json(x, text).map(Some),
            Some(x) => Err(format!(
                "Expected fromAi() parameter '{}' to be a context (map), but received '{}'.",
                PARAMS[i],
                text.mismatch(x)
            )),
        }
    };
    Ok(TaggedParameter {
        name,
        description: string(1)?,
        type_: string(2)?,
        schema: map(3)?,
        options: map(4)?,
    })
}

/// The path of a reference (feel-scala's `Ref`: names joined by dots, nothing else).
fn reference(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.to_string()),
        ExprKind::Path(x, k) => Some(format!("{}.{k}", reference(x)?)),
        _ => None,
    }
}

/// A schema or options context as JSON. Zeebe takes numbers, booleans, strings, lists and
/// contexts of them; anything else (`null` too, a Scala case object) is refused by class name.
fn constant_json(e: &Expr, text: &ExpText) -> Result<serde_json::Value, String> {
    let refused = || {
        format!(
            "Unsupported expression value in fromAi() function invocation: {}",
            text.class_name(e)
        )
    };
    Ok(match &e.kind {
        ExprKind::Const(Value::Number(_)) if text.class_name(e) != "ConstNumber" => {
            return Err(refused());
        }
        ExprKind::Const(v @ (Value::Number(_) | Value::Boolean(_) | Value::String(_))) => {
            v.to_json()
        }
        ExprKind::List(xs) => serde_json::Value::Array(
            xs.iter()
                .map(|x| constant_json(x, text))
                .collect::<Result<_, _>>()?,
        ),
        ExprKind::Context(es) => {
            let mut m = serde_json::Map::new();
            for (k, x) in es {
                m.insert(k.to_string(), constant_json(x, text)?);
            }
            serde_json::Value::Object(m)
        }
        _ => return Err(refused()),
    })
}
