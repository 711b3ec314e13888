//! The `baton` command line.

#[path = "baton/bench.rs"]
mod bench;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "baton",
    about = "Run and test Camunda 8 BPMN processes the way Zeebe does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a benchmark workload (see ../shared/bench) and print one JSON line.
    Bench(bench::BenchArgs),
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Bench(args) => bench::run(args),
    };
    std::process::exit(code);
}
