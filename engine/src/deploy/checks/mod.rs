//! Zeebe's deploy-time rules over a parsed model: the validators of
//! `zeebe/bpmn-model/.../validation/zeebe/` and the engine's runtime validators, one diagnostic per
//! failed rule, worded as Zeebe words it.
//!
//! As in Zeebe, only executable processes are checked (non-executable pools may hold anything),
//! and definitions-level elements (messages, signals, escalations) only as far as an executable
//! process uses them.
//!
//! One `Checker` walks the model; its rules are grouped by Zeebe's validator families:
//! `definitions`, `process` (flow scopes, flow nodes, sequence flows), `activities`, `gateways`,
//! `events`, `event_definitions`, `listeners`, `zeebe` (extension elements and their
//! expressions).

use std::collections::{BTreeMap, HashSet};

use super::expressions::{self, Requirement, StaticForm, TimerField};
use super::loops;
use crate::diagnostics::{Diagnostic, Rule};
use crate::model::*;
use crate::source::Source;

mod activities;
mod definitions;
mod event_definitions;
mod events;
mod gateways;
mod listeners;
mod process;
mod zeebe;

use listeners::has_execution_listener;

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

    /// Every element of every executable process.
    fn executable_elements(&self) -> impl Iterator<Item = &'a Element> {
        self.executable().flat_map(|process| &process.elements)
    }
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
