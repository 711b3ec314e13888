//! Events as elements: start events and boundary events pass through (their trigger was the
//! wait); intermediate catch events wait for their timer, message, signal or condition (a link
//! catch and an event after an event-based gateway pass through); throw and end events throw
//! their signal, error, escalation or compensation, or pass through (none, link, terminate). A
//! link throw continues at its catch, a terminate end event empties its scope. Subscriptions
//! and what a throw reaches are behaviours (`behaviors::events`).

use std::sync::Arc;

use crate::runtime::behaviors::events::{ThrowKind, unsupported};
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{BpmnElementType as T, Key, OtherIntent, RecordValue, ValueType};
use crate::runtime::state::instances::{ElementInstance, Interruption};
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{FollowUp, Step};

/// Zeebe's `StartEventProcessor`: the event that started the scope happened already.
pub(crate) struct StartEvent;

impl ElementBehavior for StartEvent {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.pass_through(key)
    }

    /// The start event's variables (a message's, a signal's) propagate to its scope.
    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        complete_event(engine, key, true)
    }
}

/// Zeebe's `BoundaryEventProcessor`: activated once its event happened.
pub(crate) struct BoundaryEvent;

impl ElementBehavior for BoundaryEvent {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.pass_through(key)
    }

    /// The event's variables propagate, except an error's (they stay local, as in Zeebe).
    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        let propagate = !matches!(engine.event_of(key), EventDef::Error { .. });
        complete_event(engine, key, propagate)
    }
}

/// Zeebe's `IntermediateCatchEventProcessor`.
pub(crate) struct IntermediateCatchEvent;

impl ElementBehavior for IntermediateCatchEvent {
    /// A link catch passes through; a catch event after an event-based gateway is only
    /// activated once its event happened; the others wait for their event.
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        let passes_through = {
            let el = engine.element_def(key);
            matches!(el.event, EventDef::Link { .. }) || el.after_event_based_gateway
        };
        if passes_through {
            return engine.pass_through(key);
        }
        engine.activate_event_specific(key)
    }

    /// An event after an event-based gateway propagates its variables.
    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        let propagate = engine.element_def(key).after_event_based_gateway;
        complete_event(engine, key, propagate)
    }
}

/// Zeebe's `IntermediateThrowEventProcessor`.
pub(crate) struct IntermediateThrowEvent;

impl ElementBehavior for IntermediateThrowEvent {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_throw_event(key)
    }

    /// A link throw continues at its link catch: the path goes on.
    fn ends_path(&self, engine: &Engine, key: Key) -> bool {
        !matches!(engine.event_of(key), EventDef::Link { .. }) && engine.has_no_outgoing_flow(key)
    }

    fn leave(&self, engine: &mut Engine, completed: &ElementInstance, scope: Key, ends_path: bool) {
        let e = completed.element().expect("an event is an element");
        if let EventDef::Link { target, .. } = engine.process(completed.proc).element(e).event {
            if let Some(target) = target {
                engine.activate_child(scope, target, None);
            }
            return;
        }
        engine.leave_by_outgoing_flows(completed, scope, ends_path);
    }
}

/// Zeebe's `EndEventProcessor`.
pub(crate) struct EndEvent;

impl ElementBehavior for EndEvent {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_throw_event(key)
    }

    /// A terminate end event ends its path and terminates everything else in its scope.
    fn leave(&self, engine: &mut Engine, completed: &ElementInstance, scope: Key, ends_path: bool) {
        let e = completed.element().expect("an event is an element");
        if matches!(
            engine.process(completed.proc).element(e).event,
            EventDef::Terminate
        ) {
            engine.after_path_completed(scope, completed);
            engine.terminate_scope_by_end_event(scope);
            return;
        }
        engine.leave_by_outgoing_flows(completed, scope, ends_path);
    }
}

/// An event's output mappings (with its local variables when `propagate_locals`), then its
/// subscriptions are closed.
fn complete_event(engine: &mut Engine, key: Key, propagate_locals: bool) -> Step {
    engine.apply_element_output_mappings(key, propagate_locals)?;
    engine.unsubscribe_from_events(key);
    Ok(())
}

