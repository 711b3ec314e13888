//! baton's own routes, under `/baton` (never `/v2`): mocks registered at run time, and a
//! process instance explained.
//!
//! - `PUT /baton/mocks/jobs/{jobType}` — body as a `--mock` file: the type's jobs are answered
//!   by the mock from now on (the jobs waiting already included).
//! - `PUT /baton/mocks/agents/{elementId}` — body as an `--agent` file: baton's AI Agent mock
//!   plays the connector for the element.
//! - `GET /baton/process-instances/{key}/explanation` — the instance explained as text: state,
//!   where it waits, incidents, variables, path.

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::IntoResponse;
use axum::routing::{get, put};
use serde_json::Value;

use super::{ApiError, ApiResult, AppState, OrGone, no_content, path_key, read_body};
use crate::mock_files::{JobMockSpec, agent_script};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/baton/mocks/jobs/{job_type}", put(mock_job))
        .route("/baton/mocks/agents/{element_id}", put(mock_agent))
        .route("/baton/process-instances/{key}/explanation", get(explain))
}

async fn mock_job(
    State(state): State<AppState>,
    uri: Uri,
    Path(job_type): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let value: Value = read_body(body, &uri, None)?;
    let spec =
        JobMockSpec::from_json(&value, &job_type).map_err(|m| ApiError::bad_request(m, &uri))?;
    state
        .core
        .call(move |core| {
            let mock = spec.register(&core.test, &job_type);
            core.mocks.push(mock);
            core.settle();
        })
        .await
        .or_gone(&uri)?;
    Ok(no_content())
}

async fn mock_agent(
    State(state): State<AppState>,
    uri: Uri,
    Path(element_id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let value: Value = read_body(body, &uri, None)?;
    let script = agent_script(&value, uri.path()).map_err(|m| ApiError::bad_request(m, &uri))?;
    // The script is not `Send` once built: it is rebuilt on the engine thread from the JSON.
    drop(script);
    let source = uri.path().to_owned();
    state
        .core
        .call(move |core| {
            let script = agent_script(&value, &source)?;
            let handle = core
                .test
                .try_mock_ai_agent(&element_id, script)
                .map_err(|e| e.to_string())?;
            core.agents.push(handle);
            core.settle();
            Ok::<(), String>(())
        })
        .await
        .or_gone(&uri)?
        .map_err(|m| ApiError::bad_request(m, &uri))?;
    Ok(no_content())
}

async fn explain(State(state): State<AppState>, uri: Uri, Path(key): Path<String>) -> ApiResult {
    let key = path_key(&key, "processInstanceKey", &uri)?;
    let text = state
        .core
        .raw(move |core| {
            core.read
                .process_instance(key.0)
                .is_some()
                .then(|| core.test.explain(key.0))
        })
        .await
        .or_gone(&uri)?
        .ok_or_else(|| {
            ApiError::not_found(format!("Process Instance with key '{key}' not found"), &uri)
        })?;
    let mut response = (StatusCode::OK, text).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    Ok(response)
}
