//! Variables as tests write them (JSON objects) and as the engine holds them
//! ([`VariableDocument`]), plus the JSON helpers messages and matchers share: value comparison
//! by value (`1` equals `1.0`), partial matching with the paths that differ, and truncation.

use baton_engine::runtime::VariableDocument;
use serde_json::{Map, Value};

/// Variables that are no JSON object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("variables must be a JSON object, got {got}")]
pub struct NotAnObject {
    /// The value given, shortened.
    pub got: String,
}

/// Anything a test may pass as variables: a JSON object (`json!({..})`), `()` or `Value::Null`
/// for none, a `serde_json::Map`, a [`VariableDocument`], or `(name, value)` pairs.
pub trait IntoVariables {
    /// The variables as a document, or why they are not variables.
    fn into_variables(self) -> Result<VariableDocument, NotAnObject>;
}

impl IntoVariables for Value {
    fn into_variables(self) -> Result<VariableDocument, NotAnObject> {
        match self {
            Value::Object(m) => Ok(m.into_iter().collect()),
            Value::Null => Ok(VariableDocument::new()),
            other => Err(NotAnObject {
                got: short(&other, 60),
            }),
        }
    }
}

impl IntoVariables for () {
    fn into_variables(self) -> Result<VariableDocument, NotAnObject> {
        Ok(VariableDocument::new())
    }
}

impl IntoVariables for Map<String, Value> {
    fn into_variables(self) -> Result<VariableDocument, NotAnObject> {
        Ok(self.into_iter().collect())
    }
}

impl IntoVariables for VariableDocument {
    fn into_variables(self) -> Result<VariableDocument, NotAnObject> {
        Ok(self)
    }
}

impl IntoVariables for &Value {
    fn into_variables(self) -> Result<VariableDocument, NotAnObject> {
        self.clone().into_variables()
    }
}

impl<K: Into<String>, const N: usize> IntoVariables for [(K, Value); N] {
    fn into_variables(self) -> Result<VariableDocument, NotAnObject> {
        Ok(self.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

impl<K: Into<String>> IntoVariables for Vec<(K, Value)> {
    fn into_variables(self) -> Result<VariableDocument, NotAnObject> {
        Ok(self.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

/// Converts or panics with the reason, at the caller's location.
#[track_caller]
pub(crate) fn variables_or_panic(v: impl IntoVariables) -> VariableDocument {
    match v.into_variables() {
        Ok(d) => d,
        Err(m) => panic!("{m}"),
    }
}

/// A document as a JSON object.
pub(crate) fn to_object(doc: &VariableDocument) -> Map<String, Value> {
    doc.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// JSON text of a value, cut to `max` characters with `...` (never inside a character).
pub fn short(value: &Value, max: usize) -> String {
    truncate(&value.to_string(), max)
}

/// A text cut to `max` characters with `...` appended when it was longer.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(max.saturating_sub(3)).collect();
    s.push_str("...");
    s
}

/// JSON equality with numbers compared by value (`1` equals `1.0`) and objects compared key by
/// key regardless of order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn numbers_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if x == y {
        return true;
    }
    match (x.as_i64(), y.as_i64()) {
        (Some(a), Some(b)) => a == b,
        _ => match (x.as_f64(), y.as_f64()) {
            (Some(a), Some(b)) => a == b,
            _ => x.to_string() == y.to_string(),
        },
    }
}

/// How an expected value is compared with the actual one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// Equal as JSON values ([`json_equal`]).
    Exact,
    /// Objects match when every expected key matches (more keys are fine), recursively; arrays
    /// and scalars must match element by element.
    Partial,
}

/// One place where an actual value differs from the expected one.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueMismatch {
    /// `order.items[1].sku`; empty for the value itself.
    pub path: String,
    pub expected: Option<Value>,
    /// `None`: the path does not exist in the actual value.
    pub actual: Option<Value>,
}

/// Every difference between `expected` and `actual` under `matching`, in the expected value's
/// order; empty when they match.
pub fn mismatches(expected: &Value, actual: &Value, matching: Matching) -> Vec<ValueMismatch> {
    let mut out = Vec::new();
    diff(expected, actual, matching, &mut String::new(), &mut out);
    out
}

fn diff(e: &Value, a: &Value, m: Matching, path: &mut String, out: &mut Vec<ValueMismatch>) {
    match (e, a) {
        (Value::Object(eo), Value::Object(ao)) => {
            let keys_differ = m == Matching::Exact && ao.keys().any(|k| !eo.contains_key(k));
            for (k, ev) in eo {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                match ao.get(k) {
                    Some(av) => diff(ev, av, m, path, out),
                    None => out.push(ValueMismatch {
                        path: path.clone(),
                        expected: Some(ev.clone()),
                        actual: None,
                    }),
                }
                path.truncate(len);
            }
            if keys_differ {
                for (k, av) in ao.iter().filter(|(k, _)| !eo.contains_key(*k)) {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    out.push(ValueMismatch {
                        path: p,
                        expected: None,
                        actual: Some(av.clone()),
                    });
                }
            }
        }
        (Value::Array(ea), Value::Array(aa)) if ea.len() == aa.len() => {
            for (i, (ev, av)) in ea.iter().zip(aa).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                diff(ev, av, m, path, out);
                path.truncate(len);
            }
        }
        _ => {
            if !json_equal(e, a) {
                out.push(ValueMismatch {
                    path: path.clone(),
                    expected: Some(e.clone()),
                    actual: Some(a.clone()),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_equal(&json!(1), &json!(1.0)));
        assert!(json_equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!json_equal(&json!(1), &json!("1")));
    }

    #[test]
    fn partial_matching_ignores_extra_keys_and_names_paths() {
        let actual = json!({"order": {"id": 7, "status": "open", "items": [{"sku": "a"}]}});
        assert!(mismatches(&json!({"order": {"id": 7}}), &actual, Matching::Partial).is_empty());
        let m = mismatches(
            &json!({"order": {"status": "done", "items": [{"sku": "b"}], "x": 1}}),
            &actual,
            Matching::Partial,
        );
        let paths: Vec<&str> = m.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["order.status", "order.items[0].sku", "order.x"]);
        let exact = mismatches(&json!({"order": {"id": 7}}), &actual, Matching::Exact);
        assert_eq!(exact.len(), 2, "{exact:?}");
    }

    #[test]
    fn variables_must_be_objects() {
        assert!(json!([1]).into_variables().is_err());
        assert_eq!(json!(null).into_variables().unwrap().len(), 0);
        assert_eq!([("a", json!(1))].into_variables().unwrap()["a"], json!(1));
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 5), "ab...");
        assert_eq!(truncate("abc", 5), "abc");
    }
}
