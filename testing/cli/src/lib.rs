//! The `baton` command line. Each subcommand is one module with an `Args` struct and a `run`
//! function; adding one is a variant and a match arm here.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `println!` that ends the command quietly when its reader went away (see [`write_stdout`]).
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that ends the command quietly when its reader went away (see [`write_stdout`]).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))
    };
}

mod cassette;
mod coverage;
mod explore;
mod serve;
mod template;
mod test;
mod validate;

/// Runs BPMN processes the way Camunda 8 (Zeebe) does, inside tests.
#[derive(Debug, Parser)]
// The version and the commit it was built from (build.rs).
#[command(name = "baton", version = env!("BATON_VERSION"))]
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
    /// Lists the starter templates, or writes one (its .bpmn, .test.json, .explore.json and README).
    Template(template::Args),
    /// Merges coverage files and reports them.
    Coverage(coverage::Args),
    /// Explores what the model might do: every choice within bounds, invariants checked,
    /// counterexamples shrunk to a cassette and a test case.
    Explore(explore::Args),
    /// Makes cassettes: `import` turns a real run's agentContext into one.
    Cassette(cassette::Args),
    /// Serves Camunda 8's REST API (v2) over baton's engine, for any SDK and any real worker.
    Serve(serve::Args),
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
        Command::Serve(args) => serve::run(&args),
    }
}

/// Writes to standard output. A reader that went away (`baton test | head -1`) ends the command
/// at once with exit code 141 (128 + SIGPIPE: what a shell shows for a command a closed pipe
/// stopped), silently, as other command-line tools end; any other failure to write is said on
/// standard error, with exit code 2. Never a panic.
pub(crate) fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("baton: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}
