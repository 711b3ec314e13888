//! Forms linked to Camunda user tasks: `.form` resources, and FORM_NOT_FOUND.

use baton_engine::deploy::Resource;
use baton_engine::runtime::*;

use crate::xml::*;

fn task_with_form(binding: &str) -> String {
    definitions(&process(
        "review",
        &format!(
            r#"<bpmn:startEvent id="start" /><bpmn:userTask id="approve"><bpmn:extensionElements><zeebe:userTask /><zeebe:formDefinition formId="approval-form" {binding} /></bpmn:extensionElements></bpmn:userTask><bpmn:endEvent id="end" />{}"#,
            chain(&["start", "approve", "end"])
        ),
    ))
}

fn form(id: &str) -> Resource {
    Resource::new(
        "approval.form",
        format!(r#"{{"id": "{id}", "components": [], "type": "default"}}"#).into_bytes(),
    )
}

#[test]
fn a_user_task_whose_form_is_not_deployed_is_a_form_not_found_incident() {
    let mut e = Engine::default();
    deploy(&mut e, &task_with_form(""));
    let pi = e.create_instance(CreateInstance::new("review")).unwrap();
    let incident = e.incidents().pop().unwrap();
    assert_eq!(incident.error_type, ErrorType::FormNotFound);
    insta::assert_snapshot!(incident.error_message, @"Expected to find a form with id 'approval-form', but no form with this id is found, at least a form with this id should be available. To resolve the Incident please deploy a form with the same id");
    // Deploying the form and resolving the incident creates the task with the form's key.
    e.deploy(&[form("approval-form")]).unwrap();
    e.resolve_incident(incident.key).unwrap();
    let task = e.user_tasks()[0].clone();
    assert_eq!(task.value.form_key, Some(e.deployed_forms()[0].key as i64));
    assert_eq!(state_of(&e, pi), State::Activated);
}

#[test]
fn a_deployment_bound_form_comes_from_the_same_deployment() {
    let mut e = Engine::default();
    let info = e
        .deploy(&[
            Resource::new(
                "review.bpmn",
                task_with_form(r#"bindingType="deployment""#).into_bytes(),
            ),
            form("approval-form"),
        ])
        .unwrap();
    // A newer version of the form, deployed later, is not the one the task uses.
    e.deploy(&[form("approval-form")]).unwrap();
    e.create_instance(CreateInstance::new("review")).unwrap();
    let forms = e.deployed_forms();
    assert_eq!(forms.len(), 2);
    assert_eq!(forms[0].deployment_key, info.deployment_key);
    assert_eq!(e.user_tasks()[0].value.form_key, Some(forms[0].key as i64));
    // A form without an id is rejected.
    let err = e
        .deploy(&[Resource::new("bad.form", b"{\"components\": []}".to_vec())])
        .unwrap_err();
    assert!(err.message.contains("'bad.form'"), "{}", err.message);
}
