//! Catch subscriptions, both sides: the process side of an element instance's subscription
//! (`PROCESS_MESSAGE_SUBSCRIPTION`) and the message side (`MESSAGE_SUBSCRIPTION`), which talk
//! through follow-up commands; a correlation reaches the catch element, or is rejected.

use std::sync::Arc;

use crate::model::ElementIdx;
use crate::runtime::behaviors::expressions::Evaluated;
use crate::runtime::compile::definitions::EventDef;
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    BpmnElementType, Intent, Key, OtherIntent, RecordValue, Rejection, RejectionType,
    SubscriptionValue, ValueType, VariableDocument,
};
use crate::runtime::state::lifecycle::State;
use crate::runtime::state::messages::{CorrelatedMessageView, MessageSubscription, ProcessSide};
use crate::runtime::step::{FollowUp, MessageFollowUp, StepFailure};

/// A catch subscription evaluated on activation, before anything is written.
#[derive(Debug, Clone)]
pub(crate) struct PlannedMessage {
    pub element: ElementIdx,
    pub name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub interrupting: bool,
}

/// Zeebe's correlation key rule (`evaluateMessageCorrelationKeyExpression`): a string as is, a
/// number as the text of its integer part.
pub(crate) fn correlation_key_text(evaluated: &Evaluated) -> Result<String, StepFailure> {
    if let Some(s) = evaluated.as_str() {
        return Ok(s.to_owned());
    }
    match evaluated.whole_number() {
        Some((n, _)) => Ok(n.to_string()),
        None => Err(evaluated.failure(format!(
            "Failed to extract the correlation key for '{}': The value must be either a string or a number, but was '{}'.",
            evaluated.source,
            evaluated.type_name()
        ))),
    }
}

impl Engine {
    pub(crate) fn subscription_value(
        &self,
        s: &MessageSubscription,
        message_key: Option<Key>,
        variables: Option<Arc<VariableDocument>>,
    ) -> RecordValue {
        RecordValue::Subscription(Box::new(SubscriptionValue {
            proc: s.proc,
            process_instance_key: Some(s.process_instance_key),
            element_instance_key: Some(s.element_instance_key),
            element: s.element,
            message_name: s.name.clone(),
            correlation_key: s.correlation_key.clone(),
            message_key,
            interrupting: s.interrupting,
            variables,
        }))
    }

    /// Evaluates the message name and correlation key of a catch event for the element instance
    /// `key` (a boundary event's correlation key is evaluated in the activity's flow scope).
    pub(crate) fn plan_message(
        &self,
        key: Key,
        event: ElementIdx,
    ) -> Result<Option<PlannedMessage>, StepFailure> {
        let inst = &self.instances[&key];
        let p = self.process(inst.proc);
        let el = p.element(event);
        let EventDef::Message {
            name,
            correlation_key,
        } = &el.event
        else {
            return Ok(None);
        };
        let name = match name {
            Some(x) => self.eval_string(x, key)?,
            None => String::new(),
        };
        let scope = if el.element_type == BpmnElementType::BoundaryEvent {
            inst.flow_scope.unwrap_or(key)
        } else {
            key
        };
        let ck = match correlation_key {
            Some(x) => correlation_key_text(&self.eval_typed(x, scope)?)?,
            None => String::new(),
        };
        let interrupting = match el.element_type {
            BpmnElementType::BoundaryEvent | BpmnElementType::StartEvent => el.interrupting,
            _ => true,
        };
        Ok(Some(PlannedMessage {
            element: event,
            name: Arc::from(name.as_str()),
            correlation_key: Arc::from(ck.as_str()),
            interrupting,
        }))
    }

    /// Opens a planned subscription for the element instance `owner`: `PROCESS_MESSAGE_SUBSCRIPTION
    /// CREATING` now, the message side as a follow-up command.
    pub(crate) fn open_message_subscription(&mut self, owner: Key, plan: PlannedMessage) {
        let (proc, process_instance_key) = {
            let inst = &self.instances[&owner];
            (inst.proc, inst.process_instance_key)
        };
        let key = self.new_key();
        let sub = MessageSubscription {
            key,
            message_side: None,
            proc,
            process_instance_key,
            element_instance_key: owner,
            element: plan.element,
            name: plan.name,
            correlation_key: plan.correlation_key,
            interrupting: plan.interrupting,
            process_side: ProcessSide::Opening,
            correlating: None,
            last_correlated: None,
        };
        let value = self.subscription_value(&sub, None, None);
        self.event(
            ValueType::ProcessMessageSubscription,
            OtherIntent::Creating,
            Some(key),
            value,
        );
        self.messaging.subscriptions.insert(key, sub);
        if let Some(i) = self.instances.get_mut(&owner) {
            i.subscriptions.push(key);
        }
        self.queue
            .push_back(FollowUp::Message(Box::new(MessageFollowUp::Open(key))));
    }

