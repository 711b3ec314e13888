//! Multi-instance activities: the body evaluates the input collection, creates inner instances
//! (all at once, or one after the other), collects the output collection, evaluates the
//! completion condition with the `numberOf*` variables, and propagates the output collection
//! when it completes.

use serde_json::Value as Json;

use crate::runtime::compile::expr::Expr;
use crate::runtime::elements::behavior::ElementBehavior;
use crate::runtime::engine::Engine;
use crate::runtime::records::{ErrorType, Key, VariableDocument};
use crate::runtime::shared_json::SharedJson;
use crate::runtime::state::instances::{ElementInstance, Interruption, MiState};
use crate::runtime::state::lifecycle::State;
use crate::runtime::step::{Activation, FollowUp, Step, StepFailure};

/// Zeebe's `MultiInstanceBodyProcessor`: the body stands for the activity (its boundary
/// events, its place in the flow); each inner instance runs the activity itself.
pub(crate) struct MultiInstanceBody;

impl ElementBehavior for MultiInstanceBody {
    fn runs_element_steps(&self) -> bool {
        false
    }

    fn activate(&self, engine: &mut Engine, key: Key) -> Step {
        engine.activate_multi_instance_body(key)
    }

    fn complete(&self, engine: &mut Engine, key: Key) -> Step {
        engine.complete_multi_instance_body(key)
    }

    fn terminate(&self, engine: &mut Engine, key: Key) {
        engine.terminate_container(key);
    }

    fn child_completing(&self, engine: &mut Engine, scope: Key, child: Key) -> Step {
        engine.multi_instance_child_completing(scope, child)
    }

    fn child_completed(&self, engine: &mut Engine, scope: Key, child: &ElementInstance) {
        engine.multi_instance_child_completed(scope, child);
    }

    fn child_terminated(&self, engine: &mut Engine, scope: Key, _child: &ElementInstance) {
        engine.multi_instance_child_terminated(scope);
    }
}

impl Engine {
    pub(crate) fn activate_multi_instance_body(&mut self, key: Key) -> Step {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("body");
        let mi = p.element(e).multi_instance.clone().expect("multi-instance");
        let items = match &mi.input_collection {
            Some(c) => self.eval_list(c, key)?,
            None => {
                return Err(StepFailure::new(
                    ErrorType::ExtractValueError,
                    format!(
                        "Expected multi-instance element '{}' to have an input collection",
                        p.element(e).id
                    ),
                ));
            }
        };
        if let Some(oc) = &mi.output_collection {
            self.set_local(
                key,
                oc,
                SharedJson::new(Json::Array(vec![Json::Null; items.len()])),
            );
        }
        self.subscribe_to_events(key)?;
        self.transition(key, State::Activated)?;
        if let Some(i) = self.instances.get_mut(&key) {
            i.extras_mut().mi = Some(Box::new(MiState {
                count: items.len(),
                ..Default::default()
            }));
        }
        if items.is_empty() {
            self.queue.push_back(FollowUp::Complete(key));
            return Ok(());
        }
        let n = if mi.sequential { 1 } else { items.len() };
        for item in items.into_iter().take(n) {
            self.create_inner_instance(key, item);
        }
        Ok(())
    }

    fn create_inner_instance(&mut self, body: Key, item: Json) {
        let inst = &self.instances[&body];
        let (proc, pi) = (inst.proc, inst.process_instance_key);
        let p = self.process(proc).clone();
        let e = inst.element().expect("body");
        let mi = p.element(e).multi_instance.clone().expect("multi-instance");
        let loop_counter = {
            let state = self
                .instances
                .get_mut(&body)
                .and_then(|i| i.mi_mut())
                .expect("mi state");
            state.created += 1;
            state.created as u32
        };
        let child = self.new_key();
        if let Some(name) = &mi.input_element {
            self.set_pending_local(child, proc, pi, name, SharedJson::new(item));
        }
        self.set_pending_local(
            child,
            proc,
            pi,
            "loopCounter",
            SharedJson::new(Json::from(loop_counter)),
        );
        // A plain-variable output element starts as a local null, so a result of that name stays
        // in the inner instance.
        if let Some(Expr::Feel(f)) = &mi.output_element {
            let name = f.source.trim();
            let plain = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            if plain && Some(name) != mi.input_element.as_deref() && name != "loopCounter" {
                self.set_pending_local(child, proc, pi, name, SharedJson::new(Json::Null));
            }
        }
        let element_type = p.element(e).element_type;
        self.queue.push_back(FollowUp::Activate(Activation {
            key: Some(child),
            proc,
            process_instance_key: pi,
            flow_scope: Some(body),
            element: Some(e),
            element_type,
            via_flow: None,
            variables: None,
            parent: None,
            loop_counter,
        }));
    }

