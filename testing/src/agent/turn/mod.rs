//! A model turn: what the scripted model answers on one call.
//!
//! A turn is tool calls (run in parallel by the ad-hoc sub-process), a final response, a failed
//! model call, or one of the malformed replies real models send. The JSON form (used in cassettes,
//! CPT test files and handler answers) is read with [`Turn::from_json`], which names the path of
//! every problem.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

use super::problems::{Problems, json_type};

mod read;
use read::{read_latency, string_field};

/// One model turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// The model calls tools; they run in parallel, each in its own activation.
    ToolCalls(ToolCallsTurn),
    /// The model answers without calling tools: the agent ends.
    Response(ResponseTurn),
    /// The model writes a tool call into its text instead of sending one (a malformed reply:
    /// the connector takes the text as the final answer).
    ToolCallAsText(ToolCallAsTextTurn),
    /// The model call fails (the provider answered with an error).
    Error(ErrorTurn),
    /// The provider blocked the answer by its content filtering (stop reason
    /// `CONTENT_FILTERED`): the connector fails the job with `MODEL_RESPONSE_CONTENT_FILTERED`.
    ContentFiltered(ContentFilteredTurn),
}

/// A turn whose answer the provider's content filtering blocked.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContentFilteredTurn {
    pub usage: Option<Usage>,
    /// How long the provider takes to answer.
    pub latency: Option<Duration>,
}

/// A turn that calls tools.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallsTurn {
    pub calls: Vec<ToolCall>,
    /// Text the model sent alongside the calls (the connector parses it with the JSON response
    /// format, as it does on every turn).
    pub text: Option<String>,
    /// Send the calls as they are, unchecked: an unknown tool or arguments that do not fit the
    /// tool's schema get the connector's behaviour instead of failing the test.
    pub unchecked: bool,
    pub usage: Option<Usage>,
    /// How long the model took to answer, in virtual time (`None`: at once).
    pub latency: Option<Duration>,
}

/// One tool call of a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call id; `call_<modelCall>_<n>` when left out.
    pub id: Option<String>,
    /// The tool: an element id of the ad-hoc sub-process.
    pub name: String,
    pub arguments: Arguments,
}

/// The arguments of a tool call as the model sent them.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    /// A JSON value; anything but an object is a malformed call.
    Json(Value),
    /// Text that is not JSON (a malformed reply, e.g. a Python-style dict).
    Raw(String),
}

/// A final answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseTurn {
    /// The model's text. When left out, the text is the JSON of `json`.
    pub text: Option<String>,
    /// The answer as JSON: what the connector parses out of the text when the response format
    /// asks for JSON.
    pub json: Option<Value>,
    pub usage: Option<Usage>,
    /// How long the model took to answer, in virtual time (`None`: at once).
    pub latency: Option<Duration>,
}

/// A tool call written into the reply's text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallAsTextTurn {
    pub name: String,
    pub arguments: Value,
    pub style: TextCallStyle,
    pub usage: Option<Usage>,
    /// How long the model took to answer, in virtual time (`None`: at once).
    pub latency: Option<Duration>,
}

/// How a tool call written as text looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextCallStyle {
    /// `{"name": …, "arguments": …}`
    Json,
    /// The same object between `<tool_call>` and `</tool_call>` lines.
    Tagged,
    /// The same object in a Markdown json code block.
    Fenced,
}

/// A failed model call.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorTurn {
    /// The provider's error message.
    pub message: String,
    /// How long the call took before it failed, in virtual time (`None`: at once).
    pub latency: Option<Duration>,
}

/// Token usage the provider reports for one call, named as the connector stores it in
/// `agentContext.metrics.tokenUsage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub input_token_count: u64,
    pub output_token_count: u64,
    pub cache_read_token_count: u64,
    pub cache_creation_token_count: u64,
    pub reasoning_token_count: u64,
}

const USAGE_FIELDS: [&str; 5] = [
    "inputTokenCount",
    "outputTokenCount",
    "cacheReadTokenCount",
    "cacheCreationTokenCount",
    "reasoningTokenCount",
];

