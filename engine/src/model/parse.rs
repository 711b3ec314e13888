//! BPMN 2.0 XML → [`Definitions`], with every problem the file itself has (malformed XML,
//! duplicate ids, references to unknown ids, unsupported elements the model cannot hold).
//!
//! The parser never fails and never panics: it returns what it could read plus all problems, so a
//! user sees every mistake at once. Zeebe's deployment rules about a well-formed model live in
//! `deploy::checks`.

use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;

use super::*;
use crate::diagnostics::{Diagnostic, Rule};
use crate::source::Source;
use crate::xml::walk::{self, Walk};
use crate::xml::{self, Attr, Document, Node, NodeId, Ns, Streamed};

/// The largest resource accepted, as Zeebe's default maximum message size (4 MiB).
pub const MAX_RESOURCE_BYTES: usize = 4 * 1024 * 1024;

/// A BPMN file's root element.
const BPMN_DEFINITIONS: walk::Definitions = walk::Definitions {
    ns: Ns::Bpmn,
    rule: Rule::NotBpmn,
    namespace: "the BPMN 2.0 model namespace http://www.omg.org/spec/BPMN/20100524/MODEL",
};

/// What [`parse`] read: the definitions (absent when the file is not BPMN XML at all) and every
/// problem found. When `diagnostics` is not empty the model may be incomplete: flows with
/// unresolved ends are left out, and a boundary event whose host is unknown points at itself.
#[derive(Debug)]
pub struct Parsed {
    pub definitions: Option<Definitions>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses one BPMN file, its BPMN DI included.
pub fn parse(source: &Source) -> Parsed {
    parse_reading_diagram(source, DiReading::Keep)
}

/// Parses one BPMN file as deploying needs it: the BPMN DI is checked as [`parse`] checks it
/// (the same problems, its ids counted) but not kept. Only the coverage picture draws it, and
/// it is half a modeler file: [`read_diagram`] reads it from `Definitions::unread_diagram`
/// when a picture is wanted.
pub fn parse_without_diagram(source: &Source) -> Parsed {
    parse_reading_diagram(source, DiReading::Check)
}

/// Reads only the BPMN DI of a file that parses (problems are not reported: [`parse`] and
/// [`parse_without_diagram`] report them). Empty when the file is not well-formed XML.
pub fn read_diagram(source: &Source) -> Diagram {
    let mut di = DiReader::new(source, DiReading::Only);
    match xml::parse_streaming(source.text(), &mut di) {
        Ok(_) => di.diagram,
        Err(_) => Diagram::default(),
    }
}

fn parse_reading_diagram(source: &Source, reading: DiReading) -> Parsed {
    let mut diagnostics = Vec::new();
    if source.text().len() > MAX_RESOURCE_BYTES {
        diagnostics.push(Diagnostic::at(
            source,
            0,
            Rule::ResourceTooLarge,
            None,
            format!(
                "the resource has {} bytes, more than the {} bytes Zeebe accepts by default",
                source.text().len(),
                MAX_RESOURCE_BYTES
            ),
        ));
        return Parsed {
            definitions: None,
            diagnostics,
        };
    }
    // BPMN DI is read as it streams by, not kept in the tree: half the elements of a modeler
    // file, each read once. Flow nodes' `incoming`/`outgoing` are not kept either.
    let mut di = DiReader::new(source, reading);
    let doc = match walk::read(source, &mut di, &BPMN_DEFINITIONS) {
        Ok(doc) => doc,
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            return Parsed {
                definitions: None,
                diagnostics,
            };
        }
    };
    let root = doc.node(doc.root);
    let unread_diagram = if reading == DiReading::Check && !di.parts.is_empty() {
        let text = source.text();
        let name_end = text[root.start as usize + 1..]
            .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .map_or(text.len(), |at| root.start as usize + 1 + at);
        // Up to the root's first child: only white space, comments or dropped text lie between
        // its start tag and that child.
        let first_child = doc.children(doc.root).next().map(|(_, child)| child.start);
        let head_end = first_child.map_or(di.parts[0].start, |at| at.min(di.parts[0].start));
        Some(UnreadDiagram {
            text: source.shared_text().clone(),
            head_end,
            root_name: root.start + 1..name_end as u32,
            parts: std::mem::take(&mut di.parts),
        })
    } else {
        None
    };
    let mut parser = Parser {
        source,
        doc: &doc,
        diagnostics,
        ids: HashMap::default(),
        diagram: di.diagram,
        di_diagnostics: di.problems.diagnostics.into_iter().peekable(),
    };
    parser.check_ids();
    let mut definitions = parser.definitions(doc.root);
    definitions.unread_diagram = unread_diagram;
    Parsed {
        definitions: Some(definitions),
        diagnostics: parser.diagnostics,
    }
}

struct Parser<'s, 'a> {
    source: &'s Source,
    doc: &'s Document<'a>,
    diagnostics: Vec<Diagnostic>,
    /// Every id of the file and where it first appeared.
    ids: HashMap<&'s str, u32>,
    /// What the streamed BPMN DI drew, and its problems with the start of the `BPMNDiagram`
    /// they are in (reported in document order among the other children of `definitions`).
    diagram: Diagram,
    di_diagnostics: std::iter::Peekable<std::vec::IntoIter<(u32, Diagnostic)>>,
}

/// A reference written in the file, still a string.
#[derive(Clone)]
struct RawRef<'s> {
    id: &'s str,
    span: Span,
}

struct PendingFlow<'s> {
    id: &'s str,
    name: Option<SharedStr>,
    source: Option<RawRef<'s>>,
    target: Option<RawRef<'s>>,
    condition: Option<Expr>,
    documentation: Vec<String>,
    span: Span,
}

/// A process under construction: the arenas plus the references to resolve once every element
/// has been seen.
#[derive(Default)]
struct ProcessBuilder<'s> {
    process: Process,
    /// The id of each element of `process.elements` (same index), borrowed from the document.
    element_ids: Vec<&'s str>,
    flows: Vec<PendingFlow<'s>>,
    /// Boundary events and their `attachedToRef`.
    attachments: Vec<(ElementIdx, Option<RawRef<'s>>)>,
    /// Elements and their `default` attribute.
    defaults: Vec<(ElementIdx, RawRef<'s>)>,
}

impl<'s, 'a> Walk<'s, 'a> for Parser<'s, 'a> {
    fn source(&self) -> &'s Source {
        self.source
    }
    fn doc(&self) -> &'s Document<'a> {
        self.doc
    }
    fn diagnostics(&mut self) -> &mut Vec<Diagnostic> {
        &mut self.diagnostics
    }
}

impl<'s, 'a> Parser<'s, 'a> {
    /// Reports every id used twice in the file. Ids of BPMN and DI elements share one space
    /// (XML Schema's `ID` type), as the Camunda model's schema validation sees them.
    fn check_ids(&mut self) {
        self.ids = self.report_duplicate_ids(|ns| {
            matches!(ns, Ns::Bpmn | Ns::BpmnDi | Ns::Dc | Ns::Di | Ns::Zeebe)
        });
    }

    // --- small readers -------------------------------------------------------------------

    /// A value read from the file as a [`SharedStr`] (see [`shared_in`]).
    fn shared(&self, value: &str) -> SharedStr {
        shared_in(self.source.shared_text(), value)
    }

    /// The attribute without namespace called `name`, shared with the file's text.
    fn shared_string(&self, node: &Node<'_>, name: &str) -> Option<SharedStr> {
        self.doc
            .attr(node, name)
            .map(|a| self.shared(self.doc.value(a)))
    }

    fn expr(&self, node: &Node<'_>, name: &str) -> Option<Expr> {
        self.doc
            .attr(node, name)
            .map(|a| attr_expr(self.source, self.doc, a))
    }

