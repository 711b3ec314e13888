//! The two flavours of the connector, which read a job and answer it each in its own way around
//! the same states:
//! - the AI Agent Sub-process (`sub_process`): the job of the ad-hoc sub-process that holds the
//!   tools; it reads `agentContext`, `toolCallResults` and `adHocSubProcessElements`, and
//!   completes the job with an ad-hoc sub-process result;
//! - the AI Agent Task (`task`): the job of a service task; it reads `data.context`,
//!   `data.tools.toolCallResults` and the tools of the ad-hoc sub-process that
//!   `data.tools.containerElementId` names, and completes the job plainly with the agent
//!   response as its result; the process loops it through that ad-hoc sub-process.

use super::failure::FailureContext;
use super::job::{AgentInput, AgentJob, Flavour, JobAnswer, JobCompletion, Kind};
use super::response::AgentResponse;
use super::{sub_process, task};

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

/// Reads a job as its flavour of the connector does.
pub(super) fn input<'a>(job: &'a AgentJob<'_>) -> AgentInput<'a> {
    match job.flavour {
        Flavour::SubProcess => sub_process::input(job),
        Flavour::Task(_) => task::input(job),
    }
}
