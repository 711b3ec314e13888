//! The range functions of DMN 1.4 (`before`, `after`, `meets`, `overlaps`, `includes`, ...),
//! for points and ranges alike.

use std::cmp::Ordering;

use super::{Fail, Out, Registry};
use crate::value::{Range, Value};

type Rel = fn(&Value, &Value) -> Result<bool, Fail>;

pub(crate) fn register(r: &mut Registry) {
    for params in [
        &["point1", "point2"][..],
        &["point", "range"],
        &["range", "point"],
        &["range1", "range2"],
    ] {
        r.add("before", params, |_, a| run(a, before));
        r.add("after", params, |_, a| run(a, |x, y| before(y, x)));
    }
    r.add("meets", &["range1", "range2"], |_, a| run(a, meets));
    r.add("met by", &["range1", "range2"], |_, a| {
        run(a, |x, y| meets(y, x))
    });
    r.add("overlaps", &["range1", "range2"], |_, a| run(a, overlaps));
    r.add("overlaps before", &["range1", "range2"], |_, a| {
        run(a, overlaps_before)
    });
    r.add("overlaps after", &["range1", "range2"], |_, a| {
        run(a, |x, y| overlaps_before(y, x))
    });
    for params in [&["point", "range"][..], &["range1", "range2"]] {
        r.add("finishes", params, |_, a| run(a, finishes));
        r.add("finished by", params, |_, a| run(a, |x, y| finishes(y, x)));
        r.add("during", params, |_, a| run(a, |x, y| includes(y, x)));
        r.add("starts", params, |_, a| run(a, starts));
    }
    for params in [&["range", "point"][..], &["range1", "range2"]] {
        r.add("includes", params, |_, a| run(a, includes));
        r.add("started by", params, |_, a| run(a, |x, y| starts(y, x)));
    }
    r.add("coincides", &["point1", "point2"], |_, a| run(a, coincides));
    r.add("coincides", &["range1", "range2"], |_, a| run(a, coincides));
}

fn run(a: &[Value], rel: Rel) -> Out {
    let point_ok = |v: &Value| match v {
        Value::Range(r) => point(&r.start.value) && point(&r.end.value),
        other => point(other),
    };
    if !point_ok(&a[0]) || !point_ok(&a[1]) {
        return Err(Fail::Illegal);
    }
    rel(&a[0], &a[1]).map(Value::Boolean)
}

/// Values a range function accepts as points (not strings, not null).
fn point(v: &Value) -> bool {
    matches!(
        v,
        Value::Number(_)
            | Value::Date(_)
            | Value::Time(_)
            | Value::DateTime(_)
            | Value::DayTimeDuration(_)
            | Value::YearMonthDuration(_)
    )
}

fn cmp(a: &Value, b: &Value) -> Result<Ordering, Fail> {
    a.feel_cmp(b).ok_or(Fail::Illegal)
}

fn eq(a: &Value, b: &Value) -> Result<bool, Fail> {
    Ok(cmp(a, b)? == Ordering::Equal)
}

fn lt(a: &Value, b: &Value) -> Result<bool, Fail> {
    Ok(cmp(a, b)? == Ordering::Less)
}

fn gt(a: &Value, b: &Value) -> Result<bool, Fail> {
    Ok(cmp(a, b)? == Ordering::Greater)
}

fn as_range(v: &Value) -> Option<&Range> {
    match v {
        Value::Range(r) => Some(r),
        _ => None,
    }
}

fn before(x: &Value, y: &Value) -> Result<bool, Fail> {
    match (as_range(x), as_range(y)) {
        (None, None) => lt(x, y),
        (None, Some(r)) => {
            Ok(lt(x, &r.start.value)? || (eq(x, &r.start.value)? && !r.start.closed))
        }
        (Some(r), None) => Ok(lt(&r.end.value, y)? || (eq(&r.end.value, y)? && !r.end.closed)),
        (Some(a), Some(b)) => Ok(lt(&a.end.value, &b.start.value)?
            || (eq(&a.end.value, &b.start.value)? && (!a.end.closed || !b.start.closed))),
    }
}

