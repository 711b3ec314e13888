//! The lifecycle of Camunda user tasks (`zeebe:userTask`), as Zeebe's `UserTaskProcessor`
//! runs it. A transition (creating, assigning, updating, completing, canceling) writes its
//! `...ING` record with the task as the transition makes it (Zeebe's intermediate state), runs
//! the task listeners of its event one by one (each a job whose result corrects the task or
//! denies the transition), and finishes: only then does the task itself change. A denial
//! writes `..._DENIED` with the task as it was. Job-based user tasks (without
//! `zeebe:userTask`) are plain jobs of type `io.camunda.zeebe:userTask`.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::runtime::behaviors::suspension::suspended_rejection;
use crate::runtime::command::JobResult;
use crate::runtime::compile::definitions::ListenerDef;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    JobKind, Key, ListenerEventType, OtherIntent, RecordValue, Rejection, RejectionType,
    UserTaskValue, ValueType, VariableDocument,
};
use crate::runtime::state::lifecycle::State;
use crate::runtime::state::user_tasks::{
    PendingTransition, UserTaskState, VariableUpdate, task_transition,
};
use crate::runtime::step::FollowUp;

/// The attributes a task listener may correct, by the names of Zeebe's `UserTaskRecord`.
const CORRECTABLE: [&str; 6] = [
    "assignee",
    "candidateGroupsList",
    "candidateUsersList",
    "dueDate",
    "followUpDate",
    "priority",
];

/// The listener events whose transitions a listener may deny (Zeebe's
/// `LISTENER_EVENT_TYPES_THAT_SUPPORT_DENY`).
const DENIABLE: [ListenerEventType; 3] = [
    ListenerEventType::Assigning,
    ListenerEventType::Completing,
    ListenerEventType::Updating,
];

/// A list of strings from a correction or an update (a JSON list, or the text `"a, b"`).
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

/// The attribute a correction or an update names, by Zeebe's record name: the client API
/// calls the candidate lists `candidateGroups` and `candidateUsers`.
fn attribute_name(key: &str) -> Option<&'static str> {
    match key {
        "candidateGroups" => Some("candidateGroupsList"),
        "candidateUsers" => Some("candidateUsersList"),
        other => CORRECTABLE.iter().copied().find(|a| *a == other),
    }
}

/// Sets the task attributes of `fields` on `value`; returns the attributes whose value
/// changed (Zeebe's `wrapChangedAttributesIfValueChanged`), sorted.
fn set_attributes(value: &mut UserTaskValue, fields: &VariableDocument) -> Vec<&'static str> {
    let text = |v: &Json| match v {
        Json::Null => None,
        Json::String(s) if s.is_empty() => None,
        Json::String(s) => Some(Arc::from(s.as_str())),
        other => Some(Arc::from(other.to_string().as_str())),
    };
    let mut changed = Vec::new();
    for (k, v) in fields {
        let Some(name) = attribute_name(k) else {
            continue;
        };
        let differs = match name {
            "assignee" => replace(&mut value.assignee, text(v)),
            "dueDate" => replace(&mut value.due_date, text(v)),
            "followUpDate" => replace(&mut value.follow_up_date, text(v)),
            "candidateGroupsList" => replace(
                &mut value.candidate_groups,
                Arc::new(list_value(v.clone()).unwrap_or_default()),
            ),
            "candidateUsersList" => replace(
                &mut value.candidate_users,
                Arc::new(list_value(v.clone()).unwrap_or_default()),
            ),
            _ => match v.as_i64() {
                Some(n) => replace(&mut value.priority, n.clamp(0, 100) as i32),
                None => false,
            },
        };
        if differs && !changed.contains(&name) {
            changed.push(name);
        }
    }
    changed.sort_unstable();
    changed
}

fn replace<T: PartialEq>(slot: &mut T, new: T) -> bool {
    if *slot == new {
        return false;
    }
    *slot = new;
    true
}

