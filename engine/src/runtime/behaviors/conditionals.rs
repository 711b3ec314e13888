//! Conditional events (Camunda 8.9): a FEEL condition over process variables.
//!
//! A conditional catch event (intermediate, boundary, event sub-process start) subscribes when
//! its scope is activated and its condition is evaluated at once; afterwards it is evaluated
//! again whenever a variable it reads (derived from the expression, or the filter's
//! `variableNames`) is created or updated (`variableEvents` narrows this) in a scope it can see.
//! All the changes of one processing step are looked at together, so a subscription fires at
//! most once per step; scopes are checked top down and an interrupted scope stops the rest.
//! Non-interrupting events fire every time the condition holds after such a change. Root
//! conditional start events are triggered only by [`Engine::evaluate_conditional_start_events`].

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::compile::expr::Expr;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, ConditionalValue, ErrorType, Key, OtherIntent, ProcIdx, RecordValue,
    Rejection, RejectionType, ValueType, VariableDocument,
};
use crate::runtime::state::conditionals::{ConditionalSubscription, VariableChange};
use crate::runtime::step::{FollowUp, StepFailure};

/// What a conditional event definition says, resolved.
struct ConditionParts {
    condition: Option<Expr>,
    variables: Arc<[Arc<str>]>,
    on_create: bool,
    on_update: bool,
    interrupting: bool,
}

/// A conditional subscription evaluated on activation.
#[derive(Debug, Clone)]
pub(crate) struct PlannedConditional {
    element: ElementIdx,
    holds: bool,
}

impl Engine {
    fn conditional_value(&self, s: &ConditionalSubscription) -> RecordValue {
        RecordValue::ConditionalSubscription(Box::new(ConditionalValue {
            proc: s.proc,
            element: s.element,
            element_instance_key: s.owner,
            process_instance_key: s
                .owner
                .and_then(|o| self.instances.get(&o))
                .map(|i| i.process_instance_key),
            interrupting: s.interrupting,
        }))
    }

    fn condition_parts(&self, proc: ProcIdx, event: ElementIdx) -> ConditionParts {
        let p = self.process(proc);
        let el = p.element(event);
        let EventDef::Conditional {
            condition,
            variable_names,
            variable_events,
        } = &el.event
        else {
            return ConditionParts {
                condition: None,
                variables: Arc::from([]),
                on_create: false,
                on_update: false,
                interrupting: false,
            };
        };
        let names: Vec<Arc<str>> = if variable_names.is_empty() {
            condition
                .as_ref()
                .map(|c| c.referenced_variables())
                .unwrap_or_default()
                .iter()
                .map(|n| Arc::from(n.as_str()))
                .collect()
        } else {
            variable_names
                .iter()
                .map(|n| Arc::from(n.as_str()))
                .collect()
        };
        let events: Vec<String> = variable_events
            .iter()
            .map(|e| e.trim().to_ascii_lowercase())
            .collect();
        let on_create = events.is_empty() || events.iter().any(|e| e == "create");
        let on_update = events.is_empty() || events.iter().any(|e| e == "update");
        let interrupting = match el.element_type {
            BpmnElementType::BoundaryEvent | BpmnElementType::StartEvent => el.interrupting,
            _ => true,
        };
        ConditionParts {
            condition: condition.clone(),
            variables: Arc::from(names),
            on_create,
            on_update,
            interrupting,
        }
    }

    /// Evaluates a conditional event's condition for the element instance `owner`.
    pub(crate) fn plan_conditional(
        &self,
        owner: Key,
        event: ElementIdx,
    ) -> Result<PlannedConditional, StepFailure> {
        let proc = self.instances[&owner].proc;
        let condition = self.condition_parts(proc, event).condition;
        // A condition that is not `true` (false, null because a variable does not exist yet,
        // a failed evaluation) does not hold; the event waits for a change.
        let holds = condition.is_some_and(|c| self.eval_bool(&c, owner).unwrap_or(false));
        Ok(PlannedConditional {
            element: event,
            holds,
        })
    }

