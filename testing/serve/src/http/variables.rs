//! `POST /v2/variables/search`, `GET /v2/variables/{key}`: every variable as last written
//! (values as JSON text, never truncated); `PUT /v2/element-instances/{key}/variables`.

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::routing::{get, post, put};
use baton_rest::DEFAULT_TENANT;
use serde_json::{Value, json};

use super::{
    ApiError, ApiResult, AppState, OrGone, json as answer_json, no_content, path_key, read_body,
    variables,
};
use crate::core::Core;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/variables/search", post(search))
        .route("/v2/variables/{key}", get(get_variable))
        .route("/v2/element-instances/{key}/variables", put(set_variables))
}

const FIELDS: &[&str] = &[
    "name",
    "tenantId",
    "variableKey",
    "scopeKey",
    "processInstanceKey",
    "rootProcessInstanceKey",
    "value",
    "isTruncated",
];

async fn search(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    super::searches::answer(&state, &uri, body, FIELDS, "variableKey", items).await
}

fn items(core: &Core) -> Vec<Value> {
    core.read
        .variables
        .iter()
        .map(|((scope, name), row)| {
            json!({
                "name": &**name,
                "tenantId": DEFAULT_TENANT,
                "variableKey": row.key.to_string(),
                "scopeKey": scope.to_string(),
                "processInstanceKey": row.process_instance_key.to_string(),
                "rootProcessInstanceKey": core.read.roots.get(&row.process_instance_key).map(ToString::to_string),
                "value": row.value.to_string(),
                "isTruncated": false,
            })
        })
        .collect()
}

async fn get_variable(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
) -> ApiResult {
    let key = path_key(&key, "variableKey", &uri)?;
    let found = state
        .core
        .raw(move |core| {
            items(core)
                .into_iter()
                .find(|v| v["variableKey"] == key.to_string())
                .map(|mut v| {
                    v.as_object_mut().map(|o| o.remove("isTruncated"));
                    v
                })
        })
        .await
        .or_gone(&uri)?;
    match found {
        Some(v) => Ok(answer_json(StatusCode::OK, &v)),
        None => Err(ApiError::not_found(
            format!("Variable with key '{key}' not found"),
            &uri,
        )),
    }
}

/// `{"variables": {...}, "local": false}`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SetVariablesRequest {
    variables: baton_rest::Variables,
    #[serde(default)]
    local: bool,
    #[serde(default)]
    #[allow(dead_code)]
    operation_reference: Option<i64>,
}

async fn set_variables(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "elementInstanceKey", &uri)?;
    let request: SetVariablesRequest = read_body(body, &uri, None)?;
    let vars = variables(Some(request.variables));
    state
        .core
        .call(move |core| core.act(|e| e.set_variables(key.0, vars, request.local)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("UPDATE", &r, &uri))?;
    Ok(no_content())
}
