//! Cassette format 2: per agent element, the process it was recorded against and one entry per
//! model call — the request as the model saw it (normalised), its hash, the turn that answered
//! it and the run's trajectory up to the next call.
//!
//! ```json
//! {
//!   "version": 2,
//!   "baton": "0.1.0",
//!   "agent": "support-agent",
//!   "process": { "id": "ai-agent-tool-loop", "definitionHash": "sha256:…" },
//!   "calls": [
//!     {
//!       "call": 1,
//!       "request": { "tools": [ … ], "systemPrompt": "…", "userPrompt": "…", … },
//!       "requestHash": "sha256:…",
//!       "turn": { "toolCalls": [ { "name": "lookup-order", "arguments": { "orderId": "1042" } } ] },
//!       "trajectory": [ { "toolActivated": { … } }, { "toolResult": { … } }, { "elementCompleted": "lookup-order" } ]
//!     }
//!   ]
//! }
//! ```
//!
//! The file is JSON indented by two spaces with its keys in a fixed order, so diffs review well.
//! Reading validates the whole document and names the path of every problem; a format 1
//! cassette reads as calls without requests (replayed by turns only, as before); a newer format
//! is refused with what to do.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::diff::{Difference, first_difference};
use crate::agent::cassette::{CASSETTE_VERSION, Cassette, CassetteError};
use crate::agent::problems::{Problems, json_type};
use crate::agent::turn::Turn;
use crate::trace::{self, TraceEvent};

/// The cassette format this module writes.
pub const RECORDING_VERSION: u64 = 2;

/// The fields of a recorded request, in the order they are written and compared: what the
/// process decides first, the conversation (which repeats most of it) last.
pub const REQUEST_FIELDS: [&str; 8] = [
    "tools",
    "systemPrompt",
    "userPrompt",
    "toolCallResults",
    "events",
    "responseFormat",
    "limits",
    "messages",
];

/// The model calls of one agent element, recorded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Recording {
    /// The agent element (the ad-hoc sub-process id); a recording with an agent refuses to
    /// replay another element.
    pub agent: Option<String>,
    /// The process the agent was recorded in.
    pub process: Option<RecordedProcess>,
    /// The baton version that wrote the file (`None` for a format 1 cassette).
    pub baton: Option<String>,
    pub calls: Vec<RecordedCall>,
}

/// The process a recording was made against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedProcess {
    /// The BPMN process id.
    pub id: String,
    /// `sha256:<hex>` of the deployed resource's content; `None` when unknown (an import).
    pub definition_hash: Option<String>,
}

/// One model call.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    /// What the model was asked, normalised; `None` for a format 1 turn (not checked).
    pub request: Option<RecordedRequest>,
    /// What it answered.
    pub turn: Turn,
    /// What happened after the answer, up to the next model call of the agent (or the end of
    /// the run, for the last call).
    pub trajectory: Vec<TraceEvent>,
}

/// A request as the model saw it: the [`REQUEST_FIELDS`] it has, in that order. A field a
/// recording leaves out is not compared.
#[derive(Debug, Clone, Default)]
pub struct RecordedRequest {
    fields: Map<String, Value>,
    /// The hash, computed when first asked for (a recording is rewritten after every call).
    hash: OnceLock<String>,
}

impl PartialEq for RecordedRequest {
    fn eq(&self, other: &RecordedRequest) -> bool {
        self.fields == other.fields
    }
}

