//! Side effects of job workers, and the ledger that keeps them like the outside world does.
//!
//! A mocked worker can declare that it acts on the outside world (creates a ticket, sends an
//! e-mail) with an idempotency key: a FEEL expression over the job's variables, or the job key.
//! Each time it completes a job (and each time it does the work and then crashes) the side
//! effect reaches the [`Ledger`]. The ledger belongs to the test, not to the engine: it outlives
//! crashes and restarts from a snapshot, as the external system it stands for would, so that a
//! two-run recovery test asserts on the combined result.
//!
//! An outside world that honours idempotency keys ([`DeclaredSideEffect::deduplicated`]) does
//! nothing for a key it has seen: the trace shows the request, the ledger keeps one entry.

use std::fmt;

use baton_engine::runtime::Key;
use serde_json::Value;

use crate::mocks::Times;
pub use crate::mocks::{DeclaredSideEffect, IdempotencyKey, SideEffectError};
use crate::trace::SideEffect;

/// One side effect the outside world received.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    pub effect: SideEffect,
    pub process_instance_key: Key,
    /// When it happened, epoch milliseconds.
    pub at_ms: i64,
    /// Which run of the test did it: 1, then one more after each restart from a snapshot.
    pub run: u32,
    /// The elements completed in its root instance before it happened.
    pub completed_before: Vec<String>,
}

impl fmt::Display for LedgerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key {} at {} (job {}, activation {}, run {}) at {}",
            Value::String(self.effect.key.clone()),
            self.effect.element,
            self.effect.job_key,
            self.effect.attempt,
            self.run,
            crate::clock::format_instant(self.at_ms)
        )
    }
}

/// Every side effect the outside world received, in order. It belongs to the test and outlives
/// the engine (see the module documentation); a test restarted from a snapshot takes it over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ledger {
    entries: Vec<LedgerEntry>,
}

impl Ledger {
    pub fn new() -> Ledger {
        Ledger::default()
    }

    pub fn entries(&self) -> &[LedgerEntry] {
        &self.entries
    }

    /// The side effects of one job type, in order.
    pub fn of_type<'a>(&'a self, job_type: &'a str) -> impl Iterator<Item = &'a LedgerEntry> {
        self.entries
            .iter()
            .filter(move |e| e.effect.job_type == job_type)
    }

    /// Whether the outside world has seen this key of this job type.
    pub fn contains(&self, job_type: &str, key: &str) -> bool {
        self.of_type(job_type).any(|e| e.effect.key == key)
    }

    pub(crate) fn push(&mut self, entry: LedgerEntry) {
        self.entries.push(entry);
    }

    /// The last run that wrote to it (0 when empty).
    pub fn last_run(&self) -> u32 {
        self.entries.iter().map(|e| e.run).max().unwrap_or(0)
    }

    /// Checks what the ledger holds of one job type.
    pub fn check(&self, expected: &SideEffectExpectation) -> Result<(), SideEffectsMissed> {
        let of_type: Vec<&LedgerEntry> = self.of_type(&expected.job_type).collect();
        let listed = |entries: &[&LedgerEntry]| -> String {
            entries
                .iter()
                .enumerate()
                .map(|(i, e)| format!("\n  {}. {e}", i + 1))
                .collect()
        };
        if let Some(times) = expected.count
            && !times.contains(of_type.len())
        {
            return Err(SideEffectsMissed(format!(
                "expected {times} side effect(s) of \"{}\", but the outside world received {}{}",
                expected.job_type,
                of_type.len(),
                if of_type.is_empty() {
                    String::new()
                } else {
                    format!(":{}", listed(&of_type))
                }
            )));
        }
        if expected.at_most_once_per_key {
            for (i, entry) in of_type.iter().enumerate() {
                let same: Vec<&LedgerEntry> = of_type[i..]
                    .iter()
                    .copied()
                    .filter(|e| e.effect.key == entry.effect.key)
                    .collect();
                if same.len() > 1 {
                    return Err(SideEffectsMissed(format!(
                        "expected at most one side effect of \"{}\" per idempotency key, but the key {} was acted on {} times:{}",
                        expected.job_type,
                        Value::String(entry.effect.key.clone()),
                        same.len(),
                        listed(&same)
                    )));
                }
            }
        }
        if let Some(element) = &expected.none_before {
            let early: Vec<&LedgerEntry> = of_type
                .iter()
                .copied()
                .filter(|e| !e.completed_before.iter().any(|c| c == element))
                .collect();
            if !early.is_empty() {
                return Err(SideEffectsMissed(format!(
                    "expected no side effect of \"{}\" before \"{element}\" completed, but {} happened before it:{}",
                    expected.job_type,
                    if early.len() == 1 {
                        "one".to_string()
                    } else {
                        early.len().to_string()
                    },
                    listed(&early)
                )));
            }
        }
        Ok(())
    }
}

