//! Drift: why a run left its recording, said in BPMN terms.
//!
//! A difference between a recorded request and the actual one is traced to its cause: the
//! definition changed since recording (a tool added, removed or renamed in the ad-hoc
//! sub-process, a `fromAi()` parameter added, removed or retyped, the prompt's input mapping),
//! a tool returned something else, or the process took another path (the trajectories differ).
//! Extra and missing model calls are explained from the trajectories the same way.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::diff::{Difference, same_json};
use super::format::{RecordedRequest, Recording};
use crate::agent::turn::Turn;
use crate::trace::TraceEvent;

/// What drift messages need to know about the agent and its cassette.
#[derive(Debug, Clone, Default)]
pub struct DriftContext {
    /// The agent element.
    pub agent: String,
    /// The cassette, as messages name it (its file).
    pub source: String,
    /// What each tool is, for messages: `job type order-lookup`, `a user task`.
    pub tool_kinds: BTreeMap<String, String>,
    /// The process the agent runs in.
    pub process_id: Option<String>,
    /// The deployed definition is not the one recorded (its hash differs).
    pub definition_changed: bool,
}

/// A run that left its recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    pub agent: String,
    pub source: String,
    pub kind: DriftKind,
    /// The causes found, the likeliest first.
    pub causes: Vec<Cause>,
}

/// Where the run left the recording.
#[derive(Debug, Clone, PartialEq)]
pub enum DriftKind {
    /// Model call `call` was asked something else than recorded.
    Mismatch { call: u32, difference: Difference },
    /// The run asked the model more often than recorded.
    ExtraCall {
        call: u32,
        recorded: usize,
        /// What the request carried: `results from create-ticket`, `the user prompt "…"`.
        carried: Vec<String>,
    },
    /// The run ended before asking every recorded call.
    MissingCalls {
        made: u32,
        recorded: usize,
        /// The calls not made: number and turn.
        missing: Vec<(u32, String)>,
    },
}

/// One cause of a drift.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    ToolsAdded(Vec<String>),
    ToolsRemoved(Vec<String>),
    ToolRenamed {
        from: String,
        to: String,
    },
    ToolDocumentationChanged {
        tool: String,
    },
    ParameterAdded {
        tool: String,
        parameter: String,
    },
    ParameterRemoved {
        tool: String,
        parameter: String,
    },
    ParameterTypeChanged {
        tool: String,
        parameter: String,
        recorded: String,
        actual: String,
    },
    ParameterRequiredChanged {
        tool: String,
        parameter: String,
        required: bool,
    },
    ParameterChanged {
        tool: String,
        parameter: String,
    },
    SystemPromptChanged,
    UserPromptChanged,
    ResponseFormatChanged,
    LimitsChanged,
    /// The deployed definition's hash is not the recorded one.
    DefinitionChanged {
        process: String,
    },
    ToolResultChanged {
        tool: String,
        /// What the tool is (`job type order-lookup`).
        kind: Option<String>,
    },
    /// The results came from other tools than recorded.
    OtherToolResults {
        recorded: Vec<String>,
        actual: Vec<String>,
    },
    EventsChanged {
        recorded: usize,
        actual: usize,
    },
    PathChanged {
        after_call: u32,
        /// The path events (elements, incidents) from just before the first difference on.
        recorded: Vec<String>,
        actual: Vec<String>,
        /// Whether events the two share were left out at the start.
        skipped: bool,
    },
    /// The conversation carries an earlier result of a tool that differs from the recording's.
    EarlierToolResultChanged {
        tool: String,
        kind: Option<String>,
    },
    /// The conversation carries an earlier answer of the model that differs from the
    /// recording's (a live model compared with the recording answered otherwise before).
    EarlierAnswerChanged,
    /// The conversation sent differs while everything else is the same (the agentContext the
    /// agent started with, or the context window).
    ConversationChanged,
    /// The recording's last turn calls tools: the recording run stopped there.
    RecordingCutOff {
        calls: usize,
    },
}

