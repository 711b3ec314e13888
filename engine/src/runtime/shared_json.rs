//! Variable values whose parts can be shared ([`SharedJson`]), and a view that reads them in
//! place ([`JsonRef`]).
//!
//! A variable value is usually plain JSON behind an `Arc`, shared by the variable, its records
//! and the jobs that read it. A value that is built out of other values (the AI agent
//! connector's `agentContext` holds the earlier conversation and the tool definitions, the final
//! `agent` holds the whole context) can instead be *composed*: an object or array whose entries
//! are themselves shared values, so the parts are not copied. Every reader that wants plain
//! JSON still gets it (`Deref<Target = Json>`): a composed value builds its plain form the first
//! time it is read that way and keeps it. The engine's hot paths (equality, FEEL variable paths,
//! `round_trips`, serialisation) read composed values in place through [`JsonRef`].

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value as Json};

/// A variable value: plain JSON, or an object/array of shared values (see the module docs).
/// Cloning is cheap (one `Arc`, the size of a pointer: variables and records hold many).
#[derive(Clone)]
pub struct SharedJson(Arc<Node>);

enum Node {
    Plain(Json),
    /// Plain JSON another owner shares as an `Arc` (a deployed element's
    /// `adHocSubProcessElements`): shared, not copied.
    Arc(Arc<Json>),
    /// A constant with a slot for what a reader derives from it ([`SharedJson::keep`]).
    Constant(Box<Constant>),
    Composed(Composed),
}

struct Constant {
    json: Json,
    kept: OnceLock<Arc<dyn Any + Send + Sync>>,
}

struct Composed {
    parts: Parts,
    /// The plain form, built the first time something reads the value as `&Json` (boxed: a
    /// node is no larger than a plain `Json`).
    plain: OnceLock<Box<Json>>,
    /// [`JsonRef::numbers_are_i64`], kept: the parts never change.
    numbers_i64: OnceLock<bool>,
}

enum Parts {
    /// Entries in order, keys distinct.
    Object(Vec<(Key, Entry)>),
    Array(Vec<SharedJson>),
}

/// An entry's key: the keys a builder writes are mostly literals, and the engine's are the
/// segments of a mapping target (shared with the deployed process): neither is allocated.
type Key = ObjectKey;

/// A composed object's key: a literal, a name shared with its owner (`Arc<str>`: a mapping
/// target's segment), or an owned string.
#[derive(Clone, Debug)]
pub struct ObjectKey(KeyText);

#[derive(Clone, Debug)]
enum KeyText {
    Literal(&'static str),
    Shared(Arc<str>),
    Owned(String),
}

impl Deref for ObjectKey {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            KeyText::Literal(text) => text,
            KeyText::Shared(text) => text,
            KeyText::Owned(text) => text,
        }
    }
}

impl ObjectKey {
    /// The key as a shared name: the very `Arc` when it is one, else a new one.
    pub fn to_shared_name(&self) -> Arc<str> {
        match &self.0 {
            KeyText::Shared(text) => text.clone(),
            KeyText::Literal(text) => Arc::from(*text),
            KeyText::Owned(text) => Arc::from(text.as_str()),
        }
    }
}

impl AsRef<str> for ObjectKey {
    fn as_ref(&self) -> &str {
        self
    }
}

impl std::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl PartialEq for ObjectKey {
    fn eq(&self, other: &ObjectKey) -> bool {
        **self == **other
    }
}

impl PartialEq<str> for ObjectKey {
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl PartialEq<&str> for ObjectKey {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

impl From<&'static str> for ObjectKey {
    fn from(text: &'static str) -> ObjectKey {
        ObjectKey(KeyText::Literal(text))
    }
}

impl From<String> for ObjectKey {
    fn from(text: String) -> ObjectKey {
        ObjectKey(KeyText::Owned(text))
    }
}

impl From<Arc<str>> for ObjectKey {
    fn from(text: Arc<str>) -> ObjectKey {
        ObjectKey(KeyText::Shared(text))
    }
}

impl From<Cow<'static, str>> for ObjectKey {
    fn from(text: Cow<'static, str>) -> ObjectKey {
        match text {
            Cow::Borrowed(text) => ObjectKey(KeyText::Literal(text)),
            Cow::Owned(text) => ObjectKey(KeyText::Owned(text)),
        }
    }
}

