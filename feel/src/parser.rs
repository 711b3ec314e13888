//! Text → [`Expr`], following feel-scala's grammar (`FeelParser.scala`): the same operator
//! levels, the same ordered alternatives (a PEG, like fastparse), the same names.
//!
//! The structure is recursive descent over a cursor; the tokens (numbers, strings, names,
//! whitespace and comments) are nom parsers. A failed alternative backtracks; the error reported
//! is the one that got furthest, with what was expected there.

use std::sync::Arc;

use nom::IResult;
use nom::Parser as _;
use nom::bytes::complete::{tag, take_until, take_while, take_while1};
use nom::character::complete::{char as nchar, digit1};
use nom::combinator::{opt, recognize};
use nom::sequence::pair;

use crate::ast::{Args, ArithOp, CmpOp, Expr, ExprKind, Iteration};
use crate::error::ParseError;
use crate::number::Number;
use crate::temporal;
use crate::value::Value;

/// Nesting deeper than this is a parse error, not a stack overflow.
pub const MAX_NESTING: usize = 96;

/// Words that are never a variable name.
fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "null"
            | "true"
            | "false"
            | "function"
            | "in"
            | "return"
            | "then"
            | "else"
            | "satisfies"
            | "and"
            | "or"
            | "some"
            | "every"
            | "if"
            | "for"
            | "between"
            | "instance"
            | "of"
            | "not"
    )
}

/// Built-in function names that contain a reserved word (`date and time`, `get or else`, ...).
const BUILTIN_NAMES_WITH_SPACES: &[&str] = &[
    "years and months duration",
    "date and time",
    "get or else",
    "is defined",
    "string length",
    "upper case",
    "lower case",
    "substring before",
    "substring after",
    "starts with",
    "ends with",
    "list contains",
    "insert before",
    "index of",
    "distinct values",
    "duplicate values",
    "get entries",
    "get value",
    "context put",
    "context merge",
    "put all",
    "day of year",
    "day of week",
    "month of year",
    "week of year",
    "last day of month",
    "round up",
    "round down",
    "round half up",
    "round half down",
    "random number",
    "met by",
    "overlaps before",
    "overlaps after",
    "finished by",
    "started by",
    "string join",
    "is blank",
    "to base64",
    "from base64",
    "from json",
    "to json",
    "date and time",
];

/// FEEL whitespace: java's whitespace plus the DMN whitespace characters feel-scala accepts.
pub fn is_feel_whitespace(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\n'
            | '\r'
            | '\u{0B}'
            | '\u{0C}'
            | '\u{85}'
            | '\u{A0}'
            | '\u{1680}'
            | '\u{180E}'
            | '\u{2000}'
            ..='\u{200B}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

#[inline]
fn is_name_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic() || c == '_' || c == '$';
    }
    c.is_alphabetic()
        || c == '_'
        || c == '$'
        || (!c.is_ascii() && !is_feel_whitespace(c) && !c.is_control() && is_symbolic_name_char(c))
}

fn is_symbolic_name_char(c: char) -> bool {
    // java's isJavaIdentifierStart also admits currency symbols and connecting punctuation
    matches!(c, '\u{A2}'..='\u{A5}' | '\u{203F}' | '\u{2040}' | '\u{20A0}'..='\u{20CF}')
}

#[inline]
fn is_name_part(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_' || c == '$';
    }
    is_name_start(c) || c.is_numeric() || c == '\u{200C}' || c == '\u{200D}'
}

// ---------- nom token parsers ----------

fn line_comment(i: &str) -> IResult<&str, &str> {
    recognize(pair(tag("//"), take_while(|c| c != '\n'))).parse(i)
}

fn block_comment(i: &str) -> IResult<&str, &str> {
    recognize((tag("/*"), take_until("*/"), tag("*/"))).parse(i)
}

fn whitespace(i: &str) -> IResult<&str, &str> {
    take_while1(is_feel_whitespace).parse(i)
}

