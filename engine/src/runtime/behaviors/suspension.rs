//! Process instance suspension and resumption (Zeebe 8.10).
//!
//! A suspended instance keeps its state and makes no progress: the commands the engine writes
//! for it (activate, complete, listener and conditional triggers, timers that come due) are held
//! back in order and carried out when it resumes; its jobs are parked (no worker gets them, and
//! a worker's answer is rejected); its message subscriptions are closed on the message side and
//! opened again on resume (a message buffered with a time to live can still correlate then, one
//! published without is lost); its signal subscriptions are removed and created again on resume
//! (a signal broadcast meanwhile is lost); its user tasks cannot be completed, assigned or
//! updated. Termination is not held back: cancelling a suspended instance ends it and drops what
//! was held. A called child instance is an instance of its own and goes on.
//!
//! Sources (camunda/camunda): `ProcessInstanceSuspendProcessor`, `ProcessInstanceResumeProcessor`,
//! `BpmnStreamProcessor.suspensionBehavior` (TERMINATE passes, other internal commands are
//! buffered, external ones rejected), the ADRs "suspended job state" and "suspended timer
//! buffering" (a due timer is held as `TIMER SUSPENDED` and fires once on resume, after
//! `TIMER RESUMED`), and the docs page "Process instance suspension".

use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, Intent, Key, OtherIntent, ProcessInstanceIntent, ProcessInstanceValue,
    RecordValue, Rejection, RejectionType, ValueType,
};
use crate::runtime::state::State;
use crate::runtime::state::jobs::JobTransition;
use crate::runtime::state::messages::ProcessSide;
use crate::runtime::step::{FollowUp, MessageFollowUp};

/// The rejection of a client command on something of the suspended process instance
/// `process_instance_key`, `what` saying what was asked.
pub(crate) fn suspended_rejection(process_instance_key: Key, what: &str) -> Rejection {
    Rejection::new(
        RejectionType::InvalidState,
        format!(
            "Expected to {what}, but its process instance with key '{process_instance_key}' is suspended"
        ),
    )
}

impl Engine {
    /// Whether a process instance is suspended.
    pub(crate) fn is_suspended(&self, process_instance_key: Key) -> bool {
        !self.suspended.is_empty() && self.suspended.contains_key(&process_instance_key)
    }

    /// The rejection of a client command on something of a suspended process instance (a job,
    /// a user task, an incident), `what` saying what was asked: "complete job with key '…'".
    pub(crate) fn check_not_suspended(
        &self,
        process_instance_key: Key,
        what: impl FnOnce() -> String,
    ) -> Result<(), Rejection> {
        if self.is_suspended(process_instance_key) {
            return Err(suspended_rejection(process_instance_key, &what()));
        }
        Ok(())
    }

    /// The suspended process instance a follow-up command is for, if it is held back until the
    /// instance resumes. Termination is never held back, nor are the two sides of a message
    /// subscription talking (a suspended instance's subscriptions are closed).
    pub(crate) fn held_back_by(&self, follow_up: &FollowUp) -> Option<Key> {
        let pi = match follow_up {
            FollowUp::Activate(a) => Some(a.process_instance_key),
            FollowUp::Complete(k) | FollowUp::ContinueListeners(k) => {
                self.instances.get(k).map(|i| i.process_instance_key)
            }
            FollowUp::TriggerConditional(k) => self
                .conditionals
                .subscriptions
                .get(k)
                .and_then(|s| s.owner)
                .and_then(|o| self.instances.get(&o))
                .map(|i| i.process_instance_key),
            FollowUp::Terminate(_)
            | FollowUp::TerminateChildren(_)
            | FollowUp::Message(_)
            | FollowUp::BroadcastSignal(_)
            | FollowUp::TriggerTimer(_) => None,
        }?;
        self.suspended.contains_key(&pi).then_some(pi)
    }

