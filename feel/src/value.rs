//! FEEL values: cheap to clone (lists, contexts, ranges and functions are behind an `Arc`,
//! strings are `Arc<str>`), compared and printed as feel-scala does.

use std::any::Any;
use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;
use jiff::SignedDuration;
use jiff::civil;

use crate::number::Number;
use crate::temporal::{DateTime, DisplayDate, DisplayDayTime, Time, YearMonthDuration};

/// A FEEL value.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// `null`
    #[default]
    Null,
    /// `true` / `false`
    Boolean(bool),
    /// A decimal number.
    Number(Number),
    /// A string.
    String(Arc<str>),
    /// A calendar date.
    Date(civil::Date),
    /// A time of day, local or with an offset (behind an `Arc` to keep `Value` small).
    Time(Arc<Time>),
    /// A date and time, local or zoned (behind an `Arc` to keep `Value` small).
    DateTime(Arc<DateTime>),
    /// A days-and-time duration.
    DayTimeDuration(SignedDuration),
    /// A years-and-months duration.
    YearMonthDuration(YearMonthDuration),
    /// A list.
    List(Arc<List>),
    /// A context (ordered entries).
    Context(Arc<Context>),
    /// A range such as `[1..10)`.
    Range(Arc<Range>),
    /// A function (user-defined or built-in).
    Function(Arc<Function>),
}

/// The items of a FEEL list.
///
/// Usually a vector. A list of one value repeated `len` times (what `for` gives when its body
/// does not depend on the iterator, e.g. `for x in 1..1000000 return "a"`) is stored as the
/// value and the count: `len`, `get` and `iter` never build the vector, and only code that
/// needs the items as a slice (`Deref`) builds it, once.
pub struct List(ListRepr);

enum ListRepr {
    Items(Vec<Value>),
    Repeat {
        value: Value,
        len: usize,
        items: OnceLock<Vec<Value>>,
    },
}

impl List {
    /// A list of these items.
    pub fn new(items: Vec<Value>) -> List {
        List(ListRepr::Items(items))
    }

    /// `value`, `len` times (without storing it `len` times).
    pub fn repeat(value: Value, len: usize) -> List {
        List(ListRepr::Repeat {
            value,
            len,
            items: OnceLock::new(),
        })
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        match &self.0 {
            ListRepr::Items(items) => items.len(),
            ListRepr::Repeat { len, .. } => *len,
        }
    }

    /// True if the list has no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The item at `index` (from 0).
    pub fn get(&self, index: usize) -> Option<&Value> {
        match &self.0 {
            ListRepr::Items(items) => items.get(index),
            ListRepr::Repeat { value, len, .. } => (index < *len).then_some(value),
        }
    }

    /// The first item.
    pub fn first(&self) -> Option<&Value> {
        self.get(0)
    }

    /// The last item.
    pub fn last(&self) -> Option<&Value> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The items in order.
    pub fn iter(&self) -> ListIter<'_> {
        match &self.0 {
            ListRepr::Items(items) => ListIter(IterRepr::Slice(items.iter())),
            ListRepr::Repeat { value, len, .. } => ListIter(IterRepr::Repeat { value, left: *len }),
        }
    }

    /// The items as a slice (builds a repeated list's vector the first time).
    pub fn as_slice(&self) -> &[Value] {
        match &self.0 {
            ListRepr::Items(items) => items,
            ListRepr::Repeat { value, len, items } => {
                items.get_or_init(|| vec![value.clone(); *len])
            }
        }
    }

    /// A copy of the items.
    pub fn to_vec(&self) -> Vec<Value> {
        self.iter().cloned().collect()
    }

    /// Adds an item at the end (a repeated list becomes a vector first).
    pub fn push(&mut self, value: Value) {
        if let ListRepr::Items(items) = &mut self.0 {
            items.push(value);
            return;
        }
        let mut items = self.to_vec();
        items.push(value);
        self.0 = ListRepr::Items(items);
    }
}

impl Default for List {
    fn default() -> List {
        List::new(Vec::new())
    }
}

impl From<Vec<Value>> for List {
    fn from(items: Vec<Value>) -> List {
        List::new(items)
    }
}

