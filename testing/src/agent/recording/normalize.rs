//! Normalisation: the values of a request that change from run to run, replaced by
//! placeholders on both sides before a recorded request is compared with the actual one.
//!
//! Standard rules, on every string of the request: timestamps (`2025-01-01T00:00:00Z`, FEEL's
//! `2025-01-01T00:00:00@UTC`) → `<timestamp>`, dates (`2026-10-01`, `October 1, 2026`,
//! `1 October 2026`) → `<date>`, UUIDs → `<uuid>`, provider ids (`call_…`, `toolu_…`,
//! `tooluse_…`, `chatcmpl-…`, with `_` or `-`) → `call_<id>` and so on, Zeebe keys (2^51 and more: process
//! instance, job, element instance and definition keys) → `<key>`, also where they are JSON
//! numbers. Tool-call ids are left out (calls match by name and arguments) and the tools are
//! compared in name order (Zeebe lists them in hash order).
//!
//! A test adds its own rules: JSON-pointer paths to ignore (`/toolCallResults/*/content/at`,
//! `*` standing for every key or index; a pointer into a tool result reaches the same result
//! where the conversation repeats it), regex replacements, or a closure.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_json::Value;

/// The first Zeebe key: partition 1, counter 0 (`1 << 51`).
const FIRST_KEY: u64 = 1 << 51;

const TIMESTAMP: &str = r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?(?:@[A-Za-z_]+(?:/[A-Za-z_+-]+)*|\[[A-Za-z_/+-]+\])?";

const MONTH: &str = "(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)";

const UUID: &str =
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b";

const PREFIXED_ID: &str = r"\b(?:call|toolu|tooluse|chatcmpl)[_-][A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*";

const KEY_DIGITS: &str = r"\b\d{16,19}\b";

/// Every standard rule in one pattern, each in its group, tried left to right at each position
/// (a timestamp before the date it starts with): one search per string, and most strings match
/// nothing. ASCII classes: the volatile values are ASCII, and Unicode classes cost every search.
static VOLATILE: LazyLock<Regex> = LazyLock::new(|| {
    let date = format!(
        r"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b{MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b|\b\d{{1,2}}(?:st|nd|rd|th)? {MONTH}\.?,? \d{{4}}\b"
    );
    Regex::new(&format!(
        "(?-u)(?P<timestamp>{TIMESTAMP})|(?P<date>{date})|(?P<uuid>{UUID})|(?P<id>{PREFIXED_ID})|(?P<key>{KEY_DIGITS})"
    ))
    .expect("valid regex")
});

/// A JSON pointer to ignore, with `*` for every key or index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredPath {
    pointer: String,
    segments: Vec<String>,
}

/// A pointer that is not a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "\"{pointer}\" is not a JSON pointer: it must be empty or start with \"/\" (e.g. \"/toolCallResults/*/content/updatedAt\")"
)]
pub struct PointerError {
    pub pointer: String,
}

impl IgnoredPath {
    pub fn new(pointer: &str) -> Result<IgnoredPath, PointerError> {
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(PointerError {
                pointer: pointer.to_string(),
            });
        }
        let segments = pointer
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect();
        Ok(IgnoredPath {
            pointer: pointer.to_string(),
            segments,
        })
    }

    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    fn remove_from(&self, value: &mut Value) {
        self.remove_from_conversation(value);
        remove(value, &self.segments);
    }

    /// A pointer into a tool result (`/toolCallResults/<index or *>/…`) reaches the same result
    /// where the conversation repeats it, in the `results` of the `tool_call_result` messages:
    /// all of them for `*`, those with the call id of the result at the index otherwise. There
    /// the connector wraps the content in blocks (`[{"type": "object", "content": …}]`), so
    /// `content/…` goes on inside each block.
    fn remove_from_conversation(&self, request: &mut Value) {
        let [root, selector, field, rest @ ..] = &self.segments[..] else {
            return;
        };
        if root != "toolCallResults" {
            return;
        }
        let id = if selector == "*" {
            None
        } else {
            let Some(id) = selector
                .parse::<usize>()
                .ok()
                .and_then(|i| request.get("toolCallResults")?.get(i)?.get("id"))
            else {
                return;
            };
            Some(id.clone())
        };
        let Some(Value::Array(messages)) = request.get_mut("messages") else {
            return;
        };
        let results = messages
            .iter_mut()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("tool_call_result"))
            .filter_map(|m| m.get_mut("results").and_then(Value::as_array_mut))
            .flatten()
            .filter(|r| id.is_none() || r.get("id") == id.as_ref());
        for result in results {
            match (field.as_str(), result.get_mut("content")) {
                ("content", Some(Value::Array(blocks))) if !rest.is_empty() => {
                    for block in blocks.iter_mut() {
                        if block.get("type").and_then(Value::as_str) == Some("object") {
                            remove(block, &[&["content".to_string()], rest].concat());
                        }
                    }
                }
                _ => remove(result, &self.segments[2..]),
            }
        }
    }
}

