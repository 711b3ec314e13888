//! `/v2/jobs`: activation with long polling, completion (with the `result` of ad-hoc
//! sub-processes and task listeners), failure with retries and backoff, BPMN errors, retries.
//!
//! An activation waits (up to `requestTimeout`, 0 meaning the server's default of 10 s, below
//! 0 not at all) until a job of its type can be activated: every request that changes the
//! engine wakes the waiting activations, which try again. The engine hands a job to one
//! activation only; a second completion of a job is rejected as Zeebe rejects it.

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::routing::{patch, post};
use baton_engine::runtime::{AdHocJobResult, JobResult as EngineJobResult, Key, share_document};
use baton_rest::DEFAULT_TENANT;
use baton_rest::jobs::{
    ActivatedJob, JobActivationRequest, JobActivationResult, JobCompletionRequest, JobErrorRequest,
    JobFailRequest, JobResult, JobUpdateRequest,
};

use super::{
    ApiError, ApiResult, AppState, OrGone, json, no_content, path_key, read_body, variables,
};
use crate::core::Core;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/jobs/activation", post(activate))
        .route("/v2/jobs/{key}/completion", post(complete))
        .route("/v2/jobs/{key}/failure", post(fail))
        .route("/v2/jobs/{key}/error", post(throw_error))
        .route("/v2/jobs/{key}", patch(update))
}

async fn activate(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: JobActivationRequest = read_body(body, &uri, None)?;
    if request.job_type.is_empty() {
        return Err(ApiError::bad_request("No type provided", &uri));
    }
    for (name, value) in [
        ("timeout", request.timeout),
        ("maxJobsToActivate", i64::from(request.max_jobs_to_activate)),
    ] {
        if value < 1 {
            return Err(ApiError::bad_request(
                format!("The value for {name} is '{value}' but must be greater than 0"),
                &uri,
            ));
        }
    }
    if let Some(tenants) = &request.tenant_ids {
        for tenant in tenants {
            super::process_instances::check_tenant(Some(tenant), &uri)?;
        }
    }
    let wait = match request.request_timeout.unwrap_or(0) {
        0 => state.config.long_poll_timeout,
        t if t < 0 => Duration::ZERO,
        t => Duration::from_millis(t as u64),
    };
    let deadline = super::deadline_after(wait);
    loop {
        let changed = state.core.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let r = request.clone();
        let jobs = state
            .core
            .call(move |core| activate_now(core, &r))
            .await
            .or_gone(&uri)?;
        if !jobs.is_empty() || tokio::time::timeout_at(deadline, changed).await.is_err() {
            return Ok(json(StatusCode::OK, &JobActivationResult { jobs }));
        }
    }
}

/// Activates what can be activated now.
fn activate_now(core: &mut Core, request: &JobActivationRequest) -> Vec<ActivatedJob> {
    let worker = request.worker.clone().unwrap_or_default();
    let max = request.max_jobs_to_activate.max(0) as usize;
    let keys = core
        .act(|e| Ok(e.activate_jobs(&request.job_type, &worker, request.timeout, max)))
        .unwrap_or_default();
    let fetch = request.fetch_variable.clone().unwrap_or_default();
    keys.into_iter()
        .filter_map(|key| activated_job(core, key, &worker, &fetch))
        .collect()
}

