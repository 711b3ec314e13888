//! `/v2/process-instances`: create (with `awaitCompletion`), get, cancel.

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::routing::{get, post};
use baton_engine::CreateInstance;
use baton_engine::runtime::{Key, RecordValue, Rejection, RejectionType};
use baton_rest::process_instances::{
    CancelProcessInstanceRequest, CreateProcessInstanceRequest, CreateProcessInstanceResult,
    ProcessInstanceResult,
};
use baton_rest::{DEFAULT_TENANT, Variables};

use super::{ApiError, ApiResult, AppState, OrGone, json, no_content, path_key, read_body};
use crate::core::Core;
use crate::read_model::{RowState, iso};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/process-instances", post(create))
        .route("/v2/process-instances/{key}", get(get_instance))
        .route("/v2/process-instances/{key}/cancellation", post(cancel))
        .route("/v2/process-instances/search", post(search))
}

/// What a create started, for the answer and for `awaitCompletion`.
struct Created {
    result: CreateProcessInstanceResult,
    /// The log position before the instance was created (its variables are read from there).
    position: u64,
}

async fn create(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: CreateProcessInstanceRequest = read_body(body, &uri, None)?;
    let by_key = request.process_definition_key;
    let id = request.process_definition_id.clone();
    if by_key.is_none() && id.is_none() {
        return Err(ApiError::bad_request(
            "At least one of [processDefinitionId, processDefinitionKey] is required",
            &uri,
        ));
    }
    if by_key.is_some() && id.is_some() {
        return Err(ApiError::bad_request(
            "Only one of [processDefinitionId, processDefinitionKey] is allowed",
            &uri,
        ));
    }
    check_tenant(request.tenant_id.as_deref(), &uri)?;
    if let Some(b) = &request.business_id
        && (b.is_empty() || b.len() > 256)
    {
        return Err(ApiError::bad_request(
            format!("The value for businessId is '{b}' but must be 1 to 256 characters"),
            &uri,
        ));
    }
    let await_completion = request.await_completion;
    let fetch = request.fetch_variables.clone();
    let timeout = match request.request_timeout {
        t if t > 0 => Duration::from_millis(t as u64),
        _ => state.config.request_timeout,
    };
    let created = state
        .core
        .call(move |core| start(core, request))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("CREATE", &r, &uri))?;
    if !await_completion {
        return Ok(json(StatusCode::OK, &created.result));
    }
    let deadline = super::deadline_after(timeout);
    let key = created.result.process_instance_key.0;
    loop {
        let changed = state.core.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let position = created.position;
        let fetch = fetch.clone();
        let ended = state
            .core
            .raw(move |core| {
                let row = core.read.process_instance(key)?;
                (row.state == RowState::Completed)
                    .then(|| final_variables(core, key, position, &fetch))
            })
            .await
            .or_gone(&uri)?;
        if let Some(variables) = ended {
            let mut result = created.result;
            result.variables = variables;
            return Ok(json(StatusCode::OK, &result));
        }
        if tokio::time::timeout_at(deadline, changed).await.is_err() {
            return Err(ApiError::timed_out(&uri));
        }
    }
}

/// Only the default tenant exists.
pub(super) fn check_tenant(tenant: Option<&str>, uri: &Uri) -> Result<(), ApiError> {
    match tenant {
        None | Some(DEFAULT_TENANT) => Ok(()),
        Some(other) => Err(ApiError::bad_request(
            format!(
                "Expected to handle request with tenant identifier '{other}', but multi-tenancy is disabled"
            ),
            uri,
        )),
    }
}

fn start(core: &mut Core, request: CreateProcessInstanceRequest) -> Result<Created, Rejection> {
    let (id, version) = match request.process_definition_key {
        Some(key) => match core.read.process_by_key(key.0) {
            Some(p) => (p.id.to_string(), Some(p.version)),
            None => {
                return Err(Rejection::new(
                    RejectionType::NotFound,
                    format!("Expected to find process definition with key '{key}', but none found"),
                ));
            }
        },
        None => (
            request.process_definition_id.clone().unwrap_or_default(),
            request.process_definition_version.filter(|v| *v >= 0),
        ),
    };
    let position = core.read.position();
    let create = CreateInstance {
        bpmn_process_id: id,
        version,
        variables: super::variables(request.variables),
        start_instructions: request
            .start_instructions
            .into_iter()
            .map(|s| s.element_id)
            .collect(),
        terminate_after: request
            .runtime_instructions
            .into_iter()
            .map(|r| r.after_element_id)
            .collect(),
    };
    let key = core.act(|e| e.create_instance(create))?;
    let row = core.read.process_instance(key);
    let definition = row.and_then(|r| core.read.process(r.proc)).cloned();
    core.meta
        .insert(key, (request.tags.clone(), request.business_id.clone()));
    let definition = definition.expect("a created instance has a deployed process");
    Ok(Created {
        result: CreateProcessInstanceResult {
            process_definition_id: definition.id.to_string(),
            process_definition_version: definition.version,
            tenant_id: DEFAULT_TENANT.into(),
            variables: Variables::new(),
            process_definition_key: definition.key.into(),
            process_instance_key: key.into(),
            tags: request.tags,
            business_id: request.business_id,
        },
        position,
    })
}