fn remove(value: &mut Value, segments: &[String]) {
    let Some((first, rest)) = segments.split_first() else {
        return;
    };
    let last = rest.is_empty();
    match value {
        Value::Object(object) => {
            if first == "*" {
                if last {
                    object.clear();
                } else {
                    object.values_mut().for_each(|v| remove(v, rest));
                }
            } else if last {
                object.shift_remove(first);
            } else if let Some(child) = object.get_mut(first) {
                remove(child, rest);
            }
        }
        Value::Array(items) => {
            let ignored = || Value::String("<ignored>".to_string());
            if first == "*" {
                for item in items.iter_mut() {
                    if last {
                        *item = ignored();
                    } else {
                        remove(item, rest);
                    }
                }
            } else if let Some(item) = first.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                if last {
                    *item = ignored();
                } else {
                    remove(item, rest);
                }
            }
        }
        _ => {}
    }
}

type Custom = Arc<dyn Fn(&mut Value) + Send + Sync>;

/// The normalisation of requests: the standard rules plus a test's own.
#[derive(Clone, Default)]
pub struct Normalizer {
    ignored: Vec<IgnoredPath>,
    replacements: Vec<(Regex, String)>,
    custom: Vec<Custom>,
}

impl fmt::Debug for Normalizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Normalizer")
            .field("ignored", &self.ignored)
            .field(
                "replacements",
                &self
                    .replacements
                    .iter()
                    .map(|(re, with)| (re.as_str(), with))
                    .collect::<Vec<_>>(),
            )
            .field("custom", &self.custom.len())
            .finish()
    }
}

impl Normalizer {
    /// The standard rules only.
    pub fn standard() -> Normalizer {
        Normalizer::default()
    }

    /// Whether only the standard rules apply (a recording made with them needs no second pass).
    pub fn is_standard(&self) -> bool {
        self.ignored.is_empty() && self.replacements.is_empty() && self.custom.is_empty()
    }

    /// Leaves the value at a JSON pointer into the request out of the comparison.
    pub fn ignore(mut self, pointer: &str) -> Result<Normalizer, PointerError> {
        self.ignored.push(IgnoredPath::new(pointer)?);
        Ok(self)
    }

    /// Replaces every match of `pattern` in the request's strings (`$1` refers to a group).
    pub fn replace(mut self, pattern: &str, with: &str) -> Result<Normalizer, regex::Error> {
        self.replacements
            .push((Regex::new(pattern)?, with.to_string()));
        Ok(self)
    }

    /// Your own rule, run on the whole request after the ignored paths are gone and before the
    /// replacements and the standard rules.
    pub fn with(mut self, rule: impl Fn(&mut Value) + Send + Sync + 'static) -> Normalizer {
        self.custom.push(Arc::new(rule));
        self
    }

    /// Normalises a request in place (see the module documentation for the order).
    pub fn normalize(&self, request: &mut Value) {
        for path in &self.ignored {
            path.remove_from(request);
        }
        for rule in &self.custom {
            rule(request);
        }
        self.normalize_values(request);
        drop_tool_call_ids(request);
        sort_tools(request);
    }

    /// The rules for values only (the replacements, then the standard placeholders), for JSON
    /// that is not a request (a trajectory's tool results).
    pub fn normalize_values(&self, value: &mut Value) {
        if !self.replacements.is_empty() {
            map_strings(value, &mut |text| {
                let mut text = Cow::Borrowed(text);
                for (re, with) in &self.replacements {
                    if let Cow::Owned(replaced) = re.replace_all(&text, with.as_str()) {
                        text = Cow::Owned(replaced);
                    }
                }
                match text {
                    Cow::Owned(text) => Some(text),
                    Cow::Borrowed(_) => None,
                }
            });
        }
        standard_values(value);
    }

    /// A normalised copy.
    pub fn normalized(&self, request: &Value) -> Value {
        let mut copy = request.clone();
        self.normalize(&mut copy);
        copy
    }
}

/// The standard placeholders in one string, or `None` when it has no volatile value.
pub fn normalize_text(text: &str) -> Option<String> {
    // Every volatile value has a digit.
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let replaced = VOLATILE.replace_all(text, |c: &regex::Captures<'_>| {
        let whole = &c[0];
        if c.name("timestamp").is_some() {
            "<timestamp>".to_string()
        } else if c.name("date").is_some() {
            "<date>".to_string()
        } else if c.name("uuid").is_some() {
            "<uuid>".to_string()
        } else if c.name("id").is_some() {
            let prefix = whole.find(['_', '-']).map_or(whole, |at| &whole[..=at]);
            format!("{prefix}<id>")
        } else if whole.parse::<u64>().is_ok_and(is_key) {
            "<key>".to_string()
        } else {
            whole.to_string()
        }
    });
    match replaced {
        Cow::Owned(normalized) if normalized != text => Some(normalized),
        _ => None,
    }
}

