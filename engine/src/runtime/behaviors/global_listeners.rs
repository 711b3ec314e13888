//! Global user task listeners (Zeebe 8.9+): task listeners of every Camunda user task,
//! created through the API (`POST /v2/global-task-listeners`) or the cluster configuration.
//!
//! Sources (camunda/camunda, camunda-docs): `GlobalListenerCreateProcessor` and
//! `GlobalListenerValidator` (the checks and their messages, in that order), the docs page
//! "Global user task listeners" (execution order: global listeners, the task's own, the global
//! listeners `afterNonGlobal`; "Higher priority listeners are executed before lower priority
//! ones", priority 0 to 100, default 50; retries default 3).

use std::sync::Arc;

use crate::runtime::compile::definitions::ListenerDef;
use crate::runtime::compile::expr::Expr;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    GlobalTaskListener, ListenerEventType, OtherIntent, RecordValue, Rejection, RejectionType,
    ValueType,
};

/// The event types a global user task listener may name (Zeebe's
/// `GlobalListenerRecord.TASK_LISTENER_EVENT_TYPES`, and `all`).
pub const GLOBAL_TASK_LISTENER_EVENT_TYPES: [&str; 6] = [
    "creating",
    "assigning",
    "updating",
    "completing",
    "canceling",
    "all",
];

impl Engine {
    /// The global listeners of one task listener event: those that run before the task's own
    /// listeners and those that run after, each group by priority, higher first (stable: in
    /// creation order when equal).
    pub(crate) fn global_listeners_of(
        &self,
        event: ListenerEventType,
    ) -> (Vec<ListenerDef>, Vec<ListenerDef>) {
        let name = event.as_str().to_ascii_lowercase();
        let mut matching: Vec<&GlobalTaskListener> = self
            .global_task_listeners
            .iter()
            .filter(|l| l.listens_to(&name))
            .collect();
        matching.sort_by_key(|l| std::cmp::Reverse(l.priority));
        let def = |l: &&GlobalTaskListener| ListenerDef {
            event_type: name.clone(),
            job_type: Expr::Static(Arc::from(l.job_type.as_str())),
            retries: Expr::Static(Arc::from(l.retries.to_string().as_str())),
        };
        let before = matching.iter().filter(|l| !l.after_non_global).map(def);
        let after = matching.iter().filter(|l| l.after_non_global).map(def);
        (before.collect(), after.collect())
    }

    /// Carries out [`Command::CreateGlobalTaskListener`](crate::runtime::Command::CreateGlobalTaskListener):
    /// checked as Zeebe's `GlobalListenerValidator` checks it, then `GLOBAL_LISTENER CREATED`.
    /// It applies to the transitions that begin from now on, of running tasks too.
    pub(crate) fn apply_create_global_task_listener(
        &mut self,
        listener: GlobalTaskListener,
    ) -> Result<(), Rejection> {
        let invalid =
            |message: String| Err(Rejection::new(RejectionType::InvalidArgument, message));
        let id = &listener.id;
        if id.trim().is_empty() {
            return invalid("Missing id for the provided global USER_TASK listener".to_owned());
        }
        if self.global_task_listeners.iter().any(|l| l.id == *id) {
            return Err(Rejection::new(
                RejectionType::AlreadyExists,
                format!(
                    "Expected a global USER_TASK listener with id '{id}' to not exist, but a listener with the same id was found"
                ),
            ));
        }
        if listener.job_type.trim().is_empty() {
            return invalid(format!(
                "Missing type for the provided global USER_TASK listener with id '{id}'"
            ));
        }
        if listener.event_types.is_empty() {
            return invalid(format!(
                "Missing event types for the provided global USER_TASK listener with id '{id}'"
            ));
        }
        let mut unknown: Vec<&str> = listener
            .event_types
            .iter()
            .map(String::as_str)
            .filter(|t| !GLOBAL_TASK_LISTENER_EVENT_TYPES.contains(t))
            .collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            unknown.dedup();
            return invalid(format!(
                "Invalid event types for the provided global USER_TASK listener with id '{id}': '{}'",
                unknown.join("', '")
            ));
        }
        if listener.retries < 1 {
            return invalid(format!(
                "Expected the retries of the global USER_TASK listener with id '{id}' to be a positive number, but was {}",
                listener.retries
            ));
        }
        if !(0..=100).contains(&listener.priority) {
            return invalid(format!(
                "Expected the priority of the global USER_TASK listener with id '{id}' to be an integer between 0 and 100, but was {}",
                listener.priority
            ));
        }
        let listener = Arc::new(listener);
        let key = self.new_key();
        self.event(
            ValueType::GlobalListener,
            OtherIntent::Created,
            Some(key),
            RecordValue::GlobalListener(listener.clone()),
        );
        Arc::make_mut(&mut self.global_task_listeners).push((*listener).clone());
        Ok(())
    }
}
