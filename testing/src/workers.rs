//! The mocked workers' side of a process test, in virtual time: which activations a fault takes,
//! jobs a worker holds (activated with its job timeout, Zeebe's job push), answers on their way
//! (latencies, delivered as the clock moves, in due order with the engine's timers), side
//! effects into the ledger, and the run trace that faults, side effects and invariants are
//! reported with.
//!
//! An answer that holds the job ([`Answer::NoAnswer`], [`Answer::Later`], [`Answer::Crash`])
//! activates it first, with the worker's job timeout: a worker that does not answer in time
//! loses the job to the engine's timeout (same key, activatable again), as in Zeebe.

use std::time::Duration;

use baton_engine::runtime::Key;
use rustc_hash::FxHashMap;

use crate::faults::{FaultError, JobFault, JobFaultKind, Jobs};
use crate::invariants::{BrokenInvariant, InvariantChecker, RootEnd, RunEvent, RunView, Violation};
use crate::mocks::{Answer, FailJob, TestJob};
use crate::process_test::Inner;
use crate::settle::{AnswerProblem, JobFacts, apply_answer};
use crate::side_effects::{
    DeclaredSideEffect, Ledger, LedgerEntry, SideEffectExpectation, SideEffectsMissed,
};
use crate::trace::{SideEffect, TraceEvent, TraceReader};

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
    seq: u64,
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

    fn schedule(&mut self, mut answer: PendingAnswer) {
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

/// What the harness keeps to explain a run: the detailed trace, read from the records as
/// needed, with what the workers did in between; and the invariants checked over it.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunTrace {
    /// Off until something needs the trace (a fault, a side effect, an invariant): then the
    /// reader catches up from the first record.
    pub on: bool,
    reader: TraceReader,
    pub events: Vec<RunEvent>,
    pub invariants: Option<InvariantChecker>,
    /// The first broken invariant was reported: the others are not checked any more.
    broken: bool,
    /// The test read the broken invariant ([`ProcessTest::check_invariants`]): dropping the
    /// test does not panic with it.
    pub reported: bool,
    /// Steps checked so far.
    steps: usize,
}

impl RunTrace {
    fn reader() -> TraceReader {
        TraceReader::default().detailed()
    }

    /// A restart: the trace is read again from the restored engine's first record, the
    /// invariants are checked afresh over it.
    pub fn restart(&mut self) {
        self.reader = RunTrace::reader();
        self.events.clear();
        self.broken = false;
        self.steps = 0;
        if let Some(checker) = &self.invariants {
            self.invariants = InvariantChecker::new(checker.invariants().to_vec()).ok();
        }
    }
}

impl Inner {
    /// Turns the run trace on (it reads every record from the first).
    pub(crate) fn trace_on(&mut self) {
        if !self.trace.on {
            self.trace.on = true;
            self.trace.reader = RunTrace::reader();
        }
    }

    /// Reads the records written since the last call into the run trace.
    pub(crate) fn trace_sync(&mut self) {
        if !self.trace.on {
            return;
        }
        self.history.sync(&self.engine);
        let events = self.trace.reader.read_tagged(&self.engine);
        for (instance, event) in events {
            let root = if instance == 0 {
                0
            } else {
                self.root_of(instance)
            };
            self.trace.events.push(RunEvent { root, event });
        }
    }

    /// Adds what a worker or the clock did to the run trace, after what the engine did so far.
    pub(crate) fn trace_push(&mut self, instance: Key, event: TraceEvent) {
        self.trace_on();
        self.trace_sync();
        let root = if instance == 0 {
            0
        } else {
            self.root_of(instance)
        };
        self.trace.events.push(RunEvent { root, event });
    }

    /// Checks the invariants after a step; the first broken one becomes a run error with the
    /// step and the run explained up to there.
    pub(crate) fn check_invariants(&mut self, step: impl FnOnce() -> String) {
        if self.trace.invariants.is_none() || self.trace.broken {
            return;
        }
        self.trace_sync();
        self.trace.steps += 1;
        let Some(mut checker) = self.trace.invariants.take() else {
            return;
        };
        let violation = checker
            .observe(&self.trace.events)
            .or_else(|| checker.check_state(&*self));
        self.trace.invariants = Some(checker);
        if let Some(v) = violation {
            self.report_violation(&v, Some(step()));
        }
    }

