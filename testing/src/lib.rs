//! baton-testing: process tests for Camunda 8 BPMN, in microseconds.
//!
//! A [`ProcessTest`] deploys BPMN into its own engine, mocks job workers, starts instances and
//! hands back a [`Run`] to act on and assert against. Nothing runs in the background: every
//! action runs the engine until it waits, lets the mocks answer, and returns.
//!
//! ```
//! use baton_testing::ProcessTest;
//! use serde_json::json;
//!
//! # const ORDER: &str = include_str!("../tests/it/bpmn/order.bpmn");
//! let test = ProcessTest::from_xml("order.bpmn", ORDER)?;
//! let payment = test.mock_job("payment").complete_with(json!({"paid": true}));
//! let run = test.start("order", json!({"amount": 42}));
//!
//! run.assert_waiting_at(["ship"]);                  // "shipping" has no mock: it waits
//! run.complete_job("ship", json!({"tracking": "T-1"}));
//! run.assert_completed()
//!     .assert_passed_in_order(["charge", "ship", "done"])
//!     .assert_variables(json!({"paid": true, "tracking": "T-1"}));
//! payment.assert_called(1);
//! println!("{}", test.coverage());
//! # Ok::<(), baton_testing::DeployError>(())
//! ```
//!
//! The guide `docs/testing-processes.md` walks through every feature.
//!
//! # Modules
//! - [`ProcessTest`] (`process_test`) — deployments, mocks, runs, the clock, the settle loop.
//! - [`Deployment`] — deploy once, clone into each test.
//! - [`mocks`] — [`Answer`], [`AnswerJob`] (the seam the AI Agent mock plugs into), job mocks.
//! - [`agent`] — the AI Agent mock (the connector as a state machine, cassettes, matchers).
//! - [`Run`] (`instance`) — one process instance: queries, actions, `assert_*`.
//! - [`assertions`] — the checks ([`Check`]) behind every assertion and the CPT runner.
//! - [`coverage`] — elements, flows and tools covered; text report; files and merging.
//! - [`trace`] — the run trace: model calls, tools, elements, incidents, in order; in detail also
//!   activations, job timeouts and failures, side effects, faults and moves of the clock.
//! - [`faults`] — tool faults (fail, BPMN error, no answer, latency, crash after the side effect)
//!   and model faults, in virtual time; `workers` plays them in the process test.
//! - [`side_effects`] — workers' side effects with idempotency keys, and the ledger the test keeps.
//! - [`invariants`] — what must hold at every step (never before, at most once per key, no
//!   incident, a condition, how a run ends), checked over the run trace.
//! - [`snapshot`] — the engine saved at a wait point, restored into a restart of the test.
//! - [`variables`], [`clock`] — JSON variables and matching; durations and instants.
//! - [`files`] — result files written whole (a temporary file, then a rename).
#![forbid(unsafe_code)]

pub mod agent;
pub mod assertions;
pub mod clock;
pub mod coverage;
mod deployment;
pub mod example_data;
mod explain;
pub mod explore;
pub mod faults;
pub mod files;
mod history;
mod instance;
pub mod invariants;
pub mod mocks;
mod process_test;
mod settle;
pub mod side_effects;
pub mod snapshot;
mod subject;
pub mod trace;
pub mod variables;
mod workers;

pub use assertions::{
    AssertionFailure, Check, DecisionExpectation, ElementSelector, ElementState, ElementsState,
    IncidentExpectation, InstanceState, SubscriptionState, UserTaskExpectation, UserTaskSelector,
    VariableScope,
};
pub use baton_engine::runtime::{
    CreateInstance, DEFAULT_TENANT, ErrorType, GlobalTaskListener, Key, PublishMessage,
    UserTaskState,
};
pub use coverage::{CoverageCount, CoverageReport, ProcessCoverage};
pub use deployment::{DeployError, Deployment};
pub use history::process_at;
pub use instance::{Run, RunState};
pub use mocks::{Answer, AnswerJob, CallCountMissed, JobMock, MockBuilder, TestJob, Times};
pub use process_test::{
    ActionError, AtQuiescence, ProcessTest, Quiescent, RunError, UnmetExpectations,
};
pub use variables::{IntoVariables, Matching, NotAnObject};
pub use workers::{DEFAULT_JOB_TIMEOUT, SideEffects};

/// The environment variable naming the folder coverage files are written to.
pub const COVERAGE_DIR_ENV: &str = "BATON_COVERAGE_DIR";

/// Resources baton deploys itself (child process stand-ins) are named with this prefix; they
/// are left out of coverage and of [`ProcessTest::process_ids`].
pub const GENERATED_RESOURCE_PREFIX: &str = "baton:generated/";

/// The job type of a child process stand-in's task is this prefix plus the process id.
pub const CHILD_MOCK_JOB_TYPE_PREFIX: &str = "baton:mock-child-process:";
