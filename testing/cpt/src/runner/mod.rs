//! The runner: deploys each suite once, runs every test case in a fresh clone of it, one
//! instruction after the other, and stops a case at its first failing instruction (as CPT
//! does). After every instruction the run's errors are read: a mock that could not answer, an
//! AI agent mock that disagrees with the process, a runaway loop, a conditional behaviour
//! stuck on — each fails the case at once.
//!
//! By phase: this file finds the cases and runs the suites in order; `suite` deploys a suite's
//! resources; `case` runs one test case and collects what it leaves behind (warnings, cassette
//! reports, coverage, command logs); `step` runs one top-level instruction (`agent`: the agent
//! instructions).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::discover::{self, DiscoverError};
use super::results::{CaseFailure, CaseResult, Outcome, Report, SuiteInfo};
use baton_testing::agent::recording::{AgentCommand, TurnSource};
use baton_testing::coverage::CoverageFile;

mod agent;
mod case;
mod step;
mod suite;

pub use agent::expected_call;
use case::{CaseOutput, isolated, run_case};
use suite::deploy;

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Run only the cases whose `<file> › <name>` contains this text.
    pub filter: Option<String>,
    /// Write one coverage file per test case into this folder.
    pub coverage_dir: Option<PathBuf>,
    /// Resources deployed in every suite, besides those of the test file's folder.
    pub deploy: Vec<PathBuf>,
    /// Write each test case's run as its engine commands (a JSON command log, see
    /// `baton_engine::runtime::read_commands`) into this folder: replayed on a fresh engine,
    /// a log gives the same records.
    pub commands_dir: Option<PathBuf>,
    /// Run only part `K` of `N` (1-based) of the selected cases: the `i`-th case (in discovery
    /// order, from 0) belongs to part `i % N + 1`, the same split on every machine. The other
    /// parts' cases count as filtered out.
    pub shard: Option<(usize, usize)>,
    /// Record every cassette of MOCK_AI_AGENT (whatever its `mode` says) with
    /// [`agent_command`](Self::agent_command).
    pub record: bool,
    /// The program that answers each model call when recording (and, in drift mode, instead
    /// of the cassette).
    pub agent_command: Option<AgentCommand>,
    /// What answers each model call when recording without an agent command: a turn source
    /// per agent element (the provider client the `baton` command brings; this crate never
    /// reaches the network itself).
    pub model: Option<ModelSource>,
    /// Replay cassettes without failing on drift: each case reports how its trajectory changed
    /// against the cassette ([`CaseResult::cassettes`]).
    pub drift: bool,
    /// Run each case twice: once through, and once restored from a snapshot of its engine after
    /// every instruction (every wait point); the restored engine must have the same records at
    /// once, and the case the same records at its end (see `baton_testing::snapshot`).
    pub check_restore: bool,
}

/// A turn source for an agent element (its id given), for recording through a model.
#[derive(Clone)]
pub struct ModelSource(pub std::rc::Rc<dyn Fn(&str) -> TurnSource>);

impl std::fmt::Debug for ModelSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModelSource")
    }
}

/// What the runner reports while it runs (the command line prints from it).
#[derive(Debug)]
pub enum Event<'a> {
    /// Discovery is done: this many cases will run.
    Started { cases: usize },
    /// A suite was deployed; `notes` says what was not.
    Suite(&'a SuiteInfo),
    /// A case is about to run (`index` is 0-based).
    CaseStarted {
        title: String,
        index: usize,
        total: usize,
    },
    /// A case finished.
    CaseFinished {
        result: &'a CaseResult,
        index: usize,
        total: usize,
    },
}

/// Runs the test files of `paths` (files or folders).
pub fn run(paths: &[impl AsRef<Path>], options: &Options) -> Result<Report, DiscoverError> {
    run_with(paths, options, &mut |_| {})
}

/// Runs the test files of `paths`, telling `on_event` what happens.
pub fn run_with(
    paths: &[impl AsRef<Path>],
    options: &Options,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Report, DiscoverError> {
    let start = Instant::now();
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let suites = discover::discover(&paths, &options.deploy)?;
    let selected = |file: &Path, name: &str| {
        options
            .filter
            .as_deref()
            .is_none_or(|f| name.contains(f) || format!("{} › {name}", file.display()).contains(f))
    };
    let mut total = 0;
    let mut filtered_out = 0;
    // Per selected entry (a case, or a file that cannot be read), in order: whether this shard
    // runs it.
    let mut in_shard: Vec<bool> = Vec::new();
    let mine = |i: usize| options.shard.is_none_or(|(k, n)| i % n == k - 1);
    for suite in &suites {
        for file in &suite.files {
            match &file.content {
                Ok(f) => {
                    for case in &f.test_cases {
                        if selected(&file.path, &case.name) {
                            let runs = mine(in_shard.len());
                            in_shard.push(runs);
                            if runs {
                                total += 1;
                            } else {
                                filtered_out += 1;
                            }
                        } else {
                            filtered_out += 1;
                        }
                    }
                }
                Err(_) => {
                    let runs = mine(in_shard.len());
                    in_shard.push(runs);
                    if runs {
                        total += 1;
                    }
                }
            }
        }
    }
    let mut in_shard = in_shard.into_iter();
    on_event(Event::Started { cases: total });
    let mut cases: Vec<CaseResult> = Vec::with_capacity(total);
    let mut coverage: Vec<CoverageFile> = Vec::new();
    let mut infos = Vec::with_capacity(suites.len());
    for suite in &suites {
        let (deployment, info) = deploy(suite);
        on_event(Event::Suite(&info));
        for file in &suite.files {
            let test_file = match &file.content {
                Ok(f) => f,
                Err(_) if in_shard.next() == Some(false) => continue,
                Err(e) => {
                    let result = CaseResult {
                        file: file.path.clone(),
                        name: String::new(),
                        outcome: Outcome::Failed(CaseFailure {
                            instruction: None,
                            instruction_type: None,
                            message: format!("cannot read the test file: {e}"),
                            explanation: String::new(),
                        }),
                        warnings: Vec::new(),
                        cassettes: Vec::new(),
                        duration: Duration::ZERO,
                    };
                    finish(&mut cases, result, total, on_event);
                    continue;
                }
            };
            for case in &test_file.test_cases {
                if !selected(&file.path, &case.name) || in_shard.next() == Some(false) {
                    continue;
                }
                let title = format!("{} › {}", file.path.display(), case.name);
                on_event(Event::CaseStarted {
                    title: title.clone(),
                    index: cases.len(),
                    total,
                });
                let started = Instant::now();
                let output = match &deployment {
                    Ok(d) => isolated(|| run_case(d, &file.path, case, &title, options))
                        .unwrap_or_else(CaseOutput::failed),
                    Err(message) => CaseOutput::failed(message.clone()),
                };
                if let Some(data) = output.coverage {
                    coverage.push(data);
                }
                let result = CaseResult {
                    file: file.path.clone(),
                    name: case.name.clone(),
                    outcome: output.outcome,
                    warnings: output.warnings,
                    cassettes: output.cassettes,
                    duration: started.elapsed(),
                };
                finish(&mut cases, result, total, on_event);
            }
        }
        infos.push(info);
    }
    Ok(Report {
        suites: infos,
        cases,
        coverage: baton_testing::coverage::merge(&coverage),
        case_coverage: coverage,
        filtered_out,
        duration: start.elapsed(),
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