/// The process instance's own variables as it ended (from the log: the instance's state is
/// gone), only `fetch` when it names any.
fn final_variables(core: &Core, key: Key, position: u64, fetch: &[String]) -> Variables {
    core.engine(|engine| {
        let mut variables = Variables::new();
        for record in engine.records_since(position) {
            if let RecordValue::Variable(v) = &record.value
                && v.scope_key == key
                && (fetch.is_empty() || fetch.iter().any(|f| **f == *v.name))
            {
                variables.insert(v.name.to_string(), v.value.to_json());
            }
        }
        variables
    })
}

async fn get_instance(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
) -> ApiResult {
    let key = path_key(&key, "processInstanceKey", &uri)?;
    let found = state
        .core
        .raw(move |core| process_instance_result(core, key.0))
        .await
        .or_gone(&uri)?;
    match found {
        Some(result) => Ok(json(StatusCode::OK, &result)),
        None => Err(ApiError::not_found(
            format!("Process Instance with key '{key}' not found"),
            &uri,
        )),
    }
}

/// A process instance as reads return it.
pub(crate) fn process_instance_result(core: &Core, key: Key) -> Option<ProcessInstanceResult> {
    let row = core.read.process_instance(key)?;
    let definition = core.read.process(row.proc)?;
    let (tags, business_id) = core.meta.get(&key).cloned().unwrap_or_default();
    let (has_incident, suspended) = core.engine(|e| {
        (
            e.incidents().iter().any(|i| i.process_instance_key == key),
            e.process_instance(key).is_some_and(|p| p.suspended),
        )
    });
    Some(ProcessInstanceResult {
        process_definition_id: definition.id.to_string(),
        process_definition_name: definition.name.clone(),
        process_definition_version: definition.version,
        process_definition_version_tag: definition.version_tag.clone(),
        start_date: iso(row.start_ms),
        end_date: row.end_ms.map(iso),
        state: row.state.as_str().into(),
        has_incident,
        tenant_id: DEFAULT_TENANT.into(),
        process_instance_key: key.into(),
        process_definition_key: definition.key.into(),
        parent_process_instance_key: row.parent_process_instance_key.map(Into::into),
        parent_element_instance_key: row.parent_element_instance_key.map(Into::into),
        root_process_instance_key: core.read.roots.get(&key).map(|k| (*k).into()),
        tags,
        business_id,
        suspended_date: suspended.then(|| iso(core.engine(baton_engine::Engine::now))),
    })
}

async fn cancel(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "processInstanceKey", &uri)?;
    let _: CancelProcessInstanceRequest =
        read_body(body, &uri, Some(CancelProcessInstanceRequest::default()))?;
    state
        .core
        .call(move |core| core.act(|e| e.cancel_instance(key.0)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("CANCEL", &r, &uri))?;
    Ok(no_content())
}

const SEARCH_FIELDS: &[&str] = &[
    "processDefinitionId",
    "processDefinitionName",
    "processDefinitionVersion",
    "processDefinitionVersionTag",
    "startDate",
    "endDate",
    "state",
    "hasIncident",
    "tenantId",
    "processInstanceKey",
    "processDefinitionKey",
    "parentProcessInstanceKey",
    "parentElementInstanceKey",
    "rootProcessInstanceKey",
    "tags",
    "businessId",
];

async fn search(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    super::searches::answer(
        &state,
        &uri,
        body,
        SEARCH_FIELDS,
        "processInstanceKey",
        |core| {
            core.read
                .instances
                .iter()
                .filter(|(_, row)| {
                    row.element_type == baton_engine::runtime::BpmnElementType::Process
                })
                .filter_map(|(key, _)| process_instance_result(core, *key))
                .filter_map(|r| serde_json::to_value(r).ok())
                .collect()
        },
    )
    .await
}
