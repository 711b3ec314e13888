//! Drift: why a run left its recording, said in BPMN terms.
//!
//! A difference between a recorded request and the actual one is traced to its cause: the
//! definition changed since recording (a tool added, removed or renamed in the ad-hoc
//! sub-process, a `fromAi()` parameter added, removed or retyped, the prompt's input mapping),
//! a tool returned something else, or the process took another path (the trajectories differ).
//! Extra and missing model calls are explained from the trajectories the same way.

mod causes;
mod compare;
mod message;
mod path;

use std::collections::BTreeMap;

use serde_json::Value;

use super::diff::Difference;
use super::format::{RecordedRequest, Recording};
use crate::agent::turn::Turn;
use crate::trace::TraceEvent;
use causes::{request_causes, result_names};
use message::plural;
use path::path_cause;

pub use compare::compare_recordings;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::recording::diff::first_difference;
    use serde_json::json;

    pub(super) fn context() -> DriftContext {
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
