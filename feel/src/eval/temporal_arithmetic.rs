//! FEEL arithmetic on temporal values: dates, times and date-times plus or minus durations,
//! durations with durations and numbers, differences of dates, times and date-times. `None`
//! when the operation is not defined for the operands (the caller warns and gives `null`).

use jiff::SignedDuration;

use crate::number::{Number, Rounding};
use crate::value::Value;

/// Temporal `+`/`-`: dates, times, date-times with durations; durations with durations;
/// differences of dates, times and date-times.
pub(crate) fn add_sub(sub: bool, a: &Value, b: &Value) -> Option<Value> {
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

/// `duration * number` (either way round).
pub(crate) fn multiply(a: &Value, b: &Value) -> Option<Value> {
    use Value::*;
    match (a, b) {
        (DayTimeDuration(d), Number(n)) | (Number(n), DayTimeDuration(d)) => {
            scale_duration(*d, n, false).map(DayTimeDuration)
        }
        (YearMonthDuration(m), Number(n)) | (Number(n), YearMonthDuration(m)) => {
            let total = crate::number::Number::from(m.0).mul(n);
            total
                .with_scale(0, Rounding::Down)
                .to_i64()
                .map(|t| YearMonthDuration(crate::temporal::YearMonthDuration(t)))
        }
        _ => None,
    }
}

/// `duration / number` and `duration / duration` (of one kind).
pub(crate) fn divide(a: &Value, b: &Value) -> Option<Value> {
    use Value::*;
    match (a, b) {
        (DayTimeDuration(d), Number(n)) => {
            if n.is_zero() {
                None
            } else {
                scale_duration(*d, n, true).map(DayTimeDuration)
            }
        }
        (YearMonthDuration(m), Number(n)) => {
            crate::number::Number::from(m.0).div(n).and_then(|q| {
                q.with_scale(0, Rounding::Down)
                    .to_i64()
                    .map(|t| YearMonthDuration(crate::temporal::YearMonthDuration(t)))
            })
        }
        (DayTimeDuration(x), DayTimeDuration(y)) => {
            if y.is_zero() {
                None
            } else {
                crate::number::Number::from_big_decimal(bigdecimal::BigDecimal::from(x.as_nanos()))
                    .div(&crate::number::Number::from_big_decimal(
                        bigdecimal::BigDecimal::from(y.as_nanos()),
                    ))
                    .map(Number)
            }
        }
        (YearMonthDuration(x), YearMonthDuration(y)) => crate::number::Number::from(x.0)
            .div(&crate::number::Number::from(y.0))
            .map(Number),
        _ => None,
    }
}

fn scale_duration(d: SignedDuration, n: &Number, divide: bool) -> Option<SignedDuration> {
    let nanos = Number::from_big_decimal(bigdecimal::BigDecimal::from(d.as_nanos()));
    let r = if divide { nanos.div(n)? } else { nanos.mul(n) };
    let whole = r.with_scale(0, Rounding::HalfEven).to_big_decimal();
    let (int, _) = whole.into_bigint_and_exponent();
    let v: i128 = num_traits::ToPrimitive::to_i128(&int)?;
    SignedDuration::try_from_nanos_i128(v)
}

fn add_months_dt(dt: jiff::civil::DateTime, months: i64) -> Option<jiff::civil::DateTime> {
    dt.checked_add(jiff::Span::new().try_months(months).ok()?)
        .ok()
}