    /// Writes an event about a subscription (either side), without message or variables.
    pub(crate) fn subscription_event(
        &mut self,
        value_type: ValueType,
        intent: OtherIntent,
        key: Key,
        s: &MessageSubscription,
    ) {
        let value = self.subscription_value(s, None, None);
        self.event(value_type, intent, Some(key), value);
    }

    /// Closes a message subscription of an element instance that is left.
    pub(crate) fn close_message_subscription(&mut self, key: Key) {
        let Some(s) = self.messaging.subscriptions.get_mut(&key) else {
            return;
        };
        if matches!(s.process_side, ProcessSide::Closing | ProcessSide::Gone) {
            return;
        }
        s.process_side = ProcessSide::Closing;
        let s = s.clone();
        self.subscription_event(
            ValueType::ProcessMessageSubscription,
            OtherIntent::Deleting,
            key,
            &s,
        );
        self.queue
            .push_back(FollowUp::Message(Box::new(MessageFollowUp::Close(key))));
    }

    pub(crate) fn process_message_follow_up(&mut self, follow_up: MessageFollowUp) {
        match follow_up {
            MessageFollowUp::Open(k) => self.message_side_open(k),
            MessageFollowUp::AckOpen(k) => {
                let Some(s) = self.messaging.subscriptions.get_mut(&k) else {
                    return;
                };
                if s.process_side != ProcessSide::Opening {
                    return;
                }
                s.process_side = ProcessSide::Opened;
                let s = s.clone();
                self.subscription_event(
                    ValueType::ProcessMessageSubscription,
                    OtherIntent::Created,
                    k,
                    &s,
                );
            }
            MessageFollowUp::Correlate {
                subscription,
                message,
                variables,
            } => self.correlate_process_side(subscription, message, variables),
            MessageFollowUp::AckCorrelate {
                subscription,
                message,
            } => self.message_side_correlated(subscription, message),
            MessageFollowUp::Close(k) => {
                let side = self
                    .messaging
                    .subscriptions
                    .get_mut(&k)
                    .and_then(|s| s.message_side.take());
                if let Some(ms_key) = side {
                    let s = self.messaging.subscriptions[&k].clone();
                    self.messaging.by_name_and_key.remove(&(
                        s.name.clone(),
                        s.correlation_key.clone(),
                        s.element_instance_key,
                        k,
                    ));
                    self.subscription_event(
                        ValueType::MessageSubscription,
                        OtherIntent::Deleted,
                        ms_key,
                        &s,
                    );
                }
                self.queue
                    .push_back(FollowUp::Message(Box::new(MessageFollowUp::AckClose(k))));
            }
            MessageFollowUp::AckClose(k) => {
                if let Some(s) = self.messaging.subscriptions.remove(&k) {
                    self.subscription_event(
                        ValueType::ProcessMessageSubscription,
                        OtherIntent::Deleted,
                        k,
                        &s,
                    );
                }
            }
        }
    }

    /// `MESSAGE_SUBSCRIPTION CREATE`: the message side exists from now on and takes the oldest
    /// buffered message it may.
    pub(crate) fn message_side_open(&mut self, k: Key) {
        let Some(s) = self.messaging.subscriptions.get(&k) else {
            return;
        };
        if s.message_side.is_some() {
            return;
        }
        let closing = s.process_side == ProcessSide::Closing;
        let ms_key = self.new_key();
        let s = self.messaging.subscriptions.get_mut(&k).expect("exists");
        s.message_side = Some(ms_key);
        let s = s.clone();
        self.messaging.by_name_and_key.insert((
            s.name.clone(),
            s.correlation_key.clone(),
            s.element_instance_key,
            k,
        ));
        self.subscription_event(
            ValueType::MessageSubscription,
            OtherIntent::Created,
            ms_key,
            &s,
        );
        if closing || !self.correlate_next_buffered(k) {
            self.queue
                .push_back(FollowUp::Message(Box::new(MessageFollowUp::AckOpen(k))));
        }
    }

