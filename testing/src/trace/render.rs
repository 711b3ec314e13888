//! The text form of trace events: one line each, for messages.

use std::fmt;

use serde_json::Value;

use super::{ClockCause, SideEffect, TraceEvent};
use crate::agent::Turn;

/// One line: `tool lookup-order activated with {"orderId":"1042"}`, `completed send-answer`.
impl fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceEvent::ModelCall(call) => {
                let answer = call
                    .turn
                    .as_ref()
                    .map_or_else(|| "no turn".to_string(), Turn::describe);
                write!(f, "model call {} of {}: {answer}", call.call, call.agent)
            }
            TraceEvent::ToolActivated {
                tool, arguments, ..
            } => write!(f, "tool {tool} activated with {}", short(arguments)),
            TraceEvent::ToolResult { tool, content, .. } => {
                write!(f, "tool {tool} returned {}", short(content))
            }
            TraceEvent::ElementCompleted { element } => write!(f, "completed {element}"),
            TraceEvent::ElementTerminated { element } => write!(f, "terminated {element}"),
            TraceEvent::IncidentCreated {
                element,
                error_type,
                message,
            } => write!(f, "incident at {element} ({error_type}): {message}"),
            TraceEvent::IncidentResolved { element } => write!(f, "incident at {element} resolved"),
            TraceEvent::ElementActivated { element } => write!(f, "activated {element}"),
            TraceEvent::JobTimedOut { element, .. } => write!(
                f,
                "the job at {element} timed out: its worker did not answer in time, the job can be activated again"
            ),
            TraceEvent::JobFailed {
                element,
                retries,
                message,
                ..
            } => {
                let left = if *retries == 1 { "retry" } else { "retries" };
                write!(f, "the job at {element} failed ({retries} {left} left)")?;
                // A worker may fail a job without saying why: no dangling colon then.
                if message.is_empty() {
                    write!(f, " without an error message")
                } else {
                    write!(f, ": {message}")
                }
            }
            TraceEvent::SideEffect(effect) => write!(f, "{effect}"),
            TraceEvent::Fault {
                element,
                attempt,
                fault,
                ..
            } => write!(f, "fault at {element} (activation {attempt}): {fault}"),
            TraceEvent::LateAnswerRejected {
                element, reason, ..
            } => write!(f, "the late answer at {element} was rejected: {reason}"),
            TraceEvent::ClockMoved { to, cause } => write!(
                f,
                "the clock moved to {}{}",
                crate::clock::format_instant(*to),
                match cause {
                    ClockCause::Test => "",
                    ClockCause::TimeSkipping => " (time skipping)",
                }
            ),
        }
    }
}

/// `side effect of ticket-create at create-ticket, key "1042" (job 2251799813685253, activation 1)`.
impl fmt::Display for SideEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = Value::String(self.key.clone());
        if self.performed {
            write!(
                f,
                "side effect of {} at {}, key {key} (job {}, activation {})",
                self.job_type, self.element, self.job_key, self.attempt
            )
        } else {
            write!(
                f,
                "side effect of {} at {}, key {key} seen before: nothing done (job {}, activation {})",
                self.job_type, self.element, self.job_key, self.attempt
            )
        }
    }
}

/// The events as lines, each indented by `indent`.
pub fn render(events: &[TraceEvent], indent: &str) -> String {
    events
        .iter()
        .map(|event| format!("{indent}{event}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn short(value: &Value) -> String {
    crate::agent::arguments::short_json(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_job_names_its_message_only_when_it_has_one() {
        let failed = |message: &str| TraceEvent::JobFailed {
            element: "charge".into(),
            job_type: "payment".into(),
            retries: 1,
            message: message.into(),
        };
        insta::assert_snapshot!(render(&[failed("card declined"), failed("")], ""), @r"
        the job at charge failed (1 retry left): card declined
        the job at charge failed (1 retry left) without an error message
        ");
    }
}