fn ident_token(i: &str) -> IResult<&str, &str> {
    // ASCII names without decoding characters
    let bytes = i.as_bytes();
    if bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'$')
    {
        let end = bytes
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$'))
            .unwrap_or(bytes.len());
        if bytes.get(end).is_none_or(|b| b.is_ascii()) {
            return Ok((&i[end..], &i[..end]));
        }
    }
    let mut chars = i.char_indices();
    match chars.next() {
        Some((_, c)) if is_name_start(c) => {}
        _ => {
            return Err(nom::Err::Error(nom::error::Error::new(
                i,
                nom::error::ErrorKind::Alpha,
            )));
        }
    }
    let end = chars
        .find(|(_, c)| !is_name_part(*c))
        .map(|(p, _)| p)
        .unwrap_or(i.len());
    Ok((&i[end..], &i[..end]))
}

fn number_token(i: &str) -> IResult<&str, &str> {
    let frac = |i| recognize(pair(nchar('.'), digit1)).parse(i);
    nom::branch::alt((recognize(pair(digit1, opt(frac))), recognize(frac))).parse(i)
}

/// The raw text between the quotes of a string literal (escapes still in it).
fn string_token(i: &str) -> IResult<&str, &str> {
    let (rest, _) = nchar('"').parse(i)?;
    let bytes = rest.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => k += 2,
            b'"' => return Ok((&rest[k + 1..], &rest[..k])),
            _ => k += 1,
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(
        i,
        nom::error::ErrorKind::Char,
    )))
}

/// feel-scala's escapes: `\"`, `\\`, `\'`, `\n`, `\r`, `\t`, `\b`, `\f`, `\uXXXX`; any other
/// backslash sequence (e.g. `\d`, `\U101EF`) stays as written.
pub fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    let mut pending_high: Option<u16> = None;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('"') => {
                chars.next();
                out.push('"');
            }
            Some('\\') => {
                chars.next();
                out.push('\\');
            }
            Some('\'') => {
                chars.next();
                out.push('\'');
            }
            Some('n') => {
                chars.next();
                out.push('\n');
            }
            Some('r') => {
                chars.next();
                out.push('\r');
            }
            Some('t') => {
                chars.next();
                out.push('\t');
            }
            Some('b') => {
                chars.next();
                out.push('\u{8}');
            }
            Some('f') => {
                chars.next();
                out.push('\u{C}');
            }
            Some('u') => {
                let look: String = chars.clone().skip(1).take(4).collect();
                if look.len() == 4 && look.chars().all(|c| c.is_ascii_hexdigit()) {
                    chars.next();
                    for _ in 0..4 {
                        chars.next();
                    }
                    let unit = u16::from_str_radix(&look, 16).unwrap_or(0xFFFD);
                    if (0xD800..0xDC00).contains(&unit) {
                        pending_high = Some(unit);
                    } else if let (Some(high), true) =
                        (pending_high.take(), (0xDC00..0xE000).contains(&unit))
                    {
                        out.extend(
                            char::decode_utf16([high, unit]).map(|r| r.unwrap_or('\u{FFFD}')),
                        );
                    } else {
                        out.push(char::from_u32(unit as u32).unwrap_or('\u{FFFD}'));
                    }
                } else {
                    out.push('\\');
                }
            }
            _ => out.push('\\'),
        }
    }
    out
}

