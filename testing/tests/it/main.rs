//! Behaviour tests of baton-testing: one test binary, one module per area.

mod agent;
mod cli;
mod failures;
mod mocks;
mod process_test;
mod support;
