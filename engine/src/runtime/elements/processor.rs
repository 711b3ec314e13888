//! The processing of follow-up commands: activate, complete and terminate element instances,
//! take sequence flows, and let containers react when a child path ends. Per-family behaviour
//! (tasks, gateways, events, sub-processes, ...) lives in the sibling modules; this module holds
//! the lifecycle skeleton every element goes through.

use std::sync::Arc;

use crate::model::{ElementIdx, FlowIdx};
use crate::runtime::compile::definitions::{EventDef, ExecutableElement, ListenerDef};
use crate::runtime::elements::ad_hoc::{AdHocInnerInstance, AdHocSubProcess};
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::elements::call_activity::CallActivity;
use crate::runtime::elements::event::{
    BoundaryEvent, EndEvent, IntermediateCatchEvent, IntermediateThrowEvent, StartEvent,
};
use crate::runtime::elements::gateway::{EventBasedGateway, ForkingGateway, is_join};
use crate::runtime::elements::multi_instance::MultiInstanceBody;
use crate::runtime::elements::process::Process;
use crate::runtime::elements::sub_process::{EventSubProcess, SubProcess};
use crate::runtime::elements::task::{
    BusinessRuleTask, JobWorkerTask, PassThroughTask, ReceiveTask, ScriptTask,
};
use crate::runtime::elements::user_task::UserTask;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType as T, BpmnEventType, ElementRef, Intent, Key, ListenerEventType, ProcIdx,
    ProcessInstanceIntent, ProcessInstanceValue, RecordValue, Rejection, RejectionType, ValueType,
    VariableDocument,
};
use crate::runtime::state::instances::{ElementInstance, Interruption, ProcessInstanceSummary};
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{Activation, FollowUp, Step};

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
            FollowUp::TriggerTimer(k) => self.fire_held_timer(k),
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
        let element_type = p.activation_type(element);
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
            let element_type = p.activation_type(target);
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
            if !self.join(&a, scope, element) {
                return;
            }
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
        let vars = if self.pending.variables.is_empty() {
            Default::default()
        } else {
            self.pending.variables.remove(&key).unwrap_or_default()
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
            self.instances_created += 1;
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

    pub(crate) fn activation_value(&self, a: &Activation) -> ProcessInstanceValue {
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

    /// The compiled element of an instance of a flow node.
    pub(crate) fn element_def(&self, key: Key) -> &ExecutableElement {
        let i = &self.instances[&key];
        let e = i.element().expect("flow nodes are elements");
        self.process(i.proc).element(e)
    }

    /// The event definition of an instance's element.
    pub(crate) fn event_of(&self, key: Key) -> &EventDef {
        &self.element_def(key).event
    }

    /// ACTIVATED and completed at once: an element that does not wait.
    pub(crate) fn pass_through(&mut self, key: Key) -> Step {
        self.transition(key, State::Activated)?;
        self.queue.push_back(FollowUp::Complete(key));
        Ok(())
    }

    /// A container terminates its children first; TERMINATED once it has none.
    pub(crate) fn terminate_container(&mut self, key: Key) {
        if self.terminate_children(key) {
            self.finalize_termination(key);
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
        let (proc, element, behavior) = (i.proc, i.element(), behavior_of(i.element_type));
        behavior.before_input_mappings(self, key);
        if let Some(e) = element
            && behavior.runs_element_steps()
            && !self.process(proc).element(e).input_mappings.is_empty()
        {
            let p = self.process(proc).clone();
            self.apply_input_mappings(key, &p.element(e).input_mappings)?;
        }
        self.start_listeners_or_finalize(key)
    }

    /// The start (or end) execution listener at `index` of an instance's element, or of the
    /// process for a process instance.
    fn listener_at(&self, key: Key, start: bool, index: usize) -> Option<&ListenerDef> {
        let i = self.instances.get(&key)?;
        if !behavior_of(i.element_type).runs_element_steps() {
            return None;
        }
        let p = self.process(i.proc);
        let listeners = match (i.element(), start) {
            (Some(e), true) => &p.element(e).start_listeners,
            (Some(e), false) => &p.element(e).end_listeners,
            (None, true) => &p.start_listeners,
            (None, false) => &p.end_listeners,
        };
        listeners.get(index)
    }

    /// The listener that follows the completed ones (Zeebe's execution listener index).
    fn next_listener(&self, key: Key, start: bool) -> Option<&ListenerDef> {
        let index = self.instances.get(&key)?.listener_index as usize;
        self.listener_at(key, start, index)
    }

    /// After the input mappings: the first start listener, or the finalization. Zeebe's
    /// `processElementWithListeners` always begins with the first listener, also when an
    /// incident's resolution processes the activation again; only the resolution of an
    /// EXTRACT_VALUE_ERROR resets the index that picks the listeners after it.
    fn start_listeners_or_finalize(&mut self, key: Key) -> Step {
        if let Some(l) = self.listener_at(key, true, 0).cloned() {
            return self.create_listener_job(key, &l, ListenerEventType::Start);
        }
        self.finalize_activation(key)
    }

    /// A start listener completed: the next one, or the finalization.
    pub(crate) fn after_on_activate(&mut self, key: Key) -> Step {
        if let Some(l) = self.next_listener(key, true).cloned() {
            return self.create_listener_job(key, &l, ListenerEventType::Start);
        }
        self.finalize_activation(key)
    }

    /// After the input mappings and start listeners: the element family's activation.
    pub(crate) fn finalize_activation(&mut self, key: Key) -> Step {
        let Some(i) = self.instances.get(&key) else {
            return Ok(());
        };
        behavior_of(i.element_type).activate(self, key)
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
        let Some(i) = self.instances.get(&key) else {
            return Ok(());
        };
        behavior_of(i.element_type).complete(self, key)?;
        if let Some(l) = self.listener_at(key, false, 0).cloned() {
            return self.create_listener_job(key, &l, ListenerEventType::End);
        }
        self.finalize_completion(key)
    }

    /// The element's output mappings; `propagate_locals`: the instance's local variables
    /// propagate too (events that carry their variables locally). A handle on the process is
    /// taken only when there are mappings.
    pub(crate) fn apply_element_output_mappings(
        &mut self,
        key: Key,
        propagate_locals: bool,
    ) -> Step {
        let Some((proc, Some(e), _)) = self.element_of(key) else {
            return Ok(());
        };
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

    /// An end listener completed: the next one, or the finalization.
    pub(crate) fn after_on_complete(&mut self, key: Key) -> Step {
        if let Some(l) = self.next_listener(key, false).cloned() {
            return self.create_listener_job(key, &l, ListenerEventType::End);
        }
        self.finalize_completion(key)
    }

    /// After the end listeners: COMPLETED, and the flow goes on. The process instance completes
    /// into its parent; a flow node as its family says.
    pub(crate) fn finalize_completion(&mut self, key: Key) -> Step {
        let Some(i) = self.instances.get(&key) else {
            return Ok(());
        };
        match i.element() {
            None => self.finalize_process_completion(key),
            Some(_) => self.finalize_flow_node_completion(behavior_of(i.element_type), key),
        }
    }

    /// Zeebe's `finalizeCompletion` of a flow node: where the path ends the container collects
    /// first, then COMPLETED (a compensable activity leaves its subscription), then a
    /// terminate-after runtime instruction may stop the instance, else the family decides where
    /// the flow goes. The inner instances of a multi-instance activity and of an ad-hoc
    /// sub-process end a path of their container: the outgoing flows belong to the container.
    fn finalize_flow_node_completion(&mut self, behavior: &dyn ElementBehavior, key: Key) -> Step {
        let (inner, scope, has_compensation_handler) = {
            let i = &self.instances[&key];
            let e = i.element().expect("flow nodes are elements");
            (
                i.loop_counter > 0 || i.element_type == T::AdHocSubProcessInnerInstance,
                i.flow_scope,
                self.process(i.proc)
                    .element(e)
                    .compensation_handler
                    .is_some(),
            )
        };
        let ends_path = inner || behavior.ends_path(self, key);
        if ends_path && let Some(scope) = scope {
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
        if inner {
            self.after_path_completed(scope, &inst);
            return Ok(());
        }
        if self.runtime_instruction_fires(&inst) {
            return Ok(());
        }
        behavior.leave(self, &inst, scope, ends_path);
        Ok(())
    }

    /// Whether the element of an instance has no outgoing sequence flow.
    pub(crate) fn has_no_outgoing_flow(&self, key: Key) -> bool {
        let i = &self.instances[&key];
        let e = i.element().expect("flow nodes are elements");
        self.process(i.proc).model_element(e).outgoing.is_empty()
    }

    /// Takes every outgoing sequence flow of a completed flow node, or, where its path ends,
    /// lets the flow scope react.
    pub(crate) fn leave_by_outgoing_flows(
        &mut self,
        completed: &ElementInstance,
        scope: Key,
        ends_path: bool,
    ) {
        if ends_path {
            self.after_path_completed(scope, completed);
            return;
        }
        let (proc, e) = (
            completed.proc,
            completed.element().expect("flow nodes are elements"),
        );
        // Read by index: taking a flow changes the engine, the process stays as it is.
        let count = self.process(proc).model_element(e).outgoing.len();
        for n in 0..count {
            let f = self.process(proc).model_element(e).outgoing[n];
            self.take_flow(proc, completed.process_instance_key, scope, f);
        }
    }

    /// Completes a container once nothing inside it is active any more.
    pub(crate) fn complete_when_idle(&mut self, scope: Key) {
        if self
            .instances
            .get(&scope)
            .is_some_and(|s| s.children.is_empty() && s.active_flows.is_empty())
        {
            self.queue.push_back(FollowUp::Complete(scope));
        }
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
        behavior_of(s.element_type).child_completing(self, scope, child)
    }

    /// Zeebe's `afterExecutionPathCompleted`: a path inside `scope` ended with `child`.
    pub(crate) fn after_path_completed(&mut self, scope: Key, child: &ElementInstance) {
        let Some(s) = self.instances.get(&scope) else {
            return;
        };
        if s.state != State::Activated {
            return;
        }
        behavior_of(s.element_type).child_completed(self, scope, child);
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
        let behavior = behavior_of(inst.element_type);
        self.cancel_job_of(key);
        self.unsubscribe_from_events(key);
        self.resolve_incidents_of(key);
        behavior.terminate(self, key);
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
                None => behavior_of(s.element_type).child_terminated(self, scope, child),
            },
            _ => {}
        }
    }
}

/// The behaviour of an element type's family.
fn behavior_of(element_type: T) -> &'static dyn ElementBehavior {
    match element_type {
        T::Process => &Process,
        T::SubProcess => &SubProcess,
        T::EventSubProcess => &EventSubProcess,
        T::MultiInstanceBody => &MultiInstanceBody,
        T::CallActivity => &CallActivity,
        T::AdHocSubProcess => &AdHocSubProcess,
        T::AdHocSubProcessInnerInstance => &AdHocInnerInstance,
        T::ServiceTask | T::SendTask => &JobWorkerTask,
        T::ScriptTask => &ScriptTask,
        T::BusinessRuleTask => &BusinessRuleTask,
        T::ReceiveTask => &ReceiveTask,
        T::Task | T::ManualTask => &PassThroughTask,
        T::UserTask => &UserTask,
        T::ExclusiveGateway | T::InclusiveGateway | T::ParallelGateway => &ForkingGateway,
        T::EventBasedGateway => &EventBasedGateway,
        T::StartEvent => &StartEvent,
        T::BoundaryEvent => &BoundaryEvent,
        T::IntermediateThrowEvent => &IntermediateThrowEvent,
        T::EndEvent => &EndEvent,
        // Sequence flows and unspecified types are never instantiated.
        T::IntermediateCatchEvent | T::SequenceFlow | T::Unspecified => &IntermediateCatchEvent,
    }
}
