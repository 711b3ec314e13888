//! The AI Agent mock, driven by JSON shaped like what the engine hands over.

mod cassettes;
mod connector;
mod corpus;
mod engine;
mod error_expression;
mod harness;
mod instances;
mod matchers;
mod messages;
mod recording;
mod seed;
mod task;
mod tools;
mod versions;
