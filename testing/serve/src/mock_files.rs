//! Mocks from files (`--mock JOBTYPE=FILE`, `--agent ELEMENT=FILE`) and from the bodies of
//! baton's own routes: the same JSON either way.

use baton_testing::agent::{AgentScript, Cassette, Turn};
use baton_testing::{Answer, ProcessTest};
use serde_json::Value;

/// A job mock as JSON, like CPT's `MOCK_JOB_WORKER_*` instructions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JobMockSpec {
    Complete(serde_json::Map<String, Value>),
    ThrowError {
        code: String,
        message: String,
        variables: serde_json::Map<String, Value>,
    },
}

impl JobMockSpec {
    /// Reads `{"type": "MOCK_JOB_WORKER_COMPLETE_JOB" | "MOCK_JOB_WORKER_THROW_BPMN_ERROR", ...}`;
    /// a `jobType` in it must be `job_type`.
    pub fn from_json(value: &Value, job_type: &str) -> Result<JobMockSpec, String> {
        let Some(object) = value.as_object() else {
            return Err("a job mock is a JSON object with a \"type\"".to_owned());
        };
        if let Some(t) = object.get("jobType")
            && t.as_str() != Some(job_type)
        {
            return Err(format!(
                "its jobType {t} is not the mocked job type \"{job_type}\""
            ));
        }
        let variables = match object.get("variables") {
            None | Some(Value::Null) => serde_json::Map::new(),
            Some(Value::Object(v)) => v.clone(),
            Some(other) => return Err(format!("variables: expected an object, got {other}")),
        };
        let text = |field: &str| object.get(field).and_then(Value::as_str).map(str::to_owned);
        let known = ["type", "jobType", "variables", "errorCode", "errorMessage"];
        if let Some(unknown) = object.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!(
                "unknown field \"{unknown}\" (expected one of {})",
                known.join(", ")
            ));
        }
        match text("type").as_deref() {
            Some("MOCK_JOB_WORKER_COMPLETE_JOB") => Ok(JobMockSpec::Complete(variables)),
            Some("MOCK_JOB_WORKER_THROW_BPMN_ERROR") => Ok(JobMockSpec::ThrowError {
                code: text("errorCode").ok_or("errorCode: missing (a string)")?,
                message: text("errorMessage").unwrap_or_default(),
                variables,
            }),
            _ => Err(format!(
                "type: expected \"MOCK_JOB_WORKER_COMPLETE_JOB\" or \"MOCK_JOB_WORKER_THROW_BPMN_ERROR\", got {}",
                object
                    .get("type")
                    .map_or("nothing".to_owned(), Value::to_string)
            )),
        }
    }

    /// Registers the mock (it replaces an earlier mock of the type).
    pub fn register(self, test: &ProcessTest, job_type: &str) -> baton_testing::JobMock {
        let builder = test.mock_job(job_type);
        match self {
            JobMockSpec::Complete(variables) => builder.complete_with(Value::Object(variables)),
            JobMockSpec::ThrowError {
                code,
                message,
                variables,
            } => builder.answer(
                Answer::throw_error(code, message).with_variables(Value::Object(variables)),
            ),
        }
    }
}

/// The model's turns for an AI Agent element: a cassette (an object with `version`), an array
/// of turns, or `{"turns": [...]}`.
pub(crate) fn agent_script(value: &Value, source: &str) -> Result<AgentScript, String> {
    if value.get("version").is_some() {
        let cassette = Cassette::from_json(value, source).map_err(|e| e.to_string())?;
        return Ok(cassette.into());
    }
    let turns = match value {
        Value::Array(turns) => turns,
        Value::Object(o) => match o.get("turns") {
            Some(Value::Array(turns)) => turns,
            _ => return Err("expected a cassette, an array of turns or {\"turns\": [...]}".into()),
        },
        _ => return Err("expected a cassette, an array of turns or {\"turns\": [...]}".into()),
    };
    let turns = turns
        .iter()
        .enumerate()
        .map(|(i, t)| Turn::from_json(t, &format!("turns[{i}]")).map_err(|p| p.to_string()))
        .collect::<Result<Vec<Turn>, String>>()?;
    Ok(turns.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn job_mocks_read_like_cpt_instructions() {
        let spec = JobMockSpec::from_json(
            &json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "variables": {"a": 1}}),
            "t",
        )
        .unwrap();
        assert_eq!(
            spec,
            JobMockSpec::Complete(json!({"a": 1}).as_object().unwrap().clone())
        );
        let problems = [
            (json!([]), "a job mock is a JSON object with a \"type\""),
            (
                json!({"type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR"}),
                "errorCode: missing (a string)",
            ),
            (
                json!({"type": "X"}),
                "type: expected \"MOCK_JOB_WORKER_COMPLETE_JOB\" or \"MOCK_JOB_WORKER_THROW_BPMN_ERROR\", got \"X\"",
            ),
            (
                json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": "u"}),
                "its jobType \"u\" is not the mocked job type \"t\"",
            ),
            (
                json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "vars": {}}),
                "unknown field \"vars\" (expected one of type, jobType, variables, errorCode, errorMessage)",
            ),
        ];
        for (value, message) in problems {
            assert_eq!(JobMockSpec::from_json(&value, "t").unwrap_err(), message);
        }
    }
}
