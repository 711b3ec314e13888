//! Faults a test injects into job workers and into an AI agent's model calls, in virtual time.
//!
//! A [`JobFault`] applies to the jobs of a job type or of an element ([`Jobs`]) for their next
//! N activations, or for all of them. What a faulted activation does, as in production:
//! - **fail**: the worker fails the job with one retry fewer (or the retries given) and a retry
//!   backoff; at 0 retries the engine raises an incident (Zeebe's `JobFailProcessor`);
//! - **throw a BPMN error**;
//! - **no answer**: the worker takes the job (activates it with its job timeout) and never
//!   answers; once the clock is past the deadline the engine times the job out and it can be
//!   activated again, under the same key (Zeebe's `JobTimeoutCheckScheduler`), and a worker
//!   takes it again;
//! - **latency**: the worker answers after a while of virtual time (the job is activated
//!   meanwhile; a latency longer than the job timeout lets the job time out and be taken again);
//! - **crash after the side effect**: the worker does its work (its side effect reaches the
//!   ledger) and crashes before the completion is sent; the job times out and is taken again.
//!
//! A [`ModelFault`] applies to an AI agent mock's model call N: an error as the connector reports
//! it (`FAILED_MODEL_CALL` for a rate limit or a timeout, `MODEL_RESPONSE_CONTENT_FILTERED` for
//! a refusal), a latency during which timers elsewhere fire, or a crash of the connector after
//! the model answered: the completion is lost, the job times out, is activated again and the
//! model is asked again.
//!
//! Faults answer in place of the mock (fail, error, no answer: the mock is not called) or around
//! it (latency, crash: the mock computes its answer, which arrives late or is lost).

use std::fmt;
use std::time::Duration;

use baton_engine::runtime::VariableDocument;

use crate::clock::IntoDuration;
use crate::variables::IntoVariables;

/// The longest latency, backoff or job timeout a fault may have: a longer one is a mistake
/// (the clock would jump past anything a test looks at).
pub const LONGEST_FAULT_DURATION: Duration = Duration::from_secs(366 * 24 * 3600);

/// The jobs a fault or a side effect applies to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Jobs {
    /// Every job of this job type.
    OfType(String),
    /// Every job of this element (a task, an agent's tool).
    AtElement(String),
}

impl Jobs {
    pub fn of_type(job_type: impl Into<String>) -> Jobs {
        Jobs::OfType(job_type.into())
    }

    pub fn at_element(element_id: impl Into<String>) -> Jobs {
        Jobs::AtElement(element_id.into())
    }

    /// Whether a job of `job_type` at `element` is one of these.
    pub fn matches(&self, job_type: &str, element: &str) -> bool {
        match self {
            Jobs::OfType(t) => t == job_type,
            Jobs::AtElement(e) => e == element,
        }
    }
}

impl fmt::Display for Jobs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Jobs::OfType(t) => write!(f, "the jobs of type \"{t}\""),
            Jobs::AtElement(e) => write!(f, "the jobs of \"{e}\""),
        }
    }
}

/// What a faulted activation does.
#[derive(Debug, Clone, PartialEq)]
pub enum JobFaultKind {
    /// Fail the job: `retries` left (`None`: one fewer than the job has), after `backoff`.
    Fail {
        message: String,
        retries: Option<i32>,
        backoff: Duration,
        variables: VariableDocument,
    },
    /// Throw a BPMN error.
    ThrowError {
        code: String,
        message: String,
        variables: VariableDocument,
    },
    /// Take the job and never answer: it times out.
    NoAnswer,
    /// Answer after this latency.
    Latency(Duration),
    /// Do the side effect, then crash before the completion is sent.
    CrashAfterSideEffect,
}

impl fmt::Display for JobFaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobFaultKind::Fail {
                message,
                retries,
                backoff,
                ..
            } => {
                write!(f, "fails \"{message}\"")?;
                if let Some(r) = retries {
                    write!(f, " with {r} retries left")?;
                }
                if !backoff.is_zero() {
                    write!(f, ", retry backoff {}", format_duration(*backoff))?;
                }
                Ok(())
            }
            JobFaultKind::ThrowError { code, .. } => write!(f, "throws the BPMN error \"{code}\""),
            JobFaultKind::NoAnswer => f.write_str("takes the job and never answers"),
            JobFaultKind::Latency(d) => write!(f, "answers after {}", format_duration(*d)),
            JobFaultKind::CrashAfterSideEffect => {
                f.write_str("crashes after its side effect, before the completion is sent")
            }
        }
    }
}

