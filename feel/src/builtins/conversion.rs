//! `date`, `time`, `date and time`, `number`, `string`, `duration`,
//! `years and months duration`, `from json`, `to json`.

use jiff::civil;
use jiff::tz::{Offset, TimeZone};

use super::{Fail, Out, Registry, int, num, str_arg};
use crate::eval::Eval;
use crate::number::Number;
use crate::temporal::{self, DateTime, Time, YearMonthDuration};
use crate::value::{Value, to_feel_string};

pub(crate) fn register(r: &mut Registry) {
    r.add("date", &["from"], date);
    r.add("date", &["year", "month", "day"], date3);
    r.add("date and time", &["from"], date_and_time);
    r.add("date and time", &["date", "time"], date_and_time2);
    r.add("time", &["from"], time);
    r.add("time", &["hour", "minute", "second"], time3);
    r.add("time", &["hour", "minute", "second", "offset"], time3);
    r.add("number", &["from"], number);
    r.add("number", &["from", "grouping separator"], number);
    r.add(
        "number",
        &["from", "grouping separator", "decimal separator"],
        number,
    );
    r.add("string", &["from"], string);
    r.add("duration", &["from"], duration);
    r.add(
        "years and months duration",
        &["from", "to"],
        years_and_months_duration,
    );
    r.add("from json", &["json"], from_json);
    r.add("to json", &["value"], to_json);
}

fn date(_: &mut Eval, a: &[Value]) -> Out {
    match &a[0] {
        Value::String(s) => temporal::parse_date(s)
            .or_else(|| temporal::parse_date_time(s).map(|dt| dt.civil().date()))
            .map(Value::Date)
            .ok_or_else(|| Fail::Msg(format!("Failed to parse date from '{s}'"))),
        Value::Date(d) => Ok(Value::Date(*d)),
        Value::DateTime(dt) => Ok(Value::Date(dt.civil().date())),
        _ => Err(Fail::Illegal),
    }
}

fn date3(_: &mut Eval, a: &[Value]) -> Out {
    let (y, m, d) = (int(&a[0])?, int(&a[1])?, int(&a[2])?);
    let (Ok(y), Ok(m), Ok(d)) = (i16::try_from(y), i8::try_from(m), i8::try_from(d)) else {
        return Err(Fail::Illegal);
    };
    civil::Date::new(y, m, d)
        .map(Value::Date)
        .map_err(|e| Fail::Msg(format!("Invalid date: {e}")))
}

fn date_and_time(_: &mut Eval, a: &[Value]) -> Out {
    match &a[0] {
        Value::String(s) => Value::date_time_from_text(s)
            .ok_or_else(|| Fail::Msg(format!("Failed to parse date-time from '{s}'"))),
        Value::DateTime(dt) => Ok(Value::DateTime(dt.clone())),
        Value::Date(d) => Ok(Value::date_time(DateTime::Local(
            d.to_datetime(civil::Time::midnight()),
        ))),
        _ => Err(Fail::Illegal),
    }
}

fn date_and_time2(_: &mut Eval, a: &[Value]) -> Out {
    let d = match &a[0] {
        Value::Date(d) => *d,
        Value::DateTime(dt) => {
            // date and time(dt, "Europe/Berlin"): the same instant in another zone
            if let Value::String(zone) = &a[1] {
                let tz = temporal::zone(zone)
                    .ok_or_else(|| Fail::Msg(format!("Unknown time zone '{zone}'")))?;
                return Ok(Value::date_time(DateTime::Zoned(match dt.as_ref() {
                    DateTime::Zoned(z) => z.with_time_zone(tz),
                    DateTime::Local(l) => l
                        .to_zoned_datetime(tz)
                        .map_err(|e| Fail::Msg(e.to_string()))?,
                })));
            }
            dt.civil().date()
        }
        _ => return Err(Fail::Illegal),
    };
    match &a[1] {
        Value::Time(t) => match t.as_ref() {
            Time::Local(t) => Ok(Value::date_time(DateTime::Local(d.to_datetime(*t)))),
            Time::Zoned { time, offset, zone } => {
                let tz = zone.clone().unwrap_or_else(|| TimeZone::fixed(*offset));
                d.to_datetime(*time)
                    .to_zoned_datetime(tz)
                    .map(|z| Value::date_time(DateTime::Zoned(z)))
                    .map_err(|e| Fail::Msg(e.to_string()))
            }
        },
        Value::DateTime(dt) => match dt.as_ref() {
            DateTime::Local(l) => Ok(Value::date_time(DateTime::Local(d.to_datetime(l.time())))),
            DateTime::Zoned(z) => d
                .to_datetime(z.datetime().time())
                .to_zoned_datetime(z.time_zone().clone())
                .map(|z| Value::date_time(DateTime::Zoned(z)))
                .map_err(|e| Fail::Msg(e.to_string())),
        },
        _ => Err(Fail::Illegal),
    }
}

