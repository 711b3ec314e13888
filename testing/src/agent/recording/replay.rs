//! Replay that checks: a model call is answered by a recorded call only if the request still
//! matches what was recorded (after normalisation and redaction on both sides).

use std::cell::OnceCell;

use serde_json::Value;

use super::diff::{Difference, same_json};
use super::format::{RecordedRequest, Recording};
use super::normalize::{Normalizer, is_key, normalize_text};
use super::redact::Redactor;
use super::{limits_json, request_json, response_format_json};
use crate::agent::request::AgentRequest;
use crate::agent::tools::ToolDefinition;
use crate::agent::turn::Turn;

/// The request of a model call: its JSON, or the mock's request, whose JSON is built only when
/// a comparison needs it.
enum Actual<'a> {
    Json(&'a Value),
    Request {
        request: &'a AgentRequest,
        json: OnceCell<Value>,
    },
}

impl Actual<'_> {
    fn json(&self) -> &Value {
        match self {
            Actual::Json(json) => json,
            Actual::Request { request, json } => json.get_or_init(|| request_json(request)),
        }
    }
}

/// Which recorded call answers a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchMode {
    /// Call N is answered by recorded call N, if the requests match (the default).
    #[default]
    InOrder,
    /// Each call takes the first unused recorded call with an equal request: for parallel
    /// multi-instance agents and tools that finish in another order.
    ByRequest,
    /// Turns in order, requests not checked (format 1's behaviour).
    TurnsOnly,
}

impl MatchMode {
    /// `"in-order"`, `"by-request"`, `"turns-only"`.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchMode::InOrder => "in-order",
            MatchMode::ByRequest => "by-request",
            MatchMode::TurnsOnly => "turns-only",
        }
    }

    /// Reads [`MatchMode::as_str`]'s names.
    pub fn parse(text: &str) -> Option<MatchMode> {
        [
            MatchMode::InOrder,
            MatchMode::ByRequest,
            MatchMode::TurnsOnly,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == text)
    }
}

/// Why a model call gets no recorded turn.
#[derive(Debug, Clone, PartialEq)]
pub enum UnmatchedCall {
    /// The request differs from the recorded call `entry` (0-based) that would answer it.
    Differs {
        call: u32,
        entry: usize,
        difference: Box<Difference>,
        /// The actual request, normalised as the recorded one is.
        actual: Box<RecordedRequest>,
    },
    /// Every recorded call has been played.
    Exhausted { call: u32, recorded: usize },
}

/// The replay of one recording.
#[derive(Debug, Clone)]
pub struct Replayer {
    recording: Recording,
    mode: MatchMode,
    normalizer: Normalizer,
    redactor: Redactor,
    /// The recorded requests normalised with this replay's rules (a test may add rules after
    /// recording).
    recorded: Vec<Option<RecordedRequest>>,
    /// Only the standard rules apply: requests are compared raw first (see [`matches_raw`]).
    standard: bool,
    used: Vec<bool>,
    calls: u32,
}

/// A recorded call chosen to answer a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The recorded call (0-based).
    pub entry: usize,
    /// Whether its request was compared (and matched).
    pub checked: bool,
}

impl Replayer {
    pub fn new(
        recording: Recording,
        mode: MatchMode,
        normalizer: Normalizer,
        redactor: Redactor,
    ) -> Replayer {
        // The standard rules were applied when recording and change nothing the second time;
        // a test's own rules may be newer than the recording.
        let standard = normalizer.is_standard() && redactor.is_standard();
        let recorded = recording
            .calls
            .iter()
            .map(|call| {
                call.request.as_ref().map(|request| {
                    if standard {
                        request.clone()
                    } else {
                        prepare(&request.to_json(), &normalizer, &redactor)
                    }
                })
            })
            .collect();
        let used = vec![false; recording.calls.len()];
        Replayer {
            recording,
            mode,
            normalizer,
            redactor,
            recorded,
            standard,
            used,
            calls: 0,
        }
    }

    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    pub fn mode(&self) -> MatchMode {
        self.mode
    }

