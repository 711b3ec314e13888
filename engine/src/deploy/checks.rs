//! Zeebe's deploy-time rules over a parsed model: the validators of
//! `zeebe/bpmn-model/.../validation/zeebe/` and the engine's runtime validators, one diagnostic per
//! failed rule, worded as Zeebe words it.
//!
//! As in Zeebe, only executable processes are checked (non-executable pools may hold anything),
//! and definitions-level elements (messages, signals, escalations) only as far as an executable
//! process uses them.

use std::collections::{BTreeMap, HashSet};

use super::expressions::{self, Requirement, StaticForm, TimerField};
use super::loops;
use crate::diagnostics::{Diagnostic, Rule};
use crate::model::*;
use crate::source::Source;

pub(super) fn check(source: &Source, definitions: &Definitions) -> Vec<Diagnostic> {
    let mut checker = Checker {
        source,
        definitions,
        out: Vec::new(),
    };
    checker.definitions();
    for process in definitions.processes.iter().filter(|p| p.is_executable) {
        checker.process(process);
    }
    checker.out
}

struct Checker<'a> {
    source: &'a Source,
    definitions: &'a Definitions,
    out: Vec<Diagnostic>,
}

/// The kind of an event definition, as Zeebe's messages name them.
fn kind_of(definition: &EventDefinition) -> &'static str {
    match definition {
        EventDefinition::Message { .. } => "message",
        EventDefinition::Timer(_) => "timer",
        EventDefinition::Error { .. } => "error",
        EventDefinition::Escalation { .. } => "escalation",
        EventDefinition::Signal { .. } => "signal",
        EventDefinition::Compensation { .. } => "compensation",
        EventDefinition::Conditional { .. } => "conditional",
        EventDefinition::Link { .. } => "link",
        EventDefinition::Terminate { .. } => "terminate",
        EventDefinition::Cancel { .. } => "cancel",
    }
}

fn span_of(definition: &EventDefinition) -> Span {
    match definition {
        EventDefinition::Message { span, .. }
        | EventDefinition::Error { span, .. }
        | EventDefinition::Escalation { span, .. }
        | EventDefinition::Signal { span, .. }
        | EventDefinition::Compensation { span, .. }
        | EventDefinition::Conditional { span, .. }
        | EventDefinition::Link { span, .. }
        | EventDefinition::Terminate { span }
        | EventDefinition::Cancel { span } => *span,
        EventDefinition::Timer(timer) => match timer {
            TimerDefinition::Duration(e) | TimerDefinition::Date(e) | TimerDefinition::Cycle(e) => {
                e.span
            }
            TimerDefinition::Empty(span) => *span,
        },
    }
}

fn is_activity(kind: &ElementKind) -> bool {
    matches!(
        kind,
        ElementKind::Task(_) | ElementKind::SubProcess(_) | ElementKind::CallActivity
    )
}

fn is_event_sub_process(element: &Element) -> bool {
    matches!(element.kind, ElementKind::SubProcess(SubProcessKind::Event))
}

fn is_empty_expr(expr: Option<&Expr>) -> bool {
    expr.is_none_or(|e| e.text.is_empty())
}

/// Java's `String.valueOf` of an optional attribute, for messages that print `null`.
fn java(value: Option<&str>) -> &str {
    value.unwrap_or("null")
}

impl<'a> Checker<'a> {
    fn error(&mut self, offset: u32, rule: Rule, element_id: &str, message: impl Into<String>) {
        let element_id = (!element_id.is_empty()).then_some(element_id);
        self.out.push(Diagnostic::at(
            self.source,
            offset,
            rule,
            element_id,
            message,
        ));
    }

