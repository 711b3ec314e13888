//! The fixtures under `fixtures/bpmn`: every accept fixture deploys (its parsed model and diagram
//! are snapshotted), every reject fixture produces exactly the diagnostics its header comment
//! names (`expect: <rule-id> @ <element-id>`), and those diagnostics are snapshotted.

use std::fmt::Write;
use std::path::Path;

use baton_engine::deploy::{Resource, check};
use baton_engine::diagnostics::Diagnostics;
use baton_engine::model::{
    Definitions, Element, ElementKind, EventDefinition, GatewayKind, LoopCharacteristics, Process,
    SubProcessKind, TaskKind, TimerDefinition, Zeebe,
};

fn resource(path: &Path) -> Resource {
    fixture_resource("bpmn", path)
}

/// A fixture file named by its path under `fixtures/<kind>` (what diagnostics print).
pub(crate) fn fixture_resource(kind: &str, path: &Path) -> Resource {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(kind)
        .canonicalize()
        .unwrap();
    let name = path
        .strip_prefix(&base)
        .unwrap_or(path)
        .display()
        .to_string();
    Resource::new(name, std::fs::read(path).unwrap())
}

/// The `expect: <rule> @ <element>` lines of a reject fixture's header comment, sorted.
pub(crate) fn expected_diagnostics(header: &str) -> Vec<String> {
    let mut expected: Vec<String> = header
        .lines()
        .take_while(|line| !line.trim_start().starts_with("-->"))
        .filter_map(|line| line.trim().strip_prefix("expect:"))
        .map(|e| e.trim().to_owned())
        .collect();
    expected.sort();
    expected
}

/// Diagnostics as `<rule> @ <element>`, sorted (the header's form).
pub(crate) fn diagnostic_ids(diagnostics: &Diagnostics) -> Vec<String> {
    let mut got: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} @ {}",
                d.rule.id(),
                d.element_id.as_deref().unwrap_or("-")
            )
        })
        .collect();
    got.sort();
    got
}

#[test]
fn accept_fixtures_deploy() {
    insta::glob!("../../../fixtures/bpmn/accept", "*.bpmn", |path| {
        let resource = resource(path);
        let deployed = match check(&[resource]) {
            Ok(deployed) => deployed,
            Err(diagnostics) => panic!("{} must deploy:\n{diagnostics}", path.display()),
        };
        let mut definitions = deployed[0].definitions().expect("a BPMN resource").clone();
        // Deploying checks the BPMN DI without keeping it; it is read when a picture is wanted.
        assert!(definitions.diagram.shapes.is_empty());
        let unread = definitions
            .unread_diagram
            .as_ref()
            .expect("the DI is there to read");
        let read = unread.read();
        let whole_file = baton_engine::model::parse(
            &deployed[0].source,
            baton_engine::model::DiagramReading::Read,
        )
        .definitions
        .expect("a BPMN file")
        .diagram;
        assert_eq!(read.shapes, whole_file.shapes);
        assert_eq!(read.edges, whole_file.edges);
        definitions.diagram = read;
        assert_drawn(&definitions);
        insta::assert_snapshot!(summary(&definitions));
    });
}

#[test]
fn reject_fixtures_give_their_diagnostics() {
    insta::glob!("../../../fixtures/bpmn/reject", "*.bpmn", |path| {
        let resource = resource(path);
        let header = String::from_utf8_lossy(resource.content()).into_owned();
        let diagnostics = match check(&[resource]) {
            Ok(_) => panic!("{} must be rejected", path.display()),
            Err(diagnostics) => diagnostics,
        };
        let expected = expected_diagnostics(&header);
        assert!(
            !expected.is_empty(),
            "{} names no expected diagnostic",
            path.display()
        );
        assert_eq!(
            diagnostic_ids(&diagnostics),
            expected,
            "{}: diagnostics differ from the header\n{diagnostics}",
            path.display()
        );
        insta::assert_snapshot!(diagnostics.to_string());
    });
}

/// Every flow node and sequence flow of an accept fixture has a shape or an edge.
fn assert_drawn(definitions: &Definitions) {
    for process in &definitions.processes {
        for element in &process.elements {
            assert!(
                definitions.diagram.shapes.contains_key(element.id.as_str()),
                "{} has no BPMN DI shape",
                element.id
            );
        }
        for flow in &process.flows {
            assert!(
                definitions.diagram.edges.contains_key(flow.id.as_str()),
                "{} has no BPMN DI edge",
                flow.id
            );
        }
    }
}

