//! The runner: deploys each suite once, runs every test case in a fresh clone of it, one
//! instruction after the other, and stops a case at its first failing instruction (as CPT
//! does). After every instruction the run's errors are read: a mock that could not answer, an
//! AI agent mock that disagrees with the process, a runaway loop, a conditional behaviour
//! stuck on — each fails the case at once.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use serde_json::Value;

use super::behavior::{self, BehaviorLog};
use super::discover::{self, DiscoverError, Suite};
use super::exec::{self, Ctx, Done, InstructionFailure, TopLevel};
use super::model::{AgentTurns, Instruction, Step, TestCase};
use super::results::{CaseFailure, CaseResult, Outcome, Report, SuiteInfo};
use crate::agent::recording::{AgentCommand, CassetteMode, CassetteScript};
use crate::agent::{
    AgentScript, AiAgentHandle, ExpectedAgentInstance, ExpectedCall, Matcher, Turn,
};
use crate::coverage::CoverageFile;
use crate::mocks::Answer;
use crate::{Deployment, ProcessTest};

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
    /// Replay cassettes without failing on drift: each case reports how its trajectory changed
    /// against the cassette ([`CaseResult::cassettes`]).
    pub drift: bool,
    /// Run each case twice: once through, and once restored from a snapshot of its engine after
    /// every instruction (every wait point); the restored engine must have the same records at
    /// once, and the case the same records at its end (see `crate::snapshot`).
    pub check_restore: bool,
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
        coverage: crate::coverage::merge(&coverage),
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

fn is_bpmn(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "bpmn")
}

/// Deploys a suite's resources as one deployment. When that fails, the BPMN files alone are
/// deployed and each other resource (DMN, form) is added on its own where it can be; what could
/// not be deployed becomes a note (a case that needs it then fails and says why).
fn deploy(suite: &Suite) -> (Result<Deployment, String>, SuiteInfo) {
    let mut notes: Vec<String> = Vec::new();
    for file in &suite.files {
        if let Ok(f) = &file.content {
            notes.extend(
                f.warnings
                    .iter()
                    .map(|w| format!("{}: {w}", file.path.display())),
            );
        }
    }
    let mut deployment = Deployment::new();
    let all = deployment.add_files(&suite.resources).map(|_| ());
    let result = match all {
        Ok(()) => Ok(deployment),
        Err(_) => {
            let bpmn: Vec<PathBuf> = suite
                .resources
                .iter()
                .filter(|p| is_bpmn(p))
                .cloned()
                .collect();
            let mut deployment = Deployment::new();
            match deployment.add_files(&bpmn) {
                Err(e) => Err(format!(
                    "the resources of {} do not deploy:\n{e}",
                    suite.dir.display()
                )),
                Ok(_) => {
                    // Grouped by reason: (reason, file names).
                    let mut left_out: Vec<(String, Vec<String>)> = Vec::new();
                    for other in suite.resources.iter().filter(|p| !is_bpmn(p)) {
                        let mut with = deployment.clone();
                        match with.add_files(std::slice::from_ref(other)) {
                            Ok(_) => deployment = with,
                            Err(e) => {
                                let reason = reason_of(&e.to_string(), other);
                                let name = other.file_name().map_or_else(
                                    || other.display().to_string(),
                                    |n| n.to_string_lossy().into_owned(),
                                );
                                match left_out.iter_mut().find(|(r, _)| *r == reason) {
                                    Some((_, files)) => files.push(name),
                                    None => left_out.push((reason, vec![name])),
                                }
                            }
                        }
                    }
                    for (reason, files) in left_out {
                        notes.push(format!(
                            "{}: not deployed: {} ({reason})",
                            suite.dir.display(),
                            files.join(", ")
                        ));
                    }
                    Ok(deployment)
                }
            }
        }
    };
    let info = SuiteInfo {
        dir: suite.dir.clone(),
        resources: suite.resources.clone(),
        notes,
    };
    (result, info)
}

/// The first problem of a deploy error, without the file's name and position (so the same
/// reason groups the files it applies to).
fn reason_of(error: &str, path: &Path) -> String {
    let line = error
        .lines()
        .find(|l| !l.starts_with("Expected to deploy new resources"))
        .unwrap_or_default();
    let shown = path.display().to_string();
    let rest = line.strip_prefix(shown.as_str()).unwrap_or(line);
    let rest = rest.trim_start_matches(':');
    // `line:col: ` of a diagnostic.
    let rest = match rest.split_once(": ") {
        Some((position, tail))
            if !position.is_empty() && position.chars().all(|c| c.is_ascii_digit() || c == ':') =>
        {
            tail
        }
        _ => rest,
    };
    rest.trim().to_owned()
}

