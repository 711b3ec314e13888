//! The engine's mutable state: element instances, variables, jobs, incidents, timers,
//! subscriptions, user tasks. Plain data, `Clone`, no behaviour beyond bookkeeping.

use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::model::{ElementIdx, FlowIdx};
use crate::runtime::compile::expr::baton_feel_bridge::{self, FeelValue};
use crate::runtime::records::{
    BpmnElementType, ElementRef, Key, ProcIdx, SharedVariableDocument, VariableDocument,
};
use crate::runtime::shared_json::SharedJson;
use crate::runtime::state::lifecycle::State;

/// One variable of a scope.
#[derive(Debug, Clone)]
pub struct Var {
    pub name: Arc<str>,
    pub key: Key,
    pub value: SharedJson,
    /// The value as FEEL sees it, converted on the first read by an expression and kept until
    /// the value changes (set through [`Var::set_value`]): conditions read the same variables
    /// again and again, and converting a JSON object is far dearer than evaluating.
    feel: OnceLock<FeelValue>,
    /// Whether the value survives FEEL's conversion unchanged
    /// ([`baton_feel_bridge::round_trips`]), asked by every `=name` mapping of it: kept until
    /// the value changes, as its FEEL form.
    round_trips: OnceLock<bool>,
}

impl Var {
    pub fn new(name: Arc<str>, key: Key, value: SharedJson) -> Var {
        Var {
            name,
            key,
            value,
            feel: OnceLock::new(),
            round_trips: OnceLock::new(),
        }
    }

    /// Replaces the value (and forgets its FEEL form).
    pub fn set_value(&mut self, value: SharedJson) {
        self.value = value;
        self.feel = OnceLock::new();
        self.round_trips = OnceLock::new();
    }

    /// Whether JSON → FEEL → JSON gives this very value back (asked once per value).
    pub fn round_trips(&self) -> bool {
        *self
            .round_trips
            .get_or_init(|| baton_feel_bridge::round_trips(self.value.view()))
    }

    /// The value as a FEEL value (a cheap clone once converted).
    pub fn feel_value(&self) -> FeelValue {
        self.feel
            .get_or_init(|| baton_feel_bridge::shared_to_feel(&self.value))
            .clone()
    }
}

/// The variables of one scope, in creation order. Small scopes are the rule, so a vector with a
/// linear search beats hashing.
#[derive(Debug, Clone, Default)]
pub struct VarMap {
    entries: Vec<Var>,
}

impl VarMap {
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.entries.iter().find(|v| &*v.name == name)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Var> {
        self.entries.iter_mut().find(|v| &*v.name == name)
    }

    pub fn insert(&mut self, var: Var) {
        self.entries.push(var);
    }

