//! Operators on evaluated values: comparison, ranges, arithmetic, `instance of`, list indexes,
//! and what makes an expression a test of the unary-test input.

use std::cmp::Ordering;

use super::{Eval, R, Shown, temporal_arithmetic};
use crate::ast::{ArithOp, CmpOp, Expr, ExprKind};
use crate::error::WarningKind;
use crate::number::Number;
use crate::value::Value;

impl Eval<'_> {
    pub fn compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> Value {
        if let (Value::Number(x), Value::Number(y)) = (a, b) {
            return Value::Boolean(op.holds(x.compare(y)));
        }
        match op {
            CmpOp::Eq | CmpOp::Ne => match a.feel_eq(b) {
                Some(eq) => Value::Boolean(if op == CmpOp::Eq { eq } else { !eq }),
                None => self.null(WarningKind::NotComparable, || {
                    format!("Can't compare '{}' with '{}'", Shown(a), Shown(b))
                }),
            },
            _ => {
                if a.is_null() || b.is_null() {
                    return self.null(WarningKind::NotComparable, || {
                        format!("Can't compare '{}' with '{}'", Shown(a), Shown(b))
                    });
                }
                match a.feel_cmp(b) {
                    Some(o) => Value::Boolean(match op {
                        CmpOp::Lt => o == Ordering::Less,
                        CmpOp::Le => o != Ordering::Greater,
                        CmpOp::Gt => o == Ordering::Greater,
                        _ => o != Ordering::Less,
                    }),
                    None => self.null(WarningKind::NotComparable, || {
                        format!("Can't compare '{}' with '{}'", Shown(a), Shown(b))
                    }),
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
            _ => self.null(WarningKind::NotComparable, || {
                format!(
                    "Can't compare '{}' with '{}' and '{}'",
                    Shown(input),
                    Shown(lo),
                    Shown(hi)
                )
            }),
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
                    return Ok(self.null(WarningKind::InvalidType, || {
                        format!("Can't divide '{}' by '{}'", Shown(a), Shown(b))
                    }));
                }
            },
            (ArithOp::Pow, Number(x), Number(y)) => match x.checked_pow(y) {
                Ok(r) => r.map(Number),
                Err(e) => return Err(self.exception(format!("java.lang.ArithmeticException: {e}"))),
            },
            (ArithOp::Add, String(x), String(y)) => {
                self.check_string(x.len() + y.len())?;
                self.charge_bytes(x.len() + y.len())?;
                let mut s = std::string::String::with_capacity(x.len() + y.len());
                s.push_str(x);
                s.push_str(y);
                Some(Value::string(s))
            }
            (ArithOp::Add | ArithOp::Sub, _, _) => {
                temporal_arithmetic::add_sub(op == ArithOp::Sub, a, b)
            }
            (ArithOp::Mul, _, _) => temporal_arithmetic::multiply(a, b),
            (ArithOp::Div, _, _) => temporal_arithmetic::divide(a, b),
            _ => None,
        };
        Ok(match r {
            Some(v) => v,
            None => self.null(WarningKind::InvalidType, || {
                let (a, b) = (Shown(a), Shown(b));
                match op {
                    ArithOp::Add => format!("Can't add '{b}' to '{a}'"),
                    ArithOp::Sub => format!("Can't subtract '{b}' from '{a}'"),
                    ArithOp::Mul => format!("Can't multiply '{a}' by '{b}'"),
                    ArithOp::Div => format!("Can't divide '{a}' by '{b}'"),
                    ArithOp::Pow => format!("Can't raise '{a}' to the power of '{b}'"),
                }
            }),
        })
    }
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

pub(super) fn index(items: &[Value], n: &Number) -> Value {
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

/// True if the expression tests the input itself (a unary-test form or a use of `?`).
pub(super) fn is_input_test(e: &Expr) -> bool {
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
