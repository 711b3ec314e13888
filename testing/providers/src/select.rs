//! Which provider and model a call goes to, and with what credentials: the agent element's
//! provider inputs (the job's `provider` variable, named as the connector's element template
//! names them), overridden by `PROVIDER:MODEL`, with keys and base URLs from the environment
//! variables each provider's SDK reads. Every problem is found here, before any call.

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::env::{Environment, first_of};

/// The connector's timeout of a model call when the element sets none (`defaultTimeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(180);

/// A provider, as the connector's `provider.type` names it (Gemini's own API besides Vertex).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    Anthropic,
    Bedrock,
    AzureOpenAi,
    VertexAi,
    /// Google's Gemini API (`generativelanguage.googleapis.com`): Vertex's wire format with an
    /// API key, for users without a Google Cloud project. Not a connector provider.
    Gemini,
    OpenAi,
    OpenAiCompatible,
}

/// The names `PROVIDER:MODEL` accepts, with the kind each names (template ids and their
/// kebab-case spellings).
const NAMES: [(&str, ProviderKind); 11] = [
    ("anthropic", ProviderKind::Anthropic),
    ("bedrock", ProviderKind::Bedrock),
    ("azureOpenAi", ProviderKind::AzureOpenAi),
    ("azure-openai", ProviderKind::AzureOpenAi),
    ("google-vertex-ai", ProviderKind::VertexAi),
    ("vertex-ai", ProviderKind::VertexAi),
    ("gemini", ProviderKind::Gemini),
    ("openai", ProviderKind::OpenAi),
    ("openaiCompatible", ProviderKind::OpenAiCompatible),
    ("openai-compatible", ProviderKind::OpenAiCompatible),
    ("ollama", ProviderKind::OpenAiCompatible),
];

impl ProviderKind {
    /// The kind a `provider.type` value or a `PROVIDER:` prefix names.
    pub fn parse(name: &str) -> Option<ProviderKind> {
        NAMES.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    }

    /// The name `PROVIDER:MODEL` prints.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Bedrock => "bedrock",
            ProviderKind::AzureOpenAi => "azure-openai",
            ProviderKind::VertexAi => "google-vertex-ai",
            ProviderKind::Gemini => "gemini",
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenAiCompatible => "openai-compatible",
        }
    }

    /// The key of this provider's settings under `provider` (`provider.anthropic.…`).
    fn section(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Bedrock => "bedrock",
            ProviderKind::AzureOpenAi => "azureOpenAi",
            ProviderKind::VertexAi | ProviderKind::Gemini => "googleVertexAi",
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenAiCompatible => "openaiCompatible",
        }
    }

    /// The `provider.type` of the template that selects this provider.
    fn template_type(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Bedrock => "bedrock",
            ProviderKind::AzureOpenAi => "azureOpenAi",
            ProviderKind::VertexAi | ProviderKind::Gemini => "google-vertex-ai",
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenAiCompatible => "openaiCompatible",
        }
    }

    /// The model setting's path under the section (Azure names a deployment).
    fn model_key(self) -> &'static str {
        match self {
            ProviderKind::AzureOpenAi => "deploymentName",
            _ => "model",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `PROVIDER:MODEL`: another provider or model than the element names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    pub provider: ProviderKind,
    pub model: String,
}

impl std::str::FromStr for ModelChoice {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<ModelChoice, ConfigError> {
        let Some((provider, model)) = text.split_once(':') else {
            return Err(ConfigError::BadChoice {
                text: text.to_string(),
            });
        };
        let kind = ProviderKind::parse(provider).ok_or_else(|| ConfigError::UnknownProvider {
            name: provider.to_string(),
            from: "--model",
        })?;
        check_model(kind, model)?;
        Ok(ModelChoice {
            provider: kind,
            model: model.to_string(),
        })
    }
}

