//! A space checked against the deployed processes and made ready to run: the agents with their
//! tools, the mocks as plain answers, the invariants parsed. Every problem is found here, before
//! the first run: a process that is not deployed, an element that is not an AI agent, a tool or
//! parameter it does not have, a value that breaks a parameter's schema, bounds of 0 or absurd
//! sizes, a mock whose answers a fork cannot copy.

use std::sync::Arc;

use baton_engine::model::ElementIdx;
use baton_engine::runtime::{Engine, ExecutableProcess, VariableDocument};

use super::invariant::{Checked, Invariant};
use super::space::{AgentSpace, Search, Space};
use super::turns::{TurnSpace, TurnsError, check_value_set, turns};
use crate::agent::tools::{ToolDefinition, read_elements, resolve_tools};
use crate::agent::{ResponseFormat, Turn};
use crate::faults::Jobs;
use crate::mocks::Answer;
use crate::side_effects::DeclaredSideEffect;

/// The most model calls per run a space may allow.
pub const MAX_MODEL_CALLS: u32 = 1_000;
/// The most tools per turn.
pub const MAX_TOOLS_PER_TURN: usize = 8;
/// The most trajectories one search may be bounded to (a day or so of one machine).
pub const MAX_TRAJECTORIES: u64 = 10_000_000_000;

/// Why a space cannot be explored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExploreError {
    #[error("cannot explore: no deployed process \"{process_id}\"; deployed: {deployed}")]
    NoSuchProcess {
        process_id: String,
        deployed: String,
    },
    #[error("cannot explore \"{element_id}\": {reason}")]
    NotAnAgent { element_id: String, reason: String },
    #[error("cannot explore \"{agent}\": it has no tool \"{tool}\"; its tools: {tools}")]
    UnknownTool {
        agent: String,
        tool: String,
        tools: String,
    },
    #[error("cannot explore \"{agent}\": {message}")]
    WrongValues { agent: String, message: String },
    #[error("cannot explore \"{agent}\": invalid response {index}: {message}")]
    InvalidResponse {
        agent: String,
        index: usize,
        message: String,
    },
    #[error("cannot explore \"{agent}\": {message}")]
    TooLarge { agent: String, message: String },
    #[error("cannot explore: {what} is {value}; {expected}")]
    Bound {
        what: &'static str,
        value: String,
        expected: String,
    },
    #[error("cannot explore: the space is empty: {0}")]
    Empty(String),
    #[error(
        "cannot explore: the mock of job type \"{job_type}\" computes its answers with a closure, which a fork cannot copy: give it fixed answers, or outcomes in the space (Space::outcomes)"
    )]
    ClosureMock { job_type: String },
    #[error(
        "cannot explore: the invariant {invariant} names the element \"{element}\", which no deployed process has"
    )]
    UnknownElement { invariant: String, element: String },
    #[error("cannot explore: the condition {expression} is not valid FEEL: {message}")]
    InvalidCondition { expression: String, message: String },
    #[error(
        "cannot explore: the test injects {0} fault(s), which exploration does not play: give the tools' outcomes in the space instead (Space::outcomes: a failure, a BPMN error)"
    )]
    Faults(usize),
    #[error(
        "cannot explore: {what} the job type \"{job_type}\", which no deployed process has{closest}"
    )]
    UnknownJobType {
        what: String,
        job_type: String,
        /// ` (did you mean "…"?)` when a deployed job type is close, else empty.
        closest: String,
    },
    #[error(
        "cannot explore: the invariant {invariant} has nothing to check: no side effect is declared for the jobs of type \"{job_type}\": declare what its completions do (sideEffects in an exploration file, ProcessTest::declare_side_effect)"
    )]
    NoSideEffect { invariant: String, job_type: String },
    #[error("cannot explore: shard {index}/{count} is out of range: give K/N with 1 <= K <= N")]
    Shard { index: usize, count: usize },
    /// A problem found at a model call (the turns of a response format, a process that cannot
    /// start).
    #[error("cannot explore: {0}")]
    Run(String),
}

/// What a job of a mocked type answers in a fork.
#[derive(Debug, Clone)]
pub(crate) enum MockAnswers {
    Fixed(Answer),
    Sequence {
        answers: Vec<Answer>,
        strict: bool,
    },
    /// Each job branches into each outcome.
    Outcomes(Vec<Answer>),
}

/// A mock as plain data.
#[derive(Debug, Clone)]
pub(crate) struct MockPlan {
    pub job_type: String,
    pub label: String,
    pub answers: MockAnswers,
}