/// The correctable attributes in which two versions of a task differ, sorted.
fn differences(a: &UserTaskValue, b: &UserTaskValue) -> Vec<&'static str> {
    let mut out = Vec::new();
    if a.assignee != b.assignee {
        out.push("assignee");
    }
    if a.candidate_groups != b.candidate_groups {
        out.push("candidateGroupsList");
    }
    if a.candidate_users != b.candidate_users {
        out.push("candidateUsersList");
    }
    if a.due_date != b.due_date {
        out.push("dueDate");
    }
    if a.follow_up_date != b.follow_up_date {
        out.push("followUpDate");
    }
    if a.priority != b.priority {
        out.push("priority");
    }
    out
}

/// Zeebe's list literal of header values: `["a","b"]`.
fn list_literal<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| Json::String(s.as_ref().to_owned()).to_string())
        .collect();
    format!("[{}]", quoted.join(","))
}

/// The headers of a task listener job: the task's data as the transition makes it
/// (`BpmnJobBehavior.evaluateTaskListenerJobExpressions` and `extractUserTaskHeaders`; empty
/// values are left out).
fn listener_headers(
    task_key: Key,
    record: &UserTaskValue,
    changed: &[&str],
) -> IndexMap<String, String> {
    let mut headers = IndexMap::new();
    let mut put = |name: &str, value: String| {
        headers.insert(format!("io.camunda.zeebe:{name}"), value);
    };
    if let Some(a) = record.assignee.as_deref().filter(|a| !a.trim().is_empty()) {
        put("assignee", a.to_owned());
    }
    if !record.candidate_groups.is_empty() {
        put("candidateGroups", list_literal(&record.candidate_groups));
    }
    if !record.candidate_users.is_empty() {
        put("candidateUsers", list_literal(&record.candidate_users));
    }
    if let Some(d) = record.due_date.as_deref().filter(|d| !d.trim().is_empty()) {
        put("dueDate", d.to_owned());
    }
    if let Some(d) = record
        .follow_up_date
        .as_deref()
        .filter(|d| !d.trim().is_empty())
    {
        put("followUpDate", d.to_owned());
    }
    if let Some(k) = record.form_key.filter(|k| *k > 0) {
        put("formKey", k.to_string());
    }
    if let Some(a) = record.action.as_deref().filter(|a| !a.is_empty()) {
        put("action", a.to_owned());
    }
    if !changed.is_empty() {
        put("changedAttributes", list_literal(changed));
    }
    if record.priority > 0 {
        put("priority", record.priority.to_string());
    }
    put("userTaskKey", task_key.to_string());
    headers
}

impl Engine {
    /// The task listeners of a user task for one event, in the order they run: the global ones
    /// (see [`GlobalTaskListener`](crate::runtime::records::GlobalTaskListener)), the task's own
    /// in declared order, the global ones that run after them.
    pub(crate) fn task_listeners(&self, task: Key, event: ListenerEventType) -> Vec<ListenerDef> {
        let own = self.own_task_listeners(task, event);
        if self.global_task_listeners.is_empty() {
            return own;
        }
        let (before, after) = self.global_listeners_of(event);
        before.into_iter().chain(own).chain(after).collect()
    }

