//! The query surface the test library reads: element instances, variables, jobs, incidents,
//! user tasks, process instances and the records since a position.

use std::sync::Arc;

use crate::runtime::elements::ad_hoc::INNER_INSTANCE_SUFFIX;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, ElementRef, ErrorType, JobKind, JobValue, Key, ListenerEventType, ProcIdx,
    Record, RecordValue, VariableDocument,
};
use crate::runtime::shared_json::SharedJson;
use crate::runtime::state::jobs::{Job, JobState};
use crate::runtime::state::lifecycle::State;
use crate::runtime::state::user_tasks::UserTask;

/// A live element instance.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ElementInstanceView {
    pub key: Key,
    pub process_instance_key: Key,
    pub bpmn_process_id: Arc<str>,
    /// The element id (`<id>#innerInstance` for ad-hoc inner instances; the process id for the
    /// process instance).
    pub element_id: String,
    pub element_type: BpmnElementType,
    pub state: State,
    pub flow_scope_key: Option<Key>,
    pub has_incident: bool,
}

/// A process instance, live or ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProcessInstanceView {
    pub key: Key,
    pub bpmn_process_id: Arc<str>,
    pub version: i32,
    pub process_definition_key: Key,
    pub state: State,
    pub parent_process_instance_key: Option<Key>,
    /// Suspended (Zeebe 8.10, see [`Engine::suspend_instance`]); the element state stays as it is.
    pub suspended: bool,
}

/// A variable of a scope.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VariableView {
    pub key: Key,
    pub scope_key: Key,
    pub name: Arc<str>,
    pub value: SharedJson,
}

/// A job.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JobView {
    pub key: Key,
    pub job_type: Arc<str>,
    pub kind: JobKind,
    pub listener_event_type: ListenerEventType,
    pub state: JobState,
    pub retries: i32,
    pub process_instance_key: Key,
    pub bpmn_process_id: Arc<str>,
    pub element_id: Arc<str>,
    pub element_instance_key: Key,
    pub custom_headers: Arc<indexmap::IndexMap<String, String>>,
    pub error_message: Option<Arc<str>>,
    pub deadline: Option<i64>,
}

/// An open incident.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IncidentView {
    pub key: Key,
    pub error_type: ErrorType,
    pub error_message: Arc<str>,
    pub process_instance_key: Key,
    pub bpmn_process_id: Arc<str>,
    pub element_id: String,
    pub element_instance_key: Key,
    pub job_key: Option<Key>,
}

impl Engine {
    fn element_id_text(
        &self,
        proc: ProcIdx,
        element_ref: ElementRef,
        element_type: BpmnElementType,
    ) -> String {
        let p = self.process(proc);
        match element_ref {
            ElementRef::Process => p.bpmn_process_id.to_string(),
            ElementRef::Element(e)
                if element_type == BpmnElementType::AdHocSubProcessInnerInstance =>
            {
                format!("{}{}", p.element(e).id, INNER_INSTANCE_SUFFIX)
            }
            ElementRef::Element(e) => p.element(e).id.to_string(),
            ElementRef::Flow(f) => p.model.flow(f).id.to_string(),
        }
    }

    fn view(&self, key: Key) -> Option<ElementInstanceView> {
        let i = self.instances.get(&key)?;
        Some(ElementInstanceView {
            key,
            process_instance_key: i.process_instance_key,
            bpmn_process_id: self.process(i.proc).bpmn_process_id.clone(),
            element_id: self.element_id_text(i.proc, i.element_ref, i.element_type),
            element_type: i.element_type,
            state: i.state,
            flow_scope_key: i.flow_scope,
            has_incident: i.incident().is_some(),
        })
    }

    /// The live element instances of a process instance (the process instance itself included),
    /// by key.
    pub fn element_instances(&self, process_instance_key: Key) -> Vec<ElementInstanceView> {
        let mut keys: Vec<Key> = self
            .instances
            .values()
            .filter(|i| i.process_instance_key == process_instance_key)
            .map(|i| i.key)
            .collect();
        keys.sort_unstable();
        keys.into_iter().filter_map(|k| self.view(k)).collect()
    }

    /// One live element instance.
    pub fn element_instance(&self, key: Key) -> Option<ElementInstanceView> {
        self.view(key)
    }

    /// The live children of an element instance, by key.
    pub fn child_instances(&self, key: Key) -> Vec<ElementInstanceView> {
        let mut keys = self
            .instances
            .get(&key)
            .map(|i| i.children.clone())
            .unwrap_or_default();
        keys.sort_unstable();
        keys.into_iter().filter_map(|k| self.view(k)).collect()
    }

