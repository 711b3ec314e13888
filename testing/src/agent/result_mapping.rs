//! The connector runtime's result mapping of an outbound connector's job
//! (`ConnectorResultHandler.createOutputVariables`), as the AI Agent Task's completion gets it:
//! the connector's result under the `resultVariable` header's name (when it is not blank), and
//! the entries of the context the `resultExpression` header's FEEL gives (it sees the result's
//! entries and the result as `response`; null adds nothing).

use baton_engine::runtime::SharedJson;
use baton_feel::{Env, Expression, Value as Feel};
use indexmap::IndexMap;
use serde_json::Value;

use super::connector::{JobCompletion, JobFailure};
use super::error_expression::{
    INPUT_EXCEPTION, JAVA_ARGUMENT_ARRAY, WRAPPER_EXCEPTION, final_result_failure, json_node_type,
};

/// The task header naming the result variable.
pub const RESULT_VARIABLE_HEADER: &str = "resultVariable";
/// The task header with the FEEL result expression.
pub const RESULT_EXPRESSION_HEADER: &str = "resultExpression";

/// Sets a plain completion's variables from its result (`completion.response`, null when the
/// connector had none); `Err` is the job failure of a result expression that fails.
pub fn map_result(
    headers: &IndexMap<String, String>,
    completion: &mut JobCompletion,
) -> Result<(), Box<JobFailure>> {
    let response = completion
        .response
        .clone()
        .unwrap_or_else(|| SharedJson::new(Value::Null));
    if let Some(name) = headers
        .get(RESULT_VARIABLE_HEADER)
        .filter(|name| !name.trim().is_empty())
    {
        completion.variables.insert(name.clone(), response.clone());
    }
    let Some(header) = headers
        .get(RESULT_EXPRESSION_HEADER)
        .filter(|e| !e.trim().is_empty())
    else {
        return Ok(());
    };
    let entries = evaluate(header, &response.to_json())
        .map_err(|(exception, message)| Box::new(final_result_failure(exception, message)))?;
    for (name, value) in entries {
        completion.variables.insert(name, SharedJson::new(value));
    }
    Ok(())
}

/// The entries of the expression's context; `Err` is (exception class, message).
fn evaluate(
    header: &str,
    response: &Value,
) -> Result<Vec<(String, Value)>, (&'static str, String)> {
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
    let value = Feel::from_json(response);
    let mut vars: IndexMap<String, Feel> = IndexMap::new();
    if let Feel::Context(entries) = &value {
        for (name, entry) in entries.iter() {
            vars.insert(name.to_string(), entry.clone());
        }
    }
    vars.insert("response".into(), value);
    let evaluated = expression
        .evaluate(&vars, &Env::default())
        .result
        .map_err(|failure| wrapper_failure(failure.to_string()))?
        .to_json();
    match evaluated {
        Value::Null => Ok(Vec::new()),
        Value::Object(entries) => Ok(entries.into_iter().collect()),
        other => {
            let text = other.to_string();
            Err((
                INPUT_EXCEPTION,
                format!(
                    "{WRAPPER_EXCEPTION}: Failed to evaluate expression '{header}' in context '{text}'. Reason: Result expression must return a JSON object, but got {}. Evaluated value: {text}",
                    json_node_type(&other)
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn headers(entries: &[(&str, &str)]) -> IndexMap<String, String> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn completion(response: Option<Value>) -> JobCompletion {
        JobCompletion {
            plain: true,
            response: response.map(SharedJson::new),
            ..JobCompletion::default()
        }
    }

    /// camunda/connectors `connector-runtime-core/.../ConnectorResultHandler.java`
    /// `createOutputVariables`: the result variable, then the expression's entries.
    #[test]
    fn the_result_variable_and_expression_become_variables() {
        let mut done = completion(Some(json!({"responseText": "hi", "toolCalls": []})));
        map_result(
            &headers(&[
                ("resultVariable", "agent"),
                (
                    "resultExpression",
                    "={answer: responseText, calls: count(response.toolCalls)}",
                ),
            ]),
            &mut done,
        )
        .unwrap();
        let variables: Value = done
            .variables
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect::<serde_json::Map<_, _>>()
            .into();
        assert_eq!(
            variables,
            json!({"agent": {"responseText": "hi", "toolCalls": []}, "answer": "hi", "calls": 0})
        );
        // No response (the connector waited): the result variable is null.
        let mut waited = completion(None);
        map_result(&headers(&[("resultVariable", "agent")]), &mut waited).unwrap();
        assert_eq!(waited.variables["agent"].to_json(), Value::Null);
        // A blank name sets nothing.
        let mut unnamed = completion(Some(json!({})));
        map_result(&headers(&[("resultVariable", " ")]), &mut unnamed).unwrap();
        assert!(unnamed.variables.is_empty());
    }

    #[test]
    fn a_result_expression_that_is_no_context_fails_the_job() {
        let mut done = completion(Some(json!({"responseText": "hi"})));
        let failure = map_result(
            &headers(&[("resultExpression", "=responseText")]),
            &mut done,
        )
        .unwrap_err();
        assert_eq!(failure.retries, 0);
        insta::assert_snapshot!(failure.message, @r#"io.camunda.connector.feel.FeelEngineWrapperException: Failed to evaluate expression '=responseText' in context '"hi"'. Reason: Result expression must return a JSON object, but got string. Evaluated value: "hi""#);
    }
}
