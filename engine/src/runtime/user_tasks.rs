//! Camunda user tasks (`zeebe:userTask`): stored by the engine with assignee, candidates,
//! priority, due and follow-up dates; completed through [`Engine::complete_user_task`].
//! Job-based user tasks (without `zeebe:userTask`) are plain jobs of type
//! `io.camunda.zeebe:userTask`.

use std::sync::Arc;

use serde_json::Value as Json;

use super::lifecycle::State;
use super::processor::{Failure, Step};
use super::records::{
    ErrorType, Key, OtherIntent, RecordValue, Rejection, RejectionType, UserTaskValue, ValueType,
    VariableDocument,
};
use super::{Cmd, Engine, JobResult};

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
            |this: &Self, x: &Option<super::expr::Expr>| -> Result<Option<Arc<str>>, Failure> {
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
        let list = |this: &Self, x: &Option<super::expr::Expr>| -> Result<Vec<String>, Failure> {
            match x {
                None => Ok(Vec::new()),
                Some(x) => list_value(this.eval(x, key, None)?)
                    .map_err(|m| Failure::new(ErrorType::ExtractValueError, m)),
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
                    return Err(Failure::new(
                        ErrorType::ExtractValueError,
                        format!(
                            "Expected priority to be a number between 0 and 100, but was '{n}'."
                        ),
                    ));
                }
                n as i32
            }
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
            form_key: None,
            variables: None,
            action: None,
        };
        self.event(
            ValueType::UserTask,
            OtherIntent::Creating,
            Some(task_key),
            RecordValue::UserTask(Box::new(value.clone())),
        );
        self.user_tasks.insert(
            task_key,
            UserTask {
                key: task_key,
                state: UserTaskState::Created,
                value: value.clone(),
            },
        );
        if let Some(i) = self.instances.get_mut(&key) {
            i.user_task = Some(task_key);
        }
        self.transition(key, State::Activated)?;
        self.event(
            ValueType::UserTask,
            OtherIntent::Created,
            Some(task_key),
            RecordValue::UserTask(Box::new(value)),
        );
        Ok(())
    }

    /// Completes a Camunda user task with variables (they propagate like job variables).
    pub fn complete_user_task(
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
        let ei = task.value.element_instance_key;
        let vars = Arc::new(variables);
        let mut value = task.value.clone();
        value.variables = Some(vars.clone());
        value.action = Some(Arc::from("complete"));
        self.event(
            ValueType::UserTask,
            OtherIntent::Completing,
            Some(user_task_key),
            RecordValue::UserTask(Box::new(value.clone())),
        );
        if let Some(t) = self.user_tasks.get_mut(&user_task_key) {
            t.state = UserTaskState::Completed;
            t.value = value.clone();
        }
        self.event(
            ValueType::UserTask,
            OtherIntent::Completed,
            Some(user_task_key),
            RecordValue::UserTask(Box::new(value)),
        );
        if let Some(i) = self.instances.get_mut(&ei) {
            i.user_task = None;
            i.completion_vars = Some(vars);
        }
        self.queue.push_back(Cmd::Complete(ei));
        self.run(start)
    }

    /// Assigns a Camunda user task (`None` unassigns).
    pub fn assign_user_task(
        &mut self,
        user_task_key: Key,
        assignee: Option<&str>,
    ) -> Result<(), Rejection> {
        let Some(task) = self.user_tasks.get_mut(&user_task_key) else {
            return Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to assign user task with key '{user_task_key}', but no such user task was found"
                ),
            ));
        };
        task.value.assignee = assignee.map(Arc::from);
        let value = task.value.clone();
        self.event(
            ValueType::UserTask,
            OtherIntent::Assigned,
            Some(user_task_key),
            RecordValue::UserTask(Box::new(value)),
        );
        Ok(())
    }

    pub(crate) fn cancel_user_task_of(&mut self, key: Key) {
        let task = self
            .instances
            .get_mut(&key)
            .and_then(|i| i.user_task.take());
        if let Some(t) = task
            && let Some(task) = self.user_tasks.get_mut(&t)
        {
            task.state = UserTaskState::Canceled;
            let value = task.value.clone();
            self.event(
                ValueType::UserTask,
                OtherIntent::Canceling,
                Some(t),
                RecordValue::UserTask(Box::new(value.clone())),
            );
            self.event(
                ValueType::UserTask,
                OtherIntent::Canceled,
                Some(t),
                RecordValue::UserTask(Box::new(value)),
            );
        }
    }

    /// A task listener job completed (task listeners are not run yet: nothing waits on them).
    pub(crate) fn complete_task_listener_job(
        &mut self,
        _element_instance: Key,
        _variables: &VariableDocument,
        _result: Option<JobResult>,
    ) {
    }
}
