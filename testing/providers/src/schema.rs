//! JSON schemas as the connector passes them on: read into LangChain4j's typed schema elements
//! (which keep only what they model: types, descriptions, properties, `required`, enums, items,
//! `anyOf`, `$ref`, `$defs`), then written back per wire format. What a schema says beyond
//! that (formats, minimums, patterns) never reaches the provider, exactly as in production.

use serde_json::{Map, Value};

/// A typed schema element.
#[derive(Debug, Clone, PartialEq)]
pub enum Schema {
    Object {
        description: Option<String>,
        properties: Vec<(String, Schema)>,
        required: Vec<String>,
        additional_properties: Option<bool>,
        definitions: Vec<(String, Schema)>,
    },
    Array {
        description: Option<String>,
        items: Option<Box<Schema>>,
    },
    /// String values from a list (an `enum` of any type reads as one).
    Enum {
        description: Option<String>,
        values: Vec<String>,
    },
    String(Option<String>),
    Number(Option<String>),
    Integer(Option<String>),
    Boolean(Option<String>),
    Null,
    Reference(String),
    AnyOf {
        description: Option<String>,
        any_of: Vec<Schema>,
    },
}

fn description(node: &Value) -> Option<String> {
    node.get("description").map(as_text)
}

/// A JSON value as Jackson's `asText` reads it.
fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "null".to_string(),
        Value::Array(_) | Value::Object(_) => String::new(),
        other => other.to_string(),
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().map(as_text).collect())
        .unwrap_or_default()
}

impl Schema {
    /// Reads a schema the way the connector's deserializer does: `enum` first, then `anyOf`,
    /// `$ref`, then by `type`. `Err` is the connector's message.
    pub fn read(node: &Value) -> Result<Schema, String> {
        if node.get("enum").is_some() {
            return Ok(Schema::Enum {
                description: description(node),
                values: strings(node.get("enum")),
            });
        }
        if let Some(any_of) = node.get("anyOf") {
            let any_of = any_of
                .as_array()
                .map(|items| items.iter().map(Schema::read).collect::<Result<_, _>>())
                .transpose()?
                .unwrap_or_default();
            return Ok(Schema::AnyOf {
                description: description(node),
                any_of,
            });
        }
        if let Some(reference) = node.get("$ref") {
            return Ok(Schema::Reference(as_text(reference)));
        }
        let kind = node.get("type").map(as_text);
        Ok(match kind.as_deref() {
            Some("object") => {
                let mut properties = Vec::new();
                if let Some(Value::Object(map)) = node.get("properties") {
                    for (name, property) in map {
                        properties.push((name.clone(), Schema::read(property)?));
                    }
                }
                let mut definitions = Vec::new();
                if let Some(Value::Object(map)) = node.get("$defs") {
                    for (name, definition) in map {
                        definitions.push((name.clone(), Schema::read(definition)?));
                    }
                }
                Schema::Object {
                    description: description(node),
                    properties,
                    required: strings(node.get("required")),
                    additional_properties: node
                        .get("additionalProperties")
                        .map(|v| v.as_bool().unwrap_or(false)),
                    definitions,
                }
            }
            Some("string") => Schema::String(description(node)),
            Some("number") => Schema::Number(description(node)),
            Some("integer") => Schema::Integer(description(node)),
            Some("boolean") => Schema::Boolean(description(node)),
            Some("array") => Schema::Array {
                description: description(node),
                items: node
                    .get("items")
                    .map(Schema::read)
                    .transpose()?
                    .map(Box::new),
            },
            Some("null") => Schema::Null,
            other => {
                return Err(format!(
                    "Unknown JSON schema element type '{}'",
                    other.unwrap_or("null")
                ));
            }
        })
    }

    /// The schema as LangChain4j writes it for OpenAI, Bedrock and Gemini (not strict):
    /// `type`, `description`, then the kind's own keys.
    pub fn to_json(&self) -> Value {
        self.write(false)
    }

    /// The schema as LangChain4j writes Anthropic's structured output: every object closed
    /// with `additionalProperties: false`.
    pub fn to_anthropic_json(&self) -> Value {
        self.write(true)
    }

