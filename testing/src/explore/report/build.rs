//! The report of a search's outcome: each violation's trajectory shrunk and replayed with
//! everything recorded (its trace, a cassette per agent, a CPT case), and the coverage over
//! every explored run.

use std::cell::RefCell;
use std::time::Duration;

use super::super::fork::{Fork, RecordedModelCall};
use super::super::invariant::Invariant;
use super::super::plan::Plan;
use super::super::search::{Outcome, Stop, replay, shrink};
use super::super::space::Space;
use super::super::tally::{Found, Tally, simplicity};
use super::case::cpt_case;
use super::{CaseError, CheckReport, Counterexample, ExploredCoverage, ProcessReach, Report};

use crate::agent::recording::session::{agent_definition_hash, agent_process};
use crate::agent::recording::{
    Normalizer, RecordedProcess, Recorder, Recording, Redactor, request_json,
};
use crate::trace::{TraceEvent, TraceReader};

/// The report of a search's outcome; counterexamples shrunk and replayed from `pristine`.
pub(crate) fn build(pristine: &Fork, outcome: Outcome, space: &Space, elapsed: Duration) -> Report {
    let Outcome { tally, stopped } = outcome;
    let plan = pristine.plan.clone();
    let cut_off = stopped.map(|stop| {
        let why = match stop {
            Stop::Trajectories => format!(
                "the bound of {} trajector{} was reached",
                space.bounds.trajectories,
                if space.bounds.trajectories == 1 {
                    "y"
                } else {
                    "ies"
                }
            ),
            Stop::Time => "the time limit was reached".to_string(),
            Stop::Fatal(e) => e.to_string(),
        };
        match &tally.cut {
            Some(at) if !at.is_empty() => {
                let mut steps = describe(pristine, &at.iter().map(|c| c.index).collect::<Vec<_>>());
                steps.truncate(at.len());
                format!(
                    "{why}; the first part left unexplored begins after: {}",
                    steps.join("; ")
                )
            }
            _ => why,
        }
    });
    let checks = plan
        .checks
        .iter()
        .enumerate()
        .map(|(i, check)| {
            let violations = &tally.checks[i];
            let counterexample = violations.best.as_ref().map(|found| {
                let shrunk = shrink(pristine, found, |t| t.checks[i].best.clone());
                counterexample(pristine, &plan, &shrunk, Some(&check.invariant))
            });
            CheckReport {
                invariant: check.invariant.clone(),
                count: violations.count,
                counterexample,
            }
        })
        .collect();
    let run_error = tally.run_errors.best.as_ref().map(|found| {
        let shrunk = shrink(pristine, found, |t| t.run_errors.best.clone());
        counterexample(pristine, &plan, &shrunk, None)
    });
    Report {
        search: space.search,
        trajectories: tally.trajectories,
        cut_at_bound: tally.cut_at_bound,
        distinct_states: tally.states.len() as u64,
        pruned: tally.pruned,
        elapsed,
        cut_off,
        checks,
        run_errors: tally.run_errors.count,
        run_error,
        coverage: coverage(pristine, &tally),
        coverage_file: coverage_file(pristine, &tally, space),
        shard: space.shard,
        state_fingerprints: if space.shard.is_some() {
            let mut states: Vec<u64> = tally.states.iter().copied().collect();
            states.sort_unstable();
            states
        } else {
            Vec::new()
        },
    }
}

/// The steps of a trajectory, in words.
fn describe(pristine: &Fork, choices: &[u32]) -> Vec<String> {
    let mut steps = Vec::new();
    replay(
        pristine,
        choices,
        &mut |fork, i| {
            if !fork.is_forced() {
                steps.push(fork.describe(i));
            }
        },
        &mut |_| {},
    );
    steps
}

/// Replays a found trajectory with everything recorded and writes it up.
fn counterexample(
    pristine: &Fork,
    plan: &Plan,
    found: &Found,
    invariant: Option<&Invariant>,
) -> Counterexample {
    let choices: Vec<u32> = found.choices.iter().map(|c| c.index).collect();
    let mut recording = pristine.clone();
    recording.recorder = Some(Box::default());
    let mut reader = TraceReader::from_now(&recording.engine);
    // The trace with the model calls in their places: a call is answered at the choice, before
    // the step that follows it.
    let timeline: RefCell<Vec<Moment>> = RefCell::new(Vec::new());
    let mut steps = Vec::new();
    let (end, _) = replay(
        &recording,
        &choices,
        &mut |fork, i| {
            if !fork.is_forced() {
                steps.push(fork.describe(i));
            }
            if let Some(agent) = fork.asking_agent() {
                timeline.borrow_mut().push(Moment::Call(agent));
            }
        },
        &mut |engine| {
            let events = reader.read(engine);
            timeline
                .borrow_mut()
                .extend(events.into_iter().map(|e| Moment::Event(Box::new(e))));
        },
    );
    let timeline = timeline.into_inner();
    let trace: Vec<TraceEvent> = timeline
        .iter()
        .filter_map(|m| match m {
            Moment::Event(e) => Some((**e).clone()),
            Moment::Call(_) => None,
        })
        .collect();
    let recorder = end.recorder.clone().unwrap_or_default();
    let continuation = steps.split_off(found.choices.len().min(steps.len()));
    let (model_calls, tool_calls, _, _) = simplicity(&found.choices);
    let cassettes = recordings(pristine, plan, &timeline, &recorder.calls);
    let at_answer = violation_point(pristine, &choices, found, invariant);
    let case = cpt_case(
        plan,
        &recorder.answers,
        &recorder.calls,
        invariant,
        at_answer,
        &found.message,
    )
    .map_err(|reason| CaseError { reason });
    Counterexample {
        message: found.message.clone(),
        steps,
        continuation,
        choices,
        model_calls,
        tool_calls,
        trace,
        cassettes,
        case,
    }
}

