//! What can go wrong on a model call, typed, with the provider's own words and never a secret.

use std::time::Duration;

use crate::conversation::RequestError;
use crate::select::ConfigError;

/// What an HTTP error status means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// 400, 404, 413, 422: the request (or the model id) is wrong.
    BadRequest,
    /// 401, 403: the key or the account.
    Unauthorized,
    /// 429: a rate limit or a quota.
    RateLimited,
    /// 529 or 503: the provider is overloaded.
    Overloaded,
    /// Other 5xx.
    ServerError,
    /// 408: the provider's own timeout.
    ProviderTimeout,
    Other,
}

impl ErrorKind {
    pub fn of_status(status: u16) -> ErrorKind {
        match status {
            401 | 403 => ErrorKind::Unauthorized,
            408 => ErrorKind::ProviderTimeout,
            429 => ErrorKind::RateLimited,
            503 | 529 => ErrorKind::Overloaded,
            500..=599 => ErrorKind::ServerError,
            400..=499 => ErrorKind::BadRequest,
            _ => ErrorKind::Other,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ErrorKind::BadRequest => "the provider refused the request",
            ErrorKind::Unauthorized => "the provider refused the credentials",
            ErrorKind::RateLimited => "rate limited",
            ErrorKind::Overloaded => "the provider is overloaded",
            ErrorKind::ServerError => "the provider failed",
            ErrorKind::ProviderTimeout => "the provider timed out",
            ErrorKind::Other => "unexpected status",
        }
    }
}

/// A model call that gave no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// Before any call: provider, model, credentials.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Before any call: the request cannot be sent as the connector sends it.
    #[error("cannot build the request to {model}: {error}")]
    Request { model: String, error: RequestError },
    /// The provider answered with an error status.
    #[error(
        "{model}: {} (HTTP {status}{}){}: {message}",
        kind.describe(),
        code.as_deref().map(|c| format!(", {c}")).unwrap_or_default(),
        retry_after.as_deref().map(|r| format!(", retry after {r}")).unwrap_or_default()
    )]
    Status {
        model: String,
        status: u16,
        kind: ErrorKind,
        /// The provider's error type or code (`rate_limit_error`, `ThrottlingException`, …).
        code: Option<String>,
        message: String,
        retry_after: Option<String>,
    },
    #[error("{model}: no answer within {} s (the model call timed out)", after.as_secs_f64())]
    Timeout { model: String, after: Duration },
    #[error("{model}: cannot reach {url}: {message}")]
    Network {
        model: String,
        url: String,
        message: String,
    },
    /// A 2xx whose body is not the wire format's answer.
    #[error("{model}: the answer does not read as the provider's format: {message}")]
    BadResponse { model: String, message: String },
}

impl ProviderError {
    /// Rate limits, overload, 5xx, timeouts and network failures: the run could not ask, which
    /// says nothing about the process under test (live runs count these apart).
    pub fn is_infrastructure(&self) -> bool {
        match self {
            ProviderError::Status { kind, .. } => matches!(
                kind,
                ErrorKind::RateLimited
                    | ErrorKind::Overloaded
                    | ErrorKind::ServerError
                    | ErrorKind::ProviderTimeout
            ),
            ProviderError::Timeout { .. } | ProviderError::Network { .. } => true,
            _ => false,
        }
    }

    /// Every occurrence of a secret in the error's texts replaced.
    pub fn redacted(mut self, secrets: &[String]) -> ProviderError {
        let redact = |text: &mut String| *text = redact(text, secrets);
        match &mut self {
            ProviderError::Status { message, code, .. } => {
                redact(message);
                if let Some(code) = code {
                    redact(code);
                }
            }
            ProviderError::Network { message, url, .. } => {
                redact(message);
                redact(url);
            }
            ProviderError::BadResponse { message, .. } => redact(message),
            ProviderError::Request { error, .. } => redact(&mut error.message),
            ProviderError::Config(_) | ProviderError::Timeout { .. } => {}
        }
        self
    }
}

/// `text` with each secret (and the key and token patterns of cassettes) replaced.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for secret in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(secret.as_str(), "[REDACTED]");
    }
    baton_testing::agent::recording::Redactor::standard()
        .redact_text(&out)
        .into_owned()
}

/// At most `max` characters of a provider's message, on one line.
pub(crate) fn short(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    let cut: String = line.chars().take(max).collect();
    format!("{cut}…")
}
