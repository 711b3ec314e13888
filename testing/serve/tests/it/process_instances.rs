use serde_json::json;

use crate::support::{Api, ONE_TASK};

#[test]
fn a_deployment_answers_what_it_created_and_a_redeploy_makes_a_new_version() {
    let api = Api::start();
    let (status, first) = api.deploy(&[("one-task.bpmn", ONE_TASK)]);
    assert_eq!(status, 200, "{first}");
    let process = &first["deployments"][0]["processDefinition"];
    assert_eq!(process["processDefinitionId"], "one-task");
    assert_eq!(process["processDefinitionVersion"], 1);
    assert_eq!(process["resourceName"], "one-task.bpmn");
    assert_eq!(process["tenantId"], "<default>");
    assert_eq!(first["tenantId"], "<default>");
    for nullable in [
        "decisionDefinition",
        "decisionRequirements",
        "form",
        "resource",
    ] {
        assert_eq!(first["deployments"][0][nullable], json!(null), "{nullable}");
    }
    let key = process["processDefinitionKey"].as_str().unwrap();
    assert!(key.parse::<u64>().unwrap() > 1 << 51, "{key}");
    // Zeebe keeps the version of an unchanged BPMN resource; baton's engine does not yet.
    let changed = ONE_TASK.replace("name=\"Task\"", "name=\"Task 2\"");
    let (_, next) = api.deploy(&[("one-task.bpmn", &changed)]);
    assert_eq!(
        next["deployments"][0]["processDefinition"]["processDefinitionVersion"],
        2
    );
}

#[test]
fn create_answers_every_required_field_and_get_reads_the_instance() {
    let api = Api::one_task();
    let (status, created) = api.post(
        "/v2/process-instances",
        json!({"processDefinitionId": "one-task", "variables": {"a": 1}, "tags": ["t1"], "businessId": "order-7"}),
    );
    assert_eq!(status, 200, "{created}");
    let key = created["processInstanceKey"].as_str().unwrap();
    let definition_key = created["processDefinitionKey"].as_str().unwrap();
    assert_eq!(
        created,
        json!({
            "processDefinitionId": "one-task", "processDefinitionVersion": 1, "tenantId": "<default>",
            "variables": {}, "processDefinitionKey": definition_key, "processInstanceKey": key,
            "tags": ["t1"], "businessId": "order-7"
        })
    );
    let (status, instance) = api.get(&format!("/v2/process-instances/{key}"));
    assert_eq!(status, 200, "{instance}");
    assert_eq!(instance["state"], "ACTIVE");
    assert_eq!(instance["processDefinitionName"], "One task");
    assert_eq!(instance["endDate"], json!(null));
    assert_eq!(instance["hasIncident"], false);
    assert_eq!(instance["rootProcessInstanceKey"], key);
    assert_eq!(instance["parentProcessInstanceKey"], json!(null));
    assert_eq!(instance["businessId"], "order-7");
    assert!(instance["startDate"].as_str().unwrap().ends_with('Z'));
    let (status, _) = api.post(
        &format!("/v2/process-instances/{key}/cancellation"),
        json!({}),
    );
    assert_eq!(status, 204);
    let (_, instance) = api.get(&format!("/v2/process-instances/{key}"));
    assert_eq!(instance["state"], "TERMINATED");
    assert!(instance["endDate"].is_string());
}

#[test]
fn create_by_key_and_by_version() {
    let api = Api::one_task();
    let (_, v2) = api.deploy(&[(
        "one-task.bpmn",
        &ONE_TASK.replace("name=\"Task\"", "name=\"T\""),
    )]);
    let v2_key = v2["deployments"][0]["processDefinition"]["processDefinitionKey"].clone();
    let (status, by_key) = api.post(
        "/v2/process-instances",
        json!({"processDefinitionKey": v2_key}),
    );
    assert_eq!(
        (status, &by_key["processDefinitionVersion"]),
        (200, &json!(2))
    );
    let (_, v1) = api.post(
        "/v2/process-instances",
        json!({"processDefinitionId": "one-task", "processDefinitionVersion": 1}),
    );
    assert_eq!(v1["processDefinitionVersion"], 1);
    let (_, latest) = api.post(
        "/v2/process-instances",
        json!({"processDefinitionId": "one-task", "processDefinitionVersion": -1}),
    );
    assert_eq!(latest["processDefinitionVersion"], 2);
}

#[test]
fn await_completion_answers_with_the_final_variables_once_a_worker_completes() {
    let api = Api::one_task();
    let base = api.base.clone();
    let waiter = std::thread::spawn(move || {
        let agent = crate::support::client();
        let mut response = agent
            .post(format!("{base}/v2/process-instances"))
            .header("content-type", "application/json")
            .send(json!({"processDefinitionId": "one-task", "variables": {"a": 1, "b": 2}, "awaitCompletion": true, "fetchVariables": ["a", "done"], "requestTimeout": 20000}).to_string())
            .unwrap();
        let status = response.status().as_u16();
        let body: serde_json::Value =
            serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        (status, body)
    });
    // The long poll wakes when the instance creates the job.
    let (status, jobs) = api.post(
        "/v2/jobs/activation",
        json!({"type": "work", "timeout": 60000, "maxJobsToActivate": 1, "requestTimeout": 20000}),
    );
    assert_eq!(status, 200);
    let job = jobs["jobs"][0]["jobKey"].as_str().unwrap().to_owned();
    let (status, _) = api.post(
        &format!("/v2/jobs/{job}/completion"),
        json!({"variables": {"done": true}}),
    );
    assert_eq!(status, 204);
    let (status, body) = waiter.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["variables"], json!({"a": 1, "done": true}));
}

#[test]
fn await_completion_times_out_with_504() {
    let api = Api::one_task();
    let started = std::time::Instant::now();
    let (status, body) = api.post(
        "/v2/process-instances",
        json!({"processDefinitionId": "one-task", "awaitCompletion": true, "requestTimeout": 300}),
    );
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
    assert_eq!(status, 504);
    assert_eq!(body["title"], "DEADLINE_EXCEEDED");
}