    /// Zeebe's `MessageCorrelator.correlateNextMessage`: the oldest buffered message with the
    /// subscription's name and key that is not expired and not yet correlated to its process id.
    pub(crate) fn correlate_next_buffered(&mut self, k: Key) -> bool {
        let s = &self.messaging.subscriptions[&k];
        let bpmn_id = self.process(s.proc).bpmn_process_id.clone();
        let now = self.now;
        let lo = (s.name.clone(), s.correlation_key.clone(), 0);
        let hi = (s.name.clone(), s.correlation_key.clone(), Key::MAX);
        let found = self
            .messaging
            .buffered
            .range(lo..=hi)
            .map(|(_, _, m)| *m)
            .find(|m| {
                let msg = &self.messaging.messages[m];
                msg.deadline > now && !msg.correlated.contains(&bpmn_id)
            });
        let Some(m) = found else {
            return false;
        };
        let msg = self.messaging.messages.get_mut(&m).expect("buffered");
        msg.correlated.push(bpmn_id);
        let variables = msg.variables.clone();
        self.message_side_correlating(k, m, variables);
        true
    }

    /// Writes `MESSAGE_SUBSCRIPTION CORRELATING` and sends the correlation to the process side.
    pub(crate) fn message_side_correlating(
        &mut self,
        k: Key,
        message: Key,
        variables: Arc<VariableDocument>,
    ) {
        let Some(s) = self.messaging.subscriptions.get_mut(&k) else {
            return;
        };
        s.correlating = Some(message);
        let s = s.clone();
        let value = self.subscription_value(&s, Some(message), Some(variables.clone()));
        self.event(
            ValueType::MessageSubscription,
            OtherIntent::Correlating,
            s.message_side,
            value,
        );
        self.queue
            .push_back(FollowUp::Message(Box::new(MessageFollowUp::Correlate {
                subscription: k,
                message,
                variables,
            })));
    }

    /// Whether an event of `owner` may still be triggered (Zeebe's `canTriggerElement`): the
    /// instance is active and neither it nor its flow scope is being interrupted.
    pub(crate) fn can_trigger(&self, owner: Key) -> bool {
        let Some(i) = self.instances.get(&owner) else {
            return false;
        };
        if !matches!(i.state, State::Activating | State::Activated)
            || i.interruption().is_some()
            || !i.triggers().is_empty()
        {
            return false;
        }
        // No enclosing scope may be on its way out (terminating, interrupted by an event
        // sub-process, or waiting for an interrupting boundary event).
        let mut current = i.flow_scope;
        while let Some(k) = current {
            let Some(scope) = self.instances.get(&k) else {
                return false;
            };
            if scope.interruption().is_some()
                || scope.state == State::Terminating
                || !scope.triggers().is_empty()
            {
                return false;
            }
            current = scope.flow_scope;
        }
        true
    }

    /// `PROCESS_MESSAGE_SUBSCRIPTION CORRELATE`: the catch event is triggered.
    pub(crate) fn correlate_process_side(
        &mut self,
        k: Key,
        message: Key,
        variables: Arc<VariableDocument>,
    ) {
        let rejection = match self.messaging.subscriptions.get(&k) {
            None => Some((
                RejectionType::NotFound,
                "but no such subscription was found".to_owned(),
            )),
            Some(s) if matches!(s.process_side, ProcessSide::Closing | ProcessSide::Gone) => {
                Some((
                    RejectionType::InvalidState,
                    "but it is already closing".to_owned(),
                ))
            }
            Some(s) if s.last_correlated.is_some_and(|l| message <= l) => Some((
                RejectionType::InvalidState,
                "but it was already correlated".to_owned(),
            )),
            Some(s) if !self.can_trigger(s.element_instance_key) => Some((
                RejectionType::InvalidState,
                "but the subscription is not active anymore".to_owned(),
            )),
            Some(_) => None,
        };
        if let Some((rejection_type, why)) = rejection {
            self.reject_correlation(k, message, rejection_type, &why);
            return;
        }
        let s = self.messaging.subscriptions.get_mut(&k).expect("checked");
        s.last_correlated = Some(message);
        if s.interrupting {
            s.process_side = ProcessSide::Gone;
        } else {
            s.process_side = ProcessSide::Opened;
        }
        let s = s.clone();
        let value = self.subscription_value(&s, Some(message), Some(variables.clone()));
        self.event(
            ValueType::ProcessMessageSubscription,
            OtherIntent::Correlated,
            Some(k),
            value,
        );
        if s.interrupting
            && let Some(i) = self.instances.get_mut(&s.element_instance_key)
            && let Some(pos) = i.subscriptions.iter().position(|x| *x == k)
        {
            i.subscriptions.remove(pos);
        }
        let p = self.process(s.proc).clone();
        self.messaging
            .correlated
            .entry(s.process_instance_key)
            .or_default()
            .push(CorrelatedMessageView {
                message_key: message,
                message_name: s.name.clone(),
                correlation_key: s.correlation_key.clone(),
                process_instance_key: s.process_instance_key,
                element_id: p.element(s.element).id.clone(),
                element_instance_key: Some(s.element_instance_key),
            });
        if let Some(r) = &mut self.messaging.correlate_request
            && r.message == message
            && r.reached.is_none()
        {
            r.reached = Some(s.process_instance_key);
            let value = r.value.clone();
            self.event(
                ValueType::MessageCorrelation,
                OtherIntent::Correlated,
                Some(message),
                value,
            );
        }
        let vars = (!variables.is_empty()).then_some(variables);
        self.trigger_event(s.element_instance_key, s.element, vars);
        self.queue
            .push_back(FollowUp::Message(Box::new(MessageFollowUp::AckCorrelate {
                subscription: k,
                message,
            })));
    }