impl FromIterator<Value> for List {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> List {
        List::new(iter.into_iter().collect())
    }
}

impl Clone for List {
    fn clone(&self) -> List {
        match &self.0 {
            ListRepr::Items(items) => List::new(items.clone()),
            ListRepr::Repeat { value, len, .. } => List::repeat(value.clone(), *len),
        }
    }
}

impl std::ops::Deref for List {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        self.as_slice()
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a List {
    type Item = &'a Value;
    type IntoIter = ListIter<'a>;

    fn into_iter(self) -> ListIter<'a> {
        self.iter()
    }
}

/// The items of a [`List`], in order.
#[derive(Clone)]
pub struct ListIter<'a>(IterRepr<'a>);

#[derive(Clone)]
enum IterRepr<'a> {
    Slice(std::slice::Iter<'a, Value>),
    Repeat { value: &'a Value, left: usize },
}

impl<'a> Iterator for ListIter<'a> {
    type Item = &'a Value;

    #[inline]
    fn next(&mut self) -> Option<&'a Value> {
        match &mut self.0 {
            IterRepr::Slice(it) => it.next(),
            IterRepr::Repeat { value, left } => {
                if *left == 0 {
                    return None;
                }
                *left -= 1;
                Some(value)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<&'a Value> {
        match &mut self.0 {
            IterRepr::Slice(it) => it.nth(n),
            IterRepr::Repeat { value, left } => {
                if *left <= n {
                    *left = 0;
                    return None;
                }
                *left -= n + 1;
                Some(value)
            }
        }
    }
}

impl DoubleEndedIterator for ListIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IterRepr::Slice(it) => it.next_back(),
            IterRepr::Repeat { value, left } => {
                if *left == 0 {
                    return None;
                }
                *left -= 1;
                Some(value)
            }
        }
    }
}

impl ExactSizeIterator for ListIter<'_> {
    fn len(&self) -> usize {
        match &self.0 {
            IterRepr::Slice(it) => it.len(),
            IterRepr::Repeat { left, .. } => *left,
        }
    }
}

/// The entries of a FEEL context, in insertion order. Keys are hashed with FxHash (fast for
/// short names; the order never depends on it). Make one with `Context::default()`.
pub type Context = IndexMap<Arc<str>, Value, rustc_hash::FxBuildHasher>;

/// One end of a range.
#[derive(Clone, Debug)]
pub struct Bound {
    /// The end point (may be `null` for an open-ended range such as `< 5`).
    pub value: Value,
    /// `[`/`]` (true) or `(`/`)` (false).
    pub closed: bool,
}

/// A FEEL range.
#[derive(Clone, Debug)]
pub struct Range {
    /// The lower end.
    pub start: Bound,
    /// The upper end.
    pub end: Bound,
}

/// A function value.
#[derive(Debug)]
pub enum Function {
    /// `function(x, y) body` with the local names it saw when it was defined.
    User {
        /// Parameter names.
        params: Vec<Arc<str>>,
        /// The body (shared with the parsed expression).
        body: FunctionBody,
        /// Local variables visible where the function was defined (closure).
        captured: Vec<(Arc<str>, Value)>,
    },
    /// A built-in function, by name (all its overloads).
    Builtin(&'static str),
    /// A function the caller provides as a variable value (e.g. the connector runtime's
    /// `bpmnError`): not a built-in, so it exists only where the caller passes it.
    Native(NativeFunction),
}

/// The body of a user-defined function: a node of the parsed expression's syntax tree, which
/// only the evaluator reads. A value holds it without naming its type: the syntax tree holds
/// values (its constants), so it sits above them.
#[derive(Clone)]
pub struct FunctionBody(Arc<dyn Any + Send + Sync>);

impl FunctionBody {
    pub(crate) fn new(body: Arc<dyn Any + Send + Sync>) -> FunctionBody {
        FunctionBody(body)
    }

    /// The body as the evaluator made it (`None` for a body of another type).
    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl fmt::Debug for FunctionBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FunctionBody")
    }
}

