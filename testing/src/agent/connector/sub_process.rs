//! The AI Agent Sub-process flavour (`io.camunda.agenticai:aiagent-job-worker:1`): the job worker
//! of an ad-hoc sub-process. It reads the variables it fetches and completes the job with an
//! ad-hoc sub-process result: the tools to activate (each inner instance with its `toolCall` and
//! an empty `toolCallResult`), or the fulfilled completion condition with the final `agent`.

use baton_engine::runtime::SharedJson;
use serde_json::json;

use super::job::{AgentJob, ElementActivation, JobAnswer, JobCompletion, SharedVariables};
use super::response::AgentResponse;

/// What the connector reads from a job.
pub(super) struct AgentInput<'a> {
    /// `agentContext`: the context the last job stored.
    pub(super) context: Option<&'a SharedJson>,
    /// `toolCallResults`: the results (and events) that arrived since.
    pub(super) tool_call_results: Option<&'a SharedJson>,
    /// `adHocSubProcessElements`: the tools the ad-hoc sub-process offers.
    pub(super) elements: Option<&'a SharedJson>,
    pub(super) provider: Option<&'a SharedJson>,
    pub(super) data: Option<&'a SharedJson>,
}

/// The job's fetched variables, as the connector reads them.
pub(super) fn input<'a>(job: &'a AgentJob<'_>) -> AgentInput<'a> {
    let variables = &job.variables;
    AgentInput {
        context: variables.get("agentContext"),
        tool_call_results: variables.get("toolCallResults"),
        elements: variables.get("adHocSubProcessElements"),
        provider: variables.get("provider"),
        data: variables.get("data"),
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
        ..JobCompletion::default()
    };
    completion
        .variables
        .insert("agentContext".into(), response.context);
    match response.final_response {
        Some(agent) => {
            completion.variables.insert("agent".into(), agent);
            completion.completion_condition_fulfilled = true;
        }
        None => {
            completion
                .variables
                .insert("toolCallResults".into(), SharedJson::new(json!([])));
        }
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
