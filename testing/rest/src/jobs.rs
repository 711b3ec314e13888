//! `/v2/jobs`: activation (long polling), completion, failure, BPMN error, update.

use serde::{Deserialize, Serialize};

use crate::{Key, Variables};

/// `POST /v2/jobs/activation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobActivationRequest {
    #[serde(rename = "type")]
    pub job_type: String,
    #[serde(default)]
    pub worker: Option<String>,
    /// How long the worker holds the jobs, in milliseconds.
    pub timeout: i64,
    pub max_jobs_to_activate: i32,
    /// Only these variables (all when absent or empty).
    #[serde(default)]
    pub fetch_variable: Option<Vec<String>>,
    /// How long to wait for a job, in milliseconds: 0 (or absent) the server's default, below 0
    /// answer at once.
    #[serde(default)]
    pub request_timeout: Option<i64>,
    #[serde(default)]
    pub tenant_ids: Option<Vec<String>>,
    #[serde(default)]
    pub tenant_filter: Option<String>,
    /// 8.10: hand out a lease token (not supported: ignored).
    #[serde(default)]
    pub with_lease: Option<bool>,
}

/// The answer to an activation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobActivationResult {
    pub jobs: Vec<ActivatedJob>,
}

/// One activated job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivatedJob {
    #[serde(rename = "type")]
    pub job_type: String,
    pub process_definition_id: String,
    pub process_definition_version: i32,
    pub element_id: String,
    pub custom_headers: serde_json::Map<String, serde_json::Value>,
    pub worker: String,
    pub retries: i32,
    /// Epoch milliseconds.
    pub deadline: i64,
    pub variables: Variables,
    pub tenant_id: String,
    pub job_key: Key,
    pub process_instance_key: Key,
    pub process_definition_key: Key,
    pub element_instance_key: Key,
    /// `BPMN_ELEMENT`, `EXECUTION_LISTENER`, `TASK_LISTENER`, `AD_HOC_SUB_PROCESS`.
    pub kind: String,
    /// `UNSPECIFIED`, `START`, `END`, `CREATING`, ...
    pub listener_event_type: String,
    pub user_task: Option<UserTaskProperties>,
    pub tags: Vec<String>,
    pub root_process_instance_key: Option<Key>,
    /// 8.10 additions.
    pub physical_tenant_id: String,
    pub business_id: Option<String>,
    pub priority: i32,
    pub lease_token: Option<String>,
}

/// The user task a task listener job is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserTaskProperties {
    pub action: String,
    pub assignee: Option<String>,
    pub candidate_groups: Vec<String>,
    pub candidate_users: Vec<String>,
    pub changed_attributes: Vec<String>,
    pub due_date: Option<String>,
    pub follow_up_date: Option<String>,
    pub form_key: Option<Key>,
    pub priority: Option<i32>,
    pub user_task_key: Option<Key>,
}

/// `POST /v2/jobs/{key}/completion`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct JobCompletionRequest {
    pub variables: Option<Variables>,
    pub result: Option<JobResult>,
}

/// The result of a completion, by its `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum JobResult {
    /// A task listener's answer.
    UserTask(UserTaskResult),
    /// The job of an ad-hoc sub-process (the AI agent): what to activate next.
    AdHocSubProcess(AdHocSubProcessResult),
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UserTaskResult {
    pub denied: Option<bool>,
    pub denied_reason: Option<String>,
    pub corrections: Option<Variables>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AdHocSubProcessResult {
    pub activate_elements: Vec<ActivateElement>,
    pub is_completion_condition_fulfilled: bool,
    pub is_cancel_remaining_instances: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ActivateElement {
    pub element_id: String,
    pub variables: Option<Variables>,
}

/// `POST /v2/jobs/{key}/failure`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct JobFailRequest {
    /// The retries left (default 0: an incident is raised).
    pub retries: i32,
    pub error_message: Option<String>,
    /// Milliseconds before the job can be activated again.
    pub retry_back_off: i64,
    pub variables: Option<Variables>,
}

/// `POST /v2/jobs/{key}/error`: throw a BPMN error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobErrorRequest {
    pub error_code: String,
    #[serde(default)]
    pub error_message: Option<String>,
    #[serde(default)]
    pub variables: Option<Variables>,
}

/// `PATCH /v2/jobs/{key}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobUpdateRequest {
    pub changeset: JobChangeset,
    #[serde(default)]
    pub operation_reference: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct JobChangeset {
    pub retries: Option<i32>,
    pub timeout: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ad_hoc_result_reads_by_its_type() {
        let r: JobCompletionRequest = serde_json::from_value(serde_json::json!({
            "variables": {"a": 1},
            "result": {"type": "adHocSubProcess", "activateElements": [{"elementId": "t", "variables": {"x": 1}}], "isCompletionConditionFulfilled": false}
        }))
        .unwrap();
        let Some(JobResult::AdHocSubProcess(ad_hoc)) = r.result else {
            panic!("{r:?}")
        };
        assert_eq!(ad_hoc.activate_elements[0].element_id, "t");
    }
}
