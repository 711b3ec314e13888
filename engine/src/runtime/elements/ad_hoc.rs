//! Ad-hoc sub-processes, in both modes: BPMN (`activeElementsCollection`, `completionCondition`,
//! `cancelRemainingInstances`) and job worker (the AI agent: one `AD_HOC_SUB_PROCESS` job at a
//! time, completed with a result that activates elements, fulfils the completion condition or
//! cancels the remaining instances). Each activation runs in its own inner instance
//! (`<id>#innerInstance`); each completed direct child appends `outputElement` to the
//! `outputCollection`.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::model::ElementIdx;
use crate::runtime::command::AdHocJobResult;
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType as T, ElementRef, ErrorType, JobKind, Key, ListenerEventType, OtherIntent,
    RecordValue, Rejection, RejectionType, SharedVariableDocument, ValueType,
};
use crate::runtime::shared_json::{JsonRef, SharedJson};
use crate::runtime::state::instances::{AdHocState, ElementInstance, Interruption};
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{Activation, FollowUp, Step, StepFailure};

/// Zeebe's `AdHocSubProcessProcessor`.
pub(crate) struct AdHocSubProcess;

impl ElementBehavior for AdHocSubProcess {
    fn before_input_mappings(&self, engine: &mut Engine, key: Key) {
        engine.ad_hoc_before_input_mappings(key);
    }

    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_ad_hoc(key)
    }

    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        engine.complete_ad_hoc(key)
    }

    fn terminate(&self, engine: &mut Engine, key: Key) {
        engine.terminate_container(key);
    }

    /// Every path that ends in the ad-hoc sub-process is collected, an event sub-process's
    /// too: its result reaches the output collection (`{id: null, name: null, content}` for
    /// the AI agent) and the job-worker's next job (camunda/camunda PR #36867).
    fn child_completing(&self, engine: &mut Engine, scope: Key, child: Key) -> Step {
        engine.ad_hoc_child_completing(scope, child)
    }

    fn child_completed(&self, engine: &mut Engine, scope: Key, child: &ElementInstance) {
        engine.ad_hoc_child_completed(scope, child);
    }

    fn child_terminated(&self, engine: &mut Engine, scope: Key, child: &ElementInstance) {
        engine.ad_hoc_child_terminated(scope, child);
    }
}

/// Zeebe's `AdHocSubProcessInnerInstanceProcessor`: one per activation, holding the activated
/// element and the variables it was activated with.
pub(crate) struct AdHocInnerInstance;

impl ElementBehavior for AdHocInnerInstance {
    fn runs_element_steps(&self) -> bool {
        false
    }

    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_inner_instance(key)
    }

    fn complete(&self, _engine: &mut Engine, _key: Key) -> Step {
        Ok(())
    }

    fn terminate(&self, engine: &mut Engine, key: Key) {
        engine.terminate_container(key);
    }
}

/// The suffix Zeebe gives inner instances of an ad-hoc sub-process.
pub const INNER_INSTANCE_SUFFIX: &str = "#innerInstance";

impl Engine {
    /// Before the input mappings: `adHocSubProcessElements` and the empty output collection.
    pub(crate) fn ad_hoc_before_input_mappings(&mut self, key: Key) {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("ad-hoc");
        let def = p.element(e).ad_hoc.as_ref().expect("ad-hoc");
        self.set_local(key, "adHocSubProcessElements", def.elements_json.clone());
        if let Some(oc) = &def.output_collection {
            self.set_local(key, oc, SharedJson::new(Json::Array(Vec::new())));
        }
    }

    pub(crate) fn activate_ad_hoc(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("ad-hoc");
        let el = p.element(e);
        let def = el.ad_hoc.as_deref().expect("ad-hoc");
        if let Some(job) = &el.job {
            let (job_type, retries) = self.eval_job_def(key, &job.job_type, &job.retries)?;
            self.subscribe_to_events(key)?;
            self.transition(key, State::Activated)?;
            if let Some(i) = self.instances.get_mut(&key) {
                i.extras_mut().ad_hoc = Some(Box::default());
            }
            let headers = job.headers.clone();
            let job_key = self.create_job(
                key,
                JobKind::AdHocSubProcess,
                ListenerEventType::Unspecified,
                job_type,
                retries,
                headers,
            );
            if let Some(s) = self.instances.get_mut(&key).and_then(|i| i.ad_hoc_mut()) {
                s.job = Some(job_key);
            }
            return Ok(());
        }
        // Zeebe's `readActivateElementsCollection`: a list of strings (`evaluateArrayOfStringsExpression`),
        // its failures prefixed; no expression activates nothing.
        let ids: Vec<String> = match &def.active_elements_collection {
            None => Vec::new(),
            Some(x) => {
                let (value, warnings) = self.eval_warn(x, key, None)?;
                crate::runtime::step::array_of_strings(x, value, &warnings).map_err(|f| {
                    StepFailure::new(
                        f.error_type,
                        format!("Failed to activate ad-hoc elements. {}", f.message),
                    )
                })?
            }
        };
        let elements = self
            .resolve_ad_hoc_elements(key, &ids)
            .map_err(|m| StepFailure::new(ErrorType::ExtractValueError, m))?;
        self.subscribe_to_events(key)?;
        self.transition(key, State::Activated)?;
        if let Some(i) = self.instances.get_mut(&key) {
            i.extras_mut().ad_hoc = Some(Box::default());
        }
        for el in elements {
            self.activate_in_inner_instance(key, el, SharedVariableDocument::new());
        }
        Ok(())
    }