    /// Moves the instance's jobs that allow `transition` (suspend parks them, resume frees
    /// them), writes a job event with `intent` for each, and returns their keys in key order.
    fn transition_instance_jobs(
        &mut self,
        key: Key,
        transition: JobTransition,
        intent: OtherIntent,
    ) -> Vec<Key> {
        let jobs: Vec<Key> = self
            .jobs
            .values()
            .filter(|j| j.process_instance_key == key && j.state.after(transition).is_some())
            .map(|j| j.key)
            .collect();
        for &job in &jobs {
            if let Some(j) = self.jobs.get_mut(&job) {
                j.transition(transition);
            }
            self.job_event(intent, job, None);
        }
        jobs
    }

    /// The process instance `key` as suspend and resume find it: a process instance (not an
    /// element instance) that is not being terminated.
    fn suspendable(&self, key: Key, verb: &str) -> Result<ProcessInstanceValue, Rejection> {
        match self.instances.get(&key) {
            Some(i)
                if i.element_type == BpmnElementType::Process && i.state != State::Terminating =>
            {
                Ok(self.process_instance_value(i))
            }
            _ => Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to {verb} a process instance with key '{key}', but no such process was found"
                ),
            )),
        }
    }

    fn reject_suspension(
        &mut self,
        intent: ProcessInstanceIntent,
        key: Key,
        value: ProcessInstanceValue,
        message: String,
    ) -> Rejection {
        self.reject(
            ValueType::ProcessInstance,
            Intent::ProcessInstance(intent),
            Some(key),
            RecordValue::ProcessInstance(value),
            Rejection::new(RejectionType::InvalidState, message),
        )
    }

    /// Carries out [`Command::SuspendInstance`](crate::runtime::Command::SuspendInstance).
    pub(crate) fn apply_suspend_instance(&mut self, key: Key) -> Result<(), Rejection> {
        let start = self.begin();
        let value = self.suspendable(key, "suspend")?;
        if self.suspended.contains_key(&key) {
            return Err(self.reject_suspension(
                ProcessInstanceIntent::Suspend,
                key,
                value,
                format!(
                    "Expected to suspend a process instance with key '{key}', but it is already suspended"
                ),
            ));
        }
        self.process_instance_event(ProcessInstanceIntent::Suspending, key, value.clone());
        self.suspended.insert(key, Default::default());
        self.close_subscriptions_for_suspension(key);
        self.transition_instance_jobs(key, JobTransition::Suspend, OtherIntent::Suspended);
        self.user_tasks_event(key, OtherIntent::Suspended);
        self.process_instance_event(ProcessInstanceIntent::Suspended, key, value);
        self.run(start)
    }

    /// Carries out [`Command::ResumeInstance`](crate::runtime::Command::ResumeInstance): the
    /// subscriptions open again, what was held back is carried out in order (with what came due
    /// meanwhile), then the parked jobs are handed out again.
    pub(crate) fn apply_resume_instance(&mut self, key: Key) -> Result<(), Rejection> {
        let start = self.begin();
        let value = self.suspendable(key, "resume")?;
        let Some(held) = self.suspended.remove(&key) else {
            return Err(self.reject_suspension(
                ProcessInstanceIntent::Resume,
                key,
                value,
                format!(
                    "Expected to resume a process instance with key '{key}', but it is not currently suspended"
                ),
            ));
        };
        self.process_instance_event(ProcessInstanceIntent::Resuming, key, value.clone());
        self.reopen_subscriptions_after_suspension(key);
        self.user_tasks_event(key, OtherIntent::Resumed);
        self.queue.extend(held);
        // Job time-outs and backoffs that ended meanwhile.
        self.fire_due_jobs();
        let ran = self.run(start);
        for job in self.transition_instance_jobs(key, JobTransition::Resume, OtherIntent::Resumed) {
            self.jobs.feed.push(job);
        }
        // An instance that ended while what was held back ran writes no RESUMED (Zeebe's
        // ProcessInstanceCompleteResumingProcessor rejects it then).
        if self.instances.contains_key(&key) {
            self.process_instance_event(ProcessInstanceIntent::Resumed, key, value);
        }
        ran
    }

    /// Forgets the suspension of a process instance that ended (cancelled while suspended):
    /// what was held back is dropped.
    pub(crate) fn forget_suspension(&mut self, key: Key) {
        if !self.suspended.is_empty() {
            self.suspended.remove(&key);
        }
    }

    /// `USER_TASK SUSPENDED` / `RESUMED` for every open user task of the instance.
    fn user_tasks_event(&mut self, key: Key, intent: OtherIntent) {
        let tasks: Vec<(Key, crate::runtime::records::UserTaskValue)> = self
            .user_tasks
            .values()
            .filter(|t| t.value.process_instance_key == key)
            .map(|t| (t.key, t.value.clone()))
            .collect();
        for (task, value) in tasks {
            self.event(
                ValueType::UserTask,
                intent,
                Some(task),
                RecordValue::UserTask(Box::new(value)),
            );
        }
    }

    /// The message side of every open message subscription of the instance is deleted (the
    /// process side stays, to open it again), and its signal subscriptions are removed.
    fn close_subscriptions_for_suspension(&mut self, key: Key) {
        let messages: Vec<Key> = self
            .messaging
            .subscriptions
            .values()
            .filter(|s| {
                s.process_instance_key == key
                    && s.process_side == ProcessSide::Opened
                    && s.message_side.is_some()
            })
            .map(|s| s.key)
            .collect();
        for k in messages {
            let Some(s) = self.messaging.subscriptions.get_mut(&k) else {
                continue;
            };
            let Some(message_side) = s.message_side.take() else {
                continue;
            };
            let s = s.clone();
            self.messaging.by_name_and_key.remove(&(
                s.name.clone(),
                s.correlation_key.clone(),
                s.element_instance_key,
                k,
            ));
            self.subscription_event(
                ValueType::ProcessMessageSubscription,
                OtherIntent::Deleting,
                k,
                &s,
            );
            self.subscription_event(
                ValueType::MessageSubscription,
                OtherIntent::Deleted,
                message_side,
                &s,
            );
            // Zeebe's ProcessMessageSubscriptionDeleteProcessor keeps a row closed for a
            // suspension: CREATED again instead of DELETED.
            self.subscription_event(
                ValueType::ProcessMessageSubscription,
                OtherIntent::Created,
                k,
                &s,
            );
        }
        let signals: Vec<Key> = self
            .signal_subscriptions
            .values()
            .filter(|s| !s.suspended && self.owner_instance(s.owner) == Some(key))
            .map(|s| s.key)
            .collect();
        for k in signals {
            if let Some(s) = self.signal_subscriptions.get_mut(&k) {
                s.suspended = true;
                let s = s.clone();
                let value = self.signal_subscription_value(&s);
                self.event(
                    ValueType::SignalSubscription,
                    OtherIntent::Deleted,
                    Some(k),
                    value,
                );
            }
        }
    }

    /// Opens again what [`Engine::close_subscriptions_for_suspension`] closed: the message
    /// sides (each takes the oldest buffered message it may, as a new subscription does) and
    /// the signal subscriptions.
    fn reopen_subscriptions_after_suspension(&mut self, key: Key) {
        let messages: Vec<Key> = self
            .messaging
            .subscriptions
            .values()
            .filter(|s| {
                s.process_instance_key == key
                    && s.process_side == ProcessSide::Opened
                    && s.message_side.is_none()
            })
            .map(|s| s.key)
            .collect();
        for k in messages {
            self.queue
                .push_back(FollowUp::Message(Box::new(MessageFollowUp::Open(k))));
        }
        let signals: Vec<Key> = self
            .signal_subscriptions
            .values()
            .filter(|s| s.suspended && self.owner_instance(s.owner) == Some(key))
            .map(|s| s.key)
            .collect();
        for k in signals {
            if let Some(s) = self.signal_subscriptions.get_mut(&k) {
                s.suspended = false;
                let s = s.clone();
                let value = self.signal_subscription_value(&s);
                self.event(
                    ValueType::SignalSubscription,
                    OtherIntent::Created,
                    Some(k),
                    value,
                );
            }
        }
    }

    fn owner_instance(&self, owner: Option<Key>) -> Option<Key> {
        owner
            .and_then(|o| self.instances.get(&o))
            .map(|i| i.process_instance_key)
    }
}