/// What a [`NativeFunction`] runs: the arguments of the chosen overload in its parameter order
/// (a named argument left out is `null`); `Err` is the reason the call failed, reported as
/// feel-scala reports a failing function (a `FUNCTION_INVOCATION_FAILURE` warning, result `null`).
pub type NativeBody = dyn Fn(&[Value]) -> Result<Value, String> + Send + Sync;

/// A function implemented in Rust by the caller, with one or more overloads (parameter lists).
/// Put it into the variables as `Value::Function(Arc::new(Function::Native(..)))`.
#[derive(Clone)]
pub struct NativeFunction {
    /// The name (for messages).
    pub name: Arc<str>,
    /// The parameter names of each overload; a positional call picks the overload with as many
    /// parameters, a named call the first overload that has every name given.
    pub overloads: Vec<Vec<Arc<str>>>,
    /// The implementation.
    pub body: Arc<NativeBody>,
}

impl NativeFunction {
    /// A function `name` with these overloads and body.
    pub fn new(
        name: &str,
        overloads: &[&[&str]],
        body: impl Fn(&[Value]) -> Result<Value, String> + Send + Sync + 'static,
    ) -> NativeFunction {
        NativeFunction {
            name: name.into(),
            overloads: overloads
                .iter()
                .map(|params| params.iter().map(|p| Arc::from(*p)).collect())
                .collect(),
            body: Arc::new(body),
        }
    }

    /// The function as a FEEL value.
    pub fn into_value(self) -> Value {
        Value::Function(Arc::new(Function::Native(self)))
    }
}

impl fmt::Debug for NativeFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NativeFunction")
            .field("name", &self.name)
            .field("overloads", &self.overloads)
            .finish_non_exhaustive()
    }
}

impl Value {
    /// A string value.
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A number value from an integer.
    pub fn int(i: i64) -> Value {
        Value::Number(Number::from(i))
    }

    /// A time value.
    pub fn time(t: Time) -> Value {
        Value::Time(Arc::new(t))
    }

    /// A date-and-time value.
    pub fn date_time(dt: DateTime) -> Value {
        Value::DateTime(Arc::new(dt))
    }

    /// `date and time("...")` of a literal: a date-time, or a date at midnight.
    pub(crate) fn date_time_from_text(text: &str) -> Option<Value> {
        if let Some(d) = crate::temporal::parse_date(text) {
            return Some(Value::date_time(DateTime::Local(
                d.to_datetime(civil::Time::midnight()),
            )));
        }
        crate::temporal::parse_date_time(text).map(Value::date_time)
    }

    /// `duration("...")`: years-months if it only has Y/M fields, else days-time.
    pub(crate) fn duration_from_text(text: &str) -> Option<Value> {
        if let Some(ym) = crate::temporal::parse_year_month_duration(text) {
            return Some(Value::YearMonthDuration(ym));
        }
        crate::temporal::parse_day_time_duration(text).map(Value::DayTimeDuration)
    }

