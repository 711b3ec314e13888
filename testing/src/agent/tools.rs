//! The agent's tools: read from Zeebe's `adHocSubProcessElements` variable and turned into the
//! tool definitions the model is offered, with the AI Agent connector's rules and messages.
//!
//! Each parameter `toolCall.<name>` of an element becomes the property `<name>` of the tool's
//! input schema (the `schema` given to `fromAi()`, then its `type` or `"string"`, then its
//! description), required unless `options.required` is `false`. Parameters outside the
//! `toolCall.` namespace, nested names, `_meta` and duplicates fail the way the connector fails
//! (`AD_HOC_TOOL_SCHEMA_INVALID`). Elements with the zeebe property
//! `io.camunda.agenticai.gateway.type` (MCP and A2A clients) are gateways, not tools.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

/// The zeebe property that marks an MCP or A2A client element as a gateway tool.
pub const GATEWAY_TYPE_PROPERTY: &str = "io.camunda.agenticai.gateway.type";

const NAMESPACE: &str = "toolCall.";
const RESTRICTED: [&str; 1] = ["_meta"];

/// One entry of `adHocSubProcessElements`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolElement {
    pub element_id: String,
    pub element_name: Option<String>,
    pub documentation: Option<String>,
    /// `zeebe:properties`; a property written without a value is `None`.
    pub properties: IndexMap<String, Option<String>>,
    pub parameters: Vec<ToolParameter>,
}

/// A `fromAi()` parameter of a tool element.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolParameter {
    /// The whole reference, e.g. `toolCall.orderId`.
    pub name: String,
    pub description: Option<String>,
    pub type_: Option<String>,
    pub schema: Option<Map<String, Value>>,
    pub options: Option<Map<String, Value>>,
}

/// A tool as the model is offered it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The element id.
    pub name: String,
    /// The trimmed documentation, or else the element name.
    pub description: Option<String>,
    /// `{"type": "object", "properties": {…}, "required": […]}`.
    pub input_schema: Value,
}

/// A gateway element (MCP client, A2A client): one element standing for tools discovered at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct GatewayElement {
    pub element_id: String,
    /// `mcpClient` or `a2aClient`.
    pub gateway_type: String,
}

/// The tools of an agent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResolvedTools {
    pub tools: Vec<ToolDefinition>,
    pub gateways: Vec<GatewayElement>,
}

/// The connector cannot build a tool's schema (error code `AD_HOC_TOOL_SCHEMA_INVALID`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSchemaError {
    pub element_id: String,
    /// The connector's message, e.g. `Failed to generate ad-hoc tool schema for element
    /// 'create-ticket'. Parameter name 'summary' is not part of expected namespace 'toolCall.'.`
    pub message: String,
}

impl std::fmt::Display for ToolSchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolSchemaError {}

impl ToolDefinition {
    /// `{name, description, inputSchema}` as stored in `agentContext.toolDefinitions`.
    pub fn to_json(&self) -> Value {
        let mut object = Map::with_capacity(3);
        object.insert("name".into(), self.name.clone().into());
        if let Some(description) = &self.description {
            object.insert("description".into(), description.clone().into());
        }
        object.insert("inputSchema".into(), self.input_schema.clone());
        Value::Object(object)
    }

    /// Reads a stored definition back (from `agentContext.toolDefinitions`).
    pub fn from_json(value: &Value) -> Option<ToolDefinition> {
        Some(ToolDefinition {
            name: value.get("name")?.as_str()?.to_string(),
            description: value
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            input_schema: value
                .get("inputSchema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}, "required": []})),
        })
    }

    /// The parameter names, in schema order.
    pub fn parameter_names(&self) -> Vec<&str> {
        self.input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// [`ToolDefinition::required`] read in place.
    pub fn required_names(&self) -> impl Iterator<Item = &str> {
        self.input_schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
    }

    /// The required parameter names.
    pub fn required(&self) -> Vec<&str> {
        self.input_schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
}

/// Why `adHocSubProcessElements` is not in Zeebe's shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElementsError {
    #[error("adHocSubProcessElements must be a list, got {got}")]
    NotAList { got: String },
    /// An entry lacks a field: `.elementId`, `.parameters[2].name`.
    #[error("adHocSubProcessElements[{index}]{field} is missing")]
    Missing { index: usize, field: String },
}

/// Reads `adHocSubProcessElements`. An entry that is not in Zeebe's shape is an error naming its
/// index (the engine wrote something else, or a test gave a hand-made value).
pub fn read_elements(value: &Value) -> Result<Vec<ToolElement>, ElementsError> {
    let Some(entries) = value.as_array() else {
        return Err(ElementsError::NotAList {
            got: value.to_string(),
        });
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            read_element(entry).map_err(|field| ElementsError::Missing { index, field })
        })
        .collect()
}

/// An entry of `adHocSubProcessElements`; `Err` is the field that is missing.
fn read_element(entry: &Value) -> Result<ToolElement, String> {
    let element_id = entry
        .get("elementId")
        .and_then(Value::as_str)
        .ok_or(".elementId")?
        .to_string();
    let text = |field: &str| entry.get(field).and_then(Value::as_str).map(str::to_string);
    let mut properties = IndexMap::new();
    if let Some(object) = entry.get("properties").and_then(Value::as_object) {
        for (key, value) in object {
            properties.insert(key.clone(), value.as_str().map(str::to_string));
        }
    }
    let mut parameters = Vec::new();
    if let Some(list) = entry.get("parameters").and_then(Value::as_array) {
        for (i, parameter) in list.iter().enumerate() {
            let name = parameter
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!(".parameters[{i}].name"))?;
            let object = |field: &str| parameter.get(field).and_then(Value::as_object).cloned();
            parameters.push(ToolParameter {
                name: name.to_string(),
                description: parameter
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                type_: parameter
                    .get("type")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                schema: object("schema"),
                options: object("options"),
            });
        }
    }
    Ok(ToolElement {
        element_id,
        element_name: text("elementName"),
        documentation: text("documentation"),
        properties,
        parameters,
    })
}

