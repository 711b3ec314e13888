//! What a test declares about its workers (the faults to play, the side effects of their
//! jobs, a ledger taken over), checked against the deployed processes; and the side effects to
//! assert on.

use super::PlannedFault;
use crate::faults::{FaultError, JobFault, Jobs};
use crate::process_test::Inner;
use crate::side_effects::{
    DeclaredSideEffect, Ledger, LedgerEntry, SideEffectExpectation, SideEffectsMissed,
};

impl Inner {
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
