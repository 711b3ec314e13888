//! A mock's activation of a job and its answer: the fault the activation plays, the answer's
//! delivery (at once, or late after a latency), the side effect a completion records.

use baton_engine::runtime::Key;

use super::{Activation, PendingAnswer, WORKER};
use crate::faults::{JobFault, JobFaultKind};
use crate::mocks::{Answer, FailJob, TestJob};
use crate::process_test::Inner;
use crate::settle::{AnswerProblem, JobFacts, apply_answer};
use crate::side_effects::LedgerEntry;
use crate::trace::{SideEffect, TraceEvent};

/// What a mock's activation of a job starts with: counts it, takes the fault it gets (recorded
/// in the trace), prepares its side effect's key. `Err` is a run error (a key that fails).
pub(crate) fn begin_activation(
    inner: &mut Inner,
    job: &TestJob,
) -> Result<(Activation, Option<JobFault>), String> {
    let (attempt, fault) = inner
        .workers
        .activate(job.key, &job.job_type, &job.element_id);
    let effect = match inner
        .workers
        .side_effect_for(&job.job_type, &job.element_id)
    {
        Some(declared) => {
            let key = declared.key_of(job).map_err(|e| e.to_string())?;
            Some((declared.clone(), key))
        }
        None => None,
    };
    let job_timeout = fault
        .as_ref()
        .and_then(|f| f.job_timeout)
        .unwrap_or(inner.workers.job_timeout);
    if let Some(f) = &fault
        && !matches!(f.kind, JobFaultKind::CrashAfterSideEffect)
    {
        inner.trace_push(
            job.process_instance_key,
            TraceEvent::Fault {
                element: job.element_id.clone(),
                job_type: job.job_type.clone(),
                attempt,
                fault: f.kind.to_string(),
            },
        );
    }
    Ok((
        Activation {
            attempt,
            job_type: job.job_type.clone(),
            job_timeout,
            effect,
        },
        fault,
    ))
}

/// The answer of a faulted activation: the fault's own, or the mock's (`ask`) held or lost.
pub(crate) fn faulted_answer(fault: &JobFault, ask: impl FnOnce() -> Answer) -> Answer {
    match &fault.kind {
        JobFaultKind::Fail {
            message,
            retries,
            backoff,
            variables,
        } => Answer::Fail(FailJob {
            retries: *retries,
            message: message.clone(),
            backoff: *backoff,
            variables: variables.clone(),
        }),
        JobFaultKind::ThrowError {
            code,
            message,
            variables,
        } => Answer::ThrowError {
            code: code.clone(),
            message: message.clone(),
            variables: variables.clone(),
        },
        JobFaultKind::NoAnswer => Answer::NoAnswer,
        JobFaultKind::Latency(latency) => Answer::Later {
            latency: *latency,
            answer: Box::new(ask()),
        },
        JobFaultKind::CrashAfterSideEffect => Answer::Crash(Box::new(ask())),
    }
}

/// How an answer arrives: at once (a problem is a run error), or late (a rejection because the
/// job is gone or taken again is what happens to late workers: traced, not an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    AtOnce,
    Late,
}

