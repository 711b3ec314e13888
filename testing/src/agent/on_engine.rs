//! The seam to the engine: hands an activated agent job of a [`baton_engine`] `Engine` to an
//! [`AiAgentMock`] and applies the answer (complete with the ad-hoc sub-process result or
//! plainly, fail, or throw a BPMN error); and reads the tools of an AI Agent Task from the
//! deployed process ([`DefinitionTools`]).
//! Everything else in [`crate::agent`] is engine-independent; this is the one place that is not.

use baton_engine::model::ElementKind;
use baton_engine::runtime::{
    Engine, ExecutableProcess, JobKind, JobResult, Key, Rejection, SharedJson, VariableDocument,
};
use serde_json::{Map, Value};

use super::connector::{
    AgentJob, FetchedVariables, Flavour, JobAnswer, ToolContainerError, ToolContainers,
};
use super::mock::{AgentMockFailure, AiAgentMock};

/// The job type of the AI Agent Sub-process connector (template
/// `io.camunda.connectors.agenticai.aiagent.jobworker.v1`).
pub const AGENT_JOB_TYPE: &str = "io.camunda.agenticai:aiagent-job-worker:1";
/// The job type of the v2 AI Agent Sub-process connector (`AgentSubProcessV2Function`).
pub const AGENT_SUB_PROCESS_V2_JOB_TYPE: &str = "io.camunda.agenticai:aiagent:subprocess:2";
/// The job types of the AI Agent Task connector: v1 (`AgentTaskV1Function`, template
/// `io.camunda.connectors.agenticai.aiagent.v1`) and v2 (`AgentTaskV2Function`).
pub const AGENT_TASK_JOB_TYPES: [&str; 2] = [
    "io.camunda.agenticai:aiagent:1",
    "io.camunda.agenticai:aiagent:task:2",
];

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
    let tools = DefinitionTools::of(engine, process_definition_key);
    let flavour = match job.kind {
        JobKind::AdHocSubProcess => Flavour::SubProcess,
        _ => Flavour::Task(&tools),
    };
    let agent_job = AgentJob {
        flavour,
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
        JobAnswer::Complete(completion) if completion.plain => engine
            .complete_job_with_result(job_key, completion.variables, None)
            .map(|()| AgentJobOutcome::Completed { no_op: false }),
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

/// The ad-hoc sub-processes of one deployed process, as the AI Agent Task's tool resolver reads
/// them from the process definition (camunda/connectors
/// `CamundaClientProcessDefinitionAdHocToolElementsResolver`): the direct children of the ad-hoc
/// sub-process that are flow nodes without incoming flows and no boundary events, in document
/// order; each with its name, its first non-blank documentation, its `zeebe:properties`, and
/// the `fromAi()` parameters of its input and output mappings.
pub struct DefinitionTools<'e> {
    process: Option<&'e ExecutableProcess>,
}

impl<'e> DefinitionTools<'e> {
    /// The tools of the process definition `key` (none found when it is not deployed).
    pub fn of(engine: &'e Engine, process_definition_key: Key) -> DefinitionTools<'e> {
        DefinitionTools {
            process: engine
                .deployed_processes()
                .find(|p| p.key() == process_definition_key),
        }
    }

    /// The tools of `process`.
    pub fn in_process(process: &'e ExecutableProcess) -> DefinitionTools<'e> {
        DefinitionTools {
            process: Some(process),
        }
    }
}

impl ToolContainers for DefinitionTools<'_> {
    fn tool_elements(&self, container_id: &str) -> Result<SharedJson, ToolContainerError> {
        let not_found = || ToolContainerError {
            code: "AD_HOC_SUB_PROCESS_NOT_FOUND",
            message: format!(
                "Unable to resolve tool elements. Ad-hoc sub-process with ID '{container_id}' was not found."
            ),
        };
        let process = self.process.ok_or_else(not_found)?;
        let idx = process.find(container_id).ok_or_else(not_found)?;
        if process.ad_hoc_sub_process(idx).is_none() {
            return Err(not_found());
        }
        let mut elements = Vec::new();
        for &child in &process.model_element(idx).children {
            let element = process.model_element(child);
            if !element.incoming.is_empty()
                || matches!(element.kind, ElementKind::BoundaryEvent { .. })
            {
                continue;
            }
            elements.push(tool_element(element)?);
        }
        Ok(SharedJson::new(Value::Array(elements)))
    }
}

/// One tool element (`AdHocToolElement`: null fields and empty properties and parameters left
/// out).
fn tool_element(element: &baton_engine::model::Element) -> Result<Value, ToolContainerError> {
    let mut tool = Map::new();
    tool.insert("elementId".into(), Value::from(element.id.as_str()));
    if let Some(name) = &element.name {
        tool.insert("elementName".into(), Value::from(name.as_str()));
    }
    if let Some(doc) = element
        .documentation
        .first()
        .filter(|d| !d.trim().is_empty())
    {
        tool.insert("documentation".into(), Value::from(doc.as_str()));
    }
    let properties: Map<String, Value> = element
        .zeebe
        .properties
        .iter()
        .filter_map(|p| Some((p.name.clone(), Value::from(p.value.clone()?))))
        .collect();
    if !properties.is_empty() {
        tool.insert("properties".into(), Value::Object(properties));
    }
    let mut parameters = Vec::new();
    let mappings = [
        ("input", &element.zeebe.input_mappings),
        ("output", &element.zeebe.output_mappings),
    ];
    for (kind, mappings) in mappings {
        for mapping in mappings {
            let Some(source) = mapping.source.as_ref() else {
                continue;
            };
            let Some(feel) = source.text.trim().strip_prefix('=') else {
                continue;
            };
            let invalid = |message: String| ToolContainerError {
                code: "AD_HOC_TOOL_DEFINITION_INVALID",
                message: format!(
                    "Invalid ad-hoc tool definition for element '{}' on {kind} mapping '{}': {message}",
                    element.id, mapping.target
                ),
            };
            let expression = baton_feel::Expression::parse(feel)
                .map_err(|e| invalid(format!("Failed to parse FEEL expression: {e}")))?;
            for p in baton_feel::from_ai::extract(&expression).map_err(invalid)? {
                let mut parameter = Map::new();
                parameter.insert("name".into(), Value::from(p.name));
                for (key, value) in [("description", p.description), ("type", p.type_)] {
                    if let Some(value) = value {
                        parameter.insert(key.into(), Value::from(value));
                    }
                }
                for (key, value) in [("schema", p.schema), ("options", p.options)] {
                    match value {
                        Some(Value::Object(map)) if map.is_empty() => {}
                        Some(value) => {
                            parameter.insert(key.into(), value);
                        }
                        None => {}
                    }
                }
                parameters.push(Value::Object(parameter));
            }
        }
    }
    if !parameters.is_empty() {
        tool.insert("parameters".into(), Value::Array(parameters));
    }
    Ok(Value::Object(tool))
}