impl Usage {
    /// Input and output tokens.
    pub fn new(input_token_count: u64, output_token_count: u64) -> Self {
        Usage {
            input_token_count,
            output_token_count,
            ..Usage::default()
        }
    }

    /// Adds another call's usage, field by field.
    pub fn add(&mut self, other: &Usage) {
        self.input_token_count += other.input_token_count;
        self.output_token_count += other.output_token_count;
        self.cache_read_token_count += other.cache_read_token_count;
        self.cache_creation_token_count += other.cache_creation_token_count;
        self.reasoning_token_count += other.reasoning_token_count;
    }

    /// The connector's `tokenUsage` entries: input and output always, the others when not zero.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&'static str, u64)> {
        let always = [
            ("inputTokenCount", self.input_token_count),
            ("outputTokenCount", self.output_token_count),
        ];
        let optional = [
            ("cacheReadTokenCount", self.cache_read_token_count),
            ("cacheCreationTokenCount", self.cache_creation_token_count),
            ("reasoningTokenCount", self.reasoning_token_count),
        ];
        always
            .into_iter()
            .chain(optional.into_iter().filter(|(_, count)| *count != 0))
    }

    /// The connector's `tokenUsage` object (`Usage::entries`).
    pub fn to_json(&self) -> Value {
        let mut object = Map::with_capacity(5);
        for (name, count) in self.entries() {
            object.insert(name.into(), count.into());
        }
        Value::Object(object)
    }

    /// Reads a `tokenUsage`-shaped object (missing fields are 0).
    pub fn from_json(value: &Value, path: &str, problems: &mut Problems) -> Option<Usage> {
        let Some(object) = value.as_object() else {
            problems.push(
                path,
                format!(
                    "must be an object with {}, got {}",
                    USAGE_FIELDS.join(", "),
                    json_type(value)
                ),
            );
            return None;
        };
        problems.unknown_fields(path, object, &USAGE_FIELDS);
        let mut usage = Usage::default();
        for (name, slot) in [
            ("inputTokenCount", &mut usage.input_token_count),
            ("outputTokenCount", &mut usage.output_token_count),
            ("cacheReadTokenCount", &mut usage.cache_read_token_count),
            (
                "cacheCreationTokenCount",
                &mut usage.cache_creation_token_count,
            ),
            ("reasoningTokenCount", &mut usage.reasoning_token_count),
        ] {
            if let Some(count) = object.get(name) {
                match count.as_u64() {
                    Some(count) => *slot = count,
                    None => problems.push(
                        &format!("{path}.{name}"),
                        format!("must be a whole number of tokens (0 or more), got {count}"),
                    ),
                }
            }
        }
        Some(usage)
    }
}

impl ToolCall {
    /// A call of `name` with JSON arguments (an object).
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: None,
            name: name.into(),
            arguments: Arguments::Json(arguments),
        }
    }

    /// A call whose arguments are text that is not JSON, as a model sends it by mistake.
    pub fn unparseable(name: impl Into<String>, raw_arguments: impl Into<String>) -> Self {
        ToolCall {
            id: None,
            name: name.into(),
            arguments: Arguments::Raw(raw_arguments.into()),
        }
    }

    /// Gives the call an id (instead of `call_<modelCall>_<n>`).
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    fn to_json(&self) -> Value {
        let mut object = Map::with_capacity(3);
        if let Some(id) = &self.id {
            object.insert("id".into(), id.clone().into());
        }
        object.insert("name".into(), self.name.clone().into());
        match &self.arguments {
            Arguments::Json(arguments) => {
                if arguments.as_object().is_none_or(|o| !o.is_empty()) {
                    object.insert("arguments".into(), arguments.clone());
                }
            }
            Arguments::Raw(raw) => {
                object.insert("rawArguments".into(), raw.clone().into());
            }
        }
        Value::Object(object)
    }
}

