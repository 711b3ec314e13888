//! Cluster variables: values configured for the whole cluster or for one tenant, read in FEEL
//! through the `camunda.vars` namespace.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use crate::runtime::records::VariableDocument;

/// The cluster variables of an engine: the global ones and those of each tenant, each in the
/// order they were first set.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClusterVariables {
    pub(crate) global: VariableDocument,
    pub(crate) tenants: BTreeMap<String, VariableDocument>,
}

impl ClusterVariables {
    /// The scope a variable is set in: the tenant's, or the global one.
    pub(crate) fn scope_mut(&mut self, tenant_id: Option<&str>) -> &mut VariableDocument {
        match tenant_id {
            None => &mut self.global,
            Some(t) => self.tenants.entry(t.to_owned()).or_default(),
        }
    }

    /// `camunda.vars` as a process instance of `tenant_id` sees it: `cluster` (the global
    /// variables), `tenant` (its tenant's) and `env` (both, a tenant's value replacing the
    /// global one of the same name whole).
    pub(crate) fn vars_json(&self, tenant_id: &str) -> Json {
        let tenant = self.tenants.get(tenant_id);
        let object = |doc: &VariableDocument| {
            Json::Object(doc.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        };
        let mut env: Map<String, Json> = self
            .global
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in tenant.into_iter().flatten() {
            env.insert(k.clone(), v.clone());
        }
        let mut vars = Map::new();
        vars.insert("cluster".into(), object(&self.global));
        vars.insert(
            "tenant".into(),
            tenant.map_or_else(|| Json::Object(Map::new()), object),
        );
        vars.insert("env".into(), Json::Object(env));
        Json::Object(vars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn env_is_the_union_with_the_tenant_value_replacing_the_global_one_whole() {
        let mut vars = ClusterVariables::default();
        vars.scope_mut(None)
            .insert("CONFIG".into(), json!({"retry": 3, "url": "g"}));
        vars.scope_mut(None).insert("A".into(), json!("globalA"));
        vars.scope_mut(Some("t"))
            .insert("CONFIG".into(), json!({"url": "t"}));
        vars.scope_mut(Some("other")).insert("B".into(), json!(1));
        assert_eq!(
            vars.vars_json("t"),
            json!({
                "cluster": {"CONFIG": {"retry": 3, "url": "g"}, "A": "globalA"},
                "tenant": {"CONFIG": {"url": "t"}},
                "env": {"CONFIG": {"url": "t"}, "A": "globalA"},
            })
        );
        assert_eq!(vars.vars_json("none")["tenant"], json!({}));
    }
}
