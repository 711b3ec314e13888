//! Behaviour tests of baton-testing: one test binary, one module per area.

mod agent;
mod coverage;
mod coverage_cpt;
mod coverage_html;
pub mod cpt;
mod engine_810;
mod events;
mod explore;
mod failures;
mod faults;
mod features;
mod fidelity;
mod fuzz;
mod hostile;
mod mocks;
mod process_test;
mod support;