const RERECORD: &str =
    "If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).";

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let agent = &self.agent;
        let source = &self.source;
        match &self.kind {
            DriftKind::Mismatch { call, difference } => {
                writeln!(
                    f,
                    "model call {call} of \"{agent}\" does not match {source}"
                )?;
                for line in difference.to_string().lines() {
                    writeln!(f, "  {line}")?;
                }
            }
            DriftKind::ExtraCall {
                call,
                recorded,
                carried,
            } => {
                writeln!(
                    f,
                    "model call {call} of \"{agent}\" is not in {source}: it has {recorded} call{}, all played",
                    plural(*recorded)
                )?;
                if !carried.is_empty() {
                    writeln!(
                        f,
                        "  the agent asked the model again with {}",
                        carried.join(" and ")
                    )?;
                }
            }
            DriftKind::MissingCalls {
                made,
                recorded,
                missing,
            } => {
                let calls: Vec<String> = missing
                    .iter()
                    .map(|(n, turn)| format!("call {n} ({turn})"))
                    .collect();
                writeln!(
                    f,
                    "the run made {made} model call{} of \"{agent}\", but {source} has {recorded}: {} not made",
                    plural(*made as usize),
                    calls.join(", "),
                )?;
            }
        }
        for cause in &self.causes {
            for (i, line) in cause.to_string().lines().enumerate() {
                let indent = if i == 0 { "  " } else { "    " };
                writeln!(f, "{indent}{line}")?;
            }
        }
        write!(f, "  {RERECORD}")
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::ToolsAdded(tools) => write!(
                f,
                "the ad-hoc sub-process has {} that {} not there when this was recorded: {} (the definition changed since recording).",
                if tools.len() == 1 { "a tool" } else { "tools" },
                if tools.len() == 1 { "was" } else { "were" },
                tools.join(", ")
            ),
            Cause::ToolsRemoved(tools) => write!(
                f,
                "the ad-hoc sub-process no longer has the tool{} {} (removed since recording).",
                plural(tools.len()),
                tools.join(", ")
            ),
            Cause::ToolRenamed { from, to } => write!(
                f,
                "the tool {from} was renamed to {to} since recording (same parameters)."
            ),
            Cause::ToolDocumentationChanged { tool } => write!(
                f,
                "the documentation of the tool {tool} (what the model reads about it) changed since recording."
            ),
            Cause::ParameterAdded { tool, parameter } => write!(
                f,
                "the tool {tool} has a new fromAi() parameter {parameter} (toolCall.{parameter}) since recording."
            ),
            Cause::ParameterRemoved { tool, parameter } => write!(
                f,
                "the tool {tool} no longer has the fromAi() parameter {parameter} (toolCall.{parameter})."
            ),
            Cause::ParameterTypeChanged {
                tool,
                parameter,
                recorded,
                actual,
            } => write!(
                f,
                "the fromAi() parameter {parameter} of the tool {tool} changed its type from {recorded} to {actual} since recording."
            ),
            Cause::ParameterRequiredChanged {
                tool,
                parameter,
                required,
            } => write!(
                f,
                "the fromAi() parameter {parameter} of the tool {tool} is {} since recording (its options.required).",
                if *required { "required" } else { "optional" }
            ),
            Cause::ParameterChanged { tool, parameter } => write!(
                f,
                "the fromAi() parameter {parameter} of the tool {tool} is declared differently since recording (its description or schema)."
            ),
            Cause::SystemPromptChanged => f.write_str(
                "the system prompt changed: the input mapping data.systemPrompt.prompt (or a variable it reads) gives another text than when this was recorded.",
            ),
            Cause::UserPromptChanged => f.write_str(
                "the user prompt changed: the input mapping data.userPrompt.prompt (or a variable it reads, e.g. a start variable) gives another text than when this was recorded.",
            ),
            Cause::ResponseFormatChanged => f.write_str(
                "the response format changed: the input mappings data.response.format.* of the agent differ from when this was recorded.",
            ),
            Cause::LimitsChanged => f.write_str(
                "the agent's limits changed: the input mappings data.limits.maxModelCalls or data.memory.contextWindowSize differ from when this was recorded.",
            ),
            Cause::DefinitionChanged { process } => write!(
                f,
                "the deployed definition of {process} is not the one recorded (its content hash differs)."
            ),
            Cause::ToolResultChanged { tool, kind } => match kind {
                Some(kind) => write!(
                    f,
                    "the tool {tool} ({kind}) returned something else than when this was recorded."
                ),
                None => write!(
                    f,
                    "the tool {tool} returned something else than when this was recorded."
                ),
            },
            Cause::OtherToolResults { recorded, actual } => write!(
                f,
                "the results came from other tools: recorded {}, this run {}.",
                list_or_none(recorded),
                list_or_none(actual)
            ),
            Cause::EventsChanged { recorded, actual } if recorded == actual => write!(
                f,
                "the events that reached the agent (an event sub-process of the ad-hoc sub-process) carry other content than when this was recorded."
            ),
            Cause::EventsChanged { recorded, actual } => write!(
                f,
                "the events that reached the agent (an event sub-process of the ad-hoc sub-process) differ: recorded {recorded} event{}, this run {actual}.",
                plural(*recorded)
            ),
            Cause::PathChanged {
                after_call,
                recorded,
                actual,
                skipped,
            } => {
                let lead = if *skipped { "… " } else { "" };
                let show = |events: &[String]| {
                    if events.is_empty() {
                        "(nothing)".to_string()
                    } else {
                        format!("{lead}{}", events.join(", "))
                    }
                };
                let when = if *after_call == 0 {
                    "before the first model call".to_string()
                } else {
                    format!("after model call {after_call}")
                };
                write!(
                    f,
                    "the process took another path {when}:\nrecorded: {}\nthis run: {}",
                    show(recorded),
                    show(actual)
                )
            }
            Cause::EarlierToolResultChanged { tool, kind } => {
                let kind = kind.as_ref().map(|k| format!(" ({k})")).unwrap_or_default();
                write!(
                    f,
                    "the conversation carries an earlier result of the tool {tool}{kind} that is not the one recorded."
                )
            }
            Cause::EarlierAnswerChanged => f.write_str(
                "the conversation carries an earlier answer of the model that is not the one recorded (the model answered otherwise before).",
            ),
            Cause::ConversationChanged => f.write_str(
                "the conversation sent to the model differs: the agentContext the agent started with (its input mapping agentContext), or the context window.",
            ),
            Cause::RecordingCutOff { calls } => write!(
                f,
                "the recording ends after call {calls} with tool calls: the run that recorded it stopped there."
            ),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

