//! Camunda user tasks (`zeebe:userTask`): stored by the engine with assignee, candidates,
//! priority, due and follow-up dates; completed through [`Engine::complete_user_task`].
//! Job-based user tasks (without `zeebe:userTask`) are plain jobs of type
//! `io.camunda.zeebe:userTask`.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::runtime::command::JobResult;
use crate::runtime::compile::definitions::ListenerDef;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    JobKind, Key, ListenerEventType, OtherIntent, RecordValue, Rejection, RejectionType,
    SharedVariableDocument, UserTaskValue, ValueType, VariableDocument,
};
use crate::runtime::state::lifecycle::State;
use crate::runtime::state::user_tasks::{PendingTransition, UserTaskState, task_transition};
use crate::runtime::step::FollowUp;

pub(crate) fn list_value(v: Json) -> Result<Vec<String>, String> {
    match v {
        Json::Null => Ok(Vec::new()),
        Json::String(s) => Ok(s
            .split(',')
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect()),
        Json::Array(items) => items
            .into_iter()
            .map(|i| match i {
                Json::String(s) => Ok(s),
                other => Err(format!(
                    "expected a list of strings, but it contains {other}"
                )),
            })
            .collect(),
        other => Err(format!("expected a list of strings, but was {other}")),
    }
}

