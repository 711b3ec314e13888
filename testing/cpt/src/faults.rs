//! baton's extension instructions for faults, crashes and recovery (CPT 8.10 has none of them):
//! `INJECT_JOB_FAULT`, `INJECT_MODEL_FAULT`, `SET_JOB_TIMEOUT`, `SET_TIME_SKIPPING`,
//! `ASSERT_INVARIANT`, `ASSERT_SIDE_EFFECTS`, `SAVE_SNAPSHOT`, `RESTORE_SNAPSHOT`, and the
//! `sideEffect` field of `MOCK_JOB_WORKER_COMPLETE_JOB`. They reuse CPT's shapes where CPT has
//! one (`jobSelector`, ISO-8601 durations, `errorCode`/`errorMessage`/`variables` as
//! `THROW_BPMN_ERROR_FROM_JOB` writes them). Counts, durations and enumerations are checked when
//! the file is read; the job types and elements they name, when the instruction runs (before the
//! run starts when it comes first, as it usually does).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::model::{FormatError, JobSelector, error};
use baton_testing::faults::{FaultError, JobFault, Jobs, LONGEST_FAULT_DURATION, ModelFault};
use baton_testing::invariants::{EndState, Invariant};
use baton_testing::side_effects::{DeclaredSideEffect, SideEffectError, SideEffectExpectation};

/// What a faulted activation does, as the file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobFaultType {
    Fail,
    ThrowBpmnError,
    NoAnswer,
    Latency,
    CrashAfterSideEffect,
}

impl JobFaultType {
    fn name(self) -> &'static str {
        match self {
            JobFaultType::Fail => "FAIL",
            JobFaultType::ThrowBpmnError => "THROW_BPMN_ERROR",
            JobFaultType::NoAnswer => "NO_ANSWER",
            JobFaultType::Latency => "LATENCY",
            JobFaultType::CrashAfterSideEffect => "CRASH_AFTER_SIDE_EFFECT",
        }
    }
}

/// INJECT_JOB_FAULT (baton).
#[derive(Debug, Clone, PartialEq)]
pub struct InjectJobFault {
    pub jobs: Jobs,
    pub fault: JobFault,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InjectJobFaultJson {
    job_selector: JobSelector,
    fault: JobFaultType,
    times: Option<u32>,
    error_message: Option<String>,
    error_code: Option<String>,
    retries: Option<i32>,
    retry_backoff: Option<String>,
    #[serde(default)]
    variables: Map<String, Value>,
    latency: Option<String>,
    job_timeout: Option<String>,
}

/// How a model call fails, as the file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ModelFaultType {
    RateLimit,
    Timeout,
    Refusal,
    Error,
    Latency,
    CrashAfterAnswer,
}

impl ModelFaultType {
    fn name(self) -> &'static str {
        match self {
            ModelFaultType::RateLimit => "RATE_LIMIT",
            ModelFaultType::Timeout => "TIMEOUT",
            ModelFaultType::Refusal => "REFUSAL",
            ModelFaultType::Error => "ERROR",
            ModelFaultType::Latency => "LATENCY",
            ModelFaultType::CrashAfterAnswer => "CRASH_AFTER_ANSWER",
        }
    }
}

/// INJECT_MODEL_FAULT (baton): a fault at model call `modelCall` of the MOCK_AI_AGENT of
/// `elementId`.
#[derive(Debug, Clone, PartialEq)]
pub struct InjectModelFault {
    pub element_id: String,
    pub fault: ModelFault,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InjectModelFaultJson {
    element_id: String,
    model_call: u32,
    fault: ModelFaultType,
    error_message: Option<String>,
    latency: Option<String>,
}

/// SET_JOB_TIMEOUT (baton): the job timeout a mocked worker activates a job with when it
/// holds it (a fault, a latency); default PT5M.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetJobTimeout {
    pub timeout: String,
}

/// SET_TIME_SKIPPING (baton).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetTimeSkipping {
    pub enabled: bool,
}

