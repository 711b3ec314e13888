//! Errors as the gateway answers them: RFC 9457 problem details, `application/problem+json`.

use serde::{Deserialize, Serialize};

/// The media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// An error body: `title` is Zeebe's rejection type (`NOT_FOUND`, `INVALID_STATE`, ...) or
/// `Bad Request`; `detail` says what went wrong in the engine's words; `instance` is the request
/// path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProblemDetail {
    #[serde(rename = "type")]
    pub problem_type: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    pub instance: String,
}

impl ProblemDetail {
    /// A problem with the type `about:blank`.
    pub fn new(
        status: u16,
        title: impl Into<String>,
        detail: impl Into<String>,
        instance: impl Into<String>,
    ) -> ProblemDetail {
        ProblemDetail {
            problem_type: "about:blank".to_owned(),
            title: title.into(),
            status,
            detail: detail.into(),
            instance: instance.into(),
        }
    }

    /// A command the engine rejected: the status the gateway maps the rejection type to, and
    /// `Command '<INTENT>' rejected with code '<TYPE>': <reason>`.
    pub fn rejection(
        intent: &str,
        rejection_type: &str,
        reason: &str,
        instance: impl Into<String>,
    ) -> ProblemDetail {
        ProblemDetail::new(
            rejection_status(rejection_type),
            rejection_type,
            format!("Command '{intent}' rejected with code '{rejection_type}': {reason}"),
            instance,
        )
    }

    /// A request the gateway cannot read or that misses a field: 400 `Bad Request`.
    pub fn bad_request(detail: impl Into<String>, instance: impl Into<String>) -> ProblemDetail {
        ProblemDetail::new(400, "Bad Request", detail, instance)
    }
}

/// The HTTP status the gateway answers a rejection type with.
pub fn rejection_status(rejection_type: &str) -> u16 {
    match rejection_type {
        "NOT_FOUND" => 404,
        "INVALID_STATE" | "ALREADY_EXISTS" => 409,
        "UNAUTHORIZED" => 401,
        "FORBIDDEN" => 403,
        "RESOURCE_EXHAUSTED" => 429,
        "INVALID_ARGUMENT" => 400,
        _ => 500,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_reads_as_the_gateway_writes_it() {
        let p = ProblemDetail::rejection(
            "CREATE",
            "NOT_FOUND",
            "Expected to find process definition with process ID 'x', but none found",
            "/v2/process-instances",
        );
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            serde_json::json!({
                "type": "about:blank",
                "title": "NOT_FOUND",
                "status": 404,
                "detail": "Command 'CREATE' rejected with code 'NOT_FOUND': Expected to find process definition with process ID 'x', but none found",
                "instance": "/v2/process-instances"
            })
        );
    }
}
