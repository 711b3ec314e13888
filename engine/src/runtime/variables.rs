//! Variables: scopes, lookups along the scope chain, Zeebe's propagating merge, local merges,
//! input and output mappings, and expression evaluation against a scope.

use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value as Json;

use super::Engine;
use super::executable::Mapping;
use super::expr::{Expr, baton_feel_bridge};
use super::records::{
    ErrorType, Key, OtherIntent, RecordValue, SharedVariableDocument, ValueType, VariableDocument,
    VariableValue,
};
use super::shared_json::{JsonRef, SharedJson};
use super::state::Var;
use super::step::{StepFailure, expr_source, json_type_name, type_mismatch};

impl Engine {
    /// The value of a variable as seen from `scope` (the scope itself, then its flow scopes up to
    /// the process instance).
    pub(crate) fn lookup_var(&self, scope: Key, name: &str) -> Option<&SharedJson> {
        self.lookup_var_entry(scope, name).map(|v| &v.value)
    }

    /// A variable's value as an expression in `scope` sees it: from `overlay` (earlier mapping
    /// results, a completion's variables) first, else along the scope chain. Read in place.
    fn overlaid_var<'a>(
        &'a self,
        scope: Key,
        overlay: Option<&'a dyn Overlay>,
        name: &str,
    ) -> Option<JsonRef<'a>> {
        match overlay.and_then(|o| o.value(name)) {
            Some(v) => Some(v),
            None => self.lookup_var(scope, name).map(SharedJson::view),
        }
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
            } else if let Some(vars) = self.pending_vars.get(&k) {
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

    /// Evaluates an expression in a scope; `overlay` holds values that win over the scope's
    /// (earlier mapping results, a completion's variables).
    pub(crate) fn eval(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<Json, StepFailure> {
        self.eval_warn(expr, scope, overlay).map(|(v, _)| v)
    }

    /// Like [`Engine::eval`], the value shared: a context literal of variable paths and `now()`
    /// (the AI agent's output element) is built without FEEL, sharing the variables it reads.
    pub(crate) fn eval_shared(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<SharedJson, StepFailure> {
        if let Expr::Feel(f) = expr
            && let Some(parts) = f.context_of_paths()
        {
            let json = |name: &str| self.overlaid_var(scope, overlay, name);
            let now = || self.now_json.at(self.now);
            if let Some(value) = baton_feel_bridge::context_value(parts, &json, &now) {
                return Ok(value);
            }
        }
        self.eval(expr, scope, overlay).map(SharedJson::new)
    }

    /// Like [`Engine::eval`], with the warnings FEEL reported (Zeebe appends them to type
    /// mismatch messages).
    pub(crate) fn eval_warn(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<(Json, Vec<baton_feel_bridge::FeelWarning>), StepFailure> {
        match expr {
            Expr::Static(s) => Ok((Json::String(s.to_string()), Vec::new())),
            Expr::Feel(f) => {
                if let Some(constant) = f.constant() {
                    return Ok(((**constant).clone(), Vec::new()));
                }
                let json = |name: &str| -> Option<JsonRef<'_>> {
                    match overlay.and_then(|o| o.value(name)) {
                        Some(v) => Some(v),
                        None => self.lookup_var(scope, name).map(SharedJson::view),
                    }
                };
                // `=agent`, `=agent.context`: the JSON itself, when FEEL would give it back as is
                // (no conversion of a large variable to FEEL and back).
                if let Some((name, keys)) = f.variable_path()
                    && let Some(value) =
                        json(name).and_then(|v| baton_feel_bridge::json_at(v, keys))
                {
                    return Ok((value.to_json(), Vec::new()));
                }
                // Only the names the expression reads are looked up; scope variables hand out
                // their cached FEEL form, overlay values are converted in place (no copies).
                let feel = |name: &str| -> Option<baton_feel_bridge::FeelValue> {
                    if let Some(v) = overlay.and_then(|o| o.value(name)) {
                        return Some(baton_feel_bridge::ref_to_feel(v));
                    }
                    self.lookup_var_entry(scope, name).map(Var::feel_value)
                };
                let outcome = baton_feel_bridge::evaluate(
                    &f.parsed,
                    &f.source,
                    &feel,
                    &json,
                    self.now,
                    self.next_feel_seed(),
                );
                let warnings = outcome.warnings;
                outcome
                    .result
                    .map(|v| (v, warnings))
                    .map_err(|m| StepFailure::new(ErrorType::ExtractValueError, m))
            }
        }
    }

    /// The seed of the next FEEL evaluation's `uuid()` and `random number()`. Only evaluations
    /// take one: an expression answered without FEEL (a constant, `=name`, a context of paths) draws
    /// nothing.
    pub(crate) fn next_feel_seed(&self) -> u64 {
        self.feel_evaluations.next()
    }

    pub(crate) fn eval_string(&self, expr: &Expr, scope: Key) -> Result<String, StepFailure> {
        match self.eval_warn(expr, scope, None)? {
            (Json::String(s), _) => Ok(s),
            (other, warnings) => Err(type_mismatch(expr, "STRING", &other, &warnings)),
        }
    }

    pub(crate) fn eval_int(&self, expr: &Expr, scope: Key) -> Result<i64, StepFailure> {
        let v = match expr {
            // A single digit (retries = "3", the usual case) needs no parser.
            Expr::Static(s) if s.len() == 1 && s.as_bytes()[0].is_ascii_digit() => {
                return Ok(i64::from(s.as_bytes()[0] - b'0'));
            }
            Expr::Static(s) => match s.trim().parse::<i64>() {
                Ok(n) => return Ok(n),
                Err(_) => Json::String(s.to_string()),
            },
            Expr::Feel(_) => self.eval(expr, scope, None)?,
        };
        match &v {
            Json::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .ok_or(()),
            _ => Err(()),
        }
        .map_err(|_| {
            StepFailure::new(
                ErrorType::ExtractValueError,
                format!(
                    "Expected result of the expression '{}' to be 'NUMBER', but was '{}'.",
                    expr_source(expr),
                    json_type_name(&v)
                ),
            )
        })
    }

    pub(crate) fn eval_bool(&self, expr: &Expr, scope: Key) -> Result<bool, StepFailure> {
        self.eval_bool_with(expr, scope, None)
    }

    pub(crate) fn eval_bool_with(
        &self,
        expr: &Expr,
        scope: Key,
        overlay: Option<&dyn Overlay>,
    ) -> Result<bool, StepFailure> {
        // `agent.responseJson.resolved = true`: answered in place when FEEL's answer is
        // certain (a value of the literal's type), as FEEL would (no warning, no seed).
        if let Expr::Feel(f) = expr
            && let Some(comparison) = f.path_comparison()
        {
            let value = self.overlaid_var(scope, overlay, &comparison.name);
            if let Some(answer) = baton_feel_bridge::compare_path(value, comparison) {
                return Ok(answer);
            }
        }
        match self.eval_warn(expr, scope, overlay)? {
            (Json::Bool(b), _) => Ok(b),
            (other, warnings) => Err(type_mismatch(expr, "BOOLEAN", &other, &warnings)),
        }
    }

    pub(crate) fn eval_list(&self, expr: &Expr, scope: Key) -> Result<Vec<Json>, StepFailure> {
        match self.eval_warn(expr, scope, None)? {
            (Json::Array(a), _) => Ok(a),
            (other, warnings) => Err(type_mismatch(expr, "ARRAY", &other, &warnings)),
        }
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
        proc: super::ProcIdx,
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
        proc: super::ProcIdx,
        process_instance_key: Key,
        name: Arc<str>,
        value: SharedJson,
    ) {
        let key = self.new_key();
        let vars = self.pending_vars.entry(scope).or_default();
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
                    .map(|v| (v.key, v.name.clone(), v.value.view() != value.get()));
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

/// Values that win over a scope's variables in an evaluation (earlier mapping results, a
/// completion's variables).
pub(crate) trait Overlay {
    fn value(&self, name: &str) -> Option<JsonRef<'_>>;
}

impl Overlay for VariableDocument {
    fn value(&self, name: &str) -> Option<JsonRef<'_>> {
        self.get(name).map(JsonRef::Plain)
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

impl Overlay for SharedVariableDocument {
    fn value(&self, name: &str) -> Option<JsonRef<'_>> {
        self.get(name).map(SharedJson::view)
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
    fn get(&self) -> JsonRef<'_> {
        match self {
            DocValue::Borrowed(v) => JsonRef::Plain(v),
            DocValue::Shared(v) => v.view(),
        }
    }

    fn into_arc(self) -> SharedJson {
        match self {
            DocValue::Borrowed(v) => SharedJson::new(v.clone()),
            DocValue::Shared(v) => v,
        }
    }
}

/// Writes `value` at a dotted target path into the document. The top-level entry starts from an
/// earlier result in the document, else from `base` (the scope's value, for output mappings).
/// A nested target builds a composed object (`SharedJson::put_at`): the value and the entries
/// beside the path are shared, not copied, and the keys are the target's own segments.
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
                .unwrap_or_else(SharedJson::empty_object);
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
    entries[index].1.put_at(rest, value);
}

/// Counts an engine's FEEL evaluations (see [`Engine::next_feel_seed`]). Atomic only so that a
/// deployed engine can be shared between test threads; each engine counts its own evaluations,
/// in the order it makes them, and a clone carries on from the same count.
#[derive(Debug, Default)]
pub(crate) struct EvaluationCounter(std::sync::atomic::AtomicU64);

impl EvaluationCounter {
    fn next(&self) -> u64 {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

impl Clone for EvaluationCounter {
    fn clone(&self) -> Self {
        EvaluationCounter(std::sync::atomic::AtomicU64::new(
            self.0.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

/// The JSON of FEEL's `now()` (an ISO text, dear to format) kept for the instant it was built
/// for: asked again at the same instant, it is cloned. A clone starts empty.
#[derive(Debug, Default)]
pub(crate) struct NowJson(std::sync::Mutex<Option<(i64, Json)>>);

impl NowJson {
    fn at(&self, now_ms: i64) -> Json {
        let mut cached = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*cached {
            Some((at, json)) if *at == now_ms => json.clone(),
            _ => {
                let json = baton_feel_bridge::now_json(now_ms);
                *cached = Some((now_ms, json.clone()));
                json
            }
        }
    }
}

impl Clone for NowJson {
    fn clone(&self) -> Self {
        NowJson::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

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
    fn nested_targets_share_the_value() {
        let mut doc = MappedVariables::default();
        let schema = SharedJson::new(json!({"type": "object"}));
        let path: Vec<Arc<str>> = vec!["data".into(), "format".into(), "schema".into()];
        put_path(&mut doc, &path, schema.clone(), |_| None);
        let path: Vec<Arc<str>> = vec!["data".into(), "format".into(), "type".into()];
        put_path(&mut doc, &path, SharedJson::new(json!("json")), |_| None);
        let at = doc
            .get("data")
            .unwrap()
            .view()
            .at(&["format", "schema"])
            .unwrap();
        assert!(at.to_shared().ptr_eq(&schema));
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
