//! The built-in functions of feel-scala (all names and overloads of `builtins.json`, with their
//! parameter names for named arguments) and Zeebe's `cycle` and `fromAi`.
//!
//! Each function takes its evaluated arguments in declaration order. A call that matches no
//! overload is a NO_FUNCTION_FOUND warning; arguments of the wrong type are a
//! FUNCTION_INVOCATION_FAILURE ("Illegal arguments"), both yielding `null` as feel-scala does.

mod boolean;
mod context;
mod conversion;
mod list;
mod numeric;
mod pattern;
mod range;
mod string;
mod temporal;
mod zeebe;

use std::sync::{Arc, LazyLock};

use rustc_hash::FxHashMap as HashMap;

use crate::error::{Failure, WarningKind};
use crate::eval::{CallArgs, Eval, R, Shown};
use crate::value::{List, Value};

/// Why a built-in gave no value.
pub(crate) enum Fail {
    /// Arguments of the wrong type or shape ("Illegal arguments: ...").
    Illegal,
    /// A failure with feel-scala's explanation ("start position must be a non-zero number").
    Msg(String),
    /// The evaluation fails (assert).
    Fatal(Failure),
}

pub(crate) type Out = Result<Value, Fail>;
pub(crate) type BuiltinFn = fn(&mut Eval, &[Value]) -> Out;

/// One overload: parameter names (for named arguments) and the implementation.
pub(crate) struct Overload {
    pub params: &'static [&'static str],
    /// The last parameter also takes the remaining arguments as a list.
    pub varargs: bool,
    pub f: BuiltinFn,
}

/// All overloads of one name, in declaration order.
pub(crate) struct Builtin {
    pub overloads: Vec<Overload>,
}

/// Collects registrations.
pub(crate) struct Registry(HashMap<&'static str, Builtin>);

impl Registry {
    pub fn add(&mut self, name: &'static str, params: &'static [&'static str], f: BuiltinFn) {
        self.0
            .entry(name)
            .or_insert_with(|| Builtin {
                overloads: Vec::new(),
            })
            .overloads
            .push(Overload {
                params,
                varargs: false,
                f,
            });
    }

    pub fn add_varargs(
        &mut self,
        name: &'static str,
        params: &'static [&'static str],
        f: BuiltinFn,
    ) {
        self.0
            .entry(name)
            .or_insert_with(|| Builtin {
                overloads: Vec::new(),
            })
            .overloads
            .push(Overload {
                params,
                varargs: true,
                f,
            });
    }
}

static REGISTRY: LazyLock<HashMap<&'static str, Builtin>> = LazyLock::new(|| {
    let mut r = Registry(HashMap::default());
    boolean::register(&mut r);
    context::register(&mut r);
    conversion::register(&mut r);
    list::register(&mut r);
    numeric::register(&mut r);
    range::register(&mut r);
    string::register(&mut r);
    temporal::register(&mut r);
    zeebe::register(&mut r);
    r.0
});

/// The overloads of a built-in name.
pub(crate) fn lookup(name: &str) -> Option<&'static Builtin> {
    REGISTRY.get(name)
}

/// All built-in names (sorted), for documentation and tests.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = REGISTRY.keys().copied().collect();
    v.sort_unstable();
    v
}

/// The parameter lists of a built-in's overloads.
pub fn overloads(name: &str) -> Vec<Vec<&'static str>> {
    lookup(name)
        .map(|b| b.overloads.iter().map(|o| o.params.to_vec()).collect())
        .unwrap_or_default()
}

