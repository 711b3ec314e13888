//! The picture of a process as a coverage file stores it: the BPMN DI of its pool, lanes,
//! elements, sequence flows and artifacts, with what drawing them needs (kind, name, event
//! marker, multi-instance, ...).
//!
//! The file carries the picture instead of pointing at the BPMN so that a report merged from CI
//! shards or machines with other paths draws every process, and always the model that ran (the
//! BPMN on disk may have moved or changed since).

use baton_engine::model::{
    self, ElementIdx, ElementKind, EventDefinition, GatewayKind, LoopCharacteristics,
    SubProcessKind, TaskKind,
};
use baton_engine::runtime::ExecutableProcess;
use serde::{Deserialize, Serialize};

/// The drawing of one process: its main plane, then one plane per collapsed sub-process whose
/// content has a drawing of its own (Camunda Modeler's drill-down).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Diagram {
    pub planes: Vec<Plane>,
}

/// One drawing surface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Plane {
    /// The collapsed sub-process this plane shows the inside of; `None` for the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_process: Option<String>,
    /// In document order (containers before what they contain).
    pub shapes: Vec<Shape>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<Edge>,
}

/// A shape: `bounds` and `label` are `[x, y, width, height]` as BPMN DI gives them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Shape {
    /// The BPMN element's id.
    pub id: String,
    pub kind: ShapeKind,
    /// The name (the text, for a text annotation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub bounds: [f64; 4],
    /// Where the name goes, when the DI says (events, gateways, data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<[f64; 4]>,
    /// The event definition of an event (none event: absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<EventMarker>,
    /// A sub-process or call activity drawn open (its content inside the shape).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expanded: bool,
    /// A non-interrupting start or boundary event (dashed border).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_interrupting: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_instance: Option<MultiInstanceMarker>,
    /// `isForCompensation`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub for_compensation: bool,
    /// A pool or lane laid out top to bottom (`isHorizontal="false"`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub vertical: bool,
}

/// What a shape is; the BPMN element name, except `eventSubProcess`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ShapeKind {
    Task,
    ServiceTask,
    SendTask,
    ReceiveTask,
    UserTask,
    ManualTask,
    ScriptTask,
    BusinessRuleTask,
    SubProcess,
    EventSubProcess,
    AdHocSubProcess,
    Transaction,
    CallActivity,
    ExclusiveGateway,
    InclusiveGateway,
    ParallelGateway,
    EventBasedGateway,
    ComplexGateway,
    StartEvent,
    IntermediateCatchEvent,
    IntermediateThrowEvent,
    BoundaryEvent,
    EndEvent,
    Participant,
    Lane,
    TextAnnotation,
    DataObjectReference,
    DataStoreReference,
    Group,
}

impl ShapeKind {
    /// Flow nodes: the shapes coverage counts.
    pub fn is_flow_node(self) -> bool {
        !matches!(
            self,
            ShapeKind::Participant
                | ShapeKind::Lane
                | ShapeKind::TextAnnotation
                | ShapeKind::DataObjectReference
                | ShapeKind::DataStoreReference
                | ShapeKind::Group
        )
    }

    pub fn is_event(self) -> bool {
        matches!(
            self,
            ShapeKind::StartEvent
                | ShapeKind::IntermediateCatchEvent
                | ShapeKind::IntermediateThrowEvent
                | ShapeKind::BoundaryEvent
                | ShapeKind::EndEvent
        )
    }

    pub fn is_gateway(self) -> bool {
        matches!(
            self,
            ShapeKind::ExclusiveGateway
                | ShapeKind::InclusiveGateway
                | ShapeKind::ParallelGateway
                | ShapeKind::EventBasedGateway
                | ShapeKind::ComplexGateway
        )
    }

    pub fn is_sub_process(self) -> bool {
        matches!(
            self,
            ShapeKind::SubProcess
                | ShapeKind::EventSubProcess
                | ShapeKind::AdHocSubProcess
                | ShapeKind::Transaction
        )
    }