fn time(_: &mut Eval, a: &[Value]) -> Out {
    match &a[0] {
        Value::String(s) => temporal::parse_time(s)
            .or_else(|| match temporal::parse_date_time(s)? {
                DateTime::Local(l) => Some(Time::Local(l.time())),
                DateTime::Zoned(z) => Some(zoned_time_of(&z)),
            })
            .map(Value::time)
            .ok_or_else(|| Fail::Msg(format!("Failed to parse time from '{s}'"))),
        Value::Time(t) => Ok(Value::Time(t.clone())),
        Value::DateTime(dt) => match dt.as_ref() {
            DateTime::Local(l) => Ok(Value::time(Time::Local(l.time()))),
            DateTime::Zoned(z) => Ok(Value::time(zoned_time_of(z))),
        },
        Value::Date(_) => Ok(Value::time(Time::Zoned {
            time: civil::Time::midnight(),
            offset: Offset::UTC,
            zone: None,
        })),
        _ => Err(Fail::Illegal),
    }
}

fn zoned_time_of(z: &jiff::ZonedDateTime) -> Time {
    let zone = temporal::zone_name(z.time_zone()).map(|_| z.time_zone().clone());
    Time::Zoned {
        time: z.datetime().time(),
        offset: z.offset(),
        zone,
    }
}

fn time3(_: &mut Eval, a: &[Value]) -> Out {
    let h = int(&a[0])?;
    let m = int(&a[1])?;
    let s = num(&a[2])?;
    let whole = s.with_scale(0, crate::number::Rounding::Down);
    let secs = whole.to_i64().ok_or(Fail::Illegal)?;
    let frac = s
        .sub(&whole)
        .mul(&Number::from(1_000_000_000i64))
        .to_i64()
        .unwrap_or(0);
    let t = civil::Time::new(
        i8::try_from(h).map_err(|_| Fail::Illegal)?,
        i8::try_from(m).map_err(|_| Fail::Illegal)?,
        i8::try_from(secs).map_err(|_| Fail::Illegal)?,
        frac as i32,
    )
    .map_err(|e| Fail::Msg(format!("Invalid time: {e}")))?;
    match a.get(3) {
        None => Ok(Value::time(Time::Local(t))),
        Some(Value::Null) => Ok(Value::time(Time::Local(t))),
        Some(Value::DayTimeDuration(d)) => {
            let off =
                Offset::from_seconds(d.as_secs() as i32).map_err(|e| Fail::Msg(e.to_string()))?;
            Ok(Value::time(Time::Zoned {
                time: t,
                offset: off,
                zone: None,
            }))
        }
        _ => Err(Fail::Illegal),
    }
}

fn number(_: &mut Eval, a: &[Value]) -> Out {
    let from = str_arg(&a[0])?;
    let grouping = match a.get(1) {
        None | Some(Value::Null) => None,
        Some(Value::String(g)) => Some(g.as_ref()),
        _ => return Err(Fail::Illegal),
    };
    let decimal = match a.get(2) {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) => Some(d.as_ref()),
        _ => return Err(Fail::Illegal),
    };
    if let Some(g) = grouping
        && !matches!(g, " " | "," | ".")
    {
        return Err(Fail::Msg(format!("Illegal grouping separator '{g}'")));
    }
    if let Some(d) = decimal
        && (!matches!(d, "," | ".") || Some(d) == grouping)
    {
        return Err(Fail::Msg(format!("Illegal decimal separator '{d}'")));
    }
    let mut text = from.to_string();
    if let Some(g) = grouping {
        text = text.replace(g, "");
    }
    if let Some(d) = decimal {
        text = text.replace(d, ".");
    }
    let valid = {
        let t = text
            .strip_prefix('-')
            .or_else(|| text.strip_prefix('+'))
            .unwrap_or(&text);
        let mut parts = t.splitn(2, '.');
        let i = parts.next().unwrap_or("");
        let f = parts.next();
        (!i.is_empty() || f.is_some_and(|f| !f.is_empty()))
            && i.bytes().all(|b| b.is_ascii_digit())
            && f.is_none_or(|f| f.bytes().all(|b| b.is_ascii_digit()))
    };
    let parsed = if valid { Number::parse(&text) } else { None };
    parsed
        .map(Value::Number)
        .ok_or_else(|| Fail::Msg(format!("Can't parse '{from}' as a number")))
}

fn string(_: &mut Eval, a: &[Value]) -> Out {
    match &a[0] {
        Value::Null => Err(Fail::Illegal),
        v => Ok(Value::string(to_feel_string(v))),
    }
}

fn duration(_: &mut Eval, a: &[Value]) -> Out {
    let s = str_arg(&a[0])?;
    Value::duration_from_text(s)
        .ok_or_else(|| Fail::Msg(format!("Failed to parse duration from '{s}'")))
}

fn date_of(v: &Value) -> Result<civil::Date, Fail> {
    match v {
        Value::Date(d) => Ok(*d),
        Value::DateTime(dt) => Ok(dt.civil().date()),
        _ => Err(Fail::Illegal),
    }
}

fn years_and_months_duration(_: &mut Eval, a: &[Value]) -> Out {
    let from = date_of(&a[0])?;
    let to = date_of(&a[1])?;
    Ok(Value::YearMonthDuration(YearMonthDuration(
        temporal::months_between(from, to),
    )))
}

fn from_json(_: &mut Eval, a: &[Value]) -> Out {
    let s = str_arg(&a[0])?;
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(j) => Ok(Value::from_json(&j)),
        Err(_) => Err(Fail::Msg(format!("Failed to parse JSON from '{s}'"))),
    }
}

fn to_json(_: &mut Eval, a: &[Value]) -> Out {
    Ok(Value::string(crate::json::to_json_text(&a[0])))
}
