//! Values: terminals (literals, lists, contexts, parentheses, names and calls), the postfix
//! paths and filters after them, names as written, function definitions and call arguments.

use std::sync::Arc;

use super::{P, Parser, WordRun, boxed};
use crate::ast::{Args, Expr, ExprKind};
use crate::lex::{
    BUILTIN_NAMES_WITH_SPACES, ident_token, is_feel_whitespace, is_name_part, is_name_start,
    is_reserved, number_token, string_token, unescape,
};
use crate::number::Number;
use crate::temporal;
use crate::value::Value;

impl<'s> Parser<'s> {
    // ----- names -----

    /// A plain identifier that is not a reserved word.
    pub(super) fn identifier(&mut self) -> P<&'s str> {
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
    pub(super) fn escaped_identifier(&mut self) -> P<&'s str> {
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

    pub(super) fn name(&mut self) -> P<Arc<str>> {
        if let Some(n) = self.escaped_identifier() {
            return Some(self.intern(n));
        }
        let n = self.identifier()?;
        Some(self.intern(n))
    }

    /// Words separated by whitespace, as written (`start position`, `test   name`); used where a
    /// fixed character follows (`(` for calls, `:` for named arguments, `,`/`)` for parameters).
    pub(super) fn words(&mut self) -> P<&'s str> {
        self.ws();
        let start = self.pos;
        // a later word of the run seen last: the run ends where it ended
        if let Some(run) = self.word_run
            && (run.start..run.end).contains(&start)
            && (start == run.start || self.src[..start].ends_with(is_feel_whitespace))
        {
            self.pos = run.end;
            return Some(&self.src[start..run.end]);
        }
        let (_, first) = ident_token(self.rest()).ok()?;
        let mut run = WordRun {
            start,
            end: start + first.len(),
            last_word: start,
            last_reserved: is_reserved(first).then_some(start),
        };
        self.pos = run.end;
        loop {
            let r = self.rest();
            let skipped = r.len() - r.trim_start_matches(is_feel_whitespace).len();
            if skipped == 0 {
                break;
            }
            let Ok((_, w)) = ident_token(&r[skipped..]) else {
                break;
            };
            run.last_word = self.pos + skipped;
            if is_reserved(w) {
                run.last_reserved = Some(run.last_word);
            }
            self.pos = run.last_word + w.len();
            run.end = self.pos;
        }
        self.work += run.end - start;
        self.pos = run.end;
        self.word_run = Some(run);
        Some(&self.src[start..run.end])
    }

    pub(super) fn parameter_name(&mut self) -> P<Arc<str>> {
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

    // ----- values -----

    pub(super) fn value(&mut self) -> P<Expr> {
        self.enter()?;
        let r = self.value_inner();
        self.leave();
        r
    }

    pub(super) fn value_inner(&mut self) -> P<Expr> {
        self.ws();
        let start = self.pos;
        let mut v = self.terminal()?;
        loop {
            self.step()?;
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
                    v = self.chained(Expr::new(
                        ExprKind::MethodCall(boxed(v), name, args),
                        start,
                        self.pos,
                    ))?;
                } else {
                    v = self.chained(Expr::new(ExprKind::Path(boxed(v), name), start, self.pos))?;
                }
            } else if r.starts_with('[') {
                self.pos += 1;
                let f = self.expression()?;
                if !self.token("]") {
                    return None;
                }
                v = self.chained(Expr::new(
                    ExprKind::Filter(boxed(v), boxed(f)),
                    start,
                    self.pos,
                ))?;
            } else {
                break;
            }
        }
        Some(v)
    }

    pub(super) fn terminal(&mut self) -> P<Expr> {
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
            return Some(e.with_span(start, self.pos));
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
        self.named_terminal(start)
    }

    /// A terminal that starts with a name: `null`, `true`, `false`, a function definition, a
    /// temporal constant (`date("2020-01-01")`), a call (whose name may have spaces:
    /// `string join(...)`) or a variable.
    fn named_terminal(&mut self, start: usize) -> P<Expr> {
        let r = self.rest();
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
                                "date and time" => Value::date_time_from_text(&text),
                                _ => Value::duration_from_text(&text),
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
        if let Some(words) = self.words()
            && let Some(run) = self.word_run
            && self.at("(")
        {
            let words_start = run.end - words.len();
            let multi = run.last_word > words_start;
            let ok = if multi {
                // a name with a reserved word in it is one of the built-ins so named
                run.last_reserved.is_none_or(|r| r < words_start) || is_builtin_with_spaces(words)
            } else {
                !is_reserved(words) || matches!(words, "not" | "and" | "or")
            };
            if ok {
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

    pub(super) fn context_literal(&mut self) -> P<Expr> {
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
    pub(super) fn context_key(&mut self) -> P<Arc<str>> {
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

    pub(super) fn function_definition(&mut self) -> P<Expr> {
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

    pub(super) fn call_args(&mut self) -> P<Args> {
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
    pub(super) fn argument(&mut self) -> P<Expr> {
        let save = self.pos;
        // a range needs `..`: without one ahead, `[1, 2]` is not parsed twice (the second
        // pass, which words the error, tries it as the grammar does)
        if !self.track && self.last_dots.is_none_or(|d| d < self.pos) {
            return self.expression();
        }
        // on backtracking, a position already known not to start a range is not tried again
        if !self.not_ranges.contains(&save) {
            if let Some(r) = self.range_literal() {
                self.ws();
                if self.rest().starts_with([',', ')']) {
                    return Some(r);
                }
            }
            if self.fatal.is_some() {
                return None;
            }
            self.not_ranges.insert(save);
        }
        self.pos = save;
        self.expression()
    }

    pub(super) fn range_literal(&mut self) -> P<Expr> {
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
}

/// `@"..."`: a date, time, date-time or duration, decided by the text (null if none fits).
pub(super) fn temporal_literal(text: &str) -> Value {
    if let Some(d) = temporal::parse_date(text) {
        return Value::Date(d);
    }
    if let Some(v) = Value::date_time_from_text(text) {
        return v;
    }
    if let Some(t) = temporal::parse_time(text) {
        return Value::time(t);
    }
    Value::duration_from_text(text).unwrap_or(Value::Null)
}

/// Whether words (a run with spaces) name a built-in whose name has a reserved word in it
/// (`date and time`, `get or else`); such names have at most five words.
fn is_builtin_with_spaces(words: &str) -> bool {
    let mut parts = Vec::new();
    for w in words.split(is_feel_whitespace).filter(|w| !w.is_empty()) {
        if parts.len() == 5 {
            return false;
        }
        parts.push(w);
    }
    BUILTIN_NAMES_WITH_SPACES.contains(&parts.join(" ").as_str())
}
