//! Text → [`Expr`], following feel-scala's grammar (`FeelParser.scala`): the same operator
//! levels, the same ordered alternatives (a PEG, like fastparse), the same names.
//!
//! Recursive descent over a cursor into the text; the tokens come from [`crate::lex`]. A failed
//! alternative backtracks; the error reported is the one that got furthest, with what was
//! expected there. The rules are split by what they read: `expression` (keyword constructs,
//! logic, comparisons, arithmetic), `value` (terminals, postfix paths and filters, names, calls,
//! literals) and `unary_tests` (DMN input entries).

mod expression;
mod unary_tests;
mod value;

use std::sync::Arc;

use crate::ast::Expr;
use crate::error::ParseError;
use crate::lex::{block_comment, is_name_part, line_comment, whitespace};

/// Nesting deeper than this is a parse error, not a stack overflow.
pub const MAX_NESTING: usize = 96;

/// Something the parser looked for at the error position.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expected {
    /// A literal token, shown quoted.
    Token(&'static str),
    /// A kind of thing, shown as is.
    Label(&'static str),
}

struct Parser<'s> {
    src: &'s str,
    pos: usize,
    depth: usize,
    /// Furthest position where something was expected, and what.
    err_pos: usize,
    expected: Vec<Expected>,
    /// The position up to which whitespace was last skipped (skipping again is a no-op).
    ws_end: usize,
    fatal: Option<ParseError>,
    /// Whether to record what was expected where. Off on the first pass (most input parses);
    /// a failed parse is parsed again with it on to build the message.
    track: bool,
    /// The iterator and parameter names seen so far: a reference to one (`for x in xs return
    /// x`) shares its `Arc`, so the evaluator finds a local variable by pointer before comparing
    /// text. Empty (no allocation) for expressions without binders.
    names: Vec<Arc<str>>,
}

type P<T> = Option<T>;

/// How many binder names a parser shares (beyond, names are not shared; still correct).
const MAX_INTERNED: usize = 32;

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

impl<'s> Parser<'s> {
    fn new(src: &'s str) -> Self {
        Parser {
            src,
            pos: 0,
            depth: 0,
            err_pos: 0,
            expected: Vec::new(),
            ws_end: usize::MAX,
            fatal: None,
            track: false,
            names: Vec::new(),
        }
    }

    /// A name as written in a reference: the binder's `Arc` when a `for`/`some`/`every`
    /// iterator or a function parameter of this name was seen (a local variable is then found
    /// by pointer), else its own.
    fn intern(&mut self, name: &str) -> Arc<str> {
        match name {
            "item" => return crate::ast::ITEM.clone(),
            "partial" => return crate::ast::PARTIAL.clone(),
            _ => {}
        }
        if let Some(n) = self.names.iter().find(|n| n.as_ref() == name) {
            return n.clone();
        }
        Arc::from(name)
    }

    /// A name that binds a local variable (an iterator, a parameter), shared with later
    /// references to it.
    fn bind(&mut self, name: Arc<str>) -> Arc<str> {
        if let Some(n) = self.names.iter().find(|n| **n == name) {
            return n.clone();
        }
        if self.names.len() < MAX_INTERNED {
            self.names.push(name.clone());
        }
        name
    }