/// How a request proves who sends it.
#[derive(Clone, PartialEq)]
pub enum Auth {
    None,
    /// `Authorization: Bearer …`.
    Bearer(String),
    /// A header of the provider's own (`x-api-key`, `api-key`, `x-goog-api-key`).
    Header(&'static str, String),
    /// AWS Signature Version 4 with these credentials.
    SigV4 {
        access_key: String,
        secret_key: String,
        session_token: Option<String>,
    },
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secret itself.
        match self {
            Auth::None => f.write_str("None"),
            Auth::Bearer(_) => f.write_str("Bearer([REDACTED])"),
            Auth::Header(name, _) => write!(f, "Header({name}, [REDACTED])"),
            Auth::SigV4 { .. } => f.write_str("SigV4([REDACTED])"),
        }
    }
}

/// The model parameters the element sets (`provider.<type>.model.parameters`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parameters {
    /// `maxTokens`, `maxCompletionTokens` or `maxOutputTokens`, as the provider names it.
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub top_k: Option<u64>,
    /// `openaiCompatible.model.parameters.customParameters`: extra body fields.
    pub custom: Map<String, Value>,
}

/// Everything a call needs: where it goes, as whom, with which settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub provider: ProviderKind,
    /// The model id (Azure: the deployment name).
    pub model: String,
    /// The base URL, without a trailing `/`.
    pub base_url: String,
    pub auth: Auth,
    pub parameters: Parameters,
    /// Extra headers (`OpenAI-Organization`, `OpenAI-Project`, an OpenAI-compatible
    /// endpoint's `headers`).
    pub headers: Vec<(String, String)>,
    /// Extra query parameters (an OpenAI-compatible endpoint's `queryParameters`; Azure's
    /// `api-version`).
    pub query: Vec<(String, String)>,
    /// Bedrock's and Vertex's region.
    pub region: Option<String>,
    /// Vertex's project.
    pub project: Option<String>,
    pub timeout: Duration,
}

impl Target {
    /// The values that must never reach a file or the output: keys, tokens, secret headers.
    pub fn secrets(&self) -> Vec<String> {
        let mut secrets = match &self.auth {
            Auth::None => Vec::new(),
            Auth::Bearer(token) | Auth::Header(_, token) => vec![token.clone()],
            Auth::SigV4 {
                access_key,
                secret_key,
                session_token,
            } => {
                let mut s = vec![access_key.clone(), secret_key.clone()];
                s.extend(session_token.clone());
                s
            }
        };
        for (name, value) in &self.headers {
            if crate::http::is_secret_header(name) {
                secrets.push(value.clone());
            }
        }
        secrets.retain(|s| s.len() >= 4);
        secrets
    }

    /// `provider:model`, as `--model` takes it.
    pub fn label(&self) -> String {
        format!("{}:{}", self.provider, self.model)
    }
}

/// Why no call can be made. Nothing has been sent when one of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "--model must be PROVIDER:MODEL (for example anthropic:claude-sonnet-4-5 or openai-compatible:llama3.1), got {text:?}"
    )]
    BadChoice { text: String },
    #[error(
        "unknown model provider {name:?} (from {from}); known: {}",
        known_names()
    )]
    UnknownProvider { name: String, from: &'static str },
    #[error(
        "the agent element names no model provider (its `provider.type` input is missing); set it in the element or pass --model PROVIDER:MODEL"
    )]
    NoProvider,
    #[error(
        "the agent element uses the connector's `custom` provider ({provider_type:?}, model {model:?}), a model factory of the connector runtime that baton cannot call; pass --model PROVIDER:MODEL"
    )]
    CustomProvider {
        provider_type: String,
        model: String,
    },
    #[error(
        "no model for {provider}: the element's `provider.{section}.model.{key}` is not set; set it or pass --model {provider}:MODEL"
    )]
    NoModel {
        provider: ProviderKind,
        section: &'static str,
        key: &'static str,
    },
    #[error("{provider} does not allow the model {model:?}: {reason}")]
    DisallowedModel {
        provider: ProviderKind,
        model: String,
        reason: &'static str,
    },
    #[error("{provider} needs {what}: {hint}")]
    MissingCredential {
        provider: ProviderKind,
        what: &'static str,
        hint: String,
    },
    #[error("{provider}: {setting} is {value:?}: {reason}")]
    BadSetting {
        provider: ProviderKind,
        setting: String,
        value: String,
        reason: String,
    },
}