    /// Checks how the runs ended and what they reached: when the test is over.
    pub(crate) fn check_invariants_at_end(&mut self) {
        if self.trace.invariants.is_none() || self.trace.broken {
            return;
        }
        self.trace_sync();
        let Some(checker) = self.trace.invariants.take() else {
            return;
        };
        let violation = checker.check_end(&*self);
        self.trace.invariants = Some(checker);
        if let Some(v) = violation {
            self.report_violation(&v, None);
        }
    }

    fn report_violation(&mut self, v: &Violation, step: Option<String>) {
        self.trace.broken = true;
        let mut message = v.to_string();
        match step {
            Some(step) => message.push_str(&format!(
                "\nIt broke at step {} ({step}) at {}.",
                self.trace.steps,
                crate::clock::format_instant(self.engine.now())
            )),
            None => message.push_str("\nIt broke when the test ended."),
        }
        let upto = v.event.map_or(self.trace.events.len(), |i| i + 1);
        message.push_str(&format!(
            "\nThe run up to there:\n{}",
            render_trace(&self.trace.events[..upto], v.event)
        ));
        self.add_error(v.root, message);
    }
}

/// The trace as numbered lines (the last 60), the event at `mark` marked.
pub(crate) fn render_trace(events: &[RunEvent], mark: Option<usize>) -> String {
    const SHOWN: usize = 60;
    let skip = events.len().saturating_sub(SHOWN);
    let mut lines = Vec::new();
    if skip > 0 {
        lines.push(format!("  ... {skip} earlier events"));
    }
    for (i, e) in events.iter().enumerate().skip(skip) {
        let arrow = if Some(i) == mark { " <-" } else { "" };
        lines.push(format!("  {:>3}. {}{arrow}", i + 1, e.event));
    }
    if lines.is_empty() {
        lines.push("  (nothing happened yet)".to_string());
    }
    lines.join("\n")
}

impl RunView for Inner {
    fn roots(&self) -> Vec<Key> {
        self.roots.clone()
    }

    fn root_variables(&self, root: Key) -> serde_json::Map<String, serde_json::Value> {
        let mut object = serde_json::Map::new();
        if let Some(vars) = self.history.scope_variables(root) {
            for (name, value) in vars {
                object.insert(name.to_string(), (**value).clone());
            }
        }
        object
    }

    fn now_ms(&self) -> i64 {
        self.engine.now()
    }

    fn root_end(&self, root: Key) -> RootEnd {
        let Some(instance) = self.engine.process_instance(root) else {
            return RootEnd::Terminated;
        };
        if !instance.state.is_active() {
            return if instance.state == baton_engine::runtime::State::Completed {
                RootEnd::Completed
            } else {
                RootEnd::Terminated
            };
        }
        let elements = self.engine.element_instances(root);
        let waiting_at = elements
            .iter()
            .filter(|e| e.flow_scope_key.is_some())
            .filter(|e| !elements.iter().any(|c| c.flow_scope_key == Some(e.key)))
            .map(|e| e.element_id.clone())
            .collect();
        let incident = self
            .engine
            .incidents()
            .iter()
            .any(|i| self.root_of(i.process_instance_key) == root);
        RootEnd::Active {
            waiting_at,
            incident,
        }
    }

    fn describe_root(&self, root: Key) -> String {
        let process = self
            .engine
            .process_instance(root)
            .map(|p| p.bpmn_process_id.to_string())
            .unwrap_or_default();
        match self.roots.iter().position(|r| *r == root) {
            Some(i) if self.roots.len() > 1 => format!("run {} of \"{process}\"", i + 1),
            _ => format!("the run of \"{process}\""),
        }
    }
}

/// What a mock's activation of a job starts with: counts it, takes the fault it gets (recorded
/// in the trace), prepares its side effect's key. `Err` is a run error (a key that fails).
pub(crate) fn begin_activation(
    inner: &mut Inner,
    job: &TestJob,
) -> Result<(Activation, Option<JobFault>), String> {
    let (attempt, fault) = inner
        .workers
        .activate(job.key, &job.job_type, &job.element_id);
    let effect = match inner
        .workers
        .side_effect_for(&job.job_type, &job.element_id)
    {
        Some(declared) => {
            let key = declared.key_of(job).map_err(|e| e.to_string())?;
            Some((declared.clone(), key))
        }
        None => None,
    };
    let job_timeout = fault
        .as_ref()
        .and_then(|f| f.job_timeout)
        .unwrap_or(inner.workers.job_timeout);
    if let Some(f) = &fault
        && !matches!(f.kind, JobFaultKind::CrashAfterSideEffect)
    {
        inner.trace_push(
            job.process_instance_key,
            TraceEvent::Fault {
                element: job.element_id.clone(),
                job_type: job.job_type.clone(),
                attempt,
                fault: f.kind.to_string(),
            },
        );
    }
    Ok((
        Activation {
            attempt,
            job_type: job.job_type.clone(),
            job_timeout,
            effect,
        },
        fault,
    ))
}

