//! The two flavours of the connector, which read a job and answer it each in its own way around
//! the same states:
//! - the AI Agent Sub-process (`sub_process`): the job of the ad-hoc sub-process that holds the
//!   tools; it reads `agentContext`, `toolCallResults` and `adHocSubProcessElements`, and
//!   completes the job with an ad-hoc sub-process result;
//! - the AI Agent Task (`task`): the job of a service task; it reads `data.context`,
//!   `data.tools.toolCallResults` and the tools of the ad-hoc sub-process that
//!   `data.tools.containerElementId` names, and completes the job plainly with the agent
//!   response as its result; the process loops it through that ad-hoc sub-process.

use baton_engine::runtime::SharedJson;

use super::failure::FailureContext;
use super::job::{AgentJob, Flavour, JobAnswer, JobCompletion, ToolContainerError, ToolContainers};
use super::response::AgentResponse;
use super::{sub_process, task};

/// Which flavour a job is for (kept past the job, for its answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    SubProcess,
    Task,
}

impl Kind {
    /// The answer while tool results are missing (the connector's no-op).
    pub(super) fn waiting(self) -> JobAnswer {
        match self {
            Kind::SubProcess => sub_process::waiting(),
            Kind::Task => task::waiting(),
        }
    }

    /// The answer when a turn has no input at all (no prompt, no results, no events).
    pub(super) fn no_input(self, failure: &FailureContext) -> JobAnswer {
        match self {
            Kind::SubProcess => sub_process::waiting(),
            Kind::Task => task::no_input(failure),
        }
    }

    /// The job's completion with an agent response.
    pub(super) fn complete(self, response: AgentResponse) -> JobCompletion {
        match self {
            Kind::SubProcess => sub_process::complete(response),
            Kind::Task => task::complete(response),
        }
    }
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

/// Reads a job as its flavour of the connector does.
pub(super) fn input<'a>(job: &'a AgentJob<'_>) -> AgentInput<'a> {
    match job.flavour {
        Flavour::SubProcess => sub_process::input(job),
        Flavour::Task(_) => task::input(job),
    }
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
