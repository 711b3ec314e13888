//! A server per test and a small client for it.

use baton_serve::{ServeConfig, Server, ServerHandle};
use serde_json::Value;

/// One process: a service task of type `work` between start and end.
pub const ONE_TASK: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="one-task" name="One task" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task" name="Task">
      <bpmn:extensionElements><zeebe:taskDefinition type="work" retries="3"/>
        <zeebe:taskHeaders><zeebe:header key="region" value="eu"/></zeebe:taskHeaders>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>"#;

/// A server and a client.
pub struct Api {
    pub server: Option<ServerHandle>,
    agent: ureq::Agent,
    pub base: String,
}

impl Api {
    /// A server on a free port with nothing deployed.
    pub fn start() -> Api {
        Api::with(ServeConfig::default().port(0))
    }

    pub fn with(config: ServeConfig) -> Api {
        let server = Server::start(config).expect("the server starts");
        let base = server.url();
        Api {
            server: Some(server),
            agent: client(),
            base,
        }
    }

    /// A server with `ONE_TASK` deployed.
    pub fn one_task() -> Api {
        let api = Api::start();
        let (status, body) = api.deploy(&[("one-task.bpmn", ONE_TASK)]);
        assert_eq!(status, 200, "{body}");
        api
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        answer(self.agent.get(format!("{}{path}", self.base)).call())
    }

    pub fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.send("POST", path, &body.to_string())
    }

    pub fn put(&self, path: &str, body: Value) -> (u16, Value) {
        self.send("PUT", path, &body.to_string())
    }

    pub fn patch(&self, path: &str, body: Value) -> (u16, Value) {
        self.send("PATCH", path, &body.to_string())
    }

    /// A request with a raw body (bodies that do not read).
    pub fn send(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_owned())
            .unwrap();
        answer(self.agent.run(request))
    }

    /// `POST /v2/deployments` with the files as multipart `resources`.
    pub fn deploy(&self, files: &[(&str, &str)]) -> (u16, Value) {
        let boundary = "baton-test-boundary";
        let mut body = String::new();
        for (name, content) in files {
            body.push_str(&format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"resources\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n{content}\r\n"
            ));
        }
        body.push_str(&format!("--{boundary}--\r\n"));
        let request = ureq::http::Request::builder()
            .method("POST")
            .uri(format!("{}/v2/deployments", self.base))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body)
            .unwrap();
        answer(self.agent.run(request))
    }

    /// Creates an instance of `process` and returns its key.
    pub fn create(&self, process: &str, variables: Value) -> String {
        let (status, body) = self.post(
            "/v2/process-instances",
            serde_json::json!({"processDefinitionId": process, "variables": variables}),
        );
        assert_eq!(status, 200, "{body}");
        body["processInstanceKey"].as_str().unwrap().to_owned()
    }

    /// Activates up to `max` jobs of `job_type` without waiting.
    pub fn activate(&self, job_type: &str, max: i32) -> Vec<Value> {
        let (status, body) = self.post(
            "/v2/jobs/activation",
            serde_json::json!({"type": job_type, "worker": "test", "timeout": 60000, "maxJobsToActivate": max, "requestTimeout": -1}),
        );
        assert_eq!(status, 200, "{body}");
        body["jobs"].as_array().unwrap().clone()
    }
}

/// A client that returns every status as an answer (not as an error).
pub fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

fn answer(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
    let mut response = response.expect("the server answers");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    (status, body)
}
