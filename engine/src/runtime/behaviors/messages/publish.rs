//! Publishing and correlating messages: a published message goes to the catch subscriptions
//! with its name and correlation key (at most once per BPMN process id), then to message start
//! events, and stays buffered for its time to live; the synchronous correlate command buffers
//! nothing.

use std::sync::Arc;

use crate::runtime::command::{MessageCorrelation, PublishMessage};
use crate::runtime::engine::Engine;
use crate::runtime::records::{
    Intent, Key, MessageValue, OtherIntent, RecordValue, Rejection, RejectionType, ValueType,
    VariableDocument,
};
use crate::runtime::state::messages::{CorrelateRequest, StoredMessage};

impl Engine {
    /// Carries out the command of [`Engine::publish_message`].
    pub(crate) fn apply_publish_message(
        &mut self,
        message: PublishMessage,
    ) -> Result<Key, Rejection> {
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

    /// Carries out the command of [`Engine::correlate_message`].
    pub(crate) fn apply_correlate_message(
        &mut self,
        name: &str,
        correlation_key: &str,
        variables: VariableDocument,
    ) -> Result<MessageCorrelation, Rejection> {
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
    pub(crate) fn correlation_candidates(
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

    pub(crate) fn message_value(
        &self,
        name: &Arc<str>,
        ck: &Arc<str>,
        ttl: i64,
        deadline: i64,
        message_id: Option<&str>,
        variables: &Arc<VariableDocument>,
    ) -> RecordValue {
        RecordValue::Message(Box::new(MessageValue {
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
    pub(crate) fn correlate_to_catch_events(
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
}