    fn rest(&self) -> &'s str {
        &self.src[self.pos..]
    }

    #[inline]
    fn note(&mut self, what: Expected) {
        if self.track {
            self.note_tracked(what);
        }
    }

    #[cold]
    fn note_tracked(&mut self, what: Expected) {
        if self.pos > self.err_pos {
            self.err_pos = self.pos;
            self.expected.clear();
        }
        // deduplicated when the error is reported
        if self.pos == self.err_pos && self.expected.len() < 64 {
            self.expected.push(what);
        }
    }

    /// Records that something (`"expression"`, `"name"`) was expected here.
    fn expect(&mut self, what: &'static str) {
        self.note(Expected::Label(what));
    }

    /// Records that the literal token `t` was expected here.
    #[inline(always)]
    fn expect_token(&mut self, t: &'static str) {
        self.note(Expected::Token(t));
    }

    #[inline(always)]
    fn ws(&mut self) {
        if self.pos == self.ws_end {
            return;
        }
        // most positions start with a token
        if let Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | b'/' | 0x80..) =
            self.src.as_bytes().get(self.pos)
        {
            self.skip_ws();
        }
        self.ws_end = self.pos;
    }

    fn skip_ws(&mut self) {
        loop {
            let r = self.rest();
            // fast exit: most positions start with a token
            match r.as_bytes().first() {
                Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | b'/') => {}
                Some(b) if *b >= 0x80 => {}
                _ => return,
            }
            if let Ok((rest, _)) = whitespace(r)
                .or_else(|_| line_comment(r))
                .or_else(|_| block_comment(r))
            {
                self.pos = self.src.len() - rest.len();
            } else {
                return;
            }
        }
    }

    fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Skips whitespace, then matches `t` exactly.
    #[inline(always)]
    fn token(&mut self, t: &'static str) -> bool {
        self.ws();
        let r = &self.src.as_bytes()[self.pos..];
        if r.first() == t.as_bytes().first() && r.starts_with(t.as_bytes()) {
            self.pos += t.len();
            true
        } else {
            self.expect_token(t);
            false
        }
    }

    /// Skips whitespace, then looks at `t` without consuming.
    fn at(&mut self, t: &str) -> bool {
        self.ws();
        self.rest().starts_with(t)
    }

    /// A keyword: `t` not followed by a name character.
    #[inline(always)]
    fn keyword(&mut self, t: &'static str) -> bool {
        self.ws();
        // most attempts fail at the first byte
        if self.src.as_bytes().get(self.pos) != t.as_bytes().first() {
            self.expect_token(t);
            return false;
        }
        self.keyword_here(t)
    }

    fn keyword_here(&mut self, t: &'static str) -> bool {
        let r = self.rest();
        if r.as_bytes().first() == t.as_bytes().first()
            && r.starts_with(t)
            && !r[t.len()..].chars().next().is_some_and(is_name_part)
        {
            self.pos += t.len();
            true
        } else {
            self.expect_token(t);
            false
        }
    }

    fn enter(&mut self) -> P<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            if self.fatal.is_none() {
                self.fatal = Some(ParseError::new(
                    self.src,
                    self.pos,
                    vec![],
                    format!("the expression is nested deeper than {MAX_NESTING} levels"),
                ));
            }
            return None;
        }
        Some(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn finish(&mut self, result: P<Expr>) -> Result<Expr, ParseError> {
        if let Some(f) = self.fatal.take() {
            return Err(f);
        }
        if let Some(e) = result {
            self.ws();
            if self.rest().is_empty() {
                return Ok(e);
            }
            self.expect("end of input");
        }
        let mut expected: Vec<String> = self
            .expected
            .iter()
            .map(|e| match e {
                Expected::Token(t) => format!("'{t}'"),
                Expected::Label(l) => l.to_string(),
            })
            .collect();
        expected.sort();
        expected.dedup();
        Err(ParseError::new(
            self.src,
            self.err_pos,
            expected,
            String::new(),
        ))
    }
}

/// Parses with `rule`; if that fails, parses again recording expectations for the message.
fn parse_with<'s>(src: &'s str, rule: fn(&mut Parser<'s>) -> P<Expr>) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src);
    let r = rule(&mut p);
    if let Ok(e) = p.finish(r) {
        return Ok(e);
    }
    let mut p = Parser::new(src);
    p.track = true;
    let r = rule(&mut p);
    p.finish(r)
}

/// Parses a FEEL expression.
pub fn parse_expression(src: &str) -> Result<Expr, ParseError> {
    parse_with(src, Parser::expression)
}

/// Parses DMN unary tests (`< 5`, `[1..3]`, `"a", "b"`, `not(...)`, `-`).
pub fn parse_unary_tests(src: &str) -> Result<Expr, ParseError> {
    parse_with(src, Parser::unary_tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_position_and_expectation() {
        let e = parse_expression("1 +").unwrap_err();
        assert_eq!(e.offset, 3);
        let e = parse_expression("{a: 1").unwrap_err();
        assert!(
            e.to_string().contains("failed to parse expression '{a: 1'"),
            "{e}"
        );
        assert!(parse_expression("not").is_err());
        assert!(parse_expression("x instance of date and time").is_ok());
        assert!(parse_expression("date and time(\"2020-01-01T10:00:00\").time offset").is_ok());
    }

    #[test]
    fn nesting_is_limited() {
        let deep = format!("{}1{}", "(".repeat(500), ")".repeat(500));
        let e = parse_expression(&deep).unwrap_err();
        assert!(e.to_string().contains("nested deeper"), "{e}");
    }
}