    /// Model calls answered or refused so far.
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// A request as recordings store it: redacted, then normalised.
    pub fn prepare(&self, request: &Value) -> RecordedRequest {
        prepare(request, &self.normalizer, &self.redactor)
    }

    /// Picks the recorded call that answers the next model call, whose request is `request`
    /// (as the model sees it: [`crate::agent::recording::request_json`]).
    pub fn answer(&mut self, request: &Value) -> Result<Played, UnmatchedCall> {
        self.answer_actual(&Actual::Json(request))
    }

    /// [`answer`](Self::answer) for the mock's request of a model call.
    pub fn answer_request(&mut self, request: &AgentRequest) -> Result<Played, UnmatchedCall> {
        self.answer_actual(&Actual::Request {
            request,
            json: OnceCell::new(),
        })
    }

    fn answer_actual(&mut self, request: &Actual<'_>) -> Result<Played, UnmatchedCall> {
        self.calls += 1;
        let call = self.calls;
        let exhausted = UnmatchedCall::Exhausted {
            call,
            recorded: self.recording.calls.len(),
        };
        let checked = self.mode != MatchMode::TurnsOnly;
        let played = match self.mode {
            MatchMode::InOrder | MatchMode::TurnsOnly => {
                let entry = self.used.iter().position(|u| !u).ok_or(exhausted)?;
                let compared = checked && self.recorded[entry].is_some();
                if compared && let Err(mismatch) = self.check(entry, request, call) {
                    return Err(mismatch);
                }
                Played {
                    entry,
                    checked: compared,
                }
            }
            MatchMode::ByRequest => {
                let first_unused = self.used.iter().position(|u| !u).ok_or(exhausted)?;
                let mut prepared = None;
                let found = (first_unused..self.used.len())
                    .filter(|&i| !self.used[i])
                    .find(|&i| match &self.recorded[i] {
                        None => true,
                        Some(r) if self.standard && matches_raw(r, request, &self.redactor) => true,
                        Some(r) => r
                            .first_difference(
                                prepared.get_or_insert_with(|| self.prepare(request.json())),
                            )
                            .is_none(),
                    });
                match found {
                    Some(entry) => Played {
                        entry,
                        checked: self.recorded[entry].is_some(),
                    },
                    None => {
                        let actual = prepared.unwrap_or_else(|| self.prepare(request.json()));
                        let difference = self.recorded[first_unused]
                            .as_ref()
                            .and_then(|r| r.first_difference(&actual))
                            .expect("an unmatched entry has a request that differs");
                        return Err(UnmatchedCall::Differs {
                            call,
                            entry: first_unused,
                            difference: Box::new(difference),
                            actual: Box::new(actual),
                        });
                    }
                }
            }
        };
        self.used[played.entry] = true;
        Ok(played)
    }

    /// Compares a request with recorded call `entry`: raw first when only the standard rules
    /// apply, and normalised when that finds a difference (so the difference is the one a full
    /// normalisation gives).
    fn check(&self, entry: usize, request: &Actual<'_>, call: u32) -> Result<(), UnmatchedCall> {
        let Some(recorded) = &self.recorded[entry] else {
            return Ok(());
        };
        if self.standard && matches_raw(recorded, request, &self.redactor) {
            return Ok(());
        }
        let actual = self.prepare(request.json());
        match recorded.first_difference(&actual) {
            None => Ok(()),
            Some(difference) => Err(UnmatchedCall::Differs {
                call,
                entry,
                difference: Box::new(difference),
                actual: Box::new(actual),
            }),
        }
    }

    /// Compares the request of a model call that asks the same again (after a connector crash)
    /// with recorded call `entry`, which answered it the first time; no recorded call is used
    /// up, and the calls counted stay (the cassette's numbering).
    pub fn check_again(&self, entry: usize, request: &Value) -> Result<(), UnmatchedCall> {
        if self.mode == MatchMode::TurnsOnly {
            return Ok(());
        }
        self.check(entry, &Actual::Json(request), self.calls)
    }

