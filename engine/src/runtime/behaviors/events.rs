//! Events: subscriptions of catch events, boundary events and event sub-processes, and the
//! throw side (errors with the nearest-scope and catch-all rules across call activities,
//! escalations that raise no incident when uncaught).

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::compile::expr::Expr;
use crate::runtime::compile::process::ExecutableProcess;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType as T, ErrorType, JobKind, Key, OtherIntent, Rejection, RejectionType,
    ValueType, VariableDocument,
};
use crate::runtime::state::instances::{EventTrigger, Interruption};
use crate::runtime::state::jobs::JobTransition;
use crate::runtime::step::{FollowUp, Step, StepFailure};

/// Which kind of event is thrown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThrowKind {
    Error,
    Escalation,
}

/// A catch event found for a thrown error or escalation.
#[derive(Debug, Clone)]
pub(crate) struct Catch {
    /// The element instance the catch belongs to: the activity a boundary event is attached to,
    /// or the scope holding the event sub-process.
    pub instance: Key,
    /// The boundary event or the event sub-process start event.
    pub element: ElementIdx,
    pub boundary: bool,
    pub interrupting: bool,
}

impl Engine {
    /// Zeebe's incident for an error nothing catches (`CatchEventAnalyzer`): the job's error
    /// message only when the job gave a non-empty one (an error end event gives none), and the
    /// codes of the error catch events that were considered on the way up, if there were any.
    pub(crate) fn unhandled_error(
        code: &str,
        message: Option<&str>,
        available: &[Arc<str>],
    ) -> StepFailure {
        let message = match message {
            Some(m) if !m.is_empty() => format!(" with message '{m}'"),
            _ => String::new(),
        };
        let available = if available.is_empty() {
            " No error events are available in the scope.".to_string()
        } else {
            format!(" Available error events are [{}]", available.join(", "))
        };
        StepFailure::new(
            ErrorType::UnhandledErrorEvent,
            format!(
                "Expected to throw an error event with the code '{code}'{message}, but it was not caught.{available}"
            ),
        )
    }

