//! The interpreter: walks the [`Expr`] tree with feel-scala's semantics (null-safe, three-valued
//! logic, suppressed failures recorded as warnings in evaluation order). This file holds the
//! state, the scopes and one function per node kind; `iteration` (for/some/every), `call`
//! (function calls), `operators` (comparison, arithmetic, ranges), `temporal_arithmetic` (`+`,
//! `-`, `*`, `/` with dates, times and durations) and `unary_tests` (the DMN test nodes) hold
//! the rest.

mod call;
mod iteration;
mod operators;
mod temporal_arithmetic;
mod unary_tests;

pub(crate) use call::CallArgs;
pub(crate) use operators::instance_of;

use std::fmt;
use std::sync::Arc;

use operators::index;

use crate::ast::{Args, ArithOp, CmpOp, Expr, ExprKind, ITEM};
use crate::env::{Env, Variables};
use crate::error::{Failure, Warning, WarningKind};
use crate::temporal::YearMonthDuration;
use crate::value::{Bound, Context, Function, FunctionBody, Range, Value, properties_of, property};

/// The result of evaluating a node: a value, or a failure that ends the evaluation.
pub(crate) type R = Result<Value, Failure>;

/// Bytes of one value (or list of names) that a warning message shows; longer text is cut and
/// ends in `…`. A warning per item of a long list would otherwise write the whole value each time
/// (a comparison of a 100,000-item list in a loop of 100,000 took minutes).
pub(crate) const SHOWN_BYTES: usize = 1_000;

/// Text as a warning message shows it: at most [`SHOWN_BYTES`], then `…`. Writing stops at the
/// cut, so a huge value costs no more than a short one.
pub(crate) struct Shown<T>(pub T);

impl<T: fmt::Display> fmt::Display for Shown<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Cut<'a, 'b> {
            out: &'a mut fmt::Formatter<'b>,
            left: usize,
            cut: bool,
        }
        impl fmt::Write for Cut<'_, '_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                if s.len() <= self.left {
                    self.left -= s.len();
                    return self.out.write_str(s);
                }
                let mut end = self.left;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                self.out.write_str(&s[..end])?;
                self.left = 0;
                self.cut = true;
                Err(fmt::Error)
            }
        }
        let mut cut = Cut {
            out: f,
            left: SHOWN_BYTES,
            cut: false,
        };
        match fmt::write(&mut cut, format_args!("{}", self.0)) {
            Err(_) if cut.cut => cut.out.write_str("…"),
            done => done,
        }
    }
}

/// Text written by a function, for [`Shown`] (a list of names joined, written lazily).
pub(crate) struct Written<F>(pub F);

impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for Written<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}

/// Local variables visible at a point of the evaluation, innermost first.
pub(crate) enum Scope<'p> {
    /// Only the caller's variables.
    Root,
    /// One name (an iterator, `item`, a parameter).
    One {
        parent: &'p Scope<'p>,
        name: &'p str,
        value: &'p Value,
    },
    /// The entries of a context (a filter item's entries, a context literal being built).
    Context {
        parent: &'p Scope<'p>,
        ctx: &'p Context,
    },
    /// Several names (parameters and captured closure variables).
    Many {
        parent: &'p Scope<'p>,
        entries: &'p [(Arc<str>, Value)],
    },
}