    /// Before an inner instance's COMPLETED: write its output element into the collection and
    /// evaluate the completion condition.
    pub(crate) fn multi_instance_child_completing(&mut self, body: Key, child: Key) -> Step {
        let inst = &self.instances[&body];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("body");
        let mi = p.element(e).multi_instance.clone().expect("multi-instance");
        let loop_counter = self.instances[&child].loop_counter as usize;
        if let (Some(oc), Some(oe)) = (&mi.output_collection, &mi.output_element) {
            let value = self.eval(oe, child, None)?;
            let current = self.lookup_var(body, oc).map(|v| (**v).clone());
            match current {
                Some(Json::Array(mut items))
                    if loop_counter >= 1 && loop_counter <= items.len() =>
                {
                    items[loop_counter - 1] = value;
                    self.set_local(body, oc, SharedJson::new(Json::Array(items)));
                }
                other => {
                    return Err(StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!(
                            "Unable to update an item in output collection '{oc}' at position {loop_counter} because the size of the collection is: {}. This may happen when multiple BPMN elements write to the same variable.",
                            match other {
                                Some(Json::Array(a)) => a.len(),
                                _ => 0,
                            }
                        ),
                    ));
                }
            }
        }
        if let Some(cond) = &mi.completion_condition {
            let state = self.instances[&body].mi().cloned().unwrap_or_default();
            let active = self.instances[&body].children.len();
            let mut overlay = VariableDocument::new();
            overlay.insert("numberOfInstances".into(), Json::from(state.count));
            overlay.insert(
                "numberOfActiveInstances".into(),
                Json::from(active.saturating_sub(1)),
            );
            overlay.insert(
                "numberOfCompletedInstances".into(),
                Json::from(state.completed + 1),
            );
            overlay.insert(
                "numberOfTerminatedInstances".into(),
                Json::from(state.terminated),
            );
            let fulfilled = self.eval_bool_with(cond, child, Some(&overlay))?;
            if let Some(s) = self.instances.get_mut(&body).and_then(|i| i.mi_mut()) {
                s.condition_fulfilled = fulfilled;
            }
        }
        Ok(())
    }

    /// After an inner instance completed: next instance, or complete / cut off the body.
    pub(crate) fn multi_instance_child_completed(&mut self, body: Key, _child: &ElementInstance) {
        let Some(state) = self.instances.get_mut(&body).and_then(|i| i.mi_mut()) else {
            return;
        };
        state.completed += 1;
        let fulfilled = state.condition_fulfilled;
        let created = state.created;
        let count = state.count;
        if fulfilled {
            if let Some(i) = self.instances.get_mut(&body) {
                i.extras_mut().interruption = Some(Interruption::CompletionCondition);
            }
            if self.terminate_children(body) {
                self.queue.push_back(FollowUp::Complete(body));
            }
            return;
        }
        let p = self.process(self.instances[&body].proc).clone();
        let e = self.instances[&body].element().expect("body");
        let mi = p
            .element(e)
            .multi_instance
            .as_ref()
            .expect("multi-instance");
        if mi.sequential && created < count {
            // The collection is read again for each new iteration.
            let item = match mi
                .input_collection
                .as_ref()
                .map(|c| self.collection_item(c, body, created))
            {
                Some(Ok(item)) => item,
                Some(Err(f)) => {
                    self.create_incident(body, None, f);
                    return;
                }
                None => None,
            };
            match item {
                Some(item) => self.create_inner_instance(body, item),
                None => self.create_incident(
                    body,
                    None,
                    StepFailure::new(
                        ErrorType::ExtractValueError,
                        format!("Expected to read item at index {created} of the input collection, but the collection is smaller"),
                    ),
                ),
            }
            return;
        }
        if self.instances[&body].children.is_empty() {
            self.queue.push_back(FollowUp::Complete(body));
        }
    }

    /// Item `index` of the input collection as it is now. A collection that is a plain variable
    /// is read in place (a sequential loop over a long list would otherwise copy and convert
    /// the whole list for every item); anything else is evaluated.
    fn collection_item(
        &self,
        collection: &Expr,
        scope: Key,
        index: usize,
    ) -> Result<Option<Json>, StepFailure> {
        if let Expr::Feel(f) = collection {
            let name = f.source.trim();
            if !name.is_empty()
                && name.chars().all(|c| c.is_alphanumeric() || c == '_')
                && let Some(Json::Array(items)) = self.lookup_var(scope, name).map(|v| &**v)
            {
                return Ok(items.get(index).cloned());
            }
        }
        Ok(self.eval_list(collection, scope)?.into_iter().nth(index))
    }

    pub(crate) fn multi_instance_child_terminated(&mut self, body: Key) {
        if let Some(s) = self.instances.get_mut(&body).and_then(|i| i.mi_mut()) {
            s.terminated += 1;
        }
    }

    /// The body completes: its output collection goes to the flow scope.
    pub(crate) fn complete_multi_instance_body(&mut self, body: Key) -> Step {
        self.unsubscribe_from_events(body);
        let inst = &self.instances[&body];
        let p = self.process(inst.proc).clone();
        let e = inst.element().expect("body");
        let mi = p.element(e).multi_instance.clone().expect("multi-instance");
        if let Some(oc) = &mi.output_collection
            && let Some(v) = self.instances[&body]
                .vars
                .get(oc)
                .map(|v| (*v.value).clone())
        {
            let scope = self.instances[&body].flow_scope.unwrap_or(body);
            let mut doc = VariableDocument::new();
            doc.insert(oc.to_string(), v);
            self.merge_propagating(scope, &doc);
        }
        Ok(())
    }
}
