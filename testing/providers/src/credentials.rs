//! Base URLs and credentials per provider. An environment variable the provider's SDK reads
//! wins over the element's endpoint (so a proxy or a fake server can stand in without editing
//! the BPMN); keys come from the element (its `{{secrets.NAME}}` read from the environment) or
//! the SDK's variables.

use serde_json::Value;

use crate::env::{Environment, first_of};
use crate::select::{
    Auth, ConfigError, ElementSettings, ProviderKind, Target, credential, credential_hint,
};

/// Azure OpenAI's REST API version when `OPENAI_API_VERSION` does not name one.
pub const AZURE_API_VERSION: &str = "2024-10-21";

/// Fills in where `target` goes and how it authenticates.
pub(crate) fn connect(
    target: &mut Target,
    element: &ElementSettings<'_>,
    env: &dyn Environment,
) -> Result<(), ConfigError> {
    let provider = target.provider;
    let missing = |what: &'static str, hint: String| ConfigError::MissingCredential {
        provider,
        what,
        hint,
    };
    let element_key = element.text(&["authentication", "apiKey"]);
    let key_path = format!("provider.{}.authentication.apiKey", section(provider));
    let api_key = |vars: &[&str]| {
        credential(env, element_key.clone(), vars).ok_or_else(|| {
            missing(
                "an API key",
                credential_hint(element_key.as_deref(), &key_path, vars),
            )
        })
    };
    let endpoint = |vars: &[&str]| {
        first_of(env, vars)
            .map(|(_, v)| v)
            .or_else(|| element.text(&["endpoint"]))
    };
    match provider {
        ProviderKind::Anthropic => {
            target.base_url = match first_of(env, &["ANTHROPIC_BASE_URL"]) {
                // The SDK's base URL has no version; LangChain4j's (the element's) ends in /v1/.
                Some((_, base)) => format!("{}/v1", base.trim_end_matches('/')),
                None => element
                    .text(&["endpoint"])
                    .unwrap_or_else(|| "https://api.anthropic.com/v1".to_string()),
            };
            target.auth = Auth::Header("x-api-key", api_key(&["ANTHROPIC_API_KEY"])?);
        }
        ProviderKind::OpenAi => {
            target.base_url = first_of(env, &["OPENAI_BASE_URL"])
                .map(|(_, v)| v)
                .unwrap_or_else(|| "https://api.openai.com/v1".to_string());
            target.auth = Auth::Bearer(api_key(&["OPENAI_API_KEY"])?);
            for (header, path, var) in [
                ("OpenAI-Organization", "organizationId", "OPENAI_ORG_ID"),
                ("OpenAI-Project", "projectId", "OPENAI_PROJECT_ID"),
            ] {
                if let Some(v) = credential(env, element.text(&["authentication", path]), &[var]) {
                    target.headers.push((header.to_string(), v));
                }
            }
        }
        ProviderKind::OpenAiCompatible => {
            target.base_url = endpoint(&["OPENAI_BASE_URL"]).ok_or_else(|| {
                missing(
                    "an endpoint",
                    "set OPENAI_BASE_URL (for example http://localhost:11434/v1 for Ollama) or the element's provider.openaiCompatible.endpoint".to_string(),
                )
            })?;
            read_map(target, element, "headers", env)?;
            read_map(target, element, "queryParameters", env)?;
            let has_authorization = target
                .headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("authorization"));
            // The key is optional, and ignored when a header authorises already.
            target.auth = match credential(env, element_key.clone(), &["OPENAI_API_KEY"]) {
                Some(key) if !has_authorization => Auth::Bearer(key),
                _ => Auth::None,
            };
        }
        ProviderKind::AzureOpenAi => {
            target.base_url = endpoint(&["AZURE_OPENAI_ENDPOINT"]).ok_or_else(|| {
                missing(
                    "an endpoint",
                    "set AZURE_OPENAI_ENDPOINT or the element's provider.azureOpenAi.endpoint"
                        .to_string(),
                )
            })?;
            let version = first_of(env, &["OPENAI_API_VERSION"])
                .map(|(_, v)| v)
                .unwrap_or_else(|| AZURE_API_VERSION.to_string());
            target.query.push(("api-version".to_string(), version));
            let entra =
                element.text(&["authentication", "type"]).as_deref() == Some("clientCredentials");
            target.auth = match first_of(env, &["AZURE_OPENAI_AD_TOKEN"]) {
                Some((_, token)) => Auth::Bearer(token),
                None if entra => {
                    return Err(missing(
                        "a Microsoft Entra token",
                        "the element authenticates with client credentials; set AZURE_OPENAI_AD_TOKEN (for example `az account get-access-token --resource https://cognitiveservices.azure.com --query accessToken -o tsv`) or AZURE_OPENAI_API_KEY".to_string(),
                    ));
                }
                None => Auth::Header("api-key", api_key(&["AZURE_OPENAI_API_KEY"])?),
            };
        }
        ProviderKind::VertexAi => {
            let project = credential(env, element.text(&["projectId"]), &["GOOGLE_CLOUD_PROJECT"])
                .ok_or_else(|| missing("a project", "set GOOGLE_CLOUD_PROJECT or the element's provider.googleVertexAi.projectId".to_string()))?;
            let region = credential(
                env,
                element.text(&["region"]),
                &["GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_REGION"],
            )
            .ok_or_else(|| {
                missing(
                    "a region",
                    "set GOOGLE_CLOUD_LOCATION or the element's provider.googleVertexAi.region"
                        .to_string(),
                )
            })?;
            target.base_url = match first_of(env, &["GOOGLE_VERTEX_BASE_URL"]) {
                Some((_, base)) => base,
                None if region == "global" => "https://aiplatform.googleapis.com".to_string(),
                None => format!("https://{region}-aiplatform.googleapis.com"),
            };
            let token = first_of(env, &["GOOGLE_OAUTH_ACCESS_TOKEN"]).ok_or_else(|| {
                missing(
                    "an OAuth access token",
                    "set GOOGLE_OAUTH_ACCESS_TOKEN (for example `gcloud auth print-access-token`); service-account keys and application default credentials are not read".to_string(),
                )
            })?;
            target.auth = Auth::Bearer(token.1);
            target.project = Some(project);
            target.region = Some(region);
        }
        ProviderKind::Gemini => {
            target.base_url = first_of(env, &["GOOGLE_GEMINI_BASE_URL"])
                .map(|(_, v)| v)
                .unwrap_or_else(|| "https://generativelanguage.googleapis.com".to_string());
            let key = first_of(env, &["GEMINI_API_KEY", "GOOGLE_API_KEY"]).ok_or_else(|| {
                missing(
                    "an API key",
                    "set GEMINI_API_KEY or GOOGLE_API_KEY".to_string(),
                )
            })?;
            target.auth = Auth::Header("x-goog-api-key", key.1);
        }
        ProviderKind::Bedrock => bedrock(target, element, env)?,
    }
    target.base_url = target.base_url.trim_end_matches('/').to_string();
    if !(target.base_url.starts_with("https://") || target.base_url.starts_with("http://")) {
        return Err(ConfigError::BadSetting {
            provider,
            setting: "the base URL".to_string(),
            value: target.base_url.clone(),
            reason: "must start with http:// or https://".to_string(),
        });
    }
    Ok(())
}

