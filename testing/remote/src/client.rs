//! The REST client: JSON over HTTP/1.1 (ureq), every request bounded by a timeout, errors read
//! as Camunda's problem+json where the endpoint sends it.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use baton_rest::ProblemDetail;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::auth::{self, Auth, Token};

/// The most bytes of an answer read (a search page of 10 000 items fits).
const MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// Why a call did not give what it should.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    /// No answer: the endpoint is unreachable, the connection broke, the timeout passed.
    #[error("{method} {path}: no answer: {message}")]
    Transport {
        method: &'static str,
        path: String,
        message: String,
    },
    /// An answer with an error status.
    #[error("{method} {path}: {status} {}", describe(.problem, .body))]
    Status {
        method: &'static str,
        path: String,
        status: u16,
        problem: Option<Box<ProblemDetail>>,
        body: String,
    },
    /// A success status with a body that does not read as the answer expected.
    #[error("{method} {path}: the answer does not read: {message}")]
    Decode {
        method: &'static str,
        path: String,
        message: String,
    },
}

fn describe(problem: &Option<Box<ProblemDetail>>, body: &str) -> String {
    match problem {
        Some(p) => format!("{}: {}", p.title, p.detail),
        None => body.chars().take(200).collect(),
    }
}

impl CallError {
    /// The endpoint does not serve this route (404 without a Camunda problem title, 405, 501).
    pub fn not_served(&self) -> bool {
        match self {
            CallError::Status {
                status, problem, ..
            } => {
                *status == 501
                    || *status == 405
                    || (*status == 404 && problem.as_ref().is_none_or(|p| p.title != "NOT_FOUND"))
            }
            _ => false,
        }
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            CallError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A client of one endpoint.
pub struct Client {
    agent: ureq::Agent,
    /// The REST base without `/v2` (`http://localhost:8080`).
    base: String,
    /// Where the management routes (`/actuator/...`) are.
    management: String,
    auth: Auth,
    token: RefCell<Option<Token>>,
}

/// Strips a trailing `/` and `/v2`: users give either form, as the SDKs accept both.
pub fn normalize_base(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    url.strip_suffix("/v2").unwrap_or(url).to_owned()
}

impl Client {
    /// A client of `base` (the REST address, with or without `/v2`); each request gives up
    /// after `timeout`.
    pub fn new(base: &str, management: Option<&str>, auth: Auth, timeout: Duration) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .build()
            .into();
        let base = normalize_base(base);
        Client {
            agent,
            management: management.map_or_else(|| base.clone(), normalize_base),
            base,
            auth,
            token: RefCell::new(None),
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn authorization(&self, method: &'static str, path: &str) -> Result<Option<String>, CallError> {
        match &self.auth {
            Auth::None => Ok(None),
            Auth::Basic { user, password } => Ok(Some(auth::basic_header(user, password))),
            Auth::OAuth(settings) => {
                let now = Instant::now();
                if let Some(t) = self.token.borrow().as_ref()
                    && t.renew_at > now
                {
                    return Ok(Some(t.header.clone()));
                }
                let failed = |message: String| CallError::Transport {
                    method,
                    path: path.to_owned(),
                    message: format!("no OAuth token: {message}"),
                };
                let answer = self
                    .agent
                    .post(&settings.token_url)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .send(auth::token_form(settings))
                    .map_err(|e| failed(e.to_string()))?;
                let status = answer.status().as_u16();
                let body = read_body(answer).map_err(&failed)?;
                if !(200..300).contains(&status) {
                    return Err(failed(format!("the token endpoint answered {status}")));
                }
                let token = auth::read_token(&body, now).map_err(failed)?;
                let header = token.header.clone();
                *self.token.borrow_mut() = Some(token);
                Ok(Some(header))
            }
        }
    }

    /// Sends a request; any status comes back with its body.
    pub fn send(
        &self,
        method: &'static str,
        path: &str,
        body: Option<(&str, Vec<u8>)>,
    ) -> Result<(u16, String), CallError> {
        let url = if path.starts_with("/actuator") {
            format!("{}{path}", self.management)
        } else {
            format!("{}{path}", self.base)
        };
        let authorization = self.authorization(method, path)?;
        let transport = |message: String| CallError::Transport {
            method,
            path: path.to_owned(),
            message,
        };
        let mut builder = ureq::http::Request::builder()
            .method(method)
            .uri(&url)
            .header("Accept", "application/json");
        if let Some(a) = &authorization {
            builder = builder.header("Authorization", a);
        }
        let (content_type, bytes) = body.unwrap_or(("application/json", Vec::new()));
        if !bytes.is_empty() {
            builder = builder.header("Content-Type", content_type);
        }
        let request = builder
            .body(bytes)
            .map_err(|e| transport(format!("bad request: {e}")))?;
        let answer = self
            .agent
            .run(request)
            .map_err(|e| transport(e.to_string()))?;
        let status = answer.status().as_u16();
        let text = read_body(answer).map_err(transport)?;
        Ok((status, text))
    }

    /// Sends JSON (or nothing) and reads a JSON answer; an error status becomes
    /// [`CallError::Status`].
    pub fn call<T: DeserializeOwned>(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&impl Serialize>,
    ) -> Result<T, CallError> {
        let text = self.call_text(method, path, body)?;
        let text = if text.trim().is_empty() {
            "null"
        } else {
            &text
        };
        serde_json::from_str(text).map_err(|e| CallError::Decode {
            method,
            path: path.to_owned(),
            message: e.to_string(),
        })
    }

    /// Like [`call`](Self::call), the answer's body as text (204 and the like: empty).
    pub fn call_text(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&impl Serialize>,
    ) -> Result<String, CallError> {
        let body = match body {
            Some(b) => Some((
                "application/json",
                serde_json::to_vec(b).map_err(|e| CallError::Decode {
                    method,
                    path: path.to_owned(),
                    message: e.to_string(),
                })?,
            )),
            None => None,
        };
        self.expect_success(method, path, body)
    }

    pub(crate) fn expect_success(
        &self,
        method: &'static str,
        path: &str,
        body: Option<(&str, Vec<u8>)>,
    ) -> Result<String, CallError> {
        let (status, text) = self.send(method, path, body)?;
        if (200..300).contains(&status) {
            return Ok(text);
        }
        Err(CallError::Status {
            method,
            path: path.to_owned(),
            status,
            problem: serde_json::from_str(&text).ok(),
            body: text.chars().take(500).collect(),
        })
    }

    /// `POST /v2/deployments`: the files as one multipart deployment.
    pub fn deploy(
        &self,
        files: &[(String, Vec<u8>)],
    ) -> Result<baton_rest::deployments::DeploymentResult, CallError> {
        let (content_type, body) = multipart(files);
        let path = "/v2/deployments";
        let text = self.expect_success("POST", path, Some((&content_type, body)))?;
        serde_json::from_str(&text).map_err(|e| CallError::Decode {
            method: "POST",
            path: path.to_owned(),
            message: e.to_string(),
        })
    }
}

fn read_body(answer: ureq::http::Response<ureq::Body>) -> Result<String, String> {
    answer
        .into_body()
        .with_config()
        .limit(MAX_ANSWER_BYTES)
        .read_to_string()
        .map_err(|e| e.to_string())
}

/// A `multipart/form-data` body with one `resources` part per file.
fn multipart(files: &[(String, Vec<u8>)]) -> (String, Vec<u8>) {
    // A boundary that occurs in no file.
    let mut boundary = "baton-remote-boundary".to_owned();
    while files.iter().any(|(_, bytes)| {
        bytes
            .windows(boundary.len())
            .any(|w| w == boundary.as_bytes())
    }) {
        boundary.push('x');
    }
    let mut body = Vec::new();
    for (name, bytes) in files {
        let name = name.replace(['"', '\r', '\n'], "_");
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"resources\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_is_given_with_or_without_v2() {
        for url in [
            "http://localhost:8080",
            "http://localhost:8080/",
            "http://localhost:8080/v2",
            "http://localhost:8080/v2/",
        ] {
            assert_eq!(normalize_base(url), "http://localhost:8080");
        }
    }

    #[test]
    fn a_multipart_boundary_is_not_in_the_files() {
        let files = vec![("a.bpmn".to_owned(), b"--baton-remote-boundary".to_vec())];
        let (content_type, body) = multipart(&files);
        assert_eq!(
            content_type,
            "multipart/form-data; boundary=baton-remote-boundaryx"
        );
        let text = String::from_utf8(body).unwrap();
        assert!(text.ends_with("--baton-remote-boundaryx--\r\n"), "{text}");
    }
}
