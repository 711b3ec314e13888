//! baton-cpt: the Camunda Process Test (CPT) JSON runner: the test files that CPT 8.9 and 8.10
//! and Web Modeler's test mode write, run in milliseconds without Docker or a JVM, on
//! baton-testing's process tests. `baton test` (baton-cli) is a thin layer over it; Rust users
//! can run JSON files from `cargo test` too:
//!
//! ```no_run
//! let report = baton_cpt::run(&["tests/cpt"], &Default::default()).unwrap();
//! report.assert_success();
//! ```
//!
//! Deterministic: the engine runs until it waits, then assertions decide at once (no polling;
//! an assertion that would wait in CPT fails with the state it found). See `docs/cli.md` for
//! how each instruction maps.
//!
//! - [`model`] — the format: files, test cases, every instruction (serde, errors with paths);
//!   `jackson` — what CPT's reader (Jackson) accepts and says that serde would not.
//! - [`discover`](mod@discover) — finding test files and the resources deployed with them.
//! - [`runner`] — the runner ([`run()`], [`run_with`]) and its [`Options`].
//! - [`results`] — [`CaseResult`], [`Report`], the summary line.
//! - [`text`], [`junit`], [`json`] — the report as `baton test` prints it, as JUnit XML, as JSON.
//! - `exec`, `behavior` — running one instruction; CONDITIONAL_BEHAVIOR as a quiescence hook.
//! - `incident`, `inner_instance` — ASSERT_INCIDENT; the `innerInstanceSelector` extension.
//! - [`faults`] — the fault, invariant, side-effect and snapshot extensions.
//! - [`explore_file`] — exploration files (`*.explore.json`, what `baton explore` runs): the
//!   setup as CPT instructions, over baton-testing's [`explore`](baton_testing::explore).

#![forbid(unsafe_code)]

mod behavior;
pub mod discover;
mod exec;
pub mod explore_file;
pub mod faults;
mod incident;
mod inner_instance;
mod jackson;
pub mod json;
pub mod junit;
pub mod model;
pub mod results;
pub mod runner;
pub mod text;

pub use discover::{DiscoverError, Suite, discover};
pub use explore_file::ExploreFile;
pub use model::{Instruction, TestCase, TestFile};
pub use results::{CaseFailure, CaseResult, Outcome, Report, SuiteInfo};
pub use runner::{Event, Options, run, run_with};