/// The model as an indented outline: one line per element with what the parser read.
fn summary(definitions: &Definitions) -> String {
    let mut out = String::new();
    let d = definitions;
    writeln!(
        out,
        "definitions {}: {} messages, {} errors, {} escalations, {} signals, {} collaborations, {} shapes, {} edges",
        d.id.as_deref().unwrap_or("-"),
        d.messages.len(),
        d.errors.len(),
        d.escalations.len(),
        d.signals.len(),
        d.collaborations.len(),
        d.diagram.shapes.len(),
        d.diagram.edges.len()
    )
    .unwrap();
    for collaboration in &d.collaborations {
        writeln!(
            out,
            "collaboration {}: participants {:?}, message flows {:?}",
            collaboration.id,
            collaboration
                .participants
                .iter()
                .map(|p| &p.id)
                .collect::<Vec<_>>(),
            collaboration
                .message_flows
                .iter()
                .map(|f| &f.id)
                .collect::<Vec<_>>()
        )
        .unwrap();
    }
    for process in &d.processes {
        writeln!(
            out,
            "process {} (executable: {}): {} elements, {} flows, {} lanes, {} artifacts{}",
            process.id,
            process.is_executable,
            process.elements.len(),
            process.flows.len(),
            process.lanes.len(),
            process.artifacts.len(),
            extensions(&process.zeebe, process.version_tag.as_deref())
        )
        .unwrap();
        for &child in &process.children {
            element(&mut out, process, process.element(child), 1);
        }
        for flow in &process.flows {
            writeln!(
                out,
                "  flow {}: {} -> {}{}",
                flow.id,
                process.element(flow.source).id,
                process.element(flow.target).id,
                flow.condition
                    .as_ref()
                    .map(|c| format!(" if {}", c.text))
                    .unwrap_or_default()
            )
            .unwrap();
        }
    }
    out
}

fn element(out: &mut String, process: &Process, e: &Element, depth: usize) {
    let kind = match &e.kind {
        ElementKind::Task(task) => match task {
            TaskKind::Undefined => "task".to_owned(),
            TaskKind::Service => "service task".to_owned(),
            TaskKind::Send => "send task".to_owned(),
            TaskKind::Receive { message_ref, .. } => format!("receive task {message_ref:?}"),
            TaskKind::User => "user task".to_owned(),
            TaskKind::Manual => "manual task".to_owned(),
            TaskKind::Script { .. } => "script task".to_owned(),
            TaskKind::BusinessRule => "business rule task".to_owned(),
        },
        ElementKind::SubProcess(kind) => match kind {
            SubProcessKind::Embedded => "sub-process".to_owned(),
            SubProcessKind::Event => "event sub-process".to_owned(),
            SubProcessKind::Transaction => "transaction".to_owned(),
            SubProcessKind::AdHoc(ad_hoc) => format!(
                "ad-hoc sub-process (completion {:?}, cancel remaining {:?})",
                ad_hoc.completion_condition.as_ref().map(|c| &c.text),
                ad_hoc.cancel_remaining_instances
            ),
        },
        ElementKind::CallActivity => "call activity".to_owned(),
        ElementKind::Gateway(kind) => match kind {
            GatewayKind::Exclusive => "exclusive gateway".to_owned(),
            GatewayKind::Inclusive => "inclusive gateway".to_owned(),
            GatewayKind::Parallel => "parallel gateway".to_owned(),
            GatewayKind::EventBased { .. } => "event-based gateway".to_owned(),
            GatewayKind::Complex => "complex gateway".to_owned(),
        },
        ElementKind::StartEvent { is_interrupting } => {
            format!(
                "start event{}",
                if *is_interrupting {
                    ""
                } else {
                    " (non-interrupting)"
                }
            )
        }
        ElementKind::IntermediateCatchEvent => "catch event".to_owned(),
        ElementKind::IntermediateThrowEvent => "throw event".to_owned(),
        ElementKind::BoundaryEvent {
            attached_to,
            cancel_activity,
        } => format!(
            "boundary event on {}{}",
            process.element(*attached_to).id,
            if *cancel_activity {
                ""
            } else {
                " (non-interrupting)"
            }
        ),
        ElementKind::EndEvent => "end event".to_owned(),
    };
    let definitions: Vec<String> = e.event_definitions.iter().map(event_definition).collect();
    let mut line = format!("{}{} {kind}", "  ".repeat(depth), e.id);
    if !definitions.is_empty() {
        write!(line, " [{}]", definitions.join(", ")).unwrap();
    }
    match &e.loop_characteristics {
        Some(LoopCharacteristics::MultiInstance(mi)) => write!(
            line,
            " multi-instance({}, {:?})",
            if mi.is_sequential {
                "sequential"
            } else {
                "parallel"
            },
            mi.input_collection.as_ref().map(|c| &c.text)
        )
        .unwrap(),
        Some(LoopCharacteristics::StandardLoop { .. }) => line.push_str(" standard loop"),
        None => {}
    }
    if let Some(default) = e.default_flow {
        write!(line, " default={}", process.flow(default).id).unwrap();
    }
    if e.is_for_compensation {
        line.push_str(" for-compensation");
    }
    line.push_str(&extensions(&e.zeebe, None));
    writeln!(out, "{line}").unwrap();
    for &child in &e.children {
        element(out, process, process.element(child), depth + 1);
    }
}

