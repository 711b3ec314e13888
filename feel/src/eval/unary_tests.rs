//! The nodes of DMN unary tests: comparisons with the input (`< 5`), ranges (`[1..3]`),
//! equality, an expression as a test (a boolean, list membership, a range or equality), `not(…)`
//! and lists of tests.

use super::operators::is_input_test;
use super::{Eval, R, Scope};
use crate::ast::{CmpOp, Expr};
use crate::value::Value;

impl Eval<'_> {
    pub(super) fn eval_input_compare(&mut self, op: CmpOp, x: &Expr, scope: &Scope) -> R {
        Ok({
            let input = self.input_value()?;
            let v = self.eval(x, scope)?;
            self.compare(op, &input, &v)
        })
    }

    pub(super) fn eval_input_in_range(&mut self, r: &Expr, scope: &Scope) -> R {
        Ok({
            let input = self.input_value()?;
            let range = self.eval(r, scope)?;
            self.in_range(&input, &range)
        })
    }

    pub(super) fn eval_input_equal_to(&mut self, x: &Expr, scope: &Scope) -> R {
        Ok({
            let input = self.input_value()?;
            let v = self.eval(x, scope)?;
            self.compare(CmpOp::Eq, &input, &v)
        })
    }

    pub(super) fn eval_unary_test(&mut self, x: &Expr, scope: &Scope) -> R {
        Ok({
            let v = self.eval(x, scope)?;
            if is_input_test(x) {
                // the expression already tests the input (`< 3`, `? > 5`, `odd(?)`)
                return Ok(match v {
                    Value::Boolean(b) => Value::Boolean(b),
                    _ => Value::Null,
                });
            }
            let input = self.input_value()?;
            if input.feel_eq(&v) == Some(true) {
                return Ok(Value::Boolean(true));
            }
            match v {
                Value::Boolean(b) => Value::Boolean(b),
                Value::List(items) => {
                    let input = self.input_value()?;
                    Value::Boolean(items.iter().any(|i| i.feel_eq(&input) == Some(true)))
                }
                Value::Range(_) => {
                    let input = self.input_value()?;
                    self.in_range(&input, &v)
                }
                other => {
                    let input = self.input_value()?;
                    self.compare(CmpOp::Eq, &input, &other)
                }
            }
        })
    }

    pub(super) fn eval_not_tests(&mut self, t: &Expr, scope: &Scope) -> R {
        Ok(match self.eval(t, scope)? {
            Value::Boolean(b) => Value::Boolean(!b),
            _ => Value::Null,
        })
    }

    pub(super) fn eval_any_of(&mut self, tests: &[Expr], scope: &Scope) -> R {
        // true if a test matches; null if none does but one could not decide
        let mut undecided = false;
        for t in tests {
            match self.eval(t, scope)? {
                Value::Boolean(true) => return Ok(Value::Boolean(true)),
                Value::Boolean(false) => {}
                _ => undecided = true,
            }
        }
        Ok(if undecided {
            Value::Null
        } else {
            Value::Boolean(false)
        })
    }
}