    /// A subscription of `owner` (`None`: a root start event) for the conditional event
    /// `element`, written as `CONDITIONAL_SUBSCRIPTION CREATED`.
    fn new_conditional_subscription(
        &mut self,
        proc: ProcIdx,
        owner: Option<Key>,
        element: ElementIdx,
    ) -> ConditionalSubscription {
        let ConditionParts {
            variables,
            on_create,
            on_update,
            interrupting,
            ..
        } = self.condition_parts(proc, element);
        let key = self.new_key();
        let s = ConditionalSubscription {
            key,
            proc,
            owner,
            element,
            interrupting,
            variables,
            on_create,
            on_update,
        };
        let value = self.conditional_value(&s);
        self.event(
            ValueType::ConditionalSubscription,
            OtherIntent::Created,
            Some(key),
            value,
        );
        s
    }

    /// Opens a conditional subscription; a condition that holds already triggers the event.
    pub(crate) fn open_conditional_subscription(&mut self, owner: Key, plan: PlannedConditional) {
        let proc = self.instances[&owner].proc;
        let s = self.new_conditional_subscription(proc, Some(owner), plan.element);
        let key = s.key;
        self.conditionals.subscriptions.insert(key, s);
        if let Some(i) = self.instances.get_mut(&owner) {
            i.subscriptions.push(key);
        }
        if plan.holds {
            self.queue.push_back(FollowUp::TriggerConditional(key));
        }
    }

    /// Closes a conditional subscription (its element instance is left).
    pub(crate) fn close_conditional_subscription(&mut self, key: Key) {
        if let Some(s) = self.conditionals.subscriptions.remove(&key) {
            let value = self.conditional_value(&s);
            self.event(
                ValueType::ConditionalSubscription,
                OtherIntent::Deleted,
                Some(key),
                value,
            );
        }
    }

    /// `CONDITIONAL_SUBSCRIPTION TRIGGER`: the event is triggered if its scope can still take
    /// it; an interrupting subscription is gone afterwards.
    pub(crate) fn trigger_conditional(&mut self, key: Key) {
        let Some(s) = self.conditionals.subscriptions.get(&key).cloned() else {
            return;
        };
        let Some(owner) = s.owner else {
            return;
        };
        if !self.can_trigger(owner) {
            return;
        }
        let value = self.conditional_value(&s);
        self.event(
            ValueType::ConditionalSubscription,
            OtherIntent::Triggered,
            Some(key),
            value,
        );
        if s.interrupting {
            self.conditionals.subscriptions.remove(&key);
            if let Some(i) = self.instances.get_mut(&owner)
                && let Some(pos) = i.subscriptions.iter().position(|k| *k == key)
            {
                i.subscriptions.remove(pos);
            }
        }
        self.trigger_event(owner, s.element, None);
    }

    /// Remembers a variable change for the conditional subscriptions.
    pub(crate) fn note_variable_change(&mut self, scope: Key, name: &Arc<str>, created: bool) {
        if self.conditionals.watching() {
            self.conditionals.changes.push(VariableChange {
                scope,
                name: name.clone(),
                created,
            });
        }
    }

    /// Looks at the variable changes of the step that just ended: every open subscription that
    /// sees a change of a variable it reads is evaluated (top down), and triggered when its
    /// condition holds.
    pub(crate) fn check_conditionals(&mut self) {
        let changes = std::mem::take(&mut self.conditionals.changes);
        if changes.is_empty() {
            return;
        }
        // Top down: subscriptions of outer scopes first (depth, then key).
        let mut candidates: Vec<(usize, Key)> = Vec::new();
        for s in self.conditionals.subscriptions.values() {
            let Some(owner) = s.owner else { continue };
            let chain = self.scope_chain(owner);
            let relevant = changes.iter().any(|c| {
                (if c.created { s.on_create } else { s.on_update })
                    && s.variables.iter().any(|v| **v == *c.name)
                    && chain.contains(&c.scope)
            });
            if relevant {
                candidates.push((chain.len(), s.key));
            }
        }
        candidates.sort_unstable();
        for (_, key) in candidates {
            let Some(s) = self.conditionals.subscriptions.get(&key).cloned() else {
                continue;
            };
            let Some(owner) = s.owner else { continue };
            if !self.can_trigger(owner) {
                continue;
            }
            let condition = self.condition_parts(s.proc, s.element).condition;
            // A condition that cannot be evaluated now does not hold.
            let holds = condition.is_some_and(|c| self.eval_bool(&c, owner).unwrap_or(false));
            if holds {
                self.trigger_conditional(key);
            }
        }
    }

