//! The AI Agent Task flavour (`io.camunda.agenticai:aiagent:1`, `io.camunda.agenticai:aiagent:task:2`;
//! `AgentTaskV1Function`, `AgentTaskExecutionContext`, `AgentTaskRequestHandler`): an outbound
//! connector on a service task. It reads only `provider` and `data`: the stored context is
//! `data.context`, the results are `data.tools.toolCallResults`, and a new agent's tools are the
//! elements of the ad-hoc sub-process `data.tools.containerElementId` names. Every job completes
//! plainly with the agent response as the connector's result, which the runtime maps to
//! variables (`resultVariable`, `resultExpression`: see `agent::output_variables`); the process
//! routes its `toolCalls` through that ad-hoc sub-process and back.

use baton_engine::runtime::JsonRef;

use super::failure::FailureContext;
use super::job::{AgentInput, AgentJob, Flavour, JobAnswer, JobCompletion, Kind, ToolSource};
use super::response::AgentResponse;

/// `provider` and `data`, and the parts of `data` the Task flavour reads.
pub(super) fn input<'a>(job: &'a AgentJob<'_>) -> AgentInput<'a> {
    let variables = &job.variables;
    let data = variables.get("data");
    let at = |path: &[&str]| {
        data.and_then(|d| d.view().at(path))
            .filter(|v| !v.is_null())
            .map(JsonRef::to_shared)
    };
    let container = data
        .and_then(|d| d.view().at(&["tools", "containerElementId"]))
        .and_then(JsonRef::as_str)
        .filter(|id| !id.trim().is_empty())
        .map(str::to_string);
    let tools = match job.flavour {
        Flavour::Task(containers) => ToolSource::Container {
            id: container,
            containers,
        },
        Flavour::SubProcess => ToolSource::Elements(None),
    };
    AgentInput {
        kind: Kind::Task,
        context: at(&["context"]),
        tool_call_results: at(&["tools", "toolCallResults"]),
        provider: variables.get("provider"),
        data,
        tools,
    }
}

/// The no-op while tool results are missing: the job completes with no response (the result
/// variable becomes null).
pub(super) fn waiting() -> JobAnswer {
    JobAnswer::Complete(JobCompletion {
        plain: true,
        ..JobCompletion::default()
    })
}

/// A turn with nothing to send (`handleNoInput`): the Task flavour fails the job.
pub(super) fn no_input(failure: &FailureContext) -> JobAnswer {
    JobAnswer::Fail(failure.connector(
        Some("NO_USER_MESSAGE_CONTENT"),
        "Agent cannot proceed as no user message content (user message, tool call results) is left to add."
            .to_string(),
    ))
}

/// The job completes with the agent response `{context, toolCalls, responseMessage?,
/// responseText?, responseJson?}` as the connector's result.
pub(super) fn complete(response: AgentResponse) -> JobCompletion {
    JobCompletion {
        plain: true,
        response: Some(response.value()),
        ..JobCompletion::default()
    }
}
