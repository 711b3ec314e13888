//! `--compare`: two runs of the same cases side by side (baton's engine, and the endpoint),
//! case by case: where the observable outcomes differ (the outcome, the process instances with
//! their element instances and states in order, the path, the variables by scope, incidents,
//! user tasks), as text and JSON. Keys and times never count (instances and scopes are named by
//! their place); a read side that needed more reads to settle is listed as normalised, not as a
//! difference.

use std::collections::BTreeSet;

use baton_cpt::Outcome;
use serde::Serialize;
use serde_json::Value;

use crate::runner::{CaseObservation, Observation};

/// What keys and times are replaced by, said once per case.
const NORMALISED_KEYS: &str = "keys and times: instances and variable scopes compared by their place, dates left out, keys and times inside variable values read as <key> and <time>";

/// One case compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseComparison {
    pub title: String,
    /// Where the two differ (empty: the same).
    pub differences: Vec<String>,
    /// What was normalised away before comparing.
    pub normalised: Vec<String>,
}

fn outcome_word(o: &Outcome) -> String {
    match o {
        Outcome::Passed => "passed".into(),
        Outcome::Failed(f) => format!("failed ({})", f.message.lines().next().unwrap_or_default()),
        Outcome::Skipped { .. } => "skipped".into(),
    }
}