impl Turn {
    /// Tool calls, run in parallel.
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Turn::ToolCalls(ToolCallsTurn {
            calls: calls.into_iter().collect(),
            text: None,
            unchecked: false,
            usage: None,
            latency: None,
        })
    }

    /// One tool call.
    pub fn call(name: impl Into<String>, arguments: Value) -> Self {
        Turn::tool_calls([ToolCall::new(name, arguments)])
    }

    /// A final answer in text.
    pub fn respond_text(text: impl Into<String>) -> Self {
        Turn::Response(ResponseTurn {
            text: Some(text.into()),
            json: None,
            usage: None,
            latency: None,
        })
    }

    /// A final answer as JSON (the model's text is this JSON).
    pub fn respond_json(json: Value) -> Self {
        Turn::Response(ResponseTurn {
            text: None,
            json: Some(json),
            usage: None,
            latency: None,
        })
    }

    /// A final answer with both a text and its JSON.
    pub fn respond(text: impl Into<String>, json: Value) -> Self {
        Turn::Response(ResponseTurn {
            text: Some(text.into()),
            json: Some(json),
            usage: None,
            latency: None,
        })
    }

    /// The model call fails with this provider error.
    pub fn error(message: impl Into<String>) -> Self {
        Turn::Error(ErrorTurn {
            message: message.into(),
            latency: None,
        })
    }

    /// The provider's content filtering blocks the answer.
    pub fn content_filtered() -> Self {
        Turn::ContentFiltered(ContentFilteredTurn::default())
    }

    /// A tool call written into the text instead of sent as one.
    pub fn tool_call_as_text(
        name: impl Into<String>,
        arguments: Value,
        style: TextCallStyle,
    ) -> Self {
        Turn::ToolCallAsText(ToolCallAsTextTurn {
            name: name.into(),
            arguments,
            style,
            usage: None,
            latency: None,
        })
    }

    /// Sets the token usage the provider reports for this call (not for an error turn).
    pub fn with_usage(mut self, usage: Usage) -> Self {
        match &mut self {
            Turn::ToolCalls(turn) => turn.usage = Some(usage),
            Turn::Response(turn) => turn.usage = Some(usage),
            Turn::ToolCallAsText(turn) => turn.usage = Some(usage),
            Turn::ContentFiltered(turn) => turn.usage = Some(usage),
            Turn::Error(_) => {}
        }
        self
    }

    /// Adds text to a tool-call turn (ignored on other turns).
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let Turn::ToolCalls(turn) = &mut self {
            turn.text = Some(text.into());
        }
        self
    }

    /// Sends the tool calls unchecked (see [`ToolCallsTurn::unchecked`]).
    pub fn unchecked(mut self) -> Self {
        if let Turn::ToolCalls(turn) = &mut self {
            turn.unchecked = true;
        }
        self
    }

    /// The model takes this long to answer (`"PT30S"` or a `Duration`), in virtual time: the
    /// job's answer arrives that much later. Panics on a duration that does not read
    /// ([`Turn::try_with_latency`] returns it); a latency over 366 days is refused with the
    /// script (as a fault's).
    #[track_caller]
    pub fn with_latency(self, latency: impl crate::clock::IntoDuration) -> Self {
        match self.try_with_latency(latency) {
            Ok(turn) => turn,
            Err(e) => panic!("{e}"),
        }
    }

    /// Like [`with_latency`](Self::with_latency), with `Err` for a duration that does not read.
    pub fn try_with_latency(
        mut self,
        latency: impl crate::clock::IntoDuration,
    ) -> Result<Self, crate::clock::ClockError> {
        // Durations never read as negative: `parse_duration` refuses a minus sign.
        let latency = Duration::from_millis(latency.into_millis()?.max(0) as u64);
        *self.latency_mut() = Some(latency);
        Ok(self)
    }

    /// How long the model takes to answer.
    pub fn latency(&self) -> Option<Duration> {
        match self {
            Turn::ToolCalls(turn) => turn.latency,
            Turn::Response(turn) => turn.latency,
            Turn::ToolCallAsText(turn) => turn.latency,
            Turn::Error(turn) => turn.latency,
            Turn::ContentFiltered(turn) => turn.latency,
        }
    }

    fn latency_mut(&mut self) -> &mut Option<Duration> {
        match self {
            Turn::ToolCalls(turn) => &mut turn.latency,
            Turn::Response(turn) => &mut turn.latency,
            Turn::ToolCallAsText(turn) => &mut turn.latency,
            Turn::Error(turn) => &mut turn.latency,
            Turn::ContentFiltered(turn) => &mut turn.latency,
        }
    }

    /// The usage the turn reports.
    pub fn usage(&self) -> Option<Usage> {
        match self {
            Turn::ToolCalls(turn) => turn.usage,
            Turn::Response(turn) => turn.usage,
            Turn::ToolCallAsText(turn) => turn.usage,
            Turn::ContentFiltered(turn) => turn.usage,
            Turn::Error(_) => None,
        }
    }

    /// Whether two turns give the same answer: the same tools with the same arguments in the
    /// same order, the same text and JSON, the same error. Call ids are the provider's choice
    /// (replay matches calls by name and arguments too), and token usage and latency are how the
    /// answer came, not what it says: none of them count.
    pub fn same_answer(&self, other: &Turn) -> bool {
        let without_how = |turn: &Turn| {
            let mut turn = turn.clone();
            *turn.latency_mut() = None;
            match &mut turn {
                Turn::ToolCalls(t) => {
                    t.usage = None;
                    t.calls.iter_mut().for_each(|c| c.id = None);
                }
                Turn::Response(t) => t.usage = None,
                Turn::ToolCallAsText(t) => t.usage = None,
                Turn::ContentFiltered(t) => t.usage = None,
                Turn::Error(_) => {}
            }
            turn
        };
        without_how(self) == without_how(other)
    }

    /// A short description for messages: `tool calls lookup-order, search-kb`, `a response`, ...
    pub fn describe(&self) -> String {
        match self {
            Turn::ToolCalls(turn) => {
                let names: Vec<&str> = turn.calls.iter().map(|c| c.name.as_str()).collect();
                format!("tool calls {}", names.join(", "))
            }
            Turn::Response(_) => "a response".to_string(),
            Turn::ToolCallAsText(turn) => format!("a tool call of {} written as text", turn.name),
            Turn::Error(turn) => format!("an error ({})", turn.message),
            Turn::ContentFiltered(_) => "an answer blocked by content filtering".to_string(),
        }
    }

    /// Checks a turn built in code (or returned by a handler) as a cassette turn is checked.
    pub fn validate(&self, path: &str) -> Result<(), Problems> {
        if self.plainly_valid() {
            return Ok(());
        }
        let mut problems = Problems::default();
        // The JSON form is the single source of the rules.
        Turn::from_json_into(&self.to_json(), path, &mut problems);
        problems.into_result(())
    }

    /// Whether the JSON form passes [`Turn::from_json_into`] without a problem, decided on the
    /// struct: true for the turns the constructors build, without building their JSON (a
    /// script is checked on every mock). `false` sends [`Turn::validate`] to the JSON form,
    /// which names the problems; the unit tests hold the two to the same answer.
    fn plainly_valid(&self) -> bool {
        let named = |text: &str| !text.trim().is_empty();
        if self
            .latency()
            .is_some_and(|latency| latency > crate::faults::LONGEST_FAULT_DURATION)
        {
            return false;
        }
        match self {
            Turn::ToolCalls(turn) => {
                !turn.calls.is_empty()
                    && turn.calls.iter().enumerate().all(|(i, call)| {
                        named(&call.name)
                            && call.id.as_deref().is_none_or(|id| {
                                named(id)
                                    && turn.calls[..i]
                                        .iter()
                                        .all(|earlier| earlier.id.as_deref() != Some(id))
                            })
                            && match &call.arguments {
                                Arguments::Json(arguments) => arguments.is_object(),
                                Arguments::Raw(_) => true,
                            }
                    })
            }
            Turn::Response(turn) => turn.text.is_some() || turn.json.is_some(),
            Turn::ToolCallAsText(turn) => named(&turn.name),
            Turn::Error(turn) => named(&turn.message),
            Turn::ContentFiltered(_) => true,
        }
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        let usage = self.usage();
        match self {
            Turn::ToolCalls(turn) => {
                object.insert(
                    "toolCalls".into(),
                    Value::Array(turn.calls.iter().map(ToolCall::to_json).collect()),
                );
                if let Some(text) = &turn.text {
                    object.insert("text".into(), text.clone().into());
                }
                if turn.unchecked {
                    object.insert("unchecked".into(), true.into());
                }
            }
            Turn::Response(turn) => {
                if let Some(text) = &turn.text {
                    object.insert("responseText".into(), text.clone().into());
                }
                if let Some(json) = &turn.json {
                    object.insert("responseJson".into(), json.clone());
                }
            }
            Turn::ToolCallAsText(turn) => {
                let style = match turn.style {
                    TextCallStyle::Json => "json",
                    TextCallStyle::Tagged => "tagged",
                    TextCallStyle::Fenced => "fenced",
                };
                object.insert(
                    "toolCallAsText".into(),
                    json!({"name": turn.name, "arguments": turn.arguments, "style": style}),
                );
            }
            Turn::Error(turn) => {
                object.insert("error".into(), turn.message.clone().into());
            }
            Turn::ContentFiltered(_) => {
                object.insert("contentFiltered".into(), true.into());
            }
        }
        if let Some(usage) = usage {
            object.insert("usage".into(), usage.to_json());
        }
        if let Some(latency) = self.latency() {
            object.insert(
                "latency".into(),
                crate::faults::format_duration(latency).into(),
            );
        }
        Value::Object(object)
    }

    /// Reads the JSON form; `path` names the turn in messages (`turns[0]`).
    pub fn from_json(value: &Value, path: &str) -> Result<Turn, Problems> {
        let mut problems = Problems::default();
        let turn = Turn::from_json_into(value, path, &mut problems);
        match turn {
            Some(turn) if problems.is_empty() => Ok(turn),
            _ => Err(problems),
        }
    }

    pub(crate) fn from_json_into(
        value: &Value,
        path: &str,
        problems: &mut Problems,
    ) -> Option<Turn> {
        let Some(object) = value.as_object() else {
            problems.push(
                path,
                format!("must be an object (a turn), got {}", json_type(value)),
            );
            return None;
        };
        let usage = object
            .get("usage")
            .and_then(|u| Usage::from_json(u, &format!("{path}.usage"), problems));
        let latency = object
            .get("latency")
            .and_then(|l| read_latency(l, &format!("{path}.latency"), problems));
        let has = |k: &str| object.contains_key(k);
        let kinds: Vec<&str> = [
            "toolCalls",
            "responseText",
            "responseJson",
            "toolCallAsText",
            "error",
            "contentFiltered",
        ]
        .into_iter()
        .filter(|k| has(k))
        .collect();
        let is_response = has("responseText") || has("responseJson");
        let distinct = usize::from(has("toolCalls"))
            + usize::from(is_response)
            + usize::from(has("toolCallAsText"))
            + usize::from(has("error"))
            + usize::from(has("contentFiltered"));
        if distinct > 1 {
            problems.push(
                path,
                format!(
                    "mixes {}: a turn either calls tools (toolCalls), answers (responseText and/or responseJson), writes a tool call as text (toolCallAsText), fails (error) or is blocked (contentFiltered)",
                    kinds.join(" and ")
                ),
            );
            return None;
        }
        if has("toolCalls") {
            return Some(Turn::ToolCalls(ToolCallsTurn::from_json_into(
                object, path, usage, latency, problems,
            )));
        }
        if is_response {
            problems.unknown_fields(
                path,
                object,
                &["responseText", "responseJson", "usage", "latency"],
            );
            let text = string_field(object, "responseText", path, problems);
            let json = object.get("responseJson").cloned();
            return Some(Turn::Response(ResponseTurn {
                text,
                json,
                usage,
                latency,
            }));
        }
        if has("toolCallAsText") {
            return ToolCallAsTextTurn::from_json_into(object, path, usage, latency, problems)
                .map(Turn::ToolCallAsText);
        }
        if has("contentFiltered") {
            problems.unknown_fields(path, object, &["contentFiltered", "usage", "latency"]);
            return match &object["contentFiltered"] {
                Value::Bool(true) => Some(Turn::ContentFiltered(ContentFilteredTurn {
                    usage,
                    latency,
                })),
                other => {
                    problems.push(
                        &format!("{path}.contentFiltered"),
                        format!("must be true (the provider blocked the answer), got {other}"),
                    );
                    None
                }
            };
        }
        if has("error") {
            problems.unknown_fields(path, object, &["error", "latency"]);
            return match &object["error"] {
                Value::String(message) if !message.trim().is_empty() => {
                    Some(Turn::Error(ErrorTurn {
                        message: message.clone(),
                        latency,
                    }))
                }
                other => {
                    problems.push(
                        &format!("{path}.error"),
                        format!(
                            "must be the provider's error message (a non-empty string), got {other}"
                        ),
                    );
                    None
                }
            };
        }
        let before = problems.len();
        problems.unknown_fields(
            path,
            object,
            &[
                "toolCalls",
                "responseText",
                "responseJson",
                "toolCallAsText",
                "error",
                "contentFiltered",
                "usage",
                "latency",
            ],
        );
        if problems.len() == before {
            problems.push(path, "must have toolCalls, or responseText and/or responseJson (or toolCallAsText, error, contentFiltered)".to_string());
        }
        None
    }
}

