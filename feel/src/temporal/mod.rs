//! FEEL's temporal values over jiff: parsing the ISO text feel-scala accepts, printing it the way
//! feel-scala does, comparison and the properties (`.year`, `.time offset`, ...).

use std::cmp::Ordering;
use std::fmt;

use jiff::civil;
use jiff::tz::{Offset, TimeZone};
use jiff::{SignedDuration, ZonedDateTime};

/// A FEEL `time`: local, or with an offset (and the zone it came from, if any).
#[derive(Clone, Debug)]
pub enum Time {
    /// `10:30:00`
    Local(civil::Time),
    /// `10:30:00+02:00`, `10:30:00Z`, `10:30:00@Europe/Paris` (offset taken from the zone).
    Zoned {
        /// The wall-clock time.
        time: civil::Time,
        /// The offset from UTC.
        offset: Offset,
        /// The zone id, when written with `@zone`.
        zone: Option<TimeZone>,
    },
}

/// A FEEL `date and time`: local, or zoned (a fixed offset or an IANA zone).
#[derive(Clone, Debug)]
pub enum DateTime {
    /// `2021-09-08T10:30:00`
    Local(civil::DateTime),
    /// `2021-09-08T10:30:00+02:00` (fixed-offset zone) or `...@Europe/Berlin`.
    Zoned(ZonedDateTime),
}

/// A FEEL years-and-months duration, as a signed number of months.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct YearMonthDuration(pub i64);

// ---------- parsing ----------

struct Cursor<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor {
            s: s.as_bytes(),
            pos: 0,
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn digits(&mut self, min: usize, max: usize) -> Option<(i64, usize)> {
        let start = self.pos;
        let mut v: i64 = 0;
        while let Some(b) = self.peek() {
            if !b.is_ascii_digit() || self.pos - start >= max {
                break;
            }
            v = v.checked_mul(10)?.checked_add((b - b'0') as i64)?;
            self.pos += 1;
        }
        let n = self.pos - start;
        if n < min { None } else { Some((v, n)) }
    }
    fn rest(&self) -> &'a str {
        std::str::from_utf8(&self.s[self.pos..]).unwrap_or("")
    }
    fn done(&self) -> bool {
        self.pos == self.s.len()
    }
}

fn parse_date_at(c: &mut Cursor) -> Option<civil::Date> {
    let neg = c.eat(b'-');
    let start = c.pos;
    let (y, n) = c.digits(4, 9)?;
    if n > 4 && c.s[start] == b'0' {
        return None;
    }
    if !c.eat(b'-') {
        return None;
    }
    let (m, ml) = c.digits(2, 2)?;
    if !c.eat(b'-') || ml != 2 {
        return None;
    }
    let (d, _) = c.digits(2, 2)?;
    let y = if neg { -y } else { y };
    civil::Date::new(i16::try_from(y).ok()?, m as i8, d as i8).ok()
}

fn parse_time_at(c: &mut Cursor) -> Option<civil::Time> {
    let (h, _) = c.digits(2, 2)?;
    if !c.eat(b':') {
        return None;
    }
    let (m, _) = c.digits(2, 2)?;
    let mut s = 0;
    let mut nanos = 0i64;
    if c.eat(b':') {
        s = c.digits(2, 2)?.0;
        if c.eat(b'.') {
            let (f, n) = c.digits(1, 9)?;
            nanos = f * 10i64.pow(9 - n as u32);
        }
    }
    if h == 24 && m == 0 && s == 0 && nanos == 0 {
        return None;
    }
    civil::Time::new(h as i8, m as i8, s as i8, nanos as i32).ok()
}

/// Parses `Z`, `+02:00`, `-0530`, `+02`; returns the offset.
fn parse_offset_at(c: &mut Cursor) -> Option<Offset> {
    if c.eat(b'Z') || c.eat(b'z') {
        return Some(Offset::UTC);
    }
    let sign = if c.eat(b'+') {
        1
    } else if c.eat(b'-') {
        -1
    } else {
        return None;
    };
    let (h, _) = c.digits(2, 2)?;
    let mut m = 0;
    let mut s = 0;
    if c.eat(b':') {
        m = c.digits(2, 2)?.0;
        if c.eat(b':') {
            s = c.digits(2, 2)?.0;
        }
    } else if let Some((mm, 2)) = c.digits(2, 2) {
        m = mm;
    }
    if h > 18 || m > 59 || s > 59 {
        return None;
    }
    Offset::from_seconds(sign * (h * 3600 + m * 60 + s) as i32).ok()
}

