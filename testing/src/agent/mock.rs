//! The AI agent mock: plays the connector for one agent element, taking the model's turns from a
//! script, a cassette or a handler, and records what the model saw and which tools it called.
//!
//! Turns are used in order across every job of the element, so a process that enters the agent
//! twice, or two runs in one test, read one script from start to end.

use std::cell::{OnceCell, RefCell};
use std::fmt;
use std::rc::Rc;

use baton_engine::runtime::SharedJson;
use serde_json::Value;

use super::arguments::{check_arguments, short_json};
use super::cassette::{Cassette, CassetteError};
use super::connector::{
    self, AgentJob, ElementCache, JobAnswer, ModelInput, PendingTurn, SentToolCall, Step, ToolCache,
};
use super::error_expression;
use super::matchers::{ExpectedCall, ToolCallsDiffer, check_called_tools};
use super::recording::{CassetteScript, CassetteSession, SessionFailure};
pub use super::request::{AgentRequest, ToolCallRecord};
use super::result_mapping;
use super::tools::ToolDefinition;
use super::turn::{Arguments, ErrorTurn, ToolCall, Turn};
use crate::faults::{ModelError, ModelFault, ModelFaultKind};

/// Where the turns come from.
pub enum AgentScript {
    /// Turns in order.
    Turns(Vec<Turn>),
    /// A cassette's turns; `source` names it in messages (its file).
    Cassette { cassette: Cassette, source: String },
    /// Your code decides each turn from the request (a model adapter, or a fake).
    Handler(Box<dyn FnMut(&AgentRequest) -> Turn>),
    /// A cassette of format 2 replayed with checks, or recorded (see [`CassetteScript`]). It
    /// reads the run's trace from the engine, so it plays through
    /// [`ProcessTest::mock_ai_agent`](crate::ProcessTest::mock_ai_agent) (or a
    /// [`CassetteSession`] given to [`AiAgentMock::with_session`]).
    Recording(CassetteScript),
}

impl AgentScript {
    /// A handler: called once per model call with what the model would see.
    pub fn handler(handler: impl FnMut(&AgentRequest) -> Turn + 'static) -> Self {
        AgentScript::Handler(Box::new(handler))
    }
}

impl From<Vec<Turn>> for AgentScript {
    fn from(turns: Vec<Turn>) -> Self {
        AgentScript::Turns(turns)
    }
}

impl<const N: usize> From<[Turn; N]> for AgentScript {
    fn from(turns: [Turn; N]) -> Self {
        AgentScript::Turns(turns.into())
    }
}

impl From<CassetteScript> for AgentScript {
    fn from(script: CassetteScript) -> Self {
        AgentScript::Recording(script)
    }
}

impl From<Cassette> for AgentScript {
    fn from(cassette: Cassette) -> Self {
        AgentScript::Cassette {
            cassette,
            source: "cassette".to_string(),
        }
    }
}

/// When a job's answer reaches the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Delivery {
    /// At once.
    #[default]
    AtOnce,
    /// After a latency of virtual time (the model was slow, or the call hung until it timed
    /// out).
    After(std::time::Duration),
    /// Never: the connector crashed after the model answered, the completion is lost.
    CrashAfterAnswer,
}

/// The mock cannot go on: the script and the process disagree. Fails the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentMockFailure {
    pub kind: AgentMockFailureKind,
    pub message: String,
}

/// The kinds of [`AgentMockFailure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentMockFailureKind {
    /// A scripted call names a tool the agent does not have.
    UnknownTool,
    /// A scripted call's arguments do not fit the tool's parameters.
    WrongArguments,
    /// The process asked the model more often than the script has turns.
    ScriptExhausted,
    /// A turn in the script, or one a handler returned, is not valid.
    InvalidTurn,
    /// The cassette belongs to another agent element.
    WrongCassette,
    /// The process uses a connector feature the mock does not play.
    Unsupported,
    /// The run left its cassette: a model call asked something else than recorded, or one
    /// the cassette does not have.
    Drift,
    /// The cassette could not be written, or the recording's handler gave no turn.
    Recording,
}

impl fmt::Display for AgentMockFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AgentMockFailure {}

