//! Golden event logs: every accept fixture is deployed, each executable process is started and
//! driven with a fixed policy until it ends or nothing moves; the rendered log is snapshotted.
//! The drive goes through [`Command`] values, kept as it goes: replayed on a fresh engine, and
//! from a copy of the engine taken halfway, they must give the same log byte for byte.
//!
//! The policy, applied in rounds: complete every activatable job without variables, complete
//! every open user task, publish the messages open subscriptions wait for (time to live 0),
//! broadcast the signals they wait for; when none of that moved anything, move the clock to the
//! earliest timer.

use std::path::Path;

use baton_engine::deploy::Resource;
use baton_engine::runtime::*;

use crate::commands::Recorded as Driver;

/// How many rounds a fixture gets before the driver gives up (a cycle timer repeats forever).
const MAX_ROUNDS: usize = 20;

/// The variables each fixture's instances start with (what its expressions read), so the
/// drive reaches past its first expression.
fn start_variables(fixture: &str) -> serde_json::Value {
    use serde_json::json;
    match fixture {
        "ad-hoc-sub-process.bpmn" => json!({"toolsToRun": ["searchWeb", "fetch"]}),
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

fn start_all(d: &mut Driver, variables: &serde_json::Value) {
    let processes: Vec<(String, bool)> = d
        .engine
        .deployed_processes()
        .map(|p| (p.bpmn_process_id().to_string(), p.has_none_start_event()))
        .collect();
    for (id, has_none_start) in processes {
        if has_none_start {
            // A failing creation is part of the log (the rejection is not: it is an error value).
            let vars: VariableDocument = variables
                .as_object()
                .map(|m| m.clone().into_iter().collect())
                .unwrap_or_default();
            let _ = d.apply(Command::CreateInstance(
                CreateInstance::new(&id).variables(vars),
            ));
        }
    }
    // Processes that only start on events: their messages and signals, with empty keys.
    for (_, _, name) in d.engine.message_start_subscriptions() {
        let _ = d.apply(Command::PublishMessage(
            PublishMessage::new(&*name, "").time_to_live(0),
        ));
    }
    let signals: Vec<String> = d
        .engine
        .signal_subscriptions()
        .into_iter()
        .filter(|s| s.element_instance_key.is_none())
        .map(|s| s.signal_name.to_string())
        .collect();
    for name in signals {
        let _ = d.apply(broadcast(name));
    }
}

fn broadcast(name: String) -> Command {
    Command::BroadcastSignal {
        name,
        variables: VariableDocument::new(),
    }
}

/// One round of the policy; returns whether anything moved.
fn round(d: &mut Driver) -> bool {
    let before = d.engine.position();
    for job in d.engine.activatable_jobs(None) {
        let _ = d.apply(Command::CompleteJob {
            job_key: job.key,
            variables: VariableDocument::new(),
            result: None,
        });
    }
    let open: Vec<Key> = d
        .engine
        .user_tasks()
        .iter()
        .filter(|t| t.state == UserTaskState::Created)
        .map(|t| t.key)
        .collect();
    for key in open {
        let _ = d.apply(Command::CompleteUserTask {
            user_task_key: key,
            variables: VariableDocument::new(),
        });
    }
    for s in d.engine.all_message_subscriptions() {
        let _ = d.apply(Command::PublishMessage(
            PublishMessage::new(&*s.message_name, &*s.correlation_key).time_to_live(0),
        ));
    }
    let mut signals: Vec<String> = d
        .engine
        .signal_subscriptions()
        .into_iter()
        .filter(|s| s.element_instance_key.is_some())
        .map(|s| s.signal_name.to_string())
        .collect();
    signals.dedup();
    for name in signals {
        let _ = d.apply(broadcast(name));
    }
    if d.engine.position() != before {
        return true;
    }
    let next_timer = d.engine.timers().iter().map(|t| t.due).min();
    if let Some(due) = next_timer {
        let epoch_millis = due.max(d.engine.now());
        let _ = d.apply(Command::SetClock { epoch_millis });
    }
    d.engine.position() != before
}

/// A fixture driven to its end: the commands it took, the engine, the rounds of the policy;
/// or the deployment's rejection.
fn drive(path: &Path) -> Result<(Vec<Command>, Engine, usize), String> {
    let text = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let variables = start_variables(&name);
    let mut d = Driver::default();
    if let Err(r) = d.apply(Command::Deploy {
        resources: vec![Resource::new(name, text)],
    }) {
        return Err(format!("deployment rejected: {r}\n"));
    }
    start_all(&mut d, &variables);
    let mut rounds = 0;
    while rounds < MAX_ROUNDS && round(&mut d) {
        rounds += 1;
    }
    Ok((d.commands().to_vec(), d.engine, rounds))
}

/// The rendered log, the rounds it took (when known), each instance's state, each incident.
fn render(e: &Engine, rounds: Option<usize>) -> String {
    let mut out = e.render_log();
    if let Some(rounds) = rounds {
        out.push_str(&format!("-- {rounds} rounds\n"));
    }
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

/// The engine after applying `commands`, rejections included (they change nothing).
fn replay(mut engine: Engine, commands: &[Command]) -> Engine {
    for command in commands {
        let _ = engine.apply(command.clone());
    }
    engine
}

#[test]
fn every_accept_fixture_has_a_golden_log_that_repeats() {
    insta::glob!("../../../fixtures/bpmn/accept", "*.bpmn", |path| {
        let (commands, driven, rounds) = match drive(path) {
            Ok(drive) => drive,
            Err(rejection) => return insta::assert_snapshot!(rejection),
        };
        let fixture = path.display();
        let expected = render(&driven, None);
        assert_eq!(
            render(&replay(Engine::default(), &commands), None),
            expected,
            "{fixture}: its commands replayed on a fresh engine gave another log"
        );
        let half = commands.len() / 2;
        let saved = replay(Engine::default(), &commands[..half]);
        assert_eq!(
            render(&replay(saved.clone(), &commands[half..]), None),
            expected,
            "{fixture}: a copy of the engine taken after {half} of {} commands resumed differently",
            commands.len()
        );
        insta::assert_snapshot!(render(&driven, Some(rounds)));
    });
}
