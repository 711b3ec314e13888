//! baton-serve: Camunda 8's Orchestration Cluster REST API (v2) over baton's engine, so that
//! any official SDK, any real job worker and Camunda Process Test's remote runtime can run
//! against it: `baton serve` on the command line, [`Server::start`] in a Rust test.
//!
//! One core, a thin face: a single engine thread owns a [`baton_testing::ProcessTest`] (the
//! engine, baton's job mocks and AI Agent mocks, the settle loop) and carries out one request
//! at a time; the HTTP face (axum on tokio) only reads requests into commands and answers
//! into Camunda's JSON. Jobs of a type with a mock are answered by the mock; every other job
//! waits for a real worker (`POST /v2/jobs/activation`, long polling).
//!
//! - [`config`] — [`ServeConfig`]: address, resources to deploy, mocks, coverage, timeouts.
//! - `command_log` — `--data DIR`: commands appended and flushed before an answer, replayed
//!   on start.
//! - `core` — the engine thread: requests in order, the wall clock mapped onto the engine
//!   clock, the read model, wake-ups for long polls.
//! - `read_model` — what searches and reads see: process and element instances with their
//!   times, kept from the engine's records.
//! - `search` — the filter, sort and page algebra every search shares.
//! - `mock_files` — `--mock JOBTYPE=FILE` and `--agent ELEMENT=FILE`.
//! - `http` — the routes, one file per resource; problem+json errors; 501 for the rest.
//! - [`server`] — [`Server::start`], the [`ServerHandle`] with its address and `stop()`.
#![forbid(unsafe_code)]

mod command_log;
pub mod config;
mod core;
mod http;
mod mock_files;
mod read_model;
mod search;
pub mod server;

pub use config::{AgentMockFile, Auth, JobMockFile, ServeConfig};
pub use server::{Server, ServerHandle, StartError};

/// The Camunda version whose API baton serves (`gatewayVersion` of the topology).
pub const GATEWAY_VERSION: &str = "8.9.0";
