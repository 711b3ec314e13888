//! The AI Agent Sub-process flavour (`io.camunda.agenticai:aiagent-job-worker:1`,
//! `io.camunda.agenticai:aiagent:subprocess:2`; `AgentSubProcessRequestHandler`): the job worker
//! of an ad-hoc sub-process. It reads the variables it fetches and completes the job with an
//! ad-hoc sub-process result: the tools to activate (each inner instance with its `toolCall` and
//! an empty `toolCallResult`), or the fulfilled completion condition with the final `agent`.

use baton_engine::runtime::{Part, SharedJson};
use serde_json::json;

use super::job::{
    AgentInput, AgentJob, ElementActivation, JobAnswer, JobCompletion, Kind, SharedVariables,
    ToolSource,
};
use super::response::AgentResponse;

/// The job's fetched variables, as the connector reads them.
pub(super) fn input<'a>(job: &'a AgentJob<'_>) -> AgentInput<'a> {
    let variables = &job.variables;
    AgentInput {
        kind: Kind::SubProcess,
        context: variables.get("agentContext").cloned(),
        tool_call_results: variables.get("toolCallResults").cloned(),
        provider: variables.get("provider"),
        data: variables.get("data"),
        tools: ToolSource::Elements(variables.get("adHocSubProcessElements")),
    }
}

/// The answer while tool results are missing: a completion that changes nothing.
pub(super) fn waiting() -> JobAnswer {
    JobAnswer::Complete(JobCompletion::default())
}

/// The completion of a response: the context is stored; the final response completes the
/// ad-hoc sub-process, else the tool calls are activated (and the collected results reset).
pub(super) fn complete(response: AgentResponse) -> JobCompletion {
    let mut completion = JobCompletion {
        cancel_remaining_instances: response.cancel_remaining,
        response: Some(response.value()),
        ..JobCompletion::default()
    };
    completion
        .variables
        .insert("agentContext".into(), response.context.clone());
    if response.tool_calls.is_empty() {
        completion
            .variables
            .insert("agent".into(), final_response(&response));
        completion.completion_condition_fulfilled = true;
    } else {
        completion
            .variables
            .insert("toolCallResults".into(), SharedJson::new(json!([])));
    }
    for call in response.tool_calls {
        let mut variables = SharedVariables::with_capacity(2);
        variables.insert("toolCall".into(), call.tool_call);
        variables.insert("toolCallResult".into(), SharedJson::new("".into()));
        completion.activate_elements.push(ElementActivation {
            element_id: call.element_id,
            variables,
        });
    }
    completion
}

/// The `agent` variable of the final response (`AgentSubProcessResponse`, empty fields left
/// out): the context only with `includeAgentContext`, the assistant message only with
/// `includeAssistantMessage`.
fn final_response(response: &AgentResponse) -> SharedJson {
    let mut entries: Vec<(&str, Part)> = Vec::with_capacity(4);
    if response.include_agent_context {
        entries.push(("context", response.context.clone().into()));
    }
    if let Some(message) = &response.response_message {
        entries.push(("responseMessage", message.clone().into()));
    }
    if let Some(text) = &response.text {
        entries.push(("responseText", text.clone().into()));
    }
    if let Some(json) = response.json.as_ref().filter(|j| !j.view().is_empty()) {
        entries.push(("responseJson", json.clone().into()));
    }
    SharedJson::object(entries)
}
