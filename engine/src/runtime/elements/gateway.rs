//! Gateways: exclusive (first true condition, else default, else incident), inclusive (every
//! true condition, else default; the join waits until no active path can still reach it),
//! parallel (fork on all flows; the join counts tokens per flow) and event-based (subscribes to
//! the following catch events; the first one to trigger wins and its branch is taken).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::model::{ElementIdx, FlowIdx};
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::compile::process::ExecutableProcess;
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType as T, ErrorType, Intent, Key, ProcessInstanceIntent, RecordValue, Rejection,
    RejectionType, ValueType, VariableDocument,
};
use crate::runtime::state::instances::{ElementInstance, EventTrigger};
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{Activation, FollowUp, Step, StepFailure};

/// Exclusive, inclusive and parallel gateways (Zeebe's `ExclusiveGatewayProcessor`,
/// `InclusiveGatewayProcessor`, `ParallelGatewayProcessor`): they choose their outgoing flows
/// and complete in the step they are activated.
pub(crate) struct ForkingGateway;

impl ElementBehavior for ForkingGateway {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_gateway(key)
    }
}

/// Zeebe's `EventBasedGatewayProcessor`.
pub(crate) struct EventBasedGateway;

impl ElementBehavior for EventBasedGateway {
    /// Waits for the first of its following catch events.
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.subscribe_to_events(key)?;
        engine.transition(key, State::Activated)
    }

    /// Takes the branch of the event that triggered, with the event's variables.
    fn leave(
        &self,
        engine: &mut Engine,
        completed: &ElementInstance,
        scope: Key,
        _ends_path: bool,
    ) {
        let Some(t) = completed.triggers().first().cloned() else {
            return;
        };
        let e = completed.element().expect("a gateway is an element");
        let p = engine.process(completed.proc);
        let flow = p
            .model_element(e)
            .outgoing
            .iter()
            .copied()
            .find(|f| p.model.flow(*f).target == t.element);
        if let Some(f) = flow {
            engine.take_flow_with(
                completed.proc,
                completed.process_instance_key,
                scope,
                f,
                t.variables,
            );
        }
    }
}

impl Engine {
    pub(crate) fn activate_gateway(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("gateway");
        let ty = inst.element_type;
        let m = p.model_element(e);
        let flows: Vec<FlowIdx> = match ty {
            T::ParallelGateway => m.outgoing.to_vec(),
            T::ExclusiveGateway | T::InclusiveGateway if m.outgoing.is_empty() => Vec::new(),
            T::ExclusiveGateway | T::InclusiveGateway
                if m.outgoing.len() == 1 && p.model.flow(m.outgoing[0]).condition.is_none() =>
            {
                m.outgoing.to_vec()
            }
            T::ExclusiveGateway | T::InclusiveGateway => {
                let exclusive = ty == T::ExclusiveGateway;
                let mut chosen = Vec::new();
                for f in &m.outgoing {
                    if Some(*f) == m.default_flow {
                        continue;
                    }
                    let Some(cond) = &p.conditions[f.0 as usize] else {
                        continue;
                    };
                    if self.eval_bool(cond, key)? {
                        chosen.push(*f);
                        if exclusive {
                            break;
                        }
                    }
                }
                if chosen.is_empty() {
                    match m.default_flow {
                        Some(d) => chosen.push(d),
                        None => {
                            return Err(StepFailure::new(
                                ErrorType::ConditionError,
                                "Expected at least one condition to evaluate to true, or to have a default flow",
                            ));
                        }
                    }
                }
                chosen
            }
            _ => {
                return Err(StepFailure::new(
                    ErrorType::Unknown,
                    format!("Expected a gateway, but '{}' is a {ty}", p.element(e).id),
                ));
            }
        };
        self.transition(key, State::Activated)?;
        self.transition(key, State::Completing)?;
        let scope = self.instances[&key]
            .flow_scope
            .expect("gateways have a flow scope");
        if flows.is_empty() {
            // No outgoing flow: the path ends here.
            let inst = self.end_instance(key, State::Completed)?;
            self.after_path_completed(scope, &inst);
            return Ok(());
        }
        let inst = self.end_instance(key, State::Completed)?;
        for f in flows {
            self.take_flow(inst.proc, inst.process_instance_key, scope, f);
        }
        Ok(())
    }

    /// One of the events after an event-based gateway fired: the gateway completes and takes
    /// that branch only.
    pub(crate) fn trigger_event_based_gateway(
        &mut self,
        gateway: Key,
        event: ElementIdx,
        variables: Option<Arc<VariableDocument>>,
    ) {
        let Some(i) = self.instances.get_mut(&gateway) else {
            return;
        };
        if i.state != State::Activated || !i.triggers().is_empty() {
            return;
        }
        i.extras_mut().triggers.push(EventTrigger {
            element: event,
            variables,
        });
        self.queue.push_back(FollowUp::Complete(gateway));
    }

