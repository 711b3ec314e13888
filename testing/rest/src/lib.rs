//! baton-rest: the types of Camunda 8's Orchestration Cluster REST API v2 that baton serves and
//! sends, written by hand from the API's documented shapes (never generated from, or copied out
//! of, Camunda's OpenAPI file, which is under the Camunda License).
//!
//! Requests deserialize the way the gateway reads them (unknown fields refused, optional fields
//! defaulted); responses serialize every field the specification requires, `null` where it is
//! nullable, with the 8.10 additions. No HTTP here: the server (`baton-serve`) and a remote
//! client share these types.
//!
//! - [`keys`] — keys as Zeebe makes them (`(partition << 51) + n`) and as JSON strings.
//! - [`problem`] — `application/problem+json` errors, in the gateway's words.
//! - [`system`] — topology, license, the clock.
//! - [`deployments`] — the deployment result.
//! - [`process_instances`] — create (request, result), the process instance read model.
//! - [`jobs`] — activation, completion (with its `result`), failure, error, update.
//! - [`messages`] — publication, correlation, signal broadcast.
//! - [`search`] — the search request's page and sort, and the page of a search result.
//! - [`reads`] — the items of the searches a client checks (element instances, variables,
//!   incidents, user tasks, jobs).
#![forbid(unsafe_code)]

pub mod deployments;
pub mod jobs;
pub mod keys;
pub mod messages;
pub mod problem;
pub mod process_instances;
pub mod reads;
pub mod search;
pub mod system;

pub use keys::{Key, KeyError};
pub use problem::ProblemDetail;

/// The tenant of a single-tenant cluster: every resource belongs to it.
pub const DEFAULT_TENANT: &str = "<default>";

/// A JSON object of variables, in the order the client wrote them.
pub type Variables = serde_json::Map<String, serde_json::Value>;