impl<'p> Scope<'p> {
    #[inline]
    fn lookup(&self, name: &str) -> Option<&'p Value> {
        let mut s = self;
        loop {
            match s {
                Scope::Root => return None,
                Scope::One {
                    parent,
                    name: n,
                    value,
                } => {
                    // names the parser shares are one allocation: equal by pointer
                    if n.len() == name.len()
                        && (std::ptr::eq(n.as_ptr(), name.as_ptr()) || *n == name)
                    {
                        let v: &'p Value = value;
                        return Some(v);
                    }
                    s = parent;
                }
                Scope::Context { parent, ctx } => {
                    if let Some(v) = ctx.get(name) {
                        return Some(v);
                    }
                    s = parent;
                }
                Scope::Many { parent, entries } => {
                    if let Some((_, v)) = entries.iter().rev().find(|(k, _)| k.as_ref() == name) {
                        return Some(v);
                    }
                    s = parent;
                }
            }
        }
    }

    /// All local names and values (outermost first), for closures.
    fn capture(&self, out: &mut Vec<(Arc<str>, Value)>) {
        match self {
            Scope::Root => {}
            Scope::One {
                parent,
                name,
                value,
            } => {
                parent.capture(out);
                out.push(((*name).into(), (*value).clone()));
            }
            Scope::Context { parent, ctx } => {
                parent.capture(out);
                out.extend(ctx.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            Scope::Many { parent, entries } => {
                parent.capture(out);
                out.extend(entries.iter().cloned());
            }
        }
    }
}

/// The value of a constant or of a local name, read in place (no clone, no side effects): the
/// operands of comparisons and arithmetic need no copy of their own.
#[inline]
fn peek<'r>(e: &'r Expr, scope: &Scope<'r>) -> Option<&'r Value> {
    match &e.kind {
        ExprKind::Const(v) => Some(v),
        ExprKind::Name(n) => scope.lookup(n),
        _ => None,
    }
}

/// `operand!(self, expr, scope, slot)`: a reference to the operand's value, read in place when
/// [`peek`] can, else evaluated into `slot`.
macro_rules! operand {
    ($ev:expr, $e:expr, $scope:expr, $slot:ident) => {
        match peek($e, $scope) {
            Some(v) => v,
            None => {
                $slot = $ev.eval($e, $scope)?;
                &$slot
            }
        }
    };
}

/// The state of one evaluation.
pub(crate) struct Eval<'a> {
    pub vars: &'a dyn Variables,
    pub env: &'a Env,
    pub source: &'a str,
    warnings: Vec<Warning>,
    /// Warnings past [`crate::Limits::max_warnings`], counted only.
    warnings_left_out: usize,
    depth: usize,
    /// Nodes evaluated and items visited by built-in functions so far ([`crate::Limits::max_steps`]).
    steps: usize,
    /// List items and context entries built so far ([`crate::Limits::max_items`]).
    built_items: usize,
    /// Bytes of strings built so far ([`crate::Limits::max_string_len`]).
    built_bytes: usize,
    /// `for` results so far that hold `partial` (each nests the results one level deeper).
    partial_nesting: usize,
    /// The input of unary tests (`?`).
    input: Option<Value>,
    rng: u64,
}

/// The name feel-scala reads the input value of unary tests from, in plain expressions.
pub(crate) const INPUT_VARIABLE: &str = "cellInput";

impl<'a> Eval<'a> {
    pub fn new(vars: &'a dyn Variables, env: &'a Env, source: &'a str) -> Self {
        Eval {
            vars,
            env,
            source,
            warnings: Vec::new(),
            warnings_left_out: 0,
            depth: 0,
            steps: 0,
            built_items: 0,
            built_bytes: 0,
            partial_nesting: 0,
            input: None,
            rng: env.seed ^ 0x9E37_79B9_7F4A_7C15,
        }
    }

    pub fn with_input(mut self, input: Value) -> Self {
        self.input = Some(input);
        self
    }

    /// Records a suppressed failure. The message is written only if the warning is kept
    /// ([`crate::Limits::max_warnings`]): a warning per item of a long list costs a count.
    pub fn warn(&mut self, kind: WarningKind, message: impl FnOnce() -> String) {
        if self.warnings.len() < self.env.limits.max_warnings {
            self.warnings.push(Warning {
                kind,
                message: message(),
            });
        } else {
            self.warnings_left_out += 1;
        }
    }

    /// The warnings so far, kept or left out.
    pub fn warning_count(&self) -> usize {
        self.warnings.len() + self.warnings_left_out
    }

    /// The warnings of the evaluation, with one saying how many were left out, if any.
    pub fn into_warnings(mut self) -> Vec<Warning> {
        if self.warnings_left_out > 0 {
            self.warnings.push(Warning {
                kind: WarningKind::Unknown,
                message: format!(
                    "{} more warnings left out (an evaluation keeps the first {})",
                    self.warnings_left_out, self.env.limits.max_warnings
                ),
            });
        }
        self.warnings
    }

