//! What goes in and out of the connector: one agent job ([`AgentJob`], its fetched variables)
//! and the worker's answer ([`JobAnswer`]: complete, fail, throw a BPMN error).

use std::borrow::Borrow;

use baton_engine::runtime::{AdHocJobResult, SharedJson};
use indexmap::IndexMap;
use serde_json::{Value, json};

/// Variables by name, in order (the engine's variable document).
pub type Variables = IndexMap<String, Value>;

/// Variables by name whose values are shared with the engine (a job's variables: reading a
/// job copies nothing; a completion's values share the parts of the job's it was built from).
pub type SharedVariables = baton_engine::runtime::SharedVariableDocument;

/// Variables whose values are shared (nothing is copied).
pub fn share_variables(variables: Variables) -> SharedVariables {
    baton_engine::runtime::share_document(variables)
}

/// The variables the connector's job worker fetches (`fetchVariables` of `AiAgentJobWorker`):
/// nothing else of the scope reaches it.
pub const FETCHED_VARIABLES: [&str; 5] = [
    "adHocSubProcessElements",
    "agentContext",
    "toolCallResults",
    "provider",
    "data",
];

/// The job's variables as the worker fetches them, out of every variable visible from the
/// job's element (outermost scope first, so a later one hides an earlier one of the same name):
/// only the [`FETCHED_VARIABLES`] are kept (shared, not copied).
pub fn fetch_variables<N: AsRef<str>, V: Borrow<SharedJson>>(
    visible: impl IntoIterator<Item = (N, V)>,
) -> FetchedVariables {
    let mut fetched = FetchedVariables::default();
    for (name, value) in visible {
        fetched.set(name.as_ref(), value.borrow());
    }
    fetched
}

/// The variables of one agent job as the worker fetches them: each of [`FETCHED_VARIABLES`],
/// or absent. A fixed slot per name; the values are shared with the engine.
#[derive(Debug, Clone, Default)]
pub struct FetchedVariables([Option<SharedJson>; FETCHED_VARIABLES.len()]);

impl FetchedVariables {
    /// The fetched variable `name` (`None` when it is not set or not fetched).
    pub fn get(&self, name: &str) -> Option<&SharedJson> {
        let i = FETCHED_VARIABLES.iter().position(|f| *f == name)?;
        self.0[i].as_ref()
    }

    /// Sets `name` when the worker fetches it (shares the value); `false` for a name it does
    /// not fetch.
    pub fn set(&mut self, name: &str, value: &SharedJson) -> bool {
        match FETCHED_VARIABLES.iter().position(|f| *f == name) {
            Some(i) => {
                self.0[i] = Some(value.clone());
                true
            }
            None => false,
        }
    }

    /// The variables that are set, in [`FETCHED_VARIABLES`] order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &SharedJson)> {
        FETCHED_VARIABLES
            .iter()
            .zip(&self.0)
            .filter_map(|(name, value)| Some((*name, value.as_ref()?)))
    }
}

/// Which of the AI Agent connectors a job is for.
#[derive(Clone, Copy)]
pub enum Flavour<'a> {
    /// The AI Agent Sub-process (`io.camunda.agenticai:aiagent-job-worker:1`,
    /// `io.camunda.agenticai:aiagent:subprocess:2`): the job of the ad-hoc sub-process that holds
    /// the tools.
    SubProcess,
    /// The AI Agent Task (`io.camunda.agenticai:aiagent:1`, `io.camunda.agenticai:aiagent:task:2`):
    /// the job of a service task. Its tools are the elements of the ad-hoc sub-process that
    /// `data.tools.containerElementId` names, read from the job's process definition.
    Task(&'a dyn ToolContainers),
}

impl std::fmt::Debug for Flavour<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Flavour::SubProcess => "SubProcess",
            Flavour::Task(_) => "Task",
        })
    }
}

/// The ad-hoc sub-processes of a job's process definition, as the AI Agent Task reads them to
/// find its tools (`ProcessDefinitionAdHocToolElementsResolver`).
pub trait ToolContainers {
    /// The tool elements of the ad-hoc sub-process `container_id`, in the shape of
    /// `adHocSubProcessElements` (`[{elementId, elementName?, documentation?, properties?,
    /// parameters?}]`), or the connector's error.
    fn tool_elements(&self, container_id: &str) -> Result<SharedJson, ToolContainerError>;
}

