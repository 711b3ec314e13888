//! `assert_called_tools`: the expected tool calls of an agent, with matchers for arguments.
//!
//! An expected call is a tool id (`tool("create-ticket")`, or just `"create-ticket"`), or a tool
//! with arguments (`call("lookup-order", json!({"orderId": "1042"}))`). Arguments are literal
//! JSON, or matchers mixed into an object with [`args!`](crate::args):
//! `args! { "query": contains("damaged"), "limit": any_number() }`.

use std::fmt;
use std::rc::Rc;

use serde_json::Value;

use super::arguments::short_json;
use super::request::ToolCallRecord;

/// Matches a JSON value.
#[derive(Clone)]
pub enum Matcher {
    /// Exactly this value.
    Equals(Value),
    /// An object with these fields; `exact` means no other fields.
    Object {
        fields: Vec<(String, Matcher)>,
        exact: bool,
    },
    /// An array with exactly these elements.
    Array(Vec<Matcher>),
    /// A string containing this text.
    StringContaining(String),
    /// Any string.
    AnyString,
    /// Any number.
    AnyNumber,
    /// Any value, null included.
    Anything,
    /// A string matching this regular expression (a bad pattern never matches and says why).
    Regex(Result<regex::Regex, String>),
    /// A value for which the function is true.
    Predicate {
        description: String,
        test: Rc<dyn Fn(&Value) -> bool>,
    },
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// A string containing `text`.
pub fn contains(text: impl Into<String>) -> Matcher {
    Matcher::StringContaining(text.into())
}

/// Any string.
pub fn any_string() -> Matcher {
    Matcher::AnyString
}

/// Any number.
pub fn any_number() -> Matcher {
    Matcher::AnyNumber
}

/// Any value.
pub fn anything() -> Matcher {
    Matcher::Anything
}

/// A string matching the regular expression `pattern` (unanchored; use `^…$` for the whole string).
pub fn matches_regex(pattern: &str) -> Matcher {
    Matcher::Regex(
        regex::Regex::new(pattern)
            .map_err(|e| format!("{pattern:?} is not a valid regular expression: {e}")),
    )
}

/// A value for which `test` is true; `description` says what it checks in failure messages.
pub fn predicate(
    description: impl Into<String>,
    test: impl Fn(&Value) -> bool + 'static,
) -> Matcher {
    Matcher::Predicate {
        description: description.into(),
        test: Rc::new(test),
    }
}

/// An object that has at least these fields (others are allowed).
pub fn object_containing<K: Into<String>, M: Into<Matcher>>(
    fields: impl IntoIterator<Item = (K, M)>,
) -> Matcher {
    Matcher::Object {
        fields: fields
            .into_iter()
            .map(|(k, m)| (k.into(), m.into()))
            .collect(),
        exact: false,
    }
}

/// An object with exactly these fields.
pub fn object<K: Into<String>, M: Into<Matcher>>(
    fields: impl IntoIterator<Item = (K, M)>,
) -> Matcher {
    Matcher::Object {
        fields: fields
            .into_iter()
            .map(|(k, m)| (k.into(), m.into()))
            .collect(),
        exact: true,
    }
}

/// An object with exactly these fields, each a JSON value or a matcher:
/// `args! { "orderId": "1042", "query": contains("damaged") }`.
#[macro_export]
macro_rules! args {
    ($($key:literal : $value:expr),* $(,)?) => {
        $crate::agent::Matcher::Object {
            fields: vec![$(($key.to_string(), $crate::agent::Matcher::from($value))),*],
            exact: true,
        }
    };
}

impl From<Value> for Matcher {
    fn from(value: Value) -> Self {
        match value {
            Value::Object(fields) => Matcher::Object {
                fields: fields
                    .into_iter()
                    .map(|(k, v)| (k, Matcher::from(v)))
                    .collect(),
                exact: true,
            },
            Value::Array(items) => Matcher::Array(items.into_iter().map(Matcher::from).collect()),
            other => Matcher::Equals(other),
        }
    }
}

macro_rules! matcher_from_literal {
    ($($t:ty),*) => {$(
        impl From<$t> for Matcher {
            fn from(value: $t) -> Self {
                Matcher::Equals(Value::from(value))
            }
        }
    )*};
}
matcher_from_literal!(&str, String, bool, i32, i64, u32, u64, f64);

impl Matcher {
    /// How the matcher reads in messages: JSON for literals, `<…>` for the rest.
    pub fn describe(&self) -> String {
        match self {
            Matcher::Equals(value) => value.to_string(),
            Matcher::Object { fields, exact } => {
                let mut parts: Vec<String> = fields
                    .iter()
                    .map(|(k, m)| format!("{}: {}", Value::String(k.clone()), m.describe()))
                    .collect();
                if !exact {
                    parts.push("…".to_string());
                }
                format!("{{{}}}", parts.join(", "))
            }
            Matcher::Array(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(Matcher::describe)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Matcher::StringContaining(text) => {
                format!("<a string containing {}>", Value::String(text.clone()))
            }
            Matcher::AnyString => "<any string>".to_string(),
            Matcher::AnyNumber => "<any number>".to_string(),
            Matcher::Anything => "<anything>".to_string(),
            Matcher::Regex(Ok(re)) => format!("<a string matching /{}/>", re.as_str()),
            Matcher::Regex(Err(message)) => format!("<invalid regex: {message}>"),
            Matcher::Predicate { description, .. } => format!("<{description}>"),
        }
    }

    /// `Err` names the first place that differs: `arguments.query: expected …, got …`.
    pub fn check(&self, value: &Value, path: &str) -> Result<(), MatcherMismatch> {
        let at = |path: String, message: String| Err(MatcherMismatch { path, message });
        let differ = |expected: String| {
            at(
                path.to_string(),
                format!("expected {expected}, got {}", short_json(value)),
            )
        };
        match self {
            Matcher::Equals(expected) => {
                if expected == value || numbers_equal(expected, value) {
                    Ok(())
                } else {
                    differ(expected.to_string())
                }
            }
            Matcher::Object { fields, exact } => {
                let Some(object) = value.as_object() else {
                    return differ(self.describe());
                };
                for (key, matcher) in fields {
                    match object.get(key) {
                        Some(field) => matcher.check(field, &format!("{path}.{key}"))?,
                        None => {
                            return at(
                                format!("{path}.{key}"),
                                format!("expected {}, but it is missing", matcher.describe()),
                            );
                        }
                    }
                }
                if *exact
                    && let Some(extra) =
                        object.keys().find(|k| !fields.iter().any(|(f, _)| f == *k))
                {
                    return at(
                        format!("{path}.{extra}"),
                        format!("not expected, got {}", short_json(&object[extra])),
                    );
                }
                Ok(())
            }
            Matcher::Array(items) => {
                let Some(array) = value.as_array() else {
                    return differ(self.describe());
                };
                if array.len() != items.len() {
                    return at(
                        path.to_string(),
                        format!(
                            "expected {} element{}, got {}",
                            items.len(),
                            if items.len() == 1 { "" } else { "s" },
                            short_json(value)
                        ),
                    );
                }
                items
                    .iter()
                    .zip(array)
                    .enumerate()
                    .try_for_each(|(i, (m, v))| m.check(v, &format!("{path}[{i}]")))
            }
            Matcher::StringContaining(text) => match value.as_str() {
                Some(s) if s.contains(text.as_str()) => Ok(()),
                _ => differ(format!(
                    "a string containing {}",
                    Value::String(text.clone())
                )),
            },
            Matcher::AnyString if value.is_string() => Ok(()),
            Matcher::AnyString => differ("any string".to_string()),
            Matcher::AnyNumber if value.is_number() => Ok(()),
            Matcher::AnyNumber => differ("any number".to_string()),
            Matcher::Anything => Ok(()),
            Matcher::Regex(Ok(re)) => match value.as_str() {
                Some(s) if re.is_match(s) => Ok(()),
                _ => differ(format!("a string matching /{}/", re.as_str())),
            },
            Matcher::Regex(Err(message)) => at(path.to_string(), message.clone()),
            Matcher::Predicate { description, test } => {
                if test(value) {
                    Ok(())
                } else {
                    differ(description.clone())
                }
            }
        }
    }
}

/// Where a value differs from a matcher, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct MatcherMismatch {
    /// The path of the part that differs (`arguments.query`).
    pub path: String,
    pub message: String,
}

/// `1` and `1.0` are the same number.
fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => a.is_number() && b.is_number() && x == y,
        _ => false,
    }
}

