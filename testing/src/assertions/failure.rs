//! The failure of a check: what was expected, what happened, and the run explained.

use std::fmt;

/// A check that did not hold. `Display` is the message an assertion panics with: deterministic
/// text (no colours, no addresses, stable order), so it can be snapshot-tested.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssertionFailure {
    /// What the check expected, in BPMN words (`process "order" to be completed`).
    pub expected: String,
    /// What was found instead (`it is active`).
    pub actual: String,
    /// The run explained (state, where the tokens are, incidents, variables, path, errors).
    pub explanation: String,
}

impl fmt::Display for AssertionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected {}\n     but {}\n\n{}",
            self.expected, self.actual, self.explanation
        )
    }
}

impl std::error::Error for AssertionFailure {}
