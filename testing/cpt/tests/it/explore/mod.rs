//! Exploration files, and counterexamples replayed under the CPT runner.

mod counterexamples;
mod file;
mod shards;
mod task;
