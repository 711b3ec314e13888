//! Event definitions (message, timer, error, escalation, signal, compensation, conditional,
//! link, terminate, cancel) and the `zeebe:publishMessage` of message throw events.

use super::*;

impl<'s, 'a> Parser<'s, 'a> {
    pub(super) fn event_definition(
        &mut self,
        node_id: NodeId,
        element_id: &str,
        zeebe: &mut Zeebe,
    ) -> Option<EventDefinition> {
        let node = self.xml.node(node_id);
        let span = self.xml.span(node);
        let eid = Some(element_id);
        let definition = match node.local {
            "messageEventDefinition" => {
                for (_, child) in self.xml.children(node_id) {
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
                let message_ref = self.xml.string(node, "messageRef");
                if let Some(publish) = &mut zeebe.publish_message {
                    publish.message_ref = message_ref.clone();
                }
                EventDefinition::Message { message_ref, span }
            }
            "timerEventDefinition" => {
                let mut timer = None;
                for (_, child) in self.xml.children(node_id) {
                    let value = match (child.ns, child.local) {
                        (Ns::Bpmn, "timeDuration") => TimerDefinition::Duration(text_expr(
                            self.xml.source,
                            self.xml.doc,
                            child,
                        )),
                        (Ns::Bpmn, "timeDate") => {
                            TimerDefinition::Date(text_expr(self.xml.source, self.xml.doc, child))
                        }
                        (Ns::Bpmn, "timeCycle") => {
                            TimerDefinition::Cycle(text_expr(self.xml.source, self.xml.doc, child))
                        }
                        _ => continue,
                    };
                    if timer.is_some() {
                        self.xml.error(
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
                error_ref: self.xml.string(node, "errorRef"),
                span,
            },
            "escalationEventDefinition" => EventDefinition::Escalation {
                escalation_ref: self.xml.string(node, "escalationRef"),
                span,
            },
            "signalEventDefinition" => EventDefinition::Signal {
                signal_ref: self.xml.string(node, "signalRef"),
                span,
            },
            "compensateEventDefinition" => EventDefinition::Compensation {
                activity_ref: self.xml.string(node, "activityRef"),
                wait_for_completion: self.boolean(node, "waitForCompletion", eid),
                span,
            },
            "conditionalEventDefinition" => {
                let mut filter: Option<(Option<String>, Option<String>)> = None;
                // `zeebe:conditionalFilter` sits in the definition's own extension elements.
                for (_, child) in self.xml.children(node_id) {
                    if !child.is(Ns::Bpmn, "extensionElements") {
                        continue;
                    }
                    for (_, ext) in self.children_of(child) {
                        if ext.is(Ns::Zeebe, "conditionalFilter") {
                            filter = Some((
                                self.xml.string(ext, "variableNames"),
                                self.xml.string(ext, "variableEvents"),
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
                name: self.xml.string(node, "name"),
                span,
            },
            "terminateEventDefinition" => EventDefinition::Terminate { span },
            "cancelEventDefinition" => EventDefinition::Cancel { span },
            _ => return None,
        };
        Some(definition)
    }

    pub(super) fn publish_message(&self, ext: &Node<'_>) -> PublishMessage {
        PublishMessage {
            correlation_key: self.expr(ext, "correlationKey"),
            message_id: self.expr(ext, "messageId"),
            time_to_live: self.expr(ext, "timeToLive"),
            message_ref: None,
            span: self.xml.span(ext),
        }
    }
}
