//! FEEL values ⇄ JSON variables, as Zeebe converts them (`MessagePackValueMapper` in,
//! `FeelToMessagePackTransformer` out), and the text of `to json()`.

use crate::number::Number;
use crate::temporal::{DisplayDate, DisplayDayTime};
use crate::value::{Context, Value};

impl Value {
    /// A JSON variable as FEEL sees it: integers exact, floats as their shortest decimal
    /// (`BigDecimal.valueOf(double)`), objects as contexts in their order. Strings stay strings
    /// (a date in a variable is a string).
    pub fn from_json(json: &serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Boolean(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::int(i)
                } else if let Some(u) = n.as_u64() {
                    Value::Number(Number::parse(&u.to_string()).unwrap_or(Number::ZERO))
                } else {
                    n.as_f64()
                        .and_then(Number::from_f64)
                        .map(Value::Number)
                        .unwrap_or(Value::Null)
                }
            }
            serde_json::Value::String(s) => Value::string(s.as_str()),
            serde_json::Value::Array(items) => {
                Value::list(items.iter().map(Value::from_json).collect())
            }
            serde_json::Value::Object(map) => {
                let mut ctx = Context::with_capacity_and_hasher(map.len(), Default::default());
                for (k, v) in map {
                    ctx.insert(k.as_str().into(), Value::from_json(v));
                }
                Value::context(ctx)
            }
        }
    }

    /// The JSON Zeebe stores for a FEEL result: a whole number becomes a 64-bit integer
    /// (`longValue()`, wrapping beyond i64), any other number a double; temporal values ISO
    /// strings (the zone id of a date-time is dropped, the offset kept); durations feel-scala's
    /// text (`P1DT2H`, `P1Y6M`); functions and ranges `null`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Boolean(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => {
                if n.is_integer() {
                    serde_json::Value::from(n.to_i64_wrapping())
                } else {
                    serde_json::Number::from_f64(n.to_f64())
                        .map(serde_json::Value::Number)
                        .unwrap_or(serde_json::Value::Null)
                }
            }
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Date(d) => serde_json::Value::String(DisplayDate(*d).to_string()),
            Value::Time(t) => serde_json::Value::String(t.to_iso()),
            Value::DateTime(dt) => serde_json::Value::String(dt.to_iso()),
            Value::DayTimeDuration(d) => serde_json::Value::String(DisplayDayTime(*d).to_string()),
            Value::YearMonthDuration(m) => serde_json::Value::String(m.to_string()),
            Value::List(items) => {
                serde_json::Value::Array(items.iter().map(Value::to_json).collect())
            }
            Value::Context(c) => {
                let mut map = serde_json::Map::with_capacity(c.len());
                for (k, v) in c.iter() {
                    map.insert(k.to_string(), v.to_json());
                }
                serde_json::Value::Object(map)
            }
            Value::Range(_) | Value::Function(_) => serde_json::Value::Null,
        }
    }
}

/// The text of feel-scala's `to json(value)`: compact JSON, numbers in full precision,
/// temporal values as strings.
pub(crate) fn to_json_text(v: &Value) -> String {
    let mut out = String::new();
    write_json(v, &mut out);
    out
}

fn write_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_plain_string()),
        Value::String(s) => out.push_str(&serde_json::Value::String(s.to_string()).to_string()),
        Value::List(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(x, out);
            }
            out.push(']');
        }
        Value::Context(c) => {
            out.push('{');
            for (i, (k, x)) in c.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(k.to_string()).to_string());
                out.push(':');
                write_json(x, out);
            }
            out.push('}');
        }
        Value::Range(_) | Value::Function(_) => {
            out.push_str(&serde_json::Value::String(v.to_string()).to_string())
        }
        other => {
            let s = match other {
                Value::DateTime(dt)
                    if matches!(dt.as_ref(), crate::temporal::DateTime::Zoned(_)) =>
                {
                    let crate::temporal::DateTime::Zoned(z) = dt.as_ref() else {
                        return;
                    };
                    let iso = crate::temporal::DateTime::Zoned(z.clone()).to_iso();
                    match crate::temporal::zone_name(z.time_zone()) {
                        Some(id) => format!("{iso}[{id}]"),
                        None => iso,
                    }
                }
                Value::DateTime(dt) => dt.to_string(),
                o => crate::value::to_feel_string(o),
            };
            out.push_str(&serde_json::Value::String(s).to_string());
        }
    }
}