/// The answer of a faulted activation: the fault's own, or the mock's (`ask`) held or lost.
pub(crate) fn faulted_answer(fault: &JobFault, ask: impl FnOnce() -> Answer) -> Answer {
    match &fault.kind {
        JobFaultKind::Fail {
            message,
            retries,
            backoff,
            variables,
        } => Answer::Fail(FailJob {
            retries: *retries,
            message: message.clone(),
            backoff: *backoff,
            variables: variables.clone(),
        }),
        JobFaultKind::ThrowError {
            code,
            message,
            variables,
        } => Answer::ThrowError {
            code: code.clone(),
            message: message.clone(),
            variables: variables.clone(),
        },
        JobFaultKind::NoAnswer => Answer::NoAnswer,
        JobFaultKind::Latency(latency) => Answer::Later {
            latency: *latency,
            answer: Box::new(ask()),
        },
        JobFaultKind::CrashAfterSideEffect => Answer::Crash(Box::new(ask())),
    }
}

/// How an answer arrives: at once (a problem is a run error), or late (a rejection because the
/// job is gone or taken again is what happens to late workers: traced, not an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    AtOnce,
    Late,
}

/// Delivers a mock's answer to a job: activates the job when the answer holds it, schedules a
/// late answer, records the side effect of a completion (also of one lost in a crash), and sends
/// the rest to the engine.
pub(crate) fn deliver(
    inner: &mut Inner,
    facts: &JobFacts,
    answer: Answer,
    label: &str,
    activation: Activation,
    arrival: Arrival,
) {
    let held = arrival == Arrival::Late;
    if answer.holds_the_job() && !held {
        let timeout = i64::try_from(activation.job_timeout.as_millis()).unwrap_or(i64::MAX);
        if let Err(r) = inner.engine.push_job(facts.key, WORKER, timeout) {
            inner.sync();
            let message = format!(
                "{label} could not take the job at \"{}\": {}",
                facts.element_id, r.message
            );
            inner.add_error(Some(facts.process_instance_key), message);
            return;
        }
    }
    match answer {
        Answer::NoAnswer => {}
        Answer::Later { latency, answer } => {
            let latency = i64::try_from(latency.as_millis()).unwrap_or(i64::MAX);
            let due = inner.engine.now().saturating_add(latency);
            inner.workers.schedule(PendingAnswer {
                due,
                seq: 0,
                facts: facts.clone(),
                answer: *answer,
                label: label.to_string(),
                activation,
            });
        }
        Answer::Crash(lost) => {
            if lost.is_completion() {
                record_side_effect(inner, facts, &activation);
            }
            inner.trace_push(
                facts.process_instance_key,
                TraceEvent::Fault {
                    element: facts.element_id.to_string(),
                    job_type: activation.job_type.clone(),
                    attempt: activation.attempt,
                    fault: format!(
                        "the worker crashed before it could {} (the answer is lost)",
                        lost.describe()
                    ),
                },
            );
        }
        answer => {
            if answer.is_completion() {
                record_side_effect(inner, facts, &activation);
            }
            if let Err(problem) = apply_answer(&mut inner.engine, facts, answer) {
                inner.sync();
                match (&problem, arrival) {
                    (AnswerProblem::Rejected { message, .. }, Arrival::Late) => {
                        let reason = message.clone();
                        inner.trace_push(
                            facts.process_instance_key,
                            TraceEvent::LateAnswerRejected {
                                element: facts.element_id.to_string(),
                                job_type: activation.job_type.clone(),
                                reason,
                            },
                        );
                    }
                    _ => {
                        let message = problem.message(label);
                        inner.add_error(Some(facts.process_instance_key), message);
                    }
                }
            }
        }
    }
}