    fn raw_ref(&self, node: &Node<'_>, name: &str) -> Option<RawRef<'s>> {
        let doc: &'s Document<'a> = self.doc;
        doc.attr(node, name).map(|a| RawRef {
            id: doc.value(a).trim(),
            span: a.span,
        })
    }

    /// An `xs:boolean` attribute; anything but `true`/`false`/`1`/`0` is reported.
    fn boolean(&mut self, node: &Node<'_>, name: &str, element_id: Option<&str>) -> Option<bool> {
        self.boolean_attr(self.doc.attr(node, name), name, element_id)
    }

    fn boolean_attr(
        &mut self,
        attr: Option<&Attr<'_>>,
        name: &str,
        element_id: Option<&str>,
    ) -> Option<bool> {
        let attr = attr?;
        match boolean_value(self.doc.value(attr), name) {
            Ok(value) => Some(value),
            Err(message) => {
                self.error(attr.span.start, Rule::InvalidAttribute, element_id, message);
                None
            }
        }
    }

    fn id(&mut self, node: &Node<'_>, what: &str) -> String {
        self.id_ref(node, what).to_owned()
    }

    /// The element's id as written (empty, and reported, when it has none).
    fn id_ref(&mut self, node: &Node<'_>, what: &str) -> &'s str {
        let doc: &'s Document<'a> = self.doc;
        match doc.attr(node, "id") {
            Some(id) if !doc.value(id).trim().is_empty() => doc.value(id),
            _ => {
                let message = format!("the {what} <{}> has no id", node.local);
                self.error(node.start, Rule::MissingId, None, message);
                ""
            }
        }
    }

    fn documentation(&self, node: NodeId) -> Vec<String> {
        self.children(node)
            .filter(|(_, child)| child.is(Ns::Bpmn, "documentation"))
            .map(|(_, child)| {
                self.doc
                    .text(child)
                    .map(|t| t.value.to_string())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The expression held as the text of a child element, e.g. `bpmn:conditionExpression`.
    fn child_text_expr(&self, node: NodeId, local: &str) -> Option<Expr> {
        self.children(node)
            .find(|(_, child)| child.is(Ns::Bpmn, local))
            .map(|(_, child)| text_expr(self.source, self.doc, child))
    }

    // --- definitions ---------------------------------------------------------------------

    fn definitions(&mut self, root: NodeId) -> Definitions {
        let node = self.node(root);
        let mut definitions = Definitions {
            id: self.string(node, "id"),
            name: self.string(node, "name"),
            target_namespace: self.string(node, "targetNamespace"),
            exporter: self.string(node, "exporter"),
            exporter_version: self.string(node, "exporterVersion"),
            execution_platform_version: self
                .doc
                .attr_ns(node, Ns::Modeler, "executionPlatformVersion")
                .map(|a| self.doc.value(a).to_string()),
            span: self.span(node),
            ..Definitions::default()
        };
        for (child_id, child) in self.children(root) {
            self.report_diagrams_before(child.start);
            match (child.ns, child.local) {
                (Ns::Bpmn, "process") => {
                    let process = self.process(child_id);
                    definitions.processes.push(process);
                }
                (Ns::Bpmn, "message") => {
                    let message = self.message(child_id);
                    definitions.messages.push(message);
                }
                (Ns::Bpmn, "error") => definitions.errors.push(ErrorDef {
                    id: self.id(child, "error"),
                    name: self.string(child, "name"),
                    error_code: self.expr(child, "errorCode"),
                    span: self.span(child),
                }),
                (Ns::Bpmn, "escalation") => definitions.escalations.push(Escalation {
                    id: self.id(child, "escalation"),
                    name: self.string(child, "name"),
                    escalation_code: self.expr(child, "escalationCode"),
                    span: self.span(child),
                }),
                (Ns::Bpmn, "signal") => definitions.signals.push(Signal {
                    id: self.id(child, "signal"),
                    name: self.expr(child, "name"),
                    span: self.span(child),
                }),
                (Ns::Bpmn, "collaboration") => {
                    let collaboration = self.collaboration(child_id);
                    definitions.collaborations.push(collaboration);
                }
                (Ns::Bpmn, "choreography" | "globalConversation" | "conversation") => {
                    self.unsupported(child, &upper_first(child.local));
                }
                _ => {}
            }
        }
        self.report_diagrams_before(u32::MAX);
        definitions.diagram = std::mem::take(&mut self.diagram);
        copy_subscriptions(&mut definitions);
        definitions
    }

    /// Reports the problems of the diagrams that start before `offset`.
    fn report_diagrams_before(&mut self, offset: u32) {
        while let Some((_, diagnostic)) = self.di_diagnostics.next_if(|(at, _)| *at < offset) {
            self.diagnostics.push(diagnostic);
        }
    }

    fn message(&mut self, node_id: NodeId) -> Message {
        let node = self.node(node_id);
        let id = self.id(node, "message");
        let mut subscription = None;
        for (_, child) in self.children(node_id) {
            if !child.is(Ns::Bpmn, "extensionElements") {
                continue;
            }
            for (_, ext) in self.children_of(child) {
                if ext.is(Ns::Zeebe, "subscription") {
                    if subscription.is_some() {
                        self.duplicate_extension(ext, &id, "subscription");
                    }
                    subscription = Some(Subscription {
                        correlation_key: self.expr(ext, "correlationKey"),
                        span: self.span(ext),
                    });
                }
            }
        }
        Message {
            id,
            name: self.expr(node, "name"),
            subscription,
            span: self.span(node),
        }
    }

    fn children_of(&self, node: &'s Node<'a>) -> impl Iterator<Item = (NodeId, &'s Node<'a>)> + 's {
        self.doc.children_of(node)
    }

    fn collaboration(&mut self, node_id: NodeId) -> Collaboration {
        let node = self.node(node_id);
        let mut collaboration = Collaboration {
            id: self.id(node, "collaboration"),
            participants: Vec::new(),
            message_flows: Vec::new(),
            span: self.span(node),
        };
        for (_, child) in self.children(node_id) {
            match (child.ns, child.local) {
                (Ns::Bpmn, "participant") => collaboration.participants.push(Participant {
                    id: self.id(child, "participant"),
                    name: self.string(child, "name"),
                    process_ref: self.string(child, "processRef"),
                    span: self.span(child),
                }),
                (Ns::Bpmn, "messageFlow") => collaboration.message_flows.push(MessageFlow {
                    id: self.id(child, "message flow"),
                    name: self.string(child, "name"),
                    source_ref: self.string(child, "sourceRef").unwrap_or_default(),
                    target_ref: self.string(child, "targetRef").unwrap_or_default(),
                    span: self.span(child),
                }),
                _ => {}
            }
        }
        collaboration
    }

    fn unsupported(&mut self, node: &Node<'_>, type_name: &str) {
        let id = self
            .doc
            .attr(node, "id")
            .map(|a| self.doc.value(a).to_string());
        self.error(
            node.start,
            Rule::UnsupportedElement,
            id.as_deref(),
            format!(
                "Elements of type '{type_name}' are currently not supported. Please refer to the \
                 documentation for a list of supported elements: \
                 https://docs.camunda.io/docs/components/modeler/bpmn/bpmn-coverage/"
            ),
        );
    }

    fn duplicate_extension(&mut self, ext: &Node<'_>, element_id: &str, name: &str) {
        let element_id = (!element_id.is_empty()).then_some(element_id);
        self.error(
            ext.start,
            Rule::ZeebeExtension,
            element_id,
            format!(
                "Must have exactly one 'zeebe:{name}' extension element when exists. Please check \
                 process definition XML and retain only one extension element."
            ),
        );
    }

    // --- processes -----------------------------------------------------------------------

    fn process(&mut self, node_id: NodeId) -> Process {
        let node = self.node(node_id);
        let id = self.id(node, "process");
        let mut builder = ProcessBuilder {
            process: Process {
                id: id.clone(),
                name: self.string(node, "name"),
                is_executable: self
                    .boolean(node, "isExecutable", Some(&id))
                    .unwrap_or(false),
                documentation: self.documentation(node_id),
                span: self.span(node),
                ..Process::default()
            },
            ..ProcessBuilder::default()
        };
        let mut zeebe = Zeebe::default();
        self.zeebe_attributes(node, &mut zeebe);
        let mut user_task_forms = Vec::new();
        for (_, child) in self.children(node_id) {
            if child.is(Ns::Bpmn, "extensionElements") {
                let mut extras = Extras::default();
                self.zeebe_extensions(child, &id, &mut zeebe, &mut extras);
                if let Some(tag) = extras.version_tag {
                    builder.process.version_tag = Some(tag);
                }
                user_task_forms.extend(extras.user_task_forms);
            }
        }
        builder.process.zeebe = zeebe;
        builder.process.user_task_forms = user_task_forms;
        // Elements are large: reserving for the direct children saves copying them as the
        // arenas grow (nested ones may still grow them).
        let (flows, others) = self
            .children(node_id)
            .fold((0, 0), |(flows, others), (_, child)| {
                if child.is(Ns::Bpmn, "sequenceFlow") {
                    (flows + 1, others)
                } else {
                    (flows, others + 1)
                }
            });
        builder.flows.reserve(flows);
        builder.process.flows.reserve(flows);
        builder.process.elements.reserve(others);
        builder.element_ids.reserve(others);
        self.container(&mut builder, node_id, None);
        self.resolve(&mut builder);
        builder.process
    }

    /// Reads the flow elements, lanes and artifacts of a process or sub-process.
    fn container(
        &mut self,
        builder: &mut ProcessBuilder<'s>,
        node_id: NodeId,
        parent: Option<ElementIdx>,
    ) {
        for (child_id, child) in self.children(node_id) {
            if child.ns != Ns::Bpmn {
                continue;
            }
            match child.local {
                "sequenceFlow" => {
                    let flow = PendingFlow {
                        id: self.id_ref(child, "sequence flow"),
                        name: self.shared_string(child, "name"),
                        source: self.raw_ref(child, "sourceRef"),
                        target: self.raw_ref(child, "targetRef"),
                        condition: self.child_text_expr(child_id, "conditionExpression"),
                        documentation: self.documentation(child_id),
                        span: self.span(child),
                    };
                    builder.flows.push(flow);
                }
                "laneSet" => self.lane_set(builder, child_id),
                "dataObject"
                | "dataObjectReference"
                | "dataStoreReference"
                | "textAnnotation"
                | "group"
                | "association" => {
                    let artifact = Artifact {
                        id: self
                            .doc
                            .attr(child, "id")
                            .map(|a| self.doc.value(a).to_string())
                            .unwrap_or_default(),
                        kind: child.local.to_string(),
                        name: self.string(child, "name"),
                        text: self
                            .children(child_id)
                            .find(|(_, c)| c.is(Ns::Bpmn, "text"))
                            .and_then(|(_, c)| self.doc.text(c).map(|t| t.value.to_string())),
                        source_ref: self.string(child, "sourceRef"),
                        target_ref: self.string(child, "targetRef"),
                        span: self.span(child),
                    };
                    builder.process.artifacts.push(artifact);
                }
                "callChoreography" | "choreographyTask" | "subChoreography"
                | "implicitThrowEvent" => {
                    self.unsupported(child, &upper_first(child.local));
                }
                _ => {
                    if let Some(idx) = self.flow_node(builder, child_id, parent) {
                        match parent {
                            Some(parent) => builder.process.elements[parent.0 as usize]
                                .children
                                .push(idx),
                            None => builder.process.children.push(idx),
                        }
                    }
                }
            }
        }
    }

    fn lane_set(&mut self, builder: &mut ProcessBuilder<'s>, node_id: NodeId) {
        for (lane_id, lane) in self.children(node_id) {
            if !lane.is(Ns::Bpmn, "lane") {
                continue;
            }
            let mut refs = Vec::new();
            for (child_id, child) in self.children(lane_id) {
                if child.is(Ns::Bpmn, "flowNodeRef") {
                    if let Some(text) = self.doc.text(child) {
                        refs.push(text.value.trim().to_string());
                    }
                } else if child.is(Ns::Bpmn, "childLaneSet") {
                    self.lane_set(builder, child_id);
                }
            }
            builder.process.lanes.push(Lane {
                id: self.id(lane, "lane"),
                name: self.string(lane, "name"),
                flow_node_refs: refs,
                span: self.span(lane),
            });
        }
    }

    /// Reads one flow node (and, for sub-processes, everything inside it). `None` when the
    /// element is not a flow node.
    fn flow_node(
        &mut self,
        builder: &mut ProcessBuilder<'s>,
        node_id: NodeId,
        parent: Option<ElementIdx>,
    ) -> Option<ElementIdx> {
        let node = self.node(node_id);
        let kind = match node.local {
            "task" => ElementKind::Task(TaskKind::Undefined),
            "serviceTask" => ElementKind::Task(TaskKind::Service),
            "sendTask" => ElementKind::Task(TaskKind::Send),
            "receiveTask" => ElementKind::Task(TaskKind::Receive {
                message_ref: self.string(node, "messageRef"),
                instantiate: false,
            }),
            "userTask" => ElementKind::Task(TaskKind::User),
            "manualTask" => ElementKind::Task(TaskKind::Manual),
            "scriptTask" => ElementKind::Task(TaskKind::Script {
                script_format: self.string(node, "scriptFormat"),
                script: self
                    .children(node_id)
                    .find(|(_, c)| c.is(Ns::Bpmn, "script"))
                    .and_then(|(_, c)| self.doc.text(c).map(|t| t.value.to_string())),
            }),
            "businessRuleTask" => ElementKind::Task(TaskKind::BusinessRule),
            "subProcess" => ElementKind::SubProcess(SubProcessKind::Embedded),
            "transaction" => ElementKind::SubProcess(SubProcessKind::Transaction),
            "adHocSubProcess" => ElementKind::SubProcess(SubProcessKind::AdHoc(AdHoc {
                completion_condition: self.child_text_expr(node_id, "completionCondition"),
                cancel_remaining_instances: None,
                ordering: self.string(node, "ordering"),
            })),
            "callActivity" => ElementKind::CallActivity,
            "exclusiveGateway" => ElementKind::Gateway(GatewayKind::Exclusive),
            "inclusiveGateway" => ElementKind::Gateway(GatewayKind::Inclusive),
            "parallelGateway" => ElementKind::Gateway(GatewayKind::Parallel),
            "eventBasedGateway" => {
                ElementKind::Gateway(GatewayKind::EventBased { instantiate: false })
            }
            "complexGateway" => ElementKind::Gateway(GatewayKind::Complex),
            "startEvent" => ElementKind::StartEvent {
                is_interrupting: true,
            },
            "intermediateCatchEvent" => ElementKind::IntermediateCatchEvent,
            "intermediateThrowEvent" => ElementKind::IntermediateThrowEvent,
            "boundaryEvent" => ElementKind::BoundaryEvent {
                attached_to: ElementIdx(0),
                cancel_activity: true,
            },
            "endEvent" => ElementKind::EndEvent,
            _ => return None,
        };
        let id = self.id_ref(node, "flow node");
        builder.element_ids.push(id);
        let idx = ElementIdx(builder.process.elements.len() as u32);
        let eid = Some(id);
        let mut kind = kind;
        match &mut kind {
            ElementKind::Task(TaskKind::Receive { instantiate, .. }) => {
                *instantiate = self.boolean(node, "instantiate", eid).unwrap_or(false);
            }
            ElementKind::SubProcess(sub) => {
                let triggered = self.boolean(node, "triggeredByEvent", eid).unwrap_or(false);
                match sub {
                    SubProcessKind::Embedded if triggered => *sub = SubProcessKind::Event,
                    SubProcessKind::AdHoc(ad_hoc) => {
                        ad_hoc.cancel_remaining_instances =
                            self.boolean(node, "cancelRemainingInstances", eid);
                    }
                    _ => {}
                }
            }
            ElementKind::Gateway(GatewayKind::EventBased { instantiate }) => {
                *instantiate = self.boolean(node, "instantiate", eid).unwrap_or(false);
            }
            ElementKind::StartEvent { is_interrupting } => {
                *is_interrupting = self.boolean(node, "isInterrupting", eid).unwrap_or(true);
            }
            ElementKind::BoundaryEvent {
                attached_to,
                cancel_activity,
            } => {
                *attached_to = idx;
                *cancel_activity = self.boolean(node, "cancelActivity", eid).unwrap_or(true);
                builder
                    .attachments
                    .push((idx, self.raw_ref(node, "attachedToRef")));
            }
            _ => {}
        }
        if let Some(default) = self.raw_ref(node, "default") {
            builder.defaults.push((idx, default));
        }
        let is_for_compensation = self
            .boolean(node, "isForCompensation", eid)
            .unwrap_or(false);

        let mut zeebe = Zeebe::default();
        self.zeebe_attributes(node, &mut zeebe);
        let mut extras = Extras::default();
        let mut event_definitions = Vec::new();
        let mut loop_characteristics = None;
        for (child_id, child) in self.children(node_id) {
            if child.ns != Ns::Bpmn {
                continue;
            }
            match child.local {
                "extensionElements" => self.zeebe_extensions(child, id, &mut zeebe, &mut extras),
                "multiInstanceLoopCharacteristics" => {
                    loop_characteristics = Some(LoopCharacteristics::MultiInstance(Box::new(
                        self.multi_instance(child_id, id),
                    )));
                }
                "standardLoopCharacteristics" => {
                    loop_characteristics = Some(LoopCharacteristics::StandardLoop {
                        span: self.span(child),
                    });
                }
                local if local.ends_with("EventDefinition") => {
                    if let Some(definition) = self.event_definition(child_id, id, &mut zeebe) {
                        event_definitions.push(definition);
                    }
                }
                _ => {}
            }
        }
        if let (Some(publish), ElementKind::Task(TaskKind::Send)) =
            (&mut zeebe.publish_message, &kind)
        {
            publish.message_ref = self.string(node, "messageRef");
        }

        builder.process.elements.push(Element {
            id: self.shared(id),
            name: self.shared_string(node, "name"),
            documentation: self.documentation(node_id),
            kind,
            parent,
            children: Vec::new(),
            incoming: FlowList::new(),
            outgoing: FlowList::new(),
            default_flow: None,
            boundary_events: Vec::new(),
            event_definitions,
            loop_characteristics,
            is_for_compensation,
            zeebe,
            span: self.span(node),
        });

        if matches!(
            builder.process.elements[idx.0 as usize].kind,
            ElementKind::SubProcess(_)
        ) {
            self.container(builder, node_id, Some(idx));
        }
        Some(idx)
    }

    fn multi_instance(&mut self, node_id: NodeId, element_id: &str) -> MultiInstance {
        let node = self.node(node_id);
        let eid = (!element_id.is_empty()).then_some(element_id);
        let mut mi = MultiInstance {
            is_sequential: self.boolean(node, "isSequential", eid).unwrap_or(false),
            input_collection: None,
            input_element: None,
            output_collection: None,
            output_element: None,
            completion_condition: self.child_text_expr(node_id, "completionCondition"),
            loop_cardinality: self.child_text_expr(node_id, "loopCardinality"),
            span: self.span(node),
        };
        // Whether the extension element exists is a question about the XML, so it is answered
        // here; the attribute rules live with the other deploy checks.
        let mut found = false;
        for (_, child) in self.children(node_id) {
            if !child.is(Ns::Bpmn, "extensionElements") {
                continue;
            }
            for (_, ext) in self.children_of(child) {
                if !ext.is(Ns::Zeebe, "loopCharacteristics") {
                    continue;
                }
                if found {
                    self.duplicate_extension(ext, element_id, "loopCharacteristics");
                    continue;
                }
                found = true;
                mi.input_collection = self.expr(ext, "inputCollection");
                mi.input_element = self.string(ext, "inputElement");
                mi.output_collection = self.string(ext, "outputCollection");
                mi.output_element = self.expr(ext, "outputElement");
                self.check_loop_characteristics(ext, eid);
            }
        }
        if !found {
            self.error(
                node.start,
                Rule::ZeebeExtension,
                eid,
                "Must have exactly one 'zeebe:loopCharacteristics' extension element",
            );
        }
        mi
    }

    /// Zeebe's `ZeebeLoopCharacteristicsValidator`: about the attributes being there, so
    /// checked where the element is read.
    fn check_loop_characteristics(&mut self, ext: &Node<'_>, eid: Option<&str>) {
        let present = |name: &str| {
            self.doc
                .attr(ext, name)
                .is_some_and(|a| !self.doc.value(a).is_empty())
        };
        if !present("inputCollection") {
            self.error(
                ext.start,
                Rule::MissingAttribute,
                eid,
                "Attribute 'inputCollection' must be present and not empty",
            );
        }
        match (present("outputCollection"), present("outputElement")) {
            (true, false) => self.error(
                ext.start,
                Rule::MultiInstance,
                eid,
                "Attribute 'outputElement' must be present if the attribute 'outputCollection' is set",
            ),
            (false, true) => self.error(
                ext.start,
                Rule::MultiInstance,
                eid,
                "Attribute 'outputCollection' must be present if the attribute 'outputElement' is set",
            ),
            _ => {}
        }
    }

    fn event_definition(
        &mut self,
        node_id: NodeId,
        element_id: &str,
        zeebe: &mut Zeebe,
    ) -> Option<EventDefinition> {
        let node = self.node(node_id);
        let span = self.span(node);
        let eid = Some(element_id);
        let definition = match node.local {
            "messageEventDefinition" => {
                for (_, child) in self.children(node_id) {
                    if !child.is(Ns::Bpmn, "extensionElements") {
                        continue;
                    }
                    for (_, ext) in self.children_of(child) {
                        if ext.is(Ns::Zeebe, "publishMessage") {
                            if zeebe.publish_message.is_some() {
                                self.duplicate_extension(ext, element_id, "publishMessage");
                            }
                            zeebe.publish_message = Some(Box::new(self.publish_message(ext)));
                        }
                    }
                }
                let message_ref = self.string(node, "messageRef");
                if let Some(publish) = &mut zeebe.publish_message {
                    publish.message_ref = message_ref.clone();
                }
                EventDefinition::Message { message_ref, span }
            }
            "timerEventDefinition" => {
                let mut timer = None;
                for (_, child) in self.children(node_id) {
                    let value = match (child.ns, child.local) {
                        (Ns::Bpmn, "timeDuration") => {
                            TimerDefinition::Duration(text_expr(self.source, self.doc, child))
                        }
                        (Ns::Bpmn, "timeDate") => {
                            TimerDefinition::Date(text_expr(self.source, self.doc, child))
                        }
                        (Ns::Bpmn, "timeCycle") => {
                            TimerDefinition::Cycle(text_expr(self.source, self.doc, child))
                        }
                        _ => continue,
                    };
                    if timer.is_some() {
                        self.error(
                            child.start,
                            Rule::Timer,
                            eid,
                            "Must be exactly one type of timer: timeDuration, timeDate or timeCycle",
                        );
                        continue;
                    }
                    timer = Some(value);
                }
                EventDefinition::Timer(timer.unwrap_or(TimerDefinition::Empty(span)))
            }
            "errorEventDefinition" => EventDefinition::Error {
                error_ref: self.string(node, "errorRef"),
                span,
            },
            "escalationEventDefinition" => EventDefinition::Escalation {
                escalation_ref: self.string(node, "escalationRef"),
                span,
            },
            "signalEventDefinition" => EventDefinition::Signal {
                signal_ref: self.string(node, "signalRef"),
                span,
            },
            "compensateEventDefinition" => EventDefinition::Compensation {
                activity_ref: self.string(node, "activityRef"),
                wait_for_completion: self.boolean(node, "waitForCompletion", eid),
                span,
            },
            "conditionalEventDefinition" => {
                let mut filter: Option<(Option<String>, Option<String>)> = None;
                // `zeebe:conditionalFilter` sits in the definition's own extension elements.
                for (_, child) in self.children(node_id) {
                    if !child.is(Ns::Bpmn, "extensionElements") {
                        continue;
                    }
                    for (_, ext) in self.children_of(child) {
                        if ext.is(Ns::Zeebe, "conditionalFilter") {
                            filter = Some((
                                self.string(ext, "variableNames"),
                                self.string(ext, "variableEvents"),
                            ));
                        }
                    }
                }
                let (variable_names, variable_events) = filter.unwrap_or_default();
                EventDefinition::Conditional {
                    condition: self.child_text_expr(node_id, "condition"),
                    variable_names,
                    variable_events,
                    span,
                }
            }
            "linkEventDefinition" => EventDefinition::Link {
                name: self.string(node, "name"),
                span,
            },
            "terminateEventDefinition" => EventDefinition::Terminate { span },
            "cancelEventDefinition" => EventDefinition::Cancel { span },
            _ => return None,
        };
        Some(definition)
    }

    // --- zeebe extensions ----------------------------------------------------------------

    /// The `zeebe:modelerTemplate*` attributes written on the element itself.
    fn zeebe_attributes(&self, node: &Node<'_>, zeebe: &mut Zeebe) {
        // One pass (most elements have no `zeebe:` attribute at all); the first attribute of a
        // name counts, as in `Document::attr`.
        for attr in self.doc.attrs(node).iter().filter(|a| a.ns == Ns::Zeebe) {
            let field = match attr.local {
                "modelerTemplate" => &mut zeebe.modeler_template,
                "modelerTemplateVersion" => &mut zeebe.modeler_template_version,
                "modelerTemplateIcon" => &mut zeebe.modeler_template_icon,
                _ => continue,
            };
            if field.is_none() {
                *field = Some(self.doc.value(attr).to_string());
            }
        }
    }

    /// Reads the `zeebe:` children of one `bpmn:extensionElements`.
    fn zeebe_extensions(
        &mut self,
        extension_elements: &'s Node<'a>,
        element_id: &str,
        zeebe: &mut Zeebe,
        extras: &mut Extras,
    ) {
        // Which of `SINGLE_EXTENSIONS` were seen, by position.
        let mut seen: u32 = 0;
        for (ext_id, ext) in self.children_of(extension_elements) {
            if ext.ns != Ns::Zeebe {
                continue;
            }
            let local: &str = ext.local;
            if let Some(single) = single_extension(local) {
                if seen & (1 << single) != 0 {
                    self.duplicate_extension(ext, element_id, local);
                    continue;
                }
                seen |= 1 << single;
            }
            let span = self.span(ext);
            match local {
                "taskDefinition" => {
                    zeebe.task_definition = Some(TaskDefinition {
                        job_type: self.expr(ext, "type"),
                        retries: self.expr(ext, "retries"),
                        span,
                    })
                }
                "ioMapping" => {
                    for (_, mapping) in self.children(ext_id) {
                        let parsed = Mapping {
                            source: self.expr(mapping, "source"),
                            target: self.string(mapping, "target").unwrap_or_default(),
                            span: self.span(mapping),
                        };
                        if mapping.is(Ns::Zeebe, "input") {
                            zeebe.input_mappings.push(parsed);
                        } else if mapping.is(Ns::Zeebe, "output") {
                            zeebe.output_mappings.push(parsed);
                        }
                    }
                }
                "taskHeaders" => {
                    for (_, header) in self.children(ext_id) {
                        if header.is(Ns::Zeebe, "header") {
                            zeebe.task_headers.push((
                                self.string(header, "key").unwrap_or_default(),
                                self.string(header, "value").unwrap_or_default(),
                            ));
                        }
                    }
                }
                "properties" => {
                    for (_, property) in self.children(ext_id) {
                        if property.is(Ns::Zeebe, "property") {
                            zeebe.properties.push(Property {
                                name: self.string(property, "name").unwrap_or_default(),
                                value: self.string(property, "value"),
                                span: self.span(property),
                            });
                        }
                    }
                }
                "subscription" => {
                    zeebe.subscription = Some(Box::new(Subscription {
                        correlation_key: self.expr(ext, "correlationKey"),
                        span,
                    }))
                }
                "calledElement" => {
                    zeebe.called_element = Some(Box::new(CalledElement {
                        process_id: self.expr(ext, "processId"),
                        propagate_all_child_variables: self.boolean(
                            ext,
                            "propagateAllChildVariables",
                            Some(element_id),
                        ),
                        propagate_all_parent_variables: self.boolean(
                            ext,
                            "propagateAllParentVariables",
                            Some(element_id),
                        ),
                        binding_type: self.string(ext, "bindingType"),
                        version_tag: self.string(ext, "versionTag"),
                        span,
                    }))
                }
                "calledDecision" => {
                    zeebe.called_decision = Some(Box::new(CalledDecision {
                        decision_id: self.expr(ext, "decisionId"),
                        result_variable: self.string(ext, "resultVariable"),
                        binding_type: self.string(ext, "bindingType"),
                        version_tag: self.string(ext, "versionTag"),
                        span,
                    }))
                }
                "script" => {
                    zeebe.script = Some(Box::new(ZeebeScript {
                        expression: self.expr(ext, "expression"),
                        result_variable: self.string(ext, "resultVariable"),
                        span,
                    }))
                }
                "userTask" => zeebe.user_task = true,
                "assignmentDefinition" => {
                    zeebe.assignment = Some(Box::new(AssignmentDefinition {
                        assignee: self.expr(ext, "assignee"),
                        candidate_groups: self.expr(ext, "candidateGroups"),
                        candidate_users: self.expr(ext, "candidateUsers"),
                        span,
                    }))
                }
                "taskSchedule" => {
                    zeebe.task_schedule = Some(Box::new(TaskSchedule {
                        due_date: self.expr(ext, "dueDate"),
                        follow_up_date: self.expr(ext, "followUpDate"),
                        span,
                    }))
                }
                "priorityDefinition" => {
                    zeebe.priority = Some(self.expr(ext, "priority").unwrap_or(Expr::new("", span)))
                }
                "formDefinition" => {
                    zeebe.form = Some(Box::new(FormDefinition {
                        form_id: self.expr(ext, "formId"),
                        form_key: self.expr(ext, "formKey"),
                        external_reference: self.expr(ext, "externalReference"),
                        binding_type: self.string(ext, "bindingType"),
                        version_tag: self.string(ext, "versionTag"),
                        span,
                    }))
                }
                "executionListeners" | "taskListeners" => {
                    let item = if local == "executionListeners" {
                        "executionListener"
                    } else {
                        "taskListener"
                    };
                    for (_, listener) in self.children(ext_id) {
                        if !listener.is(Ns::Zeebe, item) {
                            continue;
                        }
                        let parsed = Listener {
                            event_type: self.string(listener, "eventType").unwrap_or_default(),
                            job_type: self.expr(listener, "type"),
                            retries: self.expr(listener, "retries"),
                            span: self.span(listener),
                        };
                        if item == "executionListener" {
                            zeebe.execution_listeners.push(parsed);
                        } else {
                            zeebe.task_listeners.push(parsed);
                        }
                    }
                }
                "adHoc" => {
                    zeebe.ad_hoc = Some(Box::new(ZeebeAdHoc {
                        active_elements_collection: self.expr(ext, "activeElementsCollection"),
                        output_collection: self.string(ext, "outputCollection"),
                        output_element: self.expr(ext, "outputElement"),
                        span,
                    }))
                }
                "linkedResources" => {
                    for (_, resource) in self.children(ext_id) {
                        if resource.is(Ns::Zeebe, "linkedResource") {
                            zeebe.linked_resources.push(LinkedResource {
                                resource_id: self.string(resource, "resourceId"),
                                resource_type: self.string(resource, "resourceType"),
                                link_name: self.string(resource, "linkName"),
                                binding_type: self.string(resource, "bindingType"),
                                version_tag: self.string(resource, "versionTag"),
                                span: self.span(resource),
                            });
                        }
                    }
                }
                "publishMessage" => {
                    zeebe.publish_message = Some(Box::new(self.publish_message(ext)))
                }
                "jobPriorityDefinition" => zeebe.job_priority = self.expr(ext, "priority"),
                "versionTag" => extras.version_tag = self.string(ext, "value"),
                "userTaskForm" => extras.user_task_forms.push(UserTaskForm {
                    id: self.string(ext, "id").unwrap_or_default(),
                    body: self
                        .doc
                        .text(ext)
                        .map(|t| t.value.to_string())
                        .unwrap_or_default(),
                    span,
                }),
                // Unknown `zeebe:` elements (newer versions, e.g. `zeebe:agentDefinition`) are
                // allowed by Zeebe's schema and ignored here.
                _ => {}
            }
        }
    }

    fn publish_message(&self, ext: &Node<'_>) -> PublishMessage {
        PublishMessage {
            correlation_key: self.expr(ext, "correlationKey"),
            message_id: self.expr(ext, "messageId"),
            time_to_live: self.expr(ext, "timeToLive"),
            message_ref: None,
            span: self.span(ext),
        }
    }

    // --- references ----------------------------------------------------------------------

    /// Turns the flows' `sourceRef`/`targetRef`, `attachedToRef` and `default` into indexes.
    fn resolve(&mut self, builder: &mut ProcessBuilder<'s>) {
        let process = &mut builder.process;
        // Of two elements with one id (reported as a duplicate), the later one is found.
        // (Both maps sized once: growing one rehashes every id again.)
        let mut by_id: HashMap<&str, ElementIdx> =
            HashMap::with_capacity_and_hasher(builder.element_ids.len(), Default::default());
        by_id.extend(
            builder
                .element_ids
                .iter()
                .enumerate()
                .filter(|(_, id)| !id.is_empty())
                .map(|(i, id)| (*id, ElementIdx(i as u32))),
        );
        let mut flow_ids: HashMap<&str, FlowIdx> =
            HashMap::with_capacity_and_hasher(builder.flows.len(), Default::default());
        for pending in std::mem::take(&mut builder.flows) {
            let eid = (!pending.id.is_empty()).then_some(pending.id);
            let source = self.flow_end(
                &by_id,
                pending.source.as_ref(),
                &pending,
                "sourceRef",
                "which cannot be resolved",
            );
            // Zeebe's message has two spaces before "which" for the target.
            let target = self.flow_end(
                &by_id,
                pending.target.as_ref(),
                &pending,
                "targetRef",
                " which cannot be resolved",
            );
            let (Some(source), Some(target)) = (source, target) else {
                continue;
            };
            let idx = FlowIdx(process.flows.len() as u32);
            if let Some(eid) = eid {
                flow_ids.entry(eid).or_insert(idx);
            }
            process.elements[source.0 as usize].outgoing.push(idx);
            process.elements[target.0 as usize].incoming.push(idx);
            process.flows.push(SequenceFlow {
                id: self.shared(pending.id),
                name: pending.name,
                source,
                target,
                condition: pending.condition,
                // Where the flow is written in the XML does not matter (Zeebe accepts a flow
                // written outside the sub-process it runs in); it runs in its source's scope.
                parent: process.elements[source.0 as usize].parent,
                documentation: pending.documentation,
                span: pending.span,
            });
        }

        for (boundary, attached_to) in std::mem::take(&mut builder.attachments) {
            let event = &process.elements[boundary.0 as usize];
            let event_id = event.id.clone();
            let host = attached_to
                .as_ref()
                .and_then(|r| by_id.get(r.id).copied())
                .filter(|&host| is_activity(&process.elements[host.0 as usize].kind));
            match host {
                Some(host) => {
                    if let ElementKind::BoundaryEvent { attached_to, .. } =
                        &mut process.elements[boundary.0 as usize].kind
                    {
                        *attached_to = host;
                    }
                    process.elements[host.0 as usize]
                        .boundary_events
                        .push(boundary);
                }
                None => {
                    let (offset, detail) = match &attached_to {
                        Some(r) => (
                            r.span.start,
                            format!(" ('{}' is not an activity of this process)", r.id),
                        ),
                        None => (event.span.start, String::new()),
                    };
                    self.error(
                        offset,
                        Rule::BoundaryEvent,
                        Some(&event_id),
                        format!("Must be attached to an activity{detail}"),
                    );
                }
            }
        }

        for (element, default) in std::mem::take(&mut builder.defaults) {
            match flow_ids.get(default.id) {
                Some(&flow) => process.elements[element.0 as usize].default_flow = Some(flow),
                None => {
                    let element_id = process.elements[element.0 as usize].id.clone();
                    self.error(
                        default.span.start,
                        Rule::UnresolvedReference,
                        Some(&element_id),
                        format!(
                            "The default flow '{}' is not a sequence flow of this process",
                            default.id
                        ),
                    );
                }
            }
        }
    }

    fn flow_end(
        &mut self,
        by_id: &HashMap<&str, ElementIdx>,
        reference: Option<&RawRef<'s>>,
        flow: &PendingFlow<'s>,
        attribute: &str,
        unresolved: &str,
    ) -> Option<ElementIdx> {
        let eid = (!flow.id.is_empty()).then_some(flow.id);
        match reference {
            Some(r) if !r.id.is_empty() => match by_id.get(r.id) {
                Some(&idx) => Some(idx),
                None => {
                    self.error(
                        r.span.start,
                        Rule::UnresolvedReference,
                        eid,
                        format!("SequenceFlow has {attribute} '{}' {unresolved}", r.id),
                    );
                    None
                }
            },
            _ => {
                self.error(
                    flow.span.start,
                    Rule::UnresolvedReference,
                    eid,
                    format!("SequenceFlow is missing required attribute {attribute}"),
                );
                None
            }
        }
    }
}

/// Extension elements that only matter on one kind of element and are kept outside `Zeebe`.
#[derive(Default)]
struct Extras {
    version_tag: Option<String>,
    user_task_forms: Vec<UserTaskForm>,
}

/// `zeebe:` elements that may appear at most once in one `bpmn:extensionElements`.
/// (At most 32: `zeebe_extensions` keeps a bit per entry.)
const SINGLE_EXTENSIONS: &[&str] = &[
    "taskDefinition",
    "ioMapping",
    "taskHeaders",
    "subscription",
    "calledElement",
    "calledDecision",
    "script",
    "userTask",
    "assignmentDefinition",
    "taskSchedule",
    "priorityDefinition",
    "formDefinition",
    "executionListeners",
    "taskListeners",
    "adHoc",
    "linkedResources",
    "publishMessage",
    "jobPriorityDefinition",
    "versionTag",
];
const _: () = assert!(SINGLE_EXTENSIONS.len() <= 32);

/// The position of `local` in `SINGLE_EXTENSIONS`: a `match` (compiled to a length and byte
/// dispatch) rather than a string comparison per entry, for every extension element read.
fn single_extension(local: &str) -> Option<usize> {
    let position = match local {
        "taskDefinition" => 0,
        "ioMapping" => 1,
        "taskHeaders" => 2,
        "subscription" => 3,
        "calledElement" => 4,
        "calledDecision" => 5,
        "script" => 6,
        "userTask" => 7,
        "assignmentDefinition" => 8,
        "taskSchedule" => 9,
        "priorityDefinition" => 10,
        "formDefinition" => 11,
        "executionListeners" => 12,
        "taskListeners" => 13,
        "adHoc" => 14,
        "linkedResources" => 15,
        "publishMessage" => 16,
        "jobPriorityDefinition" => 17,
        "versionTag" => 18,
        _ => return None,
    };
    debug_assert_eq!(SINGLE_EXTENSIONS[position], local);
    Some(position)
}

/// Reads BPMN DI (`bpmndi:BPMNDiagram` children of `definitions`) as the XML reader streams it:
/// the shapes and edges of every plane, keyed by their `bpmnElement`, with the problems of
/// their attributes.
struct DiReader<'s, 'a> {
    problems: DiProblems<'s>,
    reading: DiReading,
    /// Where each `BPMNDiagram` is (start tag to end tag).
    parts: Vec<std::ops::Range<u32>>,
    /// What was drawn (when `reading` keeps it).
    diagram: Diagram,
    /// The number of open elements of the diagram.
    open: usize,
    in_plane: bool,
    item: Option<DiItem<'a>>,
    /// A `BPMNLabel` being read: its first `dc:Bounds`.
    label: Option<Option<Bounds>>,
}

/// The problems of the diagram's attributes, each with the start of its `BPMNDiagram`.
struct DiProblems<'s> {
    source: &'s Source,
    diagnostics: Vec<(u32, Diagnostic)>,
    /// The start of the `BPMNDiagram` being read.
    diagram_start: u32,
}

/// What becomes of the BPMN DI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DiReading {
    /// Read, checked and kept, with the rest of the file.
    Keep,
    /// Read and checked with the rest of the file, not kept.
    Check,
    /// Read and kept alone: the rest of the file is skipped.
    Only,
}

/// A shape or edge being read, with its `bpmnElement` and its own id (for messages).
struct DiItem<'a> {
    element: Cow<'a, str>,
    di_id: Option<Cow<'a, str>>,
    drawn: Drawn,
}

enum Drawn {
    Shape(Shape),
    Edge(Edge),
    /// Checked, not kept (`DiReading::Check`): a shape (`true`) or an edge.
    Checked(bool),
}

impl<'s, 'a> DiReader<'s, 'a> {
    fn new(source: &'s Source, reading: DiReading) -> Self {
        DiReader {
            problems: DiProblems {
                source,
                diagnostics: Vec::new(),
                diagram_start: 0,
            },
            reading,
            parts: Vec::new(),
            diagram: Diagram::default(),
            open: 0,
            in_plane: false,
            item: None,
            label: None,
        }
    }
}

impl<'a> DiProblems<'_> {
    fn error(&mut self, attr: &Attr<'_>, di_id: Option<&str>, message: String) {
        let diagnostic = Diagnostic::at(
            self.source,
            attr.span.start,
            Rule::InvalidAttribute,
            di_id,
            message,
        );
        self.diagnostics.push((self.diagram_start, diagnostic));
    }

