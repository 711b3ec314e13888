//! Checks a scripted tool call against the tool's input schema: undeclared arguments, missing
//! required parameters, and the simple schema keywords (`type`, `enum`).
//!
//! The connector itself checks nothing (a real model's arguments reach the tool as they are). A
//! script that disagrees with the schema is a test that no longer matches the process, so the mock
//! fails the run instead; a turn marked `unchecked` skips this.

use serde_json::Value;

use super::tools::ToolDefinition;

/// One thing wrong with a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentProblem {
    /// The arguments are not a JSON object.
    NotAnObject(String),
    /// An argument no `fromAi()` parameter declares.
    Undeclared(String),
    /// A required parameter the call does not give.
    MissingRequired(String),
    /// An argument of the wrong JSON type: (name, expected, got).
    WrongType(String, String, String),
    /// An argument outside the parameter's `enum`: (name, allowed, got).
    NotInEnum(String, String, String),
}

impl std::fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgumentProblem::NotAnObject(got) => {
                write!(f, "the arguments must be an object, got {got}")
            }
            ArgumentProblem::Undeclared(name) => match name.strip_prefix("toolCall.") {
                Some(short) => write!(
                    f,
                    "\"{name}\" is not a parameter: write arguments as the model sends them, \"{short}\" (without toolCall.)"
                ),
                None => write!(f, "\"{name}\" is not a parameter (no fromAi() declares it)"),
            },
            ArgumentProblem::MissingRequired(name) => {
                write!(
                    f,
                    "the required parameter \"{name}\" is missing (fromAi() without {{required: false}})"
                )
            }
            ArgumentProblem::WrongType(name, expected, got) => {
                write!(f, "\"{name}\" must be {expected}, got {got}")
            }
            ArgumentProblem::NotInEnum(name, allowed, got) => {
                write!(f, "\"{name}\" must be one of {allowed}, got {got}")
            }
        }
    }
}

/// Every problem of `arguments` against `tool`'s schema, in a stable order: undeclared arguments
/// (in argument order), then missing required parameters (in schema order), then type and enum
/// problems.
pub fn check_arguments(tool: &ToolDefinition, arguments: &Value) -> Vec<ArgumentProblem> {
    let Some(arguments) = arguments.as_object() else {
        return vec![ArgumentProblem::NotAnObject(short_json(arguments))];
    };
    let empty = serde_json::Map::new();
    let properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut problems = Vec::new();
    for name in arguments.keys() {
        if !properties.contains_key(name) {
            problems.push(ArgumentProblem::Undeclared(name.clone()));
        }
    }
    for name in tool.required_names() {
        if !arguments.contains_key(name) {
            problems.push(ArgumentProblem::MissingRequired(name.to_string()));
        }
    }
    for (name, value) in arguments {
        let Some(schema) = properties.get(name) else {
            continue;
        };
        if let Some(problem) = check_value(name, schema, value) {
            problems.push(problem);
        }
    }
    problems
}

fn check_value(name: &str, schema: &Value, value: &Value) -> Option<ArgumentProblem> {
    // Read in place: an argument is checked on every model call, and most pass.
    let declared: &[Value] = match schema.get("type") {
        Some(single @ Value::String(_)) => std::slice::from_ref(single),
        Some(Value::Array(ts)) => ts,
        _ => &[],
    };
    let types = || declared.iter().filter_map(Value::as_str);
    if types().next().is_some() && !types().any(|t| has_type(value, t)) {
        let expected = types().map(article).collect::<Vec<_>>().join(" or ");
        return Some(ArgumentProblem::WrongType(
            name.to_string(),
            expected,
            describe(value),
        ));
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list = allowed
            .iter()
            .map(short_json)
            .collect::<Vec<_>>()
            .join(", ");
        return Some(ArgumentProblem::NotInEnum(
            name.to_string(),
            list,
            short_json(value),
        ));
    }
    None
}

/// JSON Schema's types; an unknown type name accepts anything (the model would see it as is).
fn has_type(value: &Value, type_: &str) -> bool {
    match type_ {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn article(type_: &str) -> String {
    match type_ {
        "integer" | "array" | "object" => format!("an {type_}"),
        "null" => "null".to_string(),
        _ => format!("a {type_}"),
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(_) => format!("the string {}", short_json(value)),
        Value::Number(_) => format!("the number {value}"),
        Value::Bool(_) => format!("the boolean {value}"),
        Value::Null => "null".to_string(),
        Value::Array(_) => format!("the array {}", short_json(value)),
        Value::Object(_) => format!("the object {}", short_json(value)),
    }
}

/// Compact JSON, cut at 80 characters.
pub(crate) fn short_json(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    } else {
        text
    }
}