    /// Words for people ("service task").
    pub fn words(self) -> &'static str {
        match self {
            ShapeKind::Task => "task",
            ShapeKind::ServiceTask => "service task",
            ShapeKind::SendTask => "send task",
            ShapeKind::ReceiveTask => "receive task",
            ShapeKind::UserTask => "user task",
            ShapeKind::ManualTask => "manual task",
            ShapeKind::ScriptTask => "script task",
            ShapeKind::BusinessRuleTask => "business rule task",
            ShapeKind::SubProcess => "sub-process",
            ShapeKind::EventSubProcess => "event sub-process",
            ShapeKind::AdHocSubProcess => "ad-hoc sub-process",
            ShapeKind::Transaction => "transaction",
            ShapeKind::CallActivity => "call activity",
            ShapeKind::ExclusiveGateway => "exclusive gateway",
            ShapeKind::InclusiveGateway => "inclusive gateway",
            ShapeKind::ParallelGateway => "parallel gateway",
            ShapeKind::EventBasedGateway => "event-based gateway",
            ShapeKind::ComplexGateway => "complex gateway",
            ShapeKind::StartEvent => "start event",
            ShapeKind::IntermediateCatchEvent => "intermediate catch event",
            ShapeKind::IntermediateThrowEvent => "intermediate throw event",
            ShapeKind::BoundaryEvent => "boundary event",
            ShapeKind::EndEvent => "end event",
            ShapeKind::Participant => "pool",
            ShapeKind::Lane => "lane",
            ShapeKind::TextAnnotation => "text annotation",
            ShapeKind::DataObjectReference => "data object",
            ShapeKind::DataStoreReference => "data store",
            ShapeKind::Group => "group",
        }
    }
}

/// The event definition drawn inside an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EventMarker {
    Message,
    Timer,
    Error,
    Escalation,
    Signal,
    Compensation,
    Conditional,
    Link,
    Terminate,
    Cancel,
    /// More than one definition.
    Multiple,
}

