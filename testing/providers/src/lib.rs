//! The AI Agent connector's model providers, called the way the connector calls them through
//! LangChain4j, so that what a test records is what production would have asked. A separate
//! crate: baton-testing (what a Rust test user compiles) gains no HTTP or TLS dependency.
//!
//! - [`select`] — which provider and model: the element's provider inputs, `PROVIDER:MODEL`,
//!   credentials and base URLs from each SDK's environment variables; every problem before any
//!   call ([`ConfigError`]).
//! - `credentials` — base URLs and keys per provider.
//! - [`env`] — the environment behind a trait (tests hand in a map).
//! - [`conversation`] — one model call in neutral terms, read from the agent mock's request.
//! - [`schema`] — JSON schemas through LangChain4j's typed elements, written per wire format.
//! - [`wire`] — the four wire formats: request building and answer parsing.
//! - [`sigv4`] — AWS Signature Version 4 for Bedrock.
//! - [`http`] — requests and responses as data; the ureq transport.
//! - [`reply`] — an answer in neutral terms, and the [`Turn`](baton_testing::agent::Turn) the
//!   mock plays for it.
//! - [`error`] — [`ProviderError`]: HTTP statuses, rate limits, timeouts, typed and redacted.
//! - [`client`] — [`ModelClient`]: one model call end to end; the turn source of a recording.
//! - [`judge`] — `satisfiesJudge` and `similarTo` of ASSERT_VARIABLE with a configured model,
//!   on Camunda Process Test's contract (prompt, anchors, threshold, answer format).
//! - [`live`] — repeated live runs: Wilson intervals, pass^k, trajectories, infrastructure
//!   errors apart, token budgets.

pub mod client;
pub mod conversation;
mod credentials;
pub mod env;
pub mod error;
pub mod http;
pub mod judge;
pub mod live;
pub mod reply;
pub mod schema;
pub mod select;
pub mod sigv4;
pub mod wire;

pub use client::{Answer, ModelClient};
pub use conversation::{Conversation, RequestError};
pub use credentials::AZURE_API_VERSION;
pub use env::{Environment, MapEnvironment, ProcessEnvironment};
pub use error::{ErrorKind, ProviderError};
pub use http::{HttpRequest, HttpResponse, Transport, TransportError, UreqTransport};
pub use reply::{Reply, ReplyCall, StopReason};
pub use select::{Auth, ConfigError, ModelChoice, Parameters, ProviderKind, Target, select};
