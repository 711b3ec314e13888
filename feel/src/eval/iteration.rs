//! `for`, `some` and `every`: iterators over lists, integer and date ranges, nested levels, the
//! `partial` results, and the invariant-body shortcut.

use std::sync::Arc;

use super::{Eval, Scope, Shown};
use crate::ast::{Expr, ExprKind, Iteration, PARTIAL};
use crate::error::{Failure, WarningKind};
use crate::value::{List, Value};

type R = Result<Value, Failure>;

impl Eval<'_> {
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
                    self.warn(WarningKind::InvalidType, || {
                        format!("Expected list but found '{}'", Shown(&other))
                    });
                    Ok(None)
                }
            },
            Iteration::Range(a, b) => {
                let a = self.eval(a, scope)?;
                let b = self.eval(b, scope)?;
                match (&a, &b) {
                    (Value::Number(x), Value::Number(y)) => {
                        let (Some(x), Some(y)) = (x.to_i64(), y.to_i64()) else {
                            self.warn(WarningKind::InvalidType, || {
                                format!(
                                    "Expected range of integers but found '{}..{}'",
                                    Shown(&a),
                                    Shown(&b)
                                )
                            });
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
                            self.charge_items(1)?;
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
                        self.warn(WarningKind::InvalidType, || {
                            format!(
                                "Expected range of numbers but found '{}..{}'",
                                Shown(&a),
                                Shown(&b)
                            )
                        });
                        Ok(None)
                    }
                }
            }
        }
    }

    pub(super) fn for_loop(
        &mut self,
        iters: &[(Arc<str>, Iteration)],
        body: &Expr,
        scope: &Scope,
    ) -> R {
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
            self.charge_items(1)?;
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
            let warnings = self.warning_count();
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
            self.charge_items(1)?;
            if invariant && self.warning_count() == warnings {
                let n = items.len();
                self.check_items(out.len().saturating_add(n))?;
                self.charge_items(n)?;
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
            // a result that holds `partial` nests the results so far one level deeper (and is
            // copied out of the list that it shares)
            if Arc::strong_count(out) > 1 {
                self.partial_nesting += 1;
                if self.partial_nesting > self.env.limits.max_depth {
                    return Err(self.failure(format!(
                        "the results that hold 'partial' are nested deeper than {} levels",
                        self.env.limits.max_depth
                    )));
                }
            }
            let items = Arc::make_mut(out);
            items.push(v);
            self.check_items(items.len())?;
            self.charge_items(1)?;
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

    pub(super) fn quantified(
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
            self.warn(WarningKind::InvalidType, || {
                format!("Expected boolean but found '{}'", Shown(&other))
            });
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