/// A fault of job workers: what it does, for how many activations, with which job timeout.
///
/// The builders never panic: a duration that does not read, or a setting for another kind of
/// fault, is kept and reported where the fault is injected ([`JobFault::validate`]; an `Err`
/// from `try_inject_fault`, a panic at the call of `inject_fault` or of the mock's answer).
#[derive(Debug, Clone, PartialEq)]
pub struct JobFault {
    pub kind: JobFaultKind,
    /// For the next this many activations; `None`: for all.
    pub times: Option<u32>,
    /// The activation timeout the worker asks for (`None`: the test's, 5 minutes by default as
    /// the Camunda client's).
    pub job_timeout: Option<Duration>,
    /// The first thing a builder could not take.
    problem: Option<FaultError>,
}

impl JobFault {
    fn of(kind: JobFaultKind) -> JobFault {
        JobFault {
            kind,
            times: None,
            job_timeout: None,
            problem: None,
        }
    }

    /// Keeps the first problem of the builders.
    fn problem(mut self, problem: FaultError) -> JobFault {
        self.problem.get_or_insert(problem);
        self
    }

    fn duration(self, what: &'static str, d: impl IntoDuration) -> (JobFault, Duration) {
        match read_duration(what, d) {
            Ok(d) => (self, d),
            Err(e) => (self.problem(e), Duration::ZERO),
        }
    }

    /// Fail the job with one retry fewer, without backoff.
    pub fn fail(message: impl Into<String>) -> JobFault {
        JobFault::of(JobFaultKind::Fail {
            message: message.into(),
            retries: None,
            backoff: Duration::ZERO,
            variables: VariableDocument::new(),
        })
    }

    /// Throw a BPMN error.
    pub fn throw_error(code: impl Into<String>, message: impl Into<String>) -> JobFault {
        JobFault::of(JobFaultKind::ThrowError {
            code: code.into(),
            message: message.into(),
            variables: VariableDocument::new(),
        })
    }

    /// Take the job and never answer (it times out after the job timeout).
    pub fn no_answer() -> JobFault {
        JobFault::of(JobFaultKind::NoAnswer)
    }

    /// Answer after `latency` (`"PT5M"` or a `Duration`).
    pub fn latency(latency: impl IntoDuration) -> JobFault {
        match read_duration("latency", latency) {
            Ok(d) => JobFault::of(JobFaultKind::Latency(d)),
            Err(e) => JobFault::of(JobFaultKind::Latency(Duration::ZERO)).problem(e),
        }
    }

    /// Do the side effect, then crash before the completion is sent.
    pub fn crash_after_side_effect() -> JobFault {
        JobFault::of(JobFaultKind::CrashAfterSideEffect)
    }

    /// For the next `n` activations only (default: all).
    pub fn times(mut self, n: u32) -> JobFault {
        self.times = Some(n);
        self
    }

    /// The worker's job timeout for the activations this fault takes.
    pub fn job_timeout(self, timeout: impl IntoDuration) -> JobFault {
        let (mut fault, d) = self.duration("job timeout", timeout);
        fault.job_timeout = Some(d);
        fault
    }

    /// For [`JobFault::fail`]: the retries left after the failure (0: an incident).
    pub fn with_retries(mut self, n: i32) -> JobFault {
        match &mut self.kind {
            JobFaultKind::Fail { retries, .. } => *retries = Some(n),
            other => {
                let fault = other.to_string();
                return self.problem(FaultError::NotForThisFault {
                    setting: "with_retries",
                    applies_to: "JobFault::fail",
                    fault,
                });
            }
        }
        self
    }

    /// For [`JobFault::fail`]: the retry backoff.
    pub fn with_backoff(self, backoff: impl IntoDuration) -> JobFault {
        let (mut fault, d) = self.duration("retry backoff", backoff);
        match &mut fault.kind {
            JobFaultKind::Fail { backoff, .. } => *backoff = d,
            other => {
                let other = other.to_string();
                return fault.problem(FaultError::NotForThisFault {
                    setting: "with_backoff",
                    applies_to: "JobFault::fail",
                    fault: other,
                });
            }
        }
        fault
    }

