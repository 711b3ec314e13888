//! The executable form of a deployed process, computed once at deploy.
//!
//! Compiling resolves everything the runtime would otherwise look up per step: element types,
//! parsed expressions, the referenced message/error/escalation/signal definitions, job
//! definitions, the none start event of each scope, the event sub-processes and boundary events
//! of each scope, and the `adHocSubProcessElements` value of each ad-hoc sub-process.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value as Json};

use super::expr::Expr;
use super::records::{BpmnElementType, BpmnEventType, Key};
use crate::model::{
    self, ElementIdx, ElementKind, EventDefinition, GatewayKind, SharedStr, SubProcessKind,
    TaskKind,
};

/// A deployed process version.
#[derive(Debug)]
pub struct ExecutableProcess {
    pub key: Key,
    pub bpmn_process_id: Arc<str>,
    pub version: i32,
    pub version_tag: Option<Arc<str>>,
    pub deployment_key: Key,
    pub resource_name: Arc<str>,
    /// The model as parsed (positions, names, documentation).
    pub model: model::Process,
    /// The BPMN DI of this process (see [`ExecutableProcess::diagram`]).
    diagram: ProcessDiagram,
    /// The pool (collaboration participant) that holds this process, if any.
    pub participant: Option<model::Participant>,
    /// Per element of `model.elements`, same index.
    pub elements: Vec<ExecElement>,
    /// The process as a scope (none start event, event sub-processes, listeners).
    pub scope: ScopeInfo,
    /// Process-level start events other than the none start event (message, timer, signal,
    /// conditional), in document order.
    pub event_start_events: Vec<ElementIdx>,
    pub execution_listeners: Vec<ListenerDef>,
    /// Per sequence flow of `model.flows`: its compiled condition.
    pub conditions: Vec<Option<Expr>>,
}

impl ExecutableProcess {
    pub fn element(&self, idx: ElementIdx) -> &ExecElement {
        &self.elements[idx.0 as usize]
    }

    pub fn model_element(&self, idx: ElementIdx) -> &model::Element {
        &self.model.elements[idx.0 as usize]
    }

    /// The element with this id.
    pub fn find(&self, id: &str) -> Option<ElementIdx> {
        self.elements
            .iter()
            .position(|e| &*e.id == id)
            .map(|i| ElementIdx(i as u32))
    }

    /// The BPMN DI of this process's elements, flows, lanes, artifacts and pool (for the
    /// coverage picture); empty when the file has none. Deploying only checks a file's DI: it
    /// is read here, from the file's text, the first time it is asked for.
    pub fn diagram(&self) -> &model::Diagram {
        self.diagram
            .drawn
            .get_or_init(|| match &self.diagram.unread {
                Some(unread) => {
                    let mut whole = unread.read();
                    process_diagram(&mut whole, &self.model, self.participant.as_ref())
                }
                None => model::Diagram::default(),
            })
    }

    /// The scope data of an element that is a container, or of the process (`None`).
    pub fn scope_of(&self, container: Option<ElementIdx>) -> &ScopeInfo {
        match container {
            None => &self.scope,
            Some(idx) => &self.element(idx).scope,
        }
    }
}

/// A process's BPMN DI: read at deploy (from definitions that kept it), or on first use from
/// the file's text.
#[derive(Debug)]
struct ProcessDiagram {
    drawn: std::sync::OnceLock<model::Diagram>,
    /// Where the DI is in the file's text, while it is still to be read.
    unread: Option<model::UnreadDiagram>,
}

/// What a flow scope (the process or a sub-process) contains, precomputed.
#[derive(Debug, Default)]
pub struct ScopeInfo {
    pub none_start: Option<ElementIdx>,
    /// Event sub-processes directly inside, in document order.
    pub event_subprocesses: Vec<ElementIdx>,
}

/// One input or output mapping: a source expression (absent: `null`) and a target path
/// (`a.b.c` split at the dots).
#[derive(Debug, Clone)]
pub struct Mapping {
    pub source: Option<Expr>,
    pub target: Vec<Arc<str>>,
    /// The value when it needs no evaluation, built once: a static text source (`anthropic`), a
    /// constant FEEL expression (`=10`), or `null` for an absent source. Shared by every
    /// instance that maps it.
    pub constant: Option<super::shared_json::SharedJson>,
}

/// `zeebe:taskDefinition` and its companions.
#[derive(Debug, Clone)]
pub struct JobDef {
    pub job_type: Expr,
    pub retries: Expr,
    pub headers: Arc<IndexMap<String, String>>,
}

/// An execution or task listener.
#[derive(Debug, Clone)]
pub struct ListenerDef {
    pub event_type: String,
    pub job_type: Expr,
    pub retries: Expr,
}

