//! Input and output mappings: evaluated in order, each seeing the earlier results, with
//! Zeebe's rules for nested targets and for the element's completion variables.

use std::sync::Arc;

use serde_json::{Map, Value as Json};

use crate::runtime::behaviors::expressions::Overlay;
use crate::runtime::compile::definitions::Mapping;
use crate::runtime::compile::expr::{Expr, baton_feel_bridge};
use crate::runtime::engine::Engine;
use crate::runtime::records::Key;
use crate::runtime::shared_json::{JsonRef, SharedJson};
use crate::runtime::step::StepFailure;

impl Engine {
    /// The scope output mappings and propagation write to: the flow scope, except for
    /// multi-instance inner instances, which keep their own (input/output element).
    pub(crate) fn output_scope(&self, key: Key) -> Key {
        match self.instances.get(&key) {
            Some(i) if i.loop_counter > 0 => key,
            Some(i) => i.flow_scope.unwrap_or(key),
            None => key,
        }
    }

    /// Evaluates mappings in order, each seeing the earlier results; returns the document. A
    /// mapping that reads a whole variable (`=agent`) shares its value.
    fn evaluate_mappings(
        &self,
        scope: Key,
        mappings: &[Mapping],
        merge_with_scope: bool,
    ) -> Result<MappedVariables, StepFailure> {
        let mut doc = MappedVariables::default();
        for m in mappings {
            let value = match (&m.constant, &m.source) {
                (Some(constant), _) => constant.clone(),
                (None, Some(e)) => match self.shared_value(e, scope, &doc) {
                    Some(shared) => shared,
                    None => self.eval_shared(e, scope, Some(&doc))?,
                },
                (None, None) => SharedJson::new(Json::Null),
            };
            put_path(&mut doc, &m.target, value, |name| {
                if merge_with_scope {
                    self.lookup_var(scope, name).cloned()
                } else {
                    None
                }
            });
        }
        Ok(doc)
    }

    /// The value of an expression, shared, when it needs no evaluation (constants are the
    /// mapping's own, [`Mapping::constant`]): `=name` or `=name.a.b` when FEEL would return the variable (or its part) unchanged (an earlier
    /// mapping result first, then the scope's variable, whose answer is kept with it), or null
    /// where the variable or a key on the path is missing.
    fn shared_value(&self, expr: &Expr, scope: Key, doc: &MappedVariables) -> Option<SharedJson> {
        let Expr::Feel(f) = expr else {
            return None;
        };
        let (name, keys) = f.variable_path()?;
        let root = self.overlaid_var(scope, Some(doc), name);
        // FEEL's answer for a missing variable, a key missing from an object and any key of
        // null is null (with a warning, which a mapping does not report).
        let Some(root) = root else {
            return Some(SharedJson::new(Json::Null));
        };
        if !keys.is_empty() {
            // `=agent.context`: the part itself, shared when it is a shared part. A step into
            // anything but an object or null (a list projects) is left to FEEL.
            let mut at = root;
            for key in keys {
                if at.is_null() {
                    return Some(SharedJson::new(Json::Null));
                }
                if !at.is_object() {
                    return None;
                }
                match at.get(key) {
                    Some(next) => at = next,
                    None => return Some(SharedJson::new(Json::Null)),
                }
            }
            return baton_feel_bridge::round_trips(at).then(|| at.to_shared());
        }
        match doc.get(name) {
            Some(value) => baton_feel_bridge::round_trips(value.view()).then(|| value.clone()),
            None => {
                let var = self.lookup_var_entry(scope, name)?;
                var.round_trips().then(|| var.value.clone())
            }
        }
    }

    /// Applies the element's input mappings as local variables of the instance.
    pub(crate) fn apply_input_mappings(
        &mut self,
        key: Key,
        mappings: &[Mapping],
    ) -> Result<(), StepFailure> {
        if mappings.is_empty() {
            return Ok(());
        }
        let doc = self.evaluate_mappings(key, mappings, false)?;
        for (name, value) in doc.0 {
            self.set_local_arc(key, &name, value);
        }
        Ok(())
    }

    /// Applies output mappings and the default-output rule when an element completes:
    /// with output mappings, the completion variables become local and the mapped result is
    /// merged into the output scope; without, the completion variables are merged starting at
    /// the element itself; events that carry variables locally propagate them.
    pub(crate) fn apply_output_mappings(
        &mut self,
        key: Key,
        mappings: &[Mapping],
        propagate_locals: bool,
    ) -> Result<(), StepFailure> {
        let completion = self
            .instances
            .get_mut(&key)
            .and_then(|i| i.completion_vars.take());
        if !mappings.is_empty() {
            if let Some(vars) = &completion {
                self.merge_local_shared(key, vars);
            }
            let doc = self.evaluate_mappings(key, mappings, true)?;
            let scope = self.output_scope(key);
            self.merge_propagating_arcs(scope, doc.0);
        } else if let Some(vars) = completion {
            self.merge_propagating_shared(key, &vars);
        } else if propagate_locals {
            let locals: Vec<(Arc<str>, SharedJson)> = self
                .instances
                .get(&key)
                .map(|i| {
                    i.vars
                        .iter()
                        .map(|v| (v.name.clone(), v.value.clone()))
                        .collect()
                })
                .unwrap_or_default();
            let scope = self.output_scope(key);
            self.merge_propagating_arcs(scope, locals);
        }
        Ok(())
    }
}

