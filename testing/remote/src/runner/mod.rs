//! The remote runner: the test files found as `baton test` finds them (baton-cpt's discovery,
//! the same report), each case run on the endpoint: its folder's resources deployed, its
//! instructions sent as REST calls, its assertions polled, and the endpoint cleaned after it.
//!
//! By phase: this file finds the cases and runs them in order; `case` runs one case (deploy,
//! steps, clean-up); `session` is the case's view of the endpoint (searches scoped to the
//! case, the mock job workers pumped while anything waits); `actions` and `checks` run the
//! instructions that act and that assert; `jobs` finds the job an instruction names; `agent`
//! plays MOCK_AI_AGENT as a job worker.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use baton_cpt::discover::{self, DiscoverError};
use baton_cpt::{CaseFailure, CaseResult, Event, Outcome, Report, SuiteInfo};

use crate::client::{CallError, Client};

mod actions;
mod agent;
mod case;
mod checks;
mod jobs;
mod observe;
mod session;

pub use observe::{Observation, ObservedInstance};

/// How to run against the endpoint.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// How long an assertion (and a targeted action's search) polls before it fails.
    pub assert_timeout: Duration,
    /// Run only the cases whose `<file> › <name>` contains this text.
    pub filter: Option<String>,
    /// Resources deployed with every case, besides those of the test file's folder.
    pub deploy: Vec<PathBuf>,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            assert_timeout: Duration::from_secs(10),
            filter: None,
            deploy: Vec::new(),
        }
    }
}

/// Why a run did not start.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    #[error("the endpoint {base} does not answer as Camunda's REST API v2: {error}")]
    Unreachable { base: String, error: CallError },
}

/// One case's outcome and what it left on the endpoint (`--compare`).
#[derive(Debug, Clone)]
pub struct CaseObservation {
    /// `<file> › <name>`.
    pub title: String,
    pub outcome: Outcome,
    /// What the case left, or why it could not be read.
    pub observation: Result<Observation, String>,
}

/// Runs the test files of `paths` against the endpoint of `client`.
pub fn run_remote(
    client: &Client,
    paths: &[impl AsRef<Path>],
    options: &RemoteOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Report, RemoteError> {
    run_inner(client, paths, options, on_event, false).map(|(report, _)| report)
}

/// Runs the test files as [`run_remote`] does, and reads back what each case left on the
/// endpoint before cleaning it (for [`compare`](crate::compare)).
pub fn observe_remote(
    client: &Client,
    paths: &[impl AsRef<Path>],
    options: &RemoteOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, Vec<CaseObservation>), RemoteError> {
    run_inner(client, paths, options, on_event, true)
}

fn run_inner(
    client: &Client,
    paths: &[impl AsRef<Path>],
    options: &RemoteOptions,
    on_event: &mut dyn FnMut(Event<'_>),
    observe: bool,
) -> Result<(Report, Vec<CaseObservation>), RemoteError> {
    let mut observations = Vec::new();
    let start = Instant::now();
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let suites = discover::discover(&paths, &options.deploy)?;
    // The start check CPT's remote runtime makes: the topology answers.
    client
        .call::<serde_json::Value>("GET", "/v2/topology", None::<&()>)
        .map_err(|error| RemoteError::Unreachable {
            base: client.base().to_owned(),
            error,
        })?;
    let selected = |file: &Path, name: &str| {
        options
            .filter
            .as_deref()
            .is_none_or(|f| name.contains(f) || format!("{} › {name}", file.display()).contains(f))
    };
    let mut total = 0;
    let mut filtered_out = 0;
    for suite in &suites {
        for file in &suite.files {
            match &file.content {
                Ok(f) => {
                    for case in &f.test_cases {
                        if selected(&file.path, &case.name) {
                            total += 1;
                        } else {
                            filtered_out += 1;
                        }
                    }
                }
                Err(_) => total += 1,
            }
        }
    }
    on_event(Event::Started { cases: total });
    let mut endpoint = case::Endpoint::new(client, options);
    let mut cases: Vec<CaseResult> = Vec::with_capacity(total);
    let mut infos = Vec::with_capacity(suites.len());
    for suite in &suites {
        let info = SuiteInfo {
            dir: suite.dir.clone(),
            resources: suite.resources.clone(),
            notes: Vec::new(),
        };
        on_event(Event::Suite(&info));
        let resources = case::read_resources(&suite.resources);
        for file in &suite.files {
            let test_file = match &file.content {
                Ok(f) => f,
                Err(e) => {
                    let result = CaseResult {
                        file: file.path.clone(),
                        name: String::new(),
                        outcome: failed(None, format!("cannot read the test file: {e}")),
                        warnings: Vec::new(),
                        cassettes: Vec::new(),
                        duration: Duration::ZERO,
                    };
                    finish(&mut cases, result, total, on_event);
                    continue;
                }
            };
            for tc in &test_file.test_cases {
                if !selected(&file.path, &tc.name) {
                    continue;
                }
                let title = format!("{} › {}", file.path.display(), tc.name);
                on_event(Event::CaseStarted {
                    title: title.clone(),
                    index: cases.len(),
                    total,
                });
                let started = Instant::now();
                let (outcome, warnings, observed) = match &resources {
                    Ok(resources) => endpoint.run_case(resources, tc, observe),
                    Err(message) => (failed(None, message.clone()), Vec::new(), None),
                };
                if observe {
                    observations.push(CaseObservation {
                        title,
                        outcome: outcome.clone(),
                        observation: observed
                            .unwrap_or_else(|| Err("the case did not run".to_owned())),
                    });
                }
                let result = CaseResult {
                    file: file.path.clone(),
                    name: tc.name.clone(),
                    outcome,
                    warnings,
                    cassettes: Vec::new(),
                    duration: started.elapsed(),
                };
                finish(&mut cases, result, total, on_event);
            }
        }
        infos.push(info);
    }
    let report = Report {
        suites: infos,
        cases,
        coverage: baton_testing::coverage::merge(&[]),
        case_coverage: Vec::new(),
        filtered_out,
        duration: start.elapsed(),
    };
    Ok((report, observations))
}

fn failed(instruction: Option<(usize, &str)>, message: String) -> Outcome {
    Outcome::Failed(CaseFailure {
        instruction: instruction.map(|(i, _)| i),
        instruction_type: instruction.map(|(_, t)| t.to_owned()),
        message,
        explanation: String::new(),
    })
}

fn finish(
    cases: &mut Vec<CaseResult>,
    result: CaseResult,
    total: usize,
    on_event: &mut dyn FnMut(Event<'_>),
) {
    let index = cases.len();
    cases.push(result);
    on_event(Event::CaseFinished {
        result: &cases[index],
        index,
        total,
    });
}
