//! The virtual clock as tests write it: ISO-8601 durations (`PT5M`, `P1D`, as Java's
//! `Duration` reads them: days are 24 hours, no years, months or weeks) or
//! `std::time::Duration`, and ISO-8601 instants (`2025-01-01T00:00:00Z`).

use std::time::Duration;

use jiff::{SpanRelativeTo, Timestamp, Unit};

/// A length of virtual time: `"PT5M"`, `"P1DT2H"`, or a `std::time::Duration`.
pub trait IntoDuration {
    /// Milliseconds, or why the text is not a duration.
    fn into_millis(self) -> Result<i64, ClockError>;
}

impl IntoDuration for Duration {
    fn into_millis(self) -> Result<i64, ClockError> {
        i64::try_from(self.as_millis()).map_err(|_| ClockError::TooLong { duration: self })
    }
}

impl IntoDuration for &str {
    fn into_millis(self) -> Result<i64, ClockError> {
        parse_duration(self)
    }
}

impl IntoDuration for &String {
    fn into_millis(self) -> Result<i64, ClockError> {
        parse_duration(self)
    }
}

impl IntoDuration for String {
    fn into_millis(self) -> Result<i64, ClockError> {
        parse_duration(&self)
    }
}

/// Why a text is no duration or instant of the clock.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("\"{text}\" is not an ISO-8601 duration such as PT5M, PT1H30M or P2D: {reason}")]
    NotADuration { text: String, reason: String },
    #[error(
        "\"{text}\" uses years, months or weeks; a duration of the clock is days, hours, minutes and seconds (e.g. P30D)"
    )]
    CalendarUnits { text: String },
    #[error("\"{text}\" is longer than the engine clock can count (it ends at {latest})")]
    LongerThanTheClock { text: String, latest: String },
    #[error("\"{text}\": {reason}")]
    OutOfRange { text: String, reason: String },
    #[error("\"{text}\" is negative; the clock only moves forward")]
    Negative { text: String },
    #[error(
        "a duration of {} s is longer than the engine clock can count",
        duration.as_secs()
    )]
    TooLong { duration: Duration },
    #[error("\"{text}\" is not an ISO-8601 instant such as 2025-01-01T09:00:00Z: {reason}")]
    NotAnInstant { text: String, reason: String },
}

/// Parses an ISO-8601 duration the way Java's `Duration.parse` accepts it (`PnDTnHnMn.nS`):
/// the ISO-8601 form only, not the friendly `15 minutes` that jiff also reads (CPT reads a
/// duration with Jackson's `DurationDeserializer`, which is `Duration.parse` for a string).
pub fn parse_duration(text: &str) -> Result<i64, ClockError> {
    static ISO: jiff::fmt::temporal::SpanParser = jiff::fmt::temporal::SpanParser::new();
    let span: jiff::Span = ISO.parse_span(text.trim()).map_err(|e: jiff::Error| {
        if e.to_string().contains("not in the required range") {
            ClockError::LongerThanTheClock {
                text: text.to_string(),
                latest: format_instant(baton_engine::runtime::LATEST_CLOCK_MS),
            }
        } else {
            ClockError::NotADuration {
                text: text.to_string(),
                reason: e.to_string(),
            }
        }
    })?;
    if span.get_years() != 0 || span.get_months() != 0 || span.get_weeks() != 0 {
        return Err(ClockError::CalendarUnits {
            text: text.to_string(),
        });
    }
    let ms = span
        .total((Unit::Millisecond, SpanRelativeTo::days_are_24_hours()))
        .map_err(|e| ClockError::OutOfRange {
            text: text.to_string(),
            reason: e.to_string(),
        })?;
    if ms < 0.0 {
        return Err(ClockError::Negative {
            text: text.to_string(),
        });
    }
    Ok(ms.round() as i64)
}

/// Parses an ISO-8601 instant (`2025-01-01T00:00:00Z`, or with an offset) into epoch
/// milliseconds.
pub fn parse_instant(text: &str) -> Result<i64, ClockError> {
    let t: Timestamp = text
        .trim()
        .parse()
        .map_err(|e: jiff::Error| ClockError::NotAnInstant {
            text: text.to_string(),
            reason: e.to_string(),
        })?;
    Ok(t.as_millisecond())
}

/// Epoch milliseconds as an ISO-8601 instant in UTC.
pub fn format_instant(ms: i64) -> String {
    match Timestamp::from_millisecond(ms) {
        Ok(t) => t.to_string(),
        Err(_) => format!("{ms} ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_java() {
        assert_eq!(parse_duration("PT5M").unwrap(), 300_000);
        assert_eq!(parse_duration("P1DT1H").unwrap(), 90_000_000);
        assert_eq!(parse_duration("PT0.5S").unwrap(), 500);
        assert_eq!(parse_duration("PT0S").unwrap(), 0);
        assert!(matches!(
            parse_duration("P1M"),
            Err(ClockError::CalendarUnits { .. })
        ));
        assert!(
            parse_duration("P1M")
                .unwrap_err()
                .to_string()
                .contains("months")
        );
        assert!(parse_duration("five minutes").is_err());
        // jiff's friendly form is no ISO-8601 duration: Java's Duration.parse refuses it.
        for friendly in ["15 minutes", "5m", "1h 30m", "2 days"] {
            assert!(
                matches!(
                    parse_duration(friendly),
                    Err(ClockError::NotADuration { .. })
                ),
                "{friendly}"
            );
        }
        assert_eq!(parse_duration("pt5m").unwrap(), 300_000);
        assert_eq!(Duration::from_secs(2).into_millis().unwrap(), 2000);
    }

    #[test]
    fn instants_round_trip() {
        let ms = parse_instant("2025-01-01T00:00:00Z").unwrap();
        assert_eq!(ms, 1_735_689_600_000);
        assert_eq!(format_instant(ms), "2025-01-01T00:00:00Z");
        assert_eq!(
            parse_instant("2025-01-01T01:00:00+01:00").unwrap(),
            1_735_689_600_000
        );
    }
}
