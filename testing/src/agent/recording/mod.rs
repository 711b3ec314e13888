//! Record, replay and drift: cassettes of format 2 that know what the model was asked and what
//! the process did after each answer.
//!
//! - [`format`](mod@format) — [`Recording`]: the file (format 2; format 1 reads too), validated with the path
//!   of every problem, written as stable 2-space JSON with keys in a fixed order.
//! - [`normalize`] — volatile values (timestamps, dates, UUIDs, provider ids, Zeebe keys) to
//!   placeholders, tool-call ids left out; a test's own paths, regexes or closure.
//! - [`redact`] — API keys and bearer tokens to `[REDACTED]` before anything is written.
//! - [`diff`] — the first difference between two JSON values and its path.
//! - [`replay`] — [`Replayer`]: which recorded call answers a model call (in order, by request,
//!   turns only), or the mismatch.
//! - [`record`] — [`Recorder`]: calls and trajectories appended, the file rewritten atomically
//!   after every change.
//! - [`script`] — [`CassetteScript`]: a cassette as an agent mock's script, with its rules.
//! - [`session`] — [`CassetteSession`]: one agent's cassette in a test (record, replay, auto,
//!   drift), reading the trace from the engine.
//! - [`drift`] — a mismatch, an extra or a missing call explained in BPMN terms; two runs'
//!   trajectories compared.
//! - [`import`] — a cassette from the `agentContext` of a real Camunda run.
//! - [`command`] — [`AgentCommand`]: a program that answers each model call (JSON in, turn out).

pub mod command;
pub mod diff;
pub mod drift;
pub mod format;
pub mod import;
pub mod normalize;
pub mod record;
pub mod redact;
pub mod replay;
pub mod script;
pub mod session;

use serde_json::{Map, Value};

pub use command::{AgentCommand, AgentCommandError};
pub use diff::{Difference, first_difference};
pub use drift::{Cause, Drift, DriftContext, DriftKind, compare_recordings};
pub use format::{
    RECORDING_VERSION, REQUEST_FIELDS, RecordedCall, RecordedProcess, RecordedRequest, Recording,
    RecordingError,
};
pub use import::{ImportError, ImportOptions, import_agent_context, import_agent_context_text};
pub use normalize::Normalizer;
pub use record::Recorder;
pub use redact::Redactor;
pub use replay::{MatchMode, Played, Replayer, UnmatchedCall};
pub use script::CassetteScript;
pub use session::{
    CassetteMode, CassetteOptions, CassetteSession, RECORD_ENV, SessionFailure, TurnSource,
};

use super::connector::{Limits, ResponseFormat};
use super::request::AgentRequest;

/// The request of a model call as recordings store it (before normalisation): the
/// [`REQUEST_FIELDS`] in their order.
pub fn request_json(request: &AgentRequest) -> Value {
    let mut object = Map::new();
    object.insert(
        "tools".into(),
        Value::Array(request.tools.iter().map(|t| t.to_json()).collect()),
    );
    object.insert(
        "systemPrompt".into(),
        request
            .system_prompt
            .clone()
            .map_or(Value::Null, Value::String),
    );
    object.insert(
        "userPrompt".into(),
        request
            .user_prompt
            .clone()
            .map_or(Value::Null, Value::String),
    );
    object.insert(
        "toolCallResults".into(),
        request.tool_call_results.to_json(),
    );
    object.insert("events".into(), Value::Array(request.events.clone()));
    object.insert(
        "responseFormat".into(),
        response_format_json(&request.response_format),
    );
    let mut limits = Map::new();
    limits.insert(
        "maxModelCalls".into(),
        request.limits.max_model_calls.into(),
    );
    limits.insert(
        "contextWindowSize".into(),
        request.limits.context_window_size.into(),
    );
    object.insert("limits".into(), Value::Object(limits));
    object.insert("messages".into(), Value::Array(request.messages.to_vec()));
    Value::Object(object)
}

pub(crate) fn limits_json(limits: Limits) -> Value {
    let mut object = Map::new();
    object.insert("maxModelCalls".into(), limits.max_model_calls.into());
    object.insert(
        "contextWindowSize".into(),
        limits.context_window_size.into(),
    );
    Value::Object(object)
}

pub(crate) fn response_format_json(format: &ResponseFormat) -> Value {
    let mut object = Map::new();
    match format {
        ResponseFormat::Text { parse_json } => {
            object.insert("type".into(), "text".into());
            object.insert("parseJson".into(), (*parse_json).into());
        }
        ResponseFormat::Json {
            schema,
            schema_name,
        } => {
            object.insert("type".into(), "json".into());
            if let Some(schema) = schema {
                object.insert("schema".into(), schema.to_json());
            }
            if let Some(name) = schema_name {
                object.insert("schemaName".into(), name.clone().into());
            }
        }
    }
    Value::Object(object)
}
