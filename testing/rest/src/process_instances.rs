//! `POST /v2/process-instances` (create) and the process instance as reads return it.

use serde::{Deserialize, Serialize};

use crate::{Key, Variables};

/// Create a process instance: by BPMN process id (latest version, or `processDefinitionVersion`)
/// or by process definition key; at least one of the two.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CreateProcessInstanceRequest {
    pub process_definition_id: Option<String>,
    pub process_definition_key: Option<Key>,
    /// `-1` (or absent): the latest version.
    pub process_definition_version: Option<i32>,
    pub variables: Option<Variables>,
    pub tenant_id: Option<String>,
    pub operation_reference: Option<i64>,
    pub start_instructions: Vec<StartInstruction>,
    pub runtime_instructions: Vec<RuntimeInstruction>,
    /// Answer only when the instance completed (or `requestTimeout` passed: 504).
    pub await_completion: bool,
    /// With `awaitCompletion`: the variables to return (all when empty).
    pub fetch_variables: Vec<String>,
    /// With `awaitCompletion`, in milliseconds; 0: the server's default.
    pub request_timeout: i64,
    pub tags: Vec<String>,
    pub business_id: Option<String>,
}

/// Start before this element instead of at the none start event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartInstruction {
    pub element_id: String,
}

/// `{"type": "TERMINATE_PROCESS_INSTANCE", "afterElementId": ...}`: terminate the instance once
/// the element completes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuntimeInstruction {
    #[serde(rename = "type", default)]
    pub instruction_type: Option<String>,
    pub after_element_id: String,
}

/// The answer to a create.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateProcessInstanceResult {
    pub process_definition_id: String,
    pub process_definition_version: i32,
    pub tenant_id: String,
    pub variables: Variables,
    pub process_definition_key: Key,
    pub process_instance_key: Key,
    pub tags: Vec<String>,
    pub business_id: Option<String>,
}

/// `POST /v2/process-instances/{key}/cancellation`: an optional body.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CancelProcessInstanceRequest {
    pub operation_reference: Option<i64>,
}

/// A process instance as `GET /v2/process-instances/{key}` and the search return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessInstanceResult {
    pub process_definition_id: String,
    pub process_definition_name: Option<String>,
    pub process_definition_version: i32,
    pub process_definition_version_tag: Option<String>,
    /// RFC 3339.
    pub start_date: String,
    pub end_date: Option<String>,
    /// `ACTIVE`, `COMPLETED` or `TERMINATED`.
    pub state: String,
    pub has_incident: bool,
    pub tenant_id: String,
    pub process_instance_key: Key,
    pub process_definition_key: Key,
    pub parent_process_instance_key: Option<Key>,
    pub parent_element_instance_key: Option<Key>,
    pub root_process_instance_key: Option<Key>,
    pub tags: Vec<String>,
    pub business_id: Option<String>,
    /// 8.10: when the instance was suspended.
    pub suspended_date: Option<String>,
}