    /// Takes the next unused recorded call without checking (drift mode goes on after a
    /// mismatch with the turn the recording has).
    pub fn take_next(&mut self) -> Option<usize> {
        let entry = self.used.iter().position(|u| !u)?;
        self.used[entry] = true;
        Some(entry)
    }

    /// A recorded call's request, normalised with this replay's rules.
    pub fn recorded_request(&self, entry: usize) -> Option<&RecordedRequest> {
        self.recorded.get(entry).and_then(Option::as_ref)
    }

    /// The turn of a recorded call.
    pub fn turn(&self, entry: usize) -> &Turn {
        &self.recording.calls[entry].turn
    }

    /// The recorded calls not played, in order (0-based).
    pub fn unplayed(&self) -> Vec<usize> {
        (0..self.used.len()).filter(|&i| !self.used[i]).collect()
    }
}

/// Whether `actual`, redacted and normalised with the standard rules, equals `recorded` (which
/// is), deciding on the raw values where they are equal: the standard rules give their own
/// output back unchanged, so only the values that differ need them. `false` can also mean
/// "not sure": the caller then normalises the whole request. The mock's request is read where
/// it lies, without building its JSON.
fn matches_raw(recorded: &RecordedRequest, actual: &Actual<'_>, redactor: &Redactor) -> bool {
    match actual {
        Actual::Json(json) => {
            let Some(actual) = json.as_object() else {
                return false;
            };
            recorded
                .fields()
                .iter()
                .all(|(field, r)| match actual.get(field) {
                    None => false,
                    Some(a) => match field.as_str() {
                        "tools" => a.as_array().is_some_and(|a| same_tools(r, a, redactor)),
                        "toolCallResults" => same_items(r, a, redactor),
                        "messages" => a.as_array().is_some_and(|a| same_messages(r, a, redactor)),
                        _ => same_value(r, a, redactor),
                    },
                })
        }
        Actual::Request { request, .. } => {
            let text = |text: &Option<String>| {
                text.as_ref()
                    .map_or(Value::Null, |t| Value::String(t.clone()))
            };
            recorded
                .fields()
                .iter()
                .all(|(field, r)| match field.as_str() {
                    "tools" => same_tool_definitions(r, &request.tools, redactor),
                    "systemPrompt" => same_value(r, &text(&request.system_prompt), redactor),
                    "userPrompt" => same_value(r, &text(&request.user_prompt), redactor),
                    "toolCallResults" => same_items(r, &request.tool_call_results, redactor),
                    "events" => r.as_array().is_some_and(|r| {
                        r.len() == request.events.len()
                            && r.iter()
                                .zip(&request.events)
                                .all(|(r, a)| same_value(r, a, redactor))
                    }),
                    "responseFormat" => {
                        same_value(r, &response_format_json(&request.response_format), redactor)
                    }
                    "limits" => same_value(r, &limits_json(request.limits), redactor),
                    "messages" => same_messages(r, &request.messages, redactor),
                    _ => false,
                })
        }
    }
}

fn same_value(recorded: &Value, actual: &Value, redactor: &Redactor) -> bool {
    match (recorded, actual) {
        (Value::String(r), Value::String(a)) => {
            r == a || {
                let redacted = redactor.redact_text(a);
                match normalize_text(&redacted) {
                    Some(normalized) => normalized == *r,
                    None => *redacted == **r,
                }
            }
        }
        (Value::String(r), Value::Number(n)) => r == "<key>" && n.as_u64().is_some_and(is_key),
        (Value::Array(r), Value::Array(a)) => {
            r.len() == a.len() && r.iter().zip(a).all(|(r, a)| same_value(r, a, redactor))
        }
        (Value::Object(r), Value::Object(a)) => {
            r.len() == a.len()
                && r.iter()
                    .all(|(k, rv)| a.get(k).is_some_and(|av| same_value(rv, av, redactor)))
        }
        _ => same_json(recorded, actual),
    }
}