    pub(crate) fn reject_correlation(
        &mut self,
        k: Key,
        message: Key,
        rejection_type: RejectionType,
        why: &str,
    ) {
        let sub = self.messaging.subscriptions.get(&k).cloned();
        let (name, eik) = sub
            .as_ref()
            .map(|s| (s.name.to_string(), s.element_instance_key))
            .unwrap_or_default();
        if let Some(s) = &sub {
            let value = self.subscription_value(s, Some(message), None);
            self.reject(
                ValueType::ProcessMessageSubscription,
                Intent::Other(OtherIntent::Correlate),
                Some(k),
                value,
                Rejection::new(
                    rejection_type,
                    format!(
                        "Expected to correlate process message subscription with element key '{eik}' and message name '{name}', {why}"
                    ),
                ),
            );
        }
        // The message side lets go of the message: it may correlate to the process again.
        if let Some(s) = self.messaging.subscriptions.get_mut(&k)
            && s.correlating == Some(message)
        {
            s.correlating = None;
            let bpmn_id = self.deployed.processes[s.proc.0 as usize]
                .bpmn_process_id
                .clone();
            if let Some(m) = self.messaging.messages.get_mut(&message)
                && let Some(pos) = m.correlated.iter().position(|p| *p == bpmn_id)
            {
                m.correlated.remove(pos);
            }
        }
    }

    /// `MESSAGE_SUBSCRIPTION CORRELATE`: the message side learns the correlation happened; an
    /// interrupting subscription is gone, a non-interrupting one takes the next buffered message.
    pub(crate) fn message_side_correlated(&mut self, k: Key, message: Key) {
        let Some(s) = self.messaging.subscriptions.get_mut(&k) else {
            return;
        };
        if s.correlating != Some(message) || s.message_side.is_none() {
            return;
        }
        s.correlating = None;
        let s = s.clone();
        let value = self.subscription_value(&s, Some(message), None);
        self.event(
            ValueType::MessageSubscription,
            OtherIntent::Correlated,
            s.message_side,
            value,
        );
        if s.interrupting {
            self.messaging.by_name_and_key.remove(&(
                s.name.clone(),
                s.correlation_key.clone(),
                s.element_instance_key,
                k,
            ));
            self.messaging.subscriptions.remove(&k);
        } else if s.process_side == ProcessSide::Opened {
            self.correlate_next_buffered(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::compile::expr::baton_feel_bridge;
    use crate::runtime::records::ErrorType;
    use serde_json::json;

    #[test]
    pub(crate) fn correlation_keys_are_strings_or_integer_parts() {
        let key = |value: serde_json::Value| {
            correlation_key_text(&Evaluated::json(value, "x".to_string()))
        };
        assert_eq!(key(json!("a-1")).unwrap(), "a-1");
        assert_eq!(key(json!(12)).unwrap(), "12");
        assert_eq!(key(json!(12.7)).unwrap(), "12");
        assert_eq!(key(json!(-3.9)).unwrap(), "-3");
        let f = correlation_key_text(&Evaluated::feel(
            baton_feel_bridge::to_feel(&json!(null)),
            vec![baton_feel::Warning {
                kind: baton_feel::WarningKind::NoVariableFound,
                message: "No variable found with name 'x'".to_string(),
            }],
            "x".to_string(),
        ))
        .unwrap_err();
        assert_eq!(f.error_type, ErrorType::ExtractValueError);
        assert_eq!(
            f.message,
            "Failed to extract the correlation key for 'x': The value must be either a string or a number, but was 'NULL'. The evaluation reported the following warnings:\n[NO_VARIABLE_FOUND] No variable found with name 'x'"
        );
        let f = key(json!([1])).unwrap_err();
        assert!(f.message.ends_with("but was 'ARRAY'."), "{}", f.message);
    }
}
