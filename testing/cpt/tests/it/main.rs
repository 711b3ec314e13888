//! Behaviour tests of baton-cpt: one test binary, one module per area.

#[path = "../../../tests/it/chromium.rs"]
mod chromium;
mod coverage_cpt;
mod coverage_html;
mod cpt;
mod engine_810;
mod explore;
mod faults;
mod fidelity;
mod fuzz;
#[path = "../../../tests/it/fuzz_driver.rs"]
mod fuzz_driver;
mod support;
