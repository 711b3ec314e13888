//! What a search counts: trajectories, states, prunes, the invariants' violations (how many,
//! and the simplest one found), goals reached, run errors, and coverage over every explored run.
//! Tallies of parts of a search merge in part order, so the result does not depend on which
//! thread searched which part.

use baton_engine::runtime::{
    BpmnElementType, ElementRef, Engine, ProcessInstanceIntent, RecordType, RecordValue,
};
use rustc_hash::FxHashSet;

use super::fork::{Choice, ChoiceKind};
use super::plan::Plan;
use crate::history::{ProcessHits, process_at};

/// A trajectory that broke an invariant (or reached a goal, or hit a run error), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub choices: Vec<Choice>,
    pub message: String,
}

/// How simple a trajectory is: fewest model calls, then fewest tool calls, then the simplest
/// choices (smaller indices), then the shortest.
pub(crate) fn simplicity(choices: &[Choice]) -> (usize, usize, u64, Vec<u32>) {
    let calls = choices
        .iter()
        .filter(|c| c.kind == ChoiceKind::Turn)
        .count();
    let tools = choices.iter().map(|c| usize::from(c.tools)).sum();
    let sum = choices.iter().map(|c| u64::from(c.index)).sum();
    (calls, tools, sum, choices.iter().map(|c| c.index).collect())
}

/// One invariant's violations.
#[derive(Debug, Clone, Default)]
pub(crate) struct Violations {
    /// Steps that broke it (each run breaks an invariant at most once).
    pub count: u64,
    /// The simplest trajectory that broke it.
    pub best: Option<Found>,
}

impl Violations {
    fn add(&mut self, found: Found) {
        self.count += 1;
        self.keep_simplest(found);
    }

    fn keep_simplest(&mut self, found: Found) {
        let simpler = match &self.best {
            None => true,
            Some(best) => simplicity(&found.choices) < simplicity(&best.choices),
        };
        if simpler {
            self.best = Some(found);
        }
    }

    fn merge(&mut self, other: Violations) {
        self.count += other.count;
        if let Some(found) = other.best {
            self.keep_simplest(found);
        }
    }
}

/// Elements entered and completed and flows taken, per deployed process (the union over runs).
#[derive(Debug, Clone, Default)]
pub(crate) struct Hits {
    pub processes: Vec<ProcessHits>,
}

impl Hits {
    /// Reads the records the engine holds (one step's: the harness drops them after).
    pub fn read(&mut self, engine: &Engine) {
        for record in engine.records_since(0) {
            if record.record_type != RecordType::Event {
                continue;
            }
            let (RecordValue::ProcessInstance(v), Some(intent)) =
                (&record.value, record.process_instance_intent())
            else {
                continue;
            };
            if v.element_type == BpmnElementType::AdHocSubProcessInnerInstance {
                continue;
            }
            let index = v.proc.0 as usize;
            if self.processes.len() <= index {
                self.processes.resize_with(index + 1, ProcessHits::default);
            }
            let hits = &mut self.processes[index];
            if hits.elements.is_empty() && hits.flows.is_empty() {
                let p = process_at(engine, v.proc);
                hits.elements = vec![false; p.model().elements.len()];
                hits.completed = vec![false; p.model().elements.len()];
                hits.flows = vec![false; p.model().flows.len()];
            }
            match (intent, v.element_ref) {
                (ProcessInstanceIntent::ElementActivated, ElementRef::Element(e)) => {
                    hits.elements[e.0 as usize] = true;
                }
                (ProcessInstanceIntent::ElementCompleted, ElementRef::Element(e)) => {
                    hits.completed[e.0 as usize] = true;
                }
                (ProcessInstanceIntent::SequenceFlowTaken, ElementRef::Flow(f)) => {
                    hits.flows[f.0 as usize] = true;
                }
                _ => {}
            }
        }
    }

    fn merge(&mut self, other: Hits) {
        if self.processes.len() < other.processes.len() {
            self.processes
                .resize_with(other.processes.len(), ProcessHits::default);
        }
        for (mine, theirs) in self.processes.iter_mut().zip(other.processes) {
            if mine.elements.is_empty() {
                *mine = theirs;
                continue;
            }
            for (a, b) in mine.elements.iter_mut().zip(theirs.elements) {
                *a |= b;
            }
            for (a, b) in mine.completed.iter_mut().zip(theirs.completed) {
                *a |= b;
            }
            for (a, b) in mine.flows.iter_mut().zip(theirs.flows) {
                *a |= b;
            }
        }
    }
}

/// The counts of a search (or of one part of it).
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    pub trajectories: u64,
    /// Trajectories cut at the model-call bound.
    pub cut_at_bound: u64,
    pub pruned: u64,
    pub states: FxHashSet<u64>,
    pub coverage: Hits,
    /// Per check (same index as the plan's checks); goals count here the runs that reached them.
    pub checks: Vec<Violations>,
    pub run_errors: Violations,
    /// Where the search was cut by a bound (the first place, in part order).
    pub cut: Option<Vec<Choice>>,
}

impl Tally {
    pub fn new(plan: &Plan) -> Tally {
        Tally {
            checks: vec![Violations::default(); plan.checks.len()],
            ..Tally::default()
        }
    }

    pub fn broken(&mut self, check: usize, choices: &[Choice], message: String) {
        self.checks[check].add(Found {
            choices: choices.to_vec(),
            message,
        });
    }

    pub fn run_error(&mut self, choices: &[Choice], message: String) {
        self.run_errors.add(Found {
            choices: choices.to_vec(),
            message,
        });
    }

    pub fn cut_at(&mut self, choices: &[Choice]) {
        if self.cut.is_none() {
            self.cut = Some(choices.to_vec());
        }
    }

    pub fn merge(&mut self, other: Tally) {
        self.trajectories += other.trajectories;
        self.cut_at_bound += other.cut_at_bound;
        self.pruned += other.pruned;
        if self.states.len() < other.states.len() {
            let mine = std::mem::replace(&mut self.states, other.states);
            self.states.extend(mine);
        } else {
            self.states.extend(other.states);
        }
        self.coverage.merge(other.coverage);
        for (mine, theirs) in self.checks.iter_mut().zip(other.checks) {
            mine.merge(theirs);
        }
        self.run_errors.merge(other.run_errors);
        if self.cut.is_none() {
            self.cut = other.cut;
        }
    }
}