/// Why a recording cannot be read, written or replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("cannot access cassette {}: {error}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        error: std::io::Error,
    },
    #[error("invalid cassette {file}: {}", syntax_message(*line, *column, message))]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("invalid cassette {file}: {}", problems_message(problems))]
    Invalid { file: String, problems: Problems },
    #[error(
        "cassette {file} is in format {version}, written by a newer baton; this baton reads formats 1 and 2: update baton, or re-record the cassette with this one"
    )]
    NewerFormat { file: String, version: u64 },
    #[error(
        "cassette {} of \"{agent}\" does not exist: record it with BATON_RECORD=1 cargo test (or baton test --record), or use mode auto",
        path.display()
    )]
    Missing { path: PathBuf, agent: String },
    #[error(
        "cannot record cassette {file} of \"{agent}\": recording needs a handler that answers each model call (your model adapter; baton test --record --agent-command CMD)"
    )]
    NoHandler { file: String, agent: String },
    #[error(
        "cassette {file} was recorded for the agent \"{recorded_for}\" and cannot replay \"{element_id}\": use the cassette of \"{element_id}\", or record one"
    )]
    WrongAgent {
        file: String,
        recorded_for: String,
        element_id: String,
    },
    #[error(
        "cassette {file} was recorded against the process \"{recorded_for}\", but the agent \"{element_id}\" runs in \"{process_id}\": use the cassette of \"{process_id}\", or record one"
    )]
    WrongProcess {
        file: String,
        recorded_for: String,
        process_id: String,
        element_id: String,
    },
}

fn syntax_message(line: usize, column: usize, message: &str) -> String {
    if message.starts_with("EOF while parsing") {
        format!(
            "the JSON ends early at line {line}, column {column} (is the file cut off?): {message}"
        )
    } else {
        format!("not JSON at line {line}, column {column}: {message}")
    }
}

fn problems_message(problems: &Problems) -> String {
    // A problem of the document itself has no path: it is the cassette's.
    let describe = |problem: &crate::agent::Problem| {
        if problem.path.is_empty() && problem.problem.starts_with("has ") {
            format!("the cassette {}", problem.problem)
        } else {
            problem.to_string()
        }
    };
    if let [problem] = problems.items() {
        return describe(problem);
    }
    let mut text = format!("{} problems", problems.len());
    for problem in problems.items() {
        let _ = write!(text, "\n  - {}", describe(problem));
    }
    text
}

impl RecordedRequest {
    /// The request's known fields, in the fixed order (other keys are left out).
    pub fn new(value: &Value) -> RecordedRequest {
        let mut fields = Map::new();
        if let Some(object) = value.as_object() {
            for field in REQUEST_FIELDS {
                if let Some(v) = object.get(field) {
                    fields.insert(field.to_string(), v.clone());
                }
            }
        }
        RecordedRequest {
            fields,
            hash: OnceLock::new(),
        }
    }

    /// A field, when the request has it.
    pub fn get(&self, field: &str) -> Option<&Value> {
        self.fields.get(field)
    }

    /// The JSON object, fields in the fixed order.
    pub fn to_json(&self) -> Value {
        Value::Object(self.fields.clone())
    }

    /// `sha256:<hex>` of the request's canonical JSON (keys sorted, no spaces).
    pub fn hash(&self) -> &str {
        self.hash.get_or_init(|| {
            let mut canonical = Vec::new();
            write_canonical_object(&self.fields, &mut canonical);
            sha256(&canonical)
        })
    }

    /// The fields, in order.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// The first difference from `actual` in the fields this request has, in field order,
    /// paths starting with `request.`.
    pub fn first_difference(&self, actual: &RecordedRequest) -> Option<Difference> {
        for (field, recorded) in &self.fields {
            let path = format!("request.{field}");
            let found = match actual.fields.get(field) {
                Some(value) => first_difference(recorded, value, &path),
                None => Some(Difference {
                    path,
                    recorded: Some(recorded.clone()),
                    actual: None,
                }),
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }

    fn from_json_into(value: &Value, path: &str, problems: &mut Problems) -> RecordedRequest {
        let Some(object) = value.as_object() else {
            problems.push(
                path,
                format!(
                    "must be an object with the request's fields ({}), got {}",
                    REQUEST_FIELDS.join(", "),
                    json_type(value)
                ),
            );
            return RecordedRequest::default();
        };
        problems.unknown_fields(path, object, &REQUEST_FIELDS);
        let at = |field: &str| format!("{path}.{field}");
        for (field, v) in object {
            match field.as_str() {
                "tools" => check_tools(v, &at(field), problems),
                "systemPrompt" | "userPrompt" if !v.is_string() && !v.is_null() => {
                    problems.push(
                        &at(field),
                        format!(
                            "must be the prompt (a string) or null, got {}",
                            json_type(v)
                        ),
                    );
                }
                "toolCallResults" => check_objects(
                    v,
                    &at(field),
                    "tool results ({name, content})",
                    &["name"],
                    problems,
                ),
                "events" => {
                    check_array(v, &at(field), "event contents", problems);
                }
                "messages" => check_objects(v, &at(field), "messages", &["role"], problems),
                "responseFormat" => check_response_format(v, &at(field), problems),
                "limits" => check_limits(v, &at(field), problems),
                _ => {}
            }
        }
        RecordedRequest::new(value)
    }
}

fn check_array<'v>(
    value: &'v Value,
    path: &str,
    what: &str,
    problems: &mut Problems,
) -> Option<&'v Vec<Value>> {
    match value.as_array() {
        Some(items) => Some(items),
        None => {
            problems.push(
                path,
                format!("must be an array of {what}, got {}", json_type(value)),
            );
            None
        }
    }
}