fn known_names() -> String {
    NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// The model id must fit where the provider puts it: in the URL path for Azure, Bedrock,
/// Vertex and Gemini (Bedrock's is URL-encoded, so ARNs pass), in the body for the others.
fn check_model(provider: ProviderKind, model: &str) -> Result<(), ConfigError> {
    let disallowed = |reason| {
        Err(ConfigError::DisallowedModel {
            provider,
            model: model.to_string(),
            reason,
        })
    };
    if model.trim().is_empty() {
        return disallowed("the model id is empty");
    }
    if model.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return disallowed("a model id has no spaces or control characters");
    }
    let in_path = matches!(
        provider,
        ProviderKind::AzureOpenAi | ProviderKind::VertexAi | ProviderKind::Gemini
    );
    if in_path && model.contains(['/', '?', '#', '%']) || model.contains("..") {
        return disallowed("it would change the request's URL path");
    }
    Ok(())
}

/// The element's settings of the selected provider (`provider.<section>`).
pub(crate) struct ElementSettings<'a> {
    pub(crate) section: Option<&'a Value>,
}

impl ElementSettings<'_> {
    pub(crate) fn at(&self, path: &[&str]) -> Option<&Value> {
        path.iter()
            .try_fold(self.section?, |v, k| v.get(k))
            .filter(|v| !v.is_null())
    }

    pub(crate) fn text(&self, path: &[&str]) -> Option<String> {
        match self.at(path)? {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
}

/// Selects the provider, model and credentials for an agent element's `provider` inputs.
pub fn select(
    inputs: Option<&Value>,
    choice: Option<&ModelChoice>,
    env: &dyn Environment,
) -> Result<Target, ConfigError> {
    let element_type = inputs
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty());
    let provider = match (choice, element_type) {
        (Some(choice), _) => choice.provider,
        (None, None) => return Err(ConfigError::NoProvider),
        (None, Some("custom")) => {
            let field = |f: &str| {
                inputs
                    .and_then(|p| p.get(f))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            return Err(ConfigError::CustomProvider {
                provider_type: field("providerType"),
                model: field("model"),
            });
        }
        (None, Some(name)) => {
            ProviderKind::parse(name).ok_or_else(|| ConfigError::UnknownProvider {
                name: name.to_string(),
                from: "the element's provider.type",
            })?
        }
    };
    // The element's settings count only for the provider it names.
    let same = element_type.is_some_and(|t| t == provider.template_type());
    let section = inputs
        .filter(|_| same)
        .and_then(|p| p.get(provider.section()));
    let inputs = ElementSettings { section };
    let model = match choice {
        Some(choice) => choice.model.clone(),
        None => inputs
            .text(&["model", provider.model_key()])
            .ok_or(ConfigError::NoModel {
                provider,
                section: provider.section(),
                key: provider.model_key(),
            })?,
    };
    check_model(provider, &model)?;
    let parameters = parameters(provider, &inputs)?;
    let timeout = timeout(provider, &inputs)?;
    let mut target = Target {
        provider,
        model,
        base_url: String::new(),
        auth: Auth::None,
        parameters,
        headers: Vec::new(),
        query: Vec::new(),
        region: None,
        project: None,
        timeout,
    };
    crate::credentials::connect(&mut target, &inputs, env)?;
    Ok(target)
}

fn parameters(
    provider: ProviderKind,
    inputs: &ElementSettings<'_>,
) -> Result<Parameters, ConfigError> {
    let max_key = match provider {
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => "maxCompletionTokens",
        ProviderKind::VertexAi | ProviderKind::Gemini => "maxOutputTokens",
        _ => "maxTokens",
    };
    let bad = |key: &str, value: &str| ConfigError::BadSetting {
        provider,
        setting: format!("provider.{}.model.parameters.{key}", provider.section()),
        value: value.to_string(),
        reason: "must be a number".to_string(),
    };
    let number = |key: &str| -> Result<Option<f64>, ConfigError> {
        match inputs.at(&["model", "parameters", key]) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| bad(key, s)),
            Some(other) => Err(bad(key, &other.to_string())),
        }
    };
    let whole = |key: &str| -> Result<Option<u64>, ConfigError> {
        match number(key)? {
            None => Ok(None),
            Some(n) if n >= 1.0 && n.fract() == 0.0 && n < 1e12 => Ok(Some(n as u64)),
            Some(n) => Err(ConfigError::BadSetting {
                provider,
                setting: format!("provider.{}.model.parameters.{key}", provider.section()),
                value: n.to_string(),
                reason: "must be a whole number of tokens, 1 or more".to_string(),
            }),
        }
    };
    let custom = match inputs.at(&["model", "parameters", "customParameters"]) {
        Some(Value::Object(map)) if provider == ProviderKind::OpenAiCompatible => map.clone(),
        _ => Map::new(),
    };
    let top_k = match provider {
        ProviderKind::Anthropic | ProviderKind::VertexAi | ProviderKind::Gemini => whole("topK")?,
        _ => None,
    };
    Ok(Parameters {
        max_tokens: whole(max_key)?,
        temperature: number("temperature")?,
        top_p: number("topP")?,
        top_k,
        custom,
    })
}

