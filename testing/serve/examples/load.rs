//! The server's speed, measured from outside over HTTP/1.1 keep-alive: start to first answered
//! request, and job completions per second with many workers (`docs/benchmarks.md`).
//!
//! `cargo run --release -p baton-serve --example load [INSTANCES] [WORKERS]`

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use baton_serve::{ServeConfig, Server};
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

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

fn post(agent: &ureq::Agent, url: &str, body: &Value) -> (u16, Value) {
    let mut response = agent
        .post(url)
        .header("content-type", "application/json")
        .send(body.to_string())
        .expect("the server answers");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let instances = args.first().copied().unwrap_or(20_000);
    let workers = args.get(1).copied().unwrap_or(8);

    let dir = std::env::temp_dir().join(format!("baton-serve-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bpmn = dir.join("one-task.bpmn");
    std::fs::write(&bpmn, ONE_TASK).unwrap();

    let started = Instant::now();
    let server = Server::start(ServeConfig::default().port(0).deploy(&bpmn)).unwrap();
    let base = server.url();
    let client = agent();
    let mut response = client.get(format!("{base}/v2/topology")).call().unwrap();
    let _ = response.body_mut().read_to_string();
    println!(
        "start (deploy included) to first answered request: {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    let created = Instant::now();
    let create = json!({"processDefinitionId": "one-task", "variables": {"n": 1}});
    let url = format!("{base}/v2/process-instances");
    let mut latencies = Vec::with_capacity(instances);
    for _ in 0..instances {
        let t = Instant::now();
        assert_eq!(post(&client, &url, &create).0, 200);
        latencies.push(t.elapsed());
    }
    latencies.sort();
    let p = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1e6;
    println!(
        "create, one client: {:.0}/s; latency p50 {:.0} µs, p99 {:.0} µs",
        instances as f64 / created.elapsed().as_secs_f64(),
        p(0.5),
        p(0.99)
    );

    let done = Arc::new(AtomicUsize::new(0));
    let completing = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|w| {
            let (base, done) = (base.clone(), done.clone());
            std::thread::spawn(move || {
                let client = agent();
                let activate = json!({"type": "work", "worker": format!("w{w}"), "timeout": 60000, "maxJobsToActivate": 32, "requestTimeout": -1});
                let url = format!("{base}/v2/jobs/activation");
                loop {
                    let (_, body) = post(&client, &url, &activate);
                    let jobs = body["jobs"].as_array().cloned().unwrap_or_default();
                    if jobs.is_empty() {
                        return;
                    }
                    for job in jobs {
                        let key = job["jobKey"].as_str().unwrap();
                        let (status, _) = post(&client, &format!("{base}/v2/jobs/{key}/completion"), &json!({}));
                        assert_eq!(status, 204);
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let secs = completing.elapsed().as_secs_f64();
    let n = done.load(Ordering::Relaxed);
    assert_eq!(n, instances, "every job completed once");
    println!(
        "{n} jobs activated (32 per request) and completed by {workers} workers: {:.0} completions/s ({:.2} s)",
        n as f64 / secs,
        secs
    );
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