/// What to do when the script has no turn left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnExhausted {
    /// Fail the run (the default: an extra model call is usually the bug a test looks for).
    #[default]
    Fail,
    /// Answer with the last turn again.
    RepeatLast,
}

enum Source {
    Turns {
        turns: Vec<Turn>,
        next: usize,
        cassette: Option<String>,
    },
    Handler(Box<dyn FnMut(&AgentRequest) -> Turn>),
    Session(Rc<RefCell<CassetteSession>>),
}

/// A call's id: the turn's, else `call_<modelCall>_<n>`.
fn call_id(call: &ToolCall, model_call: u32, index: usize) -> String {
    call.id
        .clone()
        .unwrap_or_else(|| format!("call_{model_call}_{}", index + 1))
}

/// Turns of a script the agent did not play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{report}")]
pub struct UnusedTurns {
    pub element_id: String,
    /// How many turns were left.
    pub unused: usize,
    /// The unused turns, described.
    pub report: String,
}

/// The mock of one agent element.
pub struct AiAgentMock {
    element_id: String,
    source: Source,
    on_exhausted: OnExhausted,
    tool_order: Vec<String>,
    requests: Vec<AgentRequest>,
    /// The tool calls, read from the played turns when first asked for (the turns are the
    /// requests'; copying every call's arguments on each model call was a tenth of the mock's
    /// allocations).
    tool_calls: OnceCell<Vec<ToolCallRecord>>,
    /// The requests whose turn was played (a handler's invalid turn is recorded, not played;
    /// a turn whose completion a connector crash lost is played again by the call that repeats
    /// it, so it counts once: its tool calls were never activated).
    played: Vec<usize>,
    cache: ElementCache,
    /// Faults at model calls.
    faults: Vec<ModelFault>,
    /// When the answer being built reaches the engine.
    delivery: Delivery,
}

impl fmt::Debug for AiAgentMock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiAgentMock")
            .field("element_id", &self.element_id)
            .field("requests", &self.requests.len())
            .field("tool_calls", &self.tool_calls())
            .field("remaining_turns", &self.remaining_turns())
            .finish()
    }
}

impl AiAgentMock {
    /// A mock for the agent element `element_id`. Every scripted turn is checked now, so a typo
    /// fails at once; a cassette recorded for another element is refused.
    pub fn new(
        element_id: impl Into<String>,
        script: impl Into<AgentScript>,
    ) -> Result<Self, AgentMockFailure> {
        let element_id = element_id.into();
        let source = match script.into() {
            AgentScript::Turns(turns) => {
                check_turns(&turns, "the script")?;
                Source::Turns {
                    turns,
                    next: 0,
                    cassette: None,
                }
            }
            AgentScript::Cassette { cassette, source } => {
                cassette
                    .check_agent(&element_id, &source)
                    .map_err(|e| AgentMockFailure {
                        kind: AgentMockFailureKind::WrongCassette,
                        message: e.to_string(),
                    })?;
                cassette
                    .validate(&source)
                    .map_err(|e: CassetteError| AgentMockFailure {
                        kind: AgentMockFailureKind::InvalidTurn,
                        message: e.to_string(),
                    })?;
                Source::Turns {
                    turns: cassette.turns,
                    next: 0,
                    cassette: Some(source),
                }
            }
            AgentScript::Handler(handler) => Source::Handler(handler),
            AgentScript::Recording(script) => {
                return Err(AgentMockFailure {
                    kind: AgentMockFailureKind::Unsupported,
                    message: format!(
                        "the cassette {} of \"{element_id}\" reads the run's trace from the engine: give it to ProcessTest::mock_ai_agent, or open a CassetteSession for AiAgentMock::with_session",
                        script.path().display()
                    ),
                });
            }
        };
        Ok(AiAgentMock::from_source(element_id, source))
    }

    /// A mock whose turns come from a cassette session (replayed with checks, or recorded).
    /// Whoever drives the engine syncs the session before each agent job
    /// ([`CassetteSession::sync`]) and finishes it at the end ([`CassetteSession::finish`]).
    pub fn with_session(
        element_id: impl Into<String>,
        session: Rc<RefCell<CassetteSession>>,
    ) -> Self {
        AiAgentMock::from_source(element_id.into(), Source::Session(session))
    }