/// The event definition of an event element (or a receive task), resolved against the
/// definitions' messages, errors, escalations and signals.
#[derive(Debug, Clone)]
pub enum EventDef {
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
        wait_for_completion: bool,
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

#[derive(Debug, Clone)]
pub enum TimerDef {
    Duration(Expr),
    Date(Expr),
    Cycle(Expr),
}

/// Multi-instance loop characteristics.
#[derive(Debug, Clone)]
pub struct MiDef {
    pub sequential: bool,
    pub input_collection: Option<Expr>,
    pub input_element: Option<Arc<str>>,
    pub output_collection: Option<Arc<str>>,
    pub output_element: Option<Expr>,
    pub completion_condition: Option<Expr>,
}

/// Ad-hoc sub-process data.
#[derive(Debug, Clone)]
pub struct AdHocDef {
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
    /// instance, that keeps what a job worker derives from it (the AI agent connector's tools).
    pub elements_json: super::shared_json::SharedJson,
}

/// `zeebe:calledElement`.
#[derive(Debug, Clone)]
pub struct CallDef {
    pub process_id: Option<Expr>,
    pub propagate_all_child_variables: bool,
    pub propagate_all_parent_variables: bool,
    pub binding_type: Option<String>,
    pub version_tag: Option<String>,
}

/// `zeebe:calledDecision`.
#[derive(Debug, Clone)]
pub struct DecisionDef {
    pub decision_id: Option<Expr>,
    pub result_variable: Option<Arc<str>>,
    /// `latest` (default), `deployment` or `versionTag`.
    pub binding_type: Option<String>,
    /// For `bindingType="versionTag"`.
    pub version_tag: Option<Expr>,
}

/// A Camunda user task (`zeebe:userTask`).
#[derive(Debug, Clone, Default)]
pub struct UserTaskDef {
    pub assignee: Option<Expr>,
    pub candidate_groups: Option<Expr>,
    pub candidate_users: Option<Expr>,
    pub due_date: Option<Expr>,
    pub follow_up_date: Option<Expr>,
    pub priority: Option<Expr>,
    pub form_key: Option<Expr>,
    /// `zeebe:formDefinition formId`: a deployed form, found as `form_binding` says (latest,
    /// deployment, versionTag).
    pub form_id: Option<Arc<str>>,
    pub form_binding: Option<String>,
    pub form_version_tag: Option<String>,
    pub headers: Arc<IndexMap<String, String>>,
    pub listeners: Vec<ListenerDef>,
}

/// Per element: everything the runtime needs, precomputed.
#[derive(Debug)]
pub struct ExecElement {
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
    pub multi_instance: Option<Box<MiDef>>,
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

impl ExecElement {
    /// Tasks, sub-processes and call activities: the things that carry boundary events and
    /// multi-instance markers.
    pub fn is_activity(&self) -> bool {
        matches!(
            self.element_type,
            BpmnElementType::ServiceTask
                | BpmnElementType::SendTask
                | BpmnElementType::ReceiveTask
                | BpmnElementType::UserTask
                | BpmnElementType::ManualTask
                | BpmnElementType::Task
                | BpmnElementType::ScriptTask
                | BpmnElementType::BusinessRuleTask
                | BpmnElementType::SubProcess
                | BpmnElementType::AdHocSubProcess
                | BpmnElementType::CallActivity
        )
    }
}

/// A compile error: the element (if any) and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub element_id: Option<String>,
    pub message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.element_id {
            Some(id) => write!(f, "element '{id}': {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn err(element: &model::Element, message: impl Into<String>) -> CompileError {
    CompileError {
        element_id: Some(element.id.to_string()),
        message: message.into(),
    }
}

fn expr(element: &model::Element, e: &model::Expr) -> Result<Expr, CompileError> {
    compile_expr(e).map_err(|m| {
        err(
            element,
            format!("failed to parse expression '{}': {m}", e.text),
        )
    })
}

/// [`Expr::compile`], reusing the FEEL the deploy checks already parsed.
fn compile_expr(e: &model::Expr) -> Result<Expr, String> {
    match e.parse_feel() {
        Some(Ok(parsed)) => Ok(Expr::Feel(Arc::new(super::expr::FeelExpr::new(
            parsed.source().to_owned(),
            parsed,
        )))),
        Some(Err(error)) => Err(error.to_string()),
        None => Expr::compile(e),
    }
}

fn opt_expr(
    element: &model::Element,
    e: &Option<model::Expr>,
) -> Result<Option<Expr>, CompileError> {
    e.as_ref().map(|e| expr(element, e)).transpose()
}

fn mappings(element: &model::Element, ms: &[model::Mapping]) -> Result<Vec<Mapping>, CompileError> {
    ms.iter()
        .map(|m| {
            let source = opt_expr(element, &m.source)?;
            let constant = match &source {
                None => Some(serde_json::Value::Null.into()),
                Some(Expr::Static(text)) => Some(serde_json::Value::from(&**text).into()),
                Some(Expr::Feel(f)) => f.constant().cloned(),
            };
            Ok(Mapping {
                source,
                target: m.target.split('.').map(Arc::from).collect(),
                constant,
            })
        })
        .collect()
}

fn listeners(
    element: &model::Element,
    ls: &[model::Listener],
) -> Result<Vec<ListenerDef>, CompileError> {
    ls.iter()
        .map(|l| {
            Ok(ListenerDef {
                event_type: l.event_type.clone(),
                job_type: match &l.job_type {
                    Some(t) => expr(element, t)?,
                    None => return Err(err(element, "a listener must have a job type")),
                },
                retries: match &l.retries {
                    Some(r) => expr(element, r)?,
                    None => Expr::of_static("3"),
                },
            })
        })
        .collect()
}

/// Input to [`compile`]: the process plus the definitions it lives in. The process becomes the
/// executable's model, and its part of the diagram moves out of the definitions, so neither is
/// copied.
pub struct CompileInput<'a> {
    pub definitions: &'a mut model::Definitions,
    pub process: model::Process,
}

/// Compiles one process of a definitions document.
#[allow(clippy::too_many_arguments)]
pub fn compile(
    input: CompileInput<'_>,
    key: Key,
    version: i32,
    deployment_key: Key,
    resource_name: &str,
) -> Result<ExecutableProcess, CompileError> {
    let defs = input.definitions;
    let owned = input.process;
    let process = &owned;
    let shared = Shared {
        no_headers: Arc::default(),
        three_retries: Expr::of_static("3"),
        static_job_types: Default::default(),
    };
    let mut elements = Vec::with_capacity(process.elements.len());
    for element in &process.elements {
        elements.push(compile_element(defs, process, element, &shared)?);
    }
    // Scope info of containers.
    for (i, element) in process.elements.iter().enumerate() {
        if matches!(element.kind, ElementKind::SubProcess(_)) {
            elements[i].scope = scope_info(process, &element.children);
        }
    }
    // Link throw targets: catch events with the same name in the same scope.
    for (i, element) in process.elements.iter().enumerate() {
        if let (ElementKind::IntermediateThrowEvent, EventDef::Link { name, .. }) =
            (&element.kind, &elements[i].event)
        {
            let name = name.clone();
            let target = process.elements.iter().position(|c| {
                c.parent == element.parent
                    && matches!(c.kind, ElementKind::IntermediateCatchEvent)
                    && c.event_definitions.iter().any(
                        |d| matches!(d, EventDefinition::Link { name: Some(n), .. } if *n == name),
                    )
            });
            match target {
                Some(t) => {
                    if let EventDef::Link { target, .. } = &mut elements[i].event {
                        *target = Some(ElementIdx(t as u32));
                    }
                }
                None => {
                    return Err(err(
                        element,
                        format!(
                            "Can't find a catch link event for the throw link event with the name '{name}'."
                        ),
                    ));
                }
            }
        }
    }
    // Catch events after an event-based gateway.
    for (i, element) in process.elements.iter().enumerate() {
        if matches!(
            element.kind,
            ElementKind::Gateway(GatewayKind::EventBased { .. })
        ) {
            let _ = i;
            for f in &element.outgoing {
                let target = process.flow(*f).target;
                elements[target.0 as usize].after_event_based_gateway = true;
            }
        }
    }
    // Ad-hoc sub-processes: the activatable elements and their description.
    for (i, element) in process.elements.iter().enumerate() {
        if let ElementKind::SubProcess(SubProcessKind::AdHoc(_)) = &element.kind {
            let activatable: Vec<ElementIdx> = element
                .children
                .iter()
                .copied()
                .filter(|c| {
                    let child = process.element(*c);
                    child.incoming.is_empty() && is_ad_hoc_activity(child)
                })
                .collect();
            let json = ad_hoc_elements_json(process, &activatable)?;
            if let Some(ad_hoc) = &mut elements[i].ad_hoc {
                ad_hoc.activatable = activatable;
                ad_hoc.elements_json = super::shared_json::SharedJson::constant(json);
            }
        }
    }
    // Compensation: a boundary event with a compensate definition is associated with the
    // activity that compensates the one it is attached to.
    for a in &process.artifacts {
        if a.kind != "association" {
            continue;
        }
        let (Some(src), Some(dst)) = (&a.source_ref, &a.target_ref) else {
            continue;
        };
        let (Some(b), Some(h)) = (process.find(src), process.find(dst)) else {
            continue;
        };
        if let (Some(activity), EventDef::Compensation { .. }) = (
            elements[b.0 as usize].attached_to,
            &elements[b.0 as usize].event,
        ) && process.element(h).is_for_compensation
        {
            elements[activity.0 as usize].compensation_handler = Some(h);
        }
    }
    let scope = scope_info(process, &process.children);
    let event_start_events = process
        .children
        .iter()
        .copied()
        .filter(|c| {
            let e = process.element(*c);
            matches!(e.kind, ElementKind::StartEvent { .. }) && !e.event_definitions.is_empty()
        })
        .collect();
    let process_element = model::Element {
        id: process.id.as_str().into(),
        name: process.name.as_deref().map(SharedStr::from),
        documentation: Vec::new(),
        kind: ElementKind::Task(TaskKind::Undefined),
        parent: None,
        children: Vec::new(),
        incoming: model::FlowList::new(),
        outgoing: model::FlowList::new(),
        default_flow: None,
        boundary_events: Vec::new(),
        event_definitions: Vec::new(),
        loop_characteristics: None,
        is_for_compensation: false,
        zeebe: Default::default(),
        span: process.span,
    };
    let execution_listeners = listeners(&process_element, &process.zeebe.execution_listeners)?;
    let mut conditions = Vec::with_capacity(process.flows.len());
    for f in &process.flows {
        conditions.push(match &f.condition {
            Some(c) => Some(compile_expr(c).map_err(|m| CompileError {
                element_id: Some(f.id.to_string()),
                message: format!("failed to parse condition '{}': {m}", c.text),
            })?),
            None => None,
        });
    }
    let participant = participant_of(defs, process).cloned();
    let diagram = match &defs.unread_diagram {
        Some(text) => ProcessDiagram {
            drawn: std::sync::OnceLock::new(),
            unread: Some(text.clone()),
        },
        None => ProcessDiagram {
            drawn: process_diagram(&mut defs.diagram, process, participant.as_ref()).into(),
            unread: None,
        },
    };
    Ok(ExecutableProcess {
        key,
        bpmn_process_id: Arc::from(process.id.as_str()),
        version,
        version_tag: process.version_tag.as_deref().map(Arc::from),
        deployment_key,
        resource_name: Arc::from(resource_name),
        model: owned,
        diagram,
        participant,
        elements,
        scope,
        event_start_events,
        execution_listeners,
        conditions,
    })
}

fn participant_of<'d>(
    defs: &'d model::Definitions,
    process: &model::Process,
) -> Option<&'d model::Participant> {
    defs.collaborations
        .iter()
        .flat_map(|c| &c.participants)
        .find(|p| p.process_ref.as_deref() == Some(process.id.as_str()))
}

