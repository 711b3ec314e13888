//! A deployed process version as the engine runs it: the model, its compiled elements, its
//! scopes, and its BPMN DI (read on first use). The accessors are what other crates read.

use std::sync::Arc;

use crate::model;
use crate::model::ElementIdx;
use crate::runtime::compile::definitions::{ExecutableElement, ListenerDef, ScopeInfo};
use crate::runtime::compile::expr::Expr;
use crate::runtime::records::{BpmnElementType, Key};
use crate::runtime::shared_json::SharedJson;

/// The `zeebe:property` that marks an ad-hoc sub-process as a tool container of an AI agent.
const TOOL_CONTAINER_PROPERTY: &str = "io.camunda.agenticai.toolContainer";

/// A deployed process version.
#[derive(Debug)]
pub struct ExecutableProcess {
    pub(crate) key: Key,
    pub(crate) bpmn_process_id: Arc<str>,
    pub(crate) version: i32,
    pub(crate) version_tag: Option<Arc<str>>,
    pub(crate) deployment_key: Key,
    pub(crate) resource_name: Arc<str>,
    /// The model as parsed (positions, names, documentation).
    pub(crate) model: model::Process,
    /// The BPMN DI of this process (see [`ExecutableProcess::diagram`]).
    pub(crate) diagram: ProcessDiagram,
    /// The pool (collaboration participant) that holds this process, if any.
    pub(crate) participant: Option<model::Participant>,
    /// Per element of `model.elements`, same index.
    pub(crate) elements: Vec<ExecutableElement>,
    /// The process as a scope (none start event, event sub-processes, listeners).
    pub(crate) scope: ScopeInfo,
    /// The process's own execution listeners (jobs of the process instance).
    pub(crate) start_listeners: Vec<ListenerDef>,
    pub(crate) end_listeners: Vec<ListenerDef>,
    /// Process-level start events other than the none start event (message, timer, signal,
    /// conditional), in document order.
    pub(crate) event_start_events: Vec<ElementIdx>,
    /// Per sequence flow of `model.flows`: its compiled condition.
    pub(crate) conditions: Vec<Option<Expr>>,
}

impl ExecutableProcess {
    /// The process definition key.
    pub fn key(&self) -> Key {
        self.key
    }

    pub fn bpmn_process_id(&self) -> &Arc<str> {
        &self.bpmn_process_id
    }

    pub fn version(&self) -> i32 {
        self.version
    }

    pub fn version_tag(&self) -> Option<&str> {
        self.version_tag.as_deref()
    }

    pub fn deployment_key(&self) -> Key {
        self.deployment_key
    }

    /// The name of the resource the process was deployed from.
    pub fn resource_name(&self) -> &Arc<str> {
        &self.resource_name
    }

    /// The model as parsed (positions, names, documentation).
    pub fn model(&self) -> &model::Process {
        &self.model
    }

    /// The pool (collaboration participant) that holds this process, if any.
    pub fn participant(&self) -> Option<&model::Participant> {
        self.participant.as_ref()
    }

    /// The id of an element.
    pub fn element_id(&self, idx: ElementIdx) -> &Arc<str> {
        &self.element(idx).id
    }

    /// The record type of an element (a multi-instance activity's own type, not its body's).
    pub fn element_type(&self, idx: ElementIdx) -> BpmnElementType {
        self.element(idx).element_type
    }

    /// Every element's id and type, in model order (an element's index is its position).
    pub fn element_types(&self) -> impl ExactSizeIterator<Item = (&Arc<str>, BpmnElementType)> {
        self.elements.iter().map(|e| (&e.id, e.element_type))
    }

    /// Whether the process has a none start event (where a created instance starts).
    pub fn has_none_start_event(&self) -> bool {
        self.scope.none_start.is_some()
    }

    /// The job types of the process's job workers that are static text (a FEEL job type is
    /// known only when its element is activated), in model order, repeats included.
    pub fn static_job_types(&self) -> impl Iterator<Item = &str> {
        (0..self.elements.len() as u32).filter_map(|i| self.static_job_type(ElementIdx(i)))
    }

    /// The job type of an element's job worker, when it is static text.
    pub fn static_job_type(&self, idx: ElementIdx) -> Option<&str> {
        self.element(idx).job.as_ref()?.job_type.as_static()
    }