/// The variables a list of mappings writes, in order of their first target: few, so a vector
/// scanned by name (no hashing, no `String` per name: the names are the targets' own).
#[derive(Default)]
pub(crate) struct MappedVariables(Vec<(Arc<str>, SharedJson)>);

impl MappedVariables {
    pub(crate) fn get(&self, name: &str) -> Option<&SharedJson> {
        self.0.iter().find(|(n, _)| **n == *name).map(|(_, v)| v)
    }
}

impl Overlay for MappedVariables {
    fn value(&self, name: &str) -> Option<JsonRef<'_>> {
        self.get(name).map(SharedJson::view)
    }
}

/// Writes `value` at a dotted target path into the document. The top-level entry starts from an
/// earlier result in the document, else from `base` (the scope's value, for output mappings).
fn put_path(
    doc: &mut MappedVariables,
    path: &[Arc<str>],
    value: SharedJson,
    base: impl Fn(&str) -> Option<SharedJson>,
) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let entries = &mut doc.0;
    let found = entries.iter().position(|(name, _)| **name == **first);
    if rest.is_empty() {
        match found {
            Some(i) => entries[i].1 = value,
            None => entries.push((first.clone(), value)),
        }
        return;
    }
    // The entry is extended in place: an earlier result is not copied.
    let index = match found {
        Some(i) if entries[i].1.view().is_object() => i,
        found => {
            let root = base(first)
                .filter(|v| v.view().is_object())
                .unwrap_or_else(|| SharedJson::new(Json::Object(Map::new())));
            match found {
                Some(i) => {
                    entries[i].1 = root;
                    i
                }
                None => {
                    entries.push((first.clone(), root));
                    entries.len() - 1
                }
            }
        }
    };
    put_at(entries[index].1.make_mut(), rest, value.into_json());
}

/// Writes `value` at a path of keys inside `target`: a part on the path that is no object
/// becomes an empty one; an existing key keeps its place, a new one comes last.
fn put_at(target: &mut Json, path: &[Arc<str>], value: Json) {
    let Some((first, rest)) = path.split_first() else {
        *target = value;
        return;
    };
    if !target.is_object() {
        *target = Json::Object(Map::new());
    }
    let Json::Object(entries) = target else {
        unreachable!("made an object above");
    };
    if rest.is_empty() {
        entries.insert(first.to_string(), value);
        return;
    }
    if let Some(child) = entries.get_mut(&**first) {
        put_at(child, rest, value);
    } else {
        let mut child = Json::Object(Map::new());
        put_at(&mut child, rest, value);
        entries.insert(first.to_string(), child);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_targets_merge() {
        let mut doc = MappedVariables::default();
        let path: Vec<Arc<str>> = vec!["a".into(), "b".into(), "c".into()];
        put_path(&mut doc, &path, SharedJson::new(json!(1)), |_| {
            Some(SharedJson::new(json!({"x": 2, "b": {"y": 3}})))
        });
        assert_eq!(
            *doc.get("a").unwrap(),
            json!({"x": 2, "b": {"y": 3, "c": 1}})
        );
        let path: Vec<Arc<str>> = vec!["a".into(), "d".into()];
        put_path(&mut doc, &path, SharedJson::new(json!(true)), |_| None);
        assert_eq!(
            *doc.get("a").unwrap(),
            json!({"x": 2, "b": {"y": 3, "c": 1}, "d": true})
        );
    }

    #[test]
    fn nested_targets_merge_into_large_objects_in_order() {
        let mut doc = MappedVariables::default();
        let base: Map<String, Json> = (0..12).map(|i| (format!("k{i}"), json!(i))).collect();
        let base = Json::Object(base);
        let path: Vec<Arc<str>> = vec!["a".into(), "k11".into(), "z".into()];
        let scope_value = SharedJson::new(base.clone());
        put_path(&mut doc, &path, SharedJson::new(json!(1)), |_| {
            Some(scope_value.clone())
        });
        let path: Vec<Arc<str>> = vec!["a".into(), "new".into(), "z".into()];
        put_path(&mut doc, &path, SharedJson::new(json!(2)), |_| None);
        let keys: Vec<&String> = doc.get("a").unwrap().as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 13);
        assert_eq!(keys[12], "new");
        assert_eq!(doc.get("a").unwrap()["k11"], json!({"z": 1}));
        assert_eq!(doc.get("a").unwrap()["new"], json!({"z": 2}));
        assert_eq!(doc.get("a").unwrap()["k0"], json!(0));
        // The scope's value is not changed by the document built from it.
        assert_eq!(*scope_value, base);
    }

    #[test]
    fn nested_targets_build_objects_on_the_path() {
        let mut doc = MappedVariables::default();
        let schema = SharedJson::new(json!({"type": "object"}));
        let path: Vec<Arc<str>> = vec!["data".into(), "format".into(), "schema".into()];
        put_path(&mut doc, &path, schema.clone(), |_| None);
        let path: Vec<Arc<str>> = vec!["data".into(), "format".into(), "type".into()];
        put_path(&mut doc, &path, SharedJson::new(json!("json")), |_| None);
        assert_eq!(
            *doc.get("data").unwrap(),
            json!({"format": {"schema": {"type": "object"}, "type": "json"}})
        );
        // A scalar on the path becomes an object.
        let path: Vec<Arc<str>> = vec!["data".into(), "format".into(), "type".into(), "x".into()];
        put_path(&mut doc, &path, SharedJson::new(json!(1)), |_| None);
        assert_eq!(
            *doc.get("data").unwrap(),
            json!({"format": {"schema": {"type": "object"}, "type": {"x": 1}}})
        );
    }
}
