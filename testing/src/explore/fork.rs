//! The forkable harness: the engine, the job feed, the agents' connector state and the mocks'
//! cursors as plain data, so that a run forks with `Clone` at a choice and each branch goes on
//! from there (no prefix is replayed). It runs on the settle loop every process test uses.
//!
//! A run pauses at a choice:
//! - a model call of an explored agent: which turn the model answers with;
//! - a job of a type with several outcomes: which outcome;
//! - several tool jobs waiting at once: which finishes first.
//!
//! Tool jobs (the jobs of an explored agent's tools, and jobs of types with outcomes) finish one
//! at a time, when nothing else is left to do: the agent sees each result arrive before the next
//! one, as when a real worker answers them. The remaining ones wait in `held` meanwhile.

use std::sync::Arc;

use baton_engine::runtime::{Engine, JobKind, JobView, Key};
use indexmap::IndexMap;

use super::invariant::{Broken, Watch};
use super::plan::{AgentTurns, MockAnswers, Plan};
use crate::agent::Turn;
use crate::agent::connector::{self, AgentJob, ElementCache, FetchedVariables, PendingTurn, Step};
use crate::agent::handle::job_answer;
use crate::agent::mock::{AgentRequest, connector_answer, finish_turn, request_from};
use crate::agent::on_engine::DefinitionTools;
use crate::mocks::Answer;
use crate::settle::{self, Harness, JobFacts, JobFeed, Settled, apply_answer};

/// What a choice chose: its kind and the index of the alternative (0 is the simplest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Choice {
    pub kind: ChoiceKind,
    pub index: u32,
    /// The tools a chosen turn calls (0 for other kinds).
    pub tools: u8,
}

/// The kinds of choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChoiceKind {
    /// The model's turn at a model call.
    Turn,
    /// A job's outcome.
    Outcome,
    /// Which waiting tool job finishes first.
    Order,
}

/// Who answers a job in a fork.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ForkAnswerer {
    /// An explored agent (index into the plan's agents).
    Agent(usize),
    /// A mock (index into the plan's mocks).
    Mock(usize),
}

/// Where a paused run waits.
#[derive(Debug, Clone)]
pub(crate) enum Paused {
    Model {
        facts: JobFacts,
        agent: usize,
        pending: Box<PendingTurn>,
        headers: Arc<IndexMap<String, String>>,
        retries: i32,
        turns: Arc<AgentTurns>,
        /// What the model saw (kept only when recording).
        request: Option<Box<AgentRequest>>,
    },
    Outcome {
        facts: JobFacts,
        mock: usize,
    },
    /// Which of these held jobs finishes first (`forced`: the only one, paused at only when a
    /// replay steps through every tool answer).
    Order {
        jobs: Vec<Key>,
        forced: bool,
    },
    /// The model-call bound was reached: the run is cut here.
    Cut,
}

/// The connector's state for one explored agent, and the calls made so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentCursor {
    cache: ElementCache,
    pub calls: u32,
    turns: Option<Arc<AgentTurns>>,
}

/// How a run stands after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// At a choice with this many alternatives.
    Choice(u32),
    /// Nothing left to do: the run ended (or waits for something nobody answers).
    Ended,
    /// Cut at the model-call bound.
    Cut,
}

/// One run, forkable. See the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct Fork {
    pub engine: Engine,
    feed: JobFeed,
    pub plan: Arc<Plan>,
    pub root: Key,
    pub agents: Vec<AgentCursor>,
    /// Per mock: jobs answered so far (a sequence's cursor).
    mock_calls: Vec<u32>,
    /// Tool jobs waiting to finish one at a time, oldest first.
    held: Vec<Key>,
    /// The held job whose turn to finish was chosen (it is answered without another choice).
    chosen: Option<Key>,
    pub watch: Watch,
    pub choices: Vec<Choice>,
    pub model_calls: u32,
    /// Run errors (a mock that could not answer, an answer the engine rejected).
    pub errors: Vec<String>,
    /// A problem with the space found while running (too many turns at a model call).
    pub fatal: Option<super::ExploreError>,
    pub paused: Option<Paused>,
    /// What a replay records for its counterexample (`None` while searching: nothing is kept).
    pub recorder: Option<Box<Recorder>>,
    /// Invariants broken while answering (a side effect repeated), for the step's report.
    broken: Vec<Broken>,
}

/// What a replay keeps: the answers of the tool jobs (in the order they finished) and the
/// model calls (what the model saw, what it answered).
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorder {
    pub answers: Vec<ToolAnswer>,
    pub calls: Vec<RecordedModelCall>,
    /// The tool job being answered now.
    answering: Option<(Arc<str>, Arc<str>)>,
}