/// The side effect of a completed (or crashed) activation: into the ledger, unless the outside
/// world deduplicates the key and has seen it; into the trace either way.
fn record_side_effect(inner: &mut Inner, facts: &JobFacts, activation: &Activation) {
    let Some((declared, key)) = &activation.effect else {
        return;
    };
    let performed =
        !(declared.deduplicated && inner.workers.ledger.contains(&activation.job_type, key));
    let effect = SideEffect {
        job_type: activation.job_type.clone(),
        element: facts.element_id.to_string(),
        key: key.clone(),
        job_key: facts.key,
        attempt: activation.attempt,
        performed,
    };
    if performed {
        inner.sync();
        let root = inner.root_of(facts.process_instance_key);
        let completed_before = completed_in(inner, root);
        let entry = LedgerEntry {
            effect: effect.clone(),
            process_instance_key: facts.process_instance_key,
            at_ms: inner.engine.now(),
            run: inner.workers.run,
            completed_before,
        };
        inner.workers.ledger.push(entry);
    }
    inner.trace_push(facts.process_instance_key, TraceEvent::SideEffect(effect));
}

/// The elements completed so far in the instances of a root, each once.
fn completed_in(inner: &Inner, root: Key) -> Vec<String> {
    let mut done: Vec<String> = Vec::new();
    for log in inner.history.instances.values() {
        if log.root != root {
            continue;
        }
        for e in &log.events {
            if e.kind == crate::history::ElementEventKind::Completed
                && !done.iter().any(|d| **d == *e.element_id)
            {
                done.push(e.element_id.to_string());
            }
        }
    }
    done
}

/// The description of a delivered answer, for the step an invariant broke at.
pub(crate) fn answered(label: &str, element: &str, answer: &Answer) -> String {
    format!(
        "{label} answered the job at \"{element}\": {}",
        answer.describe()
    )
}

/// A late answer arrives: delivered, then the mocks settle.
pub(crate) fn deliver_late(cell: &std::cell::RefCell<Inner>, pending: PendingAnswer) {
    let step = format!(
        "{} (late)",
        answered(&pending.label, &pending.facts.element_id, &pending.answer)
    );
    {
        let mut inner = cell.borrow_mut();
        deliver(
            &mut inner,
            &pending.facts,
            pending.answer,
            &pending.label,
            pending.activation,
            Arrival::Late,
        );
    }
    crate::process_test::settle_step(cell, || step);
}

/// The most jumps time skipping makes after one action.
const SKIP_LIMIT: usize = 10_000;

/// With time skipping on: while the run can only go on when something falls due (a timer, a
/// job timeout, a retry backoff, an answer on its way), the clock jumps to it.
pub(crate) fn skip_time(cell: &std::cell::RefCell<Inner>) {
    if !cell.borrow().time_skipping {
        return;
    }
    for _ in 0..SKIP_LIMIT {
        let next = {
            let inner = cell.borrow();
            if !inner.waits_only_for_time() {
                return;
            }
            let now = inner.engine.now();
            match [inner.engine.next_due_time(), inner.workers.next_due()]
                .into_iter()
                .flatten()
                .min()
            {
                Some(due) if due > now => due,
                _ => return,
            }
        };
        cell.borrow_mut().trace_on();
        crate::process_test::move_clock(cell, next, crate::trace::ClockCause::TimeSkipping);
    }
    let mut inner = cell.borrow_mut();
    inner.sync();
    inner.add_error(
        None,
        format!(
            "time skipping stopped after {SKIP_LIMIT} jumps of the clock in one action: something keeps falling due (a timer cycle?) while nothing waits for the test"
        ),
    );
}

impl Inner {
    /// Whether a root run is active and nothing waits for the test: no user task, no job nobody
    /// answers, no incident, no token at a message or signal catch event, receive task or
    /// event-based gateway. A subscription that holds no token (a boundary event's, an event
    /// sub-process's start, a signal start event of a deployed process) only might interrupt
    /// what waits for time, and lets time pass: else a process with a message event
    /// sub-process would never skip.
    fn waits_only_for_time(&self) -> bool {
        let active = self.roots.iter().any(|r| {
            self.engine
                .process_instance(*r)
                .is_some_and(|p| p.state.is_active())
        });
        active
            && !self
                .engine
                .user_tasks()
                .iter()
                .any(|t| t.state == baton_engine::runtime::UserTaskState::Created)
            && self.engine.activatable_jobs(None).is_empty()
            && self.engine.incidents().is_empty()
            && !self
                .engine
                .all_message_subscriptions()
                .iter()
                .any(|m| self.holds_a_token(Some(m.element_instance_key), &m.element_id))
            && !self
                .engine
                .signal_subscriptions()
                .iter()
                .any(|s| self.holds_a_token(s.element_instance_key, &s.element_id))
    }