    /// Records a suppressed failure and yields `null`.
    pub fn null(&mut self, kind: WarningKind, message: impl FnOnce() -> String) -> Value {
        self.warn(kind, message);
        Value::Null
    }

    /// A failure of the whole evaluation.
    pub fn failure(&self, message: impl std::fmt::Display) -> Failure {
        Failure {
            message: format!("failed to evaluate expression '{}': {message}", self.source),
        }
    }

    /// A failure of the whole evaluation by an exception java throws (feel-scala words those
    /// with a space before the colon).
    pub fn exception(&self, message: impl std::fmt::Display) -> Failure {
        Failure {
            message: format!(
                "failed to evaluate expression '{}' : {message}",
                self.source
            ),
        }
    }

    /// The next pseudo-random number (splitmix64): deterministic per seed, never the clock.
    pub fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn check_items(&self, n: usize) -> Result<(), Failure> {
        if n > self.env.limits.max_items {
            return Err(self.failure(format!(
                "the result would have {n} items, more than the limit of {}",
                self.env.limits.max_items
            )));
        }
        Ok(())
    }

    pub fn check_string(&self, n: usize) -> Result<(), Failure> {
        if n > self.env.limits.max_string_len {
            return Err(self.failure(format!(
                "the string would be {n} bytes long, more than the limit of {}",
                self.env.limits.max_string_len
            )));
        }
        Ok(())
    }

    /// Counts `n` list items or context entries built ([`crate::Limits::max_items`] for all of an
    /// evaluation).
    pub fn charge_items(&mut self, n: usize) -> Result<(), Failure> {
        self.built_items = self.built_items.saturating_add(n);
        if self.built_items > self.env.limits.max_items {
            return Err(self.failure(format!(
                "the evaluation built more than {} list items and context entries",
                self.env.limits.max_items
            )));
        }
        Ok(())
    }

    /// Counts `n` bytes of strings built ([`crate::Limits::max_string_len`] for all of an evaluation).
    pub fn charge_bytes(&mut self, n: usize) -> Result<(), Failure> {
        self.built_bytes = self.built_bytes.saturating_add(n);
        if self.built_bytes > self.env.limits.max_string_len {
            return Err(self.failure(format!(
                "the evaluation built more than {} bytes of strings",
                self.env.limits.max_string_len
            )));
        }
        Ok(())
    }