/// One tool job's answer.
#[derive(Debug, Clone)]
pub(crate) struct ToolAnswer {
    pub element_id: String,
    pub job_type: String,
    pub answer: Answer,
}

/// One model call.
#[derive(Debug, Clone)]
pub(crate) struct RecordedModelCall {
    pub agent: usize,
    /// What the model saw.
    pub request: AgentRequest,
    pub turn: Turn,
}

/// What a step reports besides the status: invariants broken, goals reached.
#[derive(Debug, Default)]
pub(crate) struct StepReport {
    pub broken: Vec<Broken>,
}

impl Fork {
    /// A run of `plan` on `engine` (deployed, nothing started yet).
    pub fn new(engine: Engine, plan: Arc<Plan>) -> Fork {
        let feed = JobFeed::from_now(&engine);
        let agents = vec![AgentCursor::default(); plan.agents.len()];
        let mock_calls = vec![0; plan.mocks.len()];
        let watch = Watch::new(plan.checks.len());
        Fork {
            engine,
            feed,
            plan,
            root: 0,
            agents,
            mock_calls,
            held: Vec::new(),
            chosen: None,
            watch,
            choices: Vec::new(),
            model_calls: 0,
            errors: Vec::new(),
            fatal: None,
            paused: None,
            recorder: None,
            broken: Vec::new(),
        }
    }

    /// Whether the current choice has one alternative only and is no choice of the model's
    /// (replays step through it without a recorded index).
    pub fn is_forced(&self) -> bool {
        matches!(self.paused, Some(Paused::Order { forced: true, .. }))
    }

    /// Starts the root instance and runs to the first choice (or the end).
    pub fn start(
        &mut self,
        on_records: &mut dyn FnMut(&Engine),
        report: &mut StepReport,
    ) -> Status {
        let request = baton_engine::runtime::CreateInstance::new(self.plan.process_id.as_str())
            .variables(self.plan.variables.clone());
        match self.engine.create_instance(request) {
            Ok(key) => self.root = key,
            Err(r) => {
                self.fatal = Some(super::ExploreError::Run(format!(
                    "cannot start process \"{}\": {}",
                    self.plan.process_id, r.message
                )));
                return Status::Ended;
            }
        }
        self.run(on_records, report)
    }

    /// The alternatives of the current choice.
    pub fn status(&self) -> Status {
        match &self.paused {
            None => Status::Ended,
            Some(Paused::Cut) => Status::Cut,
            Some(Paused::Model { turns, .. }) => Status::Choice(turns.turns.len() as u32),
            Some(Paused::Outcome { mock, .. }) => {
                Status::Choice(match &self.plan.mocks[*mock].answers {
                    MockAnswers::Outcomes(o) => o.len() as u32,
                    _ => 1,
                })
            }
            Some(Paused::Order { jobs, .. }) => Status::Choice(jobs.len() as u32),
        }
    }

    /// Takes alternative `index` of the current choice and runs to the next one.
    pub fn decide(
        &mut self,
        index: u32,
        on_records: &mut dyn FnMut(&Engine),
        report: &mut StepReport,
    ) -> Status {
        let Some(paused) = self.paused.take() else {
            return Status::Ended;
        };
        let i = index as usize;
        match paused {
            Paused::Model {
                facts,
                agent,
                pending,
                headers,
                retries,
                turns,
                request,
            } => {
                let turn = &turns.turns[i];
                if let (Some(recorder), Some(request)) = (&mut self.recorder, request) {
                    let mut request = *request;
                    request.turn = Some(turn.clone());
                    recorder.calls.push(RecordedModelCall {
                        agent,
                        request,
                        turn: turn.clone(),
                    });
                }
                let tools = match turn {
                    Turn::ToolCalls(t) => t.calls.len().min(u8::MAX as usize) as u8,
                    _ => 0,
                };
                self.choices.push(Choice {
                    kind: ChoiceKind::Turn,
                    index,
                    tools,
                });
                self.model_calls += 1;
                let cursor = &mut self.agents[agent];
                cursor.calls += 1;
                let answer = finish_turn(*pending, turn, cursor.calls);
                let task = self.plan.agents[agent].task;
                let answer = connector_answer(&headers, retries, answer, true, task);
                self.apply_as(&facts, job_answer(answer), ForkAnswerer::Agent(agent));
            }
            Paused::Outcome { facts, mock } => {
                self.choices.push(Choice {
                    kind: ChoiceKind::Outcome,
                    index,
                    tools: 0,
                });
                let MockAnswers::Outcomes(outcomes) = &self.plan.mocks[mock].answers else {
                    return Status::Ended;
                };
                let answer = outcomes[i].clone();
                self.mock_calls[mock] += 1;
                self.apply_as(&facts, answer, ForkAnswerer::Mock(mock));
            }
            Paused::Order { jobs, forced } => {
                if !forced {
                    self.choices.push(Choice {
                        kind: ChoiceKind::Order,
                        index,
                        tools: 0,
                    });
                }
                let key = jobs[i];
                self.held.retain(|k| *k != key);
                self.chosen = Some(key);
                self.feed.put_front(key);
            }
            Paused::Cut => {
                self.paused = Some(Paused::Cut);
                return Status::Cut;
            }
        }
        self.run(on_records, report)
    }

