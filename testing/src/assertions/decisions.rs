//! Checks of decision evaluations: by the instance (or one it called), or anywhere in the engine.

use baton_engine::runtime::Engine;
use serde_json::Value;

use super::{AssertionFailure, Outcome, Subject};
use crate::variables::short;

/// What a decision evaluation must show; unset fields are not checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecisionExpectation {
    pub output: Option<Value>,
    /// 1-based indexes of rules that matched (all of them must have matched).
    pub matched_rules: Option<Vec<u32>>,
    /// Rules that must not have matched.
    pub not_matched_rules: Option<Vec<u32>>,
    /// No rule matched.
    pub no_matched_rules: bool,
}

impl<'a> Subject<'a> {
    pub(super) fn check_decision(&self, decision_id: &str, e: &DecisionExpectation) -> Outcome {
        let family = self.history.descendants(self.instance);
        let evaluation = self.engine.records().iter().find_map(|r| match &r.value {
            baton_engine::runtime::RecordValue::DecisionEvaluation(d)
                if &*d.decision_id == decision_id
                    && d.process_instance_key
                        .is_none_or(|k| k == self.instance || family.contains(&k)) =>
            {
                Some(&**d)
            }
            _ => None,
        });
        compare_decision(decision_id, evaluation, e)
    }
}

/// Checks the first evaluation of a decision anywhere in the engine (standalone or by a
/// business rule task), as CPT's `ASSERT_DECISION` does; the explanation lists the decisions
/// evaluated.
pub fn check_decision(
    engine: &Engine,
    decision_id: &str,
    expected: &DecisionExpectation,
) -> Result<(), AssertionFailure> {
    let evaluations: Vec<&baton_engine::runtime::records::DecisionValue> = engine
        .records()
        .iter()
        .filter_map(|r| match &r.value {
            baton_engine::runtime::RecordValue::DecisionEvaluation(d) => Some(&**d),
            _ => None,
        })
        .collect();
    let first = evaluations
        .iter()
        .copied()
        .find(|d| &*d.decision_id == decision_id);
    compare_decision(decision_id, first, expected).map_err(|(expected, actual)| {
        let mut explanation = String::from("decisions evaluated:");
        if evaluations.is_empty() {
            explanation.push_str(" none");
        }
        for d in &evaluations {
            explanation.push_str(&format!(
                "\n  {} → {}",
                d.decision_id,
                match &d.failure_message {
                    Some(f) => format!("failed: {f}"),
                    None => format!(
                        "{} (matched rules {:?})",
                        short(&d.output, 80),
                        d.matched_rules
                    ),
                }
            ));
        }
        AssertionFailure {
            expected,
            actual,
            explanation,
        }
    })
}

/// Compares a decision evaluation (if there is one) with what is expected.
fn compare_decision(
    decision_id: &str,
    evaluation: Option<&baton_engine::runtime::records::DecisionValue>,
    e: &DecisionExpectation,
) -> Outcome {
    {
        let mut want = Vec::new();
        if let Some(o) = &e.output {
            want.push(format!("output {}", short(o, 80)));
        }
        if let Some(m) = &e.matched_rules {
            want.push(format!("matched rules {m:?}"));
        }
        if let Some(m) = &e.not_matched_rules {
            want.push(format!("rules {m:?} not matched"));
        }
        if e.no_matched_rules {
            want.push("no matched rule".to_owned());
        }
        let want_text = if want.is_empty() {
            format!("decision \"{decision_id}\" to be evaluated")
        } else {
            format!(
                "decision \"{decision_id}\" to be evaluated with {}",
                want.join(", ")
            )
        };
        let Some(d) = evaluation else {
            return Err((want_text, "it was not evaluated".into()));
        };
        let mut diffs = Vec::new();
        if let Some(failure) = &d.failure_message {
            diffs.push(format!("its evaluation failed: {failure}"));
        }
        if let Some(o) = &e.output
            && !crate::variables::json_equal(o, &d.output)
        {
            diffs.push(format!("its output is {}", short(&d.output, 80)));
        }
        if let Some(m) = &e.matched_rules
            && !m.iter().all(|r| d.matched_rules.contains(r))
        {
            diffs.push(format!("the matched rules are {:?}", d.matched_rules));
        }
        if let Some(m) = &e.not_matched_rules
            && m.iter().any(|r| d.matched_rules.contains(r))
        {
            diffs.push(format!("the matched rules are {:?}", d.matched_rules));
        }
        if e.no_matched_rules && !d.matched_rules.is_empty() {
            diffs.push(format!("the matched rules are {:?}", d.matched_rules));
        }
        if diffs.is_empty() {
            Ok(())
        } else {
            Err((want_text, diffs.join(", ")))
        }
    }
}
