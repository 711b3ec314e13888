//! What one processing step produces besides records: follow-up commands for the queue, or a
//! failure that stops the step and becomes an incident.
//!
//! A client command starts a run of steps; each step may push [`FollowUp`]s, which the engine
//! processes in FIFO order until the queue is empty (Zeebe's breadth-first record order).

use std::sync::Arc;

use serde_json::Value as Json;

use crate::model::{ElementIdx, FlowIdx};
use crate::runtime::compile::expr::{Expr, baton_feel_bridge};
use crate::runtime::records::{BpmnElementType, ErrorType, Key, ProcIdx, VariableDocument};

/// A step that cannot go on: becomes an incident with Zeebe's error type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StepFailure {
    pub error_type: ErrorType,
    pub message: String,
}

impl StepFailure {
    pub fn new(error_type: ErrorType, message: impl Into<String>) -> StepFailure {
        StepFailure {
            error_type,
            message: message.into(),
        }
    }
}

/// The outcome of a step that answers nothing: done, or failed.
pub(crate) type Step = Result<(), StepFailure>;

/// A command the engine writes for itself while processing (Zeebe's follow-up commands),
/// waiting in the processing queue.
#[derive(Debug, Clone)]
pub(crate) enum FollowUp {
    /// Inline, not boxed: activations are the most frequent command and a box per step costs
    /// more than moving the larger command through the queue.
    Activate(Activation),
    Complete(Key),
    Terminate(Key),
    /// Terminate every active child of a scope (Zeebe's batch TERMINATE).
    TerminateChildren(Key),
    /// An execution listener job completed: run the next listener or finish the phase.
    ContinueListeners(Key),
    /// A command between the process side and the message side of a message subscription.
    Message(Box<MessageFollowUp>),
    /// `SIGNAL BROADCAST` written by a signal throw or end event: name and variables.
    BroadcastSignal(Box<(Arc<str>, Arc<VariableDocument>)>),
    /// `CONDITIONAL_SUBSCRIPTION TRIGGER`: a conditional event's condition holds.
    TriggerConditional(Key),
    /// `TIMER TRIGGER` of a timer that came due while its process instance was suspended, let
    /// through when it resumes.
    TriggerTimer(Key),
}

/// An `ACTIVATE_ELEMENT` command.
#[derive(Debug, Clone)]
pub(crate) struct Activation {
    /// Pre-generated key (taken sequence flows, multi-instance children); else generated when
    /// processed.
    pub key: Option<Key>,
    pub proc: ProcIdx,
    pub process_instance_key: Key,
    pub flow_scope: Option<Key>,
    /// `None`: the process itself.
    pub element: Option<ElementIdx>,
    pub element_type: BpmnElementType,
    /// The sequence flow that led here.
    pub via_flow: Option<FlowIdx>,
    /// Variables of the triggering event, set as local variables on activation.
    pub variables: Option<Arc<VariableDocument>>,
    /// For a child process instance: (parent process instance, call activity instance).
    pub parent: Option<(Key, Key)>,
    /// For multi-instance inner instances: the loop counter.
    pub loop_counter: u32,
}

/// A follow-up command between the two sides of a message subscription.
#[derive(Debug, Clone)]
pub(crate) enum MessageFollowUp {
    /// `MESSAGE_SUBSCRIPTION CREATE`.
    Open(Key),
    /// `PROCESS_MESSAGE_SUBSCRIPTION CREATE` (the message side acknowledges).
    AckOpen(Key),
    /// `PROCESS_MESSAGE_SUBSCRIPTION CORRELATE`.
    Correlate {
        subscription: Key,
        message: Key,
        variables: Arc<VariableDocument>,
    },
    /// `MESSAGE_SUBSCRIPTION CORRELATE` (the process side acknowledges).
    AckCorrelate { subscription: Key, message: Key },
    /// `MESSAGE_SUBSCRIPTION DELETE`.
    Close(Key),
    /// `PROCESS_MESSAGE_SUBSCRIPTION DELETE`.
    AckClose(Key),
}

/// Zeebe's message for an expression result of the wrong type, with FEEL's warnings appended.
pub(crate) fn type_mismatch(
    expr: &Expr,
    expected: &str,
    got: &Json,
    warnings: &[baton_feel_bridge::FeelWarning],
) -> StepFailure {
    let mut message = format!(
        "Expected result of the expression '{}' to be '{expected}', but was '{}'.",
        expr_source(expr),
        json_type_name(got)
    );
    append_warnings(&mut message, warnings);
    StepFailure::new(ErrorType::ExtractValueError, message)
}

/// Zeebe's `evaluateArrayOfStringsExpression`: the value must be a list whose items are all
/// strings; else the failure names what it was, with FEEL's warnings appended.
pub(crate) fn array_of_strings(
    expr: &Expr,
    value: Json,
    warnings: &[baton_feel_bridge::FeelWarning],
) -> Result<Vec<String>, StepFailure> {
    let Json::Array(items) = value else {
        return Err(type_mismatch(expr, "ARRAY", &value, warnings));
    };
    let mut strings = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Json::String(s) => strings.push(s),
            _ => {
                let mut message = format!(
                    "Expected result of the expression '{}' to be 'ARRAY' containing 'STRING' items, but was 'ARRAY' containing at least one non-'STRING' item.",
                    expr_source(expr)
                );
                append_warnings(&mut message, warnings);
                return Err(StepFailure::new(ErrorType::ExtractValueError, message));
            }
        }
    }
    Ok(strings)
}

fn append_warnings(message: &mut String, warnings: &[baton_feel_bridge::FeelWarning]) {
    if !warnings.is_empty() {
        message.push_str(" The evaluation reported the following warnings:");
        for w in warnings {
            message.push('\n');
            message.push_str(&w.to_string());
        }
    }
}

/// An expression as Zeebe quotes it in failure messages (FEEL without its `=`).
pub(crate) fn expr_source(e: &Expr) -> String {
    match e {
        Expr::Static(s) => s.to_string(),
        Expr::Feel(f) => f.source.clone(),
    }
}

/// The JSON type name Zeebe prints in "Expected result of the expression ... to be ..." messages.
pub(crate) fn json_type_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "NULL",
        Json::Bool(_) => "BOOLEAN",
        Json::Number(_) => "NUMBER",
        Json::String(_) => "STRING",
        Json::Array(_) => "ARRAY",
        Json::Object(_) => "OBJECT",
    }
}
