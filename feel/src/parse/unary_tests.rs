//! DMN unary tests (a decision table's input entries): `< 5`, `[1..3]`, `"a", "b"`,
//! `not(...)`, `-`, or any expression compared with the input.

use super::{P, Parser, boxed};
use crate::ast::{CmpOp, Expr, ExprKind};
use crate::value::Value;

impl<'s> Parser<'s> {
    // ----- unary tests -----

    /// `< x`, `<= x`, `> x`, `>= x`, or an interval `[a..b]`.
    pub(super) fn simple_positive_unary_test(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        let r = self.rest();
        let op = if r.starts_with("<=") {
            Some((CmpOp::Le, 2))
        } else if r.starts_with(">=") {
            Some((CmpOp::Ge, 2))
        } else if r.starts_with("!=") {
            Some((CmpOp::Ne, 2))
        } else if r.starts_with('<') {
            Some((CmpOp::Lt, 1))
        } else if r.starts_with('>') {
            Some((CmpOp::Gt, 1))
        } else if r.starts_with('=') {
            Some((CmpOp::Eq, 1))
        } else {
            None
        };
        if let Some((op, len)) = op {
            self.pos += len;
            let e = self.math()?;
            return Some(Expr::new(
                ExprKind::InputCompare(op, boxed(e)),
                start,
                self.pos,
            ));
        }
        let range = self.range_literal()?;
        Some(Expr::new(
            ExprKind::InputInRange(boxed(range)),
            start,
            self.pos,
        ))
    }

    pub(super) fn positive_unary_test(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        // a boolean literal compares with the input
        for (word, b) in [("true", true), ("false", false)] {
            if self.keyword(word) {
                self.ws();
                if self.rest().is_empty() || self.rest().starts_with([',', ')']) {
                    let c = Expr::new(ExprKind::Const(Value::Boolean(b)), start, self.pos);
                    return Some(Expr::new(ExprKind::InputEqualTo(boxed(c)), start, self.pos));
                }
                self.pos = start;
            }
        }
        let e = self.expression()?;
        Some(Expr::new(ExprKind::UnaryTest(boxed(e)), start, self.pos))
    }

    pub(super) fn positive_unary_tests(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        let mut tests = vec![self.positive_unary_test()?];
        while self.token(",") {
            tests.push(self.positive_unary_test()?);
        }
        if tests.len() == 1 {
            return tests.pop();
        }
        Some(Expr::new(ExprKind::AnyOf(tests), start, self.pos))
    }

    pub(super) fn unary_tests(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        if self.keyword("not") && self.token("(") {
            if let Some(tests) = self.positive_unary_tests()
                && self.token(")")
            {
                self.ws();
                if self.rest().is_empty() {
                    return Some(Expr::new(ExprKind::NotTests(boxed(tests)), start, self.pos));
                }
            }
            if self.fatal.is_some() {
                return None;
            }
        }
        self.pos = start;
        if let Some(tests) = self.positive_unary_tests() {
            self.ws();
            if self.rest().is_empty() {
                return Some(tests);
            }
        }
        if self.fatal.is_some() {
            return None;
        }
        self.pos = start;
        if self.token("-") {
            self.ws();
            if self.rest().is_empty() {
                return Some(Expr::new(ExprKind::AnyInput, start, self.pos));
            }
        }
        None
    }
}
