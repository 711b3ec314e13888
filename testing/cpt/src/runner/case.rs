//! Running one test case: its instructions in order in a fresh engine, the run's errors read
//! after each, and what the case leaves behind (warnings, cassette reports, coverage, command
//! log).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use indexmap::IndexMap;

use super::Options;
use super::step::run_step;
use crate::behavior::BehaviorLog;
use crate::exec::{self, Done, InstructionFailure};
use crate::model::{Instruction, Step, TestCase};
use crate::results::{CaseFailure, Outcome};
use baton_testing::agent::AiAgentHandle;
use baton_testing::coverage::CoverageFile;
use baton_testing::mocks::Answer;
use baton_testing::{Deployment, ProcessTest};

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
pub(super) fn isolated<T>(f: impl FnOnce() -> T) -> Result<T, String> {
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
pub(super) type Answers = Rc<RefCell<IndexMap<String, Answer>>>;

/// The state of one running test case.
pub(super) struct CaseState<'a> {
    pub(super) test: &'a ProcessTest,
    /// The folder of the test file (cassettes are relative to it).
    pub(super) dir: PathBuf,
    pub(super) agents: IndexMap<String, AiAgentHandle>,
    /// The answers of the MOCK_JOB_WORKER_* instructions without `elementId`, by job type: what
    /// an element with mocks of its own answers for the other job types.
    pub(super) type_answers: Answers,
    /// The MOCK_JOB_WORKER_* instructions with `elementId`: per element, answers by job type.
    pub(super) element_answers: IndexMap<String, Answers>,
    pub(super) behaviors: Rc<RefCell<BehaviorLog>>,
    pub(super) behavior_count: usize,
    pub(super) warnings: Vec<String>,
    pub(super) options: &'a Options,
    /// The snapshots SAVE_SNAPSHOT kept by name.
    pub(super) snapshots: IndexMap<String, baton_testing::snapshot::Snapshot>,
}

/// How a case ended, its warnings, what its cassettes did, and its coverage (none when it did
/// not run).
pub(super) struct CaseOutput {
    pub(super) outcome: Outcome,
    pub(super) warnings: Vec<String>,
    pub(super) cassettes: Vec<String>,
    pub(super) coverage: Option<CoverageFile>,
    /// The engine's record log at the end (compared by `check_restore`).
    pub(super) log: String,
}

impl CaseOutput {
    pub(super) fn failed(message: String) -> CaseOutput {
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

pub(super) fn run_case(
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
    match crate::faults::first_difference(&plain.log, &restored.log) {
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
        dir: baton_testing::files::folder_of(file).to_path_buf(),
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
        && let Err(e) = baton_testing::coverage::write_file(dir, &data)
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
    let name = baton_testing::coverage::file_name(title, &json);
    baton_testing::files::write_atomically(dir, &name, &json)
        .map_err(|(path, e)| format!("{}: {e}", path.display()))
}

pub(super) fn failure(state: &mut CaseState<'_>, message: impl Into<String>) -> InstructionFailure {
    InstructionFailure {
        message: message.into(),
        explanation: exec::explain_all(state.test),
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
