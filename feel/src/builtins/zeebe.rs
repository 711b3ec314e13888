//! Zeebe's own functions: `cycle` (timer cycles) and `fromAi` (AI-agent tool inputs).

use super::{Fail, Registry, int};
use crate::temporal::DisplayDayTime;
use crate::value::Value;

pub(crate) fn register(r: &mut Registry) {
    r.add("cycle", &["repetitions", "interval"], |_, a| {
        let interval = duration_text(&a[1])?;
        match &a[0] {
            Value::Null => Ok(Value::string(format!("R/{interval}"))),
            v => Ok(Value::string(format!("R{}/{interval}", int(v)?))),
        }
    });
    r.add("cycle", &["repetitions"], |_, a| {
        Ok(Value::string(format!("R/{}", duration_text(&a[0])?)))
    });
    r.add("fromAi", &["value"], |_, a| Ok(a[0].clone()));
    r.add("fromAi", &["value", "description"], |_, a| Ok(a[0].clone()));
    r.add("fromAi", &["value", "description", "type"], |_, a| {
        Ok(a[0].clone())
    });
    r.add(
        "fromAi",
        &["value", "description", "type", "schema"],
        |_, a| Ok(a[0].clone()),
    );
    r.add(
        "fromAi",
        &["value", "description", "type", "schema", "options"],
        |_, a| Ok(a[0].clone()),
    );
}

/// Zeebe formats the interval with java's `Duration.toString()` (`PT1H`, `PT36H`) or
/// `Period.toString()` (`P1Y2M`).
fn duration_text(v: &Value) -> Result<String, Fail> {
    match v {
        Value::DayTimeDuration(d) => Ok(java_duration(*d)),
        Value::YearMonthDuration(m) => Ok(m.to_string()),
        _ => Err(Fail::Illegal),
    }
}

fn java_duration(d: jiff::SignedDuration) -> String {
    if d.is_zero() {
        return "PT0S".into();
    }
    let secs = d.as_secs();
    let nanos = d.subsec_nanos();
    let hours = secs / 3600;
    let mins = (secs % 3600) / 60;
    let s = secs % 60;
    let mut out = String::from("PT");
    if hours != 0 {
        out.push_str(&format!("{hours}H"));
    }
    if mins != 0 {
        out.push_str(&format!("{mins}M"));
    }
    if s != 0 || nanos != 0 {
        if nanos == 0 {
            out.push_str(&format!("{s}S"));
        } else {
            let total = s as f64 + nanos as f64 / 1e9;
            out.push_str(&format!("{total}S"));
        }
    }
    let _ = DisplayDayTime(d);
    out
}