fn check_objects(
    value: &Value,
    path: &str,
    what: &str,
    required: &[&str],
    problems: &mut Problems,
) {
    let Some(items) = check_array(value, path, what, problems) else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{i}]");
        let Some(object) = item.as_object() else {
            problems.push(
                &item_path,
                format!("must be an object, got {}", json_type(item)),
            );
            continue;
        };
        for field in required {
            if !object.contains_key(*field) {
                problems.push(&format!("{item_path}.{field}"), "is missing");
            }
        }
    }
}

fn check_tools(value: &Value, path: &str, problems: &mut Problems) {
    let Some(tools) = check_array(value, path, "tool definitions", problems) else {
        return;
    };
    for (i, tool) in tools.iter().enumerate() {
        let tool_path = format!("{path}[{i}]");
        let Some(object) = tool.as_object() else {
            problems.push(
                &tool_path,
                format!(
                    "must be a tool definition ({{name, description, inputSchema}}), got {}",
                    json_type(tool)
                ),
            );
            continue;
        };
        problems.unknown_fields(&tool_path, object, &["name", "description", "inputSchema"]);
        match object.get("name") {
            Some(Value::String(name)) if !name.trim().is_empty() => {}
            Some(other) => problems.push(
                &format!("{tool_path}.name"),
                format!("must be the tool's element id, got {}", json_type(other)),
            ),
            None => problems.push(&format!("{tool_path}.name"), "is missing"),
        }
        if let Some(schema) = object.get("inputSchema").filter(|s| !s.is_object()) {
            problems.push(
                &format!("{tool_path}.inputSchema"),
                format!(
                    "must be a JSON schema (an object), got {}",
                    json_type(schema)
                ),
            );
        }
    }
}

fn check_response_format(value: &Value, path: &str, problems: &mut Problems) {
    let Some(object) = value.as_object() else {
        problems.push(
            path,
            format!(
                "must be an object with type (\"text\" or \"json\"), got {}",
                json_type(value)
            ),
        );
        return;
    };
    match object.get("type").and_then(Value::as_str) {
        Some("text") => problems.unknown_fields(path, object, &["type", "parseJson"]),
        Some("json") => problems.unknown_fields(path, object, &["type", "schema", "schemaName"]),
        _ => problems.push(&format!("{path}.type"), "must be \"text\" or \"json\""),
    }
}

fn check_limits(value: &Value, path: &str, problems: &mut Problems) {
    let fields = ["maxModelCalls", "contextWindowSize"];
    let Some(object) = value.as_object() else {
        problems.push(
            path,
            format!(
                "must be an object with {}, got {}",
                fields.join(", "),
                json_type(value)
            ),
        );
        return;
    };
    problems.unknown_fields(path, object, &fields);
    for (field, v) in object {
        if fields.contains(&field.as_str()) && v.as_u64().is_none() {
            problems.push(
                &format!("{path}.{field}"),
                format!("must be a whole number, got {}", json_type(v)),
            );
        }
    }
}

/// `sha256:<hex>` of some bytes.
pub fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in digest {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// JSON with every object's keys sorted and no whitespace: equal values, equal text.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(object) => write_canonical_object(object, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar).expect("writing to memory"),
    }
}

