//! A process and everything in it: flow nodes (sub-processes recursively), sequence flows,
//! lanes and artifacts; then the references between them (`sourceRef`/`targetRef`,
//! `attachedToRef`, `default`) resolved to indexes.

use rustc_hash::FxHashMap as HashMap;

use super::zeebe::Extras;
use super::*;

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

impl<'s, 'a> Parser<'s, 'a> {
    pub(super) fn process(&mut self, node_id: NodeId) -> Process {
        let node = self.xml.node(node_id);
        let id = self.id(node, "process");
        let mut builder = ProcessBuilder {
            process: Process {
                id: id.clone(),
                name: self.xml.string(node, "name"),
                is_executable: self
                    .boolean(node, "isExecutable", Some(&id))
                    .unwrap_or(false),
                documentation: self.documentation(node_id),
                span: self.xml.span(node),
                ..Process::default()
            },
            ..ProcessBuilder::default()
        };
        let mut zeebe = Zeebe::default();
        self.zeebe_attributes(node, &mut zeebe);
        let mut user_task_forms = Vec::new();
        for (_, child) in self.xml.children(node_id) {
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
        let (flows, others) =
            self.xml
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
        for (child_id, child) in self.xml.children(node_id) {
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
                        span: self.xml.span(child),
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
                            .xml
                            .doc
                            .attr(child, "id")
                            .map(|a| self.xml.doc.value(a).to_string())
                            .unwrap_or_default(),
                        kind: child.local.to_string(),
                        name: self.xml.string(child, "name"),
                        text: self
                            .xml
                            .children(child_id)
                            .find(|(_, c)| c.is(Ns::Bpmn, "text"))
                            .and_then(|(_, c)| self.xml.doc.text(c).map(|t| t.value.to_string())),
                        source_ref: self.xml.string(child, "sourceRef"),
                        target_ref: self.xml.string(child, "targetRef"),
                        span: self.xml.span(child),
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
        for (lane_id, lane) in self.xml.children(node_id) {
            if !lane.is(Ns::Bpmn, "lane") {
                continue;
            }
            let mut refs = Vec::new();
            for (child_id, child) in self.xml.children(lane_id) {
                if child.is(Ns::Bpmn, "flowNodeRef") {
                    if let Some(text) = self.xml.doc.text(child) {
                        refs.push(text.value.trim().to_string());
                    }
                } else if child.is(Ns::Bpmn, "childLaneSet") {
                    self.lane_set(builder, child_id);
                }
            }
            builder.process.lanes.push(Lane {
                id: self.id(lane, "lane"),
                name: self.xml.string(lane, "name"),
                flow_node_refs: refs,
                span: self.xml.span(lane),
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
        let node = self.xml.node(node_id);
        let mut kind = self.element_kind(node_id)?;
        let id = self.id_ref(node, "flow node");
        builder.element_ids.push(id);
        let idx = ElementIdx(builder.process.elements.len() as u32);
        self.kind_attributes(builder, node, idx, id, &mut kind);
        if let Some(default) = self.raw_ref(node, "default") {
            builder.defaults.push((idx, default));
        }
        let is_for_compensation = self
            .boolean(node, "isForCompensation", Some(id))
            .unwrap_or(false);

        let mut zeebe = Zeebe::default();
        self.zeebe_attributes(node, &mut zeebe);
        let (event_definitions, loop_characteristics) =
            self.flow_node_children(node_id, id, &mut zeebe);
        if let (Some(publish), ElementKind::Task(TaskKind::Send)) =
            (&mut zeebe.publish_message, &kind)
        {
            publish.message_ref = self.xml.string(node, "messageRef");
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
            span: self.xml.span(node),
        });

        if matches!(
            builder.process.elements[idx.0 as usize].kind,
            ElementKind::SubProcess(_)
        ) {
            self.container(builder, node_id, Some(idx));
        }
        Some(idx)
    }

    /// The kind of flow node an element's name says, with what its name-specific attributes and
    /// children hold; `None` for an element that is no flow node.
    fn element_kind(&self, node_id: NodeId) -> Option<ElementKind> {
        let node = self.xml.node(node_id);
        Some(match node.local {
            "task" => ElementKind::Task(TaskKind::Undefined),
            "serviceTask" => ElementKind::Task(TaskKind::Service),
            "sendTask" => ElementKind::Task(TaskKind::Send),
            "receiveTask" => ElementKind::Task(TaskKind::Receive {
                message_ref: self.xml.string(node, "messageRef"),
                instantiate: false,
            }),
            "userTask" => ElementKind::Task(TaskKind::User),
            "manualTask" => ElementKind::Task(TaskKind::Manual),
            "scriptTask" => ElementKind::Task(TaskKind::Script {
                script_format: self.xml.string(node, "scriptFormat"),
                script: self
                    .xml
                    .children(node_id)
                    .find(|(_, c)| c.is(Ns::Bpmn, "script"))
                    .and_then(|(_, c)| self.xml.doc.text(c).map(|t| t.value.to_string())),
            }),
            "businessRuleTask" => ElementKind::Task(TaskKind::BusinessRule),
            "subProcess" => ElementKind::SubProcess(SubProcessKind::Embedded),
            "transaction" => ElementKind::SubProcess(SubProcessKind::Transaction),
            "adHocSubProcess" => ElementKind::SubProcess(SubProcessKind::AdHoc(AdHoc {
                completion_condition: self.child_text_expr(node_id, "completionCondition"),
                cancel_remaining_instances: None,
                ordering: self.xml.string(node, "ordering"),
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
        })
    }

    /// The boolean attributes that refine a kind (`instantiate`, `triggeredByEvent`,
    /// `cancelRemainingInstances`, `isInterrupting`, `cancelActivity`), once the element's id is
    /// known; a boundary event's `attachedToRef` is kept to resolve.
    fn kind_attributes(
        &mut self,
        builder: &mut ProcessBuilder<'s>,
        node: &Node<'_>,
        idx: ElementIdx,
        id: &str,
        kind: &mut ElementKind,
    ) {
        let eid = Some(id);
        match kind {
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
    }

    /// A flow node's BPMN children: its `zeebe:` extensions (into `zeebe`), event definitions
    /// and loop characteristics.
    fn flow_node_children(
        &mut self,
        node_id: NodeId,
        id: &str,
        zeebe: &mut Zeebe,
    ) -> (Vec<EventDefinition>, Option<LoopCharacteristics>) {
        let mut extras = Extras::default();
        let mut event_definitions = Vec::new();
        let mut loop_characteristics = None;
        for (child_id, child) in self.xml.children(node_id) {
            if child.ns != Ns::Bpmn {
                continue;
            }
            match child.local {
                "extensionElements" => self.zeebe_extensions(child, id, zeebe, &mut extras),
                "multiInstanceLoopCharacteristics" => {
                    loop_characteristics = Some(LoopCharacteristics::MultiInstance(Box::new(
                        self.multi_instance(child_id, id),
                    )));
                }
                "standardLoopCharacteristics" => {
                    loop_characteristics = Some(LoopCharacteristics::StandardLoop {
                        span: self.xml.span(child),
                    });
                }
                local if local.ends_with("EventDefinition") => {
                    if let Some(definition) = self.event_definition(child_id, id, zeebe) {
                        event_definitions.push(definition);
                    }
                }
                _ => {}
            }
        }
        (event_definitions, loop_characteristics)
    }

    fn multi_instance(&mut self, node_id: NodeId, element_id: &str) -> MultiInstance {
        let node = self.xml.node(node_id);
        let eid = (!element_id.is_empty()).then_some(element_id);
        let mut mi = MultiInstance {
            is_sequential: self.boolean(node, "isSequential", eid).unwrap_or(false),
            input_collection: None,
            input_element: None,
            output_collection: None,
            output_element: None,
            completion_condition: self.child_text_expr(node_id, "completionCondition"),
            loop_cardinality: self.child_text_expr(node_id, "loopCardinality"),
            span: self.xml.span(node),
        };
        // Whether the extension element exists is a question about the XML, so it is answered
        // here; the attribute rules live with the other deploy checks.
        let mut found = false;
        for (_, child) in self.xml.children(node_id) {
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
                mi.input_element = self.xml.string(ext, "inputElement");
                mi.output_collection = self.xml.string(ext, "outputCollection");
                mi.output_element = self.expr(ext, "outputElement");
                self.check_loop_characteristics(ext, eid);
            }
        }
        if !found {
            self.xml.error(
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
            self.xml
                .doc
                .attr(ext, name)
                .is_some_and(|a| !self.xml.doc.value(a).is_empty())
        };
        if !present("inputCollection") {
            self.xml.error(
                ext.start,
                Rule::MissingAttribute,
                eid,
                "Attribute 'inputCollection' must be present and not empty",
            );
        }
        match (present("outputCollection"), present("outputElement")) {
            (true, false) => self.xml.error(
                ext.start,
                Rule::MultiInstance,
                eid,
                "Attribute 'outputElement' must be present if the attribute 'outputCollection' is set",
            ),
            (false, true) => self.xml.error(
                ext.start,
                Rule::MultiInstance,
                eid,
                "Attribute 'outputCollection' must be present if the attribute 'outputElement' is set",
            ),
            _ => {}
        }
    }

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
                    self.xml.error(
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
                    self.xml.error(
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
                    self.xml.error(
                        r.span.start,
                        Rule::UnresolvedReference,
                        eid,
                        format!("SequenceFlow has {attribute} '{}' {unresolved}", r.id),
                    );
                    None
                }
            },
            _ => {
                self.xml.error(
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

fn is_activity(kind: &ElementKind) -> bool {
    matches!(
        kind,
        ElementKind::Task(_) | ElementKind::SubProcess(_) | ElementKind::CallActivity
    )
}
