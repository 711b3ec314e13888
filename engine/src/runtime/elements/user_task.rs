//! Camunda user tasks (`zeebe:userTask`): on activation the task's fields are evaluated and
//! the task is created (its `creating` listeners run first); the element waits until the task
//! is completed. A terminated element cancels its task (after the `canceling` listeners).
//! Job-based user tasks (without `zeebe:userTask`) are jobs of type `io.camunda.zeebe:userTask`.
//! The task's own lifecycle (assign, update, complete, listeners) is a behaviour
//! (`behaviors::user_tasks`).

use std::sync::Arc;

use serde_json::Value as Json;

use crate::runtime::behaviors::date_times;
use crate::runtime::behaviors::user_tasks::list_value;
use crate::runtime::compile::expr::Expr;
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{ErrorType, Key, ListenerEventType, OtherIntent, UserTaskValue};
use crate::runtime::state::lifecycle::State;
use crate::runtime::state::user_tasks::{self, UserTaskState};
use crate::runtime::step::{Step, StepFailure};

/// Zeebe's `UserTaskProcessor`.
pub(crate) struct UserTask;

impl ElementBehavior for UserTask {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_user_task(key)
    }

    fn terminate(&self, engine: &mut Engine, key: Key) {
        if engine.cancel_user_task_of(key) {
            // The termination waits for the user task's canceling listeners.
            return;
        }
        engine.finalize_termination(key);
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
        // BpmnUserTaskBehavior.evaluateUserTaskExpressions, in its order and with its types.
        let assignee = match &def.assignee {
            None => None,
            Some(x) => Some(self.eval_string(x, key)?)
                .filter(|a| !a.is_empty())
                .map(|a| Arc::from(a.as_str())),
        };
        let candidates = |this: &Self, x: &Option<Expr>| -> Result<Vec<String>, StepFailure> {
            match x {
                None => Ok(Vec::new()),
                // A static value is a comma-separated list (the transformer's list literal).
                Some(Expr::Static(s)) => {
                    Ok(list_value(Json::String(s.to_string())).unwrap_or_default())
                }
                Some(x) => this.eval_strings(x, key),
            }
        };
        let candidate_groups = candidates(self, &def.candidate_groups)?;
        let candidate_users = candidates(self, &def.candidate_users)?;
        // Dates are kept as Java's ZonedDateTime prints them.
        let date = |this: &Self, x: &Option<Expr>| -> Result<Option<Arc<str>>, StepFailure> {
            match x {
                None => Ok(None),
                Some(x) => Ok(this
                    .eval_date_time(x, key, true)?
                    .map(|z| Arc::from(date_times::java_text(&z).as_str()))),
            }
        };
        let due_date = date(self, &def.due_date)?;
        let follow_up_date = date(self, &def.follow_up_date)?;
        let priority = match &def.priority {
            None => 50,
            Some(x) => {
                let n = self.eval_integer(x, key)?;
                if !(0..=100).contains(&n) {
                    return Err(StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!("Expected priority to be in the range [0,100] but was '{n}'."),
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
        // UserTaskProcessor.onFinalizeActivationInternal: CREATING carries the process's
        // assignee, the task itself is kept without it; the element is ACTIVATED right after,
        // also while creating listeners run; then an assigning transition gives the task the
        // assignee (after the creating listeners, if there are any).
        let task_key = self.new_key();
        let inst = &self.instances[&key];
        let value = UserTaskValue {
            proc: inst.proc,
            process_instance_key: inst.process_instance_key,
            element: e,
            element_instance_key: key,
            assignee: assignee.clone(),
            candidate_groups: Arc::new(candidate_groups),
            candidate_users: Arc::new(candidate_users),
            due_date,
            follow_up_date,
            priority,
            form_key,
            variables: None,
            action: None,
            changed_attributes: Vec::new(),
            denied_reason: None,
        };
        let mut created = value.clone();
        created.assignee = None;
        self.user_tasks.insert(
            task_key,
            user_tasks::UserTask {
                key: task_key,
                state: UserTaskState::Created,
                value: created.clone(),
                pending: None,
                initial_assignee: assignee.clone(),
            },
        );
        if let Some(i) = self.instances.get_mut(&key) {
            i.extras_mut().user_task = Some(task_key);
        }
        if !self
            .task_listeners(task_key, ListenerEventType::Creating)
            .is_empty()
        {
            self.begin_task_transition(task_key, ListenerEventType::Creating, value, None);
            self.transition(key, State::Activated)?;
        } else {
            self.user_task_event(task_key, OtherIntent::Creating, value);
            self.user_task_event(task_key, OtherIntent::Created, created.clone());
            self.transition(key, State::Activated)?;
            if let Some(assignee) = assignee {
                self.begin_assignment_on_creation(task_key, created, assignee);
            }
        }
        Ok(())
    }
}