impl DriftContext {
    /// A request that does not match its recorded call: the first difference and its causes.
    /// `recorded_before` and `actual_before` are the trajectories since the previous model
    /// call (empty for the first).
    pub fn mismatch(
        &self,
        call: u32,
        difference: Difference,
        recorded: &RecordedRequest,
        actual: &RecordedRequest,
        recorded_before: &[TraceEvent],
        actual_before: &[TraceEvent],
    ) -> Drift {
        let mut causes = request_causes(self, recorded, actual);
        if let Some(path) = path_cause(call - 1, recorded_before, actual_before) {
            // The path explains a tool result or a missing result; it goes first.
            let at = causes
                .iter()
                .position(|c| {
                    matches!(
                        c,
                        Cause::ToolResultChanged { .. }
                            | Cause::OtherToolResults { .. }
                            | Cause::EventsChanged { .. }
                            | Cause::EarlierToolResultChanged { .. }
                            | Cause::EarlierAnswerChanged
                            | Cause::ConversationChanged
                    )
                })
                .unwrap_or(causes.len());
            causes.insert(at, path);
        }
        self.add_definition_hint(&mut causes);
        Drift {
            agent: self.agent.clone(),
            source: self.source.clone(),
            kind: DriftKind::Mismatch { call, difference },
            causes,
        }
    }

    /// A model call after every recorded one was played. `recorded_after` is the last recorded
    /// call's trajectory, `actual_after` what happened since this run's previous call.
    pub fn extra_call(
        &self,
        call: u32,
        recording: &Recording,
        actual: &RecordedRequest,
        actual_after: &[TraceEvent],
    ) -> Drift {
        let recorded_after = recording
            .calls
            .last()
            .map_or(&[][..], |c| c.trajectory.as_slice());
        let mut causes = Vec::new();
        if let Some(last) = recording.calls.last()
            && matches!(last.turn, Turn::ToolCalls(_))
        {
            causes.push(Cause::RecordingCutOff {
                calls: recording.calls.len(),
            });
        }
        causes.extend(path_cause(call - 1, recorded_after, actual_after));
        self.add_definition_hint(&mut causes);
        Drift {
            agent: self.agent.clone(),
            source: self.source.clone(),
            kind: DriftKind::ExtraCall {
                call,
                recorded: recording.calls.len(),
                carried: carried(actual),
            },
            causes,
        }
    }

    /// The run ended with recorded calls not made. `made` calls were made; `actual_after` is
    /// what happened after the last of them.
    pub fn missing_calls(
        &self,
        made: u32,
        recording: &Recording,
        unplayed: &[usize],
        actual_after: &[TraceEvent],
    ) -> Drift {
        let recorded_after = (made as usize)
            .checked_sub(1)
            .and_then(|i| recording.calls.get(i))
            .map_or(&[][..], |c| c.trajectory.as_slice());
        let mut causes = Vec::new();
        causes.extend(path_cause(made, recorded_after, actual_after));
        self.add_definition_hint(&mut causes);
        Drift {
            agent: self.agent.clone(),
            source: self.source.clone(),
            kind: DriftKind::MissingCalls {
                made,
                recorded: recording.calls.len(),
                missing: unplayed
                    .iter()
                    .map(|&i| (i as u32 + 1, recording.calls[i].turn.describe()))
                    .collect(),
            },
            causes,
        }
    }

    fn add_definition_hint(&self, causes: &mut Vec<Cause>) {
        let Some(process) = self.process_id.as_ref().filter(|_| self.definition_changed) else {
            return;
        };
        let explained_elsewhere = causes.iter().any(|c| {
            matches!(
                c,
                Cause::ToolResultChanged { .. }
                    | Cause::OtherToolResults { .. }
                    | Cause::EventsChanged { .. }
                    | Cause::RecordingCutOff { .. }
            )
        });
        if !explained_elsewhere {
            causes.push(Cause::DefinitionChanged {
                process: process.clone(),
            });
        }
    }
}