    /// Counts `n` steps of work done outside [`Eval::eval`] (items a built-in visits).
    pub fn charge_steps(&mut self, n: usize) -> Result<(), Failure> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.env.limits.max_steps {
            return Err(self.too_many_steps());
        }
        Ok(())
    }

    /// [`Eval::charge_steps`] for work that says what it is when it runs over the budget.
    pub fn charge_steps_for(
        &mut self,
        n: usize,
        what: impl FnOnce() -> String,
    ) -> Result<(), Failure> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.env.limits.max_steps {
            return Err(self.failure(format!(
                "the evaluation took more than {} steps ({})",
                self.env.limits.max_steps,
                what()
            )));
        }
        Ok(())
    }

    #[cold]
    fn too_many_steps(&self) -> Failure {
        self.failure(format!(
            "the evaluation took more than {} steps",
            self.env.limits.max_steps
        ))
    }

    /// What [`Value`] a built-in function's result costs: its items or its bytes.
    pub fn charge_result(&mut self, v: &Value) -> Result<(), Failure> {
        match v {
            Value::List(items) => self.charge_items(items.len()),
            Value::Context(entries) => self.charge_items(entries.len()),
            Value::String(s) => self.charge_bytes(s.len()),
            _ => Ok(()),
        }
    }

    /// A path of context entries on a variable (`order.customer.name`), answered by the
    /// variables without converting the whole variable ([`Variables::get_entry`]).
    fn variable_entry(&self, e: &Expr, scope: &Scope) -> Option<Value> {
        const MAX_KEYS: usize = 8;
        let mut keys = [""; MAX_KEYS];
        let mut n = 0;
        let mut at = e;
        let root = loop {
            match &at.kind {
                ExprKind::Path(x, key) if n < MAX_KEYS => {
                    keys[n] = key;
                    n += 1;
                    at = x;
                }
                ExprKind::Name(root) => break root,
                _ => return None,
            }
        };
        if scope.lookup(root).is_some() {
            return None;
        }
        keys[..n].reverse();
        self.vars.get_entry(root, &keys[..n])
    }

    fn input_value(&self) -> Result<Value, Failure> {
        if let Some(v) = &self.input {
            return Ok(v.clone());
        }
        if let Some(v) = self.vars.get(INPUT_VARIABLE) {
            return Ok(v);
        }
        Err(self.failure(
            "No input value available. '?' can only be used inside an unary-test expression.",
        ))
    }

    pub fn eval(&mut self, e: &Expr, scope: &Scope) -> R {
        self.depth += 1;
        self.steps += 1;
        if self.depth > self.env.limits.max_depth || self.steps > self.env.limits.max_steps {
            self.depth -= 1;
            return Err(self.too_deep_or_long());
        }
        let r = self.eval_inner(e, scope);
        self.depth -= 1;
        r
    }

    #[cold]
    fn too_deep_or_long(&self) -> Failure {
        if self.steps > self.env.limits.max_steps {
            return self.too_many_steps();
        }
        self.failure(format!(
            "the evaluation is nested deeper than {} levels",
            self.env.limits.max_depth
        ))
    }

    fn eval_inner(&mut self, e: &Expr, scope: &Scope) -> R {
        match &e.kind {
            ExprKind::Const(v) => Ok(v.clone()),
            ExprKind::Input => self.input_value(),
            ExprKind::Name(n) => match scope.lookup(n) {
                Some(v) => Ok(v.clone()),
                None => self.eval_global_name(n),
            },
            ExprKind::Path(x, key) => self.eval_path(e, x, key, scope),
            ExprKind::Filter(x, f) => self.eval_filter(x, f, scope),
            ExprKind::List(items) => self.eval_list(items, scope),
            ExprKind::Context(entries) => self.eval_context(entries, scope),
            ExprKind::Range {
                start,
                start_closed,
                end,
                end_closed,
            } => self.eval_range(start, *start_closed, end, *end_closed, scope),
            ExprKind::Neg(x) => self.eval_neg(x, scope),
            ExprKind::Arith(op, x, y) => self.eval_arith(*op, x, y, scope),
            ExprKind::Compare(op, x, y) => self.eval_compare(*op, x, y, scope),
            ExprKind::And(x, y) => self.eval_and(x, y, scope),
            ExprKind::Or(x, y) => self.eval_or(x, y, scope),
            ExprKind::Between(x, a, b) => self.eval_between(x, a, b, scope),
            ExprKind::In(x, tests) => self.eval_in(x, tests, scope),
            ExprKind::InstanceOf(x, t) => self.eval_instance_of(x, t, scope),
            ExprKind::If(c, t, f) => self.eval_if(c, t, f, scope),
            ExprKind::For(iters, body) => self.for_loop(iters, body, scope),
            ExprKind::Some(iters, cond) => self.quantified(iters, cond, scope, false),
            ExprKind::Every(iters, cond) => self.quantified(iters, cond, scope, true),
            ExprKind::FunctionDef(params, body) => self.eval_function_def(params, body, scope),
            ExprKind::Call(name, args) => self.call_by_name(name, args, scope),
            ExprKind::MethodCall(target, name, args) => {
                self.eval_method_call(target, name, args, scope)
            }
            ExprKind::InputCompare(op, x) => self.eval_input_compare(*op, x, scope),
            ExprKind::InputInRange(r) => self.eval_input_in_range(r, scope),
            ExprKind::InputEqualTo(x) => self.eval_input_equal_to(x, scope),
            ExprKind::UnaryTest(x) => self.eval_unary_test(x, scope),
            ExprKind::NotTests(t) => self.eval_not_tests(t, scope),
            ExprKind::AnyOf(tests) => self.eval_any_of(tests, scope),
            ExprKind::AnyInput => Ok(Value::Boolean(true)),
        }
    }

    /// A name that is not a local variable: the caller's variables.
    #[inline(never)]
    fn eval_global_name(&mut self, n: &str) -> R {
        Ok(match self.vars.get(n) {
            Some(v) => v,
            None => self.null(WarningKind::NoVariableFound, || {
                format!("No variable found with name '{n}'")
            }),
        })
    }

    fn eval_path(&mut self, e: &Expr, x: &Expr, key: &str, scope: &Scope) -> R {
        if let Some(v) = self.variable_entry(e, scope) {
            return Ok(v);
        }
        // an entry of a local context (`item.price` in a filter) is read in place
        if let Some(Value::Context(c)) = peek(x, scope)
            && let Some(v) = c.get(key)
        {
            return Ok(v.clone());
        }
        Ok({
            let v = self.eval(x, scope)?;
            self.path(v, key)
        })
    }

    fn eval_filter(&mut self, x: &Expr, f: &Expr, scope: &Scope) -> R {
        Ok({
            let v = self.eval(x, scope)?;
            self.filter(v, f, scope)?
        })
    }

    fn eval_list(&mut self, items: &[Expr], scope: &Scope) -> R {
        self.charge_items(items.len())?;
        Ok({
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(self.eval(i, scope)?);
            }
            Value::list(out)
        })
    }

    fn eval_context(&mut self, entries: &[(Arc<str>, Expr)], scope: &Scope) -> R {
        self.charge_items(entries.len())?;
        Ok({
            let mut ctx = Context::with_capacity_and_hasher(entries.len(), Default::default());
            for (k, x) in entries {
                let v = {
                    let inner = Scope::Context {
                        parent: scope,
                        ctx: &ctx,
                    };
                    self.eval(x, &inner)?
                };
                ctx.insert(k.clone(), v);
            }
            Value::context(ctx)
        })
    }

    fn eval_range(
        &mut self,
        start: &Expr,
        start_closed: bool,
        end: &Expr,
        end_closed: bool,
        scope: &Scope,
    ) -> R {
        Ok({
            let a = self.eval(start, scope)?;
            let b = self.eval(end, scope)?;
            Value::Range(Arc::new(Range {
                start: Bound {
                    value: a,
                    closed: start_closed,
                },
                end: Bound {
                    value: b,
                    closed: end_closed,
                },
            }))
        })
    }

    fn eval_neg(&mut self, x: &Expr, scope: &Scope) -> R {
        Ok({
            let v = self.eval(x, scope)?;
            match v {
                Value::Number(n) => Value::Number(n.neg()),
                Value::DayTimeDuration(d) if d.checked_neg().is_some() => {
                    Value::DayTimeDuration(-d)
                }
                Value::YearMonthDuration(m) if m.0 != i64::MIN => {
                    Value::YearMonthDuration(YearMonthDuration(-m.0))
                }
                other => self.null(WarningKind::InvalidType, || {
                    format!("Can't negate '{}'", Shown(&other))
                }),
            }
        })
    }

    fn eval_arith(&mut self, op: ArithOp, x: &Expr, y: &Expr, scope: &Scope) -> R {
        let (a_slot, b_slot);
        let a = operand!(self, x, scope, a_slot);
        let b = operand!(self, y, scope, b_slot);
        // numbers without the operator table (`/` and `**` can fail: the table words it)
        if let (Value::Number(x), Value::Number(y)) = (a, b) {
            match op {
                ArithOp::Add => return Ok(Value::Number(x.add(y))),
                ArithOp::Sub => return Ok(Value::Number(x.sub(y))),
                ArithOp::Mul => return Ok(Value::Number(x.mul(y))),
                ArithOp::Div | ArithOp::Pow => {}
            }
        }
        self.arith(op, a, b)
    }

    fn eval_compare(&mut self, op: CmpOp, x: &Expr, y: &Expr, scope: &Scope) -> R {
        let (a_slot, b_slot);
        let a = operand!(self, x, scope, a_slot);
        let b = operand!(self, y, scope, b_slot);
        if let (Value::Number(x), Value::Number(y)) = (a, b) {
            return Ok(Value::Boolean(op.holds(x.compare(y))));
        }
        Ok(self.compare(op, a, b))
    }

    fn eval_and(&mut self, x: &Expr, y: &Expr, scope: &Scope) -> R {
        Ok({
            let a = self.eval(x, scope)?;
            let a = self.as_bool(a);
            if a == Some(false) {
                return Ok(Value::Boolean(false));
            }
            let b = self.eval(y, scope)?;
            let b = self.as_bool(b);
            match (a, b) {
                (_, Some(false)) => Value::Boolean(false),
                (Some(true), Some(true)) => Value::Boolean(true),
                _ => Value::Null,
            }
        })
    }

    fn eval_or(&mut self, x: &Expr, y: &Expr, scope: &Scope) -> R {
        Ok({
            let a = self.eval(x, scope)?;
            let a = self.as_bool(a);
            if a == Some(true) {
                return Ok(Value::Boolean(true));
            }
            let b = self.eval(y, scope)?;
            let b = self.as_bool(b);
            match (a, b) {
                (_, Some(true)) => Value::Boolean(true),
                (Some(false), Some(false)) => Value::Boolean(false),
                _ => Value::Null,
            }
        })
    }

    fn eval_between(&mut self, x: &Expr, a: &Expr, b: &Expr, scope: &Scope) -> R {
        Ok({
            let v = self.eval(x, scope)?;
            let lo = self.eval(a, scope)?;
            let hi = self.eval(b, scope)?;
            let ge = self.compare(CmpOp::Ge, &v, &lo);
            if let Value::Boolean(false) = ge {
                return Ok(ge);
            }
            let le = self.compare(CmpOp::Le, &v, &hi);
            match (ge, le) {
                (_, Value::Boolean(false)) => Value::Boolean(false),
                (Value::Boolean(true), Value::Boolean(true)) => Value::Boolean(true),
                _ => Value::Null,
            }
        })
    }

    fn eval_in(&mut self, x: &Expr, tests: &Expr, scope: &Scope) -> R {
        Ok({
            let v = self.eval(x, scope)?;
            let saved = self.input.replace(v);
            let r = self.eval(tests, scope);
            self.input = saved;
            r?
        })
    }

    fn eval_instance_of(&mut self, x: &Expr, t: &str, scope: &Scope) -> R {
        Ok({
            let v = self.eval(x, scope)?;
            Value::Boolean(instance_of(&v, t))
        })
    }

    fn eval_if(&mut self, c: &Expr, t: &Expr, f: &Expr, scope: &Scope) -> R {
        Ok({
            let cond = self.eval(c, scope)?;
            match cond {
                Value::Boolean(true) => self.eval(t, scope)?,
                Value::Boolean(false) | Value::Null => self.eval(f, scope)?,
                other => self.null(WarningKind::InvalidType, || {
                    format!("Expected boolean but found '{}'", Shown(&other))
                }),
            }
        })
    }

    fn eval_function_def(&mut self, params: &[Arc<str>], body: &Arc<Expr>, scope: &Scope) -> R {
        Ok({
            let mut captured = Vec::new();
            scope.capture(&mut captured);
            Value::Function(Arc::new(Function::User {
                params: params.to_vec(),
                body: FunctionBody::new(body.clone()),
                captured,
            }))
        })
    }

    fn eval_method_call(&mut self, target: &Expr, name: &str, args: &Args, scope: &Scope) -> R {
        Ok({
            let t = self.eval(target, scope)?;
            let f = match &t {
                Value::Context(c) => c.get(name).cloned(),
                _ => None,
            };
            match f {
                Some(Value::Function(f)) => {
                    let args = self.eval_args(args, scope)?;
                    self.call_function(&f, name, args)?
                }
                _ => {
                    let n = match args {
                        Args::Positional(a) => a.len(),
                        Args::Named(a) => a.len(),
                    };
                    self.null(WarningKind::NoFunctionFound, || {
                        format!("No function found with name '{name}' and {n} parameters")
                    })
                }
            }
        })
    }

    fn as_bool(&mut self, v: Value) -> Option<bool> {
        match v {
            Value::Boolean(b) => Some(b),
            Value::Null => None,
            other => {
                self.warn(WarningKind::InvalidType, || {
                    format!("Expected boolean but found '{}'", Shown(&other))
                });
                None
            }
        }
    }

    /// `value.key`: context entries, properties of temporal values, projection over lists.
    pub fn path(&mut self, v: Value, key: &str) -> Value {
        match v {
            Value::Context(c) => match c.get(key) {
                Some(v) => v.clone(),
                None => self.null(WarningKind::NoContextEntryFound, || {
                    if c.is_empty() {
                        format!("No context entry found with key '{key}'. The context is empty")
                    } else {
                        let keys = Written(|f: &mut fmt::Formatter<'_>| {
                            for (i, k) in c.keys().enumerate() {
                                if i > 0 {
                                    f.write_str(", ")?;
                                }
                                write!(f, "'{k}'")?;
                            }
                            Ok(())
                        });
                        format!(
                            "No context entry found with key '{key}'. Available keys: {}",
                            Shown(keys)
                        )
                    }
                }),
            },
            Value::List(items) => {
                let out: Vec<Value> = items.iter().map(|i| self.path(i.clone(), key)).collect();
                Value::list(out)
            }
            Value::Null => self.null(
                WarningKind::NoContextEntryFound,
                || format!("No context entry found with key '{key}'. The context is null"),
            ),
            other => match property(&other, key) {
                Some(v) => v,
                None => self.null(WarningKind::NoPropertyFound, || {
                    let props = properties_of(&other);
                    format!(
                        "No property found with name '{key}' of value '{}'. Available properties: {}",
                        Shown(&other),
                        props
                            .iter()
                            .map(|p| format!("'{p}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
            },
        }
    }

    fn filter(&mut self, v: Value, f: &Expr, scope: &Scope) -> R {
        let items = match v {
            Value::List(items) => items,
            other => {
                return Ok(self.null(WarningKind::InvalidType, || {
                    format!("Expected list but found '{}'", Shown(&other))
                }));
            }
        };
        if items.is_empty() {
            return Ok(match &f.kind {
                ExprKind::Const(Value::Number(_)) => Value::Null,
                _ => Value::list(Vec::new()),
            });
        }
        // a constant index needs no item scope
        if let ExprKind::Const(Value::Number(n)) = &f.kind {
            return Ok(index(&items, n));
        }
        let first = self.eval_with_item(f, &items[0], scope)?;
        if let Value::Number(n) = &first {
            return Ok(index(&items, n));
        }
        let mut out = Vec::new();
        if let Value::Boolean(true) = first {
            out.push(items[0].clone());
        }
        for item in items.iter().skip(1) {
            if let Value::Boolean(true) = self.eval_with_item(f, item, scope)? {
                out.push(item.clone());
            }
        }
        Ok(Value::list(out))
    }

    fn eval_with_item(&mut self, f: &Expr, item: &Value, scope: &Scope) -> R {
        let one = Scope::One {
            parent: scope,
            name: &ITEM,
            value: item,
        };
        if let Value::Context(c) = item {
            let ctx = Scope::Context {
                parent: &one,
                ctx: c,
            };
            self.eval(f, &ctx)
        } else {
            self.eval(f, &one)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SHOWN_BYTES, Shown, Written};

    #[test]
    fn shown_text_is_cut_after_its_limit_and_ends_in_an_ellipsis() {
        assert_eq!(Shown("short").to_string(), "short");
        let exact = "a".repeat(SHOWN_BYTES);
        assert_eq!(Shown(&exact).to_string(), exact);
        let long = "a".repeat(SHOWN_BYTES + 1);
        assert_eq!(Shown(&long).to_string(), format!("{exact}…"));
        // never inside a character: "é" is two bytes
        let accents = "é".repeat(SHOWN_BYTES);
        let shown = Shown(&accents).to_string();
        assert_eq!(shown, format!("{}…", "é".repeat(SHOWN_BYTES / 2)));
    }

    #[test]
    fn shown_stops_writing_at_the_cut() {
        // a writer that would run on for ever: the cut ends it
        let endless = Written(|f: &mut std::fmt::Formatter<'_>| {
            loop {
                f.write_str("abc, ")?;
            }
        });
        let shown = Shown(endless).to_string();
        assert_eq!(shown.len(), SHOWN_BYTES + "…".len());
    }
}
