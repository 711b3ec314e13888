//! The HTTP face: routes one file per resource, requests read into engine commands, answers
//! written as the API's JSON, errors as `application/problem+json`.
//!
//! - `system` — topology, status, license.
//! - `deployments` — multipart deployments.
//! - `process_instances` — create (with `awaitCompletion`), get, cancel.
//! - `jobs` — activation with long polling, completion, failure, BPMN error, update.
//! - `messages` — message publication and correlation, signal broadcast.
//! - `clock` — `PUT /v2/clock`, `POST /v2/clock/reset`.
//! - `element_instances`, `variables`, `incidents`, `user_tasks` — searches (`searches`: the
//!   shared part), reads, variables set, incidents resolved, user tasks completed and assigned.
//! - `actuator` — the management routes Camunda Process Test's remote runtime calls: the
//!   clock (read, pin, add, reset) and the cluster purge.
//! - `baton` — baton's own routes under `/baton`: mocks registered at run time, explain.
//!
//! Every other `/v2` route answers 501 with a problem naming it.

mod actuator;
mod baton;
mod clock;
mod deployments;
mod element_instances;
mod incidents;
mod jobs;
mod messages;
mod process_instances;
mod searches;
mod system;
mod user_tasks;
mod variables;

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use baton_engine::Rejection;
use baton_rest::problem::PROBLEM_JSON;
use baton_rest::{Key, ProblemDetail};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ServeConfig;
use crate::core::{CoreGone, CoreHandle};

/// What every handler reaches.
#[derive(Clone)]
pub(crate) struct AppState {
    pub core: CoreHandle,
    pub config: Arc<ServeConfig>,
    /// The address the server listens on.
    pub addr: std::net::SocketAddr,
}

/// The routes.
pub(crate) fn router(state: AppState) -> Router {
    let limit = state.config.max_body_bytes;
    Router::new()
        .merge(system::routes())
        .merge(deployments::routes())
        .merge(process_instances::routes())
        .merge(jobs::routes())
        .merge(messages::routes())
        .merge(clock::routes())
        .merge(element_instances::routes())
        .merge(variables::routes())
        .merge(incidents::routes())
        .merge(user_tasks::routes())
        .merge(baton::routes())
        .merge(actuator::routes())
        .fallback(not_served)
        .method_not_allowed_fallback(not_served)
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
}

/// An error answer: a problem detail with its status.
#[derive(Debug)]
pub(crate) struct ApiError(pub ProblemDetail);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.0.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_vec(&self.0).unwrap_or_default();
        let mut response = (status, body).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        response
    }
}

impl ApiError {
    /// A rejection of the engine: `Command '<intent>' rejected with code '<type>': <reason>`.
    pub fn rejected(intent: &str, rejection: &Rejection, uri: &Uri) -> ApiError {
        ApiError(ProblemDetail::rejection(
            intent,
            rejection.rejection_type.as_str(),
            &rejection.message,
            uri.path(),
        ))
    }

    pub fn bad_request(detail: impl Into<String>, uri: &Uri) -> ApiError {
        ApiError(ProblemDetail::bad_request(detail, uri.path()))
    }

    pub fn not_found(detail: impl Into<String>, uri: &Uri) -> ApiError {
        ApiError(ProblemDetail::new(404, "NOT_FOUND", detail, uri.path()))
    }

    /// The engine thread went away.
    pub fn gone(uri: &Uri) -> ApiError {
        ApiError(ProblemDetail::new(
            500,
            "INTERNAL_ERROR",
            "Expected to handle REST API request, but the engine failed while handling it",
            uri.path(),
        ))
    }

    /// `awaitCompletion` ran out of time.
    pub fn timed_out(uri: &Uri) -> ApiError {
        ApiError(ProblemDetail::new(
            504,
            "DEADLINE_EXCEEDED",
            "Expected to handle REST API request, but request timed out between gateway and broker",
            uri.path(),
        ))
    }
}

pub(crate) type ApiResult = Result<Response, ApiError>;

