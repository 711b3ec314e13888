//! The JSON form of trace events: `{"<kind>": <value>}`, read back with the path of every
//! problem.

use serde_json::{Map, Value};

use super::{ClockCause, ModelCall, SideEffect, TraceEvent};
use crate::agent::Turn;
use crate::agent::problems::{Problems, json_type};

const KINDS: [&str; 14] = [
    "modelCall",
    "toolActivated",
    "toolResult",
    "elementCompleted",
    "elementTerminated",
    "incidentCreated",
    "incidentResolved",
    "elementActivated",
    "jobTimedOut",
    "jobFailed",
    "sideEffect",
    "fault",
    "lateAnswerRejected",
    "clockMoved",
];

impl TraceEvent {
    /// The JSON form: `{"<kind>": <value>}`, keys in a fixed order.
    pub fn to_json(&self) -> Value {
        let (kind, value) = match self {
            TraceEvent::ModelCall(call) => {
                let mut object = Map::new();
                object.insert("agent".into(), call.agent.clone().into());
                object.insert("call".into(), call.call.into());
                object.insert("request".into(), call.request.clone());
                if let Some(turn) = &call.turn {
                    object.insert("turn".into(), turn.to_json());
                }
                ("modelCall", Value::Object(object))
            }
            TraceEvent::ToolActivated {
                agent,
                tool,
                arguments,
            } => (
                "toolActivated",
                object([
                    ("agent", agent.clone().into()),
                    ("tool", tool.clone().into()),
                    ("arguments", arguments.clone()),
                ]),
            ),
            TraceEvent::ToolResult {
                agent,
                tool,
                content,
            } => (
                "toolResult",
                object([
                    ("agent", agent.clone().into()),
                    ("tool", tool.clone().into()),
                    ("content", content.clone()),
                ]),
            ),
            TraceEvent::ElementCompleted { element } => {
                ("elementCompleted", Value::String(element.clone()))
            }
            TraceEvent::ElementTerminated { element } => {
                ("elementTerminated", Value::String(element.clone()))
            }
            TraceEvent::IncidentCreated {
                element,
                error_type,
                message,
            } => (
                "incidentCreated",
                object([
                    ("element", element.clone().into()),
                    ("errorType", error_type.clone().into()),
                    ("message", message.clone().into()),
                ]),
            ),
            TraceEvent::IncidentResolved { element } => {
                ("incidentResolved", Value::String(element.clone()))
            }
            TraceEvent::ElementActivated { element } => {
                ("elementActivated", Value::String(element.clone()))
            }
            TraceEvent::JobTimedOut { element, job_type } => (
                "jobTimedOut",
                object([
                    ("element", element.clone().into()),
                    ("jobType", job_type.clone().into()),
                ]),
            ),
            TraceEvent::JobFailed {
                element,
                job_type,
                retries,
                message,
            } => (
                "jobFailed",
                object([
                    ("element", element.clone().into()),
                    ("jobType", job_type.clone().into()),
                    ("retries", (*retries).into()),
                    ("message", message.clone().into()),
                ]),
            ),
            TraceEvent::SideEffect(effect) => (
                "sideEffect",
                object([
                    ("jobType", effect.job_type.clone().into()),
                    ("element", effect.element.clone().into()),
                    ("key", effect.key.clone().into()),
                    ("jobKey", effect.job_key.into()),
                    ("attempt", effect.attempt.into()),
                    ("performed", effect.performed.into()),
                ]),
            ),
            TraceEvent::Fault {
                element,
                job_type,
                attempt,
                fault,
            } => (
                "fault",
                object([
                    ("element", element.clone().into()),
                    ("jobType", job_type.clone().into()),
                    ("attempt", (*attempt).into()),
                    ("fault", fault.clone().into()),
                ]),
            ),
            TraceEvent::LateAnswerRejected {
                element,
                job_type,
                reason,
            } => (
                "lateAnswerRejected",
                object([
                    ("element", element.clone().into()),
                    ("jobType", job_type.clone().into()),
                    ("reason", reason.clone().into()),
                ]),
            ),
            TraceEvent::ClockMoved { to, cause } => (
                "clockMoved",
                object([
                    ("to", crate::clock::format_instant(*to).into()),
                    ("cause", cause.name().into()),
                ]),
            ),
        };
        let mut event = Map::with_capacity(1);
        event.insert(kind.into(), value);
        Value::Object(event)
    }

