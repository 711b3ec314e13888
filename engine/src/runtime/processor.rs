//! The processing of follow-up commands: activate, complete and terminate element instances,
//! take sequence flows, and let containers react when a child path ends. Per-family behaviour
//! (tasks, gateways, events, sub-processes, ...) lives in the sibling modules; this module holds
//! the lifecycle skeleton every element goes through.

use std::sync::Arc;

use super::Engine;
use super::executable::EventDef;
use super::lifecycle::{self, State};
use super::records::{
    BpmnElementType as T, BpmnEventType, ElementRef, ErrorType, Intent, Key, ProcIdx,
    ProcessInstanceIntent, ProcessInstanceValue, RecordValue, Rejection, RejectionType, ValueType,
    VariableDocument,
};
use super::state::{ElementInstance, Interruption, ProcessInstanceSummary};
use super::step::{Activation, FollowUp, Step, StepFailure};
use crate::model::{ElementIdx, FlowIdx};

impl Engine {
    pub(crate) fn process_follow_up(&mut self, follow_up: FollowUp) {
        match follow_up {
            FollowUp::Activate(a) => self.activate(a),
            FollowUp::Complete(k) => self.complete(k),
            FollowUp::Terminate(k) => self.terminate(k),
            FollowUp::ContinueListeners(k) => {
                let state = self.instances.get(&k).map(|i| i.state);
                let step = match state {
                    Some(State::Activating) => self.after_on_activate(k),
                    Some(State::Completing) => self.after_on_complete(k),
                    _ => Ok(()),
                };
                if let Err(f) = step {
                    self.create_incident(k, None, f);
                }
            }
            FollowUp::Message(m) => self.process_message_follow_up(*m),
            FollowUp::TriggerConditional(k) => self.trigger_conditional(k),
            FollowUp::BroadcastSignal(b) => {
                let (name, variables) = *b;
                self.broadcast(name, variables);
            }
            FollowUp::TerminateChildren(k) => {
                let mut children = match self.instances.get(&k) {
                    Some(i) => i.children.clone(),
                    None => return,
                };
                children.sort_unstable();
                for c in children {
                    self.queue.push_back(FollowUp::Terminate(c));
                }
            }
        }
    }

