//! What happened, read once from the engine's event log: per process instance, the element
//! instances activated, completed and terminated in order; per deployed process, the elements
//! entered and the sequence flows taken (coverage). The log is scanned incrementally after
//! every action, so assertions and coverage never rescan it.

use std::collections::BTreeMap;
use std::sync::Arc;

use indexmap::IndexMap;

use baton_engine::dmn::DecisionType;
use baton_engine::dmn::model::Logic;
use baton_engine::runtime::records::DecisionValue;
use baton_engine::runtime::{
    BpmnElementType, ElementRef, Engine, ExecutableProcess, Key, ProcIdx, ProcessInstanceIntent,
    Record, RecordType, RecordValue, SharedJson,
};

/// What happened to an element instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementEventKind {
    Activated,
    Completed,
    Terminated,
}

/// One step of an element instance.
#[derive(Debug, Clone)]
pub struct ElementEvent {
    pub kind: ElementEventKind,
    /// The element id (`<id>#innerInstance` for an ad-hoc sub-process's inner instance).
    pub element_id: Arc<str>,
    /// The element instance key.
    pub key: Key,
}

/// The history of one process instance.
#[derive(Debug, Clone)]
pub struct InstanceLog {
    pub proc: ProcIdx,
    pub process_id: Arc<str>,
    /// The process instance that called this one (call activity).
    pub parent: Option<Key>,
    /// The call activity instance (in `parent`) that started this one.
    pub parent_element: Option<Key>,
    /// The root of the call hierarchy (itself for a root instance).
    pub root: Key,
    pub events: Vec<ElementEvent>,
}

/// The variables of one scope by name, in creation order.
pub type ScopeVariables = IndexMap<Arc<str>, SharedJson, rustc_hash::FxBuildHasher>;

/// Elements entered and flows taken of one deployed process version.
#[derive(Debug, Clone, Default)]
pub struct ProcessHits {
    /// Per element of the model (same index): entered at least once.
    pub elements: Vec<bool>,
    /// Per element of the model (same index): completed at least once (what CPT counts).
    pub completed: Vec<bool>,
    /// Per sequence flow of the model (same index): taken at least once.
    pub flows: Vec<bool>,
}

/// The indexed history. See the module documentation.
#[derive(Debug, Default)]
pub struct History {
    position: u64,
    pub instances: BTreeMap<Key, InstanceLog>,
    /// Per deployed process version (index = `ProcIdx`).
    pub hits: Vec<ProcessHits>,
    /// Per deployed decision version (index = `DecisionIdx`): per rule of its decision table,
    /// matched at least once (empty while the table was never evaluated).
    pub rule_hits: Vec<Vec<bool>>,
    /// The variables of every scope (element instance or process instance) as last written,
    /// in creation order; kept after the scope ends.
    pub variables: BTreeMap<Key, ScopeVariables>,
}

/// The deployed process that records name by `proc`.
pub fn process_at(engine: &Engine, proc: ProcIdx) -> &ExecutableProcess {
    engine
        .deployed_processes()
        .nth(proc.0 as usize)
        .expect("records name deployed processes")
}

impl History {
    /// Reads the records written since the last call.
    pub fn sync(&mut self, engine: &Engine) {
        if engine.position() == self.position {
            return;
        }
        let records = engine.records_since(self.position);
        for r in records {
            self.read(engine, r);
        }
        self.position = engine.position();
    }

