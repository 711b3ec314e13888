//! The connector runtime's `errorExpression` task header, as it treats the AI agent job: a FEEL
//! expression evaluated after every job (success or failure) that may turn the outcome into a
//! BPMN error (`bpmnError(…)`), a different job failure (`jobError(…)`), or leave it as it is.
//!
//! The expression sees the connector's result value (on success the agent response
//! `{context, toolCalls, responseText?, responseJson?, responseMessage?}`, nothing when the
//! job only waits; on failure `{error: {type, message, code?}}`), the same value as `response`,
//! and `job.retries` (the retries of the activated job). `bpmnError`, `jobError` and
//! `ignoreError` are the runtime's FEEL functions: they exist only here, passed to
//! [`baton_feel`] as [`NativeFunction`] variables, never as built-ins of the engine's
//! expressions. Each returns a context marked with `errorType`, which the runtime reads back.

use baton_feel::{Env, Expression, NativeFunction, Value as Feel};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::connector::{JobAnswer, JobFailure, ThrownError, Variables, parse_backoff};

/// The task header.
pub const ERROR_EXPRESSION_HEADER: &str = "errorExpression";

pub(super) const WRAPPER_EXCEPTION: &str = "io.camunda.connector.feel.FeelEngineWrapperException";
pub(super) const INPUT_EXCEPTION: &str = "io.camunda.connector.api.error.ConnectorInputException";
const CONNECTOR_ERROR_CLASS: &str = "io.camunda.connector.runtime.core.error.ConnectorError";
const IGNORE_ERROR_UNSUPPORTED: &str = "IgnoreError is not supported for this connector";
/// Java prints the evaluator's argument array, whose identity hash cannot be reproduced.
pub(super) const JAVA_ARGUMENT_ARRAY: &str = "[Ljava.lang.Object;@…";

/// The job's outcome before the expression, with the connector's result value.
pub struct Outcome {
    pub answer: JobAnswer,
    /// The agent response of a completion that asked the model (`None`: the job only waited or
    /// listed MCP tools, the connector has no response).
    pub response: Option<Value>,
    /// The AI Agent Task's job: its response is a standard one, not an ad-hoc sub-process
    /// result, so `ignoreError` completes it plainly.
    pub plain: bool,
}

