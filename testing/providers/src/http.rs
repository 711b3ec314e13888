//! An HTTP exchange as data (what a wire format builds and parses, what a snapshot pins) and the
//! one transport that sends it (ureq; rustls for https).

use std::time::Duration;

/// A request ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: &'static str,
    /// The full URL, query included.
    pub url: String,
    /// Headers in the order they are sent; names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// A response, whatever its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Headers whose values are secrets.
pub fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "x-api-key" | "api-key" | "x-goog-api-key" | "x-amz-security-token"
    ) || name.contains("token")
        || name.contains("secret")
        || name.ends_with("-key")
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path and query of the URL.
    pub fn path(&self) -> &str {
        let rest = self
            .url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, rest)| rest);
        rest.find('/').map_or("/", |i| &rest[i..])
    }

    /// The request with the values of secret headers replaced: what may be shown or written.
    /// An `Authorization` header keeps its scheme (and SigV4 its credential scope's
    /// non-secret parts), so the auth scheme stays visible.
    pub fn redacted(&self) -> HttpRequest {
        let headers = self
            .headers
            .iter()
            .map(|(name, value)| {
                if !is_secret_header(name) {
                    return (name.clone(), value.clone());
                }
                let shown = match value.split_once(' ') {
                    Some((scheme, _)) if name.eq_ignore_ascii_case("authorization") => {
                        format!("{scheme} [REDACTED]")
                    }
                    _ => "[REDACTED]".to_string(),
                };
                (name.clone(), shown)
            })
            .collect();
        HttpRequest {
            headers,
            ..self.clone()
        }
    }
}

/// Why no response came.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    #[error("no answer within {} s", .0.as_secs_f64())]
    Timeout(Duration),
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("{0}")]
    Other(String),
}

/// Sends requests. The provider client holds one; tests may hand in their own.
pub trait Transport {
    fn send(
        &self,
        request: &HttpRequest,
        timeout: Duration,
    ) -> Result<HttpResponse, TransportError>;
}

/// The transport over the network: ureq with rustls, no proxy unless the environment's
/// `HTTPS_PROXY`/`HTTP_PROXY` name one (ureq reads them), a 15 s connect timeout as the
/// connector's.
#[derive(Debug, Clone)]
pub struct UreqTransport {
    agent: ureq::Agent,
}

/// How long a connection may take to open (the connector's `CONNECT_TIMEOUT`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

impl Default for UreqTransport {
    fn default() -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .user_agent(concat!("baton/", env!("CARGO_PKG_VERSION")))
            .build();
        UreqTransport {
            agent: config.into(),
        }
    }
}

impl Transport for UreqTransport {
    fn send(
        &self,
        request: &HttpRequest,
        timeout: Duration,
    ) -> Result<HttpResponse, TransportError> {
        let mut builder = ureq::http::Request::builder()
            .method(request.method)
            .uri(&request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let http_request = builder
            .body(request.body.clone())
            .map_err(|e| TransportError::Other(format!("invalid request: {e}")))?;
        // The timeout covers the whole call, the response body included.
        let http_request = self
            .agent
            .configure_request(http_request)
            .timeout_global(Some(timeout))
            .build();
        let result = self.agent.run(http_request).and_then(|mut response| {
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_ascii_lowercase(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            let body = response
                .body_mut()
                .with_config()
                .limit(64 * 1024 * 1024)
                .read_to_string()?;
            Ok(HttpResponse {
                status,
                headers,
                body,
            })
        });
        result.map_err(|e| match e {
            ureq::Error::Timeout(_) => TransportError::Timeout(timeout),
            ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
                TransportError::Connect(e.to_string())
            }
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                TransportError::Connect(io.to_string())
            }
            other => TransportError::Other(other.to_string()),
        })
    }
}
