//! Exploration: whatever the model chooses, does the process keep its invariants? A search runs
//! the process from its start through every choice the model has (and every outcome the tools
//! may have) within bounds, forking the engine at each choice, and checks invariants at every
//! step. Each violation comes back as the simplest trajectory that shows it, shrunk, with a
//! cassette and a CPT test case that replay it.
//!
//! ```
//! use baton_testing::explore::{AgentSpace, Invariant, Space};
//! use baton_testing::{Answer, ProcessTest};
//! use serde_json::json;
//!
//! # const TEMPLATE: &str = include_str!("../../../templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn");
//! let test = ProcessTest::from_xml("ai-agent-tool-loop.bpmn", TEMPLATE)?;
//! test.mock_job("order-lookup").complete_with(json!({"order": {"id": "1042"}}));
//! test.mock_job("kb-search").complete_with(json!({"articles": []}));
//! test.mock_job("ticket-create").complete_with(json!({"ticketId": "T-1"}));
//! test.mock_job("email-send").complete();
//! let space = Space::start("ai-agent-tool-loop", json!({"customerMessage": "Hi"}))
//!     .agent(AgentSpace::new("support-agent").values("create-ticket", "priority", [json!("high")]))
//!     .max_model_calls(2);
//! let report = test
//!     .explore(&space, [Invariant::never_before("create-ticket", "lookup-order")])
//!     .unwrap();
//! assert!(report.counterexample(0).is_some()); // the model may open a ticket first
//! # Ok::<(), baton_testing::DeployError>(())
//! ```
//!
//! - [`space`] — [`Space`], [`AgentSpace`]: the start, the model's answers, tool outcomes, bounds.
//! - [`invariant`] — [`Invariant`]: never before, no incident, a FEEL condition, end states, goals.
//! - [`report`] — [`Report`]: counts, each invariant's outcome, counterexamples, coverage.
//! - `values`, `turns` — the answers at a model call, drawn from the tools' and the response's
//!   JSON schemas; `plan` — the space checked against the deployment.
//! - `fork`, `search`, `fingerprint`, `tally` — the forkable harness, the depth-first and
//!   sampling searches, the state fingerprint, the counts.

mod fingerprint;
mod fork;
pub mod invariant;
mod plan;
pub mod report;
mod search;
pub mod space;
mod tally;
mod turns;
mod values;

use std::sync::Arc;
use std::time::Instant;

pub use fork::{Choice, ChoiceKind};
pub use invariant::{EndState, Invariant};
pub use plan::ExploreError;
pub use report::{
    CaseError, CheckReport, Counterexample, NotHeld, Report, ReportError, WriteError, Written,
};
pub use space::{AgentSpace, Bounds, Search, Shard, Space};

use crate::ProcessTest;
use crate::mocks::Behavior;

impl ProcessTest {
    /// Explores `space` on this test's deployment and job mocks (a mock's fixed or ordered
    /// answers; the space's outcomes replace the mock of their job type), checking `invariants`
    /// at every step of every run. The test's own runs are not touched.
    ///
    /// `Err` before anything runs when the space does not fit the deployment (see
    /// [`ExploreError`]).
    pub fn explore(
        &self,
        space: &Space,
        invariants: impl IntoIterator<Item = Invariant>,
    ) -> Result<Report, ExploreError> {
        let invariants: Vec<Invariant> = invariants.into_iter().collect();
        let (engine, setup) = {
            let inner = self.inner.borrow();
            let mocks: Vec<plan::TestMock> = inner
                .job_mocks
                .values()
                .filter(|m| m.borrow().active)
                .map(|m| {
                    let m = m.borrow();
                    plan::TestMock {
                        job_type: m.job_type.clone(),
                        label: m.label(),
                        answers: match &m.behavior {
                            Behavior::Fixed(a) => Some(plan::MockAnswers::Fixed(a.clone())),
                            Behavior::Sequence { answers, strict } => {
                                Some(plan::MockAnswers::Sequence {
                                    answers: answers.clone(),
                                    strict: *strict,
                                })
                            }
                            Behavior::Compute(_) => None,
                        },
                    }
                })
                .collect();
            let setup = plan::TestSetup {
                mocks,
                side_effects: inner.workers.side_effects.clone(),
                faults: inner.workers.faults.len(),
                answer_limit: inner.settings.answer_limit,
            };
            (inner.engine.clone(), setup)
        };
        explore_engine(engine, space, &invariants, setup)
    }
}

/// Explores `space` on an engine with the processes deployed.
pub(crate) fn explore_engine(
    mut engine: baton_engine::runtime::Engine,
    space: &Space,
    invariants: &[Invariant],
    setup: plan::TestSetup,
) -> Result<Report, ExploreError> {
    let started = Instant::now();
    let plan = Arc::new(plan::Plan::build(&engine, space, invariants, setup)?);
    engine.clear_records();
    let root = fork::Fork::new(engine, plan.clone());
    let pristine = root.clone();
    let settings = search::Settings {
        search: space.search,
        trajectories: space.bounds.trajectories,
        deadline: space.bounds.time.map(|t| started + t),
        threads: space.threads,
        shard: space.shard.map(|s| (s.index, s.count)),
        replay_from: space.replay_prefixes.then(|| pristine.clone()),
    };
    let (_, outcome) = search::search(root, &settings);
    if let Some(search::Stop::Fatal(error)) = &outcome.stopped {
        return Err(error.clone());
    }
    let elapsed = started.elapsed();
    Ok(report::build(&pristine, outcome, space, elapsed))
}
