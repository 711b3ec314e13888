//! A run's state as one number, equal for states that behave the same: the root instance's live
//! element tree (element, state, local variables, its job, incident, user task, timers and
//! message subscriptions), children as a multiset (the order they were activated in does not
//! matter), with the volatile values left out — engine keys, which two equal states hold with
//! different numbers, wherever they appear (in variables as JSON numbers of 2^51 and more, or as
//! strings of 16 to 19 digits). The clock is the same in every branch (nothing moves it), so
//! timestamps need no normalisation; timers count from now.
//!
//! 64-bit SipHash with fixed keys: two different states share a fingerprint with a chance of
//! about n²/2^65 for n states (a millionth for six million), and one of them would be pruned.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use baton_engine::runtime::shared_json::{Entries, Items};
use baton_engine::runtime::{ElementInstanceView, Engine, JsonRef, Key, SharedJson};
use rustc_hash::FxHashMap;

/// The first Zeebe key: partition 1, counter 0.
const FIRST_KEY: u64 = 1 << 51;

/// What the fingerprint reads of the engine, indexed by element instance.
struct Attached<'e> {
    jobs: FxHashMap<Key, Vec<baton_engine::runtime::JobView>>,
    incidents: FxHashMap<Key, Vec<baton_engine::runtime::IncidentView>>,
    timers: FxHashMap<Key, Vec<i64>>,
    subscriptions: FxHashMap<Key, Vec<(String, String)>>,
    user_tasks: FxHashMap<Key, Vec<String>>,
    children: FxHashMap<Key, Vec<&'e ElementInstanceView>>,
}

/// Fingerprints runs, remembering the hashes of the shared values it hashed, by the address of
/// their content, each with the value itself (which keeps the address from being reused while it
/// is remembered): the runs of one search share most of their values (the conversation so far,
/// the tool definitions), so each part is hashed once, not once per state. Each part of a
/// search owns one.
#[derive(Default)]
pub(crate) struct Fingerprinter {
    hashed: FxHashMap<usize, (SharedJson, u64)>,
}

/// How many hashes a fingerprinter keeps before it starts over.
const HASHED_KEPT: usize = 1 << 16;

impl Fingerprinter {
    /// The fingerprint of the engine's state under `root`, with `extra` (the harness's own
    /// state).
    pub fn fingerprint(&mut self, engine: &Engine, root: Key, extra: impl Hash) -> u64 {
        let mut h = DefaultHasher::new();
        extra.hash(&mut h);
        self.hash_instance_tree(engine, root, &mut h);
        h.finish()
    }

    fn hash_instance_tree(&mut self, engine: &Engine, root: Key, h: &mut DefaultHasher) {
        let Some(instance) = engine.process_instance(root) else {
            0u8.hash(h);
            return;
        };
        instance.state.to_string().hash(h);
        if !instance.state.is_active() {
            return;
        }
        let elements = engine.element_instances(root);
        let mut attached = Attached {
            jobs: FxHashMap::default(),
            incidents: FxHashMap::default(),
            timers: FxHashMap::default(),
            subscriptions: FxHashMap::default(),
            user_tasks: FxHashMap::default(),
            children: FxHashMap::default(),
        };
        for job in engine.jobs() {
            if job.process_instance_key == root {
                attached
                    .jobs
                    .entry(job.element_instance_key)
                    .or_default()
                    .push(job);
            }
        }
        for incident in engine.incidents() {
            if incident.process_instance_key == root {
                attached
                    .incidents
                    .entry(incident.element_instance_key)
                    .or_default()
                    .push(incident);
            }
        }
        let now = engine.now();
        for timer in engine.timers() {
            if timer.process_instance_key == Some(root)
                && let Some(k) = timer.element_instance_key
            {
                attached.timers.entry(k).or_default().push(timer.due - now);
            }
        }
        for s in engine.all_message_subscriptions() {
            attached
                .subscriptions
                .entry(s.element_instance_key)
                .or_default()
                .push((s.message_name.to_string(), s.correlation_key.to_string()));
        }
        for task in engine.user_tasks() {
            attached
                .user_tasks
                .entry(task.value.element_instance_key)
                .or_default()
                .push(format!("{:?}", task.state));
        }
        for e in &elements {
            if let Some(scope) = e.flow_scope_key {
                attached.children.entry(scope).or_default().push(e);
            }
        }
        let top = elements.iter().find(|e| e.key == root);
        if let Some(top) = top {
            self.hash_element(engine, top, &attached, h);
        }
    }