/// The instructions of CPT's unreleased development line baton reads but does not run.
fn dev_line_features(case: &TestCase) -> Vec<&'static str> {
    let mut found = Vec::new();
    let mut visit = |step: &Step| {
        let feature = match &step.instruction {
            Instruction::ReleaseJob(_)
            | Instruction::TriggerTimer(_)
            | Instruction::RunCalledProcess(_)
            | Instruction::StubCallActivityComplete(_)
            | Instruction::StubCallActivityThrowError(_) => Some(step.instruction.type_name()),
            Instruction::CreateProcessInstance(c) if c.reserve_jobs => Some("reserveJobs"),
            Instruction::CreateProcessInstance(c) if c.stub_call_activities => {
                Some("stubCallActivities")
            }
            Instruction::CreateProcessInstance(c) if c.hold_timers => Some("holdTimers"),
            _ => None,
        };
        if let Some(f) = feature
            && !found.contains(&f)
        {
            found.push(f);
        }
    };
    for step in &case.instructions {
        visit(step);
        for nested in step.instruction.nested() {
            visit(nested);
        }
    }
    found
}

/// Runs `f`, turning a panic into the failure message of the case or instruction it ran: a bug
/// in baton fails that case alone, and the run goes on to the next case and the summary.
fn isolated<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("baton panicked (a bug in baton; please report it): {message}")
    })
}

/// Mock answers by job type, shared with the answerers of elements.
type Answers = Rc<RefCell<IndexMap<String, Answer>>>;

/// The state of one running test case.
struct CaseState<'a> {
    test: &'a ProcessTest,
    /// The folder of the test file (cassettes are relative to it).
    dir: PathBuf,
    agents: IndexMap<String, AiAgentHandle>,
    /// The answers of the MOCK_JOB_WORKER_* instructions without `elementId`, by job type: what
    /// an element with mocks of its own answers for the other job types.
    type_answers: Answers,
    /// The MOCK_JOB_WORKER_* instructions with `elementId`: per element, answers by job type.
    element_answers: IndexMap<String, Answers>,
    behaviors: Rc<RefCell<BehaviorLog>>,
    behavior_count: usize,
    warnings: Vec<String>,
    options: &'a Options,
    /// The snapshots SAVE_SNAPSHOT kept by name.
    snapshots: IndexMap<String, crate::snapshot::Snapshot>,
}

/// How a case ended, its warnings, what its cassettes did, and its coverage (none when it did
/// not run).
struct CaseOutput {
    outcome: Outcome,
    warnings: Vec<String>,
    cassettes: Vec<String>,
    coverage: Option<CoverageFile>,
    /// The engine's record log at the end (compared by `check_restore`).
    log: String,
}

impl CaseOutput {
    fn failed(message: String) -> CaseOutput {
        CaseOutput {
            outcome: Outcome::Failed(CaseFailure {
                instruction: None,
                instruction_type: None,
                message,
                explanation: String::new(),
            }),
            log: String::new(),
            warnings: Vec::new(),
            cassettes: Vec::new(),
            coverage: None,
        }
    }
}

fn run_case(
    deployment: &Deployment,
    file: &Path,
    case: &TestCase,
    title: &str,
    options: &Options,
) -> CaseOutput {
    let plain = run_case_once(deployment, file, case, title, options, false);
    if !options.check_restore || !matches!(plain.outcome, Outcome::Passed) {
        return plain;
    }
    let restored = run_case_once(deployment, file, case, title, options, true);
    if !matches!(restored.outcome, Outcome::Passed) {
        return restored;
    }
    match super::faults::first_difference(&plain.log, &restored.log) {
        None => plain,
        Some(difference) => CaseOutput::failed(format!(
            "restored from a snapshot after every instruction, the case ends with other records than run through: {difference}"
        )),
    }
}

