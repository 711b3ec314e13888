//! Call activities: start the called process (latest version, or as `bindingType` says) with
//! copies of the parent's variables (`propagateAllParentVariables`, default true), and take the
//! child's variables back when it completes (`propagateAllChildVariables`, default true).

use std::sync::Arc;

use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, ErrorType, Key, ProcIdx, SharedVariableDocument, VariableDocument,
};
use crate::runtime::shared_json::SharedJson;
use crate::runtime::state::instances::ElementInstance;
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{Activation, FollowUp, Step, StepFailure};

/// Zeebe's `CallActivityProcessor`.
pub(crate) struct CallActivity;

impl ElementBehavior for CallActivity {
    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_call_activity(key)
    }

    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        engine.complete_call_activity(key)
    }

    /// The called process instance is terminated first; the call activity is terminated when
    /// it is gone.
    fn terminate(&self, engine: &mut Engine, key: Key) {
        let child = engine.instances.get(&key).and_then(|i| i.called_child());
        match child.filter(|c| engine.instances.contains_key(c)) {
            Some(c) => engine.queue.push_back(FollowUp::Terminate(c)),
            None => engine.finalize_termination(key),
        }
    }
}

impl Engine {
    fn resolve_called_process(
        &self,
        caller: ProcIdx,
        process_id: &str,
        binding: Option<&str>,
        version_tag: Option<&str>,
    ) -> Option<ProcIdx> {
        match binding {
            Some("deployment") => {
                let deployment = self.process(caller).deployment_key;
                self.deployed
                    .processes
                    .iter()
                    .position(|p| {
                        p.deployment_key == deployment && &*p.bpmn_process_id == process_id
                    })
                    .map(|i| ProcIdx(i as u32))
            }
            Some("versionTag") => self
                .deployed
                .processes
                .iter()
                .enumerate()
                .rev()
                .find(|(_, p)| {
                    &*p.bpmn_process_id == process_id && p.version_tag.as_deref() == version_tag
                })
                .map(|(i, _)| ProcIdx(i as u32)),
            _ => self.deployed.latest.get(process_id).copied(),
        }
    }

    pub(crate) fn activate_call_activity(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let caller = inst.proc;
        let p = self.process(caller).clone();
        let e = inst.element().expect("call activity");
        let def = p.element(e).call.clone().expect("called element");
        let process_id = match &def.process_id {
            Some(x) => self.eval_string(x, key)?,
            None => String::new(),
        };
        let Some(child_proc) = self.resolve_called_process(
            caller,
            &process_id,
            def.binding_type.as_deref(),
            def.version_tag.as_deref(),
        ) else {
            return Err(StepFailure::new(
                ErrorType::CalledElementError,
                format!(
                    "Expected process with BPMN process id '{process_id}' to be deployed, but not found."
                ),
            ));
        };
        if self.process(child_proc).scope.none_start.is_none() {
            return Err(StepFailure::new(
                ErrorType::CalledElementError,
                format!(
                    "Expected process with BPMN process id '{process_id}' to have a none start event, but not found."
                ),
            ));
        }
        self.subscribe_to_events(key)?;
        self.transition(key, State::Activated)?;
        let child = self.new_key();
        let vars: VariableDocument = if def.propagate_all_parent_variables {
            self.visible_variables(key)
        } else {
            self.instances[&key]
                .vars
                .iter()
                .map(|v| (v.name.to_string(), v.value.to_json()))
                .collect()
        };
        for (name, value) in vars {
            self.set_pending_local(child, child_proc, child, &name, SharedJson::new(value));
        }
        let pi = self.instances[&key].process_instance_key;
        if let Some(i) = self.instances.get_mut(&key) {
            i.extras_mut().called_child = Some(child);
        }
        self.queue.push_back(FollowUp::Activate(Activation {
            key: Some(child),
            proc: child_proc,
            process_instance_key: child,
            flow_scope: None,
            element: None,
            element_type: BpmnElementType::Process,
            via_flow: None,
            variables: None,
            parent: Some((pi, key)),
            loop_counter: 0,
        }));
        Ok(())
    }

    /// The called process completed: its variables become the call activity's completion
    /// variables.
    pub(crate) fn on_called_process_completed(
        &mut self,
        call_activity: Key,
        child: &ElementInstance,
    ) {
        let vars: SharedVariableDocument = child
            .vars
            .iter()
            .map(|v| (v.name.to_string(), v.value.clone()))
            .collect();
        if let Some(i) = self.instances.get_mut(&call_activity) {
            i.extras_mut().called_child = None;
            i.completion_vars = Some(Arc::new(vars));
            if i.state == State::Activated {
                self.queue.push_back(FollowUp::Complete(call_activity));
            }
        }
    }

    pub(crate) fn on_called_process_terminated(&mut self, call_activity: Key) {
        let terminating = self.instances.get_mut(&call_activity).map(|i| {
            i.extras_mut().called_child = None;
            i.state == State::Terminating
        });
        if terminating == Some(true) {
            self.finalize_termination(call_activity);
        }
    }

    pub(crate) fn complete_call_activity(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("call activity");
        let el = p.element(e);
        let def = el.call.as_ref().expect("called element");
        if !def.propagate_all_child_variables
            && el.output_mappings.is_empty()
            && let Some(i) = self.instances.get_mut(&key)
        {
            i.completion_vars = None;
        }
        self.unsubscribe_from_events(key);
        self.apply_output_mappings(key, &el.output_mappings, false)
    }
}