/// An explored agent.
#[derive(Debug, Clone)]
pub(crate) struct AgentPlan {
    pub element_id: String,
    /// An AI Agent Task (a service task whose tools sit in an ad-hoc sub-process the process
    /// loops through), not an AI Agent Sub-process.
    pub task: bool,
    pub space: TurnSpace,
}

/// The turns at a model call, for the tools offered and the response format they were built from.
#[derive(Debug, Clone)]
pub(crate) struct AgentTurns {
    tools: Arc<[ToolDefinition]>,
    format: ResponseFormat,
    pub turns: Vec<Turn>,
}

impl AgentTurns {
    /// Whether these turns were built for this call's tools and format.
    pub fn fits(&self, tools: &Arc<[ToolDefinition]>, format: &ResponseFormat) -> bool {
        (Arc::ptr_eq(&self.tools, tools) || self.tools == *tools) && self.format == *format
    }
}

impl AgentPlan {
    /// The turns for a model call offering `tools` with `format`.
    pub fn turns_for(
        &self,
        tools: &Arc<[ToolDefinition]>,
        format: &ResponseFormat,
    ) -> Result<AgentTurns, ExploreError> {
        let built = turns(&self.space, tools, format).map_err(|e| match e {
            TurnsError::TooMany { tool, at, count } => ExploreError::TooLarge {
                agent: self.element_id.clone(),
                message: format!(
                "{} has {count} combinations of values (more than the {} a model call may branch into){}",
                match tool {
                    Some(tool) => format!("\"{at}\" of the tool \"{tool}\""),
                    None => at,
                },
                super::turns::MAX_TURNS,
                ": give value sets (AgentSpace::values), fewer tools per turn, or document order only"
            ),
            },
            TurnsError::Empty => ExploreError::Empty(format!(
                "\"{}\" has nothing to answer at a model call: no tool it may call, no response",
                self.element_id
            )),
        })?;
        Ok(AgentTurns {
            tools: tools.clone(),
            format: format.clone(),
            turns: built,
        })
    }
}

/// A space ready to run. See the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub process_id: String,
    pub variables: VariableDocument,
    pub agents: Vec<AgentPlan>,
    pub mocks: Vec<MockPlan>,
    /// Element ids of the explored agents' tools.
    pub tool_elements: Vec<Arc<str>>,
    /// Their job types (static ones).
    pub tool_job_types: Vec<Arc<str>>,
    pub checks: Vec<Checked>,
    pub model_calls: u32,
    pub answer_limit: usize,
    /// Counts the trajectories as the search goes (see `Space::count_trajectories_into`).
    pub counter: Option<Arc<std::sync::atomic::AtomicU64>>,
    /// The side effects the test's workers declared (by element, else by job type).
    pub side_effects: Vec<(Jobs, DeclaredSideEffect)>,
}

impl Plan {
    /// The side effect declared for the jobs of this element, else of this job type.
    pub fn side_effect_for(&self, job_type: &str, element: &str) -> Option<&DeclaredSideEffect> {
        let find = |jobs: Jobs| {
            self.side_effects
                .iter()
                .rev()
                .find(|(j, _)| *j == jobs)
                .map(|(_, effect)| effect)
        };
        find(Jobs::AtElement(element.to_string()))
            .or_else(|| find(Jobs::OfType(job_type.to_string())))
    }
}

/// What the test brings besides the deployment: its job mocks (as plain answers; `None`: a
/// closure), its workers' side effects, and whether it injects faults.
pub(crate) struct TestSetup {
    pub mocks: Vec<TestMock>,
    pub side_effects: Vec<(Jobs, DeclaredSideEffect)>,
    pub faults: usize,
    pub answer_limit: usize,
}

/// The test's job mocks, read as plain answers (`None`: a closure).
pub(crate) struct TestMock {
    pub job_type: String,
    pub label: String,
    pub answers: Option<MockAnswers>,
}

