//! Running one top-level instruction: the generic ones through `exec`, the ones only a test
//! case's top level runs (creating instances, time, mocks, the engine and fault extensions) here.

use std::time::Duration;

use serde_json::Value;

use super::agent::{assert_ai_agent, mock_ai_agent};
use super::case::{CaseState, failure};
use crate::behavior;
use crate::exec::{self, Ctx, Done, InstructionFailure, TopLevel};
use crate::model::Instruction;
use baton_testing::mocks::Answer;

/// Runs one top-level instruction.
pub(super) fn run_step(
    state: &mut CaseState<'_>,
    instruction: &Instruction,
) -> Result<Done, InstructionFailure> {
    let test = state.test;
    let mut ctx = TopLevel(test);
    if let Some(result) = exec::run_generic(&mut ctx, instruction) {
        return result;
    }
    use Instruction as I;
    match instruction {
        I::AssertVariable(a) => exec::assert_variable(&mut ctx, a),
        I::CreateProcessInstance(c) => {
            let Some(id) = c.process_definition_selector.process_definition_id.clone() else {
                return Err(failure(
                    state,
                    "Missing required property: processDefinitionId",
                ));
            };
            let mut request = baton_testing::CreateInstance::new(id.clone())
                .variables(exec::document(&c.variables));
            request.start_instructions = c
                .start_instructions
                .iter()
                .map(|s| s.element_id.clone())
                .collect();
            request.terminate_after = c
                .runtime_instructions
                .iter()
                .map(|r| r.after_element_id.clone())
                .collect();
            test.try_start(request)
                .map(|_| Done::Ok)
                .map_err(|e| InstructionFailure {
                    message: e.message,
                    explanation: e.explanation,
                })
        }
        I::IncreaseTime(t) => {
            let ms = baton_testing::clock::parse_duration(&t.duration)
                .map_err(|m| failure(state, m.to_string()))?;
            test.advance_time(Duration::from_millis(ms.max(0) as u64));
            Ok(Done::Ok)
        }
        I::SetTime(t) => {
            baton_testing::clock::parse_instant(&t.time)
                .map_err(|m| failure(state, m.to_string()))?;
            test.set_time(&t.time);
            Ok(Done::Ok)
        }
        I::MockJobWorkerCompleteJob(m) => {
            let answer = if m.use_example_data {
                Answer::CompleteWithExampleData
            } else {
                Answer::complete(Value::Object(m.variables.clone()))
            };
            if let Some(effect) = &m.side_effect {
                let declared = effect
                    .declared()
                    .map_err(|e| failure(state, format!("sideEffect: {e}")))?;
                let jobs = match &m.element_id {
                    Some(element) => baton_testing::faults::Jobs::at_element(element),
                    None => baton_testing::faults::Jobs::of_type(&m.job_type),
                };
                test.try_declare_side_effect(jobs, declared)
                    .map_err(|e| failure(state, e.to_string()))?;
            }
            mock_job_worker(state, &m.job_type, m.element_id.as_deref(), answer);
            Ok(Done::Ok)
        }
        I::MockJobWorkerThrowBpmnError(m) => {
            let answer = Answer::throw_error(
                m.error_code.clone(),
                m.error_message.clone().unwrap_or_default(),
            )
            .with_variables(Value::Object(m.variables.clone()));
            mock_job_worker(state, &m.job_type, m.element_id.as_deref(), answer);
            Ok(Done::Ok)
        }
        I::AssertIncident(a) => crate::incident::assert_incident(&mut ctx, a).map(|()| Done::Ok),
        I::SetClusterVariables(s) => {
            let vars = exec::document(&s.variables);
            ctx.command(|engine| engine.set_cluster_variables(s.tenant_id.as_deref(), vars))
                .map(|()| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "setting cluster variables: the engine rejected it: {}",
                            r.message
                        ),
                    )
                })
        }
        I::SuspendProcessInstance(c) => {
            exec::suspend_or_resume(&mut ctx, &c.process_instance_selector, true).map(|()| Done::Ok)
        }
        I::ResumeProcessInstance(c) => {
            exec::suspend_or_resume(&mut ctx, &c.process_instance_selector, false)
                .map(|()| Done::Ok)
        }
        I::CreateGlobalTaskListener(l) => {
            let mut listener = baton_engine::runtime::GlobalTaskListener::new(
                l.id.clone(),
                l.job_type.clone(),
                l.event_types.iter().cloned(),
            );
            listener.after_non_global = l.after_non_global;
            if let Some(r) = l.retries {
                listener.retries = i32::try_from(r).unwrap_or(i32::MAX);
            }
            if let Some(p) = l.priority {
                listener.priority = i32::try_from(p).unwrap_or(i32::MAX);
            }
            ctx.command(|engine| engine.create_global_task_listener(listener))
                .map(|()| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "creating global task listener \"{}\": the engine rejected it: {}",
                            l.id, r.message
                        ),
                    )
                })
        }
        I::MockChildProcess(m) => {
            if !is_ncname(&m.process_definition_id) {
                return Err(failure(
                    state,
                    format!(
                        "cannot mock child process \"{}\": a BPMN process id must be an XML name (letters, digits, '-', '_', '.'; not starting with a digit)",
                        m.process_definition_id
                    ),
                ));
            }
            if let Some(tag) = &m.version_tag {
                state.warnings.push(format!(
                    "MOCK_CHILD_PROCESS \"{}\": versionTag \"{tag}\" is not applied; the stand-in replaces the process for every binding",
                    m.process_definition_id
                ));
            }
            test.mock_child_process(&m.process_definition_id, Value::Object(m.variables.clone()));
            Ok(Done::Ok)
        }
        I::MockDmnDecision(m) => {
            let output = m
                .decision_output
                .clone()
                .unwrap_or_else(|| Value::Object(m.variables.clone().unwrap_or_default()));
            test.mock_decision(m.decision_definition_id.clone(), output);
            Ok(Done::Ok)
        }
        I::EvaluateDecision(e) => {
            let Some(id) = e
                .decision_definition_selector
                .decision_definition_id
                .as_deref()
            else {
                return Err(failure(
                    state,
                    "Missing required property: decisionDefinitionId",
                ));
            };
            let vars = exec::document(&e.variables);
            ctx.command(|engine| engine.evaluate_decision(id, vars))
                .map(|_| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "evaluating decision \"{id}\": the engine rejected it: {}",
                            r.message
                        ),
                    )
                })
        }
        I::EvaluateConditionalStartEvent(e) => {
            let vars = exec::document(&e.variables);
            ctx.command(|engine| engine.evaluate_conditional_start_events(vars, None))
                .map(|_| Done::Ok)
                .map_err(|r| {
                    failure(
                        state,
                        format!(
                            "evaluating the conditional start events: the engine rejected it: {}",
                            r.message
                        ),
                    )
                })
        }
        I::ConditionalBehavior(b) => {
            state.behavior_count += 1;
            behavior::register(test, b, state.behavior_count, state.behaviors.clone())
                .map(|()| Done::Ok)
                .map_err(|m| failure(state, m))
        }
        I::InjectJobFault(_)
        | I::InjectModelFault(_)
        | I::SetJobTimeout(_)
        | I::SetTimeSkipping(_)
        | I::AssertInvariant(_)
        | I::AssertSideEffects(_)
        | I::SaveSnapshot(_)
        | I::RestoreSnapshot(_) => fault_step(state, instruction),
        I::MockAiAgent(m) => mock_ai_agent(state, m),
        I::AssertAiAgent(a) => assert_ai_agent(state, a),
        other => Err(failure(
            state,
            format!("{} is not run by baton", other.type_name()),
        )),
    }
}