    /// A list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Arc::new(List::from(items)))
    }

    /// A context value.
    pub fn context(entries: Context) -> Value {
        Value::Context(Arc::new(entries))
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The FEEL type name (`number`, `string`, `days and time duration`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "Null",
            Value::Boolean(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Date(_) => "date",
            Value::Time(_) => "time",
            Value::DateTime(_) => "date and time",
            Value::DayTimeDuration(_) => "days and time duration",
            Value::YearMonthDuration(_) => "years and months duration",
            Value::List(_) => "list",
            Value::Context(_) => "context",
            Value::Range(_) => "range",
            Value::Function(_) => "function",
        }
    }

    /// feel-scala's equality (`=`): `Some(bool)`, or `None` if the two are not comparable
    /// (different types), which FEEL turns into `null`.
    pub fn feel_eq(&self, other: &Value) -> Option<bool> {
        Some(match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Boolean(a), Value::Boolean(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Date(a), Value::Date(b)) => a == b,
            (Value::Time(a), Value::Time(b)) => a.same(b)?,
            (Value::DateTime(a), Value::DateTime(b)) => a.same(b)?,
            (Value::DayTimeDuration(a), Value::DayTimeDuration(b)) => a == b,
            (Value::YearMonthDuration(a), Value::YearMonthDuration(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                if a.len() != b.len() {
                    return Some(false);
                }
                for (x, y) in a.iter().zip(b.iter()) {
                    if !x.feel_eq(y).unwrap_or(false) {
                        return Some(false);
                    }
                }
                true
            }
            (Value::Context(a), Value::Context(b)) => {
                if a.len() != b.len() {
                    return Some(false);
                }
                for (k, x) in a.iter() {
                    match b.get(k) {
                        Some(y) => {
                            if !x.feel_eq(y).unwrap_or(false) {
                                return Some(false);
                            }
                        }
                        None => return Some(false),
                    }
                }
                true
            }
            (Value::Range(a), Value::Range(b)) => {
                a.start.closed == b.start.closed
                    && a.end.closed == b.end.closed
                    && a.start.value.feel_eq(&b.start.value).unwrap_or(false)
                    && a.end.value.feel_eq(&b.end.value).unwrap_or(false)
            }
            (Value::Function(a), Value::Function(b)) => Arc::ptr_eq(a, b),
            _ => return None,
        })
    }

    /// feel-scala's ordering (`<`, `>`, ...): `None` if the values are not comparable.
    pub fn feel_cmp(&self, other: &Value) -> Option<Ordering> {
        match (self, other) {
            (Value::Number(a), Value::Number(b)) => Some(a.compare(b)),
            (Value::String(a), Value::String(b)) => Some(compare_utf16(a, b)),
            (Value::Date(a), Value::Date(b)) => Some(a.cmp(b)),
            (Value::Time(a), Value::Time(b)) => a.compare(b),
            (Value::DateTime(a), Value::DateTime(b)) => a.compare(b),
            (Value::DayTimeDuration(a), Value::DayTimeDuration(b)) => Some(a.cmp(b)),
            (Value::YearMonthDuration(a), Value::YearMonthDuration(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }

    /// True if values of these two kinds can be ordered against each other.
    pub fn is_comparable_with(&self, other: &Value) -> bool {
        self.feel_cmp(other).is_some()
    }
}

/// java's `String.compareTo` (UTF-16 code units).
fn compare_utf16(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// feel-scala's `Val.toString`, used in warnings and by `string()` for lists/contexts.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::String(s) => write!(f, "\"{s}\""),
            Value::Date(d) => write!(f, "{}", DisplayDate(*d)),
            Value::Time(t) => write!(f, "{t}"),
            Value::DateTime(dt) => write!(f, "{dt}"),
            Value::DayTimeDuration(d) => write!(f, "{}", DisplayDayTime(*d)),
            Value::YearMonthDuration(d) => write!(f, "{d}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Context(c) => {
                f.write_str("{")?;
                for (i, (k, v)) in c.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}:{v}")?;
                }
                f.write_str("}")
            }
            Value::Range(r) => {
                write!(
                    f,
                    "{}{}..{}{}",
                    if r.start.closed { "[" } else { "(" },
                    r.start.value,
                    r.end.value,
                    if r.end.closed { "]" } else { ")" }
                )
            }
            Value::Function(func) => match func.as_ref() {
                Function::User { params, .. } => {
                    write!(
                        f,
                        "function({})",
                        params
                            .iter()
                            .map(|p| p.as_ref())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
                Function::Builtin(name) => write!(f, "function {name}"),
                Function::Native(native) => write!(f, "function {}", native.name),
            },
        }
    }
}

impl PartialEq for Value {
    /// Structural equality for tests: FEEL equality where defined, type mismatch is unequal.
    fn eq(&self, other: &Value) -> bool {
        self.feel_eq(other).unwrap_or(false)
    }
}

/// The text `string(x)` gives: like `Display`, but a top-level string is not quoted.
pub fn to_feel_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => other.to_string(),
    }
}