fn activated_job(core: &Core, key: Key, worker: &str, fetch: &[String]) -> Option<ActivatedJob> {
    let (job, definition_key, variables) = core.engine(|e| {
        let job = e.job(key)?;
        let definition_key = e
            .process_instance(job.process_instance_key)?
            .process_definition_key;
        Some((
            job,
            definition_key,
            e.job_variables(key).unwrap_or_default(),
        ))
    })?;
    let definition = core.read.process_by_key(definition_key)?;
    Some(ActivatedJob {
        job_type: job.job_type.to_string(),
        process_definition_id: definition.id.to_string(),
        process_definition_version: definition.version,
        element_id: job.element_id.to_string(),
        custom_headers: job
            .custom_headers
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect(),
        worker: worker.to_owned(),
        retries: job.retries,
        deadline: job.deadline.unwrap_or_default(),
        variables: variables
            .into_iter()
            .filter(|(name, _)| fetch.is_empty() || fetch.contains(name))
            .collect(),
        tenant_id: DEFAULT_TENANT.into(),
        job_key: key.into(),
        process_instance_key: job.process_instance_key.into(),
        process_definition_key: definition_key.into(),
        element_instance_key: job.element_instance_key.into(),
        kind: job.kind.as_str().into(),
        listener_event_type: job.listener_event_type.as_str().into(),
        user_task: None,
        tags: core
            .meta
            .get(&job.process_instance_key)
            .map(|m| m.0.clone())
            .unwrap_or_default(),
        root_process_instance_key: core
            .read
            .roots
            .get(&job.process_instance_key)
            .map(|k| (*k).into()),
        physical_tenant_id: DEFAULT_TENANT.into(),
        business_id: core
            .meta
            .get(&job.process_instance_key)
            .and_then(|m| m.1.clone()),
        priority: 0,
        lease_token: None,
    })
}

async fn complete(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "jobKey", &uri)?;
    let request: JobCompletionRequest =
        read_body(body, &uri, Some(JobCompletionRequest::default()))?;
    let result = request.result.map(engine_result);
    let vars = variables(request.variables);
    state
        .core
        .call(move |core| core.act(|e| e.complete_job_with_result(key.0, vars, result)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("COMPLETE", &r, &uri))?;
    Ok(no_content())
}

/// The completion's result as the engine takes it.
fn engine_result(result: JobResult) -> EngineJobResult {
    match result {
        JobResult::AdHocSubProcess(r) => EngineJobResult::AdHocSubProcess(AdHocJobResult {
            activate_elements: r
                .activate_elements
                .into_iter()
                .map(|a| (a.element_id, share_document(variables(a.variables))))
                .collect(),
            completion_condition_fulfilled: r.is_completion_condition_fulfilled,
            cancel_remaining_instances: r.is_cancel_remaining_instances,
        }),
        JobResult::UserTask(r) => EngineJobResult::UserTask {
            denied: r.denied.unwrap_or(false),
            denied_reason: r.denied_reason,
            corrections: variables(r.corrections),
        },
    }
}

async fn fail(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "jobKey", &uri)?;
    let request: JobFailRequest = read_body(body, &uri, Some(JobFailRequest::default()))?;
    let vars = variables(request.variables);
    let message = request.error_message.unwrap_or_default();
    state
        .core
        .call(move |core| {
            core.act(|e| {
                e.fail_job(
                    key.0,
                    request.retries,
                    &message,
                    request.retry_back_off,
                    vars,
                )
            })
        })
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("FAIL", &r, &uri))?;
    Ok(no_content())
}

async fn throw_error(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "jobKey", &uri)?;
    let request: JobErrorRequest = read_body(body, &uri, None)?;
    if request.error_code.is_empty() {
        return Err(ApiError::bad_request("No errorCode provided", &uri));
    }
    let vars = variables(request.variables);
    let message = request.error_message.unwrap_or_default();
    state
        .core
        .call(move |core| core.act(|e| e.throw_error(key.0, &request.error_code, &message, vars)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("THROW_ERROR", &r, &uri))?;
    Ok(no_content())
}

async fn update(
    State(state): State<AppState>,
    uri: Uri,
    Path(key): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let key = path_key(&key, "jobKey", &uri)?;
    let request: JobUpdateRequest = read_body(body, &uri, None)?;
    let changes = request.changeset;
    if changes.timeout.is_some() {
        return Err(ApiError(baton_rest::ProblemDetail::new(
            501,
            "NOT_IMPLEMENTED",
            "baton serve does not change a job's timeout (PATCH /v2/jobs/{jobKey} with changeset.timeout); only its retries",
            uri.path(),
        )));
    }
    let Some(retries) = changes.retries else {
        return Err(ApiError::bad_request(
            "At least one of [retries, timeout] is required",
            &uri,
        ));
    };
    state
        .core
        .call(move |core| core.act(|e| e.update_job_retries(key.0, retries)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("UPDATE_RETRIES", &r, &uri))?;
    Ok(no_content())
}
