//! Problems found while reading JSON, each named by its path (`turns[0].toolCalls[1].name`).

use std::fmt;

use serde_json::{Map, Value};

/// Every problem found in one JSON document, in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems {
    items: Vec<Problem>,
}

/// One problem: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The path of the value, e.g. `turns[0].toolCalls`; empty for the document itself.
    pub path: String,
    /// What is wrong, e.g. `has unknown field "tool_calls"`.
    pub problem: String,
}

impl Problems {
    pub fn push(&mut self, path: &str, problem: impl Into<String>) {
        self.items.push(Problem {
            path: path.to_string(),
            problem: problem.into(),
        });
    }

    /// Reports every key of `object` that is not in `allowed`, with a hint when the key is a
    /// spelling of an allowed one (`tool_calls` for `toolCalls`).
    pub fn unknown_fields(&mut self, path: &str, object: &Map<String, Value>, allowed: &[&str]) {
        for key in object.keys() {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            let folded = fold(key);
            let problem = match allowed.iter().find(|a| fold(a) == folded) {
                Some(meant) => format!("has unknown field \"{key}\" (did you mean \"{meant}\"?)"),
                None => format!(
                    "has unknown field \"{key}\" (allowed: {})",
                    allowed.join(", ")
                ),
            };
            self.push(path, problem);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn items(&self) -> &[Problem] {
        &self.items
    }

    pub fn into_result<T>(self, value: T) -> Result<T, Problems> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.problem)
        } else {
            write!(f, "{} {}", self.path, self.problem)
        }
    }
}

/// One problem per line.
impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.items.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

/// `toolCalls`, `tool_calls` and `ToolCalls` fold to the same text.
fn fold(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The JSON type of a value, for messages: `an object`, `a string "x"`, `the number 3`.
pub fn json_type(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", Value::String(s.clone())),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}
