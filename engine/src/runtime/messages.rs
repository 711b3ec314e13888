//! Messages as Zeebe correlates them.
//!
//! A catch element (intermediate catch event, receive task, boundary event, event sub-process
//! start, event after an event-based gateway) opens a subscription when its element instance (or
//! scope) is activated; the message name and correlation key are evaluated once, then. The
//! subscription lives on two sides, as in Zeebe: the process side (`PROCESS_MESSAGE_SUBSCRIPTION`
//! CREATING → CREATED → CORRELATED / DELETING → DELETED) and the message side
//! (`MESSAGE_SUBSCRIPTION` CREATED → CORRELATING → CORRELATED / DELETED); the two talk through
//! follow-up commands in the FIFO queue, so the record order is Zeebe's.
//!
//! Publishing writes `MESSAGE PUBLISHED`, reserves the message for at most one subscription per
//! BPMN process id (catch subscriptions first, then message start events), and buffers it for its
//! time to live; a subscription opened later takes the oldest buffered message not yet
//! correlated to its process id. Message start events subscribe for the latest version of a
//! process; a process instance started by a message with a correlation key blocks further starts
//! with that key until it ends, then the next buffered message starts the next instance.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value as Json;

use super::executable::EventDef;
use super::lifecycle::State;
use super::records::{
    ErrorType, Intent, Key, OtherIntent, ProcIdx, RecordValue, Rejection, RejectionType,
    SubscriptionValue, ValueType, VariableDocument,
};
use super::state::EventTrigger;
use super::step::{FollowUp, MessageFollowUp, StepFailure};
use super::{BpmnElementType, Engine};
use crate::model::ElementIdx;

/// The default time to live of a published message: the Camunda client's default (one hour).
pub const DEFAULT_MESSAGE_TTL_MS: i64 = 3_600_000;

/// A message to publish.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublishMessage {
    pub name: String,
    pub correlation_key: String,
    /// How long the message stays buffered, in milliseconds (0: only the subscriptions open now).
    pub time_to_live_ms: i64,
    /// Unique per name and correlation key while a message with the id is buffered.
    pub message_id: Option<String>,
    #[serde(default)]
    pub variables: VariableDocument,
}

impl PublishMessage {
    /// A message with the client's default time to live (one hour) and no variables.
    pub fn new(name: impl Into<String>, correlation_key: impl Into<String>) -> PublishMessage {
        PublishMessage {
            name: name.into(),
            correlation_key: correlation_key.into(),
            time_to_live_ms: DEFAULT_MESSAGE_TTL_MS,
            message_id: None,
            variables: VariableDocument::new(),
        }
    }

    pub fn time_to_live(mut self, millis: i64) -> Self {
        self.time_to_live_ms = millis;
        self
    }

    pub fn message_id(mut self, id: impl Into<String>) -> Self {
        self.message_id = Some(id.into());
        self
    }

    pub fn variables(mut self, variables: VariableDocument) -> Self {
        self.variables = variables;
        self
    }
}

/// What the synchronous correlate command answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageCorrelation {
    pub message_key: Key,
    /// The process instance the message went to (a newly started one is preferred).
    pub process_instance_key: Key,
}

/// The process side of a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProcessSide {
    /// CREATING written, CREATED not yet.
    Opening,
    Opened,
    /// DELETING written.
    Closing,
    /// Removed (an interrupting subscription after its correlation).
    Gone,
}

/// A message subscription of an element instance (both sides).
#[derive(Debug, Clone)]
pub(crate) struct MessageSubscription {
    /// The `PROCESS_MESSAGE_SUBSCRIPTION` key.
    key: Key,
    /// The `MESSAGE_SUBSCRIPTION` key, once the message side exists.
    message_side: Option<Key>,
    proc: ProcIdx,
    process_instance_key: Key,
    /// The element instance that opened it: the catch event or receive task, the activity of a
    /// boundary event, the scope of an event sub-process, the event-based gateway.
    element_instance_key: Key,
    /// The catch event (or receive task).
    element: ElementIdx,
    name: Arc<str>,
    correlation_key: Arc<str>,
    interrupting: bool,
    process_side: ProcessSide,
    /// The message being correlated (message side).
    correlating: Option<Key>,
    last_correlated: Option<Key>,
}

