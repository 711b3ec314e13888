//! What CPT's reader, a Jackson `ObjectMapper` with Jackson's defaults (camunda/camunda
//! `TestScenarioReader`, the reader's copy read: only `FAIL_ON_UNKNOWN_PROPERTIES` is turned
//! off, plus the Jdk8 and JavaTime modules), does that serde does not: a number or a boolean
//! where text is expected is read as its text (`StringDeserializer` through
//! `StdDeserializer._parseString`, `ALLOW_COERCION_OF_SCALARS` on by default), an object or an
//! array there fails with Jackson's sentence, and a wrong enumeration value lists the accepted
//! ones in the order Jackson lists them.

use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Map, Value};

/// The message CPT's reader (Jackson) writes for a value its enumeration does not have, naming
/// the Java enum it reads the field into and listing the accepted values in the order Jackson
/// lists them (see [`jackson_lookup_order`]).
pub(super) fn jackson_enum_error(java_enum: &str, value: &str, accepted: &[&str]) -> String {
    format!(
        "Cannot deserialize value of type `{java_enum}` from String \"{value}\": not one of the values accepted for Enum class: [{}]",
        jackson_lookup_order(accepted).join(", ")
    )
}

/// Java's `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, wrapping.
fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// The order of the names in Jackson's "not one of the values accepted" list: not the enum's
/// declaration order but the slots of the lookup table it reads names with (jackson-databind
/// `EnumDeserializer._deserializeAltString` lists `CompactStringObjectMap.keys()`). The table is
/// built from `EnumResolver`'s `java.util.HashMap` of names (put in declaration order), walked in
/// that map's order: by bucket (`h ^ (h >>> 16)` masked by a capacity that starts at 16 and
/// doubles while the names exceed three quarters of it), then by insertion. Each name goes to its
/// primary slot (`hashCode & mask`, the table's size 8 up to 5 names, 16 up to 12, else the power
/// of two from 32 at least 125% of their number), else to the secondary slot `size + slot/2`,
/// else to the spill area after both; `keys()` reads primary, secondary, then spill slots.
fn jackson_lookup_order<'a>(names: &[&'a str]) -> Vec<&'a str> {
    let n = names.len();
    let mut capacity = 16usize;
    while n * 4 > capacity * 3 {
        capacity *= 2;
    }
    let spread = |name: &str| {
        let h = java_string_hash(name) as u32;
        ((h ^ (h >> 16)) as usize) & (capacity - 1)
    };
    let mut by_map_order: Vec<(usize, usize, &'a str)> = names
        .iter()
        .enumerate()
        .map(|(i, name)| (spread(name), i, *name))
        .collect();
    by_map_order.sort();
    let size = match n {
        0..=5 => 8,
        6..=12 => 16,
        _ => {
            let needed = n + (n >> 2);
            let mut size = 32;
            while size < needed {
                size *= 2;
            }
            size
        }
    };
    let mask = size - 1;
    let mut slots: Vec<Option<&'a str>> = vec![None; size + size / 2];
    let mut spill = Vec::new();
    for (_, _, name) in by_map_order {
        let slot = (java_string_hash(name) as u32 as usize) & mask;
        if slots[slot].is_none() {
            slots[slot] = Some(name);
        } else if slots[size + (slot >> 1)].is_none() {
            slots[size + (slot >> 1)] = Some(name);
        } else {
            spill.push(name);
        }
    }
    slots.into_iter().flatten().chain(spill).collect()
}

/// A JSON value read as CPT's reader reads it (see the module documentation); everything else
/// is serde_json's own reading of the value.
pub(super) struct Jackson(pub Value);

/// Jackson's `handleUnexpectedToken` sentence for a text field given an object or an array.
fn not_text(value: &Value) -> Option<serde_json::Error> {
    let (shape, token) = match value {
        Value::Object(_) => ("Object value", "START_OBJECT"),
        Value::Array(_) => ("Array value", "START_ARRAY"),
        _ => return None,
    };
    Some(de::Error::custom(format!(
        "Cannot deserialize value of type `java.lang.String` from {shape} (token `JsonToken.{token}`)"
    )))
}