fn run_case_once(
    deployment: &Deployment,
    file: &Path,
    case: &TestCase,
    title: &str,
    options: &Options,
    restore_every_step: bool,
) -> CaseOutput {
    let dev = dev_line_features(case);
    if !dev.is_empty() {
        return CaseOutput {
            outcome: Outcome::Skipped {
                reason: format!(
                    "uses {}, from CPT's unreleased development line (8.11), which baton reads but does not run",
                    dev.join(", ")
                ),
            },
            warnings: Vec::new(),
            cassettes: Vec::new(),
            coverage: None,
            log: String::new(),
        };
    }
    let mut test = deployment.test().named(title);
    let snapshots = case
        .instructions
        .iter()
        .any(|s| matches!(s.instruction, Instruction::SaveSnapshot(_)));
    if options.commands_dir.is_some() || restore_every_step || snapshots {
        test = test.record_commands();
    }
    let mut state = CaseState {
        test: &test,
        dir: crate::files::folder_of(file).to_path_buf(),
        agents: IndexMap::new(),
        type_answers: Rc::default(),
        element_answers: IndexMap::new(),
        behaviors: Rc::new(RefCell::new(BehaviorLog::default())),
        behavior_count: 0,
        warnings: Vec::new(),
        options,
        snapshots: IndexMap::new(),
    };
    let mut skipped: Vec<String> = Vec::new();
    let mut outcome = None;
    for (i, step) in case.instructions.iter().enumerate() {
        let failed = |f: InstructionFailure| {
            Outcome::Failed(CaseFailure {
                instruction: Some(i + 1),
                instruction_type: Some(step.instruction.type_name().to_owned()),
                message: f.message,
                explanation: f.explanation,
            })
        };
        let errors_before = test.errors().len();
        let behavior_errors_before = state.behaviors.borrow().errors.len();
        let result =
            isolated(|| run_step(&mut state, &step.instruction)).unwrap_or_else(|message| {
                Err(InstructionFailure {
                    message,
                    explanation: String::new(),
                })
            });
        match result {
            Ok(Done::Ok) => {}
            Ok(Done::Skipped(reason)) => skipped.push(format!(
                "instruction {} ({}): {reason}",
                i + 1,
                step.instruction.type_name()
            )),
            Err(f) => {
                outcome = Some(failed(f));
                break;
            }
        }
        let errors = test.errors();
        if errors.len() > errors_before {
            let message = errors[errors_before..]
                .iter()
                .map(|e| e.message.clone())
                .collect::<Vec<_>>()
                .join("\n");
            outcome = Some(failed(InstructionFailure {
                message: format!("the run failed: {message}"),
                explanation: exec::explain_all(&test),
            }));
            break;
        }
        let stuck = state.behaviors.borrow().errors[behavior_errors_before..].to_vec();
        if !stuck.is_empty() {
            outcome = Some(failed(InstructionFailure {
                message: stuck.join("\n"),
                explanation: exec::explain_all(&test),
            }));
            break;
        }
        if restore_every_step && let Err(message) = test.reload_engine() {
            outcome = Some(failed(InstructionFailure {
                message,
                explanation: String::new(),
            }));
            break;
        }
    }
    // How the runs ended and what they reached (ASSERT_INVARIANT ENDS_IN, REACHES); a broken
    // invariant the case already failed with is read here too.
    let broken = test.check_invariants();
    if outcome.is_none()
        && let Err(message) = broken
    {
        outcome = Some(Outcome::Failed(CaseFailure {
            instruction: None,
            instruction_type: None,
            message: format!("the run failed: {message}"),
            explanation: exec::explain_all(&test),
        }));
    }
    // A replayed cassette's recorded calls the run did not make: the case's drift.
    if outcome.is_none() && !options.drift {
        for (element_id, handle) in &state.agents {
            if let Err(message) = handle.check_cassette() {
                outcome = Some(Outcome::Failed(CaseFailure {
                    instruction: None,
                    instruction_type: None,
                    message: format!("MOCK_AI_AGENT \"{element_id}\": {message}"),
                    explanation: exec::explain_all(&test),
                }));
                break;
            }
        }
    }
    // A fault that never played tested nothing: say so (as CPT says nothing of unused mocks,
    // it does not fail the case).
    for fault in test.unplayed_faults() {
        state.warnings.push(format!(
            "INJECT_JOB_FAULT: {fault} was never played: no such job was activated"
        ));
    }
    for handle in state.agents.values() {
        for fault in handle.unplayed_faults() {
            state
                .warnings
                .push(format!("INJECT_MODEL_FAULT: {fault} was never played"));
        }
    }
    let cassettes = cassette_report(&state.agents, options.drift);
    let outcome = outcome.unwrap_or(if skipped.is_empty() {
        Outcome::Passed
    } else {
        Outcome::Skipped {
            reason: skipped.join("; "),
        }
    });
    let mut warnings = std::mem::take(&mut state.warnings);
    warnings.extend(state.behaviors.borrow().warnings.iter().cloned());
    drop(state);
    let data = test.coverage_file();
    if let Some(dir) = &options.coverage_dir
        && let Err(e) = crate::coverage::write_file(dir, &data)
    {
        warnings.push(format!("the coverage file was not written: {e}"));
    }
    if let Some(dir) = &options.commands_dir
        && let Err(e) = write_commands(dir, title, &test)
    {
        warnings.push(format!("the command log was not written: {e}"));
    }
    let log = test.with_engine(|e| e.render_log());
    CaseOutput {
        outcome,
        warnings,
        cassettes,
        coverage: Some(data),
        log,
    }
}

