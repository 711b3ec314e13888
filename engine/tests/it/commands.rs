//! Client commands as values ([`Command`] through [`Engine::apply`]): every kind of command
//! does what its method does, and a run kept as its commands replays to the same log.

use baton_engine::deploy::Resource;
use baton_engine::runtime::*;
use serde_json::json;

const ORDER: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="order" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="pack" />
    <bpmn:serviceTask id="pack">
      <bpmn:extensionElements><zeebe:taskDefinition type="pack" /></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="pack" targetRef="check" />
    <bpmn:userTask id="check">
      <bpmn:extensionElements><zeebe:userTask /></bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:sequenceFlow id="f3" sourceRef="check" targetRef="end" />
    <bpmn:endEvent id="end" />
  </bpmn:process>
</bpmn:definitions>"#;

fn doc(v: serde_json::Value) -> VariableDocument {
    match v {
        serde_json::Value::Object(m) => m.into_iter().collect(),
        _ => panic!("not an object"),
    }
}

/// An engine that keeps the commands it carried out ([`Engine::record_commands`]; the
/// golden-log drive uses it too).
pub struct Recorded {
    pub engine: Engine,
}

impl Default for Recorded {
    fn default() -> Self {
        let mut engine = Engine::default();
        engine.record_commands(true);
        Recorded { engine }
    }
}

impl Recorded {
    pub fn apply(&mut self, command: Command) -> Result<Applied, Rejection> {
        self.engine.apply(command)
    }

    /// What the engine recorded: every command applied, in order.
    pub fn commands(&self) -> &[Command] {
        self.engine
            .recorded_commands()
            .expect("the engine recorded from the start")
    }

    fn ok(&mut self, command: Command) -> Applied {
        let text = format!("{command:?}");
        self.apply(command)
            .unwrap_or_else(|r| panic!("{text} was rejected: {r}"))
    }

    fn key(&mut self, command: Command) -> Key {
        match self.ok(command) {
            Applied::Key(key) => key,
            other => panic!("expected a key, got {other:?}"),
        }
    }

    fn pack_job(&mut self) -> Key {
        match self.ok(Command::ActivateJobs {
            job_type: "pack".into(),
            worker: "w".into(),
            timeout_ms: 60_000,
            max_jobs: 10,
        }) {
            Applied::Keys(keys) if keys.len() == 1 => keys[0],
            other => panic!("expected one job, got {other:?}"),
        }
    }

    fn incident(&self) -> Option<IncidentView> {
        self.engine.incidents().into_iter().next()
    }
}

