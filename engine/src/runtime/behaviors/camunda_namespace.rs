//! The `camunda` namespace of FEEL expressions (Zeebe 8.10): `camunda.vars.cluster.*`,
//! `camunda.vars.tenant.*` and `camunda.vars.env.*` (cluster variables), and
//! `camunda.processInstance.key` (the process instance evaluating the expression).
//!
//! Zeebe evaluates an expression against the process variables first and the namespace second,
//! the first name found winning whole (its `CombinedEvaluationContext`): a variable named
//! `camunda` hides the namespace.

use std::sync::Arc;

use serde_json::{Map, Value as Json, json};

use crate::runtime::engine::Engine;
use crate::runtime::records::{
    Key, OtherIntent, RecordValue, Rejection, RejectionType, ValueType, VariableDocument,
};
use crate::runtime::shared_json::SharedJson;

/// Zeebe's tenant of an engine without multi-tenancy: every process instance of baton's
/// engine belongs to it, so `camunda.vars.tenant.*` reads the variables set for this tenant.
pub const DEFAULT_TENANT: &str = "<default>";

impl Engine {
    /// The `camunda` namespace as an expression evaluated in `scope` sees it. Outside a process
    /// instance (timer start events, conditional start events: scope 0) `processInstance` has
    /// no key, so `camunda.processInstance.key` is null, as in Zeebe.
    pub(crate) fn camunda_namespace(&self, scope: Key) -> SharedJson {
        let mut process_instance = Map::new();
        if let Some(i) = self.instances.get(&scope) {
            process_instance.insert("key".into(), json!(i.process_instance_key));
        }
        let mut namespace = Map::new();
        namespace.insert(
            "vars".into(),
            self.cluster_variables.vars_json(DEFAULT_TENANT),
        );
        namespace.insert("processInstance".into(), Json::Object(process_instance));
        SharedJson::new(Json::Object(namespace))
    }

    /// Carries out [`Command::SetClusterVariables`](crate::runtime::Command::SetClusterVariables):
    /// each variable is created, or updated when the scope has it (`CLUSTER_VARIABLE CREATED` /
    /// `UPDATED`).
    pub(crate) fn apply_set_cluster_variables(
        &mut self,
        tenant_id: Option<String>,
        variables: VariableDocument,
    ) -> Result<(), Rejection> {
        if let Some(name) = variables.keys().find(|n| n.trim().is_empty()) {
            return Err(Rejection::new(
                RejectionType::InvalidArgument,
                format!("Expected a cluster variable name that is not blank, but was '{name}'"),
            ));
        }
        let tenant: Option<Arc<str>> = tenant_id.as_deref().map(Arc::from);
        for (name, value) in variables {
            let scope = self.cluster_variables.scope_mut(tenant_id.as_deref());
            let intent = if scope.contains_key(&name) {
                OtherIntent::Updated
            } else {
                OtherIntent::Created
            };
            scope.insert(name.clone(), value.clone());
            let key = self.new_key();
            self.event(
                ValueType::ClusterVariable,
                intent,
                Some(key),
                RecordValue::ClusterVariable {
                    name: Arc::from(name),
                    value: Arc::new(value),
                    tenant_id: tenant.clone(),
                },
            );
        }
        Ok(())
    }
}
