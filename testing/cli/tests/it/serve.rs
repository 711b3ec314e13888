//! `baton serve --data DIR`: a server killed mid-load loses no command it acknowledged. (The
//! HTTP surface itself is tested in-process in baton-serve; this is the command as a process.)

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

const ONE_TASK: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="one-task" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="work"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>"#;

fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// `baton serve` on a free port with a data folder; its base URL.
fn spawn(dir: &std::path::Path, bpmn: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["serve", "--port", "0", "--data"])
        .arg(dir)
        .arg("--deploy")
        .arg(bpmn)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("baton serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("listening on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    (child, format!("http://{addr}"))
}

fn post(agent: &ureq::Agent, url: String, body: Value) -> Option<(u16, Value)> {
    let mut response = agent
        .post(url)
        .header("content-type", "application/json")
        .send(body.to_string())
        .ok()?;
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().ok()?;
    Some((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

#[test]
fn a_server_killed_mid_load_keeps_every_acknowledged_command() {
    let dir = std::env::temp_dir().join(format!("baton-serve-data-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bpmn = dir.join("one-task.bpmn");
    std::fs::write(&bpmn, ONE_TASK).unwrap();
    let data = dir.join("data");
    let (mut server, base) = spawn(&data, &bpmn);

    let created: Arc<Mutex<Vec<String>>> = Arc::default();
    let completed: Arc<Mutex<Vec<String>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let load: Vec<_> = (0..4)
        .map(|_| {
            let (base, created, completed, stop) =
                (base.clone(), created.clone(), completed.clone(), stop.clone());
            std::thread::spawn(move || {
                let agent = client();
                while !stop.load(Ordering::Relaxed) {
                    let Some((200, body)) = post(&agent, format!("{base}/v2/process-instances"), json!({"processDefinitionId": "one-task"})) else { return };
                    created.lock().unwrap().push(body["processInstanceKey"].as_str().unwrap().to_owned());
                    let Some((200, jobs)) = post(&agent, format!("{base}/v2/jobs/activation"), json!({"type": "work", "timeout": 60000, "maxJobsToActivate": 1, "requestTimeout": -1})) else { return };
                    for job in jobs["jobs"].as_array().unwrap() {
                        let key = job["jobKey"].as_str().unwrap();
                        if let Some((204, _)) = post(&agent, format!("{base}/v2/jobs/{key}/completion"), json!({})) {
                            completed.lock().unwrap().push(job["processInstanceKey"].as_str().unwrap().to_owned());
                        }
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(400));
    server.kill().unwrap(); // SIGKILL: no shutdown, no flush beyond what each answer waited for
    server.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    for thread in load {
        thread.join().unwrap();
    }
    let created = created.lock().unwrap().clone();
    let completed = completed.lock().unwrap().clone();
    assert!(
        created.len() > 10,
        "the load ran: {} instances",
        created.len()
    );

    let (mut again, base) = spawn(&data, &bpmn);
    let agent = client();
    for instance in &created {
        let mut response = agent
            .get(format!("{base}/v2/process-instances/{instance}"))
            .call()
            .unwrap();
        let body: Value =
            serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
        assert_eq!(
            response.status().as_u16(),
            200,
            "acknowledged instance {instance} lost: {body}"
        );
        if completed.contains(instance) {
            assert_eq!(
                body["state"], "COMPLETED",
                "acknowledged completion of {instance} lost"
            );
        }
    }
    // Still one deployment: the --deploy file is not deployed again on a restart.
    let (_, definitions) = post(
        &agent,
        format!("{base}/v2/process-definitions/search"),
        json!({}),
    )
    .unwrap();
    assert_eq!(definitions["page"]["totalItems"], 1);
    again.kill().unwrap();
    again.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_mock_argument_is_said_before_anything_starts() {
    let output = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["serve", "--port", "0", "--mock", "no-file"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "baton serve: --mock no-file: expected JOBTYPE=FILE\n"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_baton"))
        .args(["serve", "--port", "0", "--host", "0.0.0.0"])
        .env_remove("BATON_SERVE_BASIC_AUTH")
        .env_remove("BATON_SERVE_BEARER_TOKEN")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .starts_with("baton serve: refusing to listen on 0.0.0.0 without credentials")
    );
}