    /// For [`JobFault::fail`] and [`JobFault::throw_error`]: variables sent with it.
    pub fn with_variables(mut self, variables: impl IntoVariables) -> JobFault {
        let doc = match variables.into_variables() {
            Ok(doc) => doc,
            Err(e) => return self.problem(FaultError::NotVariables(e.to_string())),
        };
        match &mut self.kind {
            JobFaultKind::Fail { variables, .. } | JobFaultKind::ThrowError { variables, .. } => {
                *variables = doc
            }
            other => {
                let other = other.to_string();
                return self.problem(FaultError::NotForThisFault {
                    setting: "with_variables",
                    applies_to: "JobFault::fail and JobFault::throw_error",
                    fault: other,
                });
            }
        }
        self
    }

    /// Checks the counts and durations, and what the builders could not take.
    pub fn validate(&self) -> Result<(), FaultError> {
        if let Some(problem) = &self.problem {
            return Err(problem.clone());
        }
        if self.times == Some(0) {
            return Err(FaultError::NoActivations);
        }
        let mut durations = vec![("job timeout", self.job_timeout)];
        match &self.kind {
            JobFaultKind::Fail {
                retries, backoff, ..
            } => {
                if let Some(r) = retries
                    && *r < 0
                {
                    return Err(FaultError::NegativeRetries(*r));
                }
                durations.push(("retry backoff", Some(*backoff)));
            }
            JobFaultKind::Latency(d) => durations.push(("latency", Some(*d))),
            JobFaultKind::ThrowError { code, .. } if code.trim().is_empty() => {
                return Err(FaultError::EmptyErrorCode);
            }
            _ => {}
        }
        if self.job_timeout.is_some_and(|t| t.is_zero()) {
            return Err(FaultError::ZeroJobTimeout);
        }
        for (what, d) in durations {
            check_duration(what, d)?;
        }
        Ok(())
    }
}

/// What a fault does at a model call.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelFaultKind {
    /// The model call fails as the provider fails it.
    Error(ModelError),
    /// The model answers after this latency (the turn of the script, or what the handler says).
    Latency(Duration),
    /// The model answered, then the connector crashed before the job was completed: the
    /// completion is lost, the job times out and is activated again, and the model is asked
    /// again (answered with the same turn: the script needs no extra turn).
    CrashAfterAnswer,
}

/// How a model call fails, as the provider and the connector report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// HTTP 429: the connector fails the job with `FAILED_MODEL_CALL`, "Model call failed: " and
    /// the provider's message.
    RateLimit { message: String },
    /// The HTTP client gave up after `after` (the call hangs that long first):
    /// `FAILED_MODEL_CALL`.
    Timeout { message: String, after: Duration },
    /// The provider's content filter blocked the answer: the connector fails the job with
    /// `MODEL_RESPONSE_CONTENT_FILTERED` before it reads the answer.
    Refusal,
    /// Another provider error: `FAILED_MODEL_CALL` with this message.
    Other { message: String },
}

/// An OpenAI-shaped 429 body, as LangChain4j passes it on as the exception's message.
pub const RATE_LIMIT_MESSAGE: &str = r#"{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#;
/// What Java's HTTP client says when a request times out.
pub const TIMEOUT_MESSAGE: &str = "java.net.http.HttpTimeoutException: request timed out";
/// The connector's error code for a failed model call.
pub const FAILED_MODEL_CALL: &str = "FAILED_MODEL_CALL";
/// The connector's error code for an answer the provider's content filter blocked.
pub const CONTENT_FILTERED: &str = "MODEL_RESPONSE_CONTENT_FILTERED";
/// The connector's message for an answer the provider's content filter blocked.
pub const CONTENT_FILTERED_MESSAGE: &str =
    "Model response was blocked by provider content filtering.";

impl ModelError {
    /// The connector's error code and exception message.
    pub fn connector_error(&self) -> (&'static str, String) {
        match self {
            ModelError::RateLimit { message }
            | ModelError::Timeout { message, .. }
            | ModelError::Other { message } => {
                (FAILED_MODEL_CALL, format!("Model call failed: {message}"))
            }
            ModelError::Refusal => (CONTENT_FILTERED, CONTENT_FILTERED_MESSAGE.to_string()),
        }
    }
}

