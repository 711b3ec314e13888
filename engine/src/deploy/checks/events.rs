//! Event elements (Zeebe's `StartEventValidator`, `IntermediateCatchEventValidator`,
//! `IntermediateThrowEventValidator`, `EndEventValidator`, `MessageThrowEventValidator`,
//! `BoundaryEventValidator`): which event definitions each may have.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn start_event(&mut self, element: &Element) {
        let (id, at) = (element.id.as_str(), element.span.start);
        if element.event_definitions.len() > 1 {
            self.error(
                at,
                Rule::UnsupportedEventDefinition,
                id,
                "Start event can't have more than one type",
            );
        }
        if element.parent.is_none() {
            for definition in &element.event_definitions {
                if !matches!(
                    definition,
                    EventDefinition::Message { .. }
                        | EventDefinition::Timer(_)
                        | EventDefinition::Signal { .. }
                        | EventDefinition::Conditional { .. }
                ) {
                    self.error(
                        span_of(definition).start,
                        Rule::UnsupportedEventDefinition,
                        id,
                        format!(
                            "{} start event is not allowed at the process level: process start events must be one of none, message, timer, signal or conditional",
                            with_article(kind_of(definition))
                        ),
                    );
                }
            }
        }
        if has_execution_listener(element, "start") {
            self.error(
                at,
                Rule::ExecutionListener,
                id,
                "Execution listeners of type 'start' are not supported by start events",
            );
        }
    }

    pub(super) fn intermediate_catch_event(&mut self, element: &Element) {
        let (id, at) = (element.id.as_str(), element.span.start);
        if element.event_definitions.len() != 1 {
            self.error(
                at,
                Rule::UnsupportedEventDefinition,
                id,
                "Must have exactly one event definition",
            );
            return;
        }
        match &element.event_definitions[0] {
            EventDefinition::Message { .. }
            | EventDefinition::Signal { .. }
            | EventDefinition::Link { .. }
            | EventDefinition::Conditional { .. } => {}
            EventDefinition::Timer(timer) => {
                if matches!(timer, TimerDefinition::Cycle(_) | TimerDefinition::Empty(_)) {
                    self.error(
                        at,
                        Rule::Timer,
                        id,
                        "Intermediate timer catch event must have either a time duration or a time date.",
                    );
                }
            }
            other => self.error(
                span_of(other).start,
                Rule::UnsupportedEventDefinition,
                id,
                "Event definition must be one of: message, timer, signal, link, or conditional",
            ),
        }
    }

    pub(super) fn intermediate_throw_event(&mut self, element: &Element) {
        self.thrown_definitions(element, &INTERMEDIATE_THROW);
        self.message_throw(element);
    }

    pub(super) fn end_event(&mut self, element: &Element) {
        let (id, at) = (element.id.as_str(), element.span.start);
        if !element.outgoing.is_empty() {
            self.error(
                at,
                Rule::EndEventOutgoing,
                id,
                "End events must not have outgoing sequence flows to other elements.",
            );
        }
        self.thrown_definitions(element, &END);
        let first_is_error_or_escalation = matches!(
            element.event_definitions.first(),
            Some(EventDefinition::Error { .. } | EventDefinition::Escalation { .. })
        );
        if first_is_error_or_escalation && has_execution_listener(element, "end") {
            self.error(
                at,
                Rule::ExecutionListener,
                id,
                "Execution listeners of type 'end' are not supported by [escalation, error] end events",
            );
        }
        self.message_throw(element);
    }

    /// What a throwing event may hold: at most one event definition, of the kinds `event`
    /// allows, and a compensation one that waits for completion.
    fn thrown_definitions(&mut self, element: &Element, event: &ThrowingEvent) {
        let (id, at) = (element.id.as_str(), element.span.start);
        if element.event_definitions.len() > 1 {
            self.error(
                at,
                Rule::UnsupportedEventDefinition,
                id,
                "Must have at most one event definition",
            );
        }
        for definition in &element.event_definitions {
            match definition {
                EventDefinition::Compensation {
                    wait_for_completion,
                    span,
                    ..
                } => {
                    if *wait_for_completion == Some(false) {
                        self.error(span.start, Rule::Compensation, id, event.compensation_waits);
                    }
                }
                allowed if (event.allows)(allowed) => {}
                other => self.error(
                    span_of(other).start,
                    Rule::UnsupportedEventDefinition,
                    id,
                    event.kinds,
                ),
            }
        }
    }

    /// Zeebe's `MessageThrowEventValidator`.
    fn message_throw(&mut self, element: &Element) {
        let Some((message_ref, span)) = element.event_definitions.iter().find_map(|d| match d {
            EventDefinition::Message { message_ref, span } => Some((message_ref, span)),
            _ => None,
        }) else {
            return;
        };
        let zeebe = &element.zeebe;
        if zeebe.publish_message.is_some() == zeebe.task_definition.is_some() {
            self.error(
                element.span.start,
                Rule::ZeebeExtension,
                &element.id,
                "Must have either one 'zeebe:publishMessage' or one 'zeebe:taskDefinition' extension element",
            );
        } else if zeebe.task_definition.is_none() {
            self.message_reference(element, message_ref.as_deref(), *span);
        }
    }

    /// "Must reference a message" when the reference is missing or names no message.
    pub(super) fn message_reference(
        &mut self,
        element: &Element,
        message_ref: Option<&str>,
        span: Span,
    ) -> Option<&'a Message> {
        let message = self.message(message_ref);
        if message.is_none() {
            let detail = match message_ref {
                Some(r) if !r.is_empty() => format!(" (no bpmn:message has the id '{r}')"),
                _ => String::new(),
            };
            self.error(
                span.start,
                Rule::Message,
                &element.id,
                format!("Must reference a message{detail}"),
            );
        }
        message
    }

    pub(super) fn boundary_event(&mut self, process: &Process, element: &Element) {
        let (id, at) = (element.id.as_str(), element.span.start);
        let ElementKind::BoundaryEvent {
            attached_to,
            cancel_activity,
        } = element.kind
        else {
            return;
        };
        if !element.incoming.is_empty() {
            self.error(
                at,
                Rule::BoundaryEvent,
                id,
                "Cannot have incoming sequence flows",
            );
        }
        let compensation = element
            .event_definitions
            .iter()
            .any(|d| matches!(d, EventDefinition::Compensation { .. }));
        if compensation {
            let associated = self.definitions.processes.iter().any(|p| {
                p.artifacts
                    .iter()
                    .any(|a| a.kind == "association" && a.source_ref.as_deref() == Some(id))
            });
            if !element.outgoing.is_empty() || !associated {
                self.error(
                    at,
                    Rule::Compensation,
                    id,
                    "Compensation boundary events must have a compensation association and no outgoing sequence flows",
                );
            }
        }
        if element.event_definitions.len() != 1 {
            self.error(
                at,
                Rule::UnsupportedEventDefinition,
                id,
                "Must have exactly one event definition",
            );
        }
        for definition in &element.event_definitions {
            if !matches!(
                definition,
                EventDefinition::Timer(_)
                    | EventDefinition::Message { .. }
                    | EventDefinition::Error { .. }
                    | EventDefinition::Signal { .. }
                    | EventDefinition::Escalation { .. }
                    | EventDefinition::Compensation { .. }
                    | EventDefinition::Conditional { .. }
            ) {
                self.error(
                    span_of(definition).start,
                    Rule::UnsupportedEventDefinition,
                    id,
                    "Boundary events must be one of: timer, message, error, signal, escalation",
                );
            }
            let host = process.element(attached_to);
            // An unresolved host (already reported) points back at the event itself.
            if matches!(definition, EventDefinition::Escalation { .. })
                && host.id != element.id
                && !matches!(
                    host.kind,
                    ElementKind::SubProcess(_) | ElementKind::CallActivity
                )
            {
                self.error(
                    span_of(definition).start,
                    Rule::BoundaryEvent,
                    id,
                    "An escalation boundary event should only be attached to a subprocess, or a call activity.",
                );
            }
        }
        self.interrupting(id, element, cancel_activity);
        let listeners = &element.zeebe.execution_listeners;
        if !listeners.is_empty() {
            match element.event_definitions.first() {
                Some(EventDefinition::Compensation { .. }) => self.error(
                    at,
                    Rule::ExecutionListener,
                    id,
                    "Execution listeners of type 'start' and 'end' are not supported by [compensation] boundary events",
                ),
                Some(_) if listeners.iter().any(|l| l.event_type == "start") => self.error(
                    at,
                    Rule::ExecutionListener,
                    id,
                    "Execution listeners of type 'start' are not supported by boundary events",
                ),
                _ => {}
            }
        }
    }
}

