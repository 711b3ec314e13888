//! The AI Agent connector as a state machine: one agent job in, one answer out, with the model
//! call in between left to the caller.
//!
//! A job is read in the state its stored context is in ([`AgentState`], as the connector has
//! them), one function per state:
//! - [`AgentState::Initializing`] (`initializing`): the tools are resolved from the ad-hoc
//!   sub-process's elements; with MCP clients among them, each client is first asked for its
//!   tools (the context goes to `TOOL_DISCOVERY`), else the agent is ready at once.
//! - [`AgentState::ToolDiscovery`] (`gateway`): the clients' listed tools join the others once
//!   every client answered; until then the job waits.
//! - [`AgentState::Ready`] (`ready`): a turn of the conversation: which tool results have
//!   arrived (wait until all have, unless an event interrupts them), the input messages, the
//!   model-call limit, then a model call ([`Step::AskModel`]).
//!
//! [`prepare`] runs the job up to the model call; [`finish`] takes the model's turn and builds
//! the response (`response`): the `agentContext` the connector persists, the tools to call, the
//! answer. A flavour of the connector (`flavour`, [`Flavour`]) reads the job and turns the
//! response into its job answer: `sub_process` is the AI Agent Sub-process connector
//! (`io.camunda.agenticai:aiagent-job-worker:1`), which completes the ad-hoc sub-process's job
//! with the elements to activate; `task` is the AI Agent Task connector
//! (`io.camunda.agenticai:aiagent:1` on a service task), which completes its job with the agent
//! response and leaves the tool calls to an ad-hoc sub-process the process loops through.
//!
//! What `agentContext` holds: `schemaVersion`, `state`, `metadata` (process definition and
//! instance keys, `agentInstanceKey`, `lastIterationKey`), `metrics` (`modelCalls`,
//! `tokenUsage`, `toolCalls`), `toolDefinitions` and the in-process `conversation` (system,
//! user, assistant and tool-result messages). Left out: the assistant
//! messages' provider fields (`modelId`, `messageId`, `metadata.framework`), and timestamps when
//! the job carries no clock. Memory stores other than in-process are played as in-process.
//!
//! MCP clients (gateway tools) are played as the connector plays them (`gateway`; their names
//! and wire forms in `mcp`): the listed tools are offered as `MCP_<client>___<tool>`, a call of
//! one activates the client with `tools/call`, and a single text block of its result reaches the
//! model as text. A2A clients are not played (the
//! mock says so). Not played: migration of a context from another process definition, documents
//! in tool results. The `errorExpression` header is applied to the answer by
//! [`super::error_expression`].

mod cache;
mod config;
mod context;
mod failure;
mod flavour;
mod gateway;
mod initializing;
mod job;
mod mcp;
mod messages;
mod ready;
mod response;
mod sub_process;
mod task;

use std::sync::Arc;

use baton_engine::runtime::SharedJson;
use serde_json::Value;

use self::config::Config;
use self::context::{AgentTools, Metrics, StoredContext};
use self::failure::FailureContext;
use super::tools::ToolDefinition;
use super::turn::{Arguments, Turn};

pub use self::cache::{ElementCache, ToolCache};
pub use self::config::ResponseFormat;
pub use self::context::AgentState;
pub(crate) use self::failure::parse_backoff;
pub use self::job::{
    AgentJob, ElementActivation, FETCHED_VARIABLES, FetchedVariables, Flavour, JobAnswer,
    JobCompletion, JobFailure, SharedVariables, ThrownError, ToolContainerError, ToolContainers,
    Unsupported, Variables, fetch_variables, share_variables,
};
pub use self::messages::SentMessages;

/// What the model is asked on one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInput {
    pub system_prompt: Option<String>,
    /// The user prompt, when this call carries it (the first call, or a re-entry).
    pub user_prompt: Option<String>,
    /// The tools offered.
    pub tools: Arc<[ToolDefinition]>,
    /// The tool results of this call, in tool-call order: `[{id, name, content}]` (and
    /// `interrupted: true` for calls cancelled by an event).
    pub tool_call_results: SharedJson,
    /// The contents of the events (event sub-process results) this call carries.
    pub events: Vec<Value>,
    /// The conversation as sent: the stored messages plus this call's input, cut to the context
    /// window.
    pub messages: SentMessages,
    pub response_format: ResponseFormat,
    pub limits: Limits,
}

/// The agent's limits (`data.limits.maxModelCalls`, `data.memory.contextWindowSize`): part of
/// what a recording compares, since they change what the model is sent and how often.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_model_calls: u64,
    pub context_window_size: usize,
}

