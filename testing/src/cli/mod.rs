//! The `baton` command line. Each subcommand is one module with an `Args` struct and a `run`
//! function; adding one is a variant and a match arm here.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cassette;
mod coverage;
mod explore;
mod template;
mod test;
mod validate;

/// Runs BPMN processes the way Camunda 8 (Zeebe) does, inside tests.
#[derive(Debug, Parser)]
#[command(name = "baton", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs Camunda Process Test JSON files (*.test.json) against the BPMN beside them.
    Test(test::Args),
    /// Checks BPMN files the way Zeebe checks a deployment.
    Validate(validate::Args),
    /// Lists the starter templates, or writes one (its .bpmn and .test.json).
    Template(template::Args),
    /// Merges coverage files and reports them.
    Coverage(coverage::Args),
    /// Explores what the model might do: every choice within bounds, invariants checked,
    /// counterexamples shrunk to a cassette and a test case.
    Explore(explore::Args),
    /// Makes cassettes: `import` turns a real run's agentContext into one.
    Cassette(cassette::Args),
}

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Test(args) => test::run(&args),
        Command::Template(args) => template::run(&args),
        Command::Coverage(args) => coverage::run(&args),
        Command::Cassette(args) => cassette::run(&args),
        Command::Explore(args) => explore::run(&args),
        Command::Validate(args) => validate::run(&args),
    }
}