fn section(provider: ProviderKind) -> &'static str {
    match provider {
        ProviderKind::Anthropic => "anthropic",
        ProviderKind::Bedrock => "bedrock",
        ProviderKind::AzureOpenAi => "azureOpenAi",
        ProviderKind::VertexAi | ProviderKind::Gemini => "googleVertexAi",
        ProviderKind::OpenAi => "openai",
        ProviderKind::OpenAiCompatible => "openaiCompatible",
    }
}

/// An OpenAI-compatible endpoint's `headers` or `queryParameters`: a map of strings (secret
/// placeholders read from the environment).
fn read_map(
    target: &mut Target,
    element: &ElementSettings<'_>,
    key: &str,
    env: &dyn Environment,
) -> Result<(), ConfigError> {
    let Some(value) = element.at(&[key]) else {
        return Ok(());
    };
    let Value::Object(map) = value else {
        return Err(ConfigError::BadSetting {
            provider: target.provider,
            setting: format!("provider.openaiCompatible.{key}"),
            value: value.to_string(),
            reason: "must be a map of names to strings".to_string(),
        });
    };
    for (name, v) in map {
        let text = match v {
            Value::String(s) => credential(env, Some(s.clone()), &[]).unwrap_or_default(),
            other => other.to_string(),
        };
        let list = if key == "headers" {
            &mut target.headers
        } else {
            &mut target.query
        };
        list.push((name.clone(), text));
    }
    Ok(())
}