pub(crate) fn is_key(n: u64) -> bool {
    (FIRST_KEY..=i64::MAX as u64).contains(&n)
}

fn standard_values(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let Some(normalized) = normalize_text(text) {
                *text = normalized;
            }
        }
        Value::Number(n) => {
            if n.as_u64().is_some_and(is_key) {
                *value = Value::String("<key>".to_string());
            }
        }
        Value::Array(items) => items.iter_mut().for_each(standard_values),
        Value::Object(object) => object.values_mut().for_each(standard_values),
        Value::Bool(_) | Value::Null => {}
    }
}

/// Calls `f` on every string; a `Some` replaces it.
pub(crate) fn map_strings(value: &mut Value, f: &mut dyn FnMut(&str) -> Option<String>) {
    match value {
        Value::String(text) => {
            if let Some(replaced) = f(text) {
                *text = replaced;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| map_strings(v, f)),
        Value::Object(object) => object.values_mut().for_each(|v| map_strings(v, f)),
        _ => {}
    }
}

/// Tool-call ids are the provider's (or the script's) choice: results and calls match by name
/// and arguments.
fn drop_tool_call_ids(request: &mut Value) {
    let Some(request) = request.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(results)) = request.get_mut("toolCallResults") {
        for result in results {
            if let Some(result) = result.as_object_mut() {
                result.shift_remove("id");
            }
        }
    }
    if let Some(Value::Array(messages)) = request.get_mut("messages") {
        for message in messages.iter_mut().filter_map(Value::as_object_mut) {
            for list in ["toolCalls", "results"] {
                if let Some(Value::Array(items)) = message.get_mut(list) {
                    for item in items.iter_mut().filter_map(Value::as_object_mut) {
                        item.shift_remove("id");
                    }
                }
            }
        }
    }
}

