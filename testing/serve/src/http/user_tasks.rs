//! `/v2/user-tasks`: search, get, complete, assign, unassign (Camunda user tasks).

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::routing::{delete, get, post};
use baton_engine::runtime::UserTaskState;
use baton_rest::DEFAULT_TENANT;
use serde_json::{Value, json};

use super::{
    ApiError, ApiResult, AppState, OrGone, json as answer_json, no_content, path_key, read_body,
    variables,
};
use crate::core::Core;
use crate::read_model::iso;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/user-tasks/search", post(search))
        .route("/v2/user-tasks/{key}", get(get_task))
        .route("/v2/user-tasks/{key}/completion", post(complete))
        .route("/v2/user-tasks/{key}/assignment", post(assign))
        .route("/v2/user-tasks/{key}/assignee", delete(unassign))
}

const FIELDS: &[&str] = &[
    "name",
    "state",
    "assignee",
    "elementId",
    "candidateGroups",
    "candidateUsers",
    "processDefinitionId",
    "creationDate",
    "completionDate",
    "followUpDate",
    "dueDate",
    "tenantId",
    "externalFormReference",
    "processDefinitionVersion",
    "customHeaders",
    "priority",
    "userTaskKey",
    "elementInstanceKey",
    "processName",
    "processDefinitionKey",
    "processInstanceKey",
    "rootProcessInstanceKey",
    "formKey",
    "tags",
];

async fn search(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    super::searches::answer(&state, &uri, body, FIELDS, "userTaskKey", items).await
}

fn items(core: &Core) -> Vec<Value> {
    core.engine(|engine| {
        engine
            .user_tasks()
            .into_iter()
            .filter_map(|task| {
                let v = &task.value;
                let row = core.read.instances.get(&v.element_instance_key)?;
                let definition = core.read.process(row.proc)?;
                let state = match task.state {
                    UserTaskState::Created => "CREATED",
                    UserTaskState::Completed => "COMPLETED",
                    UserTaskState::Canceled => "CANCELED",
                    UserTaskState::Failed => "FAILED",
                };
                Some(json!({
                    "name": row.element_name,
                    "state": state,
                    "assignee": v.assignee.as_deref(),
                    "elementId": &*engine.user_task_element_id(task),
                    "candidateGroups": &*v.candidate_groups,
                    "candidateUsers": &*v.candidate_users,
                    "processDefinitionId": &*definition.id,
                    "creationDate": iso(core.read.created.get(&task.key).copied().unwrap_or(row.start_ms)),
                    "completionDate": core.read.ended.get(&task.key).copied().map(iso),
                    "followUpDate": v.follow_up_date.as_deref(),
                    "dueDate": v.due_date.as_deref(),
                    "tenantId": DEFAULT_TENANT,
                    "externalFormReference": null,
                    "processDefinitionVersion": definition.version,
                    "customHeaders": {},
                    "priority": v.priority,
                    "userTaskKey": task.key.to_string(),
                    "elementInstanceKey": v.element_instance_key.to_string(),
                    "processName": definition.name,
                    "processDefinitionKey": definition.key.to_string(),
                    "processInstanceKey": v.process_instance_key.to_string(),
                    "rootProcessInstanceKey": core.read.roots.get(&v.process_instance_key).map(ToString::to_string),
                    "formKey": v.form_key.map(|k| k.to_string()),
                    "tags": core.meta.get(&v.process_instance_key).map(|m| m.0.clone()).unwrap_or_default(),
                }))
            })
            .collect()
    })
}

async fn get_task(State(state): State<AppState>, uri: Uri, Path(key): Path<String>) -> ApiResult {
    let key = path_key(&key, "userTaskKey", &uri)?;
    let found = state
        .core
        .raw(move |core| {
            items(core)
                .into_iter()
                .find(|t| t["userTaskKey"] == key.to_string())
        })
        .await
        .or_gone(&uri)?;
    match found {
        Some(task) => Ok(answer_json(StatusCode::OK, &task)),
        None => Err(ApiError::not_found(
            format!("User Task with key '{key}' not found"),
            &uri,
        )),
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct CompletionRequest {
    variables: Option<baton_rest::Variables>,
    #[allow(dead_code)]
    action: Option<String>,
}

async fn complete(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "userTaskKey", &uri)?;
    let request: CompletionRequest = read_body(body, &uri, Some(CompletionRequest::default()))?;
    let vars = variables(request.variables);
    state
        .core
        .call(move |core| core.act(|e| e.complete_user_task(key.0, vars)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("COMPLETE", &r, &uri))?;
    Ok(no_content())
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct AssignmentRequest {
    assignee: Option<String>,
    #[allow(dead_code)]
    allow_override: Option<bool>,
    #[allow(dead_code)]
    action: Option<String>,
}

async fn assign(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "userTaskKey", &uri)?;
    let request: AssignmentRequest = read_body(body, &uri, None)?;
    let Some(assignee) = request.assignee.filter(|a| !a.is_empty()) else {
        return Err(ApiError::bad_request("No assignee provided", &uri));
    };
    state
        .core
        .call(move |core| core.act(|e| e.assign_user_task(key.0, Some(&assignee))))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("ASSIGN", &r, &uri))?;
    Ok(no_content())
}

async fn unassign(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    _body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "userTaskKey", &uri)?;
    state
        .core
        .call(move |core| core.act(|e| e.assign_user_task(key.0, None)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("ASSIGN", &r, &uri))?;
    Ok(no_content())
}