/// Splits off the gateways and builds every other element's tool definition, in list order
/// (the order the model sees). The first failing element stops, as in the connector.
pub fn resolve_tools(elements: &[ToolElement]) -> Result<ResolvedTools, ToolSchemaError> {
    let mut resolved = ResolvedTools::default();
    for element in elements {
        let gateway = element
            .properties
            .get(GATEWAY_TYPE_PROPERTY)
            .cloned()
            .flatten();
        match gateway {
            Some(gateway_type) if gateway_type == "mcpClient" || gateway_type == "a2aClient" => {
                resolved.gateways.push(GatewayElement {
                    element_id: element.element_id.clone(),
                    gateway_type,
                });
            }
            _ => resolved.tools.push(tool_definition(element)?),
        }
    }
    Ok(resolved)
}

/// The tool definition of one element.
pub fn tool_definition(element: &ToolElement) -> Result<ToolDefinition, ToolSchemaError> {
    let fail = |detail: String| ToolSchemaError {
        element_id: element.element_id.clone(),
        message: format!(
            "Failed to generate ad-hoc tool schema for element '{}'. {detail}",
            element.element_id
        ),
    };
    let mut properties = Map::with_capacity(element.parameters.len());
    let mut required = Vec::with_capacity(element.parameters.len());
    for parameter in &element.parameters {
        let full = parameter.name.as_str();
        let Some(name) = full
            .strip_prefix(NAMESPACE)
            .filter(|_| !full.trim().is_empty())
        else {
            return Err(fail(format!(
                "Parameter name '{full}' is not part of expected namespace '{NAMESPACE}'."
            )));
        };
        if name.trim().is_empty() {
            return Err(fail(format!(
                "Parameter name '{full}' is empty after removing the expected namespace '{NAMESPACE}'."
            )));
        }
        if name.contains('.') {
            return Err(fail(format!(
                "Parameter name '{name}' with removed namespace '{NAMESPACE}' is not a leaf reference (must not contain dots)."
            )));
        }
        if RESTRICTED.contains(&name) {
            return Err(fail(format!(
                "Parameter name '{full}' is restricted and cannot be used."
            )));
        }
        if properties.contains_key(name) {
            return Err(fail(format!("Duplicate parameter name '{full}'.")));
        }
        let mut schema = parameter.schema.clone().unwrap_or_default();
        if let Some(type_) = parameter.type_.as_deref().filter(|t| !t.trim().is_empty()) {
            schema.insert("type".into(), type_.into());
        }
        if !schema.contains_key("type") {
            schema.insert("type".into(), "string".into());
        }
        if let Some(description) = parameter
            .description
            .as_deref()
            .filter(|d| !d.trim().is_empty())
        {
            schema.insert("description".into(), description.into());
        }
        properties.insert(name.to_string(), Value::Object(schema));
        let is_required = match parameter.options.as_ref().and_then(|o| o.get("required")) {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(fail(format!(
                    "Parameter '{full}' 'required' option must be a boolean value, but was: {}",
                    java_class(other)
                )));
            }
        };
        if is_required {
            required.push(Value::String(name.to_string()));
        }
    }
    let description = element
        .documentation
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string)
        .or_else(|| element.element_name.clone());
    Ok(ToolDefinition {
        name: element.element_id.clone(),
        description,
        // Built by moving the parts in (`json!` would serialize them into copies).
        input_schema: Value::Object(Map::from_iter([
            ("type".to_string(), Value::from("object")),
            ("properties".to_string(), Value::Object(properties)),
            ("required".to_string(), Value::Array(required)),
        ])),
    })
}

/// The Java class Jackson reads a JSON value into (the connector prints it).
fn java_class(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_i64() && i32::try_from(n.as_i64().unwrap_or(0)).is_ok() => {
            "Integer"
        }
        Value::Number(n) if n.is_i64() || n.is_u64() => "Long",
        Value::Number(_) => "Double",
        Value::String(_) => "String",
        Value::Array(_) => "ArrayList",
        Value::Object(_) => "LinkedHashMap",
    }
}
