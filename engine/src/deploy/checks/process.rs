//! A process and its flow scopes (Zeebe's `ProcessValidator`, `FlowNodeValidator`,
//! `SequenceFlowValidator` and the engine's scope checks): start events, duplicate event
//! triggers and handlers, links, what every flow node shares, and each element handed to its
//! family.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn process(&mut self, process: &'a Process) {
        let top_level_starts: Vec<&Element> = process
            .children
            .iter()
            .map(|&i| process.element(i))
            .filter(|e| matches!(e.kind, ElementKind::StartEvent { .. }))
            .collect();
        if top_level_starts.is_empty() {
            self.error(
                process.span.start,
                Rule::StartEvents,
                &process.id,
                "Must have at least one start event",
            );
        } else if top_level_starts
            .iter()
            .filter(|e| e.event_definitions.is_empty())
            .count()
            > 1
        {
            self.error(
                process.span.start,
                Rule::StartEvents,
                &process.id,
                "Multiple none start events are not allowed",
            );
        }
        self.scope_rules(process, None);
        let signal_starts: Vec<&EventDefinition> = top_level_starts
            .iter()
            .flat_map(|e| &e.event_definitions)
            .filter(|d| matches!(d, EventDefinition::Signal { .. }))
            .collect();
        self.no_duplicates(&process.id, process.span.start, &signal_starts);
        let mut seen_messages = HashSet::new();
        let message_starts: Vec<&EventDefinition> = top_level_starts
            .iter()
            .flat_map(|e| &e.event_definitions)
            .filter(|d| match d {
                EventDefinition::Message { message_ref, .. } => seen_messages.insert(message_ref),
                _ => false,
            })
            .collect();
        self.no_duplicates(&process.id, process.span.start, &message_starts);
        self.conditional_start_conditions(process, &top_level_starts);

        self.listeners(&process.id, process.span.start, &process.zeebe);
        self.zeebe_extensions(&process.id, process.span.start, &process.zeebe);
        for form in &process.user_task_forms {
            if form.body.is_empty() {
                self.error(
                    form.span.start,
                    Rule::FormDefinition,
                    &form.id,
                    "User task form text content has to be present and not empty",
                );
            }
        }

        for (i, element) in process.elements.iter().enumerate() {
            self.element(process, ElementIdx(i as u32), element);
        }
        for flow in &process.flows {
            self.flow(process, flow);
        }
        if let Some(ids) = loops::straight_through_loop(self.definitions, process) {
            self.error(
                process.span.start,
                Rule::StraightThroughLoop,
                &process.id,
                format!(
                    "Processes are not allowed to contain a straight-through processing loop: {}",
                    ids.join(" > ")
                ),
            );
        }
    }

    /// Rules about a flow scope (process or sub-process): its event sub-processes and links.
    pub(super) fn scope_rules(&mut self, process: &Process, scope: Option<ElementIdx>) {
        let (id, offset, children) = match scope {
            None => (process.id.as_str(), process.span.start, &process.children),
            Some(idx) => {
                let e = process.element(idx);
                (e.id.as_str(), e.span.start, &e.children)
            }
        };
        // Zeebe's verifyNoDuplicatedEventSubprocesses.
        let esp_definitions: Vec<&EventDefinition> = children
            .iter()
            .map(|&c| process.element(c))
            .filter(|e| is_event_sub_process(e))
            .flat_map(|esp| esp.children.iter().map(|&c| process.element(c)))
            .filter(|e| matches!(e.kind, ElementKind::StartEvent { .. }))
            .flat_map(|start| &start.event_definitions)
            .collect();
        self.no_duplicates(id, offset, &esp_definitions);
        self.no_duplicate_handlers(id, offset, &esp_definitions);

        // Zeebe's verifyLinkIntermediateEvents: catch links of this scope and every nested
        // sub-process, throw links of this scope only.
        let mut catches: Vec<(Option<ElementIdx>, &EventDefinition)> = Vec::new();
        collect_link_catches(process, children, &mut catches);
        let catch_definitions: Vec<&EventDefinition> = catches.iter().map(|(_, d)| *d).collect();
        self.no_duplicates(id, offset, &catch_definitions);
        let mut reported = HashSet::new();
        for &child in children {
            let element = process.element(child);
            if !matches!(element.kind, ElementKind::IntermediateThrowEvent) {
                continue;
            }
            for definition in &element.event_definitions {
                let EventDefinition::Link {
                    name: Some(name), ..
                } = definition
                else {
                    continue;
                };
                if name.is_empty() {
                    continue;
                }
                let paired = catches.iter().any(|(catch_scope, d)| {
                    *catch_scope == element.parent
                        && matches!(d, EventDefinition::Link { name: Some(n), .. } if n == name)
                });
                if !paired && reported.insert(name.clone()) {
                    self.error(
                        offset,
                        Rule::LinkEvent,
                        id,
                        format!(
                            "Can't find an catch link event for the throw link event with the name '{name}'."
                        ),
                    );
                }
            }
        }
    }

    /// Zeebe's `ProcessConditionalStartEventValidator`.
    fn conditional_start_conditions(&mut self, process: &Process, starts: &[&Element]) {
        let esp_starts: Vec<&Element> = process
            .children
            .iter()
            .map(|&c| process.element(c))
            .filter(|e| matches!(e.kind, ElementKind::SubProcess(_)))
            .flat_map(|sub| sub.children.iter().map(|&c| process.element(c)))
            .filter(|e| matches!(e.kind, ElementKind::StartEvent { .. }))
            .collect();
        for (events, template) in [
            (
                starts,
                "Duplicate condition expression '{}' found in conditional start events of process '{}'. Condition expressions for conditional start events must be unique within a process.",
            ),
            (
                &esp_starts[..],
                "Duplicate condition expression '{}' found in conditional start events of event subprocesses in process '{}'. Condition expressions for conditional start events in event subprocesses must be unique within a process.",
            ),
        ] {
            let conditions: Vec<&str> = events
                .iter()
                .flat_map(|e| &e.event_definitions)
                .filter_map(|d| match d {
                    EventDefinition::Conditional {
                        condition: Some(c), ..
                    } => Some(c.text.as_str()),
                    _ => None,
                })
                .collect();
            for duplicate in duplicates(conditions.iter().copied()) {
                let message = template
                    .replacen("{}", duplicate, 1)
                    .replacen("{}", &process.id, 1);
                self.error(
                    process.span.start,
                    Rule::DuplicateCatchEvent,
                    &process.id,
                    message,
                );
            }
        }
    }

    /// Zeebe's `verifyNoDuplicatedEventDefinition`: message names, signal names and link names.
    pub(super) fn no_duplicates(
        &mut self,
        id: &str,
        offset: u32,
        definitions: &[&EventDefinition],
    ) {
        // Nothing to compare (most elements have no or one definition).
        if definitions.len() < 2 {
            return;
        }
        let name =
            |expr: Option<&'a Expr>| expr.filter(|n| !n.text.is_empty()).map(|n| n.text.as_str());
        let messages = definitions.iter().filter_map(|d| match d {
            EventDefinition::Message { message_ref, .. } => {
                name(self.message(message_ref.as_deref())?.name.as_ref())
            }
            _ => None,
        });
        for duplicate in duplicates(messages) {
            self.error(
                offset,
                Rule::DuplicateCatchEvent,
                id,
                format!("Multiple message event definitions with the same name '{duplicate}' are not allowed."),
            );
        }
        let signals = definitions.iter().filter_map(|d| match d {
            EventDefinition::Signal { signal_ref, .. } => {
                name(self.signal(signal_ref.as_deref())?.name.as_ref())
            }
            _ => None,
        });
        for duplicate in duplicates(signals) {
            self.error(
                offset,
                Rule::DuplicateCatchEvent,
                id,
                format!("Multiple signal event definitions with the same name '{duplicate}' are not allowed."),
            );
        }
        let links = definitions.iter().filter_map(|d| match d {
            EventDefinition::Link { name: Some(n), .. } if !n.is_empty() => Some(n.as_str()),
            _ => None,
        });
        for duplicate in duplicates(links) {
            self.error(
                offset,
                Rule::LinkEvent,
                id,
                format!("Multiple intermediate catch link event definitions with the same name '{duplicate}' are not allowed."),
            );
        }
    }

    /// Zeebe's `verifyNoDuplicatedErrorHandler` and `verifyNoDuplicatedEscalationHandler`.
    fn no_duplicate_handlers(&mut self, id: &str, offset: u32, definitions: &[&EventDefinition]) {
        if definitions.len() < 2 {
            return;
        }
        for kind in ["error", "escalation"] {
            // `None`: no reference (catch-all); `Some(None)`: a reference without code.
            let codes: Vec<Option<Option<&str>>> = definitions
                .iter()
                .filter_map(|d| match (kind, d) {
                    ("error", EventDefinition::Error { error_ref, .. }) => Some(
                        self.error_def(error_ref.as_deref())
                            .map(|e| e.error_code.as_ref().map(|c| c.text.as_str())),
                    ),
                    ("escalation", EventDefinition::Escalation { escalation_ref, .. }) => Some(
                        self.escalation(escalation_ref.as_deref())
                            .map(|e| e.escalation_code.as_ref().map(|c| c.text.as_str())),
                    ),
                    _ => None,
                })
                .collect();
            if codes.is_empty() {
                continue;
            }
            let catch_all = format!(
                "The same scope can not contain more than one {kind} catch event without {kind} \
                 code. An {kind} catch event without {kind} code catches all {kind}s."
            );
            if codes.iter().filter(|c| c.is_none()).count() > 1 {
                self.error(offset, Rule::DuplicateCatchEvent, id, catch_all.clone());
            }
            let mut counts: Vec<(Option<&str>, usize)> = Vec::new();
            for code in codes.iter().flatten() {
                match counts.iter_mut().find(|(c, _)| c == code) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((*code, 1)),
                }
            }
            for (code, n) in counts {
                if n < 2 {
                    continue;
                }
                let message = match code {
                    Some(code) => format!(
                        "Multiple {kind} catch events with the same {kind} code '{code}' are not \
                         supported on the same scope."
                    ),
                    None => catch_all.clone(),
                };
                self.error(offset, Rule::DuplicateCatchEvent, id, message);
            }
        }
    }

    fn element(&mut self, process: &'a Process, idx: ElementIdx, element: &'a Element) {
        let id = element.id.as_str();
        let at = element.span.start;
        match &element.kind {
            ElementKind::Task(task) => self.task(process, element, task),
            ElementKind::SubProcess(kind) => self.sub_process(process, idx, element, kind),
            ElementKind::CallActivity => match &element.zeebe.called_element {
                None => self.error(
                    at,
                    Rule::ZeebeExtension,
                    id,
                    "Must have exactly one 'zeebe:calledElement' extension element",
                ),
                Some(called) => {
                    self.required_expression(
                        id,
                        called.span.start,
                        "processId",
                        called.process_id.as_ref(),
                        Requirement::MANDATORY,
                    );
                    self.binding_type(id, called.span.start, called.binding_type.as_deref());
                }
            },
            ElementKind::Gateway(kind) => self.gateway(process, idx, element, kind),
            ElementKind::StartEvent { .. } => self.start_event(element),
            ElementKind::IntermediateCatchEvent => self.intermediate_catch_event(element),
            ElementKind::IntermediateThrowEvent => self.intermediate_throw_event(element),
            ElementKind::BoundaryEvent { .. } => self.boundary_event(process, element),
            ElementKind::EndEvent => self.end_event(element),
        }

        for definition in &element.event_definitions {
            self.event_definition(process, element, definition);
        }
        if let Some(LoopCharacteristics::StandardLoop { span }) = &element.loop_characteristics {
            self.error(
                span.start,
                Rule::UnsupportedElement,
                id,
                "Elements of type 'StandardLoopCharacteristics' are currently not supported. \
                 Please refer to the documentation for a list of supported elements: \
                 https://docs.camunda.io/docs/components/modeler/bpmn/bpmn-coverage/",
            );
        }
        if let Some(LoopCharacteristics::MultiInstance(mi)) = &element.loop_characteristics {
            self.expression(
                id,
                mi.span.start,
                mi.input_collection.as_ref(),
                Requirement::OPTIONAL_EXPRESSION,
            );
            self.expression(
                id,
                mi.span.start,
                mi.output_element.as_ref(),
                Requirement::OPTIONAL_EXPRESSION,
            );
            self.expression(
                id,
                mi.span.start,
                mi.completion_condition.as_ref(),
                Requirement::OPTIONAL,
            );
        }
        // Zeebe's FlowNodeValidator.
        let conditional_gateway = matches!(
            element.kind,
            ElementKind::Gateway(GatewayKind::Exclusive | GatewayKind::Inclusive)
        );
        if !conditional_gateway
            && element
                .outgoing
                .iter()
                .any(|&f| process.flow(f).condition.is_some())
        {
            self.error(
                at,
                Rule::SequenceFlowCondition,
                id,
                "Conditional sequence flows are only supported at exclusive or inclusive gateway",
            );
        }
        if is_activity(&element.kind) {
            let boundary_definitions: Vec<&EventDefinition> = element
                .boundary_events
                .iter()
                .flat_map(|&b| &process.element(b).event_definitions)
                .collect();
            self.no_duplicates(id, at, &boundary_definitions);
            self.no_duplicate_handlers(id, at, &boundary_definitions);
        }
        self.listeners(id, at, &element.zeebe);
        self.zeebe_extensions(id, at, &element.zeebe);
    }

    fn flow(&mut self, process: &Process, flow: &SequenceFlow) {
        let (id, at) = (flow.id.as_str(), flow.span.start);
        let source = process.element(flow.source);
        let target = process.element(flow.target);
        // The parser puts a flow in its source's scope; the two ends must share it.
        if source.parent != target.parent {
            let scope = |parent: Option<ElementIdx>| match parent {
                None => format!("process '{}'", process.id),
                Some(p) => format!("'{}'", process.element(p).id),
            };
            self.error(
                at,
                Rule::SequenceFlowScope,
                id,
                format!(
                    "A sequence flow must connect elements of one scope, but it connects '{}' in {} to '{}' in {}",
                    source.id,
                    scope(source.parent),
                    target.id,
                    scope(target.parent)
                ),
            );
        }
        let is_default = source
            .default_flow
            .is_some_and(|d| std::ptr::eq(process.flow(d), flow));
        match source.kind {
            ElementKind::Gateway(GatewayKind::Exclusive)
                if source.outgoing.len() > 1 && !is_default && flow.condition.is_none() =>
            {
                self.error(
                    at,
                    Rule::SequenceFlowCondition,
                    id,
                    "Must have a condition or be default flow",
                );
            }
            ElementKind::Gateway(GatewayKind::Inclusive)
                if source.outgoing.len() > 1 && !is_default && flow.condition.is_none() =>
            {
                self.error(at, Rule::SequenceFlowCondition, id, "Must have a condition");
            }
            _ => {}
        }
        if let Some(condition) = &flow.condition {
            self.expression(
                id,
                condition.span.start,
                Some(condition),
                Requirement::EXPRESSION,
            );
        }
    }
}

/// Catch link events of these elements and of every sub-process inside them, with their scope.
fn collect_link_catches<'p>(
    process: &'p Process,
    children: &[ElementIdx],
    out: &mut Vec<(Option<ElementIdx>, &'p EventDefinition)>,
) {
    for &child in children {
        let element = process.element(child);
        match element.kind {
            ElementKind::IntermediateCatchEvent => {
                for definition in &element.event_definitions {
                    if matches!(definition, EventDefinition::Link { .. }) {
                        out.push((element.parent, definition));
                    }
                }
            }
            ElementKind::SubProcess(_) => collect_link_catches(process, &element.children, out),
            _ => {}
        }
    }
}