/// An object's entry: a shared value, or plain JSON kept in place (small parts that nothing
/// else shares need no `Arc` of their own).
enum Entry {
    Plain(Json),
    Shared(SharedJson),
}

impl Entry {
    fn view(&self) -> JsonRef<'_> {
        match self {
            Entry::Plain(json) => JsonRef::Plain(json),
            Entry::Shared(shared) => JsonRef::Shared(shared),
        }
    }
}

/// An object being built out of shared values: keys in insertion order; inserting a key again
/// replaces its value in place (as `serde_json::Map` does).
#[derive(Default)]
pub struct SharedObject(Vec<(Key, Entry)>);

impl SharedObject {
    pub fn new() -> SharedObject {
        SharedObject(Vec::new())
    }

    pub fn with_capacity(capacity: usize) -> SharedObject {
        SharedObject(Vec::with_capacity(capacity))
    }

    /// Sets `key` to a shared value (in place when it is already there, else at the end).
    pub fn insert(&mut self, key: impl Into<ObjectKey>, value: impl Into<SharedJson>) {
        self.set(key.into(), Entry::Shared(value.into()));
    }

    /// Sets `key` to plain JSON kept in the object itself (for parts nothing else shares).
    pub fn insert_plain(&mut self, key: impl Into<ObjectKey>, value: Json) {
        self.set(key.into(), Entry::Plain(value));
    }

    /// Adds `key`, which the caller knows is not there yet (literal keys written once), at the
    /// end without scanning for it: `insert`'s scan was most of the cost of building the
    /// connector's messages. A key already there is a bug of the caller (checked in debug
    /// builds).
    pub fn push(&mut self, key: impl Into<ObjectKey>, value: impl Into<SharedJson>) {
        self.append(key.into(), Entry::Shared(value.into()));
    }

    /// [`SharedObject::push`] with plain JSON kept in the object itself.
    pub fn push_plain(&mut self, key: impl Into<ObjectKey>, value: Json) {
        self.append(key.into(), Entry::Plain(value));
    }

    fn append(&mut self, key: Key, value: Entry) {
        debug_assert!(
            self.0.iter().all(|(k, _)| *k != key),
            "key {:?} pushed twice",
            &*key
        );
        self.0.push((key, value));
    }

    fn set(&mut self, key: Key, value: Entry) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }
}

impl From<SharedObject> for SharedJson {
    fn from(object: SharedObject) -> SharedJson {
        SharedJson::composed(Parts::Object(object.0))
    }
}

impl SharedJson {
    /// A plain value.
    pub fn new(json: Json) -> SharedJson {
        SharedJson(Arc::new(Node::Plain(json)))
    }

    /// An array of shared values.
    pub fn array(items: Vec<SharedJson>) -> SharedJson {
        SharedJson::composed(Parts::Array(items))
    }

    fn composed(parts: Parts) -> SharedJson {
        SharedJson(Arc::new(Node::Composed(Composed {
            parts,
            plain: OnceLock::new(),
            numbers_i64: OnceLock::new(),
        })))
    }

    /// An empty composed object (to be filled by [`SharedJson::put_at`]).
    pub fn empty_object() -> SharedJson {
        SharedJson::composed(Parts::Object(Vec::new()))
    }

    /// Writes `value` at a path of keys inside this value (as a mapping target such as
    /// `data.response.format.schema` does): along the path the value becomes, or stays, a
    /// composed object, so `value` is shared, not copied; a part on the path that is no object
    /// becomes an empty one; an existing key keeps its place, a new one comes last. The entries
    /// beside the path are kept: moved when this value is their only owner, else shared (a
    /// plain object's entries copied, as the plain JSON would have been).
    pub fn put_at(&mut self, path: &[Arc<str>], value: SharedJson) {
        let Some((first, rest)) = path.split_first() else {
            *self = value;
            return;
        };
        let entries = self.object_entries_mut();
        let found = entries.iter().position(|(k, _)| **k == **first);
        if rest.is_empty() {
            match found {
                Some(i) => entries[i].1 = Entry::Shared(value),
                None => entries.push((first.clone().into(), Entry::Shared(value))),
            }
            return;
        }
        let index = match found {
            Some(i) => i,
            None => {
                entries.push((
                    first.clone().into(),
                    Entry::Shared(SharedJson::empty_object()),
                ));
                entries.len() - 1
            }
        };
        let child = &mut entries[index].1;
        if let Entry::Plain(json) = child {
            *child = Entry::Shared(SharedJson::new(std::mem::take(json)));
        }
        match child {
            Entry::Shared(shared) => shared.put_at(rest, value),
            Entry::Plain(_) => unreachable!("made a shared entry above"),
        }
    }