/// The part of the document's BPMN DI that draws this process, moved out of it (ids are unique
/// in a file, so no other process draws the same shape or edge).
fn process_diagram(
    whole: &mut model::Diagram,
    process: &model::Process,
    participant: Option<&model::Participant>,
) -> model::Diagram {
    let shape_ids = || {
        participant
            .map(|p| p.id.as_str())
            .into_iter()
            .chain(process.lanes.iter().map(|l| l.id.as_str()))
            .chain(process.elements.iter().map(|e| e.id.as_str()))
            .chain(process.artifacts.iter().map(|a| a.id.as_str()))
    };
    let edge_ids = || {
        process
            .flows
            .iter()
            .map(|f| f.id.as_str())
            .chain(process.artifacts.iter().map(|a| a.id.as_str()))
    };
    // Usually the file draws this process alone: then the diagram is moved whole rather than
    // rebuilt entry by entry (ids are unique, so equal counts mean the same entries).
    let shapes = &whole.shapes;
    let edges = &whole.edges;
    if shape_ids().filter(|id| shapes.contains_key(*id)).count() == shapes.len()
        && edge_ids().filter(|id| edges.contains_key(*id)).count() == edges.len()
    {
        return std::mem::take(whole);
    }
    let mut diagram = model::Diagram::default();
    diagram.shapes.reserve(
        shapes
            .len()
            .min(1 + process.lanes.len() + process.elements.len() + process.artifacts.len()),
    );
    diagram.edges.reserve(
        edges
            .len()
            .min(process.flows.len() + process.artifacts.len()),
    );
    for id in shape_ids() {
        if let Some((id, shape)) = whole.shapes.swap_remove_entry(id) {
            diagram.shapes.insert(id, shape);
        }
    }
    for id in edge_ids() {
        if let Some((id, edge)) = whole.edges.swap_remove_entry(id) {
            diagram.edges.insert(id, edge);
        }
    }
    diagram
}