    /// Reads the JSON form; `path` names the event in problems (`calls[0].trajectory[2]`).
    pub fn from_json(value: &Value, path: &str) -> Result<TraceEvent, Problems> {
        let mut problems = Problems::default();
        let event = TraceEvent::from_json_into(value, path, &mut problems);
        match event {
            Some(event) if problems.is_empty() => Ok(event),
            _ => Err(problems),
        }
    }

    pub(crate) fn from_json_into(
        value: &Value,
        path: &str,
        problems: &mut Problems,
    ) -> Option<TraceEvent> {
        let single = value.as_object().filter(|o| o.len() == 1);
        let Some((kind, inner)) = single.and_then(|o| o.iter().next()) else {
            problems.push(
                path,
                format!(
                    "must be an object with one key naming the event ({}), got {}",
                    KINDS.join(", "),
                    describe(value)
                ),
            );
            return None;
        };
        let inner_path = format!("{path}.{kind}");
        let mut fields = Fields {
            path: &inner_path,
            problems,
        };
        match kind.as_str() {
            "modelCall" => model_call(&mut fields, inner),
            "toolActivated" => {
                let object = fields.object(inner, &["agent", "tool", "arguments"])?;
                let agent = fields.text(object, "agent");
                let tool = fields.text(object, "tool");
                let arguments = object
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                Some(TraceEvent::ToolActivated {
                    agent: agent?,
                    tool: tool?,
                    arguments,
                })
            }
            "toolResult" => {
                let object = fields.object(inner, &["agent", "tool", "content"])?;
                let agent = fields.text(object, "agent");
                let tool = fields.text(object, "tool");
                let content = object.get("content").cloned().unwrap_or(Value::Null);
                Some(TraceEvent::ToolResult {
                    agent: agent?,
                    tool: tool?,
                    content,
                })
            }
            "elementCompleted" => Some(TraceEvent::ElementCompleted {
                element: fields.element_id(inner)?,
            }),
            "elementTerminated" => Some(TraceEvent::ElementTerminated {
                element: fields.element_id(inner)?,
            }),
            "incidentCreated" => incident_created(&mut fields, inner),
            "incidentResolved" => Some(TraceEvent::IncidentResolved {
                element: fields.element_id(inner)?,
            }),
            "elementActivated" => Some(TraceEvent::ElementActivated {
                element: fields.element_id(inner)?,
            }),
            "jobTimedOut" => {
                let object = fields.object(inner, &["element", "jobType"])?;
                let element = fields.text(object, "element");
                let job_type = fields.text(object, "jobType");
                Some(TraceEvent::JobTimedOut {
                    element: element?,
                    job_type: job_type?,
                })
            }
            "jobFailed" => job_failed(&mut fields, inner),
            "sideEffect" => side_effect(&mut fields, inner),
            "fault" => {
                let object = fields.object(inner, &["element", "jobType", "attempt", "fault"])?;
                let element = fields.text(object, "element");
                let job_type = fields.text(object, "jobType");
                let attempt = fields.integer(object, "attempt", 1);
                let fault = fields.text(object, "fault");
                Some(TraceEvent::Fault {
                    element: element?,
                    job_type: job_type?,
                    attempt: u32::try_from(attempt?).ok()?,
                    fault: fault?,
                })
            }
            "lateAnswerRejected" => {
                let object = fields.object(inner, &["element", "jobType", "reason"])?;
                let element = fields.text(object, "element");
                let job_type = fields.text(object, "jobType");
                let reason = fields.message(object, "reason");
                Some(TraceEvent::LateAnswerRejected {
                    element: element?,
                    job_type: job_type?,
                    reason: reason?,
                })
            }
            "clockMoved" => clock_moved(&mut fields, inner),
            other => {
                let mut unknown = Map::new();
                unknown.insert(other.to_string(), Value::Null);
                problems.unknown_fields(path, &unknown, &KINDS);
                None
            }
        }
    }
}

