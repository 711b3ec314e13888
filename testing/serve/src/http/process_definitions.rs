//! `POST /v2/process-definitions/search`, `GET /v2/process-definitions/{key}`,
//! `GET /v2/process-definitions/{key}/xml` (the BPMN as deployed).

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use baton_rest::DEFAULT_TENANT;
use serde_json::{Value, json};

use super::{ApiError, ApiResult, AppState, OrGone, json as answer_json, path_key};
use crate::core::Core;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/process-definitions/search", post(search))
        .route("/v2/process-definitions/{key}", get(get_definition))
        .route("/v2/process-definitions/{key}/xml", get(xml))
}

const FIELDS: &[&str] = &[
    "name",
    "resourceName",
    "version",
    "versionTag",
    "processDefinitionId",
    "tenantId",
    "processDefinitionKey",
    "hasStartForm",
];

async fn search(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    super::searches::answer(&state, &uri, body, FIELDS, "processDefinitionKey", items).await
}

fn items(core: &Core) -> Vec<Value> {
    core.read
        .processes
        .iter()
        .filter(|p| {
            !p.resource_name
                .starts_with(baton_testing::GENERATED_RESOURCE_PREFIX)
        })
        .map(|p| {
            json!({
                "name": p.name,
                "resourceName": &*p.resource_name,
                "version": p.version,
                "versionTag": p.version_tag,
                "processDefinitionId": &*p.id,
                "tenantId": DEFAULT_TENANT,
                "processDefinitionKey": p.key.to_string(),
                "hasStartForm": false,
            })
        })
        .collect()
}

async fn get_definition(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
) -> ApiResult {
    let key = path_key(&key, "processDefinitionKey", &uri)?;
    let found = state
        .core
        .raw(move |core| {
            items(core)
                .into_iter()
                .find(|p| p["processDefinitionKey"] == key.to_string())
        })
        .await
        .or_gone(&uri)?;
    found
        .map(|p| answer_json(StatusCode::OK, &p))
        .ok_or_else(|| {
            ApiError::not_found(
                format!("Process Definition with key '{key}' not found"),
                &uri,
            )
        })
}

async fn xml(State(state): State<AppState>, uri: Uri, Path(key): Path<String>) -> ApiResult {
    let key = path_key(&key, "processDefinitionKey", &uri)?;
    let found = state
        .core
        .raw(move |core| {
            let name = core.read.process_by_key(key.0)?.resource_name.clone();
            core.engine(|e| {
                e.deployed_resources()
                    .filter(|r| r.name == *name)
                    .last()
                    .map(|r| r.content().to_vec())
            })
        })
        .await
        .or_gone(&uri)?;
    let Some(xml) = found else {
        return Err(ApiError::not_found(
            format!("Process Definition with key '{key}' not found"),
            &uri,
        ));
    };
    let mut response = (StatusCode::OK, xml).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/xml"));
    Ok(response)
}
