//! Many workers at once against one engine: every job handed to exactly one worker, every
//! completion acknowledged once, nothing lost.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::support::{Api, client};

#[test]
fn many_concurrent_workers_complete_every_job_exactly_once() {
    const INSTANCES: usize = 200;
    const WORKERS: usize = 8;
    let api = Api::one_task();
    let mut instances = BTreeSet::new();
    for i in 0..INSTANCES {
        instances.insert(api.create("one-task", json!({"i": i})));
    }
    let handed: Arc<Mutex<Vec<String>>> = Arc::default();
    let completed: Arc<Mutex<Vec<String>>> = Arc::default();
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let base = api.base.clone();
            let (handed, completed) = (handed.clone(), completed.clone());
            std::thread::spawn(move || {
                let agent = client();
                loop {
                    let mut response = agent
                        .post(format!("{base}/v2/jobs/activation"))
                        .header("content-type", "application/json")
                        .send(json!({"type": "work", "worker": format!("w{w}"), "timeout": 60000, "maxJobsToActivate": 3, "requestTimeout": 300}).to_string())
                        .unwrap();
                    let body: serde_json::Value =
                        serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
                    let jobs = body["jobs"].as_array().unwrap().clone();
                    if jobs.is_empty() {
                        return;
                    }
                    for job in jobs {
                        let key = job["jobKey"].as_str().unwrap().to_owned();
                        handed.lock().unwrap().push(key.clone());
                        let response = agent
                            .post(format!("{base}/v2/jobs/{key}/completion"))
                            .header("content-type", "application/json")
                            .send("{}")
                            .unwrap();
                        if response.status().as_u16() == 204 {
                            completed.lock().unwrap().push(key);
                        }
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let handed = handed.lock().unwrap().clone();
    let unique: BTreeSet<_> = handed.iter().cloned().collect();
    assert_eq!(handed.len(), INSTANCES, "every job handed out once");
    assert_eq!(unique.len(), INSTANCES);
    assert_eq!(
        completed.lock().unwrap().len(),
        INSTANCES,
        "every completion acknowledged"
    );
    for instance in &instances {
        let (_, pi) = api.get(&format!("/v2/process-instances/{instance}"));
        assert_eq!(pi["state"], "COMPLETED", "{instance}");
    }
    // A second completion of a completed job is rejected as Zeebe rejects it.
    let (status, body) = api.post(&format!("/v2/jobs/{}/completion", handed[0]), json!({}));
    assert_eq!(status, 404);
    assert_eq!(body["title"], "NOT_FOUND");
}