impl EventMarker {
    pub fn words(self) -> &'static str {
        match self {
            EventMarker::Message => "message",
            EventMarker::Timer => "timer",
            EventMarker::Error => "error",
            EventMarker::Escalation => "escalation",
            EventMarker::Signal => "signal",
            EventMarker::Compensation => "compensation",
            EventMarker::Conditional => "conditional",
            EventMarker::Link => "link",
            EventMarker::Terminate => "terminate",
            EventMarker::Cancel => "cancel",
            EventMarker::Multiple => "multiple",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MultiInstanceMarker {
    Parallel,
    Sequential,
}

/// A sequence flow or an association, as a polyline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Edge {
    pub id: String,
    pub kind: EdgeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub waypoints: Vec<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<[f64; 4]>,
    /// The default flow of its source (a slash at the start).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    /// A conditional flow out of an activity (a small diamond at the start).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conditional: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    SequenceFlow,
    Association,
}

fn bounds(b: &model::Bounds) -> [f64; 4] {
    [b.x, b.y, b.width, b.height]
}

fn shape_kind(e: &model::Element) -> ShapeKind {
    match &e.kind {
        ElementKind::Task(t) => match t {
            TaskKind::Undefined => ShapeKind::Task,
            TaskKind::Service => ShapeKind::ServiceTask,
            TaskKind::Send => ShapeKind::SendTask,
            TaskKind::Receive { .. } => ShapeKind::ReceiveTask,
            TaskKind::User => ShapeKind::UserTask,
            TaskKind::Manual => ShapeKind::ManualTask,
            TaskKind::Script { .. } => ShapeKind::ScriptTask,
            TaskKind::BusinessRule => ShapeKind::BusinessRuleTask,
        },
        ElementKind::SubProcess(s) => match s {
            SubProcessKind::Embedded => ShapeKind::SubProcess,
            SubProcessKind::Event => ShapeKind::EventSubProcess,
            SubProcessKind::Transaction => ShapeKind::Transaction,
            SubProcessKind::AdHoc(_) => ShapeKind::AdHocSubProcess,
        },
        ElementKind::CallActivity => ShapeKind::CallActivity,
        ElementKind::Gateway(g) => match g {
            GatewayKind::Exclusive => ShapeKind::ExclusiveGateway,
            GatewayKind::Inclusive => ShapeKind::InclusiveGateway,
            GatewayKind::Parallel => ShapeKind::ParallelGateway,
            GatewayKind::EventBased { .. } => ShapeKind::EventBasedGateway,
            GatewayKind::Complex => ShapeKind::ComplexGateway,
        },
        ElementKind::StartEvent { .. } => ShapeKind::StartEvent,
        ElementKind::IntermediateCatchEvent => ShapeKind::IntermediateCatchEvent,
        ElementKind::IntermediateThrowEvent => ShapeKind::IntermediateThrowEvent,
        ElementKind::BoundaryEvent { .. } => ShapeKind::BoundaryEvent,
        ElementKind::EndEvent => ShapeKind::EndEvent,
    }
}

fn event_marker(e: &model::Element) -> Option<EventMarker> {
    if e.event_definitions.len() > 1 {
        return Some(EventMarker::Multiple);
    }
    Some(match e.event_definitions.first()? {
        EventDefinition::Message { .. } => EventMarker::Message,
        EventDefinition::Timer(_) => EventMarker::Timer,
        EventDefinition::Error { .. } => EventMarker::Error,
        EventDefinition::Escalation { .. } => EventMarker::Escalation,
        EventDefinition::Signal { .. } => EventMarker::Signal,
        EventDefinition::Compensation { .. } => EventMarker::Compensation,
        EventDefinition::Conditional { .. } => EventMarker::Conditional,
        EventDefinition::Link { .. } => EventMarker::Link,
        EventDefinition::Terminate { .. } => EventMarker::Terminate,
        EventDefinition::Cancel { .. } => EventMarker::Cancel,
    })
}

fn artifact_kind(kind: &str) -> Option<ShapeKind> {
    Some(match kind {
        "textAnnotation" => ShapeKind::TextAnnotation,
        "dataObjectReference" | "dataObject" => ShapeKind::DataObjectReference,
        "dataStoreReference" => ShapeKind::DataStoreReference,
        "group" => ShapeKind::Group,
        _ => return None,
    })
}

/// The picture of a deployed process; `None` when its file has no BPMN DI for it.
pub fn of_process(p: &ExecutableProcess) -> Option<Diagram> {
    let di = p.diagram();
    let model = &p.model();
    if di.shapes.is_empty() {
        return None;
    }
    let element_shape = |idx: ElementIdx| di.shapes.get(model.element(idx).id.as_str());
    // A sub-process without `isExpanded="true"` is drawn closed (bpmn-js does the same); what it
    // contains goes on a plane of its own.
    let collapsed = |idx: ElementIdx| {
        matches!(model.element(idx).kind, ElementKind::SubProcess(_))
            && element_shape(idx).is_some_and(|s| s.is_expanded != Some(true))
    };
    let plane_of = |mut parent: Option<ElementIdx>| -> Option<ElementIdx> {
        while let Some(idx) = parent {
            if collapsed(idx) {
                return Some(idx);
            }
            parent = model.element(idx).parent;
        }
        None
    };

    let mut planes: Vec<(Option<ElementIdx>, Plane)> = vec![(
        None,
        Plane {
            sub_process: None,
            shapes: Vec::new(),
            edges: Vec::new(),
        },
    )];
    let mut plane = |key: Option<ElementIdx>| -> usize {
        if let Some(i) = planes.iter().position(|(k, _)| *k == key) {
            return i;
        }
        planes.push((
            key,
            Plane {
                sub_process: key.map(|k| model.element(k).id.to_string()),
                shapes: Vec::new(),
                edges: Vec::new(),
            },
        ));
        planes.len() - 1
    };
    // Each drawn thing, with the plane index it goes on.
    let mut shapes: Vec<(usize, Shape)> = Vec::new();
    let mut edges: Vec<(usize, Edge)> = Vec::new();
    if let Some(participant) = &p.participant()
        && let Some(s) = di.shapes.get(&participant.id)
    {
        let shape = blank(
            &participant.id,
            ShapeKind::Participant,
            participant.name.as_deref(),
            s,
        );
        shapes.push((plane(None), shape));
    }
    for lane in &model.lanes {
        if let Some(s) = di.shapes.get(&lane.id) {
            let shape = blank(&lane.id, ShapeKind::Lane, lane.name.as_deref(), s);
            shapes.push((plane(None), shape));
        }
    }
    // Where each element is drawn, for the artifacts connected to it.
    let mut element_plane: Vec<(&str, usize)> = Vec::new();
    for e in &model.elements {
        let Some(s) = di.shapes.get(e.id.as_str()) else {
            continue;
        };
        let shape = element_shape_of(e, s);
        // A boundary event is declared beside its activity, so it shares the activity's plane.
        let index = plane(plane_of(e.parent));
        element_plane.push((&e.id, index));
        shapes.push((index, shape));
    }
    for f in &model.flows {
        let Some(edge) = di.edges.get(f.id.as_str()) else {
            continue;
        };
        edges.push((plane(plane_of(f.parent)), flow_edge(model, f, edge)));
    }
    let plane_of_ref = |r: &Option<String>| {
        r.as_deref()
            .and_then(|id| element_plane.iter().find(|(e, _)| *e == id))
            .map(|(_, p)| *p)
    };
    // Artifacts go where the element they annotate is; unconnected ones on the main plane.
    let mut artifact_plane: Vec<(&str, usize)> = Vec::new();
    for a in &model.artifacts {
        if a.kind == "association" {
            let index = plane_of_ref(&a.source_ref)
                .or_else(|| plane_of_ref(&a.target_ref))
                .unwrap_or(0);
            for end in [&a.source_ref, &a.target_ref].into_iter().flatten() {
                artifact_plane.push((end, index));
            }
            if let Some(edge) = di.edges.get(&a.id) {
                edges.push((
                    index,
                    Edge {
                        id: a.id.clone(),
                        kind: EdgeKind::Association,
                        name: None,
                        waypoints: edge.waypoints.iter().map(|(x, y)| [*x, *y]).collect(),
                        label: None,
                        default: false,
                        conditional: false,
                    },
                ));
            }
        }
    }
    for a in &model.artifacts {
        let (Some(kind), Some(s)) = (artifact_kind(&a.kind), di.shapes.get(&a.id)) else {
            continue;
        };
        let name = if kind == ShapeKind::TextAnnotation {
            a.text.as_deref()
        } else {
            a.name.as_deref()
        };
        let index = artifact_plane
            .iter()
            .find(|(id, _)| *id == a.id)
            .map_or(0, |(_, p)| *p);
        shapes.push((index, blank(&a.id, kind, name, s)));
    }
    Some(Diagram {
        planes: fill_planes(model, planes, shapes, edges),
    })
}

/// Puts each shape and edge on its plane; keeps the planes with something on them, the main
/// plane first and the drill-down planes in the order of their sub-processes in the model.
fn fill_planes(
    model: &model::Process,
    mut planes: Vec<(Option<ElementIdx>, Plane)>,
    shapes: Vec<(usize, Shape)>,
    edges: Vec<(usize, Edge)>,
) -> Vec<Plane> {
    for (index, shape) in shapes {
        planes[index].1.shapes.push(shape);
    }
    for (index, edge) in edges {
        planes[index].1.edges.push(edge);
    }
    let mut planes: Vec<Plane> = planes
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| !p.shapes.is_empty() || !p.edges.is_empty())
        .collect();
    let order = |p: &Plane| {
        p.sub_process
            .as_deref()
            .and_then(|id| model.elements.iter().position(|e| e.id == id))
    };
    planes.sort_by_key(|p| order(p).map_or(0, |i| i + 1));
    planes
}

