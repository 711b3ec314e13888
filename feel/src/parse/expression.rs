//! Expressions: the keyword constructs (`if`, `for`, `some`, `every`), disjunction and
//! conjunction, comparisons (`between`, `instance of`, `in`), type names and arithmetic by
//! precedence climbing.

use std::sync::Arc;

use super::{P, Parser, boxed};
use crate::ast::{ArithOp, CmpOp, Expr, ExprKind, Iteration};
use crate::lex::{ident_token, is_name_part};
use crate::value::Value;

impl<'s> Parser<'s> {
    pub(super) fn expression(&mut self) -> P<Expr> {
        self.enter()?;
        let r = self.expression_inner();
        self.leave();
        r
    }

    pub(super) fn expression_inner(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        // the keyword constructs start with these letters; anything else is a disjunction
        if !matches!(
            self.rest().as_bytes().first(),
            Some(b'i' | b'f' | b's' | b'e')
        ) {
            return self.disjunction();
        }
        if self.keyword("if") {
            let c = self.expression()?;
            if !self.keyword("then") {
                return None;
            }
            let t = self.expression()?;
            if !self.keyword("else") {
                return None;
            }
            let e = self.expression()?;
            return Some(Expr::new(
                ExprKind::If(boxed(c), boxed(t), boxed(e)),
                start,
                self.pos,
            ));
        }
        if self.keyword("for") {
            let iters = self.iterators()?;
            if !self.keyword("return") {
                return None;
            }
            let body = self.expression()?;
            return Some(Expr::new(
                ExprKind::For(iters, boxed(body)),
                start,
                self.pos,
            ));
        }
        for (kw, every) in [("some", false), ("every", true)] {
            if self.keyword(kw) {
                let iters = self.iterators()?;
                if !self.keyword("satisfies") {
                    return None;
                }
                let cond = self.expression()?;
                let kind = if every {
                    ExprKind::Every(iters, boxed(cond))
                } else {
                    ExprKind::Some(iters, boxed(cond))
                };
                return Some(Expr::new(kind, start, self.pos));
            }
        }
        self.disjunction()
    }

    pub(super) fn iterators(&mut self) -> P<Vec<(Arc<str>, Iteration)>> {
        let mut out = Vec::new();
        loop {
            let name = self.name()?;
            let name = self.bind(name);
            if !self.keyword("in") {
                return None;
            }
            // iterationContext (a..b) | value; a range needs `..` ahead, and a position found not
            // to start one is not tried again on backtracking
            let save = self.pos;
            let no_dots = !self.track && self.last_dots.is_none_or(|d| d < self.pos);
            let range = if no_dots || self.not_range_iterations.contains(&save) {
                None
            } else {
                let range = self.range_iteration();
                if range.is_none() {
                    if self.fatal.is_some() {
                        return None;
                    }
                    self.not_range_iterations.insert(save);
                }
                range
            };
            let it = match range {
                Some(it) => it,
                None => {
                    self.pos = save;
                    Iteration::List(self.value()?)
                }
            };
            out.push((name, it));
            if !self.token(",") {
                break;
            }
        }
        Some(out)
    }

    pub(super) fn range_iteration(&mut self) -> P<Iteration> {
        let a = self.math()?;
        if !self.token("..") {
            return None;
        }
        let b = self.math()?;
        Some(Iteration::Range(a, b))
    }

    pub(super) fn disjunction(&mut self) -> P<Expr> {
        let start = self.pos;
        let mut left = self.conjunction()?;
        while self.keyword("or") {
            let right = self.conjunction()?;
            left = self.chained(Expr::new(
                ExprKind::Or(boxed(left), boxed(right)),
                start,
                self.pos,
            ))?;
        }
        Some(left)
    }

    pub(super) fn conjunction(&mut self) -> P<Expr> {
        let start = self.pos;
        let mut left = self.comparison()?;
        while self.keyword("and") {
            let right = self.comparison()?;
            left = self.chained(Expr::new(
                ExprKind::And(boxed(left), boxed(right)),
                start,
                self.pos,
            ))?;
        }
        Some(left)
    }

    /// expLvl3: `math [comparison] | simplePositiveUnaryTest`
    pub(super) fn comparison(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        match self.math() {
            Some(x) => self.optional_comparison(x, start),
            None => {
                if self.fatal.is_some() {
                    return None;
                }
                self.pos = start;
                self.simple_positive_unary_test()
            }
        }
    }