/// Per agent with a cassette: what it recorded; in drift mode, how the run left the cassette,
/// or that it did not.
fn cassette_report(agents: &IndexMap<String, AiAgentHandle>, drift: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for (element_id, handle) in agents {
        let Some(source) = handle.cassette_source() else {
            continue;
        };
        if handle.is_recording() {
            let calls = handle.recorded_calls();
            lines.push(format!(
                "\"{element_id}\" recorded {source} ({calls} model call{})",
                if calls == 1 { "" } else { "s" }
            ));
            continue;
        }
        if !drift {
            continue;
        }
        let changes = handle.drift_report();
        if changes.is_empty() {
            lines.push(format!("\"{element_id}\" followed {source}"));
        } else {
            lines.push(format!("\"{element_id}\" left {source}:"));
            lines.extend(
                changes
                    .into_iter()
                    .map(|c| format!("  {}", c.replace('\n', "\n  "))),
            );
        }
    }
    lines
}

/// Writes a test case's commands as `<title>-<hash>.json` into `dir` (created if missing),
/// atomically (a temporary file, then a rename). Returns the path.
fn write_commands(dir: &Path, title: &str, test: &ProcessTest) -> Result<PathBuf, String> {
    let commands = test.commands().map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(&commands).map_err(|e| e.to_string())?;
    let name = crate::coverage::file_name(title, &json);
    crate::files::write_atomically(dir, &name, &json)
        .map_err(|(path, e)| format!("{}: {e}", path.display()))
}

fn failure(state: &mut CaseState<'_>, message: impl Into<String>) -> InstructionFailure {
    InstructionFailure {
        message: message.into(),
        explanation: exec::explain_all(state.test),
    }
}

