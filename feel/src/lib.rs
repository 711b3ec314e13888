//! baton-feel: a FEEL evaluator that gives camunda/feel-scala's answers, as Zeebe 8.9 uses it.
//!
//! Expressions are parsed once ([`Expression::parse`]) and evaluated many times against
//! [`Variables`] and an [`Env`] (the clock for `now()`/`today()` and the limits). Evaluation
//! returns the value and the *suppressed failures* feel-scala records when it carries on with
//! `null` ([`Evaluation`]).
//!
//! ```
//! use baton_feel::{Env, Expression, Value};
//! use serde_json::json;
//!
//! let expr = Expression::parse("order.total > 100 and order.country = \"DE\"").unwrap();
//! let vars = json!({"order": {"total": 250, "country": "DE"}});
//! let evaluation = expr.evaluate(vars.as_object().unwrap(), &Env::default());
//! assert_eq!(evaluation.result.unwrap(), Value::Boolean(true));
//!
//! let missing = Expression::parse("x + 1").unwrap().evaluate(&(), &Env::default());
//! assert_eq!(missing.result.unwrap(), Value::Null);
//! assert_eq!(missing.warnings[0].to_string(), "[NO_VARIABLE_FOUND] No variable found with name 'x'");
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ast;
mod builtins;
mod env;
mod error;
mod eval;
pub mod from_ai;
mod json;
mod lex;
pub mod number;
mod parse;
mod shape;
pub mod temporal;
mod value;

use std::fmt;
use std::sync::Arc;

pub use env::{CachedVars, ContextVars, Env, Limits, Variables, VarsFn, json_entry};
pub use error::{Evaluation, Failure, ParseError, Warning, WarningKind};
pub use from_ai::TaggedParameter;
pub use lex::is_feel_whitespace;
pub use number::Number;
pub use shape::{
    ContextPart, MAX_CONTEXT_PARTS, MAX_PATH_KEYS, PathComparison, Shape, VariablePath,
};
pub use value::{
    Bound, Context, Function, FunctionBody, List, ListIter, NativeBody, NativeFunction, Range,
    Value,
};

/// The names of all built-in functions (feel-scala's and Zeebe's `cycle`/`fromAi`).
pub fn builtin_names() -> Vec<&'static str> {
    builtins::names()
}

/// The parameter names of each overload of a built-in function.
pub fn builtin_overloads(name: &str) -> Vec<Vec<&'static str>> {
    builtins::overloads(name)
}

struct Parsed {
    source: String,
    ast: ast::Expr,
}

/// A parsed FEEL expression; cheap to clone and shareable between threads.
#[derive(Clone)]
pub struct Expression(Arc<Parsed>);

impl Expression {
    /// Parses an expression (without Zeebe's leading `=`).
    pub fn parse(source: &str) -> Result<Expression, ParseError> {
        let ast = parse::parse_expression(source)?;
        Ok(Expression(Arc::new(Parsed {
            source: source.to_string(),
            ast,
        })))
    }

    /// The text it was parsed from.
    pub fn source(&self) -> &str {
        &self.0.source
    }

    /// The syntax tree.
    pub fn ast(&self) -> &ast::Expr {
        &self.0.ast
    }

    /// What kind of expression it is ([`Shape`]), for a caller that answers the common kinds
    /// without evaluating.
    pub fn shape(&self) -> Shape {
        shape::shape(&self.0.ast)
    }

    /// The variables the expression reads: the roots of paths, without the names bound by
    /// `for`, `some`, `every`, function parameters, context entries and `item` in filters, in
    /// first-use order.
    pub fn referenced_variables(&self) -> Vec<String> {
        shape::referenced_variables(&self.0.ast)
    }

    /// Evaluates the expression.
    pub fn evaluate(&self, vars: &dyn Variables, env: &Env) -> Evaluation {
        let mut ev = eval::Eval::new(vars, env, &self.0.source);
        let result = ev.eval(&self.0.ast, &eval::Scope::Root);
        Evaluation {
            result,
            warnings: ev.into_warnings(),
        }
    }
}

impl fmt::Debug for Expression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expression({:?})", self.0.source)
    }
}

/// Parsed DMN unary tests (a decision table's input entry); `?` is the input.
#[derive(Clone)]
pub struct UnaryTests(Arc<Parsed>);

impl UnaryTests {
    /// Parses unary tests: `< 5`, `[1..3]`, `"a", "b"`, `not("x")`, `-`, or any expression.
    pub fn parse(source: &str) -> Result<UnaryTests, ParseError> {
        let ast = parse::parse_unary_tests(source)?;
        Ok(UnaryTests(Arc::new(Parsed {
            source: source.to_string(),
            ast,
        })))
    }

    /// The text it was parsed from.
    pub fn source(&self) -> &str {
        &self.0.source
    }

    /// Tests `input`: `Boolean` (or `Null` when the tests cannot decide).
    pub fn evaluate(&self, input: &Value, vars: &dyn Variables, env: &Env) -> Evaluation {
        let mut ev = eval::Eval::new(vars, env, &self.0.source).with_input(input.clone());
        let result = ev.eval(&self.0.ast, &eval::Scope::Root);
        Evaluation {
            result,
            warnings: ev.into_warnings(),
        }
    }
}

impl fmt::Debug for UnaryTests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UnaryTests({:?})", self.0.source)
    }
}
