//! Values a model might write, drawn from a JSON schema (a `fromAi()` parameter's, or the agent's
//! response schema), simplest first: `enum` and `const` values, both booleans, the schema's
//! `examples` and `default`, otherwise one value of the type (`""`-free strings named after the
//! property, the minimum or 1 for numbers, the fewest items for arrays). An object is every
//! combination of its properties' values, an optional property first left out.

use serde_json::{Map, Value};

/// The most values one schema may stand for: past it the space is an error that says where
/// (give value sets).
pub const MAX_VALUES: usize = 10_000;

/// Too many combinations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooMany {
    /// Where (a property path such as `priority` or `address.city`).
    pub at: String,
    pub count: usize,
}

/// The values of `schema`; `name` names the property (strings are named after it).
pub fn values_of(schema: &Value, name: &str) -> Result<Vec<Value>, TooMany> {
    let Some(schema) = schema.as_object() else {
        return Ok(vec![Value::String(name.to_string())]);
    };
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Ok(values.clone());
    }
    if let Some(value) = schema.get("const") {
        return Ok(vec![value.clone()]);
    }
    for branches in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(branches).and_then(Value::as_array) {
            let mut all = Vec::new();
            for branch in branches {
                for value in values_of(branch, name)? {
                    if !all.contains(&value) {
                        all.push(value);
                    }
                }
            }
            return capped(all, name);
        }
    }
    let type_ = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        // A list of types: the first one.
        Some(Value::Array(types)) => types.first().and_then(Value::as_str).unwrap_or("string"),
        _ if schema.contains_key("properties") => "object",
        _ => "string",
    };
    if type_ == "boolean" {
        return Ok(vec![Value::Bool(false), Value::Bool(true)]);
    }
    let mut given: Vec<Value> = Vec::new();
    if let Some(examples) = schema.get("examples").and_then(Value::as_array) {
        given.extend(examples.iter().cloned());
    }
    if let Some(default) = schema.get("default")
        && !given.contains(default)
    {
        given.push(default.clone());
    }
    if !given.is_empty() {
        return capped(given, name);
    }
    Ok(match type_ {
        "object" => return object_values(schema, name),
        "array" => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            if min == 0 {
                vec![Value::Array(Vec::new())]
            } else {
                let item = schema.get("items").cloned().unwrap_or(Value::Null);
                let first = values_of(&item, name)?
                    .into_iter()
                    .next()
                    .unwrap_or(Value::Null);
                vec![Value::Array(vec![first; min])]
            }
        }
        "integer" | "number" => {
            let min = schema.get("minimum").and_then(Value::as_f64).or_else(|| {
                schema
                    .get("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .map(|m| m + 1.0)
            });
            // Whole numbers: the minimum rounded up, or 1.
            vec![Value::from(min.map_or(1.0, f64::ceil) as i64)]
        }
        "null" => vec![Value::Null],
        _ => vec![Value::String(
            match schema.get("format").and_then(Value::as_str) {
                Some("date") => "2025-01-01".to_string(),
                Some("date-time") => "2025-01-01T00:00:00Z".to_string(),
                Some("email") => "someone@example.com".to_string(),
                Some("uri") => "https://example.com".to_string(),
                _ => name.to_string(),
            },
        )],
    })
}

/// Every combination of an object's property values (a property not `required` is first left
/// out), the first property varying slowest.
pub fn object_values(schema: &Map<String, Value>, name: &str) -> Result<Vec<Value>, TooMany> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut per_property: Vec<(&str, Vec<Option<Value>>)> = Vec::new();
    for (property, property_schema) in properties {
        let path = if name.is_empty() {
            property.clone()
        } else {
            format!("{name}.{property}")
        };
        let mut options: Vec<Option<Value>> = Vec::new();
        if !required.contains(&property.as_str()) {
            options.push(None);
        }
        options.extend(
            values_of(property_schema, property)
                .map_err(|e| TooMany {
                    at: if e.at == *property {
                        path.clone()
                    } else {
                        e.at
                    },
                    count: e.count,
                })?
                .into_iter()
                .map(Some),
        );
        per_property.push((property.as_str(), options));
    }
    combinations(&per_property, name)
}

/// The cartesian product of per-property options, as objects.
pub fn combinations(
    per_property: &[(&str, Vec<Option<Value>>)],
    name: &str,
) -> Result<Vec<Value>, TooMany> {
    let mut count: usize = 1;
    for (_, options) in per_property {
        count = count.saturating_mul(options.len().max(1));
    }
    if count > MAX_VALUES {
        return Err(TooMany {
            at: name.to_string(),
            count,
        });
    }
    let mut objects = vec![Map::new()];
    for (property, options) in per_property {
        let mut next = Vec::with_capacity(objects.len() * options.len());
        for object in &objects {
            for option in options {
                let mut o = object.clone();
                if let Some(value) = option {
                    o.insert((*property).to_string(), value.clone());
                }
                next.push(o);
            }
        }
        objects = next;
    }
    Ok(objects.into_iter().map(Value::Object).collect())
}

fn capped(values: Vec<Value>, name: &str) -> Result<Vec<Value>, TooMany> {
    if values.len() > MAX_VALUES {
        return Err(TooMany {
            at: name.to_string(),
            count: values.len(),
        });
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_simplest_first() {
        let cases = [
            (
                json!({"type": "string", "enum": ["low", "high"]}),
                json!(["low", "high"]),
            ),
            (json!({"type": "boolean"}), json!([false, true])),
            (json!({"type": "string"}), json!(["p"])),
            (
                json!({"type": "string", "examples": ["a", "b"]}),
                json!(["a", "b"]),
            ),
            (json!({"type": "integer", "minimum": 3}), json!([3])),
            (json!({"type": "number"}), json!([1])),
            (json!({"type": "array"}), json!([[]])),
            (
                json!({"type": "array", "minItems": 2, "items": {"type": "boolean"}}),
                json!([[false, false]]),
            ),
            (json!({"const": 7}), json!([7])),
            (
                json!({"anyOf": [{"type": "boolean"}, {"const": true}, {"type": "null"}]}),
                json!([false, true, null]),
            ),
            (
                json!({"type": "string", "format": "date"}),
                json!(["2025-01-01"]),
            ),
        ];
        for (schema, expected) in cases {
            assert_eq!(
                Value::Array(values_of(&schema, "p").unwrap()),
                expected,
                "{schema}"
            );
        }
    }

    #[test]
    fn objects_combine_their_properties_optional_ones_left_out_first() {
        let schema = json!({
            "type": "object",
            "properties": {"answer": {"type": "string"}, "resolved": {"type": "boolean"}, "tag": {"enum": ["x"]}},
            "required": ["answer", "resolved"]
        });
        assert_eq!(
            Value::Array(values_of(&schema, "").unwrap()),
            json!([
                {"answer": "answer", "resolved": false},
                {"answer": "answer", "resolved": false, "tag": "x"},
                {"answer": "answer", "resolved": true},
                {"answer": "answer", "resolved": true, "tag": "x"}
            ])
        );
    }

    #[test]
    fn too_many_combinations_name_the_place() {
        let many: Vec<Value> = (0..200).map(Value::from).collect();
        let schema = json!({
            "type": "object",
            "properties": {"a": {"enum": many.clone()}, "b": {"enum": many}},
            "required": ["a", "b"]
        });
        let e = values_of(&schema, "args").unwrap_err();
        assert_eq!((e.at.as_str(), e.count), ("args", 40_000));
    }
}
