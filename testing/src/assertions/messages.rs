//! Checks of message subscriptions: waiting, not waiting, correlated.

use super::{Outcome, Subject};

/// The state of a message subscription of a process instance (CPT's `IS_WAITING`,
/// `IS_NOT_WAITING`, `IS_CORRELATED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionState {
    /// A subscription with the name (and key) is open.
    Waiting,
    /// No subscription with the name (and key) is open.
    NotWaiting,
    /// A message with the name (and key) was correlated to the instance.
    Correlated,
}

impl<'a> Subject<'a> {
    pub(super) fn check_subscription(
        &self,
        name: &str,
        key: Option<&str>,
        state: SubscriptionState,
    ) -> Outcome {
        let message = match key {
            Some(k) => format!("message \"{name}\" with correlation key \"{k}\""),
            None => format!("message \"{name}\""),
        };
        let open = self.engine.message_subscriptions(self.instance);
        let waiting = open
            .iter()
            .any(|s| &*s.message_name == name && key.is_none_or(|k| &*s.correlation_key == k));
        let open_text = || {
            if open.is_empty() {
                "it waits for no message".to_owned()
            } else {
                format!(
                    "it waits for {}",
                    open.iter()
                        .map(|s| format!(
                            "\"{}\" (key \"{}\") at \"{}\"",
                            s.message_name, s.correlation_key, s.element_id
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        };
        match state {
            SubscriptionState::Waiting if !waiting => {
                Err((format!("{} to wait for {message}", self.who()), open_text()))
            }
            SubscriptionState::NotWaiting if waiting => Err((
                format!("{} not to wait for {message}", self.who()),
                open_text(),
            )),
            SubscriptionState::Correlated => {
                let got = self.engine.correlated_messages(self.instance);
                if got.iter().any(|m| {
                    &*m.message_name == name && key.is_none_or(|k| &*m.correlation_key == k)
                }) {
                    return Ok(());
                }
                let actual = if got.is_empty() {
                    "no message was correlated to it".to_owned()
                } else {
                    format!(
                        "the messages correlated to it are {}",
                        got.iter()
                            .map(|m| format!(
                                "\"{}\" (key \"{}\") at \"{}\"",
                                m.message_name, m.correlation_key, m.element_id
                            ))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                Err((format!("{} to have received {message}", self.who()), actual))
            }
            _ => Ok(()),
        }
    }
}