    fn from_source(element_id: String, source: Source) -> Self {
        AiAgentMock {
            element_id,
            source,
            on_exhausted: OnExhausted::Fail,
            tool_order: Vec::new(),
            requests: Vec::new(),
            tool_calls: OnceCell::new(),
            played: Vec::new(),
            cache: ElementCache::default(),
            faults: Vec::new(),
            delivery: Delivery::AtOnce,
        }
    }

    /// Resolves the agent's tools through `cache`, which the mocks of other tests of the same
    /// deployment share ([`Deployment::test`](crate::Deployment::test) gives a
    /// [`ProcessTest`](crate::ProcessTest) its deployment's; a mock on its own resolves them
    /// once itself).
    pub fn with_tool_cache(mut self, cache: ToolCache) -> Self {
        self.cache = ElementCache::sharing(cache);
        self
    }

    /// Answers every model call after the last turn with the last turn again.
    pub fn repeat_last_turn(mut self) -> Self {
        self.on_exhausted = OnExhausted::RepeatLast;
        self
    }

    /// Sets what happens when the script runs out.
    pub fn on_exhausted(mut self, on_exhausted: OnExhausted) -> Self {
        self.on_exhausted = on_exhausted;
        self
    }

    /// Sets what happens when the script runs out, on a mock in use.
    pub fn set_on_exhausted(&mut self, on_exhausted: OnExhausted) {
        self.on_exhausted = on_exhausted;
    }

    /// The tools in model (document) order, for messages; Zeebe's variable lists them in hash order.
    pub fn with_tool_order(
        mut self,
        tool_ids: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.tool_order = tool_ids.into_iter().map(Into::into).collect();
        self
    }

    pub fn element_id(&self) -> &str {
        &self.element_id
    }

    /// What the model saw on each call, oldest first.
    pub fn requests(&self) -> &[AgentRequest] {
        &self.requests
    }

    /// Every tool call the model made, in order.
    pub fn tool_calls(&self) -> &[ToolCallRecord] {
        self.tool_calls.get_or_init(|| {
            self.played
                .iter()
                .filter_map(|&i| self.requests.get(i))
                .flat_map(|request| {
                    let calls = match &request.turn {
                        Some(Turn::ToolCalls(turn)) => turn.calls.as_slice(),
                        _ => &[],
                    };
                    calls.iter().enumerate().map(|(k, call)| ToolCallRecord {
                        model_call: request.model_call,
                        id: call_id(call, request.model_call, k),
                        name: call.name.to_string(),
                        arguments: match &call.arguments {
                            Arguments::Json(value) => value.clone(),
                            Arguments::Raw(raw) => Value::String(raw.clone()),
                        },
                    })
                })
                .collect()
        })
    }

    /// The injected faults at a model call the agent has not made (yet).
    pub fn unplayed_faults(&self) -> Vec<&ModelFault> {
        let made = self.requests.len() as u32;
        self.faults.iter().filter(|f| f.call > made).collect()
    }

    /// Turns of the script not played yet (0 for a handler).
    pub fn remaining_turns(&self) -> usize {
        match &self.source {
            Source::Turns { turns, next, .. } => turns.len().saturating_sub(*next),
            Source::Handler(_) => 0,
            Source::Session(session) => session.borrow().unplayed_calls(),
        }
    }

    /// The turns played so far as a cassette for this element (to save a handler's answers).
    pub fn cassette(&self) -> Cassette {
        let turns = self
            .played
            .iter()
            .filter_map(|&i| self.requests[i].turn.clone())
            .collect();
        Cassette::new(self.element_id.clone(), turns)
    }

