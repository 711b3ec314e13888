//! The settle loop: after an action the engine waits; every job that became activatable and has
//! an answerer is answered, the engine runs again, and so on until nothing is answered; then the
//! harness may act at quiescence (a hook that acts starts the loop again). It stops with a run
//! error after `answer_limit` answers in one action.
//!
//! One loop for both harnesses: [`ProcessTest`](crate::ProcessTest) (answerers shared with the
//! test's handles) and the exploration's fork (answerers as plain data, copied with the engine).
//! The exploration's answerers may also pause the loop at a job whose answer is a choice: the
//! job stays taken, and the caller answers it once the choice is made.

use std::collections::VecDeque;
use std::sync::Arc;

use baton_engine::runtime::{Engine, JobResult, JobState, JobView, Key};

use crate::mocks::Answer;

/// The jobs the engine made activatable, oldest first, each handed out once.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobFeed {
    pending: VecDeque<Key>,
    cursor: usize,
}

impl JobFeed {
    /// A feed that hands out the jobs that become activatable from now on.
    pub fn from_now(engine: &Engine) -> JobFeed {
        JobFeed {
            pending: VecDeque::new(),
            cursor: engine.activatable_jobs_since(usize::MAX).1,
        }
    }

    /// Hands these jobs out too (jobs already waiting when an answerer arrives).
    pub fn extend(&mut self, keys: impl IntoIterator<Item = Key>) {
        self.pending.extend(keys);
    }

    /// Puts a job back at the front: it is handed out next.
    pub fn put_front(&mut self, key: Key) {
        self.pending.push_front(key);
    }

    fn refill(&mut self, engine: &Engine) {
        let pending = &mut self.pending;
        self.cursor = engine.for_each_activatable_job_since(self.cursor, |k| pending.push_back(k));
    }

    /// The next activatable job for which `answerer` finds an answerer, oldest first.
    pub fn next<A>(
        &mut self,
        engine: &Engine,
        mut answerer: impl FnMut(&JobView) -> Option<A>,
    ) -> Option<(JobView, A)> {
        loop {
            let key = match self.pending.pop_front() {
                Some(k) => k,
                None => {
                    self.refill(engine);
                    if self.pending.is_empty() {
                        return None;
                    }
                    continue;
                }
            };
            let Some(view) = engine.job(key) else {
                continue;
            };
            if view.state != JobState::Activatable {
                continue;
            }
            if let Some(a) = answerer(&view) {
                return Some((view, a));
            }
        }
    }
}

/// What applying an answer needs to know about the job (the job itself may have moved into a
/// mock's invocation list).
#[derive(Debug, Clone)]
pub(crate) struct JobFacts {
    pub key: Key,
    pub process_instance_key: Key,
    pub process_definition_key: Key,
    pub retries: i32,
    pub element_id: Arc<str>,
}

impl JobFacts {
    pub fn of(engine: &Engine, view: &JobView) -> JobFacts {
        JobFacts {
            key: view.key,
            process_instance_key: view.process_instance_key,
            process_definition_key: engine
                .process_instance(view.process_instance_key)
                .map(|p| p.process_definition_key)
                .unwrap_or_default(),
            retries: view.retries,
            element_id: view.element_id.clone(),
        }
    }
}

/// Why an answer did not reach the engine: a run error, named by its answerer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AnswerProblem {
    /// The answer itself fails the run (`Answer::FailRun`, example data that is missing).
    Failed(String),
    /// The engine rejected the command.
    Rejected {
        element_id: Arc<str>,
        message: String,
    },
}

impl AnswerProblem {
    /// The run error's message, with the answerer's label in front.
    pub fn message(&self, label: &str) -> String {
        match self {
            AnswerProblem::Failed(m) => format!("{label}: {m}"),
            AnswerProblem::Rejected {
                element_id,
                message,
            } => format!(
                "{label} answered the job at \"{element_id}\", but the engine rejected the answer: {message}"
            ),
        }
    }
}

/// Sends an answer to the engine.
pub(crate) fn apply_answer(
    engine: &mut Engine,
    job: &JobFacts,
    answer: Answer,
) -> Result<(), AnswerProblem> {
    let key = job.key;
    let result = match answer {
        Answer::Complete(vars) => engine.complete_job(key, vars),
        Answer::CompleteWithExampleData => {
            let vars = crate::example_data::example_data(
                engine,
                job.process_definition_key,
                &job.element_id,
            )
            .map_err(|e| AnswerProblem::Failed(e.to_string()))?;
            engine.complete_job(key, vars)
        }
        Answer::CompleteAdHoc { variables, result } => engine.complete_job_with_result(
            key,
            variables,
            Some(JobResult::AdHocSubProcess(result)),
        ),
        Answer::Fail(f) => {
            let retries = f.retries.unwrap_or(job.retries - 1).max(0);
            let backoff = i64::try_from(f.backoff.as_millis()).unwrap_or(i64::MAX);
            engine.fail_job(key, retries, &f.message, backoff, f.variables)
        }
        Answer::ThrowError {
            code,
            message,
            variables,
        } => engine.throw_error(key, &code, &message, variables),
        Answer::Wait => Ok(()),
        Answer::FailRun(m) => return Err(AnswerProblem::Failed(m)),
        held @ (Answer::NoAnswer | Answer::Later { .. } | Answer::Crash(_)) => {
            return Err(AnswerProblem::Failed(format!(
                "\"{}\" holds the job over virtual time, which only a process test plays",
                held.describe()
            )));
        }
    };
    result.map_err(|r| AnswerProblem::Rejected {
        element_id: job.element_id.clone(),
        message: r.message,
    })
}

