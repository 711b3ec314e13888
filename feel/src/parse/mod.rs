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

/// Nesting of rules (parentheses, lists, calls, `if`/`for` bodies, ...) deeper than this is a
/// parse error, not a stack overflow.
pub const MAX_NESTING: usize = 96;

/// A syntax tree higher than this (`a or a or …`, `x.a.a.a…`, `- - - x`) is a parse error: every
/// walk over a tree (evaluation, analyses, drop) recurses at most this deep.
pub const MAX_HEIGHT: usize = 1000;

/// The parse steps (rules entered) an expression may take: this many per byte, plus
/// [`PARSE_STEPS_BASE`]. Backtracking that would go beyond is a parse error, not a hang.
pub const PARSE_STEPS_PER_BYTE: usize = 64;

/// See [`PARSE_STEPS_PER_BYTE`].
pub const PARSE_STEPS_BASE: usize = 10_000;

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
    /// Rules entered so far, and how many may be.
    steps: usize,
    max_steps: usize,
    /// Steps plus the bytes scanned for runs of words: what the parser did, for the tests that
    /// keep parsing linear.
    work: usize,
    /// The last run of words scanned ([`Parser::words`]): a later word of the run ends it at the
    /// same place, so a run is scanned once, not once per word.
    word_run: Option<WordRun>,
    /// The last `..` in the text: an argument can be a range only before it.
    last_dots: Option<usize>,
    /// Where an argument was found not to be a range (not tried again on backtracking).
    not_ranges: rustc_hash::FxHashSet<usize>,
    /// Where a `for`/`some`/`every` iteration was found not to be a range `a..b`.
    not_range_iterations: rustc_hash::FxHashSet<usize>,
    /// Where arithmetic (`math`) was found not to parse.
    failed_math: rustc_hash::FxHashSet<usize>,
}

/// A run of words separated by whitespace (`a or b`, `string join`).
#[derive(Clone, Copy)]
struct WordRun {
    start: usize,
    end: usize,
    /// Where its last word starts.
    last_word: usize,
    /// Where its last reserved word (`or`, `and`, ...) starts.
    last_reserved: Option<usize>,
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
            steps: 0,
            max_steps: PARSE_STEPS_BASE
                .saturating_add(src.len().saturating_mul(PARSE_STEPS_PER_BYTE)),
            work: 0,
            word_run: None,
            last_dots: src.as_bytes().windows(2).rposition(|w| w == b".."),
            not_ranges: Default::default(),
            not_range_iterations: Default::default(),
            failed_math: Default::default(),
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
            return self.fail(format!(
                "the expression is nested deeper than {MAX_NESTING} levels"
            ));
        }
        self.step()
    }

    /// Counts a step of the parse (a rule entered, a prefix or postfix operator read).
    fn step(&mut self) -> P<()> {
        self.steps += 1;
        self.work += 1;
        if self.steps > self.max_steps {
            return self.fail(format!(
                "the expression takes more than {} steps to parse",
                self.max_steps
            ));
        }
        Some(())
    }

    /// A node built by a loop (a chain of operators, postfix paths, prefix minus signs), whose
    /// height the nesting limit does not bound.
    fn chained(&mut self, e: Expr) -> P<Expr> {
        if e.height() > MAX_HEIGHT {
            return self.fail(format!(
                "the expression is nested deeper than {MAX_HEIGHT} levels"
            ));
        }
        Some(e)
    }

    /// Ends the parse with an error that no alternative can recover from.
    fn fail<T>(&mut self, message: String) -> P<T> {
        if self.fatal.is_none() {
            self.fatal = Some(ParseError::new(self.src, self.pos, vec![], message));
        }
        None
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

    /// What the parser did for `src` (rules entered plus bytes scanned for runs of words).
    fn work(src: &str) -> usize {
        let mut p = Parser::new(src);
        let r = p.expression();
        assert!(p.finish(r).is_ok(), "parses: {}", &src[..80.min(src.len())]);
        p.work
    }

    #[test]
    fn parsing_is_linear_in_the_length_of_word_runs_and_chains() {
        // Names may contain spaces: each name in a run of words once rescanned the rest of the
        // run, which made these quadratic. Ten times the chain must be about ten times the work.
        for unit in [
            " or a",
            " and a",
            " or a between a and a",
            " or a instance of number",
            " or f(x)",
            " + f([1, 2])",
        ] {
            let list =
                |n: usize| format!("[{}]", vec![format!("a{}", unit.repeat(n)); 10].join(", "));
            let (small, large) = (work(&list(90)), work(&list(900)));
            assert!(
                large < 12 * small,
                "{unit:?}: 10x the chain took {}x the work",
                large / small.max(1)
            );
        }
    }

    #[test]
    fn deep_trees_are_parse_errors_whatever_builds_them() {
        let cases = [
            format!("{}x", "- ".repeat(100_000)),
            format!("x{}", " or x".repeat(20_000)),
            format!("x{}", " + x".repeat(20_000)),
            format!("x{}", ".a".repeat(20_000)),
            format!("x{}", "[1]".repeat(20_000)),
            format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000)),
            format!("{}1", "if true then ".repeat(20_000)),
            format!("{}x", "not(".repeat(20_000)),
        ];
        for src in &cases {
            let e = parse_expression(src).unwrap_err();
            assert!(e.message.contains("nested deeper than"), "{}", e.message);
        }
        // a run of minus signs before a number is folded into the number
        assert!(parse_expression(&format!("{}5", "- ".repeat(100_000))).is_ok());
    }

    #[test]
    fn nested_alternatives_are_not_parsed_again_and_again() {
        // each iteration is tried as a range `a..b` before it is read as a list, and each
        // argument as a range before an expression: without memory of the failed attempts, every
        // level parses the levels inside it twice
        for src in [
            format!("{}1] satisfies odd(x) + y..z", "every x in [".repeat(25)),
            format!("{}1{} + x..y", "f([".repeat(25), "])".repeat(25)),
        ] {
            let mut p = Parser::new(&src);
            let r = p.expression();
            let _ = p.finish(r);
            assert!(
                p.steps < 50 * src.len(),
                "{} steps for {} bytes",
                p.steps,
                src.len()
            );
        }
    }

    #[test]
    fn backtracking_is_bounded_by_the_step_limit() {
        // every argument `f([` is tried as a range before it is read as a list
        let src = format!("{}1{} + x..y", "f([".repeat(40), "])".repeat(40));
        let mut p = Parser::new(&src);
        let r = p.expression();
        let _ = p.finish(r);
        assert!(p.steps <= p.max_steps, "{} steps", p.steps);
    }
}
