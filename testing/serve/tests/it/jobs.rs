use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::Api;

#[test]
fn an_activated_job_carries_every_required_field() {
    let api = Api::one_task();
    let instance = api.create("one-task", json!({"amount": 42}));
    let jobs = api.activate("work", 10);
    assert_eq!(jobs.len(), 1);
    let job = &jobs[0];
    for field in [
        "type",
        "processDefinitionId",
        "processDefinitionVersion",
        "elementId",
        "customHeaders",
        "worker",
        "retries",
        "deadline",
        "variables",
        "tenantId",
        "jobKey",
        "processInstanceKey",
        "processDefinitionKey",
        "elementInstanceKey",
        "kind",
        "listenerEventType",
        "userTask",
        "tags",
        "rootProcessInstanceKey",
        "physicalTenantId",
        "businessId",
        "priority",
        "leaseToken",
    ] {
        assert!(job.get(field).is_some(), "{field} missing in {job}");
    }
    assert_eq!(job["type"], "work");
    assert_eq!(job["processInstanceKey"], instance);
    assert_eq!(job["elementId"], "task");
    assert_eq!(job["customHeaders"], json!({"region": "eu"}));
    assert_eq!(job["variables"], json!({"amount": 42}));
    assert_eq!(job["retries"], 3);
    assert_eq!(job["kind"], "BPMN_ELEMENT");
    assert_eq!(job["listenerEventType"], "UNSPECIFIED");
    assert_eq!(job["worker"], "test");
    assert!(
        job["deadline"].as_i64().unwrap() > 1_700_000_000_000,
        "wall-clock deadline"
    );
    // Handed out once.
    assert!(api.activate("work", 10).is_empty());
}

#[test]
fn a_long_poll_waits_for_a_job_and_wakes_when_one_appears() {
    let api = Api::one_task();
    let base = api.base.clone();
    let poll = std::thread::spawn(move || {
        let started = Instant::now();
        let mut response = crate::support::client()
            .post(format!("{base}/v2/jobs/activation"))
            .header("content-type", "application/json")
            .send(json!({"type": "work", "timeout": 1000, "maxJobsToActivate": 1, "requestTimeout": 20000}).to_string())
            .unwrap();
        let body: serde_json::Value =
            serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        (started.elapsed(), body)
    });
    std::thread::sleep(Duration::from_millis(200));
    api.create("one-task", json!({}));
    let (waited, body) = poll.join().unwrap();
    assert_eq!(body["jobs"].as_array().unwrap().len(), 1, "{body}");
    assert!(waited >= Duration::from_millis(150), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
}

#[test]
fn a_long_poll_with_nothing_to_do_answers_empty_after_its_timeout() {
    let api = Api::one_task();
    let started = Instant::now();
    let (status, body) = api.post(
        "/v2/jobs/activation",
        json!({"type": "none", "timeout": 1000, "maxJobsToActivate": 1, "requestTimeout": 300}),
    );
    assert_eq!((status, body), (200, json!({"jobs": []})));
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[test]
fn a_failed_job_comes_back_after_its_backoff_and_without_retries_raises_an_incident() {
    let api = Api::one_task();
    let instance = api.create("one-task", json!({}));
    let job = api.activate("work", 1)[0]["jobKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, _) = api.post(
        &format!("/v2/jobs/{job}/failure"),
        json!({"retries": 2, "errorMessage": "down", "retryBackOff": 300}),
    );
    assert_eq!(status, 204);
    assert!(api.activate("work", 1).is_empty(), "still backing off");
    // The wall clock moves the engine clock: the job is back once the backoff passed.
    let started = Instant::now();
    let (_, body) = api.post(
        "/v2/jobs/activation",
        json!({"type": "work", "timeout": 1000, "maxJobsToActivate": 1, "requestTimeout": 5000}),
    );
    assert_eq!(body["jobs"][0]["jobKey"], job.as_str());
    assert_eq!(body["jobs"][0]["retries"], 2);
    assert!(started.elapsed() < Duration::from_secs(3));
    let (status, _) = api.post(
        &format!("/v2/jobs/{job}/failure"),
        json!({"retries": 0, "errorMessage": "gone"}),
    );
    assert_eq!(status, 204);
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(pi["hasIncident"], true);
    // Retries back: the job can be activated again.
    let (status, _) = api.patch(
        &format!("/v2/jobs/{job}"),
        json!({"changeset": {"retries": 1}}),
    );
    assert_eq!(status, 204);
}

#[test]
fn a_bpmn_error_without_a_catch_raises_an_incident() {
    let api = Api::one_task();
    let instance = api.create("one-task", json!({}));
    let job = api.activate("work", 1)[0]["jobKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, body) = api.post(
        &format!("/v2/jobs/{job}/error"),
        json!({"errorCode": "NOPE", "errorMessage": "no"}),
    );
    assert_eq!(status, 204, "{body}");
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(pi["hasIncident"], true);
}

#[test]
fn an_expired_lock_hands_the_job_to_the_next_worker() {
    let api = Api::one_task();
    api.create("one-task", json!({}));
    let (_, first) = api.post(
        "/v2/jobs/activation",
        json!({"type": "work", "timeout": 200, "maxJobsToActivate": 1, "requestTimeout": -1}),
    );
    let job = first["jobs"][0]["jobKey"].clone();
    let (_, second) = api.post(
        "/v2/jobs/activation",
        json!({"type": "work", "timeout": 60000, "maxJobsToActivate": 1, "requestTimeout": 5000}),
    );
    assert_eq!(second["jobs"][0]["jobKey"], job);
}

#[test]
fn a_mocked_job_type_is_answered_by_the_mock_registered_at_run_time() {
    let api = Api::one_task();
    let instance = api.create("one-task", json!({}));
    let (status, body) = api.put(
        "/baton/mocks/jobs/work",
        json!({"type": "MOCK_JOB_WORKER_COMPLETE_JOB", "variables": {"mocked": true}}),
    );
    assert_eq!(status, 204, "{body}");
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(pi["state"], "COMPLETED", "the waiting job was answered");
    let next = api.create("one-task", json!({}));
    let (_, pi) = api.get(&format!("/v2/process-instances/{next}"));
    assert_eq!(pi["state"], "COMPLETED");
}