    /// `Err` when turns of the script were not used.
    pub fn check_all_turns_used(&self) -> Result<(), UnusedTurns> {
        let remaining = self.remaining_turns();
        if remaining == 0 {
            return Ok(());
        }
        let Source::Turns { turns, next, .. } = &self.source else {
            return Ok(());
        };
        let unused: Vec<String> = turns[*next..]
            .iter()
            .enumerate()
            .map(|(i, t)| format!("  turn {}: {}", next + i + 1, t.describe()))
            .collect();
        Err(UnusedTurns {
            element_id: self.element_id.clone(),
            unused: remaining,
            report: format!(
                "the script of \"{}\" has {remaining} unused turn{} of {} (the agent made {} model call{}):\n{}",
                self.element_id,
                plural(remaining),
                turns.len(),
                self.requests.len(),
                plural(self.requests.len()),
                unused.join("\n")
            ),
        })
    }

    /// Panics with a message when turns of the script were not used.
    #[track_caller]
    pub fn assert_all_turns_used(&self) {
        if let Err(message) = self.check_all_turns_used() {
            panic!("{message}");
        }
    }

    /// `Err` when the tool calls differ from `expected` (the whole sequence).
    pub fn check_called_tools(
        &self,
        expected: impl IntoIterator<Item = impl Into<ExpectedCall>>,
    ) -> Result<(), ToolCallsDiffer> {
        let expected: Vec<ExpectedCall> = expected.into_iter().map(Into::into).collect();
        check_called_tools(&self.element_id, &expected, self.tool_calls())
    }

    /// Panics when the tool calls differ from `expected`: each entry a tool id, or a name with
    /// arguments (literal JSON or matchers).
    #[track_caller]
    pub fn assert_called_tools(&self, expected: impl IntoIterator<Item = impl Into<ExpectedCall>>) {
        if let Err(message) = self.check_called_tools(expected) {
            panic!("{message}");
        }
    }

    /// Answers one agent job as the connector would, with the next turn when the model is asked,
    /// and the job's `errorExpression` header applied to the answer.
    pub fn answer_job(&mut self, job: AgentJob<'_>) -> Result<JobAnswer, AgentMockFailure> {
        self.answer_job_timed(job).0
    }

    /// Answers one agent job ([`AiAgentMock::answer_job`]) and says when the answer reaches the
    /// engine: a model fault or a turn's latency delays it, a crash loses it.
    pub fn answer_job_timed(
        &mut self,
        job: AgentJob<'_>,
    ) -> (Result<JobAnswer, AgentMockFailure>, Delivery) {
        self.delivery = Delivery::AtOnce;
        let headers = job.headers;
        let retries = job.retries;
        let task = matches!(job.flavour, connector::Flavour::Task(_));
        let answered = self.answer_job_plainly(job).map(|(answer, asked_model)| {
            let answer = error_expression_applied(headers, retries, answer, asked_model, task);
            with_result_mapping(headers, answer)
        });
        (answered, std::mem::take(&mut self.delivery))
    }

    /// Injects a fault at a model call (see [`ModelFault`]).
    pub fn inject_fault(&mut self, fault: ModelFault) -> Result<(), crate::faults::FaultError> {
        fault.validate()?;
        self.faults.push(fault);
        Ok(())
    }

