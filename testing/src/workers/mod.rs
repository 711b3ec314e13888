//! The mocked workers' side of a process test, in virtual time: which activations a fault takes,
//! jobs a worker holds (activated with its job timeout, Zeebe's job push), answers on their way
//! (latencies, delivered as the clock moves, in due order with the engine's timers), side
//! effects into the ledger, and the run trace that faults, side effects and invariants are
//! reported with.
//!
//! An answer that holds the job ([`Answer::NoAnswer`], [`Answer::Later`], [`Answer::Crash`])
//! activates it first, with the worker's job timeout: a worker that does not answer in time
//! loses the job to the engine's timeout (same key, activatable again), as in Zeebe.
//!
//! This module keeps the workers' bookkeeping (faults left, activations, answers on their way,
//! the job timeout); `answers` plays a mock's activation and delivers its answer, `injection`
//! takes the faults and side effects a test declares, `run_trace` keeps the trace and checks the
//! invariants, `time_skipping` jumps the clock.

mod answers;
mod injection;
mod run_trace;
mod time_skipping;

use std::time::Duration;

use baton_engine::runtime::Key;
use rustc_hash::FxHashMap;

use crate::faults::{FaultError, JobFault, Jobs};
use crate::mocks::Answer;
use crate::settle::JobFacts;
use crate::side_effects::{DeclaredSideEffect, Ledger};

pub(crate) use answers::{
    Arrival, answered, begin_activation, deliver, deliver_late, faulted_answer,
};
pub use injection::SideEffects;
pub(crate) use run_trace::RunTrace;
pub(crate) use time_skipping::skip_time;

/// The worker name a mock activates jobs with.
const WORKER: &str = "baton";

/// The Camunda client's default job timeout (`defaultJobTimeout`, 5 minutes).
pub const DEFAULT_JOB_TIMEOUT: Duration = Duration::from_secs(300);

/// A fault injected for some jobs, with the activations it has left.
#[derive(Debug, Clone)]
pub(crate) struct PlannedFault {
    pub jobs: Jobs,
    pub fault: JobFault,
    /// `None`: every activation.
    pub left: Option<u32>,
    /// The activations it took so far.
    pub played: u32,
}

/// One activation of a job by a mock: taken when the mock is asked, used when it answers.
#[derive(Debug, Clone)]
pub(crate) struct Activation {
    pub attempt: u32,
    pub job_type: String,
    pub job_timeout: Duration,
    /// The side effect a completion of this activation has, with its key.
    pub effect: Option<(DeclaredSideEffect, String)>,
}

/// An answer on its way.
#[derive(Debug, Clone)]
pub(crate) struct PendingAnswer {
    pub due: i64,
    pub(super) seq: u64,
    pub facts: JobFacts,
    pub answer: Answer,
    pub label: String,
    pub activation: Activation,
}

/// What the workers of a process test keep (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct Workers {
    pub faults: Vec<PlannedFault>,
    pub side_effects: Vec<(Jobs, DeclaredSideEffect)>,
    /// Activations so far, per job.
    attempts: FxHashMap<Key, u32>,
    pending: Vec<PendingAnswer>,
    seq: u64,
    pub job_timeout: Duration,
    pub ledger: Ledger,
    /// 1, then one more after each restart from a snapshot.
    pub run: u32,
    /// The activation between a mock's answer and its delivery.
    pub current: Option<Activation>,
}

impl Default for Workers {
    fn default() -> Self {
        Workers {
            faults: Vec::new(),
            side_effects: Vec::new(),
            attempts: FxHashMap::default(),
            pending: Vec::new(),
            seq: 0,
            job_timeout: DEFAULT_JOB_TIMEOUT,
            ledger: Ledger::default(),
            run: 1,
            current: None,
        }
    }
}

impl Workers {
    /// Counts one more activation of a job and takes the fault it gets, if any (the first
    /// injected fault for it with activations left).
    pub fn activate(&mut self, key: Key, job_type: &str, element: &str) -> (u32, Option<JobFault>) {
        let attempt = self.attempts.entry(key).or_insert(0);
        *attempt += 1;
        let attempt = *attempt;
        let fault = self
            .faults
            .iter_mut()
            .find(|f| f.jobs.matches(job_type, element) && f.left != Some(0))
            .map(|f| {
                if let Some(left) = &mut f.left {
                    *left -= 1;
                }
                f.played += 1;
                f.fault.clone()
            });
        (attempt, fault)
    }

    /// A restart: the workers are new (no faults, side-effect declarations or answers on their
    /// way); the ledger and the job timeout stay, and the next side effects are the next run's.
    pub fn restart(&mut self) {
        self.faults.clear();
        self.side_effects.clear();
        self.pending.clear();
        self.current = None;
        self.run += 1;
    }

    /// How many times a job was activated so far.
    pub fn attempt_of(&self, key: Key) -> u32 {
        self.attempts.get(&key).copied().unwrap_or(0)
    }

    /// Whether a fault would take the next activation of a job.
    pub fn has_fault_for(&self, job_type: &str, element: &str) -> bool {
        self.faults
            .iter()
            .any(|f| f.jobs.matches(job_type, element) && f.left != Some(0))
    }

    /// The side effect declared for the jobs of this element, else of this job type.
    pub fn side_effect_for(&self, job_type: &str, element: &str) -> Option<&DeclaredSideEffect> {
        let at_element = self
            .side_effects
            .iter()
            .rev()
            .find(|(jobs, _)| *jobs == Jobs::AtElement(element.to_string()));
        at_element
            .or_else(|| {
                self.side_effects
                    .iter()
                    .rev()
                    .find(|(jobs, _)| *jobs == Jobs::OfType(job_type.to_string()))
            })
            .map(|(_, effect)| effect)
    }

    pub(super) fn schedule(&mut self, mut answer: PendingAnswer) {
        self.seq += 1;
        answer.seq = self.seq;
        let at = self
            .pending
            .partition_point(|p| (p.due, p.seq) <= (answer.due, answer.seq));
        self.pending.insert(at, answer);
    }

    /// When the next answer is due.
    pub fn next_due(&self) -> Option<i64> {
        self.pending.first().map(|p| p.due)
    }

    /// The next answer due at or before `at`.
    pub fn pop_due(&mut self, at: i64) -> Option<PendingAnswer> {
        if self.pending.first().is_some_and(|p| p.due <= at) {
            Some(self.pending.remove(0))
        } else {
            None
        }
    }
}

impl crate::ProcessTest {
    /// The job timeout a mock activates a job with when it holds it (a fault, a latency):
    /// default 5 minutes, the Camunda client's. Panics on a duration that does not read or is 0.
    #[track_caller]
    pub fn job_timeout(self, timeout: impl crate::clock::IntoDuration) -> Self {
        if let Err(e) = self.set_job_timeout(timeout) {
            panic!("{e}");
        }
        self
    }

    /// Sets the job timeout (see [`job_timeout`](Self::job_timeout)) in the middle of a test.
    pub fn set_job_timeout(
        &self,
        timeout: impl crate::clock::IntoDuration,
    ) -> Result<(), FaultError> {
        let ms = timeout
            .into_millis()
            .map_err(|e| FaultError::Duration(e.to_string()))?;
        if ms <= 0 {
            return Err(FaultError::ZeroJobTimeout);
        }
        let d = Duration::from_millis(ms as u64);
        if d > crate::faults::LONGEST_FAULT_DURATION {
            return Err(FaultError::TooLong {
                what: "job timeout",
                duration: crate::faults::format_duration(d),
            });
        }
        self.inner.borrow_mut().workers.job_timeout = d;
        Ok(())
    }
}
