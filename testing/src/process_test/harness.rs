//! The settle loop over a process test: who answers a job, the hooks at quiescence, and
//! [`settle`] after every action (see the module documentation of `process_test`).

use std::cell::RefCell;
use std::rc::Rc;

use baton_engine::runtime::{Engine, JobKind, JobView, Key};

use super::{FxIndexMap, Inner};
use crate::assertions::{AssertionFailure, Check};
use crate::mocks::{Answer, AnswerJob, MockState, TestJob};
use crate::settle::{Harness, JobFacts};

/// Runs at quiescence: when the engine waits and no mock has a job left to answer. Return
/// `true` when the hook changed something (the engine then runs, mocks answer, and every hook
/// is asked again). CPT's conditional behaviours are such a hook.
pub trait AtQuiescence {
    /// Looks at the state and maybe acts.
    fn at_quiescence(&mut self, state: &mut Quiescent<'_>) -> bool;
}

impl<F: FnMut(&mut Quiescent<'_>) -> bool> AtQuiescence for F {
    fn at_quiescence(&mut self, state: &mut Quiescent<'_>) -> bool {
        self(state)
    }
}

/// What a hook sees at quiescence: the engine (to read and to command) and the checks.
pub struct Quiescent<'a> {
    inner: &'a mut Inner,
}

impl Quiescent<'_> {
    /// The engine, to read.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The engine, to send commands to.
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.inner.engine
    }

    /// Runs a check against a process instance now (see [`Check`]).
    pub fn check(&mut self, instance: Key, check: &Check) -> Result<(), AssertionFailure> {
        self.inner.sync();
        self.inner.check(instance, check)
    }

    /// Records an error for the run of `instance`.
    pub fn add_error(&mut self, instance: Option<Key>, message: impl Into<String>) {
        self.inner.sync();
        self.inner.add_error(instance, message.into());
    }
}

/// Who answers a job.
#[derive(Clone)]
pub(crate) enum Answerer {
    Mock(Rc<RefCell<MockState>>),
    Element {
        label: Rc<str>,
        answerer: Rc<RefCell<dyn AnswerJob>>,
    },
    /// No mock, but a fault for the job's next activation: the fault is the worker (its
    /// latency or crash holds a job nobody would answer).
    Fault,
}

impl Answerer {
    fn label(&self) -> String {
        match self {
            Answerer::Mock(m) => m.borrow().label(),
            Answerer::Element { label, .. } => label.to_string(),
            Answerer::Fault => "the injected fault".to_string(),
        }
    }
}

/// The process test as a settle harness: the test is borrowed only between the answerers' calls,
/// so an answerer may read a handle.
struct SharedTest<'a>(&'a RefCell<Inner>);

impl Harness for SharedTest<'_> {
    type Answerer = (Answerer, TestJob);

    fn answer_limit(&self) -> usize {
        self.0.borrow().settings.answer_limit
    }

    fn next_job(&mut self) -> Option<(JobFacts, JobView, Self::Answerer)> {
        let mut inner = self.0.borrow_mut();
        let inner = &mut *inner;
        let (view, answerer) = inner.feed.next(&inner.engine, |view| {
            inner_answerer(&inner.element_answerers, &inner.job_mocks, view).or_else(|| {
                inner
                    .workers
                    .has_fault_for(&view.job_type, &view.element_id)
                    .then_some(Answerer::Fault)
            })
        })?;
        let job = inner.test_job(&view);
        let facts = JobFacts {
            key: job.key,
            process_instance_key: job.process_instance_key,
            process_definition_key: job.process_definition_key,
            retries: job.retries,
            element_id: view.element_id.clone(),
        };
        Some((facts, view, (answerer, job)))
    }

    fn answer(
        &mut self,
        _facts: &JobFacts,
        _job: &JobView,
        (answerer, job): &Self::Answerer,
    ) -> Option<Answer> {
        let begun = crate::workers::begin_activation(&mut self.0.borrow_mut(), job);
        let (activation, fault) = match begun {
            Ok(begun) => begun,
            Err(message) => return Some(Answer::FailRun(message)),
        };
        self.0.borrow_mut().workers.current = Some(activation);
        // Called without the test borrowed, so a handle may be read inside.
        let ask = || match answerer {
            Answerer::Mock(m) => m.borrow_mut().answer_job(job.clone()),
            Answerer::Element { answerer, .. } => answerer.borrow_mut().answer(job),
            Answerer::Fault => Answer::Wait,
        };
        Some(match fault {
            Some(fault) => crate::workers::faulted_answer(&fault, ask),
            None => ask(),
        })
    }

    fn apply(&mut self, facts: &JobFacts, answer: Answer, (answerer, job): &Self::Answerer) {
        let mut inner = self.0.borrow_mut();
        let label = answerer.label();
        let step = crate::workers::answered(&label, &facts.element_id, &answer);
        let activation =
            inner
                .workers
                .current
                .take()
                .unwrap_or_else(|| crate::workers::Activation {
                    attempt: 1,
                    job_type: job.job_type.clone(),
                    job_timeout: inner.workers.job_timeout,
                    effect: None,
                });
        crate::workers::deliver(
            &mut inner,
            facts,
            answer,
            &label,
            activation,
            crate::workers::Arrival::AtOnce,
        );
        inner.check_invariants(|| step);
    }

    fn run_error(&mut self, instance: Option<Key>, message: String) {
        let mut inner = self.0.borrow_mut();
        inner.sync();
        inner.add_error(instance, message);
    }

    fn at_quiescence(&mut self) -> bool {
        let cell = self.0;
        let mut hooks = std::mem::take(&mut cell.borrow_mut().hooks);
        if hooks.is_empty() {
            return false;
        }
        let mut fired = false;
        {
            let mut inner = cell.borrow_mut();
            inner.sync();
            let mut state = Quiescent { inner: &mut inner };
            for hook in hooks.iter_mut() {
                if hook.at_quiescence(&mut state) {
                    fired = true;
                    break;
                }
            }
        }
        let mut inner = cell.borrow_mut();
        hooks.append(&mut inner.hooks);
        inner.hooks = hooks;
        if fired {
            inner.check_invariants(|| "a behaviour at quiescence acted".to_string());
        }
        fired
    }
}

fn inner_answerer(
    element_answerers: &FxIndexMap<String, Answerer>,
    job_mocks: &FxIndexMap<String, Rc<RefCell<MockState>>>,
    job: &JobView,
) -> Option<Answerer> {
    if matches!(job.kind, JobKind::BpmnElement | JobKind::AdHocSubProcess)
        && let Some(a) = element_answerers.get(&*job.element_id)
    {
        return Some(a.clone());
    }
    let m = job_mocks.get(&*job.job_type)?;
    m.borrow().active.then(|| Answerer::Mock(m.clone()))
}

/// After an action of the test: checks the invariants, runs mocks and hooks until nothing is
/// left to do, and with time skipping on jumps the clock while only time can make the run go
/// on. See the module documentation.
pub(crate) fn settle(cell: &RefCell<Inner>) {
    settle_step(cell, || "the test's action".to_string());
    crate::workers::skip_time(cell);
}

/// Runs mocks and hooks after one step (named by `step` if an invariant breaks at it).
pub(crate) fn settle_step(cell: &RefCell<Inner>, step: impl FnOnce() -> String) {
    cell.borrow_mut().check_invariants(step);
    crate::settle::settle(&mut SharedTest(cell));
    cell.borrow_mut().sync();
}