fn scope_info(process: &model::Process, children: &[ElementIdx]) -> ScopeInfo {
    let mut info = ScopeInfo::default();
    for &c in children {
        let e = process.element(c);
        match &e.kind {
            ElementKind::StartEvent { .. }
                if e.event_definitions.is_empty() && info.none_start.is_none() =>
            {
                info.none_start = Some(c);
            }
            ElementKind::SubProcess(SubProcessKind::Event) => info.event_subprocesses.push(c),
            _ => {}
        }
    }
    info
}

fn is_ad_hoc_activity(e: &model::Element) -> bool {
    matches!(
        e.kind,
        ElementKind::Task(_)
            | ElementKind::SubProcess(SubProcessKind::Embedded)
            | ElementKind::SubProcess(SubProcessKind::AdHoc(_))
            | ElementKind::CallActivity
            | ElementKind::IntermediateThrowEvent
            | ElementKind::IntermediateCatchEvent
            | ElementKind::Gateway(_)
    )
}

fn element_type(e: &model::Element) -> BpmnElementType {
    use BpmnElementType as T;
    match &e.kind {
        ElementKind::Task(k) => match k {
            TaskKind::Undefined => T::Task,
            TaskKind::Service => T::ServiceTask,
            TaskKind::Send => T::SendTask,
            TaskKind::Receive { .. } => T::ReceiveTask,
            TaskKind::User => T::UserTask,
            TaskKind::Manual => T::ManualTask,
            TaskKind::Script { .. } => T::ScriptTask,
            TaskKind::BusinessRule => T::BusinessRuleTask,
        },
        ElementKind::SubProcess(k) => match k {
            SubProcessKind::Embedded | SubProcessKind::Transaction => T::SubProcess,
            SubProcessKind::Event => T::EventSubProcess,
            SubProcessKind::AdHoc(_) => T::AdHocSubProcess,
        },
        ElementKind::CallActivity => T::CallActivity,
        ElementKind::Gateway(g) => match g {
            GatewayKind::Exclusive | GatewayKind::Complex => T::ExclusiveGateway,
            GatewayKind::Inclusive => T::InclusiveGateway,
            GatewayKind::Parallel => T::ParallelGateway,
            GatewayKind::EventBased { .. } => T::EventBasedGateway,
        },
        ElementKind::StartEvent { .. } => T::StartEvent,
        ElementKind::IntermediateCatchEvent => T::IntermediateCatchEvent,
        ElementKind::IntermediateThrowEvent => T::IntermediateThrowEvent,
        ElementKind::BoundaryEvent { .. } => T::BoundaryEvent,
        ElementKind::EndEvent => T::EndEvent,
    }
}

