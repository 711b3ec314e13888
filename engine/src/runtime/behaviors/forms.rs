//! Forms: `.form` resources deployed with the processes (the form's id is the JSON's `id`,
//! its version tag `versionTag`), and the resolution of a Camunda user task's linked form
//! (`zeebe:formDefinition formId` with `bindingType` latest, deployment or versionTag); a form
//! that cannot be found is a `FORM_NOT_FOUND` incident.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::runtime::engine::Engine;
use crate::runtime::records::{
    ErrorType, Key, OtherIntent, RecordValue, Rejection, RejectionType, ValueType,
};
use crate::runtime::state::deployments::DeployedForm;
use crate::runtime::step::StepFailure;

/// Reads a form resource: its `id` (and `versionTag`).
pub(crate) fn parse_form(
    name: &str,
    content: &[u8],
) -> Result<(String, Option<String>), Rejection> {
    let bad = |why: String| {
        Rejection::new(
            RejectionType::InvalidArgument,
            format!(
                "Expected to deploy new resources, but encountered the following errors:\n'{name}': {why}"
            ),
        )
    };
    let json: Json =
        serde_json::from_slice(content).map_err(|e| bad(format!("the form is not JSON: {e}")))?;
    let id = match json.get("id") {
        Some(Json::String(id)) if !id.is_empty() => id.clone(),
        _ => {
            return Err(bad(
                "Expected the form to have a non-empty string 'id'".into()
            ));
        }
    };
    let tag = json
        .get("versionTag")
        .and_then(Json::as_str)
        .map(str::to_owned);
    Ok((id, tag))
}

impl Engine {
    /// Stores a form version (a new version of its id) and writes `FORM CREATED`.
    pub(crate) fn deploy_form(
        &mut self,
        resource_name: &str,
        form_id: String,
        version_tag: Option<String>,
        deployment_key: Key,
    ) -> Key {
        let version = self
            .deployed
            .forms
            .iter()
            .filter(|f| *f.form_id == *form_id)
            .map(|f| f.version)
            .max()
            .unwrap_or(0)
            + 1;
        let key = self.new_key();
        let form = DeployedForm {
            key,
            form_id: Arc::from(form_id.as_str()),
            version,
            version_tag: version_tag.as_deref().map(Arc::from),
            deployment_key,
            resource_name: Arc::from(resource_name),
        };
        self.event(
            ValueType::Form,
            OtherIntent::Created,
            Some(key),
            RecordValue::Form {
                form_id: form.form_id.clone(),
                version,
            },
        );
        self.deployed.forms.push(form);
        key
    }

    /// The form a user task links to, as its binding type says.
    pub(crate) fn resolve_form(
        &self,
        form_id: &str,
        binding: Option<&str>,
        version_tag: Option<&str>,
        deployment_key: Key,
    ) -> Result<Key, StepFailure> {
        let same_id = || {
            self.deployed
                .forms
                .iter()
                .filter(|f| *f.form_id == *form_id)
        };
        match binding {
            Some("deployment") => same_id()
                .find(|f| f.deployment_key == deployment_key)
                .map(|f| f.key)
                .ok_or_else(|| {
                    StepFailure::new(
                        ErrorType::FormNotFound,
                        format!(
                            "Expected to use a form with id '{form_id}' with binding type 'deployment', but no such form found in the deployment with key {deployment_key} which contained the current process. To resolve this incident, migrate the process instance to a process definition that is deployed together with the intended form to use."
                        ),
                    )
                }),
            Some("versionTag") => same_id()
                .filter(|f| f.version_tag.as_deref() == version_tag)
                .max_by_key(|f| f.version)
                .map(|f| f.key)
                .ok_or_else(|| {
                    StepFailure::new(
                        ErrorType::FormNotFound,
                        format!(
                            "Expected to use a form with id '{form_id}' and version tag '{}', but no such form found. To resolve the incident, deploy a form with the given id and version tag.\n",
                            version_tag.unwrap_or_default()
                        ),
                    )
                }),
            _ => same_id().max_by_key(|f| f.version).map(|f| f.key).ok_or_else(|| {
                StepFailure::new(
                    ErrorType::FormNotFound,
                    format!(
                        "Expected to find a form with id '{form_id}', but no form with this id is found, at least a form with this id should be available. To resolve the Incident please deploy a form with the same id"
                    ),
                )
            }),
        }
    }

    /// Every deployed form version, in deployment order.
    pub fn deployed_forms(&self) -> &[DeployedForm] {
        &self.deployed.forms
    }
}
