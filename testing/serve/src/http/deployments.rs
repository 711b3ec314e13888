//! `POST /v2/deployments`: multipart `resources` (BPMN, DMN, forms), deployed all or nothing
//! with Zeebe's deploy checks; a resource deployed again unchanged keeps its version.

use axum::Router;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{StatusCode, Uri};
use axum::routing::post;
use baton_engine::Resource;
use baton_engine::runtime::DeploymentInfo;
use baton_rest::DEFAULT_TENANT;
use baton_rest::deployments::{
    DeployedDecision, DeployedDecisionRequirements, DeployedForm, DeployedProcess,
    DeploymentMetadata, DeploymentResult,
};

use super::{ApiError, ApiResult, AppState, OrGone, json};
use crate::core::Core;

pub(super) fn routes() -> Router<AppState> {
    Router::new().route("/v2/deployments", post(deploy))
}

async fn deploy(State(state): State<AppState>, uri: Uri, request: Request) -> ApiResult {
    let mut multipart = Multipart::from_request(request, &state)
        .await
        .map_err(|e| ApiError::bad_request(e.body_text(), &uri))?;
    let mut resources = Vec::new();
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) => return Err(ApiError::bad_request(e.body_text(), &uri)),
        };
        match field.name() {
            Some("resources") => {
                let name = field.file_name().unwrap_or("resource").to_owned();
                let bytes = field
                    .bytes()
                    .await
                    .map_err(|e| ApiError::bad_request(e.body_text(), &uri))?;
                resources.push(Resource::new(name, bytes.to_vec()));
            }
            Some("tenantId") => {
                let tenant = field.text().await.unwrap_or_default();
                if tenant != DEFAULT_TENANT && !tenant.is_empty() {
                    return Err(ApiError::bad_request(
                        format!(
                            "Expected to handle request Deploy Resources with tenant identifier '{tenant}', but multi-tenancy is disabled"
                        ),
                        &uri,
                    ));
                }
            }
            other => {
                return Err(ApiError::bad_request(
                    format!(
                        "Request property [{}] cannot be parsed",
                        other.unwrap_or("")
                    ),
                    &uri,
                ));
            }
        }
    }
    if resources.is_empty() {
        return Err(ApiError::bad_request("No resources provided", &uri));
    }
    let answer = state
        .core
        .call(move |core| {
            let info = core.act(|e| e.deploy(&resources))?;
            Ok(deployment_result(core, &info))
        })
        .await
        .or_gone(&uri)?;
    match answer {
        Ok(result) => Ok(json(StatusCode::OK, &result)),
        Err(rejection) => Err(ApiError::rejected("CREATE", &rejection, &uri)),
    }
}

/// What the deployment created, processes first, then decision requirements, decisions and
/// forms.
fn deployment_result(core: &Core, info: &DeploymentInfo) -> DeploymentResult {
    let tenant = || DEFAULT_TENANT.to_owned();
    let mut deployments = Vec::new();
    for (id, version, key) in &info.processes {
        let resource_name = core
            .read
            .process_by_key(*key)
            .map(|p| p.resource_name.to_string())
            .unwrap_or_default();
        deployments.push(DeploymentMetadata {
            process_definition: Some(DeployedProcess {
                process_definition_id: id.clone(),
                process_definition_version: *version,
                resource_name,
                tenant_id: tenant(),
                process_definition_key: (*key).into(),
            }),
            ..Default::default()
        });
    }
    core.engine(|engine| {
        for (id, version, key) in &info.decision_requirements {
            if let Some(drg) = engine.deployed_drgs().iter().find(|d| d.key == *key) {
                deployments.push(DeploymentMetadata {
                    decision_requirements: Some(DeployedDecisionRequirements {
                        decision_requirements_id: id.clone(),
                        decision_requirements_name: drg.name.to_string(),
                        version: *version,
                        resource_name: drg.resource_name.to_string(),
                        tenant_id: tenant(),
                        decision_requirements_key: (*key).into(),
                    }),
                    ..Default::default()
                });
            }
        }
        for (id, version, key) in &info.decisions {
            if let Some(decision) = engine.deployed_decisions().iter().find(|d| d.key == *key) {
                let drg = &engine.deployed_drgs()[decision.drg.0 as usize];
                deployments.push(DeploymentMetadata {
                    decision_definition: Some(DeployedDecision {
                        decision_definition_id: id.clone(),
                        version: *version,
                        name: decision.name.to_string(),
                        tenant_id: tenant(),
                        decision_requirements_id: drg.id.to_string(),
                        decision_definition_key: (*key).into(),
                        decision_requirements_key: drg.key.into(),
                    }),
                    ..Default::default()
                });
            }
        }
        for form in engine
            .deployed_forms()
            .iter()
            .filter(|f| f.deployment_key == info.deployment_key)
        {
            deployments.push(DeploymentMetadata {
                form: Some(DeployedForm {
                    form_id: form.form_id.to_string(),
                    version: form.version,
                    resource_name: form.resource_name.to_string(),
                    tenant_id: tenant(),
                    form_key: form.key.into(),
                }),
                ..Default::default()
            });
        }
    });
    DeploymentResult {
        deployment_key: info.deployment_key.into(),
        tenant_id: tenant(),
        deployments,
    }
}