/// A published message while it is buffered.
#[derive(Debug, Clone)]
pub(crate) struct StoredMessage {
    key: Key,
    name: Arc<str>,
    correlation_key: Arc<str>,
    time_to_live: i64,
    deadline: i64,
    message_id: Option<Arc<str>>,
    variables: Arc<VariableDocument>,
    /// BPMN process ids the message was correlated to (at most once each).
    correlated: Vec<Arc<str>>,
}

/// A message start event subscription of the latest version of a process.
#[derive(Debug, Clone)]
pub(crate) struct MessageStartSubscription {
    key: Key,
    proc: ProcIdx,
    element: ElementIdx,
    name: Arc<str>,
}

/// A message correlated to a process instance (kept for assertions).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CorrelatedMessageView {
    pub message_key: Key,
    pub message_name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub process_instance_key: Key,
    /// The catch event or start event that received it.
    pub element_id: Arc<str>,
    /// The element instance whose subscription received it (`None` for a start event).
    pub element_instance_key: Option<Key>,
}

/// An open message subscription (assertions: "is waiting for message").
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MessageSubscriptionView {
    pub key: Key,
    pub process_instance_key: Key,
    pub element_instance_key: Key,
    pub bpmn_process_id: Arc<str>,
    /// The catch event (or receive task).
    pub element_id: Arc<str>,
    pub message_name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub interrupting: bool,
}

/// A buffered message.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BufferedMessageView {
    pub key: Key,
    pub name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub deadline: i64,
    pub message_id: Option<Arc<str>>,
    pub variables: Arc<VariableDocument>,
}

/// The message state of an engine.
#[derive(Debug, Clone, Default)]
pub(crate) struct MessageState {
    subscriptions: BTreeMap<Key, MessageSubscription>,
    /// Message side, by (name, correlation key, element instance, subscription): Zeebe visits
    /// them in this order.
    by_name_and_key: BTreeSet<(Arc<str>, Arc<str>, Key, Key)>,
    messages: BTreeMap<Key, StoredMessage>,
    /// Buffered messages by (name, correlation key, message key): FIFO.
    buffered: BTreeSet<(Arc<str>, Arc<str>, Key)>,
    start_subscriptions: BTreeMap<Key, MessageStartSubscription>,
    /// (BPMN process id, correlation key) of instances started by a message that are active.
    start_locks: BTreeSet<(Arc<str>, Arc<str>)>,
    /// The lock each such process instance holds.
    lock_of_instance: BTreeMap<Key, (Arc<str>, Arc<str>)>,
    /// Messages correlated, per process instance.
    correlated: BTreeMap<Key, Vec<CorrelatedMessageView>>,
    /// The synchronous correlate call being processed.
    correlate_request: Option<CorrelateRequest>,
}

impl MessageState {
    pub(crate) fn is_message_subscription(&self, key: Key) -> bool {
        self.subscriptions.contains_key(&key)
    }
}

/// A synchronous correlate call in progress: its message, the record value to answer with and
/// the process instance it reached (once known).
#[derive(Debug, Clone)]
struct CorrelateRequest {
    message: Key,
    value: RecordValue,
    reached: Option<Key>,
}

/// A catch subscription evaluated on activation, before anything is written.
#[derive(Debug, Clone)]
pub(crate) struct PlannedMessage {
    pub element: ElementIdx,
    pub name: Arc<str>,
    pub correlation_key: Arc<str>,
    pub interrupting: bool,
}

