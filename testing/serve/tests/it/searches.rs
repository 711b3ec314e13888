use serde_json::json;

use crate::support::Api;

const APPROVAL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="approval" name="Approval" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <bpmn:serviceTask id="check" name="Check"><bpmn:extensionElements><zeebe:taskDefinition type="check" retries="1"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="check" targetRef="approve"/>
    <bpmn:userTask id="approve" name="Approve">
      <bpmn:extensionElements><zeebe:userTask/><zeebe:assignmentDefinition candidateGroups="managers"/><zeebe:priorityDefinition priority="70"/></bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:sequenceFlow id="f3" sourceRef="approve" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>"#;

fn search(api: &Api, resource: &str, body: serde_json::Value) -> serde_json::Value {
    let (status, answer) = api.post(&format!("/v2/{resource}/search"), body);
    assert_eq!(status, 200, "{answer}");
    answer
}

#[test]
fn an_incident_is_found_resolved_and_the_user_task_after_it_completed() {
    let api = Api::start();
    assert_eq!(api.deploy(&[("approval.bpmn", APPROVAL)]).0, 200);
    let instance = api.create("approval", json!({"amount": 7}));
    let job = api.activate("check", 1)[0]["jobKey"]
        .as_str()
        .unwrap()
        .to_owned();
    api.post(
        &format!("/v2/jobs/{job}/failure"),
        json!({"retries": 0, "errorMessage": "db down"}),
    );

    let incidents = search(
        &api,
        "incidents",
        json!({"filter": {"processInstanceKey": instance}}),
    );
    assert_eq!(incidents["page"]["totalItems"], 1);
    let incident = &incidents["items"][0];
    assert_eq!(incident["errorType"], "JOB_NO_RETRIES");
    assert_eq!(incident["errorMessage"], "db down");
    assert_eq!(incident["jobKey"], job.as_str());
    let key = incident["incidentKey"].as_str().unwrap();
    assert_eq!(
        api.patch(
            &format!("/v2/jobs/{job}"),
            json!({"changeset": {"retries": 1}})
        )
        .0,
        204
    );
    assert_eq!(
        api.post(&format!("/v2/incidents/{key}/resolution"), json!({}))
            .0,
        204
    );
    let job = api.activate("check", 1)[0]["jobKey"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        api.post(
            &format!("/v2/jobs/{job}/completion"),
            json!({"variables": {"checked": true}})
        )
        .0,
        204
    );

    let tasks = search(
        &api,
        "user-tasks",
        json!({"filter": {"elementId": "approve", "state": "CREATED"}}),
    );
    assert_eq!(tasks["page"]["totalItems"], 1, "{tasks}");
    let task = &tasks["items"][0];
    assert_eq!(task["candidateGroups"], json!(["managers"]));
    assert_eq!(task["priority"], 70);
    assert_eq!(task["name"], "Approve");
    let task_key = task["userTaskKey"].as_str().unwrap();
    assert_eq!(
        api.post(
            &format!("/v2/user-tasks/{task_key}/assignment"),
            json!({"assignee": "anna"})
        )
        .0,
        204
    );
    let (_, read) = api.get(&format!("/v2/user-tasks/{task_key}"));
    assert_eq!(read["assignee"], "anna");
    assert_eq!(
        api.post(
            &format!("/v2/user-tasks/{task_key}/completion"),
            json!({"variables": {"ok": true}})
        )
        .0,
        204
    );
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(pi["state"], "COMPLETED");

    let elements = search(
        &api,
        "element-instances",
        json!({"filter": {"processInstanceKey": instance, "type": {"$neq": "SEQUENCE_FLOW"}}, "sort": [{"field": "startDate"}]}),
    );
    let ids: Vec<_> = elements["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["elementId"].clone())
        .collect();
    assert_eq!(
        ids,
        vec![
            json!("start"),
            json!("check"),
            json!("approve"),
            json!("end")
        ]
    );
    assert!(
        elements["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["state"] == "COMPLETED")
    );

    let variables = search(
        &api,
        "variables",
        json!({"filter": {"processInstanceKey": instance, "name": {"$in": ["amount", "ok"]}}, "sort": [{"field": "name"}]}),
    );
    let values: Vec<_> = variables["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].clone(), v["value"].clone()))
        .collect();
    assert_eq!(
        values,
        vec![(json!("amount"), json!("7")), (json!("ok"), json!("true"))]
    );
    let variable_key = variables["items"][0]["variableKey"].as_str().unwrap();
    let (status, variable) = api.get(&format!("/v2/variables/{variable_key}"));
    assert_eq!((status, &variable["value"]), (200, &json!("7")));
}

#[test]
fn process_instances_page_by_cursor_and_filter_by_operators() {
    let api = Api::start();
    api.deploy(&[("approval.bpmn", APPROVAL)]);
    let keys: Vec<String> = (0..5)
        .map(|i| api.create("approval", json!({"i": i})))
        .collect();
    api.post(
        &format!("/v2/process-instances/{}/cancellation", keys[0]),
        json!({}),
    );
    let active = search(
        &api,
        "process-instances",
        json!({"filter": {"state": "active"}}),
    );
    assert_eq!(active["page"]["totalItems"], 4);
    let first = search(
        &api,
        "process-instances",
        json!({"sort": [{"field": "processInstanceKey", "order": "DESC"}], "page": {"limit": 2}}),
    );
    assert_eq!(first["items"][0]["processInstanceKey"], keys[4].as_str());
    let after = first["page"]["endCursor"].clone();
    let second = search(
        &api,
        "process-instances",
        json!({"sort": [{"field": "processInstanceKey", "order": "DESC"}], "page": {"limit": 2, "after": after}}),
    );
    assert_eq!(second["items"][0]["processInstanceKey"], keys[2].as_str());
    let like = search(
        &api,
        "process-instances",
        json!({"filter": {"processDefinitionId": {"$like": "appr*"}, "endDate": {"$exists": true}}}),
    );
    assert_eq!(like["page"]["totalItems"], 1);
    let (status, body) = api.post(
        "/v2/process-instances/search",
        json!({"filter": {"nope": 1}}),
    );
    assert_eq!(
        (status, body["detail"].clone()),
        (
            400,
            json!("Request property [filter.nope] cannot be parsed")
        )
    );
}