fn write_canonical_object(object: &Map<String, Value>, out: &mut Vec<u8>) {
    let mut entries: Vec<(&String, &Value)> = object.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, key).expect("writing to memory");
        out.push(b':');
        write_canonical(value, out);
    }
    out.push(b'}');
}

impl From<Cassette> for Recording {
    fn from(cassette: Cassette) -> Recording {
        Recording {
            agent: cassette.agent,
            process: None,
            baton: None,
            calls: cassette
                .turns
                .into_iter()
                .map(|turn| RecordedCall {
                    request: None,
                    turn,
                    trajectory: Vec::new(),
                })
                .collect(),
        }
    }
}

impl Recording {
    /// An empty recording of `agent`, written by this baton.
    pub fn new(agent: impl Into<String>, process: Option<RecordedProcess>) -> Recording {
        Recording {
            agent: Some(agent.into()),
            process,
            baton: Some(env!("CARGO_PKG_VERSION").to_string()),
            calls: Vec::new(),
        }
    }

    /// The turns, in call order.
    pub fn turns(&self) -> Vec<Turn> {
        self.calls.iter().map(|call| call.turn.clone()).collect()
    }

    /// Whether every call has its request (a format 1 cassette has none).
    pub fn has_requests(&self) -> bool {
        self.calls.iter().all(|call| call.request.is_some())
    }