/// Reads a turn's `latency`: an ISO-8601 duration, not negative, at most a fault's longest.
impl Serialize for Turn {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Turn {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Turn::from_json(&value, "turn").map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The struct check never passes a turn the JSON form rejects, and passes every valid one.
    #[test]
    fn plainly_valid_agrees_with_the_json_form() {
        let call = |name: &str, id: Option<&str>, arguments: Arguments| ToolCall {
            id: id.map(str::to_string),
            name: name.to_string(),
            arguments,
        };
        let object = || Arguments::Json(json!({"q": 1}));
        let turns = vec![
            Turn::call("search", json!({"q": "x"})),
            Turn::call("search", json!({})),
            Turn::call("search", json!([1])),
            Turn::call("search", Value::Null),
            Turn::call(" ", json!({})),
            Turn::tool_calls([]),
            Turn::tool_calls([ToolCall::unparseable("search", "{q: 1}")]),
            Turn::tool_calls([
                call("a", Some("1"), object()),
                call("b", Some("2"), object()),
            ]),
            Turn::tool_calls([
                call("a", Some("1"), object()),
                call("b", Some("1"), object()),
            ]),
            Turn::tool_calls([call("a", Some(" "), object())]),
            Turn::call("search", json!({}))
                .with_text("thinking")
                .unchecked(),
            Turn::call("search", json!({})).with_usage(Usage::new(u64::MAX, 2)),
            Turn::respond_text(""),
            Turn::respond_json(Value::Null),
            Turn::respond("{}", json!({})).with_usage(Usage::new(1, 2)),
            Turn::Response(ResponseTurn {
                text: None,
                json: None,
                usage: None,
                latency: None,
            }),
            Turn::tool_call_as_text("search", json!({"q": 1}), TextCallStyle::Tagged),
            Turn::tool_call_as_text("", json!({}), TextCallStyle::Json),
            Turn::error("overloaded"),
            Turn::error("  "),
        ];
        for turn in &turns {
            let mut problems = Problems::default();
            Turn::from_json_into(&turn.to_json(), "turn", &mut problems);
            assert_eq!(
                turn.plainly_valid(),
                problems.is_empty(),
                "{turn:?}: {problems:?}"
            );
        }
    }
}