    /// The answer without the `errorExpression`, and whether the model was asked.
    fn answer_job_plainly(
        &mut self,
        job: AgentJob<'_>,
    ) -> Result<(JobAnswer, bool), AgentMockFailure> {
        let step = connector::prepare(&job, &mut self.cache).map_err(|e| AgentMockFailure {
            kind: AgentMockFailureKind::Unsupported,
            message: e.0,
        })?;
        let mut pending = match step {
            Step::Answer(answer) => return Ok((answer, false)),
            Step::AskModel(pending) => pending,
        };
        let model_call = self.requests.len() as u32 + 1;
        let input = pending.take_input();
        let mut request = request_from(&self.element_id, model_call, &job, input);
        let fault = self
            .faults
            .iter()
            .find(|f| f.call == model_call)
            .map(|f| f.kind.clone());
        request.fault = fault.clone();
        if let Some(ModelFaultKind::Error(error)) = &fault {
            // The provider failed the call: no turn is played.
            if let ModelError::Timeout { after, .. } = error
                && !after.is_zero()
            {
                self.delivery = Delivery::After(*after);
            }
            let (code, message) = error.connector_error();
            self.requests.push(request);
            return Ok((connector::fail_model_call(*pending, code, message), true));
        }
        let turn = match &mut self.source {
            Source::Turns { turns, next, .. } => {
                if *next + 1 < turns.len() {
                    // A played turn is read from its request from now on: moved there, not
                    // copied (the last one stays, for `OnExhausted::RepeatLast`).
                    *next += 1;
                    Some(std::mem::replace(
                        &mut turns[*next - 1],
                        Turn::Error(ErrorTurn {
                            message: String::new(),
                            latency: None,
                        }),
                    ))
                } else if *next < turns.len() {
                    *next += 1;
                    Some(turns[*next - 1].clone())
                } else if self.on_exhausted == OnExhausted::RepeatLast {
                    turns.last().cloned()
                } else {
                    None
                }
            }
            Source::Handler(handler) => {
                let turn = handler(&request);
                if let Err(problems) = turn.validate("turn") {
                    request.turn = Some(turn);
                    self.requests.push(request);
                    return Err(AgentMockFailure {
                        kind: AgentMockFailureKind::InvalidTurn,
                        message: format!(
                            "invalid turn from the handler of \"{}\" for model call {model_call}: {problems}",
                            self.element_id
                        ),
                    });
                }
                Some(turn)
            }
            Source::Session(session) => {
                let mut session = session.borrow_mut();
                let answered = session.answer(&request);
                let recording = session.is_recording();
                let source = session.source().to_string();
                drop(session);
                match answered {
                    Ok(turn) => {
                        if recording && let Err(problems) = turn.validate("turn") {
                            request.turn = Some(turn);
                            self.requests.push(request);
                            return Err(AgentMockFailure {
                                kind: AgentMockFailureKind::InvalidTurn,
                                message: format!(
                                    "invalid turn recorded into {source} for model call {model_call} of \"{}\": {problems}",
                                    self.element_id
                                ),
                            });
                        }
                        Some(turn)
                    }
                    Err(failure) => {
                        self.requests.push(request);
                        let kind = match &failure {
                            SessionFailure::Drift(_) => AgentMockFailureKind::Drift,
                            SessionFailure::Other(_) => AgentMockFailureKind::Recording,
                        };
                        return Err(AgentMockFailure {
                            kind,
                            message: failure.to_string(),
                        });
                    }
                }
            }
        };
        let Some(turn) = turn else {
            let script_len = match &self.source {
                Source::Turns { turns, .. } => turns.len(),
                Source::Handler(_) | Source::Session(_) => 0,
            };
            let failure = self.exhausted(&request, script_len);
            self.requests.push(request);
            return Err(failure);
        };
        let checked = matches!(&turn, Turn::ToolCalls(t) if !t.unchecked);
        let check = if checked {
            self.check_calls(&request.tools, &sent_calls(&turn, model_call), model_call)
        } else {
            Ok(())
        };
        // The records are read from the played turns when asked for.
        self.tool_calls.take();
        let answer = check.map(|()| (finish_turn(*pending, &turn, model_call), true));
        if let Some(latency) = turn.latency() {
            self.delivery = Delivery::After(latency);
        }
        match &fault {
            Some(ModelFaultKind::Latency(latency)) => self.delivery = Delivery::After(*latency),
            Some(ModelFaultKind::CrashAfterAnswer) => {
                self.delivery = Delivery::CrashAfterAnswer;
                // The completion is lost and the job is activated again: the model is asked the
                // same again, and a script or cassette answers with the same turn.
                match &mut self.source {
                    Source::Turns { turns, next, .. } if *next > 0 && *next <= turns.len() => {
                        *next -= 1;
                        turns[*next] = turn.clone();
                    }
                    // A cassette answers it with the call that answered this one.
                    Source::Session(session) => session.borrow_mut().crashed_after_answer(),
                    _ => {}
                }
            }
            _ => {}
        }
        request.turn = Some(turn);
        if self.delivery != Delivery::CrashAfterAnswer {
            self.played.push(self.requests.len());
        }
        self.requests.push(request);
        answer
    }

    fn source_label(&self) -> String {
        match &self.source {
            Source::Turns {
                cassette: Some(source),
                ..
            } => format!("the cassette {source}"),
            Source::Turns { .. } => "the script".to_string(),
            Source::Handler(_) => "the handler".to_string(),
            Source::Session(session) => format!("the cassette {}", session.borrow().source()),
        }
    }