    /// Settles, reads the step's records (the watch, then `on_records`: coverage) and drops
    /// them, so that a fork copies no history.
    fn run(&mut self, on_records: &mut dyn FnMut(&Engine), report: &mut StepReport) -> Status {
        let settled = settle::settle(self);
        report.broken.append(&mut self.broken);
        let plan = self.plan.clone();
        let records = self.engine.records_since(0);
        self.watch
            .read(&plan.checks, &self.engine, records, &mut report.broken);
        on_records(&self.engine);
        self.engine.clear_records();
        self.watch
            .after_step(&plan.checks, &self.engine, self.root, &mut report.broken);
        if settled == Settled::Runaway {
            self.paused = None;
        }
        let status = self.status();
        if status == Status::Ended {
            self.watch
                .at_end(&plan.checks, &self.engine, self.root, &mut report.broken);
        }
        status
    }

    /// The elements of the held tool jobs (part of the state).
    pub fn held_elements(&self) -> Vec<std::sync::Arc<str>> {
        self.held
            .iter()
            .filter_map(|k| self.engine.job(*k).map(|j| j.element_id))
            .collect()
    }

    fn apply_as(&mut self, facts: &JobFacts, answer: Answer, answerer: ForkAnswerer) {
        if let ForkAnswerer::Mock(_) = answerer
            && matches!(
                answer,
                Answer::Complete(_) | Answer::CompleteWithExampleData
            )
        {
            self.side_effect(facts);
        }
        if let Some(recorder) = &mut self.recorder
            && let Some((element_id, job_type)) = recorder.answering.take()
        {
            recorder.answers.push(ToolAnswer {
                element_id: element_id.to_string(),
                job_type: job_type.to_string(),
                answer: answer.clone(),
            });
        }
        if let Err(problem) = apply_answer(&mut self.engine, facts, answer) {
            let label = self.label(answerer);
            self.errors.push(problem.message(&label));
        }
    }

    fn label(&self, answerer: ForkAnswerer) -> String {
        match answerer {
            ForkAnswerer::Agent(i) => format!("AI agent \"{}\"", self.plan.agents[i].element_id),
            ForkAnswerer::Mock(i) => self.plan.mocks[i].label.clone(),
        }
    }

    /// A job's completion is a side effect when its worker declares one: into the ledger.
    fn side_effect(&mut self, facts: &JobFacts) {
        if self.plan.side_effects.is_empty() {
            return;
        }
        let Some(view) = self.engine.job(facts.key) else {
            return;
        };
        let Some(effect) = self.plan.side_effect_for(&view.job_type, &view.element_id) else {
            return;
        };
        let job = crate::process_test::test_job(&self.engine, &view);
        match effect.key_of(&job) {
            Ok(key) => {
                let deduplicates = effect.deduplicated;
                let plan = self.plan.clone();
                self.watch.side_effect(
                    &plan.checks,
                    &view.job_type,
                    key,
                    deduplicates,
                    &mut self.broken,
                );
            }
            Err(e) => self.errors.push(e.to_string()),
        }
    }

    /// Who answers a job: an explored agent (an AI Agent Sub-process's ad-hoc sub-process job,
    /// an AI Agent Task's own job; not a listener's), else the mock of its type.
    fn answerer_of(&self, job: &JobView) -> Option<ForkAnswerer> {
        let agent_kind = |task: bool| {
            if task {
                JobKind::BpmnElement
            } else {
                JobKind::AdHocSubProcess
            }
        };
        if let Some(i) = self
            .plan
            .agents
            .iter()
            .position(|a| *a.element_id == *job.element_id && job.kind == agent_kind(a.task))
        {
            return Some(ForkAnswerer::Agent(i));
        }
        self.plan
            .mocks
            .iter()
            .position(|m| *m.job_type == *job.job_type)
            .map(ForkAnswerer::Mock)
    }

