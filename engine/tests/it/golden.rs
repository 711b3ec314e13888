//! Golden event logs: every accept fixture is deployed, each executable process is started and
//! driven with a fixed policy until it ends or nothing moves; the rendered log is snapshotted,
//! and a second run must give the same log byte for byte.
//!
//! The policy, applied in rounds: complete every activatable job without variables, complete
//! every open user task, publish the messages open subscriptions wait for (time to live 0),
//! broadcast the signals they wait for; when none of that moved anything, move the clock to the
//! earliest timer.

use std::path::Path;

use baton_engine::deploy::Resource;
use baton_engine::runtime::*;

/// How many rounds a fixture gets before the driver gives up (a cycle timer repeats forever).
const MAX_ROUNDS: usize = 20;

/// The variables each fixture's instances start with (what its expressions read), so the
/// drive reaches past its first expression.
fn start_variables(fixture: &str) -> serde_json::Value {
    use serde_json::json;
    match fixture {
        "ai-agent.bpmn" => json!({"ticketId": "T-1", "question": "Where is my order?"}),
        "boundary-events.bpmn" | "event-sub-processes.bpmn" => json!({"orderId": "o-1"}),
        "call-activity.bpmn" => json!({"childProcessId": "child"}),
        "gateways.bpmn" => json!({
            "amount": 1500,
            "approved": true,
            "priority": "high",
            "notify": {"email": true, "sms": false},
            "isDelivered": true,
            "orderId": "o-1"
        }),
        "intermediate-events.bpmn" => {
            json!({"waitTime": "PT5M", "documentId": "d-1", "region": "eu", "approved": true})
        }
        "listeners.bpmn" => json!({"region": "eu", "needsReview": false}),
        "multi-instance.bpmn" => {
            json!({"recipients": ["ann", "bob"], "items": [1, 2], "approvers": ["cy", "di"]})
        }
        "tasks.bpmn" => json!({"channel": "mail", "orderId": "o-1"}),
        _ => json!({}),
    }
}

fn start_all(e: &mut Engine, variables: &serde_json::Value) {
    let processes: Vec<(String, bool)> = e
        .deployed_processes()
        .map(|p| (p.bpmn_process_id.to_string(), p.scope.none_start.is_some()))
        .collect();
    for (id, has_none_start) in processes {
        if has_none_start {
            // A failing creation is part of the log (the rejection is not: it is an error value).
            let vars: VariableDocument = variables
                .as_object()
                .map(|m| m.clone().into_iter().collect())
                .unwrap_or_default();
            let _ = e.create_instance(CreateInstance::new(&id).variables(vars));
        }
    }
    // Processes that only start on events: their messages and signals, with empty keys.
    for (_, _, name) in e.message_start_subscriptions() {
        let _ = e.publish_message(PublishMessage::new(&*name, "").time_to_live(0));
    }
    let signals: Vec<String> = e
        .signal_subscriptions()
        .into_iter()
        .filter(|s| s.element_instance_key.is_none())
        .map(|s| s.signal_name.to_string())
        .collect();
    for name in signals {
        let _ = e.broadcast_signal(&name, VariableDocument::new());
    }
}

/// One round of the policy; returns whether anything moved.
fn round(e: &mut Engine) -> bool {
    let before = e.position();
    for job in e.activatable_jobs(None) {
        let _ = e.complete_job(job.key, VariableDocument::new());
    }
    let open: Vec<Key> = e
        .user_tasks()
        .iter()
        .filter(|t| t.state == UserTaskState::Created)
        .map(|t| t.key)
        .collect();
    for key in open {
        let _ = e.complete_user_task(key, VariableDocument::new());
    }
    for s in e.all_message_subscriptions() {
        let _ = e.publish_message(
            PublishMessage::new(&*s.message_name, &*s.correlation_key).time_to_live(0),
        );
    }
    let mut signals: Vec<String> = e
        .signal_subscriptions()
        .into_iter()
        .filter(|s| s.element_instance_key.is_some())
        .map(|s| s.signal_name.to_string())
        .collect();
    signals.dedup();
    for name in signals {
        let _ = e.broadcast_signal(&name, VariableDocument::new());
    }
    if e.position() != before {
        return true;
    }
    let next_timer = e.timers().iter().map(|t| t.due).min();
    if let Some(due) = next_timer {
        let _ = e.set_clock(due.max(e.now()));
    }
    e.position() != before
}

fn golden_log(path: &Path) -> String {
    let text = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let variables = start_variables(&name);
    let mut e = Engine::default();
    if let Err(r) = e.deploy(&[Resource::new(name, text)]) {
        return format!("deployment rejected: {r}\n");
    }
    start_all(&mut e, &variables);
    let mut rounds = 0;
    while rounds < MAX_ROUNDS && round(&mut e) {
        rounds += 1;
    }
    let mut out = e.render_log();
    out.push_str(&format!("-- {rounds} rounds\n"));
    for pi in e.process_instances() {
        out.push_str(&format!(
            "-- instance {} of '{}': {}\n",
            pi.key, pi.bpmn_process_id, pi.state
        ));
    }
    for i in e.incidents() {
        out.push_str(&format!(
            "-- incident at '{}': {} {}\n",
            i.element_id, i.error_type, i.error_message
        ));
    }
    out
}

#[test]
fn every_accept_fixture_has_a_golden_log_that_repeats() {
    insta::glob!("../../../fixtures/bpmn/accept", "*.bpmn", |path| {
        let first = golden_log(path);
        let second = golden_log(path);
        assert_eq!(first, second, "{} gave two different logs", path.display());
        insta::assert_snapshot!(first);
    });
}