    /// Whether the subscription of `catch_element` opened by `element_instance` holds a token:
    /// the catch event or receive task itself subscribed, or an event-based gateway for the
    /// events after it (Zeebe opens a boundary event's subscription on the activity, an event
    /// sub-process start's on its scope, and a start event's on no instance).
    fn holds_a_token(&self, element_instance: Option<Key>, catch_element: &str) -> bool {
        element_instance
            .and_then(|key| self.engine.element_instance(key))
            .is_some_and(|instance| {
                instance.element_id == catch_element
                    || instance.element_type
                        == baton_engine::runtime::BpmnElementType::EventBasedGateway
            })
    }

    /// The element ids and static job types of the deployed processes.
    pub(crate) fn deployed_names(&self) -> (Vec<String>, Vec<String>) {
        let mut elements = Vec::new();
        let mut job_types = Vec::new();
        for process in self.engine.deployed_processes() {
            for (id, _) in process.element_types() {
                if !elements.iter().any(|e: &String| **e == **id) {
                    elements.push(id.to_string());
                }
            }
            for t in process.static_job_types() {
                if !job_types.iter().any(|e: &String| e == t) {
                    job_types.push(t.to_string());
                }
            }
        }
        (elements, job_types)
    }

    /// Whether some deployed process has these jobs.
    pub(crate) fn check_jobs(&self, jobs: &Jobs, action: &'static str) -> Result<(), FaultError> {
        let (elements, job_types) = self.deployed_names();
        let (known, name) = match jobs {
            Jobs::OfType(t) => (&job_types, t),
            Jobs::AtElement(e) => (&elements, e),
        };
        if known.iter().any(|k| k == name) {
            return Ok(());
        }
        let what = match jobs {
            Jobs::OfType(_) => "job type",
            Jobs::AtElement(_) => "element",
        };
        let closest = known
            .iter()
            .map(|c| (strsim::levenshtein(name, c), c))
            .filter(|(d, _)| *d <= 3)
            .min()
            .map(|(_, c)| format!(" (did you mean \"{c}\"?)"))
            .unwrap_or_default();
        Err(FaultError::NoSuchJobs {
            action,
            jobs: jobs.to_string(),
            why: format!("no deployed process has the {what} \"{name}\"{closest}"),
        })
    }
}

impl crate::ProcessTest {
    /// Injects a fault into the workers of `jobs` (see [`crate::faults`]): for the next
    /// activations the fault counts, or for all. Faults apply in the order injected, before
    /// the mock answers. Panics on a fault that cannot be injected.
    #[track_caller]
    pub fn inject_fault(&self, jobs: Jobs, fault: JobFault) -> &Self {
        if let Err(e) = self.try_inject_fault(jobs, fault) {
            panic!("{e}");
        }
        self
    }

    /// Like [`inject_fault`](Self::inject_fault), with `Err` for a fault that cannot be
    /// injected (no such job type or element, a count of 0, a negative retry count, an absurd
    /// duration).
    pub fn try_inject_fault(&self, jobs: Jobs, fault: JobFault) -> Result<&Self, FaultError> {
        fault.validate()?;
        {
            let mut inner = self.inner.borrow_mut();
            inner.check_jobs(&jobs, "inject a fault into")?;
            inner.trace_on();
            let left = fault.times;
            inner.workers.faults.push(PlannedFault {
                jobs,
                fault,
                left,
                played: 0,
            });
        }
        Ok(self)
    }

    /// The injected job faults that took no activation yet (since the last restart), as
    /// `the fault for the jobs of type "order-lookup" that fails "503"`: a fault a test meant
    /// to play but whose jobs never came (another element, a path not taken).
    pub fn unplayed_faults(&self) -> Vec<String> {
        self.inner
            .borrow()
            .workers
            .faults
            .iter()
            .filter(|f| f.played == 0)
            .map(|f| format!("the fault for {} that {}", f.jobs, f.fault.kind))
            .collect()
    }

