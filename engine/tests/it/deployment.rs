//! Rules about a deployment as a whole: several resources checked together.

use baton_engine::deploy::{Resource, check};

fn process(id: &str, call: Option<(&str, &str)>) -> Resource {
    let call = call.map_or(String::new(), |(process_id, binding)| {
        format!(
            r#"<bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="{process_id}" bindingType="{binding}" /></bpmn:extensionElements></bpmn:callActivity>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="call" />"#
        )
    });
    let xml = format!(
        r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d">
  <bpmn:process id="{id}" isExecutable="true">
    <bpmn:startEvent id="start" />
    {call}
  </bpmn:process>
</bpmn:definitions>"#
    );
    Resource::new(format!("{id}.bpmn"), xml)
}

#[test]
fn a_deployment_is_all_or_nothing_and_names_every_problem() {
    let broken = Resource::new("broken.bpmn", "<bpmn:definitions");
    let diagnostics = check(&[process("a", None), broken, process("a", None)]).unwrap_err();
    insta::assert_snapshot!(diagnostics.to_string(), @r"
    broken.bpmn:1:1: error[xml-malformed] syntax error: tag not closed: `>` not found before end of input
    a.bpmn:2:3: error[duplicate-process-id] a: Duplicated process id in resources 'a.bpmn' and 'a.bpmn'
    ");
}

#[test]
fn deployment_binding_needs_the_called_process_in_the_same_deployment() {
    let deployed = check(&[
        process("parent", Some(("child", "deployment"))),
        process("child", None),
    ]);
    assert!(deployed.is_ok(), "{:?}", deployed.err());
    let latest = check(&[process("parent", Some(("child", "latest")))]);
    assert!(latest.is_ok(), "{:?}", latest.err());
    let diagnostics = check(&[process("parent", Some(("child", "deployment")))]).unwrap_err();
    insta::assert_snapshot!(diagnostics.to_string(), @"parent.bpmn:4:58: error[deployment-binding] call: Expected to find process with id 'child' in current deployment, but not found.");
}

#[test]
fn a_deployed_process_reads_its_diagram_when_asked_as_the_parsed_file_draws_it() {
    use baton_engine::runtime::{Engine, EngineConfig};
    use baton_engine::source::Source;
    // Two pools, one executable process: its picture is its own part of the file's BPMN DI.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/bpmn/accept/collaboration.bpmn"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut deployed = Engine::new(EngineConfig::default());
    deployed
        .deploy(&[Resource::new("collaboration.bpmn", text.clone())])
        .unwrap();
    let parsed = baton_engine::model::parse(
        &Source::new("collaboration.bpmn", text),
        baton_engine::model::DiagramReading::Read,
    );
    let parsed = parsed.definitions.unwrap();
    assert!(parsed.unread_diagram.is_none());
    let mut from_model = Engine::new(EngineConfig::default());
    from_model
        .deploy_definitions("collaboration.bpmn", &parsed)
        .unwrap();
    let lazy = deployed.latest_process("shop").unwrap().diagram();
    let eager = from_model.latest_process("shop").unwrap().diagram();
    assert!(!lazy.shapes.is_empty() && lazy.shapes.len() < parsed.diagram.shapes.len());
    assert!(lazy.shapes.contains_key("Participant_shop"));
    assert!(!lazy.shapes.contains_key("Participant_customer"));
    assert_eq!(lazy.shapes, eager.shapes);
    assert_eq!(lazy.edges, eager.edges);
}