/// The cases of `reference` (baton) and `other` (the endpoint) compared, matched by title.
pub fn compare(reference: &[CaseObservation], other: &[CaseObservation]) -> Vec<CaseComparison> {
    let mut out = Vec::with_capacity(reference.len());
    for r in reference {
        let mut differences = Vec::new();
        let mut normalised = vec![NORMALISED_KEYS.to_owned()];
        let Some(o) = other.iter().find(|o| o.title == r.title) else {
            out.push(CaseComparison {
                title: r.title.clone(),
                differences: vec!["the endpoint did not run this case".into()],
                normalised: Vec::new(),
            });
            continue;
        };
        if std::mem::discriminant(&r.outcome) != std::mem::discriminant(&o.outcome) {
            differences.push(format!(
                "outcome: baton {}, the endpoint {}",
                outcome_word(&r.outcome),
                outcome_word(&o.outcome)
            ));
        }
        match (&r.observation, &o.observation) {
            (Ok(a), Ok(b)) => {
                observations(a, b, &mut differences);
                if b.reads > a.reads {
                    normalised.push(format!(
                        "eventual consistency: the endpoint's searches settled after {} reads (baton's after {})",
                        b.reads, a.reads
                    ));
                }
            }
            (Err(e), _) => differences.push(format!("baton's run could not be read: {e}")),
            (_, Err(e)) => differences.push(format!("the endpoint's run could not be read: {e}")),
        }
        out.push(CaseComparison {
            title: r.title.clone(),
            differences,
            normalised,
        });
    }
    out
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

fn observations(a: &Observation, b: &Observation, differences: &mut Vec<String>) {
    if a.instances.len() != b.instances.len() {
        differences.push(format!(
            "process instances: baton {} ({}), the endpoint {} ({})",
            a.instances.len(),
            list(
                &a.instances
                    .iter()
                    .map(|i| i.process.clone())
                    .collect::<Vec<_>>()
            ),
            b.instances.len(),
            list(
                &b.instances
                    .iter()
                    .map(|i| i.process.clone())
                    .collect::<Vec<_>>()
            ),
        ));
    }
    for (n, (x, y)) in a.instances.iter().zip(&b.instances).enumerate() {
        let at = format!("instance {} (\"{}\")", n + 1, x.process);
        let mut field = |name: &str, l: String, r: String| {
            if l != r {
                differences.push(format!("{at} {name}: baton {l}; the endpoint {r}"));
            }
        };
        field("process", x.process.clone(), y.process.clone());
        field("state", x.state.clone(), y.state.clone());
        field(
            "parent",
            format!("{:?}", x.parent),
            format!("{:?}", y.parent),
        );
        field("element instances", list(&x.elements), list(&y.elements));
        field("path", list(&x.path), list(&y.path));
        let scopes: BTreeSet<&String> = x.variables.keys().chain(y.variables.keys()).collect();
        for scope in scopes {
            let empty = Default::default();
            let l = x.variables.get(scope).unwrap_or(&empty);
            let r = y.variables.get(scope).unwrap_or(&empty);
            let names: BTreeSet<&String> = l.keys().chain(r.keys()).collect();
            for name in names {
                let show = |v: Option<&Value>| v.map_or("absent".to_owned(), Value::to_string);
                let (lv, rv) = (l.get(name), r.get(name));
                if lv != rv {
                    differences.push(format!(
                        "{at} variable \"{name}\" in {scope}: baton {}; the endpoint {}",
                        show(lv),
                        show(rv)
                    ));
                }
            }
        }
    }
    if a.user_tasks != b.user_tasks {
        differences.push(format!(
            "user tasks: baton {}; the endpoint {}",
            list(&a.user_tasks),
            list(&b.user_tasks)
        ));
    }
    if a.incidents != b.incidents {
        differences.push(format!(
            "incidents: baton {}; the endpoint {}",
            list(&a.incidents),
            list(&b.incidents)
        ));
    }
}

/// The comparison as `baton test --compare` prints it.
pub fn comparison_text(cases: &[CaseComparison]) -> String {
    let mut out = String::new();
    let differing = cases.iter().filter(|c| !c.differences.is_empty()).count();
    for c in cases {
        if c.differences.is_empty() {
            out.push_str(&format!("same    {}\n", c.title));
        } else {
            out.push_str(&format!("DIFFERS {}\n", c.title));
            for d in &c.differences {
                out.push_str(&format!("    {d}\n"));
            }
        }
    }
    out.push_str(&format!(
        "{} case{} compared with baton, {differing} differ{}; normalised: {NORMALISED_KEYS}\n",
        cases.len(),
        if cases.len() == 1 { "" } else { "s" },
        if differing == 1 { "s" } else { "" },
    ));
    out
}

/// The comparison as JSON: `{cases: [{title, differences, normalised}], differing}`.
pub fn comparison_json(cases: &[CaseComparison]) -> Value {
    serde_json::json!({
        "cases": cases,
        "differing": cases.iter().filter(|c| !c.differences.is_empty()).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::ObservedInstance;

    fn observed(state: &str, value: i64) -> CaseObservation {
        CaseObservation {
            title: "f › c".into(),
            outcome: Outcome::Passed,
            observation: Ok(Observation {
                instances: vec![ObservedInstance {
                    process: "order".into(),
                    state: state.into(),
                    parent: None,
                    elements: vec!["start COMPLETED".into(), "charge ACTIVE".into()],
                    path: vec!["start".into()],
                    variables: [(
                        "process".to_owned(),
                        [("amount".to_owned(), serde_json::json!(value))].into(),
                    )]
                    .into(),
                }],
                user_tasks: Vec::new(),
                incidents: Vec::new(),
                reads: 2,
            }),
        }
    }

    #[test]
    fn differences_are_named_and_keys_are_not() {
        let same = compare(&[observed("ACTIVE", 1)], &[observed("ACTIVE", 1)]);
        assert_eq!(same[0].differences, Vec::<String>::new());
        let differs = compare(&[observed("ACTIVE", 1)], &[observed("COMPLETED", 2)]);
        insta::assert_snapshot!(comparison_text(&differs), @r#"
        DIFFERS f › c
            instance 1 ("order") state: baton ACTIVE; the endpoint COMPLETED
            instance 1 ("order") variable "amount" in process: baton 1; the endpoint 2
        1 case compared with baton, 1 differs; normalised: keys and times: instances and variable scopes compared by their place, dates left out, keys and times inside variable values read as <key> and <time>
        "#);
    }
}