impl Engine {
    /// The task listeners of a user task for one event, in declared order.
    fn task_listeners(&self, task: Key, event: ListenerEventType) -> Vec<ListenerDef> {
        let Some(t) = self.user_tasks.get(&task) else {
            return Vec::new();
        };
        let p = self.process(t.value.proc);
        let name = match event {
            ListenerEventType::Creating => "creating",
            ListenerEventType::Assigning => "assigning",
            ListenerEventType::Updating => "updating",
            ListenerEventType::Completing => "completing",
            ListenerEventType::Canceling => "canceling",
            _ => "",
        };
        // Older models name the events create/assign/update/complete/cancel.
        let old = name.trim_end_matches("ing");
        p.element(t.value.element)
            .user_task
            .as_ref()
            .map(|d| {
                d.listeners
                    .iter()
                    .filter(|l| l.event_type == name || l.event_type == old)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    fn user_task_event(&mut self, task: Key, intent: OtherIntent, value: UserTaskValue) {
        self.event(
            ValueType::UserTask,
            intent,
            Some(task),
            RecordValue::UserTask(Box::new(value)),
        );
    }

    /// Starts a transition: the `...ING` record, then the listeners one by one (each a job),
    /// then the transition is finished. The new assignee or changed fields are in the task (and
    /// its records) from the start; a denial restores the task as it was.
    pub(crate) fn begin_task_transition(
        &mut self,
        task: Key,
        event: ListenerEventType,
        variables: Arc<VariableDocument>,
        assignee: Option<Option<Arc<str>>>,
        changes: Option<Arc<VariableDocument>>,
    ) {
        let ing = task_transition(event).starting;
        let Some(t) = self.user_tasks.get_mut(&task) else {
            return;
        };
        let before = t.value.clone();
        let mut value = t.value.clone();
        if let Some(a) = &assignee {
            value.assignee = a.clone();
        }
        if let Some(c) = &changes {
            apply_fields(&mut value, c);
        }
        if event == ListenerEventType::Completing {
            value.variables = Some(variables.clone());
            value.action = Some(Arc::from("complete"));
        }
        t.value = value.clone();
        t.pending = Some(Box::new(PendingTransition {
            event,
            next_listener: 0,
            variables,
            before,
        }));
        self.user_task_event(task, ing, value);
        self.continue_task_transition(task);
    }

    /// Runs the next task listener of the transition in progress, or finishes it.
    fn continue_task_transition(&mut self, task: Key) {
        let Some(pending) = self
            .user_tasks
            .get(&task)
            .and_then(|t| t.pending.as_deref())
            .cloned()
        else {
            return;
        };
        let listeners = self.task_listeners(task, pending.event);
        if let Some(l) = listeners.get(pending.next_listener) {
            let ei = self.user_tasks[&task].value.element_instance_key;
            let job = self
                .eval_job_def(ei, &l.job_type, &l.retries)
                .map(|(job_type, retries)| {
                    self.create_job(
                        ei,
                        JobKind::TaskListener,
                        pending.event,
                        job_type,
                        retries,
                        Arc::new(indexmap::IndexMap::new()),
                    )
                });
            if let Err(f) = job {
                self.create_incident(ei, None, f);
            }
            return;
        }
        self.finish_task_transition(task);
    }

    /// All listeners ran: the transition takes effect.
    fn finish_task_transition(&mut self, task: Key) {
        let Some(t) = self.user_tasks.get_mut(&task) else {
            return;
        };
        let Some(pending) = t.pending.take() else {
            return;
        };
        let row = task_transition(pending.event);
        let ed = row.finished;
        t.state = row.state_after;
        let ei = t.value.element_instance_key;
        match pending.event {
            ListenerEventType::Completing => {
                let value = t.value.clone();
                self.user_task_event(task, ed, value);
                if let Some(i) = self.instances.get_mut(&ei) {
                    i.extras_mut().user_task = None;
                    i.completion_vars = Some(Arc::new(
                        crate::runtime::records::share_document_arc(pending.variables),
                    ));
                }
                self.queue.push_back(FollowUp::Complete(ei));
            }
            ListenerEventType::Canceling => {
                let value = t.value.clone();
                self.user_task_event(task, ed, value);
                // The element waited for the canceling listeners.
                if self
                    .instances
                    .get(&ei)
                    .is_some_and(|i| i.state == State::Terminating)
                {
                    self.finalize_termination(ei);
                }
            }
            ListenerEventType::Creating => {
                let value = t.value.clone();
                if let Err(f) = self.transition(ei, State::Activated) {
                    self.create_incident(ei, None, f);
                    return;
                }
                self.user_task_event(task, ed, value);
            }
            _ => {
                let value = t.value.clone();
                self.user_task_event(task, ed, value);
            }
        }
    }

    /// A task listener job completed: its corrections are applied, or it denies the
    /// transition, or the next listener runs.
    pub(crate) fn complete_task_listener_job(
        &mut self,
        element_instance: Key,
        _variables: &SharedVariableDocument,
        result: Option<JobResult>,
    ) {
        let Some(task) = self.task_of_instance(element_instance) else {
            return;
        };
        let (denied, reason, corrections) = match result {
            Some(JobResult::UserTask {
                denied,
                denied_reason,
                corrections,
            }) => (denied, denied_reason, corrections),
            _ => (false, None, VariableDocument::new()),
        };
        if !corrections.is_empty()
            && let Some(t) = self.user_tasks.get_mut(&task)
        {
            apply_fields(&mut t.value, &corrections);
            let mut value = t.value.clone();
            value.action = reason.as_deref().map(Arc::from).or(value.action);
            self.user_task_event(task, OtherIntent::Corrected, value);
        }
        if denied {
            let Some(t) = self.user_tasks.get_mut(&task) else {
                return;
            };
            let Some(pending) = t.pending.take() else {
                return;
            };
            let deny = task_transition(pending.event).denied;
            t.value = pending.before;
            t.state = UserTaskState::Created;
            let mut value = t.value.clone();
            if let Some(r) = reason {
                value.action = Some(Arc::from(r.as_str()));
            }
            if let Some(intent) = deny {
                self.user_task_event(task, intent, value);
            }
            return;
        }
        if let Some(p) = self
            .user_tasks
            .get_mut(&task)
            .and_then(|t| t.pending.as_mut())
        {
            p.next_listener += 1;
        }
        self.continue_task_transition(task);
    }

    /// Whether a task listener job may deny its transition (creating and canceling cannot be
    /// denied).
    pub(crate) fn check_task_listener_result(
        &self,
        job_key: Key,
        result: &Option<JobResult>,
    ) -> Result<(), Rejection> {
        let Some(JobResult::UserTask { denied: true, .. }) = result else {
            return Ok(());
        };
        let event = self
            .jobs
            .get(&job_key)
            .map(|j| j.listener_event_type)
            .unwrap_or(ListenerEventType::Unspecified);
        if matches!(
            event,
            ListenerEventType::Creating | ListenerEventType::Canceling
        ) {
            return Err(Rejection::new(
                RejectionType::InvalidArgument,
                format!(
                    "Expected to complete task listener job with key '{job_key}', but a denying result is not supported for the '{}' event",
                    event.as_str().to_ascii_lowercase()
                ),
            ));
        }
        Ok(())
    }

    fn task_of_instance(&self, element_instance: Key) -> Option<Key> {
        self.instances
            .get(&element_instance)
            .and_then(|i| i.user_task())
    }

    /// Carries out the command of [`Engine::complete_user_task`].
    pub(crate) fn apply_complete_user_task(
        &mut self,
        user_task_key: Key,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        let Some(task) = self.user_tasks.get(&user_task_key) else {
            return Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to complete user task with key '{user_task_key}', but no such user task was found"
                ),
            ));
        };
        if task.state != UserTaskState::Created {
            return Err(Rejection::new(
                RejectionType::InvalidState,
                format!(
                    "Expected to complete user task with key '{user_task_key}', but it is in state '{:?}'",
                    task.state
                ),
            ));
        }
        if task.pending.is_some() {
            return Err(Rejection::new(
                RejectionType::InvalidState,
                format!(
                    "Expected to complete user task with key '{user_task_key}', but it is in a transition that waits for its task listeners"
                ),
            ));
        }
        self.begin_task_transition(
            user_task_key,
            ListenerEventType::Completing,
            Arc::new(variables),
            None,
            None,
        );
        self.run(start)
    }