    /// This value's entries as a composed object of its own, to change (see `put_at`): its
    /// kept plain form is dropped, as it is about to change.
    fn object_entries_mut(&mut self) -> &mut Vec<(Key, Entry)> {
        let own_object = matches!(
            Arc::get_mut(&mut self.0),
            Some(Node::Composed(Composed {
                parts: Parts::Object(_),
                ..
            }))
        );
        if !own_object {
            let entries: Vec<(Key, Entry)> = match Arc::get_mut(&mut self.0) {
                Some(Node::Plain(Json::Object(map))) => std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (Key::from(k), Entry::Plain(v)))
                    .collect(),
                _ => match self.view().entries() {
                    Some(entries) => entries
                        .map(|(k, v)| {
                            let entry = match v {
                                JsonRef::Plain(json) => Entry::Plain(json.clone()),
                                JsonRef::Shared(shared) => Entry::Shared(shared.clone()),
                            };
                            (Key::from(k.to_owned()), entry)
                        })
                        .collect(),
                    None => Vec::new(),
                },
            };
            let node = Node::Composed(Composed {
                parts: Parts::Object(entries),
                plain: OnceLock::new(),
                numbers_i64: OnceLock::new(),
            });
            match Arc::get_mut(&mut self.0) {
                Some(own) => *own = node,
                None => self.0 = Arc::new(node),
            }
        }
        match Arc::get_mut(&mut self.0) {
            Some(Node::Composed(composed)) => {
                composed.plain = OnceLock::new();
                composed.numbers_i64 = OnceLock::new();
                match &mut composed.parts {
                    Parts::Object(entries) => entries,
                    Parts::Array(_) => unreachable!("made a composed object above"),
                }
            }
            _ => unreachable!("made a composed object of its own above"),
        }
    }

    /// A constant value (a deployed element's `adHocSubProcessElements`): shared by every
    /// clone, with a slot for what a reader derives from it ([`SharedJson::keep`]).
    pub fn constant(json: Json) -> SharedJson {
        SharedJson(Arc::new(Node::Constant(Box::new(Constant {
            json,
            kept: OnceLock::new(),
        }))))
    }

    /// What a reader derived from this constant and kept with it ([`SharedJson::keep`]):
    /// `None` for another kind of value, or when nothing of type `T` was kept.
    pub fn kept<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        match &*self.0 {
            Node::Constant(constant) => constant.kept.get()?.clone().downcast().ok(),
            _ => None,
        }
    }

    /// Keeps what a reader derived from this constant with it (the AI agent connector's tools
    /// of an `adHocSubProcessElements` value): every clone of the value sees it, and it is
    /// dropped with the value (a deployed element's value lives as long as its deployment),
    /// so nothing is global. The first value kept stays; `false` when this is no constant or
    /// something is kept already.
    pub fn keep<T: Any + Send + Sync>(&self, derived: Arc<T>) -> bool {
        match &*self.0 {
            Node::Constant(constant) => constant.kept.set(derived).is_ok(),
            _ => false,
        }
    }

    /// Whether both are the very same value (not merely equal).
    pub fn ptr_eq(&self, other: &SharedJson) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || matches!((&*self.0, &*other.0), (Node::Arc(a), Node::Arc(b)) if Arc::ptr_eq(a, b))
    }

    /// The value read in place (no plain form is built).
    pub fn view(&self) -> JsonRef<'_> {
        JsonRef::Shared(self)
    }

    /// The plain JSON when the value is plain (a composed value gives `None`: read it with
    /// [`SharedJson::view`], or build its plain form through `Deref`).
    pub fn as_plain(&self) -> Option<&Json> {
        match &*self.0 {
            Node::Plain(json) => Some(json),
            Node::Arc(json) => Some(json),
            Node::Constant(constant) => Some(&constant.json),
            Node::Composed(_) => None,
        }
    }

    /// Whether the value is composed of shared parts (its plain form is built on demand).
    pub fn is_composed(&self) -> bool {
        matches!(*self.0, Node::Composed(_))
    }

    /// The value as owned plain JSON (moved out when nobody else holds it).
    pub fn into_json(self) -> Json {
        match Arc::try_unwrap(self.0) {
            Ok(Node::Plain(json)) => json,
            Ok(Node::Arc(json)) => Arc::unwrap_or_clone(json),
            Ok(Node::Constant(constant)) => constant.json,
            Ok(Node::Composed(Composed { parts, plain, .. })) => match plain.into_inner() {
                Some(plain) => *plain,
                None => parts.build(),
            },
            Err(shared) => SharedJson(shared).to_json(),
        }
    }

    /// A plain copy of the value (a composed one is built without keeping its plain form).
    pub fn to_json(&self) -> Json {
        match &*self.0 {
            Node::Plain(json) => json.clone(),
            Node::Arc(json) => (**json).clone(),
            Node::Constant(constant) => constant.json.clone(),
            Node::Composed(composed) => composed.to_json(),
        }
    }

    /// The value as plain JSON to change in place (a composed value becomes plain first; a
    /// shared plain one is copied, as `Arc::make_mut` does).
    pub fn make_mut(&mut self) -> &mut Json {
        if !matches!(Arc::get_mut(&mut self.0), Some(Node::Plain(_))) {
            self.0 = Arc::new(Node::Plain(self.to_json()));
        }
        match Arc::get_mut(&mut self.0) {
            Some(Node::Plain(json)) => json,
            _ => unreachable!("made a plain value of its own above"),
        }
    }
}