/// The overload taking `args` and the arguments as it takes them (varargs as a list), or the
/// arguments back if none does.
fn select_positional(
    b: &'static Builtin,
    mut args: Vec<Value>,
) -> Result<(&'static Overload, Vec<Value>), Vec<Value>> {
    let n = args.len();
    if let Some(o) = b.overloads.iter().find(|o| o.params.len() == n) {
        if o.varargs {
            let last = args.pop().unwrap_or(Value::Null);
            let last = if o.params.len() == 1 {
                match last {
                    Value::List(_) => last,
                    other => Value::list(vec![other]),
                }
            } else {
                Value::list(vec![last])
            };
            args.push(last);
        }
        return Ok((o, args));
    }
    let Some(o) = b
        .overloads
        .iter()
        .find(|o| o.varargs && n >= o.params.len().saturating_sub(1) && n > 0)
    else {
        return Err(args);
    };
    let fixed = o.params.len() - 1;
    let rest: Vec<Value> = args.split_off(fixed);
    args.push(Value::list(rest));
    Ok((o, args))
}

fn select_named(
    b: &'static Builtin,
    args: &[(Arc<str>, Value)],
) -> Option<(&'static Overload, Vec<Value>)> {
    let o = b.overloads.iter().find(|o| {
        o.params.len() == args.len() && args.iter().all(|(n, _)| o.params.contains(&n.as_ref()))
    })?;
    let values = o
        .params
        .iter()
        .map(|p| {
            args.iter()
                .find(|(n, _)| n.as_ref() == *p)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        })
        .collect();
    Some((o, values))
}

/// Calls a built-in by name with evaluated arguments.
pub(crate) fn invoke(ev: &mut Eval, name: &str, b: &'static Builtin, args: CallArgs) -> R {
    let selected = match args {
        CallArgs::Positional(a) => {
            select_positional(b, a).map_err(|a| ev.no_function(name, &CallArgs::Positional(a)))
        }
        CallArgs::Named(a) => {
            select_named(b, &a).ok_or_else(|| ev.no_function(name, &CallArgs::Named(a)))
        }
    };
    let (o, values) = match selected {
        Ok(s) => s,
        Err(null) => return Ok(null),
    };
    // a call visits its arguments' items (a list of a million is no single step)
    let visited = values
        .iter()
        .map(|v| match v {
            Value::List(items) => items.len(),
            Value::Context(entries) => entries.len(),
            Value::String(s) => s.len() / 64,
            _ => 0,
        })
        .sum();
    ev.charge_steps(visited)?;
    match (o.f)(ev, &values) {
        Ok(v) => {
            ev.charge_result(&v)?;
            Ok(v)
        }
        Err(Fail::Illegal) => Ok(ev.null(WarningKind::FunctionInvocationFailure, || {
            let shown: Vec<String> = values.iter().map(|v| format!("'{}'", Shown(v))).collect();
            format!(
                "Failed to invoke function '{name}': Illegal arguments: {}",
                shown.join(", ")
            )
        })),
        Err(Fail::Msg(m)) => Ok(ev.null(WarningKind::FunctionInvocationFailure, || {
            format!("Failed to invoke function '{name}': {}", Shown(&m))
        })),
        Err(Fail::Fatal(f)) => Err(f),
    }
}

// ---------- helpers shared by the function families ----------

use crate::number::Number;

pub(crate) fn num(v: &Value) -> Result<&Number, Fail> {
    match v {
        Value::Number(n) => Ok(n),
        _ => Err(Fail::Illegal),
    }
}

/// An integer argument; a fraction is cut off as java's `intValue()` does.
pub(crate) fn int(v: &Value) -> Result<i64, Fail> {
    num(v)?
        .with_scale(0, crate::number::Rounding::Down)
        .to_i64()
        .ok_or(Fail::Illegal)
}

pub(crate) fn str_arg(v: &Value) -> Result<&str, Fail> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(Fail::Illegal),
    }
}

pub(crate) fn list_arg(v: &Value) -> Result<&Arc<List>, Fail> {
    match v {
        Value::List(l) => Ok(l),
        _ => Err(Fail::Illegal),
    }
}

pub(crate) fn boolean(b: bool) -> Out {
    Ok(Value::Boolean(b))
}
