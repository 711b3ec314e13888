//! The run trace a process test keeps (read from the engine's records as needed, with what the
//! workers and the clock did in between) and the invariants checked over it.

use baton_engine::runtime::Key;

use crate::invariants::{BrokenInvariant, InvariantChecker, RootEnd, RunEvent, RunView, Violation};
use crate::process_test::Inner;
use crate::trace::{TraceEvent, TraceReader};

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
    /// The test read the broken invariant ([`crate::ProcessTest::check_invariants`]): dropping the
    /// test does not panic with it.
    pub reported: bool,
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
        // One numbering: the trace's entries, the one that broke it marked below.
        let upto = v.event.map_or(self.trace.events.len(), |i| i + 1);
        let at = match v.event {
            Some(i) => format!("at event {}", i + 1),
            None if upto == 0 => "before the first event".to_string(),
            None => format!("after event {upto}"),
        };
        match step {
            Some(step) => message.push_str(&format!(
                "\nIt broke {at} ({step}) at {}.",
                crate::clock::format_instant(self.engine.now())
            )),
            None => message.push_str("\nIt broke when the test ended."),
        }
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

impl crate::ProcessTest {
    /// Checks `invariant` after every step from now on: the first step that breaks one fails
    /// the run with the step and the run explained up to there (every assertion prints it, and
    /// the test panics when dropped). How the runs end ([`Invariant::EndsIn`](crate::invariants::Invariant))
    /// and what they reach are checked when the test ends ([`crate::ProcessTest::check_invariants`]).
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

    pub(super) fn seed_invariants(&mut self) {
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
