//! `/v2/messages/publication`, `/v2/messages/correlation`, `/v2/signals/broadcast`.

use serde::{Deserialize, Serialize};

use crate::{Key, Variables};

/// Publish a message, buffered for `timeToLive` milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MessagePublicationRequest {
    pub name: String,
    #[serde(default)]
    pub correlation_key: String,
    #[serde(default)]
    pub time_to_live: i64,
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub variables: Option<Variables>,
    #[serde(default)]
    pub tenant_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessagePublicationResult {
    pub tenant_id: String,
    pub message_key: Key,
}

/// Correlate a message now (not buffered).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MessageCorrelationRequest {
    pub name: String,
    #[serde(default)]
    pub correlation_key: String,
    #[serde(default)]
    pub variables: Option<Variables>,
    #[serde(default)]
    pub tenant_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageCorrelationResult {
    pub tenant_id: String,
    pub message_key: Key,
    pub process_instance_key: Key,
}

/// Broadcast a signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignalBroadcastRequest {
    pub signal_name: String,
    #[serde(default)]
    pub variables: Option<Variables>,
    #[serde(default)]
    pub tenant_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignalBroadcastResult {
    pub tenant_id: String,
    pub signal_key: Key,
}
