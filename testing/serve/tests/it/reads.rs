//! Definitions, jobs, sequence flows and decisions as reads return them.

use serde_json::json;

use crate::support::{Api, ONE_TASK};

const DISCOUNT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="discounts" name="Discounts" namespace="t">
  <decision id="discount" name="Discount">
    <decisionTable id="table" hitPolicy="FIRST">
      <input id="in-amount" label="Amount"><inputExpression typeRef="number"><text>amount</text></inputExpression></input>
      <output id="out-rate" label="Rate" name="rate" typeRef="number"/>
      <rule id="big"><inputEntry><text>&gt;= 100</text></inputEntry><outputEntry><text>0.1</text></outputEntry></rule>
      <rule id="small"><inputEntry><text>&lt; 100</text></inputEntry><outputEntry><text>0</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>"#;

#[test]
fn definitions_their_xml_and_the_flows_an_instance_took() {
    let api = Api::one_task();
    let (_, definitions) = api.post(
        "/v2/process-definitions/search",
        json!({"filter": {"processDefinitionId": "one-task"}}),
    );
    assert_eq!(definitions["page"]["totalItems"], 1);
    let definition = &definitions["items"][0];
    assert_eq!(definition["name"], "One task");
    assert_eq!(definition["resourceName"], "one-task.bpmn");
    let key = definition["processDefinitionKey"].as_str().unwrap();
    let (status, xml) = api.get(&format!("/v2/process-definitions/{key}/xml"));
    assert_eq!(status, 200);
    assert_eq!(xml.as_str().unwrap(), ONE_TASK);
    let instance = api.create("one-task", json!({}));
    let job = api.activate("work", 1)[0]["jobKey"]
        .as_str()
        .unwrap()
        .to_owned();
    api.post(&format!("/v2/jobs/{job}/completion"), json!({}));
    let (status, flows) = api.get(&format!("/v2/process-instances/{instance}/sequence-flows"));
    assert_eq!(status, 200, "{flows}");
    let ids: Vec<_> = flows["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["sequenceFlowId"].clone())
        .collect();
    assert_eq!(ids, vec![json!("f1"), json!("f2")]);
}

#[test]
fn job_search_finds_what_camunda_process_test_looks_for() {
    let api = Api::one_task();
    let instance = api.create("one-task", json!({}));
    let other = api.create("one-task", json!({}));
    let job = api.activate("work", 1)[0]["jobKey"]
        .as_str()
        .unwrap()
        .to_owned();
    api.post(
        &format!("/v2/jobs/{job}/failure"),
        json!({"retries": 2, "errorMessage": "again"}),
    );
    let (status, found) = api.post(
        "/v2/jobs/search",
        json!({"filter": {"type": "work", "state": {"$in": ["CREATED", "FAILED", "RETRIES_UPDATED", "TIMED_OUT"]}, "retries": {"$gte": 1}}, "sort": [{"field": "jobKey"}]}),
    );
    assert_eq!(status, 200, "{found}");
    let items = found["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["processInstanceKey"], instance.as_str());
    assert_eq!(items[0]["state"], "FAILED");
    assert_eq!(items[0]["errorMessage"], "again");
    assert_eq!(items[0]["hasFailedWithRetriesLeft"], true);
    assert_eq!(items[1]["processInstanceKey"], other.as_str());
    assert_eq!(items[1]["state"], "CREATED");
    assert_eq!(items[1]["elementId"], "task");
}

#[test]
fn a_decision_evaluates_on_its_own() {
    let api = Api::start();
    let (status, deployed) = api.deploy(&[("discounts.dmn", DISCOUNT)]);
    assert_eq!(status, 200, "{deployed}");
    let kinds: Vec<_> = deployed["deployments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            if d["decisionRequirements"].is_object() {
                "drg"
            } else if d["decisionDefinition"].is_object() {
                "decision"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(kinds, vec!["drg", "decision"]);
    let (status, result) = api.post(
        "/v2/decision-definitions/evaluation",
        json!({"decisionDefinitionId": "discount", "variables": {"amount": 150}}),
    );
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["output"], "0.1");
    assert_eq!(result["decisionDefinitionName"], "Discount");
    assert_eq!(result["decisionRequirementsId"], "discounts");
    assert_eq!(result["failureMessage"], json!(null));
    let evaluated = &result["evaluatedDecisions"][0];
    assert_eq!(evaluated["matchedRules"][0]["ruleId"], "big");
    assert_eq!(evaluated["evaluatedInputs"][0]["inputValue"], "150");
    let (status, body) = api.post(
        "/v2/decision-definitions/evaluation",
        json!({"decisionDefinitionId": "nope"}),
    );
    assert_eq!(status, 404, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .starts_with("Command 'EVALUATE' rejected with code 'NOT_FOUND': "),
        "{body}"
    );
}
