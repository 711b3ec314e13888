//! Exploration: every choice of the model within bounds, invariants checked, counterexamples
//! shrunk and written as a cassette and a CPT case.

mod bad_input;
mod counterexamples;
mod shards;
mod task;
mod template;