    /// The element `idx` if it is an ad-hoc sub-process.
    pub fn ad_hoc_sub_process(&self, idx: ElementIdx) -> Option<AdHocSubProcessView<'_>> {
        let e = self.element(idx);
        e.ad_hoc.as_deref().map(|a| AdHocSubProcessView {
            activities: &a.activatable,
            job_worker: e.job.is_some(),
            output_collection: a.output_collection.as_deref(),
            elements: &a.elements_json,
        })
    }

    /// The tools of the process: the activities of every ad-hoc sub-process an AI agent drives,
    /// in model order. That is one a job worker drives (the AI Agent Sub-process), one an AI
    /// Agent Task names in its static `data.tools.containerElementId` input (the Task's tool
    /// container), or one marked as a tool container by the `zeebe:property`
    /// `io.camunda.agenticai.toolContainer` = `true` (Camunda 8.10's templates write it; the
    /// Modeler recognises a tool container by it "whether its tools are driven by an AI Agent
    /// task in the same process or a separate one", camunda-docs modeling guidance
    /// "Declaring a sub-process as agentic").
    pub fn ad_hoc_tools(&self) -> impl Iterator<Item = ElementIdx> + '_ {
        let containers: Vec<&str> = self
            .model
            .elements
            .iter()
            .flat_map(|e| e.zeebe.input_mappings.iter())
            .filter(|m| m.target == "data.tools.containerElementId")
            .filter_map(|m| m.source.as_ref())
            .filter(|source| source.feel().is_none())
            .map(|source| source.text.trim())
            .collect();
        (0..self.elements.len() as u32)
            .filter(move |&i| {
                let idx = ElementIdx(i);
                self.ad_hoc_sub_process(idx).is_some_and(|a| {
                    a.job_worker
                        || containers.contains(&self.element_id(idx).as_ref())
                        || self.model_element(idx).zeebe.properties.iter().any(|p| {
                            p.name == TOOL_CONTAINER_PROPERTY && p.value.as_deref() == Some("true")
                        })
                })
            })
            .filter_map(|i| self.ad_hoc_sub_process(ElementIdx(i)))
            .flat_map(|a| a.activities.iter().copied())
    }

    /// The type of the instance an element's activation creates: the body of a
    /// multi-instance activity, else the element's own.
    pub(crate) fn activation_type(&self, idx: ElementIdx) -> BpmnElementType {
        let e = self.element(idx);
        if e.multi_instance.is_some() {
            BpmnElementType::MultiInstanceBody
        } else {
            e.element_type
        }
    }

    pub(crate) fn element(&self, idx: ElementIdx) -> &ExecutableElement {
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
    pub(crate) fn scope_of(&self, container: Option<ElementIdx>) -> &ScopeInfo {
        match container {
            None => &self.scope,
            Some(idx) => &self.element(idx).scope,
        }
    }
}

/// An ad-hoc sub-process of a deployed process, as a test harness reads it.
#[derive(Debug, Clone, Copy)]
pub struct AdHocSubProcessView<'a> {
    /// The elements that may be activated in it (direct children without incoming flow), in
    /// document order.
    pub activities: &'a [ElementIdx],
    /// Driven by a job worker (`zeebe:taskDefinition`, as the AI agent is), not by
    /// `activeElementsCollection`.
    pub job_worker: bool,
    /// The variable each activation's result is collected into (`outputCollection`).
    pub output_collection: Option<&'a str>,
    /// The `adHocSubProcessElements` variable it gets on activation (its activities with their
    /// `fromAi()` parameters, in Zeebe's order).
    pub elements: &'a SharedJson,
}

/// A process's BPMN DI: read at deploy (from definitions that kept it), or on first use from
/// the file's text.
#[derive(Debug)]
pub(crate) struct ProcessDiagram {
    pub(crate) drawn: std::sync::OnceLock<model::Diagram>,
    /// Where the DI is in the file's text, while it is still to be read.
    pub(crate) unread: Option<model::UnreadDiagram>,
}

/// The part of the document's BPMN DI that draws this process, moved out of it (ids are unique
/// in a file, so no other process draws the same shape or edge).
pub(crate) fn process_diagram(
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