/// ASSERT_INVARIANT (baton): checked after every step from here on.
#[derive(Debug, Clone, PartialEq)]
pub struct AssertInvariant {
    pub invariant: Invariant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum InvariantType {
    NeverBefore,
    AtMostOncePerKey,
    NoIncident,
    Condition,
    EndsIn,
    Reaches,
}

impl InvariantType {
    fn name(self) -> &'static str {
        match self {
            InvariantType::NeverBefore => "NEVER_BEFORE",
            InvariantType::AtMostOncePerKey => "AT_MOST_ONCE_PER_KEY",
            InvariantType::NoIncident => "NO_INCIDENT",
            InvariantType::Condition => "CONDITION",
            InvariantType::EndsIn => "ENDS_IN",
            InvariantType::Reaches => "REACHES",
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AssertInvariantJson {
    invariant: InvariantType,
    element_id: Option<String>,
    before_element_id: Option<String>,
    job_type: Option<String>,
    expression: Option<String>,
    #[serde(default)]
    end_states: Vec<Value>,
}

/// ASSERT_SIDE_EFFECTS (baton).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssertSideEffects {
    pub expectation: SideEffectExpectation,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AssertSideEffectsJson {
    job_type: String,
    count: Option<usize>,
    #[serde(default)]
    at_most_once_per_key: bool,
    none_before: Option<String>,
}

/// SAVE_SNAPSHOT and RESTORE_SNAPSHOT (baton): a snapshot kept by `name` in the test case,
/// and/or in `file` (relative to the test file).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotInstruction {
    pub name: Option<String>,
    pub file: Option<String>,
}

/// The `sideEffect` field of MOCK_JOB_WORKER_COMPLETE_JOB (baton): `idempotencyKey` a FEEL
/// expression over the job's variables (the job key when left out); `deduplicated`: the outside
/// world does nothing for a key it has seen.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SideEffectJson {
    pub idempotency_key: Option<String>,
    #[serde(default)]
    pub deduplicated: bool,
}

impl SideEffectJson {
    /// The declaration, or why the key is not FEEL.
    pub fn declared(&self) -> Result<DeclaredSideEffect, SideEffectError> {
        let effect = match &self.idempotency_key {
            Some(expression) => DeclaredSideEffect::keyed_by(expression)?,
            None => DeclaredSideEffect::keyed_by_job_key(),
        };
        Ok(if self.deduplicated {
            effect.deduplicated()
        } else {
            effect
        })
    }
}

/// A duration field: ISO-8601, not negative, at most a year and a day.
fn duration(text: &str, path: &str) -> Result<Duration, FormatError> {
    let ms = baton_testing::clock::parse_duration(text).map_err(|e| error(path, e.to_string()))?;
    if ms < 0 {
        return Err(error(path, format!("must not be negative, got {text}")));
    }
    let d = Duration::from_millis(ms as u64);
    if d > LONGEST_FAULT_DURATION {
        return Err(error(
            path,
            format!("{text} is more than a fault may have (at most 366 days)"),
        ));
    }
    Ok(d)
}

fn fault_error(path: &str, e: FaultError) -> FormatError {
    error(path, e.to_string())
}

/// The jobs of a `jobSelector`: by element, else by job type.
fn jobs_of(selector: &JobSelector, path: &str) -> Result<Jobs, FormatError> {
    match (&selector.element_id, &selector.job_type) {
        (Some(element), None) => Ok(Jobs::at_element(element)),
        (None, Some(job_type)) => Ok(Jobs::of_type(job_type)),
        (Some(_), Some(_)) => Err(error(
            format!("{path}.jobSelector"),
            "give jobType (every job of the type) or elementId (the jobs of one element), not both",
        )),
        (None, None) => Err(error(
            format!("{path}.jobSelector"),
            "needs jobType or elementId",
        )),
    }
}

pub(super) fn inject_job_fault(
    raw: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<InjectJobFault, FormatError> {
    let raw: InjectJobFaultJson = super::model::read(raw, path, warnings)?;
    let jobs = jobs_of(&raw.job_selector, path)?;
    let at = |field: &str| format!("{path}.{field}");
    let message = raw.error_message.clone().unwrap_or_default();
    let mut fault = match raw.fault {
        JobFaultType::Fail => {
            let mut f = JobFault::fail(message);
            if let Some(r) = raw.retries {
                f = f.with_retries(r);
            }
            if let Some(b) = &raw.retry_backoff {
                f = f.with_backoff(duration(b, &at("retryBackoff"))?);
            }
            f
        }
        JobFaultType::ThrowBpmnError => {
            let Some(code) = &raw.error_code else {
                return Err(error(
                    at("errorCode"),
                    "a THROW_BPMN_ERROR fault needs the error code",
                ));
            };
            JobFault::throw_error(code, message)
        }
        JobFaultType::NoAnswer => JobFault::no_answer(),
        JobFaultType::Latency => {
            let Some(latency) = &raw.latency else {
                return Err(error(
                    at("latency"),
                    "a LATENCY fault needs the latency (an ISO-8601 duration such as PT5M)",
                ));
            };
            JobFault::latency(duration(latency, &at("latency"))?)
        }
        JobFaultType::CrashAfterSideEffect => JobFault::crash_after_side_effect(),
    };
    if !raw.variables.is_empty() {
        if !matches!(raw.fault, JobFaultType::Fail | JobFaultType::ThrowBpmnError) {
            return Err(error(
                at("variables"),
                "only FAIL and THROW_BPMN_ERROR faults send variables",
            ));
        }
        fault = fault.with_variables(Value::Object(raw.variables.clone()));
    }
    for (field, given, kinds) in [
        ("retries", raw.retries.is_some(), &[JobFaultType::Fail][..]),
        (
            "retryBackoff",
            raw.retry_backoff.is_some(),
            &[JobFaultType::Fail][..],
        ),
        (
            "errorCode",
            raw.error_code.is_some(),
            &[JobFaultType::ThrowBpmnError][..],
        ),
        (
            "latency",
            raw.latency.is_some(),
            &[JobFaultType::Latency][..],
        ),
    ] {
        if given && !kinds.contains(&raw.fault) {
            return Err(error(
                at(field),
                format!("does not apply to a {} fault", raw.fault.name()),
            ));
        }
    }
    if let Some(n) = raw.times {
        fault = fault.times(n);
    }
    if let Some(t) = &raw.job_timeout {
        fault = fault.job_timeout(duration(t, &at("jobTimeout"))?);
    }
    fault.validate().map_err(|e| fault_error(path, e))?;
    Ok(InjectJobFault { jobs, fault })
}

pub(super) fn inject_model_fault(
    raw: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<InjectModelFault, FormatError> {
    let raw: InjectModelFaultJson = super::model::read(raw, path, warnings)?;
    let at = |field: &str| format!("{path}.{field}");
    let latency = match &raw.latency {
        Some(l) => Some(duration(l, &at("latency"))?),
        None => None,
    };
    let mut fault = match raw.fault {
        ModelFaultType::RateLimit => ModelFault::rate_limit(),
        ModelFaultType::Timeout => match latency {
            Some(after) => ModelFault::timeout_after(after),
            None => ModelFault::timeout(),
        },
        ModelFaultType::Refusal => ModelFault::refusal(),
        ModelFaultType::Error => {
            let Some(message) = &raw.error_message else {
                return Err(error(
                    at("errorMessage"),
                    "an ERROR fault needs the provider's message",
                ));
            };
            ModelFault::error(message)
        }
        ModelFaultType::Latency => match latency {
            Some(l) => ModelFault::latency(l),
            None => {
                return Err(error(
                    at("latency"),
                    "a LATENCY fault needs the latency (an ISO-8601 duration such as PT20M)",
                ));
            }
        },
        ModelFaultType::CrashAfterAnswer => ModelFault::crash_after_answer(),
    };
    if latency.is_some() && !matches!(raw.fault, ModelFaultType::Timeout | ModelFaultType::Latency)
    {
        return Err(error(
            at("latency"),
            format!("does not apply to a {} fault", raw.fault.name()),
        ));
    }
    if let Some(message) = &raw.error_message
        && !matches!(raw.fault, ModelFaultType::Error)
    {
        if matches!(
            raw.fault,
            ModelFaultType::RateLimit | ModelFaultType::Timeout
        ) {
            fault = fault.with_message(message);
        } else {
            return Err(error(
                at("errorMessage"),
                format!("does not apply to a {} fault", raw.fault.name()),
            ));
        }
    }
    fault = fault.at_call(raw.model_call);
    fault
        .validate()
        .map_err(|e| fault_error(&at("modelCall"), e))?;
    Ok(InjectModelFault {
        element_id: raw.element_id,
        fault,
    })
}

pub(super) fn assert_invariant(
    raw: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<AssertInvariant, FormatError> {
    let raw: AssertInvariantJson = super::model::read(raw, path, warnings)?;
    let at = |field: &str| format!("{path}.{field}");
    let need = |value: &Option<String>, field: &str, what: &str| -> Result<String, FormatError> {
        value
            .clone()
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| error(at(field), format!("{} needs {what}", raw.invariant.name())))
    };
    let invariant = match raw.invariant {
        InvariantType::NeverBefore => Invariant::never_before(
            need(&raw.element_id, "elementId", "the element that must wait")?,
            need(
                &raw.before_element_id,
                "beforeElementId",
                "the element that must complete first",
            )?,
        ),
        InvariantType::AtMostOncePerKey => Invariant::at_most_once_per_key(need(
            &raw.job_type,
            "jobType",
            "the job type whose side effects it counts",
        )?),
        InvariantType::NoIncident => match &raw.element_id {
            Some(e) => Invariant::no_incident_at(e),
            None => Invariant::no_incident(),
        },
        InvariantType::Condition => Invariant::condition(need(
            &raw.expression,
            "expression",
            "a FEEL expression over the variables",
        )?),
        InvariantType::EndsIn => {
            let mut states = Vec::new();
            for (i, s) in raw.end_states.iter().enumerate() {
                let p = format!("{path}.endStates[{i}]");
                states.push(match s {
                    Value::String(t) if t == "COMPLETED" => EndState::Completed,
                    Value::String(t) if t == "TERMINATED" => EndState::Terminated,
                    Value::String(t) if t == "INCIDENT" => EndState::Incident,
                    Value::Object(o) if o.len() == 1 && o.get("waitingAt").is_some_and(Value::is_string) => {
                        EndState::WaitingAt(o["waitingAt"].as_str().unwrap_or_default().to_string())
                    }
                    other => {
                        return Err(error(
                            p,
                            format!("must be COMPLETED, TERMINATED, INCIDENT or {{\"waitingAt\": \"<elementId>\"}}, got {other}"),
                        ));
                    }
                });
            }
            if states.is_empty() {
                return Err(error(
                    at("endStates"),
                    "ENDS_IN needs at least one end state",
                ));
            }
            Invariant::ends_in(states)
        }
        InvariantType::Reaches => {
            Invariant::reaches(need(&raw.element_id, "elementId", "the element to reach")?)
        }
    };
    if let Invariant::Condition { expression } = &invariant
        && let Err(e) = baton_feel::Expression::parse(expression)
    {
        return Err(error(at("expression"), format!("is not valid FEEL: {e}")));
    }
    Ok(AssertInvariant { invariant })
}

pub(super) fn assert_side_effects(
    raw: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<AssertSideEffects, FormatError> {
    let raw: AssertSideEffectsJson = super::model::read(raw, path, warnings)?;
    let mut expectation = SideEffectExpectation::of(raw.job_type);
    if let Some(n) = raw.count {
        expectation = expectation.count(n);
    }
    if raw.at_most_once_per_key {
        expectation = expectation.at_most_once_per_key();
    }
    if let Some(e) = raw.none_before {
        expectation = expectation.none_before(e);
    }
    if expectation.count.is_none()
        && !expectation.at_most_once_per_key
        && expectation.none_before.is_none()
    {
        return Err(error(
            path,
            "ASSERT_SIDE_EFFECTS needs count, atMostOncePerKey or noneBefore",
        ));
    }
    Ok(AssertSideEffects { expectation })
}

pub(super) fn snapshot_instruction(
    raw: Value,
    path: &str,
    warnings: &mut Vec<String>,
    type_name: &str,
) -> Result<SnapshotInstruction, FormatError> {
    let s: SnapshotInstruction = super::model::read(raw, path, warnings)?;
    if s.name.is_none() && s.file.is_none() {
        return Err(error(
            path,
            format!(
                "{type_name} needs a name (kept in the test case) or a file (relative to the test file)"
            ),
        ));
    }
    if type_name == "RESTORE_SNAPSHOT" && s.name.is_some() && s.file.is_some() {
        return Err(error(
            path,
            "RESTORE_SNAPSHOT takes a name or a file, not both",
        ));
    }
    Ok(s)
}

pub(super) fn job_timeout(
    raw: Value,
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<SetJobTimeout, FormatError> {
    let s: SetJobTimeout = super::model::read(raw, path, warnings)?;
    let d = duration(&s.timeout, &format!("{path}.timeout"))?;
    if d.is_zero() {
        return Err(error(format!("{path}.timeout"), "must be longer than 0"));
    }
    Ok(s)
}

/// The first line where two record logs differ, both shown.
pub(super) fn first_difference(a: &str, b: &str) -> Option<String> {
    baton_testing::snapshot::first_difference_of(a, b)
}
