//! Tasks, sub-processes and ad-hoc sub-processes (Zeebe's task validators, `SubProcessValidator`,
//! `AdHocSubProcessValidator`, `CompensationTaskValidator`).

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn task(&mut self, process: &Process, element: &Element, task: &TaskKind) {
        let (id, at, zeebe) = (element.id.as_str(), element.span.start, &element.zeebe);
        let either = |this: &str, has_this: bool, has_job: bool| -> Option<String> {
            (has_this == has_job).then(|| {
                format!("Must have either one 'zeebe:{this}' or one 'zeebe:taskDefinition' extension element")
            })
        };
        let problem = match task {
            TaskKind::Service if zeebe.task_definition.is_none() => {
                Some("Must have exactly one 'zeebe:taskDefinition' extension element".to_owned())
            }
            TaskKind::Script { .. } => either(
                "script",
                zeebe.script.is_some(),
                zeebe.task_definition.is_some(),
            ),
            TaskKind::BusinessRule => either(
                "calledDecision",
                zeebe.called_decision.is_some(),
                zeebe.task_definition.is_some(),
            ),
            TaskKind::Send => {
                let problem = either(
                    "publishMessage",
                    zeebe.publish_message.is_some(),
                    zeebe.task_definition.is_some(),
                );
                if let Some(publish) = &zeebe.publish_message {
                    self.message_reference(element, publish.message_ref.as_deref(), publish.span);
                }
                if zeebe.job_priority.is_some() && zeebe.task_definition.is_none() {
                    self.error(
                        at,
                        Rule::ZeebeExtension,
                        id,
                        "'zeebe:jobPriorityDefinition' is only allowed in job-worker mode ('zeebe:taskDefinition')",
                    );
                }
                problem
            }
            TaskKind::Receive { message_ref, .. } => {
                let message = self.message_reference(element, message_ref.as_deref(), element.span);
                if let Some(name) = message.and_then(|m| m.name.as_ref()) {
                    let clash = element.boundary_events.iter().any(|&b| {
                        process
                            .element(b)
                            .event_definitions
                            .iter()
                            .any(|d| match d {
                                EventDefinition::Message { message_ref, .. } => self
                                    .message(message_ref.as_deref())
                                    .and_then(|m| m.name.as_ref())
                                    .is_some_and(|n| !n.text.is_empty() && n.text == name.text),
                                _ => false,
                            })
                    });
                    if clash {
                        self.error(
                            at,
                            Rule::Message,
                            id,
                            "Cannot reference the same message name as a boundary event",
                        );
                    }
                }
                None
            }
            TaskKind::User => {
                if !zeebe.task_listeners.is_empty() && !zeebe.user_task {
                    self.error(
                        at,
                        Rule::TaskListener,
                        id,
                        "Task listeners are only allowed on Camunda user tasks.",
                    );
                }
                None
            }
            _ => None,
        };
        if let Some(problem) = problem {
            self.error(at, Rule::ZeebeExtension, id, problem);
        }
        if element.is_for_compensation {
            self.compensation_handler(element, task);
        }
    }

    /// Zeebe's `CompensationTaskValidator`.
    fn compensation_handler(&mut self, element: &Element, task: &TaskKind) {
        let (id, at) = (element.id.as_str(), element.span.start);
        if matches!(task, TaskKind::Receive { .. } | TaskKind::BusinessRule) {
            self.error(
                at,
                Rule::Compensation,
                id,
                "Compensation task must be one of: service task, user task, send task, script task, manual task, or undefined task.",
            );
        }
        for (present, message) in [
            (
                !element.incoming.is_empty(),
                "A compensation handler should have no incoming sequence flows",
            ),
            (
                !element.outgoing.is_empty(),
                "A compensation handler should have no outgoing sequence flows",
            ),
            (
                !element.boundary_events.is_empty(),
                "A compensation handler should have no boundary events",
            ),
        ] {
            if present {
                self.error(at, Rule::Compensation, id, message);
            }
        }
    }

    pub(super) fn sub_process(
        &mut self,
        process: &'a Process,
        idx: ElementIdx,
        element: &'a Element,
        kind: &SubProcessKind,
    ) {
        let (id, at) = (element.id.as_str(), element.span.start);
        let starts: Vec<&Element> = element
            .children
            .iter()
            .map(|&c| process.element(c))
            .filter(|e| matches!(e.kind, ElementKind::StartEvent { .. }))
            .collect();
        match kind {
            SubProcessKind::Transaction => self.error(
                at,
                Rule::UnsupportedElement,
                id,
                "Elements of type 'Transaction' are currently not supported. Please refer to the \
                 documentation for a list of supported elements: \
                 https://docs.camunda.io/docs/components/modeler/bpmn/bpmn-coverage/",
            ),
            SubProcessKind::AdHoc(ad_hoc) => {
                self.ad_hoc(process, idx, element, ad_hoc);
                self.ai_tool_parameters(process, element);
            }
            _ => {}
        }
        if starts.len() != 1 && !matches!(kind, SubProcessKind::AdHoc(_)) {
            self.error(
                at,
                Rule::StartEvents,
                id,
                "Must have exactly one start event",
            );
        }
        if let Some(start) = starts.first() {
            if matches!(kind, SubProcessKind::Event) {
                self.event_sub_process_start(process, element, start);
            } else if !start.event_definitions.is_empty() {
                self.error(
                    start.span.start,
                    Rule::StartEvents,
                    id,
                    "Start events in subprocesses must be of type none",
                );
            }
        }
        self.scope_rules(process, Some(idx));
    }

    fn event_sub_process_start(&mut self, process: &Process, element: &Element, start: &Element) {
        let id = element.id.as_str();
        const SUPPORTED: &[&str] = &[
            "timer",
            "message",
            "error",
            "signal",
            "escalation",
            "conditional",
        ];
        let unsupported = "Start events in event subprocesses must be one of: message, timer, error, signal or escalation";
        if start.event_definitions.is_empty() {
            self.error(start.span.start, Rule::EventSubProcess, id, unsupported);
        }
        let parent_is_sub_process = element
            .parent
            .is_some_and(|p| matches!(process.element(p).kind, ElementKind::SubProcess(_)));
        if start
            .event_definitions
            .iter()
            .any(|d| matches!(d, EventDefinition::Compensation { .. }))
            && !parent_is_sub_process
        {
            self.error(
                start.span.start,
                Rule::EventSubProcess,
                id,
                "A compensation event subprocess is not allowed on the process level",
            );
        }
        for definition in &start.event_definitions {
            if !SUPPORTED.contains(&kind_of(definition)) {
                self.error(
                    span_of(definition).start,
                    Rule::EventSubProcess,
                    id,
                    unsupported,
                );
            }
        }
        let interrupting = matches!(
            start.kind,
            ElementKind::StartEvent {
                is_interrupting: true
            }
        );
        self.interrupting(id, start, interrupting);
        let in_ad_hoc = element.parent.is_some_and(|p| {
            matches!(
                process.element(p).kind,
                ElementKind::SubProcess(SubProcessKind::AdHoc(_))
            )
        });
        if interrupting && in_ad_hoc {
            self.error(
                start.span.start,
                Rule::EventSubProcess,
                id,
                "An interrupting event subprocess is not allowed inside an ad-hoc subprocess",
            );
        }
    }

    /// Zeebe's `ModelUtil.verifyEventDefinition` for ESP starts and boundary events.
    pub(super) fn interrupting(&mut self, id: &str, event: &Element, interrupting: bool) {
        for definition in &event.event_definitions {
            let at = span_of(definition).start;
            if !interrupting
                && !matches!(
                    definition,
                    EventDefinition::Message { .. }
                        | EventDefinition::Timer(_)
                        | EventDefinition::Signal { .. }
                        | EventDefinition::Escalation { .. }
                        | EventDefinition::Conditional { .. }
                )
            {
                self.error(
                    at,
                    Rule::InterruptingEvent,
                    id,
                    "Non-Interrupting event of this type is not allowed",
                );
            }
            if interrupting
                && matches!(
                    definition,
                    EventDefinition::Timer(TimerDefinition::Cycle(_))
                )
            {
                self.error(
                    at,
                    Rule::InterruptingEvent,
                    id,
                    "Interrupting timer event with time cycle is not allowed.",
                );
            }
        }
    }

    /// Zeebe's ad-hoc sub-process transformer reads the `fromAi()` parameters of every element
    /// the sub-process can activate (direct children without incoming flow), one input mapping
    /// at a time; the first mapping it cannot read rejects the deployment.
    fn ai_tool_parameters(&mut self, process: &Process, ad_hoc: &Element) {
        for &child in &ad_hoc.children {
            let element = process.element(child);
            let activatable = matches!(
                element.kind,
                ElementKind::Task(_)
                    | ElementKind::SubProcess(SubProcessKind::Embedded | SubProcessKind::AdHoc(_))
                    | ElementKind::CallActivity
                    | ElementKind::IntermediateThrowEvent
                    | ElementKind::IntermediateCatchEvent
                    | ElementKind::Gateway(
                        GatewayKind::Exclusive
                            | GatewayKind::Inclusive
                            | GatewayKind::Parallel
                            | GatewayKind::EventBased { .. }
                    )
            );
            if !activatable || !element.incoming.is_empty() {
                continue;
            }
            for mapping in &element.zeebe.input_mappings {
                let Some(source) = &mapping.source else {
                    continue;
                };
                // A mapping that does not parse is reported as a FEEL syntax error already.
                let Some(Ok(parsed)) = source.parse_feel() else {
                    continue;
                };
                if let Err(problem) = baton_feel::from_ai::extract(&parsed) {
                    self.error(
                        source.span.start,
                        Rule::FromAi,
                        &element.id,
                        format!(
                            "Failed to extract ad-hoc activity parameters for element '{}'. {problem}",
                            element.id
                        ),
                    );
                    break;
                }
            }
        }
    }

    /// Zeebe's `AdHocSubProcessValidator`.
    fn ad_hoc(&mut self, process: &Process, idx: ElementIdx, element: &Element, ad_hoc: &AdHoc) {
        let (id, at, zeebe) = (element.id.as_str(), element.span.start, &element.zeebe);
        let has_flow_elements =
            !element.children.is_empty() || process.flows.iter().any(|f| f.parent == Some(idx));
        if !has_flow_elements {
            self.error(
                at,
                Rule::AdHocSubProcess,
                id,
                "Must have at least one activity.",
            );
        }
        let children = || element.children.iter().map(|&c| process.element(c));
        if children().any(|c| matches!(c.kind, ElementKind::StartEvent { .. })) {
            self.error(
                at,
                Rule::AdHocSubProcess,
                id,
                "Must not contain a start event.",
            );
        }
        if children().any(|c| matches!(c.kind, ElementKind::EndEvent)) {
            self.error(
                at,
                Rule::AdHocSubProcess,
                id,
                "Must not contain an end event.",
            );
        }
        if zeebe.task_definition.is_some() {
            if ad_hoc.cancel_remaining_instances == Some(false) {
                self.error(
                    at,
                    Rule::AdHocSubProcess,
                    id,
                    "Must not define cancelRemainingInstances in combination with zeebe:taskDefinition.",
                );
            }
            if ad_hoc.completion_condition.is_some() {
                self.error(
                    at,
                    Rule::AdHocSubProcess,
                    id,
                    "Must not define completionCondition in combination with zeebe:taskDefinition.",
                );
            }
            if zeebe
                .ad_hoc
                .as_ref()
                .is_some_and(|a| !is_empty_expr(a.active_elements_collection.as_ref()))
            {
                self.error(
                    at,
                    Rule::AdHocSubProcess,
                    id,
                    "Must not define activeElementsCollection in combination with zeebe:taskDefinition.",
                );
            }
        }
        if let Some(z) = &zeebe.ad_hoc {
            let element_empty = is_empty_expr(z.output_element.as_ref());
            let collection_empty = is_blank_empty(z.output_collection.as_deref());
            if element_empty != collection_empty {
                self.error(
                    z.span.start,
                    Rule::AdHocSubProcess,
                    id,
                    format!(
                        "OutputElement and OutputCollection must both be set, or neither of them set. outputElement:{} and outputCollection:{}.",
                        java(z.output_element.as_ref().map(|e| e.text.as_str())),
                        java(z.output_collection.as_deref())
                    ),
                );
            }
            self.expression(
                id,
                z.span.start,
                z.active_elements_collection.as_ref(),
                Requirement::OPTIONAL_EXPRESSION,
            );
            self.expression(
                id,
                z.span.start,
                z.output_element.as_ref(),
                Requirement::OPTIONAL,
            );
        }
        self.expression(
            id,
            at,
            ad_hoc.completion_condition.as_ref(),
            Requirement::OPTIONAL_EXPRESSION,
        );
    }
}