/// Applies the `errorExpression` header (if present and not blank) to a job's outcome.
pub fn apply(header: Option<&str>, retries: i32, outcome: Outcome) -> JobAnswer {
    let Some(header) = header.filter(|h| !h.trim().is_empty()) else {
        return outcome.answer;
    };
    let failure_variables;
    let result_value = match &outcome.answer {
        JobAnswer::Fail(failure) => {
            failure_variables = Value::Object(
                failure
                    .variables
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
            &failure_variables
        }
        _ => outcome.response.as_ref().unwrap_or(&Value::Null),
    };
    match examine(header, result_value, retries) {
        Ok(None) => outcome.answer,
        Ok(Some(ConnectorError::Bpmn(thrown))) => JobAnswer::ThrowError(thrown),
        Ok(Some(ConnectorError::Job(failure))) => JobAnswer::Fail(failure),
        Ok(Some(ConnectorError::Ignore(variables))) => match outcome.answer {
            // SpringConnectorJobHandler.handleIgnoreError: a standard response (the AI Agent
            // Task's) completes with the given variables, on success as on failure.
            JobAnswer::Complete(_) | JobAnswer::Fail(_) if outcome.plain => {
                JobAnswer::Complete(super::connector::JobCompletion {
                    variables: variables
                        .map(into_variables)
                        .map(super::connector::share_variables)
                        .unwrap_or_default(),
                    plain: true,
                    ..Default::default()
                })
            }
            // On success the runtime refuses it for an ad-hoc sub-process response.
            JobAnswer::Complete(_) | JobAnswer::ThrowError(_) => {
                let suffix = variables.as_ref().map(java_text);
                JobAnswer::Fail(JobFailure {
                    retries: 0,
                    retry_backoff_ms: None,
                    error_message: with_suffix(IGNORE_ERROR_UNSUPPORTED, suffix.as_deref()),
                    variables: variables.map(into_variables).unwrap_or_default(),
                    code: None,
                    message: IGNORE_ERROR_UNSUPPORTED.to_string(),
                })
            }
            // On failure it completes the job with the given variables and no element activated.
            JobAnswer::Fail(_) => JobAnswer::Complete(super::connector::JobCompletion {
                variables: variables
                    .map(into_variables)
                    .map(super::connector::share_variables)
                    .unwrap_or_default(),
                ..Default::default()
            }),
        },
        Err((exception, message)) => JobAnswer::Fail(final_result_failure(exception, message)),
    }
}

enum ConnectorError {
    Bpmn(ThrownError),
    Job(JobFailure),
    Ignore(Option<Value>),
}

/// Evaluates the expression; `Err` is (exception class, message) of a failed evaluation.
fn examine(
    header: &str,
    result_value: &Value,
    retries: i32,
) -> Result<Option<ConnectorError>, (&'static str, String)> {
    let source = header.trim();
    let source = source.strip_prefix('=').unwrap_or(source).trim();
    let wrapper_failure = |reason: String| {
        (
            WRAPPER_EXCEPTION,
            format!(
                "Failed to evaluate expression '{header}' in context '{JAVA_ARGUMENT_ARRAY}'. Reason: {reason}"
            ),
        )
    };
    let expression = Expression::parse(source).map_err(|e| wrapper_failure(e.to_string()))?;

    // The result value's entries, then `response` and `job` (later ones win), then the functions.
    // Converted once: the entries share their values with `response`.
    let response = Feel::from_json(result_value);
    let mut vars: IndexMap<String, Feel> = IndexMap::new();
    if let Feel::Context(entries) = &response {
        for (name, value) in entries.iter() {
            vars.insert(name.to_string(), value.clone());
        }
    }
    vars.insert("response".into(), response);
    vars.insert(
        "job".into(),
        Feel::from_json(&json!({ "retries": retries })),
    );
    for function in connector_functions() {
        let name = function.name.to_string();
        vars.insert(name, function.into_value());
    }
    let evaluation = expression.evaluate(&vars, &Env::default());
    let value = evaluation
        .result
        .map_err(|failure| wrapper_failure(failure.to_string()))?
        .to_json();

    // What the runtime reads back: null or `{}` is no error; anything else must be a marked
    // context.
    let rejected = |reason: String, evaluated: &str| {
        (
            INPUT_EXCEPTION,
            format!(
                "{WRAPPER_EXCEPTION}: Failed to evaluate expression '{header}' in context '{evaluated}'. Reason: {reason}"
            ),
        )
    };
    let evaluated = value.to_string();
    let entries = match &value {
        Value::Null => return Ok(None),
        Value::Object(entries) if entries.is_empty() => return Ok(None),
        Value::Object(entries) => entries,
        other => {
            return Err(rejected(
                format!(
                    "Error expression must return a JSON object, but got {}. Evaluated value: {evaluated}",
                    json_node_type(other)
                ),
                &evaluated,
            ));
        }
    };
    let unreadable = || {
        rejected(
            format!("Cannot parse '{evaluated}' as '{CONNECTOR_ERROR_CLASS}'."),
            &evaluated,
        )
    };
    let text = |key: &str| -> Result<Option<String>, (&'static str, String)> {
        match entries.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(unreadable()),
        }
    };
    let object = |key: &str| -> Result<Option<Map<String, Value>>, (&'static str, String)> {
        match entries.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o.clone())),
            Some(_) => Err(unreadable()),
        }
    };
    match entries.get("errorType").and_then(Value::as_str) {
        Some("bpmnError") => {
            let Some(code) = text("errorCode")?.filter(|c| !c.is_empty()) else {
                // A BPMN error without a code is not thrown: the outcome stands.
                return Ok(None);
            };
            Ok(Some(ConnectorError::Bpmn(ThrownError {
                code,
                message: text("errorMessage")?,
                variables: object("variables")?
                    .map(|o| o.into_iter().collect())
                    .unwrap_or_default(),
            })))
        }
        Some("jobError") => {
            let message = text("errorMessage")?.unwrap_or_default();
            let retries = match entries.get("retries") {
                None | Some(Value::Null) => 0,
                Some(Value::Number(n)) => n
                    .as_i64()
                    .or_else(|| n.as_f64().map(|f| f.trunc() as i64))
                    .map_or(0, |n| n.clamp(i32::MIN as i64, i32::MAX as i64) as i32),
                Some(_) => return Err(unreadable()),
            };
            let retry_backoff_ms = match entries.get("retryBackoff") {
                None | Some(Value::Null) => Some(0),
                Some(Value::String(d)) => parse_backoff(Some(d)).map_err(|_| unreadable())?,
                Some(_) => return Err(unreadable()),
            };
            // The given variables plus `error`, the message (it replaces an `error` given).
            let mut variables = object("variables")?.unwrap_or_default();
            variables.insert("error".into(), message.clone().into());
            let rendered = java_text(&Value::Object(variables.clone()));
            Ok(Some(ConnectorError::Job(JobFailure {
                retries: retries.max(0),
                retry_backoff_ms,
                error_message: truncate(&with_suffix(&message, Some(&rendered))),
                variables: variables.into_iter().collect(),
                code: None,
                message,
            })))
        }
        Some("ignoreError") => Ok(Some(ConnectorError::Ignore(
            object("variables")?.map(Value::Object),
        ))),
        _ => Err(unreadable()),
    }
}