/// A shape with no markers yet.
fn blank(id: &str, kind: ShapeKind, name: Option<&str>, s: &model::Shape) -> Shape {
    Shape {
        id: id.to_owned(),
        kind,
        name: name.map(str::to_owned),
        bounds: bounds(&s.bounds),
        label: s.label.as_ref().map(bounds),
        event: None,
        expanded: false,
        non_interrupting: false,
        multi_instance: None,
        for_compensation: false,
        vertical: s.is_horizontal == Some(false),
    }
}

/// A flow element's shape with its markers: event, expanded, non-interrupting, multi-instance,
/// compensation.
fn element_shape_of(e: &model::Element, s: &model::Shape) -> Shape {
    let kind = shape_kind(e);
    let mut shape = blank(&e.id, kind, e.name.as_deref(), s);
    shape.event = event_marker(e);
    shape.expanded =
        (kind.is_sub_process() || kind == ShapeKind::CallActivity) && s.is_expanded == Some(true);
    shape.non_interrupting = match &e.kind {
        ElementKind::StartEvent { is_interrupting } => !is_interrupting,
        ElementKind::BoundaryEvent {
            cancel_activity, ..
        } => !cancel_activity,
        _ => false,
    };
    shape.multi_instance = match &e.loop_characteristics {
        Some(LoopCharacteristics::MultiInstance(mi)) => Some(if mi.is_sequential {
            MultiInstanceMarker::Sequential
        } else {
            MultiInstanceMarker::Parallel
        }),
        _ => None,
    };
    shape.for_compensation = e.is_for_compensation;
    shape
}

/// A sequence flow's edge, marked default or conditional as bpmn-js marks it.
fn flow_edge(model: &model::Process, f: &model::SequenceFlow, edge: &model::Edge) -> Edge {
    let source = model.element(f.source);
    let conditional = f.condition.is_some()
        && matches!(
            source.kind,
            ElementKind::Task(_) | ElementKind::SubProcess(_) | ElementKind::CallActivity
        );
    let default = source
        .default_flow
        .is_some_and(|d| model.flow(d).id == f.id);
    Edge {
        id: f.id.to_string(),
        kind: EdgeKind::SequenceFlow,
        name: f.name.as_deref().map(str::to_owned),
        waypoints: edge.waypoints.iter().map(|(x, y)| [*x, *y]).collect(),
        label: edge.label.as_ref().map(bounds),
        default,
        conditional,
    }
}