/// Bedrock: a region, an endpoint, and SigV4 credentials or a Bedrock API key, as the element's
/// `authentication.type` says (`credentials`, `apiKey`, `defaultCredentialsChain`; the
/// environment part of the AWS chain when the element names none).
fn bedrock(
    target: &mut Target,
    element: &ElementSettings<'_>,
    env: &dyn Environment,
) -> Result<(), ConfigError> {
    let provider = target.provider;
    let missing = |what: &'static str, hint: String| ConfigError::MissingCredential {
        provider,
        what,
        hint,
    };
    let region = credential(
        env,
        element.text(&["region"]),
        &["AWS_REGION", "AWS_DEFAULT_REGION"],
    )
    .ok_or_else(|| {
        missing(
            "a region",
            "set AWS_REGION or the element's provider.bedrock.region".to_string(),
        )
    })?;
    target.base_url = first_of(
        env,
        &["AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL"],
    )
    .map(|(_, v)| v)
    .or_else(|| element.text(&["endpoint"]))
    .unwrap_or_else(|| format!("https://bedrock-runtime.{region}.amazonaws.com"));
    target.region = Some(region);
    let kind = element.text(&["authentication", "type"]);
    let api_key = || {
        let element_key = element.text(&["authentication", "apiKey"]);
        credential(env, element_key.clone(), &["AWS_BEARER_TOKEN_BEDROCK"]).ok_or_else(|| {
            missing(
                "a Bedrock API key",
                credential_hint(
                    element_key.as_deref(),
                    "provider.bedrock.authentication.apiKey",
                    &["AWS_BEARER_TOKEN_BEDROCK"],
                ),
            )
        })
    };
    // The secrets the element names for its keys, for the error.
    let element_secrets = || {
        let names: Vec<String> = ["accessKey", "secretKey"]
            .iter()
            .filter_map(|f| element.text(&["authentication", f]))
            .filter_map(|v| crate::select::secret_name(&v).map(str::to_string))
            .collect();
        if names.is_empty() {
            String::new()
        } else {
            format!("set {} (the element's secrets), or ", names.join(" and "))
        }
    };
    let keys = |from_element: bool| {
        let field = |f: &str| {
            from_element
                .then(|| element.text(&["authentication", f]))
                .flatten()
        };
        let access = credential(env, field("accessKey"), &["AWS_ACCESS_KEY_ID"]);
        let secret = credential(env, field("secretKey"), &["AWS_SECRET_ACCESS_KEY"]);
        match (access, secret) {
            (Some(access_key), Some(secret_key)) => Ok(Auth::SigV4 {
                access_key,
                secret_key,
                session_token: env.var("AWS_SESSION_TOKEN"),
            }),
            _ => Err(missing(
                "AWS credentials",
                format!(
                    "{}set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials), the element's provider.bedrock.authentication.accessKey and secretKey, or AWS_BEARER_TOKEN_BEDROCK for a Bedrock API key; profiles and instance roles are not read",
                    element_secrets()
                ),
            )),
        }
    };
    target.auth = match kind.as_deref() {
        Some("apiKey") => Auth::Bearer(api_key()?),
        Some("credentials") => keys(true)?,
        _ => match env.var("AWS_BEARER_TOKEN_BEDROCK") {
            Some(token) => Auth::Bearer(token),
            None => keys(false)?,
        },
    };
    Ok(())
}
