//! Cassettes: the model's turns for one agent, saved as JSON for replay.
//!
//! ```json
//! { "version": 1, "agent": "support-agent", "turns": [ { "toolCalls": [ … ] }, { "responseText": "…" } ] }
//! ```
//!
//! Reading validates the whole document and names the path of every problem
//! (`turns[0] has unknown field "tool_calls"`). Writing validates too, and replaces the file
//! atomically (a temporary file in the same folder, then a rename), so a test that fails midway
//! never leaves half a cassette behind.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::problems::{Problems, json_type};
use super::turn::Turn;

/// The cassette format version this crate reads and writes.
pub const CASSETTE_VERSION: u64 = 1;

/// The turns of one agent, in the order the model gave them.
#[derive(Debug, Clone, PartialEq)]
pub struct Cassette {
    /// The agent element (the ad-hoc sub-process id) the turns belong to. A cassette with an
    /// agent refuses to replay for another element.
    pub agent: Option<String>,
    pub turns: Vec<Turn>,
}

/// Why a cassette cannot be read, written or used.
#[derive(Debug)]
pub enum CassetteError {
    /// The file cannot be read or written.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The text is not JSON.
    Syntax {
        source: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON is not a valid cassette: every problem, with its path.
    Invalid { source: String, problems: Problems },
    /// The cassette was recorded for another agent element.
    WrongAgent {
        source: String,
        recorded_for: String,
        element_id: String,
    },
}

impl fmt::Display for CassetteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CassetteError::Io { path, error } => {
                write!(f, "cannot access cassette {}: {error}", path.display())
            }
            CassetteError::Syntax {
                source,
                line,
                column,
                message,
            } => {
                write!(
                    f,
                    "invalid cassette {source}: not JSON at line {line}, column {column}: {message}"
                )
            }
            CassetteError::Invalid { source, problems } => {
                if problems.len() == 1 {
                    write!(f, "invalid cassette {source}: {problems}")
                } else {
                    write!(f, "invalid cassette {source}: {} problems", problems.len())?;
                    for problem in problems.items() {
                        write!(f, "\n  - {problem}")?;
                    }
                    Ok(())
                }
            }
            CassetteError::WrongAgent {
                source,
                recorded_for,
                element_id,
            } => write!(
                f,
                "cassette {source} was recorded for the agent \"{recorded_for}\" and cannot replay \"{element_id}\": use the cassette of \"{element_id}\", or record one"
            ),
        }
    }
}

impl std::error::Error for CassetteError {}

impl Cassette {
    /// A cassette for `agent` with these turns.
    pub fn new(agent: impl Into<String>, turns: Vec<Turn>) -> Self {
        Cassette {
            agent: Some(agent.into()),
            turns,
        }
    }

    /// Reads a cassette from JSON text; `source` names it in errors (a file name).
    pub fn parse(text: &str, source: &str) -> Result<Cassette, CassetteError> {
        let value: Value = serde_json::from_str(text).map_err(|e| CassetteError::Syntax {
            source: source.to_string(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        Cassette::from_json(&value, source)
    }

    /// Reads a cassette from parsed JSON.
    pub fn from_json(value: &Value, source: &str) -> Result<Cassette, CassetteError> {
        let mut problems = Problems::default();
        let cassette = Cassette::from_json_into(value, &mut problems);
        match cassette {
            Some(cassette) if problems.is_empty() => Ok(cassette),
            _ => Err(CassetteError::Invalid {
                source: source.to_string(),
                problems,
            }),
        }
    }

    fn from_json_into(value: &Value, problems: &mut Problems) -> Option<Cassette> {
        let Some(object) = value.as_object() else {
            problems.push(
                "",
                format!(
                    "the cassette must be an object with version, agent and turns, got {}",
                    json_type(value)
                ),
            );
            return None;
        };
        problems.unknown_fields("the cassette", object, &["version", "agent", "turns"]);
        match object.get("version") {
            None => problems.push(
                "version",
                format!("is missing (it must be {CASSETTE_VERSION})"),
            ),
            Some(v) if v.as_u64() == Some(CASSETTE_VERSION) => {}
            Some(v) => problems.push("version", format!("must be {CASSETTE_VERSION}, got {v}")),
        }
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
        let turns = match object.get("turns") {
            None => {
                problems.push("turns", "is missing");
                Vec::new()
            }
            Some(Value::Array(turns)) => turns
                .iter()
                .enumerate()
                .filter_map(|(i, turn)| {
                    Turn::from_json_into(turn, &format!("turns[{i}]"), problems)
                })
                .collect(),
            Some(other) => {
                problems.push(
                    "turns",
                    format!("must be an array of turns, got {}", json_type(other)),
                );
                Vec::new()
            }
        };
        Some(Cassette { agent, turns })
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("version".into(), CASSETTE_VERSION.into());
        if let Some(agent) = &self.agent {
            object.insert("agent".into(), agent.clone().into());
        }
        object.insert(
            "turns".into(),
            Value::Array(self.turns.iter().map(Turn::to_json).collect()),
        );
        Value::Object(object)
    }

    /// The file text: JSON indented by two spaces, with a final newline.
    pub fn to_pretty_string(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Checks every turn, as reading does.
    pub fn validate(&self, source: &str) -> Result<(), CassetteError> {
        Cassette::from_json(&self.to_json(), source).map(|_| ())
    }

    /// Reads and validates a cassette file.
    pub fn read(path: impl AsRef<Path>) -> Result<Cassette, CassetteError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| CassetteError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        Cassette::parse(&text, &path.display().to_string())
    }

    /// Validates and writes a cassette file atomically: a temporary file beside it, then a rename.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), CassetteError> {
        let path = path.as_ref();
        self.validate(&path.display().to_string())?;
        let io = |error| CassetteError::Io {
            path: path.to_path_buf(),
            error,
        };
        let dir = crate::files::folder_of(path);
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "cassette".into());
        let temp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
        let result = (|| {
            let mut file = std::fs::File::create(&temp)?;
            file.write_all(self.to_pretty_string().as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&temp, path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        result.map_err(io)
    }

    /// Refuses a cassette recorded for another agent element.
    pub fn check_agent(&self, element_id: &str, source: &str) -> Result<(), CassetteError> {
        match &self.agent {
            Some(agent) if agent != element_id => Err(CassetteError::WrongAgent {
                source: source.to_string(),
                recorded_for: agent.clone(),
                element_id: element_id.to_string(),
            }),
            _ => Ok(()),
        }
    }
}

/// serde_json appends ` at line L column C`; the error carries those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

impl Serialize for Cassette {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Cassette {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Cassette::from_json(&value, "cassette").map_err(serde::de::Error::custom)
    }
}