/// A `modelCall`: the agent, the call's number, the request and the model's turn.
fn model_call(fields: &mut Fields, inner: &Value) -> Option<TraceEvent> {
    let object = fields.object(inner, &["agent", "call", "request", "turn"])?;
    let agent = fields.text(object, "agent");
    let call = match object.get("call") {
        Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n >= 1) => {
            u32::try_from(n.as_u64().unwrap_or(1)).ok()
        }
        other => {
            fields.problems.push(
                &format!("{}.call", fields.path),
                format!(
                    "must be the call's number (1 or more), got {}",
                    other.map_or("nothing".to_string(), json_type)
                ),
            );
            None
        }
    };
    let request = object.get("request").cloned().unwrap_or(Value::Null);
    let turn = object.get("turn").and_then(|turn| {
        Turn::from_json_into(turn, &format!("{}.turn", fields.path), fields.problems)
    });
    Some(TraceEvent::ModelCall(ModelCall {
        agent: agent?,
        call: call?,
        request,
        turn,
    }))
}

/// An `incidentCreated`: the element, the error type and the message.
fn incident_created(fields: &mut Fields, inner: &Value) -> Option<TraceEvent> {
    let object = fields.object(inner, &["element", "errorType", "message"])?;
    let element = fields.text(object, "element");
    let error_type = fields.text(object, "errorType");
    let message = match object.get("message") {
        None => Some(String::new()),
        Some(Value::String(message)) => Some(message.clone()),
        Some(other) => {
            fields.problems.push(
                &format!("{}.message", fields.path),
                format!("must be a string, got {}", json_type(other)),
            );
            None
        }
    };
    Some(TraceEvent::IncidentCreated {
        element: element?,
        error_type: error_type?,
        message: message?,
    })
}

/// A `jobFailed`: the element, the job type, the retries left and the message.
fn job_failed(fields: &mut Fields, inner: &Value) -> Option<TraceEvent> {
    let object = fields.object(inner, &["element", "jobType", "retries", "message"])?;
    let element = fields.text(object, "element");
    let job_type = fields.text(object, "jobType");
    let retries = fields.integer(object, "retries", i64::from(i32::MIN));
    let message = fields.message(object, "message");
    Some(TraceEvent::JobFailed {
        element: element?,
        job_type: job_type?,
        retries: i32::try_from(retries?).ok()?,
        message: message?,
    })
}

/// A `sideEffect`: which job did (or skipped) its effect, under which key, at which attempt.
fn side_effect(fields: &mut Fields, inner: &Value) -> Option<TraceEvent> {
    let object = fields.object(
        inner,
        &[
            "jobType",
            "element",
            "key",
            "jobKey",
            "attempt",
            "performed",
        ],
    )?;
    let job_type = fields.text(object, "jobType");
    let element = fields.text(object, "element");
    let key = fields.message(object, "key");
    let job_key = fields.integer(object, "jobKey", 0);
    let attempt = fields.integer(object, "attempt", 1);
    let performed = fields.flag(object, "performed");
    Some(TraceEvent::SideEffect(SideEffect {
        job_type: job_type?,
        element: element?,
        key: key?,
        job_key: u64::try_from(job_key?).ok()?,
        attempt: u32::try_from(attempt?).ok()?,
        performed: performed?,
    }))
}

/// A `clockMoved`: the instant the clock moved to and who moved it.
fn clock_moved(fields: &mut Fields, inner: &Value) -> Option<TraceEvent> {
    let object = fields.object(inner, &["to", "cause"])?;
    let to = match object.get("to") {
        Some(Value::String(text)) => match crate::clock::parse_instant(text) {
            Ok(ms) => Some(ms),
            Err(m) => {
                fields
                    .problems
                    .push(&format!("{}.to", fields.path), m.to_string());
                None
            }
        },
        other => {
            fields.problems.push(
                &format!("{}.to", fields.path),
                format!(
                    "must be an ISO-8601 instant, got {}",
                    other.map_or("nothing".to_string(), json_type)
                ),
            );
            None
        }
    };
    let cause = match object.get("cause").and_then(Value::as_str) {
        Some("test") => Some(ClockCause::Test),
        Some("timeSkipping") => Some(ClockCause::TimeSkipping),
        _ => {
            fields.problems.push(
                &format!("{}.cause", fields.path),
                "must be \"test\" or \"timeSkipping\"",
            );
            None
        }
    };
    Some(TraceEvent::ClockMoved {
        to: to?,
        cause: cause?,
    })
}

/// Reads a JSON array of events; `path` names the array.
pub fn events_from_json(
    value: &Value,
    path: &str,
    problems: &mut Problems,
) -> Option<Vec<TraceEvent>> {
    let Some(items) = value.as_array() else {
        problems.push(
            path,
            format!("must be an array of events, got {}", json_type(value)),
        );
        return None;
    };
    Some(
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                TraceEvent::from_json_into(item, &format!("{path}[{i}]"), problems)
            })
            .collect(),
    )
}