    /// One element instance and its subtree; children sorted by their own hashes.
    fn hash_element(
        &mut self,
        engine: &Engine,
        e: &ElementInstanceView,
        attached: &Attached<'_>,
        h: &mut impl Hasher,
    ) {
        e.element_id.hash(h);
        format!("{:?}", e.state).hash(h);
        e.has_incident.hash(h);
        let mut variables = engine.variables(e.key);
        variables.sort_by(|a, b| a.name.cmp(&b.name));
        variables.len().hash(h);
        for v in &variables {
            v.name.hash(h);
            self.hash_json(v.value.view(), h);
        }
        if let Some(jobs) = attached.jobs.get(&e.key) {
            for job in jobs {
                job.job_type.hash(h);
                format!("{:?}", job.state).hash(h);
                job.retries.hash(h);
                job.deadline.map(|d| d - engine.now()).hash(h);
            }
        }
        if let Some(incidents) = attached.incidents.get(&e.key) {
            for incident in incidents {
                format!("{:?}", incident.error_type).hash(h);
                hash_text(&incident.error_message, h);
            }
        }
        attached.timers.get(&e.key).hash(h);
        attached.subscriptions.get(&e.key).hash(h);
        attached.user_tasks.get(&e.key).hash(h);
        let mut children: Vec<u64> = attached
            .children
            .get(&e.key)
            .map(|c| {
                c.iter()
                    .map(|child| {
                        let mut ch = DefaultHasher::new();
                        self.hash_element(engine, child, attached, &mut ch);
                        ch.finish()
                    })
                    .collect()
            })
            .unwrap_or_default();
        children.sort_unstable();
        children.hash(h);
    }

    /// A JSON value with engine keys left out.
    fn hash_json(&mut self, value: JsonRef<'_>, h: &mut impl Hasher) {
        self.value_hash(value).hash(h);
    }

    /// A value's hash, composed of its parts' hashes (so a value hashes the same whether it is
    /// plain or built of shared parts); shared values' hashes are looked up.
    fn value_hash(&mut self, value: JsonRef<'_>) -> u64 {
        let JsonRef::Shared(shared) = value else {
            return self.composed_hash(value);
        };
        let address = match (shared.as_plain(), value.entries(), value.items()) {
            (Some(plain), _, _) => std::ptr::from_ref(plain) as usize,
            (None, Some(Entries::Shared(entries)), _) => entries.as_slice().as_ptr() as usize,
            (None, _, Some(Items::Shared(items))) => items.as_slice().as_ptr() as usize,
            _ => return self.composed_hash(value),
        };
        if let Some((_, hash)) = self.hashed.get(&address) {
            return *hash;
        }
        let hash = self.composed_hash(value);
        if self.hashed.len() >= HASHED_KEPT {
            self.hashed.clear();
        }
        self.hashed.insert(address, (shared.clone(), hash));
        hash
    }

    fn composed_hash(&mut self, value: JsonRef<'_>) -> u64 {
        let mut h = DefaultHasher::new();
        if let Some(entries) = value.entries() {
            b'{'.hash(&mut h);
            for (k, v) in entries {
                k.hash(&mut h);
                self.value_hash(v).hash(&mut h);
            }
        } else if let Some(items) = value.items() {
            b'['.hash(&mut h);
            for item in items {
                self.value_hash(item).hash(&mut h);
            }
        } else if let Some(text) = value.as_str() {
            hash_text(text, &mut h);
        } else if let Some(n) = value.as_u64() {
            if n >= FIRST_KEY {
                b'k'.hash(&mut h);
            } else {
                n.hash(&mut h);
            }
        } else {
            match value.plain() {
                Some(plain) => plain.to_string().hash(&mut h),
                None => value.to_json().to_string().hash(&mut h),
            }
        }
        h.finish()
    }
}

/// A string with every run of 16 to 19 digits (an engine key) hashed as one placeholder.
fn hash_text(text: &str, h: &mut impl Hasher) {
    let bytes = text.as_bytes();
    if bytes.len() < 16 || !bytes.iter().any(u8::is_ascii_digit) {
        text.hash(h);
        return;
    }
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let run_start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if (16..=19).contains(&(i - run_start)) {
                bytes[start..run_start].hash(h);
                b'k'.hash(h);
                start = i;
            }
        } else {
            i += 1;
        }
    }
    bytes[start..].hash(h);
    0xffu8.hash(h);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(value: serde_json::Value) -> u64 {
        let mut h = DefaultHasher::new();
        Fingerprinter::default().hash_json(JsonRef::Plain(&value), &mut h);
        h.finish()
    }

    #[test]
    fn keys_are_left_out_other_values_are_not() {
        assert_eq!(
            of(json!({"job": 2251799813685300_u64, "id": "call_1_1"})),
            of(json!({"job": 2251799813685410_u64, "id": "call_1_1"}))
        );
        assert_eq!(
            of(json!("instance 2251799813685300 done")),
            of(json!("instance 2251799813685999 done"))
        );
        assert_ne!(of(json!({"n": 1})), of(json!({"n": 2})));
        assert_ne!(of(json!("call_1_1")), of(json!("call_1_2")));
        assert_ne!(of(json!([1, 2])), of(json!([2, 1])));
    }
}