    fn message(&self, id: Option<&str>) -> Option<&'a Message> {
        let id = id?;
        self.definitions.messages.iter().find(|m| m.id == id)
    }

    fn signal(&self, id: Option<&str>) -> Option<&'a Signal> {
        let id = id?;
        self.definitions.signals.iter().find(|s| s.id == id)
    }

    fn error_def(&self, id: Option<&str>) -> Option<&'a ErrorDef> {
        let id = id?;
        self.definitions.errors.iter().find(|e| e.id == id)
    }

    fn escalation(&self, id: Option<&str>) -> Option<&'a Escalation> {
        let id = id?;
        self.definitions.escalations.iter().find(|e| e.id == id)
    }

    fn executable(&self) -> impl Iterator<Item = &'a Process> {
        self.definitions
            .processes
            .iter()
            .filter(|p| p.is_executable)
    }

    // --- definitions ---------------------------------------------------------------------

    fn definitions(&mut self) {
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
            let referenced = self.executable().any(|p| {
                p.elements.iter().any(|e| {
                    e.event_definitions.iter().any(|d| {
                        matches!(d, EventDefinition::Signal { signal_ref: Some(r), .. } if *r == signal.id)
                    })
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
            let thrown = self.executable().any(|p| {
                p.elements.iter().any(|e| {
                    matches!(e.kind, ElementKind::IntermediateThrowEvent | ElementKind::EndEvent)
                        && e.event_definitions.iter().any(|d| {
                            matches!(d, EventDefinition::Escalation { escalation_ref: Some(r), .. } if *r == escalation.id)
                        })
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
            if is_empty_expr(subscription.correlation_key.as_ref()) {
                self.error(
                    subscription.span.start,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'correlationKey' must be present and not empty",
                );
            } else {
                self.expression(
                    id,
                    subscription.span.start,
                    subscription.correlation_key.as_ref(),
                    Requirement::EXPRESSION,
                );
            }
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

    // --- processes -----------------------------------------------------------------------

    fn process(&mut self, process: &'a Process) {
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

        self.listeners(process, &process.id, process.span.start, &process.zeebe);
        self.zeebe_extensions(process, &process.id, process.span.start, &process.zeebe);
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
    fn scope_rules(&mut self, process: &Process, scope: Option<ElementIdx>) {
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
    fn no_duplicates(&mut self, id: &str, offset: u32, definitions: &[&EventDefinition]) {
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

    // --- elements ------------------------------------------------------------------------

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
                    if is_empty_expr(called.process_id.as_ref()) {
                        self.error(
                            called.span.start,
                            Rule::MissingAttribute,
                            id,
                            "Attribute 'processId' must be present and not empty",
                        );
                    } else {
                        self.expression(
                            id,
                            called.span.start,
                            called.process_id.as_ref(),
                            Requirement::MANDATORY,
                        );
                    }
                    self.binding_type(id, called.span.start, called.binding_type.as_deref());
                }
            },
            ElementKind::Gateway(kind) => self.gateway(process, idx, element, kind),
            ElementKind::StartEvent { .. } => self.start_event(process, element),
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
        self.listeners(process, id, at, &element.zeebe);
        self.zeebe_extensions(process, id, at, &element.zeebe);
    }

    fn task(&mut self, process: &Process, element: &Element, task: &TaskKind) {
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

    /// "Must reference a message" when the reference is missing or names no message.
    fn message_reference(
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

    fn sub_process(
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
    fn interrupting(&mut self, id: &str, event: &Element, interrupting: bool) {
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

    fn gateway(
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
        if element
            .zeebe
            .execution_listeners
            .iter()
            .any(|l| l.event_type == "end")
        {
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

    fn start_event(&mut self, process: &Process, element: &Element) {
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
        if element
            .zeebe
            .execution_listeners
            .iter()
            .any(|l| l.event_type == "start")
        {
            self.error(
                at,
                Rule::ExecutionListener,
                id,
                "Execution listeners of type 'start' are not supported by start events",
            );
        }
        let _ = process;
    }

    fn intermediate_catch_event(&mut self, element: &Element) {
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

    fn intermediate_throw_event(&mut self, element: &Element) {
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
                EventDefinition::Message { .. }
                | EventDefinition::Signal { .. }
                | EventDefinition::Escalation { .. }
                | EventDefinition::Link { .. } => {}
                EventDefinition::Compensation { wait_for_completion, span, .. } => {
                    if *wait_for_completion == Some(false) {
                        self.error(
                            span.start,
                            Rule::Compensation,
                            id,
                            "A compensation intermediate throwing event waitForCompletion attribute must be true or not present",
                        );
                    }
                }
                other => self.error(
                    span_of(other).start,
                    Rule::UnsupportedEventDefinition,
                    id,
                    "Intermediate throw events must be one of: none, message, signal, escalation, link or compensation",
                ),
            }
        }
        self.message_throw(element);
    }

    fn end_event(&mut self, element: &Element) {
        let (id, at) = (element.id.as_str(), element.span.start);
        if !element.outgoing.is_empty() {
            self.error(
                at,
                Rule::EndEventOutgoing,
                id,
                "End events must not have outgoing sequence flows to other elements.",
            );
        }
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
                EventDefinition::Error { .. }
                | EventDefinition::Message { .. }
                | EventDefinition::Terminate { .. }
                | EventDefinition::Signal { .. }
                | EventDefinition::Escalation { .. } => {}
                EventDefinition::Compensation { wait_for_completion, span, .. } => {
                    if *wait_for_completion == Some(false) {
                        self.error(
                            span.start,
                            Rule::Compensation,
                            id,
                            "A compensation end event waitForCompletion attribute must be true or not present",
                        );
                    }
                }
                other => self.error(
                    span_of(other).start,
                    Rule::UnsupportedEventDefinition,
                    id,
                    "End events must be one of: none, error, message, terminate, signal, escalation or compensation",
                ),
            }
        }
        let first_is_error_or_escalation = matches!(
            element.event_definitions.first(),
            Some(EventDefinition::Error { .. } | EventDefinition::Escalation { .. })
        );
        if first_is_error_or_escalation
            && element
                .zeebe
                .execution_listeners
                .iter()
                .any(|l| l.event_type == "end")
        {
            self.error(
                at,
                Rule::ExecutionListener,
                id,
                "Execution listeners of type 'end' are not supported by [escalation, error] end events",
            );
        }
        self.message_throw(element);
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

    fn boundary_event(&mut self, process: &Process, element: &Element) {
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

    // --- event definitions ---------------------------------------------------------------

    fn event_definition(
        &mut self,
        process: &Process,
        element: &Element,
        definition: &EventDefinition,
    ) {
        let id = element.id.as_str();
        let at = span_of(definition).start;
        let is_throw = matches!(
            element.kind,
            ElementKind::IntermediateThrowEvent | ElementKind::EndEvent
        );
        match definition {
            EventDefinition::Cancel { .. } => self.error(
                at,
                Rule::UnsupportedEventDefinition,
                id,
                "Event definition of this type is not supported",
            ),
            EventDefinition::Message { message_ref, .. } => {
                if !is_throw {
                    self.message_reference(element, message_ref.as_deref(), span_of(definition));
                }
            }
            EventDefinition::Error { error_ref, .. } => {
                let error = self.error_def(error_ref.as_deref());
                self.dangling(
                    id,
                    at,
                    Rule::ErrorEvent,
                    "error",
                    error_ref.as_deref(),
                    error.is_some(),
                );
                if matches!(element.kind, ElementKind::EndEvent) {
                    match error {
                        None => self.error(at, Rule::ErrorEvent, id, "Must reference an error"),
                        Some(error) if is_empty_expr(error.error_code.as_ref()) => self.error(
                            at,
                            Rule::ErrorEvent,
                            id,
                            "ErrorCode must be present and not empty",
                        ),
                        Some(error) => self.expression(
                            id,
                            error.span.start,
                            error.error_code.as_ref(),
                            Requirement::OPTIONAL,
                        ),
                    }
                } else if let Some(code) = error.and_then(|e| e.error_code.as_ref())
                    && code.text.starts_with('=')
                {
                    self.error(
                        at,
                        Rule::ErrorEvent,
                        id,
                        "The errorCode of the error catch event is not allowed to be an expression",
                    );
                }
            }
            EventDefinition::Escalation { escalation_ref, .. } => {
                let escalation = self.escalation(escalation_ref.as_deref());
                self.dangling(
                    id,
                    at,
                    Rule::EscalationEvent,
                    "escalation",
                    escalation_ref.as_deref(),
                    escalation.is_some(),
                );
                if is_throw && escalation.is_none() {
                    self.error(
                        at,
                        Rule::EscalationEvent,
                        id,
                        "Must reference an escalation",
                    );
                }
                let is_catch = matches!(
                    element.kind,
                    ElementKind::StartEvent { .. }
                        | ElementKind::BoundaryEvent { .. }
                        | ElementKind::IntermediateCatchEvent
                );
                if let Some(escalation) = escalation {
                    match escalation.escalation_code.as_ref() {
                        Some(code) if is_catch && code.text.starts_with('=') => self.error(
                            at,
                            Rule::EscalationEvent,
                            id,
                            "The escalationCode of the escalation catch event is not allowed to be an expression",
                        ),
                        Some(code) if is_throw => {
                            self.expression(id, escalation.span.start, Some(code), Requirement::OPTIONAL)
                        }
                        _ => {}
                    }
                }
            }
            EventDefinition::Signal { signal_ref, .. } => {
                let signal = self.signal(signal_ref.as_deref());
                if signal.is_none() {
                    let detail = match signal_ref.as_deref() {
                        Some(r) if !r.is_empty() => format!(" (no bpmn:signal has the id '{r}')"),
                        _ => String::new(),
                    };
                    self.error(
                        at,
                        Rule::SignalEvent,
                        id,
                        format!("Must reference a signal{detail}"),
                    );
                }
            }
            EventDefinition::Timer(timer) => self.timer(process, element, timer, at),
            EventDefinition::Conditional {
                condition,
                variable_names,
                variable_events,
                ..
            } => self.conditional(
                process,
                element,
                at,
                condition.as_ref(),
                variable_names.as_deref(),
                variable_events.as_deref(),
            ),
            EventDefinition::Link { name, .. } => {
                if is_blank_empty(name.as_deref()) {
                    self.error(
                        at,
                        Rule::LinkEvent,
                        id,
                        "Link name must be present and not empty.",
                    );
                }
            }
            EventDefinition::Compensation { activity_ref, .. } => {
                self.compensation_reference(process, element, at, activity_ref.as_deref())
            }
            EventDefinition::Terminate { .. } => {}
        }
    }

    /// A reference that names nothing: Zeebe reads it as no reference, and says so with its
    /// "Must reference ..." messages; this adds which id was not found.
    fn dangling(
        &mut self,
        id: &str,
        at: u32,
        rule: Rule,
        what: &str,
        reference: Option<&str>,
        found: bool,
    ) {
        if let Some(reference) = reference
            && !reference.is_empty()
            && !found
        {
            self.error(
                at,
                rule,
                id,
                format!(
                    "The referenced {what} '{reference}' does not exist: no bpmn:{what} has this id"
                ),
            );
        }
    }

    fn timer(&mut self, process: &Process, element: &Element, timer: &TimerDefinition, at: u32) {
        let id = element.id.as_str();
        let (field, expr) = match timer {
            TimerDefinition::Empty(_) => {
                self.error(
                    at,
                    Rule::Timer,
                    id,
                    "Must be exactly one type of timer: timeDuration, timeDate or timeCycle",
                );
                return;
            }
            TimerDefinition::Duration(e) => (TimerField::Duration, e),
            TimerDefinition::Date(e) => (TimerField::Date, e),
            TimerDefinition::Cycle(e) => (TimerField::Cycle, e),
        };
        self.expression(id, expr.span.start, Some(expr), Requirement::OPTIONAL);
        let problem = match expr.feel() {
            None => expressions::timer_problem(field, &expr.text),
            // Process timer start events have no variables, so Zeebe evaluates their
            // expressions at deploy time; other timers are evaluated on activation.
            Some(_)
                if element.parent.is_none()
                    && matches!(element.kind, ElementKind::StartEvent { .. }) =>
            {
                expr.parse_feel()
                    .and_then(Result::ok)
                    .and_then(|parsed| timer_value_problem(field, &parsed))
            }
            Some(_) => None,
        };
        if let Some(problem) = problem {
            self.error(expr.span.start, Rule::Timer, id, problem);
        }
        let _ = process;
    }

    fn conditional(
        &mut self,
        process: &Process,
        element: &Element,
        at: u32,
        condition: Option<&Expr>,
        variable_names: Option<&str>,
        variable_events: Option<&str>,
    ) {
        let id = element.id.as_str();
        let allowed = match element.kind {
            ElementKind::BoundaryEvent { .. } | ElementKind::IntermediateCatchEvent => true,
            ElementKind::StartEvent { .. } => match element.parent {
                None => true,
                Some(parent) => is_event_sub_process(process.element(parent)),
            },
            _ => false,
        };
        if !allowed {
            self.error(
                at,
                Rule::ConditionalEvent,
                id,
                "Conditional events are only supported on boundary events, intermediate catch events, event subprocess start events, and root-level start events",
            );
        }
        match condition {
            None => self.error(at, Rule::ConditionalEvent, id, "Must have a condition"),
            Some(condition) if condition.text.trim().is_empty() => self.error(
                condition.span.start,
                Rule::ConditionalEvent,
                id,
                "Condition expression must not be empty",
            ),
            Some(condition) => self.expression(
                id,
                condition.span.start,
                Some(condition),
                Requirement::OPTIONAL,
            ),
        }
        if let Some(events) = variable_events.filter(|e| !e.trim().is_empty()) {
            for event in events.split(',').map(str::trim) {
                if !event.is_empty() && event != "create" && event != "update" {
                    self.error(
                        at,
                        Rule::ConditionalEvent,
                        id,
                        format!("Variable event '{event}' is not valid. Must be one of: create, update or a comma-separated list of both."),
                    );
                }
            }
        }
        if let Some(names) = variable_names.filter(|n| !n.trim().is_empty()) {
            for name in names.split(',').map(str::trim) {
                if name.is_empty() {
                    self.error(
                        at,
                        Rule::ConditionalEvent,
                        id,
                        format!("Variable names must not contain empty names but '{names}' given. Please provide a comma-separated list of variable names without empty entries."),
                    );
                } else if name.starts_with('=') {
                    self.error(
                        at,
                        Rule::ConditionalEvent,
                        id,
                        format!("Variable names must be static and cannot be expressions. '{name}' starts with '='."),
                    );
                }
            }
        }
    }

    /// Zeebe's `CompensationEventDefinitionValidator`.
    fn compensation_reference(
        &mut self,
        process: &Process,
        element: &Element,
        at: u32,
        activity_ref: Option<&str>,
    ) {
        let Some(reference) = activity_ref.filter(|r| !r.is_empty()) else {
            return;
        };
        let id = element.id.as_str();
        let activity = process
            .find(reference)
            .filter(|&a| is_activity(&process.element(a).kind));
        let Some(activity) = activity else {
            self.error(
                at,
                Rule::Compensation,
                id,
                format!("The referenced compensation activity '{reference}' doesn't exist"),
            );
            return;
        };
        let target = process.element(activity);
        let has_compensation_boundary = target.boundary_events.iter().any(|&b| {
            process
                .element(b)
                .event_definitions
                .iter()
                .any(|d| matches!(d, EventDefinition::Compensation { .. }))
        });
        let is_sub_process = matches!(
            target.kind,
            ElementKind::SubProcess(
                SubProcessKind::Embedded | SubProcessKind::AdHoc(_) | SubProcessKind::Transaction
            )
        );
        if !has_compensation_boundary && !is_sub_process {
            self.error(
                at,
                Rule::Compensation,
                id,
                format!("The referenced compensation activity '{reference}' must have either a compensation boundary event or be a subprocess"),
            );
        }
        if target.parent != element.parent {
            self.error(
                at,
                Rule::Compensation,
                id,
                format!("The referenced compensation activity '{reference}' must be in the same scope as the compensation throw event"),
            );
        }
    }

    // --- flows ---------------------------------------------------------------------------

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

    // --- zeebe extensions ----------------------------------------------------------------

    fn listeners(&mut self, process: &Process, id: &str, at: u32, zeebe: &Zeebe) {
        let _ = process;
        for listener in &zeebe.execution_listeners {
            let lat = listener.span.start;
            match listener.event_type.as_str() {
                "start" | "end" => {}
                "" => self.error(lat, Rule::MissingAttribute, id, "Attribute 'eventType' must be present and not empty"),
                other => self.error(
                    lat,
                    Rule::ExecutionListener,
                    id,
                    format!("Execution listener event type '{other}' is not supported. Supported event types are: start, end"),
                ),
            }
            self.job_type(
                id,
                lat,
                listener.job_type.as_ref(),
                listener.retries.as_ref(),
            );
        }
        let mut groups: Vec<(&str, &str, usize, u32)> = Vec::new();
        for listener in &zeebe.execution_listeners {
            let job_type = listener
                .job_type
                .as_ref()
                .map_or("null", |e| e.text.as_str());
            match groups
                .iter_mut()
                .find(|(event, ty, _, _)| *event == listener.event_type && *ty == job_type)
            {
                Some((_, _, count, _)) => *count += 1,
                None => groups.push((&listener.event_type, job_type, 1, listener.span.start)),
            }
        }
        for (event, job_type, count, lat) in groups {
            if count > 1 {
                self.error(
                    lat,
                    Rule::ExecutionListener,
                    id,
                    format!("Found '{count}' duplicates based on eventType[{event}] and type[{job_type}], these combinations should be unique."),
                );
            }
        }
        const TASK_EVENTS: &[&str] = &[
            "creating",
            "assigning",
            "updating",
            "completing",
            "canceling",
        ];
        const DEPRECATED: &[&str] = &["assignment", "update", "complete"];
        for listener in &zeebe.task_listeners {
            let lat = listener.span.start;
            let event = listener.event_type.as_str();
            if event.is_empty() {
                self.error(
                    lat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'eventType' must be present and not empty",
                );
            } else if !TASK_EVENTS.contains(&event) && !DEPRECATED.contains(&event) {
                self.error(
                    lat,
                    Rule::TaskListener,
                    id,
                    format!(
                        "Task listener event type '{event}' is not supported. Currently, only '{}' event types and '{}' deprecated event types are supported.",
                        TASK_EVENTS.join("', '"),
                        DEPRECATED.join("', '")
                    ),
                );
            }
            self.job_type(
                id,
                lat,
                listener.job_type.as_ref(),
                listener.retries.as_ref(),
            );
        }
        let _ = at;
    }

    /// `type` and `retries` of a task definition or a listener.
    fn job_type(&mut self, id: &str, at: u32, job_type: Option<&Expr>, retries: Option<&Expr>) {
        if is_empty_expr(job_type) {
            self.error(
                at,
                Rule::MissingAttribute,
                id,
                "Attribute 'type' must be present and not empty",
            );
        } else {
            self.expression(id, at, job_type, Requirement::MANDATORY);
        }
        // Absent retries default to "3"; written but empty is an error.
        if let Some(retries) = retries {
            if retries.text.is_empty() {
                self.error(
                    at,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'retries' must be present and not empty",
                );
            } else {
                self.expression(id, at, Some(retries), Requirement::MANDATORY);
            }
        }
    }

    fn zeebe_extensions(&mut self, process: &Process, id: &str, at: u32, zeebe: &Zeebe) {
        let _ = process;
        if let Some(task) = &zeebe.task_definition {
            self.job_type(
                id,
                task.span.start,
                task.job_type.as_ref(),
                task.retries.as_ref(),
            );
        }
        for mapping in &zeebe.input_mappings {
            self.expression(
                id,
                mapping.span.start,
                mapping.source.as_ref(),
                Requirement::OPTIONAL,
            );
            self.path(id, mapping.span.start, &mapping.target);
        }
        for mapping in &zeebe.output_mappings {
            self.expression(
                id,
                mapping.span.start,
                mapping.source.as_ref(),
                Requirement::EXPRESSION,
            );
            self.path(id, mapping.span.start, &mapping.target);
        }
        let mut keys: Vec<(&str, usize)> = Vec::new();
        for (key, _) in &zeebe.task_headers {
            if key.starts_with("io.camunda.zeebe:") {
                self.error(
                    at,
                    Rule::TaskHeaders,
                    id,
                    format!("Attribute 'key' contains '{key}', but header keys starting with 'io.camunda.zeebe:' are reserved for internal use."),
                );
            }
            match keys.iter_mut().find(|(k, _)| k == key) {
                Some((_, n)) => *n += 1,
                None => keys.push((key, 1)),
            }
        }
        for (key, n) in keys {
            if n > 1 {
                self.error(
                    at,
                    Rule::TaskHeaders,
                    id,
                    format!("Headers contain duplicate entries for key '{key}'"),
                );
            }
        }
        if let Some(decision) = &zeebe.called_decision {
            let dat = decision.span.start;
            if is_empty_expr(decision.decision_id.as_ref()) {
                self.error(
                    dat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'decisionId' must be present and not empty",
                );
            } else {
                self.expression(
                    id,
                    dat,
                    decision.decision_id.as_ref(),
                    Requirement::MANDATORY,
                );
            }
            if is_blank_empty(decision.result_variable.as_deref()) {
                self.error(
                    dat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'resultVariable' must be present and not empty",
                );
            }
            self.binding_type(id, dat, decision.binding_type.as_deref());
        }
        if let Some(script) = &zeebe.script {
            let sat = script.span.start;
            if is_empty_expr(script.expression.as_ref()) {
                self.error(
                    sat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'expression' must be present and not empty",
                );
            } else {
                self.expression(id, sat, script.expression.as_ref(), Requirement::EXPRESSION);
            }
            if is_blank_empty(script.result_variable.as_deref()) {
                self.error(
                    sat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'resultVariable' must be present and not empty",
                );
            }
        }
        for resource in &zeebe.linked_resources {
            let rat = resource.span.start;
            for (name, value) in [
                ("resourceId", resource.resource_id.as_deref()),
                ("bindingType", resource.binding_type.as_deref()),
                ("resourceType", resource.resource_type.as_deref()),
            ] {
                if is_blank_empty(value) {
                    self.error(
                        rat,
                        Rule::MissingAttribute,
                        id,
                        format!("Attribute '{name}' must be present and not empty"),
                    );
                }
            }
            if resource
                .binding_type
                .as_deref()
                .is_some_and(|b| !b.is_empty())
            {
                self.binding_type(id, rat, resource.binding_type.as_deref());
            }
        }
        if let Some(publish) = &zeebe.publish_message {
            let pat = publish.span.start;
            if is_empty_expr(publish.correlation_key.as_ref()) {
                self.error(
                    pat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'correlationKey' must be present and not empty",
                );
            } else {
                self.expression(
                    id,
                    pat,
                    publish.correlation_key.as_ref(),
                    Requirement::OPTIONAL,
                );
            }
            self.expression(id, pat, publish.message_id.as_ref(), Requirement::OPTIONAL);
            self.expression(
                id,
                pat,
                publish.time_to_live.as_ref(),
                Requirement::OPTIONAL,
            );
        }
        if let Some(priority) = &zeebe.priority {
            let pat = priority.span.start;
            if priority.text.is_empty() {
                self.error(
                    pat,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'priority' must be present and not empty",
                );
            } else {
                self.expression(
                    id,
                    pat,
                    Some(priority),
                    Requirement::MANDATORY.with_form(StaticForm::Integer),
                );
                if priority.feel().is_none()
                    && let Ok(value) = priority.text.trim().parse::<i32>()
                    && !(0..=100).contains(&value)
                {
                    self.error(
                        pat,
                        Rule::Priority,
                        id,
                        format!(
                            "Priority must be a number between 0 and 100, but was '{}'",
                            priority.text
                        ),
                    );
                }
            }
        }
        if let Some(priority) = &zeebe.job_priority {
            if priority.text.is_empty() {
                self.error(
                    priority.span.start,
                    Rule::MissingAttribute,
                    id,
                    "Attribute 'priority' must be present and not empty",
                );
            } else {
                self.expression(
                    id,
                    priority.span.start,
                    Some(priority),
                    Requirement::MANDATORY,
                );
            }
        }
        if let Some(assignment) = &zeebe.assignment {
            let aat = assignment.span.start;
            self.expression(id, aat, assignment.assignee.as_ref(), Requirement::OPTIONAL);
            let csv = Requirement::OPTIONAL.with_form(StaticForm::ListOfCsv);
            self.expression(id, aat, assignment.candidate_groups.as_ref(), csv);
            self.expression(id, aat, assignment.candidate_users.as_ref(), csv);
        }
        if let Some(schedule) = &zeebe.task_schedule {
            let sat = schedule.span.start;
            let date = Requirement::OPTIONAL.with_form(StaticForm::DateTime);
            self.expression(id, sat, schedule.due_date.as_ref(), date);
            self.expression(id, sat, schedule.follow_up_date.as_ref(), date);
        }
        if let Some(form) = &zeebe.form {
            self.form(id, zeebe, form);
        }
    }

    /// Zeebe's `ZeebeFormDefinitionValidator`.
    fn form(&mut self, id: &str, zeebe: &Zeebe, form: &FormDefinition) {
        let fat = form.span.start;
        let blank = |e: Option<&Expr>| e.is_none_or(|e| e.text.trim().is_empty());
        let (other, other_blank, suffix) = if zeebe.user_task {
            (
                "externalReference",
                blank(form.external_reference.as_ref()),
                " for native user tasks",
            )
        } else {
            ("formKey", blank(form.form_key.as_ref()), "")
        };
        if other_blank == blank(form.form_id.as_ref()) {
            self.error(
                fat,
                Rule::FormDefinition,
                id,
                format!("Exactly one of the attributes 'formId, {other}' must be present and not blank{suffix}"),
            );
        }
        if !other_blank && form.binding_type.is_some() {
            self.error(
                fat,
                Rule::FormDefinition,
                id,
                format!("Attribute '{other}' must not be used in combination with attribute 'bindingType'"),
            );
        }
        self.binding_type(id, fat, form.binding_type.as_deref());
        for expr in [&form.form_id, &form.form_key, &form.external_reference]
            .into_iter()
            .flatten()
        {
            self.expression(id, fat, Some(expr), Requirement::OPTIONAL);
        }
    }

    fn binding_type(&mut self, id: &str, at: u32, binding_type: Option<&str>) {
        if let Some(binding) = binding_type
            && !matches!(binding, "latest" | "deployment" | "versionTag")
        {
            self.error(
                at,
                Rule::BindingType,
                id,
                "Attribute 'bindingType' must be one of: latest, deployment, versionTag",
            );
        }
    }

    fn path(&mut self, id: &str, at: u32, target: &str) {
        for problem in expressions::path_problems(target) {
            self.error(at, Rule::InvalidPath, id, problem);
        }
    }

    /// One expression attribute against Zeebe's requirement for it.
    fn expression(
        &mut self,
        id: &str,
        fallback: u32,
        expr: Option<&Expr>,
        requirement: Requirement,
    ) {
        if let Some(problem) = expressions::problem(expr, requirement) {
            let (at, rule) = match expr {
                Some(e) if requirement.non_static => (e.span.start, Rule::ExpressionRequired),
                Some(e) => (e.span.start, Rule::InvalidStaticValue),
                None => (fallback, Rule::ExpressionRequired),
            };
            self.error(at, rule, id, problem);
        }
        if let Some(expr) = expr {
            self.feel(id, expr);
        }
    }

    /// Parses a FEEL expression (`=...`) as Zeebe does at deploy time; a syntax error is
    /// reported at its position in the file. `None` for static values and broken expressions.
    fn feel(&mut self, id: &str, expr: &Expr) -> Option<baton_feel::Expression> {
        match expr.parse_feel()? {
            Ok(parsed) => Some(parsed),
            Err(error) => {
                // The error offset is in the FEEL text; it maps onto the file only when the
                // attribute held no escaped characters.
                let raw = self
                    .source
                    .text()
                    .get(expr.span.start as usize..expr.span.end as usize);
                let at = if raw == Some(expr.text.as_str()) {
                    expr.span.start + 1 + error.offset as u32
                } else {
                    expr.span.start
                };
                self.error(at, Rule::FeelSyntax, id, error.to_string());
                None
            }
        }
    }
}

/// The problem of a timer expression evaluated without variables, as Zeebe words it.
fn timer_value_problem(field: TimerField, parsed: &baton_feel::Expression) -> Option<String> {
    use baton_feel::Value;
    let (name, expected) = match field {
        TimerField::Duration => ("duration", "DURATION"),
        TimerField::Date => ("date", "DATE_TIME"),
        TimerField::Cycle => ("cycle", "STRING"),
    };
    let evaluation = parsed.evaluate(&(), &baton_feel::Env::default());
    let detail = match (&evaluation.result, field) {
        (Err(failure), _) => failure.to_string(),
        (Ok(Value::String(text)), _) => {
            return expressions::timer_problem(field, text);
        }
        (Ok(Value::DayTimeDuration(_) | Value::YearMonthDuration(_)), TimerField::Duration)
        | (Ok(Value::DateTime(_)), TimerField::Date) => return None,
        (Ok(value), _) => format!(
            "Expected result of the expression '{}' to be '{expected}', but was '{}'.",
            parsed.source(),
            result_type(value)
        ),
    };
    Some(format!("Invalid timer {name} expression ({detail})"))
}

/// Zeebe's name for the type of a FEEL result (`io.camunda.zeebe.el.ResultType`).
fn result_type(value: &baton_feel::Value) -> &'static str {
    use baton_feel::Value;
    match value {
        Value::Null => "NULL",
        Value::Boolean(_) => "BOOLEAN",
        Value::Number(_) => "NUMBER",
        Value::String(_) => "STRING",
        Value::Date(_) => "DATE",
        Value::Time(_) => "TIME",
        Value::DateTime(_) => "DATE_TIME",
        Value::DayTimeDuration(_) => "DURATION",
        Value::YearMonthDuration(_) => "PERIOD",
        Value::List(_) => "ARRAY",
        Value::Context(_) => "OBJECT",
        _ => "UNKNOWN",
    }
}

/// `an error`, `a timer`.
fn with_article(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "An"
    } else {
        "A"
    };
    format!("{article} {word}")
}

fn is_blank_empty(value: Option<&str>) -> bool {
    value.is_none_or(str::is_empty)
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

/// The values that occur more than once, in the order of their first occurrence.
fn duplicates<'v>(values: impl Iterator<Item = &'v str>) -> Vec<&'v str> {
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (position, value) in values.enumerate() {
        counts.entry(value).or_insert((0, position)).0 += 1;
    }
    let mut repeated: Vec<(usize, &str)> = counts
        .into_iter()
        .filter(|(_, (count, _))| *count > 1)
        .map(|(value, (_, first))| (first, value))
        .collect();
    repeated.sort();
    repeated.into_iter().map(|(_, value)| value).collect()
}