/// One expected tool call.
#[derive(Debug, Clone)]
pub enum ExpectedCall {
    /// This tool, with any arguments.
    Tool(String),
    /// This tool with arguments that match.
    Call { name: String, arguments: Matcher },
}

/// A call of the tool `name`, with any arguments.
pub fn tool(name: impl Into<String>) -> ExpectedCall {
    ExpectedCall::Tool(name.into())
}

/// A call of the tool `name` whose arguments match (literal JSON, or [`args!`](crate::args)).
pub fn call(name: impl Into<String>, arguments: impl Into<Matcher>) -> ExpectedCall {
    ExpectedCall::Call {
        name: name.into(),
        arguments: arguments.into(),
    }
}

impl From<&str> for ExpectedCall {
    fn from(name: &str) -> Self {
        ExpectedCall::Tool(name.to_string())
    }
}

impl From<String> for ExpectedCall {
    fn from(name: String) -> Self {
        ExpectedCall::Tool(name)
    }
}

impl ExpectedCall {
    fn name(&self) -> &str {
        match self {
            ExpectedCall::Tool(name) | ExpectedCall::Call { name, .. } => name,
        }
    }

    fn describe(&self) -> String {
        match self {
            ExpectedCall::Tool(name) => name.clone(),
            ExpectedCall::Call { name, arguments } => format!("{name} {}", arguments.describe()),
        }
    }