    fn check_calls(
        &self,
        tools: &[ToolDefinition],
        calls: &[SentToolCall<'_>],
        model_call: u32,
    ) -> Result<(), AgentMockFailure> {
        for call in calls {
            let Some(tool) = tools.iter().find(|t| t.name == call.name) else {
                return Err(AgentMockFailure {
                    kind: AgentMockFailureKind::UnknownTool,
                    message: format!(
                        "unknown tool \"{}\". Tools of \"{}\": {}\n{} calls it in turn {model_call} ({}). Was the tool renamed or removed? Fix the turn, or re-record the cassette.",
                        call.name,
                        self.element_id,
                        self.ordered_tool_names(tools).join(", "),
                        capitalize(&self.source_label()),
                        call.id
                    ),
                });
            };
            let Arguments::Json(arguments) = &call.arguments else {
                continue;
            };
            let problems = check_arguments(tool, arguments);
            if problems.is_empty() {
                continue;
            }
            let lines: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
            return Err(AgentMockFailure {
                kind: AgentMockFailureKind::WrongArguments,
                message: format!(
                    "wrong arguments for tool \"{}\" in turn {model_call} of {} of \"{}\" ({}):\n{}\n{}",
                    call.name,
                    self.source_label(),
                    self.element_id,
                    call.id,
                    lines.join("\n"),
                    describe_parameters(tool)
                ),
            });
        }
        Ok(())
    }

    fn ordered_tool_names<'t>(&self, tools: &'t [ToolDefinition]) -> Vec<&'t str> {
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_by_key(|name| {
            self.tool_order
                .iter()
                .position(|o| o == name)
                .unwrap_or(usize::MAX)
        });
        names
    }

    fn exhausted(&self, request: &AgentRequest, script_len: usize) -> AgentMockFailure {
        let mut carried = Vec::new();
        if let Some(results) = request
            .tool_call_results
            .as_array()
            .filter(|r| !r.is_empty())
        {
            let names: Vec<&str> = results
                .iter()
                .filter_map(|r| r.get("name").and_then(Value::as_str))
                .collect();
            carried.push(format!("results from {}", names.join(", ")));
        }
        if let Some(prompt) = &request.user_prompt {
            carried.push(format!(
                "the user prompt {}",
                short_json(&Value::String(prompt.clone()))
            ));
        }
        if !request.events.is_empty() {
            carried.push(format!(
                "{} event{}",
                request.events.len(),
                plural(request.events.len())
            ));
        }
        let with = if carried.is_empty() {
            String::new()
        } else {
            format!(" with {}", carried.join(" and "))
        };
        let again = if request.model_call > 1 { " again" } else { "" };
        let what = if matches!(
            &self.source,
            Source::Turns {
                cassette: Some(_),
                ..
            }
        ) {
            "cassette"
        } else {
            "script"
        };
        AgentMockFailure {
            kind: AgentMockFailureKind::ScriptExhausted,
            message: format!(
                "the {what} has no turn {} — it has {}, all played. The agent asked the model{again}{with}. The process needed a model call that the {what} does not have: add a turn, or re-record the cassette.",
                request.model_call, script_len
            ),
        }
    }
}

