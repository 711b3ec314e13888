//! Behaviour tests of baton-testing: one test binary, one module per area.

mod agent;
mod cli;