/// Looks up an IANA zone id (or a fixed offset written as a zone, `+02:00`, `UTC`, `Z`).
pub fn zone(id: &str) -> Option<TimeZone> {
    if id.is_empty() {
        return None;
    }
    if id == "Z" {
        return Some(TimeZone::fixed(Offset::UTC));
    }
    if id.starts_with('+') || id.starts_with('-') {
        let mut c = Cursor::new(id);
        let off = parse_offset_at(&mut c)?;
        return c.done().then(|| TimeZone::fixed(off));
    }
    TimeZone::get(id).ok()
}

fn zone_id(tz: &TimeZone) -> Option<&str> {
    tz.iana_name()
}

/// The offset a zone has for a time of day (feel-scala uses the zone's standard offset; we take
/// the offset in effect on 1970-01-01).
fn zone_time_offset(tz: &TimeZone) -> Offset {
    tz.to_offset(jiff::Timestamp::UNIX_EPOCH)
}

/// `yyyy-MM-dd` (strict, invalid dates like 2023-02-29 are `None`).
pub fn parse_date(s: &str) -> Option<civil::Date> {
    let mut c = Cursor::new(s);
    let d = parse_date_at(&mut c)?;
    c.done().then_some(d)
}

/// `HH:mm:ss[.f][offset|@zone]`.
pub fn parse_time(s: &str) -> Option<Time> {
    let s = s.strip_prefix('T').unwrap_or(s);
    let mut c = Cursor::new(s);
    let t = parse_time_at(&mut c)?;
    if c.done() {
        return Some(Time::Local(t));
    }
    if c.eat(b'@') {
        let tz = zone(c.rest())?;
        let offset = zone_time_offset(&tz);
        return Some(Time::Zoned {
            time: t,
            offset,
            zone: Some(tz),
        });
    }
    let offset = parse_offset_at(&mut c)?;
    let mut zone_tz = None;
    if c.eat(b'[') {
        let rest = c.rest();
        let id = rest.strip_suffix(']')?;
        zone_tz = Some(zone(id)?);
        c.pos = c.s.len();
    }
    c.done().then_some(Time::Zoned {
        time: t,
        offset,
        zone: zone_tz,
    })
}

/// `yyyy-MM-ddTHH:mm:ss[.f][offset][[zone]]` or `...@zone`; a plain date is not accepted here.
pub fn parse_date_time(s: &str) -> Option<DateTime> {
    let mut c = Cursor::new(s);
    let d = parse_date_at(&mut c)?;
    if !(c.eat(b'T') || c.eat(b't')) {
        return None;
    }
    // 24:00:00 is the end of the day: midnight of the next one
    let end_of_day = c.s[c.pos..].starts_with(b"24:00:00") && c.s.get(c.pos + 8) != Some(&b'.');
    let (d, t) = if end_of_day {
        c.pos += 8;
        (d.tomorrow().ok()?, civil::Time::midnight())
    } else {
        (d, parse_time_at(&mut c)?)
    };
    let dt = d.to_datetime(t);
    if c.done() {
        return Some(DateTime::Local(dt));
    }
    if c.eat(b'@') {
        let tz = zone(c.rest())?;
        return dt.to_zoned_datetime(tz).ok().map(DateTime::Zoned);
    }
    let offset = parse_offset_at(&mut c)?;
    if c.eat(b'[') {
        let id = c.rest().strip_suffix(']')?;
        let tz = zone(id)?;
        return dt.to_zoned_datetime(tz).ok().map(DateTime::Zoned);
    }
    if !c.done() {
        return None;
    }
    dt.to_zoned_datetime(TimeZone::fixed(offset))
        .ok()
        .map(DateTime::Zoned)
}

/// True if `s` is a years-and-months duration (`P1Y2M`, `-P3M`).
pub fn parse_year_month_duration(s: &str) -> Option<YearMonthDuration> {
    let mut c = Cursor::new(s);
    let neg = c.eat(b'-');
    if !c.eat(b'P') {
        return None;
    }
    let mut months: i64 = 0;
    let mut any = false;
    let mut seen_m = false;
    let mut seen_y = false;
    while !c.done() {
        let fneg = c.eat(b'-');
        let (v, _) = c.digits(1, 18)?;
        let v = if fneg { -v } else { v };
        match c.peek()? {
            b'Y' if !seen_y && !seen_m => {
                months = months.checked_add(v.checked_mul(12)?)?;
                seen_y = true;
            }
            b'M' if !seen_m => {
                months = months.checked_add(v)?;
                seen_m = true;
            }
            _ => return None,
        }
        c.pos += 1;
        any = true;
    }
    if !any {
        return None;
    }
    Some(YearMonthDuration(if neg { -months } else { months }))
}

