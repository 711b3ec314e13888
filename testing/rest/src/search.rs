//! Search requests' paging and sorting, and the page a search answers with.

use serde::{Deserialize, Serialize};

/// The default number of items of a page.
pub const DEFAULT_PAGE_LIMIT: usize = 100;
/// The most items a page may hold.
pub const MAX_PAGE_LIMIT: usize = 10_000;

/// `page` of a search request: `{limit}`, `{from, limit}`, `{after, limit}` or `{before, limit}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SearchQueryPageRequest {
    pub limit: Option<usize>,
    pub from: Option<usize>,
    pub after: Option<String>,
    pub before: Option<String>,
}

/// One entry of `sort`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchQuerySortRequest {
    pub field: String,
    /// `ASC` (default) or `DESC`, any case.
    #[serde(default)]
    pub order: Option<String>,
}

/// A search request: a filter (its shape depends on the resource), a sort, a page.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SearchQueryRequest {
    pub filter: Option<serde_json::Map<String, serde_json::Value>>,
    pub sort: Vec<SearchQuerySortRequest>,
    pub page: SearchQueryPageRequest,
}

/// The `page` of a search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchQueryPageResponse {
    pub total_items: u64,
    pub has_more_total_items: bool,
    pub start_cursor: Option<String>,
    pub end_cursor: Option<String>,
}

/// A search result: the items of the page and the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchQueryResult<T> {
    pub items: Vec<T>,
    pub page: SearchQueryPageResponse,
}
