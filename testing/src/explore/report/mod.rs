//! The report of a search: how much was explored, each invariant's outcome with its shrunk
//! counterexample (the trajectory, its trace, a cassette per agent and a CPT test case that
//! replays it), goals reached, run errors, and the coverage over every explored run (elements,
//! flows and tools no choice of the model reaches).
//!
//! - `build` — the report of a search's outcome: counterexamples shrunk, replayed with everything
//!   recorded (trace, cassettes), the coverage over every explored run.
//! - `case` — a counterexample as a CPT test case, and writing it with its cassettes.
//! - `text`, `json` — the report in words and as JSON (and read back); `merge` — shards into one.

mod build;
mod case;
mod json;
mod merge;
mod text;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::invariant::Invariant;
use super::space::{Search, Shard};

use crate::agent::recording::Recording;
use crate::trace::TraceEvent;

pub(crate) use build::build;
pub use json::ReportError;

/// One invariant's (or goal's) outcome.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub invariant: Invariant,
    /// Runs that broke the invariant (for a goal: runs that reached it).
    pub count: u64,
    /// The simplest trajectory that broke it (for a goal: that reached it), shrunk.
    pub counterexample: Option<Counterexample>,
}

impl CheckReport {
    /// Whether the invariant held on every explored run (a goal: some run reached it).
    pub fn holds(&self) -> bool {
        if self.invariant.is_goal() {
            self.count > 0
        } else {
            self.count == 0
        }
    }
}

/// A trajectory that shows a violation (or reaches a goal), shrunk: what the model and the tools
/// did, the run's trace, a cassette per agent, and a CPT test case that replays it.
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// What broke, in words.
    pub message: String,
    /// The choices up to the violation, in order, in words.
    pub steps: Vec<String>,
    /// The simplest choices after it, to the end of the run (what the replay does next).
    pub continuation: Vec<String>,
    /// The choice indices (what [`Report`] replays).
    pub choices: Vec<u32>,
    /// Model calls and tool calls of the trajectory.
    pub model_calls: usize,
    pub tool_calls: usize,
    /// The run's trace.
    pub trace: Vec<TraceEvent>,
    /// Per agent, its model calls: what the model saw, the turn, what happened until the next
    /// call (cassettes of format 2).
    pub cassettes: Vec<Recording>,
    /// A CPT test case that replays it and fails the same way; `Err`: why the trajectory
    /// cannot be written as one.
    pub case: Result<Value, CaseError>,
}

/// Why a counterexample's trajectory cannot be written as a CPT test case (an answer or an
/// invariant the JSON format has no instruction for).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct CaseError {
    pub reason: String,
}

/// Why [`Counterexample::write_to`] wrote nothing, or not everything.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    NoCase(#[from] CaseError),
    #[error(transparent)]
    Cassette(#[from] crate::agent::recording::RecordingError),
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What [`Report::check`] found: the invariants that failed and goals not reached, and the runs
/// that had a run error; shown as the whole report.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{report}")]
pub struct NotHeld {
    pub failed: Vec<Invariant>,
    pub run_errors: u64,
    /// The report's text.
    pub report: String,
}

/// What [`Counterexample::write_to`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub test_file: PathBuf,
    pub cassettes: Vec<PathBuf>,
}

/// The report of a search. See the module documentation.
#[derive(Debug, Clone)]
pub struct Report {
    pub search: Search,
    /// Trajectories explored to their end (or to the model-call bound).
    pub trajectories: u64,
    /// Of those, cut at the model-call bound.
    pub cut_at_bound: u64,
    pub distinct_states: u64,
    /// Branches not explored because their state was seen before.
    pub pruned: u64,
    /// Wall time (not deterministic, unlike everything else).
    pub elapsed: Duration,
    /// Why the search stopped before the end, and where (`None`: the space was exhausted).
    pub cut_off: Option<String>,
    pub checks: Vec<CheckReport>,
    /// Runs with a run error (a mock that could not answer, an answer the engine rejected).
    pub run_errors: u64,
    pub run_error: Option<Counterexample>,
    pub coverage: ExploredCoverage,
    /// The same coverage as a coverage file (what `baton coverage report` merges with test runs
    /// and draws as HTML); empty for a report read back from JSON.
    pub coverage_file: crate::coverage::CoverageFile,
    /// The part of the space this report covers (`None`: all of it).
    pub shard: Option<Shard>,
    /// The fingerprints of the states a shard saw, sorted (what merging counts distinct
    /// states from); empty unless sharded.
    pub(crate) state_fingerprints: Vec<u64>,
}

/// Coverage over every explored run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExploredCoverage {
    /// Per process: `(process id, elements never entered, flows never taken, tools never called)`.
    pub processes: Vec<ProcessReach>,
}

/// What no explored run of one process reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessReach {
    pub process_id: String,
    pub elements: usize,
    pub elements_entered: usize,
    pub flows: usize,
    pub flows_taken: usize,
    /// Elements never entered, in model order.
    pub dead_elements: Vec<String>,
    /// Sequence flows never taken.
    pub dead_flows: Vec<String>,
    /// Tools (of AI agents) never called.
    pub dead_tools: Vec<String>,
}

impl Report {
    /// Trajectories per second (wall time).
    pub fn trajectories_per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.trajectories as f64 / s
        } else {
            0.0
        }
    }

    /// Every invariant that broke with its counterexample (goals are left out), in the order
    /// the invariants were given.
    pub fn counterexamples(&self) -> impl Iterator<Item = (&Invariant, &Counterexample)> {
        self.checks
            .iter()
            .filter(|c| !c.invariant.is_goal())
            .filter_map(|c| Some((&c.invariant, c.counterexample.as_ref()?)))
    }

    /// The counterexample of check `i` (in the order the invariants were given).
    pub fn counterexample(&self, i: usize) -> Option<&Counterexample> {
        self.checks.get(i)?.counterexample.as_ref()
    }

    /// `Err` with the report of every invariant that failed (and goal not reached).
    pub fn check(&self) -> Result<(), NotHeld> {
        let failed: Vec<Invariant> = self
            .checks
            .iter()
            .filter(|c| !c.holds())
            .map(|c| c.invariant.clone())
            .collect();
        if failed.is_empty() && self.run_errors == 0 {
            return Ok(());
        }
        Err(NotHeld {
            failed,
            run_errors: self.run_errors,
            report: self.to_string(),
        })
    }

    /// Panics with the report unless every invariant held, every goal was reached and no run
    /// had a run error.
    #[track_caller]
    pub fn assert_holds(&self) -> &Self {
        if let Err(message) = self.check() {
            panic!("{message}");
        }
        self
    }

    /// The counts only (what stays the same on every machine), as one line.
    pub fn counts(&self) -> String {
        format!(
            "{} trajector{} ({} cut at the model-call bound), {} distinct state{}, {} pruned{}",
            self.trajectories,
            if self.trajectories == 1 { "y" } else { "ies" },
            self.cut_at_bound,
            self.distinct_states,
            if self.distinct_states == 1 { "" } else { "s" },
            self.pruned,
            match &self.cut_off {
                Some(why) => format!("; cut off: {why}"),
                None => String::new(),
            }
        )
    }
}
