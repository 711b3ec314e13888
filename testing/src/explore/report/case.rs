//! A counterexample as a CPT test case (the fixed mocks, the agents' turns, the tool answers in
//! order, an assertion at the step that broke the invariant), and writing it beside the BPMN
//! with a cassette per agent.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::super::fork::{RecordedModelCall, ToolAnswer};
use super::super::invariant::{EndState, Invariant};
use super::super::plan::{MockAnswers, Plan};
use super::{Counterexample, WriteError, Written};

use crate::mocks::Answer;

impl Counterexample {
    /// Writes the CPT test file `<stem>.test.json` and a cassette per agent
    /// (`<stem>.<agent>.cassette.json`) into `dir`, beside the BPMN it tests.
    pub fn write_to(&self, dir: &Path, stem: &str) -> Result<Written, WriteError> {
        let case = self.case.clone()?;
        let mut cassettes = Vec::new();
        for cassette in &self.cassettes {
            let agent = cassette.agent.clone().unwrap_or_default();
            let path = dir.join(cassette_file(stem, &agent));
            cassette.write(&path)?;
            cassettes.push(path);
        }
        let test_file = dir.join(format!("{stem}.test.json"));
        let file = json!({ "testCases": [case_with_files(&case, stem)] });
        let text = serde_json::to_string_pretty(&file).expect("JSON") + "\n";
        std::fs::write(&test_file, text).map_err(|source| WriteError::Io {
            path: test_file.clone(),
            source,
        })?;
        Ok(Written {
            test_file,
            cassettes,
        })
    }
}

fn cassette_file(stem: &str, agent: &str) -> String {
    format!("{stem}.{agent}.cassette.json")
}

/// The case with its `MOCK_AI_AGENT` instructions pointing at the cassette files.
fn case_with_files(case: &Value, stem: &str) -> Value {
    let mut case = case.clone();
    if let Some(instructions) = case.get_mut("instructions").and_then(Value::as_array_mut) {
        for instruction in instructions {
            if instruction.get("type").and_then(Value::as_str) == Some("MOCK_AI_AGENT")
                && let Some(object) = instruction.as_object_mut()
            {
                let agent = object
                    .get("elementId")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                object.shift_remove("turns");
                object.insert("cassette".into(), cassette_file(stem, &agent).into());
            }
        }
    }
    case
}

/// A CPT test case that replays the trajectory: the fixed mocks as mocks, the agents by their
/// turns, the tool jobs completed (or failed with a BPMN error) one by one in the order they
/// finished, and after the step that broke the invariant, an assertion that fails for it.
pub(super) fn cpt_case(
    plan: &Plan,
    answers: &[ToolAnswer],
    calls: &[RecordedModelCall],
    invariant: Option<&Invariant>,
    at_answer: usize,
    message: &str,
) -> Result<Value, String> {
    let mut instructions: Vec<Value> = Vec::new();
    let explicit: Vec<&str> = answers.iter().map(|a| a.job_type.as_str()).collect();
    for mock in &plan.mocks {
        let explicit_type = plan.tool_job_types.iter().any(|t| **t == *mock.job_type)
            || explicit.contains(&mock.job_type.as_str());
        match &mock.answers {
            _ if explicit_type => {}
            MockAnswers::Outcomes(_) => {}
            MockAnswers::Fixed(answer) => {
                instructions.push(mock_instruction(&mock.job_type, answer)?)
            }
            MockAnswers::Sequence { .. } => {
                return Err(format!(
                    "the mock of job type \"{}\" answers in a sequence, which a CPT mock cannot",
                    mock.job_type
                ));
            }
        }
    }
    for (a, agent) in plan.agents.iter().enumerate() {
        let turns: Vec<Value> = calls
            .iter()
            .filter(|c| c.agent == a)
            .map(|c| c.turn.to_json())
            .collect();
        if turns.is_empty() {
            continue;
        }
        instructions
            .push(json!({"type": "MOCK_AI_AGENT", "elementId": agent.element_id, "turns": turns}));
    }
    let variables: Map<String, Value> = plan.variables.clone().into_iter().collect();
    instructions.push(json!({
        "type": "CREATE_PROCESS_INSTANCE",
        "processDefinitionSelector": {"processDefinitionId": plan.process_id},
        "variables": variables,
    }));
    let assertion = invariant.map(|inv| assertion(plan, inv)).transpose()?;
    for (i, answer) in answers.iter().enumerate() {
        if i == at_answer
            && let Some(assertion) = &assertion
        {
            instructions.push(assertion.clone());
        }
        instructions.push(answer_instruction(answer)?);
    }
    if at_answer >= answers.len()
        && let Some(assertion) = assertion
    {
        instructions.push(assertion);
    }
    let name = match invariant {
        Some(inv) if inv.is_goal() => format!("explored: {inv}"),
        Some(inv) => format!("explored: {inv} (counterexample)"),
        None => "explored: a run error".to_string(),
    };
    Ok(json!({
        "name": name,
        "description": format!("Found by baton explore: {message}"),
        "instructions": instructions,
    }))
}

