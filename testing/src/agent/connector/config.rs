//! The connector's input binding: `provider` and `data` read and validated as the connector
//! runtime does (a violation fails the job without retries).

use baton_engine::runtime::SharedJson;
use serde_json::Value;

use super::job::Kind;
use super::messages::{at, system_message};

/// The response format of the final answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    Text {
        parse_json: bool,
    },
    Json {
        /// Shared: every request of a job carries it.
        schema: Option<SharedJson>,
        schema_name: Option<String>,
    },
}

/// The connector's configuration, bound from `provider` and `data`.
#[derive(Debug, Clone)]
pub(super) struct Config {
    pub(super) system_prompt: Option<String>,
    /// The system message of a non-blank system prompt, shared by every conversation.
    pub(super) system_message: Option<SharedJson>,
    pub(super) user_prompt: Option<String>,
    pub(super) user_documents: Vec<Value>,
    pub(super) max_model_calls: u64,
    pub(super) context_window_size: usize,
    pub(super) interrupt_on_events: bool,
    pub(super) format: ResponseFormat,
    pub(super) include_assistant_message: bool,
    pub(super) include_agent_context: bool,
}

/// Reads `provider` and `data` (the connector's input binding). The Task flavour's `data` has
/// no event handling and no `includeAgentContext` (`AgentTaskRequestData`,
/// `AgentTaskResponseConfiguration`).
pub(super) fn read_config(
    provider: Option<&Value>,
    data: Option<&Value>,
    kind: Kind,
) -> Result<Config, Vec<String>> {
    let mut violations = Vec::new();
    if provider.is_none_or(Value::is_null) {
        violations.push("provider: must not be null".to_string());
    }
    // The v2 connectors' only provider (`CustomProviderConfiguration`): a provider type and a
    // model, both @NotBlank.
    if let Some(custom) =
        provider.filter(|p| p.get("type").and_then(Value::as_str) == Some("custom"))
    {
        for field in ["providerType", "model"] {
            if custom
                .get(field)
                .and_then(Value::as_str)
                .is_none_or(|v| v.trim().is_empty())
            {
                violations.push(format!("provider.{field}: must not be blank"));
            }
        }
    }
    let Some(data) = data.filter(|d| d.is_object()) else {
        violations.push("data: must not be null".to_string());
        return Err(violations);
    };
    let data_at = |path: &[&str]| at(data, path);
    let text = |path: &[&str]| data_at(path).and_then(Value::as_str).map(str::to_string);
    let user_prompt = text(&["userPrompt", "prompt"]);
    if user_prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
        violations.push("data.userPrompt.prompt: must not be blank".to_string());
    }
    let max_model_calls = match data_at(&["limits", "maxModelCalls"]) {
        None | Some(Value::Null) => 10,
        Some(value) => match value.as_i64() {
            Some(n) if n >= 1 => n as u64,
            _ => {
                violations.push(
                    "data.limits.maxModelCalls: must be greater than or equal to 1".to_string(),
                );
                10
            }
        },
    };
    let events = data
        .get("events")
        .filter(|e| !e.is_null() && kind == Kind::SubProcess);
    let interrupt_on_events = match events {
        None => false,
        Some(events) => match events.get("behavior").and_then(Value::as_str) {
            Some("INTERRUPT_TOOL_CALLS") => true,
            Some(_) => false,
            None => {
                violations.push("data.events.behavior: must not be null".to_string());
                false
            }
        },
    };
    let context_window_size = data_at(&["memory", "contextWindowSize"])
        .and_then(Value::as_u64)
        .unwrap_or(20) as usize;
    let format = match text(&["response", "format", "type"]).as_deref() {
        Some("json") => ResponseFormat::Json {
            schema: data_at(&["response", "format", "schema"])
                .filter(|s| !s.is_null())
                .map(|s| SharedJson::new(s.clone())),
            schema_name: text(&["response", "format", "schemaName"]),
        },
        _ => ResponseFormat::Text {
            parse_json: data_at(&["response", "format", "parseJson"])
                .and_then(Value::as_bool)
                .unwrap_or(false),
        },
    };
    let flag = |path: &[&str]| data_at(path).and_then(Value::as_bool).unwrap_or(false);
    if !violations.is_empty() {
        return Err(violations);
    }
    let system_prompt = text(&["systemPrompt", "prompt"]);
    Ok(Config {
        system_message: system_prompt.as_deref().and_then(system_message),
        system_prompt,
        user_prompt,
        user_documents: data_at(&["userPrompt", "documents"])
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        max_model_calls,
        context_window_size,
        interrupt_on_events,
        format,
        include_assistant_message: flag(&["response", "includeAssistantMessage"]),
        include_agent_context: kind == Kind::SubProcess
            && flag(&["response", "includeAgentContext"]),
    })
}
