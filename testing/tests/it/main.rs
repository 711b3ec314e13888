//! Behaviour tests of baton-testing: one test binary, one module per area.

mod agent;
mod chromium;
mod coverage;
mod coverage_html;
mod engine_810;
mod events;
mod explore;
mod failures;
mod faults;
mod features;
mod fuzz;
mod fuzz_driver;
mod hostile;
mod mocks;
mod process_test;
mod support;