fn mock_instruction(job_type: &str, answer: &Answer) -> Result<Value, String> {
    match answer {
        Answer::Complete(vars) => Ok(json!({
            "type": "MOCK_JOB_WORKER_COMPLETE_JOB",
            "jobType": job_type,
            "variables": Value::Object(vars.clone().into_iter().collect()),
        })),
        Answer::CompleteWithExampleData => Ok(json!({
            "type": "MOCK_JOB_WORKER_COMPLETE_JOB", "jobType": job_type, "useExampleData": true,
        })),
        Answer::ThrowError {
            code,
            message,
            variables,
        } => Ok(json!({
            "type": "MOCK_JOB_WORKER_THROW_BPMN_ERROR",
            "jobType": job_type,
            "errorCode": code,
            "errorMessage": message,
            "variables": Value::Object(variables.clone().into_iter().collect()),
        })),
        other => Err(format!(
            "the mock of job type \"{job_type}\" answers \"{}\", which a CPT mock cannot",
            other.describe()
        )),
    }
}

fn answer_instruction(answer: &ToolAnswer) -> Result<Value, String> {
    let selector = json!({"elementId": answer.element_id});
    match &answer.answer {
        Answer::Complete(vars) => Ok(json!({
            "type": "COMPLETE_JOB",
            "jobSelector": selector,
            "variables": Value::Object(vars.clone().into_iter().collect()),
        })),
        Answer::CompleteWithExampleData => Ok(json!({
            "type": "COMPLETE_JOB", "jobSelector": selector, "useExampleData": true,
        })),
        Answer::ThrowError {
            code,
            message,
            variables,
        } => Ok(json!({
            "type": "THROW_BPMN_ERROR_FROM_JOB",
            "jobSelector": selector,
            "errorCode": code,
            "errorMessage": message,
            "variables": Value::Object(variables.clone().into_iter().collect()),
        })),
        other => Err(format!(
            "the job at \"{}\" answers \"{}\", which no CPT instruction does",
            answer.element_id,
            other.describe()
        )),
    }
}

/// The CPT assertion that holds exactly while the invariant does, at the point it broke.
fn assertion(plan: &Plan, invariant: &Invariant) -> Result<Value, String> {
    let selector = json!({"processDefinitionId": plan.process_id});
    Ok(match invariant {
        Invariant::NeverBefore { before, .. } => json!({
            "type": "ASSERT_ELEMENT_INSTANCES",
            "processInstanceSelector": selector,
            "elementSelectors": [{"elementId": before}],
            "state": "IS_COMPLETED",
        }),
        Invariant::NoIncident | Invariant::NoIncidentAt { .. } => json!({
            "type": "ASSERT_PROCESS_INSTANCE",
            "processInstanceSelector": selector,
            "hasActiveIncidents": false,
        }),
        Invariant::AtMostOncePerKey { job_type } => {
            return Err(format!(
                "a CPT case records side effects of \"{job_type}\" for a mock worker's completions only, and its replay completes the tool jobs itself (COMPLETE_JOB, in the order they finished): the report shows the trajectory"
            ));
        }
        Invariant::Condition { expression } => {
            let variables = baton_feel::Expression::parse(expression)
                .map(|e| e.referenced_variables())
                .unwrap_or_default();
            let [variable] = variables.as_slice() else {
                return Err(format!(
                    "the condition {expression} reads {} variables; a CPT assertion (ASSERT_VARIABLE) reads one",
                    variables.len()
                ));
            };
            json!({
                "type": "ASSERT_VARIABLE",
                "processInstanceSelector": selector,
                "variableName": variable,
                "satisfiesExpression": expression,
            })
        }
        Invariant::EndsIn(states) => match states.first() {
            Some(EndState::Completed) => json!({
                "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": selector, "state": "IS_COMPLETED",
            }),
            Some(EndState::Terminated) => json!({
                "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": selector, "state": "IS_TERMINATED",
            }),
            Some(EndState::WaitingAt(element)) => json!({
                "type": "ASSERT_ELEMENT_INSTANCES",
                "processInstanceSelector": selector,
                "elementSelectors": [{"elementId": element}],
                "state": "IS_ACTIVE",
            }),
            Some(EndState::Incident) => json!({
                "type": "ASSERT_PROCESS_INSTANCE", "processInstanceSelector": selector, "hasActiveIncidents": true,
            }),
            None => return Err("the end states are empty".into()),
        },
        Invariant::Reaches { element } => json!({
            "type": "ASSERT_ELEMENT_INSTANCES",
            "processInstanceSelector": selector,
            "elementSelectors": [{"elementId": element}],
            "state": "IS_COMPLETED",
        }),
    })
}
