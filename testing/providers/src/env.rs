//! Where credentials and base URLs come from: the environment variables each provider's own SDK
//! reads, behind a trait so that tests hand in a map and never touch the process environment.

use std::collections::BTreeMap;

/// Environment variables by name.
pub trait Environment {
    /// The variable's value; `None` when it is unset or empty (an empty key is no key).
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnvironment;

impl Environment for ProcessEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.trim().is_empty())
    }
}

/// A fixed set of variables (tests, and callers that read their settings elsewhere).
#[derive(Debug, Clone, Default)]
pub struct MapEnvironment(pub BTreeMap<String, String>);

impl MapEnvironment {
    pub fn new<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> MapEnvironment {
        MapEnvironment(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl Environment for MapEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        self.0.get(name).filter(|v| !v.trim().is_empty()).cloned()
    }
}

/// The first of `names` that is set, with its name.
pub(crate) fn first_of(env: &dyn Environment, names: &[&str]) -> Option<(String, String)> {
    names
        .iter()
        .find_map(|name| env.var(name).map(|value| (name.to_string(), value)))
}
