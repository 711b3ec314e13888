//! The interpreter: walks the [`Expr`] tree with feel-scala's semantics (null-safe, three-valued
//! logic, suppressed failures recorded as warnings in evaluation order).

use std::cmp::Ordering;
use std::sync::Arc;

use jiff::SignedDuration;

use crate::ast::{Args, ArithOp, CmpOp, Expr, ExprKind, ITEM, Iteration, PARTIAL};
use crate::builtins;
use crate::env::{Env, Variables};
use crate::error::{Failure, Warning, WarningKind};
use crate::number::Number;
use crate::temporal::{DateTime, Time, YearMonthDuration};
use crate::value::{Bound, Context, Function, List, NativeFunction, Range, Value};

/// The result of evaluating a node: a value, or a failure that ends the evaluation.
pub(crate) type R = Result<Value, Failure>;

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
    pub warnings: Vec<Warning>,
    depth: usize,
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
            depth: 0,
            input: None,
            rng: env.seed ^ 0x9E37_79B9_7F4A_7C15,
        }
    }

    pub fn with_input(mut self, input: Value) -> Self {
        self.input = Some(input);
        self
    }

    /// Records a suppressed failure.
    pub fn warn(&mut self, kind: WarningKind, message: impl Into<String>) {
        self.warnings.push(Warning {
            kind,
            message: message.into(),
        });
    }

    /// Records a suppressed failure and yields `null`.
    pub fn null(&mut self, kind: WarningKind, message: impl Into<String>) -> Value {
        self.warn(kind, message);
        Value::Null
    }

    /// A failure of the whole evaluation.
    pub fn failure(&self, message: impl std::fmt::Display) -> Failure {
        Failure {
            message: format!("failed to evaluate expression '{}': {message}", self.source),
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
        if self.depth > self.env.limits.max_depth {
            self.depth -= 1;
            return Err(self.failure(format!(
                "the evaluation is nested deeper than {} levels",
                self.env.limits.max_depth
            )));
        }
        let r = self.eval_inner(e, scope);
        self.depth -= 1;
        r
    }

    fn eval_inner(&mut self, e: &Expr, scope: &Scope) -> R {
        match &e.kind {
            ExprKind::Const(v) => Ok(v.clone()),
            ExprKind::Input => self.input_value(),
            ExprKind::Name(n) => match scope.lookup(n) {
                Some(v) => Ok(v.clone()),
                None => self.eval_global_name(n),
            },
            ExprKind::Path(..) => self.eval_path(e, scope),
            ExprKind::Filter(..) => self.eval_filter(e, scope),
            ExprKind::List(..) => self.eval_list(e, scope),
            ExprKind::Context(..) => self.eval_context(e, scope),
            ExprKind::Range { .. } => self.eval_range(e, scope),
            ExprKind::Neg(..) => self.eval_neg(e, scope),
            ExprKind::Arith(..) => self.eval_arith(e, scope),
            ExprKind::Compare(..) => self.eval_compare(e, scope),
            ExprKind::And(..) => self.eval_and(e, scope),
            ExprKind::Or(..) => self.eval_or(e, scope),
            ExprKind::Between(..) => self.eval_between(e, scope),
            ExprKind::In(..) => self.eval_in(e, scope),
            ExprKind::InstanceOf(..) => self.eval_instance_of(e, scope),
            ExprKind::If(..) => self.eval_if(e, scope),
            ExprKind::For(iters, body) => self.for_loop(iters, body, scope),
            ExprKind::Some(iters, cond) => self.quantified(iters, cond, scope, false),
            ExprKind::Every(iters, cond) => self.quantified(iters, cond, scope, true),
            ExprKind::FunctionDef(..) => self.eval_function_def(e, scope),
            ExprKind::Call(name, args) => self.call_by_name(name, args, scope),
            ExprKind::MethodCall(..) => self.eval_method_call(e, scope),
            ExprKind::InputCompare(..) => self.eval_input_compare(e, scope),
            ExprKind::InputInRange(..) => self.eval_input_in_range(e, scope),
            ExprKind::InputEqualTo(..) => self.eval_input_equal_to(e, scope),
            ExprKind::UnaryTest(..) => self.eval_unary_test(e, scope),
            ExprKind::NotTests(..) => self.eval_not_tests(e, scope),
            ExprKind::AnyOf(..) => self.eval_any_of(e, scope),
            ExprKind::AnyInput => Ok(Value::Boolean(true)),
        }
    }

    /// A name that is not a local variable: the caller's variables.
    #[inline(never)]
    fn eval_global_name(&mut self, n: &str) -> R {
        Ok(match self.vars.get(n) {
            Some(v) => v,
            None => self.null(
                WarningKind::NoVariableFound,
                format!("No variable found with name '{n}'"),
            ),
        })
    }

    #[inline(never)]
    fn eval_path(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Path(x, key) = &e.kind else {
            return Ok(Value::Null);
        };
        if let Some(v) = self.variable_entry(e, scope) {
            return Ok(v);
        }
        // an entry of a local context (`item.price` in a filter) is read in place
        if let Some(Value::Context(c)) = peek(x, scope)
            && let Some(v) = c.get(key.as_ref())
        {
            return Ok(v.clone());
        }
        Ok({
            let v = self.eval(x, scope)?;
            self.path(v, key)
        })
    }

    #[inline(never)]
    fn eval_filter(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Filter(x, f) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let v = self.eval(x, scope)?;
            self.filter(v, f, scope)?
        })
    }

    #[inline(never)]
    fn eval_list(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::List(items) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(self.eval(i, scope)?);
            }
            Value::list(out)
        })
    }

    #[inline(never)]
    fn eval_context(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Context(entries) = &e.kind else {
            return Ok(Value::Null);
        };
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

    #[inline(never)]
    fn eval_range(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Range {
            start,
            start_closed,
            end,
            end_closed,
        } = &e.kind
        else {
            return Ok(Value::Null);
        };
        Ok({
            let a = self.eval(start, scope)?;
            let b = self.eval(end, scope)?;
            Value::Range(Arc::new(Range {
                start: Bound {
                    value: a,
                    closed: *start_closed,
                },
                end: Bound {
                    value: b,
                    closed: *end_closed,
                },
            }))
        })
    }

    #[inline(never)]
    fn eval_neg(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Neg(x) = &e.kind else {
            return Ok(Value::Null);
        };
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
                other => self.null(WarningKind::InvalidType, format!("Can't negate '{other}'")),
            }
        })
    }

    #[inline(never)]
    fn eval_arith(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Arith(op, x, y) = &e.kind else {
            return Ok(Value::Null);
        };
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
        self.arith(*op, a, b)
    }

    #[inline(never)]
    fn eval_compare(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Compare(op, x, y) = &e.kind else {
            return Ok(Value::Null);
        };
        let (a_slot, b_slot);
        let a = operand!(self, x, scope, a_slot);
        let b = operand!(self, y, scope, b_slot);
        if let (Value::Number(x), Value::Number(y)) = (a, b) {
            return Ok(Value::Boolean(op.holds(x.compare(y))));
        }
        Ok(self.compare(*op, a, b))
    }

    #[inline(never)]
    fn eval_and(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::And(x, y) = &e.kind else {
            return Ok(Value::Null);
        };
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

    #[inline(never)]
    fn eval_or(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Or(x, y) = &e.kind else {
            return Ok(Value::Null);
        };
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

    #[inline(never)]
    fn eval_between(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::Between(x, a, b) = &e.kind else {
            return Ok(Value::Null);
        };
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

    #[inline(never)]
    fn eval_in(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::In(x, tests) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let v = self.eval(x, scope)?;
            let saved = self.input.replace(v);
            let r = self.eval(tests, scope);
            self.input = saved;
            r?
        })
    }

    #[inline(never)]
    fn eval_instance_of(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::InstanceOf(x, t) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let v = self.eval(x, scope)?;
            Value::Boolean(instance_of(&v, t))
        })
    }

    #[inline(never)]
    fn eval_if(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::If(c, t, f) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let cond = self.eval(c, scope)?;
            match cond {
                Value::Boolean(true) => self.eval(t, scope)?,
                Value::Boolean(false) | Value::Null => self.eval(f, scope)?,
                other => self.null(
                    WarningKind::InvalidType,
                    format!("Expected boolean but found '{other}'"),
                ),
            }
        })
    }

    #[inline(never)]
    fn eval_function_def(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::FunctionDef(params, body) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let mut captured = Vec::new();
            scope.capture(&mut captured);
            Value::Function(Arc::new(Function::User {
                params: params.clone(),
                body: body.clone(),
                captured,
            }))
        })
    }

    #[inline(never)]
    fn eval_method_call(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::MethodCall(target, name, args) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let t = self.eval(target, scope)?;
            let f = match &t {
                Value::Context(c) => c.get(name.as_ref()).cloned(),
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
                    self.null(
                        WarningKind::NoFunctionFound,
                        format!("No function found with name '{name}' and {n} parameters"),
                    )
                }
            }
        })
    }

    #[inline(never)]
    fn eval_input_compare(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::InputCompare(op, x) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let input = self.input_value()?;
            let v = self.eval(x, scope)?;
            self.compare(*op, &input, &v)
        })
    }

    #[inline(never)]
    fn eval_input_in_range(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::InputInRange(r) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let input = self.input_value()?;
            let range = self.eval(r, scope)?;
            self.in_range(&input, &range)
        })
    }

    #[inline(never)]
    fn eval_input_equal_to(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::InputEqualTo(x) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok({
            let input = self.input_value()?;
            let v = self.eval(x, scope)?;
            self.compare(CmpOp::Eq, &input, &v)
        })
    }

    #[inline(never)]
    fn eval_unary_test(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::UnaryTest(x) = &e.kind else {
            return Ok(Value::Null);
        };
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

    #[inline(never)]
    fn eval_not_tests(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::NotTests(t) = &e.kind else {
            return Ok(Value::Null);
        };
        Ok(match self.eval(t, scope)? {
            Value::Boolean(b) => Value::Boolean(!b),
            _ => Value::Null,
        })
    }

    #[inline(never)]
    fn eval_any_of(&mut self, e: &Expr, scope: &Scope) -> R {
        let ExprKind::AnyOf(tests) = &e.kind else {
            return Ok(Value::Null);
        };
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

    fn as_bool(&mut self, v: Value) -> Option<bool> {
        match v {
            Value::Boolean(b) => Some(b),
            Value::Null => None,
            other => {
                self.warn(
                    WarningKind::InvalidType,
                    format!("Expected boolean but found '{other}'"),
                );
                None
            }
        }
    }

    /// `value.key`: context entries, properties of temporal values, projection over lists.
    pub fn path(&mut self, v: Value, key: &str) -> Value {
        match v {
            Value::Context(c) => match c.get(key) {
                Some(v) => v.clone(),
                None => {
                    let msg = if c.is_empty() {
                        format!("No context entry found with key '{key}'. The context is empty")
                    } else {
                        let keys: Vec<String> = c.keys().map(|k| format!("'{k}'")).collect();
                        format!(
                            "No context entry found with key '{key}'. Available keys: {}",
                            keys.join(", ")
                        )
                    };
                    self.null(WarningKind::NoContextEntryFound, msg)
                }
            },
            Value::List(items) => {
                let out: Vec<Value> = items.iter().map(|i| self.path(i.clone(), key)).collect();
                Value::list(out)
            }
            Value::Null => self.null(
                WarningKind::NoContextEntryFound,
                format!("No context entry found with key '{key}'. The context is null"),
            ),
            other => match property(&other, key) {
                Some(v) => v,
                None => {
                    let props = properties_of(&other);
                    let msg = format!(
                        "No property found with name '{key}' of value '{other}'. Available properties: {}",
                        props
                            .iter()
                            .map(|p| format!("'{p}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    self.null(WarningKind::NoPropertyFound, msg)
                }
            },
        }
    }

    fn filter(&mut self, v: Value, f: &Expr, scope: &Scope) -> R {
        let items = match v {
            Value::List(items) => items,
            other => {
                return Ok(self.null(
                    WarningKind::InvalidType,
                    format!("Expected list but found '{other}'"),
                ));
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

    /// Evaluates the iterators of `for`/`some`/`every` into the lists they walk over.
    fn iteration_values(
        &mut self,
        it: &Iteration,
        scope: &Scope,
    ) -> Result<Option<Items>, Failure> {
        match it {
            Iteration::List(x) => match self.eval(x, scope)? {
                Value::List(items) => Ok(Some(Items::List(items, 0))),
                other => {
                    self.warn(
                        WarningKind::InvalidType,
                        format!("Expected list but found '{other}'"),
                    );
                    Ok(None)
                }
            },
            Iteration::Range(a, b) => {
                let a = self.eval(a, scope)?;
                let b = self.eval(b, scope)?;
                match (&a, &b) {
                    (Value::Number(x), Value::Number(y)) => {
                        let (Some(x), Some(y)) = (x.to_i64(), y.to_i64()) else {
                            self.warn(
                                WarningKind::InvalidType,
                                format!("Expected range of integers but found '{a}..{b}'"),
                            );
                            return Ok(None);
                        };
                        let n = (x.abs_diff(y) as usize).saturating_add(1);
                        self.check_items(n)?;
                        // walked lazily: a range of a million numbers is never a list in memory
                        Ok(Some(Items::Ints {
                            next: x,
                            last: y,
                            done: false,
                        }))
                    }
                    (Value::Date(x), Value::Date(y)) => {
                        let mut items = Vec::new();
                        let step = if x <= y { 1 } else { -1 };
                        let mut d = *x;
                        loop {
                            items.push(Value::Date(d));
                            self.check_items(items.len())?;
                            if d == *y {
                                break;
                            }
                            match d.checked_add(jiff::Span::new().days(step)) {
                                Ok(n) => d = n,
                                Err(_) => break,
                            }
                        }
                        Ok(Some(Items::List(Arc::new(List::new(items)), 0)))
                    }
                    _ => {
                        self.warn(
                            WarningKind::InvalidType,
                            format!("Expected range of numbers but found '{a}..{b}'"),
                        );
                        Ok(None)
                    }
                }
            }
        }
    }

    fn for_loop(&mut self, iters: &[(Arc<str>, Iteration)], body: &Expr, scope: &Scope) -> R {
        if mentions(body, "partial") {
            // shared with `partial` while the body runs, unique again when the item is added
            let mut out = Arc::new(List::default());
            if !self.for_level_partial(iters, body, scope, &mut out)? {
                return Ok(Value::Null);
            }
            return Ok(Value::List(out));
        }
        // a body that reads none of the iterators (and calls nothing) has the same value in
        // every round: evaluated once, then repeated
        let invariant = is_invariant(body, &mut |n| iters.iter().any(|(i, _)| **i == *n));
        let mut out = Vec::new();
        match self.for_level(iters, body, scope, &mut out, invariant, iters.len() == 1)? {
            ForEnd::Done => Ok(Value::list(out)),
            ForEnd::Repeat(n) => {
                // the single iterator's body gave one value for all items: stored once
                let v = out.pop().unwrap_or_default();
                Ok(Value::List(Arc::new(List::repeat(v, n))))
            }
            ForEnd::NotAList => Ok(Value::Null),
        }
    }

    fn for_level(
        &mut self,
        iters: &[(Arc<str>, Iteration)],
        body: &Expr,
        scope: &Scope,
        out: &mut Vec<Value>,
        invariant: bool,
        only_level: bool,
    ) -> Result<ForEnd, Failure> {
        let Some(((name, it), rest)) = iters.split_first() else {
            let v = self.eval(body, scope)?;
            out.push(v);
            self.check_items(out.len())?;
            return Ok(ForEnd::Done);
        };
        let Some(mut items) = self.iteration_values(it, scope)? else {
            return Ok(ForEnd::NotAList);
        };
        if !rest.is_empty() {
            let mut slot = Value::Null;
            while let Some(item) = items.next(&mut slot) {
                let s = Scope::One {
                    parent: scope,
                    name,
                    value: item,
                };
                if let ForEnd::NotAList = self.for_level(rest, body, &s, out, invariant, false)? {
                    return Ok(ForEnd::NotAList);
                }
            }
            return Ok(ForEnd::Done);
        }
        // the innermost iterator: a tight loop
        if !(invariant && only_level) {
            out.reserve(items.len().min(self.env.limits.max_items));
        }
        let mut slot = Value::Null;
        while let Some(item) = items.next(&mut slot) {
            let warnings = self.warnings.len();
            let v = self.eval(
                body,
                &Scope::One {
                    parent: scope,
                    name,
                    value: item,
                },
            )?;
            out.push(v);
            self.check_items(out.len())?;
            if invariant && self.warnings.len() == warnings {
                let n = items.len();
                self.check_items(out.len().saturating_add(n))?;
                if only_level && out.len() == 1 {
                    return Ok(ForEnd::Repeat(n + 1));
                }
                let v = out.last().cloned().unwrap_or_default();
                out.extend(std::iter::repeat_n(v, n));
                return Ok(ForEnd::Done);
            }
        }
        Ok(ForEnd::Done)
    }

    /// [`Eval::for_level`] for a body that reads `partial`, the items so far.
    fn for_level_partial(
        &mut self,
        iters: &[(Arc<str>, Iteration)],
        body: &Expr,
        scope: &Scope,
        out: &mut Arc<List>,
    ) -> Result<bool, Failure> {
        let Some(((name, it), rest)) = iters.split_first() else {
            let partial = Value::List(out.clone());
            let s = Scope::One {
                parent: scope,
                name: &PARTIAL,
                value: &partial,
            };
            let v = self.eval(body, &s)?;
            drop(partial);
            let items = Arc::make_mut(out);
            items.push(v);
            self.check_items(items.len())?;
            return Ok(true);
        };
        let Some(mut items) = self.iteration_values(it, scope)? else {
            return Ok(false);
        };
        let mut slot = Value::Null;
        while let Some(item) = items.next(&mut slot) {
            let s = Scope::One {
                parent: scope,
                name,
                value: item,
            };
            if !self.for_level_partial(rest, body, &s, out)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn quantified(
        &mut self,
        iters: &[(Arc<str>, Iteration)],
        cond: &Expr,
        scope: &Scope,
        every: bool,
    ) -> R {
        let mut state = Quantified {
            every,
            decided: false,
            undecided: false,
            not_boolean: Vec::new(),
        };
        if !self.quantified_level(iters, cond, scope, &mut state)? {
            return Ok(Value::Null);
        }
        // results that are not booleans are reported after all conditions were evaluated
        for other in std::mem::take(&mut state.not_boolean) {
            self.warn(
                WarningKind::InvalidType,
                format!("Expected boolean but found '{other}'"),
            );
        }
        Ok(if state.decided {
            Value::Boolean(!every)
        } else if state.undecided {
            Value::Null
        } else {
            Value::Boolean(every)
        })
    }

    /// Evaluates the condition for each combination of items until one decides the answer
    /// (`true` for `some`, `false` for `every`).
    fn quantified_level(
        &mut self,
        iters: &[(Arc<str>, Iteration)],
        cond: &Expr,
        scope: &Scope,
        state: &mut Quantified,
    ) -> Result<bool, Failure> {
        let Some(((name, it), rest)) = iters.split_first() else {
            self.quantified_condition(cond, scope, state)?;
            return Ok(true);
        };
        let Some(mut items) = self.iteration_values(it, scope)? else {
            return Ok(false);
        };
        let mut slot = Value::Null;
        while let Some(item) = items.next(&mut slot) {
            let s = Scope::One {
                parent: scope,
                name,
                value: item,
            };
            if rest.is_empty() {
                self.quantified_condition(cond, &s, state)?;
            } else if !self.quantified_level(rest, cond, &s, state)? {
                return Ok(false);
            }
            // stop early once the answer is known
            if state.decided {
                return Ok(true);
            }
        }
        Ok(true)
    }

    /// Evaluates the condition for one combination of items.
    #[inline]
    fn quantified_condition(
        &mut self,
        cond: &Expr,
        scope: &Scope,
        state: &mut Quantified,
    ) -> Result<(), Failure> {
        match self.eval(cond, scope)? {
            Value::Boolean(b) if b != state.every => state.decided = true,
            Value::Boolean(_) => {}
            Value::Null => state.undecided = true,
            other => {
                state.undecided = true;
                state.not_boolean.push(other);
            }
        }
        Ok(())
    }

    fn eval_args(&mut self, args: &Args, scope: &Scope) -> Result<CallArgs, Failure> {
        Ok(match args {
            Args::Positional(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs {
                    out.push(self.eval(x, scope)?);
                }
                CallArgs::Positional(out)
            }
            Args::Named(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for (n, x) in xs {
                    out.push((n.clone(), self.eval(x, scope)?));
                }
                CallArgs::Named(out)
            }
        })
    }

    fn call_by_name(&mut self, name: &Arc<str>, args: &Args, scope: &Scope) -> R {
        if let Some(Value::Function(f)) = scope.lookup(name) {
            let f = f.clone();
            let args = self.eval_args(args, scope)?;
            return self.call_function(&f, name, args);
        }
        if let Some(set) = builtins::lookup(name) {
            let args = self.eval_args(args, scope)?;
            return builtins::invoke(self, name, set, args);
        }
        if let Some(Value::Function(f)) = self.vars.get(name) {
            let args = self.eval_args(args, scope)?;
            return self.call_function(&f, name, args);
        }
        let args = self.eval_args(args, scope)?;
        Ok(self.no_function(name, &args))
    }

    pub(crate) fn no_function(&mut self, name: &str, args: &CallArgs) -> Value {
        let msg = match args {
            CallArgs::Positional(a) => format!(
                "No function found with name '{name}' and {} parameters",
                a.len()
            ),
            CallArgs::Named(a) => format!(
                "No function found with name '{name}' and parameters: {}",
                a.iter()
                    .map(|(n, _)| n.as_ref())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        };
        self.null(WarningKind::NoFunctionFound, msg)
    }

    /// Calls a function value with evaluated arguments.
    pub(crate) fn call_function(&mut self, f: &Arc<Function>, name: &str, args: CallArgs) -> R {
        match f.as_ref() {
            Function::Builtin(b) => match builtins::lookup(b) {
                Some(set) => builtins::invoke(self, b, set, args),
                None => Ok(self.no_function(name, &args)),
            },
            Function::Native(native) => Ok(self.call_native(native, name, args)),
            Function::User {
                params,
                body,
                captured,
            } => {
                let values: Vec<Value> = match args {
                    CallArgs::Positional(a) => {
                        if a.len() != params.len() {
                            return Ok(self.no_function(name, &CallArgs::Positional(a)));
                        }
                        a
                    }
                    CallArgs::Named(a) => {
                        if a.iter().any(|(n, _)| !params.iter().any(|p| p == n)) {
                            return Ok(self.no_function(name, &CallArgs::Named(a)));
                        }
                        params
                            .iter()
                            .map(|p| {
                                a.iter()
                                    .find(|(n, _)| n == p)
                                    .map(|(_, v)| v.clone())
                                    .unwrap_or(Value::Null)
                            })
                            .collect()
                    }
                };
                let mut entries: Vec<(Arc<str>, Value)> = captured.clone();
                entries.extend(params.iter().cloned().zip(values));
                let scope = Scope::Many {
                    parent: &Scope::Root,
                    entries: &entries,
                };
                self.eval(body, &scope)
            }
        }
    }

    /// Calls a caller-provided function: the overload that fits the arguments, a failure as a
    /// `FUNCTION_INVOCATION_FAILURE` warning with the result `null`.
    fn call_native(&mut self, native: &NativeFunction, name: &str, args: CallArgs) -> Value {
        let overload = match &args {
            CallArgs::Positional(a) => native.overloads.iter().find(|p| p.len() == a.len()),
            CallArgs::Named(a) => native
                .overloads
                .iter()
                .find(|p| a.iter().all(|(n, _)| p.contains(n))),
        };
        let Some(params) = overload else {
            return self.no_function(name, &args);
        };
        let values: Vec<Value> = match args {
            CallArgs::Positional(a) => a,
            CallArgs::Named(a) => params
                .iter()
                .map(|p| {
                    a.iter()
                        .find(|(n, _)| n == p)
                        .map_or(Value::Null, |(_, v)| v.clone())
                })
                .collect(),
        };
        match (native.body)(&values) {
            Ok(value) => value,
            Err(reason) => self.null(
                WarningKind::FunctionInvocationFailure,
                format!("Failed to invoke function '{name}': {reason}"),
            ),
        }
    }

    /// Calls a function value positionally (used by `sort`, ...).
    pub(crate) fn call_value(&mut self, f: &Arc<Function>, args: Vec<Value>) -> R {
        self.call_function(f, "anonymous", CallArgs::Positional(args))
    }

    // ---------- operators ----------

    pub fn compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> Value {
        if let (Value::Number(x), Value::Number(y)) = (a, b) {
            return Value::Boolean(op.holds(x.compare(y)));
        }
        match op {
            CmpOp::Eq | CmpOp::Ne => match a.feel_eq(b) {
                Some(eq) => Value::Boolean(if op == CmpOp::Eq { eq } else { !eq }),
                None => self.null(
                    WarningKind::NotComparable,
                    format!("Can't compare '{a}' with '{b}'"),
                ),
            },
            _ => {
                if a.is_null() || b.is_null() {
                    return self.null(
                        WarningKind::NotComparable,
                        format!("Can't compare '{a}' with '{b}'"),
                    );
                }
                match a.feel_cmp(b) {
                    Some(o) => Value::Boolean(match op {
                        CmpOp::Lt => o == Ordering::Less,
                        CmpOp::Le => o != Ordering::Greater,
                        CmpOp::Gt => o == Ordering::Greater,
                        _ => o != Ordering::Less,
                    }),
                    None => self.null(
                        WarningKind::NotComparable,
                        format!("Can't compare '{a}' with '{b}'"),
                    ),
                }
            }
        }
    }

    /// `input in range`.
    pub fn in_range(&mut self, input: &Value, range: &Value) -> Value {
        let Value::Range(r) = range else {
            return self.compare(CmpOp::Eq, input, range);
        };
        if input.is_null() {
            return Value::Null;
        }
        let lo = &r.start.value;
        let hi = &r.end.value;
        let lo_ok = if lo.is_null() {
            Some(true)
        } else {
            input.feel_cmp(lo).map(|o| {
                if r.start.closed {
                    o != Ordering::Less
                } else {
                    o == Ordering::Greater
                }
            })
        };
        let hi_ok = if hi.is_null() {
            Some(true)
        } else {
            input.feel_cmp(hi).map(|o| {
                if r.end.closed {
                    o != Ordering::Greater
                } else {
                    o == Ordering::Less
                }
            })
        };
        match (lo_ok, hi_ok) {
            (Some(a), Some(b)) => Value::Boolean(a && b),
            _ => self.null(
                WarningKind::NotComparable,
                format!("Can't compare '{input}' with '{lo}' and '{hi}'"),
            ),
        }
    }

    pub fn arith(&mut self, op: ArithOp, a: &Value, b: &Value) -> R {
        use Value::*;
        let r = match (op, a, b) {
            (ArithOp::Add, Number(x), Number(y)) => Some(Number(x.add(y))),
            (ArithOp::Sub, Number(x), Number(y)) => Some(Number(x.sub(y))),
            (ArithOp::Mul, Number(x), Number(y)) => Some(Number(x.mul(y))),
            (ArithOp::Div, Number(x), Number(y)) => match x.div(y) {
                Some(q) => Some(Number(q)),
                None => {
                    return Ok(self.null(
                        WarningKind::InvalidType,
                        format!("Can't divide '{a}' by '{b}'"),
                    ));
                }
            },
            (ArithOp::Pow, Number(x), Number(y)) => x.pow(y).map(Number),
            (ArithOp::Add, String(x), String(y)) => {
                self.check_string(x.len() + y.len())?;
                let mut s = std::string::String::with_capacity(x.len() + y.len());
                s.push_str(x);
                s.push_str(y);
                Some(Value::string(s))
            }
            (ArithOp::Add | ArithOp::Sub, _, _) => temporal_add_sub(op == ArithOp::Sub, a, b),
            (ArithOp::Mul, DayTimeDuration(d), Number(n))
            | (ArithOp::Mul, Number(n), DayTimeDuration(d)) => {
                scale_duration(*d, n, false).map(DayTimeDuration)
            }
            (ArithOp::Mul, YearMonthDuration(m), Number(n))
            | (ArithOp::Mul, Number(n), YearMonthDuration(m)) => {
                let total = crate::number::Number::from(m.0).mul(n);
                total
                    .with_scale(0, crate::number::Rounding::Down)
                    .to_i64()
                    .map(|t| YearMonthDuration(crate::temporal::YearMonthDuration(t)))
            }
            (ArithOp::Div, DayTimeDuration(d), Number(n)) => {
                if n.is_zero() {
                    None
                } else {
                    scale_duration(*d, n, true).map(DayTimeDuration)
                }
            }
            (ArithOp::Div, YearMonthDuration(m), Number(n)) => {
                crate::number::Number::from(m.0).div(n).and_then(|q| {
                    q.with_scale(0, crate::number::Rounding::Down)
                        .to_i64()
                        .map(|t| YearMonthDuration(crate::temporal::YearMonthDuration(t)))
                })
            }
            (ArithOp::Div, DayTimeDuration(x), DayTimeDuration(y)) => {
                if y.is_zero() {
                    None
                } else {
                    crate::number::Number::from_big_decimal(bigdecimal::BigDecimal::from(
                        x.as_nanos(),
                    ))
                    .div(&crate::number::Number::from_big_decimal(
                        bigdecimal::BigDecimal::from(y.as_nanos()),
                    ))
                    .map(Number)
                }
            }
            (ArithOp::Div, YearMonthDuration(x), YearMonthDuration(y)) => {
                crate::number::Number::from(x.0)
                    .div(&crate::number::Number::from(y.0))
                    .map(Number)
            }
            _ => None,
        };
        Ok(match r {
            Some(v) => v,
            None => {
                let msg = match op {
                    ArithOp::Add => format!("Can't add '{b}' to '{a}'"),
                    ArithOp::Sub => format!("Can't subtract '{b}' from '{a}'"),
                    ArithOp::Mul => format!("Can't multiply '{a}' by '{b}'"),
                    ArithOp::Div => format!("Can't divide '{a}' by '{b}'"),
                    ArithOp::Pow => format!("Can't raise '{a}' to the power of '{b}'"),
                };
                self.null(WarningKind::InvalidType, msg)
            }
        })
    }
}

/// What an iterator of `for`/`some`/`every` walks over.
pub(crate) enum Items {
    /// The items of a list, from an index.
    List(Arc<List>, usize),
    /// The integers from `next` to `last` (up or down), inclusive.
    Ints { next: i64, last: i64, done: bool },
}

impl Items {
    /// The next item: a list's item in place, an integer made in `slot`.
    fn next<'a>(&'a mut self, slot: &'a mut Value) -> Option<&'a Value> {
        match self {
            Items::List(items, i) => {
                let v = items.get(*i);
                *i += 1;
                v
            }
            Items::Ints { next, last, done } => {
                if *done {
                    return None;
                }
                let v = *next;
                if v == *last {
                    *done = true;
                } else if v < *last {
                    *next += 1;
                } else {
                    *next -= 1;
                }
                *slot = Value::int(v);
                Some(slot)
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Items::List(items, i) => items.len().saturating_sub(*i),
            Items::Ints { next, last, done } => {
                if *done {
                    0
                } else {
                    (next.abs_diff(*last) as usize).saturating_add(1)
                }
            }
        }
    }
}

/// How a level of a `for` loop ended.
enum ForEnd {
    /// The items are in the output.
    Done,
    /// The loop has one iterator and one value for all its `n` items (the last in the output).
    Repeat(usize),
    /// An iterator was not a list (the result is `null`).
    NotAList,
}

/// What `some`/`every` learned so far.
struct Quantified {
    every: bool,
    /// A condition gave the deciding boolean (`true` for `some`, `false` for `every`).
    decided: bool,
    /// A condition gave `null` or a non-boolean.
    undecided: bool,
    /// The non-boolean results, in order, reported as warnings at the end.
    not_boolean: Vec<Value>,
}

/// Evaluated call arguments.
pub(crate) enum CallArgs {
    Positional(Vec<Value>),
    Named(Vec<(Arc<str>, Value)>),
}

/// True if the expression tests the input itself (a unary-test form or a use of `?`).
fn is_input_test(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::InputCompare(..) | ExprKind::InputInRange(_) | ExprKind::InputEqualTo(_)
    ) || mentions_input(e)
}

fn mentions_input(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Input => true,
        // `x in tests` binds its own input
        ExprKind::In(a, _) => mentions_input(a),
        ExprKind::FunctionDef(..) => false,
        _ => e.children().any(mentions_input),
    }
}

fn index(items: &[Value], n: &Number) -> Value {
    let Some(i) = n.to_i64() else {
        return Value::Null;
    };
    let len = items.len() as i64;
    let idx = if i > 0 {
        i - 1
    } else if i < 0 {
        len + i
    } else {
        return Value::Null;
    };
    if idx < 0 || idx >= len {
        Value::Null
    } else {
        items[idx as usize].clone()
    }
}

/// True if `e` has the same value every time it is evaluated in one evaluation, wherever `bound`
/// names change: it reads none of them (nor `partial`), calls no function (which could draw
/// random numbers) and defines none (each definition is a distinct function value).
fn is_invariant(e: &Expr, bound: &mut dyn FnMut(&str) -> bool) -> bool {
    match &e.kind {
        ExprKind::Name(n) => !(n.as_ref() == "partial" || bound(n)),
        ExprKind::FunctionDef(..) | ExprKind::Call(..) | ExprKind::MethodCall(..) => false,
        _ => e.children().all(|x| is_invariant(x, bound)),
    }
}

fn mentions(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Name(n) => n.as_ref() == name,
        _ => e.children().any(|x| mentions(x, name)),
    }
}

fn scale_duration(d: SignedDuration, n: &Number, divide: bool) -> Option<SignedDuration> {
    let nanos = Number::from_big_decimal(bigdecimal::BigDecimal::from(d.as_nanos()));
    let r = if divide { nanos.div(n)? } else { nanos.mul(n) };
    let whole = r
        .with_scale(0, crate::number::Rounding::HalfEven)
        .to_big_decimal();
    let (int, _) = whole.into_bigint_and_exponent();
    let v: i128 = num_traits::ToPrimitive::to_i128(&int)?;
    SignedDuration::try_from_nanos_i128(v)
}

/// `instance of`: FEEL type names, plus `Any` (any non-null value) and `Null`.
pub(crate) fn instance_of(v: &Value, t: &str) -> bool {
    let base = t.split('<').next().unwrap_or(t);
    match base {
        "Any" => !v.is_null(),
        "Null" => v.is_null(),
        "number" => matches!(v, Value::Number(_)),
        "string" => matches!(v, Value::String(_)),
        "boolean" => matches!(v, Value::Boolean(_)),
        "date" => matches!(v, Value::Date(_)),
        "time" => matches!(v, Value::Time(_)),
        "date and time" => matches!(v, Value::DateTime(_)),
        "days and time duration" | "dayTimeDuration" => matches!(v, Value::DayTimeDuration(_)),
        "years and months duration" | "yearMonthDuration" => {
            matches!(v, Value::YearMonthDuration(_))
        }
        "list" => matches!(v, Value::List(_)),
        "context" => matches!(v, Value::Context(_)),
        "range" => matches!(v, Value::Range(_)),
        "function" => matches!(v, Value::Function(_)),
        _ => false,
    }
}

fn add_months_dt(dt: jiff::civil::DateTime, months: i64) -> Option<jiff::civil::DateTime> {
    dt.checked_add(jiff::Span::new().try_months(months).ok()?)
        .ok()
}

/// Temporal `+`/`-`: dates, times, date-times with durations; durations with durations;
/// differences of dates, times and date-times.
fn temporal_add_sub(sub: bool, a: &Value, b: &Value) -> Option<Value> {
    use Value::*;
    let sign: i64 = if sub { -1 } else { 1 };
    match (a, b) {
        (DayTimeDuration(x), DayTimeDuration(y)) => Some(DayTimeDuration(if sub {
            x.checked_sub(*y)?
        } else {
            x.checked_add(*y)?
        })),
        (YearMonthDuration(x), YearMonthDuration(y)) => Some(YearMonthDuration(
            crate::temporal::YearMonthDuration(x.0.checked_add(sign.checked_mul(y.0)?)?),
        )),
        (Date(d), YearMonthDuration(m)) => Some(Date(
            d.checked_add(jiff::Span::new().try_months(sign.checked_mul(m.0)?).ok()?)
                .ok()?,
        )),
        (YearMonthDuration(m), Date(d)) if !sub => Some(Date(
            d.checked_add(jiff::Span::new().try_months(m.0).ok()?)
                .ok()?,
        )),
        (Date(d), DayTimeDuration(x)) => {
            let dt = d.to_datetime(jiff::civil::Time::midnight());
            let x = if sub { x.checked_neg()? } else { *x };
            Some(Date(dt.checked_add(x).ok()?.date()))
        }
        (DayTimeDuration(x), Date(d)) if !sub => Some(Date(
            d.to_datetime(jiff::civil::Time::midnight())
                .checked_add(*x)
                .ok()?
                .date(),
        )),
        (Date(x), Date(y)) if sub => Some(DayTimeDuration(x.duration_since(*y))),
        (DateTime(x), DateTime(y)) if sub => match (x.as_ref(), y.as_ref()) {
            (crate::temporal::DateTime::Local(x), crate::temporal::DateTime::Local(y)) => {
                Some(DayTimeDuration(x.duration_since(*y)))
            }
            (crate::temporal::DateTime::Zoned(x), crate::temporal::DateTime::Zoned(y)) => {
                Some(DayTimeDuration(x.duration_since(y)))
            }
            _ => None,
        },
        (DateTime(dt), YearMonthDuration(m)) | (YearMonthDuration(m), DateTime(dt)) => {
            if matches!(b, DateTime(_)) && sub {
                return None;
            }
            let months = sign.checked_mul(m.0)?;
            Some(Value::date_time(match dt.as_ref() {
                crate::temporal::DateTime::Local(l) => {
                    crate::temporal::DateTime::Local(add_months_dt(*l, months)?)
                }
                crate::temporal::DateTime::Zoned(z) => {
                    let l = add_months_dt(z.datetime(), months)?;
                    crate::temporal::DateTime::Zoned(
                        l.to_zoned_datetime(z.time_zone().clone()).ok()?,
                    )
                }
            }))
        }
        (DateTime(dt), DayTimeDuration(x)) | (DayTimeDuration(x), DateTime(dt)) => {
            if matches!(b, DateTime(_)) && sub {
                return None;
            }
            let x = if sub { x.checked_neg()? } else { *x };
            Some(Value::date_time(match dt.as_ref() {
                crate::temporal::DateTime::Local(l) => {
                    crate::temporal::DateTime::Local(l.checked_add(x).ok()?)
                }
                crate::temporal::DateTime::Zoned(z) => {
                    crate::temporal::DateTime::Zoned(z.checked_add(x).ok()?)
                }
            }))
        }
        (Time(t), DayTimeDuration(x)) | (DayTimeDuration(x), Time(t)) => {
            if matches!(b, Time(_)) && sub {
                return None;
            }
            let x = if sub { x.checked_neg()? } else { *x };
            // wrapping arithmetic on the time of day, as java's LocalTime.plus
            let day = 86_400_000_000_000i128;
            let cur = t.civil();
            let nanos =
                (cur.hour() as i128 * 3600 + cur.minute() as i128 * 60 + cur.second() as i128)
                    * 1_000_000_000
                    + cur.subsec_nanosecond() as i128;
            let n = (nanos + x.as_nanos()).rem_euclid(day);
            let nt = jiff::civil::Time::new(
                (n / 3_600_000_000_000) as i8,
                ((n / 60_000_000_000) % 60) as i8,
                ((n / 1_000_000_000) % 60) as i8,
                (n % 1_000_000_000) as i32,
            )
            .ok()?;
            Some(Value::time(match t.as_ref() {
                crate::temporal::Time::Local(_) => crate::temporal::Time::Local(nt),
                crate::temporal::Time::Zoned { offset, zone, .. } => crate::temporal::Time::Zoned {
                    time: nt,
                    offset: *offset,
                    zone: zone.clone(),
                },
            }))
        }
        (Time(x), Time(y)) if sub => {
            let to_nanos = |t: &crate::temporal::Time| -> i128 {
                let c = t.civil();
                let base = (c.hour() as i128 * 3600 + c.minute() as i128 * 60 + c.second() as i128)
                    * 1_000_000_000
                    + c.subsec_nanosecond() as i128;
                match t {
                    crate::temporal::Time::Local(_) => base,
                    crate::temporal::Time::Zoned { offset, .. } => {
                        base - offset.seconds() as i128 * 1_000_000_000
                    }
                }
            };
            match (x.as_ref(), y.as_ref()) {
                (crate::temporal::Time::Local(_), crate::temporal::Time::Local(_))
                | (crate::temporal::Time::Zoned { .. }, crate::temporal::Time::Zoned { .. }) => {
                    Some(DayTimeDuration(SignedDuration::try_from_nanos_i128(
                        to_nanos(x.as_ref()) - to_nanos(y.as_ref()),
                    )?))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A property of a temporal value or a range (`.year`, `.time offset`, `.start`, ...).
pub(crate) fn property(v: &Value, key: &str) -> Option<Value> {
    let date_prop = |d: jiff::civil::Date| -> Option<Value> {
        Some(match key {
            "year" => Value::int(d.year() as i64),
            "month" => Value::int(d.month() as i64),
            "day" => Value::int(d.day() as i64),
            "weekday" => Value::int(d.weekday().to_monday_one_offset() as i64),
            _ => return None,
        })
    };
    let time_prop = |t: jiff::civil::Time| -> Option<Value> {
        Some(match key {
            "hour" => Value::int(t.hour() as i64),
            "minute" => Value::int(t.minute() as i64),
            "second" => Value::int(t.second() as i64),
            _ => return None,
        })
    };
    match v {
        Value::Date(d) => date_prop(*d),
        Value::Time(t) => time_prop(t.civil()).or_else(|| match (key, t.as_ref()) {
            ("time offset", Time::Zoned { offset, .. }) => Some(Value::DayTimeDuration(
                crate::temporal::offset_duration(*offset),
            )),
            ("time offset", Time::Local(_)) => Some(Value::Null),
            ("timezone", Time::Zoned { zone, .. }) => Some(
                zone.as_ref()
                    .and_then(|z| crate::temporal::zone_name(z))
                    .map(Value::string)
                    .unwrap_or(Value::Null),
            ),
            ("timezone", Time::Local(_)) => Some(Value::Null),
            _ => None,
        }),
        Value::DateTime(dt) => {
            let c = dt.civil();
            date_prop(c.date())
                .or_else(|| time_prop(c.time()))
                .or_else(|| match (key, dt.as_ref()) {
                    ("time offset", DateTime::Zoned(z)) => Some(Value::DayTimeDuration(
                        crate::temporal::offset_duration(z.offset()),
                    )),
                    ("timezone", DateTime::Zoned(z)) => Some(
                        crate::temporal::zone_name(z.time_zone())
                            .map(Value::string)
                            .unwrap_or(Value::Null),
                    ),
                    ("time offset" | "timezone", DateTime::Local(_)) => Some(Value::Null),
                    _ => None,
                })
        }
        Value::DayTimeDuration(d) => {
            let secs = d.as_secs();
            Some(match key {
                "days" => Value::int(secs / 86_400),
                "hours" => Value::int((secs / 3600) % 24),
                "minutes" => Value::int((secs / 60) % 60),
                "seconds" => Value::int(secs % 60),
                _ => return None,
            })
        }
        Value::YearMonthDuration(m) => Some(match key {
            "years" => Value::int(m.0 / 12),
            "months" => Value::int(m.0 % 12),
            _ => return None,
        }),
        Value::Range(r) => Some(match key {
            "start" => r.start.value.clone(),
            "end" => r.end.value.clone(),
            "start included" => Value::Boolean(r.start.closed),
            "end included" => Value::Boolean(r.end.closed),
            _ => return None,
        }),
        _ => None,
    }
}

/// The properties listed in a NO_PROPERTY_FOUND message (feel-scala's order).
fn properties_of(v: &Value) -> &'static [&'static str] {
    match v {
        Value::Date(_) => &["year", "month", "day", "weekday"],
        Value::Time(_) => &["timezone", "second", "time offset", "minute", "hour"],
        Value::DateTime(_) => &[
            "timezone",
            "year",
            "second",
            "month",
            "day",
            "time offset",
            "weekday",
            "minute",
            "hour",
        ],
        Value::DayTimeDuration(_) => &["days", "hours", "minutes", "seconds"],
        Value::YearMonthDuration(_) => &["years", "months"],
        Value::Range(_) => &["start", "end", "start included", "end included"],
        _ => &[],
    }
}