/// Delivers a mock's answer to a job: activates the job when the answer holds it, schedules a
/// late answer, records the side effect of a completion (also of one lost in a crash), and sends
/// the rest to the engine.
pub(crate) fn deliver(
    inner: &mut Inner,
    facts: &JobFacts,
    answer: Answer,
    label: &str,
    activation: Activation,
    arrival: Arrival,
) {
    let held = arrival == Arrival::Late;
    if answer.holds_the_job() && !held {
        let timeout = i64::try_from(activation.job_timeout.as_millis()).unwrap_or(i64::MAX);
        if let Err(r) = inner.engine.push_job(facts.key, WORKER, timeout) {
            inner.sync();
            let message = format!(
                "{label} could not take the job at \"{}\": {}",
                facts.element_id, r.message
            );
            inner.add_error(Some(facts.process_instance_key), message);
            return;
        }
    }
    match answer {
        Answer::NoAnswer => {}
        Answer::Later { latency, answer } => {
            let latency = i64::try_from(latency.as_millis()).unwrap_or(i64::MAX);
            let due = inner.engine.now().saturating_add(latency);
            inner.workers.schedule(PendingAnswer {
                due,
                seq: 0,
                facts: facts.clone(),
                answer: *answer,
                label: label.to_string(),
                activation,
            });
        }
        Answer::Crash(lost) => {
            if lost.is_completion() {
                record_side_effect(inner, facts, &activation);
            }
            inner.trace_push(
                facts.process_instance_key,
                TraceEvent::Fault {
                    element: facts.element_id.to_string(),
                    job_type: activation.job_type.clone(),
                    attempt: activation.attempt,
                    fault: format!(
                        "the worker crashed before it could {} (the answer is lost)",
                        lost.describe()
                    ),
                },
            );
        }
        answer => {
            if answer.is_completion() {
                record_side_effect(inner, facts, &activation);
            }
            if let Err(problem) = apply_answer(&mut inner.engine, facts, answer) {
                inner.sync();
                match (&problem, arrival) {
                    (AnswerProblem::Rejected { message, .. }, Arrival::Late) => {
                        let reason = message.clone();
                        inner.trace_push(
                            facts.process_instance_key,
                            TraceEvent::LateAnswerRejected {
                                element: facts.element_id.to_string(),
                                job_type: activation.job_type.clone(),
                                reason,
                            },
                        );
                    }
                    _ => {
                        let message = problem.message(label);
                        inner.add_error(Some(facts.process_instance_key), message);
                    }
                }
            }
        }
    }
}

/// The side effect of a completed (or crashed) activation: into the ledger, unless the outside
/// world deduplicates the key and has seen it; into the trace either way.
fn record_side_effect(inner: &mut Inner, facts: &JobFacts, activation: &Activation) {
    let Some((declared, key)) = &activation.effect else {
        return;
    };
    let performed =
        !(declared.deduplicated && inner.workers.ledger.contains(&activation.job_type, key));
    let effect = SideEffect {
        job_type: activation.job_type.clone(),
        element: facts.element_id.to_string(),
        key: key.clone(),
        job_key: facts.key,
        attempt: activation.attempt,
        performed,
    };
    if performed {
        inner.sync();
        let root = inner.root_of(facts.process_instance_key);
        let completed_before = completed_in(inner, root);
        let entry = LedgerEntry {
            effect: effect.clone(),
            process_instance_key: facts.process_instance_key,
            at_ms: inner.engine.now(),
            run: inner.workers.run,
            completed_before,
        };
        inner.workers.ledger.push(entry);
    }
    inner.trace_push(facts.process_instance_key, TraceEvent::SideEffect(effect));
}

/// The elements completed so far in the instances of a root, each once.
fn completed_in(inner: &Inner, root: Key) -> Vec<String> {
    let mut done: Vec<String> = Vec::new();
    for log in inner.history.instances.values() {
        if log.root != root {
            continue;
        }
        for e in &log.events {
            if e.kind == crate::history::ElementEventKind::Completed
                && !done.iter().any(|d| **d == *e.element_id)
            {
                done.push(e.element_id.to_string());
            }
        }
    }
    done
}

/// The description of a delivered answer, for the step an invariant broke at.
pub(crate) fn answered(label: &str, element: &str, answer: &Answer) -> String {
    format!(
        "{label} answered the job at \"{element}\": {}",
        answer.describe()
    )
}

/// A late answer arrives: delivered, then the mocks settle.
pub(crate) fn deliver_late(cell: &std::cell::RefCell<Inner>, pending: PendingAnswer) {
    let step = format!(
        "{} (late)",
        answered(&pending.label, &pending.facts.element_id, &pending.answer)
    );
    {
        let mut inner = cell.borrow_mut();
        deliver(
            &mut inner,
            &pending.facts,
            pending.answer,
            &pending.label,
            pending.activation,
            Arrival::Late,
        );
    }
    crate::process_test::settle_step(cell, || step);
}
