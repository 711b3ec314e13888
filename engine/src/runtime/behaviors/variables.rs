//! Variables: scopes, lookups along the scope chain, Zeebe's propagating merge, local merges
//! and the set-variables command.

use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value as Json;

use crate::runtime::engine::Engine;
use crate::runtime::records::{
    Key, OtherIntent, ProcIdx, RecordValue, Rejection, RejectionType, SharedVariableDocument,
    ValueType, VariableDocument, VariableValue,
};
use crate::runtime::shared_json::SharedJson;
use crate::runtime::state::instances::Var;

impl Engine {
    /// Carries out the command of [`Engine::set_variables`].
    pub(crate) fn apply_set_variables(
        &mut self,
        scope_key: Key,
        variables: VariableDocument,
        local: bool,
    ) -> Result<(), Rejection> {
        let start = self.begin();
        if !self.instances.contains_key(&scope_key) {
            return Err(Rejection::new(
                RejectionType::NotFound,
                format!(
                    "Expected to update variables for element with key '{scope_key}', but no such element was found"
                ),
            ));
        }
        // Zeebe's VariableDocumentUpdateWhileSuspendedTest: a user task scope would start the
        // task's update lifecycle, whose listeners cannot run while suspended.
        if let Some(i) = self.instances.get(&scope_key)
            && i.user_task().is_some()
        {
            self.check_not_suspended(i.process_instance_key, || {
                format!("update variables for the user task element with key '{scope_key}'")
            })?;
        }
        let vars = Arc::new(variables);
        if let Some(update) = self.update_user_task_variables(scope_key, &vars, local) {
            update?;
            return self.run(start);
        }
        // VariableDocumentUpdateProcessor: the variables are merged, then the document is
        // UPDATED (with the key that follows theirs).
        if local {
            self.merge_local(scope_key, &vars);
        } else {
            self.merge_propagating(scope_key, &vars);
        }
        let doc_key = self.new_key();
        self.event(
            ValueType::VariableDocument,
            OtherIntent::Updated,
            Some(doc_key),
            RecordValue::VariableDocument {
                scope_key,
                local,
                variables: vars,
            },
        );
        self.run(start)
    }
    /// The value of a variable as seen from `scope` (the scope itself, then its flow scopes up to
    /// the process instance).
    pub(crate) fn lookup_var(&self, scope: Key, name: &str) -> Option<&SharedJson> {
        self.lookup_var_entry(scope, name).map(|v| &v.value)
    }

    /// The variable (with its cached FEEL form) as seen from `scope`.
    pub(crate) fn lookup_var_entry(&self, scope: Key, name: &str) -> Option<&Var> {
        let mut current = Some(scope);
        while let Some(k) = current {
            if let Some(inst) = self.instances.get(&k) {
                if let Some(v) = inst.vars.get(name) {
                    return Some(v);
                }
                current = inst.flow_scope;
            } else if let Some(vars) = self.pending.variables.get(&k) {
                if let Some(v) = vars.get(name) {
                    return Some(v);
                }
                current = None;
            } else {
                current = None;
            }
        }
        None
    }

    fn var_record(
        &mut self,
        intent: OtherIntent,
        var_key: Key,
        scope: Key,
        name: Arc<str>,
        value: SharedJson,
    ) {
        let (proc, pi) = match self.instances.get(&scope) {
            Some(i) => (i.proc, i.process_instance_key),
            None => return,
        };
        self.note_variable_change(scope, &name, intent == OtherIntent::Created);
        self.event(
            ValueType::Variable,
            intent,
            Some(var_key),
            RecordValue::Variable(VariableValue {
                proc,
                process_instance_key: pi,
                scope_key: scope,
                name,
                value,
            }),
        );
    }

    /// Creates or updates a variable in exactly this scope (no propagation).
    pub(crate) fn set_local(&mut self, scope: Key, name: &str, value: SharedJson) {
        self.set_local_named(scope, name, || Arc::from(name), value);
    }

    /// [`Engine::set_local`] with the name shared (a mapping target's, or another variable's):
    /// a new variable takes it without allocating its own.
    pub(crate) fn set_local_arc(&mut self, scope: Key, name: &Arc<str>, value: SharedJson) {
        self.set_local_named(scope, name, || name.clone(), value);
    }

    fn set_local_named(
        &mut self,
        scope: Key,
        name: &str,
        shared_name: impl FnOnce() -> Arc<str>,
        value: SharedJson,
    ) {
        let existing = self
            .instances
            .get(&scope)
            .and_then(|i| i.vars.get(name))
            .map(|v| (v.key, v.name.clone(), v.value.clone()));
        match existing {
            Some((key, name, old)) => {
                if old != value {
                    if let Some(v) = self
                        .instances
                        .get_mut(&scope)
                        .and_then(|i| i.vars.get_mut(&name))
                    {
                        v.set_value(value.clone());
                    }
                    self.var_record(OtherIntent::Updated, key, scope, name, value);
                }
            }
            None => {
                if !self.instances.contains_key(&scope) {
                    return;
                }
                let key = self.new_key();
                let name = shared_name();
                if let Some(inst) = self.instances.get_mut(&scope) {
                    inst.vars.insert(Var::new(name.clone(), key, value.clone()));
                }
                self.var_record(OtherIntent::Created, key, scope, name, value);
            }
        }
    }

    /// Creates a variable for an element instance that is about to be activated (its key is
    /// known): multi-instance children get `loopCounter` and the input element this way, before
    /// their ACTIVATING record, as in Zeebe.
    pub(crate) fn set_pending_local(
        &mut self,
        scope: Key,
        proc: ProcIdx,
        process_instance_key: Key,
        name: &str,
        value: SharedJson,
    ) {
        self.set_pending_local_arc(scope, proc, process_instance_key, Arc::from(name), value);
    }

