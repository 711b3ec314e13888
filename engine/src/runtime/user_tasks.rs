//! Camunda user tasks (`zeebe:userTask`): stored by the engine with assignee, candidates,
//! priority, due and follow-up dates; completed through [`Engine::complete_user_task`].
//! Job-based user tasks (without `zeebe:userTask`) are plain jobs of type
//! `io.camunda.zeebe:userTask`.

use std::sync::Arc;

use serde_json::Value as Json;

use super::executable::ListenerDef;
use super::lifecycle::State;
use super::records::{
    ErrorType, JobKind, Key, ListenerEventType, OtherIntent, RecordValue, Rejection, RejectionType,
    UserTaskValue, ValueType, VariableDocument,
};
use super::step::{FollowUp, Step, StepFailure};
use super::{Engine, JobResult};

/// The state of a Camunda user task, as CPT asserts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum UserTaskState {
    Created,
    Completed,
    Canceled,
    Failed,
}

/// A Camunda user task.
#[derive(Debug, Clone)]
pub struct UserTask {
    pub key: Key,
    pub state: UserTaskState,
    pub value: UserTaskValue,
    /// A transition waiting for its task listeners (creating, assigning, updating, completing,
    /// canceling).
    pub(crate) pending: Option<Box<PendingTransition>>,
}

/// A user task transition in progress: its listener event, the next listener to run, and what
/// the transition carries (the completion's variables, the new assignee, the changes).
#[derive(Debug, Clone)]
pub(crate) struct PendingTransition {
    event: ListenerEventType,
    next_listener: usize,
    variables: Arc<VariableDocument>,
    /// The task as it was before the transition (restored when it is denied).
    before: UserTaskValue,
}

fn intents(event: ListenerEventType) -> (OtherIntent, OtherIntent, Option<OtherIntent>) {
    use ListenerEventType as L;
    match event {
        L::Creating => (OtherIntent::Creating, OtherIntent::Created, None),
        L::Assigning => (
            OtherIntent::Assigning,
            OtherIntent::Assigned,
            Some(OtherIntent::AssignmentDenied),
        ),
        L::Updating => (
            OtherIntent::Updating,
            OtherIntent::Updated,
            Some(OtherIntent::UpdateDenied),
        ),
        L::Completing => (
            OtherIntent::Completing,
            OtherIntent::Completed,
            Some(OtherIntent::CompletionDenied),
        ),
        _ => (OtherIntent::Canceling, OtherIntent::Canceled, None),
    }
}

fn list_value(v: Json) -> Result<Vec<String>, String> {
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
    pub(crate) fn activate_user_task(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("user task");
        let el = p.element(e);
        let Some(def) = &el.user_task else {
            return self.activate_job_task(key);
        };
        let opt_string =
            |this: &Self, x: &Option<super::expr::Expr>| -> Result<Option<Arc<str>>, StepFailure> {
                match x {
                    None => Ok(None),
                    Some(x) => match this.eval(x, key, None)? {
                        Json::Null => Ok(None),
                        Json::String(s) if s.is_empty() => Ok(None),
                        Json::String(s) => Ok(Some(Arc::from(s.as_str()))),
                        other => Ok(Some(Arc::from(other.to_string().as_str()))),
                    },
                }
            };
        let list =
            |this: &Self, x: &Option<super::expr::Expr>| -> Result<Vec<String>, StepFailure> {
                match x {
                    None => Ok(Vec::new()),
                    Some(x) => list_value(this.eval(x, key, None)?)
                        .map_err(|m| StepFailure::new(ErrorType::ExtractValueError, m)),
                }
            };
        let assignee = opt_string(self, &def.assignee)?;
        let candidate_groups = list(self, &def.candidate_groups)?;
        let candidate_users = list(self, &def.candidate_users)?;
        let due_date = opt_string(self, &def.due_date)?;
        let follow_up_date = opt_string(self, &def.follow_up_date)?;
        let priority = match &def.priority {
            None => 50,
            Some(x) => {
                let n = self.eval_int(x, key)?;
                if !(0..=100).contains(&n) {
                    return Err(StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!(
                            "Expected priority to be a number between 0 and 100, but was '{n}'."
                        ),
                    ));
                }
                n as i32
            }
        };
        let form_key = match &def.form_id {
            Some(id) => Some(self.resolve_form(
                id,
                def.form_binding.as_deref(),
                def.form_version_tag.as_deref(),
                p.deployment_key,
            )? as i64),
            None => None,
        };
        self.subscribe_to_events(key)?;
        let task_key = self.new_key();
        let inst = &self.instances[&key];
        let value = UserTaskValue {
            proc: inst.proc,
            process_instance_key: inst.process_instance_key,
            element: e,
            element_instance_key: key,
            assignee,
            candidate_groups: Arc::new(candidate_groups),
            candidate_users: Arc::new(candidate_users),
            due_date,
            follow_up_date,
            priority,
            form_key,
            variables: None,
            action: None,
        };
        self.user_tasks.insert(
            task_key,
            UserTask {
                key: task_key,
                state: UserTaskState::Created,
                value,
                pending: None,
            },
        );
        if let Some(i) = self.instances.get_mut(&key) {
            i.extras_mut().user_task = Some(task_key);
        }
        self.begin_task_transition(
            task_key,
            ListenerEventType::Creating,
            Arc::new(VariableDocument::new()),
            None,
            None,
        );
        Ok(())
    }

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
    fn begin_task_transition(
        &mut self,
        task: Key,
        event: ListenerEventType,
        variables: Arc<VariableDocument>,
        assignee: Option<Option<Arc<str>>>,
        changes: Option<Arc<VariableDocument>>,
    ) {
        let (ing, _, _) = intents(event);
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
        let (_, ed, _) = intents(pending.event);
        let ei = t.value.element_instance_key;
        match pending.event {
            ListenerEventType::Completing => {
                t.state = UserTaskState::Completed;
                let value = t.value.clone();
                self.user_task_event(task, ed, value);
                if let Some(i) = self.instances.get_mut(&ei) {
                    i.extras_mut().user_task = None;
                    i.completion_vars = Some(Arc::new(super::records::share_document_arc(
                        pending.variables,
                    )));
                }
                self.queue.push_back(FollowUp::Complete(ei));
            }
            ListenerEventType::Canceling => {
                t.state = UserTaskState::Canceled;
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
        _variables: &super::records::SharedVariableDocument,
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
            let (_, _, deny) = intents(pending.event);
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

    /// Completes a Camunda user task with variables (they propagate like job variables).
    pub fn complete_user_task(
        &mut self,
        user_task_key: Key,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        self.record(|| super::Command::CompleteUserTask {
            user_task_key,
            variables: variables.clone(),
        });
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

    /// Assigns a Camunda user task (`None` unassigns); `assigning` listeners run first.
    pub fn assign_user_task(
        &mut self,
        user_task_key: Key,
        assignee: Option<&str>,
    ) -> Result<(), Rejection> {
        self.record(|| super::Command::AssignUserTask {
            user_task_key,
            assignee: assignee.map(str::to_owned),
        });
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

    /// Updates a Camunda user task's fields (`candidateGroups`, `candidateUsers`, `dueDate`,
    /// `followUpDate`, `priority`); `updating` listeners run first.
    pub fn update_user_task(
        &mut self,
        user_task_key: Key,
        changes: VariableDocument,
    ) -> Result<(), Rejection> {
        self.record(|| super::Command::UpdateUserTask {
            user_task_key,
            changes: changes.clone(),
        });
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