    /// Reads a cassette of format 1 or 2 from JSON text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Recording, RecordingError> {
        let value: Value = serde_json::from_str(text).map_err(|e| RecordingError::Syntax {
            file: source.to_string(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        Recording::from_json(&value, source)
    }

    /// Reads a cassette of format 1 or 2 from parsed JSON.
    pub fn from_json(value: &Value, source: &str) -> Result<Recording, RecordingError> {
        let invalid = |problems| RecordingError::Invalid {
            file: source.to_string(),
            problems,
        };
        let Some(object) = value.as_object() else {
            let mut problems = Problems::default();
            problems.push(
                "",
                format!(
                    "the cassette must be an object with version, agent and calls, got {}",
                    json_type(value)
                ),
            );
            return Err(invalid(problems));
        };
        match object.get("version").and_then(Value::as_u64) {
            Some(CASSETTE_VERSION) => {
                return Cassette::from_json(value, source)
                    .map(Recording::from)
                    .map_err(|e| match e {
                        CassetteError::Invalid { problems, .. } => invalid(problems),
                        other => invalid({
                            let mut problems = Problems::default();
                            problems.push("", other.to_string());
                            problems
                        }),
                    });
            }
            Some(version) if version > RECORDING_VERSION => {
                return Err(RecordingError::NewerFormat {
                    file: source.to_string(),
                    version,
                });
            }
            _ => {}
        }
        let mut problems = Problems::default();
        let recording = Recording::from_object(object, &mut problems);
        if problems.is_empty() {
            Ok(recording)
        } else {
            Err(invalid(problems))
        }
    }

    fn from_object(object: &Map<String, Value>, problems: &mut Problems) -> Recording {
        problems.unknown_fields(
            "",
            object,
            &["version", "baton", "agent", "process", "calls"],
        );
        match object.get("version") {
            None => problems.push(
                "version",
                format!("is missing (it is {RECORDING_VERSION} for this format)"),
            ),
            Some(v) if v.as_u64() == Some(RECORDING_VERSION) => {}
            Some(v) => problems.push(
                "version",
                format!("must be {CASSETTE_VERSION} or {RECORDING_VERSION}, got {v}"),
            ),
        }
        let baton = match object.get("baton") {
            None => None,
            Some(Value::String(version)) => Some(version.clone()),
            Some(other) => {
                problems.push(
                    "baton",
                    format!(
                        "must be the baton version that wrote the file, got {}",
                        json_type(other)
                    ),
                );
                None
            }
        };
        let agent = match object.get("agent") {
            None => None,
            Some(Value::String(agent)) if !agent.trim().is_empty() => Some(agent.clone()),
            Some(other) => {
                problems.push(
                    "agent",
                    format!(
                        "must be the agent's element id (a non-empty string), got {}",
                        json_type(other)
                    ),
                );
                None
            }
        };
        let process = object
            .get("process")
            .and_then(|p| read_process(p, problems));
        let calls = match object.get("calls") {
            None => {
                problems.push("calls", "is missing");
                Vec::new()
            }
            Some(Value::Array(calls)) => calls
                .iter()
                .enumerate()
                .filter_map(|(i, call)| read_call(call, i, problems))
                .collect(),
            Some(other) => {
                problems.push(
                    "calls",
                    format!("must be an array of model calls, got {}", json_type(other)),
                );
                Vec::new()
            }
        };
        Recording {
            agent,
            process,
            baton,
            calls,
        }
    }

    /// The JSON form, keys in the fixed order.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("version".into(), RECORDING_VERSION.into());
        object.insert(
            "baton".into(),
            self.baton
                .clone()
                .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string())
                .into(),
        );
        if let Some(agent) = &self.agent {
            object.insert("agent".into(), agent.clone().into());
        }
        if let Some(process) = &self.process {
            let mut p = Map::new();
            p.insert("id".into(), process.id.clone().into());
            if let Some(hash) = &process.definition_hash {
                p.insert("definitionHash".into(), hash.clone().into());
            }
            object.insert("process".into(), Value::Object(p));
        }
        let calls = self
            .calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let mut entry = Map::new();
                entry.insert("call".into(), (i + 1).into());
                if let Some(request) = &call.request {
                    entry.insert("request".into(), request.to_json());
                    entry.insert("requestHash".into(), request.hash().into());
                }
                entry.insert("turn".into(), call.turn.to_json());
                entry.insert("trajectory".into(), trace::events_to_json(&call.trajectory));
                Value::Object(entry)
            })
            .collect();
        object.insert("calls".into(), Value::Array(calls));
        Value::Object(object)
    }

    /// The file text: JSON indented by two spaces, with a final newline.
    pub fn to_pretty_string(&self) -> String {
        let mut text =
            serde_json::to_string_pretty(&self.to_json()).expect("a JSON value always serialises");
        text.push('\n');
        text
    }

    /// Checks the recording as reading does.
    pub fn validate(&self, source: &str) -> Result<(), RecordingError> {
        Recording::from_json(&self.to_json(), source).map(|_| ())
    }

    /// Reads and validates a cassette file of format 1 or 2.
    pub fn read(path: impl AsRef<Path>) -> Result<Recording, RecordingError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| RecordingError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        Recording::parse(&text, &path.display().to_string())
    }

    /// Validates and writes the file in format 2, atomically: a temporary file beside it, then
    /// a rename, so a reader (or a run killed midway) never sees half a cassette.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), RecordingError> {
        let path = path.as_ref();
        self.validate(&path.display().to_string())?;
        let dir = crate::files::folder_of(path);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "cassette.json".into());
        crate::files::write_atomically(dir, &name, &self.to_pretty_string())
            .map(|_| ())
            .map_err(|(path, error)| RecordingError::Io { path, error })
    }

    /// Refuses a recording made for another agent element or another process.
    pub fn check_for(
        &self,
        element_id: &str,
        process_id: Option<&str>,
        source: &str,
    ) -> Result<(), RecordingError> {
        if let Some(agent) = self.agent.as_deref().filter(|a| *a != element_id) {
            return Err(RecordingError::WrongAgent {
                file: source.to_string(),
                recorded_for: agent.to_string(),
                element_id: element_id.to_string(),
            });
        }
        if let (Some(recorded), Some(actual)) = (&self.process, process_id)
            && recorded.id != actual
        {
            return Err(RecordingError::WrongProcess {
                file: source.to_string(),
                recorded_for: recorded.id.clone(),
                process_id: actual.to_string(),
                element_id: element_id.to_string(),
            });
        }
        Ok(())
    }
}