impl fmt::Display for ModelFaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelFaultKind::Error(ModelError::RateLimit { .. }) => {
                f.write_str("the provider answers with a rate limit")
            }
            ModelFaultKind::Error(ModelError::Timeout { after, .. }) if after.is_zero() => {
                f.write_str("the model call times out")
            }
            ModelFaultKind::Error(ModelError::Timeout { after, .. }) => {
                write!(
                    f,
                    "the model call times out after {}",
                    format_duration(*after)
                )
            }
            ModelFaultKind::Error(ModelError::Refusal) => {
                f.write_str("the provider's content filter blocks the answer")
            }
            ModelFaultKind::Error(ModelError::Other { message }) => {
                write!(f, "the model call fails: {message}")
            }
            ModelFaultKind::Latency(d) => {
                write!(f, "the model answers after {}", format_duration(*d))
            }
            ModelFaultKind::CrashAfterAnswer => f.write_str(
                "the connector crashes after the model answered, before the job is completed",
            ),
        }
    }
}

/// A fault at one model call of an AI agent mock. As with [`JobFault`], a duration that does
/// not read is reported where the fault is injected, not by the builder.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFault {
    /// 1-based: the model call it applies to (counting every call the mock answered).
    pub call: u32,
    pub kind: ModelFaultKind,
    /// What a builder could not take.
    problem: Option<FaultError>,
}

impl ModelFault {
    fn of(kind: ModelFaultKind) -> ModelFault {
        ModelFault {
            call: 1,
            kind,
            problem: None,
        }
    }

    fn with_duration(
        what: &'static str,
        d: impl IntoDuration,
        kind: impl FnOnce(Duration) -> ModelFaultKind,
    ) -> ModelFault {
        match read_duration(what, d) {
            Ok(d) => ModelFault::of(kind(d)),
            Err(e) => ModelFault {
                problem: Some(e),
                ..ModelFault::of(kind(Duration::ZERO))
            },
        }
    }

    /// A rate limit (HTTP 429), with an OpenAI-shaped body as the message.
    pub fn rate_limit() -> ModelFault {
        ModelFault::of(ModelFaultKind::Error(ModelError::RateLimit {
            message: RATE_LIMIT_MESSAGE.to_string(),
        }))
    }

    /// The HTTP client times out at once (see [`ModelFault::timeout_after`]).
    pub fn timeout() -> ModelFault {
        ModelFault::of(ModelFaultKind::Error(ModelError::Timeout {
            message: TIMEOUT_MESSAGE.to_string(),
            after: Duration::ZERO,
        }))
    }

    /// The call hangs for `after`, then the HTTP client times out.
    pub fn timeout_after(after: impl IntoDuration) -> ModelFault {
        ModelFault::with_duration("timeout", after, |after| {
            ModelFaultKind::Error(ModelError::Timeout {
                message: TIMEOUT_MESSAGE.to_string(),
                after,
            })
        })
    }

    /// The provider's content filter blocks the answer.
    pub fn refusal() -> ModelFault {
        ModelFault::of(ModelFaultKind::Error(ModelError::Refusal))
    }

    /// Another provider error.
    pub fn error(message: impl Into<String>) -> ModelFault {
        ModelFault::of(ModelFaultKind::Error(ModelError::Other {
            message: message.into(),
        }))
    }

    /// The model answers after `latency`.
    pub fn latency(latency: impl IntoDuration) -> ModelFault {
        ModelFault::with_duration("latency", latency, ModelFaultKind::Latency)
    }

    /// The connector crashes after the model answered.
    pub fn crash_after_answer() -> ModelFault {
        ModelFault::of(ModelFaultKind::CrashAfterAnswer)
    }

    /// At model call `n` (1-based; default 1).
    pub fn at_call(mut self, n: u32) -> ModelFault {
        self.call = n;
        self
    }

    /// Replaces the provider's message of a rate limit, timeout or other error.
    pub fn with_message(mut self, text: impl Into<String>) -> ModelFault {
        if let ModelFaultKind::Error(
            ModelError::RateLimit { message }
            | ModelError::Timeout { message, .. }
            | ModelError::Other { message },
        ) = &mut self.kind
        {
            *message = text.into();
        }
        self
    }

    /// Checks the call number and durations, and what the builders could not take.
    pub fn validate(&self) -> Result<(), FaultError> {
        if let Some(problem) = &self.problem {
            return Err(problem.clone());
        }
        if self.call == 0 {
            return Err(FaultError::ModelCallZero);
        }
        match &self.kind {
            ModelFaultKind::Latency(d) => check_duration("latency", Some(*d)),
            ModelFaultKind::Error(ModelError::Timeout { after, .. }) => {
                check_duration("timeout", Some(*after))
            }
            ModelFaultKind::Error(ModelError::Other { message }) if message.trim().is_empty() => {
                Err(FaultError::EmptyMessage)
            }
            _ => Ok(()),
        }
    }
}