/// What a test expects of the side effects of one job type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideEffectExpectation {
    pub job_type: String,
    pub count: Option<Times>,
    pub at_most_once_per_key: bool,
    /// No side effect before this element completed (in the same root instance).
    pub none_before: Option<String>,
}

impl SideEffectExpectation {
    pub fn of(job_type: impl Into<String>) -> SideEffectExpectation {
        SideEffectExpectation {
            job_type: job_type.into(),
            count: None,
            at_most_once_per_key: false,
            none_before: None,
        }
    }

    pub fn count(mut self, times: impl Into<Times>) -> Self {
        self.count = Some(times.into());
        self
    }

    pub fn at_most_once_per_key(mut self) -> Self {
        self.at_most_once_per_key = true;
        self
    }

    pub fn none_before(mut self, element: impl Into<String>) -> Self {
        self.none_before = Some(element.into());
        self
    }
}

/// What the ledger holds is not what the test expects: the message lists the side effects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SideEffectsMissed(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, attempt: u32, run: u32, completed: &[&str]) -> LedgerEntry {
        LedgerEntry {
            effect: SideEffect {
                job_type: "ticket-create".into(),
                element: "create-ticket".into(),
                key: key.into(),
                job_key: 2_251_799_813_685_260,
                attempt,
                performed: true,
            },
            process_instance_key: 2_251_799_813_685_250,
            at_ms: 1_735_689_600_000 + i64::from(attempt) * 300_001,
            run,
            completed_before: completed.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn the_ledger_checks_counts_keys_and_order() {
        let mut ledger = Ledger::new();
        ledger.push(entry("1042", 1, 1, &["approve"]));
        ledger.push(entry("1042", 2, 2, &[]));
        let messages: Vec<String> = [
            SideEffectExpectation::of("ticket-create").count(1),
            SideEffectExpectation::of("ticket-create").at_most_once_per_key(),
            SideEffectExpectation::of("ticket-create").none_before("approve"),
            SideEffectExpectation::of("email-send").count(1..),
        ]
        .iter()
        .map(|e| ledger.check(e).unwrap_err().to_string())
        .collect();
        insta::assert_snapshot!(messages.join("\n"), @r#"
        expected exactly 1 side effect(s) of "ticket-create", but the outside world received 2:
          1. key "1042" at create-ticket (job 2251799813685260, activation 1, run 1) at 2025-01-01T00:05:00.001Z
          2. key "1042" at create-ticket (job 2251799813685260, activation 2, run 2) at 2025-01-01T00:10:00.002Z
        expected at most one side effect of "ticket-create" per idempotency key, but the key "1042" was acted on 2 times:
          1. key "1042" at create-ticket (job 2251799813685260, activation 1, run 1) at 2025-01-01T00:05:00.001Z
          2. key "1042" at create-ticket (job 2251799813685260, activation 2, run 2) at 2025-01-01T00:10:00.002Z
        expected no side effect of "ticket-create" before "approve" completed, but one happened before it:
          1. key "1042" at create-ticket (job 2251799813685260, activation 2, run 2) at 2025-01-01T00:10:00.002Z
        expected at least 1 side effect(s) of "email-send", but the outside world received 0
        "#);
        assert_eq!(
            ledger.check(&SideEffectExpectation::of("ticket-create").count(2)),
            Ok(())
        );
        assert!(ledger.contains("ticket-create", "1042"));
        assert_eq!(ledger.last_run(), 2);
    }

    #[test]
    fn a_key_expression_that_is_not_feel_is_refused() {
        let error = DeclaredSideEffect::keyed_by("order.").unwrap_err();
        insta::assert_snapshot!(error.to_string(), @"the idempotency key order. is not valid FEEL: failed to parse expression 'order.': expected name at 1:7, found end of input");
    }
}