impl Engine {
    /// A throw or end event: a compensation throw (without a job) compensates; none, link and
    /// terminate events pass through; an event with a job (a message throw) waits for it; the
    /// others throw what their definition says.
    fn activate_throw_event(&mut self, key: Key) -> Step {
        let (compensation_throw, passes_through, has_job) = {
            let el = self.element_def(key);
            let has_job = el.job.is_some();
            (
                matches!(el.event, EventDef::Compensation { .. }) && !has_job,
                matches!(
                    el.event,
                    EventDef::None | EventDef::Link { .. } | EventDef::Terminate
                ),
                has_job,
            )
        };
        if compensation_throw {
            let activity = self.compensation_target(key).flatten();
            return self.throw_compensation(key, activity);
        }
        if passes_through {
            return self.pass_through(key);
        }
        if has_job {
            return self.activate_job_task(key);
        }
        self.activate_event_specific(key)
    }

    /// Events that need more than pass-through: error, escalation, signal, compensation throws
    /// and the catch events that wait for something.
    pub(crate) fn activate_event_specific(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("event");
        let el = p.element(e);
        match (&el.event, el.element_type) {
            (
                EventDef::Timer(_)
                | EventDef::Message { .. }
                | EventDef::Signal { .. }
                | EventDef::Conditional { .. },
                T::IntermediateCatchEvent,
            ) => {
                self.subscribe_to_events(key)?;
                self.transition(key, State::Activated)?;
                Ok(())
            }
            (EventDef::Signal { name }, T::IntermediateThrowEvent | T::EndEvent) => {
                let name = match name {
                    Some(x) => self.eval_string(x, key)?,
                    None => String::new(),
                };
                self.throw_signal(key, &name);
                self.transition(key, State::Activated)?;
                self.queue.push_back(FollowUp::Complete(key));
                Ok(())
            }
            (EventDef::Error { code }, T::EndEvent) => {
                let code = match code {
                    Some(c) => self.eval_string(c, key)?,
                    None => String::new(),
                };
                match self.search_catch(key, ThrowKind::Error, &code) {
                    Ok(c) => {
                        self.transition(key, State::Activated)?;
                        self.trigger_catch(c, None);
                        Ok(())
                    }
                    Err(available) => Err(Self::unhandled_error(&code, None, &available)),
                }
            }
            (EventDef::Escalation { code }, T::EndEvent | T::IntermediateThrowEvent) => {
                let code = match code {
                    Some(c) => self.eval_string(c, key)?,
                    None => String::new(),
                };
                self.transition(key, State::Activated)?;
                let catch = self.find_catch(key, ThrowKind::Escalation, &code);
                let escalated = catch.is_some();
                let interrupting = catch.as_ref().is_some_and(|c| c.interrupting);
                let inst = &self.instances[&key];
                let (proc, pi) = (inst.proc, inst.process_instance_key);
                let esc_key = self.new_key();
                self.event(
                    ValueType::Escalation,
                    if escalated {
                        OtherIntent::Escalated
                    } else {
                        OtherIntent::NotEscalated
                    },
                    Some(esc_key),
                    RecordValue::Escalation {
                        proc,
                        process_instance_key: pi,
                        throw_element: e,
                        catch_element: catch.as_ref().map(|c| c.element),
                        escalation_code: Arc::from(code.as_str()),
                    },
                );
                if let Some(c) = catch {
                    self.trigger_catch(c, None);
                }
                // An interrupting catch terminates the thrower's scope; otherwise the flow goes on.
                if !interrupting {
                    self.queue.push_back(FollowUp::Complete(key));
                }
                Ok(())
            }
            (other, _) => Err(unsupported(&p, e, other)),
        }
    }

    pub(crate) fn terminate_scope_by_end_event(&mut self, scope: Key) {
        let Some(s) = self.instances.get_mut(&scope) else {
            return;
        };
        if s.children.is_empty() {
            return;
        }
        s.extras_mut().interruption = Some(Interruption::TerminateEndEvent);
        self.terminate_children(scope);
    }
}