    /// Declares the side effect of the workers of `jobs`: every completion (and every crash
    /// after the work) reaches the ledger with its idempotency key. Panics when no deployed
    /// process has the jobs.
    #[track_caller]
    pub fn declare_side_effect(&self, jobs: Jobs, effect: DeclaredSideEffect) -> &Self {
        if let Err(e) = self.try_declare_side_effect(jobs, effect) {
            panic!("{e}");
        }
        self
    }

    /// Like [`declare_side_effect`](Self::declare_side_effect), with `Err` instead of a panic.
    pub fn try_declare_side_effect(
        &self,
        jobs: Jobs,
        effect: DeclaredSideEffect,
    ) -> Result<&Self, FaultError> {
        let mut inner = self.inner.borrow_mut();
        inner.check_jobs(&jobs, "declare a side effect of")?;
        inner.trace_on();
        inner.workers.side_effects.push((jobs, effect));
        Ok(self)
    }

    /// The ledger of side effects so far (a copy: the test's own ledger goes on).
    pub fn ledger(&self) -> Ledger {
        self.inner.borrow().workers.ledger.clone()
    }

    /// Takes over a ledger (another run's, before a restart): the outside world remembers what
    /// it received, and side effects from now on are counted after those. Its side effects
    /// count for [`Invariant::AtMostOncePerKey`](crate::invariants::Invariant).
    pub fn with_ledger(self, ledger: Ledger) -> Self {
        {
            let mut inner = self.inner.borrow_mut();
            inner.workers.run = inner.workers.run.max(ledger.last_run() + 1);
            inner.workers.ledger = ledger;
            inner.seed_invariants();
        }
        self
    }

