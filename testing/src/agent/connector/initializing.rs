//! [`AgentState::Initializing`](super::AgentState::Initializing): a new agent resolves its tools
//! from the ad-hoc sub-process's elements (the Sub-process flavour's `adHocSubProcessElements`,
//! the Task flavour's container read from the process definition). Without gateway tools it
//! is ready at once; MCP clients are first asked for their tools (see `gateway`).

use super::cache::ElementEntry;
use super::context::AgentTools;
use super::failure::FailureContext;
use super::gateway;
use super::job::{AgentInput, AgentJob, JobAnswer, Unsupported};
use super::{ReadyTools, Transition};
use crate::agent::tools::{ResolvedTools, read_elements, resolve_tools};

/// The tools of a new agent, resolved once per element (and deployment, see `ToolCache`) for
/// the same elements.
pub(super) fn initialize(
    job: &AgentJob<'_>,
    input: &AgentInput<'_>,
    cache: &mut ElementEntry,
    failure: &FailureContext,
) -> Result<Transition, Unsupported> {
    let ready = |tools| {
        Transition::Ready(ReadyTools {
            resolved: Some(tools),
            discovery_results: Vec::new(),
        })
    };
    let elements_json = match input.tool_elements() {
        Ok(elements) => elements,
        Err(error) => {
            return Ok(Transition::Answer(JobAnswer::Fail(
                failure.connector(Some(error.code), error.message),
            )));
        }
    };
    if let Some(tools) = elements_json.as_ref().and_then(|e| cache.resolved(e)) {
        return Ok(ready(tools));
    }
    let elements = match &elements_json {
        Some(value) => read_elements(value).map_err(|e| Unsupported(e.to_string()))?,
        None => Vec::new(),
    };
    let ResolvedTools { tools, gateways } = match resolve_tools(&elements) {
        Ok(resolved) => resolved,
        Err(error) => {
            return Ok(Transition::Answer(JobAnswer::Fail(
                failure.connector(Some("AD_HOC_TOOL_SCHEMA_INVALID"), error.message),
            )));
        }
    };
    let unsupported: Vec<String> = gateways
        .iter()
        .filter(|g| g.gateway_type != "mcpClient")
        .map(|g| format!("{} ({})", g.element_id, g.gateway_type))
        .collect();
    if !unsupported.is_empty() {
        return Err(Unsupported(format!(
            "the agent \"{}\" has A2A client tools ({}); the mock does not play their agent-card discovery yet",
            job.element_id,
            unsupported.join(", ")
        )));
    }
    if !gateways.is_empty() {
        let clients: Vec<String> = gateways.iter().map(|g| g.element_id.clone()).collect();
        return Ok(Transition::Answer(gateway::start_tool_discovery(
            job,
            input.kind,
            &tools,
            &clients,
            input.agent_instance_key(job),
        )));
    }
    let tools = AgentTools::new(tools);
    if let Some(elements) = &elements_json {
        cache.remember(elements, &tools);
    }
    Ok(ready(tools))
}