    /// Carries out the command of [`Engine::assign_user_task`].
    pub(crate) fn apply_assign_user_task(
        &mut self,
        user_task_key: Key,
        assignee: Option<&str>,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        self.check_open_task(user_task_key, "assign")?;
        self.begin_task_transition(
            user_task_key,
            ListenerEventType::Assigning,
            Arc::new(VariableDocument::new()),
            Some(assignee.map(Arc::from)),
            None,
        );
        self.run(start)
    }

    /// Carries out the command of [`Engine::update_user_task`].
    pub(crate) fn apply_update_user_task(
        &mut self,
        user_task_key: Key,
        changes: VariableDocument,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        self.check_open_task(user_task_key, "update")?;
        self.begin_task_transition(
            user_task_key,
            ListenerEventType::Updating,
            Arc::new(VariableDocument::new()),
            None,
            Some(Arc::new(changes)),
        );
        self.run(start)
    }

    fn check_open_task(&self, key: Key, action: &str) -> Result<(), Rejection> {
        match self.user_tasks.get(&key) {
            None => Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to {action} user task with key '{key}', but no such user task was found"
                ),
            )),
            Some(t) if t.state != UserTaskState::Created || t.pending.is_some() => {
                Err(Rejection::new(
                    RejectionType::InvalidState,
                    format!(
                        "Expected to {action} user task with key '{key}', but it is in state '{}'",
                        match t.pending.as_deref().map(|p| p.event) {
                            Some(e) => e.as_str().to_owned(),
                            None => format!("{:?}", t.state).to_ascii_uppercase(),
                        }
                    ),
                ))
            }
            Some(_) => Ok(()),
        }
    }

    /// The user task of an element instance that is terminated is canceled; returns whether
    /// the termination must wait for `canceling` listeners.
    pub(crate) fn cancel_user_task_of(&mut self, key: Key) -> bool {
        let task = self
            .instances
            .get_mut(&key)
            .and_then(|i| i.extras_if_any().and_then(|e| e.user_task.take()));
        let Some(t) = task else {
            return false;
        };
        if !self.user_tasks.contains_key(&t) {
            return false;
        }
        // A transition in progress is abandoned (its listener job is canceled with the element).
        if let Some(task) = self.user_tasks.get_mut(&t) {
            task.pending = None;
        }
        if let Some(i) = self.instances.get_mut(&key) {
            i.extras_mut().user_task = Some(t);
        }
        self.begin_task_transition(
            t,
            ListenerEventType::Canceling,
            Arc::new(VariableDocument::new()),
            None,
            None,
        );
        let waiting = self
            .user_tasks
            .get(&t)
            .is_some_and(|task| task.pending.is_some());
        if !waiting && let Some(i) = self.instances.get_mut(&key) {
            i.extras_mut().user_task = None;
        }
        waiting
    }
}

/// Applies task fields (a listener's corrections, an update's changes) to a task.
fn apply_fields(value: &mut UserTaskValue, fields: &VariableDocument) {
    let text = |v: &Json| match v {
        Json::Null => None,
        Json::String(s) if s.is_empty() => None,
        Json::String(s) => Some(Arc::from(s.as_str())),
        other => Some(Arc::from(other.to_string().as_str())),
    };
    for (k, v) in fields {
        match k.as_str() {
            "assignee" => value.assignee = text(v),
            "dueDate" => value.due_date = text(v),
            "followUpDate" => value.follow_up_date = text(v),
            "candidateGroups" => {
                value.candidate_groups = Arc::new(list_value(v.clone()).unwrap_or_default())
            }
            "candidateUsers" => {
                value.candidate_users = Arc::new(list_value(v.clone()).unwrap_or_default())
            }
            "priority" => {
                if let Some(n) = v.as_i64() {
                    value.priority = n.clamp(0, 100) as i32;
                }
            }
            _ => {}
        }
    }
}
