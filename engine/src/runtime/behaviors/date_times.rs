//! Date-times as Zeebe reads and writes them with `java.time`: `ZonedDateTime.parse` (ISO
//! zoned date-time: a date, `T`, a time, an offset, an optional `[zone]`) for expression
//! results that are strings, and `ZonedDateTime.toString()` for the dates a user task keeps.

use std::fmt::Write;

use jiff::fmt::temporal::{Pieces, PiecesOffset, TimeZoneAnnotationKind};
use jiff::tz::{Offset, TimeZone};
use jiff::{Timestamp, ZonedDateTime as Zoned};

/// A date-time as `java.time` holds it: an instant in a zone, and whether the zone is a
/// region (printed `[Europe/Berlin]`) rather than an offset. jiff cannot tell `Z` from the
/// region `UTC`.
#[derive(Debug, Clone)]
pub(crate) struct JavaZoned {
    pub(crate) zoned: Zoned,
    pub(crate) region: bool,
}

/// Java's `ZonedDateTime.parse`: `None` for text it refuses (no time, no offset, a space for
/// the `T`).
pub(crate) fn parse_zoned(text: &str) -> Option<JavaZoned> {
    if text.contains(' ') {
        return None;
    }
    let pieces = Pieces::parse(text).ok()?;
    let time = pieces.time()?;
    let offset = match pieces.offset()? {
        PiecesOffset::Numeric(n) => n.offset(),
        _ => Offset::UTC,
    };
    let local = pieces.date().to_datetime(time);
    let instant: Timestamp = offset.to_timestamp(local).ok()?;
    let (zone, region) = match pieces.time_zone_annotation() {
        None => (TimeZone::fixed(offset), false),
        Some(annotation) => match annotation.kind() {
            TimeZoneAnnotationKind::Offset(o) => (TimeZone::fixed(*o), false),
            _ => (annotation.to_time_zone().ok()?, true),
        },
    };
    Some(JavaZoned {
        zoned: instant.to_zoned_datetime(zone),
        region,
    })
}

/// Java's `ZonedDateTime.toString()`: `2025-01-02T00:00Z[UTC]`, `2025-03-01T09:30+01:00`
/// (seconds and fractions only when not zero, milli/micro/nano precision as needed; the zone in
/// brackets unless it is a fixed offset).
pub(crate) fn java_text(value: &JavaZoned) -> String {
    let z = &value.zoned;
    let dt = z.datetime();
    let mut out = String::with_capacity(32);
    let year = dt.year();
    if year > 9999 {
        out.push('+');
    }
    let _ = write!(
        out,
        "{year:04}-{:02}-{:02}T{:02}:{:02}",
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute()
    );
    let nanos = dt.subsec_nanosecond();
    if dt.second() != 0 || nanos != 0 {
        let _ = write!(out, ":{:02}", dt.second());
        if nanos != 0 {
            if nanos % 1_000_000 == 0 {
                let _ = write!(out, ".{:03}", nanos / 1_000_000);
            } else if nanos % 1_000 == 0 {
                let _ = write!(out, ".{:06}", nanos / 1_000);
            } else {
                let _ = write!(out, ".{nanos:09}");
            }
        }
    }
    let seconds = z.offset().seconds();
    if seconds == 0 {
        out.push('Z');
    } else {
        let sign = if seconds < 0 { '-' } else { '+' };
        let s = seconds.unsigned_abs();
        let _ = write!(out, "{sign}{:02}:{:02}", s / 3600, (s / 60) % 60);
        if !s.is_multiple_of(60) {
            let _ = write!(out, ":{:02}", s % 60);
        }
    }
    if value.region {
        let _ = write!(out, "[{}]", z.time_zone().iana_name().unwrap_or("UTC"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_as_java_prints_it() {
        let cases = [
            ("2025-01-02T00:00:00Z", "2025-01-02T00:00Z"),
            ("2025-03-01T09:30:00+01:00", "2025-03-01T09:30+01:00"),
            (
                "2025-03-01T09:30:15.120+01:00",
                "2025-03-01T09:30:15.120+01:00",
            ),
            (
                "2025-03-01T09:30:00.000001-05:00",
                "2025-03-01T09:30:00.000001-05:00",
            ),
            (
                "2025-06-01T10:00:00+02:00[Europe/Berlin]",
                "2025-06-01T10:00+02:00[Europe/Berlin]",
            ),
        ];
        for (input, printed) in cases {
            let z = parse_zoned(input).unwrap_or_else(|| panic!("{input}"));
            assert_eq!(java_text(&z), printed, "{input}");
        }
        let utc = JavaZoned {
            zoned: Timestamp::from_second(86_400)
                .unwrap()
                .to_zoned_datetime(TimeZone::UTC),
            region: true,
        };
        assert_eq!(java_text(&utc), "1970-01-02T00:00Z[UTC]");
    }

    #[test]
    fn what_java_refuses() {
        for text in [
            "tomorrow",
            "2025-01-01",
            "2025-01-01T10:00:00",
            "2025-01-01 10:00:00Z",
            "2025-01-01T10:00:00[Europe/Berlin]",
        ] {
            assert!(parse_zoned(text).is_none(), "{text}");
        }
    }
}
