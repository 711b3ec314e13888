//! Drift messages: what a drift and each of its causes say.

use std::fmt;

use super::{Cause, Drift, DriftKind};

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

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}
