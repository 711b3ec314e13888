//! `baton serve`: Camunda 8's REST API (v2) over baton's engine, until the process ends
//! (see `docs/serve.md`). Arguments and printing only: the server is `baton-serve`.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use baton_serve::config::split_assignment;
use baton_serve::{AgentMockFile, Auth, JobMockFile, ServeConfig, Server};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The port to listen on (0: a free one, printed at start).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on. Anything but loopback needs credentials
    /// (BATON_SERVE_BASIC_AUTH=user:password or BATON_SERVE_BEARER_TOKEN in the environment)
    /// or --unsafe-no-auth.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Listen on a non-loopback address without credentials: anyone who reaches it can deploy
    /// and run processes.
    #[arg(long)]
    unsafe_no_auth: bool,
    /// Deploy FILE (.bpmn, .dmn, .form) before the first request (repeatable).
    #[arg(long, value_name = "FILE")]
    deploy: Vec<PathBuf>,
    /// Answer the jobs of JOBTYPE as FILE says (a MOCK_JOB_WORKER_* instruction; repeatable).
    #[arg(long, value_name = "JOBTYPE=FILE")]
    mock: Vec<String>,
    /// Play the AI Agent connector for ELEMENT with FILE's turns (a cassette or turns; repeatable).
    #[arg(long, value_name = "ELEMENT=FILE")]
    agent: Vec<String>,
    /// Keep the command log in DIR: every command is on disk before it is acknowledged, and a
    /// restart replays it.
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Write the coverage of everything the clients did into DIR when the server stops.
    #[arg(long, value_name = "DIR")]
    coverage_dir: Option<PathBuf>,
}

pub fn run(args: &Args) -> ExitCode {
    match config(args) {
        Ok(config) => match Server::start(config) {
            Ok(server) => {
                outln!(
                    "baton serve: listening on {} (REST API at {}/v2)",
                    server.addr(),
                    server.url()
                );
                server.wait();
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("baton serve: {e}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("baton serve: {message}");
            ExitCode::from(2)
        }
    }
}

fn config(args: &Args) -> Result<ServeConfig, String> {
    let mut config = ServeConfig {
        host: args.host,
        port: args.port,
        deploy: args.deploy.clone(),
        coverage_dir: args.coverage_dir.clone(),
        data_dir: args.data.clone(),
        auth: auth()?,
        unsafe_no_auth: args.unsafe_no_auth,
        ..ServeConfig::default()
    };
    for text in &args.mock {
        let (job_type, file) = split_assignment(text)
            .ok_or_else(|| format!("--mock {text}: expected JOBTYPE=FILE"))?;
        config.mocks.push(JobMockFile { job_type, file });
    }
    for text in &args.agent {
        let (element_id, file) = split_assignment(text)
            .ok_or_else(|| format!("--agent {text}: expected ELEMENT=FILE"))?;
        config.agents.push(AgentMockFile { element_id, file });
    }
    Ok(config)
}

/// Credentials come from the environment: a command line shows in the process list.
fn auth() -> Result<Option<Auth>, String> {
    if let Ok(pair) = std::env::var("BATON_SERVE_BASIC_AUTH") {
        let (username, password) = pair
            .split_once(':')
            .ok_or("BATON_SERVE_BASIC_AUTH: expected user:password")?;
        return Ok(Some(Auth::Basic {
            username: username.to_owned(),
            password: password.to_owned(),
        }));
    }
    Ok(std::env::var("BATON_SERVE_BEARER_TOKEN")
        .ok()
        .map(Auth::Bearer))
}
