//! Event definitions (Zeebe's `*EventDefinitionValidator`s): references to messages, errors,
//! escalations and signals, timers, conditions, compensation.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn event_definition(
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
            EventDefinition::Timer(timer) => self.timer(element, timer, at),
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

    fn timer(&mut self, element: &Element, timer: &TimerDefinition, at: u32) {
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
