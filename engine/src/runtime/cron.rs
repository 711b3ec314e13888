//! Cron expressions as Zeebe reads timer cycles that are not ISO repeating intervals: Spring 5.3
//! `CronExpression` syntax (six fields, seconds first: `0 0 9-17 * * MON-FRI`), evaluated in UTC.
//!
//! Fields: second, minute, hour, day of month, month, day of week. Each is `*` (or `?`), a
//! value, a range `a-b`, a step `*/n`, `a/n`, `a-b/n`, or a comma list of those; months and
//! week days also by name (`JAN`, `MON`; day of week `0` and `7` are Sunday). Day of month may
//! instead be `L`, `L-n`, `LW` or `nW`, day of week `nL` (last such day of the month) or `n#m`
//! (the m-th). Day of month and day of week must both match. The macros `@yearly`,
//! `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight` and `@hourly` stand for their
//! expressions. (No crate implements Spring's dialect on the `jiff` version the workspace uses;
//! this one is small and tested below.)

use jiff::civil::{Date, DateTime, Weekday};

/// A parsed cron expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CronExpression {
    seconds: u64,
    minutes: u64,
    hours: u64,
    days_of_month: DayOfMonth,
    months: u64,
    days_of_week: DayOfWeek,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DayOfMonth {
    /// Bits 1..=31.
    Days(u64),
    /// `L` / `L-n`: the last day of the month minus `n`.
    Last(u32),
    /// `LW`: the last weekday (Monday to Friday) of the month.
    LastWeekday,
    /// `nW`: the weekday nearest to day `n`, within the month.
    NearestWeekday(u32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DayOfWeek {
    /// Bits 0..=6, Sunday = 0.
    Days(u64),
    /// `nL`: the last such day of the month (Sunday = 0).
    Last(u32),
    /// `n#m`: the m-th such day of the month.
    Nth(u32, u32),
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// A cron expression that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CronError {
    /// Not six fields (after expanding `@daily` and the like).
    #[error("Cron expression must consist of 6 fields (found {found} in \"{text}\")")]
    FieldCount { text: String, found: usize },
    /// One field is wrong: which one (`second`, `day of month`, ...) and why.
    #[error("Invalid {field} field: {message}")]
    Field {
        field: &'static str,
        message: String,
    },
}

/// How far ahead a match is searched for before the expression counts as never matching.
const MAX_YEARS_AHEAD: i16 = 30;

impl CronExpression {
    /// Parses an expression; the error says which field is wrong and why.
    pub fn parse(text: &str) -> Result<CronExpression, CronError> {
        let trimmed = text.trim();
        let expanded = match trimmed.to_ascii_lowercase().as_str() {
            "@yearly" | "@annually" => "0 0 0 1 1 *",
            "@monthly" => "0 0 0 1 * *",
            "@weekly" => "0 0 0 * * 0",
            "@daily" | "@midnight" => "0 0 0 * * *",
            "@hourly" => "0 0 * * * *",
            _ => trimmed,
        };
        let fields: Vec<&str> = expanded.split_whitespace().collect();
        if fields.len() != 6 {
            return Err(CronError::FieldCount {
                text: text.to_owned(),
                found: fields.len(),
            });
        }
        let upper: Vec<String> = fields.iter().map(|f| f.to_ascii_uppercase()).collect();
        Ok(CronExpression {
            seconds: parse_field(&upper[0], 0, 59, None).map_err(|e| field_error("second", e))?,
            minutes: parse_field(&upper[1], 0, 59, None).map_err(|e| field_error("minute", e))?,
            hours: parse_field(&upper[2], 0, 23, None).map_err(|e| field_error("hour", e))?,
            days_of_month: parse_days_of_month(&upper[3])
                .map_err(|e| field_error("day of month", e))?,
            months: parse_field(&upper[4], 1, 12, Some((&MONTHS, 1)))
                .map_err(|e| field_error("month", e))?,
            days_of_week: parse_days_of_week(&upper[5])
                .map_err(|e| field_error("day of week", e))?,
        })
    }

    /// The first matching time strictly after `after_ms` (epoch milliseconds, UTC), in whole
    /// seconds; `None` if nothing matches within thirty years.
    pub fn next_after(&self, after_ms: i64) -> Option<i64> {
        let start_s = after_ms.div_euclid(1000) + 1;
        let ts = jiff::Timestamp::from_second(start_s).ok()?;
        let mut t = ts.to_zoned_datetime(jiff::tz::TimeZone::UTC).datetime();
        let limit = t.year().checked_add(MAX_YEARS_AHEAD)?;
        loop {
            if t.year() > limit {
                return None;
            }
            if !bit(self.months, t.month() as u32) {
                t = first_of_next_month(t.date())?;
                continue;
            }
            if !self.day_matches(t.date()) {
                t = t
                    .date()
                    .tomorrow()
                    .ok()?
                    .to_datetime(jiff::civil::time(0, 0, 0, 0));
                continue;
            }
            if !bit(self.hours, t.hour() as u32) {
                t = t.checked_add(jiff::SignedDuration::from_hours(1)).ok()?;
                t = t.with().minute(0).second(0).build().ok()?;
                continue;
            }
            if !bit(self.minutes, t.minute() as u32) {
                t = t.checked_add(jiff::SignedDuration::from_mins(1)).ok()?;
                t = t.with().second(0).build().ok()?;
                continue;
            }
            if !bit(self.seconds, t.second() as u32) {
                t = t.checked_add(jiff::SignedDuration::from_secs(1)).ok()?;
                continue;
            }
            let zoned = t.to_zoned_datetime(jiff::tz::TimeZone::UTC).ok()?;
            return Some(zoned.timestamp().as_millisecond());
        }
    }

    fn day_matches(&self, d: Date) -> bool {
        let last = d.last_of_month().day() as u32;
        let day = d.day() as u32;
        let dom = match self.days_of_month {
            DayOfMonth::Days(bits) => bit(bits, day),
            DayOfMonth::Last(offset) => last.checked_sub(offset) == Some(day),
            DayOfMonth::LastWeekday => {
                let last_date = d.last_of_month();
                nearest_weekday(last_date, last) == day
            }
            DayOfMonth::NearestWeekday(n) => n <= last && nearest_weekday(d, n) == day,
        };
        if !dom {
            return false;
        }
        let dow = d.weekday().to_sunday_zero_offset() as u32;
        match self.days_of_week {
            DayOfWeek::Days(bits) => bit(bits, dow),
            DayOfWeek::Last(w) => w == dow && day + 7 > last,
            DayOfWeek::Nth(w, n) => w == dow && (day - 1) / 7 + 1 == n,
        }
    }
}

fn field_error(field: &'static str, message: String) -> CronError {
    CronError::Field { field, message }
}

fn bit(bits: u64, n: u32) -> bool {
    bits & (1 << n) != 0
}

fn first_of_next_month(d: Date) -> Option<DateTime> {
    let first = d
        .first_of_month()
        .checked_add(jiff::Span::new().months(1))
        .ok()?;
    Some(first.to_datetime(jiff::civil::time(0, 0, 0, 0)))
}

/// The weekday (Monday to Friday) nearest to day `n` of `d`'s month, not leaving the month.
fn nearest_weekday(d: Date, n: u32) -> u32 {
    let target = d.first_of_month().with().day(n as i8).build().unwrap_or(d);
    let last = d.last_of_month().day() as u32;
    match target.weekday() {
        Weekday::Saturday => {
            if n == 1 {
                3
            } else {
                n - 1
            }
        }
        Weekday::Sunday => {
            if n == last {
                n - 2
            } else {
                n + 1
            }
        }
        _ => n,
    }
}

/// A value of a field: a number or (for months and week days) a name.
fn value(text: &str, min: u32, max: u32, names: Option<(&[&str], u32)>) -> Result<u32, String> {
    if let Some((names, first)) = names
        && let Some(i) = names.iter().position(|n| *n == text)
    {
        return Ok(i as u32 + first);
    }
    let n: u32 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if n < min || n > max {
        return Err(format!("{n} is not within {min}-{max}"));
    }
    Ok(n)
}

/// A plain field: bits of the values it matches.
fn parse_field(
    field: &str,
    min: u32,
    max: u32,
    names: Option<(&[&str], u32)>,
) -> Result<u64, String> {
    let mut bits = 0u64;
    for part in field.split(',') {
        if part.is_empty() {
            return Err(format!("empty list element in '{field}'"));
        }
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => {
                let step: u32 = s.parse().map_err(|_| format!("'{s}' is not a step"))?;
                if step == 0 {
                    return Err(format!("the step in '{part}' must be positive"));
                }
                (r, Some(step))
            }
            None => (part, None),
        };
        let (lo, hi) = if range == "*" || range == "?" {
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            let (a, b) = (value(a, min, max, names)?, value(b, min, max, names)?);
            if a > b {
                return Err(format!("the range '{range}' is backwards"));
            }
            (a, b)
        } else {
            let a = value(range, min, max, names)?;
            // `a/n` runs from a to the end of the field.
            (a, if step.is_some() { max } else { a })
        };
        let step = step.unwrap_or(1);
        let mut v = lo;
        while v <= hi {
            bits |= 1 << v;
            v += step;
        }
    }
    Ok(bits)
}

fn parse_days_of_month(field: &str) -> Result<DayOfMonth, String> {
    if field == "LW" {
        return Ok(DayOfMonth::LastWeekday);
    }
    if let Some(rest) = field.strip_prefix('L') {
        let offset = match rest.strip_prefix('-') {
            Some(n) => value(n, 0, 30, None)?,
            None if rest.is_empty() => 0,
            None => return Err(format!("unexpected '{rest}' after 'L'")),
        };
        return Ok(DayOfMonth::Last(offset));
    }
    if let Some(n) = field.strip_suffix('W') {
        if n.is_empty() {
            return Err("no day of month before 'W'".to_owned());
        }
        return Ok(DayOfMonth::NearestWeekday(value(n, 1, 31, None)?));
    }
    parse_field(field, 1, 31, None).map(DayOfMonth::Days)
}

fn parse_days_of_week(field: &str) -> Result<DayOfWeek, String> {
    let day = |t: &str| value(t, 0, 7, Some((&DAYS, 0))).map(|d| d % 7);
    if let Some(d) = field.strip_suffix('L') {
        if d.is_empty() {
            return Err("no day of week before 'L'".to_owned());
        }
        return Ok(DayOfWeek::Last(day(d)?));
    }
    if let Some((d, n)) = field.split_once('#') {
        let n = value(n, 1, 5, None)?;
        return Ok(DayOfWeek::Nth(day(d)?, n));
    }
    // `SUN` is 0 and `7` is Sunday as well.
    let mut bits = parse_field(field, 0, 7, Some((&DAYS, 0)))?;
    if bit(bits, 7) {
        bits = (bits | 1) & !(1 << 7);
    }
    Ok(DayOfWeek::Days(bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> i64 {
        text.parse::<jiff::Timestamp>().unwrap().as_millisecond()
    }

    fn next(expr: &str, after: &str) -> String {
        let c = CronExpression::parse(expr).unwrap();
        let n = c.next_after(ms(after)).expect("matches");
        jiff::Timestamp::from_millisecond(n).unwrap().to_string()
    }

    #[test]
    fn the_next_match_is_strictly_after_in_whole_seconds() {
        assert_eq!(
            next("* * * * * *", "2025-01-01T00:00:00Z"),
            "2025-01-01T00:00:01Z"
        );
        assert_eq!(
            next("* * * * * *", "2025-01-01T00:00:00.500Z"),
            "2025-01-01T00:00:01Z"
        );
        assert_eq!(
            next("0 * * * * *", "2025-01-01T00:00:00Z"),
            "2025-01-01T00:01:00Z"
        );
        assert_eq!(
            next("0 0 9-17 * * MON-FRI", "2025-01-03T17:30:00Z"),
            "2025-01-06T09:00:00Z",
            "Friday evening → Monday 9:00"
        );
        assert_eq!(
            next("*/15 * * * * *", "2025-01-01T00:00:14Z"),
            "2025-01-01T00:00:15Z"
        );
        assert_eq!(
            next("0 0 0 1 JAN *", "2025-06-01T00:00:00Z"),
            "2026-01-01T00:00:00Z"
        );
        assert_eq!(
            next("@daily", "2025-01-01T10:00:00Z"),
            "2025-01-02T00:00:00Z"
        );
        assert_eq!(
            next("@hourly", "2025-01-01T10:00:00Z"),
            "2025-01-01T11:00:00Z"
        );
        assert_eq!(
            next("0 30 10 * * ?", "2025-01-01T10:30:00Z"),
            "2025-01-02T10:30:00Z"
        );
        assert_eq!(
            next("0 0 12 1,15 * *", "2025-01-02T00:00:00Z"),
            "2025-01-15T12:00:00Z"
        );
        assert_eq!(
            next("0 0 0 29 2 *", "2025-01-01T00:00:00Z"),
            "2028-02-29T00:00:00Z"
        );
    }

    #[test]
    fn sunday_is_zero_and_seven_and_both_day_fields_must_match() {
        assert_eq!(
            next("0 0 0 * * 0", "2025-01-01T00:00:00Z"),
            "2025-01-05T00:00:00Z"
        );
        assert_eq!(
            next("0 0 0 * * 7", "2025-01-01T00:00:00Z"),
            "2025-01-05T00:00:00Z"
        );
        assert_eq!(
            next("0 0 0 * * SUN", "2025-01-01T00:00:00Z"),
            "2025-01-05T00:00:00Z"
        );
        // The 13th that is a Friday.
        assert_eq!(
            next("0 0 0 13 * FRI", "2025-01-01T00:00:00Z"),
            "2025-06-13T00:00:00Z"
        );
    }

    #[test]
    fn quartz_day_specials() {
        assert_eq!(
            next("0 0 0 L * *", "2025-02-01T00:00:00Z"),
            "2025-02-28T00:00:00Z"
        );
        assert_eq!(
            next("0 0 0 L-2 * *", "2025-02-01T00:00:00Z"),
            "2025-02-26T00:00:00Z"
        );
        // Last weekday of May 2025 (31st is a Saturday).
        assert_eq!(
            next("0 0 0 LW * *", "2025-05-01T00:00:00Z"),
            "2025-05-30T00:00:00Z"
        );
        // Nearest weekday to the 1st of March 2025 (a Saturday) is Monday the 3rd.
        assert_eq!(
            next("0 0 0 1W * *", "2025-02-28T00:00:00Z"),
            "2025-03-03T00:00:00Z"
        );
        // Last Friday, second Tuesday.
        assert_eq!(
            next("0 0 0 * * 5L", "2025-01-01T00:00:00Z"),
            "2025-01-31T00:00:00Z"
        );
        assert_eq!(
            next("0 0 0 * * TUE#2", "2025-01-01T00:00:00Z"),
            "2025-01-14T00:00:00Z"
        );
    }

    #[test]
    fn errors_name_the_field() {
        let e = |t: &str| CronExpression::parse(t).unwrap_err().to_string();
        assert_eq!(
            e("0 0 * * *"),
            "Cron expression must consist of 6 fields (found 5 in \"0 0 * * *\")"
        );
        assert_eq!(
            e("60 * * * * *"),
            "Invalid second field: 60 is not within 0-59"
        );
        assert_eq!(
            e("0 0 0 * FOO *"),
            "Invalid month field: 'FOO' is not a number"
        );
        assert_eq!(
            e("0 0 5-1 * * *"),
            "Invalid hour field: the range '5-1' is backwards"
        );
        assert_eq!(
            e("*/0 * * * * *"),
            "Invalid second field: the step in '*/0' must be positive"
        );
        assert!(
            CronExpression::parse("0 0 0 30 2 *")
                .unwrap()
                .next_after(0)
                .is_none()
        );
    }
}