/// The JSON array of events.
pub fn events_to_json(events: &[TraceEvent]) -> Value {
    Value::Array(events.iter().map(TraceEvent::to_json).collect())
}

struct Fields<'p> {
    path: &'p str,
    problems: &'p mut Problems,
}

impl Fields<'_> {
    fn object<'v>(&mut self, value: &'v Value, allowed: &[&str]) -> Option<&'v Map<String, Value>> {
        let Some(object) = value.as_object() else {
            self.problems.push(
                self.path,
                format!(
                    "must be an object with {}, got {}",
                    allowed.join(", "),
                    json_type(value)
                ),
            );
            return None;
        };
        self.problems.unknown_fields(self.path, object, allowed);
        Some(object)
    }

    fn text(&mut self, object: &Map<String, Value>, field: &str) -> Option<String> {
        match object.get(field) {
            Some(Value::String(text)) if !text.trim().is_empty() => Some(text.clone()),
            Some(other) => {
                self.problems.push(
                    &format!("{}.{field}", self.path),
                    format!("must be a non-empty string, got {}", json_type(other)),
                );
                None
            }
            None => {
                self.problems
                    .push(&format!("{}.{field}", self.path), "is missing");
                None
            }
        }
    }

    /// A string that may be empty; missing is empty.
    fn message(&mut self, object: &Map<String, Value>, field: &str) -> Option<String> {
        match object.get(field) {
            None => Some(String::new()),
            Some(Value::String(text)) => Some(text.clone()),
            Some(other) => {
                self.problems.push(
                    &format!("{}.{field}", self.path),
                    format!("must be a string, got {}", json_type(other)),
                );
                None
            }
        }
    }

    /// A whole number of at least `min`.
    fn integer(&mut self, object: &Map<String, Value>, field: &str, min: i64) -> Option<i64> {
        let value = object.get(field);
        let number = value.and_then(|v| {
            v.as_i64()
                .or_else(|| v.as_u64().and_then(|n| i64::try_from(n).ok()))
        });
        match number {
            Some(n) if n >= min => Some(n),
            _ => {
                self.problems.push(
                    &format!("{}.{field}", self.path),
                    format!(
                        "must be a whole number of at least {min}, got {}",
                        value.map_or("nothing".to_string(), json_type)
                    ),
                );
                None
            }
        }
    }

    fn flag(&mut self, object: &Map<String, Value>, field: &str) -> Option<bool> {
        match object.get(field) {
            Some(Value::Bool(b)) => Some(*b),
            other => {
                self.problems.push(
                    &format!("{}.{field}", self.path),
                    format!(
                        "must be true or false, got {}",
                        other.map_or("nothing".to_string(), json_type)
                    ),
                );
                None
            }
        }
    }

    fn element_id(&mut self, value: &Value) -> Option<String> {
        match value {
            Value::String(id) if !id.trim().is_empty() => Some(id.clone()),
            other => {
                self.problems.push(
                    self.path,
                    format!(
                        "must be an element id (a non-empty string), got {}",
                        json_type(other)
                    ),
                );
                None
            }
        }
    }
}

fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    let mut object = Map::with_capacity(N);
    for (key, value) in entries {
        object.insert(key.into(), value);
    }
    Value::Object(object)
}