    /// Whether a mock's jobs finish one at a time (tool jobs, and jobs with outcomes).
    fn finishes_alone(&self, mock: usize, job: &JobView) -> bool {
        matches!(self.plan.mocks[mock].answers, MockAnswers::Outcomes(_))
            || self
                .plan
                .tool_elements
                .iter()
                .any(|t| **t == *job.element_id)
    }

    fn answer_agent(&mut self, facts: &JobFacts, job: &JobView, agent: usize) -> Option<Answer> {
        let mut variables = FetchedVariables::default();
        self.engine
            .for_each_visible_variable(job.element_instance_key, |name, value| {
                variables.set(name, value);
            });
        let now = crate::clock::format_instant(self.engine.now());
        let task = self.plan.agents[agent].task;
        let definitions = DefinitionTools::of(&self.engine, facts.process_definition_key);
        let agent_job = AgentJob {
            flavour: if task {
                crate::agent::Flavour::Task(&definitions)
            } else {
                crate::agent::Flavour::SubProcess
            },
            job_key: job.key,
            element_id: &job.element_id,
            element_instance_key: job.element_instance_key,
            process_instance_key: job.process_instance_key,
            process_definition_key: facts.process_definition_key,
            retries: job.retries,
            variables,
            headers: &job.custom_headers,
            now: Some(&now),
        };
        let step = match connector::prepare(&agent_job, &mut self.agents[agent].cache) {
            Ok(step) => step,
            Err(unsupported) => return Some(Answer::FailRun(unsupported.0)),
        };
        let mut pending = match step {
            Step::Answer(answer) => {
                return Some(job_answer(connector_answer(
                    &job.custom_headers,
                    job.retries,
                    answer,
                    false,
                    task,
                )));
            }
            Step::AskModel(pending) => pending,
        };
        if self.model_calls >= self.plan.model_calls {
            self.paused = Some(Paused::Cut);
            return None;
        }
        let input = pending.take_input();
        let request = self.recorder.is_some().then(|| {
            Box::new(request_from(
                &self.plan.agents[agent].element_id,
                self.agents[agent].calls + 1,
                &agent_job,
                input.clone(),
            ))
        });
        let cursor = &mut self.agents[agent];
        let turns = match &cursor.turns {
            Some(t) if t.fits(&input.tools, &input.response_format) => t.clone(),
            _ => match self.plan.agents[agent].turns_for(&input.tools, &input.response_format) {
                Ok(t) => {
                    let t = Arc::new(t);
                    cursor.turns = Some(t.clone());
                    t
                }
                Err(error) => {
                    self.fatal = Some(error);
                    self.paused = None;
                    return Some(Answer::Wait);
                }
            },
        };
        self.paused = Some(Paused::Model {
            facts: facts.clone(),
            agent,
            pending,
            headers: job.custom_headers.clone(),
            retries: job.retries,
            turns,
            request,
        });
        None
    }

    /// The agent (index) whose model call the run waits at, if it does.
    pub fn asking_agent(&self) -> Option<usize> {
        match &self.paused {
            Some(Paused::Model { agent, .. }) => Some(*agent),
            _ => None,
        }
    }

    /// A few words on alternative `index` of the current choice.
    pub fn describe(&self, index: u32) -> String {
        let i = index as usize;
        match &self.paused {
            Some(Paused::Model { agent, turns, .. }) => format!(
                "\"{}\" model call {}: {}",
                self.plan.agents[*agent].element_id,
                self.agents[*agent].calls + 1,
                describe_turn(&turns.turns[i])
            ),
            Some(Paused::Outcome { facts, mock }) => {
                let plan = &self.plan.mocks[*mock];
                let what = match &plan.answers {
                    MockAnswers::Outcomes(o) => describe_answer(&o[i]),
                    _ => String::new(),
                };
                format!(
                    "\"{}\" ({}) answers: {what}",
                    facts.element_id, plan.job_type
                )
            }
            Some(Paused::Order { jobs, .. }) => {
                let names: Vec<String> = jobs
                    .iter()
                    .filter_map(|k| self.engine.job(*k).map(|j| format!("\"{}\"", j.element_id)))
                    .collect();
                let chosen = names.get(i).cloned().unwrap_or_default();
                if names.len() == 1 {
                    format!("{chosen} finishes")
                } else {
                    format!("{chosen} finishes first (of {})", names.join(", "))
                }
            }
            Some(Paused::Cut) | None => String::new(),
        }
    }
}

impl Harness for Fork {
    type Answerer = ForkAnswerer;

    fn answer_limit(&self) -> usize {
        self.plan.answer_limit
    }

