//! Recording: each model call and its turn appended to a [`Recording`] (redacted, the request
//! normalised), the trajectory added as the run goes on, and the file written atomically after
//! every change, so a run that fails or is killed midway leaves a valid cassette of the calls so
//! far.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::format::{RecordedCall, RecordedProcess, Recording, RecordingError};
use super::normalize::Normalizer;
use super::redact::Redactor;
use super::replay::prepare;
use crate::agent::turn::Turn;
use crate::trace::TraceEvent;

/// Builds a recording of one agent element and keeps its file up to date.
#[derive(Debug, Clone)]
pub struct Recorder {
    recording: Recording,
    path: Option<PathBuf>,
    normalizer: Normalizer,
    redactor: Redactor,
}

impl Recorder {
    /// A recorder of `agent`; `path` is the file written after every change (`None`: kept in
    /// memory, e.g. to compare a live run with a cassette).
    pub fn new(
        agent: &str,
        process: Option<RecordedProcess>,
        path: Option<PathBuf>,
        normalizer: Normalizer,
        redactor: Redactor,
    ) -> Recorder {
        Recorder {
            recording: Recording::new(agent, process),
            path,
            normalizer,
            redactor,
        }
    }

    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Appends a model call: the request as the model saw it and the turn that answered it.
    /// Writes the file.
    pub fn record_call(&mut self, request: &Value, turn: &Turn) -> Result<(), RecordingError> {
        let request = prepare(request, &self.normalizer, &self.redactor);
        let turn = self.redacted_turn(turn);
        self.recording.calls.push(RecordedCall {
            request: Some(request),
            turn,
            trajectory: Vec::new(),
        });
        self.save()
    }

    /// Appends a model call's turn alone (its request is not kept). Writes nothing: a run
    /// replayed with checks keeps its trajectories in memory, to explain a drift.
    pub fn record_turn(&mut self, turn: &Turn) {
        self.recording.calls.push(RecordedCall {
            request: None,
            turn: turn.clone(),
            trajectory: Vec::new(),
        });
    }

    /// Adds what happened since the last model call to its trajectory (events before the first
    /// call are dropped). Writes the file when something was added.
    pub fn extend_trajectory(
        &mut self,
        events: impl IntoIterator<Item = TraceEvent>,
    ) -> Result<(), RecordingError> {
        let Some(last) = self.recording.calls.last_mut() else {
            return Ok(());
        };
        let before = last.trajectory.len();
        for mut event in events {
            prepare_event(&self.normalizer, &self.redactor, &mut event);
            last.trajectory.push(event);
        }
        if last.trajectory.len() == before {
            return Ok(());
        }
        self.save()
    }

    /// Writes the file now (nothing without a path).
    pub fn save(&mut self) -> Result<(), RecordingError> {
        if let Some(path) = &self.path {
            self.recording.write(path)?;
        }
        Ok(())
    }

    fn redacted_turn(&self, turn: &Turn) -> Turn {
        let mut json = turn.to_json();
        self.redactor.redact(&mut json);
        // Redaction only replaces text inside strings, so the turn stays valid.
        Turn::from_json(&json, "turn").unwrap_or_else(|_| turn.clone())
    }
}

/// Events hold values a run picks (keys, timestamps in tool results) and may hold secrets:
/// the request's value rules and the redaction make two runs' trajectories comparable and
/// safe to write.
fn prepare_event(normalizer: &Normalizer, redactor: &Redactor, event: &mut TraceEvent) {
    match event {
        TraceEvent::ToolActivated {
            arguments: value, ..
        }
        | TraceEvent::ToolResult { content: value, .. } => {
            redactor.redact(value);
            normalizer.normalize_values(value);
        }
        TraceEvent::IncidentCreated { message, .. }
        | TraceEvent::JobFailed { message, .. }
        | TraceEvent::LateAnswerRejected {
            reason: message, ..
        } => {
            let mut value = Value::String(std::mem::take(message));
            redactor.redact(&mut value);
            normalizer.normalize_values(&mut value);
            if let Value::String(text) = value {
                *message = text;
            }
        }
        TraceEvent::SideEffect(effect) => {
            let mut value = Value::String(std::mem::take(&mut effect.key));
            redactor.redact(&mut value);
            if let Value::String(text) = value {
                effect.key = text;
            }
        }
        TraceEvent::ModelCall(_)
        | TraceEvent::ElementCompleted { .. }
        | TraceEvent::ElementTerminated { .. }
        | TraceEvent::IncidentResolved { .. }
        | TraceEvent::ElementActivated { .. }
        | TraceEvent::JobTimedOut { .. }
        | TraceEvent::Fault { .. }
        | TraceEvent::ClockMoved { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_are_redacted_normalised_and_written_after_every_change() {
        let dir = std::env::temp_dir().join(format!("baton-recorder-{}", std::process::id()));
        let path = dir.join("support.json");
        let mut recorder = Recorder::new(
            "support-agent",
            None,
            Some(path.clone()),
            Normalizer::standard(),
            Redactor::standard(),
        );
        recorder
            .extend_trajectory([TraceEvent::ElementCompleted {
                element: "start".into(),
            }])
            .unwrap();
        assert!(!path.exists(), "nothing is written before the first call");
        recorder
            .record_call(
                &json!({"userPrompt": "key sk-ant-0123456789abcdefghij at 2025-01-01T00:00:00Z"}),
                &Turn::call("lookup-order", json!({"token": "Bearer abcdefgh12345"})),
            )
            .unwrap();
        let written = Recording::read(&path).unwrap();
        assert_eq!(
            written.calls[0].request.as_ref().unwrap().get("userPrompt"),
            Some(&json!("key [REDACTED] at <timestamp>"))
        );
        assert_eq!(
            written.calls[0].turn,
            Turn::call("lookup-order", json!({"token": "[REDACTED]"}))
        );
        recorder
            .extend_trajectory([TraceEvent::ToolResult {
                agent: "support-agent".into(),
                tool: "lookup-order".into(),
                content: json!({"at": "2025-01-01T00:00:00Z", "key": 2251799813685251_u64}),
            }])
            .unwrap();
        let written = Recording::read(&path).unwrap();
        assert_eq!(
            written.calls[0].trajectory,
            [TraceEvent::ToolResult {
                agent: "support-agent".into(),
                tool: "lookup-order".into(),
                content: json!({"at": "<timestamp>", "key": "<key>"}),
            }]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
