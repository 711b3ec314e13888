//! `POST /v2/element-instances/search`: every element instance, live or ended.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::Uri;
use axum::routing::post;
use baton_engine::runtime::BpmnElementType;
use baton_rest::DEFAULT_TENANT;
use serde_json::{Value, json};

use super::{ApiResult, AppState};
use crate::core::Core;
use crate::read_model::iso;

pub(super) fn routes() -> Router<AppState> {
    Router::new().route("/v2/element-instances/search", post(search))
}

const FIELDS: &[&str] = &[
    "processDefinitionId",
    "startDate",
    "endDate",
    "elementId",
    "elementName",
    "type",
    "state",
    "hasIncident",
    "tenantId",
    "elementInstanceKey",
    "processInstanceKey",
    "rootProcessInstanceKey",
    "processDefinitionKey",
    "incidentKey",
];

async fn search(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    super::searches::answer(&state, &uri, body, FIELDS, "elementInstanceKey", items).await
}

fn items(core: &Core) -> Vec<Value> {
    let incidents = core.engine(|e| e.incidents());
    core.read
        .instances
        .iter()
        .filter(|(_, row)| row.element_type != BpmnElementType::Process)
        .filter_map(|(key, row)| {
            let definition = core.read.process(row.proc)?;
            let incident = incidents.iter().find(|i| i.element_instance_key == *key);
            Some(json!({
                "processDefinitionId": &*definition.id,
                "startDate": iso(row.start_ms),
                "endDate": row.end_ms.map(iso),
                "elementId": row.element_id,
                "elementName": row.element_name,
                "type": row.element_type.as_str(),
                "state": row.state.as_str(),
                "hasIncident": incident.is_some(),
                "tenantId": DEFAULT_TENANT,
                "elementInstanceKey": key.to_string(),
                "processInstanceKey": row.process_instance_key.to_string(),
                "rootProcessInstanceKey": core.read.roots.get(&row.process_instance_key).map(ToString::to_string),
                "processDefinitionKey": definition.key.to_string(),
                "incidentKey": incident.map(|i| i.key.to_string()),
            }))
        })
        .collect()
}