    /// [`Engine::set_pending_local`] with a shared name (an activation's names: no copy).
    pub(crate) fn set_pending_local_arc(
        &mut self,
        scope: Key,
        proc: ProcIdx,
        process_instance_key: Key,
        name: Arc<str>,
        value: SharedJson,
    ) {
        let key = self.new_key();
        let vars = self.pending.variables.entry(scope).or_default();
        if let Some(v) = vars.get_mut(&name) {
            v.set_value(value.clone());
        } else {
            vars.insert(Var::new(name.clone(), key, value.clone()));
        }
        self.event(
            ValueType::Variable,
            OtherIntent::Created,
            Some(key),
            RecordValue::Variable(VariableValue {
                proc,
                process_instance_key,
                scope_key: scope,
                name,
                value,
            }),
        );
    }

    /// Zeebe's `mergeLocalDocument`: every entry is set in this scope.
    pub(crate) fn merge_local(&mut self, scope: Key, doc: &VariableDocument) {
        for (name, value) in doc {
            self.set_local(scope, name, SharedJson::new(value.clone()));
        }
    }

    /// Zeebe's `mergeDocument`: starting at `scope`, each entry updates the first scope (walking
    /// up) that holds the name with a different value; what is left is created or updated at the
    /// root (the process instance).
    pub(crate) fn merge_propagating(&mut self, scope: Key, doc: &VariableDocument) {
        self.merge_propagating_values(
            scope,
            doc.iter()
                .map(|(name, value)| (DocName::Borrowed(name.as_str()), DocValue::Borrowed(value)))
                .collect(),
        );
    }

    /// [`Engine::merge_local`] of a shared document (no copies).
    pub(crate) fn merge_local_shared(&mut self, scope: Key, doc: &SharedVariableDocument) {
        for (name, value) in doc {
            self.set_local(scope, name, value.clone());
        }
    }

    /// [`Engine::merge_propagating`] of a shared document (no copies).
    pub(crate) fn merge_propagating_shared(&mut self, scope: Key, doc: &SharedVariableDocument) {
        self.merge_propagating_values(
            scope,
            doc.iter()
                .map(|(name, value)| (DocName::Borrowed(name), DocValue::Shared(value.clone())))
                .collect(),
        );
    }

    /// [`Engine::merge_propagating`] of variables' values (no copies).
    pub(crate) fn merge_propagating_arcs(
        &mut self,
        scope: Key,
        entries: impl IntoIterator<Item = (Arc<str>, SharedJson)>,
    ) {
        self.merge_propagating_values(
            scope,
            entries
                .into_iter()
                .map(|(name, value)| (DocName::Shared(name), DocValue::Shared(value)))
                .collect(),
        );
    }

    fn merge_propagating_values(
        &mut self,
        scope: Key,
        mut remaining: Vec<(DocName<'_>, DocValue<'_>)>,
    ) {
        if remaining.is_empty() {
            return;
        }
        let mut current = scope;
        loop {
            let Some(inst) = self.instances.get(&current) else {
                return;
            };
            let Some(parent) = inst.flow_scope else {
                break;
            };
            let mut i = 0;
            while i < remaining.len() {
                let (name, value) = &remaining[i];
                let hit = self
                    .instances
                    .get(&current)
                    .and_then(|s| s.vars.get(name))
                    .map(|v| (v.key, v.name.clone(), !value.is(&v.value)));
                match hit {
                    Some((key, vname, true)) => {
                        let (name, value) = remaining.remove(i);
                        let value = value.into_arc();
                        if let Some(v) = self
                            .instances
                            .get_mut(&current)
                            .and_then(|s| s.vars.get_mut(&name))
                        {
                            v.set_value(value.clone());
                        }
                        self.var_record(OtherIntent::Updated, key, current, vname, value);
                    }
                    _ => i += 1,
                }
            }
            current = parent;
        }
        for (name, value) in remaining {
            match name {
                DocName::Borrowed(name) => self.set_local(current, name, value.into_arc()),
                DocName::Shared(name) => self.set_local_arc(current, &name, value.into_arc()),
            }
        }
    }

    /// All variables visible from a scope, inner names hiding outer ones (for job variables).
    pub(crate) fn visible_variables(&self, scope: Key) -> VariableDocument {
        let mut chain = Vec::new();
        let mut current = Some(scope);
        while let Some(k) = current {
            match self.instances.get(&k) {
                Some(i) => {
                    chain.push(k);
                    current = i.flow_scope;
                }
                None => current = None,
            }
        }
        let mut doc = VariableDocument::new();
        for k in chain.iter().rev() {
            for v in self.instances[k].vars.iter() {
                doc.insert(v.name.to_string(), v.value.to_json());
            }
        }
        doc
    }
}

/// A document entry's name on its way into a variable: a shared name is not copied.
enum DocName<'a> {
    Borrowed(&'a str),
    Shared(Arc<str>),
}

impl Deref for DocName<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            DocName::Borrowed(name) => name,
            DocName::Shared(name) => name,
        }
    }
}

/// A document entry's value on its way into a variable: copied only when borrowed.
enum DocValue<'a> {
    Borrowed(&'a Json),
    Shared(SharedJson),
}

impl DocValue<'_> {
    /// Whether this is the value a variable holds already.
    fn is(&self, held: &SharedJson) -> bool {
        match self {
            DocValue::Borrowed(v) => *held == **v,
            DocValue::Shared(v) => *held == *v,
        }
    }

    fn into_arc(self) -> SharedJson {
        match self {
            DocValue::Borrowed(v) => SharedJson::new(v.clone()),
            DocValue::Shared(v) => v,
        }
    }
}