fn event_type(e: &model::Element) -> BpmnEventType {
    use BpmnEventType as E;
    match e.event_definitions.first() {
        Some(d) => match d {
            EventDefinition::Message { .. } => E::Message,
            EventDefinition::Timer(_) => E::Timer,
            EventDefinition::Error { .. } => E::Error,
            EventDefinition::Escalation { .. } => E::Escalation,
            EventDefinition::Signal { .. } => E::Signal,
            EventDefinition::Compensation { .. } => E::Compensation,
            EventDefinition::Conditional { .. } => E::Conditional,
            EventDefinition::Link { .. } => E::Link,
            EventDefinition::Terminate { .. } => E::Terminate,
            EventDefinition::Cancel { .. } => E::Unspecified,
        },
        None => match &e.kind {
            ElementKind::StartEvent { .. }
            | ElementKind::EndEvent
            | ElementKind::IntermediateThrowEvent
            | ElementKind::IntermediateCatchEvent
            | ElementKind::BoundaryEvent { .. } => E::None,
            ElementKind::Task(TaskKind::Receive { .. }) => E::Message,
            _ => E::Unspecified,
        },
    }
}

/// Values many elements hold, made once per process rather than once per element.
struct Shared<'p> {
    no_headers: Arc<IndexMap<String, String>>,
    three_retries: Expr,
    /// Static job types compiled so far: a process's tasks mostly share a few, which then
    /// share one string.
    static_job_types: std::cell::RefCell<rustc_hash::FxHashMap<&'p str, Expr>>,
}

impl<'p> Shared<'p> {
    /// A job type; a static one is shared with the tasks of the same type.
    fn job_type(
        &self,
        e: &model::Element,
        job_type: &'p model::Expr,
    ) -> Result<Expr, CompileError> {
        if job_type.feel().is_some() {
            return expr(e, job_type);
        }
        let mut known = self.static_job_types.borrow_mut();
        if let Some(compiled) = known.get(job_type.text.as_str()) {
            return Ok(compiled.clone());
        }
        let compiled = expr(e, job_type)?;
        known.insert(&job_type.text, compiled.clone());
        Ok(compiled)
    }

    fn headers(&self, z: &model::Zeebe) -> Arc<IndexMap<String, String>> {
        if z.task_headers.is_empty() {
            self.no_headers.clone()
        } else {
            Arc::new(z.task_headers.iter().cloned().collect())
        }
    }
}