/// A days-and-time duration (`P1DT2H3M4.5S`, `PT-1M`, `-P1D`), as java's `Duration.parse`.
pub fn parse_day_time_duration(s: &str) -> Option<SignedDuration> {
    let mut c = Cursor::new(s);
    let neg = c.eat(b'-') || {
        c.eat(b'+');
        false
    };
    if !(c.eat(b'P') || c.eat(b'p')) {
        return None;
    }
    let mut nanos: i128 = 0;
    let mut any = false;
    let mut in_time = false;
    let mut last_rank = 0;
    while !c.done() {
        if !in_time && (c.eat(b'T') || c.eat(b't')) {
            in_time = true;
            if c.done() {
                return None;
            }
            continue;
        }
        let fneg = c.eat(b'-') || {
            c.eat(b'+');
            false
        };
        let (v, _) = c.digits(1, 18)?;
        let mut frac: i128 = 0;
        let mut has_frac = false;
        if c.eat(b'.') || c.eat(b',') {
            let (f, n) = c.digits(0, 9)?;
            frac = f as i128 * 10i128.pow(9 - n as u32);
            has_frac = true;
        }
        let unit = c.peek()?.to_ascii_uppercase();
        c.pos += 1;
        let (rank, scale): (i32, i128) = match (in_time, unit) {
            (false, b'D') => (1, 86_400_000_000_000),
            (true, b'H') => (2, 3_600_000_000_000),
            (true, b'M') => (3, 60_000_000_000),
            (true, b'S') => (4, 1_000_000_000),
            _ => return None,
        };
        if rank <= last_rank || (has_frac && rank != 4) {
            return None;
        }
        last_rank = rank;
        let mut part = v as i128 * scale + frac;
        if fneg {
            part = -part;
        }
        nanos += part;
        any = true;
    }
    if !any {
        return None;
    }
    if neg {
        nanos = -nanos;
    }
    SignedDuration::try_from_nanos_i128(nanos)
}

// ---------- printing ----------

fn write_time(f: &mut fmt::Formatter<'_>, t: civil::Time) -> fmt::Result {
    write!(f, "{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second())?;
    let n = t.subsec_nanosecond();
    if n != 0 {
        let mut s = format!("{n:09}");
        while s.ends_with('0') {
            s.pop();
        }
        write!(f, ".{s}")?;
    }
    Ok(())
}

fn write_date(f: &mut fmt::Formatter<'_>, d: civil::Date) -> fmt::Result {
    let y = d.year();
    if y < 0 {
        write!(f, "-{:04}", -(y as i32))?;
    } else {
        write!(f, "{y:04}")?;
    }
    write!(f, "-{:02}-{:02}", d.month(), d.day())
}

fn write_offset(f: &mut fmt::Formatter<'_>, o: Offset) -> fmt::Result {
    let s = o.seconds();
    if s == 0 {
        return f.write_str("Z");
    }
    let sign = if s < 0 { '-' } else { '+' };
    let a = s.abs();
    write!(f, "{sign}{:02}:{:02}", a / 3600, (a / 60) % 60)?;
    if a % 60 != 0 {
        write!(f, ":{:02}", a % 60)?;
    }
    Ok(())
}

/// A zoned date-time as `ISO_OFFSET_DATE_TIME` prints it (`Z` for a zero offset).
struct IsoOffset<'a>(&'a ZonedDateTime);
impl fmt::Display for IsoOffset<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dt = self.0.datetime();
        write_date(f, dt.date())?;
        f.write_str("T")?;
        write_time(f, dt.time())?;
        write_offset(f, self.0.offset())
    }
}

/// Prints a date as `yyyy-MM-dd`.
pub struct DisplayDate(pub civil::Date);
impl fmt::Display for DisplayDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_date(f, self.0)
    }
}

impl fmt::Display for Time {
    /// feel-scala's `string(time)`: `10:30:00`, `10:30:00+02:00`, `10:30:00@Europe/Paris`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Time::Local(t) => write_time(f, *t),
            Time::Zoned { time, offset, zone } => {
                write_time(f, *time)?;
                match zone.as_ref().and_then(zone_id) {
                    Some(id) => write!(f, "@{id}"),
                    None => write_offset(f, *offset),
                }
            }
        }
    }
}

