//! baton-testing: process tests, job and AI-agent mocks, assertions and coverage.
#![forbid(unsafe_code)]

pub mod agent;

/// The `baton` command line: one module per subcommand.
#[cfg(feature = "cli")]
pub mod cli;
