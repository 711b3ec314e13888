//! The `errorExpression` task header on the AI agent job, on the engine and on the bare state
//! machine: BPMN errors caught by a boundary (or an incident), job errors, the normal path, and
//! expressions the runtime cannot read.

use baton_engine::runtime::{Key, State};
use baton_testing::agent::on_engine::{AgentJobOutcome, tool_order};
use baton_testing::agent::{AiAgentMock, JobAnswer, Turn};
use serde_json::json;

use super::engine::{Driver, doc, repo_file};
use super::harness::{Ahsp, support_data, support_tools};

const LIMIT_AS_BPMN_ERROR: &str = r#"=if error.code = "MAXIMUM_NUMBER_OF_MODEL_CALLS_REACHED" then bpmnError(error.code, error.message) else null"#;

fn xml_attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The template with an `errorExpression` header, a model-call limit, and its error boundary
/// catching only `caught_code` (every error when `None`).
fn template_with(
    error_expression: &str,
    max_model_calls: u32,
    caught_code: Option<&str>,
) -> Driver {
    let mut xml = repo_file("templates/ai-agent-tool-loop/ai-agent-tool-loop.bpmn");
    xml = xml.replacen(
        r#"<zeebe:header key="retryBackoff" value="PT30S" />"#,
        &format!(
            r#"<zeebe:header key="retryBackoff" value="PT30S" /><zeebe:header key="errorExpression" value="{}" />"#,
            xml_attribute(error_expression)
        ),
        1,
    );
    xml = xml.replacen(
        r#"<zeebe:input source="=10" target="data.limits.maxModelCalls" />"#,
        &format!(
            r#"<zeebe:input source="={max_model_calls}" target="data.limits.maxModelCalls" />"#
        ),
        1,
    );
    if let Some(code) = caught_code {
        xml = xml.replacen(
            r#"<bpmn:errorEventDefinition id="ErrorEventDefinition_agent_failed" />"#,
            r#"<bpmn:errorEventDefinition id="ErrorEventDefinition_agent_failed" errorRef="agent-error" />"#,
            1,
        );
        xml = xml.replacen(
            "  </bpmn:process>",
            &format!(
                "  </bpmn:process>\n  <bpmn:error id=\"agent-error\" name=\"Agent error\" errorCode=\"{code}\" />"
            ),
            1,
        );
    }
    let mut driver = Driver::new(&[("ai-agent-error-expression.bpmn", xml)]);
    driver.worker("order-lookup", |job| {
        doc(json!({"order": {"id": job.get("orderId"), "status": "delivered", "damaged": true}}))
    });
    driver.worker("kb-search", |_| doc(json!({"articles": ["Returns"]})));
    driver.worker("ticket-create", |_| doc(json!({"ticketId": "T-77"})));
    driver.worker("email-send", |_| doc(json!({})));
    driver.worker("support-alert", |_| doc(json!({})));
    driver
}

fn agent(driver: &Driver, turns: Vec<Turn>) -> AiAgentMock {
    AiAgentMock::new("support-agent", turns)
        .unwrap()
        .with_tool_order(tool_order(
            &driver.engine,
            "ai-agent-tool-loop",
            "support-agent",
        ))
}

/// Starts the template with the customer's question about order 1042 and runs it under the mock.
fn ask_about_order(driver: &mut Driver, mock: &mut AiAgentMock) -> Key {
    let instance = driver.start(
        "ai-agent-tool-loop",
        json!({"customerMessage": "Where is 1042?"}),
    );
    driver.run(mock).unwrap();
    instance
}

fn reached(driver: &Driver, ids: &[&str]) -> Vec<String> {
    driver
        .completed()
        .into_iter()
        .filter(|id| ids.contains(&id.as_str()))
        .collect()
}

#[test]
fn the_model_call_limit_as_a_bpmn_error_is_caught_by_the_boundary() {
    // The connector's e2e case (AgentSubProcessLimitsTests): limit 1, a tool call, then the
    // second model call is refused and the expression maps the code to a BPMN error.
    let mut driver = template_with(
        LIMIT_AS_BPMN_ERROR,
        1,
        Some("MAXIMUM_NUMBER_OF_MODEL_CALLS_REACHED"),
    );
    let mut mock = agent(
        &driver,
        vec![Turn::call("lookup-order", json!({"orderId": "1042"}))],
    );
    let instance = ask_about_order(&mut driver, &mut mock);

    assert_eq!(driver.incidents(), Vec::<String>::new());
    assert_eq!(
        driver.engine.process_instance(instance).map(|p| p.state),
        Some(State::Completed)
    );
    assert_eq!(
        reached(
            &driver,
            &["agent-failed", "alert-support", "failed", "answered"]
        ),
        ["agent-failed", "alert-support", "failed"]
    );
    assert_eq!(
        driver.outcomes.last(),
        Some(&AgentJobOutcome::ErrorThrown {
            code: "MAXIMUM_NUMBER_OF_MODEL_CALLS_REACHED".into()
        })
    );
    assert_eq!(
        mock.requests().len(),
        1,
        "the second model call is never made"
    );
}

#[test]
fn an_uncaught_bpmn_error_is_an_incident() {
    let mut driver = template_with(LIMIT_AS_BPMN_ERROR, 1, Some("SOMETHING_ELSE"));
    let mut mock = agent(
        &driver,
        vec![Turn::call("lookup-order", json!({"orderId": "1042"}))],
    );
    ask_about_order(&mut driver, &mut mock);
    insta::assert_debug_snapshot!(driver.incidents());
}

