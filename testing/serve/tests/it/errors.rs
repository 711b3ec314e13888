//! Error answers as the gateway writes them: problem+json with the rejection type as title,
//! the engine's words in the detail and the path as instance. Snapshotted: they are product.

use serde_json::{Value, json};

use crate::support::{Api, ONE_TASK};

/// (what, method, path, body) → the answer, keys replaced by `<key>`.
fn ask(api: &Api, method: &str, path: &str, body: &str) -> Value {
    let (status, answer) = api.send(method, path, body);
    let mut answer = answer;
    if let Some(detail) = answer.get("detail").and_then(Value::as_str) {
        answer["detail"] = Value::String(regex_lite_keys(detail));
    }
    if let Some(instance) = answer.get("instance").and_then(Value::as_str) {
        answer["instance"] = Value::String(regex_lite_keys(instance));
    }
    json!({"status": status, "body": answer})
}

/// Replaces runs of 16 digits or more (keys) by `<key>`.
fn regex_lite_keys(text: &str) -> String {
    let mut out = String::new();
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if digits.len() >= 16 {
            out.push_str("<key>");
        } else {
            out.push_str(&digits);
        }
        digits.clear();
        out.push(c);
    }
    out.pop();
    out
}

#[test]
fn error_bodies() {
    let api = Api::one_task();
    let instance = api.create("one-task", json!({}));
    let job = api.activate("work", 1)[0]["jobKey"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        api.post(&format!("/v2/jobs/{job}/completion"), json!({})).0,
        204
    );
    let cases = [
        (
            "create, unknown process id",
            "POST",
            "/v2/process-instances".to_owned(),
            r#"{"processDefinitionId": "x"}"#.to_owned(),
        ),
        (
            "create, unknown version",
            "POST",
            "/v2/process-instances".into(),
            r#"{"processDefinitionId": "one-task", "processDefinitionVersion": 9}"#.into(),
        ),
        (
            "create, unknown key",
            "POST",
            "/v2/process-instances".into(),
            r#"{"processDefinitionKey": "2251799813685000"}"#.into(),
        ),
        (
            "create, no id",
            "POST",
            "/v2/process-instances".into(),
            r#"{"variables": {}}"#.into(),
        ),
        (
            "create, key as a number",
            "POST",
            "/v2/process-instances".into(),
            r#"{"processDefinitionKey": 2251799813685249}"#.into(),
        ),
        (
            "create, unknown field",
            "POST",
            "/v2/process-instances".into(),
            r#"{"processDefinitionId": "one-task", "bogus": 1}"#.into(),
        ),
        (
            "create, not JSON",
            "POST",
            "/v2/process-instances".into(),
            "{".into(),
        ),
        (
            "create, no body",
            "POST",
            "/v2/process-instances".into(),
            "".into(),
        ),
        (
            "create, variables not an object",
            "POST",
            "/v2/process-instances".into(),
            r#"{"processDefinitionId": "one-task", "variables": [1]}"#.into(),
        ),
        (
            "create, another tenant",
            "POST",
            "/v2/process-instances".into(),
            r#"{"processDefinitionId": "one-task", "tenantId": "acme"}"#.into(),
        ),
        (
            "complete, twice",
            "POST",
            format!("/v2/jobs/{job}/completion"),
            "{}".into(),
        ),
        (
            "complete, unknown key",
            "POST",
            "/v2/jobs/2251799813685000/completion".into(),
            "{}".into(),
        ),
        (
            "complete, not a key",
            "POST",
            "/v2/jobs/abc/completion".into(),
            "{}".into(),
        ),
        (
            "complete, unknown result type",
            "POST",
            format!("/v2/jobs/{job}/completion"),
            r#"{"result": {"type": "other"}}"#.into(),
        ),
        (
            "fail, unknown key",
            "POST",
            "/v2/jobs/2251799813685000/failure".into(),
            r#"{"retries": 1}"#.into(),
        ),
        (
            "error, no code",
            "POST",
            "/v2/jobs/2251799813685000/error".into(),
            r#"{"errorMessage": "x"}"#.into(),
        ),
        (
            "update, empty changeset",
            "PATCH",
            "/v2/jobs/2251799813685000".into(),
            r#"{"changeset": {}}"#.into(),
        ),
        (
            "activation, no type",
            "POST",
            "/v2/jobs/activation".into(),
            r#"{"timeout": 1000, "maxJobsToActivate": 1}"#.into(),
        ),
        (
            "activation, zero jobs",
            "POST",
            "/v2/jobs/activation".into(),
            r#"{"type": "work", "timeout": 1000, "maxJobsToActivate": 0}"#.into(),
        ),
        (
            "cancel, unknown instance",
            "POST",
            "/v2/process-instances/2251799813685000/cancellation".into(),
            "".into(),
        ),
        (
            "cancel, ended instance",
            "POST",
            format!("/v2/process-instances/{instance}/cancellation"),
            "".into(),
        ),
        (
            "get, unknown instance",
            "GET",
            "/v2/process-instances/2251799813685000".into(),
            "".into(),
        ),
        (
            "correlate, nothing waits",
            "POST",
            "/v2/messages/correlation".into(),
            r#"{"name": "m", "correlationKey": "k"}"#.into(),
        ),
        (
            "publish, no name",
            "POST",
            "/v2/messages/publication".into(),
            r#"{"correlationKey": "k"}"#.into(),
        ),
        (
            "clock, negative",
            "PUT",
            "/v2/clock".into(),
            r#"{"timestamp": -1}"#.into(),
        ),
        ("not served", "POST", "/v2/users/search".into(), "{}".into()),
        ("not a v2 route", "GET", "/nothing".into(), "".into()),
        (
            "mock, bad file",
            "PUT",
            "/baton/mocks/jobs/work".into(),
            r#"{"type": "X"}"#.into(),
        ),
    ];
    let answers: Vec<Value> = cases
        .iter()
        .map(|(what, method, path, body)| {
            json!({"case": what, "request": format!("{method} {}", path.replace(&job, "<job>").replace(&instance, "<instance>")), "answer": ask(&api, method, path, body)})
        })
        .collect();
    insta::assert_json_snapshot!(answers);
}

#[test]
fn a_deployment_that_does_not_deploy_answers_zeebes_words() {
    let api = Api::start();
    let broken = ONE_TASK.replace(r#"<zeebe:taskDefinition type="work" retries="3"/>"#, "");
    let (status, body) = api.deploy(&[("broken.bpmn", &broken)]);
    assert_eq!(status, 400, "{body}");
    insta::assert_json_snapshot!(body);
    let (status, body) = api.deploy(&[("not.bpmn", "<nope")]);
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["title"], "INVALID_ARGUMENT");
    let (status, body) = api.send("POST", "/v2/deployments", "{}");
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["title"], "Bad Request");
}