fn describe(value: &Value) -> String {
    match value.as_object() {
        Some(object) if object.is_empty() => "an empty object".to_string(),
        Some(object) => format!(
            "an object with {}",
            object.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
        None => json_type(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::render;
    use serde_json::json;

    #[test]
    fn every_event_round_trips_through_json() {
        let events = vec![
            TraceEvent::ModelCall(ModelCall {
                agent: "support-agent".into(),
                call: 1,
                request: json!({"userPrompt": "hi"}),
                turn: Some(Turn::respond_text("hello")),
            }),
            TraceEvent::ToolActivated {
                agent: "support-agent".into(),
                tool: "lookup-order".into(),
                arguments: json!({"orderId": "1042"}),
            },
            TraceEvent::ToolResult {
                agent: "support-agent".into(),
                tool: "lookup-order".into(),
                content: json!({"status": "delivered"}),
            },
            TraceEvent::ElementCompleted {
                element: "lookup-order".into(),
            },
            TraceEvent::ElementTerminated {
                element: "support-agent".into(),
            },
            TraceEvent::IncidentCreated {
                element: "lookup-order".into(),
                error_type: "JOB_NO_RETRIES".into(),
                message: "boom".into(),
            },
            TraceEvent::IncidentResolved {
                element: "lookup-order".into(),
            },
            TraceEvent::ElementActivated {
                element: "approve".into(),
            },
            TraceEvent::JobTimedOut {
                element: "create-ticket".into(),
                job_type: "ticket-create".into(),
            },
            TraceEvent::JobFailed {
                element: "create-ticket".into(),
                job_type: "ticket-create".into(),
                retries: 2,
                message: "503".into(),
            },
            TraceEvent::SideEffect(SideEffect {
                job_type: "ticket-create".into(),
                element: "create-ticket".into(),
                key: "1042".into(),
                job_key: 2_251_799_813_685_253,
                attempt: 2,
                performed: false,
            }),
            TraceEvent::Fault {
                element: "create-ticket".into(),
                job_type: "ticket-create".into(),
                attempt: 1,
                fault: "crashes after its side effect".into(),
            },
            TraceEvent::LateAnswerRejected {
                element: "search-kb".into(),
                job_type: "kb-search".into(),
                reason: "no such job".into(),
            },
            TraceEvent::ClockMoved {
                to: 1_735_689_900_001,
                cause: ClockCause::TimeSkipping,
            },
        ];
        let json = events_to_json(&events);
        let mut problems = Problems::default();
        let back = events_from_json(&json, "trajectory", &mut problems).unwrap();
        assert!(problems.is_empty(), "{problems}");
        assert_eq!(back, events);
        insta::assert_snapshot!(render(&events[7..], ""), @r#"
        activated approve
        the job at create-ticket timed out: its worker did not answer in time, the job can be activated again
        the job at create-ticket failed (2 retries left): 503
        side effect of ticket-create at create-ticket, key "1042" seen before: nothing done (job 2251799813685253, activation 2)
        fault at create-ticket (activation 1): crashes after its side effect
        the late answer at search-kb was rejected: no such job
        the clock moved to 2025-01-01T00:05:00.001Z (time skipping)
        "#);
        assert_eq!(
            render(&events[1..4], "  "),
            "  tool lookup-order activated with {\"orderId\":\"1042\"}\n  tool lookup-order returned {\"status\":\"delivered\"}\n  completed lookup-order"
        );
    }

    #[test]
    fn problems_name_their_paths() {
        let mut problems = Problems::default();
        events_from_json(
            &json!([
                {"toolActivated": {"agent": "a", "argument": {}}},
                {"elementCompleted": 3},
                {"elementCompleted": "x", "toolResult": {}},
                {"toolReturned": {}},
                {"incidentCreated": {"element": "x", "errorType": "", "message": 1}},
                {"modelCall": {"agent": "a", "call": 0, "turn": {"toolCalls": []}}}
            ]),
            "calls[0].trajectory",
            &mut problems,
        );
        insta::assert_snapshot!(problems.to_string(), @r#"
        calls[0].trajectory[0].toolActivated has unknown field "argument" (allowed: agent, tool, arguments)
        calls[0].trajectory[0].toolActivated.tool is missing
        calls[0].trajectory[1].elementCompleted must be an element id (a non-empty string), got the number 3
        calls[0].trajectory[2] must be an object with one key naming the event (modelCall, toolActivated, toolResult, elementCompleted, elementTerminated, incidentCreated, incidentResolved, elementActivated, jobTimedOut, jobFailed, sideEffect, fault, lateAnswerRejected, clockMoved), got an object with elementCompleted, toolResult
        calls[0].trajectory[3] has unknown field "toolReturned" (allowed: modelCall, toolActivated, toolResult, elementCompleted, elementTerminated, incidentCreated, incidentResolved, elementActivated, jobTimedOut, jobFailed, sideEffect, fault, lateAnswerRejected, clockMoved)
        calls[0].trajectory[4].incidentCreated.errorType must be a non-empty string, got the string ""
        calls[0].trajectory[4].incidentCreated.message must be a string, got the number 1
        calls[0].trajectory[5].modelCall.call must be the call's number (1 or more), got the number 0
        calls[0].trajectory[5].modelCall.turn.toolCalls must not be empty: end the agent with a { "responseText" } or { "responseJson" } turn instead
        "#);
    }
}
