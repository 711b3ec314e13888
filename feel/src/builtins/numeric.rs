//! Number functions: `decimal`, `floor`, `ceiling`, `round ...`, `abs`, `modulo`, `sqrt`, `log`,
//! `exp`, `odd`, `even`, `random number`.

use super::{Fail, Out, Registry, boolean, int, num, str_arg};
use crate::eval::Eval;
use crate::number::{Number, Rounding};
use crate::value::Value;

pub(crate) fn register(r: &mut Registry) {
    r.add("decimal", &["n", "scale"], |_, a| {
        round(a, Rounding::HalfEven)
    });
    r.add("decimal", &["n", "scale", "mode"], |_, a| {
        let mode = str_arg(&a[2])?;
        if mode.eq_ignore_ascii_case("UNNECESSARY") {
            let n = num(&a[0])?;
            let scale = int(&a[1])?;
            let r = n.round(scale, Rounding::Down);
            if &r != n {
                return Err(Fail::Msg("Rounding necessary".into()));
            }
            return Ok(Value::Number(r));
        }
        let mode = Rounding::from_java_name(mode)
            .ok_or_else(|| Fail::Msg(format!("Unknown rounding mode '{mode}'")))?;
        round(a, mode)
    });
    r.add("floor", &["n"], |_, a| round(a, Rounding::Floor));
    r.add("floor", &["n", "scala"], |_, a| round(a, Rounding::Floor));
    r.add("ceiling", &["n"], |_, a| round(a, Rounding::Ceiling));
    r.add("ceiling", &["n", "scale"], |_, a| {
        round(a, Rounding::Ceiling)
    });
    r.add("round up", &["n", "scale"], |_, a| round(a, Rounding::Up));
    r.add("round down", &["n", "scale"], |_, a| {
        round(a, Rounding::Down)
    });
    r.add("round half up", &["n", "scale"], |_, a| {
        round(a, Rounding::HalfUp)
    });
    r.add("round half down", &["n", "scala"], |_, a| {
        round(a, Rounding::HalfDown)
    });
    r.add("abs", &["number"], abs);
    r.add("abs", &["n"], abs);
    r.add("modulo", &["dividend", "divisor"], modulo);
    r.add("sqrt", &["number"], |_, a| {
        let n = num(&a[0])?;
        if n.signum() < 0 {
            return Err(Fail::Msg(format!("Can't take the square root of '{n}'")));
        }
        via_f64(n.to_f64().sqrt())
    });
    r.add("log", &["number"], |_, a| {
        let n = num(&a[0])?;
        if n.signum() <= 0 {
            return Err(Fail::Msg(format!("Can't take the logarithm of '{n}'")));
        }
        via_f64(n.to_f64().ln())
    });
    r.add("exp", &["number"], |_, a| {
        via_f64(num(&a[0])?.to_f64().exp())
    });
    r.add("odd", &["number"], |_, a| {
        let n = num(&a[0])?;
        if !n.is_integer() {
            return boolean(false);
        }
        boolean(n.rem(&Number::from(2)).is_some_and(|r| !r.is_zero()))
    });
    r.add("even", &["number"], |_, a| {
        let n = num(&a[0])?;
        if !n.is_integer() {
            return boolean(false);
        }
        boolean(n.rem(&Number::from(2)).is_some_and(|r| r.is_zero()))
    });
    r.add("random number", &[], random_number);
}

fn via_f64(f: f64) -> Out {
    Number::from_f64(f).map(Value::Number).ok_or(Fail::Illegal)
}

fn round(a: &[Value], mode: Rounding) -> Out {
    let n = num(&a[0])?;
    let scale = match a.get(1) {
        Some(s) => int(s)?,
        None => 0,
    };
    if !(-6111..=6176).contains(&scale) {
        return Err(Fail::Msg(format!("scale '{scale}' is out of range")));
    }
    Ok(Value::Number(n.round(scale, mode)))
}

fn abs(_: &mut Eval, a: &[Value]) -> Out {
    match &a[0] {
        Value::Number(n) => Ok(Value::Number(n.abs())),
        Value::DayTimeDuration(d) => d
            .checked_neg()
            .map(|_| Value::DayTimeDuration(d.abs()))
            .ok_or(Fail::Illegal),
        Value::YearMonthDuration(m) => Ok(Value::YearMonthDuration(
            crate::temporal::YearMonthDuration(m.0.checked_abs().ok_or(Fail::Illegal)?),
        )),
        _ => Err(Fail::Illegal),
    }
}

fn modulo(_: &mut Eval, a: &[Value]) -> Out {
    let x = num(&a[0])?;
    let y = num(&a[1])?;
    if y.is_zero() {
        return Err(Fail::Msg("division by zero".into()));
    }
    // dividend - divisor * floor(dividend / divisor): the result has the divisor's sign
    let r = x.rem(y).ok_or(Fail::Illegal)?;
    if !r.is_zero() && r.signum() != y.signum() {
        Ok(Value::Number(r.add(y)))
    } else {
        Ok(Value::Number(r))
    }
}

fn random_number(ev: &mut Eval, _: &[Value]) -> Out {
    // deterministic: 53 random bits → [0, 1)
    let bits = ev.next_random() >> 11;
    via_f64(bits as f64 / (1u64 << 53) as f64)
}
