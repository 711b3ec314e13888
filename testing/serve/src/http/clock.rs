//! `PUT /v2/clock` pins the engine clock at an instant; `POST /v2/clock/reset` lets it follow
//! the wall clock again (from the wall time now: the clock may move back, as Zeebe's does).

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::Uri;
use axum::routing::{post, put};
use baton_rest::system::ClockPinRequest;

use super::{ApiError, ApiResult, AppState, OrGone, no_content, read_body};
use crate::core::{ClockMode, wall_ms};

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v2/clock", put(pin))
        .route("/v2/clock/reset", post(reset))
}

async fn pin(
    State(state): State<AppState>,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let request: ClockPinRequest = read_body(body, &uri, None)?;
    state
        .core
        .raw(move |core| {
            let pinned = core.act(|e| e.set_clock(request.timestamp));
            if pinned.is_ok() {
                core.clock = ClockMode::Pinned;
            }
            pinned
        })
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("PIN", &r, &uri))?;
    Ok(no_content())
}

async fn reset(
    State(state): State<AppState>,
    uri: Uri,
    // Read, so the connection stays usable for the next request.
    _body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    state
        .core
        .raw(move |core| {
            core.clock = ClockMode::Wall { offset_ms: 0 };
            core.act(|e| e.set_clock(wall_ms()))
        })
        .await
        .or_gone(&uri)?
        .map_err(|r| ApiError::rejected("RESET", &r, &uri))?;
    Ok(no_content())
}