/// Why the AI Agent Task cannot read the tools of its ad-hoc sub-process: the connector's error
/// code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolContainerError {
    /// `AD_HOC_SUB_PROCESS_NOT_FOUND` or `AD_HOC_TOOL_DEFINITION_INVALID`.
    pub code: &'static str,
    pub message: String,
}

/// One agent job, as the engine hands it to the worker.
#[derive(Debug, Clone)]
pub struct AgentJob<'a> {
    /// The connector the job is for.
    pub flavour: Flavour<'a>,
    pub job_key: u64,
    /// The agent element: the ad-hoc sub-process (Sub-process flavour) or the service task
    /// (Task flavour).
    pub element_id: &'a str,
    pub element_instance_key: u64,
    pub process_instance_key: u64,
    pub process_definition_key: u64,
    /// The retries of the activated job.
    pub retries: i32,
    /// The job's variables (the Sub-process connector fetches `adHocSubProcessElements`,
    /// `agentContext`, `toolCallResults`, `provider`, `data`; the Task connector `provider` and
    /// `data`), shared with the engine.
    pub variables: FetchedVariables,
    /// The task headers (`retryBackoff`, `elementTemplateVersion`, ...).
    pub headers: &'a IndexMap<String, String>,
    /// The engine clock as an ISO-8601 date-time with offset, for message timestamps.
    pub now: Option<&'a str>,
}

/// What the worker answers.
#[derive(Debug, Clone, PartialEq)]
pub enum JobAnswer {
    Complete(JobCompletion),
    Fail(JobFailure),
    /// A BPMN error thrown from the job (the `errorExpression` header's `bpmnError(…)`).
    ThrowError(ThrownError),
}

/// A ThrowError command: caught by an error boundary event on the ad-hoc sub-process or an
/// outer scope, else an incident.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrownError {
    pub code: String,
    pub message: Option<String>,
    pub variables: Variables,
}

/// A job completion: with an ad-hoc sub-process result (Sub-process flavour), or plain (Task
/// flavour).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobCompletion {
    /// Sub-process: merged into the ad-hoc sub-process scope (`agentContext`, `toolCallResults`,
    /// `agent`); the new context shares the stored conversation and tool definitions of the
    /// job's, and `agent.context` is the new context itself. Task: the result variable (`agent`).
    pub variables: SharedVariables,
    /// A plain completion (the AI Agent Task's job): no ad-hoc sub-process result; the fields
    /// below stay empty.
    pub plain: bool,
    /// The connector's result value, the agent response `{context, toolCalls, responseMessage?,
    /// responseText?, responseJson?}` (what `errorExpression` and `resultExpression` read);
    /// `None` when the job only waited or started a tool discovery.
    pub response: Option<SharedJson>,
    pub activate_elements: Vec<ElementActivation>,
    pub completion_condition_fulfilled: bool,
    pub cancel_remaining_instances: bool,
}

/// One element to activate, with the local variables of its inner instance.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementActivation {
    pub element_id: String,
    /// The inner instance's variables (`toolCall`, `toolCallResult`).
    pub variables: SharedVariables,
}

/// A FailJob command, as the connector runtime sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobFailure {
    /// `max(retries - 1, 0)`, or 0 for input errors.
    pub retries: i32,
    /// The `retryBackoff` header in milliseconds (none when the header is absent).
    pub retry_backoff_ms: Option<u64>,
    /// `<message> | Error variables: {error={…}}`, as the incident will show it.
    pub error_message: String,
    /// `{error: {type, message, code?}}`.
    pub variables: Variables,
    /// The connector's error code (`FAILED_MODEL_CALL`, ...), if it has one.
    pub code: Option<String>,
    /// The exception message alone.
    pub message: String,
}

impl JobCompletion {
    /// A completion that changes nothing (the connector waits for more results).
    pub fn is_no_op(&self) -> bool {
        !self.plain
            && self.variables.is_empty()
            && self.activate_elements.is_empty()
            && !self.completion_condition_fulfilled
            && !self.cancel_remaining_instances
    }

    /// The completion as the engine takes it: the variables for the sub-process scope and the
    /// ad-hoc sub-process job result.
    pub fn into_job_result(self) -> (SharedVariables, AdHocJobResult) {
        let result = AdHocJobResult {
            activate_elements: self
                .activate_elements
                .into_iter()
                .map(|a| (a.element_id, a.variables))
                .collect(),
            completion_condition_fulfilled: self.completion_condition_fulfilled,
            cancel_remaining_instances: self.cancel_remaining_instances,
        };
        (self.variables, result)
    }
}