    pub(super) fn optional_comparison(&mut self, x: Expr, start: usize) -> P<Expr> {
        self.ws();
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
            let y = self.math()?;
            return Some(Expr::new(
                ExprKind::Compare(op, boxed(x), boxed(y)),
                start,
                self.pos,
            ));
        }
        self.expect("comparison");
        let save = self.pos;
        if self.keyword("between") {
            let a = self.math()?;
            if !self.keyword("and") {
                return None;
            }
            let b = self.math()?;
            return Some(Expr::new(
                ExprKind::Between(boxed(x), boxed(a), boxed(b)),
                start,
                self.pos,
            ));
        }
        if self.keyword("instance") {
            if !self.keyword("of") {
                return None;
            }
            let t = self.type_name()?;
            return Some(Expr::new(
                ExprKind::InstanceOf(boxed(x), t),
                start,
                self.pos,
            ));
        }
        if self.keyword("in") {
            let tests_start = self.pos;
            if self.token("(") {
                let inner = self.positive_unary_tests();
                if let Some(tests) = inner
                    && self.token(")")
                {
                    return Some(Expr::new(
                        ExprKind::In(boxed(x), boxed(tests)),
                        start,
                        self.pos,
                    ));
                }
                if self.fatal.is_some() {
                    return None;
                }
                self.pos = tests_start;
            }
            let test = self.positive_unary_test()?;
            return Some(Expr::new(
                ExprKind::In(boxed(x), boxed(test)),
                start,
                self.pos,
            ));
        }
        self.pos = save;
        Some(x)
    }

    /// A word of a type name (reserved words allowed: `function`).
    pub(super) fn type_word(&mut self) -> P<Arc<str>> {
        if let Some(n) = self.escaped_identifier() {
            return Some(n.into());
        }
        self.ws();
        match ident_token(self.rest()) {
            Ok((_, id)) => {
                self.pos += id.len();
                Some(id.into())
            }
            Err(_) => {
                self.expect("type name");
                None
            }
        }
    }

    pub(super) fn type_name(&mut self) -> P<Arc<str>> {
        self.ws();
        for t in [
            "years and months duration",
            "days and time duration",
            "date and time",
        ] {
            let r = self.rest();
            if r.starts_with(t) && !r[t.len()..].chars().next().is_some_and(is_name_part) {
                self.pos += t.len();
                return Some(t.into());
            }
        }
        let mut parts = vec![self.type_word()?];
        while self.at(".") && !self.at("..") {
            self.pos += 1;
            parts.push(self.type_word()?);
        }
        // generic types (`list<number>`) are taken as written; the closing `>` is looked for
        // within a type's length, not in the rest of the text
        if self.at("<") {
            let start = self.pos;
            let mut level = 0;
            for (i, c) in self.rest().char_indices().take(1024) {
                match c {
                    '<' => level += 1,
                    '>' => {
                        level -= 1;
                        if level == 0 {
                            let generic = &self.src[start..start + i + 1];
                            self.pos = start + i + 1;
                            return Some(format!("{}{}", parts.join("."), generic).into());
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(parts.join(".").into())
    }

    // ----- arithmetic -----

    pub(super) fn math(&mut self) -> P<Expr> {
        // where arithmetic failed once it fails again: backtracking (a comparison retried as a
        // unary test, an argument as a range) does not parse it anew
        self.ws();
        let start = self.pos;
        if self.failed_math.contains(&start) {
            return None;
        }
        self.enter()?;
        let r = self.arithmetic(0);
        self.leave();
        if r.is_none() {
            self.failed_math.insert(start);
        }
        r
    }

    /// The arithmetic operator at the cursor (after whitespace): the operator, its length and
    /// its level (`+ -` 0, `* /` 1, `**` 2).
    pub(super) fn arith_op(&mut self) -> Option<(ArithOp, usize, u8)> {
        self.ws();
        Some(match self.src.as_bytes().get(self.pos..)? {
            [b'*', b'*', ..] => (ArithOp::Pow, 2, 2),
            [b'*', ..] => (ArithOp::Mul, 1, 1),
            [b'/', ..] => (ArithOp::Div, 1, 1),
            [b'+', ..] => (ArithOp::Add, 1, 0),
            [b'-', ..] => (ArithOp::Sub, 1, 0),
            _ => return None,
        })
    }

    /// Arithmetic by precedence climbing: operators of `min_level` and above, all left
    /// associative. An operator whose right operand does not parse is left unconsumed.
    pub(super) fn arithmetic(&mut self, min_level: u8) -> P<Expr> {
        self.ws();
        let start = self.pos;
        let mut left = self.negation()?;
        loop {
            let Some((op, len, level)) = self.arith_op() else {
                if min_level == 0 {
                    self.expect("operator");
                }
                break;
            };
            if level < min_level {
                break;
            }
            let save = self.pos;
            self.pos += len;
            match self.arithmetic(level + 1) {
                Some(right) => {
                    left = self.chained(Expr::new(
                        ExprKind::Arith(op, boxed(left), boxed(right)),
                        start,
                        self.pos,
                    ))?
                }
                None => {
                    if self.fatal.is_some() {
                        return None;
                    }
                    self.pos = save;
                    // as the grammar's `+ -` level, which looked for its operator here
                    if min_level == 0 && level > 0 {
                        self.expect("operator");
                    }
                    break;
                }
            }
        }
        Some(left)
    }

    /// Prefix minus signs, counted in a loop (a long run of them is no deep recursion), then a
    /// value; the minus of a number literal is folded into the literal.
    pub(super) fn negation(&mut self) -> P<Expr> {
        self.ws();
        let mut signs = Vec::new();
        while self.rest().starts_with('-') {
            self.step()?;
            signs.push(self.pos);
            self.pos += 1;
            self.ws();
        }
        let mut v = self.value()?;
        for start in signs.into_iter().rev() {
            v = match &v.kind {
                ExprKind::Const(Value::Number(n)) => {
                    Expr::new(ExprKind::Const(Value::Number(n.neg())), start, self.pos)
                }
                _ => self.chained(Expr::new(ExprKind::Neg(boxed(v)), start, self.pos))?,
            };
        }
        Some(v)
    }
}
