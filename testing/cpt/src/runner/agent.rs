//! MOCK_AI_AGENT and ASSERT_AI_AGENT at the top level of a test case: the agent mock with its
//! turns or cassette (as the run's options play it), and the checks of what it saw and did.

use serde_json::Value;

use super::case::{CaseState, failure};
use crate::exec::{self, Done, InstructionFailure, TopLevel};
use crate::model::AgentTurns;
use baton_testing::agent::recording::{CassetteMode, CassetteScript};
use baton_testing::agent::{AgentScript, ExpectedAgentInstance, ExpectedCall, Matcher, Turn};

pub(super) fn mock_ai_agent(
    state: &mut CaseState<'_>,
    m: &crate::model::MockAiAgent,
) -> Result<Done, InstructionFailure> {
    let script = match &m.turns {
        AgentTurns::Turns(values) => {
            let mut turns = Vec::with_capacity(values.len());
            let mut problems = Vec::new();
            for (i, v) in values.iter().enumerate() {
                match Turn::from_json(v, &format!("turns[{i}]")) {
                    Ok(t) => turns.push(t),
                    Err(p) => problems.push(p.to_string()),
                }
            }
            if !problems.is_empty() {
                return Err(failure(
                    state,
                    format!(
                        "MOCK_AI_AGENT \"{}\": invalid turns:\n{}",
                        m.element_id,
                        problems.join("\n")
                    ),
                ));
            }
            AgentScript::Turns(turns)
        }
        AgentTurns::Cassette(cassette) => {
            AgentScript::Recording(cassette_script(state, &m.element_id, cassette))
        }
    };
    let handle = state
        .test
        .try_mock_ai_agent(&m.element_id, script)
        .map_err(|message| failure(state, format!("MOCK_AI_AGENT: {message}")))?;
    for note in handle.notes() {
        state.warnings.push(format!("MOCK_AI_AGENT: {note}"));
    }
    state.agents.insert(m.element_id.clone(), handle);
    Ok(Done::Ok)
}

/// The cassette of a MOCK_AI_AGENT as the run's options play it: `--record` records whatever
/// the mode, `--drift` collects drift, `--agent-command` (else the run's model) answers when
/// recording.
fn cassette_script(
    state: &CaseState<'_>,
    agent: &str,
    cassette: &crate::model::CassetteUse,
) -> CassetteScript {
    let options = state.options;
    let mut script = CassetteScript::new(state.dir.join(&cassette.path));
    if let Some(mode) = cassette.mode {
        script = script.mode(mode);
    }
    if options.record {
        script = script.mode(CassetteMode::Record);
    }
    if let Some(matching) = cassette.matching {
        script = script.matching(matching);
    }
    for pointer in &cassette.ignore {
        script = script.ignore(pointer);
    }
    for replacement in &cassette.replace {
        script = script.replace(&replacement.pattern, &replacement.with);
    }
    for pattern in &cassette.redact {
        script = script.redact(pattern);
    }
    if options.drift {
        script = script.drift();
    }
    if let Some(command) = options.agent_command.clone() {
        let agent = agent.to_string();
        script = script.record_with_source(Box::new(move |request, json| {
            command
                .ask(&agent, request.model_call, json)
                .map_err(|e| e.to_string())
        }));
    } else if let Some(model) = &options.model {
        script = script.record_with_source((model.0)(agent));
    }
    script
}

/// One entry of ASSERT_AI_AGENT's `calledTools` (`path` names it in errors); the remote runner
/// reads them the same way.
pub fn expected_call(value: &Value, path: &str) -> Result<ExpectedCall, String> {
    match value {
        Value::String(name) => Ok(ExpectedCall::Tool(name.clone())),
        Value::Object(o) => {
            let Some(Value::String(name)) = o.get("name") else {
                return Err(format!(
                    "{path}.name: a tool call needs the tool's name (a string)"
                ));
            };
            if let Some(k) = o.keys().find(|k| *k != "name" && *k != "arguments") {
                return Err(format!(
                    "{path}: unknown field `{k}`, expected `name` or `arguments`"
                ));
            }
            Ok(match o.get("arguments") {
                None => ExpectedCall::Tool(name.clone()),
                Some(arguments) => ExpectedCall::Call {
                    name: name.clone(),
                    arguments: Matcher::from(arguments.clone()),
                },
            })
        }
        other => Err(format!(
            "{path}: a tool call is a tool id or {{\"name\", \"arguments\"}}, got {other}"
        )),
    }
}

pub(super) fn assert_ai_agent(
    state: &mut CaseState<'_>,
    a: &crate::model::AssertAiAgent,
) -> Result<Done, InstructionFailure> {
    let Some(handle) = state.agents.get(&a.element_id).cloned() else {
        // An element that is no agent at all says so, whatever the test mocked.
        if let Err(message) = state
            .test
            .with_engine(|engine| baton_testing::agent::is_agent(engine, &a.element_id))
        {
            return Err(failure(state, format!("ASSERT_AI_AGENT: {message}")));
        }
        let mocked: Vec<String> = state.agents.keys().map(|k| format!("\"{k}\"")).collect();
        return Err(failure(
            state,
            format!(
                "ASSERT_AI_AGENT: no MOCK_AI_AGENT for \"{}\" in this test case (mocked agents: {})",
                a.element_id,
                if mocked.is_empty() {
                    "none".to_owned()
                } else {
                    mocked.join(", ")
                }
            ),
        ));
    };
    let mut problems = Vec::new();
    if let Some(calls) = &a.called_tools {
        let expected: Result<Vec<ExpectedCall>, String> = calls
            .iter()
            .enumerate()
            .map(|(i, v)| expected_call(v, &format!("calledTools[{i}]")))
            .collect();
        match expected {
            Err(m) => return Err(failure(state, format!("ASSERT_AI_AGENT {m}"))),
            Ok(expected) => {
                if let Err(m) = handle.check_called_tools(expected) {
                    problems.push(m.to_string());
                }
            }
        }
    }
    if let Some(n) = a.model_calls {
        let made = handle.requests().len();
        if made != n {
            problems.push(format!(
                "expected the agent \"{}\" to have asked the model {n} time{}\n    but it asked {made} time{}",
                a.element_id,
                plural(n),
                plural(made)
            ));
        }
    }
    if let Some(n) = a.remaining_turns {
        let left = handle.remaining_turns();
        if left != n {
            problems.push(format!(
                "expected the script of \"{}\" to have {n} turn{} left\n    but it has {left}",
                a.element_id,
                plural(n)
            ));
        }
    }
    let process_instance = match &a.process_instance_selector {
        Some(selector) => Some(exec::instance(&mut TopLevel(state.test), selector)?),
        None => None,
    };
    let expected = ExpectedAgentInstance {
        status: a.status,
        metrics: a.metrics,
        history_roles: a.history_roles.clone(),
        process_instance,
        number: a.agent_instance_number,
    };
    if !expected.is_empty()
        && let Err(mismatch) = handle.check_agent_instance(&expected)
    {
        problems.push(mismatch.to_string());
    }
    if problems.is_empty() {
        Ok(Done::Ok)
    } else {
        Err(failure(state, problems.join("\n")))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