/// MOCK_JOB_WORKER_*: a standing mock of a job type, or with baton's `elementId` of the jobs of
/// that type at one element (camunda/camunda#60882: tools sharing a job type mocked one by one).
/// An element's own mock wins; for the job types it has no mock of, the element answers as the
/// job type's mock (or leaves the job waiting).
fn mock_job_worker(
    state: &mut CaseState<'_>,
    job_type: &str,
    element_id: Option<&str>,
    answer: Answer,
) {
    let Some(element) = element_id else {
        if state.test.job_mock(job_type).is_some() {
            state.warnings.push(format!(
                "a second mock job worker for \"{job_type}\" replaces the first (in CPT both would compete for the jobs)"
            ));
        }
        state
            .type_answers
            .borrow_mut()
            .insert(job_type.to_owned(), answer.clone());
        let _ = state.test.mock_job(job_type.to_owned()).answer(answer);
        return;
    };
    if state.agents.shift_remove(element).is_some() {
        state.warnings.push(format!(
            "the mock job worker at \"{element}\" replaces the MOCK_AI_AGENT of that element"
        ));
    }
    let answers = state
        .element_answers
        .entry(element.to_owned())
        .or_default()
        .clone();
    if answers
        .borrow_mut()
        .insert(job_type.to_owned(), answer)
        .is_some()
    {
        state.warnings.push(format!(
            "a second mock job worker for \"{job_type}\" at \"{element}\" replaces the first"
        ));
    }
    // Registered again each time, so that the element's jobs waiting now are offered again.
    let by_type = state.type_answers.clone();
    state.test.answer_jobs_of_element(
        element,
        format!("mock job worker at \"{element}\""),
        move |job: &baton_testing::TestJob| {
            let own = answers.borrow().get(&job.job_type).cloned();
            own.or_else(|| by_type.borrow().get(&job.job_type).cloned())
                .unwrap_or(Answer::Wait)
        },
    );
}