    /// The catch events an element instance subscribes to when it is activated: the event
    /// itself (intermediate catch event, receive task), the events after an event-based gateway,
    /// an activity's boundary events (the multi-instance body carries them, not the inner
    /// instances) and the start events of a container's event sub-processes.
    fn catch_events_of(&self, key: Key) -> Vec<ElementIdx> {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc);
        let Some(e) = inst.element() else {
            return esp_start_events(p, None);
        };
        let ty = inst.element_type;
        let mut events = Vec::new();
        match ty {
            T::IntermediateCatchEvent => return vec![e],
            T::EventBasedGateway => {
                return p
                    .model_element(e)
                    .outgoing
                    .iter()
                    .map(|f| p.model.flow(*f).target)
                    .collect();
            }
            T::ReceiveTask => events.push(e),
            _ => {}
        }
        if inst.loop_counter == 0 && ty != T::AdHocSubProcessInnerInstance {
            events.extend(p.model_element(e).boundary_events.iter().copied());
        }
        if matches!(ty, T::SubProcess | T::AdHocSubProcess | T::EventSubProcess) {
            events.extend(esp_start_events(p, Some(e)));
        }
        events
    }

    /// Opens the subscriptions of an element instance's catch events (see
    /// [`Engine::catch_events_of`]).
    pub(crate) fn subscribe_to_events(&mut self, key: Key) -> Step {
        let events = self.catch_events_of(key);
        if events.is_empty() {
            return Ok(());
        }
        self.open_event_subscriptions(key, &events)
    }

    /// Zeebe's `CatchEventBehavior.subscribeToEvents`: every expression (message names,
    /// correlation keys, timers, signal names) is evaluated first, so a failure opens nothing;
    /// then the message subscriptions, the timers and the signal subscriptions are opened.
    pub(crate) fn open_event_subscriptions(&mut self, key: Key, events: &[ElementIdx]) -> Step {
        let p = self.process(self.instances[&key].proc).clone();
        let mut messages = Vec::new();
        let mut timers = Vec::new();
        let mut signals = Vec::new();
        let mut conditionals = Vec::new();
        for &e in events {
            match &p.element(e).event {
                EventDef::Message { .. } => {
                    if let Some(m) = self.plan_message(key, e)? {
                        messages.push(m);
                    }
                }
                EventDef::Timer(_) => timers.push((e, self.plan_timer(key, e)?)),
                EventDef::Signal { name } => {
                    let name = match name {
                        Some(x) => self.eval_string(x, key)?,
                        None => String::new(),
                    };
                    signals.push((e, Arc::<str>::from(name.as_str())));
                }
                EventDef::Conditional { .. } => conditionals.push(self.plan_conditional(key, e)?),
                EventDef::Error { .. }
                | EventDef::Escalation { .. }
                | EventDef::Compensation { .. }
                | EventDef::None
                | EventDef::Link { .. } => {}
                other => return Err(unsupported(&p, e, other)),
            }
        }
        for m in messages {
            self.open_message_subscription(key, m);
        }
        for (e, schedule) in timers {
            self.write_timer(key, e, schedule);
        }
        for (e, name) in signals {
            self.open_signal_subscription(key, e, name);
        }
        for c in conditionals {
            self.open_conditional_subscription(key, c);
        }
        Ok(())
    }

    /// Closes the subscriptions an element instance opened.
    pub(crate) fn unsubscribe_from_events(&mut self, key: Key) {
        let subs = match self.instances.get_mut(&key) {
            Some(i) if !i.subscriptions.is_empty() => std::mem::take(&mut i.subscriptions),
            _ => return,
        };
        // Zeebe's order: timers, then messages, then signals.
        for s in &subs {
            if self.timers.contains_key(s) {
                self.cancel_timer(*s);
            }
        }
        for s in &subs {
            if self.messaging.is_message_subscription(*s) {
                self.close_message_subscription(*s);
            }
        }
        for s in &subs {
            if self.signal_subscriptions.contains_key(s) {
                self.close_signal_subscription(*s);
            }
        }
        for s in &subs {
            if self.conditionals.is_subscription(*s) {
                self.close_conditional_subscription(*s);
            }
        }
    }

    /// Finds the nearest catch event for an error or escalation thrown at `from`: boundary
    /// events of each instance on the way up, event sub-processes of each scope, and across call
    /// activities into the parent process. A catch with the matching code beats a catch-all on
    /// the same level.
    pub(crate) fn find_catch(&self, from: Key, kind: ThrowKind, code: &str) -> Option<Catch> {
        self.search_catch(from, kind, code).ok()
    }

    /// [`Engine::find_catch`], and when nothing catches, the codes of the catch events it
    /// considered, as Zeebe lists them in the incident: scope by scope from the inside out,
    /// within a scope in descending order of the code (Java's string order).
    pub(crate) fn search_catch(
        &self,
        from: Key,
        kind: ThrowKind,
        code: &str,
    ) -> Result<Catch, Vec<Arc<str>>> {
        let mut considered: Vec<Arc<str>> = Vec::new();
        let mut current = Some(from);
        let mut came_from_inside = false;
        while let Some(k) = current {
            let Some(inst) = self.instances.get(&k) else {
                break;
            };
            let p = self.process(inst.proc);
            let mut specific: Option<Catch> = None;
            let mut catch_all: Option<Catch> = None;
            let mut scope_codes: Vec<Arc<str>> = Vec::new();
            let mut consider = |element: ElementIdx,
                                boundary: bool,
                                code_expr: Option<&Expr>,
                                interrupting: bool| {
                let c = Catch {
                    instance: k,
                    element,
                    boundary,
                    interrupting,
                };
                match code_expr.and_then(|x| x.as_static()) {
                    Some(s) => {
                        scope_codes.push(Arc::from(s));
                        if s == code && specific.is_none() {
                            specific = Some(c);
                        }
                    }
                    None => {
                        if code_expr.is_none() && catch_all.is_none() {
                            catch_all = Some(c);
                        }
                    }
                }
            };
            // Event sub-processes of a scope catch what is thrown inside it.
            if came_from_inside {
                let scope = inst.element();
                let is_container = matches!(
                    inst.element_type,
                    T::Process | T::SubProcess | T::EventSubProcess | T::AdHocSubProcess
                );
                if is_container {
                    for esp in &p.scope_of(scope).event_subprocesses {
                        for start in &p.model_element(*esp).children {
                            let s = p.element(*start);
                            if s.element_type != T::StartEvent {
                                continue;
                            }
                            match (&s.event, kind) {
                                (EventDef::Error { code }, ThrowKind::Error) => {
                                    consider(*start, false, code.as_ref(), true)
                                }
                                (EventDef::Escalation { code }, ThrowKind::Escalation) => {
                                    consider(*start, false, code.as_ref(), s.interrupting)
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            // Boundary events of the instance (the body of a multi-instance activity carries them).
            if let Some(e) = inst.element()
                && inst.loop_counter == 0
                && inst.element_type != T::AdHocSubProcessInnerInstance
                && (came_from_inside || kind == ThrowKind::Error)
            {
                for b in &p.model_element(e).boundary_events {
                    let be = p.element(*b);
                    match (&be.event, kind) {
                        (EventDef::Error { code }, ThrowKind::Error) => {
                            consider(*b, true, code.as_ref(), true)
                        }
                        (EventDef::Escalation { code }, ThrowKind::Escalation) => {
                            consider(*b, true, code.as_ref(), be.interrupting)
                        }
                        _ => {}
                    }
                }
            }
            if let Some(c) = specific.or(catch_all) {
                return Ok(c);
            }
            scope_codes.sort_by(|a, b| b.encode_utf16().cmp(a.encode_utf16()));
            considered.extend(scope_codes);
            came_from_inside = true;
            current = match inst.flow_scope {
                Some(s) => Some(s),
                None => inst.parent().map(|(_, call_activity)| call_activity),
            };
        }
        Err(considered)
    }

    /// Starts a catch event: an interrupting boundary event terminates its activity first, an
    /// interrupting event sub-process terminates the other children of its scope first.
    pub(crate) fn trigger_catch(&mut self, c: Catch, variables: Option<Arc<VariableDocument>>) {
        let trigger = EventTrigger {
            element: c.element,
            variables,
        };
        if c.boundary {
            if c.interrupting {
                if let Some(i) = self.instances.get_mut(&c.instance) {
                    i.extras_mut().triggers.push(trigger);
                }
                self.queue.push_back(FollowUp::Terminate(c.instance));
            } else if let Some(scope) = self.instances.get(&c.instance).and_then(|i| i.flow_scope) {
                self.activate_child(scope, trigger.element, trigger.variables);
            }
            return;
        }
        // Event sub-process start event.
        let p = self.process(self.instances[&c.instance].proc).clone();
        let esp = p
            .model_element(c.element)
            .parent
            .expect("start event inside an event sub-process");
        if c.interrupting {
            let Some(scope) = self.instances.get_mut(&c.instance) else {
                return;
            };
            scope.extras_mut().interruption = Some(Interruption::EventSubProcess);
            scope.extras_mut().triggers.push(EventTrigger {
                element: esp,
                variables: trigger.variables.clone(),
            });
            self.pending
                .event_sub_process_starts
                .insert(c.instance, trigger);
            if self.terminate_children(c.instance) {
                let t = self
                    .instances
                    .get_mut(&c.instance)
                    .expect("exists")
                    .extras_mut()
                    .triggers
                    .remove(0);
                self.activate_child(c.instance, t.element, None);
            }
        } else {
            self.pending
                .event_sub_process_starts
                .insert(c.instance, trigger);
            self.activate_child(c.instance, esp, None);
        }
    }

    /// Carries out the command of [`Engine::throw_error`].
    pub(crate) fn apply_throw_error(
        &mut self,
        job_key: Key,
        error_code: &str,
        error_message: &str,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        let Some(job) = self.jobs.get(&job_key) else {
            return Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to throw an error for job with key '{job_key}', but no such job was found"
                ),
            ));
        };
        self.check_not_suspended(job.process_instance_key, || {
            format!("throw an error for job with key '{job_key}'")
        })?;
        if !job.state.is_answerable() {
            let state = job.state.rejection_name();
            return Err(Rejection::new(
                RejectionType::InvalidState,
                format!(
                    "Expected to throw an error for job with key '{job_key}', but it is in state '{state}'"
                ),
            ));
        }
        if job.kind == JobKind::ExecutionListener {
            return Err(Rejection::new(
                RejectionType::InvalidArgument,
                format!(
                    "Expected to throw an error for job with key '{job_key}', but it is an execution listener job, which cannot throw BPMN errors"
                ),
            ));
        }
        let ei = job.element_instance_key;
        let message = crate::runtime::behaviors::jobs::truncate_message(error_message);
        if let Some(j) = self.jobs.get_mut(&job_key) {
            j.transition(JobTransition::ThrowError);
            let value = j.value_mut();
            value.error_code = Some(Arc::from(error_code));
            value.error_message = Some(Arc::from(message.as_str()));
        }
        let vars = Arc::new(variables);
        let shared = Arc::new(crate::runtime::records::share_document_arc(vars.clone()));
        let value = Self::job_record(&self.jobs[&job_key], Some(shared));
        self.event(
            ValueType::Job,
            OtherIntent::ErrorThrown,
            Some(job_key),
            value,
        );
        match self.search_catch(ei, ThrowKind::Error, error_code) {
            Ok(c) => {
                self.jobs.remove(&job_key);
                if let Some(i) = self.instances.get_mut(&ei) {
                    i.job = None;
                }
                let vars = (!vars.is_empty()).then_some(vars);
                self.trigger_catch(c, vars);
            }
            Err(available) => {
                let f = Self::unhandled_error(error_code, Some(&message), &available);
                self.create_incident(ei, Some(job_key), f);
            }
        }
        self.run(start)
    }
}

/// The start events of the event sub-processes directly inside a scope (`None`: the process).
fn esp_start_events(p: &ExecutableProcess, scope: Option<ElementIdx>) -> Vec<ElementIdx> {
    let mut out = Vec::new();
    for esp in &p.scope_of(scope).event_subprocesses {
        for start in &p.model_element(*esp).children {
            if p.element(*start).element_type == T::StartEvent {
                out.push(*start);
            }
        }
    }
    out
}

pub(crate) fn unsupported(p: &ExecutableProcess, e: ElementIdx, def: &EventDef) -> StepFailure {
    let what = match def {
        EventDef::Message { .. } => "message",
        EventDef::Timer(_) => "timer",
        EventDef::Signal { .. } => "signal",
        EventDef::Conditional { .. } => "conditional",
        EventDef::Compensation { .. } => "compensation",
        EventDef::Link { .. } => "link",
        EventDef::Error { .. } => "error",
        EventDef::Escalation { .. } => "escalation",
        EventDef::Terminate => "terminate",
        EventDef::None => "none",
    };
    StepFailure::new(
        ErrorType::Unknown,
        format!(
            "The {what} event '{}' is not supported by this engine version yet",
            p.element(e).id
        ),
    )
}
