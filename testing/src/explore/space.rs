//! The space a search explores: how the run starts, what each agent's model may answer at a
//! model call, what each tool may return, and the bounds.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use baton_engine::runtime::VariableDocument;
use serde_json::Value;

use crate::agent::Turn;
use crate::mocks::Answer;
use crate::variables::{IntoVariables, variables_or_panic};

/// What a search explores. Built with methods; read by
/// [`ProcessTest::explore`](crate::ProcessTest::explore).
///
/// ```
/// use baton_testing::explore::{AgentSpace, Space};
/// use baton_testing::Answer;
/// use serde_json::json;
///
/// let space = Space::start("ai-agent-tool-loop", json!({"customerMessage": "Where is 1042?"}))
///     .agent(AgentSpace::new("support-agent").max_tools_per_turn(2))
///     .outcomes("ticket-create", [
///         Answer::complete(json!({"ticketId": "T-1"})),
///         Answer::throw_error("TICKET_FAILED", "the ticket system is down"),
///     ])
///     .max_model_calls(4);
/// ```
#[derive(Debug, Clone)]
pub struct Space {
    pub(crate) process_id: String,
    pub(crate) variables: VariableDocument,
    pub(crate) agents: Vec<AgentSpace>,
    pub(crate) outcomes: Vec<ToolOutcomes>,
    pub(crate) bounds: Bounds,
    pub(crate) search: Search,
    pub(crate) threads: usize,
    pub(crate) shard: Option<Shard>,
    pub(crate) replay_prefixes: bool,
    pub(crate) counter: Option<Arc<AtomicU64>>,
}

/// How the space is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// Every trajectory within the bounds, depth first, states seen before not twice.
    Exhaustive,
    /// `runs` trajectories, each choice drawn at random from a generator seeded with `seed` and
    /// the run's number (the same seed gives the same runs).
    Sample { seed: u64, runs: u64 },
}

/// The bounds of a search. A space larger than the bounds is not an error: the report says it
/// was cut off, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Model calls per run (over every agent of the run); a run that would make one more is
    /// cut there.
    pub model_calls: u32,
    /// Tools per turn for agents that do not set their own.
    pub tools_per_turn: usize,
    /// Trajectories in all.
    pub trajectories: u64,
    /// Wall time; the one bound that makes a report depend on the machine.
    pub time: Option<Duration>,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            model_calls: 4,
            tools_per_turn: 1,
            trajectories: 1_000_000,
            time: None,
        }
    }
}

/// One part of a space split over machines: `index` of `count`, 1-based (`--shard 2/4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// What one agent's model may answer at a model call.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpace {
    pub(crate) element_id: String,
    /// The tools it may call (`None`: every tool of the agent).
    pub(crate) tools: Option<Vec<String>>,
    pub(crate) max_tools_per_turn: Option<usize>,
    /// Tools of a turn in every order (else in the agent's document order only).
    pub(crate) every_order: bool,
    /// Value sets per (tool, parameter), replacing the values drawn from the schema.
    pub(crate) values: Vec<(String, String, Vec<Value>)>,
    /// Turns given as they are (tried before the generated ones).
    pub(crate) responses: Vec<Turn>,
    /// Answers generated from the response format (the JSON schema's values, or one text).
    pub(crate) generated_responses: bool,
}

impl AgentSpace {
    /// The agent element `element_id` (the AI Agent Sub-process's id): every tool, one per turn
    /// (see [`Space::max_tools_per_turn`]), answers generated from its response format.
    pub fn new(element_id: impl Into<String>) -> AgentSpace {
        AgentSpace {
            element_id: element_id.into(),
            tools: None,
            max_tools_per_turn: None,
            every_order: true,
            values: Vec::new(),
            responses: Vec::new(),
            generated_responses: true,
        }
    }