/// `bpmnError`, `jobError` and `ignoreError`, as the connector runtime's function provider has
/// them: each returns its arguments in a context marked with `errorType`.
fn connector_functions() -> [NativeFunction; 3] {
    let bpmn_error = NativeFunction::new(
        "bpmnError",
        &[
            &["errorCode"],
            &["errorCode", "errorMessage"],
            &["errorCode", "errorMessage", "variables"],
        ],
        |args| {
            let mut marker = marker("bpmnError");
            marker.insert(
                "errorCode".into(),
                string_arg(args, 0, "bpmnError", "errorCode")?,
            );
            if args.len() > 1 {
                marker.insert(
                    "errorMessage".into(),
                    string_arg(args, 1, "bpmnError", "errorMessage")?,
                );
            }
            if args.len() > 2 {
                marker.insert(
                    "variables".into(),
                    context_arg(args, 2, "bpmnError", "variables")?,
                );
            }
            Ok(Feel::Context(marker.into()))
        },
    );
    let job_error = NativeFunction::new(
        "jobError",
        &[
            &["errorMessage"],
            &["errorMessage", "variables"],
            &["errorMessage", "variables", "retries"],
            &["errorMessage", "variables", "retries", "retryBackoff"],
        ],
        |args| {
            let mut marker = marker("jobError");
            marker.insert(
                "errorMessage".into(),
                string_arg(args, 0, "jobError", "errorMessage")?,
            );
            let variables = match args.get(1) {
                Some(_) => context_arg(args, 1, "jobError", "variables")?,
                None => Feel::Context(Default::default()),
            };
            marker.insert("variables".into(), variables);
            let retries = match args.get(2) {
                Some(Feel::Number(_)) => args[2].clone(),
                Some(_) => {
                    return Err(
                        "Parameter 'retries' of function 'jobError' must be a Number".to_string(),
                    );
                }
                None => Feel::int(0),
            };
            marker.insert("retries".into(), retries);
            let backoff = match args.get(3) {
                Some(Feel::DayTimeDuration(_)) => args[3].clone(),
                Some(_) => {
                    return Err("Parameter 'retryBackoff' of function 'jobError' must be a day-time duration (e.g. duration(\"PT1S\"))".to_string());
                }
                None => Feel::DayTimeDuration(Default::default()),
            };
            marker.insert("retryBackoff".into(), backoff);
            Ok(Feel::Context(marker.into()))
        },
    );
    let ignore_error = NativeFunction::new("ignoreError", &[&[], &["variables"]], |args| {
        let mut marker = marker("ignoreError");
        if !args.is_empty() {
            marker.insert(
                "variables".into(),
                context_arg(args, 0, "ignoreError", "variables")?,
            );
        }
        Ok(Feel::Context(marker.into()))
    });
    [bpmn_error, job_error, ignore_error]
}

fn marker(error_type: &str) -> baton_feel::Context {
    let mut context = baton_feel::Context::default();
    context.insert("errorType".into(), Feel::string(error_type));
    context
}

