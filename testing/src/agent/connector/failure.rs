//! How the connector fails a job: the connector runtime's FailJob (the exception, its code, the
//! rendered error variables, retries and the `retryBackoff` header).

use serde_json::{Map, Value};

use super::job::{AgentJob, JobFailure, Variables};

pub(super) const CONNECTOR_EXCEPTION: &str = "io.camunda.connector.api.error.ConnectorException";
const INPUT_EXCEPTION: &str = "io.camunda.connector.api.error.ConnectorInputException";

/// What a failure of this job needs: its retries and its `retryBackoff` header.
#[derive(Debug, Clone)]
pub(super) struct FailureContext {
    retries: i32,
    /// The `retryBackoff` header, read only when the job fails.
    backoff_header: Option<String>,
}

impl FailureContext {
    pub(super) fn of(job: &AgentJob<'_>) -> FailureContext {
        FailureContext {
            retries: job.retries,
            backoff_header: job.headers.get("retryBackoff").cloned(),
        }
    }

    /// A `ConnectorException` with the connector's error code.
    pub(super) fn connector(&self, code: Option<&str>, message: String) -> JobFailure {
        self.fail(CONNECTOR_EXCEPTION, code, message)
    }

    /// The connector runtime's input validation failed: an incident at once (no retries).
    pub(super) fn invalid_input(&self, violations: &[String]) -> JobFailure {
        let message = format!(
            "jakarta.validation.ValidationException: Found constraints violated while validating input: \n{}",
            violations
                .iter()
                .map(|v| format!(" - {v}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let mut failure = self.fail(INPUT_EXCEPTION, None, message);
        failure.retries = 0;
        failure
    }

    pub(super) fn fail(&self, exception: &str, code: Option<&str>, message: String) -> JobFailure {
        let mut error = Map::new();
        error.insert("type".into(), exception.into());
        error.insert("message".into(), message.clone().into());
        if let Some(code) = code {
            error.insert("code".into(), code.into());
        }
        let rendered = format!(
            "{{error={{type={exception}, message={message}{}}}}}",
            code.map(|c| format!(", code={c}")).unwrap_or_default()
        );
        let mut variables = Variables::new();
        variables.insert("error".into(), Value::Object(error));
        let (retries, retry_backoff_ms, message_text) =
            match parse_backoff(self.backoff_header.as_deref()) {
                Ok(backoff) => ((self.retries - 1).max(0), backoff, message.clone()),
                // An unreadable backoff header fails the job for good, with its own message.
                Err(header_message) => (0, None, header_message),
            };
        let mut error_message = format!("{message_text} | Error variables: {rendered}");
        if error_message.chars().count() > 6000 {
            error_message = error_message.chars().take(6000).collect();
        }
        JobFailure {
            retries,
            retry_backoff_ms,
            error_message,
            variables,
            code: code.map(str::to_string),
            message: message_text,
        }
    }
}

/// Reads an ISO-8601 duration as Java's `Duration.parse` does (`PT30S`, `PT5M`, `P1DT2H`, `PT0.5S`).
pub(crate) fn parse_backoff(header: Option<&str>) -> Result<Option<u64>, String> {
    let Some(header) = header else {
        return Ok(None);
    };
    let invalid = || {
        format!(
            "Failed to parse retry backoff header. Expected ISO-8601 duration, e.g. PT5M, got: {header}"
        )
    };
    let text = header.trim().to_ascii_uppercase();
    let Some(rest) = text.strip_prefix('P') else {
        return Err(invalid());
    };
    let (days, time) = match rest.split_once('T') {
        Some((days, time)) => (days, Some(time)),
        None => (rest, None),
    };
    let mut millis: f64 = 0.0;
    let mut any = false;
    if !days.is_empty() {
        let n: f64 = days
            .strip_suffix('D')
            .and_then(|d| d.parse().ok())
            .ok_or_else(invalid)?;
        millis += n * 86_400_000.0;
        any = true;
    }
    if let Some(mut time) = time {
        if time.is_empty() {
            return Err(invalid());
        }
        for (unit, factor) in [('H', 3_600_000.0), ('M', 60_000.0), ('S', 1_000.0)] {
            if let Some(at) = time.find(unit) {
                let n: f64 = time[..at]
                    .replace(',', ".")
                    .parse()
                    .map_err(|_| invalid())?;
                millis += n * factor;
                time = &time[at + 1..];
                any = true;
            }
        }
        if !time.is_empty() {
            return Err(invalid());
        }
    }
    if !any || millis < 0.0 {
        return Err(invalid());
    }
    Ok(Some(millis.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_headers_read_like_java_durations() {
        assert_eq!(parse_backoff(None), Ok(None));
        assert_eq!(parse_backoff(Some("PT30S")), Ok(Some(30_000)));
        assert_eq!(parse_backoff(Some("PT0S")), Ok(Some(0)));
        assert_eq!(parse_backoff(Some("PT5M")), Ok(Some(300_000)));
        assert_eq!(parse_backoff(Some("P1DT1H")), Ok(Some(90_000_000)));
        assert_eq!(parse_backoff(Some("PT0.5S")), Ok(Some(500)));
        assert!(parse_backoff(Some("30s")).is_err());
        assert!(parse_backoff(Some("PT")).is_err());
    }
}
