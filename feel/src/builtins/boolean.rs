//! `not`, `is defined`, `get or else`, `assert`.

use super::{Fail, Out, Registry};
use crate::error::Failure;
use crate::eval::Eval;
use crate::value::{Value, to_feel_string};

pub(crate) fn register(r: &mut Registry) {
    r.add("not", &["negand"], not);
    r.add("is defined", &["value"], |_, a| {
        Ok(Value::Boolean(!a[0].is_null()))
    });
    r.add("get or else", &["value", "default"], |_, a| {
        Ok(if a[0].is_null() {
            a[1].clone()
        } else {
            a[0].clone()
        })
    });
    r.add("assert", &["value", "condition"], |ev, a| {
        assert(ev, a, None)
    });
    r.add("assert", &["value", "condition", "cause"], |ev, a| {
        let cause = to_feel_string(&a[2]);
        assert(ev, a, Some(cause))
    });
}

fn not(_: &mut Eval, a: &[Value]) -> Out {
    match a[0] {
        Value::Boolean(b) => Ok(Value::Boolean(!b)),
        _ => Err(Fail::Illegal),
    }
}

fn assert(ev: &mut Eval, a: &[Value], cause: Option<String>) -> Out {
    if let Value::Boolean(true) = a[1] {
        return Ok(a[0].clone());
    }
    let cause = cause.unwrap_or_else(|| "The condition is not fulfilled".to_string());
    Err(Fail::Fatal(Failure {
        message: format!(
            "Assertion failure on evaluate the expression '{}': {cause}",
            ev.source
        ),
    }))
}