fn read_process(value: &Value, problems: &mut Problems) -> Option<RecordedProcess> {
    let Some(object) = value.as_object() else {
        problems.push(
            "process",
            format!(
                "must be an object with id and definitionHash, got {}",
                json_type(value)
            ),
        );
        return None;
    };
    problems.unknown_fields("process", object, &["id", "definitionHash"]);
    let id = match object.get("id") {
        Some(Value::String(id)) if !id.trim().is_empty() => Some(id.clone()),
        Some(other) => {
            problems.push(
                "process.id",
                format!("must be the BPMN process id, got {}", json_type(other)),
            );
            None
        }
        None => {
            problems.push("process.id", "is missing");
            None
        }
    };
    let definition_hash = match object.get("definitionHash") {
        None => None,
        Some(Value::String(hash)) if is_sha256(hash) => Some(hash.clone()),
        Some(other) => {
            problems.push(
                "process.definitionHash",
                format!(
                    "must be \"sha256:\" and 64 hex digits, got {}",
                    json_type(other)
                ),
            );
            None
        }
    };
    Some(RecordedProcess {
        id: id?,
        definition_hash,
    })
}

fn is_sha256(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn read_call(value: &Value, index: usize, problems: &mut Problems) -> Option<RecordedCall> {
    let path = format!("calls[{index}]");
    let Some(object) = value.as_object() else {
        problems.push(
            &path,
            format!(
                "must be an object with call, request, requestHash, turn and trajectory, got {}",
                json_type(value)
            ),
        );
        return None;
    };
    problems.unknown_fields(
        &path,
        object,
        &["call", "request", "requestHash", "turn", "trajectory"],
    );
    match object.get("call") {
        None => {}
        Some(n) if n.as_u64() == Some(index as u64 + 1) => {}
        Some(n) => problems.push(
            &format!("{path}.call"),
            format!(
                "is {n}, but this is entry {}: calls are numbered 1, 2, 3, … in order",
                index + 1
            ),
        ),
    }
    let request = object
        .get("request")
        .map(|r| RecordedRequest::from_json_into(r, &format!("{path}.request"), problems));
    match (object.get("requestHash"), &request) {
        (None, _) => {}
        (Some(hash), Some(request)) => {
            let expected = request.hash();
            if hash.as_str() != Some(expected) {
                problems.push(
                    &format!("{path}.requestHash"),
                    format!(
                        "is not the hash of {path}.request ({expected}): the request was changed by hand; remove requestHash to keep the change, or re-record"
                    ),
                );
            }
        }
        (Some(_), None) => problems.push(
            &format!("{path}.requestHash"),
            format!("belongs to a request, and {path} has none"),
        ),
    }
    let turn = match object.get("turn") {
        Some(turn) => Turn::from_json_into(turn, &format!("{path}.turn"), problems),
        None => {
            problems.push(&format!("{path}.turn"), "is missing");
            None
        }
    };
    let trajectory = match object.get("trajectory") {
        Some(events) => trace::events_from_json(events, &format!("{path}.trajectory"), problems)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    Some(RecordedCall {
        request,
        turn: turn?,
        trajectory,
    })
}

/// serde_json appends ` at line L column C`; the error carries those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hashes_do_not_depend_on_key_order() {
        let a = RecordedRequest::new(
            &json!({"userPrompt": "hi", "tools": [{"name": "x", "inputSchema": {"a": 1, "b": 2}}]}),
        );
        let b = RecordedRequest::new(
            &json!({"tools": [{"inputSchema": {"b": 2, "a": 1}, "name": "x"}], "userPrompt": "hi"}),
        );
        assert_eq!(a.hash(), b.hash());
        assert_eq!(
            a.to_json(),
            b.to_json(),
            "fields are kept in the fixed order"
        );
        assert!(is_sha256(a.hash()));
        assert_eq!(
            sha256(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn only_recorded_fields_are_compared() {
        let recorded = RecordedRequest::new(&json!({"userPrompt": "hi"}));
        let actual = RecordedRequest::new(&json!({"userPrompt": "hi", "messages": []}));
        assert_eq!(recorded.first_difference(&actual), None);
        let missing = RecordedRequest::new(&json!({"messages": []})).first_difference(&recorded);
        assert_eq!(missing.unwrap().path, "request.messages");
    }
}