#[test]
fn every_command_does_what_its_method_does_and_the_run_replays() {
    let mut r = Recorded::default();
    match r.ok(Command::Deploy {
        resources: vec![Resource::new("order.bpmn", ORDER)],
    }) {
        Applied::Deployed(info) => assert_eq!(info.processes[0].0, "order"),
        other => panic!("{other:?}"),
    }
    let pi = r.key(Command::CreateInstance(
        CreateInstance::new("order").variables(doc(json!({"items": 2}))),
    ));
    r.ok(Command::SetVariables {
        scope_key: pi,
        variables: doc(json!({"rush": true})),
        local: false,
    });
    assert_eq!(r.engine.variable(pi, "rush").as_deref(), Some(&json!(true)));

    // A failed job without retries is an incident; retries and a resolution bring it back.
    let job = r.pack_job();
    r.ok(Command::FailJob {
        job_key: job,
        retries: 0,
        error_message: "the printer is out of paper".into(),
        retry_backoff_ms: 0,
        variables: VariableDocument::new(),
    });
    let incident = r.incident().expect("an incident");
    assert_eq!(&*incident.error_message, "the printer is out of paper");
    r.ok(Command::UpdateJobRetries {
        job_key: job,
        retries: 1,
    });
    r.ok(Command::ResolveIncident {
        incident_key: incident.key,
    });
    assert!(r.incident().is_none());
    let job = r.pack_job();
    r.ok(Command::CompleteJob {
        job_key: job,
        variables: doc(json!({"parcel": "P-1"})),
        result: None,
    });

    // The user task: assigned, updated, completed.
    let task = r.engine.user_tasks()[0].key;
    r.ok(Command::AssignUserTask {
        user_task_key: task,
        assignee: Some("ann".into()),
    });
    r.ok(Command::UpdateUserTask {
        user_task_key: task,
        changes: doc(json!({"priority": 80})),
    });
    let value = &r.engine.user_tasks()[0].value;
    assert_eq!(
        (value.assignee.as_deref(), value.priority),
        (Some("ann"), 80)
    );
    r.ok(Command::CompleteUserTask {
        user_task_key: task,
        variables: VariableDocument::new(),
    });
    assert_eq!(
        r.engine.process_instance(pi).unwrap().state,
        State::Completed
    );

    // An error no boundary catches is an incident; cancelling ends the instance.
    let second = r.key(Command::CreateInstance(CreateInstance::new("order")));
    let job = r.pack_job();
    r.ok(Command::ThrowError {
        job_key: job,
        error_code: "NO_STOCK".into(),
        error_message: "out of stock".into(),
        variables: VariableDocument::new(),
    });
    assert_eq!(r.incident().map(|i| i.job_key), Some(Some(job)));
    r.ok(Command::SuspendInstance {
        process_instance_key: second,
    });
    r.ok(Command::ResumeInstance {
        process_instance_key: second,
    });
    r.ok(Command::CancelInstance {
        process_instance_key: second,
    });
    assert_eq!(
        r.engine.process_instance(second).unwrap().state,
        State::Terminated
    );

    // Messages, signals, conditions, decisions, the clock.
    r.key(Command::PublishMessage(
        PublishMessage::new("parcel-lost", "P-1").time_to_live(60_000),
    ));
    let correlate = r.apply(Command::CorrelateMessage {
        name: "parcel-found".into(),
        correlation_key: "P-1".into(),
        variables: VariableDocument::new(),
    });
    assert!(correlate.is_err(), "nothing waits for it: {correlate:?}");
    r.key(Command::BroadcastSignal {
        name: "closing-time".into(),
        variables: VariableDocument::new(),
    });
    assert_eq!(
        r.ok(Command::EvaluateConditionalStartEvents {
            variables: VariableDocument::new(),
            process_definition_key: None,
        }),
        Applied::Keys(Vec::new())
    );
    let decision = r.apply(Command::EvaluateDecision {
        decision_id: "shipping".into(),
        variables: VariableDocument::new(),
    });
    assert!(decision.is_err(), "no such decision: {decision:?}");
    r.ok(Command::MockDecision {
        decision_id: "shipping".into(),
        output: json!("express"),
    });
    match r.ok(Command::EvaluateDecision {
        decision_id: "shipping".into(),
        variables: VariableDocument::new(),
    }) {
        Applied::Evaluated(outcome) => assert_eq!(outcome.output, json!("express")),
        other => panic!("expected the mocked decision's output, got {other:?}"),
    }
    r.ok(Command::CreateGlobalTaskListener(GlobalTaskListener::new(
        "audit",
        "audit",
        ["all"],
    )));
    r.ok(Command::SetClusterVariables {
        tenant_id: None,
        variables: [("REGION".to_owned(), json!("eu"))].into_iter().collect(),
    });
    let start = r.engine.now();
    r.ok(Command::AdvanceClock { millis: 1_000 });
    assert_eq!(r.engine.now(), start + 1_000);
    r.ok(Command::SetClock {
        epoch_millis: start + 5_000,
    });
    assert_eq!(r.engine.now(), start + 5_000);

    // The same commands on a fresh engine: the same log, rejections and all.
    let mut replayed = Engine::default();
    for command in r.commands() {
        let _ = replayed.apply(command.clone());
    }
    assert_eq!(replayed.render_log(), r.engine.render_log());
    assert_eq!(replayed.now(), r.engine.now());

    // ... and the same commands written as JSON and read back.
    let text = serde_json::to_string_pretty(r.commands()).unwrap();
    let read = read_commands(&text).unwrap();
    let mut from_json = Engine::default();
    for command in read {
        let _ = from_json.apply(command);
    }
    assert_eq!(from_json.render_log(), r.engine.render_log());
}

