//! The typed BPMN model: what a `.bpmn` file says, with every position kept.
//!
//! The model is the parser's output and the deployment's input. It keeps everything Zeebe reads
//! (elements, event definitions, `zeebe:` extensions) and what only the diagram or the reader needs
//! (names, documentation, lanes, artifacts, BPMN DI). It executes nothing and checks nothing beyond
//! well-formedness: Zeebe's deploy rules live in `deploy`.
//!
//! Elements of a process live in one arena (`Process::elements`), addressed by `ElementIdx`;
//! sequence flows in another (`Process::flows`), addressed by `FlowIdx`. References between them
//! are resolved by the parser, so the runtime never looks an id up by string.

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;

pub mod parse;

pub use crate::source::{MAX_RESOURCE_BYTES, Span};
pub use parse::{DiagramReading, Parsed, parse};
/// A text of the model that shares the source file's memory: the ids, names and expressions the
/// parser reads are slices of the file's text (shared with [`crate::source::Source`]), so a
/// deploy allocates nothing for them and cloning one is a reference count. A value that had to
/// be unescaped, or one made in code, gets a text of its own. Reads as a `str`; equality, order
/// and hash are the string's.
pub type SharedStr = arcstr::Substr;

/// Index of an element in `Process::elements`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementIdx(pub u32);

/// Index of a sequence flow in `Process::flows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowIdx(pub u32);

/// The incoming or outgoing flows of a flow node, kept inline up to two.
///
/// A modeler file gives nearly every flow node one or two incoming and outgoing flows and
/// nearly every edge two to four waypoints: as `Vec`s these were a third of a deploy's
/// allocations (each one a `malloc` and a `free`); edges keep their waypoints inline up to four
/// the same way. Reads as a slice.
pub type FlowList = SmallVec<[FlowIdx; 2]>;

/// An attribute or element text that Zeebe reads as an expression: FEEL when it starts with `=`,
/// else a static value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// The text as written, `=` included.
    pub text: SharedStr,
    /// Where the text is in the file (the attribute value, or the element text).
    pub span: Span,
    /// The FEEL parsed from `text`, kept by the first [`Expr::parse_feel`] (the deploy checks),
    /// so compiling the process does not parse it again.
    pub parsed: ParsedFeel,
}

impl Expr {
    /// An expression as written at `span`.
    pub fn new(text: impl Into<SharedStr>, span: Span) -> Self {
        Expr {
            text: text.into(),
            span,
            parsed: ParsedFeel::default(),
        }
    }

    /// The FEEL source (without the leading `=`), or `None` when the value is static.
    pub fn feel(&self) -> Option<&str> {
        self.text.strip_prefix('=')
    }

    /// The parsed FEEL (`None` for a static value), parsed once: later calls share the first
    /// result. A syntax error is not kept (it is only reported, and only once per deploy).
    pub fn parse_feel(&self) -> Option<Result<baton_feel::Expression, baton_feel::ParseError>> {
        let source = self.feel()?;
        // (The text is a public field: a cached parse of other text is not used.)
        if let Some(parsed) = self.parsed.0.get()
            && parsed.source() == source
        {
            return Some(Ok(parsed.clone()));
        }
        let parsed = baton_feel::Expression::parse(source);
        if let Ok(parsed) = &parsed {
            // A clone of the model may race to fill it: both parse the same text.
            let _ = self.parsed.0.set(parsed.clone());
        }
        Some(parsed)
    }
}

/// The parse of an [`Expr`]'s FEEL, once asked for. Derived from the text, so it never makes
/// two expressions differ.
#[derive(Clone, Default)]
pub struct ParsedFeel(std::sync::OnceLock<baton_feel::Expression>);

impl PartialEq for ParsedFeel {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ParsedFeel {}

impl std::fmt::Debug for ParsedFeel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "ParsedFeel(parsed)"
        } else {
            "ParsedFeel(not yet)"
        })
    }
}