/// `results from lookup-order, search-kb`, `the user prompt "…"`, `2 events`.
fn carried(request: &RecordedRequest) -> Vec<String> {
    let mut carried = Vec::new();
    let names = result_names(request.get("toolCallResults"));
    if !names.is_empty() {
        carried.push(format!("results from {}", names.join(", ")));
    }
    if let Some(prompt) = request.get("userPrompt").and_then(Value::as_str) {
        carried.push(format!(
            "the user prompt {}",
            crate::agent::arguments::short_json(&Value::String(prompt.to_string()))
        ));
    }
    let events = request
        .get("events")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if events > 0 {
        carried.push(format!("{events} event{}", plural(events)));
    }
    carried
}

fn result_names(results: Option<&Value>) -> Vec<String> {
    results
        .and_then(Value::as_array)
        .map(|results| {
            results
                .iter()
                .map(|r| {
                    r.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("(an event)")
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn differs(recorded: &RecordedRequest, actual: &RecordedRequest, field: &str) -> bool {
    match (recorded.get(field), actual.get(field)) {
        (Some(r), Some(a)) => !same_json(r, a),
        (Some(_), None) => true,
        _ => false,
    }
}

fn request_causes(
    context: &DriftContext,
    recorded: &RecordedRequest,
    actual: &RecordedRequest,
) -> Vec<Cause> {
    let mut causes = Vec::new();
    if let (Some(r), Some(a)) = (recorded.get("tools"), actual.get("tools")) {
        causes.extend(tool_causes(r, a));
    }
    if differs(recorded, actual, "systemPrompt") {
        causes.push(Cause::SystemPromptChanged);
    }
    if differs(recorded, actual, "userPrompt") {
        causes.push(Cause::UserPromptChanged);
    }
    if differs(recorded, actual, "responseFormat") {
        causes.push(Cause::ResponseFormatChanged);
    }
    if differs(recorded, actual, "limits") {
        causes.push(Cause::LimitsChanged);
    }
    if differs(recorded, actual, "toolCallResults") {
        let recorded_names = result_names(recorded.get("toolCallResults"));
        let actual_names = result_names(actual.get("toolCallResults"));
        if recorded_names != actual_names {
            causes.push(Cause::OtherToolResults {
                recorded: recorded_names,
                actual: actual_names,
            });
        } else {
            let items = |r: &RecordedRequest| {
                r.get("toolCallResults")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            };
            for (r, a) in items(recorded).iter().zip(items(actual).iter()) {
                if !same_json(r, a) {
                    let tool = r
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("(an event)")
                        .to_string();
                    let kind = context.tool_kinds.get(&tool).cloned();
                    causes.push(Cause::ToolResultChanged { tool, kind });
                }
            }
        }
    }
    if differs(recorded, actual, "events") {
        let count = |r: &RecordedRequest| {
            r.get("events")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        };
        causes.push(Cause::EventsChanged {
            recorded: count(recorded),
            actual: count(actual),
        });
    }
    if causes.is_empty() && differs(recorded, actual, "messages") {
        causes.push(match earlier_tool_result(recorded, actual) {
            Some(tool) => {
                let kind = context.tool_kinds.get(&tool).cloned();
                Cause::EarlierToolResultChanged { tool, kind }
            }
            None if first_differing_message_is_an_answer(recorded, actual) => {
                Cause::EarlierAnswerChanged
            }
            None => Cause::ConversationChanged,
        });
    }
    causes
}

/// The tool whose result differs in the first differing message, when that message carries
/// tool results.
fn earlier_tool_result(recorded: &RecordedRequest, actual: &RecordedRequest) -> Option<String> {
    let items = |r: &RecordedRequest| r.get("messages").and_then(Value::as_array).cloned();
    let (recorded, actual) = (items(recorded)?, items(actual)?);
    let (r, a) = recorded
        .iter()
        .zip(&actual)
        .find(|(r, a)| !same_json(r, a))?;
    let results = |m: &Value| m.get("results").and_then(Value::as_array).cloned();
    let (r, a) = (results(r)?, results(a)?);
    r.iter()
        .zip(&a)
        .find(|(r, a)| !same_json(r, a))
        .and_then(|(r, _)| r.get("name")?.as_str().map(str::to_string))
}

/// Whether the first message that differs is one of the model's (an assistant message).
fn first_differing_message_is_an_answer(
    recorded: &RecordedRequest,
    actual: &RecordedRequest,
) -> bool {
    let items = |r: &RecordedRequest| r.get("messages").and_then(Value::as_array).cloned();
    let (Some(recorded), Some(actual)) = (items(recorded), items(actual)) else {
        return false;
    };
    recorded
        .iter()
        .zip(&actual)
        .find(|(r, a)| !same_json(r, a))
        .is_some_and(|(r, a)| {
            let role = |m: &Value| m.get("role").and_then(Value::as_str).map(str::to_string);
            role(r).as_deref() == Some("assistant") && role(a).as_deref() == Some("assistant")
        })
}

fn tool_causes(recorded: &Value, actual: &Value) -> Vec<Cause> {
    let by_name = |tools: &Value| -> BTreeMap<String, Value> {
        tools
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| Some((t.get("name")?.as_str()?.to_string(), t.clone())))
            .collect()
    };
    let recorded = by_name(recorded);
    let actual = by_name(actual);
    let mut removed: Vec<String> = recorded
        .keys()
        .filter(|n| !actual.contains_key(*n))
        .cloned()
        .collect();
    let mut added: Vec<String> = actual
        .keys()
        .filter(|n| !recorded.contains_key(*n))
        .cloned()
        .collect();
    let mut causes = Vec::new();
    // A removed and an added tool with the same parameters: a rename.
    let schema = |t: &Value| t.get("inputSchema").cloned().unwrap_or(Value::Null);
    let mut renamed = Vec::new();
    for from in &removed {
        if let Some(to) = added
            .iter()
            .find(|to| same_json(&schema(&recorded[from]), &schema(&actual[*to])))
            .filter(|to| !renamed.iter().any(|(_, t): &(String, String)| t == *to))
        {
            renamed.push((from.clone(), to.clone()));
        }
    }
    removed.retain(|n| !renamed.iter().any(|(from, _)| from == n));
    added.retain(|n| !renamed.iter().any(|(_, to)| to == n));
    if !added.is_empty() {
        causes.push(Cause::ToolsAdded(added));
    }
    if !removed.is_empty() {
        causes.push(Cause::ToolsRemoved(removed));
    }
    for (from, to) in renamed {
        causes.push(Cause::ToolRenamed { from, to });
    }
    for (name, r) in &recorded {
        let Some(a) = actual.get(name) else {
            continue;
        };
        if !same_json(
            r.get("description").unwrap_or(&Value::Null),
            a.get("description").unwrap_or(&Value::Null),
        ) {
            causes.push(Cause::ToolDocumentationChanged { tool: name.clone() });
        }
        causes.extend(parameter_causes(name, &schema(r), &schema(a)));
    }
    causes
}

fn parameter_causes(tool: &str, recorded: &Value, actual: &Value) -> Vec<Cause> {
    let properties = |schema: &Value| {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let required = |schema: &Value, name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)))
    };
    let (rp, ap) = (properties(recorded), properties(actual));
    let mut causes = Vec::new();
    for name in ap.keys().filter(|n| !rp.contains_key(*n)) {
        causes.push(Cause::ParameterAdded {
            tool: tool.to_string(),
            parameter: name.clone(),
        });
    }
    for name in rp.keys().filter(|n| !ap.contains_key(*n)) {
        causes.push(Cause::ParameterRemoved {
            tool: tool.to_string(),
            parameter: name.clone(),
        });
    }
    for (name, r) in &rp {
        let Some(a) = ap.get(name) else {
            continue;
        };
        let type_of = |p: &Value| {
            p.get("type")
                .map_or_else(|| "(none)".to_string(), |t| t.to_string())
        };
        if !same_json(
            r.get("type").unwrap_or(&Value::Null),
            a.get("type").unwrap_or(&Value::Null),
        ) {
            causes.push(Cause::ParameterTypeChanged {
                tool: tool.to_string(),
                parameter: name.clone(),
                recorded: type_of(r),
                actual: type_of(a),
            });
        } else if !same_json(r, a) {
            causes.push(Cause::ParameterChanged {
                tool: tool.to_string(),
                parameter: name.clone(),
            });
        } else if required(recorded, name) != required(actual, name) {
            causes.push(Cause::ParameterRequiredChanged {
                tool: tool.to_string(),
                parameter: name.clone(),
                required: required(actual, name),
            });
        }
    }
    causes
}

/// The events that make the path: elements completed and terminated, incidents.
fn path_events(events: &[TraceEvent]) -> Vec<String> {
    events
        .iter()
        .filter(|e| {
            matches!(
                e,
                TraceEvent::ElementCompleted { .. }
                    | TraceEvent::ElementTerminated { .. }
                    | TraceEvent::IncidentCreated { .. }
                    | TraceEvent::IncidentResolved { .. }
            )
        })
        .map(ToString::to_string)
        .collect()
}

/// How many path events are shown after the first difference.
const PATH_SHOWN: usize = 4;

/// The process took another path after model call `after_call`, when the trajectories'
/// path events differ.
fn path_cause(after_call: u32, recorded: &[TraceEvent], actual: &[TraceEvent]) -> Option<Cause> {
    let (recorded, actual) = (path_events(recorded), path_events(actual));
    if recorded == actual {
        return None;
    }
    let common = recorded
        .iter()
        .zip(&actual)
        .take_while(|(r, a)| r == a)
        .count();
    let from = common.saturating_sub(1);
    let window = |events: &[String]| -> Vec<String> {
        events
            .iter()
            .skip(from)
            .take(PATH_SHOWN + 1)
            .cloned()
            .collect()
    };
    Some(Cause::PathChanged {
        after_call,
        recorded: window(&recorded),
        actual: window(&actual),
        skipped: from > 0,
    })
}

/// How `actual` (a run, recorded in memory) left `recorded` (the cassette), call by call: one
/// line per difference; empty when the trajectories are the same.
pub fn compare_recordings(
    context: &DriftContext,
    recorded: &Recording,
    actual: &Recording,
) -> Vec<String> {
    let mut lines = Vec::new();
    let calls = recorded.calls.len().max(actual.calls.len());
    for i in 0..calls {
        let n = i + 1;
        match (recorded.calls.get(i), actual.calls.get(i)) {
            (Some(r), Some(a)) => {
                if let (Some(rr), Some(ar)) = (&r.request, &a.request)
                    && let Some(difference) = rr.first_difference(ar)
                {
                    let causes = request_causes(context, rr, ar);
                    let (was, is) = difference.shown();
                    let why = causes
                        .first()
                        .map_or_else(|| "the request differs".to_string(), ToString::to_string);
                    lines.push(format!(
                        "call {n}: {why} ({}: {was} → {is})",
                        difference.path
                    ));
                }
                if r.turn != a.turn {
                    lines.push(format!(
                        "call {n}: the model answered otherwise: recorded {}, this run {}",
                        describe_turn(&r.turn),
                        describe_turn(&a.turn)
                    ));
                }
                if let Some(path) = path_cause(n as u32, &r.trajectory, &a.trajectory) {
                    lines.push(path.to_string().replace('\n', "\n  "));
                }
            }
            (Some(r), None) => lines.push(format!(
                "call {n}: not made by this run (recorded: {})",
                describe_turn(&r.turn)
            )),
            (None, Some(a)) => lines.push(format!(
                "call {n}: not in the cassette (this run: {})",
                describe_turn(&a.turn)
            )),
            (None, None) => {}
        }
    }
    let process = context.process_id.as_deref();
    let state = |r: &Recording| final_state(r.calls.last().map(|c| &c.trajectory[..]), process);
    let (was, is) = (state(recorded), state(actual));
    if was != is {
        lines.push(format!("final state: recorded {was}, this run {is}"));
    }
    lines
}

/// A turn with its tool calls' arguments: `create-ticket {"summary":"…"}`, `a response {…}`.
fn describe_turn(turn: &Turn) -> String {
    let short = crate::agent::arguments::short_json;
    match turn {
        Turn::ToolCalls(t) => t
            .calls
            .iter()
            .map(|c| match &c.arguments {
                crate::agent::turn::Arguments::Json(a) => format!("{} {}", c.name, short(a)),
                crate::agent::turn::Arguments::Raw(raw) => format!("{} {raw}", c.name),
            })
            .collect::<Vec<_>>()
            .join(" + "),
        Turn::Response(r) => match (&r.json, &r.text) {
            (Some(json), _) => format!("a response {}", short(json)),
            (None, Some(text)) => format!("a response {}", short(&Value::String(text.clone()))),
            (None, None) => "an empty response".to_string(),
        },
        other => other.describe(),
    }
}

/// Where a run ended, from its last trajectory.
fn final_state(last: Option<&[TraceEvent]>, process_id: Option<&str>) -> String {
    let Some(events) = last else {
        return "no model call".to_string();
    };
    let ended = |completed: bool| {
        events.iter().any(|e| match e {
            TraceEvent::ElementCompleted { element } if completed => {
                Some(element.as_str()) == process_id
            }
            TraceEvent::ElementTerminated { element } if !completed => {
                Some(element.as_str()) == process_id
            }
            _ => false,
        })
    };
    let mut open: Vec<&str> = Vec::new();
    for event in events {
        match event {
            TraceEvent::IncidentCreated { element, .. } => open.push(element),
            TraceEvent::IncidentResolved { element } => open.retain(|e| e != element),
            _ => {}
        }
    }
    let last_element = events.iter().rev().find_map(|e| match e {
        TraceEvent::ElementCompleted { element } | TraceEvent::ElementTerminated { element } => {
            Some(element.as_str())
        }
        _ => None,
    });
    if ended(true) {
        format!(
            "completed (ended at {})",
            path_before_end(events, process_id)
        )
    } else if ended(false) {
        "terminated".to_string()
    } else if !open.is_empty() {
        format!("an incident at {}", open.join(", "))
    } else {
        match last_element {
            Some(element) => format!("active (after {element})"),
            None => "active".to_string(),
        }
    }
}

fn path_before_end(events: &[TraceEvent], process_id: Option<&str>) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            TraceEvent::ElementCompleted { element } if Some(element.as_str()) != process_id => {
                Some(element.clone())
            }
            _ => None,
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::recording::diff::first_difference;
    use serde_json::json;

    fn context() -> DriftContext {
        DriftContext {
            agent: "support-agent".into(),
            source: "cassettes/damaged-order.json".into(),
            tool_kinds: [(
                "lookup-order".to_string(),
                "job type order-lookup".to_string(),
            )]
            .into_iter()
            .collect(),
            process_id: Some("ai-agent-tool-loop".into()),
            definition_changed: false,
        }
    }

    fn tool(name: &str, properties: Value) -> Value {
        let required: Vec<&String> = properties.as_object().unwrap().keys().collect();
        json!({"name": name, "description": format!("{name} does it"), "inputSchema": {"type": "object", "properties": properties, "required": required}})
    }

    fn mismatch(recorded: Value, actual: Value) -> String {
        let (r, a) = (
            RecordedRequest::new(&recorded),
            RecordedRequest::new(&actual),
        );
        let difference = r.first_difference(&a).expect("the requests differ");
        context()
            .mismatch(2, difference, &r, &a, &[], &[])
            .to_string()
    }

    #[test]
    fn a_tool_result_names_the_tool_and_its_job_type() {
        insta::assert_snapshot!(mismatch(
            json!({"toolCallResults": [{"name": "lookup-order", "content": {"status": "delivered"}}]}),
            json!({"toolCallResults": [{"name": "lookup-order", "content": {"status": "shipped"}}]}),
        ), @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.toolCallResults[0].content.status
            recorded: "delivered"
            actual:   "shipped"
          the tool lookup-order (job type order-lookup) returned something else than when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#);
    }

    #[test]
    fn tool_set_changes() {
        let order = tool("lookup-order", json!({"orderId": {"type": "string"}}));
        let kb = tool("search-kb", json!({"query": {"type": "string"}}));
        let ticket = tool("create-ticket", json!({"summary": {"type": "string"}}));
        let mut renamed = ticket.clone();
        renamed["name"] = json!("open-ticket");
        insta::assert_snapshot!(
            [
                mismatch(json!({"tools": [order, kb]}), json!({"tools": [order, kb, ticket]})),
                mismatch(json!({"tools": [order, kb, ticket]}), json!({"tools": [order, kb]})),
                mismatch(json!({"tools": [ticket, order]}), json!({"tools": [renamed, order]})),
            ]
            .join("\n---\n"),
            @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[2]
            recorded: (nothing)
            actual:   {"name":"create-ticket","description":"create-ticket does it","inputSchema":{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}}
          the ad-hoc sub-process has a tool that was not there when this was recorded: create-ticket (the definition changed since recording).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[2]
            recorded: {"name":"create-ticket","description":"create-ticket does it","inputSchema":{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}}
            actual:   (nothing)
          the ad-hoc sub-process no longer has the tool create-ticket (removed since recording).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[0].name
            recorded: "create-ticket"
            actual:   "open-ticket"
          the tool create-ticket was renamed to open-ticket since recording (same parameters).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#
        );
    }

    #[test]
    fn parameter_changes() {
        let before = tool("create-ticket", json!({"summary": {"type": "string"}}));
        let added = tool(
            "create-ticket",
            json!({"summary": {"type": "string"}, "priority": {"type": "string"}}),
        );
        let retyped = tool("create-ticket", json!({"summary": {"type": "number"}}));
        insta::assert_snapshot!(
            [
                mismatch(json!({"tools": [before]}), json!({"tools": [added]})),
                mismatch(json!({"tools": [before]}), json!({"tools": [retyped]})),
            ]
            .join("\n---\n"),
            @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[0].inputSchema.properties.priority
            recorded: (nothing)
            actual:   {"type":"string"}
          the tool create-ticket has a new fromAi() parameter priority (toolCall.priority) since recording.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.tools[0].inputSchema.properties.summary.type
            recorded: "string"
            actual:   "number"
          the fromAi() parameter summary of the tool create-ticket changed its type from "string" to "number" since recording.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#
        );
    }

    #[test]
    fn the_path_goes_before_the_result_it_explains() {
        let r = RecordedRequest::new(
            &json!({"toolCallResults": [{"name": "check-stock", "content": "reserved"}]}),
        );
        let a = RecordedRequest::new(
            &json!({"toolCallResults": [{"name": "check-stock", "content": "backordered"}]}),
        );
        let completed = |e: &str| TraceEvent::ElementCompleted { element: e.into() };
        let difference = first_difference(&json!(1), &json!(2), "request").unwrap();
        let drift = context().mismatch(
            2,
            difference,
            &r,
            &a,
            &[completed("in-stock"), completed("reserve")],
            &[completed("in-stock"), completed("backorder")],
        );
        assert!(matches!(
            drift.causes[0],
            Cause::PathChanged { after_call: 1, .. }
        ));
        assert!(matches!(drift.causes[1], Cause::ToolResultChanged { .. }));
        insta::assert_snapshot!(drift.causes[0].to_string(), @r"
        the process took another path after model call 1:
        recorded: completed in-stock, completed reserve
        this run: completed in-stock, completed backorder
        ");
    }

    #[test]
    fn prompts_and_configuration() {
        insta::assert_snapshot!(
            [
                mismatch(
                    json!({"systemPrompt": "Be brief.", "userPrompt": "Where is 1042?"}),
                    json!({"systemPrompt": "Be brief.", "userPrompt": "Where is 7?"}),
                ),
                mismatch(
                    json!({"systemPrompt": "Be brief.", "limits": {"maxModelCalls": 10, "contextWindowSize": 20}}),
                    json!({"systemPrompt": "Be kind.", "limits": {"maxModelCalls": 5, "contextWindowSize": 20}}),
                ),
                mismatch(
                    json!({"responseFormat": {"type": "text", "parseJson": false}}),
                    json!({"responseFormat": {"type": "json", "schemaName": "Answer"}}),
                ),
                mismatch(
                    json!({"events": [{"escalated": true}]}),
                    json!({"events": [{"escalated": true}, {"escalated": false}]}),
                ),
                mismatch(
                    json!({"events": [{"escalated": true}]}),
                    json!({"events": [{"escalated": false}]}),
                ),
                mismatch(
                    json!({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "toolCalls": [{"name": "lookup-order", "arguments": {"orderId": "1042"}}]}]}),
                    json!({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "toolCalls": [{"name": "lookup-order", "arguments": {"orderId": "7"}}]}]}),
                ),
                mismatch(
                    json!({"messages": [{"role": "user", "content": "Hi"}]}),
                    json!({"messages": [{"role": "user", "content": "Hello"}]}),
                ),
            ]
            .join("\n---\n"),
            @r#"
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.userPrompt
            recorded: "Where is 1042?"
            actual:   "Where is 7?"
          the user prompt changed: the input mapping data.userPrompt.prompt (or a variable it reads, e.g. a start variable) gives another text than when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.systemPrompt
            recorded: "Be brief."
            actual:   "Be kind."
          the system prompt changed: the input mapping data.systemPrompt.prompt (or a variable it reads) gives another text than when this was recorded.
          the agent's limits changed: the input mappings data.limits.maxModelCalls or data.memory.contextWindowSize differ from when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.responseFormat.type
            recorded: "text"
            actual:   "json"
          the response format changed: the input mappings data.response.format.* of the agent differ from when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.events[1]
            recorded: (nothing)
            actual:   {"escalated":false}
          the events that reached the agent (an event sub-process of the ad-hoc sub-process) differ: recorded 1 event, this run 2.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.events[0].escalated
            recorded: true
            actual:   false
          the events that reached the agent (an event sub-process of the ad-hoc sub-process) carry other content than when this was recorded.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.messages[1].toolCalls[0].arguments.orderId
            recorded: "1042"
            actual:   "7"
          the conversation carries an earlier answer of the model that is not the one recorded (the model answered otherwise before).
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        model call 2 of "support-agent" does not match cassettes/damaged-order.json
          first difference at request.messages[0].content
            recorded: "Hi"
            actual:   "Hello"
          the conversation sent to the model differs: the agentContext the agent started with (its input mapping agentContext), or the context window.
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#
        );
    }

    #[test]
    fn extra_and_missing_calls() {
        let completed = |e: &str| TraceEvent::ElementCompleted { element: e.into() };
        let mut recording = Recording::new("support-agent", None);
        for (turn, trajectory) in [
            (
                Turn::call("lookup-order", json!({"orderId": "1042"})),
                vec![completed("lookup-order")],
            ),
            (
                Turn::respond_text("It shipped."),
                vec![
                    completed("support-agent"),
                    completed("send-answer"),
                    completed("answered"),
                ],
            ),
        ] {
            recording.calls.push(super::super::format::RecordedCall {
                request: Some(RecordedRequest::new(&json!({"userPrompt": null}))),
                turn,
                trajectory,
            });
        }
        let actual = RecordedRequest::new(
            &json!({"toolCallResults": [{"name": "create-ticket", "content": {"ticketId": "T-77"}}]}),
        );
        let extra = context().extra_call(3, &recording, &actual, &[completed("create-ticket")]);
        let incident = TraceEvent::IncidentCreated {
            element: "lookup-order".into(),
            error_type: "JOB_NO_RETRIES".into(),
            message: "order service down".into(),
        };
        let missing = context().missing_calls(1, &recording, &[1], &[incident]);
        insta::assert_snapshot!(format!("{extra}\n---\n{missing}"), @r#"
        model call 3 of "support-agent" is not in cassettes/damaged-order.json: it has 2 calls, all played
          the agent asked the model again with results from create-ticket
          the process took another path after model call 2:
            recorded: completed support-agent, completed send-answer, completed answered
            this run: completed create-ticket
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        ---
        the run made 1 model call of "support-agent", but cassettes/damaged-order.json has 2: call 2 (a response) not made
          the process took another path after model call 1:
            recorded: completed lookup-order
            this run: incident at lookup-order (JOB_NO_RETRIES): order service down
          If the change is intentional, re-record: BATON_RECORD=1 cargo test (or baton test --record).
        "#);
    }
}
