//! Variable values shared behind an `Arc` ([`SharedJson`]), and a view that reads them in
//! place ([`JsonRef`]).
//!
//! A variable, its records and the jobs that read it hold one value; a deployed constant (an
//! ad-hoc sub-process's `adHocSubProcessElements`) is handed to every instance without a copy.
//! A value built out of other values can share them: an object or array whose parts are shared
//! values or plain JSON ([`Part`]; the AI agent connector's `agentContext` holds the earlier
//! conversation and the tool definitions of the one before, and `agent.context` is that
//! context). Such a value
//! is read in place through [`JsonRef`] and serialised in place; a reader that wants plain
//! JSON still gets it (`Deref<Target = Json>`): the plain form is built the first time it is
//! read that way, and kept.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value as Json};

/// A variable value: plain JSON, or an object or array of parts. Cloning is cheap (one `Arc`,
/// the size of a pointer: variables and records hold many).
#[derive(Clone)]
pub struct SharedJson(Arc<Form>);

/// The form a shared value takes: plain JSON, or composed of parts.
enum Form {
    Plain(Json),
    Composed {
        parts: Parts,
        /// The plain form, built the first time the value is read as `&Json`.
        plain: OnceLock<Json>,
    },
}

enum Parts {
    /// Entries in order, keys distinct.
    Object(Vec<(Cow<'static, str>, Part)>),
    Array(Vec<Part>),
}

/// A part of a composed value: a shared value, or plain JSON kept in place (small parts that
/// nothing else shares need no `Arc` of their own).
pub enum Part {
    Plain(Json),
    Shared(SharedJson),
}

impl Part {
    fn view(&self) -> JsonRef<'_> {
        match self {
            Part::Plain(json) => JsonRef::Plain(json),
            Part::Shared(shared) => JsonRef::Shared(shared),
        }
    }
}

impl From<Json> for Part {
    fn from(json: Json) -> Part {
        Part::Plain(json)
    }
}

impl From<SharedJson> for Part {
    fn from(shared: SharedJson) -> Part {
        Part::Shared(shared)
    }
}

impl SharedJson {
    /// A plain value.
    pub fn new(json: Json) -> SharedJson {
        SharedJson(Arc::new(Form::Plain(json)))
    }

    /// An object of these parts; the keys must be distinct.
    pub fn object<K, P>(entries: impl IntoIterator<Item = (K, P)>) -> SharedJson
    where
        K: Into<Cow<'static, str>>,
        P: Into<Part>,
    {
        let entries: Vec<(Cow<'static, str>, Part)> = entries
            .into_iter()
            .map(|(key, part)| (key.into(), part.into()))
            .collect();
        debug_assert!(
            entries
                .iter()
                .enumerate()
                .all(|(i, (key, _))| entries[..i].iter().all(|(k, _)| k != key)),
            "an object's keys are distinct"
        );
        SharedJson::composed(Parts::Object(entries))
    }

    /// An array of these parts.
    pub fn array<P: Into<Part>>(items: impl IntoIterator<Item = P>) -> SharedJson {
        SharedJson::composed(Parts::Array(items.into_iter().map(Into::into).collect()))
    }

    fn composed(parts: Parts) -> SharedJson {
        SharedJson(Arc::new(Form::Composed {
            parts,
            plain: OnceLock::new(),
        }))
    }

    /// Whether both are the very same value (not merely equal).
    pub fn ptr_eq(&self, other: &SharedJson) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether the value is an object or array of parts (not plain JSON).
    pub fn is_composed(&self) -> bool {
        self.parts().is_some()
    }

    /// The value read in place.
    pub fn view(&self) -> JsonRef<'_> {
        JsonRef::Shared(self)
    }

    /// The plain JSON, when the value is plain (an object or array of parts gives
    /// `None`: read it with [`SharedJson::view`]).
    pub fn as_plain(&self) -> Option<&Json> {
        match &*self.0 {
            Form::Plain(json) => Some(json),
            Form::Composed { .. } => None,
        }
    }

    fn parts(&self) -> Option<&Parts> {
        match &*self.0 {
            Form::Plain(_) => None,
            Form::Composed { parts, .. } => Some(parts),
        }
    }

    /// A plain copy of the value (an object or array of parts is built without
    /// keeping its plain form).
    pub fn to_json(&self) -> Json {
        match &*self.0 {
            Form::Plain(json) => json.clone(),
            Form::Composed { plain, parts } => match plain.get() {
                Some(plain) => plain.clone(),
                None => parts.build(),
            },
        }
    }

