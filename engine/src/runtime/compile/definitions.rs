//! What each element compiles to: its type, its resolved event definition, job, mappings,
//! listeners, multi-instance, ad-hoc, call, decision and user task definitions.

use std::sync::Arc;

use indexmap::IndexMap;

use crate::model::ElementIdx;
use crate::runtime::compile::expr::Expr;
use crate::runtime::records::{BpmnElementType, BpmnEventType};
use crate::runtime::shared_json::SharedJson;

/// What a flow scope (the process or a sub-process) contains, precomputed.
#[derive(Debug, Default)]
pub(crate) struct ScopeInfo {
    pub none_start: Option<ElementIdx>,
    /// Event sub-processes directly inside, in document order.
    pub event_subprocesses: Vec<ElementIdx>,
}

/// One input or output mapping: a source expression (absent: `null`) and a target path
/// (`a.b.c` split at the dots).
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    pub source: Option<Expr>,
    pub target: Vec<Arc<str>>,
    /// The value when it needs no evaluation, built once: a static text source (`anthropic`), a
    /// constant FEEL expression (`=10`), or `null` for an absent source. Shared by every
    /// instance that maps it.
    pub constant: Option<SharedJson>,
}

/// `zeebe:taskDefinition` and its companions.
#[derive(Debug, Clone)]
pub(crate) struct JobDef {
    pub job_type: Expr,
    pub retries: Expr,
    pub headers: Arc<IndexMap<String, String>>,
}

/// An execution or task listener.
#[derive(Debug, Clone)]
pub(crate) struct ListenerDef {
    pub event_type: String,
    pub job_type: Expr,
    pub retries: Expr,
}

/// The event definition of an event element (or a receive task), resolved against the
/// definitions' messages, errors, escalations and signals.
#[derive(Debug, Clone)]
pub(crate) enum EventDef {
    None,
    Message {
        name: Option<Expr>,
        correlation_key: Option<Expr>,
    },
    Timer(TimerDef),
    Error {
        /// `None`: catch-all (no errorRef, or an error without a code).
        code: Option<Expr>,
    },
    Escalation {
        code: Option<Expr>,
    },
    Signal {
        name: Option<Expr>,
    },
    Compensation {
        activity: Option<ElementIdx>,
    },
    Conditional {
        condition: Option<Expr>,
        variable_names: Vec<String>,
        variable_events: Vec<String>,
    },
    Link {
        name: String,
        /// For a throw: the catch event with the same name.
        target: Option<ElementIdx>,
    },
    Terminate,
}

impl EventDef {
    /// The name expression of a message event.
    pub(crate) fn message_name(&self) -> Option<&Option<Expr>> {
        match self {
            EventDef::Message { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The name expression of a signal event.
    pub(crate) fn signal_name(&self) -> Option<&Option<Expr>> {
        match self {
            EventDef::Signal { name } => Some(name),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum TimerDef {
    Duration(Expr),
    Date(Expr),
    Cycle(Expr),
}

/// Multi-instance loop characteristics.
#[derive(Debug, Clone)]
pub(crate) struct MultiInstanceDef {
    pub sequential: bool,
    pub input_collection: Option<Expr>,
    pub input_element: Option<Arc<str>>,
    pub output_collection: Option<Arc<str>>,
    pub output_element: Option<Expr>,
    pub completion_condition: Option<Expr>,
}

/// Ad-hoc sub-process data.
#[derive(Debug, Clone)]
pub(crate) struct AdHocDef {
    pub active_elements_collection: Option<Expr>,
    pub completion_condition: Option<Expr>,
    pub cancel_remaining_instances: bool,
    pub output_collection: Option<Arc<str>>,
    pub output_element: Option<Expr>,
    /// `outputElement` is a bare variable reference: its name (set to null on each activation).
    pub output_element_variable: Option<Arc<str>>,
    /// Direct children without incoming flow that may be activated, in document order.
    pub activatable: Vec<ElementIdx>,
    /// The `adHocSubProcessElements` value, in Zeebe's order: a constant, shared by every
    /// instance.
    pub elements_json: SharedJson,
}

/// `zeebe:calledElement`.
#[derive(Debug, Clone)]
pub(crate) struct CallDef {
    pub process_id: Option<Expr>,
    pub propagate_all_child_variables: bool,
    pub propagate_all_parent_variables: bool,
    pub binding_type: Option<String>,
    pub version_tag: Option<String>,
}

/// `zeebe:calledDecision`.
#[derive(Debug, Clone)]
pub(crate) struct DecisionDef {
    pub decision_id: Option<Expr>,
    pub result_variable: Option<Arc<str>>,
    /// `latest` (default), `deployment` or `versionTag`.
    pub binding_type: Option<String>,
    /// For `bindingType="versionTag"`.
    pub version_tag: Option<Expr>,
}

/// A Camunda user task (`zeebe:userTask`).
#[derive(Debug, Clone, Default)]
pub(crate) struct UserTaskDef {
    pub assignee: Option<Expr>,
    pub candidate_groups: Option<Expr>,
    pub candidate_users: Option<Expr>,
    pub due_date: Option<Expr>,
    pub follow_up_date: Option<Expr>,
    pub priority: Option<Expr>,
    /// `zeebe:formDefinition formId`: a deployed form, found as `form_binding` says (latest,
    /// deployment, versionTag).
    pub form_id: Option<Arc<str>>,
    pub form_binding: Option<String>,
    pub form_version_tag: Option<String>,
    pub listeners: Vec<ListenerDef>,
}

/// Per element: everything the runtime needs, precomputed.
#[derive(Debug)]
pub(crate) struct ExecutableElement {
    pub id: Arc<str>,
    pub element_type: BpmnElementType,
    pub event_type: BpmnEventType,
    pub input_mappings: Vec<Mapping>,
    pub output_mappings: Vec<Mapping>,
    pub job: Option<JobDef>,
    pub event: EventDef,
    pub script: Option<(Expr, Arc<str>)>,
    // The parts only some kinds of element have are boxed: the process's elements are one
    // array, and an element that has none of them stays small.
    pub multi_instance: Option<Box<MultiInstanceDef>>,
    pub ad_hoc: Option<Box<AdHocDef>>,
    pub call: Option<Box<CallDef>>,
    pub decision: Option<Box<DecisionDef>>,
    pub user_task: Option<Box<UserTaskDef>>,
    pub start_listeners: Vec<ListenerDef>,
    pub end_listeners: Vec<ListenerDef>,
    /// For containers: none start event and event sub-processes.
    pub scope: ScopeInfo,
    /// Interrupting flag of start events inside event sub-processes and of boundary events.
    pub interrupting: bool,
    /// The element a boundary event is attached to.
    pub attached_to: Option<ElementIdx>,
    /// Intermediate catch events that follow an event-based gateway.
    pub after_event_based_gateway: bool,
    /// For an activity with a compensation boundary event: the activity that compensates it
    /// (associated with the boundary event).
    pub compensation_handler: Option<ElementIdx>,
}