    fn read(&mut self, engine: &Engine, r: &Record) {
        if let RecordValue::DecisionEvaluation(d) = &r.value {
            if r.record_type == RecordType::Event {
                self.read_evaluation(engine, d);
            }
            return;
        }
        if let RecordValue::Variable(v) = &r.value {
            self.variables
                .entry(v.scope_key)
                .or_insert_with(|| {
                    // A process instance scope takes several variables: skip the first regrowths.
                    ScopeVariables::with_capacity_and_hasher(4, Default::default())
                })
                .insert(v.name.clone(), v.value.clone());
            return;
        }
        let (RecordValue::ProcessInstance(v), Some(intent)) =
            (&r.value, r.process_instance_intent())
        else {
            return;
        };
        let kind = match intent {
            ProcessInstanceIntent::ElementActivated => ElementEventKind::Activated,
            ProcessInstanceIntent::ElementCompleted => ElementEventKind::Completed,
            ProcessInstanceIntent::ElementTerminated => ElementEventKind::Terminated,
            ProcessInstanceIntent::ElementActivating if v.element_ref == ElementRef::Process => {
                let p = process_at(engine, v.proc);
                let parent = v.parent_process_instance_key;
                let root = parent
                    .and_then(|k| self.instances.get(&k))
                    .map(|l| l.root)
                    .unwrap_or(v.process_instance_key);
                self.instances
                    .entry(v.process_instance_key)
                    .or_insert_with(|| InstanceLog {
                        proc: v.proc,
                        process_id: p.bpmn_process_id().clone(),
                        parent,
                        parent_element: v.parent_element_instance_key,
                        root,
                        // Each element instance adds two or three events.
                        events: Vec::with_capacity(16),
                    });
                return;
            }
            ProcessInstanceIntent::SequenceFlowTaken => {
                if let ElementRef::Flow(f) = v.element_ref {
                    let p = process_at(engine, v.proc);
                    let hits = self.hits_of(v.proc, p);
                    hits.flows[f.0 as usize] = true;
                }
                return;
            }
            _ => return,
        };
        let ElementRef::Element(e) = v.element_ref else {
            return;
        };
        let p = process_at(engine, v.proc);
        let inner = v.element_type == BpmnElementType::AdHocSubProcessInnerInstance;
        if !inner {
            match kind {
                ElementEventKind::Activated => {
                    self.hits_of(v.proc, p).elements[e.0 as usize] = true
                }
                ElementEventKind::Completed => {
                    self.hits_of(v.proc, p).completed[e.0 as usize] = true;
                }
                ElementEventKind::Terminated => {}
            }
        }
        let element_id: Arc<str> = if inner {
            Arc::from(format!(
                "{}{}",
                p.element_id(e),
                baton_engine::runtime::INNER_INSTANCE_SUFFIX
            ))
        } else {
            p.element_id(e).clone()
        };
        if let Some(log) = self.instances.get_mut(&v.process_instance_key) {
            log.events.push(ElementEvent {
                kind,
                element_id,
                key: r.key.unwrap_or_default(),
            });
        }
    }

    fn hits_of(&mut self, proc: ProcIdx, p: &ExecutableProcess) -> &mut ProcessHits {
        let i = proc.0 as usize;
        if self.hits.len() <= i {
            self.hits.resize_with(i + 1, ProcessHits::default);
        }
        let h = &mut self.hits[i];
        if h.elements.is_empty() && h.flows.is_empty() {
            h.elements = vec![false; p.model().elements.len()];
            h.completed = vec![false; p.model().elements.len()];
            h.flows = vec![false; p.model().flows.len()];
        }
        h
    }

    /// The rules matched by one evaluation: of the called decision and of each decision it
    /// required (each one a decision instance of its own, as in Zeebe).
    fn read_evaluation(&mut self, engine: &Engine, d: &DecisionValue) {
        let Some(called) = d.decision else {
            return;
        };
        let deployed = engine.deployed_decisions();
        let drg = deployed[called.0 as usize].drg;
        for evaluated in d.evaluated_decisions.iter() {
            if evaluated.decision_type != DecisionType::DecisionTable {
                continue;
            }
            let Some(i) = deployed
                .iter()
                .position(|x| x.drg == drg && *x.id == *evaluated.decision_id)
            else {
                continue;
            };
            if self.rule_hits.len() <= i {
                self.rule_hits.resize_with(i + 1, Vec::new);
            }
            let hits = &mut self.rule_hits[i];
            if hits.is_empty() {
                let rules = engine.deployed_drgs()[drg.0 as usize]
                    .model
                    .decisions
                    .get(deployed[i].index)
                    .map_or(0, |x| match &x.logic {
                        Logic::DecisionTable(t) => t.rules.len(),
                        _ => 0,
                    });
                // At least one entry: an evaluation that matched nothing still counts as one.
                *hits = vec![false; rules.max(1)];
            }
            for rule in &evaluated.matched_rules {
                let at = rule.rule_index as usize - 1;
                if hits.len() <= at {
                    hits.resize(at + 1, false);
                }
                hits[at] = true;
            }
        }
    }

    /// The history of a process instance.
    pub fn instance(&self, key: Key) -> Option<&InstanceLog> {
        self.instances.get(&key)
    }

    /// `instance` and the process instances it called, directly or not, by key.
    pub fn descendants(&self, instance: Key) -> Vec<Key> {
        self.instances
            .iter()
            .filter(|(k, _)| self.is_within(**k, instance))
            .map(|(k, _)| *k)
            .collect()
    }

    fn is_within(&self, mut k: Key, ancestor: Key) -> bool {
        loop {
            if k == ancestor {
                return true;
            }
            match self.instances.get(&k).and_then(|l| l.parent) {
                Some(p) => k = p,
                None => return false,
            }
        }
    }

    /// The variables of a scope as last written (live or ended).
    pub fn scope_variables(&self, scope: Key) -> Option<&ScopeVariables> {
        self.variables.get(&scope)
    }
}