/// The tool calls of a turn as the mock sends them on: ids assigned (`call_<modelCall>_<n>`
/// where the turn gives none).
fn sent_calls(turn: &Turn, model_call: u32) -> Vec<SentToolCall<'_>> {
    match turn {
        Turn::ToolCalls(tool_turn) => tool_turn
            .calls
            .iter()
            .enumerate()
            .map(|(k, call)| SentToolCall {
                id: call_id(call, model_call, k),
                name: &call.name,
                arguments: &call.arguments,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The second half of a job whose model call `model_call` the model answered with `turn`
/// (unchecked: the caller knows the turn fits the tools).
pub(crate) fn finish_turn(pending: PendingTurn, turn: &Turn, model_call: u32) -> JobAnswer {
    connector::finish(pending, turn, &sent_calls(turn, model_call))
}

/// What the connector's runtime makes of its answer: the job's `errorExpression` header applied,
/// and for an AI Agent Task (`task`) the result mapped to variables (`resultVariable`,
/// `resultExpression`).
pub(crate) fn connector_answer(
    headers: &indexmap::IndexMap<String, String>,
    retries: i32,
    answer: JobAnswer,
    asked_model: bool,
    task: bool,
) -> JobAnswer {
    with_result_mapping(
        headers,
        error_expression_applied(headers, retries, answer, asked_model, task),
    )
}

/// The job's `errorExpression` header (if any) applied to the connector's answer; `asked_model`:
/// the answer came from a model call (the expression then sees the agent response); `task`: the
/// AI Agent Task's job.
fn error_expression_applied(
    headers: &indexmap::IndexMap<String, String>,
    retries: i32,
    answer: JobAnswer,
    asked_model: bool,
    task: bool,
) -> JobAnswer {
    let Some(header) = headers
        .get(error_expression::ERROR_EXPRESSION_HEADER)
        .map(String::as_str)
        .filter(|h| !h.trim().is_empty())
    else {
        return answer;
    };
    let response = match &answer {
        JobAnswer::Complete(completion) if asked_model => {
            completion.response.as_ref().map(SharedJson::to_json)
        }
        _ => None,
    };
    error_expression::apply(
        Some(header),
        retries,
        error_expression::Outcome {
            answer,
            response,
            plain: task,
        },
    )
}

/// The runtime's mapping of an outbound connector's result to variables (`resultVariable`,
/// `resultExpression`), for a plain completion (the AI Agent Task's).
pub(crate) fn with_result_mapping(
    headers: &indexmap::IndexMap<String, String>,
    answer: JobAnswer,
) -> JobAnswer {
    match answer {
        // A completion that has its variables already is the runtime's own (`ignoreError`'s),
        // not the connector's result.
        JobAnswer::Complete(mut completion)
            if completion.plain && completion.variables.is_empty() =>
        {
            match result_mapping::map_result(headers, &mut completion) {
                Ok(()) => JobAnswer::Complete(completion),
                Err(failure) => JobAnswer::Fail(*failure),
            }
        }
        other => other,
    }
}

pub(crate) fn request_from(
    element_id: &str,
    model_call: u32,
    job: &AgentJob<'_>,
    input: ModelInput,
) -> AgentRequest {
    AgentRequest {
        element_id: element_id.to_string(),
        model_call,
        job_key: job.job_key,
        process_instance_key: job.process_instance_key,
        system_prompt: input.system_prompt,
        user_prompt: input.user_prompt,
        tools: input.tools,
        tool_call_results: input.tool_call_results,
        events: input.events,
        messages: input.messages,
        response_format: input.response_format,
        limits: input.limits,
        provider: job.variables.get("provider").cloned(),
        turn: None,
        fault: None,
    }
}

fn check_turns(turns: &[Turn], label: &str) -> Result<(), AgentMockFailure> {
    let mut problems = Vec::new();
    for (i, turn) in turns.iter().enumerate() {
        if let Err(found) = turn.validate(&format!("turns[{i}]")) {
            problems.extend(found.items().iter().map(ToString::to_string));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(AgentMockFailure {
        kind: AgentMockFailureKind::InvalidTurn,
        message: format!("invalid turn in {label}:\n  - {}", problems.join("\n  - ")),
    })
}

/// `Parameters of "create-ticket": summary (string, required), priority (string)`.
fn describe_parameters(tool: &ToolDefinition) -> String {
    let required = tool.required();
    let properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    let names = tool.parameter_names();
    if names.is_empty() {
        return format!("\"{}\" has no parameters", tool.name);
    }
    let described: Vec<String> = names
        .iter()
        .map(|name| {
            let type_ = properties
                .and_then(|p| p.get(*name))
                .and_then(|s| s.get("type"))
                .map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_string))
                .unwrap_or_default();
            let req = if required.contains(name) {
                ", required"
            } else {
                ""
            };
            format!("{name} ({type_}{req})")
        })
        .collect();
    format!("Parameters of \"{}\": {}", tool.name, described.join(", "))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
