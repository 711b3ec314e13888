//! baton's agent instructions: MOCK_AI_AGENT (the model's turns, written or from a cassette)
//! and ASSERT_AI_AGENT.

use serde::Deserialize;
use serde_json::Value;

use super::{FormatError, ProcessSelector, error};
use baton_testing::agent::recording::{CassetteMode, MatchMode};

/// Where MOCK_AI_AGENT takes the model's turns from.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentTurns {
    /// Turns in the cassette format, written in the test file.
    Turns(Vec<Value>),
    /// A cassette file, relative to the test file, and how it is played.
    Cassette(CassetteUse),
}

/// MOCK_AI_AGENT's `cassette` with `mode`, `match` and the matching rules.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CassetteUse {
    /// The file, relative to the test file.
    pub path: String,
    /// `replay` (the default), `record` or `auto`.
    pub mode: Option<CassetteMode>,
    /// `in-order` (the default), `by-request` or `turns-only`.
    pub matching: Option<MatchMode>,
    /// JSON pointers into the request left out of the comparison (`*` for every key or index).
    pub ignore: Vec<String>,
    /// Regex replacements in the request's strings before comparing.
    pub replace: Vec<Replacement>,
    /// Regexes whose matches are written and compared as `[REDACTED]`.
    pub redact: Vec<String>,
}

/// One of `replace`: `{"pattern": "user-\\d+", "with": "user-N"}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    pub pattern: String,
    pub with: String,
}

/// MOCK_AI_AGENT (baton): the AI Agent Sub-process `elementId` is played by the agent mock.
#[derive(Debug, Clone, PartialEq)]
pub struct MockAiAgent {
    pub element_id: String,
    pub turns: AgentTurns,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MockAiAgentJson {
    pub(super) element_id: String,
    turns: Option<Vec<Value>>,
    cassette: Option<String>,
    mode: Option<String>,
    #[serde(rename = "match")]
    matching: Option<String>,
    ignore: Option<Vec<String>>,
    replace: Option<Vec<Replacement>>,
    redact: Option<Vec<String>>,
}

impl MockAiAgentJson {
    /// The cassette's settings; they need a cassette.
    pub(super) fn turns(self, path: &str) -> Result<AgentTurns, FormatError> {
        let settings = [
            ("mode", self.mode.is_some()),
            ("match", self.matching.is_some()),
            ("ignore", self.ignore.is_some()),
            ("replace", self.replace.is_some()),
            ("redact", self.redact.is_some()),
        ];
        match (self.turns, self.cassette) {
            (Some(turns), None) => {
                if let Some((name, _)) = settings.iter().find(|(_, set)| *set) {
                    return Err(error(
                        format!("{path}.{name}"),
                        format!(
                            "`{name}` is a setting of a cassette: it needs `cassette`, not `turns`"
                        ),
                    ));
                }
                Ok(AgentTurns::Turns(turns))
            }
            (None, Some(cassette)) => {
                let mode = match &self.mode {
                    None => None,
                    Some(text) => Some(CassetteMode::parse(text).ok_or_else(|| {
                        error(
                            format!("{path}.mode"),
                            format!("unknown mode \"{text}\": expected \"replay\", \"record\" or \"auto\""),
                        )
                    })?),
                };
                let matching = match &self.matching {
                    None => None,
                    Some(text) => Some(MatchMode::parse(text).ok_or_else(|| {
                        error(
                            format!("{path}.match"),
                            format!("unknown match \"{text}\": expected \"in-order\", \"by-request\" or \"turns-only\""),
                        )
                    })?),
                };
                Ok(AgentTurns::Cassette(CassetteUse {
                    path: cassette,
                    mode,
                    matching,
                    ignore: self.ignore.unwrap_or_default(),
                    replace: self.replace.unwrap_or_default(),
                    redact: self.redact.unwrap_or_default(),
                }))
            }
            _ => Err(error(
                path,
                "MOCK_AI_AGENT needs exactly one of `turns` (the model's turns) and `cassette` (a cassette file, relative to the test file)",
            )),
        }
    }
}

/// ASSERT_AI_AGENT (baton): what the agent mock of `elementId` saw and did.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertAiAgent {
    pub element_id: String,
    /// The whole sequence of tool calls: a tool id, or `{name, arguments}`.
    pub called_tools: Option<Vec<Value>>,
    pub model_calls: Option<usize>,
    pub remaining_turns: Option<usize>,
    /// The status of the agent instance now (`TOOL_CALLING`, `IDLE`, ...).
    pub status: Option<baton_testing::agent::AgentStatus>,
    /// The agent instance's metrics; each field is checked when present.
    pub metrics: Option<baton_testing::agent::ExpectedMetrics>,
    /// The roles of the agent instance's committed history, in order.
    pub history_roles: Option<Vec<baton_testing::agent::HistoryRole>>,
    /// Only the agent instances in the (first) instance of this process.
    pub process_instance_selector: Option<ProcessSelector>,
    /// The agent instance with this number (1 for the first created) among those selected,
    /// instead of the latest.
    pub agent_instance_number: Option<usize>,
}