    pub fn iter(&self) -> impl Iterator<Item = &Var> {
        self.entries.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Multi-instance body bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct MiState {
    /// The collection as evaluated on activation.
    pub count: usize,
    /// Inner instances created so far (the next loop counter is `created + 1`).
    pub created: usize,
    pub completed: usize,
    pub terminated: usize,
    /// The completion condition held: remaining instances are being terminated.
    pub condition_fulfilled: bool,
}

/// Ad-hoc sub-process bookkeeping.
#[derive(Debug, Clone, Default)]
pub struct AdHocState {
    /// The job-worker mode's completion flag (`isCompletionConditionFulfilled`).
    pub fulfilled: bool,
    /// The open ad-hoc job, if any.
    pub job: Option<Key>,
}

/// Why a scope is being emptied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interruption {
    /// A terminate end event: the scope completes when its children are gone.
    TerminateEndEvent,
    /// An interrupting event sub-process: it starts when the children are gone.
    EventSubProcess,
    /// Cancel remaining instances (multi-instance completion condition, ad-hoc completion).
    CompletionCondition,
}

/// An event waiting to start once the element it interrupts is gone, or a pending activation.
#[derive(Debug, Clone)]
pub struct EventTrigger {
    /// The element to activate (boundary event, event sub-process start event).
    pub element: ElementIdx,
    pub variables: Option<Arc<VariableDocument>>,
}

/// One element instance (or the process instance itself).
///
/// Kept small: an instance is moved into the store when it activates and out of it when it
/// ends, on every element of every path. Fields most instances never set live in
/// [`InstanceExtras`], boxed and created on first write.
#[derive(Debug, Clone)]
pub struct ElementInstance {
    pub key: Key,
    pub process_instance_key: Key,
    pub flow_scope: Option<Key>,
    /// The open job of this element (task job, listener job).
    pub job: Option<Key>,
    pub vars: VarMap,
    /// Variables handed to the element on completion (job, message, user task, script result),
    /// merged or output-mapped when it completes.
    pub completion_vars: Option<Arc<SharedVariableDocument>>,
    /// Active child element instances, in activation order.
    pub children: Vec<Key>,
    /// Sequence flows taken inside this scope whose target has not started activating yet.
    pub active_flows: Vec<FlowIdx>,
    /// Subscriptions opened for this element instance (messages, timers, signals), by key.
    pub subscriptions: Vec<Key>,
    pub extras: Option<Box<InstanceExtras>>,
    pub proc: ProcIdx,
    /// `ElementRef::Process` for the process instance, else the flow node.
    pub element_ref: ElementRef,
    /// For multi-instance inner instances: the loop counter (1-based).
    pub loop_counter: u32,
    /// Index of the next execution listener of the current phase to run.
    pub listener_index: u32,
    pub element_type: BpmnElementType,
    pub state: State,
}

/// The fields of an [`ElementInstance`] that only some element kinds or situations use.
#[derive(Debug, Clone, Default)]
pub struct InstanceExtras {
    /// Tokens waiting on incoming flows of joining gateways in this scope.
    pub join_tokens: Vec<(FlowIdx, u32)>,
    pub interruption: Option<Interruption>,
    /// Events to start when this instance or its children are gone.
    pub triggers: Vec<EventTrigger>,
    /// For process instances started by a call activity: (parent process instance, call activity
    /// instance).
    pub parent: Option<(Key, Key)>,
    /// For call activities: the child process instance.
    pub called_child: Option<Key>,
    pub mi: Option<Box<MiState>>,
    pub ad_hoc: Option<Box<AdHocState>>,
    /// For Camunda user tasks: the user task key.
    pub user_task: Option<Key>,
    /// An open incident on this element instance (its step is retried on resolve).
    pub incident: Option<Key>,
}

impl ElementInstance {
    /// A new instance in ACTIVATING.
    pub fn new(
        key: Key,
        proc: ProcIdx,
        process_instance_key: Key,
        element_ref: ElementRef,
        element_type: BpmnElementType,
        flow_scope: Option<Key>,
    ) -> ElementInstance {
        ElementInstance {
            key,
            process_instance_key,
            flow_scope,
            job: None,
            vars: VarMap::default(),
            completion_vars: None,
            children: Vec::new(),
            active_flows: Vec::new(),
            subscriptions: Vec::new(),
            extras: None,
            proc,
            element_ref,
            loop_counter: 0,
            listener_index: 0,
            element_type,
            state: State::Activating,
        }
    }