/// Objects whose `id` (a tool call's) the recording left out.
fn same_items(recorded: &Value, actual: &Value, redactor: &Redactor) -> bool {
    let (Some(r), Some(a)) = (recorded.as_array(), actual.as_array()) else {
        return same_value(recorded, actual, redactor);
    };
    r.len() == a.len()
        && r.iter().zip(a).all(|(r, a)| match (r, a) {
            (Value::Object(ro), Value::Object(ao)) => {
                ro.len() + usize::from(ao.contains_key("id")) == ao.len()
                    && !ro.contains_key("id")
                    && ro
                        .iter()
                        .all(|(k, rv)| ao.get(k).is_some_and(|av| same_value(rv, av, redactor)))
            }
            _ => same_value(r, a, redactor),
        })
}

fn same_messages(recorded: &Value, actual: &[Value], redactor: &Redactor) -> bool {
    let (Some(r), a) = (recorded.as_array(), actual) else {
        return false;
    };
    r.len() == a.len()
        && r.iter().zip(a).all(|(r, a)| match (r, a) {
            (Value::Object(ro), Value::Object(ao)) => {
                ro.len() == ao.len()
                    && ro.iter().all(|(k, rv)| {
                        ao.get(k).is_some_and(|av| match k.as_str() {
                            "toolCalls" | "results" => same_items(rv, av, redactor),
                            _ => same_value(rv, av, redactor),
                        })
                    })
            }
            _ => same_value(r, a, redactor),
        })
}

/// The recorded tools are in name order; the actual ones in Zeebe's.
fn same_tools(recorded: &Value, actual: &[Value], redactor: &Redactor) -> bool {
    let Some(r) = recorded.as_array() else {
        return false;
    };
    let name = |t: &Value| t.get("name").and_then(Value::as_str).map(str::to_string);
    let mut sorted: Vec<&Value> = actual.iter().collect();
    sorted.sort_by_key(|t| name(t));
    r.len() == sorted.len()
        && r.iter()
            .zip(sorted)
            .all(|(r, a)| same_value(r, a, redactor))
}

/// [`same_tools`] against the tool definitions themselves (what
/// [`ToolDefinition::to_json`] would give).
fn same_tool_definitions(recorded: &Value, tools: &[ToolDefinition], redactor: &Redactor) -> bool {
    let Some(r) = recorded.as_array() else {
        return false;
    };
    let mut sorted: Vec<&ToolDefinition> = tools.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let text = |t: &str| Value::String(t.to_string());
    r.len() == sorted.len()
        && r.iter().zip(sorted).all(|(r, tool)| {
            let Some(r) = r.as_object() else {
                return false;
            };
            r.len() == 2 + usize::from(tool.description.is_some())
                && r.get("name")
                    .is_some_and(|n| same_value(n, &text(&tool.name), redactor))
                && tool.description.as_deref().is_none_or(|d| {
                    r.get("description")
                        .is_some_and(|rd| same_value(rd, &text(d), redactor))
                })
                && r.get("inputSchema")
                    .is_some_and(|s| same_value(s, &tool.input_schema, redactor))
        })
}