    /// The value as owned plain JSON (moved out when nobody else holds it).
    pub fn into_json(self) -> Json {
        match Arc::try_unwrap(self.0) {
            Ok(Form::Plain(json)) => json,
            Ok(Form::Composed { parts, plain }) => {
                plain.into_inner().unwrap_or_else(|| parts.build())
            }
            Err(shared) => SharedJson(shared).to_json(),
        }
    }

    /// The value as plain JSON to change in place (copied first when it is shared or not plain,
    /// as `Arc::make_mut` does).
    pub fn make_mut(&mut self) -> &mut Json {
        if !matches!(Arc::get_mut(&mut self.0), Some(Form::Plain(_))) {
            *self = SharedJson::new(self.to_json());
        }
        match Arc::get_mut(&mut self.0) {
            Some(Form::Plain(json)) => json,
            _ => unreachable!("made a plain value of its own above"),
        }
    }
}

impl Parts {
    fn build(&self) -> Json {
        match self {
            Parts::Object(entries) => Json::Object(
                entries
                    .iter()
                    .map(|(key, value)| (key.to_string(), value.view().to_json()))
                    .collect::<Map<_, _>>(),
            ),
            Parts::Array(items) => Json::Array(items.iter().map(|i| i.view().to_json()).collect()),
        }
    }
}

impl Deref for SharedJson {
    type Target = Json;

    fn deref(&self) -> &Json {
        match &*self.0 {
            Form::Plain(json) => json,
            Form::Composed { parts, plain } => plain.get_or_init(|| parts.build()),
        }
    }
}

impl From<Json> for SharedJson {
    fn from(json: Json) -> SharedJson {
        SharedJson::new(json)
    }
}

impl From<SharedJson> for Json {
    fn from(value: SharedJson) -> Json {
        value.into_json()
    }
}

impl Default for SharedJson {
    fn default() -> SharedJson {
        SharedJson::new(Json::Null)
    }
}

/// Printed as the plain JSON it stands for.
impl fmt::Debug for SharedJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for SharedJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// JSON equality (objects as maps), read in place.
impl PartialEq for SharedJson {
    fn eq(&self, other: &SharedJson) -> bool {
        self.view() == other.view()
    }
}

impl PartialEq<Json> for SharedJson {
    fn eq(&self, other: &Json) -> bool {
        self.view() == JsonRef::Plain(other)
    }
}

impl PartialEq<SharedJson> for Json {
    fn eq(&self, other: &SharedJson) -> bool {
        JsonRef::Plain(self) == other.view()
    }
}

/// Comparisons with scalars, as `serde_json::Value` has them.
macro_rules! scalar_eq {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for SharedJson {
            fn eq(&self, other: &$t) -> bool {
                self.as_plain().is_some_and(|json| json == other)
            }
        }
    )*};
}

scalar_eq!(str, &str, String, bool, i32, i64, u32, u64, f64);

/// Serialised in place, as the plain JSON would be.
impl serde::Serialize for SharedJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &*self.0 {
            Form::Plain(json) => json.serialize(serializer),
            Form::Composed { parts, .. } => match parts {
                Parts::Object(entries) => {
                    serializer.collect_map(entries.iter().map(|(k, v)| (k, v.view())))
                }
                Parts::Array(items) => serializer.collect_seq(items.iter().map(Part::view)),
            },
        }
    }
}

impl<'de> serde::Deserialize<'de> for SharedJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SharedJson, D::Error> {
        Json::deserialize(deserializer).map(SharedJson::new)
    }
}

/// Objects this small are scanned in order rather than hashed.
const SCAN_LIMIT: usize = 8;

fn plain_field<'a>(object: &'a Map<String, Json>, key: &str) -> Option<&'a Json> {
    if object.len() <= SCAN_LIMIT {
        object.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    } else {
        object.get(key)
    }
}