/// One `bpmn:definitions` document.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    pub id: Option<String>,
    pub name: Option<String>,
    pub target_namespace: Option<String>,
    pub exporter: Option<String>,
    pub exporter_version: Option<String>,
    /// `modeler:executionPlatformVersion`, e.g. `8.9.0`.
    pub execution_platform_version: Option<String>,
    pub processes: Vec<Process>,
    pub messages: Vec<Message>,
    pub errors: Vec<ErrorDef>,
    pub escalations: Vec<Escalation>,
    pub signals: Vec<Signal>,
    pub collaborations: Vec<Collaboration>,
    /// The BPMN DI, unless it was only checked (see `unread_diagram`).
    pub diagram: Diagram,
    /// Where the BPMN DI is when it was checked but not kept (as deploying does, see
    /// [`DiagramReading::Defer`]): [`UnreadDiagram::read`] reads it when a picture is
    /// wanted. `None` when `diagram` holds it, the file has none, or the definitions were not
    /// read from a file.
    pub unread_diagram: Option<UnreadDiagram>,
    /// The `definitions` start tag.
    pub span: Span,
}

/// `bpmn:message`: the name may be FEEL (evaluated when a subscription opens).
#[derive(Debug, Clone)]
pub struct Message {
    pub id: String,
    pub name: Option<Expr>,
    /// `zeebe:subscription` in the message's extension elements: where Zeebe keeps the
    /// correlation key. The parser also copies it into `Zeebe::subscription` of every element
    /// that catches this message.
    pub subscription: Option<Subscription>,
    pub span: Span,
}

