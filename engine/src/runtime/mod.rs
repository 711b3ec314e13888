//! The token engine: Zeebe's semantics, deterministic, in process.
//!
//! The engine state changes only through commands: the public methods of [`Engine`], or the same
//! requests held as [`Command`] values and carried out by [`Engine::apply`]. A command
//! is applied like Zeebe's stream processor does it: it writes event records and enqueues
//! follow-up commands (activate, complete, terminate an element instance, ...) into a FIFO queue
//! that is processed until it is empty before the call returns. This reproduces Zeebe's record
//! order (breadth first). Every change is written to the event log ([`Engine::records`]);
//! assertions and coverage read that log.
//!
//! Determinism: no wall clock (time is the engine clock, moved by commands), no randomness, no
//! hash-order output (hash maps are used for lookups by key only, never iterated into output).
//!
//! `Engine` is plain data and `Clone` (deployments are shared behind `Arc`): cloning is the
//! snapshot/restore seam.
//!
//! The rooms, from the bottom up (a module imports only from those above it in this list):
//! - [`records`]: the event log's types; `shared_json`: JSON values shared behind `Arc`;
//!   `cron`: the cron expressions of timer cycles, as a timer's state holds them.
//! - `compile`: the executable model a deployment compiles each process into.
//! - `state`: the engine's data (element instances, jobs, subscriptions, lifecycles), plain and
//!   `Clone`, with bookkeeping only.
//! - `step` and `command`: what a processing step produces (follow-ups, failures) and what a
//!   client asks (commands and their answers).
//! - `engine`: the `Engine` itself, the queue, the run loop and `apply`.
//! - `behaviors`: what elements share (jobs, variables, incidents, messages, signals, timers,
//!   conditionals, compensation, decisions, forms, event subscriptions, user tasks).
//! - `elements`: the element lifecycle skeleton and one behaviour per element family.
//! - `query` and `render`: read-only views of the state and the log.

mod behaviors;
mod client;
mod command;
mod compile;
mod cron;
mod elements;
mod engine;
mod query;
pub mod records;
mod render;
pub mod shared_json;
mod state;
mod step;

pub use behaviors::camunda_namespace::DEFAULT_TENANT;
pub use behaviors::decisions::{DecisionInstanceView, rule_id};
pub use behaviors::global_listeners::GLOBAL_TASK_LISTENER_EVENT_TYPES;
pub use behaviors::messages::{BufferedMessageView, MessageSubscriptionView};
pub use behaviors::signals::SignalSubscriptionView;
pub use behaviors::timers::LATEST_CLOCK_MS;
pub use client::CompletionVariables;
pub use command::{
    AdHocJobResult, Applied, Command, CommandLogError, CreateInstance, DEFAULT_MESSAGE_TTL_MS,
    DecisionOutcome, DeploymentInfo, JobResult, MessageCorrelation, PublishMessage,
    UnrecordedCommands, read_commands,
};
pub use compile::{AdHocSubProcessView, CompileError, ExecutableProcess};
pub use elements::INNER_INSTANCE_SUFFIX;
pub use engine::{Engine, EngineConfig};
pub use query::{ElementInstanceView, IncidentView, JobView, ProcessInstanceView, VariableView};
pub use records::{
    BpmnElementType, BpmnEventType, DecisionIdx, DrgIdx, ElementRef, ErrorType, GlobalTaskListener,
    Intent, JobKind, Key, ListenerEventType, OtherIntent, ProcIdx, ProcessInstanceIntent, Record,
    RecordType, RecordValue, Rejection, RejectionType, SharedVariableDocument, ValueType,
    VariableDocument, plain_document, share_document,
};
pub use shared_json::{JsonRef, Part, SharedJson};
pub use state::messages::CorrelatedMessageView;
pub use state::timers::Timer;
pub use state::{
    DeployedDecision, DeployedDrg, DeployedForm, JobState, State, UserTask, UserTaskState,
};