    fn boolean(
        &mut self,
        element: &Streamed<'_, 'a>,
        name: &str,
        di_id: Option<&str>,
    ) -> Option<bool> {
        let attr = element.attr(name)?;
        match boolean_value(element.value(attr), name) {
            Ok(value) => Some(value),
            Err(message) => {
                self.error(attr, di_id, message);
                None
            }
        }
    }

    fn number(
        &mut self,
        element: &Streamed<'_, 'a>,
        attr: Option<&Attr<'a>>,
        name: &str,
        di_id: Option<&str>,
    ) -> f64 {
        let Some(attr) = attr else {
            return 0.0;
        };
        let value = element.value(attr);
        // Diagram coordinates are nearly always small integers: read here, the rest (and the
        // error's message) out of line, so this stays a small function without a frame to set
        // up (thousands of calls per file).
        match parse_integer(value) {
            Some(number) => number,
            None => self.number_slow(attr, value, name, di_id),
        }
    }

    #[cold]
    #[inline(never)]
    fn number_slow(
        &mut self,
        attr: &Attr<'_>,
        value: &str,
        name: &str,
        di_id: Option<&str>,
    ) -> f64 {
        match number_value(value, name) {
            Ok(number) => number,
            Err(message) => {
                self.error(attr, di_id, message);
                0.0
            }
        }
    }

