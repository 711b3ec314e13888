//! What the search routes share: the body read as a search request, the items filtered, sorted
//! and paged, the answer written.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{StatusCode, Uri};
use baton_rest::search::SearchQueryRequest;
use serde_json::Value;

use super::{ApiError, ApiResult, AppState, OrGone, json, read_body};
use crate::core::Core;
use crate::search::{Searchable, search};

/// Answers a search: `items` builds every result of the resource on the engine thread.
pub(super) async fn answer(
    state: &AppState,
    uri: &Uri,
    body: Result<Bytes, BytesRejection>,
    fields: &'static [&'static str],
    key: &'static str,
    items: fn(&Core) -> Vec<Value>,
) -> ApiResult {
    let request: SearchQueryRequest = read_body(body, uri, Some(SearchQueryRequest::default()))?;
    let all = state.core.raw(move |core| items(core)).await.or_gone(uri)?;
    let result = search(all, &request, &Searchable { fields, key })
        .map_err(|detail| ApiError::bad_request(detail, uri))?;
    Ok(json(StatusCode::OK, &result))
}
