//! The management routes of Camunda Process Test's remote runtime.

use serde_json::json;

use crate::support::Api;

const TIMER: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <bpmn:process id="timer" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="wait"/>
    <bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>"#;

#[test]
fn adding_an_hour_to_the_clock_fires_a_one_hour_timer() {
    let api = Api::start();
    api.deploy(&[("timer.bpmn", TIMER)]);
    let instance = api.create("timer", json!({}));
    let (status, before) = api.get("/actuator/clock");
    assert_eq!(status, 200);
    let before = before["epochMilli"].as_i64().unwrap();
    let (status, after) = api.post("/actuator/clock/add", json!({"offsetMilli": 3_600_000}));
    assert_eq!(status, 200, "{after}");
    assert!(after["epochMilli"].as_i64().unwrap() >= before + 3_600_000);
    assert!(after["instant"].as_str().unwrap().ends_with('Z'));
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(pi["state"], "COMPLETED");
    // The clock keeps following the wall clock, an hour ahead, until reset.
    let (_, later) = api.get("/actuator/clock");
    assert!(later["epochMilli"].as_i64().unwrap() >= before + 3_600_000);
    let (status, reset) = api.send("DELETE", "/actuator/clock", "");
    assert_eq!(status, 200);
    assert!(reset["epochMilli"].as_i64().unwrap() < before + 3_600_000);
    let (_, pinned) = api.post(
        "/actuator/clock/pin",
        json!({"epochMilli": 1_767_225_600_000i64}),
    );
    assert_eq!(pinned["instant"], "2026-01-01T00:00:00.000Z");
}

#[test]
fn a_purge_wipes_everything_but_what_the_server_was_started_with() {
    let api = Api::start();
    api.deploy(&[("timer.bpmn", TIMER)]);
    api.create("timer", json!({}));
    let (_, topology) = api.get("/v2/topology");
    assert_eq!(topology["lastCompletedChangeId"], "-1");
    let (status, purge) = api.post("/actuator/cluster/purge", json!({}));
    assert_eq!((status, &purge), (200, &json!({"changeId": 1})));
    let (_, cluster) = api.get("/actuator/cluster");
    assert_eq!(
        cluster["lastChange"],
        json!({"id": 1, "status": "COMPLETED"})
    );
    assert_eq!(cluster["pendingChange"], json!(null));
    let (_, topology) = api.get("/v2/topology");
    assert_eq!(topology["lastCompletedChangeId"], "1");
    let (_, instances) = api.post("/v2/process-instances/search", json!({}));
    assert_eq!(instances["page"]["totalItems"], 0);
    let (status, _) = api.post(
        "/v2/process-instances",
        json!({"processDefinitionId": "timer"}),
    );
    assert_eq!(status, 404, "the deployment is gone");
    let (_, purge) = api.post("/actuator/cluster/purge", json!({}));
    assert_eq!(purge["changeId"], 2);
}