impl<'de> Deserializer<'de> for Jackson {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(items) => visitor.visit_seq(Items(items.into_iter())),
            Value::Object(fields) => visitor.visit_map(Fields {
                fields: fields.into_iter(),
                value: None,
            }),
            scalar => scalar.deserialize_any(visitor),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if let Some(error) = not_text(&self.0) {
            return Err(error);
        }
        match self.0 {
            Value::Number(n) => visitor.visit_string(n.to_string()),
            Value::Bool(b) => visitor.visit_string(b.to_string()),
            other => other.deserialize_string(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            value => visitor.visit_some(Jackson(value)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(_) => self.deserialize_any(visitor),
            other => other.deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(visitor),
            other => other.deserialize_map(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(_) | Value::Array(_) => self.deserialize_any(visitor),
            other => other.deserialize_struct(name, fields, visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit
        unit_struct identifier ignored_any
    }
}

/// The items of an array, each read as CPT reads it.
struct Items(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(Jackson(v)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The fields of an object, each value read as CPT reads it.
struct Fields {
    fields: <Map<String, Value> as IntoIterator>::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.fields.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(key.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Jackson(value)),
            None => Err(de::Error::custom("a value was asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// Jackson lists an enumeration's accepted values in its lookup table's slot order, not in
    /// declaration order (jackson-databind `CompactStringObjectMap.construct`/`keys()` over
    /// `EnumResolver`'s `HashMap`). The vectors are messages Jackson printed, quoted in public
    /// logs: github-api's `GHEvent` (57 values, spill slots included) and a three-value enum.
    #[test]
    fn enumeration_values_are_listed_in_jacksons_order() {
        let gh_event = "GOLLUM, ALL, INTEGRATION_INSTALLATION_REPOSITORIES, META, DOWNLOAD, FORK_APPLY, CHECK_RUN, MARKETPLACE_PURCHASE, PROJECT_CARD, PUSH, PAGE_BUILD, TEAM_ADD, REPOSITORY_VULNERABILITY_ALERT, PACKAGE, DELETE, DEPLOYMENT_STATUS, WATCH, FOLLOW, ORG_BLOCK, ORGANIZATION, COMMIT_COMMENT, ISSUE_COMMENT, REPOSITORY_IMPORT, GITHUB_APP_AUTHORIZATION, CODE_SCANNING_ALERT, CHECK_SUITE, FORK, GIST, CONTENT_REFERENCE, REPOSITORY, INSTALLATION_REPOSITORIES, REPOSITORY_DISPATCH, MILESTONE, STAR, LABEL, MEMBERSHIP, SECURITY_ADVISORY, PROJECT_COLUMN, TEAM, PULL_REQUEST_REVIEW, RELEASE, PUBLIC, WORKFLOW_RUN, STATUS, PULL_REQUEST, PROJECT, WORKFLOW_DISPATCH, CREATE, MEMBER, REGISTRY_PACKAGE, INSTALLATION, DEPLOYMENT, PULL_REQUEST_REVIEW_COMMENT, DEPLOY_KEY, PING, ISSUES";
        let mut names: Vec<&str> = gh_event.split(", ").collect();
        names.sort_unstable();
        assert_eq!(jackson_lookup_order(&names).join(", "), gh_event);
        assert_eq!(
            jackson_lookup_order(&["JEONGSI", "PYEONIP", "SUSI"]),
            ["SUSI", "PYEONIP", "JEONGSI"]
        );
        assert_eq!(java_string_hash("IS_ACTIVE"), 163_029_947);
        assert_eq!(
            jackson_lookup_order(super::super::model::ElementInstanceState::NAMES),
            ["IS_TERMINATED", "IS_ACTIVE", "IS_COMPLETED"]
        );
        assert_eq!(
            jackson_lookup_order(super::super::model::MessageSubscriptionState::NAMES),
            ["IS_WAITING", "IS_CORRELATED", "IS_NOT_WAITING"]
        );
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Sample {
        correlation_key: Option<String>,
        name: String,
        groups: Vec<String>,
        variables: Map<String, Value>,
        count: Option<i32>,
    }

    fn sample(value: Value) -> Result<Sample, String> {
        Sample::deserialize(Jackson(value)).map_err(|e| e.to_string())
    }

    /// A number or a boolean where text is expected is its text, in nested lists too; the
    /// variables (any JSON) keep their types.
    #[test]
    fn scalars_are_read_as_text_and_other_values_keep_their_types() {
        let read = sample(json!({"correlationKey": 1042, "name": true, "groups": [7, "x"], "variables": {"n": 1, "o": {"a": [1.5, null]}}, "count": 3}))
            .unwrap();
        assert_eq!(read.correlation_key.as_deref(), Some("1042"));
        assert_eq!(read.name, "true");
        assert_eq!(read.groups, ["7", "x"]);
        assert_eq!(
            Value::Object(read.variables),
            json!({"n": 1, "o": {"a": [1.5, null]}})
        );
        assert_eq!(read.count, Some(3));
        let none =
            sample(json!({"correlationKey": null, "name": "n", "groups": [], "variables": {}}))
                .unwrap();
        assert_eq!(none.correlation_key, None);
    }

    /// An object or an array where text is expected fails with Jackson's sentence.
    #[test]
    fn an_object_or_an_array_for_text_fails_with_jacksons_sentence() {
        assert_eq!(
            sample(json!({"name": {"a": 1}, "groups": [], "variables": {}})).unwrap_err(),
            "Cannot deserialize value of type `java.lang.String` from Object value (token `JsonToken.START_OBJECT`)"
        );
        assert_eq!(
            sample(json!({"name": "n", "groups": [["x"]], "variables": {}})).unwrap_err(),
            "Cannot deserialize value of type `java.lang.String` from Array value (token `JsonToken.START_ARRAY`)"
        );
    }
}