    fn write(&self, anthropic: bool) -> Value {
        let mut map = Map::new();
        let typed = |map: &mut Map<String, Value>, kind: &str, description: &Option<String>| {
            map.insert("type".into(), kind.into());
            if let Some(d) = description {
                map.insert("description".into(), d.clone().into());
            }
        };
        match self {
            Schema::Object {
                description,
                properties,
                required,
                definitions,
                ..
            } => {
                typed(&mut map, "object", description);
                let props: Map<String, Value> = properties
                    .iter()
                    .map(|(name, schema)| (name.clone(), schema.write(anthropic)))
                    .collect();
                map.insert("properties".into(), Value::Object(props));
                map.insert(
                    "required".into(),
                    Value::Array(required.iter().map(|r| r.clone().into()).collect()),
                );
                if anthropic {
                    map.insert("additionalProperties".into(), false.into());
                }
                if !definitions.is_empty() {
                    map.insert("$defs".into(), definitions_json(definitions, anthropic));
                }
            }
            Schema::Array { description, items } => {
                typed(&mut map, "array", description);
                map.insert(
                    "items".into(),
                    items
                        .as_ref()
                        .map_or_else(|| Value::Object(Map::new()), |i| i.write(anthropic)),
                );
            }
            Schema::Enum {
                description,
                values,
            } => {
                typed(&mut map, "string", description);
                map.insert(
                    "enum".into(),
                    Value::Array(values.iter().map(|v| v.clone().into()).collect()),
                );
            }
            Schema::String(d) => typed(&mut map, "string", d),
            Schema::Number(d) => typed(&mut map, "number", d),
            Schema::Integer(d) => typed(&mut map, "integer", d),
            Schema::Boolean(d) => typed(&mut map, "boolean", d),
            Schema::Null => {
                map.insert("type".into(), "null".into());
            }
            Schema::Reference(reference) => {
                map.insert("$ref".into(), format!("#/$defs/{reference}").into());
            }
            Schema::AnyOf {
                description,
                any_of,
            } => {
                if let Some(d) = description {
                    map.insert("description".into(), d.clone().into());
                }
                map.insert(
                    "anyOf".into(),
                    Value::Array(any_of.iter().map(|s| s.write(anthropic)).collect()),
                );
            }
        }
        Value::Object(map)
    }

    /// An object schema's properties as a map (Anthropic's tool `input_schema` takes them
    /// apart from the object).
    pub fn properties_json(&self) -> Value {
        match self {
            Schema::Object { properties, .. } => Value::Object(
                properties
                    .iter()
                    .map(|(n, s)| (n.clone(), s.to_json()))
                    .collect(),
            ),
            _ => Value::Object(Map::new()),
        }
    }

    /// An object schema's `required` list.
    pub fn required(&self) -> &[String] {
        match self {
            Schema::Object { required, .. } => required,
            _ => &[],
        }
    }
}

fn definitions_json(definitions: &[(String, Schema)], anthropic: bool) -> Value {
    Value::Object(
        definitions
            .iter()
            .map(|(n, s)| (n.clone(), s.write(anthropic)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_the_typed_elements_do_not_model_is_dropped_and_keys_are_reordered() {
        let schema = Schema::read(&json!({
            "type": "object",
            "properties": {
                "priority": {"enum": ["low", "high"], "type": "string", "description": "how urgent"},
                "count": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"type": "string", "format": "uri"}}
            },
            "required": ["count"]
        }))
        .unwrap();
        assert_eq!(
            schema.to_json(),
            json!({
                "type": "object",
                "properties": {
                    "priority": {"type": "string", "description": "how urgent", "enum": ["low", "high"]},
                    "count": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["count"]
            })
        );
        assert_eq!(
            schema.to_anthropic_json()["additionalProperties"],
            json!(false)
        );
    }

    #[test]
    fn an_unknown_type_is_the_connectors_error() {
        assert_eq!(
            Schema::read(&json!({"type": "date"})).unwrap_err(),
            "Unknown JSON schema element type 'date'"
        );
        assert_eq!(
            Schema::read(&json!({})).unwrap_err(),
            "Unknown JSON schema element type 'null'"
        );
    }
}
