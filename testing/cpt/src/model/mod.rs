//! The CPT JSON test-case format as data: a file, its test cases, and every instruction of the
//! 8.9 schema, of the 8.10 runner (`CONDITIONAL_BEHAVIOR`, `ASSERT_INCIDENT`) and of the 8.11
//! development line (the union: a file is never rejected for its `$schema`), plus baton's
//! extensions (the agent instructions `MOCK_AI_AGENT` and `ASSERT_AI_AGENT`, and instructions for
//! 8.10 engine features CPT has none for).
//!
//! [`TestFile::parse`] reads a file and names the JSON path of every problem
//! (`testCases[1].instructions[4].jobSelector.jobType: invalid type: ...`). A missing attribute
//! and a wrong enumeration value get the sentence CPT's reader writes (`Cannot build
//! AssertIncidentInstruction, some of required attributes are not set [incidentSelector]`,
//! `Cannot deserialize value of type ... from String "X": not one of the values accepted ...`),
//! behind the same path. CPT's reader ignores
//! unknown fields (real files that pass on CPT carry some, e.g. a `type` in `startInstructions`),
//! so baton ignores them too and reports each one inside an instruction as a warning (it is
//! usually a typo); unknown fields of the file and of a test case (`_integrationTestNotes`,
//! `metadata`) are ignored silently. An unknown instruction type is an error, as in CPT.
//! Selectors are checked when the instruction runs, as CPT's runner does, so the instructions
//! before a bad one still run.
//!
//! The module by responsibility:
//! - `file` — reading a file and its test cases ([`TestFile::parse`]), and the `$schema` notes;
//! - `instruction` — [`Instruction`]: every type, where it comes from, reading one by its `type`;
//! - `actions` — the instructions that act: set up, move time, complete work, mock, send;
//! - `assertions` — the instructions that check, and the states they check for;
//! - `agent` — baton's agent instructions (`MOCK_AI_AGENT`, `ASSERT_AI_AGENT`);
//! - `selectors` — the selectors instructions choose what they act on or check with;
//! - `reader` — the serde plumbing: paths in errors, unknown fields as warnings, CPT's
//!   sentences for missing attributes.

use std::fmt;

use serde_json::{Map, Value};

mod actions;
mod agent;
mod assertions;
mod file;
mod instruction;
mod reader;
mod selectors;

pub use actions::*;
pub use agent::*;
pub use assertions::*;
pub use instruction::*;
pub(super) use reader::read;
pub use selectors::*;

/// JSON variables as the file writes them.
pub type Variables = Map<String, Value>;

/// A parsed test file.
#[derive(Debug, Clone, PartialEq)]
pub struct TestFile {
    /// The `$schema` URL, if any (only used to warn about instructions newer than it).
    pub schema: Option<String>,
    /// Web Modeler's `processId` (kept, not used: selectors name their process).
    pub process_id: Option<String>,
    pub test_cases: Vec<TestCase>,
    /// Things worth knowing that do not stop the file (instructions newer than `$schema`).
    pub warnings: Vec<String>,
}

/// One test case: instructions run in order in a fresh engine.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    pub name: String,
    pub description: Option<String>,
    pub instructions: Vec<Step>,
}

/// One instruction with the JSON it was read from (failure messages quote it).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub instruction: Instruction,
    pub json: Value,
}

/// Why a test file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// The JSON path of the problem (`testCases[0].instructions[2].state`), empty for the
    /// whole document.
    pub path: String,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for FormatError {}

pub(super) fn error(path: impl Into<String>, message: impl Into<String>) -> FormatError {
    FormatError {
        path: path.into(),
        message: message.into(),
    }
}

/// Reads one instruction that must read without warnings (the tests' shorthand).
#[cfg(test)]
fn parse_one(instruction: Value) -> Result<Instruction, FormatError> {
    let mut warnings = Vec::new();
    let i = Instruction::from_json(&instruction, "i", &mut warnings)?;
    assert_eq!(warnings, Vec::<String>::new());
    Ok(i)
}
