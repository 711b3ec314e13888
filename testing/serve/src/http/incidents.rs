//! `POST /v2/incidents/search` (open incidents), `POST /v2/incidents/{key}/resolution`.

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::Uri;
use axum::routing::post;
use baton_rest::DEFAULT_TENANT;
use serde_json::{Value, json};

use super::{ApiError, ApiResult, AppState, OrGone, no_content, path_key};
use crate::core::Core;
use crate::read_model::iso;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/incidents/search", post(search))
        .route("/v2/incidents/{key}/resolution", post(resolve))
}

const FIELDS: &[&str] = &[
    "processDefinitionId",
    "errorType",
    "errorMessage",
    "elementId",
    "creationTime",
    "state",
    "tenantId",
    "incidentKey",
    "processDefinitionKey",
    "processInstanceKey",
    "rootProcessInstanceKey",
    "elementInstanceKey",
    "jobKey",
];

async fn search(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    super::searches::answer(&state, &uri, body, FIELDS, "incidentKey", items).await
}

fn items(core: &Core) -> Vec<Value> {
    core.engine(|e| e.incidents())
        .into_iter()
        .filter_map(|i| {
            let row = core.read.process_instance(i.process_instance_key)?;
            let definition = core.read.process(row.proc)?;
            Some(json!({
                "processDefinitionId": &*definition.id,
                "errorType": i.error_type.as_str(),
                "errorMessage": &*i.error_message,
                "elementId": i.element_id,
                "creationTime": iso(core.read.created.get(&i.key).copied().unwrap_or_default()),
                "state": "ACTIVE",
                "tenantId": DEFAULT_TENANT,
                "incidentKey": i.key.to_string(),
                "processDefinitionKey": definition.key.to_string(),
                "processInstanceKey": i.process_instance_key.to_string(),
                "rootProcessInstanceKey": core.read.roots.get(&i.process_instance_key).map(ToString::to_string),
                "elementInstanceKey": i.element_instance_key.to_string(),
                "jobKey": i.job_key.map(|k| k.to_string()),
            }))
        })
        .collect()
}

async fn resolve(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    _body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "incidentKey", &uri)?;
    state
        .core
        .call(move |core| core.act(|e| e.resolve_incident(key.0)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("RESOLVE", &r, &uri))?;
    Ok(no_content())
}
