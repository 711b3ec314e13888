//! What an evaluation reads from outside: variables, the clock, limits.

use indexmap::IndexMap;

use crate::value::Value;

/// Where variables come from. The engine implements this over its scope chain.
pub trait Variables {
    /// The value of a variable, or `None` if there is no such variable.
    fn get(&self, name: &str) -> Option<Value>;

    /// The value at the path `name.keys[0].keys[1]…` when the variable and each key along it
    /// is a context entry, without converting the rest of the variable (`order.customer.name`
    /// of a large JSON `order` converts one string). `None` when it cannot answer so (the
    /// default): the evaluator then uses [`Variables::get`] and walks the value itself, with
    /// FEEL's rules for missing entries, lists and properties.
    fn get_entry(&self, name: &str, keys: &[&str]) -> Option<Value> {
        let _ = (name, keys);
        None
    }
}

impl Variables for () {
    fn get(&self, _: &str) -> Option<Value> {
        None
    }
}

impl Variables for IndexMap<String, Value> {
    fn get(&self, name: &str) -> Option<Value> {
        IndexMap::get(self, name).cloned()
    }
}

/// A FEEL context as variables (e.g. a decision's input data).
pub struct ContextVars<'c>(pub &'c crate::value::Context);

impl Variables for ContextVars<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        self.0.get(name).cloned()
    }
}

impl Variables for std::collections::BTreeMap<String, Value> {
    fn get(&self, name: &str) -> Option<Value> {
        std::collections::BTreeMap::get(self, name).cloned()
    }
}

impl Variables for serde_json::Map<String, serde_json::Value> {
    /// Converts on lookup with Zeebe's rules ([`Value::from_json`]).
    fn get(&self, name: &str) -> Option<Value> {
        json_get(self, name).map(Value::from_json)
    }

    /// Walks the JSON objects and converts only the value at the end.
    fn get_entry(&self, name: &str, keys: &[&str]) -> Option<Value> {
        json_entry(json_get(self, name)?, keys)
    }
}