fn compile_element<'p>(
    defs: &model::Definitions,
    process: &model::Process,
    e: &'p model::Element,
    shared: &Shared<'p>,
) -> Result<ExecElement, CompileError> {
    let z = &e.zeebe;
    let job = match &z.task_definition {
        Some(td) => Some(JobDef {
            job_type: match &td.job_type {
                Some(t) => shared.job_type(e, t)?,
                None => return Err(err(e, "zeebe:taskDefinition must have a type")),
            },
            retries: match &td.retries {
                Some(r) => expr(e, r)?,
                None => shared.three_retries.clone(),
            },
            headers: shared.headers(z),
        }),
        None => None,
    };
    let mut event = match e.event_definitions.first() {
        None => EventDef::None,
        Some(d) => compile_event_definition(defs, process, e, d)?,
    };
    if let ElementKind::Task(TaskKind::Receive { message_ref, .. }) = &e.kind {
        event = message_event(defs, e, message_ref.as_deref())?;
    }
    let script = match &z.script {
        Some(s) => match (&s.expression, &s.result_variable) {
            (Some(x), Some(r)) => Some((expr(e, x)?, Arc::from(r.as_str()))),
            _ => None,
        },
        None => None,
    };
    let multi_instance = match &e.loop_characteristics {
        Some(model::LoopCharacteristics::MultiInstance(mi)) => Some(MiDef {
            sequential: mi.is_sequential,
            input_collection: opt_expr(e, &mi.input_collection)?,
            input_element: mi
                .input_element
                .as_deref()
                .filter(|s| !s.is_empty())
                .map(Arc::from),
            output_collection: mi
                .output_collection
                .as_deref()
                .filter(|s| !s.is_empty())
                .map(Arc::from),
            output_element: opt_expr(e, &mi.output_element)?,
            completion_condition: opt_expr(e, &mi.completion_condition)?,
        }),
        Some(model::LoopCharacteristics::StandardLoop { .. }) => {
            return Err(err(e, "standard loop characteristics are not supported"));
        }
        None => None,
    };
    let ad_hoc = match &e.kind {
        ElementKind::SubProcess(SubProcessKind::AdHoc(a)) => {
            let zh = z.ad_hoc.as_ref();
            let output_element = match zh.and_then(|h| h.output_element.as_ref()) {
                Some(x) => Some(expr(e, x)?),
                None => None,
            };
            let output_element_variable = output_element.as_ref().and_then(|x| match x {
                Expr::Feel(f) => {
                    let s = f.source.trim();
                    (!s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                        .then(|| Arc::from(s))
                }
                Expr::Static(_) => None,
            });
            Some(AdHocDef {
                active_elements_collection: match zh
                    .and_then(|h| h.active_elements_collection.as_ref())
                {
                    Some(x) => Some(expr(e, x)?),
                    None => None,
                },
                completion_condition: opt_expr(e, &a.completion_condition)?,
                cancel_remaining_instances: a.cancel_remaining_instances.unwrap_or(true),
                output_collection: zh
                    .and_then(|h| h.output_collection.as_deref())
                    .filter(|s| !s.is_empty())
                    .map(Arc::from),
                output_element,
                output_element_variable,
                activatable: Vec::new(),
                elements_json: super::shared_json::SharedJson::constant(Json::Array(Vec::new())),
            })
        }
        _ => None,
    };
    let call = match (&e.kind, &z.called_element) {
        (ElementKind::CallActivity, Some(c)) => Some(CallDef {
            process_id: opt_expr(e, &c.process_id)?,
            propagate_all_child_variables: c.propagate_all_child_variables.unwrap_or(true),
            propagate_all_parent_variables: c.propagate_all_parent_variables.unwrap_or(true),
            binding_type: c.binding_type.clone(),
            version_tag: c.version_tag.clone(),
        }),
        (ElementKind::CallActivity, None) => {
            return Err(err(e, "a call activity must have zeebe:calledElement"));
        }
        _ => None,
    };
    let decision = match &z.called_decision {
        Some(d) => Some(DecisionDef {
            decision_id: opt_expr(e, &d.decision_id)?,
            result_variable: d.result_variable.as_deref().map(Arc::from),
            binding_type: d.binding_type.clone(),
            version_tag: match &d.version_tag {
                Some(tag) => {
                    Some(Expr::compile_text(tag).map_err(|m| err(e, format!("versionTag: {m}")))?)
                }
                None => None,
            },
        }),
        None => None,
    };
    let user_task = if matches!(e.kind, ElementKind::Task(TaskKind::User)) && z.user_task {
        let a = z.assignment.as_ref();
        let s = z.task_schedule.as_ref();
        Some(UserTaskDef {
            assignee: match a.and_then(|a| a.assignee.as_ref()) {
                Some(x) => Some(expr(e, x)?),
                None => None,
            },
            candidate_groups: match a.and_then(|a| a.candidate_groups.as_ref()) {
                Some(x) => Some(expr(e, x)?),
                None => None,
            },
            candidate_users: match a.and_then(|a| a.candidate_users.as_ref()) {
                Some(x) => Some(expr(e, x)?),
                None => None,
            },
            due_date: match s.and_then(|s| s.due_date.as_ref()) {
                Some(x) => Some(expr(e, x)?),
                None => None,
            },
            follow_up_date: match s.and_then(|s| s.follow_up_date.as_ref()) {
                Some(x) => Some(expr(e, x)?),
                None => None,
            },
            priority: opt_expr(e, &z.priority)?,
            form_key: match z.form.as_ref().and_then(|f| f.form_key.as_ref()) {
                Some(x) => Some(expr(e, x)?),
                None => None,
            },
            form_id: z
                .form
                .as_ref()
                .and_then(|f| f.form_id.as_ref())
                .map(|x| Arc::from(x.text.trim_start_matches('=').trim()))
                .filter(|x: &Arc<str>| !x.is_empty()),
            form_binding: z.form.as_ref().and_then(|f| f.binding_type.clone()),
            form_version_tag: z.form.as_ref().and_then(|f| f.version_tag.clone()),
            headers: shared.headers(z),
            listeners: listeners(e, &z.task_listeners)?,
        })
    } else {
        None
    };
    // A job-based user task (no zeebe:userTask) is a job of the well-known type.
    let job = match (&e.kind, job, z.user_task) {
        (ElementKind::Task(TaskKind::User), None, false) => Some(JobDef {
            job_type: Expr::of_static("io.camunda.zeebe:userTask"),
            retries: Expr::of_static("1"),
            headers: shared.headers(z),
        }),
        (_, job, _) => job,
    };
    // (Most elements have no listener: nothing to split.)
    let (start_listeners, end_listeners) = if z.execution_listeners.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        listeners(e, &z.execution_listeners)?
            .into_iter()
            .partition(|l| l.event_type == "start")
    };
    let (interrupting, attached_to) = match &e.kind {
        ElementKind::StartEvent { is_interrupting } => (*is_interrupting, None),
        ElementKind::BoundaryEvent {
            attached_to,
            cancel_activity,
        } => (*cancel_activity, Some(*attached_to)),
        _ => (true, None),
    };
    Ok(ExecElement {
        id: Arc::from(e.id.as_str()),
        element_type: element_type(e),
        event_type: event_type(e),
        input_mappings: mappings(e, &z.input_mappings)?,
        output_mappings: mappings(e, &z.output_mappings)?,
        job,
        event,
        script,
        multi_instance: multi_instance.map(Box::new),
        ad_hoc: ad_hoc.map(Box::new),
        call: call.map(Box::new),
        decision: decision.map(Box::new),
        user_task: user_task.map(Box::new),
        start_listeners,
        end_listeners,
        scope: ScopeInfo::default(),
        interrupting,
        attached_to,
        after_event_based_gateway: false,
        compensation_handler: None,
    })
}

