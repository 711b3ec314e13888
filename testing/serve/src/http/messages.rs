//! `POST /v2/messages/publication` (buffered for its time to live),
//! `POST /v2/messages/correlation` (now or never), `POST /v2/signals/broadcast`.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{StatusCode, Uri};
use axum::routing::post;
use baton_engine::PublishMessage;
use baton_rest::DEFAULT_TENANT;
use baton_rest::messages::{
    MessageCorrelationRequest, MessageCorrelationResult, MessagePublicationRequest,
    MessagePublicationResult, SignalBroadcastRequest, SignalBroadcastResult,
};

use super::process_instances::check_tenant;
use super::{ApiError, ApiResult, AppState, OrGone, json, read_body, variables};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/messages/publication", post(publish))
        .route("/v2/messages/correlation", post(correlate))
        .route("/v2/signals/broadcast", post(broadcast))
}

async fn publish(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: MessagePublicationRequest = read_body(body, &uri, None)?;
    check_tenant(request.tenant_id.as_deref(), &uri)?;
    if request.name.is_empty() {
        return Err(ApiError::bad_request("No name provided", &uri));
    }
    let message = PublishMessage {
        name: request.name,
        correlation_key: request.correlation_key,
        time_to_live_ms: request.time_to_live.max(0),
        message_id: request.message_id,
        variables: variables(request.variables),
    };
    let key = state
        .core
        .call(move |core| core.act(|e| e.publish_message(message)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("PUBLISH", &r, &uri))?;
    Ok(json(
        StatusCode::OK,
        &MessagePublicationResult {
            tenant_id: DEFAULT_TENANT.into(),
            message_key: key.into(),
        },
    ))
}

async fn correlate(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: MessageCorrelationRequest = read_body(body, &uri, None)?;
    check_tenant(request.tenant_id.as_deref(), &uri)?;
    if request.name.is_empty() {
        return Err(ApiError::bad_request("No name provided", &uri));
    }
    let vars = variables(request.variables);
    let correlation = state
        .core
        .call(move |core| {
            core.act(|e| e.correlate_message(&request.name, &request.correlation_key, vars))
        })
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("CORRELATE", &r, &uri))?;
    Ok(json(
        StatusCode::OK,
        &MessageCorrelationResult {
            tenant_id: DEFAULT_TENANT.into(),
            message_key: correlation.message_key.into(),
            process_instance_key: correlation.process_instance_key.into(),
        },
    ))
}

async fn broadcast(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: SignalBroadcastRequest = read_body(body, &uri, None)?;
    check_tenant(request.tenant_id.as_deref(), &uri)?;
    if request.signal_name.is_empty() {
        return Err(ApiError::bad_request("No signalName provided", &uri));
    }
    let vars = variables(request.variables);
    let key = state
        .core
        .call(move |core| core.act(|e| e.broadcast_signal(&request.signal_name, vars)))
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("BROADCAST", &r, &uri))?;
    Ok(json(
        StatusCode::OK,
        &SignalBroadcastResult {
            tenant_id: DEFAULT_TENANT.into(),
            signal_key: key.into(),
        },
    ))
}
