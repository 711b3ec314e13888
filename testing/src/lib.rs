//! baton-testing: process tests, job and AI-agent mocks, assertions and coverage.
#![forbid(unsafe_code)]

pub mod agent;