/// What the settle loop asks of a harness.
pub(crate) trait Harness {
    /// Who answers a job (a handle, or an index into plain data).
    type Answerer;
    /// The most answers in one settle.
    fn answer_limit(&self) -> usize;
    /// The next activatable job that has an answerer.
    fn next_job(&mut self) -> Option<(JobFacts, JobView, Self::Answerer)>;
    /// The answer to a job; `None` pauses the loop (the answer is a choice the caller makes).
    fn answer(
        &mut self,
        facts: &JobFacts,
        job: &JobView,
        answerer: &Self::Answerer,
    ) -> Option<Answer>;
    /// A few words naming an answer, for the runaway message.
    fn describe(&self, facts: &JobFacts, answer: &Answer) -> String {
        format!("\"{}\" ({})", facts.element_id, answer.describe())
    }
    /// Sends the answer to the engine (problems become run errors).
    fn apply(&mut self, facts: &JobFacts, answer: Answer, answerer: &Self::Answerer);
    /// Records a run error.
    fn run_error(&mut self, instance: Option<Key>, message: String);
    /// Acts at quiescence; `true` when something changed (the loop goes on).
    fn at_quiescence(&mut self) -> bool {
        false
    }
}

/// How a settle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Settled {
    /// Nothing left to answer.
    Quiet,
    /// An answerer paused at a choice.
    Paused,
    /// The answer limit was reached (a run error says so).
    Runaway,
}

/// How many times in a row the answers may fail the same job that the engine hands straight back
/// (retries left, no backoff) before the loop stops: such a job never gets anywhere.
pub(crate) const SAME_JOB_FAILURES: usize = 100;

/// Runs answerers and quiescence hooks until nothing is left to do. See the module documentation.
pub(crate) fn settle<H: Harness>(harness: &mut H) -> Settled {
    let mut answered = 0usize;
    let limit = harness.answer_limit();
    // The last answers, kept only near the limit, for the runaway message.
    let mut last: Vec<String> = Vec::new();
    // The job the answers failed last, and how many times in a row.
    let mut failing: (Key, usize) = (0, 0);
    loop {
        if let Some((facts, view, answerer)) = harness.next_job() {
            answered += 1;
            if answered > limit {
                harness.run_error(
                    Some(facts.process_instance_key),
                    format!(
                        "stopped after the mocks answered {limit} jobs in one step without the process waiting; the last answers were {}. The process loops through mocked jobs: change a mock's answers, or raise ProcessTest::answer_limit.",
                        last.join(", ")
                    ),
                );
                return Settled::Runaway;
            }
            let Some(answer) = harness.answer(&facts, &view, &answerer) else {
                return Settled::Paused;
            };
            if answered + 3 > limit {
                last.push(harness.describe(&facts, &answer));
            }
            failing = match &answer {
                Answer::Fail(_) if failing.0 == facts.key => (facts.key, failing.1 + 1),
                Answer::Fail(_) => (facts.key, 1),
                _ => (0, 0),
            };
            if let Answer::Fail(failure) = &answer
                && failing.1 > SAME_JOB_FAILURES
            {
                harness.run_error(
                    Some(facts.process_instance_key),
                    format!(
                        "stopped after failing the job of type \"{}\" at \"{}\" {SAME_JOB_FAILURES} times in a row (\"{}\"): each failure left it retries and no backoff, so the job came straight back and the process makes no progress. Let the failures use up the retries (the job then raises an incident), give them a backoff, or change the mock's answers.",
                        view.job_type, facts.element_id, failure.message
                    ),
                );
                return Settled::Runaway;
            }
            harness.apply(&facts, answer, &answerer);
            continue;
        }
        if !harness.at_quiescence() {
            return Settled::Quiet;
        }
        answered += 1;
        if answered > limit {
            harness.run_error(
                None,
                format!(
                    "stopped after {limit} actions at quiescence without the process waiting; a hook keeps firing"
                ),
            );
            return Settled::Runaway;
        }
    }
}