/// Redacts, then normalises, and keeps the request fields.
pub(crate) fn prepare(
    request: &Value,
    normalizer: &Normalizer,
    redactor: &Redactor,
) -> RecordedRequest {
    let mut value = request.clone();
    redactor.redact(&mut value);
    normalizer.normalize(&mut value);
    RecordedRequest::new(&value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::recording::format::RecordedCall;
    use serde_json::json;

    fn recording(prompts: &[&str]) -> Recording {
        let mut recording = Recording::new("agent", None);
        for prompt in prompts {
            recording.calls.push(RecordedCall {
                request: Some(RecordedRequest::new(&json!({"userPrompt": prompt}))),
                turn: Turn::respond_text(*prompt),
                trajectory: Vec::new(),
            });
        }
        recording
    }

    fn replayer(prompts: &[&str], mode: MatchMode) -> Replayer {
        Replayer::new(
            recording(prompts),
            mode,
            Normalizer::standard(),
            Redactor::standard(),
        )
    }

    #[test]
    fn a_request_asked_again_is_checked_against_the_entry_that_answered_it() {
        let mut r = replayer(&["a", "b"], MatchMode::InOrder);
        assert_eq!(r.answer(&json!({"userPrompt": "a"})).unwrap().entry, 0);
        assert_eq!(r.check_again(0, &json!({"userPrompt": "a"})), Ok(()));
        let Err(UnmatchedCall::Differs { call, entry, .. }) =
            r.check_again(0, &json!({"userPrompt": "b"}))
        else {
            panic!("a mismatch")
        };
        assert_eq!((call, entry), (1, 0));
        // Nothing was used up: the next call is recorded call 2.
        assert_eq!(r.answer(&json!({"userPrompt": "b"})).unwrap().entry, 1);
        assert_eq!(r.calls(), 2);
    }

    #[test]
    fn in_order_checks_call_n_against_entry_n() {
        let mut r = replayer(&["a", "b"], MatchMode::InOrder);
        assert_eq!(r.answer(&json!({"userPrompt": "a"})).unwrap().entry, 0);
        let Err(UnmatchedCall::Differs {
            call,
            entry,
            difference,
            ..
        }) = r.answer(&json!({"userPrompt": "a"}))
        else {
            panic!("a mismatch")
        };
        assert_eq!(
            (call, entry, difference.path.as_str()),
            (2, 1, "request.userPrompt")
        );
    }

    #[test]
    fn by_request_takes_the_first_unused_equal_entry() {
        let mut r = replayer(&["a", "b", "a"], MatchMode::ByRequest);
        assert_eq!(r.answer(&json!({"userPrompt": "b"})).unwrap().entry, 1);
        assert_eq!(r.answer(&json!({"userPrompt": "a"})).unwrap().entry, 0);
        assert_eq!(r.answer(&json!({"userPrompt": "a"})).unwrap().entry, 2);
        assert_eq!(
            r.answer(&json!({"userPrompt": "a"})),
            Err(UnmatchedCall::Exhausted {
                call: 4,
                recorded: 3
            })
        );
    }

    #[test]
    fn turns_only_and_format_1_calls_are_not_checked() {
        let mut r = replayer(&["a"], MatchMode::TurnsOnly);
        assert_eq!(
            r.answer(&json!({"userPrompt": "z"})),
            Ok(Played {
                entry: 0,
                checked: false
            })
        );
        let mut format1 = Recording::from(crate::agent::Cassette::new(
            "agent",
            vec![Turn::respond_text("x")],
        ));
        format1.calls[0].trajectory.clear();
        let mut r = Replayer::new(
            format1,
            MatchMode::InOrder,
            Normalizer::standard(),
            Redactor::standard(),
        );
        assert_eq!(
            r.answer(&json!({"userPrompt": "z"})),
            Ok(Played {
                entry: 0,
                checked: false
            })
        );
    }

    #[test]
    fn volatile_values_and_secrets_do_not_break_matching() {
        let mut recorded = recording(&[]);
        recorded.calls.push(RecordedCall {
            request: Some(RecordedRequest::new(
                &json!({"userPrompt": "at <timestamp> with [REDACTED]"}),
            )),
            turn: Turn::respond_text("ok"),
            trajectory: Vec::new(),
        });
        let mut r = Replayer::new(
            recorded,
            MatchMode::InOrder,
            Normalizer::standard(),
            Redactor::standard(),
        );
        assert!(
            r.answer(
                &json!({"userPrompt": "at 2031-05-06T07:08:09Z with sk-ant-0123456789abcdefghij"})
            )
            .is_ok()
        );
    }

    /// The raw comparison never says "equal" where the full normalisation finds a difference,
    /// and says it for the requests a run repeats.
    #[test]
    fn the_raw_comparison_agrees_with_the_full_normalisation() {
        let normalizer = Normalizer::standard();
        let redactor = Redactor::standard();
        let base = json!({
            "tools": [{"name": "b", "inputSchema": {"k": 1}}, {"name": "a", "description": "x 1042 from 2025-01-01", "inputSchema": {}}],
            "userPrompt": "key sk-ant-0123456789abcdefghij at 2025-01-01T00:00:00Z",
            "toolCallResults": [{"id": "call_1_1", "name": "a", "content": {"key": 2251799813685262_u64, "n": 1}}],
            "messages": [
                {"role": "assistant", "toolCalls": [{"id": "x", "name": "a", "arguments": {}}], "metadata": {"timestamp": "2025-01-01T00:00:00Z"}},
                {"role": "tool_call_result", "results": [{"id": "x", "name": "a", "content": [], "completedAt": "2025-01-01T00:00:00@UTC"}]}
            ]
        });
        let recorded = prepare(&base, &normalizer, &redactor);
        let variants = [
            base.clone(),
            json!({"userPrompt": "other"}),
            {
                let mut v = base.clone();
                v["toolCallResults"][0]["id"] = json!("toolu_9");
                v["messages"][0]["metadata"]["timestamp"] = json!("2031-06-07T08:09:10Z");
                v["toolCallResults"][0]["content"]["key"] = json!(2251799813699999_u64);
                v
            },
            {
                let mut v = base.clone();
                v["toolCallResults"][0]["content"]["n"] = json!(1.0);
                v
            },
            {
                let mut v = base.clone();
                v["toolCallResults"][0]["content"]["n"] = json!(2);
                v
            },
            {
                let mut v = base.clone();
                v["tools"] = json!([{"name": "a", "description": "x 1042 from 2026-02-02", "inputSchema": {}}, {"name": "b", "inputSchema": {"k": 1}}]);
                v
            },
            {
                let mut v = base.clone();
                v["messages"][1]["results"][0]["extra"] = json!(true);
                v
            },
        ];
        let expected_equal = [true, false, true, true, false, true, false];
        for (variant, equal) in variants.iter().zip(expected_equal) {
            let full = recorded
                .first_difference(&prepare(variant, &normalizer, &redactor))
                .is_none();
            let raw = matches_raw(&recorded, &Actual::Json(variant), &redactor);
            let request = agent_request(variant);
            let in_place = matches_raw(
                &recorded,
                &Actual::Request {
                    request: &request,
                    json: OnceCell::new(),
                },
                &redactor,
            );
            assert_eq!(full, equal, "{variant}");
            assert_eq!(raw, equal, "{variant}");
            assert_eq!(in_place, equal, "the mock's request {variant}");
        }
    }

    /// The mock's request of a request's JSON (the fields the test uses).
    fn agent_request(json: &Value) -> AgentRequest {
        let tools: Vec<ToolDefinition> = json["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(ToolDefinition::from_json)
            .collect();
        AgentRequest {
            element_id: "agent".into(),
            model_call: 1,
            job_key: 1,
            process_instance_key: 1,
            system_prompt: None,
            user_prompt: json["userPrompt"].as_str().map(str::to_string),
            tools: tools.into(),
            tool_call_results: baton_engine::runtime::SharedJson::new(
                json.get("toolCallResults").cloned().unwrap_or(json!([])),
            ),
            events: Vec::new(),
            messages: crate::agent::connector::SentMessages::new(
                json["messages"].as_array().cloned().unwrap_or_default(),
            ),
            response_format: crate::agent::connector::ResponseFormat::Text { parse_json: false },
            limits: crate::agent::connector::Limits {
                max_model_calls: 10,
                context_window_size: 20,
            },
            provider: None,
            turn: None,
            fault: None,
        }
    }
}