#[test]
fn a_matching_expression_on_a_normal_run_changes_nothing() {
    let mut driver = template_with(LIMIT_AS_BPMN_ERROR, 10, None);
    let mut mock = agent(
        &driver,
        vec![
            Turn::call("lookup-order", json!({"orderId": "1042"})),
            Turn::respond_json(json!({"answer": "It is on its way.", "resolved": true})),
        ],
    );
    let instance = ask_about_order(&mut driver, &mut mock);
    assert_eq!(driver.incidents(), Vec::<String>::new());
    assert_eq!(
        driver.engine.process_instance(instance).map(|p| p.state),
        Some(State::Completed)
    );
    assert_eq!(
        reached(&driver, &["agent-failed", "answered"]),
        ["answered"]
    );
}

#[test]
fn the_expression_is_evaluated_on_success_too() {
    // The final answer is a success; the expression reads the agent response and throws.
    let mut driver = template_with(
        r#"=if responseJson.resolved = false then bpmnError("UNRESOLVED", responseJson.answer, {modelCalls: context.metrics.modelCalls}) else null"#,
        10,
        Some("UNRESOLVED"),
    );
    let mut mock = agent(
        &driver,
        vec![Turn::respond_json(
            json!({"answer": "I cannot find that order.", "resolved": false}),
        )],
    );
    let instance = ask_about_order(&mut driver, &mut mock);
    assert_eq!(driver.incidents(), Vec::<String>::new());
    assert_eq!(
        reached(&driver, &["agent-failed", "failed", "answered", "queued"]),
        ["agent-failed", "failed"]
    );
    // The completion (and its `agent` variable) was not sent.
    assert_eq!(driver.engine.variable(instance, "agent"), None);

    // What the expression saw and threw, on the bare state machine.
    let mut ahsp = Ahsp::new("support-agent", support_tools(), support_data("Hi"));
    ahsp.headers.insert(
        "errorExpression".into(),
        r#"=if responseJson.resolved = false then bpmnError("UNRESOLVED", responseJson.answer, {modelCalls: context.metrics.modelCalls, toolCalls: toolCalls, retries: job.retries, same: response.responseJson = responseJson}) else null"#.into(),
    );
    let mut mock = AiAgentMock::new(
        "support-agent",
        [Turn::respond_json(
            json!({"answer": "No such order.", "resolved": false}),
        )],
    )
    .unwrap();
    let answer = ahsp.run_job(&mut mock).unwrap();
    insta::assert_json_snapshot!(answer.to_json(), @r#"
    {
      "throwError": {
        "errorCode": "UNRESOLVED",
        "errorMessage": "No such order.",
        "variables": {
          "modelCalls": 1,
          "toolCalls": [],
          "retries": 3,
          "same": true
        }
      }
    }
    "#);
}

#[test]
fn a_job_error_without_retries_is_an_incident() {
    let mut driver = template_with(
        r#"=if error.code = "FAILED_MODEL_CALL" then jobError("The model is down: " + error.message) else null"#,
        10,
        Some("NOTHING"),
    );
    let mut mock = agent(&driver, vec![Turn::error("503 Service Unavailable")]);
    ask_about_order(&mut driver, &mut mock);
    insta::assert_debug_snapshot!((driver.incidents(), &driver.outcomes));
}

#[test]
fn a_broken_expression_fails_the_job_for_good() {
    let mut driver = template_with(r#"=bpmnError("X""#, 10, None);
    let mut mock = agent(
        &driver,
        vec![Turn::respond_json(
            json!({"answer": "Done.", "resolved": true}),
        )],
    );
    ask_about_order(&mut driver, &mut mock);
    insta::assert_debug_snapshot!(driver.incidents());
}

#[test]
fn a_job_error_sets_the_retries_and_backoff_it_names() {
    let mut ahsp = Ahsp::new("support-agent", support_tools(), support_data("Hi"));
    ahsp.headers.insert(
        "errorExpression".into(),
        r#"=if error != null then jobError("Retrying: " + error.message, {attempt: 4 - job.retries}, job.retries - 1, duration("PT5S")) else null"#.into(),
    );
    let mut mock = AiAgentMock::new(
        "support-agent",
        [
            Turn::error("overloaded"),
            Turn::error("overloaded"),
            Turn::error("overloaded"),
        ],
    )
    .unwrap();
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(ahsp.run_job(&mut mock).unwrap().to_json());
    }
    insta::assert_json_snapshot!(answers);
}

#[test]
fn ignore_error_is_refused_on_success_and_completes_on_failure() {
    let mut ahsp = Ahsp::new("support-agent", support_tools(), support_data("Hi"));
    ahsp.headers.insert(
        "errorExpression".into(),
        r#"=ignoreError({note: "ignored"})"#.into(),
    );
    let mut mock = AiAgentMock::new(
        "support-agent",
        [
            Turn::error("overloaded"),
            Turn::respond_json(json!({"answer": "Hi", "resolved": true})),
        ],
    )
    .unwrap();
    let on_failure = ahsp.run_job(&mut mock).unwrap();
    let on_success = ahsp.run_job(&mut mock).unwrap();
    assert!(
        matches!(&on_failure, JobAnswer::Complete(c) if c.variables["note"] == "ignored" && !c.completion_condition_fulfilled)
    );
    insta::assert_json_snapshot!([on_failure.to_json(), on_success.to_json()]);
}