fn timeout(provider: ProviderKind, inputs: &ElementSettings<'_>) -> Result<Duration, ConfigError> {
    let Some(text) = inputs.text(&["timeouts", "timeout"]) else {
        return Ok(DEFAULT_TIMEOUT);
    };
    match baton_testing::clock::parse_duration(&text) {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms as u64)),
        // The connector falls back to its default for a timeout that is not positive.
        Ok(_) => Ok(DEFAULT_TIMEOUT),
        Err(e) => Err(ConfigError::BadSetting {
            provider,
            setting: format!("provider.{}.timeouts.timeout", provider.section()),
            value: text,
            reason: e.to_string(),
        }),
    }
}

/// A credential: the element's value (a `{{secrets.NAME}}` placeholder is read from the
/// environment variable `NAME`, as the connector runtime's environment secret provider does),
/// else the first of the SDK's variables that is set.
pub(crate) fn credential(
    env: &dyn Environment,
    element: Option<String>,
    sdk_vars: &[&str],
) -> Option<String> {
    if let Some(value) = element {
        match secret_name(&value) {
            Some(name) => {
                if let Some(v) = env.var(name) {
                    return Some(v);
                }
            }
            None => return Some(value),
        }
    }
    first_of(env, sdk_vars).map(|(_, v)| v)
}

/// `NAME` of a `{{secrets.NAME}}` placeholder.
pub(crate) fn secret_name(value: &str) -> Option<&str> {
    value
        .trim()
        .strip_prefix("{{secrets.")?
        .strip_suffix("}}")
        .map(str::trim)
}

/// Where a missing credential can come from, for the error.
pub(crate) fn credential_hint(
    element: Option<&str>,
    element_path: &str,
    sdk_vars: &[&str],
) -> String {
    let vars = sdk_vars.join(" or ");
    match element.and_then(secret_name) {
        Some(name) if sdk_vars.contains(&name) => {
            format!("set {vars} (the element's {element_path} is {{{{secrets.{name}}}}})")
        }
        Some(name) => {
            format!("set {name} (the element's {element_path} is {{{{secrets.{name}}}}}) or {vars}")
        }
        None => format!("set {vars}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_placeholders_name_their_variable() {
        assert_eq!(
            secret_name("{{secrets.ANTHROPIC_API_KEY}}"),
            Some("ANTHROPIC_API_KEY")
        );
        assert_eq!(secret_name(" {{secrets. X }} "), Some("X"));
        assert_eq!(secret_name("sk-123"), None);
    }

    #[test]
    fn choices_read_provider_and_model() {
        let choice: ModelChoice = "openai-compatible:meta/llama3.1:8b".parse().unwrap();
        assert_eq!(choice.provider, ProviderKind::OpenAiCompatible);
        assert_eq!(choice.model, "meta/llama3.1:8b");
        let choice: ModelChoice = "azureOpenAi:gpt4o-prod".parse().unwrap();
        assert_eq!(choice.provider, ProviderKind::AzureOpenAi);
    }
}