    /// The side effects of one job type, to assert on.
    pub fn side_effects(&self, job_type: &str) -> SideEffects<'_> {
        SideEffects {
            test: self,
            job_type: job_type.to_string(),
        }
    }

    /// Checks `invariant` after every step from now on: the first step that breaks one fails
    /// the run with the step and the run explained up to there (every assertion prints it, and
    /// the test panics when dropped). How the runs end ([`Invariant::EndsIn`](crate::invariants::Invariant))
    /// and what they reach are checked when the test ends ([`ProcessTest::check_invariants`]).
    /// Panics on an invariant naming what no deployed process has.
    #[track_caller]
    pub fn invariant(&self, invariant: crate::invariants::Invariant) -> &Self {
        if let Err(e) = self.try_invariant(invariant) {
            panic!("{e}");
        }
        self
    }

    /// Like [`invariant`](Self::invariant), with `Err` instead of a panic.
    pub fn try_invariant(
        &self,
        invariant: crate::invariants::Invariant,
    ) -> Result<&Self, crate::invariants::InvariantError> {
        let mut inner = self.inner.borrow_mut();
        let (elements, job_types) = inner.deployed_names();
        invariant.validate(&elements, &job_types)?;
        let mut all: Vec<crate::invariants::Invariant> = inner
            .trace
            .invariants
            .as_ref()
            .map(|c| c.invariants().to_vec())
            .unwrap_or_default();
        all.push(invariant);
        inner.trace.invariants = Some(InvariantChecker::new(all)?);
        inner.trace_on();
        inner.seed_invariants();
        drop(inner);
        self.inner
            .borrow_mut()
            .check_invariants(|| "the invariant was declared".to_string());
        Ok(self)
    }

    /// Checks how the runs ended and what they reached, then returns the first broken
    /// invariant's message (the same as the run error it became), if any.
    pub fn check_invariants(&self) -> Result<(), BrokenInvariant> {
        let broken = self.broken_invariant();
        if broken.is_err() {
            self.inner.borrow_mut().trace.reported = true;
        }
        broken
    }

    /// Checks the end and returns the broken invariant, if any (not marking it read).
    pub(crate) fn broken_invariant(&self) -> Result<(), BrokenInvariant> {
        let mut inner = self.inner.borrow_mut();
        inner.check_invariants_at_end();
        match inner
            .errors
            .iter()
            .find(|e| e.message.starts_with("the invariant "))
        {
            Some(e) => Err(BrokenInvariant {
                message: e.message.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Time skipping, as in Temporal's test environment: after every action, while a run is
    /// active and nothing waits for the test (no user task, no job nobody answers, no incident,
    /// no token at a message or signal catch event, receive task or event-based gateway), the
    /// clock jumps to the next due time: a timer, a job timeout, a retry backoff, an answer on
    /// its way. A boundary event's or an event sub-process's subscription does not stop it. Off
    /// by default (CPT's behaviour).
    pub fn time_skipping(self, on: bool) -> Self {
        self.set_time_skipping(on);
        self
    }

    /// Turns time skipping on or off in the middle of a test.
    pub fn set_time_skipping(&self, on: bool) {
        self.inner.borrow_mut().time_skipping = on;
        if on {
            skip_time(&self.inner);
        }
    }

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

    /// The run trace so far: the engine's events (elements activated and completed, tools,
    /// incidents, jobs that timed out or failed) with what the workers and the clock did, each
    /// with its root instance.
    pub fn run_trace(&self) -> Vec<RunEvent> {
        let mut inner = self.inner.borrow_mut();
        inner.trace_on();
        inner.trace_sync();
        inner.trace.events.clone()
    }
}

impl Inner {
    /// Gives the invariants the side effects of earlier runs in the ledger.
    pub(crate) fn seed_after_restart(&mut self) {
        self.seed_invariants();
    }

    fn seed_invariants(&mut self) {
        let run = self.workers.run;
        let earlier: Vec<crate::invariants::EarlierSideEffect> = self
            .workers
            .ledger
            .entries()
            .iter()
            .filter(|e| e.run < run)
            .map(|e| crate::invariants::EarlierSideEffect {
                effect: e.effect.clone(),
                when: format!("in run {}, before the restart", e.run),
            })
            .collect();
        if let Some(checker) = &mut self.trace.invariants {
            checker.seed(earlier);
        }
    }
}

/// The side effects of one job type in a test's ledger, to assert on.
pub struct SideEffects<'t> {
    test: &'t crate::ProcessTest,
    job_type: String,
}

impl SideEffects<'_> {
    /// Checks an expectation; `Err` lists the side effects, or names the job type or element
    /// that no deployed process has (a typo would else read as "received 0").
    pub fn check(&self, expected: &SideEffectExpectation) -> Result<(), SideEffectsMissed> {
        let inner = self.test.inner.borrow();
        let (elements, mut job_types) = inner.deployed_names();
        // A job type of an earlier run's ledger (before a restart) is known too.
        for entry in inner.workers.ledger.entries() {
            if !job_types.contains(&entry.effect.job_type) {
                job_types.push(entry.effect.job_type.clone());
            }
        }
        let unknown = |what: &str, name: &str, known: &[String]| {
            let closest = known
                .iter()
                .map(|c| (strsim::levenshtein(name, c), c))
                .filter(|(d, _)| *d <= 3)
                .min()
                .map(|(_, c)| format!(" (did you mean \"{c}\"?)"))
                .unwrap_or_default();
            SideEffectsMissed(format!(
                "cannot check the side effects of \"{}\": no deployed process has the {what} \"{name}\"{closest}",
                expected.job_type
            ))
        };
        if !job_types.contains(&expected.job_type) {
            return Err(unknown("job type", &expected.job_type, &job_types));
        }
        if let Some(element) = &expected.none_before
            && !elements.contains(element)
        {
            return Err(unknown("element", element, &elements));
        }
        inner.workers.ledger.check(expected)
    }

    #[track_caller]
    fn assert(&self, expected: SideEffectExpectation) -> &Self {
        if let Err(e) = self.check(&expected) {
            panic!("{e}");
        }
        self
    }

    /// Panics unless the outside world received this many side effects (`1`, `..=1`, `1..`).
    #[track_caller]
    pub fn assert_count(&self, times: impl Into<crate::Times>) -> &Self {
        self.assert(SideEffectExpectation::of(&self.job_type).count(times))
    }

    /// Panics when two side effects share an idempotency key.
    #[track_caller]
    pub fn assert_at_most_once_per_key(&self) -> &Self {
        self.assert(SideEffectExpectation::of(&self.job_type).at_most_once_per_key())
    }

    /// Panics when a side effect happened before `element` completed (in its root instance).
    #[track_caller]
    pub fn assert_none_before(&self, element: &str) -> &Self {
        self.assert(SideEffectExpectation::of(&self.job_type).none_before(element))
    }

    /// The side effects, in order.
    pub fn entries(&self) -> Vec<LedgerEntry> {
        let inner = self.test.inner.borrow();
        inner
            .workers
            .ledger
            .of_type(&self.job_type)
            .cloned()
            .collect()
    }
}