    fn next_job(&mut self) -> Option<(JobFacts, JobView, ForkAnswerer)> {
        loop {
            let (view, answerer) = {
                let this = &*self;
                let mut feed = this.feed.clone();
                let found = feed.next(&this.engine, |view| this.answerer_of(view));
                self.feed = feed;
                found?
            };
            if let ForkAnswerer::Mock(m) = answerer
                && self.chosen != Some(view.key)
                && self.finishes_alone(m, &view)
            {
                self.held.push(view.key);
                continue;
            }
            if self.chosen == Some(view.key) {
                self.chosen = None;
                if let Some(recorder) = &mut self.recorder {
                    recorder.answering = Some((view.element_id.clone(), view.job_type.clone()));
                }
            }
            let facts = JobFacts::of(&self.engine, &view);
            return Some((facts, view, answerer));
        }
    }

    fn answer(
        &mut self,
        facts: &JobFacts,
        job: &JobView,
        answerer: &ForkAnswerer,
    ) -> Option<Answer> {
        match *answerer {
            ForkAnswerer::Agent(agent) => self.answer_agent(facts, job, agent),
            ForkAnswerer::Mock(mock) => {
                let n = self.mock_calls[mock] as usize;
                match &self.plan.mocks[mock].answers {
                    MockAnswers::Fixed(answer) => {
                        self.mock_calls[mock] += 1;
                        Some(answer.clone())
                    }
                    MockAnswers::Sequence { answers, strict } => {
                        self.mock_calls[mock] += 1;
                        Some(match answers.get(n) {
                            Some(a) => a.clone(),
                            None if *strict || answers.is_empty() => Answer::FailRun(format!(
                                "all {} answer(s) are used; job #{} at \"{}\" got none",
                                answers.len(),
                                n + 1,
                                job.element_id
                            )),
                            None => answers[answers.len() - 1].clone(),
                        })
                    }
                    MockAnswers::Outcomes(outcomes) if outcomes.len() == 1 => {
                        self.mock_calls[mock] += 1;
                        Some(outcomes[0].clone())
                    }
                    MockAnswers::Outcomes(_) => {
                        self.paused = Some(Paused::Outcome {
                            facts: facts.clone(),
                            mock,
                        });
                        None
                    }
                }
            }
        }
    }

    fn apply(&mut self, facts: &JobFacts, answer: Answer, answerer: &ForkAnswerer) {
        self.apply_as(facts, answer, *answerer);
    }

    fn run_error(&mut self, _instance: Option<Key>, message: String) {
        self.errors.push(message);
    }

    /// Held tool jobs finish one at a time: the only one goes on, of several the order is a
    /// choice (the loop pauses).
    fn at_quiescence(&mut self) -> bool {
        self.held.retain(|k| {
            self.engine
                .job(*k)
                .is_some_and(|j| j.state == baton_engine::runtime::JobState::Activatable)
        });
        match self.held.len() {
            0 => false,
            1 if self.recorder.is_some() => {
                self.paused = Some(Paused::Order {
                    jobs: self.held.clone(),
                    forced: true,
                });
                false
            }
            1 => {
                let key = self.held.remove(0);
                self.chosen = Some(key);
                self.feed.put_front(key);
                true
            }
            _ => {
                self.paused = Some(Paused::Order {
                    jobs: self.held.clone(),
                    forced: false,
                });
                false
            }
        }
    }
}

/// A turn in a few words, with the arguments of its calls.
pub(crate) fn describe_turn(turn: &Turn) -> String {
    match turn {
        Turn::ToolCalls(t) => {
            let calls: Vec<String> = t
                .calls
                .iter()
                .map(|c| match &c.arguments {
                    crate::agent::Arguments::Json(a) => format!("{} {a}", c.name),
                    crate::agent::Arguments::Raw(r) => format!("{} {r}", c.name),
                })
                .collect();
            format!("calls {}", calls.join(", "))
        }
        Turn::Response(r) => match (&r.json, &r.text) {
            (Some(json), _) => format!("answers {json}"),
            (None, Some(text)) => format!("answers {}", serde_json::Value::String(text.clone())),
            (None, None) => "answers".to_string(),
        },
        other => other.describe(),
    }
}

/// An answer in a few words, with its variables.
pub(crate) fn describe_answer(answer: &Answer) -> String {
    match answer {
        Answer::Complete(vars) => format!(
            "complete {}",
            serde_json::Value::Object(vars.clone().into_iter().collect())
        ),
        Answer::ThrowError { code, message, .. } => {
            format!("throw error \"{code}\" ({message})")
        }
        Answer::Fail(f) => format!("fail \"{}\"", f.message),
        other => other.describe(),
    }
}