/// Runs one top-level instruction.
fn run_step(
    state: &mut CaseState<'_>,
    instruction: &Instruction,
) -> Result<Done, InstructionFailure> {
    let test = state.test;
    let mut ctx = TopLevel(test);
    if let Some(result) = exec::run_generic(&mut ctx, instruction) {
        return result;
    }
    use Instruction as I;
    match instruction {
        I::AssertVariable(a) => exec::assert_variable(&mut ctx, a),
        I::CreateProcessInstance(c) => {
            let Some(id) = c.process_definition_selector.process_definition_id.clone() else {
                return Err(failure(
                    state,
                    "Missing required property: processDefinitionId",
                ));
            };
            let mut request =
                crate::CreateInstance::new(id.clone()).variables(exec::document(&c.variables));
            request.start_instructions = c
                .start_instructions
                .iter()
                .map(|s| s.element_id.clone())
                .collect();
            request.terminate_after = c
                .runtime_instructions
                .iter()
                .map(|r| r.after_element_id.clone())
                .collect();
            test.try_start(request)
                .map(|_| Done::Ok)
                .map_err(|e| InstructionFailure {
                    message: e.message,
                    explanation: e.explanation,
                })
        }
        I::IncreaseTime(t) => {
            let ms = crate::clock::parse_duration(&t.duration)
                .map_err(|m| failure(state, m.to_string()))?;
            test.advance_time(Duration::from_millis(ms.max(0) as u64));
            Ok(Done::Ok)
        }
        I::SetTime(t) => {
            crate::clock::parse_instant(&t.time).map_err(|m| failure(state, m.to_string()))?;
            test.set_time(&t.time);
            Ok(Done::Ok)
        }
        I::MockJobWorkerCompleteJob(m) => {
            let answer = if m.use_example_data {
                Answer::CompleteWithExampleData
            } else {
                Answer::complete(Value::Object(m.variables.clone()))
            };
            if let Some(effect) = &m.side_effect {
                let declared = effect
                    .declared()
                    .map_err(|e| failure(state, format!("sideEffect: {e}")))?;
                let jobs = match &m.element_id {
                    Some(element) => crate::faults::Jobs::at_element(element),
                    None => crate::faults::Jobs::of_type(&m.job_type),
                };
                test.try_declare_side_effect(jobs, declared)
                    .map_err(|e| failure(state, e.to_string()))?;
            }
            mock_job_worker(state, &m.job_type, m.element_id.as_deref(), answer);
            Ok(Done::Ok)
        }
        I::MockJobWorkerThrowBpmnError(m) => {
            let answer = Answer::throw_error(
                m.error_code.clone(),
                m.error_message.clone().unwrap_or_default(),
            )
            .with_variables(Value::Object(m.variables.clone()));
            mock_job_worker(state, &m.job_type, m.element_id.as_deref(), answer);
            Ok(Done::Ok)
        }
        I::AssertIncident(a) => super::incident::assert_incident(&mut ctx, a).map(|()| Done::Ok),
        I::SetClusterVariables(s) => {
            let vars = exec::document(&s.variables);
            ctx.command(|engine| engine.set_cluster_variables(s.tenant_id.as_deref(), vars))
                .map(|()| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "setting cluster variables: the engine rejected it: {}",
                            r.message
                        ),
                    )
                })
        }
        I::SuspendProcessInstance(c) => {
            exec::suspend_or_resume(&mut ctx, &c.process_instance_selector, true).map(|()| Done::Ok)
        }
        I::ResumeProcessInstance(c) => {
            exec::suspend_or_resume(&mut ctx, &c.process_instance_selector, false)
                .map(|()| Done::Ok)
        }
        I::CreateGlobalTaskListener(l) => {
            let mut listener = baton_engine::runtime::GlobalTaskListener::new(
                l.id.clone(),
                l.job_type.clone(),
                l.event_types.iter().cloned(),
            );
            listener.after_non_global = l.after_non_global;
            if let Some(r) = l.retries {
                listener.retries = i32::try_from(r).unwrap_or(i32::MAX);
            }
            if let Some(p) = l.priority {
                listener.priority = i32::try_from(p).unwrap_or(i32::MAX);
            }
            ctx.command(|engine| engine.create_global_task_listener(listener))
                .map(|()| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "creating global task listener \"{}\": the engine rejected it: {}",
                            l.id, r.message
                        ),
                    )
                })
        }
        I::MockChildProcess(m) => {
            if !is_ncname(&m.process_definition_id) {
                return Err(failure(
                    state,
                    format!(
                        "cannot mock child process \"{}\": a BPMN process id must be an XML name (letters, digits, '-', '_', '.'; not starting with a digit)",
                        m.process_definition_id
                    ),
                ));
            }
            if let Some(tag) = &m.version_tag {
                state.warnings.push(format!(
                    "MOCK_CHILD_PROCESS \"{}\": versionTag \"{tag}\" is not applied; the stand-in replaces the process for every binding",
                    m.process_definition_id
                ));
            }
            test.mock_child_process(&m.process_definition_id, Value::Object(m.variables.clone()));
            Ok(Done::Ok)
        }
        I::MockDmnDecision(m) => {
            let output = m
                .decision_output
                .clone()
                .unwrap_or_else(|| Value::Object(m.variables.clone().unwrap_or_default()));
            test.mock_decision(m.decision_definition_id.clone(), output);
            Ok(Done::Ok)
        }
        I::EvaluateDecision(e) => {
            let Some(id) = e
                .decision_definition_selector
                .decision_definition_id
                .as_deref()
            else {
                return Err(failure(
                    state,
                    "Missing required property: decisionDefinitionId",
                ));
            };
            let vars = exec::document(&e.variables);
            ctx.command(|engine| engine.evaluate_decision(id, vars))
                .map(|_| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "evaluating decision \"{id}\": the engine rejected it: {}",
                            r.message
                        ),
                    )
                })
        }
        I::EvaluateConditionalStartEvent(e) => {
            let vars = exec::document(&e.variables);
            ctx.command(|engine| engine.evaluate_conditional_start_events(vars, None))
                .map(|_| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "evaluating the conditional start events: the engine rejected it: {}",
                            r.message
                        ),
                    )
                })
        }
        I::ConditionalBehavior(b) => {
            state.behavior_count += 1;
            behavior::register(test, b, state.behavior_count, state.behaviors.clone())
                .map(|()| Done::Ok)
                .map_err(|m| failure(state, m))
        }
        I::InjectJobFault(_)
        | I::InjectModelFault(_)
        | I::SetJobTimeout(_)
        | I::SetTimeSkipping(_)
        | I::AssertInvariant(_)
        | I::AssertSideEffects(_)
        | I::SaveSnapshot(_)
        | I::RestoreSnapshot(_) => fault_step(state, instruction),
        I::MockAiAgent(m) => mock_ai_agent(state, m),
        I::AssertAiAgent(a) => assert_ai_agent(state, a),
        other => Err(failure(
            state,
            format!("{} is not run by baton", other.type_name()),
        )),
    }
}