fn sort_tools(request: &mut Value) {
    if let Some(Value::Array(tools)) = request.get_mut("tools") {
        tools.sort_by(|a, b| {
            let name = |t: &Value| t.get("name").and_then(Value::as_str).map(str::to_string);
            name(a).cmp(&name(b))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn volatile_values_become_placeholders() {
        let cases = [
            "at 2025-01-01T00:00:00Z and 2026-08-07T10:00:01.900+02:00",
            "FEEL now(): 2025-01-01T00:00:00@UTC, zoned 2025-01-01T10:00:00@Europe/Berlin",
            "due 2026-10-01, or October 1, 2026, or 1 October 2026, or Oct. 1st 2026",
            "conversation 6f1c2a7e-0d4b-4c57-9a55-2b8f1e0c9d11",
            "ids call_1_2 toolu_01A09q90qw90lq917835 tooluse_Ab3 chatcmpl-9xYz1 chatcmpl_9z chatcmpl-x",
            "instance 2251799813685251, small 1042, huge 99999999999999999999",
            "no digits: call_center, toolu_, plain text",
        ];
        let out: Vec<String> = cases
            .iter()
            .map(|c| normalize_text(c).unwrap_or_else(|| format!("(unchanged) {c}")))
            .collect();
        insta::assert_snapshot!(out.join("\n"), @r"
        at <timestamp> and <timestamp>
        FEEL now(): <timestamp>, zoned <timestamp>
        due <date>, or <date>, or <date>, or <date>
        conversation <uuid>
        ids call_<id> toolu_<id> tooluse_<id> chatcmpl-<id> chatcmpl_<id> chatcmpl-x
        instance <key>, small 1042, huge 99999999999999999999
        (unchanged) no digits: call_center, toolu_, plain text
        ");
    }

    #[test]
    fn a_request_is_normalised_on_both_sides_alike() {
        let request = json!({
            "tools": [{"name": "search-kb"}, {"name": "create-ticket"}, {"name": "lookup-order"}],
            "toolCallResults": [
                {"id": "call_1_1", "name": "lookup-order", "content": {"key": 2251799813685262_u64, "updatedAt": "2025-01-01T00:00:00Z", "n": 3}}
            ],
            "messages": [
                {"role": "assistant", "toolCalls": [{"id": "abc", "name": "lookup-order", "arguments": {}}]},
                {"role": "tool_call_result", "results": [{"id": "abc", "name": "lookup-order", "content": [], "completedAt": "2025-01-01T00:00:00@UTC"}]}
            ]
        });
        let normalized = Normalizer::standard().normalized(&request);
        insta::assert_json_snapshot!(normalized, @r#"
        {
          "tools": [
            {
              "name": "create-ticket"
            },
            {
              "name": "lookup-order"
            },
            {
              "name": "search-kb"
            }
          ],
          "toolCallResults": [
            {
              "name": "lookup-order",
              "content": {
                "key": "<key>",
                "updatedAt": "<timestamp>",
                "n": 3
              }
            }
          ],
          "messages": [
            {
              "role": "assistant",
              "toolCalls": [
                {
                  "name": "lookup-order",
                  "arguments": {}
                }
              ]
            },
            {
              "role": "tool_call_result",
              "results": [
                {
                  "name": "lookup-order",
                  "content": [],
                  "completedAt": "<timestamp>"
                }
              ]
            }
          ]
        }
        "#);
        // Normalising again changes nothing.
        assert_eq!(Normalizer::standard().normalized(&normalized), normalized);
    }

    /// A pointer into a tool result applies where the conversation repeats the result too:
    /// every result for `*`, the one with the same call id for an index.
    #[test]
    fn a_pointer_into_a_tool_result_reaches_the_conversation() {
        let request = json!({
            "toolCallResults": [
                {"id": "a", "name": "lookup-order", "content": {"updatedAt": "3 min ago", "id": "1042"}},
                {"id": "b", "name": "search-kb", "content": "no articles"}
            ],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "updatedAt"}]},
                {"role": "tool_call_result", "results": [
                    {"id": "a", "name": "lookup-order", "content": [{"type": "object", "content": {"updatedAt": "3 min ago", "id": "1042"}}]},
                    {"id": "b", "name": "search-kb", "content": [{"type": "text", "text": "no articles"}]}
                ]}
            ]
        });
        let normalized = |pointer: &str| {
            let out = Normalizer::standard()
                .ignore(pointer)
                .unwrap()
                .normalized(&request);
            format!("{pointer}\n{}", serde_json::to_string(&out).unwrap())
        };
        insta::assert_snapshot!(
            [
                normalized("/toolCallResults/*/content/updatedAt"),
                normalized("/toolCallResults/1/content"),
                normalized("/toolCallResults/0/name"),
            ]
            .join("\n"),
            @r#"
        /toolCallResults/*/content/updatedAt
        {"toolCallResults":[{"name":"lookup-order","content":{"id":"1042"}},{"name":"search-kb","content":"no articles"}],"messages":[{"role":"user","content":[{"type":"text","text":"updatedAt"}]},{"role":"tool_call_result","results":[{"name":"lookup-order","content":[{"type":"object","content":{"id":"1042"}}]},{"name":"search-kb","content":[{"type":"text","text":"no articles"}]}]}]}
        /toolCallResults/1/content
        {"toolCallResults":[{"name":"lookup-order","content":{"updatedAt":"3 min ago","id":"1042"}},{"name":"search-kb"}],"messages":[{"role":"user","content":[{"type":"text","text":"updatedAt"}]},{"role":"tool_call_result","results":[{"name":"lookup-order","content":[{"type":"object","content":{"updatedAt":"3 min ago","id":"1042"}}]},{"name":"search-kb"}]}]}
        /toolCallResults/0/name
        {"toolCallResults":[{"content":{"updatedAt":"3 min ago","id":"1042"}},{"name":"search-kb","content":"no articles"}],"messages":[{"role":"user","content":[{"type":"text","text":"updatedAt"}]},{"role":"tool_call_result","results":[{"content":[{"type":"object","content":{"updatedAt":"3 min ago","id":"1042"}}]},{"name":"search-kb","content":[{"type":"text","text":"no articles"}]}]}]}
        "#
        );
    }

    #[test]
    fn a_tests_own_rules() {
        let normalizer = Normalizer::standard()
            .ignore("/toolCallResults/*/content/seen")
            .unwrap()
            .ignore("/messages")
            .unwrap()
            .replace(r"user-\d+", "user-N")
            .unwrap()
            .with(|request| {
                if let Some(prompt) = request.get_mut("userPrompt") {
                    *prompt = json!("<prompt>");
                }
            });
        let normalized = normalizer.normalized(&json!({
            "userPrompt": "anything",
            "toolCallResults": [{"name": "a", "content": {"seen": 5, "who": "user-42"}}],
            "messages": [1, 2]
        }));
        assert_eq!(
            normalized,
            json!({"userPrompt": "<prompt>", "toolCallResults": [{"name": "a", "content": {"who": "user-N"}}]})
        );
        assert_eq!(
            Normalizer::standard()
                .ignore("messages")
                .unwrap_err()
                .to_string(),
            "\"messages\" is not a JSON pointer: it must be empty or start with \"/\" (e.g. \"/toolCallResults/*/content/updatedAt\")"
        );
    }
}