    fn check(&self, actual: &ToolCallRecord) -> Result<(), String> {
        if actual.name != self.name() {
            return Err(format!("expected {}, got {}", self.name(), actual.name));
        }
        match self {
            ExpectedCall::Tool(_) => Ok(()),
            ExpectedCall::Call { arguments, .. } => arguments
                .check(&actual.arguments, "arguments")
                .map_err(|m| m.to_string()),
        }
    }
}

/// Compares the whole sequence of tool calls.
pub(crate) fn check_called_tools(
    element_id: &str,
    expected: &[ExpectedCall],
    actual: &[ToolCallRecord],
) -> Result<(), ToolCallsDiffer> {
    let mut headline = None;
    let mut differs_at = None;
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if let Err(reason) = e.check(a) {
            headline = Some(format!("call {} of {}: {reason}", i + 1, expected.len()));
            differs_at = Some(i);
            break;
        }
    }
    if headline.is_none() && expected.len() != actual.len() {
        let (n, m) = (expected.len(), actual.len());
        headline = Some(if m < n {
            let missing: Vec<String> = expected[m..].iter().map(ExpectedCall::describe).collect();
            format!(
                "expected {n} tool call{}, got {m}; not called: {}",
                plural(n),
                missing.join(", ")
            )
        } else {
            let extra: Vec<&str> = actual[n..].iter().map(|a| a.name.as_str()).collect();
            format!(
                "expected {n} tool call{}, got {m}; not expected: {}",
                plural(n),
                extra.join(", ")
            )
        });
        differs_at = Some(n.min(m));
    }
    let (Some(headline), Some(differs_at)) = (headline, differs_at) else {
        return Ok(());
    };
    let mut message = format!("the tool calls of \"{element_id}\" differ: {headline}\nexpected:");
    if expected.is_empty() {
        message.push_str("\n  (no tool calls)");
    }
    for (i, e) in expected.iter().enumerate() {
        message.push_str(&format!("\n  {}. {}", i + 1, e.describe()));
    }
    message.push_str("\nactual:");
    if actual.is_empty() {
        message.push_str("\n  (no tool calls)");
    }
    for (i, a) in actual.iter().enumerate() {
        let marker = if i == differs_at { "   <- differs" } else { "" };
        message.push_str(&format!(
            "\n  {}. {} {} (model call {}, {}){marker}",
            i + 1,
            a.name,
            short_json(&a.arguments),
            a.model_call,
            a.id
        ));
    }
    Err(ToolCallsDiffer {
        element_id: element_id.to_string(),
        differs_at,
        report: message,
    })
}

/// The tool calls of an agent differ from the expected ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{report}")]
pub struct ToolCallsDiffer {
    pub element_id: String,
    /// The index of the first call that differs (or of the first missing or extra one).
    pub differs_at: usize,
    /// The expected and the actual calls, the first difference marked.
    pub report: String,
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
