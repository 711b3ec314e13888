//! What a server is started with.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// How to start a server: `ServeConfig::default()` listens on 127.0.0.1:8080 with nothing
/// deployed; `.port(0)` takes a free port (tests).
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub host: IpAddr,
    /// 0: any free port (the handle tells which).
    pub port: u16,
    /// BPMN, DMN and form files deployed (as one deployment) before the first request.
    pub deploy: Vec<PathBuf>,
    /// Job mocks registered at start.
    pub mocks: Vec<JobMockFile>,
    /// AI Agent mocks registered at start (after the deployment: the element must exist).
    pub agents: Vec<AgentMockFile>,
    /// Where the coverage of everything the clients did is written when the server stops.
    pub coverage_dir: Option<PathBuf>,
    /// How long a job activation waits for a job when the request says `requestTimeout: 0`
    /// (Zeebe's gateway default: 10 s).
    pub long_poll_timeout: Duration,
    /// How long `awaitCompletion` waits when the request gives no `requestTimeout` (Zeebe's
    /// gateway default request timeout: 15 s).
    pub request_timeout: Duration,
    /// The largest request body accepted, in bytes (deployments included).
    pub max_body_bytes: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            host: IpAddr::from([127, 0, 0, 1]),
            port: 8080,
            deploy: Vec::new(),
            mocks: Vec::new(),
            agents: Vec::new(),
            coverage_dir: None,
            long_poll_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(15),
            max_body_bytes: 16 * 1024 * 1024,
        }
    }
}

impl ServeConfig {
    /// The port to listen on (0: a free one).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Deploys this file at start.
    pub fn deploy(mut self, path: impl Into<PathBuf>) -> Self {
        self.deploy.push(path.into());
        self
    }

    /// Answers the jobs of `job_type` as the file says (see [`JobMockFile`]).
    pub fn mock(mut self, job_type: impl Into<String>, file: impl Into<PathBuf>) -> Self {
        self.mocks.push(JobMockFile {
            job_type: job_type.into(),
            file: file.into(),
        });
        self
    }

    /// Plays the AI Agent connector for `element_id` with the turns of the file (see
    /// [`AgentMockFile`]).
    pub fn agent(mut self, element_id: impl Into<String>, file: impl Into<PathBuf>) -> Self {
        self.agents.push(AgentMockFile {
            element_id: element_id.into(),
            file: file.into(),
        });
        self
    }
}

/// `--mock JOBTYPE=FILE`: a JSON file like a CPT `MOCK_JOB_WORKER_*` instruction without its
/// job type: `{"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "variables": {...}}` or
/// `{"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR", "errorCode": "...", "errorMessage": "...",
/// "variables": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobMockFile {
    pub job_type: String,
    pub file: PathBuf,
}

/// `--agent ELEMENT=FILE`: the model's turns for an AI Agent element: a cassette, a JSON
/// array of turns, or `{"turns": [...]}` as in CPT's `MOCK_AI_AGENT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentMockFile {
    pub element_id: String,
    pub file: PathBuf,
}

/// Reads `NAME=FILE` (the form of `--mock` and `--agent`).
pub fn split_assignment(text: &str) -> Option<(String, PathBuf)> {
    let (name, file) = text.split_once('=')?;
    (!name.is_empty() && !file.is_empty()).then(|| (name.to_owned(), PathBuf::from(file)))
}