fn message_event(
    defs: &model::Definitions,
    e: &model::Element,
    message_ref: Option<&str>,
) -> Result<EventDef, CompileError> {
    let message = message_ref.and_then(|r| defs.messages.iter().find(|m| m.id == r));
    let name = match message.and_then(|m| m.name.as_ref()) {
        Some(n) => Some(expr(e, n)?),
        None => None,
    };
    let correlation_key = match e
        .zeebe
        .subscription
        .as_ref()
        .and_then(|s| s.correlation_key.as_ref())
    {
        Some(k) => Some(expr(e, k)?),
        None => None,
    };
    Ok(EventDef::Message {
        name,
        correlation_key,
    })
}

fn compile_event_definition(
    defs: &model::Definitions,
    process: &model::Process,
    e: &model::Element,
    d: &EventDefinition,
) -> Result<EventDef, CompileError> {
    Ok(match d {
        EventDefinition::Message { message_ref, .. } => {
            message_event(defs, e, message_ref.as_deref())?
        }
        EventDefinition::Timer(t) => EventDef::Timer(match t {
            model::TimerDefinition::Duration(x) => TimerDef::Duration(expr(e, x)?),
            model::TimerDefinition::Date(x) => TimerDef::Date(expr(e, x)?),
            model::TimerDefinition::Cycle(x) => TimerDef::Cycle(expr(e, x)?),
            model::TimerDefinition::Empty(_) => {
                return Err(err(
                    e,
                    "a timer event definition must have a timeDuration, timeDate or timeCycle",
                ));
            }
        }),
        EventDefinition::Error { error_ref, .. } => {
            let error = error_ref
                .as_deref()
                .and_then(|r| defs.errors.iter().find(|x| x.id == r));
            let code = match error.and_then(|x| x.error_code.as_ref()) {
                Some(c) if !c.text.is_empty() => Some(expr(e, c)?),
                _ => None,
            };
            EventDef::Error { code }
        }
        EventDefinition::Escalation { escalation_ref, .. } => {
            let esc = escalation_ref
                .as_deref()
                .and_then(|r| defs.escalations.iter().find(|x| x.id == r));
            let code = match esc.and_then(|x| x.escalation_code.as_ref()) {
                Some(c) if !c.text.is_empty() => Some(expr(e, c)?),
                _ => None,
            };
            EventDef::Escalation { code }
        }
        EventDefinition::Signal { signal_ref, .. } => {
            let sig = signal_ref
                .as_deref()
                .and_then(|r| defs.signals.iter().find(|x| x.id == r));
            let name = match sig.and_then(|x| x.name.as_ref()) {
                Some(n) => Some(expr(e, n)?),
                None => None,
            };
            EventDef::Signal { name }
        }
        EventDefinition::Compensation {
            activity_ref,
            wait_for_completion,
            ..
        } => EventDef::Compensation {
            activity: activity_ref.as_deref().and_then(|r| process.find(r)),
            wait_for_completion: wait_for_completion.unwrap_or(true),
        },
        EventDefinition::Conditional {
            condition,
            variable_names,
            variable_events,
            ..
        } => EventDef::Conditional {
            condition: opt_expr(e, condition)?,
            variable_names: split_list(variable_names.as_deref()),
            variable_events: split_list(variable_events.as_deref()),
        },
        EventDefinition::Link { name, .. } => EventDef::Link {
            name: name.clone().unwrap_or_default(),
            target: None,
        },
        EventDefinition::Terminate { .. } => EventDef::Terminate,
        EventDefinition::Cancel { .. } => {
            return Err(err(e, "cancel events are not supported"));
        }
    })
}