fn both_ranges<'a>(x: &'a Value, y: &'a Value) -> Result<(&'a Range, &'a Range), Fail> {
    match (as_range(x), as_range(y)) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(Fail::Illegal),
    }
}

fn meets(x: &Value, y: &Value) -> Result<bool, Fail> {
    let (a, b) = both_ranges(x, y)?;
    Ok(a.end.closed && b.start.closed && eq(&a.end.value, &b.start.value)?)
}

fn overlaps(x: &Value, y: &Value) -> Result<bool, Fail> {
    let (a, b) = both_ranges(x, y)?;
    let left = gt(&a.end.value, &b.start.value)?
        || (eq(&a.end.value, &b.start.value)? && a.end.closed && b.start.closed);
    let right = lt(&a.start.value, &b.end.value)?
        || (eq(&a.start.value, &b.end.value)? && a.start.closed && b.end.closed);
    Ok(left && right)
}

fn overlaps_before(x: &Value, y: &Value) -> Result<bool, Fail> {
    let (a, b) = both_ranges(x, y)?;
    let c1 = lt(&a.start.value, &b.start.value)?
        || (eq(&a.start.value, &b.start.value)? && a.start.closed && !b.start.closed);
    let c2 = gt(&a.end.value, &b.start.value)?
        || (eq(&a.end.value, &b.start.value)? && a.end.closed && b.start.closed);
    let c3 = lt(&a.end.value, &b.end.value)?
        || (eq(&a.end.value, &b.end.value)? && (!a.end.closed || b.end.closed));
    Ok(c1 && c2 && c3)
}

fn finishes(x: &Value, y: &Value) -> Result<bool, Fail> {
    match (as_range(x), as_range(y)) {
        (None, Some(r)) => Ok(r.end.closed && eq(x, &r.end.value)?),
        (Some(a), Some(b)) => Ok(a.end.closed == b.end.closed
            && eq(&a.end.value, &b.end.value)?
            && (gt(&a.start.value, &b.start.value)?
                || (eq(&a.start.value, &b.start.value)? && (!a.start.closed || b.start.closed)))),
        _ => Err(Fail::Illegal),
    }
}

fn includes(x: &Value, y: &Value) -> Result<bool, Fail> {
    match (as_range(x), as_range(y)) {
        (Some(r), None) => {
            let lo = gt(y, &r.start.value)? || (r.start.closed && eq(y, &r.start.value)?);
            let hi = lt(y, &r.end.value)? || (r.end.closed && eq(y, &r.end.value)?);
            Ok(lo && hi)
        }
        (Some(a), Some(b)) => {
            let lo = lt(&a.start.value, &b.start.value)?
                || (eq(&a.start.value, &b.start.value)? && (a.start.closed || !b.start.closed));
            let hi = gt(&a.end.value, &b.end.value)?
                || (eq(&a.end.value, &b.end.value)? && (a.end.closed || !b.end.closed));
            Ok(lo && hi)
        }
        _ => Err(Fail::Illegal),
    }
}

fn starts(x: &Value, y: &Value) -> Result<bool, Fail> {
    match (as_range(x), as_range(y)) {
        (None, Some(r)) => Ok(r.start.closed && eq(x, &r.start.value)?),
        (Some(a), Some(b)) => Ok(eq(&a.start.value, &b.start.value)?
            && a.start.closed == b.start.closed
            && (lt(&a.end.value, &b.end.value)?
                || (eq(&a.end.value, &b.end.value)? && (!a.end.closed || b.end.closed)))),
        _ => Err(Fail::Illegal),
    }
}

fn coincides(x: &Value, y: &Value) -> Result<bool, Fail> {
    match (as_range(x), as_range(y)) {
        (None, None) => eq(x, y),
        (Some(a), Some(b)) => Ok(eq(&a.start.value, &b.start.value)?
            && eq(&a.end.value, &b.end.value)?
            && a.start.closed == b.start.closed
            && a.end.closed == b.end.closed),
        _ => Err(Fail::Illegal),
    }
}