/// Zeebe's correlation key rule: a string as is, a number as the text of its integer part.
pub(crate) fn correlation_key_text(
    value: &Json,
    expression: &str,
    warnings: &[super::expr::baton_feel_bridge::FeelWarning],
) -> Result<String, StepFailure> {
    match value {
        Json::String(s) => Ok(s.clone()),
        Json::Number(n) => Ok(match n.as_i64() {
            Some(i) => i.to_string(),
            None => match n.as_u64() {
                Some(u) => (u as i64).to_string(),
                None => (n.as_f64().unwrap_or(0.0).trunc() as i64).to_string(),
            },
        }),
        other => {
            let mut message = format!(
                "Failed to extract the correlation key for '{expression}': The value must be either a string or a number, but was '{}'.",
                super::step::json_type_name(other)
            );
            if !warnings.is_empty() {
                message.push_str(" The evaluation reported the following warnings:");
                for w in warnings {
                    message.push('\n');
                    message.push_str(&w.to_string());
                }
            }
            Err(StepFailure::new(ErrorType::ExtractValueError, message))
        }
    }
}

impl Engine {
    fn subscription_value(
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
            Some(x) => {
                let (value, warnings) = self.eval_warn(x, scope, None)?;
                correlation_key_text(&value, &super::step::expr_source(x), &warnings)?
            }
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
        let value = self.subscription_value(&s, None, None);
        self.event(
            ValueType::ProcessMessageSubscription,
            OtherIntent::Deleting,
            Some(key),
            value,
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
                let value = self.subscription_value(&s, None, None);
                self.event(
                    ValueType::ProcessMessageSubscription,
                    OtherIntent::Created,
                    Some(k),
                    value,
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
                    let value = self.subscription_value(&s, None, None);
                    self.event(
                        ValueType::MessageSubscription,
                        OtherIntent::Deleted,
                        Some(ms_key),
                        value,
                    );
                }
                self.queue
                    .push_back(FollowUp::Message(Box::new(MessageFollowUp::AckClose(k))));
            }
            MessageFollowUp::AckClose(k) => {
                if let Some(s) = self.messaging.subscriptions.remove(&k) {
                    let value = self.subscription_value(&s, None, None);
                    self.event(
                        ValueType::ProcessMessageSubscription,
                        OtherIntent::Deleted,
                        Some(k),
                        value,
                    );
                }
            }
        }
    }

    /// `MESSAGE_SUBSCRIPTION CREATE`: the message side exists from now on and takes the oldest
    /// buffered message it may.
    fn message_side_open(&mut self, k: Key) {
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
        let value = self.subscription_value(&s, None, None);
        self.event(
            ValueType::MessageSubscription,
            OtherIntent::Created,
            Some(ms_key),
            value,
        );
        if closing || !self.correlate_next_buffered(k) {
            self.queue
                .push_back(FollowUp::Message(Box::new(MessageFollowUp::AckOpen(k))));
        }
    }

    /// Zeebe's `MessageCorrelator.correlateNextMessage`: the oldest buffered message with the
    /// subscription's name and key that is not expired and not yet correlated to its process id.
    fn correlate_next_buffered(&mut self, k: Key) -> bool {
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
    fn message_side_correlating(&mut self, k: Key, message: Key, variables: Arc<VariableDocument>) {
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
    fn correlate_process_side(&mut self, k: Key, message: Key, variables: Arc<VariableDocument>) {
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

    fn reject_correlation(
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
            let bpmn_id = self.processes[s.proc.0 as usize].bpmn_process_id.clone();
            if let Some(m) = self.messaging.messages.get_mut(&message)
                && let Some(pos) = m.correlated.iter().position(|p| *p == bpmn_id)
            {
                m.correlated.remove(pos);
            }
        }
    }

    /// `MESSAGE_SUBSCRIPTION CORRELATE`: the message side learns the correlation happened; an
    /// interrupting subscription is gone, a non-interrupting one takes the next buffered message.
    fn message_side_correlated(&mut self, k: Key, message: Key) {
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

    /// Publishes a message: it correlates to the open subscriptions with its name and
    /// correlation key (at most once per BPMN process id, catch events first, then message start
    /// events) and stays buffered for its time to live.
    pub fn publish_message(&mut self, message: PublishMessage) -> Result<Key, Rejection> {
        self.record(|| super::Command::PublishMessage(message.clone()));
        let start = self.begin();
        self.expire_messages();
        let name: Arc<str> = Arc::from(message.name.as_str());
        let ck: Arc<str> = Arc::from(message.correlation_key.as_str());
        let variables = Arc::new(message.variables);
        if let Some(id) = &message.message_id {
            let duplicate = self
                .messaging
                .buffered
                .range((name.clone(), ck.clone(), 0)..=(name.clone(), ck.clone(), Key::MAX))
                .any(|(_, _, m)| {
                    self.messaging.messages[m]
                        .message_id
                        .as_deref()
                        .is_some_and(|x| x == id)
                });
            if duplicate {
                let value = self.message_value(
                    &name,
                    &ck,
                    message.time_to_live_ms,
                    -1,
                    message.message_id.as_deref(),
                    &variables,
                );
                return Err(self.reject(
                    ValueType::Message,
                    Intent::Other(OtherIntent::Publish),
                    None,
                    value,
                    Rejection::new(
                        RejectionType::AlreadyExists,
                        format!(
                            "Expected to publish a new message with id '{id}', but a message with that id was already published"
                        ),
                    ),
                ));
            }
        }
        let key = self.new_key();
        let deadline = self.now.saturating_add(message.time_to_live_ms);
        let value = self.message_value(
            &name,
            &ck,
            message.time_to_live_ms,
            deadline,
            message.message_id.as_deref(),
            &variables,
        );
        self.event(
            ValueType::Message,
            OtherIntent::Published,
            Some(key),
            value.clone(),
        );
        let mut correlated = self.correlate_to_catch_events(key, &name, &ck, &variables);
        self.correlate_to_start_events(key, &name, &ck, &variables, &mut correlated);
        if message.time_to_live_ms <= 0 {
            self.event(ValueType::Message, OtherIntent::Expired, Some(key), value);
        } else {
            self.messaging
                .buffered
                .insert((name.clone(), ck.clone(), key));
            self.messaging.messages.insert(
                key,
                StoredMessage {
                    key,
                    name,
                    correlation_key: ck,
                    time_to_live: message.time_to_live_ms,
                    deadline,
                    message_id: message.message_id.as_deref().map(Arc::from),
                    variables,
                    correlated,
                },
            );
        }
        self.run(start)?;
        Ok(key)
    }

    /// Correlates a message synchronously: no buffering; rejected `NOT_FOUND` when nothing waits
    /// for it. Answers the process instance it reached (a newly started one is preferred).
    pub fn correlate_message(
        &mut self,
        name: &str,
        correlation_key: &str,
        variables: VariableDocument,
    ) -> Result<MessageCorrelation, Rejection> {
        self.record(|| super::Command::CorrelateMessage {
            name: name.to_owned(),
            correlation_key: correlation_key.to_owned(),
            variables: variables.clone(),
        });
        let start = self.begin();
        self.expire_messages();
        let name: Arc<str> = Arc::from(name);
        let ck: Arc<str> = Arc::from(correlation_key);
        let variables = Arc::new(variables);
        let (catches, starts, blocked) = self.correlation_candidates(&name, &ck);
        if catches.is_empty() && starts.is_empty() {
            let message = if blocked.is_empty() {
                format!(
                    "Expected to find subscription for message with name '{name}' and correlation key '{ck}', but none was found."
                )
            } else {
                format!(
                    "Expected to find subscription for message with name '{name}' and correlation key '{ck}', but no active subscription was found. A process instance with this correlation key is already active for a message start event with this message name in process IDs [{}]. Only one active process instance per correlation key is allowed for message start events.",
                    blocked.join(", ")
                )
            };
            let value = self.message_value(&name, &ck, -1, -1, None, &variables);
            return Err(self.reject(
                ValueType::MessageCorrelation,
                Intent::Other(OtherIntent::Correlate),
                None,
                value,
                Rejection::new(RejectionType::NotFound, message),
            ));
        }
        let key = self.new_key();
        let value = self.message_value(&name, &ck, -1, -1, None, &variables);
        self.event(
            ValueType::Message,
            OtherIntent::Published,
            Some(key),
            value.clone(),
        );
        self.event(
            ValueType::MessageCorrelation,
            OtherIntent::Correlating,
            Some(key),
            value.clone(),
        );
        self.messaging.correlate_request = Some(CorrelateRequest {
            message: key,
            value: value.clone(),
            reached: None,
        });
        let mut correlated = self.correlate_to_catch_events(key, &name, &ck, &variables);
        let first_start =
            self.correlate_to_start_events(key, &name, &ck, &variables, &mut correlated);
        if let Some(pi) = first_start
            && let Some(r) = &mut self.messaging.correlate_request
        {
            // A newly started instance is the answer; the catch events still get the message.
            r.reached = Some(pi);
            self.event(
                ValueType::MessageCorrelation,
                OtherIntent::Correlated,
                Some(key),
                value.clone(),
            );
        }
        self.event(ValueType::Message, OtherIntent::Expired, Some(key), value);
        let result = self.run(start);
        let reached = self
            .messaging
            .correlate_request
            .take()
            .and_then(|r| r.reached);
        result?;
        Ok(MessageCorrelation {
            message_key: key,
            process_instance_key: reached.unwrap_or_default(),
        })
    }

    /// Subscriptions a message would correlate to now: catch subscriptions, start
    /// subscriptions, and the process ids blocked by an active instance with the same key.
    fn correlation_candidates(
        &self,
        name: &Arc<str>,
        ck: &Arc<str>,
    ) -> (Vec<Key>, Vec<Key>, Vec<String>) {
        let mut ids: Vec<Arc<str>> = Vec::new();
        let mut catches = Vec::new();
        for (_, _, _, k) in self.messaging.by_name_and_key.range(
            (name.clone(), ck.clone(), 0, 0)..=(name.clone(), ck.clone(), Key::MAX, Key::MAX),
        ) {
            let s = &self.messaging.subscriptions[k];
            let id = self.process(s.proc).bpmn_process_id.clone();
            if s.correlating.is_none() && !ids.contains(&id) {
                ids.push(id);
                catches.push(*k);
            }
        }
        let mut starts = Vec::new();
        let mut blocked = Vec::new();
        for s in self.messaging.start_subscriptions.values() {
            if s.name != *name {
                continue;
            }
            let id = self.process(s.proc).bpmn_process_id.clone();
            if ids.contains(&id) {
                continue;
            }
            if ck.is_empty()
                || !self
                    .messaging
                    .start_locks
                    .contains(&(id.clone(), ck.clone()))
            {
                ids.push(id);
                starts.push(s.key);
            } else {
                blocked.push(id.to_string());
            }
        }
        (catches, starts, blocked)
    }

    fn message_value(
        &self,
        name: &Arc<str>,
        ck: &Arc<str>,
        ttl: i64,
        deadline: i64,
        message_id: Option<&str>,
        variables: &Arc<VariableDocument>,
    ) -> RecordValue {
        RecordValue::Message(Box::new(super::records::MessageValue {
            name: name.clone(),
            correlation_key: ck.clone(),
            time_to_live: ttl,
            deadline,
            message_id: message_id.map(Arc::from),
            variables: variables.clone(),
        }))
    }

    /// Reserves the message for the open catch subscriptions (one per process id) and sends the
    /// correlations. Returns the process ids it went to.
    fn correlate_to_catch_events(
        &mut self,
        message: Key,
        name: &Arc<str>,
        ck: &Arc<str>,
        variables: &Arc<VariableDocument>,
    ) -> Vec<Arc<str>> {
        let (catches, _, _) = self.correlation_candidates(name, ck);
        let mut ids = Vec::new();
        for k in catches {
            let proc = self.messaging.subscriptions[&k].proc;
            ids.push(self.process(proc).bpmn_process_id.clone());
            self.message_side_correlating(k, message, variables.clone());
        }
        ids
    }

    /// Starts instances of the processes whose message start event waits for this message
    /// (skipping process ids already reached and those with an active instance for the key).
    /// Returns the first instance started.
    fn correlate_to_start_events(
        &mut self,
        message: Key,
        name: &Arc<str>,
        ck: &Arc<str>,
        variables: &Arc<VariableDocument>,
        correlated: &mut Vec<Arc<str>>,
    ) -> Option<Key> {
        let subs: Vec<Key> = self
            .messaging
            .start_subscriptions
            .values()
            .filter(|s| s.name == *name)
            .map(|s| s.key)
            .collect();
        let mut first = None;
        for k in subs {
            let proc = self.messaging.start_subscriptions[&k].proc;
            let id = self.process(proc).bpmn_process_id.clone();
            if correlated.contains(&id) {
                continue;
            }
            if !ck.is_empty()
                && self
                    .messaging
                    .start_locks
                    .contains(&(id.clone(), ck.clone()))
            {
                continue;
            }
            correlated.push(id);
            let pi = self.trigger_message_start(k, message, ck, variables.clone());
            first.get_or_insert(pi);
        }
        first
    }

    /// Writes `MESSAGE_START_EVENT_SUBSCRIPTION CORRELATED` and starts a process instance at the
    /// message start event.
    fn trigger_message_start(
        &mut self,
        subscription: Key,
        message: Key,
        ck: &Arc<str>,
        variables: Arc<VariableDocument>,
    ) -> Key {
        let s = self.messaging.start_subscriptions[&subscription].clone();
        let pi = self.new_key();
        self.event(
            ValueType::MessageStartEventSubscription,
            OtherIntent::Correlated,
            Some(subscription),
            RecordValue::Subscription(Box::new(SubscriptionValue {
                proc: s.proc,
                process_instance_key: Some(pi),
                element_instance_key: None,
                element: s.element,
                message_name: s.name.clone(),
                correlation_key: ck.clone(),
                message_key: Some(message),
                interrupting: true,
                variables: Some(variables.clone()),
            })),
        );
        let p = self.process(s.proc).clone();
        if !ck.is_empty() {
            let lock = (p.bpmn_process_id.clone(), ck.clone());
            self.messaging.start_locks.insert(lock.clone());
            self.messaging.lock_of_instance.insert(pi, lock);
        }
        self.messaging
            .correlated
            .entry(pi)
            .or_default()
            .push(CorrelatedMessageView {
                message_key: message,
                message_name: s.name.clone(),
                correlation_key: ck.clone(),
                process_instance_key: pi,
                element_id: p.element(s.element).id.clone(),
                element_instance_key: None,
            });
        let vars = (!variables.is_empty()).then_some(variables);
        self.start_instance_at_event(s.proc, pi, s.element, vars);
        pi
    }

    /// Queues the activation of a new process instance that starts at an event start event
    /// (message, timer, signal).
    pub(crate) fn start_instance_at_event(
        &mut self,
        proc: ProcIdx,
        pi: Key,
        element: ElementIdx,
        variables: Option<Arc<VariableDocument>>,
    ) {
        self.event_starts
            .insert(pi, EventTrigger { element, variables });
        self.queue_process_activation(
            proc,
            pi,
            Arc::new(VariableDocument::new()),
            Arc::new(Vec::new()),
        );
    }

    /// A process instance ended: if a message started it with a correlation key, the next
    /// buffered message with that key may start the next instance.
    pub(crate) fn release_message_start_lock(&mut self, pi: Key) {
        let Some((id, ck)) = self.messaging.lock_of_instance.remove(&pi) else {
            return;
        };
        self.messaging.start_locks.remove(&(id.clone(), ck.clone()));
        let Some(&proc) = self.latest.get(&*id) else {
            return;
        };
        let now = self.now;
        let mut best: Option<(Key, Key)> = None;
        for s in self.messaging.start_subscriptions.values() {
            if s.proc != proc {
                continue;
            }
            let found = self
                .messaging
                .buffered
                .range((s.name.clone(), ck.clone(), 0)..=(s.name.clone(), ck.clone(), Key::MAX))
                .map(|(_, _, m)| *m)
                .find(|m| {
                    let msg = &self.messaging.messages[m];
                    msg.deadline > now && !msg.correlated.contains(&id)
                });
            if let Some(m) = found
                && best.is_none_or(|(b, _)| m < b)
            {
                best = Some((m, s.key));
            }
        }
        if let Some((m, sub)) = best {
            let msg = self.messaging.messages.get_mut(&m).expect("buffered");
            msg.correlated.push(id);
            let variables = msg.variables.clone();
            self.trigger_message_start(sub, m, &ck, variables);
        }
    }

    /// Opens the message start subscriptions of a newly deployed latest version, closing those
    /// of the version it replaces.
    pub(crate) fn open_message_start_subscriptions(
        &mut self,
        previous: Option<ProcIdx>,
        proc: ProcIdx,
    ) {
        if let Some(prev) = previous {
            let old: Vec<Key> = self
                .messaging
                .start_subscriptions
                .values()
                .filter(|s| s.proc == prev)
                .map(|s| s.key)
                .collect();
            for k in old {
                let s = self
                    .messaging
                    .start_subscriptions
                    .remove(&k)
                    .expect("exists");
                self.event(
                    ValueType::MessageStartEventSubscription,
                    OtherIntent::Deleted,
                    Some(k),
                    RecordValue::Subscription(Box::new(SubscriptionValue {
                        proc: s.proc,
                        process_instance_key: None,
                        element_instance_key: None,
                        element: s.element,
                        message_name: s.name.clone(),
                        correlation_key: Arc::from(""),
                        message_key: None,
                        interrupting: true,
                        variables: None,
                    })),
                );
            }
        }
        let p = self.process(proc).clone();
        for &e in &p.event_start_events {
            let EventDef::Message { name, .. } = &p.element(e).event else {
                continue;
            };
            // Start event message names are evaluated at deployment, without variables.
            let name = match name {
                Some(x) => match self.eval(x, 0, None) {
                    Ok(Json::String(s)) => s,
                    _ => x.text(),
                },
                None => String::new(),
            };
            let key = self.new_key();
            let s = MessageStartSubscription {
                key,
                proc,
                element: e,
                name: Arc::from(name.as_str()),
            };
            self.event(
                ValueType::MessageStartEventSubscription,
                OtherIntent::Created,
                Some(key),
                RecordValue::Subscription(Box::new(SubscriptionValue {
                    proc,
                    process_instance_key: None,
                    element_instance_key: None,
                    element: e,
                    message_name: s.name.clone(),
                    correlation_key: Arc::from(""),
                    message_key: None,
                    interrupting: true,
                    variables: None,
                })),
            );
            self.messaging.start_subscriptions.insert(key, s);
        }
    }

    /// Buffered messages whose time to live is over are removed (`MESSAGE EXPIRED`), oldest
    /// first.
    pub(crate) fn expire_messages(&mut self) {
        let now = self.now;
        let expired: Vec<Key> = self
            .messaging
            .messages
            .values()
            .filter(|m| m.deadline <= now)
            .map(|m| m.key)
            .collect();
        for k in expired {
            let m = self.messaging.messages.remove(&k).expect("exists");
            self.messaging
                .buffered
                .remove(&(m.name.clone(), m.correlation_key.clone(), k));
            let value = self.message_value(
                &m.name,
                &m.correlation_key,
                m.time_to_live,
                m.deadline,
                m.message_id.as_deref(),
                &m.variables,
            );
            self.event(ValueType::Message, OtherIntent::Expired, Some(k), value);
        }
    }

    /// The open message subscriptions of a process instance (its elements and their scopes), by
    /// key.
    pub fn message_subscriptions(&self, process_instance_key: Key) -> Vec<MessageSubscriptionView> {
        self.messaging
            .subscriptions
            .values()
            .filter(|s| {
                s.process_instance_key == process_instance_key
                    && matches!(s.process_side, ProcessSide::Opening | ProcessSide::Opened)
            })
            .map(|s| {
                let p = self.process(s.proc);
                MessageSubscriptionView {
                    key: s.key,
                    process_instance_key: s.process_instance_key,
                    element_instance_key: s.element_instance_key,
                    bpmn_process_id: p.bpmn_process_id.clone(),
                    element_id: p.element(s.element).id.clone(),
                    message_name: s.name.clone(),
                    correlation_key: s.correlation_key.clone(),
                    interrupting: s.interrupting,
                }
            })
            .collect()
    }

    /// Every open message subscription, by key.
    pub fn all_message_subscriptions(&self) -> Vec<MessageSubscriptionView> {
        let mut pis: Vec<Key> = self
            .messaging
            .subscriptions
            .values()
            .map(|s| s.process_instance_key)
            .collect();
        pis.sort_unstable();
        pis.dedup();
        let mut out: Vec<MessageSubscriptionView> = pis
            .into_iter()
            .flat_map(|pi| self.message_subscriptions(pi))
            .collect();
        out.sort_by_key(|s| s.key);
        out
    }

    /// The messages correlated to a process instance, in correlation order (a message that
    /// started it comes first).
    pub fn correlated_messages(&self, process_instance_key: Key) -> Vec<CorrelatedMessageView> {
        self.messaging
            .correlated
            .get(&process_instance_key)
            .cloned()
            .unwrap_or_default()
    }

    /// Messages buffered now, oldest first.
    pub fn buffered_messages(&self) -> Vec<BufferedMessageView> {
        self.messaging
            .messages
            .values()
            .map(|m| BufferedMessageView {
                key: m.key,
                name: m.name.clone(),
                correlation_key: m.correlation_key.clone(),
                deadline: m.deadline,
                message_id: m.message_id.clone(),
                variables: m.variables.clone(),
            })
            .collect()
    }

    /// Message names the latest process versions start on: (BPMN process id, start event id,
    /// message name).
    pub fn message_start_subscriptions(&self) -> Vec<(Arc<str>, Arc<str>, Arc<str>)> {
        self.messaging
            .start_subscriptions
            .values()
            .map(|s| {
                let p = self.process(s.proc);
                (
                    p.bpmn_process_id.clone(),
                    p.element(s.element).id.clone(),
                    s.name.clone(),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn correlation_keys_are_strings_or_integer_parts() {
        assert_eq!(
            correlation_key_text(&json!("a-1"), "x", &[]).unwrap(),
            "a-1"
        );
        assert_eq!(correlation_key_text(&json!(12), "x", &[]).unwrap(), "12");
        assert_eq!(correlation_key_text(&json!(12.7), "x", &[]).unwrap(), "12");
        assert_eq!(correlation_key_text(&json!(-3.9), "x", &[]).unwrap(), "-3");
        let f = correlation_key_text(
            &json!(null),
            "x",
            &[baton_feel::Warning {
                kind: baton_feel::WarningKind::NoVariableFound,
                message: "No variable found with name 'x'".to_string(),
            }],
        )
        .unwrap_err();
        assert_eq!(f.error_type, ErrorType::ExtractValueError);
        assert_eq!(
            f.message,
            "Failed to extract the correlation key for 'x': The value must be either a string or a number, but was 'NULL'. The evaluation reported the following warnings:\n[NO_VARIABLE_FOUND] No variable found with name 'x'"
        );
        let f = correlation_key_text(&json!([1]), "x", &[]).unwrap_err();
        assert!(f.message.ends_with("but was 'ARRAY'."), "{}", f.message);
    }
}
