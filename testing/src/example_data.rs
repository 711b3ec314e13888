//! Example data: the JSON object Camunda Modeler stores on an element as the `zeebe:property`
//! `camundaModeler:exampleOutputJson`, which CPT's `...WithExampleData` completes with.

use baton_engine::runtime::{Engine, Key, VariableDocument};
use serde_json::Value;

/// The property Camunda Modeler writes under "Example data".
pub const EXAMPLE_OUTPUT_PROPERTY: &str = "camundaModeler:exampleOutputJson";

/// The example data of an element of the deployed process with this definition key.
pub fn example_data(
    engine: &Engine,
    process_definition_key: Key,
    element_id: &str,
) -> Result<VariableDocument, String> {
    let process = engine
        .deployed_processes()
        .find(|p| p.key() == process_definition_key)
        .ok_or_else(|| format!("no deployed process with key {process_definition_key}"))?;
    let element = process
        .model()
        .find(element_id)
        .map(|i| process.model().element(i))
        .ok_or_else(|| {
            format!(
                "process \"{}\" has no element \"{element_id}\"",
                process.bpmn_process_id()
            )
        })?;
    let Some(text) = element
        .zeebe
        .properties
        .iter()
        .find(|p| p.name == EXAMPLE_OUTPUT_PROPERTY)
        .and_then(|p| p.value.as_deref())
    else {
        return Err(format!(
            "element \"{element_id}\" of process \"{}\" has no example data: add a zeebe:property named \"{EXAMPLE_OUTPUT_PROPERTY}\" (Camunda Modeler: \"Example data\")",
            process.bpmn_process_id()
        ));
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m.into_iter().collect()),
        Ok(other) => Err(format!(
            "the example data of element \"{element_id}\" is not a JSON object: {}",
            crate::variables::short(&other, 60)
        )),
        Err(e) => Err(format!(
            "the example data of element \"{element_id}\" is not valid JSON: {e}"
        )),
    }
}
