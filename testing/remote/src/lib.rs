//! baton-remote: Camunda Process Test JSON files run on any endpoint of Camunda 8's
//! Orchestration Cluster REST API v2 (`baton test --remote URL`): `baton serve`, Camunda 8 Run,
//! Self-Managed or SaaS. Each case deploys its folder's resources, sends its instructions as
//! REST calls, polls its assertions (a cluster is eventually consistent), and cleans up after
//! itself. The report is baton-cpt's, so `baton test` prints it the same way.
//!
//! baton-testing stays free of HTTP: this crate carries the client (ureq, no TLS unless the
//! `tls` feature asks for rustls) and uses baton-rest's request and response types, the ones
//! `baton serve` answers with.
//!
//! - [`auth`] — none, basic, or OAuth client credentials (from the SDKs' environment variables).
//! - [`client`] — [`Client`]: JSON over HTTP, every request bounded, problem+json errors read.
//! - [`poll`](mod@poll) — waiting for an eventually consistent read: back off from 1 ms to a
//!   timeout, the last attempt's failure kept.
//! - [`runner`] — [`run_remote`]: the cases run on the endpoint, with [`RemoteOptions`];
//!   [`observe_remote`] also reads back what each case left.
//! - [`compare`] — two runs side by side (`--compare`): where the observable outcomes differ.
#![forbid(unsafe_code)]

pub mod auth;
pub mod client;
pub mod compare;
pub mod poll;
pub mod runner;

pub use auth::Auth;
pub use client::{CallError, Client};
pub use runner::{
    CaseObservation, Observation, RemoteError, RemoteOptions, observe_remote, run_remote,
};