    /// A token arrives at a joining gateway in `scope`: once the gateway has what it needs, the
    /// tokens it joins are consumed and it activates (`true`); until then the activation is
    /// rejected, as Zeebe rejects it.
    pub(crate) fn join(&mut self, a: &Activation, scope: Key, gateway: ElementIdx) -> bool {
        let p = self.process(a.proc).clone();
        if !self.join_ready(&p, scope, gateway) {
            let value = self.activation_value(a);
            let kind = if p.element(gateway).element_type == T::ParallelGateway {
                "parallel"
            } else {
                "inclusive"
            };
            self.reject(
                ValueType::ProcessInstance,
                Intent::ProcessInstance(ProcessInstanceIntent::ActivateElement),
                a.key,
                RecordValue::ProcessInstance(value),
                Rejection::new(
                    RejectionType::InvalidState,
                    format!(
                        "Expected to be able to activate {kind} gateway '{}', but not all sequence flows have been taken.",
                        p.element(gateway).id
                    ),
                ),
            );
            return false;
        }
        self.consume_join_tokens(&p, scope, gateway);
        true
    }

    /// Whether a joining gateway in `scope` has what it needs to activate.
    fn join_ready(&self, p: &ExecutableProcess, scope: Key, gateway: ElementIdx) -> bool {
        let Some(s) = self.instances.get(&scope) else {
            return false;
        };
        let incoming = &p.model_element(gateway).incoming;
        let tokens = |f: &FlowIdx| {
            s.join_tokens()
                .iter()
                .find(|(t, _)| t == f)
                .map(|(_, n)| *n)
                .unwrap_or(0)
        };
        if incoming.iter().all(|f| tokens(f) > 0) {
            return true;
        }
        if p.element(gateway).element_type == T::ParallelGateway {
            return false;
        }
        // Inclusive join: no active path can still reach the gateway.
        !self.has_active_path_to(p, scope, gateway)
    }

    fn consume_join_tokens(&mut self, p: &ExecutableProcess, scope: Key, gateway: ElementIdx) {
        let incoming = p.model_element(gateway).incoming.to_vec();
        let Some(s) = self.instances.get_mut(&scope) else {
            return;
        };
        for f in incoming {
            let Some(tokens) = s.extras.as_deref_mut().map(|e| &mut e.join_tokens) else {
                break;
            };
            if let Some(pos) = tokens.iter().position(|(t, _)| *t == f) {
                tokens[pos].1 -= 1;
                if tokens[pos].1 == 0 {
                    tokens.remove(pos);
                }
                if let Some(a) = s.active_flows.iter().position(|x| *x == f) {
                    s.active_flows.remove(a);
                }
            }
        }
    }

    /// Zeebe's inclusive-join reachability: does any active element (or pending flow) in the
    /// scope have a path to the gateway that avoids incoming flows already taken?
    fn has_active_path_to(&self, p: &ExecutableProcess, scope: Key, gateway: ElementIdx) -> bool {
        let Some(s) = self.instances.get(&scope) else {
            return false;
        };
        let taken: Vec<FlowIdx> = s.join_tokens().iter().map(|(f, _)| *f).collect();
        let mut starts: Vec<ElementIdx> = Vec::new();
        for c in &s.children {
            if let Some(ci) = self.instances.get(c) {
                if ci.element_type == T::AdHocSubProcessInnerInstance {
                    for cc in &ci.children {
                        if let Some(e) = self.instances.get(cc).and_then(|x| x.element()) {
                            starts.push(e);
                        }
                    }
                } else if let Some(e) = ci.element() {
                    starts.push(e);
                }
            }
        }
        for f in &s.active_flows {
            starts.push(p.model.flow(*f).target);
        }
        starts.retain(|e| *e != gateway);
        starts
            .into_iter()
            .any(|start| reaches(p, start, gateway, &taken))
    }
}

/// A parallel or inclusive gateway with more than one incoming flow.
pub(crate) fn is_join(p: &ExecutableProcess, element: ElementIdx) -> bool {
    matches!(
        p.element(element).element_type,
        T::ParallelGateway | T::InclusiveGateway
    ) && p.model_element(element).incoming.len() > 1
}

fn reaches(
    p: &ExecutableProcess,
    start: ElementIdx,
    target: ElementIdx,
    taken: &[FlowIdx],
) -> bool {
    let mut visited = vec![false; p.elements.len()];
    let mut queue = VecDeque::from([start]);
    while let Some(e) = queue.pop_front() {
        if e == target {
            return true;
        }
        if std::mem::replace(&mut visited[e.0 as usize], true) {
            continue;
        }
        let el = p.element(e);
        if let EventDef::Link {
            target: Some(t), ..
        } = el.event
            && el.element_type == T::IntermediateThrowEvent
        {
            queue.push_back(t);
            continue;
        }
        let m = p.model_element(e);
        for f in &m.outgoing {
            if !taken.contains(f) {
                queue.push_back(p.model.flow(*f).target);
            }
        }
        for b in &m.boundary_events {
            queue.push_back(*b);
        }
    }
    false
}