impl Plan {
    pub fn build(
        engine: &Engine,
        space: &Space,
        invariants: &[Invariant],
        setup: TestSetup,
    ) -> Result<Plan, ExploreError> {
        check_bounds(space)?;
        if setup.faults > 0 {
            return Err(ExploreError::Faults(setup.faults));
        }
        let TestSetup {
            mocks: test_mocks,
            side_effects,
            answer_limit,
            ..
        } = setup;
        let Some(process) = engine.latest_process(&space.process_id) else {
            return Err(no_such_process(engine, &space.process_id));
        };
        let mut agent_spaces: Vec<AgentSpace> = space.agents.clone();
        for id in agents_of(process) {
            if !agent_spaces.iter().any(|a| a.element_id == id) {
                agent_spaces.push(AgentSpace::new(id));
            }
        }
        let mut agents = Vec::new();
        let mut tool_elements = Vec::new();
        for agent in &agent_spaces {
            let (plan, tools) = agent_plan(engine, agent, space.bounds.tools_per_turn)?;
            tool_elements.extend(tools.into_iter().map(Arc::from));
            agents.push(plan);
        }
        let mut tool_job_types: Vec<Arc<str>> = Vec::new();
        for process in engine.deployed_processes() {
            for tool in &tool_elements {
                if let Some(job_type) = process.find(tool).and_then(|i| process.static_job_type(i))
                    && !tool_job_types.iter().any(|t| **t == *job_type)
                {
                    tool_job_types.push(Arc::from(job_type));
                }
            }
        }
        let deployed_job_types: Vec<&str> = engine
            .deployed_processes()
            .flat_map(|p| p.static_job_types())
            .collect();
        let known_job_type =
            |what: String, job_type: &str| known_job_type(&deployed_job_types, what, job_type);
        let mut mocks: Vec<MockPlan> = Vec::new();
        for outcome in &space.outcomes {
            known_job_type("outcomes are given for".into(), &outcome.job_type)?;
            if outcome.outcomes.is_empty() {
                return Err(ExploreError::Empty(format!(
                    "the outcomes of job type \"{}\" are empty: give at least one",
                    outcome.job_type
                )));
            }
            mocks.push(MockPlan {
                job_type: outcome.job_type.clone(),
                label: format!("outcomes of job type \"{}\"", outcome.job_type),
                answers: MockAnswers::Outcomes(outcome.outcomes.clone()),
            });
        }
        for mock in test_mocks {
            if mocks.iter().any(|m| m.job_type == mock.job_type) {
                continue;
            }
            let Some(answers) = mock.answers else {
                return Err(ExploreError::ClosureMock {
                    job_type: mock.job_type,
                });
            };
            mocks.push(MockPlan {
                job_type: mock.job_type,
                label: mock.label,
                answers,
            });
        }
        let checks = checked_invariants(engine, invariants, &side_effects, &known_job_type)?;
        let choices = !agents.is_empty()
            || mocks
                .iter()
                .any(|m| matches!(&m.answers, MockAnswers::Outcomes(o) if o.len() > 1));
        if !choices {
            return Err(ExploreError::Empty(format!(
                "\"{}\" has no AI agent to explore and no job type has several outcomes: nothing to choose",
                space.process_id
            )));
        }
        Ok(Plan {
            process_id: space.process_id.clone(),
            variables: space.variables.clone(),
            agents,
            mocks,
            tool_elements,
            tool_job_types,
            checks,
            model_calls: space.bounds.model_calls,
            answer_limit,
            counter: space.counter.clone(),
            side_effects,
        })
    }
}

/// The process the space names is not deployed: the error lists the processes that are.
fn no_such_process(engine: &Engine, process_id: &str) -> ExploreError {
    let deployed: Vec<String> = engine
        .deployed_processes()
        .filter(|p| {
            !p.resource_name()
                .starts_with(crate::GENERATED_RESOURCE_PREFIX)
        })
        .map(|p| p.bpmn_process_id().to_string())
        .collect();
    ExploreError::NoSuchProcess {
        process_id: process_id.to_string(),
        deployed: if deployed.is_empty() {
            "none".into()
        } else {
            deployed.join(", ")
        },
    }
}

/// `Ok` when a deployed process has jobs of `job_type`; `what` says who names it.
fn known_job_type(deployed: &[&str], what: String, job_type: &str) -> Result<(), ExploreError> {
    if deployed.contains(&job_type) {
        return Ok(());
    }
    Err(ExploreError::UnknownJobType {
        what,
        job_type: job_type.to_string(),
        closest: closest(job_type, deployed),
    })
}

/// The invariants to check, each naming only deployed elements, and each at-most-once-per-key
/// naming a job type with a declared side effect.
fn checked_invariants(
    engine: &Engine,
    invariants: &[Invariant],
    side_effects: &[(Jobs, DeclaredSideEffect)],
    known_job_type: &dyn Fn(String, &str) -> Result<(), ExploreError>,
) -> Result<Vec<Checked>, ExploreError> {
    let mut checks = Vec::new();
    for invariant in invariants {
        for element in invariant.elements() {
            let known = engine
                .deployed_processes()
                .any(|p| p.find(element).is_some());
            if !known {
                return Err(ExploreError::UnknownElement {
                    invariant: invariant.to_string(),
                    element: element.to_string(),
                });
            }
        }
        if let Invariant::AtMostOncePerKey { job_type } = invariant {
            known_job_type(format!("the invariant {invariant} names"), job_type)?;
            let declared = side_effects.iter().any(|(jobs, _)| match jobs {
                Jobs::OfType(t) => t == job_type,
                Jobs::AtElement(element) => engine
                    .deployed_processes()
                    .any(|p| p.find(element).and_then(|i| p.static_job_type(i)) == Some(job_type)),
            });
            if !declared {
                return Err(ExploreError::NoSideEffect {
                    invariant: invariant.to_string(),
                    job_type: job_type.clone(),
                });
            }
        }
        checks.push(Checked::new(invariant.clone())?);
    }
    Ok(checks)
}