    /// A process instance, live or ended.
    pub fn process_instance(&self, key: Key) -> Option<ProcessInstanceView> {
        let s = self.process_instances.get(&key)?;
        let p = self.process(s.proc);
        Some(ProcessInstanceView {
            key,
            bpmn_process_id: p.bpmn_process_id.clone(),
            version: p.version,
            process_definition_key: p.key,
            state: s.state,
            parent_process_instance_key: s.parent_process_instance_key,
            suspended: self.is_suspended(key),
        })
    }

    /// Every process instance the engine has seen, by key.
    pub fn process_instances(&self) -> Vec<ProcessInstanceView> {
        self.process_instances
            .keys()
            .filter_map(|k| self.process_instance(*k))
            .collect()
    }

    /// The local variables of a scope, in creation order.
    pub fn variables(&self, scope_key: Key) -> Vec<VariableView> {
        self.instances
            .get(&scope_key)
            .map(|i| {
                i.vars
                    .iter()
                    .map(|v| VariableView {
                        key: v.key,
                        scope_key,
                        name: v.name.clone(),
                        value: v.value.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A variable as seen from a scope (walking up the scopes).
    pub fn variable(&self, scope_key: Key, name: &str) -> Option<SharedJson> {
        self.lookup_var(scope_key, name).cloned()
    }

    /// All variables visible from a scope as one document (inner names hide outer ones): what a
    /// job worker receives.
    pub fn visible_variables_of(&self, scope_key: Key) -> VariableDocument {
        self.visible_variables(scope_key)
    }

    fn job_view(&self, j: &Job) -> JobView {
        let p = self.process(j.proc);
        JobView {
            key: j.key,
            job_type: j.job_type.clone(),
            kind: j.kind,
            listener_event_type: j.listener_event_type,
            state: j.state,
            retries: j.retries,
            process_instance_key: j.process_instance_key,
            bpmn_process_id: p.bpmn_process_id.clone(),
            element_id: match j.element {
                ElementRef::Element(e) => p.element(e).id.clone(),
                _ => p.bpmn_process_id.clone(),
            },
            element_instance_key: j.element_instance_key,
            custom_headers: j.custom_headers.clone(),
            error_message: j.error_message.clone(),
            deadline: j.deadline,
        }
    }

    /// One job.
    pub fn job(&self, key: Key) -> Option<JobView> {
        self.jobs.get(&key).map(|j| self.job_view(j))
    }

    /// One open job's data, borrowed (type, element instance, retries, headers, ...): for a
    /// worker loop that only reads a field or two, without building a [`JobView`].
    pub fn job_value(&self, key: Key) -> Option<&JobValue> {
        self.jobs.get(&key).map(|j| &*j.value)
    }

    /// Every open job, by key.
    pub fn jobs(&self) -> Vec<JobView> {
        self.jobs.values().map(|j| self.job_view(j)).collect()
    }

    /// Jobs a worker could take now (optionally of one type), oldest first.
    pub fn activatable_jobs(&self, job_type: Option<&str>) -> Vec<JobView> {
        self.jobs
            .values()
            .filter(|j| {
                j.state == JobState::Activatable && job_type.is_none_or(|t| &*j.job_type == t)
            })
            .map(|j| self.job_view(j))
            .collect()
    }

    /// Jobs that became activatable since `cursor` (a value this method returned before; start
    /// with 0) and still are, in the order they became activatable, plus the new cursor. Cheap:
    /// it looks only at what changed.
    pub fn activatable_jobs_since(&self, cursor: usize) -> (Vec<Key>, usize) {
        let mut keys = Vec::new();
        let cursor = self.for_each_activatable_job_since(cursor, |k| keys.push(k));
        (keys, cursor)
    }

    /// [`activatable_jobs_since`](Self::activatable_jobs_since) without collecting: calls `f`
    /// with each key (a test's job loop asks this after every answer) and returns the new
    /// cursor.
    pub fn for_each_activatable_job_since(&self, cursor: usize, mut f: impl FnMut(Key)) -> usize {
        let from = cursor.min(self.jobs.feed.len());
        for k in &self.jobs.feed[from..] {
            if self
                .jobs
                .get(k)
                .is_some_and(|j| j.state == JobState::Activatable)
            {
                f(*k);
            }
        }
        self.jobs.feed.len()
    }

    /// Forgets the activatable-job history (the bench calls it between instances).
    pub fn clear_job_feed(&mut self) {
        self.jobs.feed.clear();
    }

    /// The variables a worker gets with the job: everything visible from its element instance.
    pub fn job_variables(&self, key: Key) -> Option<VariableDocument> {
        let j = self.jobs.get(&key)?;
        Some(self.visible_variables(j.element_instance_key))
    }

    /// Open incidents, by key.
    pub fn incidents(&self) -> Vec<IncidentView> {
        self.incidents
            .values()
            .map(|i| IncidentView {
                key: i.key,
                error_type: i.error_type,
                error_message: i.error_message.clone(),
                process_instance_key: i.process_instance_key,
                bpmn_process_id: self.process(i.proc).bpmn_process_id.clone(),
                element_id: self.element_id_text(
                    i.proc,
                    i.element_ref,
                    self.instances
                        .get(&i.element_instance_key)
                        .map(|x| x.element_type)
                        .unwrap_or(BpmnElementType::Unspecified),
                ),
                element_instance_key: i.element_instance_key,
                job_key: i.job_key,
            })
            .collect()
    }

    /// Camunda user tasks (all states), by key.
    pub fn user_tasks(&self) -> Vec<&UserTask> {
        self.user_tasks.values().collect()
    }

    /// The element id of a user task.
    pub fn user_task_element_id(&self, task: &UserTask) -> Arc<str> {
        self.process(task.value.proc)
            .element(task.value.element)
            .id
            .clone()
    }

    /// The whole event log.
    pub fn records(&self) -> &[Record] {
        &self.log.records
    }

    /// Records written after `position` (positions start at 1).
    pub fn records_since(&self, position: u64) -> &[Record] {
        let start = self.log.records.partition_point(|r| r.position <= position);
        &self.log.records[start..]
    }

    /// The position of the last record written.
    pub fn position(&self) -> u64 {
        self.log.position
    }

    /// Forgets process instances that have ended (the bench calls it between instances so the
    /// summaries do not pile up).
    pub fn forget_ended_instances(&mut self) {
        self.process_instances.retain(|_, s| s.state.is_active());
    }

    /// Drops the log (positions keep counting).
    pub fn clear_records(&mut self) {
        self.log.records.clear();
    }

    /// The element id of a record about an element (or the process id, or a flow id; a
    /// timer's event).
    pub fn record_element_id(&self, r: &Record) -> Option<String> {
        match &r.value {
            RecordValue::ProcessInstance(v) => {
                Some(self.element_id_text(v.proc, v.element_ref, v.element_type))
            }
            RecordValue::Job(j) => {
                Some(self.element_id_text(j.proc, j.element, BpmnElementType::Unspecified))
            }
            RecordValue::Incident(i) => {
                Some(self.element_id_text(i.proc, i.element, BpmnElementType::Unspecified))
            }
            RecordValue::Timer(t) => Some(
                self.process(t.proc)
                    .element(t.target_element)
                    .id
                    .to_string(),
            ),
            _ => None,
        }
    }
}

impl Engine {
    /// The earliest time something is due: a timer, the end of a job's activation timeout or
    /// retry backoff, a buffered message's expiry. A test moving the clock steps to each due
    /// time in turn, so what fires first can change what is due next.
    pub fn next_due_time(&self) -> Option<i64> {
        // A timer held for a suspended instance is out of the due dates, and the time-outs and
        // backoffs of its jobs wait for the resume.
        let timers = self.timers.by_due.first().map(|(due, _)| *due);
        let jobs = self
            .jobs
            .values()
            .filter(|j| !self.is_suspended(j.process_instance_key));
        // A deadline times out once the clock is past it (see `fire_due_jobs`).
        let jobs = jobs.filter_map(|j| match j.state {
            JobState::Activated => j.deadline.map(|d| d.saturating_add(1)),
            JobState::FailedBackoff => j.recurring_time,
            _ => None,
        });
        let messages = self.buffered_messages().into_iter().map(|m| m.deadline);
        timers.into_iter().chain(jobs).chain(messages).min()
    }
}

impl Engine {
    /// Visits every variable visible from a scope without copying values: outermost scope
    /// first, so a variable of an inner scope comes after the outer one it hides (what a job
    /// worker receives, see [`Engine::job_variables`]).
    pub fn for_each_visible_variable(
        &self,
        scope_key: Key,
        mut f: impl FnMut(&Arc<str>, &SharedJson),
    ) {
        self.visit_scope_chain(scope_key, &mut f);
    }

    /// The scope's flow scopes first (recursion, not a collected chain: this runs once per
    /// mocked job, and nesting is shallow).
    fn visit_scope_chain(&self, scope_key: Key, f: &mut impl FnMut(&Arc<str>, &SharedJson)) {
        let Some(i) = self.instances.get(&scope_key) else {
            return;
        };
        if let Some(parent) = i.flow_scope {
            self.visit_scope_chain(parent, f);
        }
        for v in i.vars.iter() {
            f(&v.name, &v.value);
        }
    }
}