/// A part of a value, read in place: inside plain JSON, or a shared value.
#[derive(Clone, Copy)]
pub enum JsonRef<'a> {
    Plain(&'a Json),
    Shared(&'a SharedJson),
}

impl<'a> JsonRef<'a> {
    /// The plain JSON of this part, when it is plain.
    pub fn plain(self) -> Option<&'a Json> {
        match self {
            JsonRef::Plain(json) => Some(json),
            JsonRef::Shared(shared) => shared.as_plain(),
        }
    }

    fn parts(self) -> Option<&'a Parts> {
        match self {
            JsonRef::Shared(shared) => shared.parts(),
            JsonRef::Plain(_) => None,
        }
    }

    /// An object's entry.
    pub fn get(self, key: &str) -> Option<JsonRef<'a>> {
        match self.parts() {
            Some(Parts::Object(entries)) => entries
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.view()),
            Some(Parts::Array(_)) => None,
            _ => plain_field(self.plain()?.as_object()?, key).map(JsonRef::Plain),
        }
    }

    /// The entry at a path of keys.
    pub fn at<K: AsRef<str>>(self, keys: &[K]) -> Option<JsonRef<'a>> {
        keys.iter().try_fold(self, |v, key| v.get(key.as_ref()))
    }

    /// An object's entries in order (`None` when this is not an object).
    pub fn entries(self) -> Option<Entries<'a>> {
        match self.parts() {
            Some(Parts::Object(entries)) => Some(Entries::Shared(entries.iter())),
            Some(Parts::Array(_)) => None,
            _ => Some(Entries::Plain(self.plain()?.as_object()?.iter())),
        }
    }

    /// An array's items in order (`None` when this is not an array).
    pub fn items(self) -> Option<Items<'a>> {
        match self.parts() {
            Some(Parts::Array(items)) => Some(Items::Shared(items.iter())),
            Some(Parts::Object(_)) => None,
            _ => Some(Items::Plain(self.plain()?.as_array()?.iter())),
        }
    }

    /// The number of entries of an object or items of an array.
    pub fn len(self) -> Option<usize> {
        match self.parts() {
            Some(Parts::Object(entries)) => Some(entries.len()),
            Some(Parts::Array(items)) => Some(items.len()),
            _ => match self.plain()? {
                Json::Object(map) => Some(map.len()),
                Json::Array(items) => Some(items.len()),
                _ => None,
            },
        }
    }

    /// Whether this is an empty object or array.
    pub fn is_empty(self) -> bool {
        self.len() == Some(0)
    }

    pub fn is_object(self) -> bool {
        match self.parts() {
            Some(Parts::Object(_)) => true,
            Some(Parts::Array(_)) => false,
            _ => self.plain().is_some_and(Json::is_object),
        }
    }

    pub fn is_array(self) -> bool {
        match self.parts() {
            Some(Parts::Array(_)) => true,
            Some(Parts::Object(_)) => false,
            _ => self.plain().is_some_and(Json::is_array),
        }
    }

    pub fn is_null(self) -> bool {
        self.plain().is_some_and(Json::is_null)
    }

    pub fn as_str(self) -> Option<&'a str> {
        self.plain()?.as_str()
    }

    pub fn as_u64(self) -> Option<u64> {
        self.plain()?.as_u64()
    }

    pub fn as_i64(self) -> Option<i64> {
        self.plain()?.as_i64()
    }

    pub fn as_bool(self) -> Option<bool> {
        self.plain()?.as_bool()
    }

    /// This part as a shared value: a shared part is shared, a part of plain JSON copied.
    pub fn to_shared(self) -> SharedJson {
        match self {
            JsonRef::Plain(json) => SharedJson::new(json.clone()),
            JsonRef::Shared(shared) => shared.clone(),
        }
    }

    /// A plain copy of this part.
    pub fn to_json(self) -> Json {
        match self {
            JsonRef::Plain(json) => json.clone(),
            JsonRef::Shared(shared) => shared.to_json(),
        }
    }
}

/// An object's entries, read in place.
pub enum Entries<'a> {
    Plain(serde_json::map::Iter<'a>),
    Shared(std::slice::Iter<'a, (Cow<'static, str>, Part)>),
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, JsonRef<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Plain(it) => it.next().map(|(k, v)| (k.as_str(), JsonRef::Plain(v))),
            Entries::Shared(it) => it.next().map(|(k, v)| (&**k, v.view())),
        }
    }
}

/// An array's items, read in place.
pub enum Items<'a> {
    Plain(std::slice::Iter<'a, Json>),
    Shared(std::slice::Iter<'a, Part>),
}

impl<'a> Iterator for Items<'a> {
    type Item = JsonRef<'a>;

    fn next(&mut self) -> Option<JsonRef<'a>> {
        match self {
            Items::Plain(it) => it.next().map(JsonRef::Plain),
            Items::Shared(it) => it.next().map(Part::view),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Items::Plain(it) => it.size_hint(),
            Items::Shared(it) => it.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Items<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Items::Plain(it) => it.next_back().map(JsonRef::Plain),
            Items::Shared(it) => it.next_back().map(Part::view),
        }
    }
}

impl ExactSizeIterator for Items<'_> {}