/// ` (did you mean "…"?)` for the known name closest to `name`, when one is close.
fn closest(name: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| (strsim::levenshtein(name, k), *k))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, k)| format!(" (did you mean \"{k}\"?)"))
        .unwrap_or_default()
}

fn check_bounds(space: &Space) -> Result<(), ExploreError> {
    let b = space.bounds;
    if b.model_calls == 0 || b.model_calls > MAX_MODEL_CALLS {
        return Err(ExploreError::Bound {
            what: "the bound on model calls per run",
            value: b.model_calls.to_string(),
            expected: format!("give 1 to {MAX_MODEL_CALLS}"),
        });
    }
    let per_turn = std::iter::once(b.tools_per_turn)
        .chain(space.agents.iter().filter_map(|a| a.max_tools_per_turn));
    for n in per_turn {
        if n == 0 || n > MAX_TOOLS_PER_TURN {
            return Err(ExploreError::Bound {
                what: "the bound on tools per turn",
                value: n.to_string(),
                expected: format!("give 1 to {MAX_TOOLS_PER_TURN}"),
            });
        }
    }
    if b.trajectories == 0 || b.trajectories > MAX_TRAJECTORIES {
        return Err(ExploreError::Bound {
            what: "the bound on trajectories",
            value: b.trajectories.to_string(),
            expected: format!("give 1 to {MAX_TRAJECTORIES} (split a larger space into shards)"),
        });
    }
    if b.time.is_some_and(|t| t.is_zero()) {
        return Err(ExploreError::Bound {
            what: "the time limit",
            value: "0".into(),
            expected: "give a positive duration".into(),
        });
    }
    if let Search::Sample { runs, .. } = space.search
        && (runs == 0 || runs > MAX_TRAJECTORIES)
    {
        return Err(ExploreError::Bound {
            what: "the number of sampled runs",
            value: runs.to_string(),
            expected: format!("give 1 to {MAX_TRAJECTORIES}"),
        });
    }
    if let Some(shard) = space.shard
        && (shard.count == 0 || shard.index == 0 || shard.index > shard.count)
    {
        return Err(ExploreError::Shard {
            index: shard.index,
            count: shard.count,
        });
    }
    Ok(())
}

/// The AI agents of a process (job-worker ad-hoc sub-processes with an output collection, and
/// service tasks of the AI Agent Task's job types), in model order.
fn agents_of(process: &ExecutableProcess) -> Vec<String> {
    (0..process.model().elements.len() as u32)
        .map(ElementIdx)
        .filter(|&idx| {
            process
                .ad_hoc_sub_process(idx)
                .is_some_and(|a| a.job_worker && a.output_collection.is_some())
                || process
                    .static_job_type(idx)
                    .is_some_and(|t| crate::agent::on_engine::AGENT_TASK_JOB_TYPES.contains(&t))
        })
        .map(|idx| process.element_id(idx).to_string())
        .collect()
}