impl Composed {
    fn to_json(&self) -> Json {
        match self.plain.get() {
            Some(plain) => (**plain).clone(),
            None => self.parts.build(),
        }
    }
}

impl Parts {
    /// The plain form (children's plain forms are built, not kept).
    fn build(&self) -> Json {
        match self {
            Parts::Object(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for (key, value) in entries {
                    map.insert(key.to_string(), value.view().to_json());
                }
                Json::Object(map)
            }
            Parts::Array(items) => Json::Array(items.iter().map(SharedJson::to_json).collect()),
        }
    }
}

impl Deref for SharedJson {
    type Target = Json;

    fn deref(&self) -> &Json {
        match &*self.0 {
            Node::Plain(json) => json,
            Node::Arc(json) => json,
            Node::Constant(constant) => &constant.json,
            Node::Composed(composed) => composed
                .plain
                .get_or_init(|| Box::new(composed.parts.build())),
        }
    }
}

impl From<Json> for SharedJson {
    fn from(json: Json) -> SharedJson {
        SharedJson::new(json)
    }
}

/// Shares the `Arc`'s JSON (not copied; [`SharedJson::ptr_eq`] sees through to the `Arc`).
impl From<Arc<Json>> for SharedJson {
    fn from(json: Arc<Json>) -> SharedJson {
        SharedJson(Arc::new(Node::Arc(json)))
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

/// JSON equality (objects as maps), read in place; the same value is equal at once.
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

/// Comparisons with scalars, as `serde_json::Value` has them (a composed value is no scalar).
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
            Node::Plain(json) => json.serialize(serializer),
            Node::Arc(json) => json.serialize(serializer),
            Node::Constant(constant) => constant.json.serialize(serializer),
            Node::Composed(composed) => match &composed.parts {
                Parts::Object(entries) => {
                    serializer.collect_map(entries.iter().map(|(k, v)| (&**k, v.view())))
                }
                Parts::Array(items) => serializer.collect_seq(items),
            },
        }
    }
}

impl<'de> serde::Deserialize<'de> for SharedJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SharedJson, D::Error> {
        Json::deserialize(deserializer).map(SharedJson::new)
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

/// A part of a value, read in place: inside plain JSON, or a shared value (plain or composed).
#[derive(Clone, Copy)]
pub enum JsonRef<'a> {
    Plain(&'a Json),
    Shared(&'a SharedJson),
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

impl<'a> JsonRef<'a> {
    /// The plain JSON of this part, when it is plain (`None` for a composed value).
    pub fn plain(self) -> Option<&'a Json> {
        match self {
            JsonRef::Plain(json) => Some(json),
            JsonRef::Shared(shared) => shared.as_plain(),
        }
    }

    fn parts(self) -> Option<&'a Parts> {
        match self {
            JsonRef::Shared(shared) => match &*shared.0 {
                Node::Composed(composed) => Some(&composed.parts),
                _ => None,
            },
            _ => None,
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
            None => plain_field(self.plain()?.as_object()?, key).map(JsonRef::Plain),
        }
    }

    /// The entry at a path of keys.
    pub fn at(self, keys: &[&str]) -> Option<JsonRef<'a>> {
        keys.iter().try_fold(self, |v, key| v.get(key))
    }

