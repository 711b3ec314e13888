//! Checks of variables by scope: names that exist, values (exact or partial), FEEL conditions.

use baton_engine::runtime::Key;
use serde_json::{Map, Value};

use super::{ElementSelector, Outcome, Subject, quoted};
use crate::history::ElementEventKind;
use crate::variables::{Matching, mismatches, short};

/// Where variables are looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariableScope {
    /// The process instance's own variables (local variables of elements are ignored).
    Root,
    /// The local variables of the first instance of an element.
    Local(ElementSelector),
    /// The local variables of one element instance (a scope found by other means), named in
    /// messages by `what` (`local variables of inner instance [...]`).
    Instance { key: Key, what: String },
}

impl<'a> Subject<'a> {
    /// The scope key and a description of a variable scope, or why there is none.
    fn scope(&self, scope: &VariableScope) -> (Result<Key, String>, String) {
        match scope {
            VariableScope::Root => (Ok(self.instance), "variables".into()),
            VariableScope::Local(sel) => {
                let ids = self.ids(sel);
                let first = self.log().and_then(|l| {
                    l.events.iter().find(|e| {
                        e.kind == ElementEventKind::Activated && ids.contains(&e.element_id)
                    })
                });
                let what = format!("local variables of {}", sel.describe());
                match first {
                    Some(e) => (Ok(e.key), what),
                    None => (Err(format!("{} has no instance", sel.describe())), what),
                }
            }
            VariableScope::Instance { key, what } => (Ok(*key), what.clone()),
        }
    }

    pub(super) fn check_variable_names(&self, scope: &VariableScope, names: &[String]) -> Outcome {
        let (key, what) = self.scope(scope);
        let key = key.map_err(|m| {
            (
                format!("{} to have {what} {}", self.who(), quoted(names)),
                m,
            )
        })?;
        let vars = self.history.scope_variables(key);
        let missing: Vec<&String> = names
            .iter()
            .filter(|n| vars.is_none_or(|v| !v.contains_key(n.as_str())))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err((
            format!("{} to have {what} {}", self.who(), quoted(names)),
            format!(
                "{} {} not exist",
                quoted(&missing),
                if missing.len() == 1 { "does" } else { "do" }
            ),
        ))
    }

    pub(super) fn check_variables(
        &self,
        scope: &VariableScope,
        expected: &Map<String, Value>,
        matching: Matching,
    ) -> Outcome {
        let want_text = || {
            expected
                .iter()
                .map(|(k, v)| format!("{k} = {}", short(v, 60)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let verb = match matching {
            Matching::Exact => "to be",
            Matching::Partial => "to match",
        };
        let (key, what) = self.scope(scope);
        let key = key.map_err(|m| (format!("{} {what} {verb} {}", self.who(), want_text()), m))?;
        let vars = self.history.scope_variables(key);
        let mut problems = Vec::new();
        for (name, want) in expected {
            match vars.and_then(|v| v.get(name.as_str())) {
                None => problems.push(format!("{name} does not exist")),
                Some(actual) => {
                    for m in mismatches(want, actual, matching) {
                        let path = if m.path.is_empty() {
                            name.clone()
                        } else {
                            format!("{name}.{}", m.path)
                        };
                        let line = match (&m.expected, &m.actual) {
                            (Some(e), Some(a)) => {
                                format!("{path} is {}, not {}", short(a, 80), short(e, 80))
                            }
                            (Some(e), None) => {
                                format!("{path} is missing (expected {})", short(e, 80))
                            }
                            (None, Some(a)) => {
                                format!("{path} is {}, which was not expected", short(a, 80))
                            }
                            (None, None) => path,
                        };
                        problems.push(line);
                    }
                }
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        Err((
            format!("{} {what} {verb} {}", self.who(), want_text()),
            problems.join("\n         "),
        ))
    }

    pub(super) fn check_variable_satisfies(
        &self,
        scope: &VariableScope,
        name: &str,
        expression: &str,
    ) -> Outcome {
        let (key, what) = self.scope(scope);
        let what = what.replace("variables", "variable");
        let want = format!(
            "{} {what} \"{name}\" to satisfy the expression {expression}",
            self.who()
        );
        let key = key.map_err(|m| (want.clone(), m))?;
        let Some(value) = self.history.scope_variables(key).and_then(|v| v.get(name)) else {
            return Err((want, format!("\"{name}\" does not exist")));
        };
        let parsed = baton_feel::Expression::parse(expression).map_err(|e| {
            (
                want.clone(),
                format!("the expression is not valid FEEL: {e}"),
            )
        })?;
        let mut context = Map::new();
        context.insert(name.to_owned(), (**value).clone());
        let now = jiff::Timestamp::from_millisecond(self.engine.now())
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let evaluation = parsed.evaluate(&context, &baton_feel::Env::at(now));
        match evaluation.result {
            Ok(baton_feel::Value::Boolean(true)) => Ok(()),
            Ok(other) => {
                let mut actual = format!(
                    "it is {} and the expression gives {other}",
                    short(value, 80)
                );
                for w in &evaluation.warnings {
                    actual.push_str(&format!("\n         ({w})"));
                }
                Err((want, actual))
            }
            Err(failure) => Err((
                want,
                format!(
                    "it is {} and the expression fails: {failure}",
                    short(value, 80)
                ),
            )),
        }
    }
}