/// Maps the engine thread's absence to a 500 problem.
pub(crate) trait OrGone<T> {
    fn or_gone(self, uri: &Uri) -> Result<T, ApiError>;
}

impl<T> OrGone<T> for Result<T, CoreGone> {
    fn or_gone(self, uri: &Uri) -> Result<T, ApiError> {
        self.map_err(|_| ApiError::gone(uri))
    }
}

/// A JSON answer.
pub(crate) fn json(status: StatusCode, body: &impl Serialize) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let mut response = (status, bytes).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// 204 No Content.
pub(crate) fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// Reads a JSON request body as the gateway does: a missing required field is
/// `No <field> provided`, a value of the wrong type (or a field it does not know)
/// `Request property [<path>] cannot be parsed`. `empty` is what an empty body means (`None`:
/// the body is required).
pub(crate) fn read_body<T: DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
    uri: &Uri,
    empty: Option<T>,
) -> Result<T, ApiError> {
    let bytes = body.map_err(|rejection| {
        let status = rejection.status();
        ApiError(ProblemDetail::new(
            status.as_u16(),
            status.canonical_reason().unwrap_or("Bad Request"),
            rejection.body_text(),
            uri.path(),
        ))
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return empty.ok_or_else(|| ApiError::bad_request("Required request body is missing", uri));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    let value: T = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|e| ApiError::bad_request(body_error(&e), uri))?;
    deserializer.end().map_err(|_| {
        ApiError::bad_request(
            "Expected to handle REST API request, but JSON property was invalid",
            uri,
        )
    })?;
    Ok(value)
}

/// The gateway's words for a body that does not read.
fn body_error(error: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let inner = error.inner().to_string();
    let path = error.path().to_string();
    let field = |text: &str| text.split('`').nth(1).map(str::to_owned);
    if inner.starts_with("missing field") {
        let name = field(&inner).unwrap_or_default();
        return format!("No {name} provided");
    }
    if inner.starts_with("unknown field") {
        // The path already ends with the unknown field.
        return format!("Request property [{path}] cannot be parsed");
    }
    if path == "." || error.inner().is_syntax() || error.inner().is_eof() {
        return "Expected to handle REST API request, but JSON property was invalid".to_owned();
    }
    format!("Request property [{path}] cannot be parsed")
}

/// The longest a request waits (long polls, `awaitCompletion`): a day.
const LONGEST_WAIT_MS: i64 = 86_400_000;

/// A wait the request asked for, in milliseconds, as a deadline (capped at a day).
pub(crate) fn deadline_after(wait: std::time::Duration) -> tokio::time::Instant {
    let wait = wait.min(std::time::Duration::from_millis(LONGEST_WAIT_MS as u64));
    tokio::time::Instant::now() + wait
}

/// A key in a path (`/v2/jobs/{jobKey}/completion`).
pub(crate) fn path_key(text: &str, name: &str, uri: &Uri) -> Result<Key, ApiError> {
    text.parse().map_err(|_| {
        ApiError::bad_request(format!("Request property [{name}] cannot be parsed"), uri)
    })
}

/// Every `/v2` route baton does not serve: 501, naming the operation; anything else is 404.
async fn not_served(method: Method, uri: Uri, _body: Result<Bytes, BytesRejection>) -> Response {
    if !uri.path().starts_with("/v2/") {
        return ApiError::not_found(format!("No route {method} {}", uri.path()), &uri)
            .into_response();
    }
    ApiError(ProblemDetail::new(
        501,
        "NOT_IMPLEMENTED",
        format!(
            "baton serve does not serve {method} {} (see docs/serve.md for the operations it serves)",
            uri.path()
        ),
        uri.path(),
    ))
    .into_response()
}

/// Variables from a request (`None`: none).
pub(crate) fn variables(
    v: Option<baton_rest::Variables>,
) -> baton_engine::runtime::VariableDocument {
    v.map(|m| m.into_iter().collect()).unwrap_or_default()
}