    /// The entry at a path of shared keys (a compiled expression's).
    pub fn at_keys(self, keys: &[Arc<str>]) -> Option<JsonRef<'a>> {
        keys.iter().try_fold(self, |v, key| v.get(key))
    }

    /// An object's entries in order (`None` when this is not an object).
    pub fn entries(self) -> Option<impl Iterator<Item = (&'a str, JsonRef<'a>)>> {
        enum Entries<'a> {
            Plain(serde_json::map::Iter<'a>),
            Shared(std::slice::Iter<'a, (Key, Entry)>),
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
        match self.parts() {
            Some(Parts::Object(entries)) => Some(Entries::Shared(entries.iter())),
            Some(Parts::Array(_)) => None,
            None => Some(Entries::Plain(self.plain()?.as_object()?.iter())),
        }
    }

    /// An array's items in order (`None` when this is not an array).
    pub fn items(self) -> Option<Items<'a>> {
        match self.parts() {
            Some(Parts::Array(items)) => Some(Items::Shared(items.iter())),
            Some(Parts::Object(_)) => None,
            None => Some(Items::Plain(self.plain()?.as_array()?.iter())),
        }
    }

    /// The number of entries of an object or items of an array.
    pub fn len(self) -> Option<usize> {
        match self.parts() {
            Some(Parts::Object(entries)) => Some(entries.len()),
            Some(Parts::Array(items)) => Some(items.len()),
            None => match self.plain()? {
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
            Some(parts) => matches!(parts, Parts::Object(_)),
            None => self.plain().is_some_and(Json::is_object),
        }
    }

    pub fn is_array(self) -> bool {
        match self.parts() {
            Some(parts) => matches!(parts, Parts::Array(_)),
            None => self.plain().is_some_and(Json::is_array),
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

    /// Whether every number in this part is a 64-bit signed integer, read in place. A composed
    /// node keeps its answer (its parts never change), so a value built out of earlier ones is
    /// walked only where it is new.
    pub fn numbers_are_i64(self) -> bool {
        fn plain(json: &Json) -> bool {
            match json {
                Json::Number(n) => n.is_i64(),
                Json::Array(items) => items.iter().all(plain),
                Json::Object(map) => map.values().all(plain),
                Json::Null | Json::Bool(_) | Json::String(_) => true,
            }
        }
        match self {
            JsonRef::Plain(json) => plain(json),
            JsonRef::Shared(shared) => match &*shared.0 {
                Node::Plain(json) => plain(json),
                Node::Arc(json) => plain(json),
                Node::Constant(constant) => plain(&constant.json),
                Node::Composed(composed) => {
                    *composed.numbers_i64.get_or_init(|| match &composed.parts {
                        Parts::Object(entries) => {
                            entries.iter().all(|(_, v)| v.view().numbers_are_i64())
                        }
                        Parts::Array(items) => items.iter().all(|v| v.view().numbers_are_i64()),
                    })
                }
            },
        }
    }
}

/// An array's items, read in place.
pub enum Items<'a> {
    Plain(std::slice::Iter<'a, Json>),
    Shared(std::slice::Iter<'a, SharedJson>),
}

impl<'a> Iterator for Items<'a> {
    type Item = JsonRef<'a>;

    fn next(&mut self) -> Option<JsonRef<'a>> {
        match self {
            Items::Plain(it) => it.next().map(JsonRef::Plain),
            Items::Shared(it) => it.next().map(JsonRef::Shared),
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
            Items::Shared(it) => it.next_back().map(JsonRef::Shared),
        }
    }
}

impl ExactSizeIterator for Items<'_> {}

/// JSON equality (objects as maps, numbers as `serde_json` compares them), in place.
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
            if !b.is_object() || a.len() != b.len() {
                return false;
            }
            let Some(mut entries) = a.entries() else {
                return false;
            };
            return entries.all(|(key, value)| b.get(key).is_some_and(|other| value == other));
        }
        if a.is_array() {
            if !b.is_array() || a.len() != b.len() {
                return false;
            }
            let (Some(x), Some(y)) = (a.items(), b.items()) else {
                return false;
            };
            return x.zip(y).all(|(x, y)| x == y);
        }
        // A plain scalar against a composed value.
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
        let mut conversation = SharedObject::new();
        conversation.insert_plain("type", json!("in-process"));
        conversation.insert("messages", messages);
        let mut context = SharedObject::new();
        context.insert_plain("state", json!("READY"));
        context.insert("toolDefinitions", tools);
        context.insert("conversation", conversation);
        context.into()
    }

    #[test]
    fn a_composed_value_reads_in_place_and_as_plain_json() {
        let c = context();
        assert!(c.is_composed());
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
        // Equality in place (before the plain form exists), then through Deref, same order.
        assert_eq!(c, plain);
        assert_eq!(*c, plain);
        assert_eq!(c.to_string(), plain.to_string());
        assert_eq!(serde_json::to_string(&c).unwrap(), plain.to_string());
    }

    #[test]
    fn equality_compares_objects_as_maps_and_shares_parts() {
        let a = context();
        let b = a.clone();
        assert!(a.ptr_eq(&b));
        let tools = a.view().get("toolDefinitions").unwrap().to_shared();
        let mut other = SharedObject::new();
        other.insert("toolDefinitions", tools.clone());
        assert!(tools.ptr_eq(&a.view().get("toolDefinitions").unwrap().to_shared()));
        let other: SharedJson = other.into();
        assert_ne!(a, other);
        let mut reordered = SharedObject::new();
        reordered.insert("b", json!(2));
        reordered.insert("a", json!(1));
        let reordered: SharedJson = reordered.into();
        assert_eq!(reordered, json!({"a": 1, "b": 2}));
        assert_ne!(reordered, json!({"a": 1, "b": 3}));
        assert_ne!(reordered, json!([1, 2]));
        let mut replaced = SharedObject::new();
        replaced.insert("a", json!(1));
        replaced.insert("b", json!(2));
        replaced.insert("a", json!(3));
        assert_eq!(SharedJson::from(replaced).to_string(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn a_composed_node_is_no_larger_than_a_plain_one() {
        // The composed parts live in the node (no allocation of their own), yet a plain value's
        // allocation is no larger for them than an `Arc<Json>`'s.
        assert_eq!(std::mem::size_of::<Node>(), std::mem::size_of::<Json>());
    }

    #[test]
    fn values_of_one_arc_are_the_same_value() {
        let elements = Arc::new(json!([{"elementId": "a"}]));
        let a = SharedJson::from(elements.clone());
        let b = SharedJson::from(elements);
        assert!(a.ptr_eq(&b));
        assert!(!a.ptr_eq(&SharedJson::new(json!([{"elementId": "a"}]))));
        assert_eq!(a, SharedJson::new(json!([{"elementId": "a"}])));
        let mut c = a.clone();
        c.make_mut()[0]["elementId"] = json!("b");
        assert_eq!(a[0]["elementId"], json!("a"));
        assert_eq!(c.into_json(), json!([{"elementId": "b"}]));
    }

    #[test]
    fn a_constant_keeps_what_is_derived_from_it_for_every_clone() {
        let elements = SharedJson::constant(json!([{"elementId": "a"}]));
        let clone = elements.clone();
        assert!(elements.ptr_eq(&clone));
        assert_eq!(elements, json!([{"elementId": "a"}]));
        assert!(clone.kept::<String>().is_none());
        assert!(elements.keep(Arc::new("tools of a".to_string())));
        assert!(!elements.keep(Arc::new("again".to_string())));
        assert_eq!(
            clone.kept::<String>().as_deref().map(String::as_str),
            Some("tools of a")
        );
        assert!(clone.kept::<u32>().is_none());
        // Equal values elsewhere keep nothing.
        let plain = SharedJson::new(json!([{"elementId": "a"}]));
        assert!(!plain.keep(Arc::new(1u32)));
        assert!(plain.kept::<u32>().is_none());
    }

    #[test]
    fn make_mut_turns_a_composed_value_plain() {
        let mut c = context();
        c.make_mut()["state"] = json!("DONE");
        assert!(!c.is_composed());
        assert_eq!(c["state"], json!("DONE"));
        assert_eq!(c["conversation"]["messages"][0]["content"], json!("hi"));
    }
}