/// MOCK_JOB_WORKER_*: a standing mock of a job type, or with baton's `elementId` of the jobs of
/// that type at one element (camunda/camunda#60882: tools sharing a job type mocked one by one).
/// An element's own mock wins; for the job types it has no mock of, the element answers as the
/// job type's mock (or leaves the job waiting).
fn mock_job_worker(
    state: &mut CaseState<'_>,
    job_type: &str,
    element_id: Option<&str>,
    answer: Answer,
) {
    let Some(element) = element_id else {
        if state.test.job_mock(job_type).is_some() {
            state.warnings.push(format!(
                "a second mock job worker for \"{job_type}\" replaces the first (in CPT both would compete for the jobs)"
            ));
        }
        state
            .type_answers
            .borrow_mut()
            .insert(job_type.to_owned(), answer.clone());
        let _ = state.test.mock_job(job_type.to_owned()).answer(answer);
        return;
    };
    if state.agents.shift_remove(element).is_some() {
        state.warnings.push(format!(
            "the mock job worker at \"{element}\" replaces the MOCK_AI_AGENT of that element"
        ));
    }
    let answers = state
        .element_answers
        .entry(element.to_owned())
        .or_default()
        .clone();
    if answers
        .borrow_mut()
        .insert(job_type.to_owned(), answer)
        .is_some()
    {
        state.warnings.push(format!(
            "a second mock job worker for \"{job_type}\" at \"{element}\" replaces the first"
        ));
    }
    // Registered again each time, so that the element's jobs waiting now are offered again.
    let by_type = state.type_answers.clone();
    state.test.answer_jobs_of_element(
        element,
        format!("mock job worker at \"{element}\""),
        move |job: &crate::TestJob| {
            let own = answers.borrow().get(&job.job_type).cloned();
            own.or_else(|| by_type.borrow().get(&job.job_type).cloned())
                .unwrap_or(Answer::Wait)
        },
    );
}