impl Time {
    /// ISO text with the offset (zone id dropped), as Zeebe writes it.
    pub fn to_iso(&self) -> String {
        match self {
            Time::Local(_) => self.to_string(),
            Time::Zoned { time, offset, .. } => Time::Zoned {
                time: *time,
                offset: *offset,
                zone: None,
            }
            .to_string(),
        }
    }

    /// The wall-clock time.
    pub fn civil(&self) -> civil::Time {
        match self {
            Time::Local(t) | Time::Zoned { time: t, .. } => *t,
        }
    }
}

impl fmt::Display for DateTime {
    /// feel-scala's `string(date and time)`: local, `+02:00` offset, or `@zone`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DateTime::Local(dt) => {
                write_date(f, dt.date())?;
                f.write_str("T")?;
                write_time(f, dt.time())
            }
            DateTime::Zoned(z) => {
                let dt = z.datetime();
                write_date(f, dt.date())?;
                f.write_str("T")?;
                write_time(f, dt.time())?;
                match zone_id(z.time_zone()) {
                    Some(id) => write!(f, "@{id}"),
                    None => write_offset(f, z.offset()),
                }
            }
        }
    }
}

impl DateTime {
    /// ISO text with the offset (java's `ISO_OFFSET_DATE_TIME`; the zone id is dropped), or
    /// `ISO_LOCAL_DATE_TIME` for a local value. Zeebe writes date-times this way.
    pub fn to_iso(&self) -> String {
        match self {
            DateTime::Local(_) => self.to_string(),
            // Written out: a fixed zero offset is the zone `UTC`, which the display names.
            DateTime::Zoned(z) => IsoOffset(z).to_string(),
        }
    }

    /// The wall-clock date and time.
    pub fn civil(&self) -> civil::DateTime {
        match self {
            DateTime::Local(dt) => *dt,
            DateTime::Zoned(z) => z.datetime(),
        }
    }
}

/// Prints a days-and-time duration as feel-scala does (`P1DT2H3M4S`, `-PT1S`, `P0D`).
pub struct DisplayDayTime(pub SignedDuration);
impl fmt::Display for DisplayDayTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        let neg = d.is_negative();
        let secs = d.as_secs().unsigned_abs();
        let days = secs / 86_400;
        let hours = (secs / 3600) % 24;
        let mins = (secs / 60) % 60;
        let s = secs % 60;
        if days == 0 && hours == 0 && mins == 0 && s == 0 {
            return f.write_str("P0D");
        }
        if neg {
            f.write_str("-")?;
        }
        f.write_str("P")?;
        if days != 0 {
            write!(f, "{days}D")?;
        }
        if hours != 0 || mins != 0 || s != 0 {
            f.write_str("T")?;
            if hours != 0 {
                write!(f, "{hours}H")?;
            }
            if mins != 0 {
                write!(f, "{mins}M")?;
            }
            if s != 0 {
                write!(f, "{s}S")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for YearMonthDuration {
    /// `P1Y2M`, `-P5M`, `P0Y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        if m == 0 {
            return f.write_str("P0Y");
        }
        if m < 0 {
            f.write_str("-")?;
        }
        let a = m.unsigned_abs();
        f.write_str("P")?;
        if a / 12 != 0 {
            write!(f, "{}Y", a / 12)?;
        }
        if !a.is_multiple_of(12) {
            write!(f, "{}M", a % 12)?;
        }
        Ok(())
    }
}

// ---------- comparison ----------

fn time_nanos(t: civil::Time) -> i64 {
    (t.hour() as i64 * 3600 + t.minute() as i64 * 60 + t.second() as i64) * 1_000_000_000
        + t.subsec_nanosecond() as i64
}

impl Time {
    /// Ordering for `<`/`>`: local with local, zoned with zoned (by the UTC time of day).
    pub fn compare(&self, other: &Time) -> Option<Ordering> {
        match (self, other) {
            (Time::Local(a), Time::Local(b)) => Some(a.cmp(b)),
            (
                Time::Zoned {
                    time: a,
                    offset: oa,
                    ..
                },
                Time::Zoned {
                    time: b,
                    offset: ob,
                    ..
                },
            ) => {
                let x = time_nanos(*a) - oa.seconds() as i64 * 1_000_000_000;
                let y = time_nanos(*b) - ob.seconds() as i64 * 1_000_000_000;
                Some(x.cmp(&y))
            }
            _ => None,
        }
    }