    /// Only these tools (element ids) may be called.
    pub fn tools(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> AgentSpace {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Up to `n` tools in one turn (each set of tools in each order).
    pub fn max_tools_per_turn(mut self, n: usize) -> AgentSpace {
        self.max_tools_per_turn = Some(n);
        self
    }

    /// The tools of a turn only in the agent's document order (not in every order).
    pub fn in_document_order(mut self) -> AgentSpace {
        self.every_order = false;
        self
    }

    /// The values the model may give the parameter `parameter` of `tool` (instead of the ones
    /// drawn from its `fromAi()` schema). An optional parameter is also left out.
    pub fn values(
        mut self,
        tool: impl Into<String>,
        parameter: impl Into<String>,
        values: impl IntoIterator<Item = Value>,
    ) -> AgentSpace {
        self.values
            .push((tool.into(), parameter.into(), values.into_iter().collect()));
        self
    }

    /// A turn the model may answer with (a response, or tool calls), tried first.
    pub fn response(mut self, turn: Turn) -> AgentSpace {
        self.responses.push(turn);
        self
    }

    /// Turns the model may answer with.
    pub fn responses(mut self, turns: impl IntoIterator<Item = Turn>) -> AgentSpace {
        self.responses.extend(turns);
        self
    }

    /// Only the given responses: none generated from the response format.
    pub fn only_given_responses(mut self) -> AgentSpace {
        self.generated_responses = false;
        self
    }
}

/// What the jobs of a type may answer: each outcome is one branch of the search.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcomes {
    pub(crate) job_type: String,
    pub(crate) outcomes: Vec<Answer>,
}

impl Space {
    /// A space whose runs start an instance of the latest version of `process_id` with
    /// `variables` (`json!({..})` or `()`).
    #[track_caller]
    pub fn start(process_id: impl Into<String>, variables: impl IntoVariables) -> Space {
        Space {
            process_id: process_id.into(),
            variables: variables_or_panic(variables),
            agents: Vec::new(),
            outcomes: Vec::new(),
            bounds: Bounds::default(),
            search: Search::Exhaustive,
            threads: 0,
            shard: None,
            replay_prefixes: false,
            counter: None,
        }
    }

    /// An agent's space (agents not named get the default [`AgentSpace::new`]).
    pub fn agent(mut self, agent: AgentSpace) -> Space {
        self.agents.retain(|a| a.element_id != agent.element_id);
        self.agents.push(agent);
        self
    }

    /// The outcomes the jobs of `job_type` may have: each job of the type branches into each
    /// (they replace the test's mock of the type).
    pub fn outcomes(
        mut self,
        job_type: impl Into<String>,
        outcomes: impl IntoIterator<Item = Answer>,
    ) -> Space {
        let job_type = job_type.into();
        self.outcomes.retain(|o| o.job_type != job_type);
        self.outcomes.push(ToolOutcomes {
            job_type,
            outcomes: outcomes.into_iter().collect(),
        });
        self
    }

    /// Model calls per run (default 4).
    pub fn max_model_calls(mut self, n: u32) -> Space {
        self.bounds.model_calls = n;
        self
    }

    /// Tools per turn for agents that do not set their own (default 1).
    pub fn max_tools_per_turn(mut self, n: usize) -> Space {
        self.bounds.tools_per_turn = n;
        self
    }

    /// Trajectories in all (default 1 000 000).
    pub fn max_trajectories(mut self, n: u64) -> Space {
        self.bounds.trajectories = n;
        self
    }

    /// Stops after this much wall time (the report says it was cut off).
    pub fn time_limit(mut self, limit: Duration) -> Space {
        self.bounds.time = Some(limit);
        self
    }

    /// Samples `runs` trajectories at random (seeded) instead of searching every one.
    pub fn sample(mut self, seed: u64, runs: u64) -> Space {
        self.search = Search::Sample { seed, runs };
        self
    }

    /// Threads to search with (default 0: one per core). The report is the same for any number.
    pub fn threads(mut self, n: usize) -> Space {
        self.threads = n;
        self
    }

    /// Explores only part `index` of `count` (1-based) of the space; the parts' reports merge
    /// into the whole one ([`super::Report::merge`]).
    pub fn shard(mut self, index: usize, count: usize) -> Space {
        self.shard = Some(Shard { index, count });
        self
    }

    /// Re-runs each branch from the start instead of copying the run where it branches: the
    /// same report, far slower. For measuring what forking saves (the benchmarks do).
    pub fn replaying_prefixes(mut self) -> Space {
        self.replay_prefixes = true;
        self
    }

    /// Adds every trajectory explored to `counter` as the search goes (to show progress from
    /// another thread).
    pub fn count_trajectories_into(mut self, counter: Arc<AtomicU64>) -> Space {
        self.counter = Some(counter);
        self
    }

    /// The bounds.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }
}