/// An XML name as BPMN ids must be (ASCII approximation: letters, digits, `-`, `_`, `.`).
fn is_ncname(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The fault, invariant, side-effect and snapshot extensions (see `crate::faults`).
fn fault_step(
    state: &mut CaseState<'_>,
    instruction: &Instruction,
) -> Result<Done, InstructionFailure> {
    use Instruction as I;
    let test = state.test;
    match instruction {
        I::InjectJobFault(f) => test
            .try_inject_fault(f.jobs.clone(), f.fault.clone())
            .map(|_| Done::Ok)
            .map_err(|e| failure(state, format!("INJECT_JOB_FAULT: {e}"))),
        I::InjectModelFault(f) => {
            let Some(agent) = state.agents.get(&f.element_id) else {
                return Err(failure(
                    state,
                    format!(
                        "INJECT_MODEL_FAULT: \"{}\" has no MOCK_AI_AGENT before this instruction",
                        f.element_id
                    ),
                ));
            };
            agent
                .try_inject_fault(f.fault.clone())
                .map(|_| Done::Ok)
                .map_err(|e| failure(state, format!("INJECT_MODEL_FAULT: {e}")))
        }
        I::SetJobTimeout(t) => {
            test.set_job_timeout(&t.timeout)
                .map_err(|e| failure(state, format!("SET_JOB_TIMEOUT: {e}")))?;
            Ok(Done::Ok)
        }
        I::SetTimeSkipping(t) => {
            test.set_time_skipping(t.enabled);
            Ok(Done::Ok)
        }
        I::AssertInvariant(a) => test
            .try_invariant(a.invariant.clone())
            .map(|_| Done::Ok)
            .map_err(|e| failure(state, format!("ASSERT_INVARIANT: {e}"))),
        I::AssertSideEffects(a) => test
            .side_effects(&a.expectation.job_type)
            .check(&a.expectation)
            .map(|()| Done::Ok)
            .map_err(|e| failure(state, e.to_string())),
        I::SaveSnapshot(s) => {
            let snapshot = test
                .snapshot()
                .map_err(|e| failure(state, format!("SAVE_SNAPSHOT: {e}")))?;
            if let Some(file) = &s.file {
                snapshot
                    .write(&state.dir.join(file))
                    .map_err(|e| failure(state, format!("SAVE_SNAPSHOT: {e}")))?;
            }
            if let Some(name) = &s.name {
                state.snapshots.insert(name.clone(), snapshot);
            }
            Ok(Done::Ok)
        }
        I::RestoreSnapshot(s) => {
            let snapshot = match (&s.name, &s.file) {
                (Some(name), _) => match state.snapshots.get(name) {
                    Some(snapshot) => snapshot.clone(),
                    None => {
                        let known: Vec<&str> = state.snapshots.keys().map(String::as_str).collect();
                        return Err(failure(
                            state,
                            format!(
                                "RESTORE_SNAPSHOT: no snapshot \"{name}\" was saved in this test case (saved: {})",
                                if known.is_empty() {
                                    "none".to_string()
                                } else {
                                    known.join(", ")
                                }
                            ),
                        ));
                    }
                },
                (None, Some(file)) => {
                    baton_testing::snapshot::Snapshot::read(&state.dir.join(file))
                        .map_err(|e| failure(state, format!("RESTORE_SNAPSHOT: {e}")))?
                }
                (None, None) => unreachable!("checked when the file was read"),
            };
            // A file's snapshot names the file: it may come from another run or checkout.
            let from = s
                .file
                .as_ref()
                .filter(|_| s.name.is_none())
                .map(|file| format!("{}: ", state.dir.join(file).display()))
                .unwrap_or_default();
            test.restart_from(&snapshot)
                .map_err(|e| failure(state, format!("RESTORE_SNAPSHOT: {from}{e}")))?;
            // The second run's workers come from the instructions after this one.
            state.agents.clear();
            state.type_answers.borrow_mut().clear();
            state.element_answers.clear();
            Ok(Done::Ok)
        }
        other => Err(failure(
            state,
            format!("{} is not run by baton", other.type_name()),
        )),
    }
}
