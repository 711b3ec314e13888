//! The messages the connector writes (composed of plain parts with literal keys) and reads
//! (in place), and the conversation as one model call sees it ([`SentMessages`]).

use std::borrow::Cow;
use std::ops::Deref;
use std::sync::OnceLock;

use baton_engine::runtime::{JsonRef, Part, SharedJson};
use serde_json::{Map, Value, json};

const EMPTY_EVENT: &str = "An event was triggered but no content was returned.";

/// and this call's input messages, cut to the context window. Reads as a slice of messages; it
/// holds the job's stored context (shared with the engine) and is put together when first read
/// (most tests never read it).
#[derive(Clone, Default)]
pub struct SentMessages {
    /// The system message of the configuration.
    pub(super) system: Option<SharedJson>,
    /// The job's `agentContext`, whose `conversation.messages` were stored.
    pub(super) stored: Option<SharedJson>,
    /// This call's input messages, shared with the context they are stored in.
    pub(super) input: Vec<SharedJson>,
    pub(super) window: usize,
    pub(super) built: OnceLock<Vec<Value>>,
}

impl SentMessages {
    /// Messages already put together.
    pub fn new(messages: Vec<Value>) -> SentMessages {
        SentMessages {
            built: OnceLock::from(messages),
            ..SentMessages::default()
        }
    }

    fn put_together(&self) -> Vec<Value> {
        let stored = self
            .stored
            .as_ref()
            .and_then(|c| c.view().at(&["conversation", "messages"]))
            .and_then(JsonRef::items);
        let all: Vec<JsonRef<'_>> = self
            .system
            .iter()
            .map(SharedJson::view)
            .chain(
                stored
                    .into_iter()
                    .flatten()
                    .filter(|m| role(*m) != "system"),
            )
            .chain(self.input.iter().map(SharedJson::view))
            .collect();
        window(&all, self.window)
    }
}

impl Deref for SentMessages {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        self.built.get_or_init(|| self.put_together())
    }
}

impl PartialEq for SentMessages {
    fn eq(&self, other: &SentMessages) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for SentMessages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The entry at a path of object keys.
pub(super) fn at<'v>(value: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().try_fold(value, |value, key| value.get(key))
}

pub(super) fn role(message: JsonRef<'_>) -> &str {
    message
        .get("role")
        .and_then(JsonRef::as_str)
        .unwrap_or_default()
}

/// A result id as text (the connector reads ids as strings): a string id is borrowed, not
/// copied (ids are compared more often than kept); a missing id reads as `null`.
pub(super) fn id_text_ref(id: Option<JsonRef<'_>>) -> Cow<'_, str> {
    let Some(id) = id else {
        return Cow::Borrowed("null");
    };
    match id.as_str() {
        Some(text) => Cow::Borrowed(text),
        None => Cow::Owned(id.to_json().to_string()),
    }
}

/// The items of an array variable (`toolCallResults`), read in place. `None` when the value
/// is not an array.
pub(super) fn result_items(value: Option<&SharedJson>) -> Option<Vec<JsonRef<'_>>> {
    Some(value?.view().items()?.collect())
}

/// `read` of a part as plain JSON: in place when it is plain, else of a copy.
pub(super) fn with_plain<T>(
    part: JsonRef<'_>,
    read: impl FnOnce(&Value) -> Option<T>,
) -> Option<T> {
    match part.plain() {
        Some(plain) => read(plain),
        None => read(&part.to_json()),
    }
}

/// The system message of a system prompt that is not blank.
pub(super) fn system_message(prompt: &str) -> Option<SharedJson> {
    (!prompt.trim().is_empty()).then(|| {
        SharedJson::new(object([
            ("role", "system".into()),
            ("content", Value::Array(vec![text_part(prompt)])),
        ]))
    })
}

/// A message's text content part: `{"type": "text", "text": …}`.
pub(super) fn text_part(text: &str) -> Value {
    object([("type", "text".into()), ("text", text.into())])
}

/// A composed object of plain entries with literal keys (no `String` per key, no hash table).
pub(super) fn composed<const N: usize>(entries: [(&'static str, Value); N]) -> SharedJson {
    SharedJson::object(entries)
}

/// A JSON object of these entries, built in place (`json!` would serialize every value it is
/// given into a copy).
pub(super) fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    let mut map = Map::with_capacity(N);
    for (key, value) in entries {
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

/// A tool result's content as the connector stores it: text, object, or nothing.
pub(super) fn content_blocks(content: &Value) -> Value {
    let (kind, key, value) = match content {
        Value::Null => return Value::Array(Vec::new()),
        Value::String(text) if text.trim().is_empty() => return Value::Array(Vec::new()),
        Value::String(_) => ("text", "text", content.clone()),
        other => ("object", "content", other.clone()),
    };
    Value::Array(vec![object([("type", kind.into()), (key, value)])])
}

/// The content of the user message for an event (an event sub-process result).
pub(super) fn event_content(content: &Value, interrupt: bool) -> Value {
    let empty = match content {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    let block = if empty {
        let detail = if interrupt {
            "All in-flight tool executions were canceled."
        } else {
            "Execution waited for all in-flight tool executions to complete before proceeding."
        };
        json!({"type": "text", "text": format!("{EMPTY_EVENT} {detail}")})
    } else if let Value::String(text) = content {
        json!({"type": "text", "text": text})
    } else {
        json!({"type": "object", "content": content})
    };
    Value::Array(vec![block])
}

/// A message the connector writes: its entries, then `metadata.timestamp` when the job carries
/// the clock.
pub(super) fn message(mut entries: Vec<(&'static str, Part)>, now: Option<&str>) -> SharedJson {
    if let Some(now) = now {
        entries.push((
            "metadata",
            SharedJson::object([("timestamp", Value::from(now))]).into(),
        ));
    }
    SharedJson::object(entries)
}

/// The connector's context window: at most `size` messages, the system message kept, the oldest
/// dropped first, and tool results whose tool-call message was dropped go with it.
pub(super) fn window(messages: &[JsonRef<'_>], size: usize) -> Vec<Value> {
    if messages.len() <= size {
        return messages.iter().map(|m| m.to_json()).collect();
    }
    let (system, rest): (Vec<JsonRef<'_>>, Vec<JsonRef<'_>>) =
        messages.iter().partition(|m| role(**m) == "system");
    let keep = size.saturating_sub(system.len());
    let mut rest = &rest[rest.len().saturating_sub(keep)..];
    while rest.first().is_some_and(|m| role(*m) == "tool_call_result") {
        rest = &rest[1..];
    }
    system.iter().chain(rest).map(|m| m.to_json()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_keeps_the_system_message_and_drops_orphaned_results() {
        let sys = json!({"role": "system"});
        let u1 = json!({"role": "user", "n": 1});
        let a1 = json!({"role": "assistant", "toolCalls": [{}]});
        let tcr = json!({"role": "tool_call_result"});
        let a2 = json!({"role": "assistant", "n": 2});
        fn refs<'v>(messages: &[&'v Value]) -> Vec<JsonRef<'v>> {
            messages.iter().map(|m| JsonRef::Plain(m)).collect()
        }
        assert_eq!(window(&refs(&[&u1, &a1, &tcr, &a2]), 2), vec![a2.clone()]);
        assert_eq!(
            window(&refs(&[&sys, &u1, &a1, &tcr, &a2]), 3),
            vec![sys.clone(), a2.clone()]
        );
        assert_eq!(window(&refs(&[&sys, &u1]), 20), vec![sys, u1]);
    }
}