/// Something the connector does that the mock cannot play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

impl JobAnswer {
    /// The answer as JSON, in the shape of Zeebe's REST API (`result.type = "adHocSubProcess"`,
    /// FailJob's `retries`, `errorMessage`, `retryBackOff`, `variables`, ThrowError's
    /// `errorCode`, `errorMessage`, `variables`).
    pub fn to_json(&self) -> Value {
        match self {
            JobAnswer::Complete(completion) if completion.plain => json!({
                "complete": {"variables": completion.variables}
            }),
            JobAnswer::Complete(completion) => json!({
                "complete": {
                    "variables": completion.variables,
                    "result": {
                        "type": "adHocSubProcess",
                        "activateElements": completion.activate_elements.iter().map(|a| json!({"elementId": a.element_id, "variables": a.variables})).collect::<Vec<_>>(),
                        "isCompletionConditionFulfilled": completion.completion_condition_fulfilled,
                        "isCancelRemainingInstances": completion.cancel_remaining_instances,
                    }
                }
            }),
            JobAnswer::ThrowError(thrown) => json!({
                "throwError": {
                    "errorCode": thrown.code,
                    "errorMessage": thrown.message,
                    "variables": thrown.variables,
                }
            }),
            JobAnswer::Fail(failure) => json!({
                "fail": {
                    "retries": failure.retries,
                    "retryBackOff": failure.retry_backoff_ms,
                    "errorMessage": failure.error_message,
                    "variables": failure.variables,
                }
            }),
        }
    }
}

/// Which flavour a job is for (kept past the job, for its answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    SubProcess,
    Task,
}

/// What the connector reads from a job, whichever the flavour.
pub(super) struct AgentInput<'a> {
    pub(super) kind: Kind,
    /// The context the last job stored.
    pub(super) context: Option<SharedJson>,
    /// The results (and events) that arrived since.
    pub(super) tool_call_results: Option<SharedJson>,
    pub(super) provider: Option<&'a SharedJson>,
    pub(super) data: Option<&'a SharedJson>,
    /// Where a new agent's tools come from.
    pub(super) tools: ToolSource<'a>,
}

impl AgentInput<'_> {
    /// The key of the agent instance the job reports to (`metadata.agentInstanceKey`): the
    /// stored context's, else, for a job without a context, the one the connector creates
    /// (`AgentInitializerImpl.provisionAgentInstance`). baton's agent instance key is the key of
    /// the element instance that created it.
    pub(super) fn agent_instance_key(&self, job: &AgentJob<'_>) -> Option<u64> {
        match &self.context {
            Some(context) if !context.view().is_null() => context
                .view()
                .at(&["metadata", "agentInstanceKey"])
                .and_then(|k| k.as_u64()),
            _ => Some(job.element_instance_key),
        }
    }
}

/// Where a new agent's tools come from.
pub(super) enum ToolSource<'a> {
    /// The ad-hoc sub-process's own `adHocSubProcessElements` (none when it is not set).
    Elements(Option<&'a SharedJson>),
    /// The ad-hoc sub-process `data.tools.containerElementId` names (none when it is blank),
    /// read from the process definition.
    Container {
        id: Option<String>,
        containers: &'a dyn ToolContainers,
    },
}

impl AgentInput<'_> {
    /// The elements a new agent's tools are resolved from (`None`: no tools), or why the
    /// connector cannot read them.
    pub(super) fn tool_elements(&self) -> Result<Option<SharedJson>, ToolContainerError> {
        match &self.tools {
            ToolSource::Elements(elements) => Ok(elements.cloned()),
            ToolSource::Container { id: None, .. } => Ok(None),
            ToolSource::Container {
                id: Some(id),
                containers,
            } => containers.tool_elements(id).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_fetched_variables_reach_the_worker_the_innermost_one_wins() {
        let outer_context = SharedJson::new(json!({"state": "OUTER"}));
        let inner_context = SharedJson::new(json!({"state": "READY"}));
        let data = SharedJson::new(json!({"userPrompt": {"prompt": "hi"}}));
        let other = SharedJson::new(json!("not fetched"));
        let fetched = fetch_variables([
            ("agentContext", &outer_context),
            ("customerMessage", &other),
            ("data", &data),
            ("agentContext", &inner_context),
        ]);
        assert_eq!(
            fetched.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            ["agentContext", "data"]
        );
        assert!(fetched.get("agentContext").unwrap().ptr_eq(&inner_context));
        assert!(fetched.get("customerMessage").is_none());
    }
}