fn split_list(s: Option<&str>) -> Vec<String> {
    s.map(|s| {
        s.split(',')
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

/// Java's `String.hashCode` over UTF-16 code units.
pub fn java_string_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h.wrapping_mul(31).wrapping_add(unit as i32);
    }
    h
}

/// The iteration order of a `java.util.HashMap<String, _>` filled with these keys in this order
/// (no removals): buckets ascending, insertion order inside a bucket.
pub fn java_hash_map_order(keys: &[&str]) -> Vec<usize> {
    let mut capacity = 16usize;
    while (keys.len() as f64) > 0.75 * capacity as f64 {
        capacity *= 2;
    }
    let bucket = |k: &str| {
        let h = java_string_hash(k) as u32;
        ((h ^ (h >> 16)) as usize) & (capacity - 1)
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    // A stable sort by bucket keeps insertion order inside a bucket, which is what resizing
    // (splitting each bucket into lo/hi lists that keep their relative order) preserves.
    order.sort_by_key(|&i| bucket(keys[i]));
    order
}

/// The `fromAi()` parameters of an element's own input mappings (FEEL sources only), for
/// `adHocSubProcessElements`: `{name, description?, type?, schema?, options?}`, empty fields
/// left out.
fn from_ai_parameters(element: &model::Element) -> Result<Vec<Json>, String> {
    let mut out = Vec::new();
    for m in &element.zeebe.input_mappings {
        let Some(source) = m.source.as_ref().and_then(|s| s.feel()) else {
            continue;
        };
        let expr = baton_feel::Expression::parse(source).map_err(|e| e.to_string())?;
        for p in baton_feel::from_ai::extract(&expr)? {
            let mut obj = serde_json::Map::new();
            obj.insert("name".into(), Json::String(p.name));
            if let Some(d) = p.description.filter(|d| !d.is_empty()) {
                obj.insert("description".into(), Json::String(d));
            }
            if let Some(t) = p.type_.filter(|t| !t.is_empty()) {
                obj.insert("type".into(), Json::String(t));
            }
            for (key, value) in [("schema", p.schema), ("options", p.options)] {
                match value {
                    Some(Json::Object(o)) if o.is_empty() => {}
                    Some(Json::Null) | None => {}
                    Some(v) => {
                        obj.insert(key.into(), v);
                    }
                }
            }
            out.push(Json::Object(obj));
        }
    }
    Ok(out)
}

/// The `adHocSubProcessElements` value: one object per activatable element, in Zeebe's
/// `HashMap` order, fields left out when empty.
fn ad_hoc_elements_json(
    process: &model::Process,
    activatable: &[ElementIdx],
) -> Result<Json, CompileError> {
    let ids: Vec<&str> = activatable
        .iter()
        .map(|i| process.element(*i).id.as_str())
        .collect();
    let mut out = Vec::with_capacity(ids.len());
    for i in java_hash_map_order(&ids) {
        let element = process.element(activatable[i]);
        let mut obj = Map::new();
        obj.insert("elementId".into(), Json::String(element.id.to_string()));
        if let Some(name) = element.name.as_deref().filter(|n| !n.is_empty()) {
            obj.insert("elementName".into(), Json::String(name.to_owned()));
        }
        if let Some(doc) = element.documentation.first().filter(|d| !d.is_empty()) {
            obj.insert("documentation".into(), Json::String(doc.clone()));
        }
        let mut props = Map::new();
        for p in &element.zeebe.properties {
            if p.name.is_empty() {
                continue;
            }
            let value = match p.value.as_deref() {
                None | Some("") => Json::Null,
                Some(v) => Json::String(v.to_owned()),
            };
            props.insert(p.name.clone(), value);
        }
        if !props.is_empty() {
            obj.insert("properties".into(), Json::Object(props));
        }
        let params = from_ai_parameters(element).map_err(|m| {
            err(
                element,
                format!(
                    "Failed to extract ad-hoc activity parameters for element '{}'. {m}",
                    element.id
                ),
            )
        })?;
        if !params.is_empty() {
            obj.insert("parameters".into(), Json::Array(params));
        }
        out.push(Json::Object(obj));
    }
    Ok(Json::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_of_strings() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99162322);
    }

    #[test]
    fn hash_map_order_matches_the_connector_fixture() {
        // The order the AI agent connector recorded for the chat-with-tools example.
        let doc_order = [
            "GetDateAndTime",
            "LoadUserByID",
            "ListUsers",
            "Search_Recipe",
            "SuperfluxProduct",
            "AskHumanToSendEmail",
            "Jokes_API",
            "Fetch_URL",
        ];
        let order: Vec<&str> = java_hash_map_order(&doc_order)
            .into_iter()
            .map(|i| doc_order[i])
            .collect();
        assert_eq!(
            order,
            [
                "Jokes_API",
                "GetDateAndTime",
                "ListUsers",
                "LoadUserByID",
                "SuperfluxProduct",
                "AskHumanToSendEmail",
                "Search_Recipe",
                "Fetch_URL"
            ]
        );
    }
}