    fn resolve_ad_hoc_elements(&self, key: Key, ids: &[String]) -> Result<Vec<ElementIdx>, String> {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc);
        let e = inst.element().expect("ad-hoc");
        let def = p.element(e).ad_hoc.as_ref().expect("ad-hoc");
        let mut found = Vec::new();
        let mut missing = Vec::new();
        for id in ids {
            match def
                .activatable
                .iter()
                .find(|c| &*p.element(**c).id == id.as_str())
            {
                Some(c) => found.push(*c),
                None => missing.push(id.clone()),
            }
        }
        if missing.is_empty() {
            Ok(found)
        } else {
            Err(format!(
                "Expected to activate activities for ad-hoc sub-process with key '{key}', but the given elements [{}] do not exist.",
                missing.join(", ")
            ))
        }
    }

    /// Creates an inner instance under the ad-hoc sub-process with these local variables and
    /// activates the element inside it.
    fn activate_in_inner_instance(
        &mut self,
        ahsp: Key,
        element: ElementIdx,
        variables: SharedVariableDocument,
    ) {
        let inst = &self.instances[&ahsp];
        let (proc, pi) = (inst.proc, inst.process_instance_key);
        let p = self.process(proc).clone();
        let e = inst.element().expect("ad-hoc");
        if let Some(name) = p
            .element(e)
            .ad_hoc
            .as_ref()
            .and_then(|d| d.output_element_variable.clone())
        {
            self.set_local(ahsp, &name, SharedJson::new(Json::Null));
        }
        let inner = self.new_key();
        for (name, value) in variables {
            self.set_pending_local_arc(inner, proc, pi, Arc::from(name), value);
        }
        self.pending.inner_elements.insert(inner, element);
        self.queue.push_back(FollowUp::Activate(Activation {
            key: Some(inner),
            proc,
            process_instance_key: pi,
            flow_scope: Some(ahsp),
            element: Some(e),
            element_type: T::AdHocSubProcessInnerInstance,
            via_flow: None,
            variables: None,
            parent: None,
            loop_counter: 0,
        }));
    }

    /// The inner instance itself: activated, then the element inside it.
    pub(crate) fn activate_inner_instance(&mut self, key: Key) -> Step {
        self.transition(key, State::Activated)?;
        if let Some(element) = self.pending.inner_elements.remove(&key) {
            self.activate_child(key, element, None);
        }
        Ok(())
    }

    /// Before a direct child's COMPLETED: append the output element, evaluate the completion
    /// condition (BPMN mode).
    pub(crate) fn ad_hoc_child_completing(&mut self, ahsp: Key, child: Key) -> Step {
        let inst = &self.instances[&ahsp];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("ad-hoc");
        let el = p.element(e);
        let def = el.ad_hoc.as_deref().expect("ad-hoc");
        if let (Some(oc), Some(oe)) = (&def.output_collection, &def.output_element) {
            let value = self.eval_shared(oe, child, None)?;
            let collection = self.instances[&ahsp].vars.get(oc).map(|v| v.value.view());
            match collection.and_then(|c| c.items()) {
                // The new collection shares the earlier results (records keep the old one).
                Some(items) => {
                    let mut shared = Vec::with_capacity(items.len() + 1);
                    shared.extend(items.map(JsonRef::to_shared));
                    shared.push(value);
                    self.set_local(ahsp, oc, SharedJson::array(shared));
                }
                None if collection.is_some() => {
                    let other = self.instances[&ahsp]
                        .vars
                        .get(oc)
                        .map(|v| v.value.to_json());
                    return Err(StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!(
                            "The output collection has the wrong type. Expected ARRAY but was {}.",
                            crate::runtime::step::json_type_name(&other.unwrap_or_default())
                        ),
                    ));
                }
                None => {
                    self.set_local(ahsp, oc, SharedJson::array(vec![value]));
                }
            }
        }
        if el.job.is_none()
            && let Some(cond) = &def.completion_condition
        {
            let fulfilled = self.eval_bool(cond, ahsp).map_err(|f| {
                StepFailure::new(
                    f.error_type,
                    format!("Failed to evaluate completion condition. {}", f.message),
                )
            })?;
            if let Some(s) = self.instances.get_mut(&ahsp).and_then(|i| i.ad_hoc_mut()) {
                s.fulfilled = fulfilled;
            }
        }
        Ok(())
    }

    /// After a direct child completed.
    pub(crate) fn ad_hoc_child_completed(&mut self, ahsp: Key, _child: &ElementInstance) {
        let inst = &self.instances[&ahsp];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("ad-hoc");
        let el = p.element(e);
        let def = el.ad_hoc.as_deref().expect("ad-hoc");
        let state = self.instances[&ahsp].ad_hoc().cloned().unwrap_or_default();
        let idle = self.instances[&ahsp].children.is_empty()
            && self.instances[&ahsp].active_flows.is_empty();
        if let Some(job) = &el.job {
            // Job-worker mode: one job at a time; a new job after each completion.
            if let Some(open) = state.job {
                self.cancel_ad_hoc_job(ahsp, open);
            }
            if state.fulfilled {
                if idle {
                    self.queue.push_back(FollowUp::Complete(ahsp));
                }
                return;
            }
            match self.eval_job_def(ahsp, &job.job_type, &job.retries) {
                Ok((job_type, retries)) => {
                    let job_key = self.create_job(
                        ahsp,
                        JobKind::AdHocSubProcess,
                        ListenerEventType::Unspecified,
                        job_type,
                        retries,
                        job.headers.clone(),
                    );
                    if let Some(s) = self.instances.get_mut(&ahsp).and_then(|i| i.ad_hoc_mut()) {
                        s.job = Some(job_key);
                    }
                }
                Err(f) => self.create_incident(ahsp, None, f),
            }
            return;
        }
        match &def.completion_condition {
            None => {
                if idle {
                    self.queue.push_back(FollowUp::Complete(ahsp));
                }
            }
            Some(_) if state.fulfilled => {
                if def.cancel_remaining_instances {
                    if let Some(i) = self.instances.get_mut(&ahsp) {
                        i.extras_mut().interruption = Some(Interruption::CompletionCondition);
                    }
                    if self.terminate_children(ahsp) {
                        self.queue.push_back(FollowUp::Complete(ahsp));
                    }
                } else if idle {
                    self.queue.push_back(FollowUp::Complete(ahsp));
                }
            }
            Some(_) => {}
        }
    }

    /// A direct child was terminated on its own: complete when nothing is left.
    pub(crate) fn ad_hoc_child_terminated(&mut self, ahsp: Key, _child: &ElementInstance) {
        let Some(s) = self.instances.get(&ahsp) else {
            return;
        };
        if s.children.is_empty() && s.active_flows.is_empty() {
            self.queue.push_back(FollowUp::Complete(ahsp));
        }
    }

    fn cancel_ad_hoc_job(&mut self, ahsp: Key, job: Key) {
        if let Some(s) = self.instances.get_mut(&ahsp).and_then(|i| i.ad_hoc_mut()) {
            s.job = None;
        }
        if self.jobs.contains_key(&job) {
            let value = Self::job_record(&self.jobs[&job], None);
            self.event(ValueType::Job, OtherIntent::Canceled, Some(job), value);
            self.jobs.remove(&job);
        }
        if let Some(i) = self.instances.get_mut(&ahsp)
            && i.job == Some(job)
        {
            i.job = None;
        }
    }

    /// The checks Zeebe runs on an ad-hoc job result, in its order.
    pub(crate) fn check_ad_hoc_result(
        &self,
        job_key: Key,
        r: &AdHocJobResult,
    ) -> Result<(), Rejection> {
        let job = &self.jobs[&job_key];
        let ahsp = job.element_instance_key;
        if !r.activate_elements.is_empty() {
            let p = self.process(job.proc);
            let def = match job.element {
                ElementRef::Element(e) => p.element(e).ad_hoc.as_ref(),
                _ => None,
            };
            let missing: Vec<String> = r
                .activate_elements
                .iter()
                .filter(|(id, _)| {
                    !def.is_some_and(|d| {
                        d.activatable
                            .iter()
                            .any(|c| &*p.element(*c).id == id.as_str())
                    })
                })
                .map(|(id, _)| id.clone())
                .collect();
            if !missing.is_empty() {
                return Err(Rejection::new(
                    RejectionType::NotFound,
                    format!(
                        "Expected to activate activities for ad-hoc sub-process with key '{ahsp}', but the given elements [{}] do not exist.",
                        missing.join(", ")
                    ),
                ));
            }
        }
        if self
            .instances
            .get(&ahsp)
            .is_none_or(|i| i.state != State::Activated)
        {
            return Err(Rejection::new(
                RejectionType::InvalidState,
                format!(
                    "Expected to complete ad-hoc sub-process job, but the ad-hoc sub-process instance is not active (job key '{job_key}', type '{}', processInstanceKey '{}')",
                    job.job_type, job.process_instance_key
                ),
            ));
        }
        if r.completion_condition_fulfilled && !r.activate_elements.is_empty() {
            return Err(Rejection::new(
                RejectionType::InvalidArgument,
                format!(
                    "Expected to complete ad-hoc sub-process job, but the job result contains elements to be activated while the completion condition is fulfilled (job key '{job_key}'). When the completion condition is fulfilled, no further element activations are allowed. Either remove the elements to be activated from the job result, or set the completion condition to not fulfilled."
                ),
            ));
        }
        Ok(())
    }

    /// Applies an accepted ad-hoc job result.
    pub(crate) fn complete_ad_hoc_job(
        &mut self,
        ahsp: Key,
        variables: &SharedVariableDocument,
        r: AdHocJobResult,
    ) {
        if let Some(s) = self.instances.get_mut(&ahsp).and_then(|i| i.ad_hoc_mut()) {
            s.job = None;
        }
        self.merge_propagating_shared(ahsp, variables);
        if !r.activate_elements.is_empty() {
            let existing: Vec<Key> = self.instances[&ahsp].children.clone();
            let ids: Vec<String> = r
                .activate_elements
                .iter()
                .map(|(id, _)| id.clone())
                .collect();
            let instruction_key = self.new_key();
            self.event(
                ValueType::AdHocSubProcessInstruction,
                OtherIntent::Activated,
                Some(instruction_key),
                RecordValue::AdHocInstruction {
                    ad_hoc_instance_key: ahsp,
                    elements: Arc::new(ids.clone()),
                    cancel_remaining_instances: r.cancel_remaining_instances,
                    completion_condition_fulfilled: false,
                },
            );
            let elements = self.resolve_ad_hoc_elements(ahsp, &ids).unwrap_or_default();
            for (el, (_, vars)) in elements.into_iter().zip(r.activate_elements) {
                self.activate_in_inner_instance(ahsp, el, vars);
            }
            if r.cancel_remaining_instances {
                let mut existing = existing;
                existing.sort_unstable();
                for c in existing {
                    self.queue.push_back(FollowUp::Terminate(c));
                }
            }
        }
        if r.completion_condition_fulfilled {
            if let Some(s) = self.instances.get_mut(&ahsp).and_then(|i| i.ad_hoc_mut()) {
                s.fulfilled = true;
            }
            let instruction_key = self.new_key();
            self.event(
                ValueType::AdHocSubProcessInstruction,
                OtherIntent::Completed,
                Some(instruction_key),
                RecordValue::AdHocInstruction {
                    ad_hoc_instance_key: ahsp,
                    elements: Arc::new(Vec::new()),
                    cancel_remaining_instances: r.cancel_remaining_instances,
                    completion_condition_fulfilled: true,
                },
            );
            let idle = self.instances[&ahsp].children.is_empty()
                && self.instances[&ahsp].active_flows.is_empty();
            if r.cancel_remaining_instances && !idle {
                if let Some(i) = self.instances.get_mut(&ahsp) {
                    i.extras_mut().interruption = Some(Interruption::CompletionCondition);
                }
                self.terminate_children(ahsp);
            } else if idle {
                self.queue.push_back(FollowUp::Complete(ahsp));
            }
        }
    }

    /// Completing: the output collection goes to the flow scope, then the output mappings.
    pub(crate) fn complete_ad_hoc(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("ad-hoc");
        let el = p.element(e);
        if let Some(s) = self.instances[&key].ad_hoc().and_then(|s| s.job) {
            self.cancel_ad_hoc_job(key, s);
        }
        self.unsubscribe_from_events(key);
        if let Some(oc) = el.ad_hoc.as_ref().and_then(|d| d.output_collection.clone())
            && let Some(v) = self.instances[&key].vars.get(&oc).map(|v| v.value.clone())
        {
            let scope = self.instances[&key].flow_scope.unwrap_or(key);
            self.merge_propagating_arcs(scope, [(oc, v)]);
        }
        self.apply_output_mappings(key, &el.output_mappings, false)
    }

    /// Retrying an incident raised while the sub-process was active re-creates its job.
    pub(crate) fn retry_activated_step(&mut self, key: Key) {
        let Some(inst) = self.instances.get(&key) else {
            return;
        };
        if inst.element_type != T::AdHocSubProcess
            || !matches!(inst.element_ref, ElementRef::Element(_))
        {
            return;
        }
        let state = inst.ad_hoc().cloned().unwrap_or_else(AdHocState::default);
        if state.job.is_none() {
            let child = inst.clone();
            self.ad_hoc_child_completed(key, &child);
        }
    }
}
