//! The first difference between two JSON values, named by its path
//! (`request.toolCallResults[0].content.status`).
//!
//! Objects compare key by key whatever their order (the recorded keys first, then keys only the
//! actual value has); arrays element by element, then by length; numbers by value (`1` equals
//! `1.0`).

use std::fmt;

use serde_json::Value;

/// Where two values first differ, and what each side holds there.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// The path from the compared root, e.g. `request.tools[2].inputSchema.properties.priority`.
    pub path: String,
    /// The recorded value there; `None` when only the actual value has it.
    pub recorded: Option<Value>,
    /// The actual value there; `None` when only the recorded value has it.
    pub actual: Option<Value>,
}

/// The first difference between `recorded` and `actual`, with paths starting at `root`.
pub fn first_difference(recorded: &Value, actual: &Value, root: &str) -> Option<Difference> {
    let mut path = root.to_string();
    walk(recorded, actual, &mut path)
}

/// Whether two values are equal as JSON (object key order aside, numbers by value).
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => same_number(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| same_json(a, b)))
        }
        _ => a == b,
    }
}

fn same_number(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => x == y,
    }
}

fn walk(recorded: &Value, actual: &Value, path: &mut String) -> Option<Difference> {
    match (recorded, actual) {
        (Value::Object(r), Value::Object(a)) => {
            for (key, rv) in r {
                let len = path.len();
                push_key(path, key);
                let found = match a.get(key) {
                    Some(av) => walk(rv, av, path),
                    None => Some(at(path, Some(rv), None)),
                };
                if found.is_some() {
                    return found;
                }
                path.truncate(len);
            }
            a.iter()
                .find(|(key, _)| !r.contains_key(*key))
                .map(|(key, av)| {
                    push_key(path, key);
                    at(path, None, Some(av))
                })
        }
        (Value::Array(r), Value::Array(a)) => {
            for (i, (rv, av)) in r.iter().zip(a).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(found) = walk(rv, av, path) {
                    return Some(found);
                }
                path.truncate(len);
            }
            if r.len() == a.len() {
                return None;
            }
            let i = r.len().min(a.len());
            path.push_str(&format!("[{i}]"));
            Some(at(path, r.get(i), a.get(i)))
        }
        _ if same_json(recorded, actual) => None,
        _ => Some(at(path, Some(recorded), Some(actual))),
    }
}

fn at(path: &str, recorded: Option<&Value>, actual: Option<&Value>) -> Difference {
    Difference {
        path: path.to_string(),
        recorded: recorded.cloned(),
        actual: actual.cloned(),
    }
}

/// `.key` for keys that read as names (`lookup-order`, `_meta`), else `["odd key"]`.
pub(crate) fn push_key(path: &mut String, key: &str) {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        path.push('[');
        path.push_str(&Value::String(key.to_string()).to_string());
        path.push(']');
    }
}

/// How long a value may be in a message before it is cut.
const SHOWN: usize = 160;

impl Difference {
    /// The two sides as they are printed: strings that differ after a long common start show
    /// the part around the first differing character.
    pub fn shown(&self) -> (String, String) {
        if let (Some(Value::String(r)), Some(Value::String(a))) = (&self.recorded, &self.actual) {
            let common = r.chars().zip(a.chars()).take_while(|(x, y)| x == y).count();
            if common > 40 && (r.chars().count() > SHOWN / 2 || a.chars().count() > SHOWN / 2) {
                let from = common - 30;
                return (excerpt(r, from), excerpt(a, from));
            }
        }
        (show(self.recorded.as_ref()), show(self.actual.as_ref()))
    }
}

fn excerpt(text: &str, from: usize) -> String {
    let rest: String = text.chars().skip(from).collect();
    let cut: String = rest.chars().take(60).collect();
    let tail = if rest.chars().count() > 60 { "…" } else { "" };
    format!(
        "\"…{}{tail}\" (from character {})",
        escape_inner(&cut),
        from + 1
    )
}

fn escape_inner(text: &str) -> String {
    let quoted = Value::String(text.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

fn show(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "(nothing)".to_string();
    };
    let text = value.to_string();
    if text.chars().count() > SHOWN {
        let cut: String = text.chars().take(SHOWN - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// `first difference at <path>` and the two sides on their own lines, indented by two spaces.
impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (recorded, actual) = self.shown();
        write!(
            f,
            "first difference at {}\n  recorded: {recorded}\n  actual:   {actual}",
            self.path
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diff(recorded: Value, actual: Value) -> String {
        first_difference(&recorded, &actual, "request")
            .map_or_else(|| "equal".to_string(), |d| d.to_string())
    }

    #[test]
    fn the_first_difference_and_its_path() {
        insta::assert_snapshot!(
            [
                diff(
                    json!({"toolCallResults": [{"name": "lookup-order", "content": {"status": "delivered"}}]}),
                    json!({"toolCallResults": [{"name": "lookup-order", "content": {"status": "shipped"}}]}),
                ),
                diff(json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1.0})),
                diff(json!({"a": 1}), json!({"a": 1, "z": [true]})),
                diff(json!({"a": 1, "b": 2}), json!({"a": 1})),
                diff(json!([1, 2]), json!([1, 2, 3])),
                diff(json!({"odd key": {"x.y": null}}), json!({"odd key": {"x.y": false}})),
                diff(json!({"n": 1}), json!({"n": "1"})),
            ]
            .join("\n---\n"),
            @r#"
        first difference at request.toolCallResults[0].content.status
          recorded: "delivered"
          actual:   "shipped"
        ---
        equal
        ---
        first difference at request.z
          recorded: (nothing)
          actual:   [true]
        ---
        first difference at request.b
          recorded: 2
          actual:   (nothing)
        ---
        first difference at request[2]
          recorded: (nothing)
          actual:   3
        ---
        first difference at request["odd key"]["x.y"]
          recorded: null
          actual:   false
        ---
        first difference at request.n
          recorded: 1
          actual:   "1"
        "#
        );
    }

    #[test]
    fn long_strings_show_where_they_differ() {
        let start =
            "You are a customer support agent of an online shop. Use the tools to look up orders";
        let d = first_difference(
            &json!(format!(
                "{start} and to search the knowledge base before you answer."
            )),
            &json!(format!("{start} before you answer.")),
            "request.systemPrompt",
        )
        .unwrap();
        insta::assert_snapshot!(d.to_string(), @r#"
        first difference at request.systemPrompt
          recorded: "…e the tools to look up orders and to search the knowledge ba…" (from character 55)
          actual:   "…e the tools to look up orders before you answer." (from character 55)
        "#);
    }
}