#[test]
fn commands_as_json() {
    let commands = vec![
        Command::CreateInstance(CreateInstance::new("order").variables(doc(json!({"items": 2})))),
        Command::CompleteJob {
            job_key: 2251799813685253,
            variables: doc(json!({"ok": true})),
            result: Some(JobResult::AdHocSubProcess(AdHocJobResult {
                activate_elements: vec![(
                    "search-kb".into(),
                    share_document(doc(json!({"toolCall": {}}))),
                )],
                ..Default::default()
            })),
        },
        Command::PublishMessage(PublishMessage::new("parcel-lost", "P-1")),
        Command::CompleteJob {
            job_key: 2251799813685260,
            variables: VariableDocument::new(),
            result: Some(JobResult::UserTask {
                denied: true,
                denied_reason: Some("not in office hours".into()),
                corrections: VariableDocument::new(),
            }),
        },
        Command::AdvanceClock { millis: 1_000 },
    ];
    let text = serde_json::to_string(&commands).unwrap();
    let read: Vec<Command> = serde_json::from_str(&text).unwrap();
    assert_eq!(
        format!("{read:?}"),
        format!("{commands:?}"),
        "JSON round trip"
    );
    insta::assert_snapshot!(text, @r#"[{"command":"createInstance","bpmnProcessId":"order","version":null,"variables":{"items":2},"startInstructions":[],"terminateAfter":[]},{"command":"completeJob","jobKey":2251799813685253,"variables":{"ok":true},"result":{"type":"adHocSubProcess","activateElements":[{"elementId":"search-kb","variables":{"toolCall":{}}}],"isCompletionConditionFulfilled":false,"isCancelRemainingInstances":false}},{"command":"publishMessage","name":"parcel-lost","correlationKey":"P-1","timeToLiveMs":3600000,"messageId":null,"variables":{}},{"command":"completeJob","jobKey":2251799813685260,"variables":{},"result":{"type":"userTask","denied":true,"deniedReason":"not in office hours","corrections":{}}},{"command":"advanceClock","millis":1000}]"#);
    // What a hand-written log may leave out: variables, optional fields.
    let short: Command =
        serde_json::from_str(r#"{"command": "completeJob", "jobKey": 7}"#).unwrap();
    assert!(matches!(
        short,
        Command::CompleteJob {
            job_key: 7,
            result: None,
            ..
        }
    ));
    let errors: Vec<String> = [
        r#"{"command": "completeJob", "jobkey": 7}"#,
        r#"{"command": "finishJob", "jobKey": 7}"#,
        r#"{"command": "deploy", "resources": [{"name": "a.bpmn"}]}"#,
    ]
    .iter()
    .map(|text| {
        serde_json::from_str::<Command>(text)
            .unwrap_err()
            .to_string()
    })
    .collect();
    insta::assert_debug_snapshot!(errors, @r#"
    [
        "unknown field `jobkey`, expected one of `jobKey`, `variables`, `result`",
        "unknown variant `finishJob`, expected one of `deploy`, `createInstance`, `cancelInstance`, `suspendInstance`, `resumeInstance`, `setVariables`, `publishMessage`, `correlateMessage`, `broadcastSignal`, `evaluateConditionalStartEvents`, `activateJobs`, `pushJob`, `completeJob`, `failJob`, `throwError`, `updateJobRetries`, `completeUserTask`, `assignUserTask`, `updateUserTask`, `resolveIncident`, `evaluateDecision`, `advanceClock`, `setClock`, `mockDecision`, `setClusterVariables`, `createGlobalTaskListener` at line 1 column 23",
        "a resource has either `text` or `bytes`",
    ]
    "#);
}

#[test]
fn a_bad_command_log_names_the_path_of_the_problem() {
    let errors: Vec<String> = [
        r#"{"command": "advanceClock", "millis": 1}"#,
        r#"[{"command": "advanceClock", "millis": 1}, {"command": "advanceClock", "millis": "soon"}]"#,
        r#"[{"command": "createInstance", "bpmnProcessId": "order", "variables": [1]}]"#,
        r#"[{"command": "advanceClock", "millis": 1},"#,
    ]
    .iter()
    .map(|text| read_commands(text).unwrap_err().to_string())
    .collect();
    insta::assert_debug_snapshot!(errors, @r#"
    [
        ".: invalid type: map, expected a sequence at line 1 column 0",
        "[1]: invalid type: string \"soon\", expected i64 at line 1 column 89",
        "[0]: invalid type: sequence, expected a map at line 1 column 75",
        ".: EOF while parsing a value at line 1 column 42",
    ]
    "#);
}

#[test]
fn the_engine_records_only_what_it_can_replay() {
    let mut engine = Engine::default();
    // Deployments are always kept (their text is shared, not copied) ...
    engine
        .deploy(&[Resource::new("order.bpmn", ORDER)])
        .unwrap();
    assert_eq!(engine.recorded_commands().unwrap().len(), 1);
    // ... other commands only while recording: one carried out before recording starts leaves
    // a recording that would not replay the run.
    let mut late = engine.clone();
    late.create_instance(CreateInstance::new("order")).unwrap();
    late.record_commands(true);
    late.advance_clock(1_000).unwrap();
    assert_eq!(
        late.recorded_commands().unwrap_err().to_string(),
        "1 command(s) were carried out while the engine was not recording (or deployed a model \
         built in code), so the recorded commands would not replay the run; record from the start"
    );
    // Recording right after deploying keeps the whole run; a copy records on its own.
    engine.record_commands(true);
    engine
        .create_instance(CreateInstance::new("order"))
        .unwrap();
    let copy = engine.clone();
    engine.advance_clock(1_000).unwrap();
    assert_eq!(copy.recorded_commands().unwrap().len(), 2);
    let kinds: Vec<String> = engine
        .recorded_commands()
        .unwrap()
        .iter()
        .map(|c| serde_json::to_value(c).unwrap()["command"].to_string())
        .collect();
    assert_eq!(
        kinds,
        [r#""deploy""#, r#""createInstance""#, r#""advanceClock""#]
    );
    // A model built in code has no resource to replay.
    let parsed = baton_engine::model::parse(
        &baton_engine::source::Source::new("o.bpmn", ORDER),
        baton_engine::model::DiagramReading::Read,
    );
    engine
        .deploy_definitions("o.bpmn", parsed.definitions.as_ref().unwrap())
        .unwrap();
    assert!(engine.recorded_commands().is_err());
}