    /// The instance and its flow scopes up to the process instance.
    fn scope_chain(&self, key: Key) -> Vec<Key> {
        let mut chain = Vec::new();
        let mut current = Some(key);
        while let Some(k) = current {
            chain.push(k);
            current = self.instances.get(&k).and_then(|i| i.flow_scope);
        }
        chain
    }

    /// Registers the conditional start events of a newly deployed latest version, replacing
    /// those of the version before.
    pub(crate) fn open_conditional_start_subscriptions(
        &mut self,
        previous: Option<ProcIdx>,
        proc: ProcIdx,
    ) {
        if let Some(prev) = previous {
            let old: Vec<Key> = self
                .conditionals
                .starts
                .values()
                .filter(|s| s.proc == prev)
                .map(|s| s.key)
                .collect();
            for k in old {
                let s = self.conditionals.starts.remove(&k).expect("exists");
                let value = self.conditional_value(&s);
                self.event(
                    ValueType::ConditionalSubscription,
                    OtherIntent::Deleted,
                    Some(k),
                    value,
                );
            }
        }
        let p = self.process(proc).clone();
        for &e in &p.event_start_events {
            if !matches!(p.element(e).event, EventDef::Conditional { .. }) {
                continue;
            }
            let s = self.new_conditional_subscription(proc, None, e);
            self.conditionals.starts.insert(s.key, s);
        }
    }

    /// Carries out the command of [`Engine::evaluate_conditional_start_events`].
    pub(crate) fn apply_evaluate_conditional_start_events(
        &mut self,
        variables: VariableDocument,
        process_definition_key: Option<Key>,
    ) -> Result<Vec<Key>, Rejection> {
        let start = self.begin();
        if let Some(k) = process_definition_key
            && !self.deployed.processes.iter().any(|p| p.key == k)
        {
            return Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to evaluate conditional start events for process definition key '{k}', but no such process definition was found"
                ),
            ));
        }
        let subs: Vec<ConditionalSubscription> = self
            .conditionals
            .starts
            .values()
            .filter(|s| process_definition_key.is_none_or(|k| self.process(s.proc).key == k))
            .cloned()
            .collect();
        let vars = Arc::new(variables);
        let eval_key = self.new_key();
        self.event(
            ValueType::ConditionalEvaluation,
            OtherIntent::Evaluated,
            Some(eval_key),
            RecordValue::VariableDocument {
                scope_key: process_definition_key.unwrap_or_default(),
                local: false,
                variables: vars.clone(),
            },
        );
        let mut started = Vec::new();
        for s in subs {
            let condition = self.condition_parts(s.proc, s.element).condition;
            let Some(c) = condition else { continue };
            let holds = match self.eval(&c, 0, Some(&*vars)) {
                Ok(serde_json::Value::Bool(b)) => b,
                Ok(_) => false,
                Err(f) => {
                    return Err(Rejection::new(
                        RejectionType::InvalidArgument,
                        StepFailure::new(ErrorType::ConditionError, f.message).message,
                    ));
                }
            };
            if holds {
                let pi = self.new_key();
                let v = (!vars.is_empty()).then(|| vars.clone());
                self.start_instance_at_event(s.proc, pi, s.element, v);
                started.push(pi);
            }
        }
        self.run(start)?;
        Ok(started)
    }
}
