//! The `adHocSubProcessElements` value of an ad-hoc sub-process: its activities with their
//! `fromAi()` parameters, in the order Zeebe's Java hash map gives them.

use serde_json::{Map, Value as Json};

use crate::model;
use crate::model::ElementIdx;
use crate::runtime::compile::error::{CompileError, err};

/// Java's `String.hashCode` over UTF-16 code units.
pub(crate) fn java_string_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h.wrapping_mul(31).wrapping_add(unit as i32);
    }
    h
}

/// The iteration order of a `java.util.HashMap<String, _>` filled with these keys in this order
/// (no removals): buckets ascending, insertion order inside a bucket.
pub(crate) fn java_hash_map_order(keys: &[&str]) -> Vec<usize> {
    let mut capacity = 16usize;
    while (keys.len() as f64) > 0.75 * capacity as f64 {
        capacity *= 2;
    }
    let bucket = |k: &str| {
        let h = java_string_hash(k) as u32;
        ((h ^ (h >> 16)) as usize) & (capacity - 1)
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    // A stable sort by bucket keeps insertion order inside a bucket, which is what resizing
    // (splitting each bucket into lo/hi lists that keep their relative order) preserves.
    order.sort_by_key(|&i| bucket(keys[i]));
    order
}

/// The `fromAi()` parameters of an element's own input mappings (FEEL sources only), for
/// `adHocSubProcessElements`: `{name, description?, type?, schema?, options?}`, empty fields
/// left out.
fn from_ai_parameters(element: &model::Element) -> Result<Vec<Json>, String> {
    let mut out = Vec::new();
    for m in &element.zeebe.input_mappings {
        let Some(source) = m.source.as_ref().and_then(|s| s.feel()) else {
            continue;
        };
        let expr = baton_feel::Expression::parse(source).map_err(|e| e.to_string())?;
        for p in baton_feel::from_ai::extract(&expr)? {
            let mut obj = serde_json::Map::new();
            obj.insert("name".into(), Json::String(p.name));
            if let Some(d) = p.description.filter(|d| !d.is_empty()) {
                obj.insert("description".into(), Json::String(d));
            }
            if let Some(t) = p.type_.filter(|t| !t.is_empty()) {
                obj.insert("type".into(), Json::String(t));
            }
            for (key, value) in [("schema", p.schema), ("options", p.options)] {
                match value {
                    Some(Json::Object(o)) if o.is_empty() => {}
                    Some(Json::Null) | None => {}
                    Some(v) => {
                        obj.insert(key.into(), v);
                    }
                }
            }
            out.push(Json::Object(obj));
        }
    }
    Ok(out)
}

/// The `adHocSubProcessElements` value: one object per activatable element, in Zeebe's
/// `HashMap` order, fields left out when empty.
pub(crate) fn ad_hoc_elements_json(
    process: &model::Process,
    activatable: &[ElementIdx],
) -> Result<Json, CompileError> {
    let ids: Vec<&str> = activatable
        .iter()
        .map(|i| process.element(*i).id.as_str())
        .collect();
    let mut out = Vec::with_capacity(ids.len());
    for i in java_hash_map_order(&ids) {
        let element = process.element(activatable[i]);
        let mut obj = Map::new();
        obj.insert("elementId".into(), Json::String(element.id.to_string()));
        if let Some(name) = element.name.as_deref().filter(|n| !n.is_empty()) {
            obj.insert("elementName".into(), Json::String(name.to_owned()));
        }
        if let Some(doc) = element.documentation.first().filter(|d| !d.is_empty()) {
            obj.insert("documentation".into(), Json::String(doc.clone()));
        }
        let mut props = Map::new();
        for p in &element.zeebe.properties {
            if p.name.is_empty() {
                continue;
            }
            let value = match p.value.as_deref() {
                None | Some("") => Json::Null,
                Some(v) => Json::String(v.to_owned()),
            };
            props.insert(p.name.clone(), value);
        }
        if !props.is_empty() {
            obj.insert("properties".into(), Json::Object(props));
        }
        let params = from_ai_parameters(element).map_err(|m| {
            err(
                element,
                format!(
                    "Failed to extract ad-hoc activity parameters for element '{}'. {m}",
                    element.id
                ),
            )
        })?;
        if !params.is_empty() {
            obj.insert("parameters".into(), Json::Array(params));
        }
        out.push(Json::Object(obj));
    }
    Ok(Json::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_of_strings() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99162322);
    }

    #[test]
    fn hash_map_order_matches_the_connector_fixture() {
        // The order the AI agent connector recorded for the chat-with-tools example.
        let doc_order = [
            "GetDateAndTime",
            "LoadUserByID",
            "ListUsers",
            "Search_Recipe",
            "SuperfluxProduct",
            "AskHumanToSendEmail",
            "Jokes_API",
            "Fetch_URL",
        ];
        let order: Vec<&str> = java_hash_map_order(&doc_order)
            .into_iter()
            .map(|i| doc_order[i])
            .collect();
        assert_eq!(
            order,
            [
                "Jokes_API",
                "GetDateAndTime",
                "ListUsers",
                "LoadUserByID",
                "SuperfluxProduct",
                "AskHumanToSendEmail",
                "Search_Recipe",
                "Fetch_URL"
            ]
        );
    }
}