/// What a kind of throwing event may hold, and Zeebe's messages when it holds something else.
struct ThrowingEvent {
    /// The event definitions it may have besides compensation.
    allows: fn(&EventDefinition) -> bool,
    kinds: &'static str,
    compensation_waits: &'static str,
}

/// Zeebe's `IntermediateThrowEventValidator`.
const INTERMEDIATE_THROW: ThrowingEvent = ThrowingEvent {
    allows: |definition| {
        matches!(
            definition,
            EventDefinition::Message { .. }
                | EventDefinition::Signal { .. }
                | EventDefinition::Escalation { .. }
                | EventDefinition::Link { .. }
        )
    },
    kinds: "Intermediate throw events must be one of: none, message, signal, escalation, link or \
            compensation",
    compensation_waits: "A compensation intermediate throwing event waitForCompletion attribute \
                         must be true or not present",
};

/// Zeebe's `EndEventValidator`.
const END: ThrowingEvent = ThrowingEvent {
    allows: |definition| {
        matches!(
            definition,
            EventDefinition::Error { .. }
                | EventDefinition::Message { .. }
                | EventDefinition::Terminate { .. }
                | EventDefinition::Signal { .. }
                | EventDefinition::Escalation { .. }
        )
    },
    kinds: "End events must be one of: none, error, message, terminate, signal, escalation or \
            compensation",
    compensation_waits: "A compensation end event waitForCompletion attribute must be true or \
                         not present",
};