    /// Equality as java's `equals` (same time, same offset, same zone).
    pub fn same(&self, other: &Time) -> Option<bool> {
        match (self, other) {
            (Time::Local(a), Time::Local(b)) => Some(a == b),
            (
                Time::Zoned {
                    time: a,
                    offset: oa,
                    zone: za,
                },
                Time::Zoned {
                    time: b,
                    offset: ob,
                    zone: zb,
                },
            ) => Some(
                a == b
                    && oa == ob
                    && za.as_ref().and_then(zone_id) == zb.as_ref().and_then(zone_id),
            ),
            _ => None,
        }
    }
}

impl DateTime {
    /// Ordering for `<`/`>`: local with local, zoned with zoned (by instant).
    pub fn compare(&self, other: &DateTime) -> Option<Ordering> {
        match (self, other) {
            (DateTime::Local(a), DateTime::Local(b)) => Some(a.cmp(b)),
            (DateTime::Zoned(a), DateTime::Zoned(b)) => Some(a.timestamp().cmp(&b.timestamp())),
            _ => None,
        }
    }

    /// Equality as java's `equals` (same local date-time, offset and zone).
    pub fn same(&self, other: &DateTime) -> Option<bool> {
        match (self, other) {
            (DateTime::Local(a), DateTime::Local(b)) => Some(a == b),
            (DateTime::Zoned(a), DateTime::Zoned(b)) => Some(
                a.datetime() == b.datetime()
                    && a.offset() == b.offset()
                    && zone_id(a.time_zone()) == zone_id(b.time_zone()),
            ),
            _ => None,
        }
    }
}

/// The zone id of a zoned value, or `None` for fixed offsets.
pub fn zone_name(tz: &TimeZone) -> Option<&str> {
    zone_id(tz)
}

/// A days-and-time duration from seconds of an offset.
pub fn offset_duration(o: Offset) -> SignedDuration {
    SignedDuration::from_secs(o.seconds() as i64)
}

/// The number of whole months between two dates (java's `Period.between(...).toTotalMonths()`).
pub fn months_between(from: civil::Date, to: civil::Date) -> i64 {
    let total_from = from.year() as i64 * 12 + from.month() as i64 - 1;
    let total_to = to.year() as i64 * 12 + to.month() as i64 - 1;
    let mut months = total_to - total_from;
    let day_diff = to.day() as i64 - from.day() as i64;
    if months > 0 && day_diff < 0 {
        months -= 1;
    } else if months < 0 && day_diff > 0 {
        months += 1;
    }
    months
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_like_feel_scala() {
        assert_eq!(
            parse_date_time("2021-09-08T10:30:00+02:00[Europe/Berlin]")
                .unwrap()
                .to_string(),
            "2021-09-08T10:30:00@Europe/Berlin"
        );
        assert_eq!(
            parse_time("10:30:00@Europe/Berlin").unwrap().to_iso(),
            "10:30:00+01:00"
        );
        assert!(parse_date("2023-02-29").is_none());
        assert_eq!(
            DisplayDayTime(parse_day_time_duration("-P1DT2H3M4S").unwrap()).to_string(),
            "-P1DT2H3M4S"
        );
        assert_eq!(
            DisplayDayTime(parse_day_time_duration("PT-1M-5S").unwrap()).to_string(),
            "-PT1M5S"
        );
        assert_eq!(
            parse_year_month_duration("P1Y6M").unwrap().to_string(),
            "P1Y6M"
        );
        assert!(parse_year_month_duration("P1D").is_none());
    }

    /// Zeebe writes a date-time result as ISO text (`FeelToMessagePackTransformer`); the zone
    /// `UTC` (the engine clock's) is an offset `Z` there, never feel-scala's `@UTC`.
    #[test]
    fn iso_text_of_a_utc_date_time_ends_with_z() {
        let utc = jiff::Timestamp::from_second(1_735_689_600)
            .unwrap()
            .to_zoned_datetime(TimeZone::UTC);
        let dt = DateTime::Zoned(utc);
        assert_eq!(dt.to_string(), "2025-01-01T00:00:00@UTC");
        assert_eq!(dt.to_iso(), "2025-01-01T00:00:00Z");
        assert_eq!(
            parse_date_time("2021-09-08T10:30:00.5+02:00[Europe/Berlin]")
                .unwrap()
                .to_iso(),
            "2021-09-08T10:30:00.5+02:00"
        );
        assert_eq!(
            parse_date_time("2021-09-08T10:30:00Z").unwrap().to_iso(),
            "2021-09-08T10:30:00Z"
        );
    }
}
