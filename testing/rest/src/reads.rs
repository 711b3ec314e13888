//! What the eventually consistent reads return, item by item: element instances, variables,
//! incidents, user tasks, jobs (the fields a client checks; unknown fields are ignored, so a
//! newer endpoint's additions read).

use serde::{Deserialize, Serialize};

use crate::Key;

/// An element instance (`POST /v2/element-instances/search`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementInstanceResult {
    pub process_definition_id: String,
    pub start_date: String,
    pub end_date: Option<String>,
    pub element_id: String,
    pub element_name: Option<String>,
    /// `PROCESS`, `SERVICE_TASK`, `USER_TASK`, ...
    #[serde(rename = "type")]
    pub element_type: String,
    /// `ACTIVE`, `COMPLETED` or `TERMINATED`.
    pub state: String,
    pub has_incident: bool,
    pub tenant_id: String,
    pub element_instance_key: Key,
    pub process_instance_key: Key,
    pub process_definition_key: Key,
    #[serde(default)]
    pub incident_key: Option<Key>,
}

/// A variable (`POST /v2/variables/search`): `value` is the JSON text of the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariableResult {
    pub name: String,
    pub value: String,
    pub tenant_id: String,
    pub variable_key: Key,
    pub scope_key: Key,
    pub process_instance_key: Key,
    #[serde(default)]
    pub is_truncated: bool,
}

/// An incident (`POST /v2/incidents/search`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IncidentResult {
    pub process_definition_id: String,
    pub error_type: String,
    pub error_message: String,
    pub element_id: String,
    pub creation_time: String,
    /// `ACTIVE`, `MIGRATED`, `RESOLVED`, `PENDING`.
    pub state: String,
    pub tenant_id: String,
    pub incident_key: Key,
    pub process_definition_key: Key,
    pub process_instance_key: Key,
    pub element_instance_key: Key,
    #[serde(default)]
    pub job_key: Option<Key>,
}

/// A user task (`POST /v2/user-tasks/search`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserTaskSearchResult {
    pub name: Option<String>,
    /// `CREATED`, `COMPLETED`, `CANCELED`, `FAILED`, ...
    pub state: String,
    pub assignee: Option<String>,
    pub element_id: String,
    #[serde(default)]
    pub candidate_groups: Vec<String>,
    #[serde(default)]
    pub candidate_users: Vec<String>,
    pub process_definition_id: String,
    pub due_date: Option<String>,
    pub follow_up_date: Option<String>,
    pub priority: Option<i32>,
    pub user_task_key: Key,
    pub element_instance_key: Key,
    pub process_instance_key: Key,
}

/// A job (`POST /v2/jobs/search`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSearchResult {
    #[serde(rename = "type")]
    pub job_type: String,
    pub element_id: String,
    pub process_definition_id: String,
    /// `CREATED`, `COMPLETED`, `FAILED`, `RETRIES_UPDATED`, `TIMED_OUT`, ...
    pub state: String,
    pub kind: String,
    pub retries: i32,
    pub job_key: Key,
    pub process_instance_key: Key,
    pub element_instance_key: Key,
}