/// The connector is waiting for the model.
#[derive(Debug, Clone)]
pub struct PendingTurn {
    pub input: ModelInput,
    config: Arc<Config>,
    /// `toolDefinitions` as the next context stores them (shared with the job's context).
    tools_json: SharedJson,
    metrics: Metrics,
    last_iteration_key: u64,
    /// The stored messages (system first) plus this call's input messages, shared.
    messages: Vec<SharedJson>,
    conversation_id: String,
    interrupted: bool,
    mcp_clients: Vec<String>,
    failure: FailureContext,
    process_definition_key: u64,
    process_instance_key: u64,
    /// `metadata.agentInstanceKey`, when the agent has an instance.
    agent_instance_key: Option<u64>,
    now: Option<String>,
    kind: job::Kind,
}

/// The first half of a job: answer now, or ask the model.
#[derive(Debug, Clone)]
pub enum Step {
    Answer(JobAnswer),
    AskModel(Box<PendingTurn>),
}

/// A tool call as the mock sends it on: id assigned, name and arguments as the model wrote
/// them (borrowed from the turn).
#[derive(Debug, Clone, PartialEq)]
pub struct SentToolCall<'t> {
    pub id: String,
    pub name: &'t str,
    pub arguments: &'t Arguments,
}

impl PendingTurn {
    /// Takes what the model is asked (leaves an empty input behind).
    pub fn take_input(&mut self) -> ModelInput {
        let limits = self.input.limits;
        std::mem::replace(
            &mut self.input,
            ModelInput {
                system_prompt: None,
                user_prompt: None,
                tools: Arc::new([]),
                tool_call_results: SharedJson::default(),
                events: Vec::new(),
                messages: SentMessages::default(),
                response_format: ResponseFormat::Text { parse_json: false },
                limits,
            },
        )
    }

    /// The model calls persisted before this one.
    pub fn persisted_model_calls(&self) -> u64 {
        self.metrics.model_calls
    }
}

/// Where a state of the connector leads.
enum Transition {
    /// The agent is ready for a turn of the conversation.
    Ready(ReadyTools),
    /// The job is answered without a model call (a failure, a wait, the start of tool
    /// discovery).
    Answer(JobAnswer),
}

/// The tools a ready agent offers: resolved by this job, or the stored ones (read after the
/// waits); and the results of the tool discovery, which are no tool results of the turn.
struct ReadyTools {
    resolved: Option<AgentTools>,
    discovery_results: Vec<String>,
}

/// Reads one agent job (of either flavour, [`AgentJob::flavour`]). `Err` is a connector feature
/// the mock does not play. `cache` carries what earlier jobs read.
pub fn prepare(job: &AgentJob<'_>, cache: &mut ElementCache) -> Result<Step, Unsupported> {
    let input = flavour::input(job);
    let failure = FailureContext::of(job);
    let cache = cache.entry(job);
    // Input binding and validation by the connector runtime: failures are incidents at once.
    let config = match cache.config(input.provider, input.data, input.kind) {
        Ok(config) => config,
        Err(violations) => {
            return Ok(Step::Answer(JobAnswer::Fail(
                failure.invalid_input(&violations),
            )));
        }
    };
    let context = StoredContext::read(input.context.as_ref());
    let state = context.state().map_err(|other| {
        Unsupported(format!(
            "the agent context of \"{}\" is in state {other}, which the mock does not play",
            job.element_id
        ))
    })?;
    let transition = match state {
        AgentState::Initializing => initializing::initialize(job, &input, cache, &failure)?,
        AgentState::ToolDiscovery => gateway::tool_discovery(context, &input),
        AgentState::Ready => Transition::Ready(ReadyTools {
            resolved: None,
            discovery_results: Vec::new(),
        }),
    };
    Ok(match transition {
        Transition::Answer(answer) => Step::Answer(answer),
        Transition::Ready(tools) => ready::turn(ready::TurnInput {
            job,
            input: &input,
            context,
            tools,
            config,
            cache,
            failure,
        }),
    })
}

/// The second half of a job when the model call failed before it answered: the connector's
/// failure with its error code and message (a `ConnectorException`: one retry fewer, the
/// `retryBackoff` header).
pub fn fail_model_call(pending: PendingTurn, code: &str, message: String) -> JobAnswer {
    JobAnswer::Fail(pending.failure.connector(Some(code), message))
}

/// The second half of a job: the model answered with `turn`; `calls` are its tool calls with ids.
pub fn finish(pending: PendingTurn, turn: &Turn, calls: &[SentToolCall<'_>]) -> JobAnswer {
    let kind = pending.kind;
    match response::respond(pending, turn, calls) {
        Ok(response) => JobAnswer::Complete(kind.complete(response)),
        Err(failure) => JobAnswer::Fail(*failure),
    }
}