// ---------- the parser ----------

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

    // ----- names -----

    /// A plain identifier that is not a reserved word.
    fn identifier(&mut self) -> P<&'s str> {
        self.ws();
        match ident_token(self.rest()) {
            Ok((_, id)) if !is_reserved(id) => {
                self.pos += id.len();
                Some(id)
            }
            _ => {
                self.expect("name");
                None
            }
        }
    }

    /// `` `any text` ``
    fn escaped_identifier(&mut self) -> P<&'s str> {
        self.ws();
        let r = self.rest();
        if let Some(body) = r.strip_prefix('`')
            && let Some(end) = body.find('`')
            && end > 0
        {
            self.pos += end + 2;
            return Some(&body[..end]);
        }
        None
    }

    fn name(&mut self) -> P<Arc<str>> {
        if let Some(n) = self.escaped_identifier() {
            return Some(self.intern(n));
        }
        let n = self.identifier()?;
        Some(self.intern(n))
    }

    /// Words separated by whitespace, as written (`start position`, `test   name`); used where a
    /// fixed character follows (`(` for calls, `:` for named arguments, `,`/`)` for parameters).
    fn words(&mut self) -> P<&'s str> {
        self.ws();
        let start = self.pos;
        let (_, first) = ident_token(self.rest()).ok()?;
        self.pos += first.len();
        let mut end = self.pos;
        loop {
            let save = self.pos;
            let r = self.rest();
            let skipped = r.len() - r.trim_start_matches(is_feel_whitespace).len();
            if skipped == 0 {
                break;
            }
            self.pos += skipped;
            match ident_token(self.rest()) {
                Ok((_, w)) => {
                    self.pos += w.len();
                    end = self.pos;
                }
                Err(_) => {
                    self.pos = save;
                    break;
                }
            }
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    fn parameter_name(&mut self) -> P<Arc<str>> {
        let save = self.pos;
        if let Some(n) = self.escaped_identifier() {
            return Some(self.intern(n));
        }
        match self.words() {
            Some(w) if !is_reserved(w) => Some(self.intern(w)),
            _ => {
                self.pos = save;
                self.expect("parameter name");
                None
            }
        }
    }

    // ----- expressions -----

    fn expression(&mut self) -> P<Expr> {
        self.enter()?;
        let r = self.expression_inner();
        self.leave();
        r
    }

    fn expression_inner(&mut self) -> P<Expr> {
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

    fn iterators(&mut self) -> P<Vec<(Arc<str>, Iteration)>> {
        let mut out = Vec::new();
        loop {
            let name = self.name()?;
            let name = self.bind(name);
            if !self.keyword("in") {
                return None;
            }
            // iterationContext (a..b) | value
            let save = self.pos;
            let it = match self.range_iteration() {
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

    fn range_iteration(&mut self) -> P<Iteration> {
        let a = self.math()?;
        if !self.token("..") {
            return None;
        }
        let b = self.math()?;
        Some(Iteration::Range(a, b))
    }

    fn disjunction(&mut self) -> P<Expr> {
        let start = self.pos;
        let mut left = self.conjunction()?;
        while self.keyword("or") {
            let right = self.conjunction()?;
            left = Expr::new(ExprKind::Or(boxed(left), boxed(right)), start, self.pos);
        }
        Some(left)
    }

    fn conjunction(&mut self) -> P<Expr> {
        let start = self.pos;
        let mut left = self.comparison()?;
        while self.keyword("and") {
            let right = self.comparison()?;
            left = Expr::new(ExprKind::And(boxed(left), boxed(right)), start, self.pos);
        }
        Some(left)
    }

    /// expLvl3: `math [comparison] | simplePositiveUnaryTest`
    fn comparison(&mut self) -> P<Expr> {
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

    fn optional_comparison(&mut self, x: Expr, start: usize) -> P<Expr> {
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
    fn type_word(&mut self) -> P<Arc<str>> {
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

    fn type_name(&mut self) -> P<Arc<str>> {
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
        // generic types (`list<number>`) are taken as written
        if self.at("<") {
            let start = self.pos;
            let mut level = 0;
            for (i, c) in self.rest().char_indices() {
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

    fn math(&mut self) -> P<Expr> {
        self.enter()?;
        let r = self.arithmetic(0);
        self.leave();
        r
    }

    /// The arithmetic operator at the cursor (after whitespace): the operator, its length and
    /// its level (`+ -` 0, `* /` 1, `**` 2).
    fn arith_op(&mut self) -> Option<(ArithOp, usize, u8)> {
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
    fn arithmetic(&mut self, min_level: u8) -> P<Expr> {
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
                    left = Expr::new(
                        ExprKind::Arith(op, boxed(left), boxed(right)),
                        start,
                        self.pos,
                    )
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

    fn negation(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        if self.rest().starts_with('-') {
            self.pos += 1;
            let v = self.negation()?;
            if let ExprKind::Const(Value::Number(n)) = &v.kind {
                return Some(Expr::new(
                    ExprKind::Const(Value::Number(n.neg())),
                    start,
                    self.pos,
                ));
            }
            return Some(Expr::new(ExprKind::Neg(boxed(v)), start, self.pos));
        }
        self.value()
    }

    // ----- values -----

    fn value(&mut self) -> P<Expr> {
        self.enter()?;
        let r = self.value_inner();
        self.leave();
        r
    }

    fn value_inner(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        let mut v = self.terminal()?;
        loop {
            self.ws();
            let r = self.rest();
            if r.starts_with('.') && !r.starts_with("..") {
                let save = self.pos;
                self.pos += 1;
                self.ws();
                let name: Arc<str> = if self.rest().starts_with("time offset") {
                    self.pos += "time offset".len();
                    "time offset".into()
                } else {
                    match self.name() {
                        Some(n) => n,
                        None => {
                            self.pos = save;
                            break;
                        }
                    }
                };
                if self.at("(") {
                    let args = self.call_args()?;
                    v = Expr::new(ExprKind::MethodCall(boxed(v), name, args), start, self.pos);
                } else {
                    v = Expr::new(ExprKind::Path(boxed(v), name), start, self.pos);
                }
            } else if r.starts_with('[') {
                self.pos += 1;
                let f = self.expression()?;
                if !self.token("]") {
                    return None;
                }
                v = Expr::new(ExprKind::Filter(boxed(v), boxed(f)), start, self.pos);
            } else {
                break;
            }
        }
        Some(v)
    }

    fn terminal(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        let r = self.rest();
        let Some(c) = r.chars().next() else {
            self.expect("expression");
            return None;
        };
        // temporal literal @"..."
        if c == '@' {
            self.pos += 1;
            self.ws();
            let Ok((rest, raw)) = string_token(self.rest()) else {
                self.expect("string");
                return None;
            };
            self.pos = self.src.len() - rest.len();
            let text = unescape(raw);
            return Some(Expr::new(
                ExprKind::Const(temporal_literal(&text)),
                start,
                self.pos,
            ));
        }
        if c == '"' {
            let Ok((rest, raw)) = string_token(r) else {
                self.expect("closing '\"'");
                return None;
            };
            self.pos = self.src.len() - rest.len();
            return Some(Expr::new(
                ExprKind::Const(Value::String(unescape(raw).into())),
                start,
                self.pos,
            ));
        }
        if c.is_ascii_digit() || (c == '.' && r[1..].starts_with(|c: char| c.is_ascii_digit())) {
            let Ok((rest, text)) = number_token(r) else {
                self.expect("number");
                return None;
            };
            let n = Number::parse(text)?;
            self.pos = self.src.len() - rest.len();
            return Some(Expr::new(
                ExprKind::Const(Value::Number(n)),
                start,
                self.pos,
            ));
        }
        if c == '[' {
            self.pos += 1;
            let mut items = Vec::new();
            if !self.token("]") {
                loop {
                    items.push(self.expression()?);
                    if self.token(",") {
                        continue;
                    }
                    if self.token("]") {
                        break;
                    }
                    return None;
                }
            }
            return Some(Expr::new(ExprKind::List(items), start, self.pos));
        }
        if c == '{' {
            return self.context_literal();
        }
        if c == '(' {
            self.pos += 1;
            let e = self.expression()?;
            if !self.token(")") {
                return None;
            }
            // keep the span of the parentheses for messages
            return Some(Expr {
                span: crate::ast::Span {
                    start,
                    end: self.pos,
                },
                kind: e.kind,
            });
        }
        if c == '?' {
            self.pos += 1;
            return Some(Expr::new(ExprKind::Input, start, self.pos));
        }
        if c == '`' {
            let name = self.escaped_identifier()?;
            if self.at("(") {
                let args = self.call_args()?;
                return Some(Expr::new(
                    ExprKind::Call(name.into(), args),
                    start,
                    self.pos,
                ));
            }
            let name = self.intern(name);
            return Some(Expr::new(ExprKind::Name(name), start, self.pos));
        }
        if !is_name_start(c) {
            self.expect("expression");
            return None;
        }
        let (_, word) = ident_token(r).ok()?;
        // fast path: a single word (not a keyword) followed by neither a word nor `(` is a
        // variable; one followed by `(` is a call by that name
        if !matches!(word, "date" | "time" | "duration") && !is_reserved(word) {
            let after = &r[word.len()..];
            let gap = after.len() - after.trim_start_matches(is_feel_whitespace).len();
            let next = after[gap..].chars().next();
            if !next.is_some_and(is_name_start) {
                self.pos += word.len();
                if next == Some('(') {
                    let args = self.call_args()?;
                    return Some(Expr::new(
                        ExprKind::Call(word.into(), args),
                        start,
                        self.pos,
                    ));
                }
                let name = self.intern(word);
                return Some(Expr::new(ExprKind::Name(name), start, self.pos));
            }
        }
        match word {
            "null" => {
                self.pos += 4;
                return Some(Expr::new(ExprKind::Const(Value::Null), start, self.pos));
            }
            "true" | "false" => {
                self.pos += word.len();
                return Some(Expr::new(
                    ExprKind::Const(Value::Boolean(word == "true")),
                    start,
                    self.pos,
                ));
            }
            "function" => return self.function_definition(),
            _ => {}
        }
        // temporal(...) with a single string literal: a constant
        for kw in ["date and time", "duration", "date", "time"] {
            if r.starts_with(kw) && !r[kw.len()..].starts_with(is_name_part) {
                let save = self.pos;
                self.pos += kw.len();
                if self.token("(") {
                    self.ws();
                    if let Ok((rest, raw)) = string_token(self.rest()) {
                        self.pos = self.src.len() - rest.len();
                        if self.token(")") {
                            let text = unescape(raw);
                            let v = match kw {
                                "date" => temporal::parse_date(&text).map(Value::Date),
                                "time" => temporal::parse_time(&text).map(Value::time),
                                "date and time" => date_time_value(&text),
                                _ => duration_value(&text),
                            };
                            return Some(Expr::new(
                                ExprKind::Const(v.unwrap_or(Value::Null)),
                                start,
                                self.pos,
                            ));
                        }
                    }
                }
                self.pos = save;
                break;
            }
        }
        // function invocation: words followed by `(`
        let save = self.pos;
        if let Some(words) = self.words() {
            let multi = words.contains(is_feel_whitespace);
            let ok = if multi {
                let norm = words
                    .split(is_feel_whitespace)
                    .filter(|w| !w.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                BUILTIN_NAMES_WITH_SPACES.contains(&norm.as_str())
                    || !words.split(is_feel_whitespace).any(is_reserved)
            } else {
                !is_reserved(words) || matches!(words, "not" | "and" | "or")
            };
            if ok && self.at("(") {
                let name: Arc<str> = if multi {
                    words
                        .split(is_feel_whitespace)
                        .filter(|w| !w.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ")
                        .into()
                } else {
                    words.into()
                };
                let args = self.call_args()?;
                return Some(Expr::new(ExprKind::Call(name, args), start, self.pos));
            }
        }
        self.pos = save;
        // a variable: the first word (already known to be a name start)
        let end = save + word.len();
        if is_reserved(word) {
            self.expect("name");
            return None;
        }
        self.pos = end;
        let name = self.intern(word);
        Some(Expr::new(ExprKind::Name(name), start, self.pos))
    }

    fn context_literal(&mut self) -> P<Expr> {
        let start = self.pos;
        self.pos += 1; // {
        let mut entries: Vec<(Arc<str>, Expr)> = Vec::new();
        if self.token("}") {
            return Some(Expr::new(ExprKind::Context(entries), start, self.pos));
        }
        loop {
            let key = self.context_key()?;
            if !self.token(":") {
                return None;
            }
            let value = self.expression()?;
            entries.push((key, value));
            if self.token(",") {
                continue;
            }
            if self.token("}") {
                break;
            }
            return None;
        }
        Some(Expr::new(ExprKind::Context(entries), start, self.pos))
    }

    /// A context key: a name (which may contain spaces and symbols, `foo bar`, `a+b`, `how?`),
    /// a backtick name or a string literal.
    fn context_key(&mut self) -> P<Arc<str>> {
        self.ws();
        let r = self.rest();
        if r.starts_with('"') {
            let Ok((rest, raw)) = string_token(r) else {
                self.expect("context key");
                return None;
            };
            self.pos = self.src.len() - rest.len();
            return Some(unescape(raw).into());
        }
        if r.starts_with('`') {
            return self.escaped_identifier().map(Arc::from);
        }
        let end = r
            .find([':', ',', '{', '}', '"', '[', ']', '(', ')', '`'])
            .unwrap_or(r.len());
        let key = r[..end].trim_end_matches(is_feel_whitespace);
        if key.is_empty() || is_reserved(key) || key.starts_with(|c: char| c.is_ascii_digit()) {
            self.expect("context key");
            return None;
        }
        self.pos += key.len();
        Some(key.into())
    }

    fn function_definition(&mut self) -> P<Expr> {
        let start = self.pos;
        if !self.keyword("function") || !self.token("(") {
            return None;
        }
        let mut params = Vec::new();
        if !self.token(")") {
            loop {
                let p = self.parameter_name()?;
                params.push(self.bind(p));
                // a parameter may carry a type: `x: number`
                if self.token(":") {
                    self.type_name()?;
                }
                if self.token(",") {
                    continue;
                }
                if self.token(")") {
                    break;
                }
                return None;
            }
        }
        if self.keyword("external") {
            self.expect("expression (external functions are not supported)");
            return None;
        }
        let body = self.expression()?;
        Some(Expr::new(
            ExprKind::FunctionDef(params, Arc::new(body)),
            start,
            self.pos,
        ))
    }

    fn call_args(&mut self) -> P<Args> {
        if !self.token("(") {
            return None;
        }
        if self.token(")") {
            return Some(Args::Positional(Vec::new()));
        }
        // named parameters?
        let save = self.pos;
        if let Some(first) = self.parameter_name()
            && self.token(":")
        {
            let mut named = vec![(first, self.argument()?)];
            loop {
                if self.token(")") {
                    return Some(Args::Named(named));
                }
                if !self.token(",") {
                    return None;
                }
                let n = self.parameter_name()?;
                if !self.token(":") {
                    return None;
                }
                named.push((n, self.argument()?));
            }
        }
        if self.fatal.is_some() {
            return None;
        }
        self.pos = save;
        let mut args = Vec::new();
        loop {
            args.push(self.argument()?);
            if self.token(")") {
                return Some(Args::Positional(args));
            }
            if !self.token(",") {
                return None;
            }
        }
    }

    /// A function argument: a range (`[1..5)`) or an expression.
    fn argument(&mut self) -> P<Expr> {
        let save = self.pos;
        // a range needs `..`: without one ahead, `[1, 2]` is not parsed twice (the second
        // pass, which words the error, tries it as the grammar does)
        if !self.track && !self.rest().contains("..") {
            return self.expression();
        }
        if let Some(r) = self.range_literal() {
            self.ws();
            if self.rest().starts_with([',', ')']) {
                return Some(r);
            }
        }
        if self.fatal.is_some() {
            return None;
        }
        self.pos = save;
        self.expression()
    }

    fn range_literal(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        let start_closed = match self.peek_char() {
            Some('[') => true,
            Some('(') | Some(']') => false,
            _ => return None,
        };
        self.pos += 1;
        let a = self.math()?;
        if !self.token("..") {
            return None;
        }
        let b = self.math()?;
        self.ws();
        let end_closed = match self.peek_char() {
            Some(']') => true,
            Some(')') | Some('[') => false,
            _ => {
                self.expect("']' or ')'");
                return None;
            }
        };
        self.pos += 1;
        Some(Expr::new(
            ExprKind::Range {
                start: boxed(a),
                start_closed,
                end: boxed(b),
                end_closed,
            },
            start,
            self.pos,
        ))
    }

    // ----- unary tests -----

    /// `< x`, `<= x`, `> x`, `>= x`, or an interval `[a..b]`.
    fn simple_positive_unary_test(&mut self) -> P<Expr> {
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

    fn positive_unary_test(&mut self) -> P<Expr> {
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

    fn positive_unary_tests(&mut self) -> P<Expr> {
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

    fn unary_tests(&mut self) -> P<Expr> {
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

/// `@"..."`: a date, time, date-time or duration, decided by the text (null if none fits).
fn temporal_literal(text: &str) -> Value {
    if let Some(d) = temporal::parse_date(text) {
        return Value::Date(d);
    }
    if let Some(v) = date_time_value(text) {
        return v;
    }
    if let Some(t) = temporal::parse_time(text) {
        return Value::time(t);
    }
    duration_value(text).unwrap_or(Value::Null)
}

/// `date and time("...")` of a literal: a date-time, or a date at midnight.
pub(crate) fn date_time_value(text: &str) -> Option<Value> {
    if let Some(d) = temporal::parse_date(text) {
        return Some(Value::date_time(temporal::DateTime::Local(
            d.to_datetime(jiff::civil::Time::midnight()),
        )));
    }
    temporal::parse_date_time(text).map(Value::date_time)
}

/// `duration("...")`: years-months if it only has Y/M fields, else days-time.
pub(crate) fn duration_value(text: &str) -> Option<Value> {
    if let Some(ym) = temporal::parse_year_month_duration(text) {
        return Some(Value::YearMonthDuration(ym));
    }
    temporal::parse_day_time_duration(text).map(Value::DayTimeDuration)
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