fn event_definition(definition: &EventDefinition) -> String {
    match definition {
        EventDefinition::Message { message_ref, .. } => format!("message {message_ref:?}"),
        EventDefinition::Timer(timer) => match timer {
            TimerDefinition::Duration(e) => format!("timer duration {}", e.text),
            TimerDefinition::Date(e) => format!("timer date {}", e.text),
            TimerDefinition::Cycle(e) => format!("timer cycle {}", e.text),
            TimerDefinition::Empty(_) => "timer (empty)".to_owned(),
        },
        EventDefinition::Error { error_ref, .. } => format!("error {error_ref:?}"),
        EventDefinition::Escalation { escalation_ref, .. } => {
            format!("escalation {escalation_ref:?}")
        }
        EventDefinition::Signal { signal_ref, .. } => format!("signal {signal_ref:?}"),
        EventDefinition::Compensation { activity_ref, .. } => {
            format!("compensation {activity_ref:?}")
        }
        EventDefinition::Conditional {
            condition,
            variable_names,
            ..
        } => format!(
            "conditional {:?} on {variable_names:?}",
            condition.as_ref().map(|c| &c.text)
        ),
        EventDefinition::Link { name, .. } => format!("link {name:?}"),
        EventDefinition::Terminate { .. } => "terminate".to_owned(),
        EventDefinition::Cancel { .. } => "cancel".to_owned(),
    }
}

/// The `zeebe:` extensions present, by name.
fn extensions(z: &Zeebe, version_tag: Option<&str>) -> String {
    let mut names = Vec::new();
    if let Some(task) = &z.task_definition {
        names.push(format!(
            "taskDefinition({})",
            task.job_type.as_ref().map_or("", |t| t.text.as_str())
        ));
    }
    let counted = [
        ("input", z.input_mappings.len()),
        ("output", z.output_mappings.len()),
        ("header", z.task_headers.len()),
        ("property", z.properties.len()),
        ("executionListener", z.execution_listeners.len()),
        ("taskListener", z.task_listeners.len()),
        ("linkedResource", z.linked_resources.len()),
    ];
    for (name, count) in counted {
        if count > 0 {
            names.push(format!("{name}×{count}"));
        }
    }
    let present = [
        ("subscription", z.subscription.is_some()),
        ("calledElement", z.called_element.is_some()),
        ("calledDecision", z.called_decision.is_some()),
        ("script", z.script.is_some()),
        ("userTask", z.user_task),
        ("assignmentDefinition", z.assignment.is_some()),
        ("taskSchedule", z.task_schedule.is_some()),
        ("priorityDefinition", z.priority.is_some()),
        ("formDefinition", z.form.is_some()),
        ("adHoc", z.ad_hoc.is_some()),
        ("publishMessage", z.publish_message.is_some()),
        ("modelerTemplate", z.modeler_template.is_some()),
    ];
    for (name, is) in present {
        if is {
            names.push(name.to_owned());
        }
    }
    if let Some(tag) = version_tag {
        names.push(format!("versionTag({tag})"));
    }
    if names.is_empty() {
        String::new()
    } else {
        format!(" {{{}}}", names.join(", "))
    }
}