/// An entry of a JSON object; a small one is scanned rather than hashed (SipHash costs more
/// than comparing a few short keys).
fn json_get<'j>(
    map: &'j serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'j serde_json::Value> {
    if map.len() <= 8 {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// The FEEL value at `keys` inside a JSON value, if each step is an object entry: what
/// [`Variables::get_entry`] answers for variables held as JSON.
pub fn json_entry(json: &serde_json::Value, keys: &[&str]) -> Option<Value> {
    let mut at = json;
    for key in keys {
        at = json_get(at.as_object()?, key)?;
    }
    Some(Value::from_json(at))
}

impl<V: Variables + ?Sized> Variables for &V {
    fn get(&self, name: &str) -> Option<Value> {
        (**self).get(name)
    }

    fn get_entry(&self, name: &str, keys: &[&str]) -> Option<Value> {
        (**self).get_entry(name, keys)
    }
}

/// Remembers what another [`Variables`] answered, so that a variable used several times in one
/// evaluation (`order.total > 100 and order.country = "DE"`) is looked up and converted once.
/// Make one per evaluation: it does not see later changes of the variables.
pub struct CachedVars<V> {
    inner: V,
    cache: std::cell::RefCell<Vec<(Box<str>, Option<Value>)>>,
}

impl<V: Variables> CachedVars<V> {
    /// Wraps `inner`.
    pub fn new(inner: V) -> Self {
        CachedVars {
            inner,
            cache: std::cell::RefCell::new(Vec::new()),
        }
    }
}

impl<V: Variables> Variables for CachedVars<V> {
    fn get(&self, name: &str) -> Option<Value> {
        if let Some((_, v)) = self.cache.borrow().iter().find(|(n, _)| n.as_ref() == name) {
            return v.clone();
        }
        let v = self.inner.get(name);
        self.cache.borrow_mut().push((name.into(), v.clone()));
        v
    }

    /// Answered by the cached variable when there is one, else by the inner variables.
    fn get_entry(&self, name: &str, keys: &[&str]) -> Option<Value> {
        if self.cache.borrow().iter().any(|(n, _)| n.as_ref() == name) {
            return None;
        }
        self.inner.get_entry(name, keys)
    }
}

/// Variables answered by a closure: `VarsFn(|name| ...)`.
pub struct VarsFn<F>(pub F);

impl<F: Fn(&str) -> Option<Value>> Variables for VarsFn<F> {
    fn get(&self, name: &str) -> Option<Value> {
        (self.0)(name)
    }
}

/// Limits that turn runaway expressions into a failure instead of a crash, a hang or an
/// exhausted memory. This is the one list of them.
///
/// Parsing (fixed, a [`ParseError`](crate::ParseError) with the position):
/// - rules nested deeper than 96 (`((((…`, `[[[[…`, `if … then if …`): "the expression is
///   nested deeper than 96 levels";
/// - a syntax tree higher than 1,000 nodes (`a or a or …`, `x.a.a…`, `- - - … x`): "the
///   expression is nested deeper than 1000 levels"; evaluation, analyses and drop recurse at most
///   this deep;
/// - more than 64 parse steps per byte plus 10,000 (backtracking): "the expression takes more
///   than N steps to parse".
///
/// Evaluation (these fields; a [`Failure`](crate::Failure) `failed to evaluate expression '…':
/// …`, as feel-scala words failures): nesting, steps, list items and context entries, bytes of
/// strings. The defaults run every case of feel-scala's own tests (one counts a list of 1,000,001
/// items) and every process of the real-project corpus, and keep one evaluation under about a
/// second and 100 MB.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Nesting of evaluation (function calls, nested expressions; `context put` keys, results
    /// holding `partial`): "the evaluation is nested deeper than N levels". Default 200.
    pub max_depth: usize,
    /// Nodes evaluated plus items that built-in functions visit (every item of a list argument,
    /// a step per 64 bytes of a string argument, a step per 4 comparisons of items with each
    /// other in `distinct values`, `union`, `duplicate values` and `mode`) plus the work of
    /// regexes (`matches`, `replace`, `split`, `extract`: compiling, and each search charged
    /// before it runs with an upper bound of its work): "the evaluation took more than N steps",
    /// for a search "(a search with the pattern '…' counts up to N of them)". One budget for
    /// the whole evaluation: a million searches, each bounded, are not. Default 10,000,000
    /// (about 0.2 s of work in a release build).
    pub max_steps: usize,
    /// List items and context entries one list, range or context may have ("the result would
    /// have N items, more than the limit of M"), and that the whole evaluation may build ("the
    /// evaluation built more than N list items and context entries"). Default 2,000,000.
    pub max_items: usize,
    /// Bytes one string built by an operator or function may have ("the string would be N bytes
    /// long, more than the limit of M"), and that the whole evaluation may build in strings
    /// ("the evaluation built more than N bytes of strings"). Default 4 MiB.
    pub max_string_len: usize,
    /// Warnings (suppressed failures) one evaluation keeps: the first N in evaluation order,
    /// then one more saying how many it left out. An evaluation that warns on every item of a
    /// long list would otherwise keep a message per item. Default 1,000. The message of a
    /// warning left out is never written, and a message shows a value (or a list of keys) up to
    /// its first 1,000 bytes, then `…` (fixed).
    pub max_warnings: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 200,
            max_steps: 10_000_000,
            max_items: 2_000_000,
            max_string_len: 4 * 1024 * 1024,
            max_warnings: 1_000,
        }
    }
}

/// The environment of an evaluation: the clock for `now()`/`today()` and the limits.
#[derive(Clone, Debug)]
pub struct Env {
    /// What `now()` returns (`today()` is its date).
    pub now: jiff::ZonedDateTime,
    /// Runaway limits.
    pub limits: Limits,
    /// Seed of the deterministic generator behind `random number()` and `uuid()`.
    pub seed: u64,
}

impl Default for Env {
    /// 1970-01-01T00:00:00Z in UTC, default limits.
    fn default() -> Env {
        Env {
            now: jiff::Timestamp::UNIX_EPOCH.to_zoned_datetime(jiff::tz::TimeZone::UTC),
            limits: Limits::default(),
            seed: 0,
        }
    }
}

impl Env {
    /// An environment whose clock reads `now`.
    pub fn at(now: jiff::ZonedDateTime) -> Env {
        Env {
            now,
            ..Env::default()
        }
    }
}
