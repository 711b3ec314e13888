//! What a run did and holds now: state, variables, elements, jobs, incidents, errors.

use baton_engine::runtime::{IncidentView, JobView, State};
use serde_json::{Map, Value};

use super::{Run, RunState};
use crate::history::ElementEventKind;

impl Run {
    /// Active, completed or terminated.
    pub fn state(&self) -> RunState {
        self.read(|i| match i.engine.process_instance(self.key) {
            Some(p) if p.suspended => RunState::Suspended,
            Some(p) if p.state == State::Completed => RunState::Completed,
            Some(p) if p.state == State::Terminated => RunState::Terminated,
            _ => RunState::Active,
        })
    }

    /// The process instance's own variables now (or when it ended).
    pub fn variables(&self) -> Map<String, Value> {
        self.read(|i| {
            i.history
                .scope_variables(self.key)
                .map(|v| {
                    v.iter()
                        .map(|(k, v)| (k.to_string(), (**v).clone()))
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// One variable of the process instance.
    pub fn variable(&self, name: &str) -> Option<Value> {
        self.read(|i| {
            i.history
                .scope_variables(self.key)
                .and_then(|v| v.get(name))
                .map(|v| (**v).clone())
        })
    }

    fn element_ids(&self, kind: ElementEventKind) -> Vec<String> {
        self.read(|i| {
            i.history
                .instance(self.key)
                .map(|l| {
                    l.events
                        .iter()
                        .filter(|e| e.kind == kind)
                        .map(|e| e.element_id.to_string())
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// Every element left by completing, in order, with repeats (what `assert_passed` uses).
    pub fn completed_elements(&self) -> Vec<String> {
        self.element_ids(ElementEventKind::Completed)
    }

    /// Every element entered, in order, with repeats.
    pub fn entered_elements(&self) -> Vec<String> {
        self.element_ids(ElementEventKind::Activated)
    }

    /// The elements holding a token now, in order of activation (no repeats).
    pub fn active_elements(&self) -> Vec<String> {
        self.read(|i| {
            let mut ids: Vec<String> = Vec::new();
            for e in i.subject(self.key).active_instances() {
                if !ids.contains(&e.element_id) {
                    ids.push(e.element_id);
                }
            }
            ids
        })
    }

    /// Jobs open in this run and the processes it called (not yet completed), oldest first.
    pub fn jobs(&self) -> Vec<JobView> {
        self.read(|i| {
            let family = i.history.descendants(self.key);
            i.engine
                .jobs()
                .into_iter()
                .filter(|j| {
                    j.process_instance_key == self.key || family.contains(&j.process_instance_key)
                })
                .collect()
        })
    }

    /// Active incidents of this run and the processes it called.
    pub fn incidents(&self) -> Vec<IncidentView> {
        self.read(|i| {
            let family = i.history.descendants(self.key);
            i.engine
                .incidents()
                .into_iter()
                .filter(|x| {
                    x.process_instance_key == self.key || family.contains(&x.process_instance_key)
                })
                .collect()
        })
    }

    /// The run trace of this run (its root's events), read up to now.
    pub(crate) fn trace_events(&self) -> Vec<crate::trace::TraceEvent> {
        let mut inner = self.inner.borrow_mut();
        inner.trace_on();
        inner.trace_sync();
        let root = inner.root_of(self.key);
        inner
            .trace
            .events
            .iter()
            .filter(|e| e.root == root)
            .map(|e| e.event.clone())
            .collect()
    }

    /// The run's errors (mocks, the AI agent mock, rejected answers), oldest first.
    pub fn errors(&self) -> Vec<String> {
        self.read(|i| {
            let root = i.root_of(self.key);
            i.mark_errors_seen(Some(root));
            i.errors_of(root).into_iter().map(str::to_owned).collect()
        })
    }

    /// The first error of the run, if any (the seed's `run.error`).
    pub fn error(&self) -> Option<String> {
        self.errors().into_iter().next()
    }

    /// The run explained: state, waiting points, incidents, variables, path, errors.
    pub fn explain(&self) -> String {
        self.read(|i| i.explain(self.key))
    }
}