    /// The task listeners a user task's model declares for one event, in declared order.
    fn own_task_listeners(&self, task: Key, event: ListenerEventType) -> Vec<ListenerDef> {
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
        // Older models name the events create/assignment/update/complete/cancel.
        let old = match event {
            ListenerEventType::Assigning => "assignment",
            _ => name.trim_end_matches("ing"),
        };
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

    pub(crate) fn user_task_event(&mut self, task: Key, intent: OtherIntent, value: UserTaskValue) {
        self.event(
            ValueType::UserTask,
            intent,
            Some(task),
            RecordValue::UserTask(Box::new(value)),
        );
    }

    /// Starts a transition of `task`: the `...ING` record of `record` (the task as the
    /// transition makes it), then the first task listener of the event, or the transition
    /// finishes at once.
    pub(crate) fn begin_task_transition(
        &mut self,
        task: Key,
        event: ListenerEventType,
        record: UserTaskValue,
        variable_update: Option<VariableUpdate>,
    ) {
        let starting = task_transition(event).starting;
        self.user_task_event(task, starting, record.clone());
        let listeners = self.task_listeners(task, event).into();
        let Some(t) = self.user_tasks.get_mut(&task) else {
            return;
        };
        t.pending = Some(Box::new(PendingTransition {
            event,
            listeners,
            next_listener: 0,
            record,
            variable_update,
        }));
        self.continue_task_transition(task);
    }

    /// Runs the next task listener of the transition in progress, or finishes it.
    pub(crate) fn continue_task_transition(&mut self, task: Key) {
        let Some(t) = self.user_tasks.get(&task) else {
            return;
        };
        let Some(pending) = t.pending.as_deref() else {
            return;
        };
        let Some(listener) = pending.listeners.get(pending.next_listener) else {
            self.finish_task_transition(task);
            return;
        };
        // The first listener sees what the command changes; the next ones what the transition
        // changes by now, the corrections included.
        let changed = if pending.next_listener == 0 {
            pending.record.changed_attributes.clone()
        } else {
            let mut changed = differences(&pending.record, &t.value);
            if pending.record.changed_attributes.contains(&"variables") {
                changed.push("variables");
                changed.sort_unstable();
            }
            changed
        };
        let headers = listener_headers(task, &pending.record, &changed);
        let (event, ei) = (pending.event, t.value.element_instance_key);
        let job = self
            .eval_job_def(ei, &listener.job_type, &listener.retries)
            .map(|(job_type, retries)| {
                self.create_job(
                    ei,
                    JobKind::TaskListener,
                    event,
                    job_type,
                    retries,
                    Arc::new(headers),
                )
            });
        if let Err(f) = job {
            self.create_incident(ei, None, f);
        }
    }

    /// All listeners ran: the transition takes effect (Zeebe's `onFinalizeCommand` of the
    /// transition's command).
    fn finish_task_transition(&mut self, task: Key) {
        let Some(t) = self.user_tasks.get_mut(&task) else {
            return;
        };
        let Some(pending) = t.pending.take() else {
            return;
        };
        let PendingTransition {
            event,
            mut record,
            variable_update,
            ..
        } = *pending;
        let mut changed = differences(&record, &t.value);
        if record.changed_attributes.contains(&"variables") {
            changed.push("variables");
            changed.sort_unstable();
        }
        record.changed_attributes = changed;
        let ei = record.element_instance_key;
        let finished = task_transition(event).finished;
        match event {
            ListenerEventType::Creating => {
                // UserTaskCreateProcessor: the process's assignee is assigned by an assigning
                // transition of its own, after CREATED.
                match t.initial_assignee.clone() {
                    Some(assignee) => {
                        record.assignee = None;
                        t.value = persisted(&record);
                        self.user_task_event(task, finished, record.clone());
                        record.changed_attributes = Vec::new();
                        self.begin_assignment_on_creation(task, record, assignee);
                    }
                    None => {
                        t.value = persisted(&record);
                        self.user_task_event(task, finished, record);
                    }
                }
            }
            ListenerEventType::Assigning => {
                t.value = persisted(&record);
                t.initial_assignee = None;
                self.user_task_event(task, finished, record);
            }
            ListenerEventType::Updating => {
                t.value = persisted(&record);
                match variable_update {
                    Some(update) => {
                        if update.local {
                            self.merge_local(ei, &update.variables);
                        } else {
                            self.merge_propagating(ei, &update.variables);
                        }
                        self.user_task_event(task, finished, record);
                        self.variable_document_event(ei, &update, OtherIntent::Updated);
                    }
                    None => self.user_task_event(task, finished, record),
                }
            }
            ListenerEventType::Completing => {
                t.state = UserTaskState::Completed;
                t.value = persisted(&record);
                let variables = record.variables.clone().unwrap_or_default();
                self.user_task_event(task, finished, record);
                if let Some(i) = self.instances.get_mut(&ei) {
                    i.extras_mut().user_task = None;
                    i.completion_vars = Some(Arc::new(
                        crate::runtime::records::share_document_arc(variables),
                    ));
                }
                self.queue.push_back(FollowUp::Complete(ei));
            }
            _ => {
                t.state = UserTaskState::Canceled;
                self.user_task_event(task, finished, record);
                // The element waited for the canceling listeners.
                if self
                    .instances
                    .get(&ei)
                    .is_some_and(|i| i.state == State::Terminating)
                {
                    self.finalize_termination(ei);
                }
            }
        }
    }

    /// A task created with an assignee from the process is assigned to it: ASSIGNING with the
    /// assignee (changed attribute `assignee`, no action), its assigning listeners, ASSIGNED
    /// (`UserTaskProcessor.assignUserTask`, `UserTaskCreateProcessor.assignUserTask`).
    pub(crate) fn begin_assignment_on_creation(
        &mut self,
        task: Key,
        mut record: UserTaskValue,
        assignee: Arc<str>,
    ) {
        if record.assignee.as_deref() != Some(&*assignee) {
            record.assignee = Some(assignee);
            record.changed_attributes = vec!["assignee"];
        }
        self.begin_task_transition(task, ListenerEventType::Assigning, record, None);
    }

    /// A `VARIABLE_DOCUMENT` record about variables set on a user task's scope.
    fn variable_document_event(
        &mut self,
        scope: Key,
        update: &VariableUpdate,
        intent: OtherIntent,
    ) {
        self.event(
            ValueType::VariableDocument,
            intent,
            Some(update.key),
            RecordValue::VariableDocument {
                scope_key: scope,
                local: update.local,
                variables: update.variables.clone(),
            },
        );
    }

    /// A task listener job completed: its corrections are applied (a `CORRECTED` record when a
    /// value changes), or it denies the transition, or the next listener runs.
    pub(crate) fn complete_task_listener_job(
        &mut self,
        element_instance: Key,
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
        if denied {
            self.deny_task_transition(task, reason);
            return;
        }
        let Some(pending) = self
            .user_tasks
            .get_mut(&task)
            .and_then(|t| t.pending.as_deref_mut())
        else {
            return;
        };
        let changed = set_attributes(&mut pending.record, &corrections);
        pending.next_listener += 1;
        if !changed.is_empty() {
            pending.record.changed_attributes = changed;
            let value = pending.record.clone();
            self.user_task_event(task, OtherIntent::Corrected, value);
        }
        self.continue_task_transition(task);
    }

    /// A listener denied the transition: `..._DENIED` with the task as it was and the reason;
    /// the transition's changes and corrections are gone.
    fn deny_task_transition(&mut self, task: Key, reason: Option<String>) {
        let Some(t) = self.user_tasks.get_mut(&task) else {
            return;
        };
        let Some(pending) = t.pending.take() else {
            return;
        };
        let Some(intent) = task_transition(pending.event).denied else {
            return;
        };
        if pending.event == ListenerEventType::Assigning {
            t.initial_assignee = None;
        }
        let mut value = t.value.clone();
        value.denied_reason = reason.map(|r| Arc::from(r.as_str()));
        let ei = value.element_instance_key;
        self.user_task_event(task, intent, value);
        if let Some(update) = &pending.variable_update {
            self.variable_document_event(ei, update, OtherIntent::UpdateDenied);
        }
    }

    /// The checks Zeebe's `JobCompleteProcessor` runs on a task listener job completion, in
    /// its order: no variables, a denial only where the event allows it and without
    /// corrections, no correction of an assignee the process defined (on creating), only
    /// correctable attributes.
    pub(crate) fn check_task_listener_result(
        &self,
        job_key: Key,
        has_variables: bool,
        result: &Option<JobResult>,
    ) -> Result<(), Rejection> {
        let Some(job) = self.jobs.get(&job_key) else {
            return Ok(());
        };
        let context = format!(
            "(job key '{job_key}', type '{}', processInstanceKey '{}')",
            job.job_type, job.process_instance_key
        );
        let invalid =
            |message: String| Err(Rejection::new(RejectionType::InvalidArgument, message));
        if has_variables {
            return invalid(format!(
                "Task Listener job completion with variables payload provided is not yet supported {context}. \
                 Support will be enabled with the resolution of issue #23702.\n"
            ));
        }
        let (denied, corrections) = match result {
            Some(JobResult::UserTask {
                denied,
                corrections,
                ..
            }) => (*denied, Some(corrections)),
            _ => (false, None),
        };
        let event = job.listener_event_type;
        if denied && !DENIABLE.contains(&event) {
            return invalid(format!(
                "Denying result is not supported for '{event}' task listener jobs {context}. \
                 Only the following listener event types support denying: [ASSIGNING, COMPLETING, UPDATING].\n"
            ));
        }
        let Some(corrections) = corrections.filter(|c| !c.is_empty()) else {
            return Ok(());
        };
        if denied {
            return invalid(format!(
                "Expected to complete task listener job with corrections, but the job result is denied {context}. \
                 The corrections would be reverted by the denial. Either complete the job with corrections \
                 without setting denied, or complete the job with a denied result but no corrections.\n"
            ));
        }
        if event == ListenerEventType::Creating
            && corrections.contains_key("assignee")
            && self
                .task_of_instance(job.element_instance_key)
                .and_then(|t| self.user_tasks.get(&t))
                .is_some_and(|t| t.initial_assignee.is_some())
        {
            return invalid(format!(
                "Expected to complete task listener job, but correcting the assignee on 'CREATING' event is \
                 not supported when the user task has an assignee defined in the model {context}. \
                 Use the 'CREATING' event to set an assignee only if it was not defined. \
                 Use the 'ASSIGNING' event to correct an assignee that is already defined.\n"
            ));
        }
        if let Some(unknown) = corrections.keys().find(|k| attribute_name(k).is_none()) {
            return invalid(format!(
                "Expected to complete task listener job with a corrections result, but property '{unknown}' \
                 cannot be corrected {context}. \
                 Only the following properties can be corrected: [{}].\n",
                CORRECTABLE.join(", ")
            ));
        }
        Ok(())
    }

    fn task_of_instance(&self, element_instance: Key) -> Option<Key> {
        self.instances
            .get(&element_instance)
            .and_then(|i| i.user_task())
    }

    /// The task, if it is CREATED with no transition in progress; else Zeebe's rejection of
    /// `action` (`UserTaskCommandPreconditionChecker`).
    fn check_open_task(&self, key: Key, action: &str) -> Result<UserTaskValue, Rejection> {
        match self.user_tasks.get(&key) {
            None => Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to {action} user task with key '{key}', but no such user task was found"
                ),
            )),
            Some(t) if self.is_suspended(t.value.process_instance_key) => Err(suspended_rejection(
                t.value.process_instance_key,
                &format!("{action} user task with key '{key}'"),
            )),
            Some(t) if t.state != UserTaskState::Created || t.pending.is_some() => {
                Err(Rejection::new(
                    RejectionType::InvalidState,
                    format!(
                        "Expected to {action} user task with key '{key}', but it is in state '{}'",
                        t.lifecycle_state()
                    ),
                ))
            }
            Some(t) => Ok(t.value.clone()),
        }
    }

    /// Carries out the command of [`Engine::complete_user_task`].
    pub(crate) fn apply_complete_user_task(
        &mut self,
        user_task_key: Key,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        let mut record = self.check_open_task(user_task_key, "complete")?;
        record.variables = Some(Arc::new(variables));
        record.action = Some(Arc::from("complete"));
        self.begin_task_transition(user_task_key, ListenerEventType::Completing, record, None);
        self.run(start)
    }

    /// Carries out the command of [`Engine::assign_user_task`].
    pub(crate) fn apply_assign_user_task(
        &mut self,
        user_task_key: Key,
        assignee: Option<&str>,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        let mut record = self.check_open_task(user_task_key, "assign")?;
        let assignee = assignee.filter(|a| !a.is_empty()).map(Arc::from);
        if record.assignee != assignee {
            record.assignee = assignee;
            record.changed_attributes = vec!["assignee"];
        }
        record.action = Some(Arc::from("assign"));
        self.begin_task_transition(user_task_key, ListenerEventType::Assigning, record, None);
        self.run(start)
    }

    /// Carries out the command of [`Engine::update_user_task`].
    pub(crate) fn apply_update_user_task(
        &mut self,
        user_task_key: Key,
        changes: VariableDocument,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        let mut record = self.check_open_task(user_task_key, "update")?;
        record.changed_attributes = set_attributes(&mut record, &changes);
        record.action = Some(Arc::from("update"));
        self.begin_task_transition(user_task_key, ListenerEventType::Updating, record, None);
        self.run(start)
    }

    /// Variables set on the scope of a Camunda user task are an update of the task: rejected
    /// unless the task is CREATED with no transition in progress, else `VARIABLE_DOCUMENT
    /// UPDATING`, the update transition (changed attribute `variables`) and its listeners; the
    /// variables are merged when it finishes (Zeebe's `VariableDocumentUpdateProcessor`).
    /// `None`: the scope is no such task.
    pub(crate) fn update_user_task_variables(
        &mut self,
        scope: Key,
        variables: &Arc<VariableDocument>,
        local: bool,
    ) -> Option<Result<(), Rejection>> {
        let task = self.task_of_instance(scope)?;
        let t = self.user_tasks.get(&task)?;
        if t.state != UserTaskState::Created || t.pending.is_some() {
            return Some(Err(Rejection::new(
                RejectionType::InvalidState,
                format!(
                    "Expected to trigger update transition for user task with key '{task}', but it is in state '{}'",
                    t.lifecycle_state()
                ),
            )));
        }
        let mut record = t.value.clone();
        record.action = None;
        if !variables.is_empty() {
            record.variables = Some(variables.clone());
            record.changed_attributes = vec!["variables"];
        }
        let update = VariableUpdate {
            key: self.new_key(),
            variables: variables.clone(),
            local,
        };
        self.variable_document_event(scope, &update, OtherIntent::Updating);
        self.begin_task_transition(task, ListenerEventType::Updating, record, Some(update));
        Some(Ok(()))
    }

    /// Resolving an expression incident of a task listener processes the user task command
    /// of the transition in progress again: its listeners run from the first
    /// (`IncidentResolveProcessor.createUserTaskCommand`). Returns whether there was one.
    pub(crate) fn retry_task_transition(&mut self, element_instance: Key) -> bool {
        let Some(task) = self.task_of_instance(element_instance) else {
            return false;
        };
        let Some(pending) = self
            .user_tasks
            .get_mut(&task)
            .and_then(|t| t.pending.as_deref_mut())
        else {
            return false;
        };
        pending.next_listener = 0;
        self.continue_task_transition(task);
        true
    }

    /// The user task of an element instance that is terminated is canceled: CANCELING with the
    /// task as it is (a transition in progress is abandoned), its canceling listeners,
    /// CANCELED. Returns whether the termination waits for the listeners.
    pub(crate) fn cancel_user_task_of(&mut self, key: Key) -> bool {
        let Some(task) = self.task_of_instance(key) else {
            return false;
        };
        let Some(t) = self.user_tasks.get_mut(&task) else {
            return false;
        };
        let cancelable = t.state == UserTaskState::Created
            && t.pending
                .as_ref()
                .is_none_or(|p| p.event != ListenerEventType::Canceling);
        if !cancelable {
            return false;
        }
        t.pending = None;
        t.initial_assignee = None;
        let record = t.value.clone();
        self.begin_task_transition(task, ListenerEventType::Canceling, record, None);
        let waiting = self
            .user_tasks
            .get(&task)
            .is_some_and(|t| t.pending.is_some());
        if !waiting
            && let Some(extras) = self.instances.get_mut(&key).and_then(|i| i.extras_if_any())
        {
            extras.user_task = None;
        }
        waiting
    }
}

/// The task as it is kept once a transition finished: the record without what only the
/// transition carried (its variables, changed attributes, denial).
fn persisted(record: &UserTaskValue) -> UserTaskValue {
    let mut value = record.clone();
    value.variables = None;
    value.changed_attributes = Vec::new();
    value.denied_reason = None;
    value
}
