//! `baton-serve`: the server on its own, with the flags of `baton serve`, until the `baton`
//! command gains the subcommand.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use baton_serve::config::split_assignment;
use baton_serve::{AgentMockFile, JobMockFile, ServeConfig, Server};
use clap::Parser;

/// Camunda 8's REST API (v2) over baton's engine, for any SDK and any real worker.
#[derive(Parser)]
#[command(name = "baton-serve", version)]
struct Args {
    /// The port to listen on (0: a free one, printed at start).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on: loopback unless you mean otherwise.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Deploy FILE (.bpmn, .dmn, .form) before the first request (repeatable).
    #[arg(long, value_name = "FILE")]
    deploy: Vec<PathBuf>,
    /// Answer the jobs of JOBTYPE as FILE says (a MOCK_JOB_WORKER_* instruction; repeatable).
    #[arg(long, value_name = "JOBTYPE=FILE")]
    mock: Vec<String>,
    /// Play the AI Agent connector for ELEMENT with FILE's turns (a cassette or turns; repeatable).
    #[arg(long, value_name = "ELEMENT=FILE")]
    agent: Vec<String>,
    /// Write the coverage of everything the clients did into DIR when the server stops.
    #[arg(long, value_name = "DIR")]
    coverage_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.host.is_loopback() {
        eprintln!(
            "baton-serve: refusing to listen on {} without credentials: baton serve has no authentication, so it listens on loopback only",
            args.host
        );
        return ExitCode::from(2);
    }
    let mut config = ServeConfig {
        host: args.host,
        port: args.port,
        deploy: args.deploy,
        coverage_dir: args.coverage_dir,
        ..ServeConfig::default()
    };
    for text in &args.mock {
        let Some((job_type, file)) = split_assignment(text) else {
            eprintln!("baton-serve: --mock {text}: expected JOBTYPE=FILE");
            return ExitCode::from(2);
        };
        config.mocks.push(JobMockFile { job_type, file });
    }
    for text in &args.agent {
        let Some((element_id, file)) = split_assignment(text) else {
            eprintln!("baton-serve: --agent {text}: expected ELEMENT=FILE");
            return ExitCode::from(2);
        };
        config.agents.push(AgentMockFile { element_id, file });
    }
    match Server::start(config) {
        Ok(server) => {
            println!(
                "baton serve: listening on {} (REST API at {}/v2)",
                server.addr(),
                server.url()
            );
            server.wait();
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("baton-serve: {e}");
            ExitCode::FAILURE
        }
    }
}
