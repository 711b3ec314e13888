//! What Zeebe requires of expression-valued attributes at deploy time: present or not, an
//! expression (`=...`) or a static value, and the form of static values (timers, dates,
//! candidate lists, priorities, variable paths). Messages are Zeebe's (`ZeebeExpressionValidator`,
//! `TimerCatchEventExpressionValidator`).

use crate::model::Expr;

/// How one attribute is checked.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Requirement {
    /// Absent is an error ("Expected expression but not found.").
    pub mandatory: bool,
    /// A static value is an error: it must start with `=`.
    pub non_static: bool,
    /// What a static value must look like.
    pub static_form: Option<StaticForm>,
}

impl Requirement {
    pub const OPTIONAL: Requirement = Requirement {
        mandatory: false,
        non_static: false,
        static_form: None,
    };
    pub const MANDATORY: Requirement = Requirement {
        mandatory: true,
        non_static: false,
        static_form: None,
    };
    pub const EXPRESSION: Requirement = Requirement {
        mandatory: true,
        non_static: true,
        static_form: None,
    };
    pub const OPTIONAL_EXPRESSION: Requirement = Requirement {
        mandatory: false,
        non_static: true,
        static_form: None,
    };

    pub const fn with_form(self, form: StaticForm) -> Requirement {
        Requirement {
            static_form: Some(form),
            ..self
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum StaticForm {
    /// `a,b,c`.
    ListOfCsv,
    /// An ISO 8601 date-time with offset or zone.
    DateTime,
    /// An integer (the range is checked separately).
    Integer,
}

impl StaticForm {
    fn description(self) -> &'static str {
        match self {
            StaticForm::ListOfCsv => "be a list of comma-separated values, e.g. 'a,b,c'",
            StaticForm::DateTime => "be a valid DateTime String, e.g. '2023-03-02T15:35+02:00'",
            StaticForm::Integer => "be a valid Number between 0 and 100",
        }
    }

    fn accepts(self, value: &str) -> bool {
        match self {
            StaticForm::ListOfCsv => is_list_of_csv(value),
            StaticForm::DateTime => parse_date_time(value).is_ok(),
            StaticForm::Integer => value.trim().parse::<i32>().is_ok(),
        }
    }
}

/// The problem with one expression attribute, as Zeebe words it, or `None`.
pub(super) fn problem(expr: Option<&Expr>, requirement: Requirement) -> Option<String> {
    let Some(expr) = expr else {
        return requirement
            .mandatory
            .then(|| "Expected expression but not found.".to_owned());
    };
    if expr.feel().is_some() {
        return None;
    }
    let value = &expr.text;
    if requirement.non_static {
        return Some(format!(
            "Expected expression but found static value '{value}'. An expression must start \
             with '=' (e.g. '={value}')."
        ));
    }
    match requirement.static_form {
        Some(form) if !form.accepts(value) => Some(format!(
            "Expected static value to {}, but found '{value}'.",
            form.description()
        )),
        _ => None,
    }
}

/// Zeebe's `ExpressionTransformer.parseListOfCsv`: comma-separated, no empty entry.
fn is_list_of_csv(value: &str) -> bool {
    value.split(',').all(|entry| !entry.trim().is_empty())
}

const PATH_PATTERN: &str = r"[a-zA-Z_][a-zA-Z0-9_]*(\.[a-zA-Z_][a-zA-Z0-9_]*)*";
const RESERVED_WORDS: &[&str] = &[
    "null", "true", "false", "function", "if", "then", "else", "for", "between", "instance", "of",
];

/// The problems of a variable mapping target (`zeebe:input`/`zeebe:output target`).
pub(super) fn path_problems(target: &str) -> Vec<String> {
    if target.is_empty() {
        return vec!["Expected path expression but not found.".to_owned()];
    }
    let mut problems = Vec::new();
    let is_segment = |segment: &str| {
        let mut chars = segment.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !target.split('.').all(is_segment) {
        problems.push(format!(
            "Expected path expression '{target}' but doesn't match the pattern '{PATH_PATTERN}'."
        ));
    }
    if RESERVED_WORDS.contains(&target) {
        problems.push(format!(
            "Expected path expression '{target}' but is one of the reserved words ({}).",
            RESERVED_WORDS.join(", ")
        ));
    }
    problems
}

/// Which timer field a value comes from.
#[derive(Debug, Clone, Copy)]
pub(super) enum TimerField {
    Duration,
    Date,
    Cycle,
}

/// The problem of a static timer value, worded as Zeebe's `Invalid timer ... expression (...)`.
pub(super) fn timer_problem(field: TimerField, value: &str) -> Option<String> {
    let (name, result) = match field {
        TimerField::Duration => ("duration", parse_duration(value)),
        TimerField::Date => ("date", parse_date_time(value)),
        TimerField::Cycle => ("cycle", parse_cycle(value)),
    };
    result
        .err()
        .map(|detail| format!("Invalid timer {name} expression ({detail})"))
}

/// ISO 8601 durations as Zeebe's `Interval.parse` reads them: a period part (`P1Y2M3W4D`) and a
/// time part (`T5H6M7.5S`), signs allowed, at least one component.
pub(super) fn parse_duration(value: &str) -> Result<(), String> {
    let invalid = || {
        Err(format!(
            "Invalid duration format '{value}' for expression '{value}'"
        ))
    };
    let text = value.trim();
    let text = text.strip_prefix(['-', '+']).unwrap_or(text);
    let Some(rest) = text.strip_prefix(['P', 'p']) else {
        return invalid();
    };
    let (date, time) = match rest.find(['T', 't']) {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let mut components = 0;
    if !components_ok(date, &['Y', 'M', 'W', 'D'], false, &mut components) {
        return invalid();
    }
    if let Some(time) = time {
        let before = components;
        if !components_ok(time, &['H', 'M', 'S'], true, &mut components) || components == before {
            return invalid();
        }
    }
    if components == 0 {
        return invalid();
    }
    Ok(())
}

/// `12D`, `-3H`, `1.5S`: numbers followed by designators in the given order.
fn components_ok(text: &str, designators: &[char], fraction_last: bool, count: &mut usize) -> bool {
    let mut rest = text;
    let mut next = 0;
    while !rest.is_empty() {
        let digits_start = usize::from(rest.starts_with(['-', '+']));
        let number_len = rest[digits_start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .map(|n| n + digits_start);
        let Some(number_len) = number_len else {
            return false;
        };
        let number = &rest[digits_start..number_len];
        let Some(designator) = rest[number_len..].chars().next() else {
            return false;
        };
        let Some(position) = designators[next..]
            .iter()
            .position(|d| d.eq_ignore_ascii_case(&designator))
        else {
            return false;
        };
        let is_seconds = fraction_last && next + position == designators.len() - 1;
        let valid_number = if is_seconds {
            let mut parts = number.splitn(2, ['.', ',']);
            let whole = parts.next().unwrap_or("");
            !whole.is_empty()
                && whole.bytes().all(|b| b.is_ascii_digit())
                && parts.next().is_none_or(|f| {
                    !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit())
                })
        } else {
            !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
        };
        if !valid_number {
            return false;
        }
        next += position + 1;
        *count += 1;
        rest = &rest[number_len + designator.len_utf8()..];
    }
    true
}

/// A date-time with an offset (`2026-03-01T12:00:00Z`, `...+02:00`) and optionally a zone id in
/// brackets, as Java's `ZonedDateTime.parse` accepts it.
pub(super) fn parse_date_time(value: &str) -> Result<(), String> {
    let text = value.trim();
    let parsed = if text.ends_with(']') {
        text.parse::<jiff::ZonedDateTime>().map(|_| ())
    } else {
        text.parse::<jiff::Timestamp>().map(|_| ())
    };
    parsed.map_err(|_| format!("Invalid date-time format '{value}' for expression '{value}'"))
}

/// `R[n]/[start/]duration` (repeating interval) or a Spring cron expression.
fn parse_cycle(value: &str) -> Result<(), String> {
    let text = value.trim();
    if text.starts_with('R') {
        let parts: Vec<&str> = text.split('/').collect();
        let repetitions = &parts[0][1..];
        let valid_repetitions =
            repetitions.is_empty() || repetitions.bytes().all(|b| b.is_ascii_digit());
        let valid = valid_repetitions
            && match parts.len() {
                2 => parse_duration(parts[1]).is_ok(),
                3 => parse_date_time(parts[1]).is_ok() && parse_duration(parts[2]).is_ok(),
                _ => false,
            };
        if valid {
            Ok(())
        } else {
            Err(format!("Invalid repeating interval format '{value}'"))
        }
    } else if is_cron(text) {
        Ok(())
    } else {
        Err(format!(
            "Cron expression '{value}' must consist of 6 fields (seconds minutes hours \
             day-of-month month day-of-week)"
        ))
    }
}

/// A Spring cron expression (six fields, seconds first) or one of its macros.
fn is_cron(text: &str) -> bool {
    const MACROS: &[&str] = &[
        "@yearly",
        "@annually",
        "@monthly",
        "@weekly",
        "@daily",
        "@midnight",
        "@hourly",
    ];
    if MACROS.contains(&text) {
        return true;
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    fields.len() == 6
        && fields.iter().all(|field| {
            field
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "*?,/-#".contains(c))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for ok in [
            "PT15M",
            "P1DT2H",
            "P1M",
            "P2W",
            "PT0.5S",
            "-PT5M",
            "P1Y2M3DT4H5M6S",
            "PT-1H",
        ] {
            assert!(parse_duration(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "P",
            "PT",
            "5 minutes",
            "PT5",
            "P1H",
            "PT1D",
            "1D",
            "PT1M2H",
            "P1.5D",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_and_cycles() {
        for ok in [
            "2026-03-01T12:00:00Z",
            "2026-03-01T12:00+02:00",
            "2026-03-01T12:00:00+01:00[Europe/Berlin]",
        ] {
            assert!(parse_date_time(ok).is_ok(), "{ok}");
        }
        for bad in ["2026-03-01", "2026-03-01T12:00:00", "tomorrow"] {
            assert!(parse_date_time(bad).is_err(), "{bad}");
        }
        for ok in [
            "R5/PT10S",
            "R/P1D",
            "R3/2026-01-01T09:00Z/PT1H",
            "0 0 9-17 * * MON-FRI",
            "@daily",
        ] {
            assert!(parse_cycle(ok).is_ok(), "{ok}");
        }
        for bad in ["R5", "R5/x", "Rx/PT1S", "0 0 9 * *", "every day"] {
            assert!(parse_cycle(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths() {
        assert!(path_problems("order.status").is_empty());
        assert!(path_problems("_x").is_empty());
        assert_eq!(path_problems("").len(), 1);
        assert_eq!(path_problems("a-b").len(), 1);
        assert_eq!(path_problems("a..b").len(), 1);
        assert_eq!(path_problems("null").len(), 1);
    }
}