/// An agent's plan and its tool element ids; the space's tools, values and responses checked
/// against the agent's tools.
fn agent_plan(
    engine: &Engine,
    agent: &AgentSpace,
    default_tools_per_turn: usize,
) -> Result<(AgentPlan, Vec<String>), ExploreError> {
    let element_id = &agent.element_id;
    let agent_tools = crate::agent::handle::agent_tools(engine, element_id).map_err(|reason| {
        ExploreError::NotAnAgent {
            element_id: element_id.clone(),
            reason,
        }
    })?;
    let document_order = agent_tools.tool_order;
    let definitions = tool_definitions(
        engine,
        element_id,
        agent_tools.container.as_deref().unwrap_or(element_id),
    )?;
    let names: Vec<&str> = document_order
        .iter()
        .map(String::as_str)
        .filter(|n| definitions.iter().any(|d| d.name == *n))
        .collect();
    let tools: Vec<String> = match &agent.tools {
        Some(chosen) => {
            for tool in chosen {
                if !names.contains(&tool.as_str()) {
                    return Err(ExploreError::UnknownTool {
                        agent: element_id.clone(),
                        tool: tool.clone(),
                        tools: names.join(", "),
                    });
                }
            }
            // Document order, whatever order the space lists them in.
            names
                .iter()
                .filter(|n| chosen.iter().any(|c| c == *n))
                .map(|n| n.to_string())
                .collect()
        }
        None => names.iter().map(|n| n.to_string()).collect(),
    };
    for (tool, parameter, values) in &agent.values {
        let Some(definition) = definitions.iter().find(|d| d.name == *tool) else {
            return Err(ExploreError::UnknownTool {
                agent: element_id.clone(),
                tool: tool.clone(),
                tools: names.join(", "),
            });
        };
        check_value_set(definition, parameter, values).map_err(|message| {
            ExploreError::WrongValues {
                agent: element_id.clone(),
                message,
            }
        })?;
    }
    for (index, turn) in agent.responses.iter().enumerate() {
        turn.validate(&format!("responses[{index}]"))
            .map_err(|problems| ExploreError::InvalidResponse {
                agent: element_id.clone(),
                index,
                message: problems.to_string(),
            })?;
        if let Turn::ToolCalls(calls) = turn {
            for call in &calls.calls {
                let Some(definition) = definitions.iter().find(|d| d.name == call.name) else {
                    return Err(ExploreError::UnknownTool {
                        agent: element_id.clone(),
                        tool: call.name.to_string(),
                        tools: names.join(", "),
                    });
                };
                if let crate::agent::Arguments::Json(arguments) = &call.arguments {
                    let problems = crate::agent::arguments::check_arguments(definition, arguments);
                    if !problems.is_empty() {
                        let problems: Vec<String> =
                            problems.iter().map(ToString::to_string).collect();
                        return Err(ExploreError::InvalidResponse {
                            agent: element_id.clone(),
                            index,
                            message: format!("calls \"{}\": {}", call.name, problems.join("; ")),
                        });
                    }
                }
            }
        }
    }
    let space = TurnSpace {
        tools,
        max_tools_per_turn: agent.max_tools_per_turn.unwrap_or(default_tools_per_turn),
        every_order: agent.every_order,
        values: agent.values.clone(),
        responses: agent.responses.clone(),
        generated_responses: agent.generated_responses,
    };
    if space.tools.is_empty() && space.responses.is_empty() && !space.generated_responses {
        return Err(ExploreError::Empty(format!(
            "\"{element_id}\" may call no tool and answer with no response"
        )));
    }
    // The tool turns are known now (the response format only at a model call): too many fails here.
    let offered: Arc<[ToolDefinition]> = definitions.into();
    let probe = TurnSpace {
        generated_responses: false,
        responses: Vec::new(),
        ..space.clone()
    };
    if let Err(TurnsError::TooMany { tool, at, count }) = turns(
        &probe,
        &offered,
        &ResponseFormat::Text { parse_json: false },
    ) {
        return Err(ExploreError::TooLarge {
            agent: element_id.clone(),
            message: format!(
                "{} has {count} combinations (more than {} per model call): give value sets (AgentSpace::values), fewer tools per turn, or document order only",
                match tool {
                    Some(tool) => format!("\"{at}\" of the tool \"{tool}\""),
                    None => at,
                },
                super::turns::MAX_TURNS
            ),
        });
    }
    Ok((
        AgentPlan {
            element_id: element_id.clone(),
            task: agent_tools.container.is_some(),
            space,
        },
        document_order,
    ))
}

/// The tool definitions the connector builds from the agent's `adHocSubProcessElements`: those
/// of `container`, the agent itself or an AI Agent Task's tool container.
fn tool_definitions(
    engine: &Engine,
    element_id: &str,
    container: &str,
) -> Result<Vec<ToolDefinition>, ExploreError> {
    let not_agent = |reason: String| ExploreError::NotAnAgent {
        element_id: element_id.to_string(),
        reason,
    };
    for process in engine.deployed_processes() {
        let Some(idx) = process.find(container) else {
            continue;
        };
        let Some(ad_hoc) = process.ad_hoc_sub_process(idx) else {
            continue;
        };
        let elements =
            read_elements(&ad_hoc.elements.to_json()).map_err(|e| not_agent(e.to_string()))?;
        let resolved = resolve_tools(&elements).map_err(|e| not_agent(e.message))?;
        if let Some(gateway) = resolved.gateways.first() {
            return Err(not_agent(format!(
                "its tool \"{}\" is an {} gateway, whose tools are discovered at run time; exploring them is not supported",
                gateway.element_id, gateway.gateway_type
            )));
        }
        return Ok(resolved.tools);
    }
    Err(not_agent("no deployed process has it".into()))
}
