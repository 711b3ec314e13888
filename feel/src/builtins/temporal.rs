//! `now`, `today`, `day of year`, `day of week`, `month of year`, `week of year`,
//! `last day of month`.

use jiff::civil;

use super::{Fail, Registry};
use crate::temporal::DateTime;
use crate::value::Value;

pub(crate) fn register(r: &mut Registry) {
    r.add("now", &[], |ev, _| {
        Ok(Value::date_time(DateTime::Zoned(ev.env.now.clone())))
    });
    r.add("today", &[], |ev, _| {
        Ok(Value::Date(ev.env.now.datetime().date()))
    });
    r.add("day of year", &["date"], |_, a| {
        Ok(Value::int(date(&a[0])?.day_of_year() as i64))
    });
    r.add("day of week", &["date"], |_, a| {
        let names = [
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
            "Saturday",
            "Sunday",
        ];
        Ok(Value::string(
            names[date(&a[0])?.weekday().to_monday_zero_offset() as usize],
        ))
    });
    r.add("month of year", &["date"], |_, a| {
        let names = [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ];
        Ok(Value::string(names[date(&a[0])?.month() as usize - 1]))
    });
    r.add("week of year", &["date"], |_, a| {
        Ok(Value::int(date(&a[0])?.iso_week_date().week() as i64))
    });
    r.add("last day of month", &["date"], |_, a| {
        let d = date(&a[0])?;
        Ok(Value::Date(d.last_of_month()))
    });
}

fn date(v: &Value) -> Result<civil::Date, Fail> {
    match v {
        Value::Date(d) => Ok(*d),
        Value::DateTime(dt) => Ok(dt.civil().date()),
        _ => Err(Fail::Illegal),
    }
}
