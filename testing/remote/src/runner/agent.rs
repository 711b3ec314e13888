//! MOCK_AI_AGENT as a remote job worker: the agent element's jobs are activated over REST and
//! answered by baton-testing's AI Agent mock (the same connector state machine the in-process
//! runner uses, through its engine-independent seam: a job as JSON variables and headers in,
//! a completion, failure or BPMN error out).

use baton_cpt::model::{AgentTurns, MockAiAgent};
use baton_engine::runtime::SharedJson;
use baton_rest::jobs::ActivatedJob;
use baton_testing::agent::on_engine::{AGENT_JOB_TYPE, AGENT_SUB_PROCESS_V2_JOB_TYPE};
use baton_testing::agent::{AgentJob, AgentScript, AiAgentMock, FetchedVariables, Flavour, Turn};
use indexmap::IndexMap;
use serde_json::Value;

use super::case::Done;
use super::jobs::job_types_in;
use super::session::Session;
use crate::client::Client;

/// An agent element played by the mock.
pub(super) struct RemoteAgent {
    pub(super) element_id: String,
    pub(super) job_type: String,
    pub(super) mock: AiAgentMock,
}

/// MOCK_AI_AGENT: the agent's jobs are answered from now on.
pub(super) fn mock_ai_agent(session: &Session<'_>, m: &MockAiAgent) -> Result<Done, String> {
    let values = match &m.turns {
        AgentTurns::Turns(values) => values,
        AgentTurns::Cassette(_) => {
            return Ok(Done::SkipCase(
                "a cassette is replayed against the in-process run's trace; the remote runner plays turns written in the file".into(),
            ));
        }
    };
    let mut turns = Vec::with_capacity(values.len());
    let mut problems = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match Turn::from_json(v, &format!("turns[{i}]")) {
            Ok(t) => turns.push(t),
            Err(p) => problems.push(p.to_string()),
        }
    }
    if !problems.is_empty() {
        return Err(format!(
            "MOCK_AI_AGENT \"{}\": invalid turns:\n{}",
            m.element_id,
            problems.join("\n")
        ));
    }
    let types = job_types_in(session.bpmn, &m.element_id, None, "taskDefinition");
    let Some(job_type) = types.into_iter().next() else {
        return Err(format!(
            "MOCK_AI_AGENT: \"{}\" is not an AI Agent element of the case's BPMN (no fixed job type)",
            m.element_id
        ));
    };
    if job_type != AGENT_JOB_TYPE && job_type != AGENT_SUB_PROCESS_V2_JOB_TYPE {
        return Ok(Done::SkipCase(format!(
            "\"{}\" has the job type \"{job_type}\": the remote runner plays the AI Agent Sub-process connector; the Task flavour reads its tools from the process definition, which runs in-process only",
            m.element_id
        )));
    }
    let mock = AiAgentMock::new(&m.element_id, AgentScript::Turns(turns))
        .map_err(|e| format!("MOCK_AI_AGENT \"{}\": {e}", m.element_id))?;
    session.add_agent(RemoteAgent {
        element_id: m.element_id.clone(),
        job_type,
        mock,
    });
    Ok(Done::Ok)
}

/// Answers one activated agent job with the mock, over REST.
pub(super) fn answer_agent_job(
    client: &Client,
    job: &ActivatedJob,
    agent: &mut RemoteAgent,
) -> Result<(), String> {
    let mut variables = FetchedVariables::default();
    for (name, value) in &job.variables {
        variables.set(name, &SharedJson::new(value.clone()));
    }
    let headers: IndexMap<String, String> = job
        .custom_headers
        .iter()
        .map(|(k, v)| {
            let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            (k.clone(), text)
        })
        .collect();
    let agent_job = AgentJob {
        flavour: Flavour::SubProcess,
        job_key: job.job_key.0,
        element_id: &job.element_id,
        element_instance_key: job.element_instance_key.0,
        process_instance_key: job.process_instance_key.0,
        process_definition_key: job.process_definition_key.0,
        retries: job.retries,
        variables,
        headers: &headers,
        now: None,
    };
    let answer = agent
        .mock
        .answer_job(agent_job)
        .map_err(|e| format!("the AI agent mock \"{}\": {e}", agent.element_id))?;
    let json = answer.to_json();
    let (route, body) = match json.as_object().and_then(|o| o.iter().next()) {
        Some((kind, body)) => (
            match kind.as_str() {
                "complete" => "completion",
                "fail" => "failure",
                _ => "error",
            },
            without_nulls(body.clone()),
        ),
        None => return Err("the AI agent mock gave no answer".into()),
    };
    client
        .call_text(
            "POST",
            &format!("/v2/jobs/{}/{route}", job.job_key),
            Some(&body),
        )
        .map(|_| ())
        .map_err(|e| {
            format!(
                "the AI agent mock \"{}\" could not answer its job: {e}",
                agent.element_id
            )
        })
}

/// The answer's top-level `null` fields left out (the endpoint takes absent, not null).
fn without_nulls(body: Value) -> Value {
    match body {
        Value::Object(o) => Value::Object(o.into_iter().filter(|(_, v)| !v.is_null()).collect()),
        other => other,
    }
}

/// ASSERT_AI_AGENT: the tool calls, model calls and turns left, from the mock that played the
/// agent; the agent instance (status, metrics, history) is derived from the in-process run's
/// records and is skipped.
pub(super) fn assert_ai_agent(
    session: &Session<'_>,
    a: &baton_cpt::model::AssertAiAgent,
) -> Result<Done, String> {
    // The agent answers what is waiting before it is asked what it did.
    session.pump()?;
    session.with_agent(&a.element_id, |agent| {
        let Some(agent) = agent else {
            return Err(format!(
                "ASSERT_AI_AGENT: no MOCK_AI_AGENT for \"{}\" in this test case",
                a.element_id
            ));
        };
        let mut problems = Vec::new();
        if let Some(calls) = &a.called_tools {
            let expected = calls
                .iter()
                .enumerate()
                .map(|(i, v)| baton_cpt::runner::expected_call(v, &format!("calledTools[{i}]")))
                .collect::<Result<Vec<_>, String>>()
                .map_err(|m| format!("ASSERT_AI_AGENT {m}"))?;
            if let Err(m) = agent.mock.check_called_tools(expected) {
                problems.push(m.to_string());
            }
        }
        if let Some(n) = a.model_calls {
            let made = agent.mock.requests().len();
            if made != n {
                problems.push(format!(
                    "expected the agent \"{}\" to have asked the model {n} time(s)\n    but it asked {made} time(s)",
                    a.element_id
                ));
            }
        }
        if let Some(n) = a.remaining_turns {
            let left = agent.mock.remaining_turns();
            if left != n {
                problems.push(format!(
                    "expected the script of \"{}\" to have {n} turn(s) left\n    but it has {left}",
                    a.element_id
                ));
            }
        }
        if !problems.is_empty() {
            return Err(problems.join("\n"));
        }
        let instance = a.status.is_some()
            || a.metrics.is_some()
            || a.history_roles.is_some()
            || a.agent_instance_number.is_some();
        Ok(if instance {
            Done::SkipCheck(
                "the agent instance (status, metrics, history) is read from the in-process run's records; not checked remotely".into(),
            )
        } else {
            Done::Ok
        })
    })
}
