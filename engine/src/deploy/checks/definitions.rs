//! Definitions-level rules (Zeebe's `DefinitionsValidator`, `MessageValidator`,
//! `SignalValidator`, `EscalationValidator`): an executable process exists, and messages, signals
//! and escalations have what the executable processes that use them need.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn definitions(&mut self) {
        if !self.definitions.processes.iter().any(|p| p.is_executable) {
            self.error(
                self.definitions.span.start,
                Rule::NoExecutableProcess,
                self.definitions.id.as_deref().unwrap_or(""),
                "Must contain at least one executable process",
            );
        }
        for message in &self.definitions.messages {
            self.message_rules(message);
        }
        for signal in &self.definitions.signals {
            let referenced = self.executable_elements().any(|e| {
                e.event_definitions.iter().any(|d| {
                    matches!(d, EventDefinition::Signal { signal_ref: Some(r), .. } if *r == signal.id)
                })
            });
            if referenced && is_empty_expr(signal.name.as_ref()) {
                self.error(
                    signal.span.start,
                    Rule::SignalEvent,
                    &signal.id,
                    "Name must be present and not empty",
                );
            }
            self.expression(
                &signal.id,
                signal.span.start,
                signal.name.as_ref(),
                Requirement::OPTIONAL,
            );
        }
        for escalation in &self.definitions.escalations {
            let thrown = self.executable_elements().any(|e| {
                matches!(e.kind, ElementKind::IntermediateThrowEvent | ElementKind::EndEvent)
                    && e.event_definitions.iter().any(|d| {
                        matches!(d, EventDefinition::Escalation { escalation_ref: Some(r), .. } if *r == escalation.id)
                    })
            });
            if thrown && is_empty_expr(escalation.escalation_code.as_ref()) {
                self.error(
                    escalation.span.start,
                    Rule::EscalationEvent,
                    &escalation.id,
                    "EscalationCode must be present and not empty",
                );
            }
        }
    }

    /// Zeebe's `MessageValidator`: what a message needs depends on who uses it.
    fn message_rules(&mut self, message: &Message) {
        let refers = |d: &EventDefinition| matches!(d, EventDefinition::Message { message_ref: Some(r), .. } if *r == message.id);
        let mut caught = false;
        let mut thrown = false;
        let mut process_start_events = 0;
        for process in self.executable() {
            for element in &process.elements {
                let uses = element.event_definitions.iter().any(refers);
                match &element.kind {
                    ElementKind::IntermediateCatchEvent | ElementKind::BoundaryEvent { .. } => {
                        caught |= uses
                    }
                    ElementKind::IntermediateThrowEvent | ElementKind::EndEvent => thrown |= uses,
                    ElementKind::Task(TaskKind::Receive { message_ref, .. }) => {
                        caught |= message_ref.as_deref() == Some(&message.id)
                    }
                    ElementKind::Task(TaskKind::Send) => {
                        thrown |= element
                            .zeebe
                            .publish_message
                            .as_ref()
                            .is_some_and(|p| p.message_ref.as_deref() == Some(&message.id))
                    }
                    ElementKind::StartEvent { .. } if uses => match element.parent {
                        None => process_start_events += 1,
                        Some(parent) => {
                            let parent = process.element(parent);
                            // Zeebe looks at event sub-processes directly under the process.
                            if is_event_sub_process(parent) && parent.parent.is_none() {
                                caught = true;
                            }
                        }
                    },
                    _ => {}
                }
            }
        }
        let (offset, id) = (message.span.start, message.id.as_str());
        let name_missing = is_empty_expr(message.name.as_ref());
        if caught {
            if name_missing {
                self.error(
                    offset,
                    Rule::Message,
                    id,
                    "Name must be present and not empty",
                );
            }
            if message.subscription.is_none() {
                self.error(
                    offset,
                    Rule::Message,
                    id,
                    "Must have exactly one zeebe:subscription extension element",
                );
            }
        } else if thrown {
            if name_missing {
                self.error(
                    offset,
                    Rule::Message,
                    id,
                    "Name must be present and not empty",
                );
            }
        } else if process_start_events > 1 {
            self.error(
                offset,
                Rule::Message,
                id,
                "A message cannot be referred by more than one start event",
            );
        } else if process_start_events == 1 && name_missing {
            self.error(
                offset,
                Rule::Message,
                id,
                "Name must be present and not empty",
            );
        }
        if let Some(subscription) = &message.subscription {
            self.required_expression(
                id,
                subscription.span.start,
                "correlationKey",
                subscription.correlation_key.as_ref(),
                Requirement::EXPRESSION,
            );
        }
        self.expression(id, offset, message.name.as_ref(), Requirement::OPTIONAL);
        if process_start_events > 0
            && let Some(name) = &message.name
            && name.feel().is_some()
        {
            self.constant_message_name(id, name);
        }
    }

    /// Zeebe's `ProcessMessageStartEventMessageNameValidator`: the name of a message that starts
    /// a process is evaluated at deploy time, without variables, and must be a string.
    fn constant_message_name(&mut self, id: &str, name: &Expr) {
        let Some(Ok(parsed)) = name.parse_feel() else {
            return;
        };
        let evaluation = parsed.evaluate(&(), &baton_feel::Env::default());
        let message = match &evaluation.result {
            Err(failure) => format!(
                "Expected constant expression but found '{}', which could not be evaluated without context: {failure}",
                name.text
            ),
            Ok(baton_feel::Value::String(_)) => return,
            Ok(value) => format!(
                "Expected constant expression of type String for message name '{}', but was {}",
                name.text,
                result_type(value)
            ),
        };
        self.error(name.span.start, Rule::Message, id, message);
    }
}
