//! `baton cassette import FILE`: a cassette (format 2) from the `agentContext` of a finished
//! Camunda run with in-process conversation memory (exported from Operate or the REST API).
//! Prints the cassette, or writes it atomically with `--output`.

use std::path::PathBuf;
use std::process::ExitCode;

use baton_testing::agent::recording::{ImportOptions, import_agent_context_text};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Turns an exported agentContext into a cassette: the assistant messages' tool calls and
    /// answers become the turns, in order.
    Import {
        /// The exported variable: the agentContext, {"agentContext": …}, the agent's result
        /// ({"context": …}), or one of these as a JSON string.
        file: PathBuf,
        /// The agent element (the ad-hoc sub-process id) the cassette replays.
        #[arg(long, value_name = "ELEMENT_ID")]
        agent: Option<String>,
        /// The BPMN process id the agent runs in.
        #[arg(long, value_name = "PROCESS_ID")]
        process: Option<String>,
        /// Write the cassette here instead of printing it.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

pub fn run(args: &Args) -> ExitCode {
    let Command::Import {
        file,
        agent,
        process,
        output,
    } = &args.command;
    let source = file.display().to_string();
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("baton cassette import: cannot read {source}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = ImportOptions {
        agent: agent.clone(),
        process_id: process.clone(),
    };
    let recording = match import_agent_context_text(&text, &source, &options) {
        Ok(recording) => recording,
        Err(e) => {
            eprintln!("baton cassette import: {e}");
            return ExitCode::FAILURE;
        }
    };
    match output {
        None => {
            out!("{}", recording.to_pretty_string());
            ExitCode::SUCCESS
        }
        Some(path) => match recording.write(path) {
            Ok(()) => {
                eprintln!(
                    "wrote {} ({} model call{})",
                    path.display(),
                    recording.calls.len(),
                    if recording.calls.len() == 1 { "" } else { "s" }
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("baton cassette import: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