/// An XML name as BPMN ids must be (ASCII approximation: letters, digits, `-`, `_`, `.`).
fn is_ncname(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn mock_ai_agent(
    state: &mut CaseState<'_>,
    m: &super::model::MockAiAgent,
) -> Result<Done, InstructionFailure> {
    let script = match &m.turns {
        AgentTurns::Turns(values) => {
            let mut turns = Vec::with_capacity(values.len());
            let mut problems = Vec::new();
            for (i, v) in values.iter().enumerate() {
                match Turn::from_json(v, &format!("turns[{i}]")) {
                    Ok(t) => turns.push(t),
                    Err(p) => problems.push(p.to_string()),
                }
            }
            if !problems.is_empty() {
                return Err(failure(
                    state,
                    format!(
                        "MOCK_AI_AGENT \"{}\": invalid turns:\n{}",
                        m.element_id,
                        problems.join("\n")
                    ),
                ));
            }
            AgentScript::Turns(turns)
        }
        AgentTurns::Cassette(cassette) => {
            AgentScript::Recording(cassette_script(state, &m.element_id, cassette))
        }
    };
    let handle = state
        .test
        .try_mock_ai_agent(&m.element_id, script)
        .map_err(|message| failure(state, format!("MOCK_AI_AGENT: {message}")))?;
    for note in handle.notes() {
        state.warnings.push(format!("MOCK_AI_AGENT: {note}"));
    }
    state.agents.insert(m.element_id.clone(), handle);
    Ok(Done::Ok)
}

/// The cassette of a MOCK_AI_AGENT as the run's options play it: `--record` records whatever
/// the mode, `--drift` collects drift, `--agent-command` answers when recording.
fn cassette_script(
    state: &CaseState<'_>,
    agent: &str,
    cassette: &super::model::CassetteUse,
) -> CassetteScript {
    let options = state.options;
    let mut script = CassetteScript::new(state.dir.join(&cassette.path));
    if let Some(mode) = cassette.mode {
        script = script.mode(mode);
    }
    if options.record {
        script = script.mode(CassetteMode::Record);
    }
    if let Some(matching) = cassette.matching {
        script = script.matching(matching);
    }
    for pointer in &cassette.ignore {
        script = script.ignore(pointer);
    }
    for replacement in &cassette.replace {
        script = script.replace(&replacement.pattern, &replacement.with);
    }
    for pattern in &cassette.redact {
        script = script.redact(pattern);
    }
    if options.drift {
        script = script.drift();
    }
    if let Some(command) = options.agent_command.clone() {
        let agent = agent.to_string();
        script = script.record_with_source(Box::new(move |request, json| {
            command
                .ask(&agent, request.model_call, json)
                .map_err(|e| e.to_string())
        }));
    }
    script
}

fn expected_call(value: &Value, path: &str) -> Result<ExpectedCall, String> {
    match value {
        Value::String(name) => Ok(ExpectedCall::Tool(name.clone())),
        Value::Object(o) => {
            let Some(Value::String(name)) = o.get("name") else {
                return Err(format!(
                    "{path}.name: a tool call needs the tool's name (a string)"
                ));
            };
            if let Some(k) = o.keys().find(|k| *k != "name" && *k != "arguments") {
                return Err(format!(
                    "{path}: unknown field `{k}`, expected `name` or `arguments`"
                ));
            }
            Ok(match o.get("arguments") {
                None => ExpectedCall::Tool(name.clone()),
                Some(arguments) => ExpectedCall::Call {
                    name: name.clone(),
                    arguments: Matcher::from(arguments.clone()),
                },
            })
        }
        other => Err(format!(
            "{path}: a tool call is a tool id or {{\"name\", \"arguments\"}}, got {other}"
        )),
    }
}

fn assert_ai_agent(
    state: &mut CaseState<'_>,
    a: &super::model::AssertAiAgent,
) -> Result<Done, InstructionFailure> {
    let Some(handle) = state.agents.get(&a.element_id).cloned() else {
        // An element that is no agent at all says so, whatever the test mocked.
        if let Err(message) = state
            .test
            .with_engine(|engine| crate::agent::handle::is_agent(engine, &a.element_id))
        {
            return Err(failure(state, format!("ASSERT_AI_AGENT: {message}")));
        }
        let mocked: Vec<String> = state.agents.keys().map(|k| format!("\"{k}\"")).collect();
        return Err(failure(
            state,
            format!(
                "ASSERT_AI_AGENT: no MOCK_AI_AGENT for \"{}\" in this test case (mocked agents: {})",
                a.element_id,
                if mocked.is_empty() {
                    "none".to_owned()
                } else {
                    mocked.join(", ")
                }
            ),
        ));
    };
    let mut problems = Vec::new();
    if let Some(calls) = &a.called_tools {
        let expected: Result<Vec<ExpectedCall>, String> = calls
            .iter()
            .enumerate()
            .map(|(i, v)| expected_call(v, &format!("calledTools[{i}]")))
            .collect();
        match expected {
            Err(m) => return Err(failure(state, format!("ASSERT_AI_AGENT {m}"))),
            Ok(expected) => {
                if let Err(m) = handle.check_called_tools(expected) {
                    problems.push(m.to_string());
                }
            }
        }
    }
    if let Some(n) = a.model_calls {
        let made = handle.requests().len();
        if made != n {
            problems.push(format!(
                "expected the agent \"{}\" to have asked the model {n} time{}\n    but it asked {made} time{}",
                a.element_id,
                plural(n),
                plural(made)
            ));
        }
    }
    if let Some(n) = a.remaining_turns {
        let left = handle.remaining_turns();
        if left != n {
            problems.push(format!(
                "expected the script of \"{}\" to have {n} turn{} left\n    but it has {left}",
                a.element_id,
                plural(n)
            ));
        }
    }
    let process_instance = match &a.process_instance_selector {
        Some(selector) => Some(exec::instance(&mut TopLevel(state.test), selector)?),
        None => None,
    };
    let expected = ExpectedAgentInstance {
        status: a.status,
        metrics: a.metrics,
        history_roles: a.history_roles.clone(),
        process_instance,
        number: a.agent_instance_number,
    };
    if !expected.is_empty()
        && let Err(mismatch) = handle.check_agent_instance(&expected)
    {
        problems.push(mismatch.to_string());
    }
    if problems.is_empty() {
        Ok(Done::Ok)
    } else {
        Err(failure(state, problems.join("\n")))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The fault, invariant, side-effect and snapshot extensions (see `super::faults`).
fn fault_step(
    state: &mut CaseState<'_>,
    instruction: &Instruction,
) -> Result<Done, InstructionFailure> {
    use Instruction as I;
    let test = state.test;
    match instruction {
        I::InjectJobFault(f) => test
            .try_inject_fault(f.jobs.clone(), f.fault.clone())
            .map(|_| Done::Ok)
            .map_err(|e| failure(state, format!("INJECT_JOB_FAULT: {e}"))),
        I::InjectModelFault(f) => {
            let Some(agent) = state.agents.get(&f.element_id) else {
                return Err(failure(
                    state,
                    format!(
                        "INJECT_MODEL_FAULT: \"{}\" has no MOCK_AI_AGENT before this instruction",
                        f.element_id
                    ),
                ));
            };
            agent
                .try_inject_fault(f.fault.clone())
                .map(|_| Done::Ok)
                .map_err(|e| failure(state, format!("INJECT_MODEL_FAULT: {e}")))
        }
        I::SetJobTimeout(t) => {
            test.set_job_timeout(&t.timeout)
                .map_err(|e| failure(state, format!("SET_JOB_TIMEOUT: {e}")))?;
            Ok(Done::Ok)
        }
        I::SetTimeSkipping(t) => {
            test.set_time_skipping(t.enabled);
            Ok(Done::Ok)
        }
        I::AssertInvariant(a) => test
            .try_invariant(a.invariant.clone())
            .map(|_| Done::Ok)
            .map_err(|e| failure(state, format!("ASSERT_INVARIANT: {e}"))),
        I::AssertSideEffects(a) => test
            .side_effects(&a.expectation.job_type)
            .check(&a.expectation)
            .map(|()| Done::Ok)
            .map_err(|e| failure(state, e.to_string())),
        I::SaveSnapshot(s) => {
            let snapshot = test
                .snapshot()
                .map_err(|e| failure(state, format!("SAVE_SNAPSHOT: {e}")))?;
            if let Some(file) = &s.file {
                snapshot
                    .write(&state.dir.join(file))
                    .map_err(|e| failure(state, format!("SAVE_SNAPSHOT: {e}")))?;
            }
            if let Some(name) = &s.name {
                state.snapshots.insert(name.clone(), snapshot);
            }
            Ok(Done::Ok)
        }
        I::RestoreSnapshot(s) => {
            let snapshot = match (&s.name, &s.file) {
                (Some(name), _) => match state.snapshots.get(name) {
                    Some(snapshot) => snapshot.clone(),
                    None => {
                        let known: Vec<&str> = state.snapshots.keys().map(String::as_str).collect();
                        return Err(failure(
                            state,
                            format!(
                                "RESTORE_SNAPSHOT: no snapshot \"{name}\" was saved in this test case (saved: {})",
                                if known.is_empty() {
                                    "none".to_string()
                                } else {
                                    known.join(", ")
                                }
                            ),
                        ));
                    }
                },
                (None, Some(file)) => crate::snapshot::Snapshot::read(&state.dir.join(file))
                    .map_err(|e| failure(state, format!("RESTORE_SNAPSHOT: {e}")))?,
                (None, None) => unreachable!("checked when the file was read"),
            };
            // A file's snapshot names the file: it may come from another run or checkout.
            let from = s
                .file
                .as_ref()
                .filter(|_| s.name.is_none())
                .map(|file| format!("{}: ", state.dir.join(file).display()))
                .unwrap_or_default();
            test.restart_from(&snapshot)
                .map_err(|e| failure(state, format!("RESTORE_SNAPSHOT: {from}{e}")))?;
            // The second run's workers come from the instructions after this one.
            state.agents.clear();
            state.type_answers.borrow_mut().clear();
            state.element_answers.clear();
            Ok(Done::Ok)
        }
        other => Err(failure(
            state,
            format!("{} is not run by baton", other.type_name()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::isolated;

    #[test]
    fn a_panic_becomes_the_failure_message() {
        assert_eq!(isolated(|| 7), Ok(7));
        let text = isolated(|| -> u8 { panic!("index out of bounds") }).unwrap_err();
        assert_eq!(
            text,
            "baton panicked (a bug in baton; please report it): index out of bounds"
        );
        let formatted = isolated(|| -> u8 { panic!("{} of {}", 3, 2) }).unwrap_err();
        assert!(formatted.ends_with(": 3 of 2"), "{formatted}");
    }
}