fn string_arg(args: &[Feel], i: usize, function: &str, param: &str) -> Result<Feel, String> {
    match &args[i] {
        value @ Feel::String(_) => Ok(value.clone()),
        _ => Err(format!(
            "Parameter '{param}' of function '{function}' must be a String"
        )),
    }
}

fn context_arg(args: &[Feel], i: usize, function: &str, param: &str) -> Result<Feel, String> {
    match &args[i] {
        value @ Feel::Context(_) => Ok(value.clone()),
        _ => Err(format!(
            "Parameter '{param}' of function '{function}' must be a Context"
        )),
    }
}

/// The FailJob of a failure while handling the result (the expression): no retries left, no
/// backoff, `{error: {type, message}}`.
pub(super) fn final_result_failure(exception: &str, message: String) -> JobFailure {
    let message = truncate(&message);
    let rendered = format!("{{error={{type={exception}, message={message}}}}}");
    let mut variables = Variables::new();
    variables.insert(
        "error".into(),
        json!({"type": exception, "message": message}),
    );
    JobFailure {
        retries: 0,
        retry_backoff_ms: None,
        error_message: truncate(&with_suffix(&message, Some(&rendered))),
        variables,
        code: None,
        message,
    }
}

fn with_suffix(message: &str, variables: Option<&str>) -> String {
    match variables {
        Some(rendered) => format!("{message} | Error variables: {rendered}"),
        None => message.to_string(),
    }
}

/// The runtime cuts messages at 6000 characters.
fn truncate(message: &str) -> String {
    message.chars().take(6000).collect()
}

fn into_variables(value: Value) -> Variables {
    match value {
        Value::Object(entries) => entries.into_iter().collect(),
        _ => Variables::new(),
    }
}

/// Jackson's name for the kind of a JSON value.
pub(super) fn json_node_type(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Object(_) => "object",
    }
}

/// A value as Java's `Map.toString` prints it (`{key=value, …}`, lists `[a, b]`, strings bare),
/// in the value's own key order (Java's hash order is not reproducible).
pub(crate) fn java_text(value: &Value) -> String {
    match value {
        Value::Object(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{k}={}", java_text(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(java_text).collect::<Vec<_>>().join(", ")
        ),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn examine_json(expression: &str, value: Value) -> Value {
        match examine(expression, &value, 3) {
            Ok(None) => json!("normal"),
            Ok(Some(ConnectorError::Bpmn(t))) => {
                json!({"throw": t.code, "message": t.message, "variables": t.variables})
            }
            Ok(Some(ConnectorError::Job(f))) => {
                json!({"fail": f.error_message, "retries": f.retries, "backoff": f.retry_backoff_ms, "variables": f.variables})
            }
            Ok(Some(ConnectorError::Ignore(v))) => json!({"ignore": v}),
            Err((exception, message)) => json!({"exception": exception, "message": message}),
        }
    }

    #[test]
    fn the_functions_and_what_the_runtime_reads_back() {
        let error = json!({"error": {"type": "T", "message": "boom", "code": "X"}});
        let cases = [
            r#"=bpmnError(error.code, error.message)"#,
            r#"bpmnError("C")"#,
            r#"bpmnError("C", "m", {a: 1})"#,
            r#"bpmnError("", "m")"#,
            r#"bpmnError(1, "m")"#,
            r#"jobError("again")"#,
            r#"jobError("again", {a: 1}, job.retries - 1, duration("PT10S"))"#,
            r#"jobError("again", {error: "x"}, 2)"#,
            r#"jobError("again", {}, 2, "PT1S")"#,
            r#"ignoreError({a: 1})"#,
            r#"if response.error.code = "X" then {} else bpmnError("C")"#,
            r#"null"#,
            r#""text""#,
            r#"[1]"#,
            r#"{a: 1}"#,
            r#"{errorType: "other"}"#,
            r#"bpmnError("C""#,
        ];
        let outcomes: Vec<Value> = cases
            .iter()
            .map(|c| json!({"expression": c, "outcome": examine_json(c, error.clone())}))
            .collect();
        insta::assert_json_snapshot!(outcomes);
    }

    #[test]
    fn java_text_renders_maps_like_java() {
        assert_eq!(
            java_text(&json!({"error": "m", "n": [1, "a"], "o": {"x": null}})),
            "{error=m, n=[1, a], o={x=null}}"
        );
    }
}
