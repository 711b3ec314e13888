//! Gateways (Zeebe's `GatewayValidator`, `ExclusiveGatewayValidator`,
//! `InclusiveGatewayValidator`, `EventBasedGatewayValidator`).

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn gateway(
        &mut self,
        process: &Process,
        idx: ElementIdx,
        element: &Element,
        kind: &GatewayKind,
    ) {
        let (id, at) = (element.id.as_str(), element.span.start);
        match kind {
            GatewayKind::Complex => self.error(
                at,
                Rule::UnsupportedElement,
                id,
                "Elements of type 'ComplexGateway' are currently not supported. Please refer to \
                 the documentation for a list of supported elements: \
                 https://docs.camunda.io/docs/components/modeler/bpmn/bpmn-coverage/",
            ),
            GatewayKind::Exclusive | GatewayKind::Inclusive => {
                if let Some(default) = element.default_flow
                    && process.flow(default).source != idx
                {
                    self.error(
                        at,
                        Rule::DefaultFlow,
                        id,
                        "Default flow must start at gateway",
                    );
                }
            }
            GatewayKind::EventBased { .. } => self.event_based_gateway(process, idx, element),
            GatewayKind::Parallel => {}
        }
        if has_execution_listener(element, "end") {
            self.error(
                at,
                Rule::ExecutionListener,
                id,
                "Execution listeners of type 'end' are not supported by gateway element",
            );
        }
    }

    /// Zeebe's `EventBasedGatewayValidator`.
    fn event_based_gateway(&mut self, process: &Process, idx: ElementIdx, element: &Element) {
        let (id, at) = (element.id.as_str(), element.span.start);
        if element.outgoing.len() < 2 {
            self.error(
                at,
                Rule::EventBasedGateway,
                id,
                "Event-based gateway must have at least 2 outgoing sequence flows.",
            );
        }
        let targets: Vec<&Element> = element
            .outgoing
            .iter()
            .map(|&f| process.element(process.flow(f).target))
            .collect();
        let valid = targets.iter().all(|t| {
            matches!(t.kind, ElementKind::IntermediateCatchEvent)
                && t.event_definitions.len() == 1
                && matches!(
                    t.event_definitions[0],
                    EventDefinition::Timer(_)
                        | EventDefinition::Message { .. }
                        | EventDefinition::Signal { .. }
                        | EventDefinition::Conditional { .. }
                )
        });
        if !valid {
            self.error(
                at,
                Rule::EventBasedGateway,
                id,
                "Event-based gateway must not have an outgoing sequence flow to other elements than message/timer/signal/conditional intermediate catch events.",
            );
        }
        let catch_definitions = |kind: &str| -> Vec<&EventDefinition> {
            targets
                .iter()
                .filter(|t| matches!(t.kind, ElementKind::IntermediateCatchEvent))
                .flat_map(|t| &t.event_definitions)
                .filter(|d| kind_of(d) == kind)
                .collect()
        };
        let messages = catch_definitions("message");
        self.no_duplicates(id, at, &messages);
        let signals = catch_definitions("signal");
        self.no_duplicates(id, at, &signals);
        let only_from_gateway = targets
            .iter()
            .all(|t| t.incoming.iter().all(|&f| process.flow(f).source == idx));
        if !only_from_gateway {
            self.error(
                at,
                Rule::EventBasedGateway,
                id,
                "Target elements of an event gateway must not have any additional incoming sequence flows other than that from the event gateway.",
            );
        }
    }
}
