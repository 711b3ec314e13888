use serde_json::json;

use crate::support::Api;

const WAIT_FOR_MESSAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:message id="m" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>
  <bpmn:signal id="s" name="go"/>
  <bpmn:process id="wait" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="catch"/>
    <bpmn:intermediateCatchEvent id="catch"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="catch" targetRef="signal"/>
    <bpmn:intermediateCatchEvent id="signal"><bpmn:signalEventDefinition signalRef="s"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="signal" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>"#;

#[test]
fn a_buffered_message_correlates_later_and_a_signal_reaches_the_waiting_instance() {
    let api = Api::start();
    assert_eq!(api.deploy(&[("wait.bpmn", WAIT_FOR_MESSAGE)]).0, 200);
    let (status, published) = api.post(
        "/v2/messages/publication",
        json!({"name": "paid", "correlationKey": "o-1", "timeToLive": 60000, "variables": {"paid": true}}),
    );
    assert_eq!(status, 200, "{published}");
    assert_eq!(published["tenantId"], "<default>");
    assert!(published["messageKey"].is_string());
    let instance = api.create("wait", json!({"orderId": "o-1"}));
    let (status, signal) = api.post("/v2/signals/broadcast", json!({"signalName": "go"}));
    assert_eq!(status, 200, "{signal}");
    assert!(signal["signalKey"].is_string());
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(pi["state"], "COMPLETED");
}

#[test]
fn correlate_answers_the_instance_it_reached_and_404_when_nothing_waits() {
    let api = Api::start();
    api.deploy(&[("wait.bpmn", WAIT_FOR_MESSAGE)]);
    let instance = api.create("wait", json!({"orderId": "o-2"}));
    let (status, body) = api.post(
        "/v2/messages/correlation",
        json!({"name": "paid", "correlationKey": "o-2"}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["processInstanceKey"], instance);
    let (status, body) = api.post(
        "/v2/messages/correlation",
        json!({"name": "paid", "correlationKey": "o-2"}),
    );
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["title"], "NOT_FOUND");
}

#[test]
fn a_message_with_a_short_time_to_live_expires_by_the_wall_clock() {
    let api = Api::start();
    api.deploy(&[("wait.bpmn", WAIT_FOR_MESSAGE)]);
    api.post(
        "/v2/messages/publication",
        json!({"name": "paid", "correlationKey": "o-3", "timeToLive": 100}),
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let instance = api.create("wait", json!({"orderId": "o-3"}));
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(
        pi["state"], "ACTIVE",
        "the message expired before the instance subscribed"
    );
}

#[test]
fn a_pinned_clock_stays_and_a_reset_follows_the_wall_clock_again() {
    let api = Api::start();
    api.deploy(&[("wait.bpmn", WAIT_FOR_MESSAGE)]);
    assert_eq!(
        api.put("/v2/clock", json!({"timestamp": 1_767_225_600_000i64}))
            .0,
        204
    );
    let instance = api.create("wait", json!({"orderId": "o-4"}));
    let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
    assert_eq!(pi["startDate"], "2026-01-01T00:00:00.000Z");
    assert_eq!(api.post("/v2/clock/reset", json!({})).0, 204);
    let later = api.create("wait", json!({"orderId": "o-5"}));
    let (_, pi) = api.get(&format!("/v2/process-instances/{later}"));
    assert_ne!(pi["startDate"], "2026-01-01T00:00:00.000Z");
}