/// A fault that cannot be injected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultError {
    #[error(
        "a fault for 0 activations injects nothing: give 1 or more, or leave the count out for all"
    )]
    NoActivations,
    #[error("a failure cannot leave {0} retries (0 or more)")]
    NegativeRetries(i32),
    #[error("a BPMN error needs an error code")]
    EmptyErrorCode,
    #[error("a job timeout must be longer than 0")]
    ZeroJobTimeout,
    #[error("a {what} of {duration} is more than a fault may have (at most 366 days)")]
    TooLong {
        what: &'static str,
        duration: String,
    },
    #[error("model calls count from 1")]
    ModelCallZero,
    #[error("a provider error needs a message")]
    EmptyMessage,
    #[error("cannot {action} {jobs}: {why}")]
    NoSuchJobs {
        action: &'static str,
        jobs: String,
        why: String,
    },
    #[error("{0}")]
    Duration(String),
    #[error("the {what} of a fault: {reason}")]
    BadDuration { what: &'static str, reason: String },
    #[error("{setting} applies to {applies_to}, not to a fault that {fault}")]
    NotForThisFault {
        setting: &'static str,
        applies_to: &'static str,
        fault: String,
    },
    #[error("the variables of a fault: {0}")]
    NotVariables(String),
}

fn check_duration(what: &'static str, d: Option<Duration>) -> Result<(), FaultError> {
    match d {
        Some(d) if d > LONGEST_FAULT_DURATION => Err(FaultError::TooLong {
            what,
            duration: format_duration(d),
        }),
        _ => Ok(()),
    }
}

/// A builder's duration, or why it is none (`what`: latency, retry backoff, ...).
fn read_duration(what: &'static str, d: impl IntoDuration) -> Result<Duration, FaultError> {
    match d.into_millis() {
        Ok(ms) => {
            u64::try_from(ms)
                .map(Duration::from_millis)
                .map_err(|_| FaultError::BadDuration {
                    what,
                    reason: format!("{ms} ms is negative; the clock only moves forward"),
                })
        }
        Err(e) => Err(FaultError::BadDuration {
            what,
            reason: e.to_string(),
        }),
    }
}

/// `PT5M`, `PT0.5S`, `P1DT2H`: a duration as ISO-8601, the way the JSON files write them.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms == 0 {
        return "PT0S".to_string();
    }
    let days = ms / 86_400_000;
    let hours = ms / 3_600_000 % 24;
    let minutes = ms / 60_000 % 60;
    let seconds = ms / 1000 % 60;
    let millis = ms % 1000;
    let mut text = String::from("P");
    if days > 0 {
        text.push_str(&format!("{days}D"));
    }
    if hours > 0 || minutes > 0 || seconds > 0 || millis > 0 {
        text.push('T');
        if hours > 0 {
            text.push_str(&format!("{hours}H"));
        }
        if minutes > 0 {
            text.push_str(&format!("{minutes}M"));
        }
        if millis > 0 {
            text.push_str(&format!("{seconds}.{millis:03}S"));
        } else if seconds > 0 {
            text.push_str(&format!("{seconds}S"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_iso_8601() {
        let cases = [
            (0, "PT0S"),
            (500, "PT0.500S"),
            (300_000, "PT5M"),
            (90_061_000, "P1DT1H1M1S"),
            (86_400_000, "P1D"),
        ];
        for (ms, text) in cases {
            assert_eq!(format_duration(Duration::from_millis(ms)), text);
        }
    }

    #[test]
    fn bad_faults_are_refused() {
        let faults = [
            JobFault::no_answer().times(0),
            JobFault::fail("x").with_retries(-1),
            JobFault::latency(Duration::from_secs(400 * 86_400)),
            JobFault::throw_error(" ", "x"),
        ];
        let messages: Vec<String> = faults
            .iter()
            .map(|f| f.validate().unwrap_err().to_string())
            .collect();
        insta::assert_snapshot!(messages.join("\n"), @"
        a fault for 0 activations injects nothing: give 1 or more, or leave the count out for all
        a failure cannot leave -1 retries (0 or more)
        a latency of P400D is more than a fault may have (at most 366 days)
        a BPMN error needs an error code
        ");
        assert_eq!(
            ModelFault::rate_limit().at_call(0).validate(),
            Err(FaultError::ModelCallZero)
        );
    }
}