    fn bounds(&mut self, element: &Streamed<'_, 'a>, di_id: Option<&str>) -> Bounds {
        // One pass over the attributes instead of one lookup per coordinate (there are
        // thousands of these); the first attribute of a name counts, as in `Document::attr`.
        let mut found: [Option<&Attr<'a>>; 4] = [None; 4];
        for attr in element.attrs().iter().filter(|a| a.ns == Ns::None) {
            let slot = match attr.local {
                "x" => 0,
                "y" => 1,
                "width" => 2,
                "height" => 3,
                _ => continue,
            };
            found[slot].get_or_insert(attr);
        }
        let [x, y, width, height] = found;
        Bounds {
            x: self.number(element, x, "x", di_id),
            y: self.number(element, y, "y", di_id),
            width: self.number(element, width, "width", di_id),
            height: self.number(element, height, "height", di_id),
        }
    }

    /// The `x` and `y` of a waypoint, in one pass over its attributes.
    fn point(&mut self, element: &Streamed<'_, 'a>, di_id: Option<&str>) -> (f64, f64) {
        let mut found: [Option<&Attr<'a>>; 2] = [None; 2];
        for attr in element.attrs().iter().filter(|a| a.ns == Ns::None) {
            let slot = match attr.local {
                "x" => 0,
                "y" => 1,
                _ => continue,
            };
            found[slot].get_or_insert(attr);
        }
        let [x, y] = found;
        (
            self.number(element, x, "x", di_id),
            self.number(element, y, "y", di_id),
        )
    }
}

impl<'a> xml::Stream<'a> for DiReader<'_, 'a> {
    fn reading(&self, depth: usize, ns: Ns, local: &str) -> xml::Reading {
        match ns {
            Ns::BpmnDi if depth == 1 && local == "BPMNDiagram" => xml::Reading::Stream,
            _ if self.reading == DiReading::Only && depth >= 1 => xml::Reading::Skip,
            // A flow node's `incoming`/`outgoing` repeat what its sequence flows say: the
            // parser reads the flows, so these (a third of a modeler file's process elements)
            // are not kept.
            Ns::Bpmn if depth >= 2 && matches!(local, "incoming" | "outgoing") => {
                xml::Reading::Skip
            }
            _ => xml::Reading::Keep,
        }
    }

    fn open(&mut self, element: &Streamed<'_, 'a>) {
        self.open = element.depth + 1;
        match element.depth {
            0 => self.problems.diagram_start = element.start,
            1 => {
                self.in_plane = element.is(Ns::BpmnDi, "BPMNPlane");
                if self.in_plane
                    && self.reading != DiReading::Check
                    && self.diagram.shapes.is_empty()
                {
                    // Sized once rather than grown (each growth copies every entry): a flow
                    // node is about four elements of the tree (itself, its extension elements)
                    // and has a shape, and about as many edges are drawn. Read alone (the
                    // tree is empty), from the size of the text: a shape or an edge is about
                    // 200 bytes of DI.
                    let drawn = if self.reading == DiReading::Only {
                        self.problems.source.text().len() / 256
                    } else {
                        element.tree_size / 4
                    };
                    self.diagram.shapes.reserve(drawn);
                    self.diagram.edges.reserve(drawn);
                }
            }
            2 => {
                self.item = None;
                if !self.in_plane {
                    return;
                }
                let Some(drawn) = element.attr("bpmnElement") else {
                    return;
                };
                let di_id = element.attr("id").map(|a| element.value_cow(a));
                let di = di_id.as_deref();
                if self.reading == DiReading::Check {
                    // The same problems, nothing built.
                    let is_shape = element.is(Ns::BpmnDi, "BPMNShape");
                    if is_shape {
                        self.problems.boolean(element, "isExpanded", di);
                        self.problems.boolean(element, "isHorizontal", di);
                    } else if !element.is(Ns::BpmnDi, "BPMNEdge") {
                        return;
                    }
                    self.item = Some(DiItem {
                        element: Cow::Borrowed(""),
                        di_id,
                        drawn: Drawn::Checked(is_shape),
                    });
                    return;
                }
                let item = if element.is(Ns::BpmnDi, "BPMNShape") {
                    Drawn::Shape(Shape {
                        bounds: Bounds::default(),
                        is_expanded: self.problems.boolean(element, "isExpanded", di),
                        is_horizontal: self.problems.boolean(element, "isHorizontal", di),
                        label: None,
                    })
                } else if element.is(Ns::BpmnDi, "BPMNEdge") {
                    Drawn::Edge(Edge {
                        waypoints: SmallVec::new(),
                        label: None,
                    })
                } else {
                    return;
                };
                self.item = Some(DiItem {
                    element: element.value_cow(drawn),
                    di_id,
                    drawn: item,
                });
            }
            3 => {
                let Some(item) = &mut self.item else {
                    return;
                };
                let di_id = item.di_id.as_deref();
                match &mut item.drawn {
                    _ if element.is(Ns::BpmnDi, "BPMNLabel") => self.label = Some(None),
                    Drawn::Shape(shape) if element.is(Ns::Dc, "Bounds") => {
                        shape.bounds = self.problems.bounds(element, di_id);
                    }
                    Drawn::Edge(edge) if element.is(Ns::Di, "waypoint") => {
                        edge.waypoints.push(self.problems.point(element, di_id));
                    }
                    Drawn::Checked(true) if element.is(Ns::Dc, "Bounds") => {
                        self.problems.bounds(element, di_id);
                    }
                    Drawn::Checked(false) if element.is(Ns::Di, "waypoint") => {
                        self.problems.point(element, di_id);
                    }
                    _ => {}
                }
            }
            4 if matches!(self.label, Some(None)) && element.is(Ns::Dc, "Bounds") => {
                let di_id = self.item.as_ref().and_then(|item| item.di_id.as_deref());
                self.label = Some(Some(self.problems.bounds(element, di_id)));
            }
            _ => {}
        }
    }

    fn close(&mut self, end: u32) {
        self.open -= 1;
        match self.open {
            0 => self.parts.push(self.problems.diagram_start..end),
            1 => self.in_plane = false,
            2 => {
                if let Some(item) = self.item.take()
                    && self.reading != DiReading::Check
                {
                    let element = item.element.into_owned();
                    match item.drawn {
                        Drawn::Shape(shape) => {
                            self.diagram.shapes.insert(element, shape);
                        }
                        Drawn::Edge(edge) => {
                            self.diagram.edges.insert(element, edge);
                        }
                        Drawn::Checked(_) => {}
                    }
                }
            }
            3 => {
                if let (Some(label), Some(item)) = (self.label.take(), &mut self.item) {
                    match &mut item.drawn {
                        Drawn::Shape(shape) => shape.label = label,
                        Drawn::Edge(edge) => edge.label = label,
                        Drawn::Checked(_) => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// Gives every element that waits for a message the `zeebe:subscription` of that message, so the
/// runtime finds the correlation key on the element.
fn copy_subscriptions(definitions: &mut Definitions) {
    let subscriptions: HashMap<&str, &Subscription> = definitions
        .messages
        .iter()
        .filter_map(|m| Some((m.id.as_str(), m.subscription.as_ref()?)))
        .collect();
    if subscriptions.is_empty() {
        return;
    }
    for process in &mut definitions.processes {
        for element in &mut process.elements {
            let message_ref = match &element.kind {
                ElementKind::Task(TaskKind::Receive { message_ref, .. }) => message_ref.as_deref(),
                ElementKind::StartEvent { .. }
                | ElementKind::IntermediateCatchEvent
                | ElementKind::BoundaryEvent { .. } => {
                    element.event_definitions.iter().find_map(|d| match d {
                        EventDefinition::Message { message_ref, .. } => message_ref.as_deref(),
                        _ => None,
                    })
                }
                _ => None,
            };
            if let Some(subscription) = message_ref.and_then(|r| subscriptions.get(r)) {
                element
                    .zeebe
                    .subscription
                    .get_or_insert_with(|| Box::new((*subscription).clone()));
            }
        }
    }
}

/// An `xs:boolean` value, or why it is not one.
fn boolean_value(value: &str, name: &str) -> Result<bool, String> {
    match value.trim() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        other => Err(format!(
            "'{other}' is not a boolean value of attribute '{name}'"
        )),
    }
}

/// A finite `xs:double`, or why the value is not one. Diagram coordinates are nearly always
/// small integers: those skip the general (and much slower) float parser.
fn number_value(value: &str, name: &str) -> Result<f64, String> {
    // Most coordinates are plain integers: read without trimming first.
    if let Some(number) = parse_integer(value) {
        return Ok(number);
    }
    match parse_number(value.trim()) {
        Some(number) if number.is_finite() => Ok(number),
        _ => Err(format!("'{value}' is not a number (attribute '{name}')")),
    }
}

fn parse_number(text: &str) -> Option<f64> {
    parse_integer(text).or_else(|| text.parse::<f64>().ok())
}

/// An integer of at most 15 digits (exact as an `f64`), optionally negative.
fn parse_integer(text: &str) -> Option<f64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', digits @ ..] => (true, digits),
        digits => (false, digits),
    };
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    // One pass: each byte is checked and added at once.
    let mut magnitude: i64 = 0;
    for &byte in digits {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        magnitude = magnitude * 10 + i64::from(digit);
    }
    // Exact: 15 decimal digits stay below 2^53.
    let value = magnitude as f64;
    Some(if negative { -value } else { value })
}

/// A value read from the file as a [`SharedStr`]: a slice of the file's `text` when it is one
/// (no copy), else a copy (an unescaped value).
fn shared_in(text: &arcstr::ArcStr, value: &str) -> SharedStr {
    text.try_substr_from(value)
        .unwrap_or_else(|| SharedStr::from(value))
}

fn attr_expr(source: &Source, doc: &Document<'_>, attr: &Attr<'_>) -> Expr {
    Expr::new(shared_in(source.shared_text(), doc.value(attr)), attr.span)
}

/// The trimmed text of an element as an expression; an empty element gives an empty text at
/// the element's position.
fn text_expr<'a>(source: &Source, doc: &Document<'a>, node: &Node<'a>) -> Expr {
    match doc.text(node) {
        Some(text) => {
            let leading = text.value.len() - text.value.trim_start().len();
            let trimmed = text.value.trim();
            let start = text.span.start + leading as u32;
            Expr::new(
                shared_in(source.shared_text(), trimmed),
                Span {
                    start,
                    end: start + trimmed.len() as u32,
                },
            )
        }
        None => Expr::new(
            "",
            Span {
                start: node.start,
                end: node.start,
            },
        ),
    }
}

fn is_activity(kind: &ElementKind) -> bool {
    matches!(
        kind,
        ElementKind::Task(_) | ElementKind::SubProcess(_) | ElementKind::CallActivity
    )
}

/// `callChoreography` → `CallChoreography`, as Zeebe names element types in messages.
fn upper_first(local: &str) -> String {
    let mut chars = local.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_share_the_files_text_unless_unescaped() {
        let source = Source::new(
            "shared.bpmn",
            r#"<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p" isExecutable="true"><task id="Task_1" name="a &amp; b"/></process></definitions>"#,
        );
        let parsed = parse(&source);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let definitions = parsed.definitions.expect("BPMN");
        let task = &definitions.processes[0].elements[0];
        assert_eq!(task.id, "Task_1");
        assert!(arcstr::ArcStr::ptr_eq(
            task.id.parent(),
            source.shared_text()
        ));
        let name = task.name.as_ref().expect("named");
        assert_eq!(name, "a & b");
        assert!(!arcstr::ArcStr::ptr_eq(name.parent(), source.shared_text()));
    }

    #[test]
    fn every_single_extension_is_found_by_name() {
        for (position, name) in SINGLE_EXTENSIONS.iter().enumerate() {
            assert_eq!(single_extension(name), Some(position), "{name}");
        }
        assert_eq!(single_extension("input"), None);
    }

    #[test]
    fn diagram_problems_keep_their_place_among_the_others() {
        // The DI comes first here: its problems are still reported in document order, and its
        // shapes are read whatever comes after.
        let xml = r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" id="d">
  <bpmndi:BPMNDiagram id="diagram">
    <bpmndi:BPMNPlane id="plane" bpmnElement="p">
      <bpmndi:BPMNShape id="a_di" bpmnElement="a"><dc:Bounds x="1" y="two" width="3" height="4"/></bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
  <bpmn:process id="p" isExecutable="maybe"><bpmn:task id="a"/></bpmn:process>
  <bpmndi:BPMNDiagram id="second">
    <bpmndi:BPMNPlane id="plane2"><bpmndi:BPMNShape id="b_di" bpmnElement="b" isExpanded="no"/></bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>"#;
        let parsed = parse(&Source::new("order.bpmn", xml));
        let found: Vec<(Option<&str>, &str)> = parsed
            .diagnostics
            .iter()
            .map(|d| (d.element_id.as_deref(), d.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Some("a_di"), "'two' is not a number (attribute 'y')"),
                (
                    Some("p"),
                    "'maybe' is not a boolean value of attribute 'isExecutable'"
                ),
                (
                    Some("b_di"),
                    "'no' is not a boolean value of attribute 'isExpanded'"
                ),
            ]
        );
        let source = Source::new("order.bpmn", xml);
        let diagram = parsed.definitions.unwrap().diagram;
        let shapes: Vec<&str> = diagram.shapes.keys().map(String::as_str).collect();
        assert_eq!(shapes, ["a", "b"]);
        assert_eq!(diagram.shapes["a"].bounds.height, 4.0);

        // Checked only: the same problems, nothing kept, the text kept to read it from later.
        let checked = parse_without_diagram(&source);
        assert_eq!(checked.diagnostics, parse(&source).diagnostics);
        let definitions = checked.definitions.unwrap();
        assert!(definitions.diagram.shapes.is_empty() && definitions.diagram.edges.is_empty());
        let unread = definitions.unread_diagram.as_ref().unwrap();
        assert_eq!(unread.parts.len(), 2);
        for read in [read_diagram(&source), unread.read()] {
            assert_eq!(read.shapes, diagram.shapes);
            assert_eq!(read.edges, diagram.edges);
        }
        // A file without BPMN DI has nothing to read later.
        let bare = Source::new(
            "bare.bpmn",
            xml.split("  <bpmndi").next().unwrap().to_owned() + "</bpmn:definitions>",
        );
        let bare = parse_without_diagram(&bare).definitions.unwrap();
        assert!(bare.unread_diagram.is_none());
    }
}
