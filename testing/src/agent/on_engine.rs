//! The seam to the engine: hands an activated agent job of a [`baton_engine`] `Engine` to an
//! [`AiAgentMock`] and applies the answer (complete with the ad-hoc sub-process result, fail, or
//! throw a BPMN error).
//! Everything else in [`crate::agent`] is engine-independent; this is the one place that is not.

use baton_engine::runtime::{Engine, JobResult, Key, Rejection, VariableDocument};

use super::connector::{AgentJob, FetchedVariables, JobAnswer};
use super::mock::{AgentMockFailure, AiAgentMock};

/// The job type of the AI Agent Sub-process connector.
pub const AGENT_JOB_TYPE: &str = "io.camunda.agenticai:aiagent-job-worker:1";

/// What became of one agent job.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentJobOutcome {
    /// Completed; `no_op` when the connector only waited for more results.
    Completed { no_op: bool },
    /// Failed as the connector fails it (retries left, the message).
    Failed { retries: i32, message: String },
    /// A BPMN error was thrown (the `errorExpression` header's `bpmnError(…)`).
    ErrorThrown { code: String },
    /// The engine refused the command, e.g. NOT_FOUND for an unknown tool or a superseded job.
    Rejected(Rejection),
}

/// Answers the activated job `job_key` with `mock` and applies the answer to `engine`.
pub fn answer_agent_job(
    engine: &mut Engine,
    job_key: Key,
    mock: &mut AiAgentMock,
) -> Result<AgentJobOutcome, AgentMockFailure> {
    let Some(job) = engine.job(job_key) else {
        return Ok(AgentJobOutcome::Rejected(Rejection::new(
            baton_engine::runtime::RejectionType::NotFound,
            format!("Expected to complete job with key '{job_key}', but no such job was found"),
        )));
    };
    // Only the fetched variables are kept (outermost first: the innermost one wins).
    let mut variables = FetchedVariables::default();
    engine.for_each_visible_variable(job.element_instance_key, |name, value| {
        variables.set(name, value);
    });
    let process_definition_key = engine
        .process_instance(job.process_instance_key)
        .map_or(0, |p| p.process_definition_key);
    let now = jiff::Timestamp::from_millisecond(engine.now())
        .map(|t| t.to_string())
        .ok();
    let agent_job = AgentJob {
        job_key,
        element_id: &job.element_id,
        element_instance_key: job.element_instance_key,
        process_instance_key: job.process_instance_key,
        process_definition_key,
        retries: job.retries,
        variables,
        headers: &job.custom_headers,
        now: now.as_deref(),
    };
    let answer = mock.answer_job(agent_job)?;
    let applied = match answer {
        JobAnswer::Complete(completion) => {
            let no_op = completion.is_no_op();
            let (variables, result) = completion.into_job_result();
            engine
                .complete_job_with_result(
                    job_key,
                    variables,
                    Some(JobResult::AdHocSubProcess(result)),
                )
                .map(|()| AgentJobOutcome::Completed { no_op })
        }
        JobAnswer::Fail(failure) => {
            let backoff = failure
                .retry_backoff_ms
                .map_or(0, |ms| i64::try_from(ms).unwrap_or(i64::MAX));
            let variables: VariableDocument = failure.variables;
            engine
                .fail_job(
                    job_key,
                    failure.retries,
                    &failure.error_message,
                    backoff,
                    variables,
                )
                .map(|()| AgentJobOutcome::Failed {
                    retries: failure.retries,
                    message: failure.error_message,
                })
        }
        JobAnswer::ThrowError(thrown) => engine
            .throw_error(
                job_key,
                &thrown.code,
                thrown.message.as_deref().unwrap_or_default(),
                thrown.variables,
            )
            .map(|()| AgentJobOutcome::ErrorThrown { code: thrown.code }),
    };
    Ok(applied.unwrap_or_else(AgentJobOutcome::Rejected))
}

/// The tools of the agent element in document order (for messages; Zeebe's variable lists them
/// in hash order).
pub fn tool_order(engine: &Engine, bpmn_process_id: &str, element_id: &str) -> Vec<String> {
    let Some(process) = engine.latest_process(bpmn_process_id) else {
        return Vec::new();
    };
    let Some(idx) = process.find(element_id) else {
        return Vec::new();
    };
    let Some(ad_hoc) = process.ad_hoc_sub_process(idx) else {
        return Vec::new();
    };
    ad_hoc
        .activities
        .iter()
        .map(|&child| process.element_id(child).to_string())
        .collect()
}
