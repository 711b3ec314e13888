//! The management routes Camunda Process Test's remote runtime calls on the same port:
//! `GET`/`DELETE /actuator/clock`, `POST /actuator/clock/pin` and `/add` (each answers the
//! clock `{"epochMilli", "instant"}`), `POST /actuator/cluster/purge` (everything back to how
//! the server started; answers `{"changeId"}`) and `GET /actuator/cluster` (the purge is
//! complete at once).

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{StatusCode, Uri};
use axum::routing::{get, post};
use serde_json::json;

use super::{ApiError, ApiResult, AppState, OrGone, json as answer_json, read_body};
use crate::core::{ClockMode, wall_ms};
use crate::server::build_core;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/actuator/clock", get(read_clock).delete(reset_clock))
        .route("/actuator/clock/pin", post(pin_clock))
        .route("/actuator/clock/add", post(add_clock))
        .route("/actuator/cluster/purge", post(purge))
        .route("/actuator/cluster", get(cluster))
}

async fn read_clock(State(state): State<AppState>, uri: Uri) -> ApiResult {
    let clock = state
        .core
        .call(|core| core.clock_json())
        .await
        .or_gone(&uri)?;
    Ok(answer_json(StatusCode::OK, &clock))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PinRequest {
    epoch_milli: i64,
}

async fn pin_clock(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: PinRequest = read_body(body, &uri, None)?;
    let clock = state
        .core
        .raw(move |core| {
            core.act(|e| e.set_clock(request.epoch_milli))?;
            core.clock = ClockMode::Pinned;
            Ok(core.clock_json())
        })
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("PIN", &r, &uri))?;
    Ok(answer_json(StatusCode::OK, &clock))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AddRequest {
    offset_milli: i64,
}

/// Moves the clock by the offset (back too): a pinned clock stays pinned at the new time; a
/// clock that follows the wall clock keeps following it, the offset ahead.
async fn add_clock(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: AddRequest = read_body(body, &uri, None)?;
    let clock = state
        .core
        .call(move |core| {
            let target = core
                .engine(baton_engine::Engine::now)
                .saturating_add(request.offset_milli);
            core.act(|e| e.set_clock(target))?;
            if let ClockMode::Wall { offset_ms } = &mut core.clock {
                *offset_ms = offset_ms.saturating_add(request.offset_milli);
            }
            Ok(core.clock_json())
        })
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("PIN", &r, &uri))?;
    Ok(answer_json(StatusCode::OK, &clock))
}

async fn reset_clock(
    State(state): State<AppState>,
    uri: Uri,
    _body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let clock = state
        .core
        .raw(move |core| {
            core.clock = ClockMode::Wall { offset_ms: 0 };
            core.act(|e| e.set_clock(wall_ms()))?;
            Ok(core.clock_json())
        })
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("RESET", &r, &uri))?;
    Ok(answer_json(StatusCode::OK, &clock))
}

async fn purge(
    State(state): State<AppState>,
    uri: Uri,
    _body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let config = state.config.clone();
    let change = state
        .core
        .raw(move |core| {
            let change = core.change_id + 1;
            let mut fresh = build_core(&config).map_err(|e| e.to_string())?;
            fresh.change_id = change;
            *core = fresh;
            Ok::<u64, String>(change)
        })
        .await
        .or_gone(&uri)?
        .map_err(|m| {
            ApiError(baton_rest::ProblemDetail::new(
                500,
                "INTERNAL_ERROR",
                m,
                uri.path(),
            ))
        })?;
    Ok(answer_json(StatusCode::OK, &json!({"changeId": change})))
}

async fn cluster(State(state): State<AppState>, uri: Uri) -> ApiResult {
    let change = state.core.raw(|core| core.change_id).await.or_gone(&uri)?;
    Ok(answer_json(
        StatusCode::OK,
        &json!({
            "version": change,
            "brokers": [{"id": 0, "state": "ACTIVE", "version": 0, "partitions": [{"id": 1, "state": "ACTIVE", "priority": 1}]}],
            "lastChange": {"id": change, "status": "COMPLETED"},
            "pendingChange": null,
        }),
    ))
}
