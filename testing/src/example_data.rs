//! Example data: the JSON object Camunda Modeler stores on an element as the `zeebe:property`
//! `camundaModeler:exampleOutputJson`, which CPT's `...WithExampleData` completes with.

use baton_engine::runtime::{Engine, Key, VariableDocument};
use serde_json::Value;

/// The property Camunda Modeler writes under "Example data".
pub const EXAMPLE_OUTPUT_PROPERTY: &str = "camundaModeler:exampleOutputJson";

/// Why an element has no example data to complete with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExampleDataError {
    #[error("no deployed process with key {process_definition_key}")]
    NoProcess { process_definition_key: Key },
    #[error("process \"{process_id}\" has no element \"{element_id}\"")]
    NoElement {
        process_id: String,
        element_id: String,
    },
    #[error(
        "element \"{element_id}\" of process \"{process_id}\" has no example data: add a zeebe:property named \"{EXAMPLE_OUTPUT_PROPERTY}\" (Camunda Modeler: \"Example data\")"
    )]
    Missing {
        process_id: String,
        element_id: String,
    },
    #[error("the example data of element \"{element_id}\" is not a JSON object: {got}")]
    NotAnObject { element_id: String, got: String },
    #[error("the example data of element \"{element_id}\" is not valid JSON: {reason}")]
    NotJson { element_id: String, reason: String },
}

/// The example data of an element of the deployed process with this definition key.
pub fn example_data(
    engine: &Engine,
    process_definition_key: Key,
    element_id: &str,
) -> Result<VariableDocument, ExampleDataError> {
    let process = engine
        .deployed_processes()
        .find(|p| p.key() == process_definition_key)
        .ok_or(ExampleDataError::NoProcess {
            process_definition_key,
        })?;
    let process_id = || process.bpmn_process_id().to_string();
    let element = process
        .model()
        .find(element_id)
        .map(|i| process.model().element(i))
        .ok_or_else(|| ExampleDataError::NoElement {
            process_id: process_id(),
            element_id: element_id.to_string(),
        })?;
    let Some(text) = element
        .zeebe
        .properties
        .iter()
        .find(|p| p.name == EXAMPLE_OUTPUT_PROPERTY)
        .and_then(|p| p.value.as_deref())
    else {
        return Err(ExampleDataError::Missing {
            process_id: process_id(),
            element_id: element_id.to_string(),
        });
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m.into_iter().collect()),
        Ok(other) => Err(ExampleDataError::NotAnObject {
            element_id: element_id.to_string(),
            got: crate::variables::short(&other, 60),
        }),
        Err(e) => Err(ExampleDataError::NotJson {
            element_id: element_id.to_string(),
            reason: e.to_string(),
        }),
    }
}
