//! Tool definitions from `adHocSubProcessElements`, with the connector's rules and messages.

use std::path::PathBuf;

use baton_testing::agent::tools::{read_elements, resolve_tools};
use serde_json::{Value, json};

use super::harness::support_tools;

fn definitions(elements: Value) -> Value {
    let elements = read_elements(&elements).expect("Zeebe's shape");
    match resolve_tools(&elements) {
        Ok(resolved) => Value::Array(resolved.tools.iter().map(|t| t.to_json()).collect()),
        Err(error) => Value::String(error.message),
    }
}

fn shared_doc() -> Option<String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/docs/ai-agent-connector.md");
    std::fs::read_to_string(&path).ok()
}

/// The first ```json block after `marker` in the research notes.
fn json_after(doc: &str, marker: &str) -> Value {
    let start = doc
        .find(marker)
        .unwrap_or_else(|| panic!("marker {marker:?} not in the notes"));
    let rest = &doc[start..];
    let block = rest.find("```json\n").expect("a json block") + "```json\n".len();
    let end = rest[block..].find("```").expect("block end");
    serde_json::from_str(&rest[block..block + end]).expect("the block is JSON")
}

#[test]
fn golden_chat_with_tools_definitions_match_a_real_run() {
    let Some(doc) = shared_doc() else {
        println!("skipped: ../shared/docs/ai-agent-connector.md is not there");
        return;
    };
    let elements = json_after(&doc, "Worked example 2 (golden value)");
    let expected = json_after(&doc, "Worked example 2, continued (golden value)");
    assert_eq!(definitions(elements), expected);
}

#[test]
fn the_templates_tools() {
    insta::assert_json_snapshot!(definitions(support_tools()));
}

#[test]
fn schema_type_and_description_are_applied_in_the_connectors_order() {
    let elements = json!([
        {"elementId": "A", "elementName": "Name only"},
        {"elementId": "B", "elementName": "B", "documentation": "  trimmed  ",
         "parameters": [
            {"name": "toolCall.list", "description": "A list", "type": "array", "schema": {"items": {"type": "string"}}, "options": {"required": false}},
            {"name": "toolCall.typed", "schema": {"type": "integer", "minimum": 1}},
            {"name": "toolCall.overridden", "type": "number", "schema": {"type": "string", "description": "from schema"}, "description": "from fromAi"},
            {"name": "toolCall.plain", "description": "   "},
            {"name": "toolCall.nullRequired", "options": {"required": null}}
         ]},
        {"elementId": "C"}
    ]);
    insta::assert_json_snapshot!(definitions(elements));
}

#[test]
fn parameters_the_connector_cannot_offer() {
    let cases = [
        json!({"name": "summary"}),
        json!({"name": "toolCall."}),
        json!({"name": "toolCall.order.id"}),
        json!({"name": "toolCall._meta"}),
        json!({"name": "toolCall.x", "options": {"required": "true"}}),
        json!({"name": "toolCall.x", "options": {"required": 1}}),
    ];
    let mut messages: Vec<String> = cases
        .into_iter()
        .map(|parameter| {
            definitions(json!([{"elementId": "create-ticket", "parameters": [parameter]}]))
                .as_str()
                .expect("an error")
                .to_string()
        })
        .collect();
    let duplicate = json!([{"elementId": "Fetch", "parameters": [{"name": "toolCall.url"}, {"name": "toolCall.url"}]}]);
    messages.push(
        definitions(duplicate)
            .as_str()
            .expect("an error")
            .to_string(),
    );
    insta::assert_snapshot!(messages.join("\n"));
}

#[test]
fn gateways_are_not_tools() {
    let elements = json!([
        {"elementId": "Files", "properties": {"io.camunda.agenticai.gateway.type": "mcpClient"}},
        {"elementId": "Agent", "properties": {"io.camunda.agenticai.gateway.type": "a2aClient"}},
        {"elementId": "Plain", "properties": {"io.camunda.agenticai.gateway.type": "other", "empty": null}}
    ]);
    let resolved = resolve_tools(&read_elements(&elements).unwrap()).unwrap();
    let gateways: Vec<(&str, &str)> = resolved
        .gateways
        .iter()
        .map(|g| (g.element_id.as_str(), g.gateway_type.as_str()))
        .collect();
    assert_eq!(gateways, [("Files", "mcpClient"), ("Agent", "a2aClient")]);
    assert_eq!(resolved.tools.len(), 1);
    assert_eq!(resolved.tools[0].name, "Plain");
}

#[test]
fn a_variable_not_in_zeebes_shape_is_named_by_its_index() {
    assert_eq!(
        read_elements(&json!({})).unwrap_err().to_string(),
        "adHocSubProcessElements must be a list, got {}"
    );
    assert_eq!(
        read_elements(&json!([{"elementId": "A"}, {"name": "B"}]))
            .unwrap_err()
            .to_string(),
        "adHocSubProcessElements[1].elementId is missing"
    );
}