/// `bpmn:error`: `errorCode` is static on catch events and may be FEEL on throw events.
#[derive(Debug, Clone)]
pub struct ErrorDef {
    pub id: String,
    pub name: Option<String>,
    pub error_code: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Escalation {
    pub id: String,
    pub name: Option<String>,
    pub escalation_code: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Signal {
    pub id: String,
    pub name: Option<Expr>,
    pub span: Span,
}

/// `bpmn:collaboration`: pools and message flows, kept for the diagram, not executed.
#[derive(Debug, Clone)]
pub struct Collaboration {
    pub id: String,
    pub participants: Vec<Participant>,
    pub message_flows: Vec<MessageFlow>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Participant {
    pub id: String,
    pub name: Option<String>,
    pub process_ref: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct MessageFlow {
    pub id: String,
    pub name: Option<String>,
    pub source_ref: String,
    pub target_ref: String,
    pub span: Span,
}

/// `bpmn:process`.
#[derive(Debug, Clone, Default)]
pub struct Process {
    pub id: String,
    pub name: Option<String>,
    pub is_executable: bool,
    pub documentation: Vec<String>,
    /// `zeebe:versionTag value`.
    pub version_tag: Option<String>,
    /// Process-level `zeebe:` extensions (execution listeners, properties).
    pub zeebe: Zeebe,
    /// Every flow node of the process, nested ones included, in document order.
    pub elements: Vec<Element>,
    /// Every sequence flow of the process, nested ones included, in document order.
    pub flows: Vec<SequenceFlow>,
    /// The flow nodes directly under the process, in document order.
    pub children: Vec<ElementIdx>,
    pub lanes: Vec<Lane>,
    /// Legacy embedded forms (`zeebe:userTaskForm`), referenced by `formKey="camunda-forms:bpmn:<id>"`.
    pub user_task_forms: Vec<UserTaskForm>,
    /// Data objects, data stores, text annotations, groups, associations: kept, not executed.
    pub artifacts: Vec<Artifact>,
    pub span: Span,
}

impl Process {
    pub fn element(&self, idx: ElementIdx) -> &Element {
        &self.elements[idx.0 as usize]
    }

    pub fn flow(&self, idx: FlowIdx) -> &SequenceFlow {
        &self.flows[idx.0 as usize]
    }

    /// The element with this id, searched linearly (the runtime uses indexes instead).
    pub fn find(&self, id: &str) -> Option<ElementIdx> {
        self.elements
            .iter()
            .position(|e| e.id == id)
            .map(|i| ElementIdx(i as u32))
    }
}

/// `zeebe:userTaskForm`: a form JSON embedded in the process.
#[derive(Debug, Clone)]
pub struct UserTaskForm {
    pub id: String,
    pub body: String,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Lane {
    pub id: String,
    pub name: Option<String>,
    pub flow_node_refs: Vec<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Artifact {
    pub id: String,
    /// The local name of the BPMN element, e.g. `textAnnotation`, `dataObjectReference`.
    pub kind: String,
    pub name: Option<String>,
    /// The text of a text annotation.
    pub text: Option<String>,
    /// `sourceRef`/`targetRef` of an association (a compensation boundary event names its
    /// handler this way).
    pub source_ref: Option<String>,
    pub target_ref: Option<String>,
    pub span: Span,
}

/// `bpmn:sequenceFlow`.
#[derive(Debug, Clone)]
pub struct SequenceFlow {
    pub id: SharedStr,
    pub name: Option<SharedStr>,
    pub source: ElementIdx,
    pub target: ElementIdx,
    /// `bpmn:conditionExpression` text.
    pub condition: Option<Expr>,
    /// The flow scope the flow belongs to (`None`: the process).
    pub parent: Option<ElementIdx>,
    pub documentation: Vec<String>,
    pub span: Span,
}

/// A flow node: activity, gateway or event.
#[derive(Debug, Clone)]
pub struct Element {
    pub id: SharedStr,
    pub name: Option<SharedStr>,
    /// The texts of the `bpmn:documentation` children, verbatim, in order.
    pub documentation: Vec<String>,
    pub kind: ElementKind,
    /// The flow scope: the enclosing sub-process, or `None` for the process.
    pub parent: Option<ElementIdx>,
    /// For sub-processes of every kind: the flow nodes directly inside, in document order.
    pub children: Vec<ElementIdx>,
    pub incoming: FlowList,
    pub outgoing: FlowList,
    /// The `default` attribute of gateways and activities.
    pub default_flow: Option<FlowIdx>,
    /// Boundary events attached to this activity, in document order.
    pub boundary_events: Vec<ElementIdx>,
    /// Event definitions of events, in document order. Empty: a none event. More than one: a
    /// "multiple" event, which Zeebe rejects.
    pub event_definitions: Vec<EventDefinition>,
    pub loop_characteristics: Option<LoopCharacteristics>,
    /// `isForCompensation` on activities.
    pub is_for_compensation: bool,
    pub zeebe: Zeebe,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ElementKind {
    Task(TaskKind),
    SubProcess(SubProcessKind),
    CallActivity,
    Gateway(GatewayKind),
    StartEvent {
        /// `isInterrupting`, default true (only meaningful in event sub-processes).
        is_interrupting: bool,
    },
    IntermediateCatchEvent,
    IntermediateThrowEvent,
    BoundaryEvent {
        attached_to: ElementIdx,
        /// `cancelActivity`, default true.
        cancel_activity: bool,
    },
    EndEvent,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TaskKind {
    /// `bpmn:task`: passes straight through.
    Undefined,
    Service,
    Send,
    Receive {
        message_ref: Option<String>,
        instantiate: bool,
    },
    User,
    Manual,
    Script {
        /// `scriptFormat` and the `bpmn:script` body, kept for the reader (Zeebe uses `zeebe:script`).
        script_format: Option<String>,
        script: Option<String>,
    },
    BusinessRule,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SubProcessKind {
    Embedded,
    /// `triggeredByEvent="true"`.
    Event,
    /// Not supported by Zeebe: rejected at deploy.
    Transaction,
    AdHoc(AdHoc),
}

/// The standard attributes of `bpmn:adHocSubProcess` (Zeebe's are in `Zeebe::ad_hoc`).
#[derive(Debug, Clone, PartialEq)]
pub struct AdHoc {
    pub completion_condition: Option<Expr>,
    /// `cancelRemainingInstances`, `None` when absent (the BPMN default is true).
    pub cancel_remaining_instances: Option<bool>,
    /// `ordering` (`Parallel` or `Sequential`).
    pub ordering: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GatewayKind {
    Exclusive,
    Inclusive,
    Parallel,
    EventBased {
        instantiate: bool,
    },
    /// Not supported by Zeebe: rejected at deploy.
    Complex,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventDefinition {
    Message {
        message_ref: Option<String>,
        span: Span,
    },
    Timer(TimerDefinition),
    Error {
        error_ref: Option<String>,
        span: Span,
    },
    Escalation {
        escalation_ref: Option<String>,
        span: Span,
    },
    Signal {
        signal_ref: Option<String>,
        span: Span,
    },
    Compensation {
        activity_ref: Option<String>,
        wait_for_completion: Option<bool>,
        span: Span,
    },
    Conditional {
        condition: Option<Expr>,
        /// `zeebe:conditionalFilter variableNames`, comma separated as written.
        variable_names: Option<String>,
        /// `zeebe:conditionalFilter variableEvents`, e.g. `create, update`.
        variable_events: Option<String>,
        span: Span,
    },
    Link {
        name: Option<String>,
        span: Span,
    },
    Terminate {
        span: Span,
    },
    /// Not supported by Zeebe: rejected at deploy.
    Cancel {
        span: Span,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum TimerDefinition {
    Duration(Expr),
    Date(Expr),
    Cycle(Expr),
    /// A `bpmn:timerEventDefinition` without any of the three.
    Empty(Span),
}

#[derive(Debug, Clone, PartialEq)]
pub enum LoopCharacteristics {
    /// Boxed: every element holds an `Option<LoopCharacteristics>`, few are multi-instance.
    MultiInstance(Box<MultiInstance>),
    /// `bpmn:standardLoopCharacteristics`: not supported by Zeebe, rejected at deploy.
    StandardLoop { span: Span },
}

#[derive(Debug, Clone, PartialEq)]
pub struct MultiInstance {
    pub is_sequential: bool,
    /// `zeebe:loopCharacteristics inputCollection`.
    pub input_collection: Option<Expr>,
    pub input_element: Option<String>,
    pub output_collection: Option<String>,
    pub output_element: Option<Expr>,
    /// `bpmn:completionCondition`.
    pub completion_condition: Option<Expr>,
    /// `bpmn:loopCardinality` (Zeebe ignores it; kept).
    pub loop_cardinality: Option<Expr>,
    pub span: Span,
}

/// The `zeebe:` extension elements and attributes of one element (or process).
///
/// Held inline in every element, so the extensions only some kinds of element have are boxed:
/// unboxed they took three times the room of the rest of an element, and the elements of a
/// process are one array.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Zeebe {
    pub task_definition: Option<TaskDefinition>,
    pub input_mappings: Vec<Mapping>,
    pub output_mappings: Vec<Mapping>,
    /// `zeebe:taskHeaders`, in order (a repeated key keeps both entries as written).
    pub task_headers: Vec<(String, String)>,
    /// `zeebe:properties`, in order.
    pub properties: Vec<Property>,
    pub subscription: Option<Box<Subscription>>,
    pub called_element: Option<Box<CalledElement>>,
    pub called_decision: Option<Box<CalledDecision>>,
    pub script: Option<Box<ZeebeScript>>,
    /// `zeebe:userTask` present: a Camunda user task (else a job-based one).
    pub user_task: bool,
    pub assignment: Option<Box<AssignmentDefinition>>,
    pub task_schedule: Option<Box<TaskSchedule>>,
    pub priority: Option<Expr>,
    pub form: Option<Box<FormDefinition>>,
    pub execution_listeners: Vec<Listener>,
    pub task_listeners: Vec<Listener>,
    pub ad_hoc: Option<Box<ZeebeAdHoc>>,
    pub linked_resources: Vec<LinkedResource>,
    pub publish_message: Option<Box<PublishMessage>>,
    pub job_priority: Option<Expr>,
    /// `zeebe:modelerTemplate`, `zeebe:modelerTemplateVersion`, `zeebe:modelerTemplateIcon`.
    pub modeler_template: Option<String>,
    pub modeler_template_version: Option<String>,
    pub modeler_template_icon: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TaskDefinition {
    pub job_type: Option<Expr>,
    /// `retries`, default `3`; may be FEEL.
    pub retries: Option<Expr>,
    pub span: Span,
}

/// `zeebe:input` / `zeebe:output`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    /// Absent source: the target is set to `null`.
    pub source: Option<Expr>,
    pub target: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: String,
    pub value: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    pub correlation_key: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CalledElement {
    pub process_id: Option<Expr>,
    /// As written; the engine's default when absent is `true` for both.
    pub propagate_all_child_variables: Option<bool>,
    pub propagate_all_parent_variables: Option<bool>,
    pub binding_type: Option<String>,
    pub version_tag: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CalledDecision {
    pub decision_id: Option<Expr>,
    pub result_variable: Option<String>,
    pub binding_type: Option<String>,
    pub version_tag: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ZeebeScript {
    pub expression: Option<Expr>,
    pub result_variable: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AssignmentDefinition {
    pub assignee: Option<Expr>,
    pub candidate_groups: Option<Expr>,
    pub candidate_users: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TaskSchedule {
    pub due_date: Option<Expr>,
    pub follow_up_date: Option<Expr>,
    pub span: Span,
}

/// `zeebe:formDefinition` (or the legacy `zeebe:userTaskForm` reference).
#[derive(Debug, Clone, PartialEq)]
pub struct FormDefinition {
    pub form_id: Option<Expr>,
    pub form_key: Option<Expr>,
    pub external_reference: Option<Expr>,
    pub binding_type: Option<String>,
    pub version_tag: Option<String>,
    pub span: Span,
}

/// `zeebe:executionListener` or `zeebe:taskListener`.
#[derive(Debug, Clone, PartialEq)]
pub struct Listener {
    /// `eventType` as written (`start`/`end`; `creating`/`assigning`/`updating`/`completing`/`canceling`).
    pub event_type: String,
    pub job_type: Option<Expr>,
    pub retries: Option<Expr>,
    pub span: Span,
}

/// `zeebe:adHoc`.
#[derive(Debug, Clone, PartialEq)]
pub struct ZeebeAdHoc {
    pub active_elements_collection: Option<Expr>,
    pub output_collection: Option<String>,
    pub output_element: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinkedResource {
    pub resource_id: Option<String>,
    pub resource_type: Option<String>,
    pub link_name: Option<String>,
    pub binding_type: Option<String>,
    pub version_tag: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PublishMessage {
    pub correlation_key: Option<Expr>,
    pub message_id: Option<Expr>,
    pub time_to_live: Option<Expr>,
    /// The `messageRef` of the send task or message event definition: the message published.
    pub message_ref: Option<String>,
    pub span: Span,
}

/// A file's BPMN DI, checked (its problems reported, its ids counted) but not read into a
/// [`Diagram`] yet: the text it is in, shared with the file.
#[derive(Debug, Clone)]
pub struct UnreadDiagram {
    pub(crate) text: arcstr::ArcStr,
    /// From the start of the file to the root element's first child (so the root's start tag,
    /// which holds the namespace declarations), and the root element's name.
    pub(crate) head_end: u32,
    pub(crate) root_name: std::ops::Range<u32>,
    /// Each `BPMNDiagram` element, start tag to end tag.
    pub(crate) parts: Vec<std::ops::Range<u32>>,
}

/// BPMN DI: what the coverage picture needs, keyed by the id of the BPMN element drawn.
/// (Fx hashing: the keys are ids from the file, and SipHash cost more than the rest of a lookup.)
#[derive(Debug, Clone, Default)]
pub struct Diagram {
    pub shapes: IndexMap<String, Shape, FxBuildHasher>,
    pub edges: IndexMap<String, Edge, FxBuildHasher>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub bounds: Bounds,
    pub is_expanded: Option<bool>,
    pub is_horizontal: Option<bool>,
    pub label: Option<Bounds>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub waypoints: SmallVec<[(f64, f64); 4]>,
    pub label: Option<Bounds>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feel_is_parsed_once_and_never_for_other_text() {
        let mut expr = Expr::new("=a + 1", Span::default());
        assert_eq!(format!("{:?}", expr.parsed), "ParsedFeel(not yet)");
        assert_eq!(expr.parse_feel().unwrap().unwrap().source(), "a + 1");
        assert_eq!(format!("{:?}", expr.parsed), "ParsedFeel(parsed)");
        // The cached parse is shared by clones, and not used once the text changed.
        assert_eq!(format!("{:?}", expr.clone().parsed), "ParsedFeel(parsed)");
        expr.text = "=b".into();
        assert_eq!(expr.parse_feel().unwrap().unwrap().source(), "b");
        // Syntax errors are returned, static values are not FEEL.
        assert!(
            Expr::new("=a +", Span::default())
                .parse_feel()
                .unwrap()
                .is_err()
        );
        assert!(Expr::new("static", Span::default()).parse_feel().is_none());
    }
}
