//! The run trace: what crossed a run's boundary, in order — model calls, tools activated and
//! what they returned, elements completed or terminated, incidents; and, in the detailed trace
//! faults and invariants read, elements activated, jobs that timed out or failed, the workers'
//! side effects, the faults a test injected and the moves of the clock.
//!
//! One vocabulary for everything that explains a run after the fact: cassettes of format 2
//! store the trace after each model call (the "trajectory"), drift reports compare two traces,
//! invariants are checked over it and a broken one is reported with it. Events are read from the
//! engine's records and from what the mocks did (side effects, faults, clock moves), never from
//! bookkeeping of engine state of their own.
//!
//! Each event has a JSON form (one key naming the kind: `{"toolActivated": {...}}`) read back
//! with the path of every problem, and a one-line text form for messages.

mod json;
mod reader;
mod render;

use baton_engine::runtime::Key;
use serde_json::Value;

use crate::agent::Turn;

pub use json::{events_from_json, events_to_json};
pub use reader::TraceReader;
pub use render::render;

/// One boundary event of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceEvent {
    /// An agent asked the model.
    ModelCall(ModelCall),
    /// An agent's tool was activated (the model called it): `arguments` is the `toolCall`
    /// variable without `_meta`.
    ToolActivated {
        agent: String,
        tool: String,
        arguments: Value,
    },
    /// A tool's result reached the agent: the `content` appended to its output collection.
    ToolResult {
        agent: String,
        tool: String,
        content: Value,
    },
    /// An element (or the process itself: its id) completed.
    ElementCompleted {
        element: String,
    },
    /// An element was terminated (a boundary event, a cancel, an interrupting event).
    ElementTerminated {
        element: String,
    },
    IncidentCreated {
        element: String,
        /// Zeebe's error type, e.g. `JOB_NO_RETRIES`.
        error_type: String,
        message: String,
    },
    IncidentResolved {
        element: String,
    },
    /// An element was activated (detailed trace only; an agent's tools show as
    /// [`TraceEvent::ToolActivated`]).
    ElementActivated {
        element: String,
    },
    /// A job's worker did not answer within its activation timeout: the job can be activated
    /// again, under the same key (Zeebe's `JOB` `TIMED_OUT`; detailed trace only).
    JobTimedOut {
        element: String,
        job_type: String,
    },
    /// A job failed (Zeebe's `JOB` `FAILED`; detailed trace only): the retries it has left, and
    /// the worker's message.
    JobFailed {
        element: String,
        job_type: String,
        retries: i32,
        message: String,
    },
    /// A worker acted on the outside world (see [`crate::side_effects`]).
    SideEffect(SideEffect),
    /// A fault the test injected: what a worker or the model did instead of answering normally.
    Fault {
        element: String,
        job_type: String,
        /// 1-based: which activation of the job.
        attempt: u32,
        /// What happened, e.g. `crashes after its side effect`, `model call 2: rate limit`.
        fault: String,
    },
    /// A worker answered after its latency, but the engine rejected the answer (the job timed
    /// out and another activation completed it, or the element was terminated meanwhile): in
    /// production the worker logs the rejection and goes on.
    LateAnswerRejected {
        element: String,
        job_type: String,
        reason: String,
    },
    /// The virtual clock moved.
    ClockMoved {
        /// Epoch milliseconds.
        to: i64,
        cause: ClockCause,
    },
}

/// One side effect of a worker: what a ledger entry records (see [`crate::side_effects`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideEffect {
    pub job_type: String,
    pub element: String,
    /// The idempotency key.
    pub key: String,
    pub job_key: Key,
    /// 1-based: which activation of the job did it.
    pub attempt: u32,
    /// `false`: the outside world had seen the key before and did nothing (it deduplicates by
    /// idempotency key).
    pub performed: bool,
}

/// Who moved the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockCause {
    /// The test (`advance_time`, `set_time`, `INCREASE_TIME`, `SET_TIME`).
    Test,
    /// Time skipping: nothing could happen before the next due time.
    TimeSkipping,
}

impl ClockCause {
    fn name(self) -> &'static str {
        match self {
            ClockCause::Test => "test",
            ClockCause::TimeSkipping => "timeSkipping",
        }
    }
}

/// One model call of an agent: what the model was asked and what it answered.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall {
    /// The agent element.
    pub agent: String,
    /// 1-based, per agent element.
    pub call: u32,
    /// The request as the model saw it (see [`crate::agent::recording::RecordedRequest`]).
    pub request: Value,
    /// The turn that answered it; `None` when nothing could answer.
    pub turn: Option<Turn>,
}

impl TraceEvent {
    /// The agent a model call or tool event belongs to.
    pub fn agent(&self) -> Option<&str> {
        match self {
            TraceEvent::ModelCall(call) => Some(&call.agent),
            TraceEvent::ToolActivated { agent, .. } | TraceEvent::ToolResult { agent, .. } => {
                Some(agent)
            }
            _ => None,
        }
    }
}
