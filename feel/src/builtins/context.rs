//! `get entries`, `get value`, `context put`, `context merge`, `context` (and the deprecated
//! `put`/`put all`).

use std::sync::Arc;

use super::{Fail, Out, Registry, list_arg, str_arg};
use crate::eval::Eval;
use crate::value::{Context, Value};

pub(crate) fn register(r: &mut Registry) {
    r.add("get entries", &["context"], get_entries);
    r.add("get entries", &["m"], get_entries);
    r.add("get value", &["m", "key"], get_value);
    r.add("get value", &["context", "key"], get_value);
    r.add("get value", &["context", "keys"], get_value);
    r.add("context put", &["context", "key", "value"], context_put);
    r.add("context put", &["context", "keys", "value"], context_put);
    r.add("put", &["context", "key", "value"], context_put);
    r.add_varargs("context merge", &["contexts"], context_merge);
    r.add_varargs("put all", &["contexts"], context_merge);
    r.add("context", &["entries"], context);
}

fn ctx_arg(v: &Value) -> Result<&Arc<Context>, Fail> {
    match v {
        Value::Context(c) => Ok(c),
        _ => Err(Fail::Illegal),
    }
}

fn get_entries(_: &mut Eval, a: &[Value]) -> Out {
    let c = ctx_arg(&a[0])?;
    Ok(Value::list(
        c.iter()
            .map(|(k, v)| {
                let mut e = Context::default();
                e.insert("key".into(), Value::String(k.clone()));
                e.insert("value".into(), v.clone());
                Value::context(e)
            })
            .collect(),
    ))
}

fn get_value(_: &mut Eval, a: &[Value]) -> Out {
    let c = ctx_arg(&a[0])?;
    match &a[1] {
        Value::String(k) => Ok(c.get(k.as_ref()).cloned().unwrap_or(Value::Null)),
        Value::List(keys) if keys.is_empty() => Ok(Value::Null),
        Value::List(keys) => {
            let mut cur = Value::Context(c.clone());
            for k in keys.iter() {
                let k = str_arg(k)?;
                cur = match &cur {
                    Value::Context(c) => c.get(k).cloned().unwrap_or(Value::Null),
                    _ => return Ok(Value::Null),
                };
            }
            Ok(cur)
        }
        _ => Err(Fail::Illegal),
    }
}

fn put_path(c: &Context, keys: &[Arc<str>], value: Value) -> Context {
    let mut out = c.clone();
    let (first, rest) = keys.split_first().expect("non-empty keys");
    if rest.is_empty() {
        out.insert(first.clone(), value);
    } else {
        let inner = match c.get(first.as_ref()) {
            Some(Value::Context(ic)) => put_path(ic, rest, value),
            _ => put_path(&Context::default(), rest, value),
        };
        out.insert(first.clone(), Value::context(inner));
    }
    out
}

fn context_put(ev: &mut Eval, a: &[Value]) -> Out {
    let c = ctx_arg(&a[0])?;
    let keys: Vec<Arc<str>> = match &a[1] {
        Value::String(k) => vec![k.clone()],
        Value::List(ks) => {
            let mut out = Vec::new();
            for k in ks.iter() {
                match k {
                    Value::String(s) => out.push(s.clone()),
                    _ => return Err(Fail::Illegal),
                }
            }
            out
        }
        _ => return Err(Fail::Illegal),
    };
    if keys.is_empty() {
        return Err(Fail::Illegal);
    }
    // each key is a context inside the one before
    if keys.len() > ev.env.limits.max_depth {
        return Err(Fail::Fatal(ev.failure(format!(
            "context put with {} keys would nest contexts deeper than {} levels",
            keys.len(),
            ev.env.limits.max_depth
        ))));
    }
    Ok(Value::context(put_path(c, &keys, a[2].clone())))
}

fn context_merge(_: &mut Eval, a: &[Value]) -> Out {
    let items = list_arg(&a[0])?;
    let mut out = Context::default();
    for i in items.iter() {
        let c = ctx_arg(i)?;
        for (k, v) in c.iter() {
            out.insert(k.clone(), v.clone());
        }
    }
    Ok(Value::context(out))
}

fn context(_: &mut Eval, a: &[Value]) -> Out {
    let items = list_arg(&a[0])?;
    let mut out = Context::default();
    for i in items.iter() {
        let e = ctx_arg(i)?;
        let (Some(Value::String(k)), Some(v)) = (e.get("key"), e.get("value")) else {
            return Err(Fail::Illegal);
        };
        out.insert(k.clone(), v.clone());
    }
    Ok(Value::context(out))
}