/// A property of a temporal value or a range (`.year`, `.time offset`, `.start`, ...).
pub(crate) fn property(v: &Value, key: &str) -> Option<Value> {
    let date_prop = |d: jiff::civil::Date| -> Option<Value> {
        Some(match key {
            "year" => Value::int(d.year() as i64),
            "month" => Value::int(d.month() as i64),
            "day" => Value::int(d.day() as i64),
            "weekday" => Value::int(d.weekday().to_monday_one_offset() as i64),
            _ => return None,
        })
    };
    let time_prop = |t: jiff::civil::Time| -> Option<Value> {
        Some(match key {
            "hour" => Value::int(t.hour() as i64),
            "minute" => Value::int(t.minute() as i64),
            "second" => Value::int(t.second() as i64),
            _ => return None,
        })
    };
    match v {
        Value::Date(d) => date_prop(*d),
        Value::Time(t) => time_prop(t.civil()).or_else(|| match (key, t.as_ref()) {
            ("time offset", Time::Zoned { offset, .. }) => Some(Value::DayTimeDuration(
                crate::temporal::offset_duration(*offset),
            )),
            ("time offset", Time::Local(_)) => Some(Value::Null),
            ("timezone", Time::Zoned { zone, .. }) => Some(
                zone.as_ref()
                    .and_then(|z| crate::temporal::zone_name(z))
                    .map(Value::string)
                    .unwrap_or(Value::Null),
            ),
            ("timezone", Time::Local(_)) => Some(Value::Null),
            _ => None,
        }),
        Value::DateTime(dt) => {
            let c = dt.civil();
            date_prop(c.date())
                .or_else(|| time_prop(c.time()))
                .or_else(|| match (key, dt.as_ref()) {
                    ("time offset", DateTime::Zoned(z)) => Some(Value::DayTimeDuration(
                        crate::temporal::offset_duration(z.offset()),
                    )),
                    ("timezone", DateTime::Zoned(z)) => Some(
                        crate::temporal::zone_name(z.time_zone())
                            .map(Value::string)
                            .unwrap_or(Value::Null),
                    ),
                    ("time offset" | "timezone", DateTime::Local(_)) => Some(Value::Null),
                    _ => None,
                })
        }
        Value::DayTimeDuration(d) => {
            let secs = d.as_secs();
            Some(match key {
                "days" => Value::int(secs / 86_400),
                "hours" => Value::int((secs / 3600) % 24),
                "minutes" => Value::int((secs / 60) % 60),
                "seconds" => Value::int(secs % 60),
                _ => return None,
            })
        }
        Value::YearMonthDuration(m) => Some(match key {
            "years" => Value::int(m.0 / 12),
            "months" => Value::int(m.0 % 12),
            _ => return None,
        }),
        Value::Range(r) => Some(match key {
            "start" => r.start.value.clone(),
            "end" => r.end.value.clone(),
            "start included" => Value::Boolean(r.start.closed),
            "end included" => Value::Boolean(r.end.closed),
            _ => return None,
        }),
        _ => None,
    }
}

/// The properties listed in a NO_PROPERTY_FOUND message (feel-scala's order).
pub(crate) fn properties_of(v: &Value) -> &'static [&'static str] {
    match v {
        Value::Date(_) => &["year", "month", "day", "weekday"],
        Value::Time(_) => &["timezone", "second", "time offset", "minute", "hour"],
        Value::DateTime(_) => &[
            "timezone",
            "year",
            "second",
            "month",
            "day",
            "time offset",
            "weekday",
            "minute",
            "hour",
        ],
        Value::DayTimeDuration(_) => &["days", "hours", "minutes", "seconds"],
        Value::YearMonthDuration(_) => &["years", "months"],
        Value::Range(_) => &["start", "end", "start included", "end included"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_list_behaves_as_its_items() {
        let mut list = List::repeat(Value::int(7), 3);
        assert_eq!(list.len(), 3);
        assert_eq!(list.get(2), Some(&Value::int(7)));
        assert_eq!(list.get(3), None);
        assert_eq!(list.iter().rev().count(), 3);
        assert_eq!(list.iter().nth(2), Some(&Value::int(7)));
        assert_eq!(list.iter().nth(3), None);
        assert_eq!(
            list.as_slice(),
            &[Value::int(7), Value::int(7), Value::int(7)]
        );
        list.push(Value::int(8));
        assert_eq!(
            list.to_vec(),
            vec![Value::int(7), Value::int(7), Value::int(7), Value::int(8)]
        );
        assert_eq!(
            format!("{:?}", List::repeat(Value::Null, 2)),
            "[Null, Null]"
        );
    }
}
