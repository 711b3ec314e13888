//! A whole run compared with its recording, call by call: drift mode's report of how the
//! trajectory changed against the cassette.

use serde_json::Value;

use super::DriftContext;
use super::causes::request_causes;
use super::path::path_cause;
use crate::agent::recording::format::Recording;
use crate::agent::turn::Turn;
use crate::trace::TraceEvent;

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
                if !r.turn.same_answer(&a.turn) {
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
    use serde_json::json;

    use super::*;
    use crate::agent::recording::format::RecordedCall;
    use crate::agent::turn::{ToolCall, Usage};

    fn recording(turn: Turn) -> Recording {
        let mut recording = Recording::new("support-agent", None);
        recording.calls.push(RecordedCall {
            request: None,
            turn,
            trajectory: Vec::new(),
        });
        recording
    }

    /// A live model that makes the recorded call under a fresh id (and reports other token
    /// usage) answered the same: only what the answer says counts.
    #[test]
    fn call_ids_usage_and_latency_are_no_difference() {
        let context = super::super::tests::context();
        let call = |id: &str| {
            ToolCall::new(
                "create-ticket",
                json!({"summary": "Order 1042 arrived damaged"}),
            )
            .with_id(id)
        };
        let recorded = recording(Turn::tool_calls([call("call_1_1")]));
        let live = recording(
            Turn::tool_calls([call("toolu_01XyZ")])
                .with_usage(Usage::new(812, 40))
                .with_latency("PT2S"),
        );
        assert_eq!(
            compare_recordings(&context, &recorded, &live),
            Vec::<String>::new()
        );
        let other = recording(Turn::call(
            "create-ticket",
            json!({"summary": "Replace order 1042"}),
        ));
        insta::assert_snapshot!(compare_recordings(&context, &recorded, &other).join("\n"), @r#"call 1: the model answered otherwise: recorded create-ticket {"summary":"Order 1042 arrived damaged"}, this run create-ticket {"summary":"Replace order 1042"}"#);
    }
}