/// JSON equality (objects as maps, numbers as `serde_json` compares them), in place; one shared
/// value is equal to itself without a walk.
impl PartialEq for JsonRef<'_> {
    fn eq(&self, other: &JsonRef<'_>) -> bool {
        let (a, b) = (*self, *other);
        if let (JsonRef::Shared(x), JsonRef::Shared(y)) = (a, b)
            && x.ptr_eq(y)
        {
            return true;
        }
        if let (Some(x), Some(y)) = (a.plain(), b.plain()) {
            return x == y;
        }
        if a.is_object() {
            let (Some(len), Some(mut entries)) = (a.len(), a.entries()) else {
                return false;
            };
            return b.is_object()
                && b.len() == Some(len)
                && entries.all(|(key, value)| b.get(key).is_some_and(|other| value == other));
        }
        if a.is_array() {
            let (Some(x), Some(y)) = (a.items(), b.items()) else {
                return false;
            };
            return x.len() == y.len() && x.zip(y).all(|(x, y)| x == y);
        }
        // A plain scalar against an object or array of shared values.
        false
    }
}

impl fmt::Debug for JsonRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonRef::Plain(json) => fmt::Debug::fmt(json, f),
            JsonRef::Shared(shared) => fmt::Debug::fmt(shared, f),
        }
    }
}

impl serde::Serialize for JsonRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonRef::Plain(json) => json.serialize(serializer),
            JsonRef::Shared(shared) => shared.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn context() -> SharedJson {
        let tools = SharedJson::new(json!([{"name": "a"}]));
        let messages = SharedJson::array(vec![
            SharedJson::new(json!({"role": "user", "content": "hi"})),
            SharedJson::new(json!({"role": "assistant"})),
        ]);
        SharedJson::object([
            ("state", SharedJson::new(json!("READY"))),
            ("toolDefinitions", tools),
            (
                "conversation",
                SharedJson::object([
                    ("type", SharedJson::new(json!("in-process"))),
                    ("messages", messages),
                ]),
            ),
        ])
    }

    #[test]
    fn a_composed_value_reads_in_place_as_its_plain_json() {
        let c = context();
        assert!(c.as_plain().is_none());
        assert_eq!(
            c.view().get("state").and_then(JsonRef::as_str),
            Some("READY")
        );
        let roles: Vec<_> = c
            .view()
            .at(&["conversation", "messages"])
            .and_then(JsonRef::items)
            .unwrap()
            .map(|m| m.get("role").and_then(JsonRef::as_str).unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant"]);
        let plain = json!({
            "state": "READY",
            "toolDefinitions": [{"name": "a"}],
            "conversation": {"type": "in-process", "messages": [
                {"role": "user", "content": "hi"}, {"role": "assistant"}
            ]}
        });
        // Equality in place (before the plain form exists), then through `Deref`.
        assert_eq!(c, plain);
        assert_eq!(c.to_json(), plain);
        assert_eq!(*c, plain);
        assert_eq!(c.to_string(), plain.to_string());
        assert_eq!(serde_json::to_string(&c).unwrap(), plain.to_string());
        assert_eq!(c.clone().into_json(), plain);
    }

    #[test]
    fn equality_compares_objects_as_maps() {
        let a = context();
        assert_eq!(a, a.clone());
        let reordered = SharedJson::object([
            ("b", SharedJson::new(json!(2))),
            ("a", SharedJson::new(json!(1))),
        ]);
        assert_eq!(reordered, json!({"a": 1, "b": 2}));
        assert_ne!(reordered, json!({"a": 1, "b": 3}));
        assert_ne!(reordered, json!({"a": 1}));
        assert_ne!(reordered, json!([1, 2]));
        assert_ne!(SharedJson::array(Vec::<SharedJson>::new()), json!({}));
        assert_eq!(
            SharedJson::array(vec![SharedJson::new(json!(1))]),
            json!([1])
        );
    }

    #[test]
    fn a_change_copies_a_shared_value() {
        let a = SharedJson::new(json!([{"elementId": "a"}]));
        let mut b = a.clone();
        b.make_mut()[0]["elementId"] = json!("b");
        assert_eq!(a, json!([{"elementId": "a"}]));
        assert_eq!(b.into_json(), json!([{"elementId": "b"}]));
        let mut c = context();
        c.make_mut()["state"] = json!("DONE");
        assert_eq!(c["state"], json!("DONE"));
        assert_eq!(c["conversation"]["messages"][0]["content"], json!("hi"));
    }
}