    pub(crate) fn process_instance_value(&self, inst: &ElementInstance) -> ProcessInstanceValue {
        let p = self.process(inst.proc);
        let event_type = match inst.element_ref {
            ElementRef::Element(e) if inst.element_type != T::MultiInstanceBody => {
                p.element(e).event_type
            }
            ElementRef::Element(e) => p.element(e).event_type,
            _ => BpmnEventType::Unspecified,
        };
        let (parent_pi, parent_ei) = match inst.parent() {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        ProcessInstanceValue {
            proc: inst.proc,
            process_instance_key: inst.process_instance_key,
            element_ref: inst.element_ref,
            element_type: inst.element_type,
            event_type,
            flow_scope_key: inst.flow_scope,
            parent_process_instance_key: parent_pi,
            parent_element_instance_key: parent_ei,
        }
    }

    pub(crate) fn element_id_of(&self, inst: &ElementInstance) -> Arc<str> {
        let p = self.process(inst.proc);
        match inst.element_ref {
            ElementRef::Element(e) => p.element(e).id.clone(),
            _ => p.bpmn_process_id.clone(),
        }
    }

    /// Checks the lifecycle table for moving `key` to `to` and writes the record.
    fn write_transition(&mut self, key: Key, to: State) -> Step {
        let Some(inst) = self.instances.get(&key) else {
            return Err(StepFailure::new(
                ErrorType::Unknown,
                format!("Expected element instance with key '{key}' to exist, but it does not"),
            ));
        };
        // The element id is only looked up for the error (this runs for every transition).
        if !lifecycle::can_transition(
            lifecycle::Family::of(inst.element_type),
            Some(inst.state),
            to,
        ) && let Err(e) = lifecycle::check(
            &self.element_id_of(inst),
            inst.element_type,
            Some(inst.state),
            to,
        ) {
            return Err(StepFailure::new(ErrorType::Unknown, e.to_string()));
        }
        let value = self.process_instance_value(inst);
        self.process_instance_event(to.intent(), key, value);
        Ok(())
    }

    /// Moves an instance to a state it stays in (ACTIVATED, COMPLETING, TERMINATING), checking
    /// the lifecycle table and writing the record.
    pub(crate) fn transition(&mut self, key: Key, to: State) -> Step {
        debug_assert!(!matches!(to, State::Completed | State::Terminated));
        self.write_transition(key, to)?;
        let is_process = match self.instances.get_mut(&key) {
            Some(i) => {
                i.state = to;
                i.element_type == T::Process
            }
            None => false,
        };
        // Only process instances have a summary (no map lookup for every element).
        if is_process && let Some(s) = self.process_instances.get_mut(&key) {
            s.state = to;
        }
        Ok(())
    }

    /// Moves an instance to COMPLETED or TERMINATED: writes the record and removes the
    /// instance, which is returned.
    #[inline]
    pub(crate) fn end_instance(
        &mut self,
        key: Key,
        to: State,
    ) -> Result<ElementInstance, StepFailure> {
        debug_assert!(matches!(to, State::Completed | State::Terminated));
        self.write_transition(key, to)?;
        let inst = self.instances.remove(&key).expect("checked above");
        if let Some(scope) = inst.flow_scope
            && let Some(parent) = self.instances.get_mut(&scope)
            && let Some(pos) = parent.children.iter().position(|c| *c == key)
        {
            parent.children.remove(pos);
        }
        if inst.element_type == T::Process {
            if let Some(s) = self.process_instances.get_mut(&key) {
                s.state = to;
            }
            self.release_message_start_lock(key);
            self.drop_compensation_of(key);
        }
        Ok(inst)
    }

    /// Queues the activation of an element as a child of `scope`.
    pub(crate) fn activate_child(
        &mut self,
        scope: Key,
        element: ElementIdx,
        variables: Option<Arc<VariableDocument>>,
    ) {
        let Some(s) = self.instances.get(&scope) else {
            return;
        };
        let p = self.process(s.proc);
        let element_type = if p.element(element).multi_instance.is_some() {
            T::MultiInstanceBody
        } else {
            p.element(element).element_type
        };
        let a = Activation {
            key: None,
            proc: s.proc,
            process_instance_key: s.process_instance_key,
            flow_scope: Some(scope),
            element: Some(element),
            element_type,
            via_flow: None,
            variables,
            parent: None,
            loop_counter: 0,
        };
        self.queue.push_back(FollowUp::Activate(a));
    }

    /// Takes a sequence flow out of a completed element in `scope`: writes SEQUENCE_FLOW_TAKEN
    /// and queues the target's activation.
    pub(crate) fn take_flow(
        &mut self,
        proc: ProcIdx,
        process_instance_key: Key,
        scope: Key,
        flow: FlowIdx,
    ) {
        self.take_flow_with(proc, process_instance_key, scope, flow, None);
    }

    /// Takes a flow; the target gets `variables` as local variables (an event after an
    /// event-based gateway).
    pub(crate) fn take_flow_with(
        &mut self,
        proc: ProcIdx,
        process_instance_key: Key,
        scope: Key,
        flow: FlowIdx,
        variables: Option<Arc<VariableDocument>>,
    ) {
        // A short borrow of the process (no handle clone: this runs for every flow taken).
        let (target, joining, element_type) = {
            let p = self.process(proc);
            let target = p.model.flow(flow).target;
            let element_type = if p.element(target).multi_instance.is_some() {
                T::MultiInstanceBody
            } else {
                p.element(target).element_type
            };
            (target, is_join(p, target), element_type)
        };
        let flow_key = self.new_key();
        if let Some(s) = self.instances.get_mut(&scope) {
            s.active_flows.push(flow);
            if joining {
                let tokens = &mut s.extras_mut().join_tokens;
                match tokens.iter_mut().find(|(f, _)| *f == flow) {
                    Some((_, n)) => *n += 1,
                    None => tokens.push((flow, 1)),
                }
            }
        }
        self.process_instance_event(
            ProcessInstanceIntent::SequenceFlowTaken,
            flow_key,
            ProcessInstanceValue {
                proc,
                process_instance_key,
                element_ref: ElementRef::Flow(flow),
                element_type: T::SequenceFlow,
                event_type: BpmnEventType::Unspecified,
                flow_scope_key: Some(scope),
                parent_process_instance_key: None,
                parent_element_instance_key: None,
            },
        );
        let element_key = self.new_key();
        self.queue.push_back(FollowUp::Activate(Activation {
            key: Some(element_key),
            proc,
            process_instance_key,
            flow_scope: Some(scope),
            element: Some(target),
            element_type,
            via_flow: Some(flow),
            variables,
            parent: None,
            loop_counter: 0,
        }));
    }

    fn activate(&mut self, a: Activation) {
        // The flow scope must still be active (it may have been terminated meanwhile).
        if let Some(scope) = a.flow_scope {
            let scope_ok = self.instances.get(&scope).is_some_and(|s| {
                matches!(
                    s.state,
                    State::Activating | State::Activated | State::Completing
                )
            });
            if !scope_ok {
                if let (Some(flow), Some(s)) = (a.via_flow, self.instances.get_mut(&scope))
                    && let Some(pos) = s.active_flows.iter().position(|f| *f == flow)
                {
                    s.active_flows.remove(pos);
                }
                let value = self.activation_value(&a);
                self.reject(
                    ValueType::ProcessInstance,
                    Intent::ProcessInstance(ProcessInstanceIntent::ActivateElement),
                    a.key,
                    RecordValue::ProcessInstance(value),
                    Rejection::new(
                        RejectionType::InvalidState,
                        "Expected flow scope instance to be not terminating, but it was."
                            .to_owned(),
                    ),
                );
                return;
            }
        }
        // Joining gateways wait for a token on every incoming flow.
        if let (Some(element), Some(scope), Some(_)) = (a.element, a.flow_scope, a.via_flow)
            && is_join(self.process(a.proc), element)
        {
            let p = self.process(a.proc).clone();
            let ready = self.join_ready(&p, scope, element);
            if !ready {
                let value = self.activation_value(&a);
                let kind = if p.element(element).element_type == T::ParallelGateway {
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
                            p.element(element).id
                        ),
                    ),
                );
                return;
            }
            self.consume_join_tokens(&p, scope, element);
        } else if let (Some(flow), Some(scope)) = (a.via_flow, a.flow_scope)
            && let Some(s) = self.instances.get_mut(&scope)
            && let Some(pos) = s.active_flows.iter().position(|f| *f == flow)
        {
            s.active_flows.remove(pos);
        }
        let key = match a.key {
            Some(k) => k,
            None => self.new_key(),
        };
        let element_ref = match a.element {
            Some(e) => ElementRef::Element(e),
            None => ElementRef::Process,
        };
        // Usually empty: no hashing then.
        let vars = if self.pending_vars.is_empty() {
            Default::default()
        } else {
            self.pending_vars.remove(&key).unwrap_or_default()
        };
        let mut inst = ElementInstance::new(
            key,
            a.proc,
            a.process_instance_key,
            element_ref,
            a.element_type,
            a.flow_scope,
        );
        inst.vars = vars;
        inst.loop_counter = a.loop_counter;
        if a.parent.is_some() {
            inst.extras_mut().parent = a.parent;
        }
        let value = self.process_instance_value(&inst);
        self.instances.insert(key, inst);
        if let Some(scope) = a.flow_scope
            && let Some(s) = self.instances.get_mut(&scope)
        {
            s.children.push(key);
        }
        if a.element.is_none() {
            self.process_instances.insert(
                key,
                ProcessInstanceSummary {
                    proc: a.proc,
                    state: State::Activating,
                    parent_process_instance_key: a.parent.map(|p| p.0),
                },
            );
        }
        self.process_instance_event(ProcessInstanceIntent::ElementActivating, key, value);
        if let Some(vars) = &a.variables {
            self.merge_local(key, vars);
        }
        self.run_activation(key);
    }

    fn activation_value(&self, a: &Activation) -> ProcessInstanceValue {
        let p = self.process(a.proc);
        ProcessInstanceValue {
            proc: a.proc,
            process_instance_key: a.process_instance_key,
            element_ref: a
                .element
                .map(ElementRef::Element)
                .unwrap_or(ElementRef::Process),
            element_type: a.element_type,
            event_type: a
                .element
                .map(|e| p.element(e).event_type)
                .unwrap_or(BpmnEventType::Unspecified),
            flow_scope_key: a.flow_scope,
            parent_process_instance_key: a.parent.map(|x| x.0),
            parent_element_instance_key: a.parent.map(|x| x.1),
        }
    }

    /// Runs (or re-runs, after an incident) the activation steps of an instance in ACTIVATING.
    pub(crate) fn run_activation(&mut self, key: Key) {
        if let Err(f) = self.on_activate(key) {
            self.create_incident(key, None, f);
        }
    }

    /// Runs (or re-runs) the completion steps of an instance in COMPLETING.
    pub(crate) fn run_completion(&mut self, key: Key) {
        if let Err(f) = self.on_complete(key) {
            self.create_incident(key, None, f);
        }
    }

    /// The process, element and element type of an instance. No handle on the process is
    /// returned: the steps that follow change the engine, so they read the definition in
    /// short borrows (a cloned `Arc` per step costs two atomic operations).
    fn element_of(&self, key: Key) -> Option<(ProcIdx, Option<ElementIdx>, T)> {
        let i = self.instances.get(&key)?;
        Some((i.proc, i.element(), i.element_type))
    }

    fn on_activate(&mut self, key: Key) -> Step {
        let Some(i) = self.instances.get(&key) else {
            return Ok(());
        };
        let (proc, element, ty) = (i.proc, i.element(), i.element_type);
        if ty == T::AdHocSubProcess {
            self.ad_hoc_before_input_mappings(key);
        }
        if let Some(e) = element
            && !matches!(ty, T::MultiInstanceBody | T::AdHocSubProcessInnerInstance)
            && !self.process(proc).element(e).input_mappings.is_empty()
        {
            let p = self.process(proc).clone();
            self.apply_input_mappings(key, &p.element(e).input_mappings)?;
        }
        self.after_on_activate(key)
    }

    /// The execution listener of the current phase to run next, if any (cloned only when
    /// there is one: this runs for every element).
    fn next_listener(&self, key: Key, start: bool) -> Option<&super::executable::ListenerDef> {
        let i = self.instances.get(&key)?;
        let e = match (i.element(), i.element_type) {
            (_, T::MultiInstanceBody | T::AdHocSubProcessInnerInstance) => return None,
            // Process-level listeners are not run (their jobs would need a process node).
            (None, _) => return None,
            (Some(e), _) => e,
        };
        let el = self.process(i.proc).element(e);
        let listeners = if start {
            &el.start_listeners
        } else {
            &el.end_listeners
        };
        listeners.get(i.listener_index as usize)
    }

    /// After input mappings: run the start execution listeners, then finalize.
    pub(crate) fn after_on_activate(&mut self, key: Key) -> Step {
        if let Some(l) = self.next_listener(key, true).cloned() {
            return self.create_listener_job(key, &l, super::records::ListenerEventType::Start);
        }
        self.finalize_activation(key)
    }

    pub(crate) fn finalize_activation(&mut self, key: Key) -> Step {
        let Some((proc, element, ty)) = self.element_of(key) else {
            return Ok(());
        };
        let Some(e) = element else {
            // The process.
            self.subscribe_to_events(key)?;
            self.transition(key, State::Activated)?;
            if let Some(t) = self.event_starts.remove(&key) {
                self.activate_child(key, t.element, t.variables);
                return Ok(());
            }
            match self.start_instructions.remove(&key) {
                Some(elements) => {
                    for element in elements {
                        self.activate_with_start_instruction(key, element)?;
                    }
                }
                None => {
                    if let Some(start) = self.process(proc).scope.none_start {
                        self.activate_child(key, start, None);
                    }
                }
            }
            return Ok(());
        };
        let el = self.process(proc).element(e);
        let none_start = el.scope.none_start;
        let has_job = el.job.is_some();
        let compensation_throw = matches!(el.event, EventDef::Compensation { .. }) && !has_job;
        let passes_through = matches!(
            el.event,
            EventDef::None | EventDef::Link { .. } | EventDef::Terminate
        );
        let passing_catch =
            matches!(el.event, EventDef::Link { .. }) || el.after_event_based_gateway;
        match ty {
            T::SubProcess => {
                self.subscribe_to_events(key)?;
                self.transition(key, State::Activated)?;
                if let Some(start) = none_start {
                    self.activate_child(key, start, None);
                }
                Ok(())
            }
            T::EventSubProcess => self.activate_event_subprocess(key),
            T::MultiInstanceBody => self.activate_multi_instance_body(key),
            T::CallActivity => self.activate_call_activity(key),
            T::AdHocSubProcess => self.activate_ad_hoc(key),
            T::AdHocSubProcessInnerInstance => self.activate_inner_instance(key),
            T::ServiceTask | T::SendTask => self.activate_job_task(key),
            T::ReceiveTask => {
                self.subscribe_to_events(key)?;
                self.transition(key, State::Activated)?;
                Ok(())
            }
            T::ScriptTask => self.activate_script_task(key),
            T::BusinessRuleTask => self.activate_business_rule_task(key),
            T::UserTask => self.activate_user_task(key),
            T::Task | T::ManualTask => {
                self.transition(key, State::Activated)?;
                self.queue.push_back(FollowUp::Complete(key));
                Ok(())
            }
            T::ExclusiveGateway | T::InclusiveGateway | T::ParallelGateway => {
                self.activate_gateway(key)
            }
            T::EventBasedGateway => self.activate_event_based_gateway(key),
            T::StartEvent | T::BoundaryEvent => {
                self.transition(key, State::Activated)?;
                self.queue.push_back(FollowUp::Complete(key));
                Ok(())
            }
            T::IntermediateThrowEvent | T::EndEvent if compensation_throw => {
                let activity = self.compensation_target(key).flatten();
                self.throw_compensation(key, activity)
            }
            T::IntermediateThrowEvent | T::EndEvent if passes_through => {
                self.transition(key, State::Activated)?;
                self.queue.push_back(FollowUp::Complete(key));
                Ok(())
            }
            T::IntermediateThrowEvent | T::EndEvent if has_job => self.activate_job_task(key),
            T::IntermediateThrowEvent | T::EndEvent => self.activate_event_specific(key),
            // A link catch passes through; a catch event after an event-based gateway is only
            // activated once its event happened.
            T::IntermediateCatchEvent if passing_catch => {
                self.transition(key, State::Activated)?;
                self.queue.push_back(FollowUp::Complete(key));
                Ok(())
            }
            _ => self.activate_event_specific(key),
        }
    }

    fn complete(&mut self, key: Key) {
        let Some(inst) = self.instances.get(&key) else {
            return;
        };
        if inst.state != State::Activated {
            let value = self.process_instance_value(inst);
            let state = inst.state;
            self.reject(
                ValueType::ProcessInstance,
                Intent::ProcessInstance(ProcessInstanceIntent::CompleteElement),
                Some(key),
                RecordValue::ProcessInstance(value),
                Rejection::new(
                    RejectionType::InvalidState,
                    format!(
                        "Expected element instance with key '{key}' to be in state 'ELEMENT_ACTIVATED', but was 'ELEMENT_{state}'."
                    ),
                ),
            );
            return;
        }
        if let Err(f) = self.transition(key, State::Completing) {
            self.create_incident(key, None, f);
            return;
        }
        if let Some(i) = self.instances.get_mut(&key) {
            i.listener_index = 0;
        }
        self.run_completion(key);
    }

    fn on_complete(&mut self, key: Key) -> Step {
        let Some((proc, element, ty)) = self.element_of(key) else {
            return Ok(());
        };
        match element {
            None => self.unsubscribe_from_events(key),
            Some(e) => match ty {
                T::MultiInstanceBody => self.complete_multi_instance_body(key)?,
                T::AdHocSubProcessInnerInstance => {}
                T::SubProcess | T::EventSubProcess => {
                    self.unsubscribe_from_events(key);
                    self.apply_element_output_mappings(key, proc, e, false)?;
                }
                T::AdHocSubProcess => self.complete_ad_hoc(key)?,
                T::CallActivity => self.complete_call_activity(key)?,
                _ => {
                    let el = self.process(proc).element(e);
                    let propagate_locals = match ty {
                        T::StartEvent => true,
                        T::BoundaryEvent => !matches!(el.event, EventDef::Error { .. }),
                        T::IntermediateCatchEvent => el.after_event_based_gateway,
                        _ => false,
                    };
                    self.apply_element_output_mappings(key, proc, e, propagate_locals)?;
                    self.unsubscribe_from_events(key);
                }
            },
        }
        self.after_on_complete(key)
    }

    /// The element's output mappings (a handle on the process is taken only when there are
    /// some).
    fn apply_element_output_mappings(
        &mut self,
        key: Key,
        proc: ProcIdx,
        e: ElementIdx,
        propagate_locals: bool,
    ) -> Step {
        if self.process(proc).element(e).output_mappings.is_empty() {
            // Nothing to merge (no mappings, no or empty completion variables, no locals to
            // propagate): the common case of a job completed without variables.
            if let Some(i) = self.instances.get_mut(&key)
                && i.completion_vars.as_ref().is_none_or(|d| d.is_empty())
                && (!propagate_locals || i.vars.is_empty())
            {
                i.completion_vars = None;
                return Ok(());
            }
            return self.apply_output_mappings(key, &[], propagate_locals);
        }
        let p = self.process(proc).clone();
        self.apply_output_mappings(key, &p.element(e).output_mappings, propagate_locals)
    }

    /// After output mappings: run the end execution listeners, then finalize.
    pub(crate) fn after_on_complete(&mut self, key: Key) -> Step {
        if let Some(l) = self.next_listener(key, false).cloned() {
            return self.create_listener_job(key, &l, super::records::ListenerEventType::End);
        }
        self.finalize_completion(key)
    }

    pub(crate) fn finalize_completion(&mut self, key: Key) -> Step {
        let Some((proc, element, ty)) = self.element_of(key) else {
            return Ok(());
        };
        let Some(e) = element else {
            // The process instance.
            let inst = self.end_instance(key, State::Completed)?;
            if let Some((_, call_activity)) = inst.parent() {
                self.on_called_process_completed(call_activity, &inst);
            }
            return Ok(());
        };
        let (link_throw, is_terminate_end, has_compensation_handler, no_outgoing) = {
            let p = self.process(proc);
            let el = p.element(e);
            let link_throw = match el.event {
                EventDef::Link { target, .. } if ty == T::IntermediateThrowEvent => Some(target),
                _ => None,
            };
            (
                link_throw,
                ty == T::EndEvent && matches!(el.event, EventDef::Terminate),
                el.compensation_handler.is_some(),
                p.model_element(e).outgoing.is_empty(),
            )
        };
        // Elements whose flow is not continued by outgoing sequence flows.
        let is_link_throw = link_throw.is_some();
        // Inner instances of a multi-instance activity and of an ad-hoc sub-process end a path
        // of their container: the outgoing flows belong to the body.
        let (inner, scope) = {
            let i = &self.instances[&key];
            (
                i.loop_counter > 0 || ty == T::AdHocSubProcessInnerInstance,
                i.flow_scope,
            )
        };
        let end_of_path = inner || (no_outgoing && !is_link_throw);
        if end_of_path && let Some(scope) = scope {
            self.before_path_completed(scope, key)?;
        }
        if has_compensation_handler {
            self.subscribe_compensation(key);
        }
        let inst = self.end_instance(key, State::Completed)?;
        let scope = inst.flow_scope.expect("elements have a flow scope");
        if !self.compensation.is_empty() {
            self.compensation_handler_done(key);
        }
        if !inner && self.runtime_instruction_fires(&inst, e) {
            return Ok(());
        }
        if let Some(target) = link_throw {
            if let Some(target) = target {
                self.activate_child(scope, target, None);
            }
            return Ok(());
        }
        if is_terminate_end {
            self.after_path_completed(scope, &inst);
            self.terminate_scope_by_end_event(scope);
            return Ok(());
        }
        if ty == T::EventBasedGateway {
            if let Some(t) = inst.triggers().first().cloned() {
                let p = self.process(proc);
                let flow = p
                    .model_element(e)
                    .outgoing
                    .iter()
                    .copied()
                    .find(|f| p.model.flow(*f).target == t.element);
                if let Some(f) = flow {
                    self.take_flow_with(
                        inst.proc,
                        inst.process_instance_key,
                        scope,
                        f,
                        t.variables,
                    );
                }
            }
            return Ok(());
        }
        if end_of_path {
            self.after_path_completed(scope, &inst);
        } else {
            // Read by index: taking a flow changes the engine, the process stays as it is.
            let count = self.process(proc).model_element(e).outgoing.len();
            for n in 0..count {
                let f = self.process(proc).model_element(e).outgoing[n];
                self.take_flow(inst.proc, inst.process_instance_key, scope, f);
            }
        }
        Ok(())
    }

    fn terminate_scope_by_end_event(&mut self, scope: Key) {
        let Some(s) = self.instances.get_mut(&scope) else {
            return;
        };
        if s.children.is_empty() {
            return;
        }
        s.extras_mut().interruption = Some(Interruption::TerminateEndEvent);
        self.terminate_children(scope);
    }

    /// Queues the termination of all children of a scope (Zeebe's batch TERMINATE, which takes
    /// a key). Returns whether the scope had no children.
    pub(crate) fn terminate_children(&mut self, scope: Key) -> bool {
        let empty = self
            .instances
            .get(&scope)
            .is_none_or(|s| s.children.is_empty());
        if !empty {
            let _batch_key = self.new_key();
            self.queue.push_back(FollowUp::TerminateChildren(scope));
        }
        empty
    }

    /// Zeebe's `beforeExecutionPathCompleted`: containers that collect output (multi-instance,
    /// ad-hoc) do so before the child's COMPLETED record.
    fn before_path_completed(&mut self, scope: Key, child: Key) -> Step {
        let Some(s) = self.instances.get(&scope) else {
            return Ok(());
        };
        match s.element_type {
            T::MultiInstanceBody => self.multi_instance_child_completing(scope, child),
            // An event sub-process inside is not one of the ad-hoc activities.
            T::AdHocSubProcess
                if self
                    .instances
                    .get(&child)
                    .is_some_and(|c| c.element_type == T::EventSubProcess) =>
            {
                Ok(())
            }
            T::AdHocSubProcess => self.ad_hoc_child_completing(scope, child),
            _ => Ok(()),
        }
    }

    /// Zeebe's `afterExecutionPathCompleted`: a path inside `scope` ended with `child`.
    pub(crate) fn after_path_completed(&mut self, scope: Key, child: &ElementInstance) {
        let Some(s) = self.instances.get(&scope) else {
            return;
        };
        if s.state != State::Activated {
            return;
        }
        match s.element_type {
            T::MultiInstanceBody => self.multi_instance_child_completed(scope, child),
            T::AdHocSubProcess => self.ad_hoc_child_completed(scope, child),
            _ => {
                if s.children.is_empty() && s.active_flows.is_empty() {
                    self.queue.push_back(FollowUp::Complete(scope));
                }
            }
        }
    }

    fn terminate(&mut self, key: Key) {
        let Some(inst) = self.instances.get(&key) else {
            return;
        };
        if matches!(
            inst.state,
            State::Terminating | State::Completed | State::Terminated
        ) {
            let value = self.process_instance_value(inst);
            let state = inst.state;
            self.reject(
                ValueType::ProcessInstance,
                Intent::ProcessInstance(ProcessInstanceIntent::TerminateElement),
                Some(key),
                RecordValue::ProcessInstance(value),
                Rejection::new(
                    RejectionType::InvalidState,
                    format!("Expected element instance with key '{key}' to be active, but was 'ELEMENT_{state}'."),
                ),
            );
            return;
        }
        if let Err(f) = self.transition(key, State::Terminating) {
            self.create_incident(key, None, f);
            return;
        }
        self.on_terminate(key);
    }

    fn on_terminate(&mut self, key: Key) {
        let Some(inst) = self.instances.get(&key) else {
            return;
        };
        let ty = inst.element_type;
        self.cancel_job_of(key);
        self.unsubscribe_from_events(key);
        self.resolve_incidents_of(key);
        if self.cancel_user_task_of(key) {
            // The termination waits for the user task's canceling listeners.
            return;
        }
        match ty {
            T::Process
            | T::SubProcess
            | T::EventSubProcess
            | T::MultiInstanceBody
            | T::AdHocSubProcess
            | T::AdHocSubProcessInnerInstance => {
                if self.terminate_children(key) {
                    self.finalize_termination(key);
                }
            }
            T::CallActivity => {
                let child = self.instances.get(&key).and_then(|i| i.called_child());
                match child.filter(|c| self.instances.contains_key(c)) {
                    Some(c) => self.queue.push_back(FollowUp::Terminate(c)),
                    None => self.finalize_termination(key),
                }
            }
            _ => self.finalize_termination(key),
        }
    }

    /// Writes TERMINATED and lets the flow scope (or the parent process) react.
    pub(crate) fn finalize_termination(&mut self, key: Key) {
        let inst = match self.end_instance(key, State::Terminated) {
            Ok(i) => i,
            Err(f) => {
                self.create_incident(key, None, f);
                return;
            }
        };
        match inst.flow_scope {
            Some(scope) => {
                // An interrupting boundary event waits for the activity to be gone.
                if let Some(trigger) = inst.triggers().first().cloned()
                    && self
                        .instances
                        .get(&scope)
                        .is_some_and(|s| s.state == State::Activated)
                {
                    self.activate_child(scope, trigger.element, trigger.variables);
                    return;
                }
                self.on_child_terminated(scope, &inst);
            }
            None => {
                if let Some((_, call_activity)) = inst.parent() {
                    self.on_called_process_terminated(call_activity);
                }
            }
        }
    }

    /// A child of `scope` was terminated.
    pub(crate) fn on_child_terminated(&mut self, scope: Key, child: &ElementInstance) {
        let Some(s) = self.instances.get(&scope) else {
            return;
        };
        let no_children = s.children.is_empty();
        match s.state {
            State::Terminating if no_children => {
                self.finalize_termination(scope);
            }
            State::Activated => match s.interruption() {
                Some(Interruption::TerminateEndEvent | Interruption::CompletionCondition) => {
                    if no_children {
                        self.queue.push_back(FollowUp::Complete(scope));
                    }
                }
                Some(Interruption::EventSubProcess) => {
                    if no_children {
                        let triggers = std::mem::take(
                            &mut self
                                .instances
                                .get_mut(&scope)
                                .expect("exists")
                                .extras_mut()
                                .triggers,
                        );
                        if let Some(t) = triggers.into_iter().next() {
                            self.activate_child(scope, t.element, t.variables);
                        }
                    }
                }
                None => {
                    if s.element_type == T::AdHocSubProcess {
                        self.ad_hoc_child_terminated(scope, child);
                    } else if s.element_type == T::MultiInstanceBody {
                        self.multi_instance_child_terminated(scope);
                    }
                }
            },
            _ => {}
        }
    }

    /// Whether a joining gateway in `scope` has what it needs to activate.
    fn join_ready(&self, p: &super::ExecutableProcess, scope: Key, gateway: ElementIdx) -> bool {
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

    fn consume_join_tokens(
        &mut self,
        p: &super::ExecutableProcess,
        scope: Key,
        gateway: ElementIdx,
    ) {
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
    fn has_active_path_to(
        &self,
        p: &super::ExecutableProcess,
        scope: Key,
        gateway: ElementIdx,
    ) -> bool {
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
fn is_join(p: &super::ExecutableProcess, element: ElementIdx) -> bool {
    matches!(
        p.element(element).element_type,
        T::ParallelGateway | T::InclusiveGateway
    ) && p.model_element(element).incoming.len() > 1
}

fn reaches(
    p: &super::ExecutableProcess,
    start: ElementIdx,
    target: ElementIdx,
    taken: &[FlowIdx],
) -> bool {
    let mut visited = vec![false; p.elements.len()];
    let mut queue = std::collections::VecDeque::from([start]);
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

impl Engine {
    /// A terminate-after-element runtime instruction for this element: interrupt the instance.
    fn runtime_instruction_fires(&mut self, inst: &ElementInstance, element: ElementIdx) -> bool {
        if self.terminate_after.is_empty() {
            return false;
        }
        let pi = inst.process_instance_key;
        let element_id = self.process(inst.proc).element(element).id.clone();
        let fires = self
            .terminate_after
            .get(&pi)
            .is_some_and(|ids| ids.contains(&element_id));
        if !fires {
            return false;
        }
        let terminating = self
            .instances
            .get(&pi)
            .is_none_or(|i| i.state == State::Terminating);
        if terminating {
            return false;
        }
        self.event(
            ValueType::RuntimeInstruction,
            super::records::OtherIntent::Interrupted,
            Some(pi),
            RecordValue::RuntimeInstruction {
                proc: inst.proc,
                process_instance_key: pi,
                element_id: element_id.clone(),
            },
        );
        self.queue.push_back(FollowUp::Terminate(pi));
        true
    }

    /// Starts a process instance before `element`: its enclosing sub-processes are activated
    /// first (ACTIVATING, ACTIVATED, their event subscriptions), ad-hoc sub-processes with an
    /// inner instance, then the element itself.
    fn activate_with_start_instruction(&mut self, pi: Key, element: ElementIdx) -> Step {
        let p = self.process(self.instances[&pi].proc).clone();
        let mut chain = Vec::new();
        let mut cur = p.model_element(element).parent;
        while let Some(c) = cur {
            chain.push(c);
            cur = p.model_element(c).parent;
        }
        chain.reverse();
        let mut scope = pi;
        for container in chain {
            // Reuse a container instance created by an earlier start instruction.
            let existing = self.instances[&scope].children.iter().copied().find(|k| {
                self.instances.get(k).is_some_and(|i| {
                    i.element() == Some(container)
                        && i.element_type != T::AdHocSubProcessInnerInstance
                })
            });
            let key = match existing {
                Some(k) => k,
                None => {
                    let ty = p.element(container).element_type;
                    let key = self.create_instance_inline(scope, container, ty);
                    self.subscribe_to_events(key)?;
                    if ty == T::AdHocSubProcess
                        && let Some(i) = self.instances.get_mut(&key)
                    {
                        i.extras_mut().ad_hoc = Some(Box::default());
                    }
                    self.transition(key, State::Activated)?;
                    key
                }
            };
            scope = key;
            if p.element(container).element_type == T::AdHocSubProcess {
                let inner =
                    self.create_instance_inline(scope, container, T::AdHocSubProcessInnerInstance);
                self.transition(inner, State::Activated)?;
                scope = inner;
            }
        }
        self.activate_child(scope, element, None);
        Ok(())
    }

    /// Creates an element instance in ACTIVATING right away (start instructions).
    fn create_instance_inline(&mut self, scope: Key, element: ElementIdx, element_type: T) -> Key {
        let s = &self.instances[&scope];
        let (proc, pi) = (s.proc, s.process_instance_key);
        let key = self.new_key();
        let inst = ElementInstance::new(
            key,
            proc,
            pi,
            ElementRef::Element(element),
            element_type,
            Some(scope),
        );
        let value = self.process_instance_value(&inst);
        self.instances.insert(key, inst);
        if let Some(s) = self.instances.get_mut(&scope) {
            s.children.push(key);
        }
        self.process_instance_event(ProcessInstanceIntent::ElementActivating, key, value);
        key
    }
}
