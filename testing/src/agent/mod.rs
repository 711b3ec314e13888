//! The AI Agent mock: plays the AI Agent connectors, the Sub-process flavour
//! (`io.camunda.agenticai:aiagent-job-worker:1`, `…:aiagent:subprocess:2`) and the Task flavour
//! (`io.camunda.agenticai:aiagent:1`, `…:aiagent:task:2`), turn by turn, with the model's turns scripted, replayed from a cassette, or computed by a handler.
//!
//! - [`turn`] — a model turn (tool calls, a response, an error, malformed replies) and its JSON form.
//! - [`cassette`] — `{version: 1, agent, turns}` files: validated reading, atomic writing.
//! - [`tools`] — `adHocSubProcessElements` → the tool definitions the model is offered, with the
//!   connector's rules and messages.
//! - [`arguments`] — a scripted call's arguments against the tool's schema.
//! - [`connector`] — the connector as a state machine over the context's states
//!   ([`AgentState`]): one job in, one answer out.
//! - [`result_mapping`] — the `resultVariable` and `resultExpression` headers of the Task
//!   flavour's plain completion.
//! - [`error_expression`] — the `errorExpression` header: `bpmnError`/`jobError`/`ignoreError`
//!   applied to every answer, with the runtime's FEEL functions given only to that expression.
//! - [`mock`] — [`AiAgentMock`]: the script's cursor, what the model saw (`requests`), the tool calls.
//! - [`request`] — what the mock records: [`AgentRequest`] (what the model saw on a call) and
//!   [`ToolCallRecord`] (a tool call it made).
//! - [`matchers`] — `assert_called_tools` and argument matchers.
//! - [`instances`] — agent instances (8.10): status, metrics, limits and history with commit
//!   status, derived from the jobs handed to the mock and the engine's log.
//! - [`on_engine`] — the one engine-aware part: answer an `Engine`'s agent job with a mock.
//! - [`recording`] — cassettes of format 2: record, replay that checks each request, drift in
//!   BPMN terms, import from a real run's `agentContext`.
//! - `handle` — `ProcessTest::mock_ai_agent` and its [`AiAgentHandle`], through the
//!   element-answerer seam of the process test.
//! - `one_tool` — `ProcessTest::run_tool`: one tool of an agent run on its own ([`ToolRun`]).
//!
//! Nothing else here depends on the engine: a job is JSON variables plus keys ([`AgentJob`]), an
//! answer is a completion, a failure or a thrown BPMN error ([`JobAnswer`]).

pub mod arguments;
pub mod cassette;
pub mod connector;
pub mod error_expression;
pub(crate) mod handle;
pub mod instances;
pub mod matchers;
pub mod mock;
pub mod on_engine;
mod one_tool;
pub(crate) mod problems;
pub mod recording;
pub mod request;
pub mod result_mapping;
mod templates;
pub mod tools;
pub mod turn;

pub use cassette::{CASSETTE_VERSION, Cassette, CassetteError};
pub use connector::{
    AgentJob, AgentState, ElementActivation, FetchedVariables, Flavour, JobAnswer, JobCompletion,
    JobFailure, Limits, ResponseFormat, SharedVariables, ThrownError, ToolCache,
    ToolContainerError, ToolContainers, Variables, fetch_variables,
};
pub use handle::{AiAgentHandle, MockAiAgentError, NotAllTurnsUsed, is_agent};
pub use instances::{
    AgentInstance, AgentInstanceMismatch, AgentLimits, AgentMetrics, AgentStatus, CommitStatus,
    ExpectedAgentInstance, ExpectedMetrics, HistoryItem, HistoryRole, HistoryToolCall,
};
pub use matchers::{
    ExpectedCall, Matcher, MatcherMismatch, ToolCallsDiffer, any_number, any_string, anything,
    call, contains, matches_regex, object, object_containing, predicate, tool,
};
pub use mock::{
    AgentMockFailure, AgentMockFailureKind, AgentRequest, AgentScript, AiAgentMock, OnExhausted,
    ToolCallRecord, UnusedTurns,
};
pub use one_tool::ToolRun;
pub use problems::{Problem, Problems};
pub use tools::{ElementsError, ToolDefinition, ToolSchemaError};
pub use turn::{Arguments, TextCallStyle, ToolCall, Turn, Usage};
