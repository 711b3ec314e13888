//! `POST /v2/deployments`: what a deployment created, resource by resource.

use serde::{Deserialize, Serialize};

use crate::Key;

/// The answer to a deployment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentResult {
    pub deployment_key: Key,
    pub tenant_id: String,
    pub deployments: Vec<DeploymentMetadata>,
}

/// One deployed thing: exactly one of the fields is set, the others are `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentMetadata {
    pub process_definition: Option<DeployedProcess>,
    pub decision_definition: Option<DeployedDecision>,
    pub decision_requirements: Option<DeployedDecisionRequirements>,
    pub form: Option<DeployedForm>,
    pub resource: Option<DeployedResource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployedProcess {
    pub process_definition_id: String,
    pub process_definition_version: i32,
    pub resource_name: String,
    pub tenant_id: String,
    pub process_definition_key: Key,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployedDecision {
    pub decision_definition_id: String,
    pub version: i32,
    pub name: String,
    pub tenant_id: String,
    pub decision_requirements_id: String,
    pub decision_definition_key: Key,
    pub decision_requirements_key: Key,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployedDecisionRequirements {
    pub decision_requirements_id: String,
    pub decision_requirements_name: String,
    pub version: i32,
    pub resource_name: String,
    pub tenant_id: String,
    pub decision_requirements_key: Key,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployedForm {
    pub form_id: String,
    pub version: i32,
    pub resource_name: String,
    pub tenant_id: String,
    pub form_key: Key,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployedResource {
    pub resource_id: String,
    pub resource_name: String,
    pub version: i32,
    pub tenant_id: String,
    pub resource_key: Key,
}
