//! What evaluation and parsing report: parse errors with positions, failures, and the
//! suppressed failures (warnings) feel-scala records while it carries on with `null`.

use std::fmt;

use crate::value::Value;

/// A syntax error: where, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The expression text.
    pub source: String,
    /// Byte offset of the error in `source`.
    pub offset: usize,
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based column (in characters) of the error.
    pub column: usize,
    /// What the parser expected at `offset` (e.g. `")"`, `"expression"`).
    pub expected: Vec<String>,
    /// An explanation when it is not a plain syntax error (e.g. a nesting limit).
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(
        source: &str,
        offset: usize,
        expected: Vec<String>,
        message: String,
    ) -> ParseError {
        let offset = offset.min(source.len());
        let before = &source[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before
            .rsplit('\n')
            .next()
            .map(|l| l.chars().count())
            .unwrap_or(0)
            + 1;
        ParseError {
            source: source.to_string(),
            offset,
            line,
            column,
            expected,
            message,
        }
    }

    /// The text at the error position (up to 20 characters).
    pub fn found(&self) -> &str {
        let rest = &self.source[self.offset..];
        let end = rest
            .char_indices()
            .nth(20)
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        &rest[..end]
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed to parse expression '{}': ", self.source)?;
        if !self.message.is_empty() {
            write!(f, "{} ", self.message)?;
        } else if self.expected.is_empty() {
            f.write_str("unexpected input ")?;
        } else {
            if self.expected.len() == 1 {
                write!(f, "expected {} ", self.expected[0])?;
            } else {
                write!(f, "expected one of {} ", self.expected.join(", "))?;
            }
        }
        write!(f, "at {}:{}", self.line, self.column)?;
        let found = self.found();
        if found.is_empty() {
            f.write_str(", found end of input")
        } else {
            write!(f, ", found \"{found}\"")
        }
    }
}

impl std::error::Error for ParseError {}

/// The kinds of suppressed failures, as feel-scala names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// A variable does not exist.
    NoVariableFound,
    /// A context has no entry with the key.
    NoContextEntryFound,
    /// A value has no such property.
    NoPropertyFound,
    /// Two values cannot be compared.
    NotComparable,
    /// An operator or construct got a value of the wrong type.
    InvalidType,
    /// No function with that name and those parameters.
    NoFunctionFound,
    /// A function was called but failed.
    FunctionInvocationFailure,
    /// `assert()` did not hold.
    AssertFailure,
    /// Anything else.
    Unknown,
}

impl WarningKind {
    /// feel-scala's name (`NO_VARIABLE_FOUND`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            WarningKind::NoVariableFound => "NO_VARIABLE_FOUND",
            WarningKind::NoContextEntryFound => "NO_CONTEXT_ENTRY_FOUND",
            WarningKind::NoPropertyFound => "NO_PROPERTY_FOUND",
            WarningKind::NotComparable => "NOT_COMPARABLE",
            WarningKind::InvalidType => "INVALID_TYPE",
            WarningKind::NoFunctionFound => "NO_FUNCTION_FOUND",
            WarningKind::FunctionInvocationFailure => "FUNCTION_INVOCATION_FAILURE",
            WarningKind::AssertFailure => "ASSERT_FAILURE",
            WarningKind::Unknown => "UNKNOWN",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A suppressed failure: the evaluation went on with `null` here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The kind.
    pub kind: WarningKind,
    /// feel-scala's message (`No variable found with name 'x'`).
    pub message: String,
}

impl fmt::Display for Warning {
    /// `[NO_VARIABLE_FOUND] No variable found with name 'x'`, as Zeebe lists them in incidents.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.kind, self.message)
    }
}

/// An evaluation that failed (not just `null`): `assert()`, `?` outside unary tests, a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// feel-scala's failure text (`failed to evaluate expression '...': ...`).
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The outcome of one evaluation: the value (or a failure) and the warnings, in the order
/// feel-scala reports them.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The result.
    pub result: Result<Value, Failure>,
    /// Suppressed failures.
    pub warnings: Vec<Warning>,
}

impl Evaluation {
    /// The value, or `Null` on failure.
    pub fn value(&self) -> Value {
        self.result.clone().unwrap_or(Value::Null)
    }
}