    pub fn element(&self) -> Option<ElementIdx> {
        match self.element_ref {
            ElementRef::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The rarely used fields, created on first use.
    pub fn extras_mut(&mut self) -> &mut InstanceExtras {
        self.extras.get_or_insert_with(Box::default)
    }

    /// The rarely used fields for a change that only matters where they exist (clearing a
    /// field), without creating them.
    pub fn extras_if_any(&mut self) -> Option<&mut InstanceExtras> {
        self.extras.as_deref_mut()
    }

    pub fn join_tokens(&self) -> &[(FlowIdx, u32)] {
        self.extras.as_ref().map_or(&[], |e| &e.join_tokens)
    }

    pub fn interruption(&self) -> Option<Interruption> {
        self.extras.as_ref().and_then(|e| e.interruption)
    }

    pub fn triggers(&self) -> &[EventTrigger] {
        self.extras.as_ref().map_or(&[], |e| &e.triggers)
    }

    pub fn parent(&self) -> Option<(Key, Key)> {
        self.extras.as_ref().and_then(|e| e.parent)
    }

    pub fn called_child(&self) -> Option<Key> {
        self.extras.as_ref().and_then(|e| e.called_child)
    }

    pub fn mi(&self) -> Option<&MiState> {
        self.extras.as_ref().and_then(|e| e.mi.as_deref())
    }

    pub fn mi_mut(&mut self) -> Option<&mut MiState> {
        self.extras.as_mut().and_then(|e| e.mi.as_deref_mut())
    }

    pub fn ad_hoc(&self) -> Option<&AdHocState> {
        self.extras.as_ref().and_then(|e| e.ad_hoc.as_deref())
    }

    pub fn ad_hoc_mut(&mut self) -> Option<&mut AdHocState> {
        self.extras.as_mut().and_then(|e| e.ad_hoc.as_deref_mut())
    }

    pub fn user_task(&self) -> Option<Key> {
        self.extras.as_ref().and_then(|e| e.user_task)
    }

    pub fn incident(&self) -> Option<Key> {
        self.extras.as_ref().and_then(|e| e.incident)
    }
}

/// A process instance as the engine remembers it after it ended (element instances are removed
/// when they end; the log keeps their history).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessInstanceSummary {
    pub proc: ProcIdx,
    pub state: State,
    pub parent_process_instance_key: Option<Key>,
}

/// Element instances by key: a slab of instances plus a key → slot index, so inserting and
/// removing never moves the instances around a hash table. Iteration is by slot, so callers
/// that produce output sort by key.
///
/// In front of the index sits a small direct-mapped cache (slot by `key % RECENT`): one step
/// looks up the same few instances (the element, its scope) again and again, and keys are
/// handed out in sequence, so recent instances rarely collide. The cache only short-cuts
/// lookups; it never decides what exists.
#[derive(Debug, Clone)]
pub struct InstanceStore {
    slots: Vec<Option<ElementInstance>>,
    free: Vec<u32>,
    index: rustc_hash::FxHashMap<Key, u32>,
    recent: [(Key, u32); RECENT],
}

/// Entries of the [`InstanceStore`] lookup cache (a power of two).
const RECENT: usize = 64;

/// No key is 0 (keys start at [`FIRST_KEY`](crate::runtime::records::FIRST_KEY)): marks an empty cache entry.
const NO_KEY: Key = 0;

impl Default for InstanceStore {
    fn default() -> Self {
        InstanceStore {
            slots: Vec::new(),
            free: Vec::new(),
            index: rustc_hash::FxHashMap::default(),
            recent: [(NO_KEY, 0); RECENT],
        }
    }
}

impl InstanceStore {
    #[inline]
    fn slot(&self, key: Key) -> Option<usize> {
        let (k, slot) = self.recent[key as usize & (RECENT - 1)];
        if k == key && key != NO_KEY {
            return Some(slot as usize);
        }
        self.index.get(&key).map(|s| *s as usize)
    }

    #[inline]
    pub fn get(&self, key: &Key) -> Option<&ElementInstance> {
        let slot = self.slot(*key)?;
        self.slots[slot].as_ref()
    }

    #[inline]
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut ElementInstance> {
        let slot = self.slot(*key)?;
        self.slots[slot].as_mut()
    }

    #[inline]
    pub fn contains_key(&self, key: &Key) -> bool {
        self.slot(*key).is_some()
    }

    #[inline]
    pub fn insert(&mut self, key: Key, instance: ElementInstance) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(instance);
                s
            }
            None => {
                self.slots.push(Some(instance));
                (self.slots.len() - 1) as u32
            }
        };
        self.index.insert(key, slot);
        self.recent[key as usize & (RECENT - 1)] = (key, slot);
    }

    #[inline]
    pub fn remove(&mut self, key: &Key) -> Option<ElementInstance> {
        let slot = self.index.remove(key)?;
        let cached = &mut self.recent[*key as usize & (RECENT - 1)];
        if cached.0 == *key {
            *cached = (NO_KEY, 0);
        }
        self.free.push(slot);
        self.slots[slot as usize].take()
    }

    /// Live instances, in slot order (not key order).
    pub fn values(&self) -> impl Iterator<Item = &ElementInstance> {
        self.slots.iter().filter_map(Option::as_ref)
    }
}

impl std::ops::Index<&Key> for InstanceStore {
    type Output = ElementInstance;

    #[inline]
    fn index(&self, key: &Key) -> &ElementInstance {
        self.get(key).expect("element instance exists")
    }
}

/// What element instances about to be activated carry, by the key they will have (or, for an
/// event sub-process start, by its scope).
#[derive(Debug, Clone, Default)]
pub(crate) struct PendingActivations {
    /// Variables created for an element instance before it exists (multi-instance children).
    pub(crate) variables: FxHashMap<Key, VarMap>,
    /// The triggered start event of an event sub-process about to be activated, by scope.
    pub(crate) event_sub_process_starts: FxHashMap<Key, EventTrigger>,
    /// The element an ad-hoc inner instance will activate, by inner instance key.
    pub(crate) inner_elements: FxHashMap<Key, ElementIdx>,
    /// The event start event (message, timer, signal) a process instance being created starts
    /// at, with the event's variables.
    pub(crate) event_starts: FxHashMap<Key, EventTrigger>,
    /// Start instructions of a process instance being created.
    pub(crate) start_instructions: FxHashMap<Key, Vec<ElementIdx>>,
}