/// A moment of a replayed run: a trace event, or a model call of an agent (by index).
enum Moment {
    Event(Box<TraceEvent>),
    Call(usize),
}

/// A cassette (format 2) per agent that made model calls: each call's request, its turn, and
/// the trace until the agent's next call.
fn recordings(
    pristine: &Fork,
    plan: &Plan,
    timeline: &[Moment],
    calls: &[RecordedModelCall],
) -> Vec<Recording> {
    let engine = &pristine.engine;
    let mut out = Vec::new();
    for (a, agent) in plan.agents.iter().enumerate() {
        if !calls.iter().any(|c| c.agent == a) {
            continue;
        }
        let id = &agent.element_id;
        let process = agent_process(engine, id).map(|process_id| RecordedProcess {
            id: process_id,
            definition_hash: agent_definition_hash(engine, id),
        });
        let mut recorder = Recorder::new(
            id,
            process,
            None,
            Normalizer::standard(),
            Redactor::standard(),
        );
        let mut mine = calls.iter().filter(|c| c.agent == a);
        let mut started = false;
        for moment in timeline {
            match moment {
                Moment::Call(who) if *who == a => {
                    if let Some(call) = mine.next() {
                        // In memory: nothing is written, nothing can fail.
                        let _ = recorder.record_call(&request_json(&call.request), &call.turn);
                        started = true;
                    }
                }
                Moment::Call(_) => {}
                Moment::Event(event) if started => {
                    let _ = recorder.extend_trajectory([(**event).clone()]);
                }
                Moment::Event(_) => {}
            }
        }
        let mut recording = recorder.recording().clone();
        recording.baton = Some(env!("CARGO_PKG_VERSION").to_string());
        out.push(recording);
    }
    out
}

/// After how many tool answers the violation shows (the step a CPT case asserts after).
fn violation_point(
    pristine: &Fork,
    choices: &[u32],
    found: &Found,
    invariant: Option<&Invariant>,
) -> usize {
    let mut recording = pristine.clone();
    recording.recorder = Some(Box::default());
    let mut fork = recording;
    let mut report = super::super::fork::StepReport::default();
    fork.start(&mut |_| {}, &mut report);
    let mut k = 0;
    let matches = |report: &super::super::fork::StepReport, fork: &Fork| {
        report.broken.iter().any(|b| {
            invariant.is_none_or(|inv| fork.plan.checks[b.invariant].invariant == *inv)
                && b.message == found.message
        }) || (invariant.is_none() && fork.errors.contains(&found.message))
    };
    loop {
        if matches(&report, &fork) {
            break;
        }
        report.broken.clear();
        let super::super::fork::Status::Choice(n) = fork.status() else {
            break;
        };
        let i = if fork.is_forced() {
            0
        } else {
            let i = choices.get(k).copied().filter(|&i| i < n).unwrap_or(0);
            k += 1;
            i
        };
        fork.decide(i, &mut |_| {}, &mut report);
    }
    fork.recorder.map_or(0, |r| r.answers.len())
}

/// The coverage of every explored run as a coverage file, named after the exploration.
fn coverage_file(pristine: &Fork, tally: &Tally, space: &Space) -> crate::coverage::CoverageFile {
    let mut history = crate::history::History::default();
    history.hits = tally.coverage.processes.clone();
    let name = match space.shard {
        Some(s) => format!(
            "explore {} (shard {}/{})",
            space.process_id, s.index, s.count
        ),
        None => format!("explore {}", space.process_id),
    };
    crate::coverage::CoverageFile::new(name, crate::coverage::collect(&pristine.engine, &history))
}

/// What no explored run reached, per process with an explored run.
fn coverage(pristine: &Fork, tally: &Tally) -> ExploredCoverage {
    let engine = &pristine.engine;
    let mut processes = Vec::new();
    for (index, process) in engine.deployed_processes().enumerate() {
        let Some(hits) = tally.coverage.processes.get(index) else {
            continue;
        };
        if hits.elements.is_empty() {
            continue;
        }
        let model = process.model();
        let mut reach = ProcessReach {
            process_id: process.bpmn_process_id().to_string(),
            elements: model.elements.len(),
            flows: model.flows.len(),
            ..ProcessReach::default()
        };
        let tools = crate::coverage::tools_of(process);
        for (i, element) in model.elements.iter().enumerate() {
            if hits.elements[i] {
                reach.elements_entered += 1;
            } else {
                let id = element.id.to_string();
                if tools.contains(&id) {
                    reach.dead_tools.push(id.clone());
                }
                reach.dead_elements.push(id);
            }
        }
        for (i, flow) in model.flows.iter().enumerate() {
            if hits.flows[i] {
                reach.flows_taken += 1;
            } else {
                reach.dead_flows.push(flow.id.to_string());
            }
        }
        processes.push(reach);
    }
    ExploredCoverage { processes }
}
